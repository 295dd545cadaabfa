package activities

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// TestCrawlSliceEndsWhenWorkerStops: when the worker is told to stop (the
// activity's worker-stop channel closes), a crawl slice claims nothing
// more, and its fetches still waiting for their host's politeness slot
// send nothing: their entries go back to the queue and the slice reports
// at once with reason "worker stopping", instead of sending those requests
// (a host delay of ten minutes here) while the worker's stop timeout runs
// out.
func TestCrawlSliceEndsWhenWorkerStops(t *testing.T) {
	site, a, r := siteCrawl(t)
	a.FetchCfg.HostDelay = 10 * time.Minute // a host's second request waits that long
	stop := make(chan struct{})
	env := activityEnv(a)
	env.SetWorkerStopChannel(stop)
	env.SetTestTimeout(2 * time.Minute) // far below the host delay: a slice waiting it out fails here
	go func() {
		// Once the slice has claimed the seed, whose fetch waits for its
		// host's delay after StartCrawl's requests to a.test (its sample
		// page, robots.txt).
		for {
			fs, err := a.Store.FrontierStats(context.Background(), r.Topic)
			if err == nil && fs.Claimed > 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		close(stop)
	}()
	v, err := env.ExecuteActivity(crawlapi.CrawlSlice.Name, sliceInput(r, "s000001", 100))
	if err != nil {
		t.Fatal(err)
	}
	var res crawlapi.SliceResult
	if err := v.Get(&res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != crawlapi.ReasonWorkerStopping {
		t.Errorf("slice ended %q; want %q", res.Reason, crawlapi.ReasonWorkerStopping)
	}
	fs, err := a.Store.FrontierStats(t.Context(), r.Topic)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Claimed != 0 || fs.Queued == 0 {
		t.Errorf("frontier after the stop: %+v; want nothing left claimed and the unsent entries queued", fs)
	}
	if n := len(site.pageRequests()); n != 0 {
		t.Errorf("%d pages requested; want none: the seed was still waiting for its slot when the worker stopped", n)
	}
}

// TestResetCrawlRunsAgain: a crawl recorded as ended from outside (its
// workflow terminated, store.EndedOutside) whose workflow is then reset runs
// again: its StartCrawl under the same ID passes and records it running,
// and so does its slice's look at the row when the reset skipped StartCrawl.
// Before, StartCrawl refused the ID as used, and every slice stopped at
// once, for ever (a reviewer's finding).
func TestResetCrawlRunsAgain(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := t.Context()
	if err := a.Store.SetCrawlState(ctx, "c1", store.CrawlTerminated); err != nil {
		t.Fatal(err)
	}
	if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: siteTopicYAML}); err != nil {
		t.Fatalf("StartCrawl of a reset crawl: %v", err)
	}
	if c, err := a.Store.Crawl(ctx, "c1"); err != nil || c.State != store.CrawlRunning {
		t.Errorf("row after the reset's StartCrawl: %+v, %v; want running", c, err)
	}
	if err := a.Store.SetCrawlState(ctx, "c1", store.CrawlTimedOut); err != nil {
		t.Fatal(err)
	}
	res, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 5))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Claimed == 0 {
		t.Errorf("slice of a reset crawl claimed nothing (%s)", res.Reason)
	}
	if c, err := a.Store.Crawl(ctx, "c1"); err != nil || c.State != store.CrawlRunning {
		t.Errorf("row after the reset's slice: %+v, %v; want running", c, err)
	}
}

// TestRefetchStoppedWorkerBeatsItsCounts: a Refetch whose worker is told
// to stop records a last heartbeat with the exact counts before it fails,
// so that its retry, which counts the pages this attempt recorded from
// that heartbeat (earlierRefetch), counts every one. Before, the retry
// read the ticker's last beat, up to 2 s older than the requests that
// finished at the stop: an operator who stopped (SIGTERM) the worker
// running a refresh's Refetch read "checked 179" of 182 pages claimed and
// requested once each.
func TestRefetchStoppedWorkerBeatsItsCounts(t *testing.T) {
	site, a, ref, n := siteRefreshBatch(t, nil)
	stop := make(chan struct{})
	st := a.Store
	records := 0
	a.Store = &recordHookStore{Store: st, afterRecord: func() {
		if records++; records == 2 {
			close(stop)
		}
	}}
	env := activityEnv(a)
	env.SetWorkerStopChannel(stop)
	var last crawlapi.RefetchResult
	beats := 0
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, d converter.EncodedValues) {
		beats++
		if err := d.Get(&last); err != nil {
			t.Errorf("heartbeat: %v", err)
		}
	})
	if _, err := env.ExecuteActivity(crawlapi.Refetch.Name, ref); err == nil || !strings.Contains(err.Error(), "worker stopping") {
		t.Fatalf("refetch with its worker stopping: %v; want it failed, its pages left to the retry", err)
	}
	if beats == 0 || last.Checked != records {
		t.Fatalf("last heartbeat %+v after %d beats; want the %d pages recorded", last, beats, records)
	}
	a.Store = st
	res := retryRefetch(t, a, ref, last)
	if res.Checked != n {
		t.Errorf("retry: %+v; want all %d claimed pages checked, the stopped attempt's %d included", res, n, records)
	}
	site.checkPolite(t)
}
