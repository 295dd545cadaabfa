package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/activities"
	"focuscrawl/internal/revisit"
)

// fakeRefresh is an in-memory stand-in for the refresh activities: a fixed
// number of due pages, a batch of which changes, one of which is gone.
type fakeRefresh struct {
	due      int
	claimed  int
	stages   map[string]int
	finished int
}

func (f *fakeRefresh) register(env *testsuite.TestWorkflowEnvironment, params activities.RefreshParams) {
	f.stages = map[string]int{}
	env.RegisterActivityWithOptions(func(ctx context.Context, in activities.StartRefreshInput) (activities.StartRefreshResult, error) {
		return activities.StartRefreshResult{Topic: in.Topic, TopicVersion: 3, ModelVersion: 2, Due: f.due, Params: params}, nil
	}, activity.RegisterOptions{Name: activities.NameStartRefresh})
	env.RegisterActivityWithOptions(func(ctx context.Context, in activities.RefreshClaimInput) (int, error) {
		n := min(in.Max, f.due-f.claimed)
		f.claimed += n
		return n, nil
	}, activity.RegisterOptions{Name: activities.NameClaimRefresh})
	env.RegisterActivityWithOptions(func(ctx context.Context, ref activities.BatchRef) (activities.RefetchResult, error) {
		// Every batch: one changed page, one gone, the rest 304.
		return activities.RefetchResult{Checked: 4, NotModified: 2, Changed: 1, Gone: 1}, nil
	}, activity.RegisterOptions{Name: activities.NameRefetch})
	for _, name := range []string{activities.NameParse, activities.NameFilterPages} {
		name := name
		env.RegisterActivityWithOptions(func(ctx context.Context, ref activities.BatchRef) (struct{}, error) {
			f.stages[name]++
			return struct{}{}, nil
		}, activity.RegisterOptions{Name: name})
	}
	env.RegisterActivityWithOptions(func(ctx context.Context, ref activities.BatchRef) (activities.PredictResult, error) {
		f.stages[activities.NamePredictLinks]++
		return activities.PredictResult{Links: 5, Enqueued: 2}, nil
	}, activity.RegisterOptions{Name: activities.NamePredictLinks})
	env.RegisterActivityWithOptions(func(ctx context.Context, ref activities.BatchRef) (activities.FinishRefreshResult, error) {
		f.finished++
		return activities.FinishRefreshResult{Kept: 1, Removed: 1}, nil
	}, activity.RegisterOptions{Name: activities.NameFinishRefresh})
}

func TestRefreshWorkflowCountsBatches(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	f := &fakeRefresh{due: 10}
	f.register(env, activities.RefreshParams{BatchSize: 4, MaxPages: 100})
	env.ExecuteWorkflow(RefreshWorkflow, RefreshInput{Topic: "roses"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var st RefreshState
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	// 10 due pages in batches of 4: 3 batches, then an empty claim ends the run.
	if st.Claimed != 10 || st.Batches != 4 || st.Checked != 12 || st.Changed != 3 || st.Gone != 3 ||
		st.NotModified != 6 || st.Kept != 3 || st.Removed != 3 || st.Enqueued != 6 || st.Phase != PhaseCompleted {
		t.Errorf("state = %+v", st)
	}
	if f.stages[activities.NameParse] != 3 || f.stages[activities.NameFilterPages] != 3 || f.finished != 3 {
		t.Errorf("stages = %v, finished %d; want every batch with changes through Parse, FilterPages, FinishRefresh", f.stages, f.finished)
	}
	if st.TopicVersion != 3 || st.ModelVersion != 2 {
		t.Errorf("versions = %d/%d; want 3/2", st.TopicVersion, st.ModelVersion)
	}
}

func TestRefreshWorkflowMaxPages(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	f := &fakeRefresh{due: 50}
	f.register(env, activities.RefreshParams{BatchSize: 4, MaxPages: 6})
	env.ExecuteWorkflow(RefreshWorkflow, RefreshInput{Topic: "roses"})
	var st RefreshState
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if st.Claimed != 6 || st.Batches != 2 || st.Reason != "refresh.max_pages reached" {
		t.Errorf("claimed %d in %d batches (%s); want 6 in 2, budget reached", st.Claimed, st.Batches, st.Reason)
	}
}

func TestRefreshWorkflowContinuesAsNew(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	f := &fakeRefresh{due: 20}
	f.register(env, activities.RefreshParams{BatchSize: 2, MaxPages: 100})
	env.ExecuteWorkflow(RefreshWorkflow, RefreshInput{Topic: "roses", BatchesPerRun: 3})
	err := env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("workflow error = %v; want continue-as-new after 3 batches", err)
	}
	// The next run's input carries only the state: IDs and counters.
	var next RefreshInput
	if err := converterOf(t).FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if next.Continued == nil || next.Continued.Batches != 3 || next.Continued.Claimed != 6 || next.Continued.Runs != 1 ||
		next.Topic != "roses" || next.TopicYAML != "" {
		t.Errorf("continued input = %+v (state %+v)", next, next.Continued)
	}
	// Running the continuation finishes the remaining pages without a new StartRefresh.
	env2 := s.NewTestWorkflowEnvironment()
	f.register(env2, activities.RefreshParams{})
	env2.ExecuteWorkflow(RefreshWorkflow, RefreshInput{Topic: "roses", Continued: next.Continued})
	var st RefreshState
	if err := env2.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if st.Claimed != 20 || st.Runs != 2 {
		t.Errorf("after continuation: claimed %d, runs %d; want 20, 2", st.Claimed, st.Runs)
	}
}

func TestRefreshWorkflowBootstrapsFirstCrawl(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(TopicCrawlWorkflow)
	env.RegisterActivityWithOptions(func(ctx context.Context, in activities.StartRefreshInput) (activities.StartRefreshResult, error) {
		return activities.StartRefreshResult{}, temporal.NewNonRetryableApplicationError("never crawled", activities.ErrNoTopic, nil)
	}, activity.RegisterOptions{Name: activities.NameStartRefresh})
	var gotYAML string
	env.OnWorkflow(TopicCrawlWorkflow, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in CrawlInput) (*CrawlState, error) {
			gotYAML = in.TopicYAML
			return &CrawlState{Reason: "frontier exhausted"}, nil
		})
	env.ExecuteWorkflow(RefreshWorkflow, RefreshInput{Topic: "roses", TopicYAML: "name: roses"})
	var st RefreshState
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if gotYAML != "name: roses" || st.ChildCrawlID == "" || st.Phase != PhaseCompleted {
		t.Errorf("bootstrap: yaml %q, child %q, phase %s", gotYAML, st.ChildCrawlID, st.Phase)
	}
}

func TestRefreshWorkflowWithoutTopicFails(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivityWithOptions(func(ctx context.Context, in activities.StartRefreshInput) (activities.StartRefreshResult, error) {
		return activities.StartRefreshResult{}, temporal.NewNonRetryableApplicationError("never crawled", activities.ErrNoTopic, nil)
	}, activity.RegisterOptions{Name: activities.NameStartRefresh})
	env.ExecuteWorkflow(RefreshWorkflow, RefreshInput{Topic: "nope"})
	var appErr *temporal.ApplicationError
	if err := env.GetWorkflowError(); !errors.As(err, &appErr) || appErr.Type() != activities.ErrNoTopic {
		t.Fatalf("error = %v; want the non-retryable %s", err, activities.ErrNoTopic)
	}
}

// TestScheduledIntervalsWithTimeSkipping drives a refresh loop at a fixed
// interval on the test environment's skipped clock: the adaptive interval's
// effect is that a page unchanged at every visit is checked less and less
// often. A workflow sleeps until each next visit computed by revisit.Next.
func TestScheduledIntervalsWithTimeSkipping(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	visits := []time.Duration{}
	wf := func(ctx workflow.Context) (int, error) {
		start := workflow.Now(ctx)
		base := time.Duration(0)
		for workflow.Now(ctx).Sub(start) < 30*24*time.Hour {
			var wait time.Duration
			base, wait = revisit.Next(testRefreshCfg, base, false, 0.5, 0)
			if err := workflow.Sleep(ctx, wait); err != nil {
				return 0, err
			}
			visits = append(visits, workflow.Now(ctx).Sub(start))
		}
		return len(visits), nil
	}
	env.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: "intervals"})
	env.ExecuteWorkflow("intervals")
	var n int
	if err := env.GetWorkflowResult(&n); err != nil {
		t.Fatal(err)
	}
	for i := 2; i < len(visits); i++ {
		if visits[i]-visits[i-1] < visits[i-1]-visits[i-2] {
			t.Errorf("gap %d (%s) shorter than gap %d: an unchanged page must be visited less often", i, visits[i]-visits[i-1], i-1)
		}
	}
	if n < 3 || n > 10 {
		t.Errorf("%d visits in 30 simulated days (%v); want a handful", n, visits)
	}
}
