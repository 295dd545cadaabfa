package elastic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	estemplate "focuscrawl/deploy/elasticsearch"
	"focuscrawl/internal/index"
	"focuscrawl/internal/index/indextest"
)

// spaceSegmenter lower-cases and splits on whitespace: test texts are written
// pre-segmented, so the expected requests do not depend on gojieba's
// dictionary.
type spaceSegmenter struct{}

func (spaceSegmenter) Segment(text string) string {
	return strings.Join(strings.Fields(strings.ToLower(text)), " ")
}

// exchange is one expected request and the response the fake cluster sends.
// The responses are Elasticsearch 8 API bodies in testdata/ (see the
// package's test documentation in docs/search.md for their provenance).
type exchange struct {
	method, path string
	query        url.Values
	// body is the expected JSON body; for /_bulk, ndjson lists the
	// expected lines instead. nil means no body.
	body   any
	ndjson []any
	status int
	file   string // response body from testdata/, "" for none
}

// fakeES serves a script of exchanges in order and records every mismatch.
type fakeES struct {
	t      *testing.T
	mu     sync.Mutex
	script []exchange
	next   int
	// headers of every request, in order, for auth assertions.
	headers []http.Header
}

func newFakeES(t *testing.T, script ...exchange) (*fakeES, *httptest.Server) {
	f := &fakeES{t: t, script: script}
	srv := httptest.NewServer(f)
	t.Cleanup(func() {
		srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.next != len(f.script) {
			t.Errorf("fake cluster: %d of %d expected requests were sent; next expected: %s %s",
				f.next, len(f.script), f.script[f.next].method, f.script[f.next].path)
		}
	})
	return f, srv
}

func (f *fakeES) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	f.headers = append(f.headers, r.Header.Clone())
	if f.next >= len(f.script) {
		f.t.Errorf("unexpected request %s %s?%s: %s", r.Method, r.URL.Path, r.URL.RawQuery, body)
		http.Error(w, "unexpected", 500)
		return
	}
	x := f.script[f.next]
	f.next++
	where := fmt.Sprintf("request %d (%s %s)", f.next, x.method, x.path)
	if r.Method != x.method || r.URL.Path != x.path {
		f.t.Errorf("%s: got %s %s", where, r.Method, r.URL.Path)
	}
	if got := r.URL.Query(); !(len(got) == 0 && len(x.query) == 0) && !reflect.DeepEqual(got, x.query) {
		f.t.Errorf("%s: query %v, want %v", where, got, x.query)
	}
	switch {
	case x.ndjson != nil:
		lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
		if len(lines) != len(x.ndjson) {
			f.t.Errorf("%s: %d body lines, want %d:\n%s", where, len(lines), len(x.ndjson), body)
			break
		}
		for i, l := range lines {
			assertJSON(f.t, fmt.Sprintf("%s line %d", where, i+1), []byte(l), x.ndjson[i])
		}
	case x.body != nil:
		assertJSON(f.t, where, body, x.body)
	case len(body) > 0:
		f.t.Errorf("%s: unexpected body %s", where, body)
	}
	w.Header().Set("X-Elastic-Product", "Elasticsearch")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(x.status)
	if x.file != "" && r.Method != http.MethodHead {
		data, err := os.ReadFile(filepath.Join("testdata", x.file))
		if err != nil {
			f.t.Error(err)
		}
		w.Write(data)
	}
}

// assertJSON compares got with want as JSON values (key order and spacing
// do not matter, everything else does).
func assertJSON(t *testing.T, where string, got []byte, want any) {
	t.Helper()
	var g any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("%s: body is not JSON: %v: %s", where, err, got)
		return
	}
	wb, _ := json.Marshal(want)
	var w any
	json.Unmarshal(wb, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: body\n got %s\nwant %s", where, got, wb)
	}
}

type obj = map[string]any

func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// templateBody is the exact template request Open sends for prefix.
func templateBody(t *testing.T, prefix string) any {
	var m obj
	if err := json.Unmarshal(estemplate.IndexTemplate, &m); err != nil {
		t.Fatal(err)
	}
	m["index_patterns"] = []string{prefix + "-idx-*"}
	return m
}

func installTemplate(t *testing.T) exchange {
	return exchange{method: "PUT", path: "/_index_template/focuscrawl", body: templateBody(t, "focuscrawl"),
		status: 200, file: "template_ack.json"}
}

// addFields is the mapping update Open sends after the template: the
// fields added to the template since its first version, for the indices
// created before them.
func addFields(prefix string) exchange {
	return exchange{method: "PUT", path: "/" + prefix + "-idx-*/_mapping", query: url.Values{"allow_no_indices": {"true"}},
		body:   obj{"properties": obj{"link_spans": obj{"type": "keyword", "index": false, "doc_values": false}}},
		status: 200, file: "template_ack.json"}
}

func openFake(t *testing.T, srv *httptest.Server, mutate ...func(*Config)) *Index {
	t.Helper()
	cfg := Config{Addresses: []string{srv.URL}, RequestTimeout: 5 * time.Second, MaxRetries: 1}
	for _, m := range mutate {
		m(&cfg)
	}
	x, err := Open(context.Background(), cfg, spaceSegmenter{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

var fetched = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func gimpDocs() []index.Document {
	return []index.Document{
		{ID: "h1", Topic: "gimp", URL: "https://www.example.org/blur", Host: "www.example.org",
			Title: "Blur Filters", Text: "The Gaussian blur filter softens an image", Lang: "en",
			Relevance: 0.4, FetchedAt: fetched, AnchorTexts: "blur help", LinkSpans: [][2]int{{4, 17}}},
		{ID: "h2", Topic: "gimp", URL: "https://www.example.org/sharpen", Host: "www.example.org",
			Title: "Sharpen", Text: "Unsharp mask", Lang: "en", Relevance: 1.7, Authority: -2},
		{ID: "h3", Topic: "gimp", URL: "https://docs.example.cn/filters/blur", Host: "docs.example.cn",
			Title: "高斯 模糊 滤镜", Text: "在 GIMP 中 使用 高斯 模糊 滤镜", Lang: "zh", Relevance: 0.9, Authority: 0.5,
			Hub: 0.25, IPageRank: 0.125, FetchedAt: fetched},
	}
}

// bulkIndexLines is the exact bulk body Upsert sends for gimpDocs: one
// action line keyed by the URL hash and one source line per document, the
// *_terms fields segmented, scores clamped.
func bulkIndexLines() []any {
	meta := func(id string) obj {
		return obj{"index": obj{"_id": id, "_index": "focuscrawl-topic-gimp", "require_alias": true}}
	}
	return []any{
		meta("h1"),
		obj{"id": "h1", "topic": "gimp", "url": "https://www.example.org/blur", "host": "www.example.org", "lang": "en",
			"title": "Blur Filters", "content": "The Gaussian blur filter softens an image", "anchor_texts": "blur help", "link_spans": "41;4-17",
			"title_terms": "blur filters", "content_terms": "the gaussian blur filter softens an image", "anchor_terms": "blur help",
			"relevance": 0.4, "hub": 0, "authority": 0, "ipagerank": 0, "fetched_at": "2024-05-01T12:00:00Z"},
		meta("h2"),
		obj{"id": "h2", "topic": "gimp", "url": "https://www.example.org/sharpen", "host": "www.example.org", "lang": "en",
			"title": "Sharpen", "content": "Unsharp mask", "anchor_texts": "",
			"title_terms": "sharpen", "content_terms": "unsharp mask", "anchor_terms": "",
			"relevance": 1, "hub": 0, "authority": 0, "ipagerank": 0},
		meta("h3"),
		obj{"id": "h3", "topic": "gimp", "url": "https://docs.example.cn/filters/blur", "host": "docs.example.cn", "lang": "zh",
			"title": "高斯 模糊 滤镜", "content": "在 GIMP 中 使用 高斯 模糊 滤镜", "anchor_texts": "",
			"title_terms": "高斯 模糊 滤镜", "content_terms": "在 gimp 中 使用 高斯 模糊 滤镜", "anchor_terms": "",
			"relevance": 0.9, "hub": 0.25, "authority": 0.5, "ipagerank": 0.125, "fetched_at": "2024-05-01T12:00:00Z"},
	}
}

func TestOpenInstallsTemplateWithAPIKey(t *testing.T) {
	f, srv := newFakeES(t, installTemplate(t), addFields("focuscrawl"))
	openFake(t, srv, func(c *Config) { c.APIKey = "aWQ6a2V5"; c.Username, c.Password = "ignored", "ignored" })
	if got := f.headers[0].Get("Authorization"); got != "APIKey aWQ6a2V5" {
		t.Errorf("Authorization = %q, want the API key (it wins over basic auth)", got)
	}
}

func TestOpenBasicAuthAndCustomPrefix(t *testing.T) {
	f, srv := newFakeES(t, exchange{method: "PUT", path: "/_index_template/crawl-test",
		body: templateBody(t, "crawl-test"), status: 200, file: "template_ack.json"}, addFields("crawl-test"))
	openFake(t, srv, func(c *Config) { c.Username, c.Password = "focuscrawl", "s3cret"; c.IndexPrefix = "crawl-test" })
	req := &http.Request{Header: f.headers[0]}
	if u, p, ok := req.BasicAuth(); !ok || u != "focuscrawl" || p != "s3cret" {
		t.Errorf("basic auth = %q %q %v", u, p, ok)
	}
}

func TestOpenReportsAuthFailure(t *testing.T) {
	_, srv := newFakeES(t, exchange{method: "PUT", path: "/_index_template/focuscrawl",
		body: templateBody(t, "focuscrawl"), status: 401, file: "unauthorized.json"})
	_, err := Open(context.Background(), Config{Addresses: []string{srv.URL}}, spaceSegmenter{})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401: security_exception") {
		t.Fatalf("Open error = %v, want the 401 security_exception", err)
	}
}

func TestOpenRejectsBadConfig(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no address", Config{}, "at least one address"},
		{"not a URL", Config{Addresses: []string{"localhost:9200"}}, "not an http(s) URL"},
		{"bad prefix", Config{Addresses: []string{"http://h:9200"}, IndexPrefix: "Upper"}, "index prefix"},
		{"bad refresh", Config{Addresses: []string{"http://h:9200"}, Refresh: "now"}, "refresh"},
		{"missing CA", Config{Addresses: []string{"https://h:9200"}, CACert: filepath.Join(dir, "nope.pem")}, "CA certificate"},
		{"CA not PEM", Config{Addresses: []string{"https://h:9200"}, CACert: notPEM}, "no PEM certificate"},
	}
	for _, tt := range tests {
		_, err := Open(context.Background(), tt.cfg, spaceSegmenter{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error = %v, want it to mention %q", tt.name, err, tt.want)
		}
	}
}

// firstWrite is what a new Index sends before its first bulk request to
// topic gimp: Open's template and mapping update, then the check for the
// topic's alias (missing) and the creation of its first index with both
// aliases.
func firstWrite(t *testing.T) []exchange {
	return []exchange{
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "HEAD", path: "/_alias/focuscrawl-topic-gimp", status: 404},
		exchange{method: "PUT", path: "/focuscrawl-idx-gimp-000001", status: 200, file: "create_index.json",
			body: obj{"aliases": obj{"focuscrawl-topic-gimp": obj{"is_write_index": true}, "focuscrawl-all": obj{}}, "mappings": addedMappingsBody()}},
	}
}

// TestUpsertCreatesTopicIndexAndReportsPartialFailure: the first write of a
// topic creates its first index with both aliases, the bulk request keys
// documents by URL hash, and a bulk answer with one failed item is an error
// naming it; the retry sends the same IDs (updates, never duplicates).
func TestUpsertCreatesTopicIndexAndReportsPartialFailure(t *testing.T) {
	_, srv := newFakeES(t, append(firstWrite(t),
		exchange{method: "POST", path: "/_bulk", ndjson: bulkIndexLines(), status: 200, file: "bulk_partial.json"},
		// The retry: the alias is known, no second check.
		exchange{method: "POST", path: "/_bulk", ndjson: bulkIndexLines(), status: 200, file: "bulk_retry.json"},
	)...)
	x := openFake(t, srv)
	err := x.Upsert(context.Background(), gimpDocs())
	if err == nil {
		t.Fatal("Upsert with a failed bulk item succeeded")
	}
	for _, want := range []string{"1 of 3 items failed", "h2: HTTP 400 document_parsing_exception"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if err := x.Upsert(context.Background(), gimpDocs()); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

// TestUpsertRecreatesDeletedTopicIndex: when a topic's alias goes away
// under a running worker (its index deleted by hand), the write that finds
// it missing fails and the next one creates the topic's index again.
// Before, the worker kept the topic as ready for as long as it ran, and
// every write failed with index_not_found_exception. The responses are
// hand-written in the documented shape of a bulk answer to require_alias
// writes without their alias, not captured from a cluster.
func TestUpsertRecreatesDeletedTopicIndex(t *testing.T) {
	create := exchange{method: "PUT", path: "/focuscrawl-idx-gimp-000001", status: 200, file: "create_index.json",
		body: obj{"aliases": obj{"focuscrawl-topic-gimp": obj{"is_write_index": true}, "focuscrawl-all": obj{}}, "mappings": addedMappingsBody()}}
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "HEAD", path: "/_alias/focuscrawl-topic-gimp", status: 404},
		create,
		exchange{method: "POST", path: "/_bulk", ndjson: bulkIndexLines(), status: 200, file: "bulk_retry.json"},
		// The index is deleted by hand here.
		exchange{method: "POST", path: "/_bulk", ndjson: bulkIndexLines(), status: 200, file: "bulk_no_alias.json"},
		exchange{method: "HEAD", path: "/_alias/focuscrawl-topic-gimp", status: 404},
		create,
		exchange{method: "POST", path: "/_bulk", ndjson: bulkIndexLines(), status: 200, file: "bulk_retry.json"},
	)
	x := openFake(t, srv)
	if err := x.Upsert(context.Background(), gimpDocs()); err != nil {
		t.Fatalf("first Upsert: %v", err)
	}
	err := x.Upsert(context.Background(), gimpDocs())
	if err == nil || !strings.Contains(err.Error(), "index_not_found_exception") {
		t.Fatalf("Upsert without the topic's alias: %v; want the index_not_found_exception items", err)
	}
	if err := x.Upsert(context.Background(), gimpDocs()); err != nil {
		t.Fatalf("retried Upsert: %v", err)
	}
}

func TestUpsertToleratesConcurrentIndexCreation(t *testing.T) {
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "HEAD", path: "/_alias/focuscrawl-topic-gimp", status: 404},
		exchange{method: "PUT", path: "/focuscrawl-idx-gimp-000001", status: 400, file: "index_exists.json",
			body: obj{"aliases": obj{"focuscrawl-topic-gimp": obj{"is_write_index": true}, "focuscrawl-all": obj{}}, "mappings": addedMappingsBody()}},
		exchange{method: "POST", path: "/_bulk", ndjson: bulkIndexLines(), status: 200, file: "bulk_retry.json"},
	)
	x := openFake(t, srv)
	if err := x.Upsert(context.Background(), gimpDocs()); err != nil {
		t.Fatalf("Upsert after another worker created the index: %v", err)
	}
}

func TestUpsertRejectsBadDocumentsBeforeSending(t *testing.T) {
	_, srv := newFakeES(t, installTemplate(t), addFields("focuscrawl"))
	x := openFake(t, srv)
	nan := gimpDocs()[:1]
	nan[0].Authority = nan[0].Authority / 0 * 0 // NaN
	bad := map[string][]index.Document{
		"no id":     {{Topic: "gimp"}},
		"bad topic": {{ID: "a", Topic: "Has Space"}},
		"NaN score": nan,
	}
	for name, docs := range bad {
		if err := x.Upsert(context.Background(), docs); err == nil {
			t.Errorf("%s: Upsert succeeded", name)
		}
	}
}

func TestDeleteTreatsMissingDocumentsAsDone(t *testing.T) {
	meta := func(id string) obj {
		return obj{"delete": obj{"_id": id, "_index": "focuscrawl-topic-gimp", "require_alias": true}}
	}
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "HEAD", path: "/_alias/focuscrawl-topic-gimp", status: 200},
		exchange{method: "POST", path: "/_bulk", ndjson: []any{meta("h2"), meta("gone")}, status: 200, file: "bulk_delete.json"},
		// A topic that was never indexed: nothing to delete, no bulk.
		exchange{method: "HEAD", path: "/_alias/focuscrawl-topic-other", status: 404},
	)
	x := openFake(t, srv)
	if err := x.Delete(context.Background(), "gimp", []string{"h2", "gone"}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := x.Delete(context.Background(), "other", []string{"x"}); err != nil {
		t.Fatalf("Delete of an unindexed topic: %v", err)
	}
}

// TestUpdateScoresSendsPartialUpdates: partial updates of the three score
// fields, retried on a version conflict (retry_on_conflict: a slice's
// upsert racing the update failed the whole recomputation before).
func TestUpdateScoresSendsPartialUpdates(t *testing.T) {
	meta := func(id string) obj {
		return obj{"update": obj{"_id": id, "_index": "focuscrawl-topic-gimp", "require_alias": true, "retry_on_conflict": 3}}
	}
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "HEAD", path: "/_alias/focuscrawl-topic-gimp", status: 200},
		exchange{method: "POST", path: "/_bulk", status: 200, file: "bulk_update.json", ndjson: []any{
			meta("gone"), obj{"doc": obj{"hub": 0, "authority": 0, "ipagerank": 0}},
			meta("h1"), obj{"doc": obj{"hub": 0.5, "authority": 0.75, "ipagerank": 0.125}},
		}},
	)
	x := openFake(t, srv)
	err := x.UpdateScores(context.Background(), "gimp", map[string]index.Scores{
		"h1": {Hub: 0.5, Authority: 0.75, IPageRank: 0.125}, "gone": {},
	})
	if err != nil {
		t.Fatalf("UpdateScores: %v", err)
	}
	if err := x.UpdateScores(context.Background(), "gimp", map[string]index.Scores{"h1": {Hub: -1}}); err == nil {
		t.Error("UpdateScores with a negative score succeeded")
	}
}

// TestSearchRequestAndResult asserts the exact query built from ParseQuery's
// output (terms and a phrase, topic and host filters, the fixed ranking
// script, paging) and that hits come back shaped like sqlitefts' hits, with
// snippets marked by index.Snippet.
func TestSearchRequestAndResult(t *testing.T) {
	fields := []string{"title_terms^4", "content_terms", "anchor_terms^2"}
	want := obj{
		"from": 10, "size": 5, "track_total_hits": true,
		"_source": []string{"id", "topic", "url", "host", "title", "lang", "content", "link_spans", "relevance", "authority"},
		"query": obj{"script_score": obj{
			"query": obj{"bool": obj{
				"must": []any{
					obj{"multi_match": obj{"query": "blur", "fields": fields, "type": "most_fields"}},
					obj{"multi_match": obj{"query": "or", "fields": fields, "type": "most_fields"}},
					// One term to the tokenizer, two words to the analyzer:
					// next to each other, as sqlitefts matches them.
					obj{"multi_match": obj{"query": "e-mail", "fields": fields, "type": "phrase"}},
					// Han characters only: two positions per character
					// (index.HanPhrases).
					obj{"multi_match": obj{"query": "高斯 模糊", "fields": fields, "type": "phrase", "slop": 8}},
				},
				// A host without a port: that host on every port.
				"filter": []any{obj{"term": obj{"topic": "gimp"}}, obj{"bool": obj{
					"should": []any{
						obj{"term": obj{"host": "docs.example.cn"}},
						obj{"prefix": obj{"host": "docs.example.cn:"}},
					},
					"minimum_should_match": 1,
				}}},
			}},
			"script": obj{"source": "_score * (0.5 + doc['relevance'].value) * (1.0 + doc['authority'].value)"},
		}},
		"sort": []any{obj{"_score": "desc"}, obj{"topic": "asc"}, obj{"id": "asc"}},
	}
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "POST", path: "/focuscrawl-topic-gimp/_search", query: q("allow_no_indices", "true", "ignore_unavailable", "true"),
			body: want, status: 200, file: "search_hits.json"},
	)
	x := openFake(t, srv)
	// "OR" and the quotes are words and a phrase, never operators.
	// (Snippets mark only what the hits' text holds.)
	res, err := x.Search(context.Background(), index.Query{
		Text: `blur OR e-mail "高斯 模糊"`, Topic: "gimp", Host: "docs.example.cn", Limit: 5, Offset: 10,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantRes := index.Result{Total: 2, Hits: []index.Hit{
		{ID: "h3", Topic: "gimp", URL: "https://docs.example.cn/filters/blur", Host: "docs.example.cn",
			Title: "高斯模糊滤镜", Lang: "zh", Score: 4.2731514, Relevance: 0.9, Authority: 0.5,
			Snippet: "在 GIMP 中使用<mark>高斯模糊</mark>滤镜可以柔化图像。"},
		{ID: "h1", Topic: "gimp", URL: "https://www.example.org/blur", Host: "www.example.org",
			Title: "Blur <filters>", Lang: "en", Score: 1.1250254, Relevance: 0.4, Authority: 0,
			Snippet: "The Gaussian <mark>blur</mark> filter (<mark>高斯模糊</mark>) softens an image &amp; its edges."},
	}}
	if !reflect.DeepEqual(res, wantRes) {
		t.Errorf("Search =\n %+v\nwant\n %+v", res, wantRes)
	}
}

// searchModeSegmenter is the shared stand-in for gojieba's search mode.
type searchModeSegmenter = indextest.SearchModeSegmenter

// TestSearchHanWordsAndPhrases: a Chinese word a page may hold inside a
// longer word, where the index has no token for it (人民共和国 inside
// 中华人民共和国, 中华人民共和国 inside 中华人民共和国中央人民政府), matches
// as itself or as a phrase of its parts within two positions per character
// (index.HanWords), its shorter words not required apart; a quoted Han
// phrase is a phrase of its tokens without those the others make
// redundant (index.PhraseTokens). Before, every token was required, the
// long one included, and neither page was found.
func TestSearchHanWordsAndPhrases(t *testing.T) {
	fields := []string{"title_terms^4", "content_terms", "anchor_terms^2"}
	want := obj{
		"from": 0, "size": 10, "track_total_hits": true,
		"_source": []string{"id", "topic", "url", "host", "title", "lang", "content", "link_spans", "relevance", "authority"},
		"query": obj{"script_score": obj{
			"query": obj{"bool": obj{
				"must": []any{
					obj{"multi_match": obj{"query": "成立", "fields": fields, "type": "most_fields"}},
					obj{"bool": obj{
						"should": []any{
							obj{"multi_match": obj{"query": "人民共和国", "fields": fields, "type": "most_fields"}},
							obj{"multi_match": obj{"query": "人民 共和国", "fields": fields, "type": "phrase", "slop": 10}},
						},
						"minimum_should_match": 1,
					}},
					obj{"multi_match": obj{"query": "中华 华人 人民 共和国", "fields": fields, "type": "phrase", "slop": 14}},
				},
				"filter": []any{obj{"term": obj{"topic": "gimp"}}},
			}},
			"script": obj{"source": rankScript},
		}},
		"sort": []any{obj{"_score": "desc"}, obj{"topic": "asc"}, obj{"id": "asc"}},
	}
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "POST", path: "/focuscrawl-topic-gimp/_search", query: q("allow_no_indices", "true", "ignore_unavailable", "true"),
			body: want, status: 200, file: "search_empty.json"},
	)
	x := openFake(t, srv)
	x.seg = searchModeSegmenter{
		"中华人民共和国": "中华 华人 人民 共和 共和国 中华人民共和国",
		"人民共和国":   "人民 共和 共和国 人民共和国",
		"共和国":     "共和 共和国",
	}
	if _, err := x.Search(context.Background(), index.Query{Text: "人民共和国 成立 “中华人民共和国”", Topic: "gimp"}); err != nil {
		t.Fatal(err)
	}
}

func TestSearchAllTopicsAndMissingIndex(t *testing.T) {
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "POST", path: "/focuscrawl-all/_search", query: q("allow_no_indices", "true", "ignore_unavailable", "true"),
			body: obj{
				"from": 0, "size": 10, "track_total_hits": true,
				"_source": []string{"id", "topic", "url", "host", "title", "lang", "content", "link_spans", "relevance", "authority"},
				"query": obj{"script_score": obj{
					"query": obj{"bool": obj{"must": []any{
						obj{"multi_match": obj{"query": "nothing", "fields": []string{"title_terms^4", "content_terms", "anchor_terms^2"}, "type": "most_fields"}},
					}}},
					"script": obj{"source": rankScript},
				}},
				"sort": []any{obj{"_score": "desc"}, obj{"topic": "asc"}, obj{"id": "asc"}},
				// Across topics: one result per page, pages counted.
				"collapse": obj{"field": "id"},
				"aggs":     obj{"pages": obj{"cardinality": obj{"field": "id", "precision_threshold": 40000}}},
			},
			status: 200, file: "search_empty.json"},
		exchange{method: "POST", path: "/focuscrawl-topic-gimp/_count", query: q("allow_no_indices", "true", "ignore_unavailable", "true"),
			status: 200, file: "count.json"},
	)
	x := openFake(t, srv)
	res, err := x.Search(context.Background(), index.Query{Text: "nothing"})
	if err != nil || res.Total != 0 || res.Hits == nil || len(res.Hits) != 0 {
		t.Errorf("Search = %+v, %v; want an empty, non-nil hit list", res, err)
	}
	if n, err := x.Count(context.Background(), "gimp"); err != nil || n != 2 {
		t.Errorf("Count = %d, %v; want 2", n, err)
	}
}

// TestSearchAllTopicsCountsPages: across topics the result's Total is the
// aggregation's count of distinct pages, not hits.total's documents (a page
// indexed by two topics is one result, collapsed on its ID).
func TestSearchAllTopicsCountsPages(t *testing.T) {
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "POST", path: "/focuscrawl-all/_search", query: q("allow_no_indices", "true", "ignore_unavailable", "true"),
			body: searchBody([]string{"blur"}, nil, nil, nil, index.Query{}, 10), status: 200, file: "search_collapsed.json"},
	)
	x := openFake(t, srv)
	res, err := x.Search(context.Background(), index.Query{Text: "blur"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || len(res.Hits) != 2 || res.Hits[0].Topic != "optics" {
		t.Errorf("Search = %+v; want 2 pages (3 documents), h1 from optics", res)
	}
}

func TestSearchBadQueriesNeverReachTheCluster(t *testing.T) {
	_, srv := newFakeES(t, installTemplate(t), addFields("focuscrawl"))
	x := openFake(t, srv)
	for _, text := range []string{"", "   ", `"unbalanced`, "tab\there", strings.Repeat("x", 10240), "!!! ???"} {
		_, err := x.Search(context.Background(), index.Query{Text: text})
		if err == nil || !strings.Contains(err.Error(), "bad query") {
			t.Errorf("Search(%.20q) error = %v, want ErrBadQuery", text, err)
		}
	}
}

func TestSearchClusterErrorIsNotABadQuery(t *testing.T) {
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "POST", path: "/focuscrawl-all/_search", query: q("allow_no_indices", "true", "ignore_unavailable", "true"),
			body: searchBody([]string{"blur"}, nil, nil, nil, index.Query{}, 10), status: 400, file: "search_bad.json"},
	)
	x := openFake(t, srv)
	_, err := x.Search(context.Background(), index.Query{Text: "blur"})
	if err == nil || strings.Contains(err.Error(), index.ErrBadQuery.Error()) ||
		!strings.Contains(err.Error(), "search_phase_execution_exception") {
		t.Fatalf("error = %v, want the cluster's error, not ErrBadQuery", err)
	}
}

// rebuildScript is a whole rebuild of topic gimp from index 000001 to
// 000002, the copy polled once running, then done, the old index's
// deletion answered with status and file.
func rebuildScript(t *testing.T, deleteStatus int, deleteFile string) []exchange {
	return []exchange{
		installTemplate(t),
		addFields("focuscrawl"),
		{method: "GET", path: "/_alias/focuscrawl-topic-gimp", status: 200, file: "get_alias.json"},
		{method: "PUT", path: "/focuscrawl-idx-gimp-000002", status: 200, file: "create_index_v2.json", body: templateCreateBody(t)},
		{method: "POST", path: "/_reindex", query: q("refresh", "true", "wait_for_completion", "false"), status: 200, file: "reindex_task.json",
			body: obj{"source": obj{"index": "focuscrawl-idx-gimp-000001"}, "dest": obj{"index": "focuscrawl-idx-gimp-000002"}}},
		{method: "GET", path: "/_tasks/oTUltX4IQMOUUVeiohTt8A:12345", status: 200, file: "task_running.json"},
		{method: "GET", path: "/_tasks/oTUltX4IQMOUUVeiohTt8A:12345", status: 200, file: "task_done.json"},
		{method: "POST", path: "/_aliases", status: 200, file: "ack.json", body: obj{"actions": []any{
			obj{"remove": obj{"index": "focuscrawl-idx-gimp-000001", "alias": "focuscrawl-topic-gimp"}},
			obj{"remove": obj{"index": "focuscrawl-idx-gimp-000001", "alias": "focuscrawl-all"}},
			obj{"add": obj{"index": "focuscrawl-idx-gimp-000002", "alias": "focuscrawl-topic-gimp", "is_write_index": true}},
			obj{"add": obj{"index": "focuscrawl-idx-gimp-000002", "alias": "focuscrawl-all"}},
		}}},
		{method: "DELETE", path: "/focuscrawl-idx-gimp-000001", status: deleteStatus, file: deleteFile},
	}
}

// TestReindexSwapsAliasesAtomically asserts the whole zero-downtime
// sequence: find the current index, create the next with this binary's
// template settings and mappings, copy as a task polled until done, move
// both aliases in ONE _aliases request, drop the old index. Before, the
// copy was one request waiting for completion, which failed for every
// topic that takes longer to copy than the request timeout.
func TestReindexSwapsAliasesAtomically(t *testing.T) {
	_, srv := newFakeES(t, rebuildScript(t, 200, "ack.json")...)
	x := openFake(t, srv)
	x.pollEvery = 0
	next, err := x.Rebuild(context.Background(), "gimp")
	if err != nil || next != "focuscrawl-idx-gimp-000002" {
		t.Fatalf("Rebuild = %q, %v", next, err)
	}
}

// TestRebuildOldIndexLeft: when the swap is done but the old index cannot
// be deleted (a role without delete_index), Rebuild returns the new index
// with index.ErrRebuildOldIndexLeft, so that the caller reports it instead
// of rebuilding again (each retry left one more unaliased copy).
func TestRebuildOldIndexLeft(t *testing.T) {
	_, srv := newFakeES(t, rebuildScript(t, 403, "mapping_forbidden.json")...)
	x := openFake(t, srv)
	x.pollEvery = 0
	next, err := x.Rebuild(context.Background(), "gimp")
	if next != "focuscrawl-idx-gimp-000002" || !errors.Is(err, index.ErrRebuildOldIndexLeft) || !strings.Contains(err.Error(), "delete focuscrawl-idx-gimp-000001 by hand") {
		t.Fatalf("Rebuild = %q, %v; want the new index and the old one named as left", next, err)
	}
}

// TestReindexLeftoverIndex: a next index left by an earlier reindex that did
// not finish is not deleted (its copy task may still run) nor reused: the
// error says what to check and delete. Before, the create's bare
// resource_already_exists_exception said nothing of either.
func TestReindexLeftoverIndex(t *testing.T) {
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "GET", path: "/_alias/focuscrawl-topic-gimp", status: 200, file: "get_alias.json"},
		exchange{method: "PUT", path: "/focuscrawl-idx-gimp-000002", status: 400, file: "index_exists_400.json", body: templateCreateBody(t)},
	)
	x := openFake(t, srv)
	_, err := x.Rebuild(context.Background(), "gimp")
	if !errors.Is(err, index.ErrRebuildLeftover) || !strings.Contains(err.Error(), "from an earlier reindex that did not finish") ||
		!strings.Contains(err.Error(), "delete focuscrawl-idx-gimp-000002") {
		t.Fatalf("Rebuild = %v; want the leftover index named, with what to do", err)
	}
}

// templateCreateBody is what Rebuild must create the next index with: the
// embedded template's own settings and mappings, whatever template the
// cluster holds (an older binary's during a rolling upgrade).
func templateCreateBody(t *testing.T) obj {
	t.Helper()
	var tmpl struct {
		Template obj `json:"template"`
	}
	if err := json.Unmarshal(estemplate.IndexTemplate, &tmpl); err != nil {
		t.Fatal(err)
	}
	if tmpl.Template["settings"] == nil || tmpl.Template["mappings"] == nil {
		t.Fatalf("embedded template without settings or mappings: %v", tmpl.Template)
	}
	return obj{"settings": tmpl.Template["settings"], "mappings": tmpl.Template["mappings"]}
}

// TestRebuildWithoutIndex: a topic that has no index (a backend being
// filled for the first time) fails with index.ErrNoTopicIndex, which
// starter reindex takes for "nothing to rebuild", and makes nothing.
func TestRebuildWithoutIndex(t *testing.T) {
	_, srv := newFakeES(t,
		installTemplate(t),
		addFields("focuscrawl"),
		exchange{method: "GET", path: "/_alias/focuscrawl-topic-gimp", status: 404, file: "alias_missing.json"},
	)
	x := openFake(t, srv)
	if _, err := x.Rebuild(context.Background(), "gimp"); !errors.Is(err, index.ErrNoTopicIndex) {
		t.Fatalf("Rebuild = %v; want index.ErrNoTopicIndex", err)
	}
}

func TestIndexVersion(t *testing.T) {
	x := &Index{prefix: "focuscrawl"}
	tests := []struct {
		name string
		want int
		ok   bool
	}{
		{"focuscrawl-idx-gimp-000001", 1, true},
		{"focuscrawl-idx-gimp-001234", 1234, true},
		{"focuscrawl-idx-gimp-x", 0, false},
		{"other-idx-gimp-000001", 0, false},
		{"focuscrawl-idx-gimp-000000", 0, false},
	}
	for _, tt := range tests {
		v, err := x.indexVersion("gimp", tt.name)
		if (err == nil) != tt.ok || v != tt.want {
			t.Errorf("indexVersion(%q) = %d, %v; want %d ok=%v", tt.name, v, err, tt.want, tt.ok)
		}
	}
}

// TestOpenWithoutMappingPrivilege: a role that may write documents but not
// update mappings still opens the index; documents then go without link
// spans (which the indices' strict mappings would refuse), and the reason
// is reported.
func TestOpenWithoutMappingPrivilege(t *testing.T) {
	refused := addFields("focuscrawl")
	refused.status, refused.file = 403, "mapping_forbidden.json"
	lines := bulkIndexLines()
	withoutSpans := obj{}
	for k, v := range lines[1].(obj) {
		if k != "link_spans" {
			withoutSpans[k] = v
		}
	}
	lines[1] = withoutSpans
	_, srv := newFakeES(t,
		installTemplate(t),
		refused,
		exchange{method: "HEAD", path: "/_alias/focuscrawl-topic-gimp", status: 200},
		exchange{method: "POST", path: "/_bulk", ndjson: lines, status: 200, file: "bulk_retry.json"},
	)
	x := openFake(t, srv)
	if err := x.SpansUnavailable(); err == nil || !strings.Contains(err.Error(), "HTTP 403") {
		t.Errorf("SpansUnavailable = %v, want the refused mapping update", err)
	}
	if err := x.Upsert(context.Background(), gimpDocs()); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
}

// addedMappingsBody is the mappings part of the create-index body: the
// fields added to the template since its first version.
func addedMappingsBody() obj {
	return obj{"properties": obj{"link_spans": obj{"type": "keyword", "index": false, "doc_values": false}}}
}
