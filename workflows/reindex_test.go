package workflows

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"focuscrawl/internal/crawlapi"
)

// reindexEnv registers fake reindex activities that record their calls;
// pagesErr and rebuildErr are what ReindexPages and RebuildIndex answer.
func reindexEnv(calls *[]string, pagesErr, rebuildErr error) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	crawlapi.RebuildIndex.Register(env, func(_ context.Context, in crawlapi.RebuildIndexInput) (crawlapi.RebuildIndexResult, error) {
		*calls = append(*calls, "rebuild "+in.Topic)
		if rebuildErr != nil {
			return crawlapi.RebuildIndexResult{}, rebuildErr
		}
		return crawlapi.RebuildIndexResult{Index: "idx-" + in.Topic + "-000002"}, nil
	})
	crawlapi.ReindexPages.Register(env, func(_ context.Context, in crawlapi.ReindexPagesInput) (crawlapi.ReindexPagesResult, error) {
		*calls = append(*calls, "pages "+in.Topic)
		if pagesErr != nil {
			return crawlapi.ReindexPagesResult{}, pagesErr
		}
		return crawlapi.ReindexPagesResult{Accepted: 12, Written: 11, NoIndex: 1}, nil
	})
	return env
}

// TestReindexWorkflow: the pages are written, then the index rebuilt (its
// copy carries the new terms), and the result carries both; with
// SkipRebuild only the pages are written.
func TestReindexWorkflow(t *testing.T) {
	for _, skip := range []bool{false, true} {
		var calls []string
		env := reindexEnv(&calls, nil, nil)
		env.ExecuteWorkflow(ReindexWorkflow, crawlapi.ReindexInput{Topic: "roses", SkipRebuild: skip})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		var st crawlapi.ReindexState
		if err := env.GetWorkflowResult(&st); err != nil {
			t.Fatal(err)
		}
		want, wantIndex := []string{"pages roses", "rebuild roses"}, "idx-roses-000002"
		if skip {
			want, wantIndex = want[:1], ""
		}
		if !slices.Equal(calls, want) || st.Phase != crawlapi.PhaseCompleted || st.Topic != "roses" ||
			st.Rebuild.Index != wantIndex || st.Pages.Written != 11 || st.EndedAt.IsZero() {
			t.Errorf("skip rebuild %v: calls %v, state %+v; want calls %v, completed with both results", skip, calls, st, want)
		}
	}
}

// TestReindexWorkflowNoTopic: a topic the store does not know ends the
// workflow at once with the activity's error (not retried).
func TestReindexWorkflowNoTopic(t *testing.T) {
	var calls []string
	env := reindexEnv(&calls, temporal.NewNonRetryableApplicationError("topic \"roses\" has never been crawled", crawlapi.ErrNoTopic, nil), nil)
	env.ExecuteWorkflow(ReindexWorkflow, crawlapi.ReindexInput{Topic: "roses", SkipRebuild: true})
	err := env.GetWorkflowError()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrNoTopic || !strings.Contains(err.Error(), "never been crawled") || len(calls) != 1 {
		t.Errorf("error %v after calls %v; want the NoTopic error after one attempt", err, calls)
	}
}

// TestReindexWorkflowRebuildLeftover: a rebuild that finds the next index
// left by an earlier one fails the workflow after one attempt, its error
// (which says what to delete) kept; the pages were written before it.
func TestReindexWorkflowRebuildLeftover(t *testing.T) {
	var calls []string
	env := reindexEnv(&calls, nil, temporal.NewApplicationError("index idx-roses-000002 exists, delete it and retry", crawlapi.ErrRebuildLeftover))
	env.ExecuteWorkflow(ReindexWorkflow, crawlapi.ReindexInput{Topic: "roses"})
	err := env.GetWorkflowError()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrRebuildLeftover || !slices.Equal(calls, []string{"pages roses", "rebuild roses"}) {
		t.Errorf("error %v after calls %v; want the leftover error after one rebuild attempt, the pages written first", err, calls)
	}
}

// TestReindexWorkflowRebuildOnly: with RebuildOnly the pages are not
// written again; a rebuild that fails is not retried (a retry would find
// the index its first attempt made), and the state says where it failed;
// both options at once are refused.
func TestReindexWorkflowRebuildOnly(t *testing.T) {
	var calls []string
	env := reindexEnv(&calls, nil, nil)
	env.ExecuteWorkflow(ReindexWorkflow, crawlapi.ReindexInput{Topic: "roses", RebuildOnly: true})
	if err := env.GetWorkflowError(); err != nil || !slices.Equal(calls, []string{"rebuild roses"}) {
		t.Errorf("rebuild only: %v, calls %v; want the rebuild alone", err, calls)
	}

	calls = nil
	env = reindexEnv(&calls, nil, errors.New("task poll: 503"))
	env.ExecuteWorkflow(ReindexWorkflow, crawlapi.ReindexInput{Topic: "roses"})
	var st crawlapi.ReindexState
	if v, qerr := env.QueryWorkflow(crawlapi.QueryReindexStatus); qerr == nil {
		_ = v.Get(&st)
	}
	if env.GetWorkflowError() == nil || !slices.Equal(calls, []string{"pages roses", "rebuild roses"}) || st.FailedIn != crawlapi.PhaseRebuilding {
		t.Errorf("failed rebuild: %v, calls %v, failed in %q; want one rebuild attempt, failed in %s", env.GetWorkflowError(), calls, st.FailedIn, crawlapi.PhaseRebuilding)
	}

	calls = nil
	env = reindexEnv(&calls, nil, nil)
	env.ExecuteWorkflow(ReindexWorkflow, crawlapi.ReindexInput{Topic: "roses", RebuildOnly: true, SkipRebuild: true})
	if env.GetWorkflowError() == nil || len(calls) != 0 {
		t.Errorf("both options: %v, calls %v; want refused, nothing run", env.GetWorkflowError(), calls)
	}
}
