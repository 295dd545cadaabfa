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
// pagesErr is what ReindexPages answers.
func reindexEnv(calls *[]string, pagesErr error) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	crawlapi.RebuildIndex.Register(env, func(_ context.Context, in crawlapi.RebuildIndexInput) (crawlapi.RebuildIndexResult, error) {
		*calls = append(*calls, "rebuild "+in.Topic)
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

// TestReindexWorkflow: the index is rebuilt, then the pages written, and the
// result carries both; with SkipRebuild only the pages are written.
func TestReindexWorkflow(t *testing.T) {
	for _, skip := range []bool{false, true} {
		var calls []string
		env := reindexEnv(&calls, nil)
		env.ExecuteWorkflow(ReindexWorkflow, crawlapi.ReindexInput{Topic: "roses", SkipRebuild: skip})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		var st crawlapi.ReindexState
		if err := env.GetWorkflowResult(&st); err != nil {
			t.Fatal(err)
		}
		want, wantIndex := []string{"rebuild roses", "pages roses"}, "idx-roses-000002"
		if skip {
			want, wantIndex = want[1:], ""
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
	env := reindexEnv(&calls, temporal.NewNonRetryableApplicationError("topic \"roses\" has never been crawled", crawlapi.ErrNoTopic, nil))
	env.ExecuteWorkflow(ReindexWorkflow, crawlapi.ReindexInput{Topic: "roses", SkipRebuild: true})
	err := env.GetWorkflowError()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrNoTopic || !strings.Contains(err.Error(), "never been crawled") || len(calls) != 1 {
		t.Errorf("error %v after calls %v; want the NoTopic error after one attempt", err, calls)
	}
}
