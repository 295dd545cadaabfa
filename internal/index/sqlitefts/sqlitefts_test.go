package sqlitefts

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"focuscrawl/internal/index"
	"focuscrawl/internal/textproc"
)

// spaceSegmenter lower-cases and splits on whitespace: test texts are written
// pre-segmented, Chinese included.
type spaceSegmenter struct{}

func (spaceSegmenter) Segment(text string) string {
	return strings.Join(strings.Fields(strings.ToLower(text)), " ")
}

func openTemp(t testing.TB) *Index {
	t.Helper()
	x, err := Open(filepath.Join(t.TempDir(), "index.db"), spaceSegmenter{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func doc(topic, id, host, title, text string) index.Document {
	return index.Document{
		ID: id, Topic: topic, Host: host, URL: "https://" + host + "/" + id,
		Title: title, Text: text, Lang: "en", Relevance: 0.5,
		FetchedAt: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
	}
}

func mustUpsert(t testing.TB, x *Index, docs ...index.Document) {
	t.Helper()
	if err := x.Upsert(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
}

func mustSearch(t testing.TB, x *Index, q index.Query) index.Result {
	t.Helper()
	res, err := x.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return res
}

func mustCount(t testing.TB, x *Index, topic string) int {
	t.Helper()
	n, err := x.Count(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func hitIDs(res index.Result) []string {
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids
}

func sortedIDs(res index.Result) string {
	ids := hitIDs(res)
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

// filler adds documents that match none of the test queries, so that BM25's
// inverse document frequencies are positive (FTS5 floors the IDF of a term
// found in half the documents or more).
func filler(topic string, n int) []index.Document {
	docs := make([]index.Document, n)
	for i := range docs {
		docs[i] = doc(topic, fmt.Sprintf("filler%02d", i), "filler.example", "unrelated page", "nothing to see here at all")
	}
	return docs
}

func TestOpenReopenKeepsDocumentsAndUsesWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	x, err := Open(path, spaceSegmenter{})
	if err != nil {
		t.Fatal(err)
	}
	mustUpsert(t, x, doc("photo", "a", "example.com", "image filter", "sharpen images"))
	var mode string
	if err := x.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// Opening again runs the schema statements again: they must be
	// idempotent and keep the data.
	x, err = Open(path, spaceSegmenter{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer x.Close()
	if n := mustCount(t, x, ""); n != 1 {
		t.Errorf("Count after reopen = %d, want 1", n)
	}
	if res := mustSearch(t, x, index.Query{Text: "sharpen"}); res.Total != 1 {
		t.Errorf("search after reopen: Total = %d, want 1", res.Total)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	x, err := Open(path, spaceSegmenter{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	x.Close()
	if x, err := Open(path, spaceSegmenter{}); err == nil {
		x.Close()
		t.Fatal("Open of a newer schema succeeded")
	}
}

func TestOpenRejectsBadArguments(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
		seg  index.Segmenter
	}{
		{"nil segmenter", filepath.Join(dir, "a.db"), nil},
		{"empty path", "", spaceSegmenter{}},
		{"question mark", filepath.Join(dir, "a?.db"), spaceSegmenter{}},
	}
	for _, tt := range tests {
		if x, err := Open(tt.path, tt.seg); err == nil {
			x.Close()
			t.Errorf("%s: Open succeeded", tt.name)
		}
	}
}

func TestMemoryIndexKeepsOneDatabase(t *testing.T) {
	x, err := Open(":memory:", spaceSegmenter{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	// Concurrent use would open a second connection (a second, empty
	// database) if the pool were not pinned to one.
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				id := fmt.Sprintf("g%d-%d", g, i)
				if err := x.Upsert(context.Background(), []index.Document{doc("t", id, "h", "memory", "text")}); err != nil {
					t.Error(err)
					return
				}
				if _, err := x.Search(context.Background(), index.Query{Text: "memory"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := mustCount(t, x, "t"); n != 20 {
		t.Errorf("Count = %d, want 20", n)
	}
}

func TestSearchEnglish(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x,
		doc("photo", "both", "a.example", "Image filters", "how to apply a filter to an image"),
		doc("photo", "image-only", "a.example", "Image sizes", "resize an image"),
		doc("photo", "filter-only", "b.example", "Water", "a water filter"),
		doc("photo", "anchor", "b.example", "Untitled", "an image of a cat"),
	)
	a := doc("photo", "anchor", "b.example", "Untitled", "an image of a cat")
	a.AnchorTexts = "great filter examples"
	mustUpsert(t, x, a)

	res := mustSearch(t, x, index.Query{Text: "IMAGE Filter"})
	if got, want := sortedIDs(res), "anchor,both"; got != want {
		t.Errorf("hits = %s, want %s (every term must match, in title, text or anchors)", got, want)
	}
	if res.Total != 2 {
		t.Errorf("Total = %d, want 2", res.Total)
	}
	for _, h := range res.Hits {
		if h.Score <= 0 || h.URL == "" || h.Host == "" || h.Topic != "photo" || h.Lang != "en" {
			t.Errorf("hit missing fields or with non-positive score: %+v", h)
		}
	}
	if res := mustSearch(t, x, index.Query{Text: "zebra"}); res.Total != 0 || res.Hits == nil || len(res.Hits) != 0 {
		t.Errorf("no-match search = %+v, want Total 0 and empty (non-nil) Hits", res)
	}
}

func TestSearchChinese(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x,
		doc("photo", "zh1", "cn.example", "图像 滤镜 教程", "本文 介绍 常用 的 图像 滤镜"),
		doc("photo", "zh2", "cn.example", "图像 尺寸", "如何 调整 图像 大小"),
		doc("photo", "zh3", "cn.example", "咖啡 滤镜", "手冲 咖啡 的 滤镜"),
	)
	res := mustSearch(t, x, index.Query{Text: "图像 滤镜"})
	if got := sortedIDs(res); got != "zh1" {
		t.Fatalf("hits = %s, want zh1", got)
	}
	if s := res.Hits[0].Snippet; !strings.Contains(s, "<mark>图像</mark>") || !strings.Contains(s, "<mark>滤镜</mark>") {
		t.Errorf("snippet %q does not mark both Chinese terms", s)
	}
	if res := mustSearch(t, x, index.Query{Text: "滤镜"}); sortedIDs(res) != "zh1,zh3" {
		t.Errorf("single-term hits = %s, want zh1,zh3", sortedIDs(res))
	}
}

// TestSearchTraditionalChinese: pages in Traditional and Simplified
// Chinese are found by a query in either script, with the Taiwan words
// (網路, 軟體) meeting the mainland's (网络, 软件), and the snippet marks
// the page's own characters.
func TestSearchTraditionalChinese(t *testing.T) {
	x, err := Open(filepath.Join(t.TempDir(), "index.db"), textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	mustUpsert(t, x,
		doc("net", "tw", "tw.example", "網路設定", "如何設定網路介面與防火牆，安裝軟體套件。"),
		doc("net", "cn", "cn.example", "网络设置", "如何设置网络接口与防火墙，安装软件包。"),
		doc("net", "other", "cn.example", "咖啡", "手冲咖啡的滤镜"),
	)
	for _, q := range []string{"网络 防火墙", "網路 防火牆", "软件", "軟體"} {
		res := mustSearch(t, x, index.Query{Text: q})
		if got := sortedIDs(res); got != "cn,tw" {
			t.Errorf("Search(%s) = [%s], want [cn,tw]", q, got)
		}
		for _, h := range res.Hits {
			if h.URL == "https://tw.example/tw" && !strings.Contains(h.Snippet, "<mark>") {
				t.Errorf("Search(%s): snippet %q marks nothing", q, h.Snippet)
			}
		}
	}
}

func TestSearchPhrase(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x,
		doc("p", "adjacent", "h", "t", "an image filter tutorial"),
		doc("p", "apart", "h", "t", "filter the image first"),
		doc("p", "zh-adjacent", "h", "t", "图像 滤镜 教程"),
		doc("p", "zh-apart", "h", "t", "滤镜 与 图像"),
	)
	tests := []struct{ query, want string }{
		{"image filter", "adjacent,apart"},
		{`"image filter"`, "adjacent"},
		{`"filter image"`, ""},
		{`tutorial "image filter"`, "adjacent"},
		{"“图像 滤镜”", "zh-adjacent"},
		{`"图像 滤镜"`, "zh-adjacent"},
		{"图像 滤镜", "zh-adjacent,zh-apart"},
	}
	for _, tt := range tests {
		if got := sortedIDs(mustSearch(t, x, index.Query{Text: tt.query})); got != tt.want {
			t.Errorf("Search(%s) = [%s], want [%s]", tt.query, got, tt.want)
		}
	}
}

func TestSearchHighlightsAndEscapes(t *testing.T) {
	x := openTemp(t)
	d := doc("p", "x", "h", "Filters", `Use <script>alert(1)</script> & a Filter for "images".`)
	mustUpsert(t, x, d)
	res := mustSearch(t, x, index.Query{Text: "filter"})
	if len(res.Hits) != 1 {
		t.Fatalf("hits = %v", hitIDs(res))
	}
	s := res.Hits[0].Snippet
	if !strings.Contains(s, "<mark>Filter</mark>") {
		t.Errorf("snippet %q does not mark the term in its original case", s)
	}
	if strings.Contains(s, "<script>") || !strings.Contains(s, "&lt;script&gt;") {
		t.Errorf("snippet %q is not HTML-escaped", s)
	}
}

func TestSearchFilters(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x,
		doc("photo", "1", "a.example", "lens", "camera lens"),
		doc("photo", "2", "b.example", "lens", "camera lens"),
		doc("optics", "1", "a.example", "lens", "glass lens"),
		// A site on another port than its scheme's default, and hosts
		// that share a prefix with it without being it.
		doc("local", "p1", "127.0.0.1:28089", "lens", "local lens"),
		doc("local", "p2", "127.0.0.1:9000", "lens", "local lens"),
		doc("local", "p3", "127.0.0.10:28089", "lens", "local lens"),
		doc("local", "p4", "[::1]:8080", "lens", "local lens"),
	)
	tests := []struct {
		topic, host string
		want        string
	}{
		// photo/1 and optics/1 are one URL: across topics, one result.
		{"", "", "1,2,p1,p2,p3,p4"},
		{"photo", "", "1,2"},
		{"optics", "", "1"},
		{"", "a.example", "1"},
		{"photo", "b.example", "2"},
		{"optics", "b.example", ""},
		{"nope", "", ""},
		// Without a port, the host on every port (as scope.hosts).
		{"", "127.0.0.1", "p1,p2"},
		{"", "127.0.0.1:9000", "p2"},
		{"", "127.0.0.10", "p3"},
		{"", "[::1]", "p4"},
		{"", "a.example:8080", ""},
	}
	for _, tt := range tests {
		res := mustSearch(t, x, index.Query{Text: "lens", Topic: tt.topic, Host: tt.host})
		if got := sortedIDs(res); got != tt.want || res.Total != len(res.Hits) {
			t.Errorf("topic %q host %q: hits [%s] Total %d, want [%s]", tt.topic, tt.host, got, res.Total, tt.want)
		}
		for _, h := range res.Hits {
			p := index.HostPortPrefix(tt.host)
			if (tt.topic != "" && h.Topic != tt.topic) || (tt.host != "" && h.Host != tt.host &&
				(p == "" || !strings.HasPrefix(h.Host, p))) {
				t.Errorf("topic %q host %q: hit %+v escapes the filter", tt.topic, tt.host, h)
			}
		}
	}
}

func TestSearchPagination(t *testing.T) {
	x := openTemp(t)
	const n = 25
	var docs []index.Document
	for i := 0; i < n; i++ {
		d := doc("p", fmt.Sprintf("d%02d", i), "h", "page", "common word")
		d.Relevance = float64(i) / n
		docs = append(docs, d)
	}
	mustUpsert(t, x, docs...)

	seen := make(map[string]bool)
	var prev float64 = -1
	for _, page := range []struct{ offset, want int }{{0, 10}, {10, 10}, {20, 5}, {25, 0}, {40, 0}} {
		res := mustSearch(t, x, index.Query{Text: "common", Limit: 10, Offset: page.offset})
		if res.Total != n || len(res.Hits) != page.want {
			t.Fatalf("offset %d: Total %d, %d hits; want %d, %d", page.offset, res.Total, len(res.Hits), n, page.want)
		}
		for _, h := range res.Hits {
			if seen[h.ID] {
				t.Errorf("offset %d: %s already on an earlier page", page.offset, h.ID)
			}
			seen[h.ID] = true
			if prev >= 0 && h.Score > prev {
				t.Errorf("offset %d: %s scores %v, above the previous hit's %v", page.offset, h.ID, h.Score, prev)
			}
			prev = h.Score
		}
	}
	if len(seen) != n {
		t.Errorf("pages covered %d documents, want %d", len(seen), n)
	}
	if res := mustSearch(t, x, index.Query{Text: "common"}); len(res.Hits) != index.DefaultLimit {
		t.Errorf("Limit 0 gave %d hits, want DefaultLimit %d", len(res.Hits), index.DefaultLimit)
	}
}

func TestRankingRelevanceAndAuthority(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x, filler("p", 10)...)
	// Same text, so the same text score: relevance decides.
	var docs []index.Document
	for _, r := range []struct {
		id        string
		relevance float64
	}{{"low", 0.1}, {"high", 0.9}, {"mid", 0.5}} {
		d := doc("p", r.id, "h", "telescope mirrors", "grinding telescope mirrors by hand")
		d.Relevance = r.relevance
		docs = append(docs, d)
	}
	mustUpsert(t, x, docs...)
	res := mustSearch(t, x, index.Query{Text: "telescope mirrors"})
	if got, want := strings.Join(hitIDs(res), ","), "high,mid,low"; got != want {
		t.Errorf("order = %s, want %s (same text, higher relevance first)", got, want)
	}

	// Same text and relevance: authority decides.
	a, b := doc("p", "auth-low", "h", "refractor lens", "a refractor lens"), doc("p", "auth-high", "h", "refractor lens", "a refractor lens")
	a.Authority, b.Authority = 0.1, 0.8
	mustUpsert(t, x, a, b)
	res = mustSearch(t, x, index.Query{Text: "refractor"})
	if got, want := strings.Join(hitIDs(res), ","), "auth-high,auth-low"; got != want {
		t.Errorf("order = %s, want %s (higher authority first)", got, want)
	}
	if res.Hits[0].Authority != 0.8 || res.Hits[0].Relevance != 0.5 {
		t.Errorf("hit scores = relevance %v authority %v, want 0.5, 0.8", res.Hits[0].Relevance, res.Hits[0].Authority)
	}
}

func TestRankingTextMatch(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x, filler("p", 10)...)
	// Same relevance, same length of text: where and how often the term
	// occurs decides.
	mustUpsert(t, x,
		doc("p", "body-once", "h", "an article", "notes about eyepiece and other things here"),
		doc("p", "title", "h", "eyepiece", "notes about optics and other things here"),
		doc("p", "body-twice", "h", "an article", "notes about eyepiece and eyepiece things here"),
	)
	res := mustSearch(t, x, index.Query{Text: "eyepiece"})
	if got, want := strings.Join(hitIDs(res), ","), "title,body-twice,body-once"; got != want {
		t.Errorf("order = %s, want %s (title match, then more occurrences)", got, want)
	}

	// A stronger text match beats a moderately higher relevance.
	strong := doc("p", "strong", "h", "barlow lens", "barlow lens barlow lens")
	weak := doc("p", "weak", "h", "accessories", "a long page that mentions a barlow once among many other words")
	strong.Relevance, weak.Relevance = 0.5, 0.7
	mustUpsert(t, x, strong, weak)
	res = mustSearch(t, x, index.Query{Text: "barlow"})
	if got, want := strings.Join(hitIDs(res), ","), "strong,weak"; got != want {
		t.Errorf("order = %s, want %s (stronger text match first)", got, want)
	}
}

func TestUpsertIsIdempotentAndReplaces(t *testing.T) {
	x := openTemp(t)
	d := doc("p", "x", "h", "old title", "old words")
	mustUpsert(t, x, d)
	mustUpsert(t, x, d)
	mustUpsert(t, x, d, d) // the same key twice in one batch
	if n := mustCount(t, x, "p"); n != 1 {
		t.Fatalf("Count after repeated upserts = %d, want 1", n)
	}
	if res := mustSearch(t, x, index.Query{Text: "old"}); res.Total != 1 {
		t.Errorf("search after repeated upserts: Total = %d, want 1 (no duplicate FTS rows)", res.Total)
	}

	d.Title, d.Text = "new title", "fresh words"
	mustUpsert(t, x, d)
	if res := mustSearch(t, x, index.Query{Text: "old"}); res.Total != 0 {
		t.Errorf("replaced text still found: Total = %d", res.Total)
	}
	res := mustSearch(t, x, index.Query{Text: "fresh"})
	if res.Total != 1 || res.Hits[0].Title != "new title" {
		t.Errorf("replacement not found: %+v", res)
	}
	if n := mustCount(t, x, ""); n != 1 {
		t.Errorf("Count = %d, want 1", n)
	}

	// The same ID in another topic is another document.
	mustUpsert(t, x, doc("q", "x", "h", "new title", "fresh words"))
	if n := mustCount(t, x, ""); n != 2 {
		t.Errorf("Count over topics = %d, want 2", n)
	}
}

func TestUpsertBatchIsAtomic(t *testing.T) {
	x := openTemp(t)
	good := doc("p", "good", "h", "t", "text")
	for name, bad := range map[string]index.Document{
		"no id":    doc("p", "", "h", "t", "text"),
		"no topic": doc("", "id", "h", "t", "text"),
		"NaN":      func() index.Document { d := doc("p", "nan", "h", "t", "text"); d.Relevance = nan(); return d }(),
	} {
		if err := x.Upsert(context.Background(), []index.Document{good, bad}); err == nil {
			t.Errorf("%s: Upsert succeeded", name)
		}
	}
	if n := mustCount(t, x, ""); n != 0 {
		t.Errorf("Count after failed batches = %d, want 0", n)
	}
	if err := x.Upsert(context.Background(), nil); err != nil {
		t.Errorf("empty Upsert: %v", err)
	}
}

func nan() float64 { var z float64; return z / z }

func TestUpsertClampsScoresAndStoresFields(t *testing.T) {
	x := openTemp(t)
	d := doc("p", "x", "h", "t", "text")
	d.Relevance, d.Authority, d.Hub, d.IPageRank = 1.7, -0.2, 0.3, 0.01
	d.AnchorTexts = "anchor words"
	mustUpsert(t, x, d)
	var rel, auth, hub, ipr float64
	var fetched int64
	var anchors string
	err := x.db.QueryRow(`SELECT relevance, authority, hub, ipagerank, fetched_at, anchor_texts FROM docs WHERE topic='p' AND id='x'`).
		Scan(&rel, &auth, &hub, &ipr, &fetched, &anchors)
	if err != nil {
		t.Fatal(err)
	}
	if rel != 1 || auth != 0 || hub != 0.3 || ipr != 0.01 || anchors != d.AnchorTexts {
		t.Errorf("stored relevance %v authority %v hub %v ipagerank %v anchors %q", rel, auth, hub, ipr, anchors)
	}
	if got := time.UnixMilli(fetched).UTC(); !got.Equal(d.FetchedAt) {
		t.Errorf("fetched_at = %v, want %v", got, d.FetchedAt)
	}
}

func TestDelete(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x,
		doc("p", "a", "h", "t", "shared words"),
		doc("p", "b", "h", "t", "shared words"),
		doc("q", "a", "h", "t", "shared words"),
	)
	if err := x.Delete(context.Background(), "p", []string{"a", "missing"}); err != nil {
		t.Fatal(err)
	}
	if n := mustCount(t, x, "p"); n != 1 {
		t.Errorf("Count(p) = %d, want 1", n)
	}
	if n := mustCount(t, x, "q"); n != 1 {
		t.Errorf("Count(q) = %d, want 1: delete must not cross topics", n)
	}
	res := mustSearch(t, x, index.Query{Text: "shared"})
	var keys []string
	for _, h := range res.Hits {
		keys = append(keys, h.Topic+"/"+h.ID)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "p/b,q/a" || res.Total != 2 {
		t.Errorf("after delete: hits %s Total %d, want p/b,q/a and 2", got, res.Total)
	}
	if err := x.Delete(context.Background(), "", []string{"b"}); err == nil {
		t.Error("Delete with empty topic succeeded")
	}
	if err := x.Delete(context.Background(), "p", nil); err != nil {
		t.Errorf("empty Delete: %v", err)
	}
	// Deleted then re-added: found again, once.
	mustUpsert(t, x, doc("p", "a", "h", "t", "shared words"))
	if res := mustSearch(t, x, index.Query{Text: "shared", Topic: "p"}); res.Total != 2 {
		t.Errorf("after re-add: Total = %d, want 2", res.Total)
	}
}

func TestSearchRejectsBadQueries(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x, doc("p", "a", "h", "t", "text"))
	for name, q := range map[string]index.Query{
		"empty":            {Text: ""},
		"whitespace":       {Text: "   "},
		"10 kB":            {Text: strings.Repeat("abcde ", 1700)},
		"unbalanced quote": {Text: `"open phrase`},
		"control":          {Text: "a\x00b"},
		"newline":          {Text: "a\nb"},
		"punctuation only": {Text: "* - ( )"},
		"limit":            {Text: "text", Limit: 1000},
		"offset":           {Text: "text", Offset: 10001},
	} {
		if _, err := x.Search(context.Background(), q); !errors.Is(err, index.ErrBadQuery) {
			t.Errorf("%s: error = %v, want ErrBadQuery", name, err)
		}
	}
}

func TestFTSSyntaxIsPlainWords(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x,
		doc("p", "words", "h", "t", "alpha or beta near gamma and a title x note"),
		doc("p", "alpha-only", "h", "t", "alpha alone"),
		doc("p", "beta-only", "h", "t", "beta alone"),
		doc("p", "prefix", "h", "xylophone", "title xylophone"),
	)
	tests := []struct{ query, want string }{
		// As FTS5 syntax these would match alpha-only and beta-only.
		{"alpha OR beta", "words"},
		{"alpha OR beta NEAR(gamma)", "words"},
		// As syntax: column filter plus prefix query, matching "prefix".
		{"title:x*", "words"},
		{"alpha NOT beta", ""},
		// As syntax, a dangling AND is an error; as words, "and" occurs.
		{"alpha AND", "words"},
	}
	for _, tt := range tests {
		if got := sortedIDs(mustSearch(t, x, index.Query{Text: tt.query})); got != tt.want {
			t.Errorf("Search(%s) = [%s], want [%s]", tt.query, got, tt.want)
		}
	}
	// Whatever the input, the backend never sees a syntax error: the answer
	// is hits or ErrBadQuery.
	for _, q := range []string{
		`NEAR("a" "b", 2)`, `{title body}: x`, `^alpha`, `a + b`, `"a" + "b"`, `-alpha`, `alpha*`,
		`""""`, `"" alpha`, `(alpha`, `alpha)`, `'alpha'`, `alpha:`, `:`, `*`, `NOT`, `AND OR`,
		`\"`, `'; DROP TABLE docs; --`, `title: "x" OR body: y`, `“alpha”`,
	} {
		if _, err := x.Search(context.Background(), index.Query{Text: q}); err != nil && !errors.Is(err, index.ErrBadQuery) {
			t.Errorf("Search(%s): %v; input reached the backend as syntax", q, err)
		}
	}
	if n := mustCount(t, x, ""); n != 4 {
		t.Errorf("Count = %d after hostile queries, want 4", n)
	}
}

func TestConcurrentWritersAndReaders(t *testing.T) {
	x := openTemp(t)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for b := 0; b < 5; b++ {
				var docs []index.Document
				for i := 0; i < 10; i++ {
					docs = append(docs, doc("p", fmt.Sprintf("w%d-b%d-%d", w, b, i), "h", "title", "concurrent text"))
				}
				if err := x.Upsert(context.Background(), docs); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				if _, err := x.Search(context.Background(), index.Query{Text: "concurrent"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := mustCount(t, x, "p"); n != 150 {
		t.Errorf("Count = %d, want 150", n)
	}
	if res := mustSearch(t, x, index.Query{Text: "concurrent"}); res.Total != 150 {
		t.Errorf("Total = %d, want 150", res.Total)
	}
}

// TestMatchExpressionQuotesEverything: terms, phrases and Han words are
// quoted FTS5 strings; a Han word is itself or its parts near each other,
// a Han phrase its tokens (index.HanPhrase) near each other.
func TestMatchExpressionQuotesEverything(t *testing.T) {
	got := matchExpression([]string{"a", `x"y`}, []index.HanWord{{Word: "人民共和国", Parts: []string{"人民", `共"和国`}}},
		[][]string{{"b", "c"}, {"大学", `读"书`}, {"中华", "人民", "共和", "共和国", "中华人民共和国"}},
		map[string]index.HanPhrase{
			`大学 读"书`: {Chars: []string{"大学读书"}, Tokens: []string{"大学", `读"书`}},
			"中华 人民 共和 共和国 中华人民共和国": {Chars: []string{"中华人民共和国"}, Tokens: []string{"中华", "人民", "共和国"}},
		})
	want := `"a" AND "x""y" AND ("人民共和国" OR NEAR("人民" "共""和国", 10)) AND "b c" AND NEAR("大学" "读""书", 8)` +
		` AND NEAR("中华" "人民" "共和国", 14)`
	if got != want {
		t.Errorf("matchExpression = %s, want %s", got, want)
	}
}

// TestOpenConcurrently: workers starting together open one new index file
// at once; while one switches the file to WAL, SQLite can answer the
// others SQLITE_BUSY without waiting in its busy handler, and Open must
// wait and try again rather than fail (an e2e worker once did).
func TestOpenConcurrently(t *testing.T) {
	for round := range 20 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("index-%d.db", round))
		const n = 6
		errs := make(chan error, n)
		start := make(chan struct{})
		for range n {
			go func() {
				<-start
				x, err := Open(path, spaceSegmenter{})
				if err == nil {
					err = x.Close()
				}
				errs <- err
			}()
		}
		close(start)
		for range n {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: concurrent Open: %v", round, err)
			}
		}
	}
}

// TestSearchAcrossTopicsShowsAURLOnce: a page indexed by two topics is one
// result of a search across topics (a user trial saw every such URL twice),
// the document its best-scored topic holds, and Total counts pages, not
// documents; within a topic each keeps its own.
func TestSearchAcrossTopicsShowsAURLOnce(t *testing.T) {
	x := openTemp(t)
	low, high := doc("photo", "1", "a.example", "lens", "camera lens"), doc("optics", "1", "a.example", "lens", "glass lens")
	low.Relevance, high.Relevance = 0.1, 0.9
	mustUpsert(t, x, low, high, doc("photo", "2", "a.example", "lens", "zoom lens"))
	res := mustSearch(t, x, index.Query{Text: "lens"})
	if res.Total != 2 || len(res.Hits) != 2 {
		t.Fatalf("across topics: Total %d, hits %+v; want 2 pages", res.Total, res.Hits)
	}
	for _, h := range res.Hits {
		if h.ID == "1" && h.Topic != "optics" {
			t.Errorf("page 1 shown from topic %q; want optics, its best-scored document", h.Topic)
		}
	}
	// Paging goes through pages, not documents.
	if res := mustSearch(t, x, index.Query{Text: "lens", Limit: 1, Offset: 1}); res.Total != 2 || len(res.Hits) != 1 || res.Hits[0].ID == "" {
		t.Errorf("second page: %+v; want the other page", res)
	}
	if res := mustSearch(t, x, index.Query{Text: "lens", Topic: "photo"}); res.Total != 2 || sortedIDs(res) != "1,2" {
		t.Errorf("topic photo: %+v; want its two documents", res)
	}
}

// TestSnippetOutsideLinkSpans: a document's link spans are stored with its
// text, so its snippet comes from the prose, not its table of contents.
func TestSnippetOutsideLinkSpans(t *testing.T) {
	x := openTemp(t)
	toc := "Contents query planner · query planner checklist · query planner stability "
	prose := strings.Repeat("filler ", 60) + "the query planner picks an index for each loop"
	d := doc("db", "planner", "sqlite.test", "Query Planning", toc+prose)
	d.LinkSpans = [][2]int{{len("Contents "), len(toc)}}
	mustUpsert(t, x, d)
	res := mustSearch(t, x, index.Query{Text: "query planner"})
	if len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Snippet, "picks an index") {
		t.Fatalf("hits %+v: want the prose's snippet", res.Hits)
	}
}

// TestUpgradeAddsLinkSpans: an index written by schema version 1 (no
// link_spans column) opens, keeps its documents, and takes new ones with
// link spans.
func TestUpgradeAddsLinkSpans(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	x, err := Open(path, spaceSegmenter{})
	if err != nil {
		t.Fatal(err)
	}
	mustUpsert(t, x, doc("db", "old", "sqlite.test", "Old page", "an old query planner page"))
	// Back to version 1's table, as an index written before the column.
	for _, stmt := range []string{
		`ALTER TABLE docs DROP COLUMN link_spans`,
		`PRAGMA user_version = 1`,
	} {
		if _, err := x.db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	x.Close()
	x = reopenUpgraded(t, path, spaceSegmenter{})
	d := doc("db", "new", "sqlite.test", "New page", "see the query planner for more")
	d.LinkSpans = [][2]int{{len("see the "), len("see the query planner")}}
	mustUpsert(t, x, d)
	if res := mustSearch(t, x, index.Query{Text: "planner"}); res.Total != 2 {
		t.Errorf("after the upgrade: %d hits, want 2", res.Total)
	}
}

// reopenUpgraded opens the index at path, written by an earlier schema
// version, closed with the test, and checks that it is at schemaVersion.
func reopenUpgraded(t *testing.T, path string, seg index.Segmenter) *Index {
	t.Helper()
	x, err := Open(path, seg)
	if err != nil {
		t.Fatalf("open an index of an earlier schema version: %v", err)
	}
	t.Cleanup(func() { x.Close() })
	var v int
	if err := x.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Errorf("user_version %d (%v), want %d", v, err, schemaVersion)
	}
	return x
}

// TestSearchTraditionalChineseChars: where the index checks a Han phrase's
// or word's characters in a row in the page's text (index.ContainsChars),
// it compares them in Simplified, as the tokenizer's terms are: a quoted
// phrase and a long word found by their tokens in a page of the other
// script are not refused for its characters. Before, “网络设置” missed the
// page's 網路設定, and 人民共和国 the 中華人民共和國 of a page that has no
// token for it.
func TestSearchTraditionalChineseChars(t *testing.T) {
	x, err := Open(filepath.Join(t.TempDir(), "index.db"), textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	mustUpsert(t, x,
		doc("net", "tw", "tw.example", "說明", "本章說明網路設定的步驟。"),
		doc("net", "cn", "cn.example", "说明", "本章说明网络设置的步骤。"),
		doc("net", "gov", "tw.example", "政府", "中華人民共和國中央人民政府的網站"),
	)
	for q, want := range map[string]string{
		"“網路設定”":  "cn,tw",
		"“网络设置”":  "cn,tw",
		"“網路 設定”": "cn,tw",
		"人民共和国":   "gov",
		"人民共和國":   "gov",
	} {
		if got := sortedIDs(mustSearch(t, x, index.Query{Text: q})); got != want {
			t.Errorf("Search(%s) = [%s], want [%s]", q, got, want)
		}
	}
}

// TestSearchRelaxed: a query with a word no page has is answered without
// it, and says so; a query whose words are all there but never together,
// or are so once the missing word is left out, stays empty; filters apply
// to the look-ups; a query found whole is not relaxed. Before, "gradient
// descent data" on an index without "data" answered nothing (a
// 30,000-page crawl's index, docs/search.md).
func TestSearchRelaxed(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x,
		doc("ml", "a", "a.test", "Gradient descent", "gradient descent step by step"),
		doc("ml", "b", "b.test", "Descent", "descent of a hill"),
		doc("ml", "c", "b.test", "Trees", "decision trees and forests"),
		doc("other", "d", "c.test", "Data", "data everywhere"),
	)
	ctx := context.Background()
	run := func(q index.Query) (index.Result, []string) {
		t.Helper()
		res, missing, err := index.SearchRelaxed(ctx, x, spaceSegmenter{}, q)
		if err != nil {
			t.Fatalf("SearchRelaxed(%+v): %v", q, err)
		}
		return res, missing
	}
	res, missing := run(index.Query{Text: "gradient descent data", Topic: "ml"})
	if sortedIDs(res) != "a" || !slices.Equal(missing, []string{"data"}) {
		t.Errorf("ml: hits %s, missing %q; want a, [data] (data is only in topic other)", sortedIDs(res), missing)
	}
	if res, missing := run(index.Query{Text: "gradient descent data"}); res.Total != 0 || missing != nil {
		t.Errorf("all topics: every word is somewhere, never together: hits %s, missing %q; want none, nil", sortedIDs(res), missing)
	}
	res, missing = run(index.Query{Text: `descent "red fox" zebra`, Topic: "ml"})
	if sortedIDs(res) != "a,b" || !slices.Equal(missing, []string{`"red fox"`, "zebra"}) {
		t.Errorf("hits %s, missing %q; want a,b without the phrase and zebra", sortedIDs(res), missing)
	}
	if res, missing := run(index.Query{Text: "gradient hill zebra", Topic: "ml"}); res.Total != 0 || missing != nil {
		t.Errorf("without zebra still nothing (gradient and hill are on two pages): hits %s, missing %q; want none, nil", sortedIDs(res), missing)
	}
	if res, missing := run(index.Query{Text: "descent zebra", Host: "c.test"}); res.Total != 0 || missing != nil {
		t.Errorf("host c.test has neither word: hits %s, missing %q", sortedIDs(res), missing)
	}
	if res, missing := run(index.Query{Text: "gradient descent"}); sortedIDs(res) != "a" || missing != nil {
		t.Errorf("found whole: hits %s, missing %q", sortedIDs(res), missing)
	}
	if res, missing := run(index.Query{Text: "zebra"}); res.Total != 0 || missing != nil {
		t.Errorf("one word: hits %s, missing %q", sortedIDs(res), missing)
	}
}
