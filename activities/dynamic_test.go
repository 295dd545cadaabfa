package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// TestDynamicThresholdRounds drives the controller through the store: high
// link-confirmed precision lowers the vsm threshold by one step per round,
// a round is computed once (a repeat writes nothing), a later batch reads
// the scaled threshold, and another crawl of the topic starts at factor 1.
func TestDynamicThresholdRounds(t *testing.T) {
	ctx := context.Background()
	a, _, tv, mv := topicFixture(t, `name: dyn
keywords: {rose: 1}
seeds: [http://a.test/]
strategy:
  page_filter: {name: vsm, threshold: 0.2}
  dynamic_threshold: {enabled: true, every: 2, window: 4}
`)
	st := a.Store
	in := crawlapi.BatchRef{CrawlID: "c1", Topic: "dyn", TopicVersion: tv, ModelVersion: mv}
	lt, err := a.loadTopic(ctx, "dyn", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	// A chain of accepted pages, each linking to the next: all confirmed.
	urls := []string{"http://a.test/", "http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4"}
	var links []store.Link
	for i, u := range urls {
		judgePage(t, st, "dyn", u, store.DecisionAccepted, 0.5)
		if i+1 < len(urls) {
			links = append(links, store.Link{Src: urlnorm.Hash(u), Dst: urlnorm.Hash(urls[i+1]), DstURL: urls[i+1]})
		}
	}
	if err := st.AddLinks(ctx, "dyn", links); err != nil {
		t.Fatal(err)
	}
	state := func() (relevance.DynamicState, int) {
		data, v, err := st.Model(ctx, "dyn", relevance.DynamicStateKind, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ds relevance.DynamicState
		if err := json.Unmarshal(data, &ds); err != nil {
			t.Fatal(err)
		}
		return ds, v
	}
	if err := a.adjustThreshold(ctx, lt, in); err != nil {
		t.Fatal(err)
	}
	ds, v := state() // 5 judged / every 2 = round 2; 4 evaluable, all confirmed
	if ds.Round != 2 || ds.Factor != 0.9 || ds.Precision != 1 || ds.Evaluated != 4 || v != 1 {
		t.Errorf("after round 2: %+v (v%d), want factor 0.9, precision 1 over 4", ds, v)
	}
	if err := a.adjustThreshold(ctx, lt, in); err != nil {
		t.Fatal(err)
	}
	if _, v2 := state(); v2 != v {
		t.Errorf("repeating round 2 stored version %d", v2)
	}
	threshold := func(crawlID string, revisited bool) float64 {
		t.Helper()
		factor, err := a.dynamicFactor(ctx, lt, crawlID, revisited)
		if err != nil {
			t.Fatal(err)
		}
		f, err := a.pageFilter(ctx, lt, nil, factor)
		if err != nil {
			t.Fatal(err)
		}
		return f.(*relevance.VSM).Threshold
	}
	if th := threshold("c1", false); math.Abs(th-0.18) > 1e-12 {
		t.Errorf("scaled threshold %v, want 0.18", th)
	}
	if th := threshold("another-crawl", false); th != 0.2 {
		t.Errorf("another crawl does not start at factor 1: threshold %v", th)
	}
	// A refresh batch judges revisited pages at the last crawl's factor.
	if th := threshold("refresh/1", true); math.Abs(th-0.18) > 1e-12 {
		t.Errorf("a refresh batch's threshold %v, want the last crawl's 0.18", th)
	}
	// Two more judged pages: round 3, one more step down.
	judgePage(t, st, "dyn", "http://a.test/5", store.DecisionAccepted, 0.5)
	judgePage(t, st, "dyn", "http://a.test/6", store.DecisionRejected, 0.01)
	if err := a.adjustThreshold(ctx, lt, in); err != nil {
		t.Fatal(err)
	}
	if ds, _ := state(); ds.Round != 3 || ds.Factor != 0.8 {
		t.Errorf("after round 3: %+v, want factor 0.8", ds)
	}
}

// wholeReadCounter counts the whole-crawl reads a dynamic-threshold round
// should no longer make, and the pages it reads back from the crawl's end.
type wholeReadCounter struct {
	store.Store
	logs, edges, recent int
}

func (c *wholeReadCounter) CrawlLog(ctx context.Context, id string, fn func(store.Page) error) error {
	c.logs++
	return c.Store.CrawlLog(ctx, id, fn)
}

func (c *wholeReadCounter) GraphEdges(ctx context.Context, topic string, fn func(store.Link) error) error {
	c.edges++
	return c.Store.GraphEdges(ctx, topic, fn)
}

func (c *wholeReadCounter) RecentPages(ctx context.Context, id string, before int64, limit int) ([]store.Page, error) {
	ps, err := c.Store.RecentPages(ctx, id, before, limit)
	c.recent += len(ps)
	return ps, err
}

// TestDynamicPrecisionFromRecentPages: a round measures link-confirmed
// precision from the crawl's last pages and their out-links — the same
// value as from the crawl's whole log and the topic's whole graph (a
// random crawl of 600 pages, another crawl's pages and unfetched targets
// among the links), without reading either whole. Before, every round (a
// round every `every` judged pages) read both: O(pages²) over a crawl.
func TestDynamicPrecisionFromRecentPages(t *testing.T) {
	ctx := context.Background()
	a, _, tv, mv := topicFixture(t, "name: dyn\nkeywords: {rose: 1}\nseeds: [http://a.test/]\n"+
		"strategy:\n  page_filter: {name: vsm, threshold: 0.2}\n  dynamic_threshold: {enabled: true, every: 10, window: 20}\n")
	st := a.Store
	rng := rand.New(rand.NewPCG(7, 7))
	decisions := []string{store.DecisionAccepted, store.DecisionAccepted, store.DecisionRejected, store.DecisionTunnel}
	var urls []string
	for i := range 600 {
		u := fmt.Sprintf("http://a.test/p%d", i)
		urls = append(urls, u)
		judgePage(t, st, "dyn", u, decisions[rng.IntN(len(decisions))], rng.Float64()*0.4)
	}
	// Pages of another crawl of the topic: links to them confirm nothing.
	for i := range 20 {
		u := fmt.Sprintf("http://b.test/q%d", i)
		h := urlnorm.Hash(u)
		if _, _, err := st.SavePage(ctx, store.Page{Topic: "dyn", URLHash: h, URL: u, FinalURL: u, FinalHash: h,
			CrawlID: "c0", Status: 200, FetchedAt: time.Now()}, nil); err != nil {
			t.Fatal(err)
		}
		if err := st.SetDecision(ctx, "dyn", h, store.Decision{Decision: store.DecisionAccepted, Filter: "vsm", Relevance: 0.9}); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	var links []store.Link
	for _, src := range urls[:600] {
		for range 1 + rng.IntN(3) {
			dst := urls[rng.IntN(len(urls))]
			if rng.IntN(10) == 0 {
				dst = fmt.Sprintf("http://c.test/never%d", rng.IntN(1000)) // not fetched
			}
			links = append(links, store.Link{Src: urlnorm.Hash(src), Dst: urlnorm.Hash(dst), DstURL: dst})
		}
	}
	if err := st.AddLinks(ctx, "dyn", links); err != nil {
		t.Fatal(err)
	}
	in := crawlapi.BatchRef{CrawlID: "c1", Topic: "dyn", TopicVersion: tv, ModelVersion: mv}
	// The whole-crawl way, as the round computed it before.
	var pages []relevance.PrecisionPage
	if err := st.CrawlLog(ctx, "c1", func(p store.Page) error {
		pages = append(pages, relevance.PrecisionPage{Hash: p.URLHash, Decision: p.Decision, Filter: p.Filter, Relevance: p.Relevance})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	children := map[string][]string{}
	for _, l := range links {
		children[l.Src] = append(children[l.Src], l.Dst)
	}
	for _, window := range []int{4, 20, 1000} {
		wantP, wantN := relevance.LinkPrecision(pages, children, window, "vsm", 0.2)
		if wantN == 0 || window == 1000 && (wantP == 0 || wantP == 1) {
			t.Fatalf("window %d: the random crawl gives precision %v over %d; want a mix", window, wantP, wantN)
		}
		acc, judged, err := a.recentAccepted(ctx, in, window)
		if err != nil {
			t.Fatal(err)
		}
		if p, n := relevance.LinkPrecisionOf(acc, judged, window, "vsm", 0.2); p != wantP || n != wantN {
			t.Errorf("window %d: precision %v over %d, want %v over %d", window, p, n, wantP, wantN)
		}
	}
	cs := &wholeReadCounter{Store: st}
	a.Store = cs
	lt, err := a.loadTopic(ctx, "dyn", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.adjustThreshold(ctx, lt, in); err != nil {
		t.Fatal(err)
	}
	if cs.logs != 0 || cs.edges != 0 || cs.recent == 0 || cs.recent > 200 {
		t.Errorf("a round read the crawl log %d times, the graph %d times and %d recent pages; want none, none and at most two chunks",
			cs.logs, cs.edges, cs.recent)
	}
}

// BenchmarkDynamicRound measures one dynamic-threshold round's reads and
// precision on a crawl of 10k and 100k judged pages (5 out-links each,
// window 20): "recent", what a round reads now (recentAccepted), against
// "whole", what it read before (the crawl log and the topic's whole graph).
func BenchmarkDynamicRound(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		a, _, _, _ := topicFixture(b, splitTopic)
		seedSplitCrawl(b, a.Store, n, 32)
		in := crawlapi.BatchRef{CrawlID: "c1", Topic: "split"}
		ctx := context.Background()
		b.Run(fmt.Sprintf("judged=%d/recent", n), func(b *testing.B) {
			for b.Loop() {
				acc, judged, err := a.recentAccepted(ctx, in, 20)
				if err != nil {
					b.Fatal(err)
				}
				if _, k := relevance.LinkPrecisionOf(acc, judged, 20, "vsm", 0.1); k != 20 {
					b.Fatalf("%d evaluable, want 20", k)
				}
			}
		})
		b.Run(fmt.Sprintf("judged=%d/whole", n), func(b *testing.B) {
			for b.Loop() {
				var pages []relevance.PrecisionPage
				if err := a.Store.CrawlLog(ctx, "c1", func(p store.Page) error {
					pages = append(pages, relevance.PrecisionPage{Hash: p.URLHash, Decision: p.Decision, Filter: p.Filter, Relevance: p.Relevance})
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				children := map[string][]string{}
				if err := a.Store.GraphEdges(ctx, "split", func(l store.Link) error {
					children[l.Src] = append(children[l.Src], l.Dst)
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if _, k := relevance.LinkPrecision(pages, children, 20, "vsm", 0.1); k != 20 {
					b.Fatalf("%d evaluable, want 20", k)
				}
			}
		})
	}
}
