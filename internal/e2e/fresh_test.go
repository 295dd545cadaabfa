package e2e

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/crawlctl"
	"focuscrawl/internal/store"
)

// TestFreshRefusedWhileRunning: `starter crawl --fresh` refuses to wipe a
// topic's state while a crawl or a refresh of the topic runs, naming it.
// Before, a running refresh was not looked for, and its batches went on
// against pages the wipe had deleted. The workflows here run on a task
// queue no worker polls, so they stay running, untouched, until terminated.
func TestFreshRefusedWhileRunning(t *testing.T) {
	e := newEnv(t, nil)
	topicFile := roseTopicFile(t, e.dir, "frtopic")
	ctx := context.Background()
	idle := "idle-" + e.taskQueue
	for _, tc := range []struct {
		kind, id string
		start    func(client.StartWorkflowOptions) error
	}{
		{crawlapi.KindRefresh, "refresh/frtopic/" + e.taskQueue, func(o client.StartWorkflowOptions) error {
			_, err := crawlapi.RefreshWorkflow.Start(ctx, e.client, o, crawlapi.RefreshInput{Topic: "frtopic"})
			return err
		}},
		{crawlapi.KindCrawl, "crawl/frtopic/" + e.taskQueue, func(o client.StartWorkflowOptions) error {
			_, err := crawlapi.TopicCrawlWorkflow.Start(ctx, e.client, o, crawlapi.CrawlInput{TopicYAML: "name: frtopic"})
			return err
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			if err := tc.start(client.StartWorkflowOptions{ID: tc.id, TaskQueue: idle,
				TypedSearchAttributes: crawlapi.SearchAttributes(tc.kind, "frtopic")}); err != nil {
				t.Fatal(err)
			}
			started := []string{tc.id}
			defer func() {
				for _, id := range started {
					e.client.TerminateWorkflow(ctx, id, "", "test over")
				}
				// The next case must not find these still running.
				eventually(t, 15*time.Second, "no workflow of frtopic running in visibility", func() bool {
					resp, err := e.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
						Query: "FocuscrawlTopic = 'frtopic' AND ExecutionStatus = 'Running'"})
					return err == nil && len(resp.GetExecutions()) == 0
				})
			}()
			eventually(t, 15*time.Second, "the workflow in visibility", func() bool {
				resp, err := e.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
					Query: "WorkflowId = '" + tc.id + "' AND ExecutionStatus = 'Running'"})
				return err == nil && len(resp.GetExecutions()) == 1
			})
			err := cli.Run(ctx, "starter", "", crawlctl.Commands(), []string{"crawl", "--topic", topicFile, "--fresh",
				"--id", "crawl/frtopic/never-" + e.taskQueue,
				"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + idle})
			if err == nil || !strings.Contains(err.Error(), tc.id+" is running") {
				t.Errorf("crawl --fresh = %v; want it refused, naming %s", err, tc.id)
			}
			// Without --fresh the crawl starts, warning that it shares the
			// topic's frontier with the running one. In a trial a second
			// crawl started without a word, took the topic's site and left
			// the first one the off-site links.
			again := "crawl/frtopic/again-" + tc.kind + "-" + e.taskQueue
			warn := captureStderr(t, func() {
				err = cli.Run(ctx, "starter", "", crawlctl.Commands(), []string{"crawl", "--topic", topicFile, "--id", again,
					"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + idle})
			})
			if err != nil {
				t.Fatalf("crawl while %s runs: %v", tc.id, err)
			}
			started = append(started, again)
			if !strings.Contains(warn, "warning: "+tc.kind+" "+tc.id+" of topic frtopic is still running") {
				t.Errorf("crawl while %s runs warned %q; want a warning naming it", tc.id, warn)
			}
			// The same --id again is refused first, without the warning
			// that "this crawl shares the topic's frontier".
			warn = captureStderr(t, func() {
				err = cli.Run(ctx, "starter", "", crawlctl.Commands(), []string{"crawl", "--topic", topicFile, "--id", again,
					"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + idle})
			})
			if err == nil || !strings.Contains(err.Error(), "crawl "+again+" is already running") || strings.Contains(warn, "warning:") {
				t.Errorf("crawl --id %s again: %v, stderr %q; want it refused as running, without a warning", again, err, warn)
			}
		})
	}
}

// captureStderr runs f with os.Stderr going to a pipe and returns what f
// wrote there.
func captureStderr(t *testing.T, f func()) string { return capture(t, &os.Stderr, f) }

// capture runs f with *file (os.Stdout or os.Stderr) going to a pipe and
// returns what f wrote there.
func capture(t *testing.T, file **os.File, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := *file
	*file = w
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	defer func() { *file = saved }()
	f()
	w.Close()
	return <-out
}

// TestCrawlIDTaken: `starter crawl` under the ID of a running crawl said
// "crawl started" and started nothing (the SDK hands back the running
// crawl; two crawls started within one second share the default ID), and
// under an ended crawl's ID it started a workflow that StartCrawl failed.
// Both are refused now, saying which case it is. The crawls run on a task
// queue no worker polls.
func TestCrawlIDTaken(t *testing.T) {
	e := newEnv(t, nil)
	topicFile := roseTopicFile(t, e.dir, "idtaken")
	ctx := context.Background()
	idle, id := "idle-"+e.taskQueue, "crawl/idtaken/"+e.taskQueue
	crawl := func() error { return starterCrawl(t, topicFile, idle, id) }
	if err := crawl(); err != nil {
		t.Fatal(err)
	}
	defer e.client.TerminateWorkflow(ctx, id, "", "test over")
	if err := crawl(); err == nil || !strings.Contains(err.Error(), "already running, nothing was started") {
		t.Errorf("crawl under a running crawl's ID = %v; want it refused as running", err)
	}
	if err := e.client.TerminateWorkflow(ctx, id, "", "test over"); err != nil {
		t.Fatal(err)
	}
	if err := crawl(); err == nil || !strings.Contains(err.Error(), "used by an earlier crawl") {
		t.Errorf("crawl under an ended crawl's ID = %v; want it refused as used", err)
	}
}

// roseTopicFile writes a topic file of topic name (keyword roses, seed
// http://a.test/) in dir and returns its path.
func roseTopicFile(t *testing.T, dir, name string) string {
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte("name: "+name+"\nkeywords: {roses: 1}\nseeds: [http://a.test/]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// starterCrawl runs `starter crawl --topic topicFile --id id` on task
// queue queue, its output discarded.
func starterCrawl(t *testing.T, topicFile, queue, id string, args ...string) error {
	var err error
	capture(t, &os.Stdout, func() {
		err = cli.Run(context.Background(), "starter", "", crawlctl.Commands(), append([]string{"crawl", "--topic", topicFile, "--id", id,
			"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + queue}, args...))
	})
	return err
}

// TestStatusOfFailedCrawl: the status query of a crawl whose workflow
// failed answers with the state it had when it failed; for a crawl that
// failed starting (its topic does not load), `starter status` printed
// "starting running for 6s", the clock going on, and no error. It now says
// the crawl failed and why.
func TestStatusOfFailedCrawl(t *testing.T) {
	site := newTestSite(t, 0)
	e := newEnv(t, site)
	e.startWorker("worker")
	ctx := context.Background()
	id := "crawl/badtopic/" + e.taskQueue
	// Sent past the starter's validation: a topic file without seeds.
	run, err := crawlapi.TopicCrawlWorkflow.Start(ctx, e.client, client.StartWorkflowOptions{ID: id, TaskQueue: e.taskQueue},
		crawlapi.CrawlInput{TopicYAML: "name: badtopic\nkeywords: {roses: 1}\n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Result(ctx); err == nil {
		t.Fatal("a crawl of a topic without seeds did not fail")
	}
	out := capture(t, &os.Stdout, func() {
		err = cli.Run(ctx, "starter", "", crawlctl.Commands(), []string{"status", id,
			"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + e.taskQueue})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "crawl "+id+" failed after") || !strings.Contains(out, "error: ") ||
		!strings.Contains(out, "seeds") || strings.Contains(out, " ago)") {
		t.Errorf("status of a failed crawl:\n%s\nwant it failed, with the error naming the seeds, and no running clock", out)
	}
}

// TestWaitSaysWhyItFailed: `crawl --wait` of a topic whose keywords give
// no term (it passes validate, and fails when the crawl starts) and
// `refresh --wait` of a topic never crawled end with the reason once, as
// `status` gives it. They printed the SDK's whole chain: "workflow execution
// error (type: …, workflowID: …, runID: …): activity error (…,
// scheduledEventID: 7, …)", and the crawl's reason twice (a user trial).
func TestWaitSaysWhyItFailed(t *testing.T) {
	e := newEnv(t, newTestSite(t, 0))
	e.startWorker("worker")
	ctx := context.Background()
	topicFile := filepath.Join(e.dir, "noterms.yaml")
	if err := os.WriteFile(topicFile, []byte("name: noterms\nkeywords: {the: 1}\nseeds: [http://a.test/]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + e.taskQueue}
	crawlErr := starterCrawl(t, topicFile, e.taskQueue, "crawl/noterms/"+e.taskQueue, "--wait")
	var refreshErr error
	capture(t, &os.Stdout, func() {
		refreshErr = cli.Run(ctx, "starter", "", crawlctl.Commands(), append([]string{"refresh", "nevercrawled", "--wait"}, flags...))
	})
	for _, tc := range []struct {
		what   string
		err    error
		reason string
	}{
		{"crawl --wait of a topic without terms", crawlErr, "gives no term"},
		{"refresh --wait of a topic never crawled", refreshErr, "has never been crawled"},
	} {
		if tc.err == nil {
			t.Errorf("%s succeeded", tc.what)
			continue
		}
		msg := tc.err.Error()
		if strings.Count(msg, tc.reason) != 1 || strings.Contains(msg, "workflow execution error") || strings.Contains(msg, "scheduledEventID") {
			t.Errorf("%s: %s\nwant the reason (%q) once, without the SDK's layers", tc.what, msg, tc.reason)
		}
	}
}

// TestSignalToEndedCrawl: pause, stop, add-seeds and update-topic sent to
// a crawl that has completed say it has ended and how to go on; they said
// "no running crawl with ID", which reads as a mistyped ID (a user trial's
// update-topic to the crawl it had just watched complete).
func TestSignalToEndedCrawl(t *testing.T) {
	site := newTestSite(t, 0)
	e := newEnv(t, site)
	e.startWorker("worker")
	run := e.startCrawl("roses", 3)
	e.wait(run, 2*time.Minute)
	topicFile := filepath.Join(e.dir, "roses.yaml")
	if err := os.WriteFile(topicFile, []byte(site.topicYAML("roses", 5)), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + e.taskQueue}
	for _, args := range [][]string{
		{"stop", run.GetID()},
		{"pause", run.GetID()},
		{"add-seeds", run.GetID(), "http://a.test/more"},
		{"update-topic", run.GetID(), "--topic", topicFile},
	} {
		var err error
		capture(t, &os.Stdout, func() {
			err = cli.Run(context.Background(), "starter", "", crawlctl.Commands(), append(args, flags...))
		})
		if err == nil || !strings.Contains(err.Error(), "has ended (completed: page budget reached)") || !strings.Contains(err.Error(), "starter crawl --topic FILE") {
			t.Errorf("%s to a completed crawl: %v; want it to say the crawl has ended and how to go on", args[0], err)
		}
	}
	// A crawl an operator stopped has ended stopped, as 'starter status'
	// says, not "completed" (its workflow completes; a new user's trial).
	t.Run("stopped", func(t *testing.T) {
		slow := newTestSite(t, 200*time.Millisecond)
		e := newEnv(t, slow)
		e.startWorker("worker")
		run := e.startCrawl("roses-stopped", 200)
		flags := []string{"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + e.taskQueue}
		starter := func(args ...string) error {
			var err error
			capture(t, &os.Stdout, func() {
				err = cli.Run(context.Background(), "starter", "", crawlctl.Commands(), append(args, flags...))
			})
			return err
		}
		eventually(t, time.Minute, "the crawl to fetch a page", func() bool {
			st := e.status(run.GetID())
			return st != nil && st.Fetched > 0
		})
		if err := starter("stop", run.GetID()); err != nil {
			t.Fatal(err)
		}
		if res := e.wait(run, 2*time.Minute); res.Phase != crawlapi.PhaseStopped {
			t.Fatalf("crawl ended %s (%s), want stopped", res.Phase, res.Reason)
		}
		if err := starter("resume", run.GetID()); err == nil || !strings.Contains(err.Error(), "has ended (stopped") {
			t.Errorf("resume to a stopped crawl: %v; want it to say the crawl has ended stopped", err)
		}
	})
	err := cli.Run(context.Background(), "starter", "", crawlctl.Commands(), append([]string{"stop", "crawl/roses/nosuch"}, flags...))
	if err == nil || !strings.Contains(err.Error(), `no running crawl with ID "crawl/roses/nosuch"`) {
		t.Errorf("stop to an unknown crawl: %v; want no running crawl with that ID", err)
	}
}

// TestStatusWithoutWorker: `starter status` of a crawl no worker serves
// says so, naming the task queue, instead of the SDK's bare deadline or
// cancelled-stream error.
func TestStatusWithoutWorker(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	idle, id := "idle-"+e.taskQueue, "crawl/nowork/"+e.taskQueue
	if _, err := crawlapi.TopicCrawlWorkflow.Start(ctx, e.client, client.StartWorkflowOptions{ID: id, TaskQueue: idle},
		crawlapi.CrawlInput{TopicYAML: "name: nowork"}); err != nil {
		t.Fatal(err)
	}
	defer e.client.TerminateWorkflow(ctx, id, "", "test over")
	err := cli.Run(ctx, "starter", "", crawlctl.Commands(), []string{"status", id,
		"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + idle})
	if err == nil || !strings.Contains(err.Error(), "no worker answered") || !strings.Contains(err.Error(), idle) {
		t.Errorf("status = %v; want it to say no worker answered, naming task queue %s", err, idle)
	}
}

// TestCrawlNotesEarlierCrawl: a second crawl of a topic goes on from what
// the first left queued, fetching none of its pages again. In a trial it
// was started as if anew, fetched only the first one's leftovers and
// accepted pages the first had scored far below its own, and nothing had
// said it would not start over. `starter crawl` now notes the earlier
// crawl and --fresh; with --fresh it says nothing. The workflows run on a
// task queue no worker polls.
func TestCrawlNotesEarlierCrawl(t *testing.T) {
	e := newEnv(t, nil)
	topicFile := roseTopicFile(t, e.dir, "ectopic")
	ctx := context.Background()
	idle, first := "idle-"+e.taskQueue, "crawl/ectopic/first-"+e.taskQueue
	crawl := func(id string, args ...string) string {
		t.Helper()
		var err error
		warn := captureStderr(t, func() { err = starterCrawl(t, topicFile, idle, id, args...) })
		if err != nil {
			t.Fatalf("crawl %s: %v", id, err)
		}
		e.client.TerminateWorkflow(ctx, id, "", "test over")
		eventually(t, 15*time.Second, id+" ended in visibility", func() bool {
			resp, err := e.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
				Query: "WorkflowId = '" + id + "' AND ExecutionStatus != 'Running'"})
			return err == nil && len(resp.GetExecutions()) == 1
		})
		return warn
	}
	if warn := crawl(first); strings.Contains(warn, "note:") {
		t.Errorf("the topic's first crawl noted %q", warn)
	}
	warn := crawl("crawl/ectopic/second-" + e.taskQueue)
	if !strings.Contains(warn, "note: topic ectopic was crawled before ("+first+")") || !strings.Contains(warn, "--fresh") {
		t.Errorf("second crawl noted %q; want the earlier crawl named and --fresh offered", warn)
	}
	if warn := crawl("crawl/ectopic/fresh-"+e.taskQueue, "--fresh"); strings.Contains(warn, "note:") {
		t.Errorf("crawl --fresh noted %q", warn)
	}
}

// TestTerminatedCrawlRecordedByNext: a crawl terminated from outside (the
// Temporal UI, `temporal workflow terminate`) runs no final step, so its
// row in the crawl store stayed "running" for good and 'search crawls'
// listed it so. The topic's next crawl looks its earlier running crawls up
// in Temporal when it starts and records the terminated one's end.
func TestTerminatedCrawlRecordedByNext(t *testing.T) {
	site, e, first, st := crawlFetching(t, "roses-term")
	ctx := context.Background()
	if err := e.client.TerminateWorkflow(ctx, first.GetID(), "", "operator"); err != nil {
		t.Fatal(err)
	}
	if c, err := st.Crawl(ctx, first.GetID()); err != nil || c.State != store.CrawlRunning {
		t.Fatalf("terminated crawl's row: %+v, %v; the test expects it still running (nothing of the crawl ran after)", c, err)
	}
	second, err := crawlapi.TopicCrawlWorkflow.Start(ctx, e.client, client.StartWorkflowOptions{
		ID: "crawl/roses-term/" + e.taskQueue + "/2", TaskQueue: e.taskQueue,
	}, crawlapi.CrawlInput{TopicYAML: site.topicYAML("roses-term", 3)})
	if err != nil {
		t.Fatal(err)
	}
	e.wait(second, 2*time.Minute)
	if c, err := st.Crawl(ctx, first.GetID()); err != nil || c.State != store.CrawlTerminated {
		t.Errorf("terminated crawl's row after the next crawl started: %+v, %v; want state %q", c, err, store.CrawlTerminated)
	}
	if c, err := st.Crawl(ctx, second.GetID()); err != nil || c.State != store.CrawlCompleted {
		t.Errorf("second crawl's row: %+v, %v; want completed", c, err)
	}
}

// TestTerminatedCrawlsClaimsReleased: a crawl terminated from outside
// while its slices had entries claimed left them claimed until crawl.lease
// ran out (15 minutes): a terminated workflow releases nothing. The
// topic's next crawl could not fetch them and, its frontier otherwise
// done, waited for them, "crawling" with nothing queued (chaos trial:
// `temporal workflow terminate`, then `starter crawl` of the topic). The
// next crawl's start, which records the terminated crawl's end, now
// releases its claims too: the next crawl runs its frontier dry and ends.
func TestTerminatedCrawlsClaimsReleased(t *testing.T) {
	site, e, first, st := crawlFetching(t, "roses-term-claims")
	ctx := context.Background()
	// From now on the site answers no request for a while: the
	// termination finds requests in flight, whose entries are claimed.
	hang := make(chan struct{})
	site.mu.Lock()
	site.onArrive = func(siteRequest) {
		select {
		case <-hang:
		case <-time.After(time.Minute):
		}
	}
	site.mu.Unlock()
	eventually(t, 30*time.Second, "a request in flight", func() bool {
		fs, err := st.FrontierStats(ctx, "roses-term-claims")
		return err == nil && fs.Claimed > 0
	})
	if err := e.client.TerminateWorkflow(ctx, first.GetID(), "", "operator"); err != nil {
		t.Fatal(err)
	}
	// The slices learn of the termination at their next heartbeat (the
	// server refuses it), within seconds, and end; what they held stays
	// claimed.
	time.Sleep(5 * time.Second)
	site.mu.Lock()
	site.onArrive = nil
	site.mu.Unlock()
	close(hang)
	fs, err := st.FrontierStats(ctx, "roses-term-claims")
	if err != nil || fs.Claimed == 0 {
		t.Fatalf("frontier after the termination %+v, %v; the test needs entries left claimed", fs, err)
	}
	t.Logf("the terminated crawl left %d entries claimed", fs.Claimed)
	second, err := crawlapi.TopicCrawlWorkflow.Start(ctx, e.client, client.StartWorkflowOptions{
		ID: "crawl/roses-term-claims/" + e.taskQueue + "/2", TaskQueue: e.taskQueue,
	}, crawlapi.CrawlInput{TopicYAML: site.topicYAML("roses-term-claims", 200)})
	if err != nil {
		t.Fatal(err)
	}
	// Far below the 15-minute lease the claims would otherwise wait for.
	res := e.wait(second, 2*time.Minute)
	if !strings.Contains(res.Reason, "frontier") {
		t.Errorf("second crawl ended %q; want its frontier run dry", res.Reason)
	}
	if fs, err := st.FrontierStats(ctx, "roses-term-claims"); err != nil || fs.Claimed != 0 || fs.Queued != 0 {
		t.Errorf("frontier after the second crawl %+v, %v; want nothing claimed or queued", fs, err)
	}
	if c, err := st.Crawl(ctx, first.GetID()); err != nil || c.State != store.CrawlTerminated {
		t.Errorf("terminated crawl's row: %+v, %v; want state %q", c, err, store.CrawlTerminated)
	}
}

// crawlFetching starts a worker and a crawl of topicName (budget 200) on a
// slow test site, and returns once the crawl has fetched two pages.
func crawlFetching(t *testing.T, topicName string) (*testSite, *env, crawlRun, store.Store) {
	t.Helper()
	site := newTestSite(t, 300*time.Millisecond)
	e := newEnv(t, site)
	e.startWorker("worker")
	first := e.startCrawl(topicName, 200)
	st := e.openStore()
	eventually(t, 60*time.Second, "the first crawl to fetch", func() bool {
		cs, err := st.CrawlStats(context.Background(), first.GetID())
		return err == nil && cs.Fetched >= 2
	})
	return site, e, first, st
}
