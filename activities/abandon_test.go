package activities

import (
	"fmt"
	"testing"

	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// TestCrawlSliceAbandonsEntryThatNeverFinishes: a frontier entry whose
// claims keep ending without an outcome (each slice that took it died with
// it in flight, and the entry went back to the queue) is recorded as
// abandoned on its next claim, without a request, and the crawl goes on:
// it was claimed again by every retry and every new slice, for ever. An
// entry with fewer such claims is fetched as usual.
func TestCrawlSliceAbandonsEntryThatNeverFinishes(t *testing.T) {
	for _, tc := range []struct {
		unfinished int
		abandoned  bool
	}{
		{maxUnfinishedClaims - 1, false},
		{maxUnfinishedClaims, true},
	} {
		t.Run(fmt.Sprint(tc.unfinished, " unfinished claims"), func(t *testing.T) {
			site, a, r := siteCrawl(t)
			ctx := t.Context()
			const seed = "http://a.test/"
			// Claims whose slices died: claimed, then released unfetched.
			for i := range tc.unfinished {
				b, err := a.Store.ClaimBatch(ctx, store.ClaimRequest{Topic: r.Topic, CrawlID: "c1",
					BatchID: fmt.Sprintf("c1/dead%d/b", i), Max: 1})
				if err != nil || b.Size != 1 {
					t.Fatalf("claim %d: %+v, %v", i, b, err)
				}
				if _, err := a.Store.ReleaseBatches(ctx, r.Topic, fmt.Sprintf("c1/dead%d/", i)); err != nil {
					t.Fatal(err)
				}
			}
			res, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100))
			if err != nil {
				t.Fatal(err)
			}
			p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(seed))
			if err != nil {
				t.Fatal(err)
			}
			requests := site.pageRequests()[seed]
			if tc.abandoned {
				if p.ErrorClass != ErrorClassAbandoned || p.Status != 0 || requests != 0 || res.Stats.Fetched != 1 || !res.Exhausted {
					t.Errorf("seed: class %q, status %d, %d requests; result %+v; want it abandoned unrequested, the crawl over",
						p.ErrorClass, p.Status, requests, res)
				}
				return
			}
			if p.ErrorClass != "" || p.Status != 200 || requests != 1 || res.Stats.Fetched < 2 {
				t.Errorf("seed: class %q, status %d, %d requests; result %+v; want it fetched once and the crawl on",
					p.ErrorClass, p.Status, requests, res)
			}
		})
	}
}
