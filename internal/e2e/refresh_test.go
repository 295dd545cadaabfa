package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/index/sqlitefts"
	"focuscrawl/internal/store"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/urlnorm"
)

// changingSite is a small rose site whose pages can be edited, removed and
// added while the test runs. It answers conditional requests (ETag) with
// 304 and counts requests and 304s per path.
type changingSite struct {
	addr  string
	mu    sync.Mutex
	pages map[string]string // path → HTML; absent = 404
	reqs  map[string]int
	n304  map[string]int
	// hold blocks requests for /hold until released: a crawl seeded there
	// stays running while a test signals it.
	hold    chan struct{}
	release func()
	// stall, when set, is a path whose requests get no answer until their
	// client gives up or hold is released; stalled hears of each.
	stall   string
	stalled chan struct{}
}

func newChangingSite(t *testing.T) *changingSite {
	s := &changingSite{pages: map[string]string{}, reqs: map[string]int{}, n304: map[string]int{}, hold: make(chan struct{}),
		stalled: make(chan struct{}, 1)}
	var once sync.Once
	s.release = func() { once.Do(func() { close(s.hold) }) }
	var links [][2]string
	for i := 1; i <= 6; i++ {
		links = append(links, [2]string{fmt.Sprintf("/r/%d.html", i), "rose care " + sentence(roseWords, i, 2, " ")})
		s.pages[fmt.Sprintf("/r/%d.html", i)] = htmlPage(fmt.Sprintf("Roses %d", i), "", sentence(roseWords, i, 80, " "), [][2]string{{"/", "home"}})
	}
	s.pages["/"] = htmlPage("Rose garden news", "", sentence(roseWords, 0, 60, " "), links)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(s.serve)}
	go srv.Serve(ln)
	t.Cleanup(func() { s.release(); srv.Close() })
	return s
}

func (s *changingSite) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/hold" {
		<-s.hold
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	stall := s.stall
	s.mu.Unlock()
	if stall != "" && r.URL.Path == stall {
		select {
		case s.stalled <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-s.hold:
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	s.reqs[r.URL.Path]++
	body, ok := s.pages[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256([]byte(body))
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		s.n304[r.URL.Path]++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	w.Write([]byte(body))
}

func (s *changingSite) edit(fn func(pages map[string]string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.pages)
	s.reqs, s.n304 = map[string]int{}, map[string]int{}
}

func (s *changingSite) counts(path string) (reqs, n304 int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[path], s.n304[path]
}

const refreshTopic = `name: rosenews
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8}
seeds: [http://www.news.test/]
limits: {max_pages: 20}
strategy: {page_filter: {name: vsm, threshold: 0.12}, link_predictor: best-first}
`

// TestScheduledRefresh crawls a site, edits it (one page changed with a new
// link, one removed, one turned off topic), creates a Temporal Schedule with
// a short interval and checks that its first run re-indexes the changed
// page, removes the gone and the off-topic page from the index, enqueues
// the new link, and costs every unchanged page exactly one conditional
// request answered 304.
func TestScheduledRefresh(t *testing.T) {
	site := newChangingSite(t)
	e := newEnv(t, &testSite{addr: site.addr},
		"FOCUSCRAWL_REFRESH_MIN_INTERVAL=1s", "FOCUSCRAWL_REFRESH_INITIAL_INTERVAL=1s",
		"FOCUSCRAWL_REFRESH_MAX_INTERVAL=1h")
	e.startWorker("w1")
	ctx := context.Background()

	run := e.startTopic("rosenews", refreshTopic)
	cs := e.wait(run, 40*time.Second)
	if cs.Accepted != 7 || cs.Indexed != 7 {
		t.Fatalf("initial crawl accepted %d, indexed %d; want all 7 rose pages", cs.Accepted, cs.Indexed)
	}
	// The crawl is findable by its search attributes.
	eventually(t, 10*time.Second, "the crawl in a search-attribute query", func() bool {
		// Scoped to this run: the dev server outlives a test (go test -count=2
		// ran this test twice against one server, and found two crawls).
		q := fmt.Sprintf(`FocuscrawlTopic = "rosenews" AND FocuscrawlKind = "crawl" AND RunId = %q`, run.GetRunID())
		resp, err := e.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q})
		return err == nil && len(resp.Executions) == 1
	})

	site.edit(func(p map[string]string) {
		p["/r/1.html"] = htmlPage("Roses 1 revised", "", sentence(roseWords, 9, 90, " "),
			[][2]string{{"/", "home"}, {"/r/7.html", "new rose pruning guide"}})
		delete(p, "/r/2.html")
		p["/r/3.html"] = htmlPage("Match report", "", sentence(sportWords, 3, 80, " "), nil)
		p["/r/7.html"] = htmlPage("Roses 7", "", sentence(roseWords, 7, 80, " "), nil)
	})
	time.Sleep(1100 * time.Millisecond) // the pages' initial revisit interval (1s) passes

	sc := e.client.ScheduleClient()
	// One run, at once: with a schedule every few seconds, a second run
	// could start before the pause below on a loaded machine (CI saw it),
	// and revisit every page again.
	h, err := sc.Create(ctx, client.ScheduleOptions{
		ID:                 "focuscrawl/rosenews-" + e.taskQueue,
		Spec:               client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: time.Hour}}},
		TriggerImmediately: true,
		Overlap:            enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		Action: &client.ScheduleWorkflowAction{
			ID: "refresh/rosenews/scheduled", Workflow: crawlapi.RefreshWorkflow.Name, TaskQueue: e.taskQueue,
			Args:                  []any{crawlapi.RefreshInput{Topic: "rosenews"}},
			TypedSearchAttributes: crawlapi.SearchAttributes(crawlapi.KindRefresh, "rosenews"),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Delete(ctx)
	var refreshID string
	eventually(t, 15*time.Second, "the schedule's first run", func() bool {
		d, err := h.Describe(ctx)
		if err != nil || len(d.Info.RecentActions) == 0 {
			return false
		}
		refreshID = d.Info.RecentActions[0].StartWorkflowResult.WorkflowID
		return true
	})
	if err := h.Pause(ctx, client.SchedulePauseOptions{Note: "test: one run is enough"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(refreshID, "refresh/rosenews/scheduled-") {
		t.Errorf("scheduled workflow ID %q; want refresh/rosenews/scheduled-<time>", refreshID)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var rs crawlapi.RefreshState
	if err := e.client.GetWorkflow(wctx, refreshID, "").Get(wctx, &rs); err != nil {
		t.Fatalf("refresh %s: %v", refreshID, err)
	}
	t.Logf("refresh: %+v", rs)
	// It ends saying when the next page is due (NextRefresh, after the
	// pages it rescheduled), and names the crawl store it read.
	if !strings.HasPrefix(rs.Reason, "no more pages due; the next page is due at ") || rs.Outlook == nil ||
		rs.Outlook.Refreshable == 0 || rs.Store == "" || rs.TopicStoredAt.IsZero() {
		t.Errorf("refresh ended (%s), outlook %+v, store %q, topic stored %v; want the next due time, the store and the topic's stored time",
			rs.Reason, rs.Outlook, rs.Store, rs.TopicStoredAt)
	}
	if rs.Checked != 7 || rs.Changed != 2 || rs.Gone != 1 || rs.NotModified != 4 || rs.Removed != 2 || rs.Kept != 1 {
		t.Errorf("refresh counts: checked %d changed %d gone %d 304 %d removed %d kept %d; want 7, 2, 1, 4, 2, 1",
			rs.Checked, rs.Changed, rs.Gone, rs.NotModified, rs.Removed, rs.Kept)
	}
	// Unchanged pages cost one conditional request each, answered 304.
	for _, p := range []string{"/", "/r/4.html", "/r/5.html", "/r/6.html"} {
		if reqs, n304 := site.counts(p); reqs != 1 || n304 != 1 {
			t.Errorf("%s: %d requests, %d answered 304; want exactly 1 conditional request", p, reqs, n304)
		}
	}
	st := e.openStore()
	page := func(path string) store.Page {
		u := "http://www.news.test" + path
		p, err := st.Page(ctx, "rosenews", urlnorm.Hash(u))
		if err != nil {
			t.Fatalf("page %s: %v", u, err)
		}
		return p
	}
	if p := page("/r/1.html"); p.Decision != store.DecisionAccepted || !p.Indexed || p.Title != "Roses 1 revised" {
		t.Errorf("changed page: %s indexed=%v title %q; want re-judged accepted, re-indexed with the new title", p.Decision, p.Indexed, p.Title)
	}
	if p := page("/r/2.html"); p.Indexed || p.Status != 404 {
		t.Errorf("removed page: status %d indexed=%v; want 404, out of the index", p.Status, p.Indexed)
	}
	// Its own score is 0 and its rose in-linkers lift the mix above the
	// filter's threshold: not accepted, and expanded (tunnel) as any page
	// with no score of its own is, unless a split of the crawl's scores
	// turns it down (rejected), which depends on the crawl's other scores.
	if p := page("/r/3.html"); (p.Decision != store.DecisionRejected && p.Decision != store.DecisionTunnel) || p.Indexed {
		t.Errorf("off-topic page: %s indexed=%v relevance %.3f; want rejected or tunnel, out of the index", p.Decision, p.Indexed, p.Relevance)
	}
	ix, err := sqlitefts.Open(e.indexPath(), textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, err := ix.Count(ctx, "rosenews"); err != nil || n != 5 {
		t.Errorf("index holds %d documents (%v); want 5 (7 − gone − off topic)", n, err)
	}
	if res, err := ix.Search(ctx, index.Query{Text: "revised", Topic: "rosenews", Limit: 5}); err != nil || len(res.Hits) != 1 {
		t.Errorf("search for the changed page's new title: %v, %v; want 1 hit", res.Hits, err)
	}
	// The new link found on the changed page entered the frontier.
	if _, err := st.Page(ctx, "rosenews", urlnorm.Hash("http://www.news.test/r/7.html")); err == nil {
		t.Log("page 7 was fetched by a crawl continuation")
	} else if fs, err := st.FrontierStats(ctx, "rosenews"); err != nil || fs.Queued != 1 {
		t.Errorf("frontier after the refresh: %+v, %v; want the new link queued", fs, err)
	}
	// An unchanged page waits longer for its next revisit than a changed
	// one. Compared by interval, not by NextAt: NextAt counts from when each
	// page was checked, and a changed page is re-parsed and re-indexed
	// before its bookkeeping is written, so on a loaded machine its check can
	// end more than the intervals' difference after the unchanged page's.
	ri1, _ := st.RefreshInfo(ctx, "rosenews", urlnorm.Hash("http://www.news.test/r/1.html"))
	ri4, _ := st.RefreshInfo(ctx, "rosenews", urlnorm.Hash("http://www.news.test/r/4.html"))
	if ri1.Changes != 1 || ri4.Changes != 0 || ri4.Checks != 1 || ri1.Interval >= ri4.Interval {
		t.Errorf("refresh bookkeeping: changed %+v, unchanged %+v; want the changed page's revisit interval shorter", ri1, ri4)
	}
}

// TestCancelledRefreshReleasesBatch: a refresh cancelled while its batch's
// Refetch waits for a page that does not answer ends Canceled once that
// Refetch has ended — the release is scheduled after Refetch's end in the
// workflow's history, so no revisit of the batch writes after it — and the
// pages the batch had not recorded (the one it waited for, those it had
// not reached) are claimable at once, keeping the batch's ID. Before, they
// stayed held for crawl.lease (15m) and were then taken again only
// refresh.min_interval (here 1h) later. The workflow test environment
// resolves a cancelled activity at once, so only a real server shows the
// order.
func TestCancelledRefreshReleasesBatch(t *testing.T) {
	e, id, runID := cancelRefreshWhileFetching(t)
	ctx := context.Background()
	// In the history: Refetch's end, then the release.
	refetches := map[int64]bool{}
	refetchEnded, released := false, false
	it := e.client.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		var scheduled int64
		switch {
		case ev.GetActivityTaskScheduledEventAttributes() != nil:
			switch ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() {
			case crawlapi.Refetch.Name:
				refetches[ev.GetEventId()] = true
			case crawlapi.ReleaseRefresh.Name:
				if !refetchEnded {
					t.Errorf("ReleaseRefresh scheduled (event %d) before Refetch ended", ev.GetEventId())
				}
				released = true
			}
		case ev.GetActivityTaskCompletedEventAttributes() != nil:
			scheduled = ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()
		case ev.GetActivityTaskFailedEventAttributes() != nil:
			scheduled = ev.GetActivityTaskFailedEventAttributes().GetScheduledEventId()
		case ev.GetActivityTaskCanceledEventAttributes() != nil:
			scheduled = ev.GetActivityTaskCanceledEventAttributes().GetScheduledEventId()
		case ev.GetActivityTaskTimedOutEventAttributes() != nil:
			scheduled = ev.GetActivityTaskTimedOutEventAttributes().GetScheduledEventId()
		}
		if refetches[scheduled] {
			refetchEnded = true
		}
	}
	if !released {
		t.Error("no ReleaseRefresh in the cancelled refresh's history")
	}

	// The batch's unrecorded pages: still its, released — no longer held,
	// so none to read as the batch's — and claimable now, as the worker's
	// claims judge (crawl.lease 15m, retry delay 1h).
	st := e.openStore()
	ri, err := st.RefreshInfo(ctx, "rosenews", urlnorm.Hash(stalledURL))
	if err != nil || ri.BatchID == "" {
		t.Fatalf("the page that did not answer: %+v, %v; want it still the cancelled batch's", ri, err)
	}
	if items, err := st.RefreshBatch(ctx, "rosenews", ri.BatchID); err != nil || len(items) != 0 {
		t.Errorf("RefreshBatch of the cancelled batch = %d pages, %v; want none: it released them", len(items), err)
	}
	n, err := st.ClaimRefresh(ctx, store.RefreshClaim{Topic: "rosenews", BatchID: "after-cancel", Max: 100,
		Lease: 15 * time.Minute, Now: time.Now(), NewPageDelay: time.Hour, RetryDelay: time.Hour, RetryMax: 2 * time.Hour})
	if err != nil || n == 0 {
		t.Fatalf("a claim after the cancel took %d pages (%v); want the cancelled batch's unrecorded ones", n, err)
	}
	// Each page it took is one the cancelled batch held (its claim counted
	// failed: the batch ID was kept), the stalled one among them.
	items, err := st.RefreshBatch(ctx, "rosenews", "after-cancel")
	if err != nil {
		t.Fatal(err)
	}
	stalled := false
	for _, it := range items {
		stalled = stalled || it.Page.URL == stalledURL
		if it.Refresh.Failures != 1 {
			t.Errorf("page %s taken after the cancel: %d failed claims; want 1, the cancelled batch's", it.Page.URL, it.Refresh.Failures)
		}
	}
	if len(items) != n || !stalled {
		t.Errorf("a claim after the cancel took %d pages, %d read back, the stalled one among them %v; want it among all", n, len(items), stalled)
	}
}

// stalledURL is the page cancelRefreshWhileFetching's site does not answer.
const stalledURL = "http://www.news.test/r/3.html"

// cancelRefreshWhileFetching crawls the changing site's rosenews topic
// with a worker whose retry delay (refresh.min_interval) is an hour,
// starts a refresh of every page (starter refresh --all: the retry delay is
// at least the initial revisit interval), cancels it while its Refetch
// waits for stalledURL, which does not answer, and waits for the run to
// close Canceled (fatal otherwise). It returns the environment and the
// refresh's workflow and run IDs. TestCancelledRefreshReleasesBatch checks
// the run; TestRecordHistories records its history, which takes the
// refresh-release-canceled-batch branch.
func cancelRefreshWhileFetching(t *testing.T) (*env, string, string) {
	t.Helper()
	site := newChangingSite(t)
	e := newEnv(t, &testSite{addr: site.addr}, "FOCUSCRAWL_REFRESH_MIN_INTERVAL=1h",
		"FOCUSCRAWL_REFRESH_INITIAL_INTERVAL=1h", "FOCUSCRAWL_REFRESH_MAX_INTERVAL=2h")
	e.startWorker("worker")
	ctx := context.Background()
	if cs := e.wait(e.startTopic("rosenews", refreshTopic), 40*time.Second); cs.Accepted == 0 {
		t.Fatalf("initial crawl accepted nothing: %+v", cs)
	}
	site.mu.Lock()
	site.stall = strings.TrimPrefix(stalledURL, "http://www.news.test")
	site.mu.Unlock()
	id := "refresh/rosenews/" + e.taskQueue
	run, err := e.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: e.taskQueue},
		crawlapi.RefreshWorkflow.Name, crawlapi.RefreshInput{Topic: "rosenews", All: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.client.TerminateWorkflow(ctx, id, "", "test over") })
	select {
	case <-site.stalled:
	case <-time.After(60 * time.Second):
		t.Fatal("the refresh never asked for the page that does not answer")
	}
	if err := e.client.CancelWorkflow(ctx, id, run.GetRunID()); err != nil {
		t.Fatal(err)
	}
	if status := closedRun(t, e, id, run.GetRunID(), 90*time.Second); status != enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED {
		t.Fatalf("refresh closed %s; want CANCELED", status)
	}
	return e, id, run.GetRunID()
}
