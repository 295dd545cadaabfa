package activities

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"focuscrawl/internal/store"
)

// failSlotOnce is a store whose first ReserveHostSlot for b.test fails, as a
// transient store error does (a busy SQLite writer, a PostgreSQL connection
// reset).
type failSlotOnce struct {
	store.Store
	failed atomic.Bool
}

func (s *failSlotOnce) ReserveHostSlot(ctx context.Context, host string, delay time.Duration, now time.Time) (time.Time, error) {
	if host == "b.test" && s.failed.CompareAndSwap(false, true) {
		return time.Time{}, errors.New("injected: database is locked")
	}
	return s.Store.ReserveHostSlot(ctx, host, delay, now)
}

// TestSlotStoreErrorIsNoFetchFailure: a store error while booking a
// host's politeness slot is not the page's fetch failure: the request was
// never sent. The attempt fails with the store's error, and its retry
// fetches the page; it was recorded as failed for good (judged an error,
// its entry completed, never fetched).
func TestSlotStoreErrorIsNoFetchFailure(t *testing.T) {
	site := newLoopBackSite(t)
	cfg := siteConfig(t, site)
	cfg.Fetch.HostDelay = 5 * time.Millisecond // slots are booked in the store
	a := workerActivities(t, cfg)
	r := startSiteCrawl(t, a)
	site.reset()
	st := &failSlotOnce{Store: a.Store}
	a.Store = st
	res, err := a.CrawlSlice(context.Background(), sliceInput(r, "s000001", 100))
	a.Store = st.Store
	if !st.failed.Load() {
		t.Fatal("no slot of b.test was booked")
	}
	if err == nil {
		t.Fatalf("slice: no error, stats %+v; want the store's error (the attempt fails, its retry takes over)", res.Stats)
	}
	// The retry (the same slice again) takes the entries over and fetches b.test.
	if res, err = a.CrawlSlice(context.Background(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatalf("retried slice: %v (stats %+v)", err, res.Stats)
	}
	got := decisions(t, a.Store)
	if d := got["http://b.test/"]; d != store.DecisionAccepted {
		t.Errorf("http://b.test/ judged %q, requested %d times; want it fetched and accepted",
			d, site.pageRequests()["http://b.test/"])
	}
	_ = a.Store.CrawlLog(context.Background(), "c1", func(p store.Page) error {
		if p.Error != "" {
			t.Logf("page %s: class %q error %q", p.URL, p.ErrorClass, p.Error)
		}
		return nil
	})
}
