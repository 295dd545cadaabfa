package activities

import (
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// TestExpandPruned: a crawl that pruned its way to an empty frontier (the
// football pages rejected and not expanded, so the link behind them is
// never queued) follows the links of its best pruned pages when asked:
// they become tunnels with the mark, their new link is queued, a second
// call finds nothing left to expand; a topic that does not prune has
// nothing to expand.
func TestExpandPruned(t *testing.T) {
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
	if !res.Exhausted || got["http://c.test/"] != store.DecisionRejected || got[missingURL] != "" {
		t.Fatalf("first slice: exhausted %v, decisions %v; want the football pages rejected and the link behind them never fetched", res.Exhausted, got)
	}
	in := crawlapi.ExpandPrunedInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion, Max: 8}
	er, err := a.ExpandPruned(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if er.Expanded != 2 || er.Queued != 1 {
		t.Errorf("ExpandPruned %+v; want the two football pages expanded and the missing page's link queued", er)
	}
	for _, u := range []string{"http://c.test/", "http://c.test/x"} {
		p, err := a.Store.Page(t.Context(), r.Topic, urlnorm.Hash(u))
		if err != nil || p.Decision != store.DecisionTunnel || !strings.HasSuffix(p.Reason, DryExpandedMark) {
			t.Errorf("%s: %q %q (%v); want a tunnel whose reason ends %q", u, p.Decision, p.Reason, err, DryExpandedMark)
		}
	}
	if er, err := a.ExpandPruned(t.Context(), in); err != nil || er.Expanded != 0 || er.Queued != 1 {
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
	in = crawlapi.ExpandPrunedInput{CrawlID: "c1", Topic: rb.Topic, TopicVersion: rb.TopicVersion, ModelVersion: rb.ModelVersion, Max: 8}
	if er, err := b.ExpandPruned(t.Context(), in); err != nil || er.Expanded != 0 {
		t.Errorf("ExpandPruned without pruning %+v (%v); want nothing expanded", er, err)
	}
}
