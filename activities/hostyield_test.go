package activities

import (
	"context"
	"math"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/hostyield"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
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

	// The pages reached through a link from another site are counted as a
	// class too (hostyield.Outward), once each, as their hosts are.
	var outward store.HostYield
	if err := a.Store.CrawlLog(ctx, "c1", func(p store.Page) error {
		if p.ParentURL != "" && !urlnorm.SameSite(urlnorm.Host(p.ParentURL), urlnorm.Host(p.URL)) &&
			p.Decision != store.DecisionPending && p.Decision != store.DecisionDuplicate {
			outward.Judged++
			if p.Decision == store.DecisionAccepted {
				outward.Accepted++
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ys, err := a.Store.HostYields(ctx, r.Topic, []string{hostyield.Outward})
	if err != nil {
		t.Fatal(err)
	}
	if outward.Host = hostyield.Outward; ys[hostyield.Outward] != outward || outward.Judged == 0 || outward.Accepted == outward.Judged {
		t.Fatalf("outward yield = %+v; want %+v from the crawl log (some judged, not all accepted)", ys[hostyield.Outward], outward)
	}
	outRate := hostyield.Rate(outward.Accepted, outward.Judged)

	other := workerActivities(t, cfg) // a second worker process on the same store
	factor, err := other.hostYieldFactor(ctx, r.Topic, []string{"a.test", "c.test", "new.test"})
	if err != nil {
		t.Fatal(err)
	}
	if f := factor("c.test", false); f != hostyield.Factor(0, 3) || f >= 1 {
		t.Errorf("other worker's factor for c.test = %v, want %v (< 1)", f, hostyield.Factor(0, 3))
	}
	if f, g := factor("a.test", false), factor("new.test", false); f != 1 || g != 1 {
		t.Errorf("other worker's factors for a.test, new.test = %v, %v; want 1, 1", f, g)
	}
	// Leaving a site: an unseen host starts from the outward rate, a host
	// with pages of its own weighs them against it.
	if f, want := factor("new.test", true), hostyield.FactorWithPrior(0, 0, outRate); f != want {
		t.Errorf("factor of an outward link to an unseen host = %v, want %v", f, want)
	}
	if f, want := factor("c.test", true), hostyield.FactorWithPrior(0, 3, outRate); f != want {
		t.Errorf("factor of an outward link to c.test = %v, want %v", f, want)
	}

	// Scoring the seed's out-links again: with host yield, the link into
	// c.test comes out at its score without host yield times c.test's
	// factor, the links into a.test unchanged.
	noYield := *cfg
	noYield.Crawl.HostYield = false
	plain := workerActivities(t, &noYield)
	seed, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash("http://a.test/"))
	if err != nil {
		t.Fatal(err)
	}
	ref := crawlapi.BatchRef{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	priorities := func(a *Activities) map[string]float64 {
		t.Helper()
		g := newGroup(r.Topic, ref.CrawlID)
		if _, err := a.predictLinks(ctx, ref, []store.Page{seed}, g); err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, e := range g.w.Entries {
			out[e.URL] = e.Priority
		}
		return out
	}
	with, without := priorities(other), priorities(plain)
	for _, c := range []struct {
		url    string
		factor float64
	}{{"http://c.test/", hostyield.FactorWithPrior(0, 3, outRate)}, {"http://a.test/roses/1", 1}} {
		if without[c.url] <= 0 {
			t.Fatalf("link to %s scored %v without host yield; the check needs a positive score", c.url, without[c.url])
		}
		if got, want := with[c.url], without[c.url]*c.factor; math.Abs(got-want) > 1e-12 {
			t.Errorf("priority of %s = %v with host yield, want %v (%v × %v)", c.url, got, want, without[c.url], c.factor)
		}
	}
}

// TestHostYieldNotCountedByRefresh: a refresh that replaces a changed page
// (which clears its decision) and judges it again adds nothing to its
// host's yield; the page was counted when its crawl first judged it.
func TestHostYieldNotCountedByRefresh(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	before, err := a.Store.HostYields(ctx, r.Topic, []string{"a.test"})
	if err != nil {
		t.Fatal(err)
	}
	u := "http://a.test/roses/1"
	p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u))
	if err != nil || p.Decision != store.DecisionAccepted || p.CrawlID != "c1" {
		t.Fatalf("page %s before the refresh: %s of crawl %q (%v); want accepted by c1", u, p.Decision, p.CrawlID, err)
	}
	// The refresh's batch claims the page (every page is due a year on),
	// as its Refetch would have before replacing it: its stages act on the
	// pages it holds only.
	a.Now = func() time.Time { return time.Now().Add(365 * 24 * time.Hour) }
	if n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: "refresh/roses/1/b1", Max: 100}); err != nil || n == 0 {
		t.Fatalf("ClaimRefresh = %d, %v; want the crawl's pages", n, err)
	}
	body := []byte(`<html><head><title>Rose 1 revised</title></head><body><p>` + roseText(7) + `</p></body></html>`)
	p.BatchID, p.ContentHash, p.Bytes = "refresh/roses/1/b1", "changed", len(body)
	if err := a.Store.ReplacePage(ctx, p, body); err != nil {
		t.Fatal(err)
	}
	ref := crawlapi.BatchRef{CrawlID: "refresh/roses/1", Topic: r.Topic, BatchID: p.BatchID, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if _, err := a.Parse(ctx, ref); err != nil {
		t.Fatal(err)
	}
	res, err := a.FilterPages(ctx, ref)
	if err != nil || res.Accepted != 1 {
		t.Fatalf("FilterPages of the refresh batch = %+v, %v; want the changed page judged again, accepted", res, err)
	}
	after, err := a.Store.HostYields(ctx, r.Topic, []string{"a.test"})
	if err != nil {
		t.Fatal(err)
	}
	if after["a.test"] != before["a.test"] {
		t.Errorf("a.test's yield %+v after the refresh, %+v before; want it unchanged", after["a.test"], before["a.test"])
	}
}
