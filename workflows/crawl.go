// Package workflows holds focuscrawl's Temporal workflows. TopicCrawlWorkflow
// runs one topic crawl as a loop of batch pipelines
//
//	ClaimBatch → Fetch → Parse → FilterPages → PredictLinks
//
// with several pipelines in flight, until the page budget is spent, the
// frontier is empty or an operator stops it. Workflow code only schedules:
// it keeps counters and IDs, never page bodies or URL lists, which live in
// the crawl store, and it continues as new before its history grows large.
package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/activities"
)

// Signal and query names of TopicCrawlWorkflow.
const (
	SignalPause    = "pause"
	SignalResume   = "resume"
	SignalStop     = "stop"
	SignalAddSeeds = "add-seeds" // payload: []string of URLs
	// SignalUpdateTopic carries a new version of the crawl's topic file
	// (payload: string, at most topic.MaxFileBytes); batches started after
	// the UpdateTopic activity returns use it (seed 000's variable topic).
	SignalUpdateTopic = "update-topic"
	QueryStatus       = "status" // returns CrawlState
)

// Crawl phases, as reported by the status query.
const (
	PhaseStarting  = "starting"
	PhaseCrawling  = "crawling"
	PhasePaused    = "paused"
	PhaseStopping  = "stopping"
	PhaseCompleted = "completed"
	PhaseStopped   = "stopped"
)

// CrawlInput starts a crawl, or continues one (Continued set) after
// continue-as-new.
type CrawlInput struct {
	TopicYAML string
	Fresh     bool
	// MaxPages, when > 0, lowers the topic's limits.max_pages for this crawl
	// (the bounded crawl continuation of a refresh).
	MaxPages  int
	Continued *CrawlState
}

// CrawlState is the workflow's whole state: IDs, parameters and counters.
// It is the status query's answer and the workflow's result.
type CrawlState struct {
	CrawlID      string
	Topic        string
	TopicVersion int
	ModelVersion int
	// LinkModelVersion and RankVersion are the newest learned link model
	// and IPageRank scores (LearnLinkModel, RecomputeHubAuthority); batches
	// launched afterwards read exactly these versions. LearnedAt and
	// RankedAt are the Accepted counts when they were made.
	LinkModelVersion, RankVersion int
	LearnedAt, RankedAt           int
	Params                        activities.CrawlParams
	Phase                         string
	Reason                        string // why the crawl ended
	StartedAt                     time.Time
	EndedAt                       time.Time
	Runs                          int // workflow runs (1 + continue-as-new count)

	// ExpandedAt is the Accepted count of the last seed expansion
	// (ExpandSeeds); Expanded counts the frontier entries expansion added
	// and CandidateKeywords the candidate keywords last recorded.
	ExpandedAt, Expanded, CandidateKeywords int

	Paused        bool
	StopRequested bool
	InFlight      int // batches being processed
	Batches       int // batches claimed, also the batch ID sequence
	Claimed       int // frontier entries claimed (the page budget spent)
	Queued        int // frontier entries waiting, as of the last claim

	Fetched, OK, Failed, Skipped int
	Parsed, ParseFailed          int
	Accepted, Rejected           int
	Duplicates, Indexed          int
	Links, Enqueued              int
	FailedBatches                int
	LastError                    string
}

// HarvestRate is the share of fetched pages that were accepted as relevant.
func (s *CrawlState) HarvestRate() float64 {
	if s.OK == 0 {
		return 0
	}
	return float64(s.Accepted) / float64(s.OK)
}

// batchOutcome is what a finished pipeline reports to the main loop.
type batchOutcome struct {
	BatchID string
	Fetch   activities.FetchResult
	Parse   activities.ParseResult
	Filter  activities.FilterResult
	Predict activities.PredictResult
	Err     error
}

var nonRetryable = []string{activities.ErrInvalidTopic, activities.ErrBadInput, activities.ErrNoTopic}

func shortOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 20, NonRetryableErrorTypes: nonRetryable,
		},
	}
}

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

// TopicCrawlWorkflow crawls one topic. See the package documentation.
func TopicCrawlWorkflow(ctx workflow.Context, in CrawlInput) (*CrawlState, error) {
	st := &CrawlState{}
	if in.Continued != nil {
		st = in.Continued
	} else {
		st.CrawlID = workflow.GetInfo(ctx).WorkflowExecution.ID
		st.StartedAt = workflow.Now(ctx)
		st.Phase = PhaseStarting
	}
	st.Runs++
	if err := workflow.SetQueryHandler(ctx, QueryStatus, func() (*CrawlState, error) { return st, nil }); err != nil {
		return nil, err
	}
	logger := workflow.GetLogger(ctx)

	if in.Continued == nil {
		var r activities.StartCrawlResult
		sctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: 10 * time.Minute, HeartbeatTimeout: time.Minute,
			RetryPolicy: shortOptions().RetryPolicy,
		})
		err := workflow.ExecuteActivity(sctx, activities.NameStartCrawl, activities.StartCrawlInput{
			CrawlID: st.CrawlID, TopicYAML: in.TopicYAML, Fresh: in.Fresh,
		}).Get(ctx, &r)
		if err != nil {
			return st, fmt.Errorf("start crawl: %w", err)
		}
		st.Topic, st.TopicVersion, st.ModelVersion, st.Params = r.Topic, r.TopicVersion, r.ModelVersion, r.Params
		if in.MaxPages > 0 && in.MaxPages < st.Params.MaxPages {
			st.Params.MaxPages = in.MaxPages
		}
		st.Queued = r.Seeded
		// Operator experience (issue 7): the topic version in the memo. The
		// search attributes are set by whoever starts the workflow (see
		// SearchAttributes): an upsert here would wedge the workflow on a
		// server where they are not registered.
		if err := workflow.UpsertMemo(ctx, map[string]any{MemoTopicVersion: st.TopicVersion}); err != nil {
			return st, fmt.Errorf("set memo: %w", err)
		}
		st.Phase = PhaseCrawling
		logger.Info("crawl started", "topic", st.Topic, "seeded", r.Seeded, "max_pages", st.Params.MaxPages)
	}

	c := &crawler{ctx: ctx, st: st, done: workflow.NewChannel(ctx)}
	return c.run()
}

// crawler is the main loop's state that is not part of CrawlState.
type crawler struct {
	ctx            workflow.Context
	st             *CrawlState
	done           workflow.Channel
	frontierDry    bool // the last claim found nothing while batches were in flight
	draining       bool // finishing in-flight batches before continue-as-new
	batchesThisRun int
}

func (c *crawler) run() (*CrawlState, error) {
	ctx, st := c.ctx, c.st
	short := workflow.WithActivityOptions(ctx, shortOptions())
	pauseCh := workflow.GetSignalChannel(ctx, SignalPause)
	resumeCh := workflow.GetSignalChannel(ctx, SignalResume)
	stopCh := workflow.GetSignalChannel(ctx, SignalStop)
	seedsCh := workflow.GetSignalChannel(ctx, SignalAddSeeds)
	topicCh := workflow.GetSignalChannel(ctx, SignalUpdateTopic)
	onTopic := func(workflow.ReceiveChannel, bool) { c.updateTopic(topicCh) }

	onPause := func(workflow.ReceiveChannel, bool) {
		pauseCh.Receive(ctx, nil)
		if !st.Paused && !st.StopRequested {
			st.Paused, st.Phase = true, PhasePaused
			c.setState(short, "paused")
		}
	}
	onResume := func(workflow.ReceiveChannel, bool) {
		resumeCh.Receive(ctx, nil)
		if st.Paused {
			st.Paused, st.Phase = false, PhaseCrawling
			c.setState(short, "running")
		}
	}
	onStop := func(workflow.ReceiveChannel, bool) {
		stopCh.Receive(ctx, nil)
		st.StopRequested, st.Paused, st.Phase = true, false, PhaseStopping
	}
	onSeeds := func(workflow.ReceiveChannel, bool) {
		var urls []string
		seedsCh.Receive(ctx, &urls)
		var n int
		err := workflow.ExecuteActivity(short, activities.NameAddSeeds, activities.AddSeedsInput{
			CrawlID: st.CrawlID, Topic: st.Topic, TopicVersion: st.TopicVersion, URLs: urls,
		}).Get(ctx, &n)
		if err != nil {
			st.LastError = "add-seeds: " + err.Error()
			return
		}
		st.Queued += n
		c.frontierDry = false
	}
	onDone := func(workflow.ReceiveChannel, bool) {
		var o batchOutcome
		c.done.Receive(ctx, &o)
		c.absorb(o)
		c.learnAndRank(false)
		c.expandSeeds() // expand.go
	}
	// drain handles every signal already delivered, without blocking.
	drain := func() {
		for {
			sel := workflow.NewSelector(ctx)
			sel.AddReceive(pauseCh, onPause).AddReceive(resumeCh, onResume).
				AddReceive(stopCh, onStop).AddReceive(seedsCh, onSeeds).AddReceive(topicCh, onTopic)
			if !sel.HasPending() {
				return
			}
			sel.Select(ctx)
		}
	}

	for {
		drain()
		if st.StopRequested && st.InFlight == 0 {
			return c.finish(short, PhaseStopped, "stopped by operator")
		}
		if c.batchesThisRun >= st.Params.BatchesPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			c.draining = true
		}
		if !st.Paused && !st.StopRequested && !c.draining && !c.frontierDry &&
			st.InFlight < st.Params.Pipelines && st.Claimed < st.Params.MaxPages {
			launched, err := c.claimAndLaunch(short)
			if err != nil {
				return st, err
			}
			if launched {
				continue
			}
			if st.InFlight == 0 {
				return c.finish(short, PhaseCompleted, "frontier exhausted")
			}
			c.frontierDry = true
		}
		if st.InFlight == 0 && !st.Paused {
			switch {
			case c.draining:
				drain()
				logger := workflow.GetLogger(ctx)
				logger.Info("continuing as new", "batches", st.Batches, "claimed", st.Claimed)
				return st, workflow.NewContinueAsNewError(ctx, TopicCrawlWorkflow, CrawlInput{Continued: st})
			case st.Claimed >= st.Params.MaxPages:
				return c.finish(short, PhaseCompleted, "page budget reached")
			}
		}
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(c.done, onDone).AddReceive(pauseCh, onPause).AddReceive(resumeCh, onResume).
			AddReceive(stopCh, onStop).AddReceive(seedsCh, onSeeds).AddReceive(topicCh, onTopic)
		sel.Select(ctx)
	}
}

// claimAndLaunch claims the next batch and starts its pipeline. It reports
// false when the frontier had nothing to give.
func (c *crawler) claimAndLaunch(short workflow.Context) (bool, error) {
	st := c.st
	st.Batches++
	c.batchesThisRun++
	batchID := fmt.Sprintf("%s/b%06d", st.CrawlID, st.Batches)
	var r activities.ClaimResult
	err := workflow.ExecuteActivity(short, activities.NameClaimBatch, activities.ClaimInput{
		CrawlID: st.CrawlID, Topic: st.Topic, BatchID: batchID,
		Max:        min(st.Params.BatchSize, st.Params.MaxPages-st.Claimed),
		MaxPerHost: st.Params.MaxPerHostInBatch, Lease: st.Params.Lease,
	}).Get(c.ctx, &r)
	if err != nil {
		return false, fmt.Errorf("claim batch %s: %w", batchID, err)
	}
	st.Queued = r.Queued
	if r.Size == 0 {
		return false, nil
	}
	st.Claimed += r.Size
	st.InFlight++
	ref := activities.BatchRef{CrawlID: st.CrawlID, Topic: st.Topic, BatchID: batchID,
		TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion,
		LinkModelVersion: st.LinkModelVersion, RankVersion: st.RankVersion}
	opts := stageOptions(st.Params)
	workflow.Go(c.ctx, func(gctx workflow.Context) {
		o := runPipeline(workflow.WithActivityOptions(gctx, opts), ref)
		c.done.Send(gctx, o)
	})
	return true, nil
}

// runPipeline runs one batch through its stages.
func runPipeline(ctx workflow.Context, ref activities.BatchRef) batchOutcome {
	o := batchOutcome{BatchID: ref.BatchID}
	steps := []struct {
		name string
		out  any
	}{
		{activities.NameFetch, &o.Fetch},
		{activities.NameParse, &o.Parse},
		{activities.NameFilterPages, &o.Filter},
		{activities.NamePredictLinks, &o.Predict},
	}
	for _, s := range steps {
		if err := workflow.ExecuteActivity(ctx, s.name, ref).Get(ctx, s.out); err != nil {
			o.Err = fmt.Errorf("%s of batch %s: %w", s.name, ref.BatchID, err)
			return o
		}
	}
	return o
}

// absorb adds a finished batch's counts to the state.
func (c *crawler) absorb(o batchOutcome) {
	st := c.st
	st.InFlight--
	c.frontierDry = false
	st.Fetched += o.Fetch.Fetched
	st.OK += o.Fetch.OK
	st.Failed += o.Fetch.Failed
	st.Skipped += o.Fetch.Skipped
	st.Parsed += o.Parse.Parsed
	st.ParseFailed += o.Parse.Failed
	st.Accepted += o.Filter.Accepted
	st.Rejected += o.Filter.Rejected
	st.Duplicates += o.Filter.Duplicates
	st.Indexed += o.Filter.Indexed
	st.Links += o.Predict.Links
	st.Enqueued += o.Predict.Enqueued
	if o.Err != nil {
		st.FailedBatches++
		st.LastError = o.Err.Error()
		workflow.GetLogger(c.ctx).Error("batch failed", "batch", o.BatchID, "error", o.Err)
	}
}

func (c *crawler) setState(short workflow.Context, state string) {
	err := workflow.ExecuteActivity(short, activities.NameSetCrawlState, activities.SetCrawlStateInput{
		CrawlID: c.st.CrawlID, State: state,
	}).Get(c.ctx, nil)
	if err != nil {
		c.st.LastError = "record state: " + err.Error()
	}
}

func (c *crawler) finish(short workflow.Context, phase, reason string) (*CrawlState, error) {
	c.learnAndRank(true)
	c.st.Phase, c.st.Reason, c.st.EndedAt = phase, reason, workflow.Now(c.ctx)
	state := "completed"
	if phase == PhaseStopped {
		state = "stopped"
	}
	c.setState(short, state)
	workflow.GetLogger(c.ctx).Info("crawl finished", "reason", reason, "fetched", c.st.Fetched, "accepted", c.st.Accepted)
	return c.st, nil
}
