package topic

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"focuscrawl/internal/urlnorm"
)

const full = `
name: h1-example
language: zh
description: 函数 与 语法
keywords: {函数: 1.0, 语法: 0.8}
samples: [http://Example.com:80/a#frag]
seeds: [http://example.com/, http://example.com/]
scope: {hosts: ["*.example.com"]}
limits: {max_pages: 600, max_depth: 0}
strategy: {page_filter: vsm, link_predictor: {name: best-first, lambda: 0.7}, seed: 3}
`

func TestParseFullFile(t *testing.T) {
	tp, err := Parse([]byte(full))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if tp.Name != "h1-example" || tp.Language != "zh" || tp.Limits.MaxPages != 600 {
		t.Fatalf("fields: %+v", tp)
	}
	if len(tp.Seeds) != 1 || tp.Seeds[0] != "http://example.com/" {
		t.Fatalf("seeds not normalised and deduplicated: %v", tp.Seeds)
	}
	if tp.Samples[0] != "http://example.com/a" {
		t.Fatalf("samples not normalised: %v", tp.Samples)
	}
	if tp.Strategy.PageFilter.Name != "vsm" || tp.Strategy.LinkPredictor.Name != "best-first" {
		t.Fatalf("strategy: %+v", tp.Strategy)
	}
	if l, _ := tp.Strategy.LinkPredictor.Float("lambda", 0); l != 0.7 {
		t.Fatalf("lambda = %v", l)
	}
	if !tp.InScope("www.example.com") || !tp.InScope("example.com:8080") || tp.InScope("example.org") {
		t.Fatal("scope matching wrong")
	}
}

func TestDefaults(t *testing.T) {
	tp, err := Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tp.Language != "auto" || tp.Limits.MaxPages != DefaultMaxPages ||
		tp.Strategy.PageFilter.Name != DefaultPageFilter || tp.Strategy.LinkPredictor.Name != DefaultLinkPredictor {
		t.Fatalf("defaults not applied: %+v", tp)
	}
	if !tp.InScope("anything.example") {
		t.Fatal("no scope must mean no restriction")
	}
}

func TestInvalidFilesNameTheField(t *testing.T) {
	cases := map[string]struct{ yaml, want string }{
		"bad name": {"name: Bad Name\nkeywords: {a: 1}\nseeds: [http://x/]", "name:"},
		// yaml.v3 names the line before and not the tab.
		"tab indentation": {"name: t\nkeywords:\n  a: 1\n\tb: 1\nseeds: [http://x/]", "line 4 is indented with a tab"},
		"bad language":    {"name: t\nlanguage: fr\nkeywords: {a: 1}\nseeds: [http://x/]", "language:"},
		"no seeds":        {"name: t\nkeywords: {a: 1}", "seeds:"},
		"bad seed":        {"name: t\nkeywords: {a: 1}\nseeds: [http://x/, ftp://y/]", "seeds[1]"},
		"nothing topical": {"name: t\nseeds: [http://x/]", "keywords"},
		"weight":          {"name: t\nkeywords: {a: -1}\nseeds: [http://x/]", "keywords.a"},
		"unknown field":   {"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nmax_pages: 3", "max_pages"},
		"negative depth":  {"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nlimits: {max_depth: -1}", "limits.max_depth"},
		"seed off scope":  {"name: t\nkeywords: {a: 1}\nseeds: [http://x.org/]\nscope: {hosts: [y.org]}", "seeds[0]"},
		"bad scope":       {"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nscope: {hosts: [\"a/b\"]}", "scope.hosts[0]"},
		"strategy map":    {"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nstrategy: {page_filter: {threshold: 1}}", "name"},
		"not yaml":        {"name: [unclosed", "invalid YAML"},
		// Hostile-input regressions (issue 16): each used to be accepted.
		"NaN weight":            {"name: t\nkeywords: {a: .nan}\nseeds: [http://x/]", "keywords.a"},
		"infinite weight":       {"name: t\nkeywords: {a: .inf}\nseeds: [http://x/]", "keywords.a"},
		"NaN threshold":         {"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nstrategy: {page_filter: {name: vsm, threshold: .nan}}", "strategy.page_filter.threshold"},
		"no word characters":    {"name: t\nkeywords: {\"!!! ---\": 1}\nseeds: [http://x/]", "no letter or digit"},
		"absolute lexicon path": {"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nlexicon: /proc/self/environ", "lexicon:"},
		"lexicon escapes dir":   {"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nlexicon: ../../etc/passwd", "lexicon:"},
		// A cookie-domain spelling and an empty label matched no host.
		"dot-prefixed scope": {"name: t\nkeywords: {a: 1}\nseeds: [http://x.org/]\nscope: {hosts: [x.org, \".y.org\"]}", `scope.hosts[1]: ".y.org" is not a host name; for the domain and its subdomains write "y.org" and "*.y.org"`},
		"empty scope label":  {"name: t\nkeywords: {a: 1}\nseeds: [http://x.org/]\nscope: {hosts: [x.org, a..b.org]}", `scope.hosts[1]: "a..b.org" is not a valid host name`},
		// A missing seeds list was reported only when nothing else was wrong.
		"keyword without weight": {"name: t\nkeywords: {rose: }\nseeds: [http://x/]", `keywords.rose: needs a weight in (0, 10] (write "rose: 1")`},
		"no seeds among others":  {"name: t\nlanguage: xx\nkeywords: {a: 1}", "seeds: at least one seed URL is required"},
		// Saved as GBK: yaml.v3 said "invalid trailing UTF-8 octet", no line.
		"GBK file": {"name: t\n# 你好\nkeywords: {\xc4\xe3\xba\xc3: 1}\nseeds: [http://x/]", "not UTF-8: line 3, column 12 holds the byte 0xC4"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v does not mention %q", err, c.want)
			}
		})
	}
}

// TestUnknownFieldSuggestsTheField: a typo in a field name was reported
// in the YAML decoder's words, naming a Go type ("line 6: field keyword
// not found in type topic.Topic"). It now says "unknown field", where, and
// the field meant when one is a typo away.
func TestUnknownFieldSuggestsTheField(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"name: t\nkeyword: {a: 1}\nseeds: [http://x/]", `line 2: unknown field "keyword" (did you mean "keywords"?)`},
		{"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nlimits: {max_page: 5}", `line 4: unknown field "max_page" in limits (did you mean "max_pages"?)`},
		{"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nstrategy: {pagefilter: vsm}", `unknown field "pagefilter" in strategy (did you mean "page_filter"?)`},
		// A field of another section written at the top level (a new user's trial).
		{"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nmax_pages: 10", `line 4: unknown field "max_pages" (did you mean "limits.max_pages"?)`},
		// A field two sections share has no one path to suggest (a review).
		{"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nparams: {a: 1}", `line 4: unknown field "params" (fields: name,`},
		{"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nzzz: 1", `line 4: unknown field "zzz" (fields: name, language,`},
	} {
		_, err := Parse([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "topic.") {
			t.Errorf("%q: error %v; want it to say %q and name no Go type", c.yaml, err, c.want)
		}
	}
}

func TestRepositoryTopicFilesParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "topics", "*.yaml"))
	if len(files) == 0 {
		t.Skip("no topic files in the repository")
	}
	for _, f := range files {
		if _, _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

type spaceCounter struct{}

func (spaceCounter) TermFreq(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(s)) {
		m[w]++
	}
	return m
}

func TestBuildModel(t *testing.T) {
	tp, _ := Parse([]byte("name: t\nkeywords: {Neural Network: 1.0, training: 0.5}\ndescription: neural models models\nseeds: [http://x/]"))
	m := BuildModel(tp, 1, spaceCounter{}, []string{"training data data"})
	// keyword weight, then description max-normalised ×0.5: neural 1 + 0.5·(1/2).
	want := map[string]float64{"neural": 1.25, "network": 1, "training": 0.5 + 0.5*0.5, "models": 0.5, "data": 0.5}
	for k, w := range want {
		if got := m.Terms[k]; got != w {
			t.Errorf("weight(%s) = %v, want %v", k, got, w)
		}
	}
	data, _ := m.Encode()
	back, err := DecodeModel(data)
	if err != nil || len(back.Terms) != len(m.Terms) {
		t.Fatalf("round trip: %v %v", back, err)
	}
}

// TestSpecFloatRefusesNaN: a NaN parameter would pass every range check
// (comparisons with NaN are false) and then decide every page alike.
func TestSpecFloatRefusesNaN(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		s := Spec{Name: "vsm", Params: map[string]any{"threshold": v}}
		if got, err := s.Float("threshold", 0.2); err == nil {
			t.Errorf("Float(%v) = %v, want an error", v, got)
		}
	}
}

// TestScopeHostsAreCanonical: scope patterns get the same UTS #46 mapping
// as URL hosts, so a Unicode or fullwidth spelling in the topic file still
// matches the punycode host keys of the crawl's URLs.
func TestScopeHostsAreCanonical(t *testing.T) {
	tp, err := Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [\"http://bücher.example/\"]\nscope: {hosts: [\"*.BÜCHER.example\", \"ｅｘａｍｐｌｅ.com\"]}"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"*.xn--bcher-kva.example", "example.com"}; !slices.Equal(tp.Scope.Hosts, want) {
		t.Fatalf("scope.hosts = %q, want %q", tp.Scope.Hosts, want)
	}
	if !tp.InScope("www.xn--bcher-kva.example") {
		t.Fatal("subdomain of the punycode host is out of scope")
	}
}

func TestSpecPositiveInt(t *testing.T) {
	s := Spec{Name: "bayes", Params: map[string]any{"every": 20, "half": 2.5, "zero": 0, "word": "x"}}
	if v, err := s.PositiveInt("every", 1); err != nil || v != 20 {
		t.Fatalf("every = %d, %v", v, err)
	}
	if v, err := s.PositiveInt("absent", 7); err != nil || v != 7 {
		t.Fatalf("default = %d, %v", v, err)
	}
	for _, k := range []string{"half", "zero", "word"} {
		if _, err := s.PositiveInt(k, 1); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s: error %v does not name the parameter", k, err)
		}
	}
}

func TestAcceptMode(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"", DefaultAccept},
		{"strategy: {page_filter: vsm}\n", AcceptSplit},
		{"strategy: {page_filter: bayes}\n", AcceptThreshold}, // split's scale is vsm's
		{"strategy: {page_filter: vsm, accept: split}\n", AcceptSplit},
		{"strategy: {page_filter: bayes, accept: split}\n", AcceptSplit},
		{"strategy: {accept: threshold}\n", AcceptThreshold},
	}
	for _, c := range cases {
		tp, err := Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\n" + c.yaml))
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		if got := tp.Strategy.AcceptMode(); got != c.want {
			t.Errorf("%q: accept mode %q, want %q", c.yaml, got, c.want)
		}
	}
	_, err := Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\nstrategy: {accept: otsu}\n"))
	if err == nil || !strings.Contains(err.Error(), "strategy.accept") {
		t.Errorf("unknown accept mode: error %v, want one naming strategy.accept", err)
	}
}

// TestTopicFileIsOneDocument: a file of several YAML documents was read up
// to the first "---" and the rest, valid or not, silently dropped; an empty
// file failed as "invalid YAML: EOF".
func TestTopicFileIsOneDocument(t *testing.T) {
	const one = "name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\n"
	for _, tc := range []struct{ yaml, want string }{
		{one + "---\nname: u\nkeywords: {b: 1}\nseeds: [http://y.test/]\n", "second YAML document at line 4"},
		{one + "---\n: : bad\n", "second YAML document"},
		{"", "empty"},
		{"# nothing but a comment\n", "empty"},
	} {
		if _, err := Parse([]byte(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.yaml, err, tc.want)
		}
	}
	// A leading "---" and a trailing "..." still make one document.
	if _, err := Parse([]byte("---\n" + one + "...\n")); err != nil {
		t.Errorf("one document with markers: %v", err)
	}
}

// TestScopeHostWithPortRefused: "x.test:8080" in scope.hosts was accepted
// and then never matched, since scope compares hosts without their ports;
// an IPv6 literal written without brackets did not match either.
func TestScopeHostWithPortRefused(t *testing.T) {
	_, err := Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\nscope: {hosts: [x.test, \"y.test:8080\"]}\n"))
	if err == nil || !strings.Contains(err.Error(), "scope.hosts[1]") || !strings.Contains(err.Error(), "port") {
		t.Errorf("scope host with a port: error %v, want one naming scope.hosts[1] and the port", err)
	}
	tp, err := Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [\"http://[::1]:8080/\"]\nscope: {hosts: [\"::1\", \"[FE80::2]\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"[::1]", "[fe80::2]"}; !slices.Equal(tp.Scope.Hosts, want) {
		t.Errorf("scope hosts %q, want %q", tp.Scope.Hosts, want)
	}
}

// TestScopeIPv6IsCanonical: URL hosts that are IPv6 literals take their
// RFC 5952 form (urlnorm.CanonicalHost), so scope entries must too, or a
// scope written "0:0:0:0:0:0:0:1" matches none of its own seeds.
func TestScopeIPv6IsCanonical(t *testing.T) {
	tp, err := Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [\"http://[0:0:0:0:0:0:0:1]:8080/\"]\nscope: {hosts: [\"0:0:0:0:0:0:0:1\", \"[2001:DB8:0::0:5]\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"[::1]", "[2001:db8::5]"}; !slices.Equal(tp.Scope.Hosts, want) {
		t.Errorf("scope hosts %q, want %q", tp.Scope.Hosts, want)
	}
	if h := urlnorm.Host(tp.Seeds[0]); !tp.InScope(h) {
		t.Errorf("seed host %q is not in scope %q", h, tp.Scope.Hosts)
	}
}

// TestFractionalIntegersRefused: the YAML decoder truncates a fractional
// number written for an integer field, so "max_depth: 0.5" meant unlimited
// depth and "max_pages: 0.5" the default 1000 pages, without a word.
func TestFractionalIntegersRefused(t *testing.T) {
	const base = "name: t\nkeywords: {a: 1}\nseeds: [http://x.test/]\n"
	for _, tc := range []struct{ yaml, field string }{
		{"limits: {max_depth: 0.5}\n", "limits.max_depth"},
		{"limits: {max_pages: 2.5}\n", "limits.max_pages"},
		{"limits: {max_pages_per_host: 1e-3}\n", "limits.max_pages_per_host"},
		{"strategy: {seed: 1.5}\n", "strategy.seed"},
		{"strategy: {expand: {top_hosts: 0.9}}\n", "strategy.expand.top_hosts"},
		{"strategy: {dynamic_threshold: {enabled: true, every: 2.5}}\n", "strategy.dynamic_threshold.every"},
		{"limits: {<<: {max_depth: 1.5}}\n", "limits.max_depth"},
	} {
		_, err := Parse([]byte(base + tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), "whole number") {
			t.Errorf("%q: error %v, want one naming %s as not a whole number", tc.yaml, err, tc.field)
		}
	}
	// Whole numbers in float notation keep working.
	tp, err := Parse([]byte(base + "limits: {max_pages: 1e4, max_depth: 3.0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tp.Limits.MaxPages != 10000 || tp.Limits.MaxDepth != 3 {
		t.Errorf("limits %+v", tp.Limits)
	}
}

// TestParsePartial: with a field error, ParsePartial returns the decoded
// topic with the error (for topiccheck's one report); Parse and
// ParseStored return none.
func TestParsePartial(t *testing.T) {
	data := []byte("name: t\nkeywords: {rose: 1}\nseeds: [notaurl]\nstrategy: {page_filter: vsm}\n")
	tp, err := ParsePartial(data)
	if err == nil || tp == nil || tp.Strategy.PageFilter.Name != "vsm" {
		t.Fatalf("ParsePartial = %v, %v; want the decoded topic and the seed's error", tp, err)
	}
	if tp, err := Parse(data); err == nil || tp != nil {
		t.Errorf("Parse = %v, %v; want nil and an error", tp, err)
	}
	if tp, err := ParseStored([]byte("name: t\nseeds: [notaurl]\n")); err == nil || tp != nil {
		t.Errorf("ParseStored = %v, %v; want nil and an error", tp, err)
	}
	if tp, err := ParsePartial([]byte("name: [")); err == nil || tp != nil {
		t.Errorf("ParsePartial of invalid YAML = %v, %v; want nil and an error", tp, err)
	}
}

// TestScopeHostWithPortSaysWhatToWrite: a user trial copied its seed's host
// with its port into scope.hosts; the refusal names the entry to write, and
// the seeds on that host are not reported outside the scope as well.
func TestScopeHostWithPortSaysWhatToWrite(t *testing.T) {
	_, err := Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [\"http://127.0.0.1:28089/\"]\nscope: {hosts: [\"127.0.0.1:28089\"]}\n"))
	if err == nil || !strings.Contains(err.Error(), `scope.hosts[0]: "127.0.0.1:28089" has a port: scope matches a host on every port, so write "127.0.0.1"`) {
		t.Errorf("error %v, want scope.hosts[0] refused with the host to write", err)
	}
	if err != nil && strings.Contains(err.Error(), "outside scope.hosts") {
		t.Errorf("error %v also reports the seed outside the refused scope", err)
	}
	// A scope read whole still checks its seeds.
	_, err = Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [\"http://127.0.0.1:28089/\"]\nscope: {hosts: [example.com]}\nlimits: {max_pages: -1}\n"))
	if err == nil || !strings.Contains(err.Error(), "seeds[0]: http://127.0.0.1:28089/ is outside scope.hosts") {
		t.Errorf("error %v, want the seed outside the scope reported", err)
	}
}

// TestReadFileUTF16: a topic file saved as UTF-16 (with its byte-order
// mark, either byte order) is read as UTF-8, so that it survives being sent
// to the worker as a string; before, `validate` passed it and the worker
// failed on the mangled bytes ("control characters are not allowed").
func TestReadFileUTF16(t *testing.T) {
	const src = "name: t1\nkeywords: {玫瑰: 1, roses: 1}\nseeds: [http://example.com/]\n"
	u := []rune(src)
	for _, order := range []string{"LE", "BE"} {
		var b []byte
		put := func(v uint16) {
			if order == "LE" {
				b = append(b, byte(v), byte(v>>8))
			} else {
				b = append(b, byte(v>>8), byte(v))
			}
		}
		put(0xFEFF)
		for _, r := range u {
			put(uint16(r)) // all of src is in the BMP
		}
		path := filepath.Join(t.TempDir(), "t.yaml")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		data, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", order, err)
		}
		if string(data) != src {
			t.Errorf("%s: ReadFile = %q; want %q", order, data, src)
		}
		if _, err := Parse([]byte(string(data))); err != nil {
			t.Errorf("%s: Parse after a round trip through a string: %v", order, err)
		}
	}
}

// TestOutOfRangeNumberMessage: a whole number too large for its field is
// said to be out of range; the error read "is a whole number; it must be a
// whole number".
func TestOutOfRangeNumberMessage(t *testing.T) {
	_, err := Parse([]byte("name: t\nseeds: [http://example.com/]\nkeywords: {rose: 1}\nlimits: {max_pages: 9223372036854775808}\n"))
	if err == nil || !strings.Contains(err.Error(), "limits.max_pages (line 4): `9223372...` is out of range") {
		t.Errorf("error %v; want limits.max_pages out of range", err)
	}
}

// TestOutOfRangeBeyondUint64: numbers past what yaml.v3 reads as a whole
// number or a double are out of range too, not "a number; it must be a
// whole number" or "a string; it must be a number".
func TestOutOfRangeBeyondUint64(t *testing.T) {
	for _, doc := range []string{
		"limits: {max_pages: 18446744073709551616}\n",
		"limits: {max_pages: 1_000_000_000_000_000_000_000}\n",
		"keywords: {rose: 1e400}\n",
	} {
		_, err := Parse([]byte("name: t\nseeds: [http://example.com/]\n" + strings.Replace("keywords: {rose: 1}\n"+doc, "keywords: {rose: 1}\nkeywords", "keywords", 1)))
		if err == nil || !strings.Contains(err.Error(), "is out of range") {
			t.Errorf("%q: error %v; want out of range", doc, err)
		}
	}
}

// TestAliasTypeErrorNamesTheAliasField: a value of the wrong type reached
// through an alias is reported at the field that uses the alias, with the
// alias's line and the anchor's; yaml.v3 reports the anchor's line, and
// the error named the anchor's field, whose type the value fits.
func TestAliasTypeErrorNamesTheAliasField(t *testing.T) {
	base := "name: t\nkeywords: {a: 1}\nseeds: [http://x/]\n"
	for _, c := range []struct{ yaml, want, not string }{
		{base + "description: &d \"10\"\nlimits:\n  max_pages: *d\n",
			"limits.max_pages (line 6: *d, anchored on line 4): `10` is a string; it must be a whole number", "description"},
		{base + "samples: &s [http://x/a]\nlimits:\n  max_pages: *s\n",
			"limits.max_pages (line 6: *s, anchored on line 4): the value is a list; it must be a whole number", "samples"},
		// The anchor's field is wrong too: one error each, in order.
		{base + "limits:\n  max_pages: &n abc\n  max_depth: *n\n",
			"limits.max_pages (line 5): `abc` is a string; it must be a whole number\n  " +
				"limits.max_depth (line 6: *n, anchored on line 5): `abc` is a string; it must be a whole number", "\x00"},
		// An alias inside a strategy's parameters (which decode themselves)
		// does not take the anchor's error.
		{base + "limits: {max_depth: &n abc}\nstrategy: {page_filter: {name: vsm, threshold: *n}}\n",
			"limits.max_depth (line 4): `abc` is a string; it must be a whole number", "threshold"},
		// sitemaps decodes itself, but into its fields: they are named,
		// and the error took strategy.expand.keywords's name (twice).
		{base + "description: &d \"10\"\nstrategy: {expand: {keywords: *d}}\nsitemaps: {enabled: true, max_files: *d}\n",
			"strategy.expand.keywords (line 5: *d, anchored on line 4): `10` is a string; it must be a whole number\n  " +
				"sitemaps.max_files (line 6: *d, anchored on line 4): `10` is a string; it must be a whole number", "\x00"},
		{base + "strategy: {page_filter: {name: vsm, s: &s {enabled: true, max_files: abc}}}\nsitemaps: *s\n",
			"sitemaps.max_files (line 5: *s, anchored on line 4): `abc` is a string; it must be a whole number", "page_filter.s"},
	} {
		_, err := Parse([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("%s: error %v; want %q", c.yaml, err, c.want)
		}
	}
}

// TestNestedAliasTypeErrorNamesTheUsersField: a value of the wrong type
// inside an aliased list or mapping — itself through an alias, or not —
// is reported at the field path the alias's copy has, with the lines of
// the aliases it goes through; the error about the copy named the
// anchor's field (samples[1] twice, for samples: &s [.., *m] and
// negative_samples: *s), since the anchored list was walked only once.
func TestNestedAliasTypeErrorNamesTheUsersField(t *testing.T) {
	base := "name: t\nkeywords: {a: 1}\nseeds: [http://x/]\n"
	for _, c := range []struct {
		yaml string
		want []string
	}{
		// An anchored list holding an alias, aliased under another key.
		{base + "limits: &m {max_pages: 4}\nsamples: &s\n  - http://x/a\n  - *m\nnegative_samples: *s\n", []string{
			"samples[1] (line 7: *m, anchored on line 4): the value is a mapping; it must be a string",
			"negative_samples[1] (line 8: *s, line 7: *m, anchored on line 4): the value is a mapping; it must be a string"}},
		// An anchored list with the wrong value itself, aliased.
		{"name: t\nkeywords: {a: 1}\nsamples: &s [http://x/a, {b: 1}]\nseeds: *s\n", []string{
			"samples[1] (line 3): the value is a mapping; it must be a string",
			"seeds[1] (line 4: *s, anchored on line 3): the value is a mapping; it must be a string"}},
		// An anchored mapping holding an alias, used in a list (where a
		// string belongs) and its alias's wrong value.
		{base + "description: &d \"10\"\nlimits: &l {max_pages: *d}\nscope: {hosts: [x.test, *l]}\n", []string{
			"limits.max_pages (line 5: *d, anchored on line 4): `10` is a string; it must be a whole number",
			"scope.hosts[1] (line 6: *l, anchored on line 5): the value is a mapping; it must be a string"}},
		// Aliases two deep inside the mapping of another key.
		{base + "description: &d \"10\"\nstrategy:\n  expand: &e {top_hosts: 3, keywords: *d}\nsamples: [*e]\n", []string{
			"strategy.expand.keywords (line 6: *d, anchored on line 4): `10` is a string; it must be a whole number",
			"samples[0] (line 7: *e, anchored on line 6): the value is a mapping; it must be a string"}},
	} {
		_, err := Parse([]byte(c.yaml))
		if err == nil {
			t.Errorf("%s: no error", c.yaml)
			continue
		}
		if got := strings.Split(strings.TrimPrefix(err.Error(), "invalid YAML: "), "\n  "); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: errors\n%s\nwant\n%s", c.yaml, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
