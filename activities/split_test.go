package activities

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
)

const splitTopic = `name: split
keywords: {rose: 1}
seeds: [http://a.test/]
strategy:
  page_filter: {name: vsm, threshold: 0.02}
  accept: split
`

// seedSplitCrawl stores n judged pages of crawl c1 (two score groups,
// 0.03 and 0.3), each linking to the next five; the first 20·group also
// link to the group pages "g<i>" that the tests then judge.
func seedSplitCrawl(tb testing.TB, st store.Store, n, group int) {
	ctx := context.Background()
	const chunk = 2000
	for start := 0; start < n; start += chunk {
		w := store.GroupWrite{Topic: "split"}
		for i := start; i < min(start+chunk, n); i++ {
			u := fmt.Sprintf("http://a.test/%d", i)
			h := fmt.Sprintf("p%d", i)
			w.Pages = append(w.Pages, store.PageBody{Page: store.Page{Topic: "split", URLHash: h, URL: u, FinalURL: u,
				FinalHash: h, CrawlID: "c1", Status: 200}})
			score := 0.03
			if i%2 == 0 {
				score = 0.3
			}
			w.Decisions = append(w.Decisions, store.PageDecision{URLHash: h,
				Decision: store.Decision{Decision: store.DecisionAccepted, Relevance: score}})
			for j := 1; j <= 5; j++ {
				w.Links = append(w.Links, store.Link{Src: h, Dst: fmt.Sprintf("p%d", (i+j)%n)})
			}
			if i < 20*group { // 20 in-links per group page, whatever n
				w.Links = append(w.Links, store.Link{Src: h, Dst: fmt.Sprintf("g%d", i%group)})
			}
		}
		if _, err := st.WriteGroup(ctx, w); err != nil {
			tb.Fatal(err)
		}
	}
}

// judgeSplitGroup judges the group pages g0…g<group-1> as the filter
// activity does: load, judge each, commit.
func judgeSplitGroup(tb testing.TB, a *Activities, lt *loadedTopic, group int) []relevance.Verdict {
	hashes := make([]string, group)
	for i := range hashes {
		hashes[i] = fmt.Sprintf("g%d", i)
	}
	sp, err := a.loadCrawlSplit(context.Background(), lt, "c1", "split", hashes)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]relevance.Verdict, group)
	for i, h := range hashes {
		out[i], _ = sp.judge(relevance.Verdict{Score: 0.1, Relevant: true}, h, "a.test")
	}
	a.commitCrawlSplit(sp)
	return out
}

// TestCrawlSplitGroup: a group's pages get the in-link evidence of their
// stored sources, and judging the group again (a retry) neither changes the
// decisions nor counts its pages twice in the worker's distribution.
func TestCrawlSplitGroup(t *testing.T) {
	a, _, tv, mv := topicFixture(t, splitTopic)
	seedSplitCrawl(t, a.Store, 60, 2) // 20 in-links each: a third of the crawl, no navigation
	lt, err := a.loadTopic(context.Background(), "split", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	first := judgeSplitGroup(t, a, lt, 2)
	// g0 is linked from the even pages (0.3), g1 from the odd ones (0.03):
	// mixed 0.2 (upper group) and 0.065 (lower group).
	if !first[0].Relevant || first[1].Relevant || math.Abs(first[0].Score-0.2) > 1e-9 || math.Abs(first[1].Score-0.065) > 1e-9 {
		t.Errorf("group verdicts %+v: want g0 accepted at 0.2, g1 not at 0.065", first)
	}
	n := a.splits.crawls["c1"].dist.Len()
	again := judgeSplitGroup(t, a, lt, 2)
	for i := range again {
		if again[i].Relevant != first[i].Relevant || again[i].Score != first[i].Score {
			t.Errorf("retried group decided %+v, first time %+v", again, first)
		}
	}
	if got := a.splits.crawls["c1"].dist.Len(); got != n || n != 62 {
		t.Errorf("distribution holds %d pages after a retry, %d before; want 62", got, n)
	}
}

// TestCrawlSplitNavigation: in-links from half the crawl's judged pages are
// its navigation and count for nothing — for every page of a group alike,
// whatever order it is judged in, and on a retry (a code review: the first
// page saw 40 judged pages, the second 41, a retry 41 and 42).
func TestCrawlSplitNavigation(t *testing.T) {
	a, _, tv, mv := topicFixture(t, splitTopic)
	seedSplitCrawl(t, a.Store, 40, 2) // 20 in-links each of 40 judged pages
	lt, err := a.loadTopic(context.Background(), "split", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	first := judgeSplitGroup(t, a, lt, 2)
	again := judgeSplitGroup(t, a, lt, 2)
	for i, v := range append(first, again...) {
		if v.Score != 0.1 || !strings.Contains(v.Reason, "navigation") {
			t.Errorf("verdict %d: %+v; want its own 0.1, the in-links the site's navigation", i, v)
		}
	}
}

// TestCrawlSplitNavigationOneView: whether in-links are navigation is
// decided on one view of the crawl. A worker's cached distribution misses
// the pages other workers judged since it was loaded; the store's in-links
// include them. Counting those against the cache's size made a page linked
// from a third of the crawl look like navigation (a code review).
func TestCrawlSplitNavigationOneView(t *testing.T) {
	ctx := context.Background()
	a, _, tv, mv := topicFixture(t, splitTopic)
	seedSplitCrawl(t, a.Store, 10, 1)
	lt, err := a.loadTopic(ctx, "split", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	judgeSplitGroup(t, a, lt, 1) // loads the cache: 10 pages, then g0
	// Other workers judge 90 more pages; 30 of them link to t.
	w := store.GroupWrite{Topic: "split"}
	for i := range 90 {
		u, h := fmt.Sprintf("http://a.test/o%d", i), fmt.Sprintf("o%d", i)
		w.Pages = append(w.Pages, store.PageBody{Page: store.Page{Topic: "split", URLHash: h, URL: u, FinalURL: u,
			FinalHash: h, CrawlID: "c1", Status: 200}})
		w.Decisions = append(w.Decisions, store.PageDecision{URLHash: h,
			Decision: store.Decision{Decision: store.DecisionAccepted, Relevance: 0.3}})
		if i < 30 {
			w.Links = append(w.Links, store.Link{Src: h, Dst: "t"})
		}
	}
	if _, err := a.Store.WriteGroup(ctx, w); err != nil {
		t.Fatal(err)
	}
	sp, err := a.loadCrawlSplit(ctx, lt, "c1", "split", []string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := sp.judge(relevance.Verdict{Score: 0.1, Relevant: true}, "t", "a.test")
	if strings.Contains(v.Reason, "navigation") || math.Abs(v.Score-0.2) > 1e-9 {
		t.Errorf("t, linked from 30 of 101 judged pages: %+v; want its in-links counted (mixed 0.2)", v)
	}
}

// TestRefreshJudgedAgainstItsCrawl: a refresh batch (its own ID, no
// crawl's) judges a changed page against the crawl that fetched it — that
// crawl's split and in-link evidence — not against the refresh's empty
// distribution, where the filter's threshold alone would accept it.
func TestRefreshJudgedAgainstItsCrawl(t *testing.T) {
	a, _, tv, mv := topicFixture(t, splitTopic)
	// 60 pages: g1's 20 in-linkers are a third of the crawl, not its
	// navigation (relevance.InLinkEvidence).
	seedSplitCrawl(t, a.Store, 60, 2)
	lt, err := a.loadTopic(context.Background(), "split", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	changed := store.Page{URLHash: "g1", CrawlID: "c1"} // linked from the 0.03 pages
	id := judgingCrawl("refresh/roses/1", changed)
	if id != "c1" {
		t.Fatalf("judging crawl of a refreshed page = %q, want its own crawl c1", id)
	}
	splits, err := a.loadCrawlSplits(context.Background(), lt, "split", map[string][]string{id: {"g1"}})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := splits[id].judge(relevance.Verdict{Score: 0.1, Relevant: true}, "g1", "a.test")
	if v.Relevant || v.Score > 0.07 {
		t.Errorf("refreshed g1 judged %+v against its crawl; want the mixed 0.065, below the crawl's split", v)
	}
	// What the refresh did before: its own, empty crawl accepts on the
	// filter's threshold alone.
	empty, err := a.loadCrawlSplit(context.Background(), lt, "refresh/roses/1", "split", []string{"g1"})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := empty.judge(relevance.Verdict{Score: 0.1, Relevant: true}, "g1", "a.test"); !v.Relevant {
		t.Errorf("against an empty crawl g1 is %+v; the test expects the threshold alone to accept it", v)
	}
	if judgingCrawl("c2", store.Page{URLHash: "x"}) != "c2" {
		t.Errorf("a page without a crawl ID is judged against the batch's crawl")
	}
}

// BenchmarkCrawlSplitGroup measures split acceptance's cost per processing
// group of 32 pages (load, judge, commit) with a warm worker cache, on a
// crawl of 10k and of 100k judged pages: the store work per group is the
// group's in-links, so the two must cost about the same.
func BenchmarkCrawlSplitGroup(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("judged=%d", n), func(b *testing.B) {
			a, _, tv, mv := topicFixture(b, splitTopic)
			seedSplitCrawl(b, a.Store, n, 32)
			lt, err := a.loadTopic(context.Background(), "split", tv, mv)
			if err != nil {
				b.Fatal(err)
			}
			judgeSplitGroup(b, a, lt, 32) // loads the crawl's distribution once
			b.ResetTimer()
			for b.Loop() {
				judgeSplitGroup(b, a, lt, 32)
			}
		})
	}
}

// TestCrawlSplitForget: a page whose judging panicked after the split
// recorded it is forgotten — not in-link evidence for the group's later
// pages, not in the distribution the worker keeps (a code review).
func TestCrawlSplitForget(t *testing.T) {
	a, _, tv, mv := topicFixture(t, splitTopic)
	seedSplitCrawl(t, a.Store, 60, 2)
	lt, err := a.loadTopic(context.Background(), "split", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := a.loadCrawlSplit(context.Background(), lt, "c1", "split", []string{"g0", "g1"})
	if err != nil {
		t.Fatal(err)
	}
	n := sp.dist.Len()
	sp.judge(relevance.Verdict{Score: 0.1, Relevant: true}, "g0", "a.test")
	sp.forget("g0")
	if _, ok := sp.judged["g0"]; ok || sp.dist.Has("g0") || sp.dist.Len() != n {
		t.Errorf("g0 still counted after forget: judged %v, in the distribution %v, %d pages (want %d)",
			sp.judged, sp.dist.Has("g0"), sp.dist.Len(), n)
	}
	a.commitCrawlSplit(sp)
	if a.splits.crawls["c1"].dist.Has("g0") {
		t.Error("the worker's distribution holds the forgotten page")
	}
	var none *crawlSplit
	none.forget("g0") // a topic without split acceptance
}

// TestCrawlSplitOffSite: a page whose judged in-linkers are all on another
// host is not accepted on their evidence (relevance.JudgeNav's offSite) — a
// page on b.test with an own score below the filter's threshold, linked from
// a.test's 0.3 pages, is expanded, not accepted — while the same links lift
// the same page on a.test, and a page on b.test whose own verdict is
// relevant is accepted on the mix as before.
func TestCrawlSplitOffSite(t *testing.T) {
	a, _, tv, mv := topicFixture(t, splitTopic)
	seedSplitCrawl(t, a.Store, 60, 2)
	lt, err := a.loadTopic(context.Background(), "split", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	weak := relevance.Verdict{Score: 0.01} // below vsm's 0.02
	for _, c := range []struct {
		host, page  string
		v           relevance.Verdict
		accept      bool
		offSiteMark bool
	}{
		{"b.test", "g0", weak, false, true},
		{"a.test", "g0", weak, true, false},
		{"b.test", "g0", relevance.Verdict{Score: 0.1, Relevant: true}, true, false},
	} {
		sp, err := a.loadCrawlSplit(context.Background(), lt, "c1", "split", []string{c.page})
		if err != nil {
			t.Fatal(err)
		}
		v, expand := sp.judge(c.v, c.page, c.host)
		if v.Relevant != c.accept || strings.Contains(v.Reason, relevance.OffSiteMark) != c.offSiteMark ||
			(c.offSiteMark && !expand) {
			t.Errorf("%s on %s, own %v, linked from a.test's 0.3 pages: accepted %v, expand %v (%s); want accepted %v",
				c.page, c.host, c.v.Score, v.Relevant, expand, v.Reason, c.accept)
		}
	}
}
