package crawlctl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
)

// stickyClient answers a crawl's status query after failing the first
// ones (fail of them) with err, as the server does while the query waits on
// the sticky queue of the worker that ran the crawl's last task and died;
// pollers workers poll the crawl's task queue. Other methods of
// client.Client are not used (nil: they would panic).
type stickyClient struct {
	client.Client
	fail, queries, pollers int
	err                    error
	st                     crawlapi.CrawlState
}

func (c *stickyClient) QueryWorkflow(context.Context, string, string, string, ...interface{}) (converter.EncodedValue, error) {
	c.queries++
	if c.queries <= c.fail {
		return nil, c.err
	}
	return encoded{c.st}, nil
}

func (c *stickyClient) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflow.WorkflowExecutionInfo{
		Status: enums.WORKFLOW_EXECUTION_STATUS_RUNNING, TaskQueue: "focuscrawl"}}, nil
}

func (c *stickyClient) DescribeTaskQueue(_ context.Context, q string, _ enums.TaskQueueType) (*workflowservice.DescribeTaskQueueResponse, error) {
	if q != "focuscrawl" {
		return nil, errors.New("asked about task queue " + q)
	}
	var ps []*taskqueue.PollerInfo
	for range c.pollers {
		ps = append(ps, &taskqueue.PollerInfo{Identity: "worker"})
	}
	return &workflowservice.DescribeTaskQueueResponse{Pollers: ps}, nil
}

type encoded struct{ v any }

func (e encoded) HasValue() bool { return true }
func (e encoded) Get(p any) error {
	b, err := json.Marshal(e.v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, p)
}

// TestStatusAsksAgainAfterDeadWorker: 'starter status' right after a kill
// -9 of the worker that ran a crawl's last workflow task failed after 5 s,
// saying no worker answered and asking whether one polled the task queue,
// while two others did; the same command a moment later answered. Now a
// query that fails while workers poll the queue is asked once more; with
// no poller, or for a crawl that does not exist, it is asked once.
func TestStatusAsksAgainAfterDeadWorker(t *testing.T) {
	ctx := context.Background()
	c := &stickyClient{fail: 1, pollers: 2, err: context.DeadlineExceeded, st: crawlapi.CrawlState{CrawlID: "c", Fetched: 7}}
	st, err := answeredStatus(ctx, c, "c")
	if err != nil || st.Fetched != 7 || c.queries != 2 {
		t.Errorf("with workers polling: %+v, %v after %d queries; want the answer to the second", st, err, c.queries)
	}

	c = &stickyClient{fail: 1, err: context.DeadlineExceeded}
	if _, err := answeredStatus(ctx, c, "c"); !errors.Is(err, context.DeadlineExceeded) || c.queries != 1 {
		t.Errorf("with no worker polling: %v after %d queries; want the first query's error", err, c.queries)
	}
	if err := noAnswer(ctx, c, "c", err); err == nil || !containsAll(err.Error(), "no worker answered", `"focuscrawl"`) {
		t.Errorf("no worker polling: %v", err)
	}

	c = &stickyClient{fail: 1, pollers: 2, err: serviceerror.NewNotFound("no such workflow")}
	if _, err := answeredStatus(ctx, c, "c"); err == nil || c.queries != 1 {
		t.Errorf("a crawl that does not exist: %v after %d queries; want one", err, c.queries)
	}

	// Workers poll but fail both queries: the message says they poll.
	c = &stickyClient{fail: 2, pollers: 2, err: context.DeadlineExceeded}
	_, err = answeredStatus(ctx, c, "c")
	if c.queries != 2 {
		t.Errorf("%d queries; want 2", c.queries)
	}
	if err := noAnswer(ctx, c, "c", err); err == nil || !containsAll(err.Error(), "2 worker(s) poll", `"focuscrawl"`, "died in the last 2m0s is still counted") {
		t.Errorf("workers polling, no answer: %v", err)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestStatusBeforeSignalAsksAgain: add-seeds and update-topic read the
// crawl's status before signalling; right after the worker that ran the
// crawl's last task died, add-seeds said no worker answered and did not
// wait for the seeds, while two workers polled.
func TestStatusBeforeSignalAsksAgain(t *testing.T) {
	// The short first query fails, and so does the first 10 s one (the
	// server gives up on the dead worker's sticky queue during it); the
	// one after is answered.
	c := &stickyClient{fail: 2, pollers: 2, err: context.DeadlineExceeded, st: crawlapi.CrawlState{CrawlID: "c", SeedsSent: 3}}
	st, err := statusBeforeSignal(context.Background(), c, "c")
	if err != nil || st.SeedsSent != 3 || c.queries != 3 {
		t.Errorf("%+v, %v after %d queries; want the answer to the third", st, err, c.queries)
	}
	c = &stickyClient{fail: 1, err: context.DeadlineExceeded}
	if _, err := statusBeforeSignal(context.Background(), c, "c"); err == nil || c.queries != 1 {
		t.Errorf("no worker polling: %v after %d queries; want one", err, c.queries)
	}
}

// typedClient describes its one workflow as of type typ and counts the
// signals sent to it.
type typedClient struct {
	client.Client
	typ     string
	signals int
}

func (c *typedClient) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflow.WorkflowExecutionInfo{
		Type: &common.WorkflowType{Name: c.typ}, Status: enums.WORKFLOW_EXECUTION_STATUS_RUNNING}}, nil
}

func (c *typedClient) SignalWorkflow(context.Context, string, string, string, any) error {
	c.signals++
	return nil
}

// TestSignalsGoToCrawlsOnly: 'starter stop' (and pause, add-seeds,
// update-topic) given a refresh's ID printed "sent stop" while the refresh,
// which reads no signals, ran on; it is refused, saying what to do.
func TestSignalsGoToCrawlsOnly(t *testing.T) {
	refresh := &typedClient{typ: crawlapi.RefreshWorkflow.Name}
	err := sendSignal(t.Context(), refresh, "refresh/roses/scheduled-x", crawlapi.SignalControl, "stop")
	if err == nil || !strings.Contains(err.Error(), "is a refresh, not a crawl: it takes no stop") || refresh.signals != 0 {
		t.Errorf("stop to a refresh: %v, %d signals sent; want a refusal and none", err, refresh.signals)
	}
	crawl := &typedClient{typ: crawlapi.TopicCrawlWorkflow.Name}
	if err := sendSignal(t.Context(), crawl, "crawl/roses/1", crawlapi.SignalControl, "stop"); err != nil || crawl.signals != 1 {
		t.Errorf("stop to a crawl: %v, %d signals sent; want it sent", err, crawl.signals)
	}
}

// recoveringClient is a stickyClient whose answered channel closes at its
// first answered status query.
type recoveringClient struct {
	*stickyClient
	answered chan struct{}
	once     sync.Once
}

func (c *recoveringClient) QueryWorkflow(ctx context.Context, id, runID, q string, args ...interface{}) (converter.EncodedValue, error) {
	v, err := c.stickyClient.QueryWorkflow(ctx, id, runID, q, args...)
	if err == nil {
		c.once.Do(func() { close(c.answered) })
	}
	return v, err
}

// doneRun is a started crawl that ends once done closes.
type doneRun struct {
	client.WorkflowRun
	done <-chan struct{}
}

func (r doneRun) GetID() string { return "c" }

func (r doneRun) Get(ctx context.Context, p interface{}) error {
	select {
	case <-r.done:
		*p.(**crawlapi.CrawlState) = &crawlapi.CrawlState{CrawlID: "c"}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestWaitSaysWhenNoWorkerAnswers: 'starter crawl --wait' with the worker
// killed (kill -9, Rust-doc trial) printed nothing at all until a worker ran
// the crawl again, over a minute later: the failed status queries were
// skipped in silence. Now the first one is said, naming the task queue,
// once for the whole outage, and so is the first answer after it.
func TestWaitSaysWhenNoWorkerAnswers(t *testing.T) {
	c := &recoveringClient{
		stickyClient: &stickyClient{fail: 3, err: context.DeadlineExceeded, st: crawlapi.CrawlState{CrawlID: "c", Phase: "crawling", Fetched: 9}},
		answered:     make(chan struct{}),
	}
	var out strings.Builder
	run := crawlapi.Run[*crawlapi.CrawlState]{WorkflowRun: doneRun{done: c.answered}}
	st, err := waitWithProgress(context.Background(), &out, c, run, time.Millisecond)
	if err != nil || st == nil {
		t.Fatalf("waitWithProgress: %v, %v", st, err)
	}
	got := out.String()
	if n := strings.Count(got, "no progress:"); n != 1 {
		t.Errorf("%d no-progress lines for 3 failed queries; want 1:\n%s", n, got)
	}
	if !containsAll(got, "no worker answered", `"focuscrawl"`, "Ctrl-C stops waiting, not the crawl", "the crawl answers again", "fetched     9") {
		t.Errorf("output does not say what happened:\n%s", got)
	}
	if strings.Index(got, "no progress:") > strings.Index(got, "answers again") {
		t.Errorf("out of order:\n%s", got)
	}
}

// slowClient answers status queries, the first after a delay (a worker
// that takes long, or the server waiting out a dead worker's sticky
// queue); it records when each query began and ended, and closes done at
// its second answer.
type slowClient struct {
	*stickyClient
	delay      time.Duration
	begun, end []time.Time
	done       chan struct{}
}

func (c *slowClient) QueryWorkflow(ctx context.Context, id, runID, q string, args ...interface{}) (converter.EncodedValue, error) {
	c.begun = append(c.begun, time.Now())
	if len(c.begun) == 1 {
		time.Sleep(c.delay)
	}
	v, err := c.stickyClient.QueryWorkflow(ctx, id, runID, q, args...)
	c.end = append(c.end, time.Now())
	if len(c.end) == 2 {
		close(c.done)
	}
	return v, err
}

// TestWaitPacesAfterSlowQuery: after a status query that took longer than
// the progress interval, the next one waited for a tick the ticker had kept
// meanwhile, none: the same counts were printed twice in a row (Rust-doc
// trial, the first answer after a killed worker came back). The next query
// now comes an interval after the slow one's answer.
func TestWaitPacesAfterSlowQuery(t *testing.T) {
	const every = 40 * time.Millisecond
	c := &slowClient{stickyClient: &stickyClient{st: crawlapi.CrawlState{CrawlID: "c", Phase: "crawling"}},
		delay: 5 * every, done: make(chan struct{})}
	run := crawlapi.Run[*crawlapi.CrawlState]{WorkflowRun: doneRun{done: c.done}}
	if _, err := waitWithProgress(context.Background(), io.Discard, c, run, every); err != nil {
		t.Fatal(err)
	}
	if len(c.begun) < 2 {
		t.Fatalf("%d queries; want 2", len(c.begun))
	}
	if gap := c.begun[1].Sub(c.end[0]); gap < every*3/4 {
		t.Errorf("second query %v after the slow first one's answer; want about the interval, %v", gap, every)
	}
}

// downClient is a Temporal server that is down until up closes: every call
// fails as the SDK fails calls to an unreachable server; then status
// queries answer.
type downClient struct {
	*stickyClient
	up <-chan struct{}
}

func (c *downClient) isUp() bool {
	select {
	case <-c.up:
		return true
	default:
		return false
	}
}

func (c *downClient) QueryWorkflow(ctx context.Context, id, runID, q string, args ...interface{}) (converter.EncodedValue, error) {
	if !c.isUp() {
		return nil, serviceerror.NewUnavailable("connection refused")
	}
	return c.stickyClient.QueryWorkflow(ctx, id, runID, q, args...)
}

func (c *downClient) DescribeWorkflowExecution(ctx context.Context, id, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	if !c.isUp() {
		return nil, serviceerror.NewUnavailable("connection refused")
	}
	return c.stickyClient.DescribeWorkflowExecution(ctx, id, runID)
}

// downRun is a started crawl whose result cannot be read while the server
// is down (the SDK gives up after a minute: context deadline exceeded, or
// Unavailable) and which ends after the server is back.
type downRun struct {
	client.WorkflowRun
	gets   *int
	failed int // results asked for while down, after which the server is up
	up     chan struct{}
	once   *sync.Once
}

func (r downRun) GetID() string { return "c" }

func (r downRun) Get(ctx context.Context, p interface{}) error {
	*r.gets++
	if *r.gets <= r.failed {
		if *r.gets%2 == 1 {
			return serviceerror.NewUnavailable("connection refused")
		}
		return context.DeadlineExceeded
	}
	r.once.Do(func() { close(r.up) })
	*p.(**crawlapi.CrawlState) = &crawlapi.CrawlState{CrawlID: "c", Phase: "completed", Fetched: 40}
	return nil
}

// TestWaitOutlastsDownServer: 'starter crawl --wait' while the Temporal
// server was down (kill -9 of the dev server mid-crawl, chaos trial) exited
// with status 1 a minute later, "crawl … failed: context deadline exceeded",
// though the crawl went on to its budget once the server was back; its
// no-progress line asked whether a worker polled. Now it says the server
// does not answer and waits on for the crawl's real result.
func TestWaitOutlastsDownServer(t *testing.T) {
	up := make(chan struct{})
	c := &downClient{stickyClient: &stickyClient{st: crawlapi.CrawlState{CrawlID: "c", Phase: "crawling", Fetched: 20}}, up: up}
	gets := 0
	run := crawlapi.Run[*crawlapi.CrawlState]{WorkflowRun: downRun{gets: &gets, failed: 3, up: up, once: &sync.Once{}}}
	var out strings.Builder
	st, err := waitWithProgress(context.Background(), &out, c, run, 5*time.Millisecond)
	if err != nil || st == nil || st.Fetched != 40 {
		t.Fatalf("waitWithProgress: %+v, %v; want the crawl's result after the server is back\n%s", st, err, out.String())
	}
	if gets != 4 {
		t.Errorf("result asked for %d times; want 4 (3 while down)", gets)
	}
	if got := out.String(); !containsAll(got, "no progress: the Temporal server does not answer", "Ctrl-C stops waiting, not the crawl") {
		t.Errorf("output does not say the server is down:\n%s", got)
	}
	// A crawl that really failed, or is gone, is still reported at once.
	failed := crawlapi.Run[*crawlapi.CrawlState]{WorkflowRun: failedRun{}}
	if _, err := waitWithProgress(context.Background(), io.Discard, c, failed, time.Millisecond); err == nil || !strings.Contains(err.Error(), "crawl c failed") {
		t.Errorf("failed crawl: %v; want crawl c failed", err)
	}
}

// failedRun is a crawl whose result is an error that is not the server's
// silence: the workflow does not exist (any more).
type failedRun struct{ client.WorkflowRun }

func (failedRun) GetID() string { return "c" }

func (failedRun) Get(context.Context, interface{}) error {
	return serviceerror.NewNotFound("workflow not found")
}

// A workflow ended on purpose is said so, not as a failure with the SDK's
// bare "canceled"; a real failure keeps its innermost cause only, and
// Ctrl-C stays context.Canceled for the command line to report.
func TestEndedError(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("workflow execution error: %w", temporal.NewCanceledError()),
			"crawl c1 was cancelled (in the Temporal UI or with temporal workflow cancel); what it stored stays: starter status c1"},
		{fmt.Errorf("workflow execution error: %w", &temporal.TerminatedError{}),
			"crawl c1 was terminated (in the Temporal UI or with temporal workflow terminate); what it stored stays: starter status c1"},
		{fmt.Errorf("workflow: %w", fmt.Errorf("activity: %w", errors.New("topic has no terms"))),
			"crawl c1 failed: topic has no terms"},
	}
	for _, tc := range cases {
		if got := endedError("crawl", "c1", tc.err).Error(); got != tc.want {
			t.Errorf("endedError(%v) = %q; want %q", tc.err, got, tc.want)
		}
	}
	if err := endedError("crawl", "c1", fmt.Errorf("wait: %w", context.Canceled)); !errors.Is(err, context.Canceled) {
		t.Errorf("endedError(Ctrl-C) = %v; want context.Canceled kept", err)
	}
}

// TestUnchangedNote: a pause to a paused crawl, or a resume to a running
// one, says that nothing changes (a new user's trial read "sent pause"
// twice as two pauses); without a status nothing is claimed.
func TestUnchangedNote(t *testing.T) {
	paused, running := &crawlapi.CrawlState{Paused: true}, &crawlapi.CrawlState{}
	for _, c := range []struct {
		st   *crawlapi.CrawlState
		op   string
		want string
	}{
		{paused, crawlapi.ControlPause, " (it was paused when asked: nothing changes)"},
		{running, crawlapi.ControlResume, " (it was not paused when asked: nothing changes)"},
		{&crawlapi.CrawlState{Phase: crawlapi.PhaseStopping}, crawlapi.ControlPause, " (when asked, the crawl is finishing (a stop was requested: its running slices end, then its final steps run): nothing changes)"},
		{running, crawlapi.ControlPause, ""},
		{paused, crawlapi.ControlResume, ""},
		{paused, crawlapi.ControlStop, ""},
		{nil, crawlapi.ControlPause, ""},
	} {
		if got := unchangedNote(c.st, c.op); got != c.want {
			t.Errorf("unchangedNote(paused=%v, %s) = %q, want %q", c.st != nil && c.st.Paused, c.op, got, c.want)
		}
	}
}
