package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"focuscrawl/internal/index"
	"focuscrawl/internal/index/sqlitefts"
	"focuscrawl/internal/textproc"
)

// recorder is a NoResultRecorder that remembers its calls.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) RecordNoResultQuery(_ context.Context, topic, query string, _ time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, topic+"|"+query)
	return nil
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

var fetched = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// handBuiltDocs is the hand-built set: the same English text match on three
// pages that differ only in relevance and authority (their ranking order is
// known), Chinese pages, a second topic and host, and filler so that BM25's
// IDF is positive.
func handBuiltDocs() []index.Document {
	d := func(topic, id, host, title, text, lang string, rel, auth float64) index.Document {
		return index.Document{ID: id, Topic: topic, URL: "https://" + host + "/" + id, Host: host,
			Title: title, Text: text, Lang: lang, Relevance: rel, Authority: auth, FetchedAt: fetched}
	}
	docs := []index.Document{
		d("gimp", "low", "a.example", "Layer masks", "Layer masks hide parts of a layer without deleting pixels.", "en", 0.2, 0),
		d("gimp", "mid", "b.example", "Layer masks", "Layer masks hide parts of a layer without deleting pixels.", "en", 0.6, 0),
		d("gimp", "top", "b.example", "Layer masks", "Layer masks hide parts of a layer without deleting pixels.", "en", 0.6, 1),
		d("gimp", "zh-blur", "docs.example.cn", "高斯模糊滤镜教程", "在 GIMP 中使用高斯模糊滤镜可以柔化图像的边缘。", "zh", 0.9, 0),
		d("gimp", "zh-sharp", "docs.example.cn", "锐化滤镜", "锐化滤镜让图像的细节更清晰。", "zh", 0.8, 0),
		d("gimp", "xss", "evil.example", `<script>alert("t")</script> masks`, `masks <img src=x onerror=alert(1)>`, "en", 0.1, 0),
		d("inkscape", "ink", "c.example", "Layer masks in Inkscape", "Inkscape has clip paths and masks for a layer too.", "en", 0.7, 0),
	}
	for i := 0; i < 6; i++ {
		docs = append(docs, d("gimp", fmt.Sprintf("filler%d", i), "f.example", "unrelated", "nothing to see here", "en", 0.5, 0))
	}
	return docs
}

func newService(t *testing.T, docs []index.Document) (*Service, *recorder) {
	t.Helper()
	x, err := sqlitefts.Open(filepath.Join(t.TempDir(), "index.db"), textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if err := x.Upsert(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	return &Service{
		Index: x, Seg: textproc.Shared(), NoResults: rec,
		Topics: func(context.Context) ([]string, error) { return []string{"inkscape", "gimp"}, nil },
	}, rec
}

// get runs one request against the handler and returns status and body.
func get(t *testing.T, h http.Handler, target string) (int, http.Header, []byte) {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	body, _ := io.ReadAll(w.Result().Body)
	return w.Code, w.Result().Header, body
}

func apiSearch(t *testing.T, h http.Handler, params url.Values) Response {
	t.Helper()
	code, hdr, body := get(t, h, "/api/search?"+params.Encode())
	if code != 200 {
		t.Fatalf("GET /api/search?%s = %d: %s", params.Encode(), code, body)
	}
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	var r Response
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return r
}

func ids(r Response) string {
	out := make([]string, len(r.Hits))
	for i, h := range r.Hits {
		out[i] = h.ID
	}
	return strings.Join(out, ",")
}

func TestEnglishQueryRankingAndHighlighting(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	h := svc.Handler()
	r := apiSearch(t, h, url.Values{"q": {"layer masks"}, "topic": {"gimp"}})
	// Same text match: relevance 0.6 beats 0.2, and authority 1 doubles
	// the score of the other 0.6 page.
	if got := ids(r); got != "top,mid,low" {
		t.Errorf("ranking = %s, want top,mid,low", got)
	}
	if r.Total != 3 || r.Page != 1 || r.Pages != 1 || r.PageSize != PageSize {
		t.Errorf("response header fields = %+v", r)
	}
	first := r.Hits[0]
	if first.Rank != 1 || first.Title != "Layer masks" || first.URL != "https://b.example/top" || first.Topic != "gimp" ||
		first.Relevance != 0.6 || first.Authority != 1 || first.Score <= r.Hits[1].Score {
		t.Errorf("first hit = %+v", first)
	}
	if want := "<mark>Layer</mark> <mark>masks</mark> hide parts of a <mark>layer</mark> without deleting pixels."; first.Snippet != want {
		t.Errorf("snippet = %q, want %q", first.Snippet, want)
	}
}

func TestChineseQuery(t *testing.T) {
	svc, rec := newService(t, handBuiltDocs())
	h := svc.Handler()
	r := apiSearch(t, h, url.Values{"q": {"高斯模糊"}})
	if ids(r) != "zh-blur" {
		t.Fatalf("高斯模糊 found %s, want zh-blur", ids(r))
	}
	if s := r.Hits[0].Snippet; !strings.Contains(s, "<mark>高斯模糊</mark>") {
		t.Errorf("snippet %q does not mark 高斯模糊", s)
	}
	// Two Chinese words, both required: only the page with both.
	r = apiSearch(t, h, url.Values{"q": {"锐化 图像"}})
	if ids(r) != "zh-sharp" {
		t.Errorf("锐化 图像 found %s, want zh-sharp", ids(r))
	}
	if len(rec.got()) != 0 {
		t.Errorf("searches with results were recorded: %v", rec.got())
	}
}

func TestTopicAndHostFilters(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	h := svc.Handler()
	tests := []struct {
		params url.Values
		want   string
	}{
		{url.Values{"q": {"layer masks"}}, "top,ink,mid,low"},
		{url.Values{"q": {"layer masks"}, "topic": {"inkscape"}}, "ink"},
		{url.Values{"q": {"layer masks"}, "host": {"B.Example"}}, "top,mid"},
		{url.Values{"q": {"layer masks"}, "topic": {"inkscape"}, "host": {"b.example"}}, ""},
	}
	for _, tt := range tests {
		if got := ids(apiSearch(t, h, tt.params)); got != tt.want {
			t.Errorf("%v: got %s, want %s", tt.params, got, tt.want)
		}
	}
}

func TestPagination(t *testing.T) {
	var docs []index.Document
	for i := 0; i < 25; i++ {
		docs = append(docs, index.Document{ID: fmt.Sprintf("p%02d", i), Topic: "gimp", Host: "p.example",
			URL: fmt.Sprintf("https://p.example/%d", i), Title: "curves", Text: "curves tool",
			Relevance: float64(i) / 100, Lang: "en"})
	}
	docs = append(docs, handBuiltDocs()...)
	svc, _ := newService(t, docs)
	h := svc.Handler()
	r := apiSearch(t, h, url.Values{"q": {"curves"}, "page": {"3"}})
	if r.Total != 25 || r.Pages != 3 || r.Page != 3 || len(r.Hits) != 5 || r.Hits[0].Rank != 21 || r.Hits[4].ID != "p00" {
		t.Errorf("page 3 = total %d pages %d page %d hits %s first rank %d", r.Total, r.Pages, r.Page, ids(r), r.Hits[0].Rank)
	}
	r = apiSearch(t, h, url.Values{"q": {"curves"}, "page": {"4"}})
	if r.Total != 25 || len(r.Hits) != 0 || r.Hits == nil {
		t.Errorf("page past the end = %+v; want no hits, total kept", r)
	}
	// limit sets the hits per page, as `search query --limit --json` does.
	r = apiSearch(t, h, url.Values{"q": {"curves"}, "page": {"2"}, "limit": {"4"}})
	if r.PageSize != 4 || r.Pages != 7 || len(r.Hits) != 4 || r.Hits[0].Rank != 5 || r.Hits[0].ID != "p20" {
		t.Errorf("page 2 of 4 = page size %d pages %d hits %s first rank %d; want 4, 7, p20…p17 from rank 5", r.PageSize, r.Pages, ids(r), r.Hits[0].Rank)
	}
	// The page keeps its size: its page links carry no limit.
	if code, _, page := get(t, h, "/?q=curves&limit=4"); code != http.StatusOK || strings.Count(string(page), `class="result"`) != PageSize {
		t.Errorf("page with a limit: status %d, %d hits; want %d", code, strings.Count(string(page), `class="result"`), PageSize)
	}
}

// TestBadLimitIs400: the API's limit must be a whole number from 1 to
// index.MaxLimit, and a page is too deep past index.MaxOffset hits at that
// size.
func TestBadLimitIs400(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	h := svc.Handler()
	for _, tt := range []struct{ rawQuery, want string }{
		{"q=masks&limit=0", "limit \"0\" is not a whole number from 1"},
		{"q=masks&limit=ten", "is not a whole number"},
		{"q=masks&limit=" + strconv.Itoa(index.MaxLimit+1), "is not a whole number"},
		{"q=masks&limit=1&limit=2", "given 2 times"},
		{"q=masks&limit=1&page=" + strconv.Itoa(index.MaxOffset+2), "too deep"},
	} {
		code, _, body := get(t, h, "/api/search?"+tt.rawQuery)
		var e errorBody
		if code != http.StatusBadRequest || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, tt.want) {
			t.Errorf("%s: status %d, body %s; want 400 mentioning %q", tt.rawQuery, code, body, tt.want)
		}
	}
	if code, _, body := get(t, h, "/api/search?q=masks&limit=1&page="+strconv.Itoa(index.MaxOffset+1)); code != http.StatusOK {
		t.Errorf("the deepest page at limit 1: status %d, %s; want 200", code, body)
	}
}

// TestBadQueriesAre400 checks every kind of bad input gets a 400 with a JSON
// error that says what is wrong — never a 500.
// TestPastedWhitespace: a query pasted with tabs or line breaks (from a
// table, a document) is searched as if they were spaces — it was a 400.
func TestPastedWhitespace(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	h := svc.Handler()
	want := apiSearch(t, h, url.Values{"q": {"layer masks"}, "topic": {"gimp"}})
	for _, q := range []string{"layer\tmasks", "layer\r\nmasks\n", "\tlayer\fmasks"} {
		if got := apiSearch(t, h, url.Values{"q": {q}, "topic": {"gimp"}}); ids(got) != ids(want) || got.Total != want.Total {
			t.Errorf("q=%q: hits %s (%d), want those of \"layer masks\": %s (%d)", q, ids(got), got.Total, ids(want), want.Total)
		}
	}
}

func TestBadQueriesAre400(t *testing.T) {
	svc, rec := newService(t, handBuiltDocs())
	h := svc.Handler()
	tests := []struct {
		name, rawQuery, want string
	}{
		{"missing q", "", "query is empty"},
		{"empty q", "q=", "query is empty"},
		{"blank q", "q=+++", "query is empty"},
		{"10 kB q", "q=" + strings.Repeat("a", 10240), "bytes long"},
		{"300 characters", "q=" + strings.Repeat("图", 300), "characters long"},
		{"unbalanced quote", "q=%22layer+masks", "unbalanced double quote"},
		{"unbalanced curly quote", "q=%E2%80%9C%E5%9B%BE%E5%83%8F", "unbalanced double quote"},
		{"NUL", "q=layer%00masks", "control character"},
		{"bell", "q=%07", "control character"},
		{"tab only", "q=%09%0D%0A", "query is empty"},
		{"escape after a tab", "q=layer%09%1Bmasks", "control character"},
		{"invalid UTF-8", "q=%FF%FE", "not valid UTF-8"},
		{"only punctuation", "q=%21%21%21+%3F%3F", "no searchable words"},
		{"malformed escape", "q=%zz", "malformed query string"},
		{"page 0", "q=masks&page=0", "not a positive whole number"},
		{"page text", "q=masks&page=two", "not a positive whole number"},
		{"page too deep", "q=masks&page=5000", "too deep"},
		{"repeated q", "q=a&q=b", "given 2 times"},
		{"control in topic", "q=masks&topic=gi%01mp", "topic filter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, hdr, body := get(t, h, "/api/search?"+tt.rawQuery)
			if code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", code, body)
			}
			if !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Errorf("Content-Type = %q", hdr.Get("Content-Type"))
			}
			var e errorBody
			if err := json.Unmarshal(body, &e); err != nil || !strings.Contains(e.Error, tt.want) {
				t.Errorf("body %s (%v), want an error mentioning %q", body, err, tt.want)
			}
			// The page answers 400 too, with the message shown.
			code, _, page := get(t, h, "/?"+tt.rawQuery+"&x=1")
			if tt.rawQuery != "" && tt.name != "malformed escape" && code != http.StatusBadRequest {
				t.Errorf("page status %d, want 400", code)
			}
			if tt.rawQuery != "" && tt.name != "malformed escape" && !strings.Contains(string(page), `class="error"`) {
				t.Errorf("page does not show the error")
			}
		})
	}
	if len(rec.got()) != 0 {
		t.Errorf("bad queries were recorded as no-result searches: %v", rec.got())
	}
}

func TestNoResultSearchesAreRecordedPerTopic(t *testing.T) {
	svc, rec := newService(t, handBuiltDocs())
	h := svc.Handler()
	apiSearch(t, h, url.Values{"q": {"色阶 曲线"}, "topic": {"gimp"}})
	apiSearch(t, h, url.Values{"q": {"bezier"}})                             // no topic: a miss for each known topic
	apiSearch(t, h, url.Values{"q": {"bezier"}, "host": {"a.example"}})      // host-restricted: says nothing about the topic
	apiSearch(t, h, url.Values{"q": {"layer masks"}, "topic": {"inkscape"}}) // found: not recorded
	want := []string{"gimp|色阶 曲线", "gimp|bezier", "inkscape|bezier"}
	if got := rec.got(); strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("recorded %q, want %q", got, want)
	}
}

// failingIndex is an index whose searches fail like an unreachable cluster.
type failingIndex struct{ index.Index }

func (failingIndex) Search(context.Context, index.Query) (index.Result, error) {
	return index.Result{}, errors.New("elastic: search: dial tcp 10.0.0.1:9200: connection refused")
}

func TestIndexFailureIs503WithoutDetails(t *testing.T) {
	svc := &Service{Index: failingIndex{}, Seg: textproc.Shared(), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	code, _, body := get(t, svc.Handler(), "/api/search?q=masks")
	if code != http.StatusServiceUnavailable || strings.Contains(string(body), "10.0.0.1") {
		t.Errorf("status %d body %s; want 503 without internal details", code, body)
	}
	code, _, _ = get(t, svc.Handler(), "/?q=masks")
	if code != http.StatusServiceUnavailable {
		t.Errorf("page status %d, want 503", code)
	}
}

// slowIndex is an index whose searches run until their context ends, as
// a query over a huge index would.
type slowIndex struct{ index.Index }

func (slowIndex) Search(ctx context.Context, _ index.Query) (index.Result, error) {
	<-ctx.Done()
	return index.Result{}, ctx.Err()
}

// TestSearchTimeout: a search that outlasts Service.Timeout is stopped (its
// context ends) and answered 503 with a message saying it took too long,
// on the API and the page. Before, nothing bounded it: the server's write
// timeout does not cancel a handler.
func TestSearchTimeout(t *testing.T) {
	svc := &Service{Index: slowIndex{}, Seg: textproc.Shared(), Timeout: 20 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	code, _, body := get(t, svc.Handler(), "/api/search?q=masks")
	if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "took too long") {
		t.Errorf("API: status %d body %s; want 503 saying the search took too long", code, body)
	}
	code, _, body = get(t, svc.Handler(), "/?q=masks")
	if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "took too long") {
		t.Errorf("page: status %d; want 503 saying the search took too long", code)
	}
}

func TestPageRendersEscapedResults(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	h := svc.Handler()
	code, hdr, body := get(t, h, "/?q=masks&topic=gimp")
	page := string(body)
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / = %d %q", code, hdr.Get("Content-Type"))
	}
	for _, want := range []string{
		`<mark>masks</mark>`, `href="https://b.example/top"`, `class="topic">gimp</span>`, `relevance 0.60`,
		`&lt;script&gt;alert(&#34;t&#34;)&lt;/script&gt; masks`, `&lt;img src=x onerror=alert(1)&gt;`,
		`<option value="gimp" selected>gimp</option>`,
		// Each result in its own language, so a Chinese title on the
		// English page gets Chinese glyphs and pronunciation.
		`<li class="result" lang="en">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "<img src=x") {
		t.Error("page contains unescaped document HTML")
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP = %q", csp)
	}
	// The home page: a search box and no results.
	code, _, body = get(t, h, "/")
	if code != 200 || !strings.Contains(string(body), `id="q"`) || strings.Contains(string(body), `id="results"`) {
		t.Errorf("home page: %d", code)
	}
	code, hdr, _ = get(t, h, "/static/style.css")
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/css") {
		t.Errorf("style sheet: %d %q", code, hdr.Get("Content-Type"))
	}
	if code, _, _ := get(t, h, "/nope"); code != 404 {
		t.Errorf("unknown path: %d", code)
	}
}

func TestPageLinksPaginate(t *testing.T) {
	if got := fmt.Sprint(pageLinks(1, 1)); got != "[]" {
		t.Errorf("one page: %s", got)
	}
	if got := fmt.Sprint(pageLinks(7, 20)); got != "[3 4 5 6 7 8 9 10 11]" {
		t.Errorf("pageLinks(7, 20) = %s", got)
	}
	if got := fmt.Sprint(pageLinks(2, 3)); got != "[1 2 3]" {
		t.Errorf("pageLinks(2, 3) = %s", got)
	}
}

// TestAPIErrorsAreJSON: a wrong method or an unknown path under /api/ was
// answered by ServeMux in plain text ("Method Not Allowed"), which a client
// of the JSON API cannot decode like every other error.
func TestAPIErrorsAreJSON(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	for _, tt := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"POST", "/api/search?q=masks", http.StatusMethodNotAllowed, "method POST"},
		{"DELETE", "/api/search", http.StatusMethodNotAllowed, "method DELETE"},
		{"GET", "/api/searchx?q=masks", http.StatusNotFound, "no API endpoint"},
		{"GET", "/api/", http.StatusNotFound, "no API endpoint"},
	} {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader("q=masks"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e errorBody
		if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
			json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, tt.want) {
			t.Errorf("%s %s = %d %q %s; want %d and a JSON error mentioning %q",
				tt.method, tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.want)
		}
		if tt.status == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow = %q", tt.method, tt.path, resp.Header.Get("Allow"))
		}
	}
	// GET and HEAD are still served.
	if r := apiSearch(t, svc.Handler(), url.Values{"q": {"masks"}}); r.Total == 0 {
		t.Error("GET /api/search found nothing")
	}
	resp, err := http.Head(srv.URL + "/api/search?q=masks")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("HEAD /api/search: %v %v", resp, err)
	}
}

// TestHostFilterIsCanonical: documents carry urlnorm.Host of their URL
// (punycode, lower case, port kept unless default), but the filter was only
// lower-cased: a host typed as the browser shows it (Unicode, trailing dot,
// full-width letters) found nothing, and "a.example/x" was searched as a host.
func TestHostFilterIsCanonical(t *testing.T) {
	doc := func(id, host string) index.Document {
		return index.Document{ID: id, Topic: "gimp", URL: "https://" + host + "/" + id, Host: host,
			Title: "curves", Text: "curves tool", Lang: "en", Relevance: 0.5}
	}
	svc, _ := newService(t, []index.Document{doc("idn", "xn--bcher-kva.example"), doc("port", "b.example:8080")})
	h := svc.Handler()
	for host, want := range map[string]string{
		"Bücher.Example.":       "idn",
		"xn--bcher-kva.example": "idn",
		" B.EXAMPLE:8080 ":      "port",
		"ｂ.example:8080":        "port",
		"b.example":             "port", // without a port: every port, as scope.hosts
		"b.example:9090":        "",
	} {
		if got := ids(apiSearch(t, h, url.Values{"q": {"curves"}, "host": {host}})); got != want {
			t.Errorf("host %q: got %q, want %q", host, got, want)
		}
	}
	for _, host := range []string{"a.example/x", "a.example?q=1", "user@a.example", "a.example:0", "a..b:x"} {
		code, _, body := get(t, h, "/api/search?"+url.Values{"q": {"curves"}, "host": {host}}.Encode())
		if code != http.StatusBadRequest || !strings.Contains(string(body), "host filter") {
			t.Errorf("host %q: %d %s; want 400 about the host filter", host, code, body)
		}
	}
}

// TestEmptyTopicListIsCached: the topic list was cached only when not
// empty, so before the first crawl every page view and every miss read
// the crawl store again.
func TestEmptyTopicListIsCached(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	calls := 0
	svc.Topics = func(context.Context) ([]string, error) { calls++; return nil, nil }
	h := svc.Handler()
	get(t, h, "/")
	get(t, h, "/?q=bezier")
	apiSearch(t, h, url.Values{"q": {"bezier"}})
	if calls != 1 {
		t.Errorf("the topic list was read %d times within its TTL, want 1", calls)
	}
}

// TestTopicLookupFailureIsNotRetriedEveryRequest: with the store failing,
// concurrent page views share one lookup (outside the service's lock) and
// later ones within topicsRetry ask no more; a list read before stays in
// use. Before, the lock was held across the store call and a failure was
// not remembered: page views queued behind each other, each one asking.
func TestTopicLookupFailureIsNotRetriedEveryRequest(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	svc.Now = func() time.Time { return now }
	var calls atomic.Int32
	release := make(chan struct{})
	fail := true
	svc.Topics = func(context.Context) ([]string, error) {
		calls.Add(1)
		<-release
		if fail {
			return nil, errors.New("store down")
		}
		return []string{"roses"}, nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 5 {
		wg.Go(func() {
			_, err := svc.KnownTopics(t.Context())
			errs <- err
		})
	}
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil {
			t.Error("a request during the failed lookup got no error")
		}
	}
	if _, err := svc.KnownTopics(t.Context()); err == nil || calls.Load() != 1 {
		t.Errorf("after the failure: %v, %d lookups; want the failure remembered, 1 lookup", err, calls.Load())
	}
	fail = false
	now = now.Add(topicsRetry)
	if ts, err := svc.KnownTopics(t.Context()); err != nil || !slices.Equal(ts, []string{"roses"}) {
		t.Fatalf("after topicsRetry: %v, %v; want the list", ts, err)
	}
	fail = true
	now = now.Add(topicsTTL)
	if ts, err := svc.KnownTopics(t.Context()); err != nil || !slices.Equal(ts, []string{"roses"}) {
		t.Errorf("a failure after a list was read: %v, %v; want that list", ts, err)
	}
}

// TestPagePastTheEnd: the page past the last one said "page 99 of 10" and
// its "Previous" link led to page 98, as empty; it says the page is past
// the last one and links that page.
func TestPagePastTheEnd(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	code, _, body := get(t, svc.Handler(), "/?q=masks&page=99")
	page := string(body)
	if code != 200 || !strings.Contains(page, "page 99 is past the last page") || strings.Contains(page, "page 99 of") {
		t.Errorf("GET page 99 = %d; the summary does not say the page is past the last one:\n%s", code, page)
	}
	if !strings.Contains(page, `<a href="/?page=1&amp;q=masks">page 1</a>`) {
		t.Errorf("the summary does not link the last page:\n%s", page)
	}
}

// TestQuotesAndUnknownTopics: a phrase opened with a low-9 quote
// („layer masks“, as German and Polish write) is a phrase, not an
// unbalanced quote; a topic filter naming no topic the index knows says so
// (the API's notice, the page's summary) and keeps the filter visible in
// the form, where it showed "All topics" while filtering.
func TestQuotesAndUnknownTopics(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	h := svc.Handler()
	for _, q := range []string{"„layer masks“", "„layer masks”"} {
		if code, _, body := get(t, h, "/api/search?"+url.Values{"q": {q}}.Encode()); code != http.StatusOK {
			t.Errorf("q=%s: status %d, body %s", q, code, body)
		}
	}
	r := apiSearch(t, h, url.Values{"q": {"masks"}, "topic": {"GIMP"}})
	if r.Total != 0 || !strings.Contains(r.Notice, `the index has no topic "GIMP" (did you mean "gimp"?)`) {
		t.Errorf("topic GIMP: total %d, notice %q", r.Total, r.Notice)
	}
	if r := apiSearch(t, h, url.Values{"q": {"masks"}, "topic": {"gimp"}}); r.Notice != "" {
		t.Errorf("topic gimp: notice %q, want none", r.Notice)
	}
	_, _, page := get(t, h, "/?q=masks&topic=GIMP")
	p := string(page)
	if !strings.Contains(p, `<option value="GIMP" selected>GIMP (not a known topic)</option>`) || !strings.Contains(p, `did you mean`) {
		t.Errorf("page for topic GIMP: the form or the summary does not show the filter:\n%s", p)
	}
	// A topic with spaces around it is the topic it searches.
	_, _, page = get(t, h, "/?q=masks&topic=%20gimp%20")
	if p := string(page); strings.Contains(p, "not a known topic") || !strings.Contains(p, `<option value="gimp" selected>`) {
		t.Errorf("page for topic %%20gimp%%20: not shown as the known topic gimp:\n%s", p)
	}
}

// TestOperatorNotice: "masks -layer" found the pages with "layer", the
// opposite of what a web search's minus means, and nothing said so; the
// API's notice and the page's summary say there are no operators. A query
// without them, and a quoted "-layer", get no notice.
func TestOperatorNotice(t *testing.T) {
	svc, _ := newService(t, handBuiltDocs())
	h := svc.Handler()
	r := apiSearch(t, h, url.Values{"q": {"masks -layer"}})
	if r.Total == 0 || !strings.Contains(r.Notice, "no search operators here: -layer is searched as a word") {
		t.Errorf("masks -layer: total %d, notice %q", r.Total, r.Notice)
	}
	for _, q := range []string{"masks", `masks "-layer"`} {
		if r := apiSearch(t, h, url.Values{"q": {q}}); r.Notice != "" {
			t.Errorf("%s: notice %q, want none", q, r.Notice)
		}
	}
	_, _, page := get(t, h, "/?q="+url.QueryEscape("masks OR layer"))
	if !strings.Contains(string(page), "OR is searched as a word") {
		t.Errorf("the page's summary does not say OR is no operator:\n%s", page)
	}
}

// TestMissingWordsLeftOut: a query with a word no page has answered
// nothing, however well the rest matched (a 30,000-page crawl's index:
// "gradient descent training model data", no page with "data"); the
// results are now the query's without it, the API names it (missing,
// notice), the page's summary says so, and the query is still recorded as
// one that found nothing, for the topic's keyword expansion.
func TestMissingWordsLeftOut(t *testing.T) {
	svc, rec := newService(t, handBuiltDocs())
	h := svc.Handler()
	r := apiSearch(t, h, url.Values{"q": {"layer masks bezier"}, "topic": {"gimp"}})
	if ids(r) != "top,mid,low" || strings.Join(r.Missing, ",") != "bezier" ||
		!strings.Contains(r.Notice, `no page has "bezier": results without it`) {
		t.Errorf("hits %s, missing %q, notice %q; want top,mid,low without bezier", ids(r), r.Missing, r.Notice)
	}
	if r := apiSearch(t, h, url.Values{"q": {"高斯模糊 色阶"}, "topic": {"gimp"}}); ids(r) != "zh-blur" || strings.Join(r.Missing, ",") != "色阶" {
		t.Errorf("高斯模糊 色阶: hits %s, missing %q", ids(r), r.Missing)
	}
	if r := apiSearch(t, h, url.Values{"q": {"layer masks"}, "topic": {"gimp"}}); r.Missing != nil || r.Notice != "" {
		t.Errorf("found whole: missing %q, notice %q", r.Missing, r.Notice)
	}
	_, _, page := get(t, h, "/?topic=gimp&q="+url.QueryEscape("layer masks bezier"))
	if !strings.Contains(string(page), "no page has &#34;bezier&#34;: results without it") {
		t.Errorf("the page's summary does not name the missing word:\n%s", page)
	}
	want := []string{"gimp|layer masks bezier", "gimp|高斯模糊 色阶", "gimp|layer masks bezier"}
	if got := rec.got(); strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("recorded %q, want %q", got, want)
	}
}

// emptyThenSlow answers its first search at once with nothing, and runs
// every later one until its context ends.
type emptyThenSlow struct {
	index.Index
	calls atomic.Int32
}

func (e *emptyThenSlow) Search(ctx context.Context, _ index.Query) (index.Result, error) {
	if e.calls.Add(1) == 1 {
		return index.Result{}, nil
	}
	<-ctx.Done()
	return index.Result{}, ctx.Err()
}

// TestRelaxingNeverFails: a query answered "nothing" in time stays that
// answer when looking its words up alone outlasts the search's timeout
// (found by a review: the look-ups turned a 200 into a 503), and is
// recorded as a no-result search; a query filtered by a topic the index
// does not know is not looked up word by word at all.
func TestRelaxingNeverFails(t *testing.T) {
	ix := &emptyThenSlow{}
	rec := &recorder{}
	svc := &Service{Index: ix, Seg: textproc.Shared(), Timeout: 20 * time.Millisecond, NoResults: rec,
		Topics: func(context.Context) ([]string, error) { return []string{"gimp"}, nil },
		Log:    slog.New(slog.NewTextHandler(io.Discard, nil))}
	r := apiSearch(t, svc.Handler(), url.Values{"q": {"gradient descent"}})
	if r.Total != 0 || r.Missing != nil {
		t.Errorf("total %d, missing %q; want the plain empty answer", r.Total, r.Missing)
	}
	if got := rec.got(); len(got) != 1 {
		t.Errorf("recorded %q; want the miss once", got)
	}
	ix.calls.Store(0)
	r = apiSearch(t, svc.Handler(), url.Values{"q": {"gradient descent"}, "topic": {"gimpp"}})
	if n := ix.calls.Load(); n != 1 || !strings.Contains(r.Notice, `no topic "gimpp"`) {
		t.Errorf("unknown topic: %d searches, notice %q; want 1 and the unknown topic named", n, r.Notice)
	}
}
