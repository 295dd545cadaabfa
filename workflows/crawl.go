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
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// sliceOutcome is what a finished crawl slice reports to the main loop.
type sliceOutcome struct {
	SliceID string
	Allot   int
	Result  crawlapi.SliceResult
	Err     error
}

var nonRetryable = []string{crawlapi.ErrInvalidTopic, crawlapi.ErrBadInput, crawlapi.ErrNoTopic}

// maxDryRounds is how many ExpandPruned rounds in a row that queue nothing
// a crawl whose frontier ran dry tries before it ends: each expands a
// group's worth of pruned pages, whose links may all be known already.
const maxDryRounds = 3

func shortOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 20, NonRetryableErrorTypes: nonRetryable,
		},
	}
}

// stateOptions are shortOptions without an attempt limit: the crawl's
// state in the store must follow the workflow's (setState), and the check
// that ends a crawl whose frontier ran dry must not fail it instead
// (CountQueued). Bad input still fails at once (nonRetryable).
func stateOptions() workflow.ActivityOptions {
	o := shortOptions()
	p := *o.RetryPolicy
	p.MaximumAttempts = 0
	o.RetryPolicy = &p
	return o
}

func sliceOptions(p crawlapi.CrawlParams) workflow.ActivityOptions {
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

// TopicCrawlWorkflow crawls one topic (crawlapi.TopicCrawlWorkflow). See the
// package documentation.
func TopicCrawlWorkflow(ctx workflow.Context, in crawlapi.CrawlInput) (*crawlapi.CrawlState, error) {
	st := &crawlapi.CrawlState{}
	if in.Continued != nil {
		st = in.Continued
	} else {
		st.CrawlID = workflow.GetInfo(ctx).WorkflowExecution.ID
		// When the crawl was started, not when a worker first ran it: a
		// crawl that waited a minute for a worker took a minute longer
		// (workflow.Now is the first workflow task's time).
		st.StartedAt = workflow.GetInfo(ctx).WorkflowStartTime
		if st.StartedAt.IsZero() {
			st.StartedAt = workflow.Now(ctx)
		}
		st.Phase = crawlapi.PhaseStarting
	}
	st.Runs++
	if err := workflow.SetQueryHandler(ctx, crawlapi.QueryStatus, func() (*crawlapi.CrawlState, error) { return st, nil }); err != nil {
		return nil, err
	}
	logger := workflow.GetLogger(ctx)

	if in.Continued == nil {
		// A cancel while StartCrawl runs waits for it to end (it may have
		// made the crawl's row, "running", already) and then records the
		// crawl canceled. Before, the workflow ended at once and the row
		// said "running" until the topic's next crawl. Runs recorded
		// before replay as they were.
		waitStart := workflow.GetVersion(ctx, "cancel-during-start", workflow.DefaultVersion, 1) == 1
		sctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: 10 * time.Minute, HeartbeatTimeout: time.Minute,
			RetryPolicy: shortOptions().RetryPolicy, WaitForCancellation: waitStart,
		})
		r, err := crawlapi.StartCrawl.Execute(sctx, crawlapi.StartCrawlInput{
			CrawlID: st.CrawlID, TopicYAML: in.TopicYAML, Fresh: in.Fresh, StartedAt: st.StartedAt,
		}).Get(ctx)
		if waitStart && temporal.IsCanceledError(err) {
			return canceledAtStart(ctx, st)
		}
		if err != nil {
			return st, fmt.Errorf("start crawl: %w", err)
		}
		st.Topic, st.TopicVersion, st.ModelVersion, st.Params = r.Topic, r.TopicVersion, r.ModelVersion, r.Params
		st.Notes = r.Notes
		st.MaxPagesCap = in.MaxPages // kept by topic updates (applyTopic)
		if in.MaxPages > 0 && in.MaxPages < st.Params.MaxPages {
			st.Params.MaxPages = in.MaxPages
		}
		// SitemapURLs is 0 in histories recorded before sitemap discovery.
		st.Queued, st.SitemapURLs = r.Seeded+r.SitemapURLs, r.SitemapURLs
		// Operator experience (issue 7): the topic version in the memo. The
		// search attributes are set by whoever starts the workflow (see
		// crawlapi.SearchAttributes): an upsert here would wedge the workflow on a
		// server where they are not registered.
		if err := workflow.UpsertMemo(ctx, map[string]any{crawlapi.MemoTopicVersion: st.TopicVersion}); err != nil {
			return st, fmt.Errorf("set memo: %w", err)
		}
		st.Phase = crawlapi.PhaseCrawling
		logger.Info("crawl started", "topic", st.Topic, "seeded", r.Seeded, "max_pages", st.Params.MaxPages)
	}

	c := &crawler{ctx: ctx, st: st, done: workflow.NewChannel(ctx), frontierDry: st.FrontierDry}
	st.FrontierDry = false // the crawler's flag from here on (continueAsNew)
	return c.run()
}

// canceledAtStart ends a crawl cancelled while StartCrawl ran (the
// activity ended cancelled; one that failed for its own reason meanwhile
// fails the crawl as before): the crawl's row, if StartCrawl made it, is
// recorded canceled (a few attempts: a StartCrawl cancelled before making
// it leaves none, and the worker then answers that its store does not hold
// the crawl), on a disconnected context, since the workflow's own is
// cancelled.
func canceledAtStart(ctx workflow.Context, st *crawlapi.CrawlState) (*crawlapi.CrawlState, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	o := shortOptions()
	o.RetryPolicy.MaximumAttempts = 3
	if _, err := crawlapi.SetCrawlState.Execute(workflow.WithActivityOptions(dctx, o), crawlapi.SetCrawlStateInput{
		CrawlID: st.CrawlID, State: store.CrawlCanceled,
	}).Get(dctx); err != nil {
		// Most often no row to record it in (cancelled before StartCrawl
		// made it): nothing for the status to show as an error.
		workflow.GetLogger(ctx).Info("crawl cancelled while it started: state not recorded", "error", err)
	}
	st.Phase, st.Reason, st.EndedAt = crawlapi.PhaseCanceled, "workflow cancelled while the crawl started", workflow.Now(ctx)
	workflow.GetLogger(ctx).Info("crawl cancelled while it started")
	return st, temporal.NewCanceledError()
}

// crawler is the main loop's state that is not part of CrawlState.
type crawler struct {
	ctx         workflow.Context
	st          *crawlapi.CrawlState
	done        workflow.Channel
	frontierDry bool // a slice ran out of frontier while others were in flight
	dryRounds   int  // ExpandPruned rounds in a row that queued nothing (maxDryRounds)
	dryAt       int  // st.Slices at the last of them
	draining    bool // finishing in-flight slices before continue-as-new
	slicesRun   int  // slices launched by this run
	// control adds the pause, resume and stop signals with their handlers
	// to a selector, for await; nil in runs recorded before (see run).
	control func(workflow.Selector)
	// fatal is a slice's error that every slice would fail with: its topic
	// version does not load (unloadable), or MaxFailedSlicesInRow slices
	// failed in a row (fatalWhy says which). The crawl launches nothing
	// more and fails once its slices have reported.
	fatal    error
	fatalWhy string
	// oneStepSlice: only one slice in flight at a time ends at the next
	// learning, ranking or expansion round (stepSlice names it; "" none),
	// the others run on through the round, and the versions it produces
	// are recorded in the store (recorded), where running slices whose
	// predictor reads them see them and end. Before, every slice ended at
	// the round, and the crawl fetched nothing while it ran. Runs recorded
	// before replay without it.
	oneStepSlice bool
	stepSlice    string
	recorded     [2]int // link model and rank versions last recorded in the store
	// lateSignals handles the add-seeds and update-topic signals pending
	// when the crawl ends (end); nil before run sets it.
	lateSignals func()
	// cancelEnds: a cancellation of the workflow ends the crawl (cancel).
	// Runs recorded before replay without it: nothing looked at the
	// cancelled context, so every slice and step failed at once and the
	// crawl relaunched slices until it continued as new, uncancelled.
	cancelEnds bool
}

// lastingCause reports whether a slice's error is one a relaunched slice
// would meet again: a deployment mismatch (WrongConfig, WrongStore: no
// worker has the crawl's fetch settings or store) or an error its activity
// does not retry.
func lastingCause(err error) bool {
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) {
		return false
	}
	switch appErr.Type() {
	case crawlapi.ErrWrongConfig, crawlapi.ErrWrongStore:
		return true
	}
	return appErr.NonRetryable() || slices.Contains(nonRetryable, appErr.Type())
}

// unloadable reports whether a slice failed because its topic version
// cannot be loaded: relaunching it would fail the same way, for ever.
func unloadable(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && (appErr.Type() == crawlapi.ErrInvalidTopic || appErr.Type() == crawlapi.ErrNoTopic)
}

// await waits for an activity the main loop runs between slices (re-judge,
// learn, rank, expand) and meanwhile handles pause, resume and stop as they
// come (c.control). Those steps can take minutes on a big crawl; a pause or
// stop used to wait for them, and running slices, which learn of it from
// the crawl's state in the store, kept claiming all that time.
func await[O any](c *crawler, f crawlapi.Future[O]) (O, error) {
	for c.control != nil && !f.IsReady() {
		sel := workflow.NewSelector(c.ctx)
		f.AddTo(sel)
		c.control(sel)
		sel.Select(c.ctx)
	}
	return f.Get(c.ctx)
}

// awaitSignalled is await for the activity an add-seeds or update-topic
// signal runs (an update stores the topic and fetches its sample pages:
// up to ten minutes an attempt), so pause and stop are handled meanwhile;
// runs recorded before wait for it without.
func awaitSignalled[O any](c *crawler, f crawlapi.Future[O]) (O, error) {
	if workflow.GetVersion(c.ctx, "control-during-signals", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return f.Get(c.ctx)
	}
	return await(c, f)
}

func (c *crawler) run() (*crawlapi.CrawlState, error) {
	ctx, st := c.ctx, c.st
	c.cancelEnds = workflow.GetVersion(ctx, "cancel-ends-crawl", workflow.DefaultVersion, 1) == 1
	short := workflow.WithActivityOptions(ctx, shortOptions())
	pauseCh := workflow.GetSignalChannel(ctx, crawlapi.SignalPause)
	resumeCh := workflow.GetSignalChannel(ctx, crawlapi.SignalResume)
	stopCh := workflow.GetSignalChannel(ctx, crawlapi.SignalStop)
	seedsCh := workflow.GetSignalChannel(ctx, crawlapi.SignalAddSeeds)
	topicCh := workflow.GetSignalChannel(ctx, crawlapi.SignalUpdateTopic)
	controlCh := workflow.GetSignalChannel(ctx, crawlapi.SignalControl)
	onTopic := func(workflow.ReceiveChannel, bool) { c.updateTopic(topicCh) }

	// Running slices see pause and stop through the crawl's state in the
	// store: they stop claiming, finish what they fetched and report.
	pause := func() {
		if !st.Paused && !st.StopRequested {
			st.Paused, st.Phase = true, crawlapi.PhasePaused
			c.setState(short, "paused")
		}
	}
	resume := func() {
		if st.Paused {
			st.Paused, st.Phase = false, crawlapi.PhaseCrawling
			c.setState(short, "running")
		}
	}
	stop := func() {
		if !st.StopRequested {
			st.StopRequested, st.Paused, st.Phase = true, false, crawlapi.PhaseStopping
			c.setState(short, "stopped")
		}
	}
	onPause := func(workflow.ReceiveChannel, bool) { pauseCh.Receive(ctx, nil); pause() }
	onResume := func(workflow.ReceiveChannel, bool) { resumeCh.Receive(ctx, nil); resume() }
	onStop := func(workflow.ReceiveChannel, bool) { stopCh.Receive(ctx, nil); stop() }
	// The control signal: one channel, so operations sent together are
	// handled in the order sent.
	onControl := func(workflow.ReceiveChannel, bool) {
		var op string
		ok, dropped := receiveAsync(controlCh, &op)
		// A worker from before the control signal left it unread: a run
		// that received one there replays dropping it, as it ran.
		if workflow.GetVersion(ctx, "control-signal", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			return
		}
		// Not through receive: its marker for runs from before corrupt
		// payloads were dropped was never asked for a control signal, so
		// asking it now would replay such a run differently.
		c.noteCorrupt(dropped, "control: payload is not a string (want pause, resume or stop)")
		if !ok {
			return
		}
		switch op {
		case crawlapi.ControlPause:
			pause()
		case crawlapi.ControlResume:
			resume()
		case crawlapi.ControlStop:
			stop()
		default:
			st.SetError(workflow.Now(ctx), fmt.Sprintf("control: unknown operation %q (want pause, resume or stop)", op))
			workflow.GetLogger(ctx).Warn("unknown control operation", "op", op)
		}
	}
	onSeeds := func(workflow.ReceiveChannel, bool) {
		var urls []string
		if !receive(c, seedsCh, &urls, crawlapi.SignalAddSeeds+": payload is not a list of URL strings") {
			return
		}
		n, err := awaitSignalled(c, crawlapi.AddSeeds.Execute(short, crawlapi.AddSeedsInput{
			CrawlID: st.CrawlID, Topic: st.Topic, TopicVersion: st.TopicVersion, URLs: urls,
		}))
		st.SeedsSent += len(urls)
		if err != nil {
			st.SetError(workflow.Now(ctx), "add-seeds: "+err.Error())
			return
		}
		st.SeedsAdded += n
		st.Queued += n
		// Seeds the frontier held already (n == 0) leave it as dry as it
		// was: reviving it launched a slice that found nothing. Runs
		// recorded before replay reviving it.
		if n > 0 || (c.frontierDry &&
			workflow.GetVersion(ctx, "dry-frontier-over-known-seeds", workflow.DefaultVersion, 1) == workflow.DefaultVersion) {
			c.frontierDry = false
		}
	}
	c.oneStepSlice = workflow.GetVersion(ctx, "one-step-slice", workflow.DefaultVersion, 1) == 1
	onDone := func(workflow.ReceiveChannel, bool) {
		var o sliceOutcome
		c.done.Receive(ctx, &o)
		c.absorb(o)
		if c.canceled() {
			return // no step after a cancellation: the crawl ends (cancel)
		}
		c.learnAndRank(false)
		c.expandSeeds() // expand.go
		c.recordModels(short)
	}
	// Pause, resume and stop are handled while the steps between slices run
	// (await). Runs recorded before replay without it: a signal that came
	// during a step was handled after it.
	if workflow.GetVersion(ctx, "control-during-steps", workflow.DefaultVersion, 1) == 1 {
		c.control = func(sel workflow.Selector) {
			sel.AddReceive(pauseCh, onPause).AddReceive(resumeCh, onResume).AddReceive(stopCh, onStop).
				AddReceive(controlCh, onControl)
		}
	}
	// Seeds and topic updates pending when the crawl ends (end).
	c.lateSignals = func() {
		for {
			sel := workflow.NewSelector(ctx).AddReceive(seedsCh, onSeeds).AddReceive(topicCh, onTopic)
			if !sel.HasPending() {
				return
			}
			sel.Select(ctx)
		}
	}
	// drain handles every signal already delivered, without blocking; a
	// cancelled crawl handles none (cancel).
	drain := func() {
		for !c.canceled() {
			sel := workflow.NewSelector(ctx)
			sel.AddReceive(pauseCh, onPause).AddReceive(resumeCh, onResume).
				AddReceive(stopCh, onStop).AddReceive(seedsCh, onSeeds).AddReceive(topicCh, onTopic).
				AddReceive(controlCh, onControl)
			if !sel.HasPending() {
				return
			}
			sel.Select(ctx)
		}
	}

	// continueAsNew ends this run once its slices have reported; the next
	// one goes on with the state.
	continueAsNew := func() (*crawlapi.CrawlState, error) {
		drain()
		if c.canceled() { // while a signal's activity ran: the next run would not be cancelled
			return c.cancel()
		}
		// A paused crawl can continue as new with its frontier found dry;
		// the next run lost that and, resumed, launched slices that found
		// nothing. Runs recorded before continue without it.
		if c.frontierDry && workflow.GetVersion(ctx, "dry-frontier-over-continue-as-new", workflow.DefaultVersion, 1) == 1 {
			st.FrontierDry = true
		}
		workflow.GetLogger(ctx).Info("continuing as new", "slices", st.Slices, "claimed", st.Claimed, "paused", st.Paused,
			"frontier_dry", st.FrontierDry)
		return st, crawlapi.TopicCrawlWorkflow.ContinueAsNew(ctx, crawlapi.CrawlInput{Continued: st})
	}

	for {
		drain()
		if c.canceled() {
			return c.cancel()
		}
		if c.fatal != nil && st.InFlight == 0 {
			return c.fail(short)
		}
		if st.StopRequested && st.InFlight == 0 {
			return c.finish(short, crawlapi.PhaseStopped, "stopped by operator")
		}
		if c.slicesRun >= st.Params.SlicesPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			c.draining = true
		}
		left := st.Params.MaxPages - st.Claimed - st.Allotted
		if !st.Paused && !st.StopRequested && !c.draining && !c.frontierDry && c.fatal == nil &&
			st.InFlight < st.Params.Pipelines && left > 0 {
			c.launch(left)
			continue
		}
		// A paused crawl continues as new too: it never did, and the
		// add-seeds signals it takes meanwhile (each up to 1000 URLs, in
		// history twice: the signal, AddSeeds' input) grew its history
		// without bound. The next run starts paused. (Runs recorded before
		// replay without it.)
		if st.InFlight == 0 && st.Paused && c.draining &&
			workflow.GetVersion(ctx, "continue-while-paused", workflow.DefaultVersion, 1) == 1 {
			return continueAsNew()
		}
		if st.InFlight == 0 && !st.Paused {
			switch {
			case st.Claimed >= st.Params.MaxPages:
				// An update-topic that raises the budget while the final
				// steps run (minutes on a big crawl) revives the crawl, as
				// new seeds revive a dry one below; it was stored as the
				// crawl ended and served only a new crawl. (Histories
				// recorded before replay without it.)
				if c.topicWhileFinishing() {
					c.learnAndRank(true)
					c.takeLate(topicCh, onTopic, nil, nil)
					if st.Claimed < st.Params.MaxPages && !st.StopRequested && !c.canceled() {
						continue
					}
					// A stop that came with the raise: the operator's, with
					// budget left — not "completed: page budget reached",
					// which also overwrote the row's "stopped". (Histories
					// recorded before end completed.)
					if st.StopRequested && st.Claimed < st.Params.MaxPages &&
						workflow.GetVersion(ctx, "stop-over-raised-budget", workflow.DefaultVersion, 1) == 1 {
						return c.end(short, crawlapi.PhaseStopped, "stopped by operator")
					}
					return c.end(short, crawlapi.PhaseCompleted, "page budget reached")
				}
				return c.finish(short, crawlapi.PhaseCompleted, "page budget reached")
			case c.frontierDry:
				// A slice's "exhausted" can predate links another slice added
				// after it looked: ask the store before ending the crawl.
				// (Histories recorded before this check replay without it.)
				if workflow.GetVersion(ctx, "confirm-exhausted", workflow.DefaultVersion, 1) == 1 {
					// Retried until the store answers (stateOptions): after
					// 20 attempts the crawl failed, its store row left
					// "running" for good, over a store down a quarter of an
					// hour.
					queued, err := crawlapi.CountQueued.Execute(workflow.WithActivityOptions(ctx, stateOptions()), st.Topic).Get(ctx)
					if err != nil && c.canceled() {
						return c.cancel()
					}
					if err != nil {
						return st, fmt.Errorf("count queued entries: %w", err)
					}
					if queued > 0 {
						st.Queued, c.frontierDry = queued, false
						continue
					}
				}
				// Dry with budget left: the links of the best pages pruning
				// turned down are what is left to crawl (ExpandPruned). A
				// few fruitless rounds in a row (pages expanded, no new
				// entry) end it. (Histories recorded before replay without.)
				// In a row: slices launched since the last fruitless round
				// (new seeds, entries another crawl queued) start the count
				// again; before, a crawl revived after two fruitless rounds
				// had one left at its next dry spell. (Histories recorded
				// before replay without.)
				if c.dryRounds > 0 && st.Slices != c.dryAt &&
					workflow.GetVersion(ctx, "dry-rounds-in-a-row", workflow.DefaultVersion, 1) == 1 {
					c.dryRounds = 0
				}
				if !st.StopRequested && c.dryRounds < maxDryRounds &&
					workflow.GetVersion(ctx, "expand-pruned-when-dry", workflow.DefaultVersion, 1) == 1 {
					// Numbered, so that a retried attempt whose write went
					// through expands no more pages (activities.ExpandPruned).
					st.DryRounds++
					r, err := await(c, crawlapi.ExpandPruned.Execute(workflow.WithActivityOptions(ctx, learnOptions()), crawlapi.ExpandPrunedInput{
						CrawlID: st.CrawlID, Topic: st.Topic, TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion,
						LinkModelVersion: st.LinkModelVersion, RankVersion: st.RankVersion,
						Max: max(st.Params.BatchSize, 1), Claimed: st.Claimed, Round: st.DryRounds,
					}))
					if err == nil {
						// The pages are tunnels now, as the store counts them.
						st.Rejected, st.Tunnel, st.DryExpanded = st.Rejected-r.Expanded, st.Tunnel+r.Expanded, st.DryExpanded+r.Expanded
						st.Links, st.Enqueued, st.DryDetail = st.Links+r.Links, st.Enqueued+r.Enqueued, st.DryDetail+r.Detail
					}
					// A round that followed only accepted detail pages'
					// links (strategy.detail_page) and queued nothing new is
					// fruitless like one whose rejected pages did: the next
					// round takes the next detail pages. Before, it ended
					// the dry rounds with detail pages left. (Histories
					// recorded before replay without.)
					detailGoesOn := err == nil && r.Queued == 0 && r.Expanded == 0 && r.Detail > 0 &&
						workflow.GetVersion(ctx, "dry-detail-rounds", workflow.DefaultVersion, 1) == 1
					switch {
					case err != nil && c.canceled():
						return c.cancel()
					case err != nil:
						st.SetError(workflow.Now(ctx), "expand pruned pages: "+err.Error())
					case r.Queued > 0:
						st.Queued, c.frontierDry, c.dryRounds = r.Queued, false, 0
						continue
					case r.Expanded > 0 || detailGoesOn:
						c.dryRounds, c.dryAt = c.dryRounds+1, st.Slices
						continue
					}
				}
				// The final steps can take minutes on a big crawl, and an
				// operator who sees the frontier run dry sends add-seeds:
				// signals that come meanwhile were dropped when the workflow
				// completed (the starter had reported them delivered). Seeds
				// that come now are added and crawled; the final steps run
				// again at the new end. (Histories recorded before this
				// check replay without it.)
				if workflow.GetVersion(ctx, "seeds-while-finishing", workflow.DefaultVersion, 1) == 1 {
					c.learnAndRank(true)
					queued := st.Queued
					// An update-topic's seeds and sitemaps revive it too
					// (topicWhileFinishing; before, only add-seeds did).
					if c.topicWhileFinishing() {
						c.takeLate(seedsCh, onSeeds, topicCh, onTopic)
					} else {
						c.takeLate(seedsCh, onSeeds, nil, nil)
					}
					// Only entries that are new revive the crawl, and not
					// after a stop (handled during the final steps, see await).
					if st.Queued > queued && !st.StopRequested {
						continue
					}
					// A stop that came with the new entries: the operator's,
					// with work queued — not "completed: frontier
					// exhausted", which also overwrote the row's "stopped"
					// (as stop-over-raised-budget for the budget).
					// (Histories recorded before end completed.)
					if st.StopRequested && st.Queued > queued &&
						workflow.GetVersion(ctx, "stop-over-new-seeds", workflow.DefaultVersion, 1) == 1 {
						return c.end(short, crawlapi.PhaseStopped, "stopped by operator")
					}
					return c.end(short, crawlapi.PhaseCompleted, crawlapi.ReasonFrontierExhausted)
				}
				return c.finish(short, crawlapi.PhaseCompleted, crawlapi.ReasonFrontierExhausted)
			case c.draining:
				return continueAsNew()
			}
		}
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(c.done, onDone).AddReceive(pauseCh, onPause).AddReceive(resumeCh, onResume).
			AddReceive(stopCh, onStop).AddReceive(seedsCh, onSeeds).AddReceive(topicCh, onTopic).
			AddReceive(controlCh, onControl)
		if c.cancelEnds {
			// A cancellation wakes the loop, also a paused crawl's, which
			// has nothing else to wake it (the loop's head ends it).
			sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		}
		sel.Select(ctx)
	}
}

// receive takes the pending signal from ch into valuePtr, for a selector's
// handler. A payload that does not decode is dropped (the SDK logs it) and
// reported in the crawl's last error as corrupt, also when a good signal of
// the kind follows it in the same workflow task and is taken; receive
// returns false when none did. Runs recorded before replay the old way:
// Receive dropped it too, then waited for the next signal of its kind,
// holding up the main loop.
func receive(c *crawler, ch workflow.ReceiveChannel, valuePtr any, corrupt string) bool {
	ok, dropped := receiveAsync(ch, valuePtr)
	if ok {
		c.noteCorrupt(dropped, corrupt)
		return true
	}
	if workflow.GetVersion(c.ctx, "drop-corrupt-signal", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		ch.Receive(c.ctx, valuePtr)
		return true
	}
	c.noteCorrupt(dropped, corrupt)
	return false
}

// receiveAsync is ch.ReceiveAsync that also counts the signals it dropped
// because their payloads did not decode. The SDK drops such a payload and
// goes on to the next signal of the channel, without telling its caller:
// a corrupt signal followed by a good one in one workflow task looked like
// the good one alone. The count comes from the channel's length, which a
// replay sees the same, so it is deterministic.
func receiveAsync(ch workflow.ReceiveChannel, valuePtr any) (ok bool, dropped int) {
	before := ch.Len()
	ok = ch.ReceiveAsync(valuePtr)
	dropped = before - ch.Len()
	if ok {
		dropped--
	}
	return ok, dropped
}

// noteCorrupt reports dropped corrupt signals (if any) in the crawl's last
// error, as what. It records state only, no command: runs recorded before
// it replay the same commands with it.
func (c *crawler) noteCorrupt(dropped int, what string) {
	if dropped <= 0 {
		return
	}
	c.st.SetError(workflow.Now(c.ctx), what)
	if dropped > 1 {
		c.st.SetError(workflow.Now(c.ctx), fmt.Sprintf("%s (%d signals)", what, dropped))
	}
	workflow.GetLogger(c.ctx).Warn("corrupt signal dropped", "error", what, "signals", dropped)
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
	in := crawlapi.SliceInput{
		CrawlID: st.CrawlID, Topic: st.Topic, SliceID: fmt.Sprintf("%s/s%06d", st.CrawlID, st.Slices),
		TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion,
		LinkModelVersion: st.LinkModelVersion, RankVersion: st.RankVersion,
		Budget: allot, Duration: duration, Hosts: st.Params.Hosts, MinRatio: st.Params.ClaimRatio,
		HoldUnscored: st.Params.HoldUnscored, FetchPolicy: st.Params.FetchPolicy,
		SeedExplore: st.Params.SeedExplore, CrawlPages: st.Params.MaxPages,
		Group: st.Params.BatchSize, Lease: st.Params.Lease, StopAfterAccepted: c.acceptedUntilNextStep(),
	}
	if c.oneStepSlice {
		if c.stepSlice != "" {
			in.StopAfterAccepted = 0 // another slice brings the round
		} else if in.StopAfterAccepted > 0 {
			c.stepSlice = in.SliceID
		}
	}
	st.InFlight++
	st.Allotted += allot
	so := sliceOptions(st.Params)
	// Cancelled with the workflow, a slice's future resolves once its
	// activity has ended, not at the request: its claims are released and
	// the crawl's state written after its last write (cancel).
	so.WaitForCancellation = c.cancelEnds
	opts := workflow.WithActivityOptions(c.ctx, so)
	workflow.Go(c.ctx, func(gctx workflow.Context) {
		o := sliceOutcome{SliceID: in.SliceID, Allot: allot}
		o.Result, o.Err = crawlapi.CrawlSlice.Execute(opts, in).Get(gctx)
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
	due(c.learnInterval(), st.LearnedAt)
	due(c.rankInterval(), st.RankedAt)
	due(st.Params.ExpandEvery, st.ExpandedAt)
	return n
}

// recordModels records the link model and rank versions in the store when
// a round changed them and slices are running (oneStepSlice); a slice
// launched later gets them in its input.
func (c *crawler) recordModels(short workflow.Context) {
	st := c.st
	now := [2]int{st.LinkModelVersion, st.RankVersion}
	// Paused, stopped or cancelled, the running slices are ending anyway.
	if !c.oneStepSlice || now == c.recorded || st.InFlight == 0 || st.Paused || st.StopRequested || c.canceled() {
		return
	}
	_, err := await(c, crawlapi.SetCrawlModels.Execute(short, crawlapi.SetCrawlModelsInput{
		CrawlID: st.CrawlID, LinkModelVersion: now[0], RankVersion: now[1],
	}))
	if err != nil {
		st.SetError(workflow.Now(c.ctx), "record model versions: "+err.Error())
		return
	}
	c.recorded = now
}

// absorb adds a finished slice's counts to the state.
func (c *crawler) absorb(o sliceOutcome) {
	st := c.st
	if o.SliceID == c.stepSlice {
		c.stepSlice = ""
	}
	st.InFlight--
	st.Allotted -= o.Allot
	r := o.Result
	if o.Err != nil && c.canceled() && temporal.IsCanceledError(o.Err) {
		// Cancelled with the workflow, not failed: only released (cancel).
		c.release(o.SliceID)
		return
	}
	if o.Err != nil {
		st.FailedSlices++
		st.SetError(workflow.Now(c.ctx), o.Err.Error())
		workflow.GetLogger(c.ctx).Error("crawl slice failed", "slice", o.SliceID, "error", o.Err)
		// A slice that cannot load its topic version was relaunched for
		// ever, spending no budget. (Histories recorded before this check
		// replay without it.)
		if unloadable(o.Err) && workflow.GetVersion(c.ctx, "fail-on-unloadable-topic", workflow.DefaultVersion, 1) == 1 {
			c.fatal, c.fatalWhy = o.Err, "topic version does not load"
		}
		// A lasting cause every slice meets (no worker with the crawl's
		// fetch settings or store, an input no attempt can take) was
		// relaunched for ever. An outage (the store down, a worker killed)
		// is waited out, as it always was: only lasting causes in a row
		// count (LastingFailedInRow). The gate is asked where its first
		// version (every failure counted) asked it, at MaxFailedSlicesInRow
		// failures of any cause, so histories it recorded replay; version
		// 2 checks the lasting ones. (Histories recorded before replay
		// without it.)
		st.SlicesFailedInRow++
		if lastingCause(o.Err) {
			st.LastingFailedInRow++
		} else {
			st.LastingFailedInRow = 0
		}
		if c.fatal == nil && st.SlicesFailedInRow >= crawlapi.MaxFailedSlicesInRow {
			v := workflow.GetVersion(c.ctx, "fail-after-failed-slices", workflow.DefaultVersion, 2)
			if v == 1 || (v == 2 && st.LastingFailedInRow >= crawlapi.MaxFailedSlicesInRow) {
				n := st.LastingFailedInRow
				if v == 1 {
					n = st.SlicesFailedInRow
				}
				c.fatal = fmt.Errorf("%d crawl slices in a row failed, the last with: %w", n, o.Err)
				c.fatalWhy = fmt.Sprintf("%d slices in a row failed", n)
			}
		}
		c.release(o.SliceID)
		return
	}
	st.SlicesFailedInRow, st.LastingFailedInRow = 0, 0
	c.addStats(r.Stats)
	st.Links += r.Links
	st.Enqueued += r.Enqueued
	st.Queued = r.Queued
	c.frontierDry = r.Exhausted && st.Queued == 0
}

// release releases a failed slice's claims at once (histories recorded
// before this step replay without it: their claims waited for
// crawl.lease), so the budget it was allotted is given out again, and
// counts what it did. Once the workflow is cancelled it runs on a
// disconnected context: on the cancelled one it failed at once.
func (c *crawler) release(sliceID string) {
	st := c.st
	if workflow.GetVersion(c.ctx, "release-failed-slice", workflow.DefaultVersion, 1) != 1 {
		return
	}
	actx := c.ctx
	if c.canceled() {
		actx, _ = workflow.NewDisconnectedContext(c.ctx)
	}
	short := workflow.WithActivityOptions(actx, shortOptions())
	in := crawlapi.ReleaseSliceInput{Topic: st.Topic, SliceID: sliceID}
	_, err := crawlapi.ReleaseSlice.Execute(short, in).Get(actx)
	if err != nil { // kept after the slice's own error, which says why it failed
		st.LastError += "; release failed slice " + sliceID + ": " + err.Error()
		return
	}
	// The pages it fetched before failing spent the budget (they are
	// saved, and those it got to judged and indexed): counted from the
	// store, or the budget handed out again would be exceeded by them.
	// Only once released: before, its unfetched claims would count too.
	// Histories recorded before this step replay without it.
	if workflow.GetVersion(c.ctx, "count-failed-slice", workflow.DefaultVersion, 1) == 1 {
		b, err := crawlapi.SliceStats.Execute(short, in).Get(actx)
		if err != nil {
			st.LastError += "; count failed slice " + sliceID + ": " + err.Error()
			return
		}
		c.addStats(b)
	}
}

// addStats adds the store's counts of one slice's batches to the state.
func (c *crawler) addStats(b store.BatchStats) {
	st := c.st
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
}

// setState records the crawl's state in the store, where running slices
// read pause and stop. It retries until the store takes it (stateOptions):
// a resume whose write gave up after 20 attempts (the store down for a
// quarter of an hour) left the row "paused", and every slice launched
// after it saw the pause, claimed nothing and returned, for ever.
func (c *crawler) setState(_ workflow.Context, state string) {
	if c.canceled() {
		return // cancel records the crawl's end
	}
	_, err := crawlapi.SetCrawlState.Execute(workflow.WithActivityOptions(c.ctx, stateOptions()), crawlapi.SetCrawlStateInput{
		CrawlID: c.st.CrawlID, State: state,
	}).Get(c.ctx)
	if err != nil {
		c.st.SetError(workflow.Now(c.ctx), "record state: "+err.Error())
	}
}

// topicWhileFinishing reports whether an update-topic that comes while
// the crawl runs its final steps can revive it: a raised page budget when
// the budget ended it, new seeds or sitemap entries when its frontier ran
// dry. Runs recorded before stored such an update as they ended.
func (c *crawler) topicWhileFinishing() bool {
	return workflow.GetVersion(c.ctx, "topic-while-finishing", workflow.DefaultVersion, 1) == 1
}

// takeLate handles the signals pending on ch (and on ch2, when not nil)
// once the final steps have run, each with its handler, until none is
// left; a cancelled crawl takes none (c.canceled: false on runs recorded
// before cancels ended crawls).
func (c *crawler) takeLate(ch workflow.ReceiveChannel, f func(workflow.ReceiveChannel, bool),
	ch2 workflow.ReceiveChannel, f2 func(workflow.ReceiveChannel, bool)) {
	for {
		sel := workflow.NewSelector(c.ctx).AddReceive(ch, f)
		if ch2 != nil {
			sel.AddReceive(ch2, f2)
		}
		if !sel.HasPending() || c.canceled() {
			return
		}
		sel.Select(c.ctx)
	}
}

// finish runs the crawl's final steps (learnAndRank) and ends it.
func (c *crawler) finish(short workflow.Context, phase, reason string) (*crawlapi.CrawlState, error) {
	c.learnAndRank(true)
	return c.end(short, phase, reason)
}

// fail ends a crawl whose slices cannot run (c.fatal): recorded as failed
// in the store and the status, and the workflow fails with the slice's
// error, so the Temporal UI shows why. No final steps: they load the same
// topic version, or fail as the slices did.
func (c *crawler) fail(short workflow.Context) (*crawlapi.CrawlState, error) {
	c.st.Phase, c.st.Reason, c.st.EndedAt = crawlapi.PhaseFailed, c.fatalWhy, workflow.Now(c.ctx)
	c.setState(short, "failed")
	if unloadable(c.fatal) {
		return c.st, fmt.Errorf("crawl %s: its slices cannot load topic %s v%d: %w", c.st.CrawlID, c.st.Topic, c.st.TopicVersion, c.fatal)
	}
	return c.st, fmt.Errorf("crawl %s: %w", c.st.CrawlID, c.fatal)
}

// end ends the crawl once its final steps have run: records the phase and
// the crawl's state in the store.
func (c *crawler) end(short workflow.Context, phase, reason string) (*crawlapi.CrawlState, error) {
	if c.canceled() { // during the final steps, which it cut short
		return c.cancel()
	}
	// Seeds and topic updates sent while the final steps ran (minutes on a
	// big crawl) were dropped when the workflow completed — the starter had
	// said they were sent — unless the frontier had run dry (run). They are
	// handled now: the seeds join the topic's frontier, for its next crawl,
	// and are counted; an update is stored. Runs recorded before end
	// without it.
	if c.lateSignals != nil && workflow.GetVersion(c.ctx, "signals-at-end", workflow.DefaultVersion, 1) == 1 {
		c.lateSignals()
	}
	c.st.Phase, c.st.Reason, c.st.EndedAt = phase, reason, workflow.Now(c.ctx)
	c.st.Paused = false // a pause that came during the final steps ends with the crawl
	state := "completed"
	if phase == crawlapi.PhaseStopped {
		state = "stopped"
	}
	c.setState(short, state)
	workflow.GetLogger(c.ctx).Info("crawl finished", "reason", reason, "fetched", c.st.Fetched, "accepted", c.st.Accepted)
	return c.st, nil
}

// canceled reports whether the workflow was cancelled and this run ends
// the crawl for it (cancelEnds).
func (c *crawler) canceled() bool {
	return c.cancelEnds && c.ctx.Err() != nil
}

// cancel ends a crawl whose workflow was cancelled from outside (the
// Temporal UI's or CLI's Cancel, or its refresh's cancellation, which a
// schedule's cancel_other overlap policy sends): it launches nothing and
// runs no final step. It waits for the
// slices in flight, cancelled with the workflow, releases the claims of
// those that did not finish (absorb) and records the crawl canceled in
// the store, on a disconnected context: on the cancelled one each of those
// activities failed at once. The state is written with a bounded retry
// (shortOptions), unlike setState's: the crawl must end, and the topic's
// next crawl records a row left running or paused as canceled anyway
// (recordEndedCrawls). A reset of the workflow runs the crawl again, as
// for a crawl that next crawl recorded (store.EndedOutside).
func (c *crawler) cancel() (*crawlapi.CrawlState, error) {
	st := c.st
	dctx, _ := workflow.NewDisconnectedContext(c.ctx)
	for st.InFlight > 0 {
		var o sliceOutcome
		c.done.Receive(dctx, &o)
		c.absorb(o)
	}
	st.Phase, st.Reason, st.EndedAt = crawlapi.PhaseCanceled, "workflow cancelled", workflow.Now(c.ctx)
	st.Paused = false
	_, err := crawlapi.SetCrawlState.Execute(workflow.WithActivityOptions(dctx, shortOptions()), crawlapi.SetCrawlStateInput{
		CrawlID: st.CrawlID, State: store.CrawlCanceled,
	}).Get(dctx)
	if err != nil {
		st.SetError(workflow.Now(c.ctx), "record state: "+err.Error())
	}
	workflow.GetLogger(c.ctx).Info("crawl cancelled", "fetched", st.Fetched, "accepted", st.Accepted)
	return st, temporal.NewCanceledError()
}
