package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlite"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

const expandTopicYAML = `name: ex
keywords: {rose: 1}
seeds: [http://a.test/]
strategy:
  page_filter: url-template
  expand: {friend_links: true, top_hosts: 2, template_min: 2, keywords: 5}
`

// topicFixture opens a fresh store with topic yaml (version, model) and
// crawl "c1" of it.
func topicFixture(t testing.TB, yaml string) (*Activities, *topic.Topic, int, int) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := &Activities{Store: st, Tok: textproc.Shared(), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	tp, err := ValidateTopic([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	tv, err := st.PutTopic(ctx, tp.Name, []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	data, err := topic.BuildModel(tp, tv, a.Tok, nil).Encode()
	if err != nil {
		t.Fatal(err)
	}
	mv, err := st.PutModel(ctx, tp.Name, topic.ModelKind, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateCrawl(ctx, store.Crawl{ID: "c1", Topic: tp.Name, TopicVersion: tv, State: store.CrawlRunning, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return a, tp, tv, mv
}

// judgePage saves a fetched page of crawl c1 with a decision.
func judgePage(t *testing.T, st store.Store, topicName, u, decision string, relevance float64) {
	t.Helper()
	ctx := context.Background()
	h := urlnorm.Hash(u)
	if _, _, err := st.SavePage(ctx, store.Page{Topic: topicName, URLHash: h, URL: u, FinalURL: u, FinalHash: h,
		CrawlID: "c1", Status: 200, FetchedAt: time.Now()}, []byte(u)); err != nil {
		t.Fatal(err)
	}
	if err := st.SetDecision(ctx, topicName, h, store.Decision{Decision: decision, Filter: "vsm", Relevance: relevance}); err != nil {
		t.Fatal(err)
	}
}

// expandFixture is a crawl of topic "ex" with judged pages on four hosts,
// the seed's out-links and stored url-template templates.
func expandFixture(t *testing.T) (*Activities, crawlapi.ExpandInput) {
	t.Helper()
	ctx := context.Background()
	a, tp, tv, mv := topicFixture(t, expandTopicYAML)
	st := a.Store
	if _, err := a.enqueueSeeds(ctx, "c1", tp, tp.Seeds); err != nil {
		t.Fatal(err)
	}
	judge := func(u, decision string) { judgePage(t, st, "ex", u, decision, 0.5) }
	judge("http://a.test/", store.DecisionAccepted)
	for _, p := range []string{"1", "2", "3"} {
		judge("http://b.test/x/"+p, store.DecisionAccepted)
	}
	judge("http://c.test/p", store.DecisionAccepted)
	judge("http://d.test/q", store.DecisionRejected)
	seed := urlnorm.Hash("http://a.test/")
	if err := st.AddLinks(ctx, "ex", []store.Link{
		{Src: seed, Dst: urlnorm.Hash("http://friend.test/page"), DstURL: "http://friend.test/page"},
		{Src: seed, Dst: urlnorm.Hash("http://a.test/inner"), DstURL: "http://a.test/inner"}, // same host: not a friend link
		{Src: seed, Dst: urlnorm.Hash("http://www.a.test/w"), DstURL: "http://www.a.test/w"}, // same site: not a friend link either
		{Src: urlnorm.Hash("http://c.test/p"), Dst: urlnorm.Hash("http://other.test/"), DstURL: "http://other.test/"},
	}); err != nil {
		t.Fatal(err)
	}
	state, _ := json.Marshal(map[string]any{"templates": map[string][]string{"b.test": {"http://b.test/x/1"}}})
	enc, _ := json.Marshal(learnerState{Round: 1, State: state})
	if _, err := st.PutModel(ctx, "ex", (&relevance.URLTemplate{}).StateKind(), enc); err != nil {
		t.Fatal(err)
	}
	return a, crawlapi.ExpandInput{CrawlID: "c1", Topic: "ex", TopicVersion: tv, ModelVersion: mv, MaxNew: 100}
}

// queuedStrategies claims the whole frontier and maps URL → strategy.
func queuedStrategies(t *testing.T, st store.Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	if _, err := st.ClaimBatch(ctx, store.ClaimRequest{Topic: "ex", CrawlID: "c1", BatchID: "all", Max: 100,
		Lease: time.Hour, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	es, err := st.BatchEntries(ctx, "ex", "all")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range es {
		out[e.URL] = e.Strategy
		if e.Priority != seedPriority {
			t.Errorf("%s: priority %v, want seed priority %v", e.URL, e.Priority, seedPriority)
		}
	}
	return out
}

func TestExpandSeeds(t *testing.T) {
	ctx := context.Background()
	a, in := expandFixture(t)
	if err := a.Store.RecordNoResultQuery(ctx, "ex", "rose hips", time.Now()); err != nil {
		t.Fatal(err)
	}
	a.Store.RecordNoResultQuery(ctx, "ex", "rose hips", time.Now())
	a.Store.RecordNoResultQuery(ctx, "ex", "Rose", time.Now()) // already a keyword

	// The budget allows one new entry: the first friend link.
	in.MaxNew = 1
	r, err := a.ExpandSeeds(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	// Friend links: friend.test only (www.a.test is the seed's own site). Top 2 hosts: b.test (3), then a.test
	// before c.test (tie, by name). Templates: b.test matched 3 > 2 pages.
	want := crawlapi.ExpandResult{FriendLinks: 1, TopHosts: 2, Templates: 1, Enqueued: 1, Keywords: 1, KeywordsVersion: 1}
	if r != want {
		t.Errorf("first round: %+v, want %+v", r, want)
	}
	// Unlimited: b.test's root is new (a.test's root is the seed; the
	// template promotion proposes b.test again). A repeat adds nothing.
	in.MaxNew = 100
	if r, err = a.ExpandSeeds(ctx, in); err != nil || r.Enqueued != 1 || r.KeywordsVersion != 1 {
		t.Errorf("second round: %+v, %v; want 1 new entry, keywords still v1", r, err)
	}
	if r, err = a.ExpandSeeds(ctx, in); err != nil || r.Enqueued != 0 {
		t.Errorf("repeated round: %+v, %v; want nothing new", r, err)
	}
	got := queuedStrategies(t, a.Store)
	wantQ := map[string]string{"http://a.test/": "seed", "http://friend.test/page": "expand:friend-link", "http://b.test/": "expand:top-host"}
	if len(got) != len(wantQ) {
		t.Errorf("frontier %v, want %v", got, wantQ)
	}
	for u, s := range wantQ {
		if got[u] != s {
			t.Errorf("frontier %s: strategy %q, want %q (all: %v)", u, got[u], s, got)
		}
	}
	data, v, err := a.Store.Model(ctx, "ex", store.CandidateKeywordsKind, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ck store.CandidateKeywords
	if err := json.Unmarshal(data, &ck); err != nil {
		t.Fatal(err)
	}
	if v != 1 || len(ck.Queries) != 1 || ck.Queries[0].Query != "rose hips" || ck.Queries[0].Count != 2 {
		t.Errorf("candidate keywords v%d: %+v", v, ck)
	}
	// The topic itself is unchanged: candidate keywords are only recorded.
	if rec, err := a.Store.Topic(ctx, "ex", 0); err != nil || rec.Version != in.TopicVersion {
		t.Errorf("topic changed to v%d (%v)", rec.Version, err)
	}
}

// TestCandidateKeywordsCountOneQueryOnce: the forms of one no-result query
// the index cannot tell apart (網路 and 网络, "Rose Hips" and "rose hips")
// are one candidate keyword with their counts summed, shown as typed most
// often, and a query that is a keyword in the other script (軟體 for the
// keyword 软件) is none. Before, each typed form was a candidate of its own
// and only a keyword's case was ignored.
func TestCandidateKeywordsCountOneQueryOnce(t *testing.T) {
	ctx := context.Background()
	a, tp, _, _ := topicFixture(t, "name: ex\nkeywords: {rose: 1, 软件: 1}\nseeds: [http://a.test/]\n")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, q := range []string{"網路", "Rose Hips", "網路", "rose hips", "网络", "Rose Hips", "軟體", "ROSE"} {
		if err := a.Store.RecordNoResultQuery(ctx, "ex", q, now.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	n, v, err := a.recordCandidateKeywords(ctx, tp, 10)
	if err != nil || v != 1 {
		t.Fatalf("recordCandidateKeywords: %d, v%d, %v", n, v, err)
	}
	data, _, err := a.Store.Model(ctx, "ex", store.CandidateKeywordsKind, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ck store.CandidateKeywords
	if err := json.Unmarshal(data, &ck); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range ck.Queries {
		got = append(got, fmt.Sprintf("%s×%d", q.Query, q.Count))
	}
	if want := []string{"Rose Hips×3", "網路×3"}; !slices.Equal(got, want) {
		t.Errorf("candidate keywords %q, want %q", got, want)
	}
}

func TestTopHostRoots(t *testing.T) {
	acc := store.DecisionAccepted
	var judged []relevance.Judged
	for _, u := range []string{"https://z.test/1", "https://z.test/2", "http://y.test:8080/a", "http://x.test/a", "http://x.test/b", "http://w.test/"} {
		judged = append(judged, relevance.Judged{URL: u, Decision: acc})
	}
	judged = append(judged, relevance.Judged{URL: "http://v.test/a", Decision: store.DecisionRejected})
	var got []string
	for _, c := range topHostRoots(judged, 3) {
		got = append(got, c.url)
	}
	want := []string{"http://x.test/", "https://z.test/", "http://w.test/"}
	sort.Strings(got)
	sort.Strings(want)
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("topHostRoots = %v, want %v", got, want)
	}
}
