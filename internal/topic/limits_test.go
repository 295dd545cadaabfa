package topic

import (
	"fmt"
	"strings"
	"testing"
)

// entries returns n comma-separated items made by item.
func entries(n int, item func(i int) string) string {
	s := make([]string, n)
	for i := range s {
		s[i] = item(i)
	}
	return strings.Join(s, ", ")
}

// doubling returns a mapping whose merge keys name the previous level
// twice, n levels deep: 2^n mappings once expanded, in a few hundred bytes.
func doubling(n int) string {
	l := "&a0 {x: 1}"
	for i := 1; i <= n; i++ {
		l = fmt.Sprintf("&a%d {<<: [%s, *a%d]}", i, l, i-1)
	}
	return l
}

// TestParseRefusesCostlyShapes: the topic files that made Parse quadratic
// or exponential, all within MaxFileBytes, are refused before the typed
// decoding with an error naming the field, and the error stays short.
// Before checkShape, 4,000 copies of one key (20 KB) took 7 s and 3 GB
// (yaml.v3 records an error for every equal pair of keys), 27,000 keywords
// 2 s, and 9,000 seeds against 65,000 scope hosts 3 s.
func TestParseRefusesCostlyShapes(t *testing.T) {
	const base = "name: t\nseeds: [http://x.test/]\n"
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"repeated key", base + "keywords: {" + strings.Repeat("a: 1, ", 1000) + "}\n",
			[]string{"keywords (line 3)", `key "a" is already defined at line 3`}},
		{"repeated strategy parameter", base + "keywords: {a: 1}\nstrategy: {page_filter: {name: vsm, " + strings.Repeat("t: 1, ", 999) + "}}\n",
			[]string{"strategy.page_filter (line 4)", `key "t" is already defined`}},
		{"keywords", base + "keywords: {" + entries(MaxEntries+1, func(i int) string { return fmt.Sprintf("k%d: 1", i) }) + "}\n",
			[]string{"keywords (line 3)", fmt.Sprintf("a mapping of %d entries; at most %d", MaxEntries+1, MaxEntries)}},
		{"seeds", "name: t\nkeywords: {a: 1}\nseeds: [" + entries(MaxEntries+1, func(i int) string { return fmt.Sprintf("http://x.test/%d", i) }) + "]\n",
			[]string{"seeds (line 3)", fmt.Sprintf("a list of %d entries; at most %d", MaxEntries+1, MaxEntries)}},
		{"scope hosts", base + "keywords: {a: 1}\nscope: {hosts: [" + strings.Repeat("x.test, ", MaxEntries+1) + "]}\n",
			[]string{"scope.hosts (line 4)", "a list of"}},
		{"nested list", base + "keywords: {a: 1}\nstrategy: {page_filter: {name: vsm, p: [1, [" + strings.Repeat("1,", MaxEntries+1) + "]]}}\n",
			[]string{"strategy.page_filter.p[1] (line 4)", "a list of"}},
		{"merge keys doubling", base + "keywords: " + doubling(20) + "\n",
			[]string{fmt.Sprintf("more than %d YAML nodes once its aliases are expanded", MaxNodes)}},
		{"aliased lists", base + "keywords: {a: 1}\nstrategy: {page_filter: {name: vsm, r: &r [" + strings.Repeat("1,", MaxEntries) + "], l: [" + strings.Repeat("*r,", MaxNodes/MaxEntries) + "]}}\n",
			[]string{fmt.Sprintf("more than %d YAML nodes", MaxNodes)}},
		{"alias inside its anchor", base + "keywords: {a: 1}\nstrategy: {page_filter: &p {name: vsm, p: [*p]}}\n",
			[]string{"strategy.page_filter.p[0] (line 4)", "an alias names a node that contains it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.yaml) > MaxFileBytes {
				t.Fatalf("test input of %d bytes is over MaxFileBytes", len(tc.yaml))
			}
			_, err := Parse([]byte(tc.yaml))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			// One error, not one per entry or per pair of entries.
			if n := len(err.Error()); n > 200 {
				t.Errorf("a %d-byte error: %.200q...", n, err)
			}
		})
	}
}

// TestParseAcceptsShapesAtTheLimits: MaxEntries seeds, scope hosts and
// keywords, and aliases up to MaxNodes, are still topic files.
func TestParseAcceptsShapesAtTheLimits(t *testing.T) {
	seeds := entries(MaxEntries, func(i int) string { return fmt.Sprintf("http://h%d.test/", i) })
	hosts := entries(MaxEntries, func(i int) string { return fmt.Sprintf("'*.h%d.test'", MaxEntries-1-i) })
	kws := entries(MaxEntries, func(i int) string { return fmt.Sprintf("k%d: 1", i) })
	tp, err := Parse([]byte("name: t\nkeywords: {" + kws + "}\nseeds: [" + seeds + "]\nscope: {hosts: [" + hosts + "]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Seeds) != MaxEntries || len(tp.Scope.Hosts) != MaxEntries || len(tp.Keywords) != MaxEntries {
		t.Errorf("%d seeds, %d hosts, %d keywords; want %d of each", len(tp.Seeds), len(tp.Scope.Hosts), len(tp.Keywords), MaxEntries)
	}
	// A 1000-key mapping named 60 times: 120,000 nodes once expanded.
	aliased := "name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\nstrategy: {page_filter: {name: vsm, k: &k {" + kws + "}, l: [" + strings.Repeat("*k,", 60) + "]}}\n"
	tp, err = Parse([]byte(aliased))
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := tp.Strategy.PageFilter.Params["l"].([]any); len(l) != 60 {
		t.Errorf("parameter l has %d entries, want 60", len(l))
	}
}

// BenchmarkParseAtLimits measures the costliest topic files found within
// the limits (docs/topic-file.md "Limits"): every seed checked against
// every scope host, and a large mapping aliased up to MaxNodes.
func BenchmarkParseAtLimits(b *testing.B) {
	seeds := entries(MaxEntries, func(i int) string { return fmt.Sprintf("http://h%d.test/", i) })
	hosts := entries(MaxEntries, func(i int) string { return fmt.Sprintf("'*.h%d.test'", MaxEntries-1-i) })
	kws := entries(MaxEntries, func(i int) string { return fmt.Sprintf("k%d: 1", i) })
	for _, bc := range []struct{ name, yaml string }{
		{"seeds_x_hosts", "name: t\nkeywords: {a: 1}\nseeds: [" + seeds + "]\nscope: {hosts: [" + hosts + "]}\n"},
		{"aliased_mapping", "name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\nstrategy: {page_filter: {name: vsm, k: &k {" + kws + "}, l: [" + strings.Repeat("*k,", 64) + "]}}\n"},
		{"repeated_key", "name: t\nseeds: [http://x.test/]\nkeywords: {" + strings.Repeat("a: 1, ", MaxEntries) + "}\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.yaml)
			b.ReportAllocs()
			for b.Loop() {
				Parse(data)
			}
		})
	}
}

// TestParseReportsBoundedErrors: a file with an error in each of many
// entries reports the first maxErrors of them and counts the rest, in one
// error of bounded size (a crawl's start keeps it in workflow history).
func TestParseReportsBoundedErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: roses\nkeywords: {rose: 1}\nscope:\n  hosts: [roses.test]\nseeds:\n")
	for i := range 500 {
		fmt.Fprintf(&b, "  - http://other%d.test/\n", i)
	}
	_, err := Parse([]byte(b.String()))
	if err == nil {
		t.Fatal("500 seeds outside scope parsed")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxErrors+1 || !strings.Contains(lines[0], "seeds[0]") || lines[maxErrors] != "… and 480 more errors" {
		t.Errorf("error of %d lines, first %q, last %q; want %d seed errors and a count of the other 480",
			len(lines), lines[0], lines[len(lines)-1], maxErrors)
	}
}

// TestParseStoredKeepsOlderFiles: a topic version stored before a stricter
// rule (more than MaxEntries seeds, a second document, a fractional integer,
// a scope host with a port) still loads with ParseStored — a crawl running
// on it would otherwise fail every slice — while Parse refuses it; the
// bounds that keep reading cheap (file size, alias expansion) hold for both.
func TestParseStoredKeepsOlderFiles(t *testing.T) {
	manySeeds := "name: t\nkeywords: {a: 1}\nseeds: [" + entries(MaxEntries+500, func(i int) string { return fmt.Sprintf("http://x.test/%d", i) }) + "]\n"
	for _, tc := range []struct{ name, yaml string }{
		{"more seeds than MaxEntries", manySeeds},
		{"a second document", "name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\n---\nname: u\n"},
		{"a fractional integer", "name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\nlimits: {max_depth: 2.5}\n"},
		{"a scope host with a port", "name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\nscope: {hosts: [x.test, 'y.test:8080']}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.yaml)); err == nil {
				t.Fatal("Parse accepted it; the test expects today's rules to refuse it")
			}
			tp, err := ParseStored([]byte(tc.yaml))
			if err != nil || tp.Name != "t" {
				t.Fatalf("ParseStored = %+v, %v; want the stored topic loaded", tp, err)
			}
		})
	}
	if tp, _ := ParseStored([]byte(manySeeds)); len(tp.Seeds) != MaxEntries+500 {
		t.Errorf("%d seeds loaded; want all %d", len(tp.Seeds), MaxEntries+500)
	}
	if _, err := ParseStored([]byte("name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\nstrategy: {page_filter: {name: vsm, p: " + doubling(40) + "}}\n")); err == nil {
		t.Error("ParseStored accepted an exponential alias expansion")
	}
}
