package activities

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlite"
	"focuscrawl/internal/urlnorm"
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
	n := a.splits.topics["split"].dist.Len()
	again := judgeSplitGroup(t, a, lt, 2)
	for i := range again {
		if again[i].Relevant != first[i].Relevant || again[i].Score != first[i].Score {
			t.Errorf("retried group decided %+v, first time %+v", again, first)
		}
	}
	if got := a.splits.topics["split"].dist.Len(); got != n || n != 62 {
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
	if a.splits.topics["split"].dist.Has("g0") {
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

// TestFilterOffSitePagesNeedTheirOwnScore judges, through the crawl's
// stages (fetch, Parse, FilterPages) against a crawl of 60 judged a.test
// pages (two score groups, 0.03 and 0.3; 20 of the 0.3 ones link to the
// pages under test), a page on another host (d.test), the same kind of page on
// a.test, and an a.test URL that redirects to d.test. The three share one
// topic word in a text about football: own cosines above 0 and below the
// filter's threshold, lifted over the split by their in-linkers. The a.test
// page is accepted on the mix; the two whose content comes from d.test are
// tunnels that say why, and the crawl's final re-judgement — plain, and
// with feedback — does not promote them.
func TestFilterOffSitePagesNeedTheirOwnScore(t *testing.T) {
	const topicYAML = `name: roses
language: en
keywords: {rose: 1.0, roses: 1.0, garden: 0.8}
seeds: [http://a.test/]
strategy: {page_filter: {name: vsm, threshold: 0.02}, accept: split, link_predictor: best-first%s}
`
	urls := []struct {
		url     string
		offSite bool
	}{{"http://a.test/near", false}, {"http://d.test/far", true}, {"http://a.test/moved", true}}
	for _, feedback := range []string{"", ", feedback: true"} {
		t.Run("feedback"+feedback, func(t *testing.T) {
			site := newLoopBackSite(t)
			site.cOnce.Do(func() { close(site.cSeen) })
			var filler strings.Builder // many distinct words: the one topic word weighs little
			for i := range 300 {
				fmt.Fprintf(&filler, " zq%c%c", 'a'+i/26, 'a'+i%26)
			}
			text := sportText(3) + filler.String() + " one rose"
			// Each its own word, or the later ones are duplicates of the first.
			site.pages["http://d.test/far"] = sitePage{"Stadium", text + " far", nil, false}
			site.pages["http://a.test/near"] = sitePage{"Stadium", text + " near", nil, false}
			site.pages["http://d.test/moved"] = sitePage{"Stadium moved", text + " moved", nil, false}
			site.redirect = map[string]string{"http://a.test/moved": "http://d.test/moved"}
			a := siteActivities(t, site)
			r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: fmt.Sprintf(topicYAML, feedback)})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			w := store.GroupWrite{Topic: r.Topic}
			for i := range 60 {
				u := fmt.Sprintf("http://a.test/s%d", i)
				w.Pages = append(w.Pages, store.PageBody{Page: store.Page{Topic: r.Topic, URLHash: urlnorm.Hash(u), URL: u, FinalURL: u,
					FinalHash: urlnorm.Hash(u), CrawlID: "c1", Status: 200}})
				score := 0.03
				if i%2 == 0 {
					score = 0.3
				}
				if i%2 == 0 && i < 40 { // 20 in-linkers: not the site's navigation (relevance.Navigation)
					for _, c := range urls {
						w.Links = append(w.Links, store.Link{Src: urlnorm.Hash(u), Dst: urlnorm.Hash(c.url)})
					}
				}
				w.Decisions = append(w.Decisions, store.PageDecision{URLHash: urlnorm.Hash(u),
					Decision: store.Decision{Decision: store.DecisionAccepted, Relevance: score}})
			}
			if _, err := a.Store.WriteGroup(ctx, w); err != nil {
				t.Fatal(err)
			}
			ref := crawlapi.BatchRef{CrawlID: "c1", Topic: r.Topic, BatchID: "c1/s1/b1", TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
			var es []store.FrontierEntry
			for _, c := range urls {
				es = append(es, store.FrontierEntry{Topic: r.Topic, URL: c.url, URLHash: urlnorm.Hash(c.url), Host: urlnorm.Host(c.url), Priority: 1, CrawlID: "c1"})
			}
			if _, err := a.Store.Enqueue(ctx, es, store.EnqueueOptions{}); err != nil {
				t.Fatal(err)
			}
			if b, err := a.Store.ClaimBatch(ctx, store.ClaimRequest{Topic: r.Topic, CrawlID: "c1", BatchID: ref.BatchID, Max: 10}); err != nil || b.Size != len(urls)+1 {
				t.Fatalf("claim: %+v, %v; want the seed and the three pages", b, err)
			}
			entries, err := a.Store.BatchEntries(ctx, r.Topic, ref.BatchID)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if out, _, err := a.fetchOne(ctx, ref, e); err != nil || out != outcomeOK {
					t.Fatalf("fetch %s: %v, %v", e.URL, out, err)
				}
			}
			if _, err := a.Parse(ctx, ref); err != nil {
				t.Fatal(err)
			}
			if _, err := a.FilterPages(ctx, ref); err != nil {
				t.Fatal(err)
			}
			check := func(when string) {
				t.Helper()
				for _, c := range urls {
					p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(c.url))
					if err != nil {
						t.Fatalf("%s: %v", c.url, err)
					}
					var own float64
					if _, err := fmt.Sscanf(p.Reason, "cosine %f", &own); err != nil || own <= 0 || own >= 0.02 {
						t.Fatalf("%s: reason %q; the test needs an own cosine in (0, 0.02)", c.url, p.Reason)
					}
					accepted := p.Decision == store.DecisionAccepted
					marked := strings.Contains(p.Reason, relevance.OffSiteMark)
					if accepted == c.offSite || marked != c.offSite {
						t.Errorf("%s, %s (final URL %s): %s, %q; want accepted %v, marked %v", when, c.url, p.FinalURL, p.Decision, p.Reason, !c.offSite, c.offSite)
					}
				}
			}
			check("judged")
			final := crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion, Final: true}
			if _, err := a.RejudgeCrawl(ctx, final); err != nil {
				t.Fatal(err)
			}
			check("after the final re-judgement")
		})
	}
}

// TestSplitCacheKeepsWhatItLoads: the per-topic cache of split
// distributions keeps the topic it has just loaded when it is full (it
// evicted it at once, so every group of a new topic read the whole topic
// from the store again), keeps a crawl it has seen as seen across a
// reload (a crawl with nothing stored yet reloaded every group), and
// forgets a topic that was reset.
func TestSplitCacheKeepsWhatItLoads(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var s splitDists
	fork := func(topic, crawl string) *topicDist {
		t.Helper()
		if _, _, err := s.fork(ctx, st, topic, crawl, nil, nil); err != nil {
			t.Fatal(err)
		}
		return s.topics[topic]
	}
	for i := range splitMaxTopics {
		fork(fmt.Sprintf("t%02d", i), "c")
	}
	c := fork("new", "c")
	if c == nil || len(s.topics) != splitMaxTopics {
		t.Fatalf("after loading a topic into a full cache: it is cached %v, %d topics; want it kept among %d", c != nil, len(s.topics), splitMaxTopics)
	}
	if again := fork("new", "c"); again != c {
		t.Error("the next group of the topic just loaded reloaded it")
	}
	if s.topics["t00"] != nil {
		t.Error("the least recently used topic was not the one evicted")
	}

	// A second crawl of the topic reloads it (it may have judged pages
	// elsewhere); the first, with nothing stored, stays seen.
	reloaded := fork("new", "c2")
	if reloaded == c {
		t.Fatal("a crawl the cache had not seen did not reload the topic")
	}
	if fork("new", "c") != reloaded || fork("new", "c2") != reloaded {
		t.Error("a crawl seen before the reload (nothing stored yet) reloaded the topic again")
	}

	s.forget("new")
	if s.topics["new"] != nil {
		t.Error("forget kept the topic")
	}
}

// slowCrawls is a store whose Crawls of one topic wait for release: a
// topic whose distribution takes long to read.
type slowCrawls struct {
	store.Store
	topic   string
	started chan struct{}
	release chan struct{}
}

func (s *slowCrawls) Crawls(ctx context.Context, topic string, limit int) ([]store.Crawl, error) {
	if topic == s.topic {
		close(s.started)
		<-s.release
	}
	return s.Store.Crawls(ctx, topic, limit)
}

// TestSplitCacheLoadsOutsideItsLock: while one topic's distribution is
// read from the store, another topic's groups are judged (the read held
// the cache's lock, and every group of every topic on the worker waited
// for it), a second group of the topic waits for the read instead of
// reading again, and a group added meanwhile is in what is installed.
func TestSplitCacheLoadsOutsideItsLock(t *testing.T) {
	base, err := sqlite.Open(filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	st := &slowCrawls{Store: base, topic: "slow", started: make(chan struct{}), release: make(chan struct{})}
	ctx := context.Background()
	var s splitDists
	forked := make(chan error, 2)
	for range 2 {
		go func() {
			_, _, err := s.fork(ctx, st, "slow", "c", nil, nil)
			forked <- err
		}()
	}
	<-st.started
	if _, _, err := s.fork(ctx, st, "fast", "c", nil, nil); err != nil {
		t.Fatal(err)
	}
	s.add("slow", "c", map[string]float64{"h1": 0.3})
	close(st.release)
	for range 2 {
		if err := <-forked; err != nil {
			t.Fatal(err)
		}
	}
	c := s.topics["slow"]
	if c == nil || c.dist.Len() != 1 || !c.own["c"]["h1"] {
		t.Fatalf("installed distribution %+v; want the page added during the read", c)
	}
}

// TestCrawlSplitBreadth: a topic's breadth scales the crawl's split as it
// scales a filter's default threshold online — `specific` turns down the
// page the plain split accepts (g0, mixed 0.2, just over the split), and
// its reason says the split was scaled; `broad` keeps it (and says so). (The
// re-judgements scale the same way: rejudge.go, feedback.go.)
func TestCrawlSplitBreadth(t *testing.T) {
	for _, tc := range []struct {
		breadth string
		want    bool
	}{{"", true}, {"broad", true}, {"specific", false}} {
		a, _, tv, mv := topicFixture(t, splitTopic+"breadth: \""+tc.breadth+"\"\n")
		seedSplitCrawl(t, a.Store, 60, 2)
		lt, err := a.loadTopic(context.Background(), "split", tv, mv)
		if err != nil {
			t.Fatal(err)
		}
		got := judgeSplitGroup(t, a, lt, 2)
		if scaled := strings.Contains(got[0].Reason, "the topic's breadth"); scaled != (tc.breadth != "") {
			t.Errorf("breadth %q: reason %q; want the scaling named exactly when a breadth scaled the split", tc.breadth, got[0].Reason)
		}
		if got[0].Relevant != tc.want || got[1].Relevant {
			t.Errorf("breadth %q: g0 accepted %v (mixed %.3f, %s), g1 %v; want %v and false",
				tc.breadth, got[0].Relevant, got[0].Score, got[0].Reason, got[1].Relevant, tc.want)
		}
	}
}
