package elastic

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	estemplate "focuscrawl/deploy/elasticsearch"
	"focuscrawl/internal/index"
	"focuscrawl/internal/textproc"
)

// TestTemplateSplitsAsSearch: the template's pattern tokenizer keeps the
// protected tokens ("c++", "c#", "f#": textproc.ProtectedSymbols) whole
// and still cuts "e-mail" in two, and splitsInIndex, which decides whether
// a term is sent as a phrase, says what the pattern does. Before, the
// pattern cut "c++" to "c", which matched every page with "c#" or
// "c-section".
func TestTemplateSplitsAsSearch(t *testing.T) {
	var tmpl struct {
		Template struct {
			Settings struct {
				Analysis struct {
					Tokenizer map[string]struct{ Type, Pattern string }
				}
			}
		}
	}
	if err := json.Unmarshal(estemplate.IndexTemplate, &tmpl); err != nil {
		t.Fatal(err)
	}
	tok, ok := tmpl.Template.Settings.Analysis.Tokenizer["focuscrawl_words"]
	if !ok || tok.Type != "pattern" {
		t.Fatalf("tokenizer focuscrawl_words = %+v; want a pattern tokenizer", tok)
	}
	// Go's regexp reads these \p classes and brackets as Java's does.
	split := regexp.MustCompile(tok.Pattern)
	words := func(s string) []string {
		var out []string
		for _, w := range split.Split(s, -1) {
			if w != "" {
				out = append(out, w)
			}
		}
		return out
	}
	for _, term := range []string{"c++", "c#", "f#", "e-mail", "3.14", "covid-19", "snake_case", "blur", "高斯"} {
		n := len(words(term))
		if n == 0 || splitsInIndex(term) != (n > 1) {
			t.Errorf("%q: the pattern makes %q, splitsInIndex says %v", term, words(term), splitsInIndex(term))
		}
	}
	for _, term := range []string{"c++", "c#", "f#"} {
		if w := words("x " + term + " y"); len(w) != 3 || w[1] != term {
			t.Errorf("the pattern cuts %q to %q; want it whole", term, w)
		}
	}
}

// TestProtectedTokensRequests: with the project's tokenizer, a page about
// C++ and C# is written with "c++" and "c#" in its *_terms fields (the
// Chinese beside them cut as ever), and a search for "C++ C#" sends both as
// ordinary terms (most_fields): one word each to the template's analyzer.
// Before, the page had no such terms and the query no searchable word.
func TestProtectedTokensRequests(t *testing.T) {
	if err := textproc.Preload(); err != nil {
		t.Skipf("gojieba dictionaries unavailable: %v", err)
	}
	fields := []string{"title_terms^4", "content_terms", "anchor_terms^2"}
	page := index.Document{ID: "cpp", Topic: "gimp", URL: "https://a.example/cpp", Host: "a.example",
		Title: "C++编程", Text: "Templates in C++, generics in Ｃ＃.", Lang: "en", Relevance: 0.5}
	_, srv := newFakeES(t, append(firstWrite(t),
		exchange{method: "POST", path: "/_bulk", status: 200, file: "bulk_protected.json", ndjson: []any{
			obj{"index": obj{"_id": "cpp", "_index": "focuscrawl-topic-gimp", "require_alias": true}},
			obj{"id": "cpp", "topic": "gimp", "url": "https://a.example/cpp", "host": "a.example", "lang": "en",
				"title": "C++编程", "content": "Templates in C++, generics in Ｃ＃.", "anchor_texts": "",
				"title_terms": "c++ 编程", "content_terms": "templates c++ generics c#", "anchor_terms": "",
				"relevance": 0.5, "hub": 0, "authority": 0, "ipagerank": 0},
		}},
		exchange{method: "POST", path: "/focuscrawl-topic-gimp/_search", query: q("allow_no_indices", "true", "ignore_unavailable", "true"),
			status: 200, file: "search_empty.json", body: obj{
				"from": 0, "size": 10, "track_total_hits": true,
				"_source": hitSource,
				"query": obj{"script_score": obj{
					"query": obj{"bool": obj{
						"must": []any{
							obj{"multi_match": obj{"query": "c++", "fields": fields, "type": "most_fields"}},
							obj{"multi_match": obj{"query": "c#", "fields": fields, "type": "most_fields"}},
						},
						"filter": []any{obj{"term": obj{"topic": "gimp"}}},
					}},
					"script": obj{"source": rankScript},
				}},
				"sort": []any{obj{"_score": "desc"}, obj{"topic": "asc"}, obj{"id": "asc"}},
			}},
	)...)
	x := openFake(t, srv)
	x.seg = textproc.Shared()
	if err := x.Upsert(context.Background(), []index.Document{page}); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	if _, err := x.Search(context.Background(), index.Query{Text: "C++ C#", Topic: "gimp"}); err != nil {
		t.Fatalf("Search: %v", err)
	}
}
