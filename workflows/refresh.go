package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/activities"
)

// QueryRefreshStatus is RefreshWorkflow's status query (returns RefreshState).
const QueryRefreshStatus = "status"

// Refresh phases.
const (
	PhaseRefreshing = "refreshing"
	PhaseContinuing = "continuing" // the bounded crawl continuation runs
	PhaseBootstrap  = "bootstrap"  // the topic was never crawled: the first crawl runs
)

// refreshBatchesPerRun bounds the batches of one workflow run before it
// continues as new (each batch adds about a dozen history events).
const refreshBatchesPerRun = 200

// RefreshInput starts a refresh of one topic, or continues one.
type RefreshInput struct {
	Topic string
	// TopicYAML is optional. When the topic has never been crawled, a run
	// with TopicYAML starts the first crawl (a child TopicCrawlWorkflow)
	// instead, so a schedule can be created before any crawl ran.
	TopicYAML string
	// BatchesPerRun overrides refreshBatchesPerRun (tests).
	BatchesPerRun int
	Continued     *RefreshState
}

// RefreshState is RefreshWorkflow's whole state and its result.
type RefreshState struct {
	RefreshID    string
	Topic        string
	TopicVersion int
	ModelVersion int
	Params       activities.RefreshParams
	Phase        string
	Reason       string
	StartedAt    time.Time
	EndedAt      time.Time
	Runs         int
	Due          int // pages due when the refresh started
	Batches      int
	Claimed      int

	Checked, NotModified, Unchanged int
	Changed, Gone, Failed           int
	Kept, Removed                   int // changed pages kept in / removed from the index
	Links, Enqueued                 int // out-links of changed pages; new frontier entries
	FailedBatches                   int
	LastError                       string
	ChildCrawlID                    string // bootstrap crawl or crawl continuation
}

// childCrawlID returns the ID of a crawl a refresh starts: crawl/<topic>/<time>-<what>.
func childCrawlID(ctx workflow.Context, topicName, what string) string {
	return fmt.Sprintf("crawl/%s/%s-%s", topicName, workflow.Now(ctx).UTC().Format("20060102T150405Z"), what)
}

// RefreshWorkflow revisits a topic's due pages in batches:
//
//	ClaimRefresh → Refetch → Parse → FilterPages → PredictLinks → FinishRefresh
//
// Refetch sends conditional requests and replaces changed pages in the
// store; the ordinary Parse, FilterPages and PredictLinks activities then
// re-parse, re-judge and re-index them and enqueue their new links, so a
// refresh judges pages exactly as a crawl does. FinishRefresh removes gone
// and no-longer-relevant pages from the index and schedules each page's next
// visit (revisit.Next). When refresh.continue_max_pages > 0 and
// new links were found, a bounded crawl continuation runs as a child.
// Only counts and IDs pass through history.
func RefreshWorkflow(ctx workflow.Context, in RefreshInput) (*RefreshState, error) {
	st := in.Continued
	if st == nil {
		st = &RefreshState{RefreshID: workflow.GetInfo(ctx).WorkflowExecution.ID, Topic: in.Topic,
			StartedAt: workflow.Now(ctx), Phase: PhaseStarting}
	}
	st.Runs++
	if err := workflow.SetQueryHandler(ctx, QueryRefreshStatus, func() (*RefreshState, error) { return st, nil }); err != nil {
		return nil, err
	}
	short := workflow.WithActivityOptions(ctx, shortOptions())
	if in.Continued == nil {
		var r activities.StartRefreshResult
		err := workflow.ExecuteActivity(short, activities.NameStartRefresh, activities.StartRefreshInput{
			RefreshID: st.RefreshID, Topic: in.Topic,
		}).Get(ctx, &r)
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) && appErr.Type() == activities.ErrNoTopic && in.TopicYAML != "" {
			st.Phase = PhaseBootstrap
			return st, runChildCrawl(ctx, st, in.TopicYAML, 0, "first")
		}
		if err != nil {
			return st, err // unwrapped: the ActivityError names StartRefresh and keeps the NoTopic type visible
		}
		st.TopicVersion, st.ModelVersion, st.Params, st.Due = r.TopicVersion, r.ModelVersion, r.Params, r.Due
		st.Phase = PhaseRefreshing
		_ = workflow.UpsertMemo(ctx, map[string]any{MemoTopicVersion: st.TopicVersion})
	}
	perRun := in.BatchesPerRun
	if perRun <= 0 {
		perRun = refreshBatchesPerRun
	}
	opts := refreshStageOptions(st.Params)
	for batches := 0; st.Claimed < st.Params.MaxPages; batches++ {
		if batches >= perRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			return st, workflow.NewContinueAsNewError(ctx, RefreshWorkflow,
				RefreshInput{Topic: st.Topic, BatchesPerRun: in.BatchesPerRun, Continued: st})
		}
		st.Batches++
		batchID := fmt.Sprintf("%s/r%06d", st.RefreshID, st.Batches)
		var n int
		err := workflow.ExecuteActivity(short, activities.NameClaimRefresh, activities.RefreshClaimInput{
			Topic: st.Topic, BatchID: batchID, Max: min(max(st.Params.BatchSize, 1), st.Params.MaxPages-st.Claimed),
			MinHub: st.Params.HubMinScore,
		}).Get(ctx, &n)
		if err != nil {
			return st, fmt.Errorf("claim refresh batch %s: %w", batchID, err)
		}
		if n == 0 {
			break
		}
		st.Claimed += n
		ref := activities.BatchRef{CrawlID: st.RefreshID, Topic: st.Topic, BatchID: batchID,
			TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion}
		if err := refreshBatch(workflow.WithActivityOptions(ctx, opts), st, ref); err != nil {
			// The batch's pages stay claimed until their lease ends, then a
			// later refresh takes them again; this one goes on.
			st.FailedBatches++
			st.LastError = err.Error()
			workflow.GetLogger(ctx).Error("refresh batch failed", "batch", batchID, "error", err)
		}
	}
	if st.Params.ContinueMaxPages > 0 && st.Enqueued > 0 {
		var yaml string
		if err := workflow.ExecuteActivity(short, activities.NameTopicYAML, activities.TopicYAMLInput{
			Topic: st.Topic, Version: st.TopicVersion}).Get(ctx, &yaml); err != nil {
			return st, fmt.Errorf("load topic for the crawl continuation: %w", err)
		}
		st.Phase = PhaseContinuing
		if err := runChildCrawl(ctx, st, yaml, st.Params.ContinueMaxPages, "continue"); err != nil {
			st.LastError = err.Error()
		}
	}
	st.Phase, st.Reason, st.EndedAt = PhaseCompleted, "no pages due", workflow.Now(ctx)
	if st.Claimed >= st.Params.MaxPages {
		st.Reason = "refresh.max_pages reached"
	}
	workflow.GetLogger(ctx).Info("refresh finished", "topic", st.Topic, "checked", st.Checked,
		"changed", st.Changed, "gone", st.Gone, "removed", st.Removed)
	return st, nil
}

// refreshBatch runs one refresh batch through its stages. Parse, FilterPages
// and PredictLinks only run when the batch has changed or gone pages.
func refreshBatch(ctx workflow.Context, st *RefreshState, ref activities.BatchRef) error {
	var f activities.RefetchResult
	if err := workflow.ExecuteActivity(ctx, activities.NameRefetch, ref).Get(ctx, &f); err != nil {
		return fmt.Errorf("refetch of %s: %w", ref.BatchID, err)
	}
	st.Checked += f.Checked
	st.NotModified += f.NotModified
	st.Unchanged += f.Unchanged
	st.Changed += f.Changed
	st.Gone += f.Gone
	st.Failed += f.Failed
	if f.Changed+f.Gone+f.Skipped == 0 {
		return nil
	}
	var pr activities.PredictResult
	steps := []struct {
		name string
		out  any
	}{
		{activities.NameParse, new(activities.ParseResult)},
		{activities.NameFilterPages, new(activities.FilterResult)},
		{activities.NamePredictLinks, &pr},
	}
	for _, s := range steps {
		if err := workflow.ExecuteActivity(ctx, s.name, ref).Get(ctx, s.out); err != nil {
			return fmt.Errorf("%s of %s: %w", s.name, ref.BatchID, err)
		}
	}
	st.Links += pr.Links
	st.Enqueued += pr.Enqueued
	var fin activities.FinishRefreshResult
	if err := workflow.ExecuteActivity(ctx, activities.NameFinishRefresh, ref).Get(ctx, &fin); err != nil {
		return fmt.Errorf("FinishRefresh of %s: %w", ref.BatchID, err)
	}
	st.Kept += fin.Kept
	st.Removed += fin.Removed
	return nil
}

// runChildCrawl runs a TopicCrawlWorkflow as a child and waits for it.
func runChildCrawl(ctx workflow.Context, st *RefreshState, yaml string, maxPages int, what string) error {
	st.ChildCrawlID = childCrawlID(ctx, st.Topic, what)
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            st.ChildCrawlID,
		TypedSearchAttributes: childAttributes(ctx, KindCrawl, st.Topic),
	})
	var cs CrawlState
	err := workflow.ExecuteChildWorkflow(cctx, TopicCrawlWorkflow, CrawlInput{TopicYAML: yaml, MaxPages: maxPages}).Get(ctx, &cs)
	if err != nil {
		return fmt.Errorf("crawl %s: %w", st.ChildCrawlID, err)
	}
	st.Reason = fmt.Sprintf("crawl %s: %s", st.ChildCrawlID, cs.Reason)
	st.EndedAt = workflow.Now(ctx)
	if st.Phase == PhaseBootstrap {
		st.Phase = PhaseCompleted
	}
	return nil
}

func refreshStageOptions(p activities.RefreshParams) workflow.ActivityOptions {
	return stageOptions(activities.CrawlParams{HeartbeatTimeout: p.HeartbeatTimeout})
}

// childAttributes returns the search attributes for a child workflow: set
// only when this workflow has them, which proves the server has them
// registered (starting a child with unknown attributes would fail).
func childAttributes(ctx workflow.Context, kind, topicName string) temporal.SearchAttributes {
	if _, ok := workflow.GetTypedSearchAttributes(ctx).GetKeyword(SearchAttrTopic); ok {
		return SearchAttributes(kind, topicName)
	}
	return temporal.SearchAttributes{}
}

// stageOptions are the options of the refresh's batch stages.
func stageOptions(p activities.CrawlParams) workflow.ActivityOptions {
	hb := p.HeartbeatTimeout
	if hb <= 0 {
		hb = 30 * time.Second
	}
	return workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    hb,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 10, NonRetryableErrorTypes: nonRetryable,
		},
	}
}
