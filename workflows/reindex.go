package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
)

// ReindexWorkflow writes a topic's pages into the search index again from
// the crawl store (crawlapi.ReindexWorkflow):
//
//	RebuildIndex → ReindexPages
//
// RebuildIndex is an activity of its own so that a retry of the long
// ReindexPages never makes a second new index; ReindexPages resumes from
// its last heartbeat. Only counts and names pass through history.
func ReindexWorkflow(ctx workflow.Context, in crawlapi.ReindexInput) (*crawlapi.ReindexState, error) {
	st := &crawlapi.ReindexState{ReindexID: workflow.GetInfo(ctx).WorkflowExecution.ID, Topic: in.Topic,
		Phase: crawlapi.PhaseStarting, StartedAt: workflow.Now(ctx)}
	if err := workflow.SetQueryHandler(ctx, crawlapi.QueryReindexStatus, func() (*crawlapi.ReindexState, error) { return st, nil }); err != nil {
		return nil, err
	}
	if !in.SkipRebuild {
		st.Phase = crawlapi.PhaseRebuilding
		// A rebuild copies the whole index inside the cluster (polled
		// until done): no heartbeat timeout shorter than a poll's, and
		// few attempts, since a failed one leaves a next index that an
		// operator must look at (the error says which).
		o := reindexOptions()
		o.RetryPolicy.MaximumAttempts = 3
		r, err := crawlapi.RebuildIndex.Run(workflow.WithActivityOptions(ctx, o),
			crawlapi.RebuildIndexInput{ReindexID: st.ReindexID, Topic: in.Topic})
		if err != nil {
			return st, err // unwrapped, as RefreshWorkflow's: the ActivityError names the activity and keeps its type visible
		}
		st.Rebuild = r
	}
	st.Phase = crawlapi.PhaseWriting
	r, err := crawlapi.ReindexPages.Run(workflow.WithActivityOptions(ctx, reindexOptions()),
		crawlapi.ReindexPagesInput{ReindexID: st.ReindexID, Topic: in.Topic})
	if err != nil {
		return st, err
	}
	st.Pages = r
	st.Phase, st.EndedAt = crawlapi.PhaseCompleted, workflow.Now(ctx)
	return st, nil
}

// reindexOptions are the options of ReindexWorkflow's activities: long
// runs that heartbeat their progress.
func reindexOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 12 * time.Hour,
		HeartbeatTimeout:    2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 10, NonRetryableErrorTypes: nonRetryable,
		},
	}
}
