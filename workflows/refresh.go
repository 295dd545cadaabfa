package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
)

// refreshBatchesPerRun bounds the batches of one workflow run before it
// continues as new (each batch adds about a dozen history events).
const refreshBatchesPerRun = 200

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
// A refresh that ends with no page (more) due says when the next is due:
// StartRefresh's outlook, or NextRefresh's once it has rescheduled pages.
// Every activity after StartRefresh is given the topic version and the time
// StartRefresh's crawl store recorded it, so that a worker with another
// store refuses it (ErrWrongStore) instead of finding nothing to do there.
// Only counts, times and IDs pass through history.
func RefreshWorkflow(ctx workflow.Context, in crawlapi.RefreshInput) (*crawlapi.RefreshState, error) {
	st := in.Continued
	if st == nil {
		st = &crawlapi.RefreshState{RefreshID: workflow.GetInfo(ctx).WorkflowExecution.ID, Topic: in.Topic,
			StartedAt: workflow.Now(ctx), Phase: crawlapi.PhaseStarting}
	}
	st.Runs++
	if err := workflow.SetQueryHandler(ctx, crawlapi.QueryRefreshStatus, func() (*crawlapi.RefreshState, error) { return st, nil }); err != nil {
		return nil, err
	}
	short := workflow.WithActivityOptions(ctx, shortOptions())
	if in.Continued == nil {
		start := crawlapi.StartRefreshInput{RefreshID: st.RefreshID, Topic: in.Topic}
		if in.All {
			// Due at the refresh's start, which its claims take (dueBy
			// below); no command of its own, so replay-safe.
			start.DueAt = st.StartedAt
		}
		r, err := crawlapi.StartRefresh.Execute(short, start).Get(ctx)
		// Cancelled while StartRefresh ran: the refresh ends cancelled in
		// its own state too. The workflow ended Canceled before as well,
		// but its status query kept "starting", never ended. StartRefresh
		// leases nothing (pages it may have made due, --all, stay due for
		// the next refresh), so there is nothing to wait for or release.
		// Asked only once cancelled: runs recorded before replay so.
		if err != nil && ctx.Err() != nil && workflow.GetVersion(ctx, "refresh-canceled-at-start", workflow.DefaultVersion, 1) == 1 {
			return refreshCanceled(ctx, st, "while the refresh started")
		}
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) && appErr.Type() == crawlapi.ErrNoTopic && in.TopicYAML != "" {
			// The store that did not know the topic, for an operator who
			// knows it was crawled (a worker with another store); older
			// workers send none.
			var storeDesc string
			if appErr.HasDetails() && appErr.Details(&storeDesc) == nil {
				st.Store = storeDesc
			}
			st.Phase = crawlapi.PhaseBootstrap
			err := runChildCrawl(ctx, st, in.TopicYAML, 0, "first")
			// Cancelled while the first crawl ran: the refresh ends
			// cancelled, as the crawl did (runChildCrawl waited for its
			// end), and as a cancelled continuation does. Its status query
			// kept "bootstrap", never ended; runs recorded before replay so.
			if ctx.Err() != nil && workflow.GetVersion(ctx, "refresh-canceled-in-bootstrap", workflow.DefaultVersion, 1) == 1 {
				if err != nil && !temporal.IsCanceledError(err) { // it failed for its own reason as the cancel came
					st.SetError(workflow.Now(ctx), err.Error())
				}
				return refreshCanceled(ctx, st, "during the topic's first crawl")
			}
			if err != nil {
				return refreshFailed(ctx, st, "the topic's first crawl failed", err)
			}
			return st, nil
		}
		if err != nil {
			// Unwrapped: the ActivityError names StartRefresh and keeps the
			// NoTopic type visible.
			return refreshFailed(ctx, st, "StartRefresh failed", err)
		}
		st.TopicVersion, st.ModelVersion, st.Params, st.Due, st.MadeDue = r.TopicVersion, r.ModelVersion, r.Params, r.Due, r.MadeDue
		st.Store, st.Outlook, st.TopicStoredAt = r.Store, r.Outlook, r.TopicStoredAt
		st.Phase = crawlapi.PhaseRefreshing
		_ = workflow.UpsertMemo(ctx, map[string]any{crawlapi.MemoTopicVersion: st.TopicVersion})
	}
	perRun := in.BatchesPerRun
	if perRun <= 0 {
		perRun = refreshBatchesPerRun
	}
	opts := refreshStageOptions(st.Params)
	// Claims take only the pages due at the refresh's start, so that a page
	// it revisited, due again before it ends (a short
	// refresh.min_interval, a long run), is not fetched twice in one
	// refresh. Runs recorded before this claimed whatever was due then.
	var dueBy time.Time
	if workflow.GetVersion(ctx, "refresh-due-by-start", workflow.DefaultVersion, 1) == 1 {
		dueBy = st.StartedAt
	}
	// A cancel that lands in a batch (its claim or a stage) ends the
	// refresh cancelled in its own state too. The workflow ended Canceled
	// before as well (the next claim, on the cancelled context, failed with
	// it), but its status query kept "refreshing", with the batch counted
	// failed and "canceled" as its last error. Runs recorded before replay
	// so.
	canceledMidBatch := func() bool {
		return ctx.Err() != nil && workflow.GetVersion(ctx, "refresh-canceled-mid-batch", workflow.DefaultVersion, 1) == 1
	}
	// A batch cancelled with the refresh gives its pages back at once
	// (releaseBatch); they stayed claimed for crawl.lease and were then
	// taken again only refresh.min_interval later. Its claim and stages
	// wait for their cancellation (WaitForCancellation), so that the
	// release comes after their last write: a claim ending after the
	// cancel would hold pages it took, a Refetch would hold the page it
	// was writing again (HoldRefresh), for a whole lease. Asked once a
	// run, before its first batch: the options are the batch's from its
	// start. Runs recorded before neither wait nor release.
	claimCtx := short
	releaseCanceled := workflow.GetVersion(ctx, "refresh-release-canceled-batch", workflow.DefaultVersion, 1) == 1
	if releaseCanceled {
		opts.WaitForCancellation = true
		co := shortOptions()
		co.WaitForCancellation = true
		claimCtx = workflow.WithActivityOptions(ctx, co)
	}
	for batches := 0; st.Claimed < st.Params.MaxPages; batches++ {
		if batches >= perRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			// A cancel that came with the last batch's final result (one
			// workflow task) left that batch done and the context
			// cancelled: continuing as new, the next run would not be
			// cancelled, and the cancel was lost. The crawl's continueAsNew
			// checks the same. Asked only once cancelled: runs recorded
			// before replay continuing.
			if ctx.Err() != nil && workflow.GetVersion(ctx, "refresh-canceled-before-continue-as-new", workflow.DefaultVersion, 1) == 1 {
				return refreshCanceled(ctx, st, "as its run ended, before it continued as new")
			}
			return st, crawlapi.RefreshWorkflow.ContinueAsNew(ctx,
				crawlapi.RefreshInput{Topic: st.Topic, BatchesPerRun: in.BatchesPerRun, Continued: st})
		}
		batchID := fmt.Sprintf("%s/r%06d", st.RefreshID, st.Batches+1)
		// Cancelled as the batch before ended — its last stage finished
		// after the cancel, which it waited for — or as StartRefresh did:
		// the refresh ends here, with no claim to make and release.
		if releaseCanceled && ctx.Err() != nil {
			return refreshCanceled(ctx, st, "before batch "+batchID)
		}
		st.Batches++
		n, err := crawlapi.ClaimRefresh.Execute(claimCtx, crawlapi.RefreshClaimInput{
			Topic: st.Topic, BatchID: batchID, Max: min(max(st.Params.BatchSize, 1), st.Params.MaxPages-st.Claimed),
			MinHub: st.Params.HubMinScore, TopicVersion: st.TopicVersion, TopicStoredAt: st.TopicStoredAt,
			DueBy: dueBy,
		}).Get(ctx)
		if err != nil {
			if canceledMidBatch() {
				// The claim may have taken pages before it failed, or an
				// attempt of it before this one.
				during := "while claiming batch " + batchID
				if releaseCanceled {
					during += releaseBatch(ctx, st, batchID)
				}
				return refreshCanceled(ctx, st, during)
			}
			return refreshFailed(ctx, st, "claim of batch "+batchID+" failed", fmt.Errorf("claim refresh batch %s: %w", batchID, err))
		}
		// Cancelled while the claim ran, which it waited for: its pages
		// go back unvisited.
		if releaseCanceled && ctx.Err() != nil {
			during := "while claiming batch " + batchID
			if n > 0 {
				during += releaseBatch(ctx, st, batchID)
			}
			return refreshCanceled(ctx, st, during)
		}
		if n == 0 {
			break
		}
		// Pages taken get new revisit times: StartRefresh's outlook is
		// stale from here on, whatever ends the run (max_pages, failed
		// batches, a termination). No command: replay-safe.
		st.Outlook = nil
		st.Claimed += n
		minHub := st.Params.HubMinScore
		ref := crawlapi.BatchRef{CrawlID: st.RefreshID, Topic: st.Topic, BatchID: batchID,
			TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion, TopicStoredAt: st.TopicStoredAt, MinHub: &minHub}
		if err := refreshBatch(workflow.WithActivityOptions(ctx, opts), st, ref); err != nil {
			if canceledMidBatch() {
				if !temporal.IsCanceledError(err) { // it failed for its own reason as the cancel came
					st.SetError(workflow.Now(ctx), err.Error())
				}
				during := "during batch " + batchID
				if releaseCanceled {
					during += releaseBatch(ctx, st, batchID)
				}
				return refreshCanceled(ctx, st, during)
			}
			// The batch's pages stay claimed until their lease ends, then a
			// later refresh takes them again; this one goes on.
			st.FailedBatches++
			st.FailedInRow++
			st.SetError(workflow.Now(ctx), err.Error())
			workflow.GetLogger(ctx).Error("refresh batch failed", "batch", batchID, "error", err)
			// Runs recorded before this check went on to refresh.max_pages.
			if st.FailedInRow >= crawlapi.MaxFailedBatchesInRow &&
				workflow.GetVersion(ctx, "stop-after-failed-batches", workflow.DefaultVersion, 1) == 1 {
				st.Phase, st.Reason, st.EndedAt = crawlapi.PhaseFailed,
					fmt.Sprintf("%d batches in a row failed", st.FailedInRow), workflow.Now(ctx)
				return st, fmt.Errorf("refresh of %s stopped: %d batches in a row failed; the last: %w", st.Topic, st.FailedInRow, err)
			}
			continue
		}
		st.FailedInRow = 0
	}
	if st.Params.ContinueMaxPages > 0 && st.Enqueued > 0 {
		yaml, err := crawlapi.TopicYAML.Execute(short, crawlapi.TopicYAMLInput{
			Topic: st.Topic, Version: st.TopicVersion, StoredAt: st.TopicStoredAt}).Get(ctx)
		if err != nil {
			// Cancelled meanwhile: ended as a cancelled batch does
			// (refresh-canceled-mid-batch); runs recorded before replay
			// leaving "refreshing".
			if ctx.Err() != nil && workflow.GetVersion(ctx, "refresh-canceled-loading-topic", workflow.DefaultVersion, 1) == 1 {
				return refreshCanceled(ctx, st, "while loading the topic for the crawl continuation")
			}
			return refreshFailed(ctx, st, "loading the topic for the crawl continuation failed",
				fmt.Errorf("load topic for the crawl continuation: %w", err))
		}
		st.Phase = crawlapi.PhaseContinuing
		err = runChildCrawl(ctx, st, yaml, st.Params.ContinueMaxPages, "continue")
		if err != nil {
			st.SetError(workflow.Now(ctx), err.Error())
		}
		// Cancelled while the crawl ran: the refresh ends cancelled, as the
		// crawl did. It reported completed (its NextRefresh failing at once
		// on the cancelled context); runs recorded before replay so.
		if ctx.Err() != nil && workflow.GetVersion(ctx, "refresh-canceled-in-continuation", workflow.DefaultVersion, 1) == 1 {
			return refreshCanceled(ctx, st, "during the crawl continuation")
		}
	}
	reason := "refresh.max_pages reached"
	asked := false // NextRefresh ran
	if st.Claimed < st.Params.MaxPages {
		if st.Claimed > 0 {
			// The pages taken have new revisit times: StartRefresh's
			// outlook no longer says when the next is due. Runs recorded
			// before NextRefresh end without one.
			st.Outlook = nil
			if workflow.GetVersion(ctx, "refresh-outlook-at-end", workflow.DefaultVersion, 1) == 1 {
				st.Outlook, asked = nextRefresh(ctx, st), true
			}
		}
		reason = crawlapi.NoPagesDueReason(st.Outlook, st.Claimed, workflow.Now(ctx))
	}
	if st.Phase == crawlapi.PhaseContinuing && st.Reason != "" {
		// The continuation's own end ("crawl …: page budget reached") is
		// kept beside the refresh's; it was overwritten.
		reason += "; continuation " + st.Reason
	}
	// Cancelled as the refresh ended — while NextRefresh ran, or with the
	// last result of the batch that reached refresh.max_pages, which ends
	// the loop before its check — the refresh ends cancelled, as a crawl
	// cancelled during its final steps does (crawler.end): the server's
	// status of the workflow is then Canceled, and its own phase says so.
	// It completed "completed", the cancel ignored: NextRefresh failed at
	// once on the cancelled context and was only logged. Its batches are
	// done (nothing to release); the reason keeps why it ended. Asked only
	// once cancelled: runs recorded before replay completing.
	if ctx.Err() != nil && workflow.GetVersion(ctx, "refresh-canceled-at-end", workflow.DefaultVersion, 1) == 1 {
		during := "as it ended, after its last batch (" + reason + ")"
		if asked {
			during = "while it asked when the next page is due, after its last batch (" + reason + ")"
		}
		return refreshCanceled(ctx, st, during)
	}
	st.Phase, st.Reason, st.EndedAt = crawlapi.PhaseCompleted, reason, workflow.Now(ctx)
	workflow.GetLogger(ctx).Info("refresh finished", "topic", st.Topic, "reason", st.Reason, "checked", st.Checked,
		"changed", st.Changed, "gone", st.Gone, "removed", st.Removed)
	return st, nil
}

// refreshCanceled ends a refresh whose workflow was cancelled (ctx is)
// during what says: its phase is canceled, as the server's status of the
// workflow is, so its status query and `starter status` agree.
func refreshCanceled(ctx workflow.Context, st *crawlapi.RefreshState, during string) (*crawlapi.RefreshState, error) {
	st.Phase, st.Reason, st.EndedAt = crawlapi.PhaseCanceled, "workflow cancelled "+during, workflow.Now(ctx)
	workflow.GetLogger(ctx).Info("refresh cancelled", "topic", st.Topic, "reason", st.Reason)
	return st, ctx.Err()
}

// refreshFailed ends a refresh that cannot go on (err: StartRefresh, its
// first crawl, a claim or the topic's load for its continuation failed
// after their retries) as refreshCanceled ends a cancelled one: phase
// failed, as the server's status of the workflow is, with why, its end and
// err as its last error, so its status query and `starter status` agree.
// They kept the phase the refresh failed in ("starting", "bootstrap",
// "refreshing"), never ended; only three failed batches in a row ended
// failed. It returns err unchanged, so the workflow fails as it did: the
// state is no command, and runs recorded before replay alike (their status
// query, replayed, now says failed too). An err that is the workflow's
// cancellation, in a run recorded before its canceled ending (the
// refresh-canceled-* versions), is no failure: the workflow ends Canceled,
// and the state stays as that run left it.
func refreshFailed(ctx workflow.Context, st *crawlapi.RefreshState, reason string, err error) (*crawlapi.RefreshState, error) {
	if ctx.Err() != nil && temporal.IsCanceledError(err) {
		return st, err
	}
	now := workflow.Now(ctx)
	st.Phase, st.Reason, st.EndedAt = crawlapi.PhaseFailed, reason, now
	st.SetError(now, err.Error())
	workflow.GetLogger(ctx).Error("refresh failed", "topic", st.Topic, "reason", reason, "error", err)
	return st, err
}

// releaseBatch ends the claim of batch batchID of a refresh cancelled
// while the batch ran (ReleaseRefresh), once its claim and stages have
// ended: the pages it still holds are claimable again at once, and the
// next claim of each revisits it as after a failed batch, redoing the
// index writes this one may have left undone. It runs on a disconnected
// context: on the cancelled one it failed at once. It returns what the
// refresh's reason adds, how many pages went back. A release that fails
// is the refresh's last error; its pages then wait for their lease and
// retry delay, as they all did before.
func releaseBatch(ctx workflow.Context, st *crawlapi.RefreshState, batchID string) string {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	n, err := crawlapi.ReleaseRefresh.Execute(workflow.WithActivityOptions(dctx, shortOptions()), crawlapi.ReleaseRefreshInput{
		Topic: st.Topic, BatchID: batchID, TopicVersion: st.TopicVersion, TopicStoredAt: st.TopicStoredAt,
	}).Get(dctx)
	if err != nil {
		st.SetError(workflow.Now(ctx), fmt.Sprintf("release refresh batch %s: %v", batchID, err))
		return "; its claim was not released"
	}
	return fmt.Sprintf("; the %d pages it still held were released", n)
}

// nextRefresh asks when the topic's next page is due (nil when that cannot
// be learnt). It words the reason only, so it gets few attempts: a refresh
// that has done its work must not wait out a failing store for it.
func nextRefresh(ctx workflow.Context, st *crawlapi.RefreshState) *crawlapi.RefreshOutlook {
	opts := shortOptions()
	opts.RetryPolicy.MaximumAttempts = 3
	o, err := crawlapi.NextRefresh.Run(workflow.WithActivityOptions(ctx, opts),
		crawlapi.NextRefreshInput{Topic: st.Topic, MinHub: st.Params.HubMinScore,
			TopicVersion: st.TopicVersion, TopicStoredAt: st.TopicStoredAt})
	if err != nil {
		if ctx.Err() != nil { // cancelled: the refresh ends so (refresh-canceled-at-end), no warning
			workflow.GetLogger(ctx).Info("refresh: cancelled while it asked when the next page is due", "topic", st.Topic)
			return nil
		}
		workflow.GetLogger(ctx).Warn("refresh: when the next page is due is unknown", "topic", st.Topic, "error", err)
		return nil
	}
	return &o
}

// refreshBatch runs one refresh batch through its stages. Parse, FilterPages
// and PredictLinks only run when the batch has changed or gone pages.
func refreshBatch(ctx workflow.Context, st *crawlapi.RefreshState, ref crawlapi.BatchRef) error {
	f, err := crawlapi.Refetch.Run(ctx, ref)
	if err != nil {
		return fmt.Errorf("refetch of %s: %w", ref.BatchID, err)
	}
	st.AddRefetch(f)
	if f.Changed+f.Gone+f.Skipped == 0 {
		return nil
	}
	if _, err := crawlapi.Parse.Run(ctx, ref); err != nil {
		return fmt.Errorf("%s of %s: %w", crawlapi.Parse.Name, ref.BatchID, err)
	}
	if _, err := crawlapi.FilterPages.Run(ctx, ref); err != nil {
		return fmt.Errorf("%s of %s: %w", crawlapi.FilterPages.Name, ref.BatchID, err)
	}
	pr, err := crawlapi.PredictLinks.Run(ctx, ref)
	if err != nil {
		return fmt.Errorf("%s of %s: %w", crawlapi.PredictLinks.Name, ref.BatchID, err)
	}
	st.Links += pr.Links
	st.Enqueued += pr.Enqueued
	fin, err := crawlapi.FinishRefresh.Run(ctx, ref)
	if err != nil {
		return fmt.Errorf("%s of %s: %w", crawlapi.FinishRefresh.Name, ref.BatchID, err)
	}
	st.Kept += fin.Kept
	st.Removed += fin.Removed
	return nil
}

// runChildCrawl runs a TopicCrawlWorkflow as a child and waits for it,
// also when cancelled: a cancelled crawl releases its slices and records
// its end before it closes, and the refresh closing first would have it
// terminated (the default parent-close policy). WaitForCancellation says
// so; the SDK (v1.50) waits for a child's close anyway and sends no
// command for the option, so runs recorded before replay alike.
func runChildCrawl(ctx workflow.Context, st *crawlapi.RefreshState, yaml string, maxPages int, what string) error {
	st.ChildCrawlID = childCrawlID(ctx, st.Topic, what)
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            st.ChildCrawlID,
		TypedSearchAttributes: childAttributes(ctx, crawlapi.KindCrawl, st.Topic),
		WaitForCancellation:   true,
	})
	cs, err := crawlapi.TopicCrawlWorkflow.ExecuteChild(cctx, crawlapi.CrawlInput{TopicYAML: yaml, MaxPages: maxPages}).Get(ctx)
	if err != nil {
		return fmt.Errorf("crawl %s: %w", st.ChildCrawlID, err)
	}
	st.Reason = fmt.Sprintf("crawl %s: %s", st.ChildCrawlID, cs.Reason)
	st.EndedAt = workflow.Now(ctx)
	if st.Phase == crawlapi.PhaseBootstrap {
		st.Phase = crawlapi.PhaseCompleted
	}
	return nil
}

func refreshStageOptions(p crawlapi.RefreshParams) workflow.ActivityOptions {
	return stageOptions(crawlapi.CrawlParams{HeartbeatTimeout: p.HeartbeatTimeout})
}

// childAttributes returns the search attributes for a child workflow: set
// only when this workflow has them, which proves the server has them
// registered (starting a child with unknown attributes would fail).
func childAttributes(ctx workflow.Context, kind, topicName string) temporal.SearchAttributes {
	if _, ok := workflow.GetTypedSearchAttributes(ctx).GetKeyword(crawlapi.SearchAttrTopic); ok {
		return crawlapi.SearchAttributes(kind, topicName)
	}
	return temporal.SearchAttributes{}
}

// stageOptions are the options of the refresh's batch stages.
func stageOptions(p crawlapi.CrawlParams) workflow.ActivityOptions {
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
