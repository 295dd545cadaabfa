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
//	ReindexPages → RebuildIndex
//
// The pages are written first, into the index the topic has: their stored
// source then holds the current tokenizer's terms, which the rebuild's copy
// carries into an index made under the current analysis, so searches see
// the old index until the swap and the whole new one after it. The other
// order would serve, for the whole rewrite, an index whose queries are
// analysed anew over documents analysed the old way. Each step is an
// activity of its own, so that a retry of one never redoes the other;
// ReindexPages resumes from its last heartbeat. Only counts and names pass
// through history.
func ReindexWorkflow(ctx workflow.Context, in crawlapi.ReindexInput) (*crawlapi.ReindexState, error) {
	st := &crawlapi.ReindexState{ReindexID: workflow.GetInfo(ctx).WorkflowExecution.ID, Topic: in.Topic,
		Phase: crawlapi.PhaseStarting, StartedAt: workflow.Now(ctx)}
	if err := workflow.SetQueryHandler(ctx, crawlapi.QueryReindexStatus, func() (*crawlapi.ReindexState, error) { return st, nil }); err != nil {
		return nil, err
	}
	if in.SkipRebuild && in.RebuildOnly {
		return st, temporal.NewNonRetryableApplicationError("reindex: skip-rebuild and rebuild-only leave nothing to do", crawlapi.ErrBadInput, nil)
	}
	if !in.RebuildOnly {
		st.Phase = crawlapi.PhaseWriting
		// A rewrite of a big topic takes hours and checkpoints every
		// chunk: an index or store outage in the middle (a rolling
		// restart) is waited out, not a reason to start over; a page it
		// cannot write for good is counted and skipped by the activity.
		o := reindexOptions()
		o.RetryPolicy.MaximumAttempts = 0
		o.ScheduleToCloseTimeout = 48 * time.Hour
		r, err := crawlapi.ReindexPages.Run(workflow.WithActivityOptions(ctx, o),
			crawlapi.ReindexPagesInput{ReindexID: st.ReindexID, Topic: in.Topic})
		if err != nil {
			st.FailedIn = st.Phase
			return st, err // unwrapped, as RefreshWorkflow's: the ActivityError names the activity and keeps its type visible
		}
		st.Pages = r
	}
	if !in.SkipRebuild {
		st.Phase = crawlapi.PhaseRebuilding
		// One attempt: an attempt that failed after making the next index
		// (a worker restarted during the copy, a lost answer) would find
		// it on a retry and could not tell whether its copy still runs.
		// The error names it; an operator deletes it once no copy runs and
		// starts the rebuild alone (starter reindex --rebuild-only).
		o := reindexOptions()
		o.RetryPolicy.MaximumAttempts = 1
		r, err := crawlapi.RebuildIndex.Run(workflow.WithActivityOptions(ctx, o),
			crawlapi.RebuildIndexInput{ReindexID: st.ReindexID, Topic: in.Topic})
		if err != nil {
			st.FailedIn = st.Phase
			return st, err
		}
		st.Rebuild = r
	}
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
			MaximumAttempts: 10, NonRetryableErrorTypes: append([]string{crawlapi.ErrRebuildLeftover}, nonRetryable...),
		},
	}
}
