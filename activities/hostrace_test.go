package activities

import (
	"context"
	"sync"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// barrierHeld is a store whose ClaimBatch waits for a second claim to reach
// it too, or for a while: two slices of one topic on one worker claiming at
// the same moment (crawl.pipelines > 1) both reach their ClaimBatch after
// reading the worker's busy hosts, unless claims of a topic are serialised.
type barrierHeld struct {
	store.Store
	arrived chan struct{}
}

func (s *barrierHeld) ClaimBatch(ctx context.Context, req store.ClaimRequest) (store.Batch, error) {
	select {
	case s.arrived <- struct{}{}: // the other claim is waiting: go on together
	case <-s.arrived: // this claim came second
	case <-time.After(300 * time.Millisecond): // alone: the other waits for this one
	}
	return s.Store.ClaimBatch(ctx, req)
}

// TestConcurrentClaimsShareNoHost: claimHosts promises entries "of
// hosts that no slice of this crawl's topic in this worker is serving", but
// it reads the worker's busy hosts (a.serving) before its ClaimBatch and
// marks its own hosts busy only after it: two slices claiming together both
// take an entry of the same host, and the worker has two requests to it in
// flight.
func TestConcurrentClaimsShareNoHost(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	seed := "http://a.test/"
	more := store.FrontierEntry{Topic: r.Topic, URL: seed + "roses/1", URLHash: urlnorm.Hash(seed + "roses/1"),
		Host: "a.test", Priority: 0.5, CrawlID: "c1"}
	if _, err := a.Store.Enqueue(ctx, []store.FrontierEntry{more}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	if fs, err := a.Store.FrontierStats(ctx, r.Topic); err == nil {
		t.Logf("frontier %+v", fs)
	}
	st := a.Store
	a.Store = &barrierHeld{Store: st, arrived: make(chan struct{})}
	defer func() { a.Store = st }()
	got := make([][]store.FrontierEntry, 2)
	errs := make([]error, 2)
	var done sync.WaitGroup
	for i := range 2 {
		done.Add(1)
		go func() {
			defer done.Done()
			in := sliceInput(r, []string{"s000001", "s000002"}[i], 100)
			held := &heldHosts{set: &a.serving, topic: in.Topic}
			got[i], errs[i] = a.claimHosts(ctx, in, in.SliceID+"/a1/c000001", store.Fence{}, 10, nil, held, &claimedPages{})
		}()
	}
	done.Wait()
	for i := range 2 {
		t.Logf("slice %d: %d entries, %v", i+1, len(got[i]), errs[i])
		if errs[i] != nil && len(got[i]) == 0 {
			continue
		}
		for _, e := range got[i] {
			t.Logf("slice %d claimed %s", i+1, e.URL)
		}
	}
	if len(got[0]) > 0 && len(got[1]) > 0 && got[0][0].Host == got[1][0].Host {
		t.Errorf("both slices of the worker claimed an entry of %s: two requests to it in flight at once", got[0][0].Host)
	}
}
