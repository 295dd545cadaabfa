package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/index/sqlitefts"
	"focuscrawl/internal/store"
	"focuscrawl/internal/textproc"
)

// checkCrawl verifies the invariants every finished crawl of the test site
// must hold, whatever happened to the workers on the way.
func checkCrawl(t *testing.T, e *env, crawlID, topicName string) []crawllog.Entry {
	t.Helper()
	ctx := context.Background()
	st := e.openStore()
	entries := checkedLog(t, st, crawlID)

	// The accepted set is exactly the site's on-topic pages.
	var accepted []string
	for _, en := range entries {
		if en.Accepted {
			accepted = append(accepted, en.FinalURL)
		}
	}
	sort.Strings(accepted)
	if !equal(accepted, e.site.onTopic) {
		t.Errorf("accepted set differs from the on-topic pages\naccepted: %v\nwant:     %v", accepted, e.site.onTopic)
		for _, en := range entries {
			t.Logf("%3d %-45s %-9s %.3f %s", en.Seq, en.URL, en.Decision, en.Relevance, en.Reason)
		}
	}

	// The awkward pages were recorded with the right error classes, and the
	// robots.txt-disallowed page was never requested: its link is dropped
	// once the site's robots.txt is cached (fetch.Fetcher.RobotsDisallows);
	// a worker that had not read it yet (a slice taken over after a kill)
	// queues it, and the fetch refuses it as before.
	classes := map[string]string{}
	for _, en := range entries {
		classes[en.URL] = en.ErrorClass
	}
	if got, ok := classes["http://www.sport.test/private/secret.html"]; ok && got != "robots" {
		t.Errorf("the robots.txt-disallowed page: error class %q, want robots (or not queued at all)", got)
	}
	for url, want := range map[string]string{
		"http://www.sport.test/team-photo":   "content_type",
		"http://www.sport.test/missing.html": "http_client",
		"http://www.sport.test/loop-a":       "redirect_loop",
	} {
		if got, ok := classes[url]; !ok || got != want {
			t.Errorf("%s: error class %q (logged: %v), want %q", url, got, ok, want)
		}
	}
	if _, ok := classes["http://www.sport.test/photo.jpg"]; ok {
		t.Error("the link to photo.jpg was fetched; an image extension the allowlist refuses is not queued")
	}

	// No claim is left dangling and nothing is left to crawl.
	fs, err := st.FrontierStats(ctx, topicName)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Claimed != 0 || fs.Queued != 0 {
		t.Errorf("frontier after the crawl: %+v, want nothing queued or claimed", fs)
	}

	// The index holds each accepted page exactly once, and search works in
	// both languages.
	ix, err := sqlitefts.Open(e.indexPath(), textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	n, err := ix.Count(ctx, topicName)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(e.site.onTopic) {
		t.Errorf("index holds %d documents, want %d (one per accepted page)", n, len(e.site.onTopic))
	}
	cs, err := st.CrawlStats(ctx, crawlID)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Indexed != cs.Accepted {
		t.Errorf("store says %d indexed of %d accepted", cs.Indexed, cs.Accepted)
	}
	return entries
}

// checkedLog exports a crawl's log and checks what holds for every crawl:
// one entry per fetched URL, seq 1..n, every URL once, every parent fetched
// before its child.
func checkedLog(t *testing.T, st store.Store, crawlID string) []crawllog.Entry {
	t.Helper()
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := crawllog.Export(ctx, st, crawlID, &buf); err != nil {
		t.Fatal(err)
	}
	entries, err := crawllog.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	seqOf := map[string]int64{}
	for i, en := range entries {
		if en.Seq != int64(i+1) {
			t.Fatalf("entry %d has seq %d: the log is not in contiguous fetch order", i, en.Seq)
		}
		if _, dup := seqOf[en.URL]; dup {
			t.Fatalf("%s fetched twice", en.URL)
		}
		seqOf[en.URL] = en.Seq
		if en.Parent != "" {
			ps, ok := seqOf[en.Parent]
			if !ok || ps >= en.Seq {
				t.Fatalf("%s (seq %d) was fetched before its parent %s", en.URL, en.Seq, en.Parent)
			}
		}
	}
	return entries
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCrawlPauseResumeAndResult(t *testing.T) {
	site := newTestSite(t, 40*time.Millisecond)
	// Continue-as-new after every slice, so the crawl spans several workflow
	// runs, including across the pause.
	// Short slices (the first of each run lasts half of one) keep even a
	// fast crawl of this small site over several runs.
	e := newEnv(t, site, "FOCUSCRAWL_CRAWL_SLICES_PER_RUN=1", "FOCUSCRAWL_CRAWL_SLICE=400ms")
	e.startWorker("worker")
	run := e.startCrawl("roses", 200)

	// Pause once the crawl is under way; nothing may be fetched while paused.
	st := e.openStore()
	fetched := func() int {
		cs, err := st.CrawlStats(context.Background(), run.GetID())
		if err != nil {
			return 0
		}
		return cs.Fetched
	}
	eventually(t, 60*time.Second, "the first pages", func() bool { return fetched() >= 3 })
	if err := e.client.SignalWorkflow(context.Background(), run.GetID(), "", crawlapi.SignalPause, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the crawl to pause", func() bool {
		s := e.status(run.GetID())
		return s.Phase == crawlapi.PhasePaused && s.InFlight == 0
	})
	// Resume and pause again at once, as the control signal (what the
	// starter sends): they take effect in the order sent, so the crawl ends
	// up paused. (As separate signals they can reach the workflow in one
	// task and be handled pause first.)
	for _, op := range []string{crawlapi.ControlResume, crawlapi.ControlPause} {
		if err := e.client.SignalWorkflow(context.Background(), run.GetID(), "", crawlapi.SignalControl, op); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 60*time.Second, "the crawl to stay paused", func() bool {
		s := e.status(run.GetID())
		return s.Phase == crawlapi.PhasePaused && s.InFlight == 0
	})
	before, requests := fetched(), site.requests.Load()
	time.Sleep(1500 * time.Millisecond)
	if after := fetched(); after != before || site.requests.Load() != requests {
		t.Fatalf("paused crawl kept working: %d → %d pages, %d → %d requests", before, after, requests, site.requests.Load())
	}
	if c, _ := st.Crawl(context.Background(), run.GetID()); c.State != store.CrawlPaused {
		t.Errorf("store records state %q while paused", c.State)
	}
	if err := e.client.SignalWorkflow(context.Background(), run.GetID(), "", crawlapi.SignalControl, crawlapi.ControlResume); err != nil {
		t.Fatal(err)
	}

	res := e.wait(run, 3*time.Minute)
	if res.Phase != crawlapi.PhaseCompleted || res.Reason != "frontier exhausted" {
		t.Fatalf("crawl ended %s (%s), want completed (frontier exhausted)", res.Phase, res.Reason)
	}
	if res.Runs < 3 {
		t.Errorf("crawl used %d workflow runs; with slices_per_run=1 it must continue as new several times", res.Runs)
	}
	entries := checkCrawl(t, e, run.GetID(), "roses")
	if res.Accepted != len(site.onTopic) || res.Fetched != len(entries) {
		t.Errorf("workflow counters: accepted %d fetched %d; log: %d entries, %d on topic",
			res.Accepted, res.Fetched, len(entries), len(site.onTopic))
	}
	// GBK pages came out as proper Chinese.
	for _, en := range entries {
		if en.Charset == "gbk" && en.Accepted && !bytes.Contains([]byte(en.Title), []byte("玫瑰")) {
			t.Errorf("GBK page %s has title %q", en.URL, en.Title)
		}
	}
}

func TestBudgetStopsCrawl(t *testing.T) {
	site := newTestSite(t, 0)
	e := newEnv(t, site)
	e.startWorker("worker")
	run := e.startCrawl("roses-budget", 10)
	res := e.wait(run, 2*time.Minute)
	if res.Reason != "page budget reached" || res.Fetched != 10 {
		t.Fatalf("crawl ended %q after %d pages, want page budget reached after 10", res.Reason, res.Fetched)
	}
	// Best-first: the on-topic garden pages come first, so nearly every page of
	// a small budget is relevant (the seed's hub links to 12 rose pages).
	if res.Accepted < 8 {
		t.Errorf("only %d of the first 10 pages accepted; best-first should prefer rose pages", res.Accepted)
	}
}

// TestCrawlStartIsWhenStarted: a crawl started while no worker runs
// starts when it was started, not when a worker first runs it — the
// status and the crawl's row both (a new user's trial: a crawl that waited
// over a minute for its worker said "completed after 9s").
func TestCrawlStartIsWhenStarted(t *testing.T) {
	site := newTestSite(t, 0)
	e := newEnv(t, site)
	run := e.startCrawl("roses-late-worker", 5)
	time.Sleep(3 * time.Second)
	workerAt := time.Now()
	e.startWorker("worker")
	res := e.wait(run, 2*time.Minute)
	if res.Phase != crawlapi.PhaseCompleted {
		t.Fatalf("crawl ended %s (%s)", res.Phase, res.Reason)
	}
	if !res.StartedAt.Before(workerAt.Add(-2 * time.Second)) {
		t.Errorf("crawl state started at %s, the worker at %s: want the workflow's start, 3 s before the worker", res.StartedAt, workerAt)
	}
	c, err := e.openStore().Crawl(context.Background(), run.GetID())
	if err != nil {
		t.Fatal(err)
	}
	if !c.StartedAt.Equal(res.StartedAt) {
		t.Errorf("crawl row started at %s, the crawl's state at %s: want the same", c.StartedAt, res.StartedAt)
	}
}

func TestKillWorkerMidCrawlLosesNothing(t *testing.T) {
	site := newTestSite(t, 120*time.Millisecond)
	e := newEnv(t, site)
	killA := e.startWorker("worker-a")
	run := e.startCrawl("roses-kill", 200)
	st := e.openStore()
	eventually(t, 60*time.Second, "the crawl to get going", func() bool {
		cs, err := st.CrawlStats(context.Background(), run.GetID())
		return err == nil && cs.Fetched >= 8
	})
	killA() // SIGKILL in the middle of batches
	e.startWorker("worker-b")
	res := e.wait(run, 4*time.Minute)
	if res.Phase != crawlapi.PhaseCompleted {
		t.Fatalf("crawl ended %s (%s)", res.Phase, res.Reason)
	}
	entries := checkCrawl(t, e, run.GetID(), "roses-kill")
	// Every URL of the site that the crawl could reach was fetched exactly once.
	seen := map[string]bool{}
	for _, en := range entries {
		seen[en.URL] = true
	}
	for _, u := range site.onTopic {
		if !seen[u] {
			t.Errorf("on-topic page %s never fetched after the worker was killed", u)
		}
	}
}

// TestStoppedWorkerHandsOver: a worker sent SIGTERM in the middle of a
// crawl slice (docker compose stop, a Kubernetes rollout) ends that slice
// itself — it claims nothing more, saves and judges the pages it has in
// flight and reports — and exits; the workflow's next slice runs on another
// worker. Before crawl.stop_timeout the slice was cancelled at once and
// retried (a second attempt after its heartbeat timed out), and the
// requests it had in flight were sent again.
func TestStoppedWorkerHandsOver(t *testing.T) {
	site := newTestSite(t, 300*time.Millisecond)
	e := newEnv(t, site)
	// A long slice: the SIGTERM lands inside it, not between two slices.
	a := e.startWorkerProc("worker-a", "FOCUSCRAWL_CRAWL_SLICE=5m", "FOCUSCRAWL_CRAWL_STOP_TIMEOUT=30s",
		"FOCUSCRAWL_LOG_LEVEL=info")
	run := e.startCrawl("roses-stop", 200)
	st := e.openStore()
	eventually(t, 60*time.Second, "the crawl to get going", func() bool {
		cs, err := st.CrawlStats(context.Background(), run.GetID())
		return err == nil && cs.Fetched >= 6
	})
	exited, err := a.terminate(25 * time.Second)
	if !exited {
		t.Fatal("worker-a still running 25 s after SIGTERM (crawl.stop_timeout 30 s: its slice did not end by itself)")
	}
	if err != nil {
		t.Errorf("worker-a exited with %v after SIGTERM; want status 0", err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "worker-a.log")); !strings.Contains(string(b), "worker stopping") {
		t.Errorf("worker-a's log does not say its slice ended for the stop:\n%s", tail(string(b), 2000))
	}
	e.startWorker("worker-b")
	res := e.wait(run, 4*time.Minute)
	if res.Phase != crawlapi.PhaseCompleted {
		t.Fatalf("crawl ended %s (%s)", res.Phase, res.Reason)
	}
	// No slice was retried: worker-a's ended with a result, not a failure
	// or a heartbeat timeout.
	if retries := sliceRetries(t, e, run.GetID(), run.GetRunID()); len(retries) != 1 || !strings.HasPrefix(retries[0], "no activity") {
		t.Errorf("activities retried after the graceful stop:\n%s", strings.Join(retries, "\n"))
	}
	checkCrawl(t, e, run.GetID(), "roses-stop")
	// Nothing was requested twice: the pages worker-a had in flight were
	// processed by it, not fetched again by the next slice.
	checkNoPageRequestedTwice(t, site)
}

// checkNoPageRequestedTwice fails the test for every page of site that was
// requested more than once (robots.txt is read by each worker; a
// redirect's target is requested through the redirect and through its own
// links, and the redirect loop requests its pages in turn: not counted).
func checkNoPageRequestedTwice(t *testing.T, site *testSite) {
	t.Helper()
	redirected := map[string]bool{}
	for hostPath, p := range site.pages {
		if p.location != "" {
			host, _, _ := strings.Cut(hostPath, "/")
			redirected[host+p.location] = true
		}
	}
	counts := map[string]int{}
	for _, r := range site.requestLog() {
		if !strings.HasSuffix(r.Path, "robots.txt") && !redirected[r.Host+r.Path] {
			counts[r.Host+r.Path]++
		}
	}
	for p, n := range counts {
		if n > 1 {
			t.Errorf("%s requested %d times", p, n)
		}
	}
}

// TestLiveProgress: a crawl's status shows pages fetched while its first
// slice is still running, a few seconds behind the fetches (from the
// slice's heartbeats, which the worker sends at most
// crawlworker.HeartbeatEvery apart), not only once a slice reports to the
// workflow. With the SDK's default throttling (80% of the 20 s heartbeat
// timeout) a slice's first heartbeat showed 0 and the next came 16 s later.
func TestLiveProgress(t *testing.T) {
	site := newTestSite(t, 700*time.Millisecond)
	// The default heartbeat timeout (the other tests use 3 s, whose
	// throttling is short anyway).
	e := newEnv(t, site, "FOCUSCRAWL_CRAWL_PIPELINES=1", "FOCUSCRAWL_CRAWL_SLICE=5m", "FOCUSCRAWL_CRAWL_HEARTBEAT_TIMEOUT=20s")
	e.startWorker("worker")
	run := e.startCrawl("roses", 200)
	eventually(t, 2*time.Minute, "four requests to the site", func() bool { return site.requests.Load() >= 4 })
	// 10 s: well above HeartbeatEvery's worst case (two intervals), well
	// below the default throttling's 16 s.
	var last *crawlapi.CrawlState
	eventually(t, 10*time.Second, "the status to show fetched pages", func() bool {
		last = e.status(run.GetID())
		return last.Fetched > 0
	})
	if last.InFlight == 0 || last.Phase != crawlapi.PhaseCrawling {
		t.Errorf("the first status with pages fetched (%d) came with %d slices in flight, phase %s: progress appeared only after the slice ended",
			last.Fetched, last.InFlight, last.Phase)
	}
	// The frontier too: the workflow's own count is the one seed until the
	// slice ends; the slice's heartbeat reads the store's.
	eventually(t, 20*time.Second, "the status to show the links queued so far", func() bool {
		last = e.status(run.GetID())
		return last.Queued > 1 && last.InFlight > 0
	})
	if res := e.wait(run, 3*time.Minute); res.Phase != crawlapi.PhaseCompleted {
		t.Fatalf("crawl ended %s (%s)", res.Phase, res.Reason)
	}
}
