package activities

import (
	"context"
	"slices"
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// prunedCrawl runs crawl c1 of the loopback site under pruning (no
// tunnels) until its frontier is dry: the football pages c.test/ and
// c.test/x are rejected and not expanded, so the link behind them
// (missingURL) is never queued.
func prunedCrawl(t *testing.T) (*Activities, crawlapi.StartCrawlResult) {
	t.Helper()
	a, r := crawlUntilDry(t, newLoopBackSite(t), "prune: true, tunnel: 0")
	got := decisions(t, a.Store)
	if got["http://c.test/"] != store.DecisionRejected || got["http://c.test/x"] != store.DecisionRejected || got[missingURL] != "" {
		t.Fatalf("first slice: decisions %v; want the football pages rejected and the link behind them never fetched", got)
	}
	return a, r
}

// crawlUntilDry runs crawl c1 of site under siteTopicYAML with strategy
// (in place of "prune: false") until its frontier is dry.
func crawlUntilDry(t *testing.T, site *loopBackSite, strategy string) (*Activities, crawlapi.StartCrawlResult) {
	t.Helper()
	a := siteActivities(t, site)
	yml := strings.Replace(siteTopicYAML, "prune: false", strategy, 1)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yml})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exhausted {
		t.Fatalf("first slice %+v; want the frontier exhausted", res)
	}
	return a, r
}

// TestExpandPrunedDetailPages: under strategy.detail_page an accepted
// target page is stored with its links unfollowed, and nothing else ever
// followed them: a crawl whose only way on was behind one ended with
// budget left. A dry frontier now expands such pages once no rejected
// page is left to expand — after the rejected ones, however much better
// they score — leaving them accepted and indexed, their round's mark in
// their reason; a later round does not take them again, and a retried
// round reports them and expands nothing more.
func TestExpandPrunedDetailPages(t *testing.T) {
	site := newLoopBackSite(t)
	// The seed, a hub, leads to a target page (much text, one link) and to
	// the football page; the target page alone leads on, to roses/2.
	site.pages["http://a.test/"] = sitePage{"Rose garden", roseText(0), []string{"http://a.test/roses/1", "http://c.test/"}, true}
	site.pages["http://a.test/roses/1"] = sitePage{"Rose 1", strings.Repeat(roseText(1), 6), []string{"http://a.test/roses/2"}, true}
	a, r := crawlUntilDry(t, site, "prune: true, tunnel: 0, detail_page: true")
	target := "http://a.test/roses/1"
	page := func(u string) store.Page {
		t.Helper()
		p, err := a.Store.Page(t.Context(), r.Topic, urlnorm.Hash(u))
		if err != nil {
			t.Fatalf("page %s: %v", u, err)
		}
		return p
	}
	if p := page(target); p.Decision != store.DecisionAccepted || !strings.Contains(p.Reason, relevance.DetailStoredMark) || !p.Indexed {
		t.Fatalf("%s: %q %q indexed %v; want an accepted target page, stored, not expanded", target, p.Decision, p.Reason, p.Indexed)
	}
	if got := decisions(t, a.Store); got["http://c.test/"] != store.DecisionRejected || got["http://a.test/roses/2"] != "" {
		t.Fatalf("decisions %v; want c.test/ rejected and roses/2 never fetched", got)
	}

	// Round 1 has room for one page: the rejected one, though the target
	// page scores higher.
	if er, err := a.ExpandPruned(t.Context(), dryInput(r, 1, 1)); err != nil || er.Expanded != 1 || er.Detail != 0 {
		t.Fatalf("round 1: %+v (%v); want c.test/ expanded, no target page", er, err)
	}
	if p := page("http://c.test/"); p.Decision != store.DecisionTunnel {
		t.Errorf("c.test/ after round 1: %q; want a tunnel", p.Decision)
	}
	// Round 2: no rejected page is left (c.test/x is not fetched yet).
	er, err := a.ExpandPruned(t.Context(), dryInput(r, 2, 8))
	if err != nil || er.Expanded != 0 || er.Detail != 1 || er.Enqueued != 1 || er.Queued != 2 {
		t.Fatalf("round 2: %+v (%v); want the target page expanded and roses/2 queued beside c.test/x", er, err)
	}
	if p := page(target); p.Decision != store.DecisionAccepted || !p.Indexed || !strings.HasSuffix(p.Reason, dryMark(2)) {
		t.Errorf("%s after round 2: %q %q indexed %v; want it accepted and indexed, its reason ending %q", target, p.Decision, p.Reason, p.Indexed, dryMark(2))
	}
	if again, err := a.ExpandPruned(t.Context(), dryInput(r, 2, 8)); err != nil || again.Expanded != 0 || again.Detail != 1 || again.Queued != 2 {
		t.Errorf("round 2 retried: %+v (%v); want its target page reported, nothing else expanded", again, err)
	}
	if next, err := a.ExpandPruned(t.Context(), dryInput(r, 3, 8)); err != nil || next.Expanded+next.Detail != 0 {
		t.Errorf("round 3: %+v (%v); want nothing left to expand", next, err)
	}
	if _, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000002", 100)); err != nil {
		t.Fatal(err)
	}
	if d := decisions(t, a.Store)["http://a.test/roses/2"]; d != store.DecisionAccepted {
		t.Errorf("roses/2, behind the target page: %q; want it fetched and accepted", d)
	}
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

// walkCountingStore counts the pages a store hands out by crawl log and
// by BestPages, and BestPages' calls.
type walkCountingStore struct {
	store.Store
	logged, best int
	reads        []int // the Limit of each BestPages call
}

func (c *walkCountingStore) CrawlLog(ctx context.Context, crawlID string, fn func(store.Page) error) error {
	return c.Store.CrawlLog(ctx, crawlID, func(p store.Page) error {
		c.logged++
		return fn(p)
	})
}

func (c *walkCountingStore) BestPages(ctx context.Context, q store.BestPagesQuery) ([]store.Page, error) {
	pages, err := c.Store.BestPages(ctx, q)
	c.best += len(pages)
	c.reads = append(c.reads, q.Limit)
	return pages, err
}

// TestExpandPrunedReadsItsPagesOnly: a round has the store hand over the
// crawl's best rejected pages, as many as it expands, not the crawl: one
// page for a round of one, in one read, and no crawl log. Before, every
// round read the whole crawl log (O(crawl) a round) and kept every
// rejected page's score.
func TestExpandPrunedReadsItsPagesOnly(t *testing.T) {
	a, r := prunedCrawl(t)
	counting := &walkCountingStore{Store: a.Store}
	a.Store = counting
	er, err := a.ExpandPruned(t.Context(), dryInput(r, 1, 1))
	if err != nil || er.Expanded != 1 {
		t.Fatalf("round 1: %+v (%v); want one page expanded", er, err)
	}
	if counting.logged != 0 || counting.best != 1 || len(counting.reads) != 1 {
		t.Errorf("round 1 read %d pages of the crawl log and %d best pages in %d reads; want none and 1 in 1", counting.logged, counting.best, len(counting.reads))
	}
}

// TestExpandPrunedReadsOn: a round of one whose best rejected page
// (c.test/) cannot be expanded (its parse record gone) reads on after it,
// for twice as many pages, and expands the next (c.test/x): a page passed
// over does not stop the round, nor every later one, which would read it
// first again.
func TestExpandPrunedReadsOn(t *testing.T) {
	a, r := prunedCrawl(t)
	if err := a.Store.DeleteBlob(t.Context(), r.Topic, urlnorm.Hash("http://c.test/"), store.BlobParse); err != nil {
		t.Fatal(err)
	}
	counting := &walkCountingStore{Store: a.Store}
	a.Store = counting
	er, err := a.ExpandPruned(t.Context(), dryInput(r, 1, 1))
	got := decisions(t, a.Store)
	if err != nil || er.Expanded != 1 || got["http://c.test/"] != store.DecisionRejected || got["http://c.test/x"] != store.DecisionTunnel {
		t.Fatalf("round 1: %+v (%v), decisions %v; want c.test/x expanded, c.test/ left rejected", er, err, got)
	}
	if !slices.Equal(counting.reads, []int{1, 2}) || counting.best != 2 {
		t.Errorf("round 1 read %d pages with limits %v; want 2 pages with limits [1 2]", counting.best, counting.reads)
	}
}

// TestExpandPrunedSkipsStuffed: a page rejected as keyword stuffing
// (relevance.Stuffed) is no candidate of a dry frontier's expansion, as a
// declared negative sample is not: its links stay unfollowed.
func TestExpandPrunedSkipsStuffed(t *testing.T) {
	site := newLoopBackSite(t)
	const stuffed = "http://c.test/x"
	site.pages[stuffed] = sitePage{"Match report", strings.Repeat("football match goal referee ", 1000), []string{missingURL}, false}
	a, r := crawlUntilDry(t, site, "prune: true, tunnel: 0")
	p, err := a.Store.Page(t.Context(), r.Topic, urlnorm.Hash(stuffed))
	if err != nil || !strings.HasPrefix(p.Reason, relevance.StuffedMark) {
		t.Fatalf("%s: %q (%v); want rejected as keyword stuffing (the test's premise)", stuffed, p.Reason, err)
	}
	er, err := a.ExpandPruned(t.Context(), dryInput(r, 1, 8))
	if err != nil || er.Expanded != 1 || er.Queued != 0 {
		t.Errorf("ExpandPruned %+v (%v); want only c.test/ expanded, the stuffed page's link not queued", er, err)
	}
}
