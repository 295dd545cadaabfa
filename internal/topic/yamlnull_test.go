package topic

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

const rvBase = "name: t\nkeywords: {rose: 1}\n"

// TestNullEntriesAndKeys: YAML's nulls where a word or an entry was meant
// are errors naming the field — an empty list entry (the decoder dropped
// it, and every later entry's error named the wrong index) and a keyword
// written null or ~ (it vanished from the map).
func TestNullEntriesAndKeys(t *testing.T) {
	for in, want := range map[string]string{
		rvBase + "seeds:\n  - http://a.test/\n  -\n  - http://b.test/\n":      "seeds[1]",
		rvBase + "seeds: [http://a.test/, ~, 'ftp://b.test/']\n":              "seeds[1]",
		rvBase + "seeds: [http://a.test/]\nscope: {hosts: [a.test, null]}\n":  "scope.hosts[1]",
		"name: t\nkeywords: {null: 1, pointer: 1}\nseeds: [http://a.test/]\n": `"null"`,
		"name: t\nkeywords: {~: 1, pointer: 1}\nseeds: [http://a.test/]\n":    "keywords",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one naming %s", in, err, want)
		}
	}
	// Quoted, the word is a keyword.
	tp, err := Parse([]byte("name: t\nkeywords: {\"null\": 1, pointer: 1}\nseeds: [http://a.test/]\n"))
	if err != nil || tp.Keywords["null"] != 1 {
		t.Errorf("quoted \"null\": %v, keywords %v", err, tp)
	}
}

// TestTypeErrorsNameTheField: a value of the wrong type is said with its
// field, in the file's words, not a Go type's.
func TestTypeErrorsNameTheField(t *testing.T) {
	for in, want := range map[string]string{
		"seeds: [http://a.test/]\nlimits: {max_pages: \"10\"}\n": "limits.max_pages (line 4): `10` is a string; it must be a whole number",
		"seeds: [http://a.test/]\nlimits: {max_pages: 1e30}\n":   "limits.max_pages (line 4)",
		"seeds: [http://a.test/]\nscope: [a.test]\n":             "scope (line 4): the value is a list; it must be a mapping",
		"seeds: http://a.test/\n":                                "seeds (line 3)",
		// Several values on one line: the one the error quotes.
		"seeds: [http://a.test/]\nlimits: {max_pages: 10, max_depth: three}\n": "limits.max_depth (line 4): `three` is a string",
		"seeds: [http://a.test/, {x: 1}]\n":                                    "seeds[1] (line 3): the value is a mapping; it must be a string",
	} {
		_, err := Parse([]byte(rvBase + in))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "topic.") {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// TestReadFileBoundedWithoutSize: a file with no size to check first (a
// pipe, a device) is read at most one byte past the limit.
func TestReadFileBoundedWithoutSize(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	if _, err := ReadFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("/dev/zero: %v, want the size limit", err)
	}
}

// TestTopicFileEdges: errors name the file's own index and hosts no URL
// can have; a trailing empty document and the mapping form of sitemaps
// without enabled are what they look like.
func TestTopicFileEdges(t *testing.T) {
	for in, want := range map[string]string{
		// The index in the file, not in the de-duplicated list.
		rvBase + "seeds: [http://a.test/, http://a.test/, http://b.test/]\nscope: {hosts: [a.test]}\n": "seeds[2]: http://b.test/ is outside scope.hosts",
		rvBase + "seeds: [ftp://a.test/, http://b.test/]\nscope: {hosts: [a.test]}\n":                  "seeds[1]: http://b.test/ is outside scope.hosts",
		rvBase + "seeds: ['http://a..test/']\n":                                                        `seeds[0]: "http://a..test/": its host "a..test" has an empty label`,
		rvBase + "seeds: [http://a.test/]\nscope: {hosts: ['user@a.test', a.test]}\n":                  "scope.hosts[0]",
		rvBase + "seeds: [http://a.test/]\nscope: {hosts: ['a.test?x', a.test]}\n":                     "scope.hosts[0]",
		rvBase + "seeds: [http://a.test/]\nscope: {hosts: ['a%2etest', a.test]}\n":                     "scope.hosts[0]",
		rvBase + "seeds: [http://a.test/]\n---\nname: u\n":                                             "a second YAML document at line 4",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
	// The mapping without enabled reads as off, and a file given must say.
	if _, err := Parse([]byte(rvBase + "seeds: [http://a.test/]\nsitemaps: {max_files: 20, max_urls: 100}\n")); err == nil || !strings.Contains(err.Error(), "sitemaps: the mapping needs enabled") {
		t.Errorf("sitemaps mapping without enabled: %v", err)
	}
	tp, err := Parse([]byte(rvBase + "seeds: [http://a.test/]\nsitemaps: {enabled: true, max_files: 20}\n---\n"))
	if err != nil || !tp.Sitemaps.Enabled || tp.Sitemaps.Files() != 20 {
		t.Errorf("sitemaps {enabled: true, max_files: 20}, trailing \"---\": %v, %+v", err, tp)
	}
	if tp, err := Parse([]byte(rvBase + "seeds: [http://a.test/]\nsitemaps: {enabled: false, max_files: 20}\n")); err != nil || tp.Sitemaps.Enabled {
		t.Errorf("sitemaps {enabled: false}: %v, %+v; want off", err, tp)
	}
}

// TestNullsInStoredVersions: a stored topic version written before the
// null rules loads as it did (a rule added later must not make a crawl's
// stored topic unloadable).
func TestNullsInStoredVersions(t *testing.T) {
	tp, err := ParseStored([]byte("name: t\nkeywords: {null: 1, pointer: 1}\nseeds:\n  - http://a.test/\n  -\n"))
	if err != nil || len(tp.Seeds) != 1 || tp.Keywords["pointer"] != 1 {
		t.Errorf("stored version with nulls: %v, %+v", err, tp)
	}
	// Nor the host rules of files given, nor a meaning change: a sitemaps
	// mapping without enabled stays off.
	tp, err = ParseStored([]byte("name: t\nkeywords: {a: 1}\nseeds: ['http://a..test/', http://a.test/]\nsamples: ['http://a..test/x']\n" +
		"scope: {hosts: [a.test, 'a%2etest', '*.test']}\nsitemaps: {max_files: 10}\n"))
	if err != nil || tp.Sitemaps.Enabled {
		t.Errorf("stored version with an empty host label, a scope host with %%, sitemaps without enabled: %v, %+v", err, tp)
	}
}

// TestFractionThroughMergeList: the whole-number rule follows a merge key
// whose value is a list of mappings too (max_depth 0.5 was 0, unlimited).
func TestFractionThroughMergeList(t *testing.T) {
	_, err := Parse([]byte(rvBase + "seeds: [http://a.test/]\nlimits: {<<: [{max_depth: 0.5}]}\n"))
	if err == nil || !strings.Contains(err.Error(), "limits.max_depth: 0.5 is not a whole number") {
		t.Errorf("merge list with max_depth 0.5: %v", err)
	}
}

// TestErrorCapCountsEveryError: at most maxErrors errors are listed, the
// whole-number ones among them, then counted.
func TestErrorCapCountsEveryError(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: t\nkeywords: {rose: 1}\nlimits: {max_depth: 0.5, max_pages: 1.5}\nseeds:\n")
	for i := range 30 {
		fmt.Fprintf(&b, "  - ftp://x%d.test/\n", i)
	}
	_, err := Parse([]byte(b.String()))
	if err == nil {
		t.Fatal("accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxErrors+1 || !strings.Contains(lines[maxErrors], "… and 12 more errors") {
		t.Errorf("%d lines, last %q; want %d errors and \"… and 12 more errors\"", len(lines), lines[len(lines)-1], maxErrors)
	}
}

// TestLeadingZeroNumbers: a number with a leading zero, which yaml.v3 reads
// as octal (max_pages: 0500 was 320 pages), is an error in a file given;
// a stored version reads as before.
func TestLeadingZeroNumbers(t *testing.T) {
	for in, want := range map[string]string{
		rvBase + "seeds: [http://a.test/]\nlimits: {max_pages: 0500}\n": "limits.max_pages (line 4): 0500 has a leading zero, which YAML reads as octal; write 500",
		"name: t\nkeywords: {rose: 010}\nseeds: [http://a.test/]\n":     "keywords.rose",
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	for _, ok := range []string{"max_pages: 500", "max_pages: 0", "max_pages: '0500'"} {
		_, err := Parse([]byte(rvBase + "seeds: [http://a.test/]\nlimits: {" + ok + "}\n"))
		if err != nil && strings.Contains(err.Error(), "octal") {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if tp, err := ParseStored([]byte(rvBase + "seeds: [http://a.test/]\nlimits: {max_pages: 0500}\n")); err != nil || tp.Limits.MaxPages != 320 {
		t.Errorf("stored version: %v, %+v", err, tp)
	}
}
