// Package workflows holds focuscrawl's Temporal workflows. TopicCrawlWorkflow
// runs one topic crawl as a sequence of crawl slices: CrawlSlice activities
// that each run the streaming fetch path (claim a free host's best entry,
// fetch it politely, parse, judge, index and score its links) for a bounded
// time and budget, with a few slices in flight so hosts never idle while one
// slice reports. Between slices the workflow steers: budget, learning and
// ranking cadence, seed expansion, pause and stop, continue-as-new. Workflow
// code only schedules: it keeps counters and IDs, never page bodies or URL
// lists, which live in the crawl store.
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
	// and IPageRank scores (LearnLinkModel, RecomputeHubAuthority); slices
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
	InFlight      int // crawl slices running
	Slices        int // crawl slices launched, also the slice ID sequence
	Allotted      int // page budget handed to the running slices
	Claimed       int // frontier entries claimed by finished slices (the page budget spent)
	Queued        int // frontier entries waiting, as of the last slice

	Fetched, OK, Failed, Skipped int
	Parsed, ParseFailed          int
	Accepted, Rejected, Tunnel   int
	Duplicates, Indexed          int
	Links, Enqueued              int
	FailedSlices                 int
	LastError                    string
}

// HarvestRate is the share of fetched pages that were accepted as relevant.
func (s *CrawlState) HarvestRate() float64 {
	if s.OK == 0 {
		return 0
	}
	return float64(s.Accepted) / float64(s.OK)
}

// sliceOutcome is what a finished crawl slice reports to the main loop.
type sliceOutcome struct {
	SliceID string
	Allot   int
	Result  activities.SliceResult
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

func sliceOptions(p activities.CrawlParams) workflow.ActivityOptions {
	hb := p.HeartbeatTimeout
	if hb <= 0 {
		hb = 30 * time.Second
	}
	return workflow.ActivityOptions{
		// A slice claims for at most Params.Slice, then finishes what it
		// fetched; fetch timeouts bound the rest.
		StartToCloseTimeout: p.Slice + 30*time.Minute,
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
	ctx         workflow.Context
	st          *CrawlState
	done        workflow.Channel
	frontierDry bool // a slice ran out of frontier while others were in flight
	draining    bool // finishing in-flight slices before continue-as-new
	slicesRun   int  // slices launched by this run
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

	// Running slices see pause and stop through the crawl's state in the
	// store: they stop claiming, finish what they fetched and report.
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
		if !st.StopRequested {
			st.StopRequested, st.Paused, st.Phase = true, false, PhaseStopping
			c.setState(short, "stopped")
		}
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
		var o sliceOutcome
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
		if c.slicesRun >= st.Params.SlicesPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			c.draining = true
		}
		left := st.Params.MaxPages - st.Claimed - st.Allotted
		if !st.Paused && !st.StopRequested && !c.draining && !c.frontierDry &&
			st.InFlight < st.Params.Pipelines && left > 0 {
			c.launch(left)
			continue
		}
		if st.InFlight == 0 && !st.Paused {
			switch {
			case st.Claimed >= st.Params.MaxPages:
				return c.finish(short, PhaseCompleted, "page budget reached")
			case c.frontierDry:
				// A slice's "exhausted" can predate links another slice added
				// after it looked: ask the store before ending the crawl.
				// (Histories recorded before this check replay without it.)
				if workflow.GetVersion(ctx, "confirm-exhausted", workflow.DefaultVersion, 1) == 1 {
					var queued int
					if err := workflow.ExecuteActivity(short, activities.NameCountQueued, st.Topic).Get(ctx, &queued); err != nil {
						return st, fmt.Errorf("count queued entries: %w", err)
					}
					if queued > 0 {
						st.Queued, c.frontierDry = queued, false
						continue
					}
				}
				return c.finish(short, PhaseCompleted, "frontier exhausted")
			case c.draining:
				drain()
				workflow.GetLogger(ctx).Info("continuing as new", "slices", st.Slices, "claimed", st.Claimed)
				return st, workflow.NewContinueAsNewError(ctx, TopicCrawlWorkflow, CrawlInput{Continued: st})
			}
		}
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(c.done, onDone).AddReceive(pauseCh, onPause).AddReceive(resumeCh, onResume).
			AddReceive(stopCh, onStop).AddReceive(seedsCh, onSeeds).AddReceive(topicCh, onTopic)
		sel.Select(ctx)
	}
}

// launch starts one crawl slice with a share of the budget that is left.
// The first slices of a run are staggered (a half, then a whole slice
// length) so that they do not all report at once, leaving hosts idle.
func (c *crawler) launch(left int) {
	st := c.st
	st.Slices++
	c.slicesRun++
	free := st.Params.Pipelines - st.InFlight
	allot := (left + free - 1) / free
	duration := st.Params.Slice
	if c.slicesRun < st.Params.Pipelines {
		duration = duration * time.Duration(c.slicesRun) / time.Duration(st.Params.Pipelines)
	}
	in := activities.SliceInput{
		CrawlID: st.CrawlID, Topic: st.Topic, SliceID: fmt.Sprintf("%s/s%06d", st.CrawlID, st.Slices),
		TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion,
		LinkModelVersion: st.LinkModelVersion, RankVersion: st.RankVersion,
		Budget: allot, Duration: duration, Hosts: st.Params.Hosts, MinRatio: st.Params.ClaimRatio,
		Group: st.Params.BatchSize, Lease: st.Params.Lease, StopAfterAccepted: c.acceptedUntilNextStep(),
	}
	st.InFlight++
	st.Allotted += allot
	opts := workflow.WithActivityOptions(c.ctx, sliceOptions(st.Params))
	workflow.Go(c.ctx, func(gctx workflow.Context) {
		o := sliceOutcome{SliceID: in.SliceID, Allot: allot}
		o.Err = workflow.ExecuteActivity(opts, activities.NameCrawlSlice, in).Get(gctx, &o.Result)
		c.done.Send(gctx, o)
	})
}

// acceptedUntilNextStep is how many more accepted pages bring the next
// learning, ranking or seed-expansion round (0: none is due), so a slice can
// end there and the round comes at its cadence, not at the slice's length.
func (c *crawler) acceptedUntilNextStep() int {
	st, n := c.st, 0
	due := func(every, at int) {
		if every <= 0 {
			return
		}
		left := max(at+every-st.Accepted, 1)
		if n == 0 || left < n {
			n = left
		}
	}
	due(st.Params.LearnEvery, st.LearnedAt)
	due(st.Params.RankEvery, st.RankedAt)
	due(st.Params.ExpandEvery, st.ExpandedAt)
	return n
}

// absorb adds a finished slice's counts to the state.
func (c *crawler) absorb(o sliceOutcome) {
	st := c.st
	st.InFlight--
	st.Allotted -= o.Allot
	r := o.Result
	if o.Err != nil {
		st.FailedSlices++
		st.LastError = o.Err.Error()
		workflow.GetLogger(c.ctx).Error("crawl slice failed", "slice", o.SliceID, "error", o.Err)
		// Its claims stay leased and return to the queue when the lease
		// ends; what it fetched is counted by no one, and the budget it was
		// allotted is given out again.
		return
	}
	b := r.Stats
	st.Claimed += b.Claimed
	st.Fetched += b.Fetched
	st.OK += b.OK
	st.Failed += b.Failed
	st.Skipped += b.Claimed - b.Fetched
	st.Parsed += b.Parsed
	st.ParseFailed += max(b.Errors-b.Failed, 0)
	st.Accepted += b.Accepted
	st.Rejected += b.Rejected
	st.Tunnel += b.Tunnel
	st.Duplicates += b.Duplicates
	st.Indexed += b.Indexed
	st.Links += r.Links
	st.Enqueued += r.Enqueued
	st.Queued = r.Queued
	c.frontierDry = r.Exhausted && st.Queued == 0
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
