package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/store"
)

// closedRun waits until the workflow run id/runID is closed and returns its
// status. It follows no continue-as-new: a run that continued as new is
// closed, as CONTINUED_AS_NEW.
func closedRun(t *testing.T, e *env, id, runID string, timeout time.Duration) enums.WorkflowExecutionStatus {
	t.Helper()
	var status enums.WorkflowExecutionStatus
	eventually(t, timeout, "the run to close", func() bool {
		desc, err := e.client.DescribeWorkflowExecution(context.Background(), id, runID)
		if err != nil {
			return false
		}
		status = desc.GetWorkflowExecutionInfo().GetStatus()
		return status != enums.WORKFLOW_EXECUTION_STATUS_RUNNING
	})
	return status
}

// cancelWhileFetching starts a crawl of the site's topic on e (with a
// worker), cancels it from outside once it has fetched two pages and waits
// for the run to close, returning the run and its closing status. The
// workflow is terminated when the test ends, should a later run of it
// still be going (a run from before a cancel ended the crawl continued as
// new).
func cancelWhileFetching(t *testing.T, e *env, topicName string) (crawlRun, enums.WorkflowExecutionStatus) {
	t.Helper()
	ctx := context.Background()
	run := e.startCrawl(topicName, 200)
	id := run.GetID()
	st := e.openStore()
	eventually(t, 60*time.Second, "the crawl to fetch", func() bool {
		cs, err := st.CrawlStats(ctx, id)
		return err == nil && cs.Fetched >= 2
	})
	if err := e.client.CancelWorkflow(ctx, id, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.client.TerminateWorkflow(ctx, id, "", "test over") })
	return run, closedRun(t, e, id, run.GetRunID(), 90*time.Second)
}

// TestCancelledCrawlEnds: a crawl cancelled from outside (the UI's Cancel,
// `temporal workflow cancel`) while its slices fetch ends Canceled, in
// that run: its slices are cancelled and waited for, the entries they had
// claimed and not fetched go back to the queue, and the store records the
// crawl canceled. Before, it relaunched slices that failed at once and
// continued as new, uncancelled.
func TestCancelledCrawlEnds(t *testing.T) {
	e := newEnv(t, newTestSite(t, 300*time.Millisecond))
	e.startWorker("worker")
	run, status := cancelWhileFetching(t, e, "roses-cancel")
	if status != enums.WORKFLOW_EXECUTION_STATUS_CANCELED {
		t.Fatalf("crawl run closed %s; want CANCELED", status)
	}
	ctx, st := context.Background(), e.openStore()
	if c, err := st.Crawl(ctx, run.GetID()); err != nil || c.State != store.CrawlCanceled {
		t.Errorf("crawl's row: %+v, %v; want state %q", c, err, store.CrawlCanceled)
	}
	if fs, err := st.FrontierStats(ctx, "roses-cancel"); err != nil || fs.Claimed != 0 || fs.Queued == 0 {
		t.Errorf("frontier %+v, %v; want no entry left claimed, the rest queued", fs, err)
	}
}

// TestCancelDuringStart: a crawl cancelled while StartCrawl runs — after it
// made the crawl's row, while it reads the seed host's sitemap, which
// hangs — ends Canceled only once StartCrawl has ended, with the row
// recorded canceled. Before, the workflow ended at once and StartCrawl,
// finishing after it, left the row "running" until the topic's next crawl
// (the workflow test environment resolves a cancelled activity at once, so
// only a real server shows the wait).
func TestCancelDuringStart(t *testing.T) {
	site := newTestSite(t, 0)
	e, run := cancelDuringStart(t, site, "roses-cancel-start")
	if c, err := e.openStore().Crawl(context.Background(), run.GetID()); err != nil || c.State != store.CrawlCanceled {
		t.Errorf("crawl's row after the cancel: %+v, %v; want state %q", c, err, store.CrawlCanceled)
	}
}

// cancelDuringStart starts a worker and a crawl of topicName on site whose
// seed host's sitemap hangs, cancels the crawl while StartCrawl reads it
// (after StartCrawl made the crawl's row, which it checks), and waits for
// the run to close Canceled (fatal otherwise). TestCancelDuringStart checks
// the row; TestRecordHistories records the run's history, the one that
// takes the cancel-during-start branch.
func cancelDuringStart(t *testing.T, site *testSite, topicName string) (*env, crawlRun) {
	t.Helper()
	site.pages["www.garden.test/robots.txt"] = sitePage{body: []byte("User-agent: *\nSitemap: http://www.garden.test/sitemap.xml\n"),
		contentType: "text/plain", status: 200}
	site.pages["www.garden.test/sitemap.xml"] = sitePage{body: []byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://www.garden.test/</loc></url></urlset>`),
		contentType: "application/xml", status: 200}
	release := make(chan struct{})
	reading := make(chan struct{}, 1)
	site.mu.Lock()
	site.onArrive = func(r siteRequest) {
		if r.Path == "/sitemap.xml" {
			select {
			case reading <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-time.After(30 * time.Second):
			}
		}
	}
	site.mu.Unlock()
	t.Cleanup(func() { close(release) })
	e := newEnv(t, site)
	e.startWorker("worker")
	run := e.startTopic(topicName, site.topicYAML(topicName, 20)+"sitemaps: true\n")
	select {
	case <-reading:
	case <-time.After(60 * time.Second):
		t.Fatal("StartCrawl never asked for the sitemap")
	}
	ctx, st := context.Background(), e.openStore()
	if c, err := st.Crawl(ctx, run.GetID()); err != nil || c.State != store.CrawlRunning {
		t.Fatalf("crawl's row while StartCrawl reads the sitemap: %+v, %v; want it made, running", c, err)
	}
	if err := e.client.CancelWorkflow(ctx, run.GetID(), ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.client.TerminateWorkflow(ctx, run.GetID(), "", "test over") })
	if status := closedRun(t, e, run.GetID(), run.GetRunID(), 90*time.Second); status != enums.WORKFLOW_EXECUTION_STATUS_CANCELED {
		t.Fatalf("crawl run closed %s; want CANCELED", status)
	}
	// 'starter crawl --wait' tells a cancelled crawl from a failed one by
	// this type (crawlctl.endedError).
	var canceled *temporal.CanceledError
	if err := run.Get(ctx, nil); !errors.As(err, &canceled) {
		t.Errorf("cancelled crawl's result: %v (%T); want a *temporal.CanceledError in it", err, err)
	}
	return e, run
}
