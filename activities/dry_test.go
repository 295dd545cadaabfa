package activities

import (
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// prunedCrawl runs crawl c1 of the loopback site under pruning (no
// tunnels) until its frontier is dry: the football pages c.test/ and
// c.test/x are rejected and not expanded, so the link behind them
// (missingURL) is never queued.
func prunedCrawl(t *testing.T) (*Activities, crawlapi.StartCrawlResult) {
	t.Helper()
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	yml := strings.Replace(siteTopicYAML, "prune: false", "prune: true, tunnel: 0", 1)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yml})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100))
	if err != nil {
		t.Fatal(err)
	}
	got := decisions(t, a.Store)
	if !res.Exhausted || got["http://c.test/"] != store.DecisionRejected || got["http://c.test/x"] != store.DecisionRejected || got[missingURL] != "" {
		t.Fatalf("first slice: exhausted %v, decisions %v; want the football pages rejected and the link behind them never fetched", res.Exhausted, got)
	}
	return a, r
}

// dryInput asks ExpandPruned for round round of crawl c1, max pages.
func dryInput(r crawlapi.StartCrawlResult, round, max int) crawlapi.ExpandPrunedInput {
	return crawlapi.ExpandPrunedInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion,
		Max: max, Round: round}
}

// TestExpandPruned: a crawl that pruned its way to an empty frontier
// follows the links of its best pruned pages when asked: they become
// tunnels with the round's mark, their new link is queued, a second call
// finds nothing left to expand; a topic that does not prune has nothing to
// expand.
func TestExpandPruned(t *testing.T) {
	a, r := prunedCrawl(t)
	in := dryInput(r, 1, 8)
	er, err := a.ExpandPruned(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if er.Expanded != 2 || er.Queued != 1 || er.Enqueued != 1 {
		t.Errorf("ExpandPruned %+v; want the two football pages expanded and the missing page's link queued", er)
	}
	for _, u := range []string{"http://c.test/", "http://c.test/x"} {
		p, err := a.Store.Page(t.Context(), r.Topic, urlnorm.Hash(u))
		if err != nil || p.Decision != store.DecisionTunnel || !strings.HasSuffix(p.Reason, dryMark(1)) {
			t.Errorf("%s: %q %q (%v); want a tunnel whose reason ends %q", u, p.Decision, p.Reason, err, dryMark(1))
		}
	}
	if er, err := a.ExpandPruned(t.Context(), dryInput(r, 2, 8)); err != nil || er.Expanded != 0 || er.Queued != 1 {
		t.Errorf("second ExpandPruned %+v (%v); want nothing expanded, the entry still queued", er, err)
	}
	if _, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000002", 100)); err != nil {
		t.Fatal(err)
	}
	if d := decisions(t, a.Store)[missingURL]; d != store.DecisionError {
		t.Errorf("the link behind the pruned pages: %q; want it fetched (an error: it is missing)", d)
	}

	// The site topic as written expands every judged page: nothing pruned.
	_, b, rb := siteCrawl(t)
	if _, err := b.CrawlSlice(t.Context(), sliceInput(rb, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	if er, err := b.ExpandPruned(t.Context(), dryInput(rb, 1, 8)); err != nil || er.Expanded != 0 {
		t.Errorf("ExpandPruned without pruning %+v (%v); want nothing expanded", er, err)
	}
}

// TestExpandPrunedRetry: an attempt whose store write succeeded and that
// is retried (its result lost: a worker killed after the write, the count
// of queued entries failing) expands nothing more — the retry finds its
// round's pages and reports them — and the next round takes the next page.
// Before, the retry took the next Max pages as well.
func TestExpandPrunedRetry(t *testing.T) {
	a, r := prunedCrawl(t)
	first, err := a.ExpandPruned(t.Context(), dryInput(r, 1, 1))
	if err != nil || first.Expanded != 1 {
		t.Fatalf("round 1: %+v (%v); want one page expanded", first, err)
	}
	tunnels := func() int {
		n := 0
		for _, d := range decisions(t, a.Store) {
			if d == store.DecisionTunnel {
				n++
			}
		}
		return n
	}
	again, err := a.ExpandPruned(t.Context(), dryInput(r, 1, 1))
	if err != nil || again.Expanded != 1 || tunnels() != 1 {
		t.Errorf("round 1 retried: %+v (%v), %d tunnels; want the round's one page reported, no other expanded", again, err, tunnels())
	}
	next, err := a.ExpandPruned(t.Context(), dryInput(r, 2, 1))
	if err != nil || next.Expanded != 1 || tunnels() != 2 {
		t.Errorf("round 2: %+v (%v), %d tunnels; want the other football page expanded", next, err, tunnels())
	}
}

// TestExpandPrunedSkipsUnexpandable: a pruned page whose links cannot be
// followed (its parse record gone; a nofollow page likewise) is not made a
// tunnel "expanded later" and does not take a place of the round: the next
// page does. Before, it was marked expanded with nothing followed, and a
// round of such pages counted as a fruitless one.
func TestExpandPrunedSkipsUnexpandable(t *testing.T) {
	a, r := prunedCrawl(t)
	x := urlnorm.Hash("http://c.test/x")
	if err := a.Store.DeleteBlob(t.Context(), r.Topic, x, store.BlobParse); err != nil {
		t.Fatal(err)
	}
	er, err := a.ExpandPruned(t.Context(), dryInput(r, 1, 8))
	if err != nil {
		t.Fatal(err)
	}
	got := decisions(t, a.Store)
	if er.Expanded != 1 || got["http://c.test/x"] != store.DecisionRejected || got["http://c.test/"] != store.DecisionTunnel {
		t.Errorf("ExpandPruned %+v, decisions %v; want c.test/ expanded and c.test/x (no parse record) left rejected", er, got)
	}
}
