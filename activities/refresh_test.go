package activities

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// recordHookStore is a crawl store that runs afterRecord after each
// RecordRefresh: the moment one page of a refresh batch is done.
type recordHookStore struct {
	store.Store
	afterRecord func()
}

func (s *recordHookStore) RecordRefresh(ctx context.Context, topic, urlHash string, r store.RefreshResult) error {
	err := s.Store.RecordRefresh(ctx, topic, urlHash, r)
	s.afterRecord()
	return err
}

// TestRefetchKeepsItsClaim: a Refetch that outlasts its claim's lease (a
// 32-page batch on a host with a 30 s Crawl-delay takes 16 minutes;
// crawl.lease is 15) renews the lease as it goes, so another refresh of the
// topic cannot claim — and fetch a second time — the pages it has not
// reached yet. Each page here takes 0.4 of the lease on the activities'
// clock; before, the lease ran out at the third page and a second refresh
// took the rest of the batch.
func TestRefetchKeepsItsClaim(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := context.Background()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	site.reset()
	a.CrawlCfg.FetchConcurrency = 1 // one page after another
	lease := a.CrawlCfg.Lease
	var mu sync.Mutex
	now := time.Now().Add(365 * 24 * time.Hour) // every page due
	a.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: "refresh/1", Max: 100})
	if err != nil || n < 4 {
		t.Fatalf("ClaimRefresh = %d, %v; want the site's accepted pages", n, err)
	}
	hs := &recordHookStore{Store: a.Store}
	a.Store = hs
	stolen, records := 0, 0
	hs.afterRecord = func() {
		mu.Lock()
		now = now.Add(lease * 2 / 5)
		mu.Unlock()
		records++
		m, err := hs.Store.ClaimRefresh(ctx, a.refreshClaim(r.Topic, fmt.Sprintf("refresh/2-%d", records), 100, 0))
		if err != nil {
			t.Error(err)
		}
		stolen += m
	}
	res, err := a.Refetch(ctx, crawlapi.BatchRef{CrawlID: "refresh/1", Topic: r.Topic, BatchID: "refresh/1",
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion})
	if err != nil {
		t.Fatal(err)
	}
	if stolen != 0 {
		t.Errorf("another refresh claimed %d pages of the running batch after its first lease ran out", stolen)
	}
	if res.Checked != n || records != n {
		t.Errorf("refetch %+v with %d pages recorded; want all %d checked and recorded by the batch", res, records, n)
	}
	for u, c := range site.pageRequests() {
		if c != 1 {
			t.Errorf("%s requested %d times; want once", u, c)
		}
	}
}

// TestStartRefreshUnloadableTopic: a refresh of a topic whose latest stored
// version does not load fails at StartRefresh with the non-retryable
// InvalidTopic. Before, it started: every batch refetched its pages,
// replaced the changed ones (pending, out of the index) and then failed at
// FilterPages, which cannot load the topic, up to refresh.max_pages pages.
func TestStartRefreshUnloadableTopic(t *testing.T) {
	_, a, r := siteCrawl(t)
	broken := "name: roses\nlanguage: en\nseeds: [http://a.test/]\nstrategy: {page_filter: no-such-filter}\n"
	if _, err := a.Store.PutTopic(context.Background(), r.Topic, []byte(broken)); err != nil {
		t.Fatal(err)
	}
	var res crawlapi.StartRefreshResult
	err := runActivity(a, crawlapi.StartRefresh.Name, crawlapi.StartRefreshInput{RefreshID: "refresh/1", Topic: r.Topic}, &res)
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrInvalidTopic || !appErr.NonRetryable() {
		t.Fatalf("StartRefresh with an unloadable latest version = %+v, %v; want the non-retryable %s", res, err, crawlapi.ErrInvalidTopic)
	}
}
