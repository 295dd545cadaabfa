package activities

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/fetchloop"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/store"
)

// CrawlSlice is the streaming fetch path (internal/fetchloop) run as one
// long, heartbeating activity: for up to in.Duration it keeps every host it
// serves busy — claiming a free host's best frontier entry the moment the
// host frees up, fetching it in the host's politeness slot, and parsing,
// judging, indexing and scoring links of each page right behind the fetches
// — and then reports to the workflow, which steers the crawl between slices
// (budget, learning, ranking, seed expansion, pause and stop,
// continue-as-new).
//
// Durability: every claim is a store batch whose ID starts with the slice ID,
// so the slice's work is found by prefix. Every attempt first takes over the
// previous attempts' claims (a retry after the worker died or missed its
// heartbeats, or attempt 1 again after an operator reset the activity) —
// fetched pages are processed, unfetched entries go back to the queue — and
// its budget is what the slice has not yet claimed. Every step is idempotent
// on topic + URL hash, and the result's counts come from the store, so they
// are exact however often the slice was retried.
//
// Each attempt first raises the slice's fence (store.Fence) to its own
// token (its start time: sliceFence), and every claim carries it: an earlier attempt that the server
// gave up on but that is still running (a worker that lost contact keeps
// going until its next heartbeat fails) gets store.ErrFenced at its next
// claim and stops, instead of claiming beside its retry.
func (a *Activities) CrawlSlice(ctx context.Context, in crawlapi.SliceInput) (_ crawlapi.SliceResult, err error) {
	if in.SliceID == "" || in.Topic == "" {
		return crawlapi.SliceResult{}, fmt.Errorf("crawl slice: slice ID and topic are required")
	}
	// Before the fence: a worker that must not run the slice leaves the
	// slice's claims to the attempt another worker makes.
	if err := a.checkFetchPolicy(in.CrawlID, in.FetchPolicy); err != nil {
		return crawlapi.SliceResult{}, err
	}
	prefix := in.SliceID + "/"
	attempt := int32(1)
	if activity.IsActivity(ctx) {
		attempt = activity.GetInfo(ctx).Attempt
	}
	fence := sliceFence(ctx, in.SliceID, 1)
	if err := a.Store.RaiseFence(ctx, in.Topic, fence); errors.Is(err, store.ErrFenced) {
		return crawlapi.SliceResult{}, fenceError(in.SliceID, attempt, err)
	} else if err != nil {
		return crawlapi.SliceResult{}, fmt.Errorf("crawl slice %s: %w", in.SliceID, err)
	}
	if n, err := a.Store.PruneFences(ctx, in.Topic, a.now().Add(-fenceKeep(ctx))); err != nil {
		a.Log.Warn("pruning old slice fences failed; they stay until the next slice", "topic", in.Topic, "error", err)
	} else if n > 0 {
		a.Log.Info("pruned old slice fences", "topic", in.Topic, "fences", n)
	}
	ref := in.Ref()
	hosts := &heldHosts{set: &a.serving, topic: in.Topic}
	defer hosts.releaseAll() // a failed slice must not leave its hosts marked busy
	// Read before the take-over, which judges pages of earlier attempts
	// that they left unjudged: those count as this attempt's judgements.
	earlier, err := a.earlierProgress(ctx, in.Topic, prefix)
	if err != nil {
		return crawlapi.SliceResult{}, err
	}
	var prog sliceProgress
	progress := func() any { return withEarlier(earlier, prog.snapshot()) }
	// The SDK's heartbeats run on the activity's context; the slice works
	// on one that outlasts a Temporal outage (outlastOutage), whose own
	// heartbeats take over when the SDK's context ends for that cause.
	stopBeat := heartbeatEvery(ctx, sliceBeat, progress)
	defer stopBeat()
	actCtx := ctx
	ctx, endWork := a.outlastOutage(ctx, progress)
	defer endWork()
	work := ctx
	defer func() { err = a.reportCanceled(actCtx, work, err) }()
	stopQueued := a.watchQueued(ctx, in.Topic, &prog)
	defer stopQueued()

	// Every attempt takes over, not only attempts > 1: an operator's reset
	// of the activity (temporal activity reset) starts attempt 1 again,
	// after attempts whose claims no one else finishes. On a slice's first
	// attempt it finds nothing.
	if err := a.takeOver(ctx, ref, prefix, fence, hosts, &prog); err != nil {
		return crawlapi.SliceResult{}, err
	}
	before, err := a.Store.BatchStats(ctx, in.Topic, prefix)
	if err != nil {
		return crawlapi.SliceResult{}, err
	}
	cfg := fetchloop.Config{
		Hosts:  in.Hosts,
		Budget: max(in.Budget-before.Claimed, 0),
		Group:  in.Group,
		// Parsing and tokenising take a core each; store writes queue on
		// the one writer anyway.
		Processors: runtime.GOMAXPROCS(0),
		Linger:     a.CrawlCfg.GroupLinger,
		Poll:       200 * time.Millisecond,
		Now:        a.now,
	}
	if in.Duration > 0 {
		cfg.Until = a.now().Add(in.Duration)
	}
	// The attempt's batches are named by its number and its fence token
	// (its start time): the number alone repeats after a reset of the
	// activity's attempts (and in a reset workflow's run, under the same
	// slice ID), and a claim under an earlier attempt's batch ID would get
	// that batch back (ClaimBatch is idempotent on it).
	attemptID := fmt.Sprintf("a%d-%s", attempt, strconv.FormatInt(fence.Token, 36))
	var claims atomic.Int64
	var lastCheck time.Time // the loop calls Stop from one goroutine
	reads, err := a.learnedReads(ctx, in)
	if err != nil {
		return crawlapi.SliceResult{}, err
	}
	// The versions that end the slice are those newer than both its own
	// and what the crawl's row holds now: a row can be ahead of a new run
	// of the same crawl ID (a workflow reset, a crawl started again under
	// its ID), whose slices would otherwise end at once, every time.
	linkModelSeen, ranksSeen := in.LinkModelVersion, in.RankVersion
	if reads.linkModel || reads.ranks {
		c, err := a.Store.Crawl(ctx, in.CrawlID)
		if err != nil {
			return crawlapi.SliceResult{}, fmt.Errorf("crawl slice %s: %w", in.SliceID, err)
		}
		linkModelSeen, ranksSeen = max(linkModelSeen, c.LinkModelVersion), max(ranksSeen, c.RankVersion)
	}
	// A worker told to stop (crawl.stop_timeout) closes this channel: the
	// slice claims nothing more and ends once its pages in flight are
	// processed, so the workflow launches the next slice on another worker
	// at once, and no request already sent is sent again by a retry.
	var workerStop <-chan struct{}
	if activity.IsActivity(ctx) {
		workerStop = activity.GetWorkerStopChannel(ctx)
	}
	var workerStopping atomic.Bool
	var claimed claimedPages
	loopRes, err := fetchloop.Run(ctx, cfg, fetchloop.Hooks[streamed]{
		Claim: func(ctx context.Context, n int, busy []string) ([]store.FrontierEntry, error) {
			batchID := fmt.Sprintf("%s%s/c%06d", prefix, attemptID, claims.Add(1))
			return a.claimHosts(ctx, in, batchID, fence, n, busy, hosts, &claimed)
		},
		Fetch: func(ctx context.Context, e store.FrontierEntry) (streamed, error) {
			r := ref
			r.BatchID = e.BatchID
			// A fetch still waiting for its politeness slot when the worker
			// is told to stop sends nothing, nor does one its host's hold
			// refuses: its entry goes back to the queue (the stop is not
			// delayed by waits; a held host's entries wait for its hold).
			var out outcome
			var page store.Page
			var body []byte
			var err error
			if saved, found, checked := claimed.take(e); checked {
				out, page, body, err = a.fetchUnlessSaved(withSendStop(ctx, workerStop), r, e, saved, found)
			} else {
				out, page, body, err = a.fetchUnsaved(withSendStop(ctx, workerStop), r, e)
			}
			if err == nil && out == outcomeUnsent {
				ok, err := a.Store.RequeueEntry(ctx, e.Topic, e.URLHash, e.BatchID, true)
				if err != nil {
					return streamed{}, fmt.Errorf("requeue %s, not sent: %w", e.URL, err)
				}
				if !ok {
					a.Log.Warn("an entry not sent (worker stopping or host held) was no longer its slice's to requeue", "url", e.URL)
				}
				return streamed{entry: e, requeued: true}, nil
			}
			if err == nil && out == outcomeFailed && a.requeueHeld(ctx, e, page) {
				return streamed{entry: e, requeued: true}, nil
			}
			if err == nil && (out == outcomeOK || out == outcomeFailed) {
				a.countGone(ctx, e, page, out == outcomeOK)
			}
			if out == outcomeOK || out == outcomeFailed {
				prog.fetched.Add(1)
			}
			if out == outcomeOK {
				prog.ok.Add(1)
			}
			if err == nil && out == outcomeSkipped && page.Decision == store.DecisionPending && page.CrawlID == in.CrawlID {
				// Saved by an attempt that stopped before judging it (killed,
				// or fenced off after its retry had requeued the entry):
				// processed as a take-over processes it, not skipped, or
				// it would be completed unjudged and its links lost.
				return streamed{entry: e, page: page}, nil
			}
			return streamed{entry: e, page: page, body: body, skipped: out == outcomeSkipped,
				unsaved: err == nil && out != outcomeSkipped}, err
		},
		Process: func(ctx context.Context, items []streamed) error {
			return a.processStreamed(ctx, ref, fence, items, hosts, &prog)
		},
		Stop: func(ctx context.Context) (bool, error) {
			select {
			case <-workerStop:
				if !workerStopping.Swap(true) {
					a.Log.Info("worker stopping: the crawl slice claims nothing more and ends after its pages in flight",
						"slice", in.SliceID)
				}
				return true, nil
			default:
			}
			// Earlier attempts' accepted pages count too: a retry that
			// started from zero accepted up to StopAfterAccepted more on top
			// of its dead attempt's, and the workflow's next learning or
			// ranking round came that much late.
			if in.StopAfterAccepted > 0 && earlier.Accepted+prog.accepted.Load() >= int64(in.StopAfterAccepted) {
				return true, nil
			}
			if a.now().Sub(lastCheck) < controlPoll {
				return false, nil
			}
			lastCheck = a.now()
			c, err := a.Store.Crawl(ctx, in.CrawlID)
			if err != nil {
				return false, err
			}
			if store.EndedOutside(c.State) {
				// Recorded as ended from outside by a later crawl of the
				// topic. This slice may be a leftover of the closed run
				// (its next heartbeat would cancel it): it stops. Or it
				// runs for a reset of the workflow: the crawl runs, and
				// its row says so again.
				if !a.ownRunOpen(ctx) {
					return true, nil
				}
				if err := a.Store.SetCrawlState(ctx, in.CrawlID, store.CrawlRunning); err != nil {
					return false, err
				}
				c.State = store.CrawlRunning
			}
			// Paused, stopped, or switched to a newer topic version or to a
			// newer learned model its predictor reads (the workflow launches
			// the next slices with them).
			return c.State != store.CrawlRunning || c.TopicVersion != in.TopicVersion ||
				(reads.linkModel && c.LinkModelVersion > linkModelSeen) ||
				(reads.ranks && c.RankVersion > ranksSeen), nil
		},
	})
	if errors.Is(err, store.ErrFenced) {
		return crawlapi.SliceResult{}, fenceError(in.SliceID, attempt, err)
	}
	if pe := (*fetchloop.PanicError)(nil); errors.As(err, &pe) {
		a.Log.Error("crawl slice: a stage panicked", "slice", in.SliceID, "stage", pe.Stage, "panic", pe.Value, "stack", string(pe.Stack))
	}
	if err != nil {
		return crawlapi.SliceResult{}, fmt.Errorf("crawl slice %s: %w", in.SliceID, err)
	}
	after, err := a.Store.BatchStats(ctx, in.Topic, prefix)
	if err != nil {
		return crawlapi.SliceResult{}, err
	}
	fs, err := a.Store.FrontierStats(ctx, in.Topic)
	if err != nil {
		return crawlapi.SliceResult{}, err
	}
	var failed map[string]int
	if after.Failed > 0 { // one more query only when there is something to split
		if failed, err = a.Store.FailedByClass(ctx, in.Topic, prefix); err != nil {
			return crawlapi.SliceResult{}, err
		}
	}
	reason := loopRes.Reason
	if workerStopping.Load() && reason == fetchloop.ReasonStopped {
		reason = crawlapi.ReasonWorkerStopping
	}
	return crawlapi.SliceResult{
		Stats: after, Links: int(earlier.Links + prog.links.Load()), Enqueued: int(earlier.Enqueued + prog.enqueued.Load()),
		Reason: reason, Exhausted: loopRes.Reason == fetchloop.ReasonExhausted, Queued: fs.Queued,
		FailedByClass: failed,
	}, nil
}

// sliceFence is the fence of a slice's attempts, named by the slice ID
// within its workflow run: resetting a workflow runs its slice IDs again in
// a new run, which its old run's fences must not block. The token is the
// attempt's start time on the server, not its attempt number: every retry
// starts later than the attempt it replaces, also after an operator resets
// the activity's attempt count to 1, which would fence off a number-based
// token. Outside an activity (tests) the token is 1; ReleaseSlice passes
// math.MaxInt64.
func sliceFence(ctx context.Context, sliceID string, token int64) store.Fence {
	name := sliceID
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		name += "@" + info.WorkflowExecution.RunID
		if token != math.MaxInt64 {
			started := info.StartedTime
			// Not reported (the SDK turns a missing start time into 1970,
			// not the zero time): this worker's clock, later than any
			// earlier attempt's start unless the clocks are skewed.
			if started.Unix() <= 0 {
				started = time.Now()
			}
			token = started.UnixNano()
		}
	}
	return store.Fence{Name: name, Token: token}
}

// fenceKeep is how long a slice's fence is kept after it was last raised
// before PruneFences may drop it. An attempt cannot outlive its deadline
// (the SDK cancels its context then, reachable server or not), and every
// attempt a fence holds back started before the fence's last raise, so
// once their time limit has passed since that raise the fence holds back
// nothing. Twice this attempt's own limit (covering clocks some minutes
// apart), and at least a day: another crawl of the topic may run slices
// with a longer limit.
func fenceKeep(ctx context.Context) time.Duration {
	keep := 24 * time.Hour
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		if limit := info.Deadline.Sub(info.StartedTime); limit > 0 {
			keep = max(keep, 2*limit)
		}
	}
	return keep
}

// fenceError is the error of a slice attempt that a newer attempt
// superseded. Not retryable: the newer attempt does the work; the server
// has already stopped waiting for this one's result.
func fenceError(sliceID string, attempt int32, err error) error {
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("crawl slice %s: attempt %d superseded by a newer attempt", sliceID, attempt),
		crawlapi.ErrSuperseded, err)
}

// controlPoll is how often a slice reads the crawl's state (pause, stop,
// topic version) from the store.
const controlPoll = 250 * time.Millisecond

// learnedState is which learned models a slice's link predictor reads.
type learnedState struct{ linkModel, ranks bool }

// learnedReads says which learned models the slice's predictor reads: a
// learning or ranking round the workflow runs while the slice is under way
// ends the slice only when the slice would use what the round produced.
func (a *Activities) learnedReads(ctx context.Context, in crawlapi.SliceInput) (learnedState, error) {
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return learnedState{}, err
	}
	return learnedState{linkModel: lt.LearnsLinks, ranks: linkpred.ReadsRanks(lt.Predictor)}, nil
}

// streamed is one claimed entry on its way through the slice: the page
// fetched (with its body, parsed from memory), or skipped when the topic
// already had it. An unsaved page is saved with its group's parse records
// (parseAndSave) before it is judged.
type streamed struct {
	entry   store.FrontierEntry
	page    store.Page
	body    []byte
	skipped bool
	unsaved bool
	// requeued: the host asked to be left alone (holdHost) and the entry
	// went back to the queue unfetched, to be claimed after the hold.
	requeued bool
	// counted: an earlier attempt of the slice judged the page and died
	// before completing its entry (takeOver); earlierProgress counted it
	// as processed already.
	counted bool
}

// maxHeldAttempts is how many claims of an entry may end in its host
// asking to be left alone before the failure is recorded as the page's.
const maxHeldAttempts = 3

// requeueHeld returns e to the queue when its fetch failed because the host
// asked to be left alone (429 or 503, or Retry-After: holdHost holds it
// now) — for the page, or for its robots.txt, which the page was refused
// for without a request (the review of robots.txt's Retry-After: the URL
// that set the hold was lost to the crawl) — on its first
// maxHeldAttempts − 1 claims: the URL is fetched after the hold instead of
// failing for the crawl. It reports whether it did.
func (a *Activities) requeueHeld(ctx context.Context, e store.FrontierEntry, page store.Page) bool {
	overloaded := page.ErrorClass == string(fetch.ClassHTTPServer) ||
		page.ErrorClass == string(fetch.ClassRobots) && a.Fetcher.RobotsUnreachable(e.URL)
	if !overloaded || e.Attempts >= maxHeldAttempts || a.sent.heldUntil(e.Host, a.now()).IsZero() {
		return false
	}
	ok, err := a.Store.RequeueEntry(ctx, e.Topic, e.URLHash, e.BatchID, false)
	if err != nil {
		// The failure is recorded instead, as before holds existed.
		a.Log.Warn("could not requeue an entry of a held host; its failure is recorded", "url", e.URL, "error", err)
		return false
	}
	return ok
}

// parseAndSave parses the group's pages and saves the fetched ones together
// with their parse records (and the decisions of pages that failed to
// parse), in one transaction. A transaction per fetched page, and a body
// written at fetch time only to be deleted by the parse write, were the
// largest single store costs left on fast sites (docs/benchmarks.md).
//
// Durability is as before. A worker killed between a fetch and this
// transaction leaves the entry claimed with no page row; the retry's
// takeOver returns such entries to the queue (as for entries killed
// mid-fetch), so the page is fetched again. Once committed, the page comes
// with its parse record, which is all a retry needs: a body is stored only
// when crawl.keep_bodies asks for it or the page has no parse record (a
// parse error, a redirect off scope: as before, the body stays for
// whoever looks at the page later). Duplicate detection (DuplicateOf, in
// the filter stage after this) sees the group's pages, in Seq order; the
// store reports the Seq each page was saved with.
//
// A page someone else saved meanwhile (a claim that outlived its lease)
// fails the transaction; the group is then done the old way: each page
// saved on its own with its body, taking the stored page when it exists,
// and parsed again from the bodies this attempt saved.
func (a *Activities) parseAndSave(ctx context.Context, lt *loadedTopic, topic string, items []streamed, g *group) ([]store.Page, error) {
	pages := func() []store.Page {
		var out []store.Page
		for _, it := range items {
			if !it.skipped {
				out = append(out, it.page)
			}
		}
		return out
	}
	g.bodies = map[string][]byte{}
	for _, it := range items {
		if it.unsaved && it.body != nil {
			g.bodies[it.page.URLHash] = it.body
		}
	}
	if _, err := a.parsePages(ctx, lt, pages(), g, nil); err != nil {
		return nil, err
	}
	parsed := make(map[string]store.ParseWrite, len(g.w.Parses)) // what the flush sets on the pages
	for _, w := range g.w.Parses {
		parsed[w.URLHash] = w
	}
	for _, it := range items {
		if !it.unsaved {
			continue
		}
		pb := store.PageBody{Page: it.page}
		if _, ok := parsed[it.page.URLHash]; a.CrawlCfg.KeepBodies || !ok {
			pb.Body = it.body
		}
		g.w.Pages = append(g.w.Pages, pb)
	}
	if len(g.w.Pages) == 0 {
		return pages(), nil // the parse writes go with the filter stage's flush
	}
	// A page saved in this write without its body has none to drop: no
	// delete statement for it.
	bodiless := map[string]bool{}
	for _, pb := range g.w.Pages {
		if pb.Body == nil {
			bodiless[pb.Page.URLHash] = true
		}
	}
	for i := range g.w.Parses {
		if bodiless[g.w.Parses[i].URLHash] {
			g.w.Parses[i].DropBody = false
		}
	}
	if err := a.flush(ctx, g); err != nil {
		if ctx.Err() != nil || errors.Is(err, store.ErrFenced) {
			return nil, err
		}
		a.Log.Info("saving a group's pages together failed; saving them one by one", "pages", len(g.w.Pages), "error", err)
		fence := g.w.Fence
		*g = *newGroup(topic, g.crawl)
		g.w.Fence = fence
		g.bodies = map[string][]byte{}
		for i, it := range items {
			if !it.unsaved {
				continue
			}
			saved, body, err := a.savePageFenced(ctx, it.page, it.body, fence)
			if err != nil {
				return nil, err
			}
			items[i].page, items[i].body, items[i].unsaved = saved, nil, false
			if body != nil {
				g.bodies[saved.URLHash] = body
			}
		}
		_, err := a.parsePages(ctx, lt, pages(), g, nil)
		return pages(), err
	}
	for i, it := range items {
		if !it.unsaved {
			continue
		}
		seq, ok := g.seqs[it.page.URLHash]
		if !ok {
			return nil, fmt.Errorf("saved page %s: the store reported no sequence number", it.page.URL)
		}
		items[i].page, items[i].body, items[i].unsaved = asStored(it.page, seq, parsed[it.page.URLHash]), nil, false
	}
	return pages(), nil
}

// savePageFenced is savePage under a slice attempt's fence: a group write
// of the one page, refused (store.ErrFenced) once the attempt's retry has
// raised the fence. parseAndSave's page-by-page saves follow a failed group
// write, and the retry may have started in between (a lost connection is
// also what makes a worker miss its heartbeats): SavePage, which carries no
// fence, let the superseded attempt save pages beside entries its retry
// had put back in the queue. It returns the page as stored and the body to
// parse from memory: nil when the stored page is not this fetch's (someone
// saved it meanwhile, and the write failed on it).
func (a *Activities) savePageFenced(ctx context.Context, page store.Page, body []byte, fence store.Fence) (store.Page, []byte, error) {
	_, err := a.Store.WriteGroup(ctx, store.GroupWrite{Topic: page.Topic,
		Pages: []store.PageBody{{Page: page, Body: body}}, Fence: fence})
	if errors.Is(err, store.ErrFenced) {
		return store.Page{}, nil, err
	}
	if ctx.Err() != nil { // also after a write that succeeded: no zero page for the stages after
		return store.Page{}, nil, ctx.Err()
	}
	saved, perr := a.Store.Page(ctx, page.Topic, page.URLHash)
	switch {
	case perr == nil && err != nil:
		return saved, nil, nil // saved by someone else
	case perr == nil:
		return saved, body, nil
	case err != nil:
		return store.Page{}, nil, fmt.Errorf("save page %s: %w", page.URL, err)
	}
	return store.Page{}, nil, fmt.Errorf("saved page %s: %w", page.URL, perr)
}

// asStored is p as the store holds it once saved with seq together with
// its parse record pw (zero if none): the title, language and text
// signature come from the parse, and the row keeps the fetch time to the
// nanosecond, in UTC, without a monotonic reading. TestParseAndSave compares it with the row.
func asStored(p store.Page, seq int64, pw store.ParseWrite) store.Page {
	p.Seq = seq
	if pw.URLHash != "" {
		p.Title, p.Lang, p.TextHash = pw.Title, pw.Lang, pw.TextHash
	}
	if !p.FetchedAt.IsZero() {
		p.FetchedAt = time.Unix(0, p.FetchedAt.UnixNano()).UTC()
	}
	return p
}

// claimHosts claims up to n entries, one per host, of hosts that no slice of
// this crawl's topic in this worker is serving.
//
// With in.HoldUnscored, entries scored 0 stay queued while any entry of the
// topic is in flight — claimed less than holdWindow ago and not yet
// completed, in this worker or any other sharing the store
// (store.ClaimRequest.HoldUnscored): a 0 is a link the predictor found no
// evidence for, and the pages in flight may add links that score above it.
// Without this, a crawl that knew only unpromising links (its seed was
// off-topic) spent a dozen fetches on them across as many hosts in the time
// one relevant page was processed (docs/evaluation.md). Nothing is held
// with the bfs predictor, which scores every link 0, nor when nothing is in
// flight; claims a dead worker left hold for at most holdWindow, not their
// whole lease. A claim held back answers fetchloop.ErrWait, not
// "exhausted".
//
// A claim that finds nothing to take also waits (fetchloop.ErrWait) while
// the topic has entries queued (on hosts another slice is serving) or
// claimed (pages in flight, whose links are still to come): the frontier is
// not exhausted, only busy. Ending instead made the workflow take the
// crawl for dry and run on the other slices alone until one of them
// reported: at a crawl's start, whose few seed hosts the first slice takes,
// every other pipeline (another worker's included) stayed idle for a whole
// slice (crawl.slice, a minute by default), and later a slice launched
// while its hosts were busy ended at once, launched again and again.
func (a *Activities) claimHosts(ctx context.Context, in crawlapi.SliceInput, batchID string, fence store.Fence, n int, busy []string, held *heldHosts, claimed *claimedPages) ([]store.FrontierEntry, error) {
	hold := false
	var explore []string
	ref := in.Ref()
	if perSite, _ := a.seedExplore(ref, 0); in.HoldUnscored || (in.MinRatio > 0 && perSite > 0) {
		lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
		if err != nil {
			return nil, err
		}
		hold = in.HoldUnscored && lt.Predictor.Name() != "bfs"
		if in.MinRatio > 0 {
			if explore, err = a.exploringHosts(ctx, ref, lt.Topic); err != nil { // explore.go
				return nil, err
			}
		}
	}
	// From the read of the busy hosts until this claim's hosts are busy
	// too, no other slice of the topic in this worker claims (claimLock).
	// The store serialises claims anyway (SQLite's one writer; on
	// PostgreSQL the picked rows' locks), so the wait is short.
	l := a.serving.claimLock(in.Topic)
	l.Lock()
	defer l.Unlock()
	// Hosts held after a 429 or 503 (holdHost) are left alone too: those
	// this worker holds and those any worker recorded in the store.
	heldNow, err := a.Store.HeldHosts(ctx, a.now())
	if err != nil {
		return nil, err
	}
	exclude := append(append(a.serving.hosts(in.Topic, busy), a.sent.heldHosts(a.now())...), heldNow...)
	b, err := a.Store.ClaimBatch(ctx, store.ClaimRequest{
		Topic: in.Topic, CrawlID: in.CrawlID, BatchID: batchID, Max: n, MaxPerHost: 1,
		ExcludeHosts: exclude, MinRatio: in.MinRatio, ExploreHosts: explore,
		HoldUnscored: hold, HoldWindow: a.holdWindow(), Lease: in.Lease, Now: a.now(), Fence: fence,
	})
	if err != nil {
		return nil, err
	}
	if b.Size == 0 {
		if b.Held {
			return nil, fetchloop.ErrWait
		}
		// Asked of the entries, not the kept counts: exact by construction,
		// and read-only (on PostgreSQL, FrontierStats folds count deltas).
		busy, err := a.Store.FrontierBusy(ctx, in.Topic)
		if err != nil {
			return nil, err
		}
		if busy {
			return nil, fetchloop.ErrWait
		}
		return nil, nil
	}
	entries, err := a.Store.BatchEntries(ctx, in.Topic, batchID)
	if err != nil {
		return nil, err
	}
	// The entries' pages saved already (a claim's usual answer: none),
	// in one read rather than one per fetch (fetchUnlessSaved).
	saved, err := a.Store.ClaimedPages(ctx, in.Topic, batchID)
	if err != nil {
		return nil, err
	}
	claimed.put(entries, saved)
	for _, e := range entries {
		held.add(e.Host)
	}
	return entries, nil
}

// claimedPages keeps what a claim read of its entries' stored pages
// (claimHosts) until each entry's fetch takes it: the fetch then reads no
// page of its own. The read is the claim's, made before any of its
// fetches starts, so a fetch sees what it would have read itself, but for
// a page another holder of the entry (a lease that ran out) saved in
// between — as it could after the fetch's own read too; the group's write
// then finds the page saved (parseAndSave).
type claimedPages struct {
	mu sync.Mutex
	m  map[claimKey]claimCheck
}

type claimKey struct{ batchID, urlHash string }

// claimCheck is an entry's stored page at its claim: saved, if found.
type claimCheck struct {
	saved store.Page
	found bool
}

func (c *claimedPages) put(entries []store.FrontierEntry, saved map[string]store.Page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[claimKey]claimCheck{}
	}
	for _, e := range entries {
		p, found := saved[e.URLHash]
		c.m[claimKey{e.BatchID, e.URLHash}] = claimCheck{saved: p, found: found}
	}
}

// take returns and forgets what the claim of e read (checked: it read it).
func (c *claimedPages) take(e store.FrontierEntry) (saved store.Page, found, checked bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := claimKey{e.BatchID, e.URLHash}
	ch, checked := c.m[k]
	delete(c.m, k)
	return ch.saved, ch.found, checked
}

// holdWindow is how long a claim holds 0-scored entries back: twice the
// longest a fetch may spend outside politeness waits (retries and redirects
// included), and at least a minute. A fetch whose redirect hops wait long
// for their slots can outlast it; its claim then stops holding early, which
// only weakens the hold.
func (a *Activities) holdWindow() time.Duration {
	return max(2*a.FetchCfg.MaxFetchTime, time.Minute)
}

// processStreamed parses, judges, indexes and scores the links of a group of
// fetched pages — the Parse, FilterPages and PredictLinks stages, on pages,
// bodies and parse records held in memory — then completes their entries.
// The group's store writes take three transactions: the fetched pages with
// their parse records (parseAndSave, which returns the group's pages as
// stored), then (see group) decisions before the index write, and index
// flags, links, frontier entries and the entries' completion after it.
func (a *Activities) processStreamed(ctx context.Context, ref crawlapi.BatchRef, fence store.Fence, items []streamed, held *heldHosts, prog *sliceProgress) error {
	// Requeued entries are back in the queue: nothing to process or
	// complete, only their hosts to free.
	kept := items[:0:0]
	for _, it := range items {
		if it.requeued {
			held.remove(it.entry.Host)
			continue
		}
		kept = append(kept, it)
	}
	if items = kept; len(items) == 0 {
		return nil
	}
	hashes := make([]string, 0, len(items))
	skipped, counted := 0, 0
	for _, it := range items {
		hashes = append(hashes, it.entry.URLHash)
		if it.skipped {
			skipped++
		}
		if it.counted {
			counted++
		}
	}
	g := newGroup(ref.Topic, ref.CrawlID)
	g.w.Fence = fence // a superseded attempt's writes fail, not only its claims
	links := 0
	if skipped < len(items) {
		lt, err := a.loadTopic(ctx, ref.Topic, ref.TopicVersion, ref.ModelVersion)
		if err != nil {
			return err
		}
		pages, err := a.parseAndSave(ctx, lt, ref.Topic, items, g)
		if err != nil {
			return err
		}
		fr, err := a.filterPages(ctx, ref, pages, g)
		if err != nil {
			return err
		}
		prog.accepted.Add(int64(fr.Accepted))
		prog.indexed.Add(int64(fr.Indexed))
		pr, err := a.predictLinks(ctx, ref, pages, g)
		if err != nil {
			return err
		}
		links += pr.Links
	}
	// Completion goes with the last flush, after the index write: an entry
	// is done only when everything about its page is.
	g.w.Complete = hashes
	if err := a.flush(ctx, g); err != nil {
		return err
	}
	// Counted once recorded: a heartbeat between the scoring and the flush
	// would carry links a retry's take-over scores and counts again.
	prog.links.Add(int64(links))
	prog.enqueued.Add(int64(g.enqueued))
	for _, it := range items {
		held.remove(it.entry.Host)
	}
	prog.processed.Add(int64(len(items) - counted))
	return nil
}

// takeOver finishes what earlier attempts of a slice left: entries they
// claimed but never fetched go back to the queue, pages they fetched are
// processed (idempotently: stages skip what is already recorded) — also
// those whose claim ran out before this attempt came and was closed by
// another claim, with the page still unjudged (ReleaseBatches returns them).
func (a *Activities) takeOver(ctx context.Context, ref crawlapi.BatchRef, prefix string, fence store.Fence, held *heldHosts, prog *sliceProgress) error {
	entries, err := a.Store.ReleaseBatches(ctx, ref.Topic, prefix)
	if err != nil || len(entries) == 0 {
		return err
	}
	items := make([]streamed, 0, len(entries))
	for _, e := range entries {
		p, err := a.Store.Page(ctx, ref.Topic, e.URLHash)
		if err != nil {
			return fmt.Errorf("take over %s: %w", e.URL, err)
		}
		held.add(e.Host)
		// Judged under this slice's batches: in earlierProgress's count.
		counted := p.Decision != store.DecisionPending && strings.HasPrefix(p.BatchID, prefix)
		items = append(items, streamed{entry: e, page: p, counted: counted})
	}
	a.Log.Info("crawl slice takes over a previous attempt's pages", "prefix", prefix, "pages", len(items))
	return a.processStreamed(ctx, ref, fence, items, held, prog)
}

// ReleaseSlice ends the claims of a slice that failed every attempt, which
// would otherwise stay leased until crawl.lease ran out: entries it claimed
// but never fetched return to the queue (keeping their place in line),
// entries whose page it saved are closed as done (as an expired lease would
// close them). A retry of the slice would have taken them over; once
// retries are spent no one will. Idempotent: a second call finds nothing
// claimed. It first raises the slice's fence for good, so that no attempt
// still running somewhere claims after the release.
func (a *Activities) ReleaseSlice(ctx context.Context, in crawlapi.ReleaseSliceInput) (int, error) {
	if in.Topic == "" || in.SliceID == "" {
		return 0, temporal.NewNonRetryableApplicationError("release slice: topic and slice ID are required",
			crawlapi.ErrBadInput, nil)
	}
	if err := a.Store.RaiseFence(ctx, in.Topic, sliceFence(ctx, in.SliceID, math.MaxInt64)); err != nil &&
		!errors.Is(err, store.ErrFenced) {
		return 0, err
	}
	closed, err := a.releaseClaims(ctx, in.Topic, in.SliceID+"/")
	if err != nil {
		return 0, err
	}
	if closed > 0 {
		a.Log.Info("released a failed crawl slice's claims", "slice", in.SliceID, "closed", closed)
	}
	return closed, nil
}

// releaseClaims ends the claims of the topic's batches whose ID starts
// with prefix, as ReleaseSlice describes, and returns how many entries
// whose page was saved it closed.
func (a *Activities) releaseClaims(ctx context.Context, topic, prefix string) (int, error) {
	fetched, err := a.Store.ReleaseBatches(ctx, topic, prefix)
	if err != nil {
		return 0, err
	}
	done := map[string]bool{}
	closed := 0
	for _, e := range fetched {
		if e.State == store.StateDone {
			continue // closed already (an expired lease), its page unjudged: as this leaves the others
		}
		closed++
		if done[e.BatchID] {
			continue
		}
		if err := a.Store.CompleteBatch(ctx, topic, e.BatchID); err != nil {
			return 0, err
		}
		done[e.BatchID] = true
	}
	return closed, nil
}

// SliceStats counts the work of a slice's batches (every attempt's) from
// the store. After ReleaseSlice the count is final: the entries the slice
// never fetched are back in the queue under no batch, and its fence stops
// any attempt still running from claiming or saving more.
func (a *Activities) SliceStats(ctx context.Context, in crawlapi.ReleaseSliceInput) (store.BatchStats, error) {
	if in.Topic == "" || in.SliceID == "" {
		return store.BatchStats{}, temporal.NewNonRetryableApplicationError("slice stats: topic and slice ID are required",
			crawlapi.ErrBadInput, nil)
	}
	return a.Store.BatchStats(ctx, in.Topic, in.SliceID+"/")
}

// sliceProgress counts a slice attempt's work for its heartbeats.
type sliceProgress struct {
	fetched, ok, processed, accepted, indexed, links, enqueued atomic.Int64
	queued, queuedAt                                           atomic.Int64 // watchQueued
}

// sliceBeat is how often a slice heartbeats its progress (a variable so
// that a test's short slice beats at all: the first beat comes one
// interval after the start).
var sliceBeat = 2 * time.Second

// earlierProgress is what earlier attempts of a slice did, so that a
// retry's heartbeats and result go on from it: 'starter status' adds the
// running attempt's heartbeat to the workflow's counters, and a retry that
// counted from zero made a running crawl's fetched count fall (18 to 0 after
// a restart of the Temporal server cancelled both slices' attempts) until
// the slice ended. Pages come from the store (every attempt's batches under
// prefix); links and new frontier entries, which the store does not count
// per slice, from the last heartbeat of the attempt before (itself carrying
// the ones before it; what that attempt found after its last heartbeat, at
// most 0.8 × the heartbeat timeout of links — the SDK sends a beat at
// most that often, 16 s with the default crawl.heartbeat_timeout — is not
// counted). On a first attempt both are zero.
func (a *Activities) earlierProgress(ctx context.Context, topic, prefix string) (crawlapi.SliceProgress, error) {
	st, err := a.Store.BatchStats(ctx, topic, prefix)
	if err != nil {
		return crawlapi.SliceProgress{}, err
	}
	p := crawlapi.SliceProgress{Fetched: int64(st.Fetched), OK: int64(st.OK), Accepted: int64(st.Accepted),
		Indexed: int64(st.Indexed), Processed: int64(st.Accepted + st.Rejected + st.Tunnel + st.Duplicates + st.Errors)}
	// A heartbeat this version cannot read (another release's) only costs
	// the count of links.
	var last crawlapi.SliceProgress
	if a.lastHeartbeat(ctx, &last, "crawl slice", "prefix", prefix) {
		p.Links, p.Enqueued = last.Links, last.Enqueued
	}
	if p.Fetched > 0 || p.Links > 0 {
		a.Log.Info("crawl slice goes on from earlier attempts", "prefix", prefix, "fetched", p.Fetched, "links", p.Links)
	}
	return p, nil
}

// lastHeartbeat reads into v the last heartbeat the attempt before this
// one got to the server, which carries the counts of the attempts before
// it: what a retried slice (earlierProgress) or Refetch (earlierRefetch)
// cannot count from the store. It reports false on a first attempt,
// outside an activity, and when the heartbeat is not readable (another
// release's), which it logs with what and keyvals.
func (a *Activities) lastHeartbeat(ctx context.Context, v any, what string, keyvals ...any) bool {
	if !activity.IsActivity(ctx) || !activity.HasHeartbeatDetails(ctx) {
		return false
	}
	if err := activity.GetHeartbeatDetails(ctx, v); err != nil {
		a.Log.Info(what+": an earlier attempt's heartbeat is not readable; what only it counted is not counted",
			append(keyvals, "error", err)...)
		return false
	}
	return true
}

// withEarlier adds a running attempt's progress to its earlier attempts';
// the frontier reading is the running attempt's.
func withEarlier(earlier, now crawlapi.SliceProgress) crawlapi.SliceProgress {
	now.Fetched += earlier.Fetched
	now.OK += earlier.OK
	now.Processed += earlier.Processed
	now.Accepted += earlier.Accepted
	now.Indexed += earlier.Indexed
	now.Links += earlier.Links
	now.Enqueued += earlier.Enqueued
	return now
}

func (p *sliceProgress) snapshot() crawlapi.SliceProgress {
	return crawlapi.SliceProgress{Fetched: p.fetched.Load(), OK: p.ok.Load(), Processed: p.processed.Load(),
		Accepted: p.accepted.Load(), Indexed: p.indexed.Load(), Links: p.links.Load(), Enqueued: p.enqueued.Load(),
		Queued: p.queued.Load(), QueuedAt: p.queuedAt.Load()}
}

// watchQueued keeps the slice's reading of the topic's queued frontier
// entries fresh for its heartbeats (crawlapi.SliceProgress.Queued), in a
// goroutine of its own so that a slow store never delays a heartbeat: a
// reading every 2 s, or every ten times the last one took when counting is
// slow (a scan on SQLite), backing off up to a minute while readings fail.
// Only in an activity (nothing reads the heartbeats elsewhere). The
// returned stop waits for a reading in progress.
func (a *Activities) watchQueued(ctx context.Context, topic string, p *sliceProgress) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait, failWait := time.Duration(0), 2*time.Second
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			start := time.Now()
			rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
			fs, err := a.Store.FrontierStats(rctx, topic)
			rcancel()
			if err != nil {
				wait, failWait = failWait, min(2*failWait, time.Minute)
				continue
			}
			took := time.Since(start)
			p.queued.Store(int64(fs.Queued))
			p.queuedAt.Store(time.Now().UnixNano())
			wait, failWait = max(2*time.Second, 10*took), 2*time.Second
		}
	}()
	return func() { cancel(); <-done }
}

// hostSet counts the entries a worker has in flight per topic and host.
type hostSet struct {
	mu sync.Mutex
	m  map[string]map[string]int
	// claiming serialises a topic's claims in this worker (claimLock).
	claiming map[string]*sync.Mutex
}

// claimLock returns the lock a claim of topic holds from reading the busy
// hosts until it has added its own (claimHosts): two slices that claimed
// at once both read a host as free and both took an entry of it, two
// requests to it in flight.
func (s *hostSet) claimLock(topic string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claiming == nil {
		s.claiming = map[string]*sync.Mutex{}
	}
	l := s.claiming[topic]
	if l == nil {
		l = &sync.Mutex{}
		s.claiming[topic] = l
	}
	return l
}

func (s *hostSet) add(topic, host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]map[string]int{}
	}
	if s.m[topic] == nil {
		s.m[topic] = map[string]int{}
	}
	s.m[topic][host]++
}

func (s *hostSet) remove(topic, host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.m[topic][host]; n > 1 {
		s.m[topic][host] = n - 1
	} else {
		delete(s.m[topic], host)
	}
}

// hosts returns the topic's busy hosts together with extra, deduplicated.
func (s *hostSet) hosts(topic string, extra []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool, len(extra)+len(s.m[topic]))
	out := make([]string, 0, len(extra)+len(s.m[topic]))
	for _, h := range extra {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	for h := range s.m[topic] {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// heldHosts is one slice's share of the worker's hostSet: what it added,
// so that everything it still holds is released when it ends, even on error.
type heldHosts struct {
	set   *hostSet
	topic string
	mu    sync.Mutex
	held  map[string]int
}

func (h *heldHosts) add(host string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[string]int{}
	}
	h.held[host]++
	h.set.add(h.topic, host)
}

func (h *heldHosts) remove(host string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held[host] == 0 {
		return
	}
	h.held[host]--
	h.set.remove(h.topic, host)
}

func (h *heldHosts) releaseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for host, n := range h.held {
		for range n {
			h.set.remove(h.topic, host)
		}
	}
	h.held = nil
}
