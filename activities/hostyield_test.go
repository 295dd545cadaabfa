package activities

import (
	"context"
	"testing"

	"focuscrawl/internal/hostyield"
	"focuscrawl/internal/store"
)

// TestHostYieldSharedByWorkers: a crawl of the loopback site leaves in the
// crawl store what each host yielded — every judged page counted once, a
// failed fetch as judged and not accepted — and another worker on the same
// store (or this one restarted) scales links into the football host down
// by exactly that, without having judged a page itself.
func TestHostYieldSharedByWorkers(t *testing.T) {
	site := newLoopBackSite(t)
	cfg := siteConfig(t, site)
	a := workerActivities(t, cfg)
	r := startSiteCrawl(t, a)
	ctx := context.Background()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	checkDecisions(t, site, a.Store)

	got, err := a.Store.HostYields(ctx, r.Topic, []string{"a.test", "b.test", "c.test"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]store.HostYield{
		"a.test": {Host: "a.test", Judged: 4, Accepted: 4},
		"b.test": {Host: "b.test", Judged: 3, Accepted: 3},
		"c.test": {Host: "c.test", Judged: 3}, // two football pages and the broken link
	}
	for h, w := range want {
		if got[h] != w {
			t.Errorf("yield of %s = %+v, want %+v", h, got[h], w)
		}
	}

	other := workerActivities(t, cfg) // a second worker process on the same store
	factor, err := other.hostYieldFactor(ctx, r.Topic, []string{"a.test", "c.test", "new.test"})
	if err != nil {
		t.Fatal(err)
	}
	if f := factor("c.test"); f != hostyield.Factor(0, 3) || f >= 1 {
		t.Errorf("other worker's factor for c.test = %v, want %v (< 1)", f, hostyield.Factor(0, 3))
	}
	if f, g := factor("a.test"), factor("new.test"); f != 1 || g != 1 {
		t.Errorf("other worker's factors for a.test, new.test = %v, %v; want 1, 1", f, g)
	}
}
