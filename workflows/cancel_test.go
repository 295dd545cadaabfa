package workflows

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// The cancellation tests cancel the workflow as the Temporal UI's Cancel,
// `temporal workflow cancel` or a schedule's cancel-other overlap policy
// do. The crawls have budget and frontier for far more slices than they
// run, so a crawl that goes on after the cancel shows in its slices.

// bigCrawl is a fake crawl with budget and frontier for far more slices
// than the tests run, slices of 2 pages and 50 slices a run.
func bigCrawl(t *testing.T) (*fakeCrawl, *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	p := baseParams()
	p.MaxPages, p.SlicesPerRun = 100000, 50
	f, env := newFakeCrawl(t, p, 1000000)
	f.perSlice = 2
	return f, env
}

// canceledCrawl runs the crawl to its end, checks that it ended cancelled
// (not completed, failed or continued as new), and returns its state as
// the status query gives it after the end.
func canceledCrawl(t *testing.T, f *fakeCrawl, in crawlapi.CrawlInput) *crawlapi.CrawlState {
	t.Helper()
	f.env.ExecuteWorkflow(TopicCrawlWorkflow, in)
	if !f.env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := f.env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		var can *workflow.ContinueAsNewError
		t.Fatalf("workflow ended with %v (continued as new: %v) after %s, %d slices; want it cancelled",
			err, errors.As(err, &can), f.since(), len(f.starts))
	}
	v, err := f.env.QueryWorkflow(crawlapi.QueryStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st crawlapi.CrawlState
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	if st.Phase != crawlapi.PhaseCanceled || st.Paused || st.InFlight != 0 || st.Allotted != 0 {
		t.Errorf("state after the cancel %+v; want phase canceled, not paused, nothing in flight or allotted", st)
	}
	if len(f.overBudget) > 0 {
		t.Errorf("budget over-allotted: %v", f.overBudget)
	}
	return &st
}

// TestCrawlCancel: a cancelled crawl launches no slice after the cancel,
// waits for the slices in flight, releases their claims (they did not
// finish: not failed either), runs no final step and records "canceled" in
// the store. Before, each cancelled slice counted as failed, and the crawl
// launched slices that failed at once until slices_per_run, then continued
// as new, uncancelled.
func TestCrawlCancel(t *testing.T) {
	f, env := bigCrawl(t)
	// s1, s2 at 0; s3, s4 at 1m, in flight at the cancel (90s).
	env.RegisterDelayedCallback(env.CancelWorkflow, 90*time.Second)
	st := canceledCrawl(t, f, crawlapi.CrawlInput{TopicYAML: "name: roses"})
	if ids := f.startsBetween(90*time.Second-1, time.Hour); len(ids) != 0 || len(f.starts) != 4 {
		t.Errorf("slices %v started at or after the cancel (%d in all); want none after the 4 before", ids, len(f.starts))
	}
	var released []string
	for _, r := range f.released {
		released = append(released, r.SliceID)
	}
	id := st.CrawlID
	if want := fmt.Sprint([]string{id + "/s000003", id + "/s000004"}); fmt.Sprint(released) != want {
		t.Errorf("released %v; want the slices in flight at the cancel, %s", released, want)
	}
	if got := fmt.Sprint(f.states); got != "[canceled]" || f.stateTimes[0] != 90*time.Second {
		t.Errorf("crawl states %s at %v; want [canceled] at 1m30s", got, f.stateTimes)
	}
	if len(f.rejudges)+len(f.ranks) != 0 {
		t.Errorf("steps %v ran after the cancel; want no final step", f.steps)
	}
	if st.Slices != 4 || st.Claimed != 4 || st.FailedSlices != 0 || st.LastError != "" ||
		st.EndedAt != testStart.Add(90*time.Second) || st.Reason == "" {
		t.Errorf("state %+v; want 4 slices, 4 pages, none failed, ended at 1m30s", st)
	}
}

// TestCrawlCancelWhilePaused: a paused crawl ends at the cancel; before, it
// never woke for it, stayed paused, and a resume then recorded nothing (the
// write failed on the cancelled context) and launched slices that failed.
func TestCrawlCancelWhilePaused(t *testing.T) {
	f, env := bigCrawl(t)
	signalAt(env, 30*time.Second, crawlapi.SignalPause, nil)
	env.RegisterDelayedCallback(env.CancelWorkflow, 5*time.Minute)
	signalAt(env, 2*time.Hour, crawlapi.SignalResume, nil) // too late: the crawl has ended
	st := canceledCrawl(t, f, crawlapi.CrawlInput{TopicYAML: "name: roses"})
	if got := fmt.Sprint(f.states); got != "[paused canceled]" || f.stateTimes[1] != 5*time.Minute {
		t.Errorf("crawl states %s at %v; want [paused canceled], canceled at 5m", got, f.stateTimes)
	}
	if len(f.starts) != 2 || len(f.released) != 0 {
		t.Errorf("%d slices, %d released; want the 2 from before the pause, none to release", len(f.starts), len(f.released))
	}
	if st.EndedAt != testStart.Add(5*time.Minute) || st.Claimed != 4 || st.FailedSlices != 0 {
		t.Errorf("state %+v; want ended at 5m with the 4 pages claimed before the pause", st)
	}
}

// TestCrawlCancelDuringStep: a cancel that comes while a learning round
// runs between slices ends the crawl: no ranking, expansion or slice
// follows, and no final step.
func TestCrawlCancelDuringStep(t *testing.T) {
	p := baseParams()
	p.Pipelines, p.MaxPages, p.LearnEvery, p.RankEvery, p.ExpandEvery = 1, 100, 4, 4, 4
	f, env := newFakeCrawl(t, p, 1000)
	slow(f, crawlapi.LearnLinkModel, 10*time.Minute, f.learn)
	env.RegisterDelayedCallback(env.CancelWorkflow, sliceTime+time.Minute)
	st := canceledCrawl(t, f, crawlapi.CrawlInput{TopicYAML: "name: roses"})
	// The slow learning round, cancelled, never got to record its call.
	if want := "[rejudge@4]"; fmt.Sprint(f.steps) != want || len(f.expands) != 0 {
		t.Errorf("calls %v, %d expansions; want %s, none after the cancel", f.steps, len(f.expands), want)
	}
	if len(f.starts) != 1 || fmt.Sprint(f.states) != "[canceled]" {
		t.Errorf("%d slices, states %v; want 1 slice, [canceled]", len(f.starts), f.states)
	}
	if st.EndedAt != testStart.Add(sliceTime+time.Minute) || st.Claimed != 4 {
		t.Errorf("state %+v; want ended at the cancel (2m) with 4 pages", st)
	}
}

// TestCrawlCancelDuringFinalSteps: a cancel that comes while the crawl's
// final re-judgement runs ends it cancelled, not completed, and runs no
// ranking after it; before, the crawl recorded nothing (the write failed
// on the cancelled context) and completed.
func TestCrawlCancelDuringFinalSteps(t *testing.T) {
	p := baseParams()
	p.Pipelines, p.MaxPages = 1, 4
	f, env := newFakeCrawl(t, p, 1000)
	slow(f, crawlapi.RejudgeCrawl, 10*time.Minute, f.rejudge)
	env.RegisterDelayedCallback(env.CancelWorkflow, sliceTime+time.Minute) // s1 has used up the budget
	st := canceledCrawl(t, f, crawlapi.CrawlInput{TopicYAML: "name: roses"})
	// The slow re-judgement, cancelled, never got to record its call.
	if len(f.steps) != 0 {
		t.Errorf("calls %v; want none (the cancel cut the final re-judgement short, and no ranking followed)", f.steps)
	}
	if got := fmt.Sprint(f.states); got != "[canceled]" {
		t.Errorf("crawl states %s; want [canceled]", got)
	}
	if st.Claimed != 4 || st.EndedAt != testStart.Add(sliceTime+time.Minute) {
		t.Errorf("state %+v; want 4 pages, ended at the cancel", st)
	}
}

// TestCrawlCancelRecordedBefore: runs recorded before a cancellation ended
// the crawl replay as they ran: the cancelled slices counted as failed and
// the crawl relaunched slices until it continued as new.
func TestCrawlCancelRecordedBefore(t *testing.T) {
	f, env := bigCrawl(t)
	env.OnGetVersion("cancel-ends-crawl", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	env.RegisterDelayedCallback(env.CancelWorkflow, 90*time.Second)
	env.ExecuteWorkflow(TopicCrawlWorkflow, crawlapi.CrawlInput{TopicYAML: "name: roses"})
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("workflow ended with %v; want continue-as-new, as runs recorded before did", err)
	}
	for _, s := range f.states {
		if s == store.CrawlCanceled {
			t.Errorf("states %v; the run recorded before records no canceled state", f.states)
		}
	}
}

// TestRefreshCancelDuringContinuation: a refresh cancelled while its crawl
// continuation runs ends cancelled, once the crawl has ended cancelled
// (released its slices, recorded its end: the refresh, closing first,
// terminated it before); before, the refresh reported completed.
func TestRefreshCancelDuringContinuation(t *testing.T) {
	env := quietRefreshEnv()
	env.RegisterWorkflow(TopicCrawlWorkflow)
	f := &fakeRefresh{due: 4}
	f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100, ContinueMaxPages: 50})
	crawlapi.TopicYAML.Register(env, func(ctx context.Context, in crawlapi.TopicYAMLInput) (string, error) { return "name: roses", nil })
	// The crawl continuation, on the fake crawl: 2 pages a slice, 2 slices
	// at a time, 50 pages (continue_max_pages) take 13 minutes.
	p := baseParams()
	p.MaxPages = 100000
	cf := &fakeCrawl{t: t, env: env, params: p, queued: 1000000, perSlice: 2}
	cf.register(env)
	// The crawl's end after the cancel takes two minutes: releasing its
	// two slices in flight, one after the other.
	slow(cf, crawlapi.ReleaseSlice, time.Minute, cf.release)
	env.RegisterDelayedCallback(env.CancelWorkflow, 90*time.Second)
	st := canceledRefresh(t, env, crawlapi.RefreshInput{Topic: "roses"})
	if st.Phase != crawlapi.PhaseCanceled || st.EndedAt != testStart.Add(210*time.Second) {
		t.Errorf("refresh %s at %s; want cancelled at 3m30s, once its crawl had ended", st.Phase, st.EndedAt.Sub(testStart))
	}
	if fmt.Sprint(cf.states) != "[canceled]" || len(cf.released) != 2 {
		t.Errorf("crawl states %v, %d slices released; want [canceled], the 2 in flight released", cf.states, len(cf.released))
	}
	if f.nextCalls != 0 {
		t.Errorf("NextRefresh ran %d times after the cancel; want none", f.nextCalls)
	}
}

// quietRefreshEnv is a test environment for a refresh, its clock at
// testStart, its log discarded.
func quietRefreshEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(testStart)
	return env
}

// canceledRefresh runs the refresh to its end, checks that the workflow
// ended cancelled (what the server's status, and so `starter status`,
// says), and returns its state as the status query gives it after the end.
func canceledRefresh(t *testing.T, env *testsuite.TestWorkflowEnvironment, in crawlapi.RefreshInput) *crawlapi.RefreshState {
	t.Helper()
	env.ExecuteWorkflow(RefreshWorkflow, in)
	if err := env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("refresh ended with %v; want it cancelled", err)
	}
	v, err := env.QueryWorkflow(crawlapi.QueryRefreshStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st crawlapi.RefreshState
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// TestRefreshCancelMidBatch: a refresh cancelled while a batch runs (its
// claim or its stages), or while it loads the topic for its crawl
// continuation, ends with phase canceled, at the cancel, the batch not
// counted failed. Before, the workflow ended cancelled but its status
// query said "refreshing", never ended, with the cancelled batch failed
// and "canceled" as its last error. Runs recorded before replay so.
func TestRefreshCancelMidBatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version workflow.Version
		// slowdown makes one activity take a minute; the cancel comes at cancelAt.
		slowdown    func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh)
		cancelAt    time.Duration
		continueMax int // refresh.continue_max_pages
		due         int
		wantClaimed int
	}{
		// Refetch 0-1m (batch 1), 1m-2m (batch 2: cancelled).
		{"refetch", 1, func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			slowOn(env, crawlapi.Refetch, time.Minute, f.refetch)
		}, 90 * time.Second, 0, 100, 8},
		{"refetch, recorded before", workflow.DefaultVersion, func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			slowOn(env, crawlapi.Refetch, time.Minute, f.refetch)
		}, 90 * time.Second, 0, 100, 8},
		// ClaimRefresh 0-1m (batch 1), 1m-2m (batch 2: cancelled, claims nothing).
		{"claim", 1, func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			slowOn(env, crawlapi.ClaimRefresh, time.Minute, f.claim)
		}, 90 * time.Second, 0, 100, 4},
		// Batch 1 takes the 4 due pages at once, the next claim none; the
		// continuation's topic loads from 0 to 1m.
		{"loading the continuation's topic", 1, func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			slowOn(env, crawlapi.TopicYAML, time.Minute, func(context.Context, crawlapi.TopicYAMLInput) (string, error) {
				return "name: roses", nil
			})
		}, 30 * time.Second, 50, 4, 4},
		{"loading the continuation's topic, recorded before", workflow.DefaultVersion, func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			slowOn(env, crawlapi.TopicYAML, time.Minute, func(context.Context, crawlapi.TopicYAMLInput) (string, error) {
				return "name: roses", nil
			})
		}, 30 * time.Second, 50, 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := quietRefreshEnv()
			env.OnGetVersion("refresh-canceled-mid-batch", workflow.DefaultVersion, 1).Return(tc.version)
			env.OnGetVersion("refresh-canceled-loading-topic", workflow.DefaultVersion, 1).Return(tc.version)
			env.OnGetVersion("refresh-release-canceled-batch", workflow.DefaultVersion, 1).Return(tc.version)
			f := &fakeRefresh{due: tc.due}
			f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100, ContinueMaxPages: tc.continueMax})
			crawlapi.TopicYAML.Register(env, func(context.Context, crawlapi.TopicYAMLInput) (string, error) { return "name: roses", nil })
			tc.slowdown(env, f)
			env.RegisterDelayedCallback(env.CancelWorkflow, tc.cancelAt)
			st := canceledRefresh(t, env, crawlapi.RefreshInput{Topic: "roses"})
			if st.Claimed != tc.wantClaimed || st.ChildCrawlID != "" {
				t.Errorf("claimed %d, crawl %q; want %d claimed before the cancel, no crawl", st.Claimed, st.ChildCrawlID, tc.wantClaimed)
			}
			if tc.version == workflow.DefaultVersion {
				if st.Phase == crawlapi.PhaseCanceled {
					t.Errorf("run recorded before: phase %s; want it replayed as it ran", st.Phase)
				}
				return
			}
			if st.Phase != crawlapi.PhaseCanceled || st.EndedAt != testStart.Add(tc.cancelAt) || st.Reason == "" {
				t.Errorf("refresh %s (%q), ended at %s; want canceled at %s, with a reason",
					st.Phase, st.Reason, st.EndedAt.Sub(testStart), tc.cancelAt)
			}
			if st.FailedBatches != 0 || st.FailedInRow != 0 || st.LastError != "" {
				t.Errorf("%d batches failed (%d in a row), last error %q; want none: the batch was cancelled, not failed",
					st.FailedBatches, st.FailedInRow, st.LastError)
			}
		})
	}
}

// TestCrawlCancelDuringStart: a cancel while StartCrawl runs records the
// crawl canceled in the store and launches no slice. The test environment
// resolves a cancelled activity at once, whatever WaitForCancellation says:
// that the workflow waits for StartCrawl to end (it may make the row after
// the cancel) is checked on a real server (internal/e2e
// TestCancelDuringStart).
func TestCrawlCancelDuringStart(t *testing.T) {
	f, env := bigCrawl(t)
	env.OnActivity(crawlapi.StartCrawl.Name, mock.Anything, mock.Anything).After(time.Minute).
		Return(crawlapi.StartCrawlResult{Topic: "roses", TopicVersion: 1, ModelVersion: 1, Seeded: 10, Params: f.params}, nil)
	env.RegisterDelayedCallback(env.CancelWorkflow, 30*time.Second)
	env.ExecuteWorkflow(TopicCrawlWorkflow, crawlapi.CrawlInput{TopicYAML: "name: roses"})
	if err := env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("workflow ended with %v; want it cancelled", err)
	}
	v, err := env.QueryWorkflow(crawlapi.QueryStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st crawlapi.CrawlState
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	if st.Phase != crawlapi.PhaseCanceled || st.EndedAt.IsZero() {
		t.Errorf("state %+v; want phase canceled, ended", st)
	}
	if len(f.states) != 1 || f.states[0] != store.CrawlCanceled || len(f.starts) != 0 {
		t.Errorf("states recorded %v, slices %d; want canceled recorded once, no slice", f.states, len(f.starts))
	}
}

// TestRefreshCancelDuringStart: a refresh cancelled while StartRefresh
// runs ends with phase canceled, at the cancel, and claims nothing. Before,
// the workflow ended cancelled but its status query said "starting", never
// ended. Runs recorded before replay so.
func TestRefreshCancelDuringStart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version workflow.Version
	}{{"current", 1}, {"recorded before", workflow.DefaultVersion}} {
		t.Run(tc.name, func(t *testing.T) {
			env := quietRefreshEnv()
			env.OnGetVersion("refresh-canceled-at-start", workflow.DefaultVersion, 1).Return(tc.version)
			f := &fakeRefresh{due: 100}
			f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100})
			// StartRefresh takes a minute; the cancel comes at 30s.
			slowOn(env, crawlapi.StartRefresh, time.Minute, func(context.Context, crawlapi.StartRefreshInput) (crawlapi.StartRefreshResult, error) {
				return crawlapi.StartRefreshResult{Topic: "roses", TopicVersion: 3, ModelVersion: 2, Due: 100,
					Params: crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100}}, nil
			})
			env.RegisterDelayedCallback(env.CancelWorkflow, 30*time.Second)
			st := canceledRefresh(t, env, crawlapi.RefreshInput{Topic: "roses"})
			if st.Claimed != 0 || len(f.dueBy) != 0 {
				t.Errorf("claimed %d in %d claims; want none after a cancel at the start", st.Claimed, len(f.dueBy))
			}
			if tc.version == workflow.DefaultVersion {
				if st.Phase != crawlapi.PhaseStarting {
					t.Errorf("run recorded before: phase %s; want it replayed as it ran (starting)", st.Phase)
				}
				return
			}
			if st.Phase != crawlapi.PhaseCanceled || st.EndedAt != testStart.Add(30*time.Second) || st.Reason == "" {
				t.Errorf("refresh %s (%q), ended at %s; want canceled at 30s, with a reason", st.Phase, st.Reason, st.EndedAt.Sub(testStart))
			}
		})
	}
}

// TestRefreshCancelDuringBootstrap: a refresh of a topic never crawled
// runs the topic's first crawl as its child; cancelled meanwhile, it ends
// with phase canceled once the crawl has ended cancelled. Before, the
// workflow ended cancelled but its status query said "bootstrap", never
// ended. Runs recorded before replay so.
func TestRefreshCancelDuringBootstrap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version workflow.Version
	}{{"current", 1}, {"recorded before", workflow.DefaultVersion}} {
		t.Run(tc.name, func(t *testing.T) {
			env := quietRefreshEnv()
			env.OnGetVersion("refresh-canceled-in-bootstrap", workflow.DefaultVersion, 1).Return(tc.version)
			env.RegisterWorkflow(TopicCrawlWorkflow)
			crawlapi.StartRefresh.Register(env, func(ctx context.Context, in crawlapi.StartRefreshInput) (crawlapi.StartRefreshResult, error) {
				return crawlapi.StartRefreshResult{}, temporal.NewNonRetryableApplicationError("never crawled", crawlapi.ErrNoTopic, nil)
			})
			// The first crawl, on the fake crawl: slices of 2 pages, far
			// more budget and frontier than it gets to before the cancel.
			p := baseParams()
			p.MaxPages = 100000
			cf := &fakeCrawl{t: t, env: env, params: p, queued: 1000000, perSlice: 2}
			cf.register(env)
			env.RegisterDelayedCallback(env.CancelWorkflow, 90*time.Second)
			st := canceledRefresh(t, env, crawlapi.RefreshInput{Topic: "roses", TopicYAML: "name: roses"})
			if fmt.Sprint(cf.states) != "[canceled]" || st.ChildCrawlID == "" {
				t.Errorf("crawl %q states %v; want the first crawl cancelled", st.ChildCrawlID, cf.states)
			}
			if tc.version == workflow.DefaultVersion {
				if st.Phase != crawlapi.PhaseBootstrap {
					t.Errorf("run recorded before: phase %s; want it replayed as it ran (bootstrap)", st.Phase)
				}
				return
			}
			if st.Phase != crawlapi.PhaseCanceled || st.EndedAt != testStart.Add(90*time.Second) || st.Reason == "" || st.LastError != "" {
				t.Errorf("refresh %s (%q), ended at %s, last error %q; want canceled at 1m30s, with a reason, no error",
					st.Phase, st.Reason, st.EndedAt.Sub(testStart), st.LastError)
			}
		})
	}
}

// TestRefreshCancelWithLastBatchOfRun: a cancel that comes in the same
// workflow task as the final result of a run's last batch (here the
// batches-per-run limit) ends the refresh cancelled; before, the run
// continued as new, the new run uncancelled, and the cancel was lost. Runs
// recorded before replay continuing.
//
// The test environment runs a workflow task for each event, so a cancel
// sent while the activity runs is taken before its result (the batch is
// cancelled, TestRefreshCancelMidBatch) and one sent after it comes once
// the run has continued as new. cancelWithResult has the workflow see what
// a server's task with both events gives it: the result, then the context
// cancelled.
func TestRefreshCancelWithLastBatchOfRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version workflow.Version
	}{{"current", 1}, {"recorded before", workflow.DefaultVersion}} {
		t.Run(tc.name, func(t *testing.T) {
			env := quietRefreshEnv()
			env.OnGetVersion("refresh-canceled-before-continue-as-new", workflow.DefaultVersion, 1).Return(tc.version)
			f := &fakeRefresh{due: 100}
			f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100})
			// Batch 2 is the run's last; FinishRefresh is its last stage.
			env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{
				&cancelWithResult{activity: crawlapi.FinishRefresh.Name, nth: 2}}})
			env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses", BatchesPerRun: 2})
			err := env.GetWorkflowError()
			if tc.version == workflow.DefaultVersion {
				var can *workflow.ContinueAsNewError
				if !errors.As(err, &can) {
					t.Errorf("run recorded before: ended with %v; want continue-as-new, as it ran", err)
				}
				return
			}
			if !temporal.IsCanceledError(err) {
				t.Fatalf("refresh ended with %v; want it cancelled, not continued as new", err)
			}
			v, err := env.QueryWorkflow(crawlapi.QueryRefreshStatus)
			if err != nil {
				t.Fatal(err)
			}
			var st crawlapi.RefreshState
			if err := v.Get(&st); err != nil {
				t.Fatal(err)
			}
			if st.Phase != crawlapi.PhaseCanceled || st.EndedAt.IsZero() || st.Batches != 2 || st.Claimed != 8 ||
				st.FailedBatches != 0 || st.LastError != "" {
				t.Errorf("state %+v; want canceled after its 2 batches, none failed", st)
			}
			if len(f.dueBy) != 2 {
				t.Errorf("%d claims; want the 2 batches', none after the cancel", len(f.dueBy))
			}
		})
	}
}

// cancelWithResult is a worker interceptor that cancels the workflow's
// context as the nth completion of activity reaches it: the workflow's Get
// returns the activity's result, and its context is cancelled from there
// on, as when a server's workflow task holds the activity's completion
// followed by the workflow's cancel request. The context it cancels is one
// it put between the workflow and its root context (workflow.WithCancel),
// which the workflow cannot tell from the root context cancelled.
type cancelWithResult struct {
	interceptor.WorkerInterceptorBase
	activity string
	nth      int
}

// InterceptWorkflow gives each workflow run its own inbound interceptor.
func (c *cancelWithResult) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	in := &cancelWithResultInbound{c: c}
	in.Next = next
	return in
}

// cancelWithResultInbound holds the cancel of the context it runs the
// workflow in and counts the activity's completions.
type cancelWithResultInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	c      *cancelWithResult
	cancel workflow.CancelFunc
	seen   int
}

// Init puts cancelWithResultOutbound in the workflow's outbound chain.
func (i *cancelWithResultInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	o := &cancelWithResultOutbound{in: i}
	o.Next = outbound
	return i.Next.Init(o)
}

// ExecuteWorkflow runs the workflow in a context it can cancel.
func (i *cancelWithResultInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	ctx, i.cancel = workflow.WithCancel(ctx)
	return i.Next.ExecuteWorkflow(ctx, in)
}

// cancelWithResultOutbound wraps the future of the activity's nth run.
type cancelWithResultOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	in *cancelWithResultInbound
}

// ExecuteActivity schedules the activity, its nth run's future wrapped in
// cancelingFuture.
func (o *cancelWithResultOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	f := o.Next.ExecuteActivity(ctx, activityType, args...)
	if activityType != o.in.c.activity {
		return f
	}
	if o.in.seen++; o.in.seen != o.in.c.nth {
		return f
	}
	return cancelingFuture{Future: f, cancel: o.in.cancel}
}

// cancelingFuture cancels once its result has been got.
type cancelingFuture struct {
	workflow.Future
	cancel workflow.CancelFunc
}

// Get gets the activity's result, then cancels the workflow's context.
func (f cancelingFuture) Get(ctx workflow.Context, valuePtr any) error {
	err := f.Future.Get(ctx, valuePtr)
	f.cancel()
	return err
}
