package activities

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/fetchloop"
	"focuscrawl/internal/index"
	"focuscrawl/internal/revisit"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// TopicYAML returns a stored topic file, for a crawl a refresh starts.
func (a *Activities) TopicYAML(ctx context.Context, in crawlapi.TopicYAMLInput) (string, error) {
	rec, err := a.Store.Topic(ctx, in.Topic, in.Version)
	if errors.Is(err, store.ErrNotFound) {
		return "", nonRetryable(crawlapi.ErrNoTopic, fmt.Sprintf("topic %q v%d is not stored", in.Topic, in.Version))
	}
	return string(rec.YAML), err
}

// StartRefresh resolves the topic's latest topic and model versions, counts
// the pages due and tells when the next is (for a refresh that finds none).
// A topic without any stored version fails with the non-retryable
// ErrNoTopic, whose details name this worker's crawl store: crawl it first.
func (a *Activities) StartRefresh(ctx context.Context, in crawlapi.StartRefreshInput) (crawlapi.StartRefreshResult, error) {
	if in.Topic == "" {
		return crawlapi.StartRefreshResult{}, nonRetryable(crawlapi.ErrBadInput, "refresh: topic name is empty")
	}
	rec, err := a.Store.Topic(ctx, in.Topic, 0)
	if errors.Is(err, store.ErrNotFound) {
		// Nothing here tells a topic never crawled from a worker with
		// another store (docs/operations.md): the store is named, and the
		// log says it, for an operator who knows the topic was crawled.
		a.Log.Warn("refresh of a topic this crawl store has never seen", "topic", in.Topic, "store", a.StoreDesc)
		return crawlapi.StartRefreshResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("refresh: topic %q has never been crawled in crawl store %s (start a crawl first)", in.Topic, a.StoreDesc),
			crawlapi.ErrNoTopic, nil, a.StoreDesc)
	} else if err != nil {
		return crawlapi.StartRefreshResult{}, err
	}
	_, mv, err := a.Store.Model(ctx, in.Topic, topic.ModelKind, 0)
	if err != nil {
		return crawlapi.StartRefreshResult{}, fmt.Errorf("refresh: topic model of %q: %w", in.Topic, err)
	}
	// The topic version and model must belong together: the model stored
	// last was built from the latest topic version by StartCrawl.
	// A version that does not load fails here, non-retryable
	// (InvalidTopic), as a crawl does: every batch's FilterPages would
	// fail on it after Refetch had replaced the changed pages, leaving them
	// unjudged, batch after batch.
	if _, err := a.loadTopic(ctx, in.Topic, rec.Version, mv); err != nil {
		return crawlapi.StartRefreshResult{}, err // unwrapped: Temporal reads the type of the outermost error
	}
	rc := a.RefreshCfg
	madeDue := 0
	if !in.DueAt.IsZero() {
		// Before the outlook, which then counts them due. Idempotent: a
		// retry finds them due by DueAt already.
		req := a.refreshClaim(in.Topic, "", 0, rc.HubMinScore)
		req.DueBy = in.DueAt
		if madeDue, err = a.Store.MakeRefreshDue(ctx, req); err != nil {
			return crawlapi.StartRefreshResult{}, fmt.Errorf("refresh: make the pages of %q due: %w", in.Topic, err)
		}
		a.Log.Info("refresh of every page", "topic", in.Topic, "made_due", madeDue)
	}
	oreq := a.refreshClaim(in.Topic, "", 0, rc.HubMinScore)
	if in.DueAt.After(oreq.Now) {
		// A worker whose clock is behind the refresh's start counts the
		// pages it just made due as its claims will take them.
		oreq.Now = in.DueAt
	}
	o, err := a.Store.RefreshOutlook(ctx, oreq)
	if err != nil {
		return crawlapi.StartRefreshResult{}, err
	}
	return crawlapi.StartRefreshResult{
		Topic: in.Topic, TopicVersion: rec.Version, ModelVersion: mv, Due: o.Due, MadeDue: madeDue,
		Params: crawlapi.RefreshParams{BatchSize: rc.BatchSize, MaxPages: rc.MaxPages, HubMinScore: rc.HubMinScore,
			ContinueMaxPages: rc.ContinueMaxPages, HeartbeatTimeout: a.CrawlCfg.HeartbeatTimeout},
		TopicStoredAt: rec.CreatedAt, Store: a.StoreDesc, Outlook: outlook(o),
	}, nil
}

// NextRefresh tells when the topic's next page is due, as StartRefresh
// does, for a refresh that has rescheduled the pages it took.
func (a *Activities) NextRefresh(ctx context.Context, in crawlapi.NextRefreshInput) (crawlapi.RefreshOutlook, error) {
	o, err := a.Store.RefreshOutlook(ctx, a.refreshClaim(in.Topic, "", 0, in.MinHub))
	if err != nil {
		return crawlapi.RefreshOutlook{}, err
	}
	return *outlook(o), nil
}

// outlook is the part of a store's refresh outlook that a refresh records.
func outlook(o store.RefreshOutlook) *crawlapi.RefreshOutlook {
	return &crawlapi.RefreshOutlook{Refreshable: o.Refreshable, NextDueAt: o.NextAt}
}

// refreshClaim is a claim of the topic's due pages. A page whose earlier
// claim ran out without an outcome (its batch failed) waits
// refresh.min_interval after that, as a first transient failure does, doubling
// while it keeps failing, up to refresh.max_interval.
func (a *Activities) refreshClaim(topicName, batchID string, max int, minHub float64) store.RefreshClaim {
	return store.RefreshClaim{Topic: topicName, BatchID: batchID, Max: max, MinHub: minHub,
		Lease: a.CrawlCfg.Lease, Now: a.now(), NewPageDelay: a.RefreshCfg.InitialInterval,
		RetryDelay: a.RefreshCfg.MinInterval, RetryMax: a.RefreshCfg.MaxInterval}
}

// ClaimRefresh leases the next batch of due pages — due by in.DueBy, the
// refresh's start, when given: a refresh fetches each page at most once —
// and the same batch ID returns the same batch.
//
// It beats through the claim (beatThroughout), one store call that can
// last: behind the store's writer, busy with crawls, or another claim of
// the topic. A cancel reaches a running activity through its heartbeats
// only — the server answers one with it, and the SDK then cancels ctx,
// which ends the store call — and the refresh waits for the claim's end
// before it releases the batch (WaitForCancellation): without a beat, a
// refresh cancelled during a long claim waited for the whole claim, up to
// its start-to-close timeout. The worker sends beats on within
// HeartbeatEvery (crawlworker: MaxHeartbeatThrottleInterval), so the
// claim needs no heartbeat timeout of its own for the cancel to arrive.
func (a *Activities) ClaimRefresh(ctx context.Context, in crawlapi.RefreshClaimInput) (int, error) {
	defer beatThroughout(ctx, "claimrefresh")()
	req := a.refreshClaim(in.Topic, in.BatchID, in.Max, in.MinHub)
	req.DueBy = in.DueBy
	return a.Store.ClaimRefresh(ctx, req)
}

// Refetch revisits a refresh batch's pages with conditional GETs. A 304 or a
// 200 with the same content hash costs that one request: the page is
// rescheduled with a longer interval. A changed page replaces the stored one
// (store.ReplacePage) and stays in the batch for Parse, FilterPages and
// PredictLinks; a gone page (404, 410, 401, 451: goneStatus) is
// recorded as failed and removed from the index by FinishRefresh. Transient failures keep the page as it was,
// due again after a wait that grows with each one in a row that says its
// host is down (hostDown; revisit.AfterFailure) — and an accepted page
// whose host has not answered for refresh.drop_unreachable_after
// (revisit.Unreachable) gives up its index document until it answers
// again, nothing else: it stays accepted with its body and parse, and
// keeps being revisited. A page the batch no longer holds when its
// revisit is to be written (holdPage: the attempt outlived its claim) is
// left as its holder has it, and not counted. Hosts are fetched in
// parallel, each through the shared politeness slots.
func (a *Activities) Refetch(ctx context.Context, in crawlapi.BatchRef) (_ crawlapi.RefetchResult, err error) {
	items, err := a.Store.RefreshBatch(ctx, in.Topic, in.BatchID)
	if err != nil {
		return crawlapi.RefetchResult{}, err
	}
	var mu sync.Mutex
	res := a.earlierRefetch(ctx, in.BatchID, items)
	// The heartbeat carries the counts so far, earlier attempts' included,
	// for 'starter status' and for a retry to go on from.
	progress := func() any {
		mu.Lock()
		defer mu.Unlock()
		snap := res
		snap.ErrorsByClass, snap.FailedByClass = maps.Clone(res.ErrorsByClass), maps.Clone(res.FailedByClass)
		return snap
	}
	stop := heartbeatEvery(ctx, 2*time.Second, progress)
	defer stop()
	// As a crawl slice does: the batch needs nothing from the Temporal
	// server while it fetches, so it goes on through a short outage,
	// heartbeating itself (outlastOutage), and reports a cancellation
	// that reached it then as one (reportCanceled).
	actCtx := ctx
	ctx, endWork := a.outlastOutage(ctx, progress)
	defer endWork()
	work := ctx
	defer func() { err = a.reportCanceled(actCtx, work, err) }()
	hostOf := func(it store.RefreshItem) string { return urlnorm.Host(it.Page.URL) }
	renew := a.claimRenewer(in)
	// A worker told to stop (crawl.stop_timeout) starts no more requests:
	// those under way finish and are recorded, and the batch fails with
	// what is left to its retry on another worker, which skips what this
	// attempt recorded.
	var workerStop <-chan struct{}
	if activity.IsActivity(ctx) {
		workerStop = activity.GetWorkerStopChannel(ctx)
	}
	var left atomic.Int64
	firstErr := perHost(ctx, items, hostOf, a.CrawlCfg.FetchConcurrency,
		func(ctx context.Context, h string, it store.RefreshItem) error {
			select {
			case <-workerStop:
				left.Add(1)
				return nil
			default:
			}
			if err := renew(ctx); err != nil {
				return err
			}
			o, class, err := a.refetchOne(ctx, in, h, it)
			if err != nil {
				return err
			}
			mu.Lock()
			addRefetch(&res, o, class)
			mu.Unlock()
			return nil
		})
	if pe := (*fetchloop.PanicError)(nil); errors.As(firstErr, &pe) {
		a.Log.Error("refetch: a fetch panicked", "batch", in.BatchID, "panic", pe.Value, "stack", string(pe.Stack))
	}
	if firstErr != nil {
		return res.RefetchResult, firstErr
	}
	if err := ctx.Err(); err != nil {
		return res.RefetchResult, fmt.Errorf("refetch batch %s interrupted: %w", in.BatchID, err)
	}
	if n := left.Load(); n > 0 {
		// The retry counts this attempt's pages from its last heartbeat
		// (earlierRefetch), and the ticker's last one is up to 2 s old:
		// the requests under way at the stop finish after it. Beat the
		// exact counts now; the SDK sends a failed attempt's buffered
		// heartbeat with the failure. Without it a refresh whose worker
		// was stopped (SIGTERM) read "182 claimed … checked 179" with every
		// page requested once (an operator trial).
		stop()
		if activity.IsActivity(ctx) {
			recordHeartbeat(ctx, progress())
		}
		return res.RefetchResult, fmt.Errorf("refetch batch %s: worker stopping, %d pages left to the retry", in.BatchID, n)
	}
	return res.RefetchResult, nil
}

// refetchProgress is a Refetch's heartbeat: its counts so far, earlier
// attempts' included — what 'starter status' adds to the refresh's
// counters, reading it as a crawlapi.RefetchResult — and the error classes
// of its failed pages, which a retry cannot tell from its gone pages'.
type refetchProgress struct {
	crawlapi.RefetchResult
	FailedByClass map[string]int
}

func newRefetchProgress() refetchProgress {
	return refetchProgress{RefetchResult: crawlapi.RefetchResult{ErrorsByClass: map[string]int{}}, FailedByClass: map[string]int{}}
}

// earlierRefetch is what earlier attempts of a Refetch did, so that a
// retry's heartbeats and result go on from it, as a crawl slice's do
// (earlierProgress). Without this, a refresh whose Refetch worker was
// killed reported 16 pages checked of the 27 it claimed and visited. The
// pages they replaced, changed or gone, stay in the batch (items) with its
// batch ID: counted from there, exact (the retry skips them; before, it
// counted them only as skipped, and a change after the last heartbeat was
// lost from the refresh's counts). The pages they found not modified,
// unchanged or failed, or postponed, left the batch as each was recorded, so the retry
// neither visits them nor finds them: counted from the last heartbeat of
// the attempt before (lastHeartbeat; it carries the ones before it): exact
// for an attempt whose worker was stopped, which beats its counts as it
// fails (Refetch). Those a killed attempt recorded after that heartbeat
// (up to 0.8 × the heartbeat timeout of them: the SDK sends a beat at most
// that often) are not counted, nor are
// the failed pages' error classes of a heartbeat from before
// FailedByClass.
func (a *Activities) earlierRefetch(ctx context.Context, batchID string, items []store.RefreshItem) refetchProgress {
	r := newRefetchProgress()
	for _, it := range items {
		switch p := it.Page; {
		case p.BatchID != batchID:
		case p.ErrorClass != "":
			r.Gone++
			r.ErrorsByClass[p.ErrorClass]++
		default:
			r.Changed++
		}
	}
	var last refetchProgress
	if a.lastHeartbeat(ctx, &last, "refetch", "batch", batchID) {
		r.NotModified, r.Unchanged, r.Failed, r.Postponed = last.NotModified, last.Unchanged, last.Failed, last.Postponed
		r.Unreachable = last.Unreachable
		for class, n := range last.FailedByClass {
			r.FailedByClass[class] += n
			r.ErrorsByClass[class] += n
		}
	}
	r.Checked = r.NotModified + r.Unchanged + r.Changed + r.Gone + r.Failed
	if r.Checked > 0 {
		a.Log.Info("refetch goes on from an earlier attempt", "batch", batchID, "checked", r.Checked,
			"changed", r.Changed, "gone", r.Gone)
	}
	return r
}

// claimRenewer returns what Refetch calls before each page: it renews the
// batch's claim (store.Refreshes.RenewRefresh) to a whole crawl.lease from
// now at its first call (an attempt may start long after the claim: a
// retry) and then once a quarter of the lease has passed since the last
// renewal. One page's visit (its politeness wait capped by
// fetch.max_host_delay, its fetch by fetch.max_fetch_time) is far shorter
// than a lease, but a batch of them on one slow host need not be, and a
// claim that ran out would let another refresh take — and fetch again —
// the pages not reached yet.
func (a *Activities) claimRenewer(in crawlapi.BatchRef) func(context.Context) error {
	lease := a.CrawlCfg.Lease
	var mu sync.Mutex
	var last time.Time // zero: not renewed yet
	return func(ctx context.Context) error {
		if lease <= 0 {
			return nil // the store's default lease: nothing to measure renewals against
		}
		now := a.now()
		mu.Lock()
		due := last.IsZero() || now.Sub(last) >= lease/4
		if due {
			last = now
		}
		mu.Unlock()
		if !due {
			return nil
		}
		return a.Store.RenewRefresh(ctx, in.Topic, in.BatchID, now.Add(lease))
	}
}

// keepClaim keeps the claim of refresh batch in while one of its stages
// after Refetch runs (Parse, FilterPages, PredictLinks, FinishRefresh):
// renewed to a whole crawl.lease at once — an attempt may start long after
// Refetch's last renewal: the stage before it was retried, or no worker
// was free — and then whenever a quarter of the lease has passed
// (claimRenewer), looked at every renewEvery. The pages Refetch replaced
// stay claimed until FinishRefresh records them. Before, they kept what
// was left of Refetch's lease: stages that ran past it and its retry delay
// (a slow index, the store's writer busy, retries) let another refresh of
// the topic claim them, fetch and replace them again under this batch's
// judging, and FinishRefresh, which records only the pages the batch
// still holds, lost this batch's outcome. A renewal that fails while the
// stage runs is logged, and made again a quarter of the lease later. Call
// stop before the stage returns.
func (a *Activities) keepClaim(ctx context.Context, in crawlapi.BatchRef) (stop func(), err error) {
	renew := a.claimRenewer(in)
	if err := renew(ctx); err != nil {
		return nil, fmt.Errorf("renew the claim of refresh batch %s: %w", in.BatchID, err)
	}
	every := a.renewEvery
	if every <= 0 {
		every = a.CrawlCfg.Lease / 8
	}
	if every <= 0 {
		return func() {}, nil // the store's default lease: nothing to renew against (claimRenewer)
	}
	return beatEvery(ctx, every, func() {
		if err := renew(ctx); err != nil && ctx.Err() == nil {
			a.Log.Warn("refresh: the batch's claim was not renewed", "batch", in.BatchID, "error", err)
		}
	}), nil
}

// heldPages returns those of pages — what a stage after Refetch (Parse,
// FilterPages, PredictLinks) read of the pages batch in replaced
// (BatchPages) — that the batch still holds (RefreshBatch), read after
// keepClaim renewed its claim, which keeps them held while the stage runs.
// A late attempt, run after the batch's lease ran out and another refresh
// claimed its pages, or after its refresh was cancelled and the batch
// released them (ReleaseRefresh), must leave the pages it lost as their
// holder has them, as Refetch does (holdPage): they keep this batch's ID
// until their holder replaces or records them, and before, a late Parse
// parsed them again and counted their terms, a late FilterPages judged and
// indexed them under the other claim. Checked as the stage starts: an
// attempt that stands still after that (its worker cut off) while its
// batch is released and claimed again can still write, the window
// Refetch has between holdPage and its writes. A page of the batch's own
// crawl (in.CrawlID) came to it by no refresh claim and is kept: a crawl's
// batch run through these stages, as tests do; a refresh batch's pages
// are other crawls' (judgingCrawl).
func (a *Activities) heldPages(ctx context.Context, in crawlapi.BatchRef, pages []store.Page) ([]store.Page, error) {
	items, err := a.Store.RefreshBatch(ctx, in.Topic, in.BatchID)
	if err != nil {
		return nil, err
	}
	held := make(map[string]bool, len(items))
	for _, it := range items {
		held[it.Page.URLHash] = true
	}
	out := make([]store.Page, 0, len(pages))
	var lost []string
	for _, p := range pages {
		if held[p.URLHash] || p.CrawlID != "" && p.CrawlID == in.CrawlID {
			out = append(out, p)
		} else {
			lost = append(lost, p.URL)
		}
	}
	if len(lost) > 0 {
		a.Log.Info("refresh: pages no longer held by this batch (its claim ran out and another refresh took them, or it was released); left as their holder has them",
			"topic", in.Topic, "batch", in.BatchID, "pages", len(lost), "first", lost[0])
	}
	return out, nil
}

// holdPage reports whether batch in still holds p for this revisit
// (store.Refreshes.HoldRefresh) and, if so, keeps it a whole crawl.lease
// from now, so that no claim takes it while the revisit writes. Asked once
// the answer is in, before anything of p changes: an attempt that outlived
// its claim — stuck past its lease and retry delay while another refresh
// claimed the page, or while a retry of its own batch revisited it — must
// leave the page and its index document as the holder has them. Before,
// it wrote its own answer over the holder's: a host down for its one
// request took a page out of the index that the holder had just found
// answering, a 304 put back the document of a page the holder had since
// judged out of the topic.
func (a *Activities) holdPage(ctx context.Context, in crawlapi.BatchRef, p store.Page) (bool, error) {
	held, err := a.Store.HoldRefresh(ctx, p.Topic, p.URLHash, in.BatchID, a.now().Add(max(a.CrawlCfg.Lease, 0)))
	if err != nil {
		return false, fmt.Errorf("refresh: claim of %s: %w", p.URL, err)
	}
	if !held {
		a.Log.Info("refresh: page no longer held by this batch (its claim ran out, or another attempt revisited it); left as the holder has it",
			"topic", p.Topic, "url", p.URL, "batch", in.BatchID)
	}
	return held, nil
}

type refetchOutcome int

const (
	refetchSkipped refetchOutcome = iota
	refetchNotModified
	refetchUnchanged
	refetchChanged
	refetchGone
	refetchFailed
	refetchPostponed // not requested: its host is held (longHold)
	// failed, its host down for refresh.drop_unreachable_after: out of the
	// index until it answers, counted as failed too
	refetchUnreachable
	// not the batch's any more when its revisit was to change it
	// (holdPage): nothing written, nothing counted
	refetchLost
)

// addRefetch counts one page's refetch outcome (and error class) in r.
func addRefetch(r *refetchProgress, o refetchOutcome, class string) {
	if o == refetchLost {
		return
	}
	if o != refetchSkipped && o != refetchPostponed {
		r.Checked++
	}
	switch o {
	case refetchSkipped:
		r.Skipped++
	case refetchNotModified:
		r.NotModified++
	case refetchUnchanged:
		r.Unchanged++
	case refetchChanged:
		r.Changed++
	case refetchGone:
		r.Gone++
	case refetchUnreachable:
		r.Failed++
		r.Unreachable++
	case refetchFailed:
		r.Failed++
	case refetchPostponed:
		r.Postponed++
	}
	if class != "" {
		r.ErrorsByClass[class]++
		if o == refetchFailed || o == refetchUnreachable {
			r.FailedByClass[class]++
		}
	}
}

// refetchOne revisits one page. Only store errors and cancellation are errors.
func (a *Activities) refetchOne(ctx context.Context, in crawlapi.BatchRef, host string, it store.RefreshItem) (refetchOutcome, string, error) {
	p := it.Page
	if p.BatchID == in.BatchID {
		return refetchSkipped, "", nil // replaced by an earlier attempt; FinishRefresh records it
	}
	// A page an earlier refresh replaced but never judged (its batch failed
	// after Refetch) is processed as changed whatever the server answers:
	// its stored content is the new one already, so a conditional request or
	// an equal content hash would leave it unjudged and out of the index.
	reprocess := p.Decision == store.DecisionPending
	restore, stale := false, false
	if !reprocess {
		// An accepted page without its index document (the index write of
		// the batch that judged it failed on every attempt) is processed
		// as changed too: answering as before, it would stay out of the
		// index for as long as it does not change. One that must have no
		// document (noindex) may still have its old one, if that batch
		// failed before dropping it: dropped once the answer is in (a
		// postponed page keeps its count of failed claims: its next
		// revisit does it).
		lacks, noindex, parsed, err := a.lacksDocument(ctx, p)
		if err != nil {
			return 0, "", err
		}
		reprocess, stale = lacks, noindex && it.Refresh.Failures > 0
		// Taken out of the index because its host was down
		// (unindexUnreachable): asked for with its validators, and an
		// answer that it did not change puts its document back from its
		// stored parse, its decision kept — judged again from scratch, a
		// page the crawl's final re-judgement accepted (below the online
		// split) was turned down for an outage. A changed page is
		// processed as any. Without a stored parse there is nothing to
		// put back: judged again (the restore failed the whole batch,
		// every time it was retried).
		if lacks && parsed && it.Refresh.Unreachable >= revisit.MinUnreachableChecks {
			reprocess, restore = false, true
		}
	}
	// The validators are the final response's, sent to the final URL only
	// (fetch.Request.ValidatorsFor): a meta refresh stub at the first URL
	// would answer 304 for them whatever its target became.
	req := fetch.Request{URL: p.URL, ETag: p.ETag, LastModified: p.LastModified, ValidatorsFor: p.FinalURL}
	if reprocess {
		req.ETag, req.LastModified = "", ""
	}
	// A host that asked for a longer pause than a request may wait
	// (Crawl-delay, Retry-After; held by this worker or, in the store, by
	// any): the page is left for a later refresh, due when the pause
	// ends. Before, the batch asked for the host's next page after
	// fetch.max_host_delay, against its robots.txt, and a 429's hold
	// failed the page.
	until, err := a.refreshHold(ctx, host)
	if err != nil {
		return 0, "", err
	}
	if !until.IsZero() {
		return a.postpone(ctx, in, it, until)
	}
	resp, ferr := a.politeDoHolding(ctx, host, req)
	if ctx.Err() != nil {
		return 0, "", ctx.Err()
	}
	// A hold that began while the request waited for its slot (a 429 or a
	// Crawl-delay seen by another request of this worker) refused it
	// before anything was sent: postponed as well, not failed.
	if heldUnsent(ferr) {
		if until := a.longHold(host); !until.IsZero() {
			return a.postpone(ctx, in, it, until)
		}
	}
	// Whatever the answer, nothing of the page changes unless the batch
	// still holds it: the request may have outlived the claim.
	if held, err := a.holdPage(ctx, in, p); err != nil || !held {
		return refetchLost, "", err
	}
	if stale {
		a.dropStale(ctx, p)
	}
	// A refusal (403) is not taken for gone: refused counts it as the host
	// being unreachable (forbiddenStatus).
	refused := forbiddenStatus(ferr)
	now := a.now()
	var fe *fetch.Error
	transient := ferr != nil && !(errors.As(ferr, &fe) && fe.Permanent) || refused
	down, unreach, since := unreachableRow(it.Refresh, ferr, refused, now)
	var validators *store.Validators // new ones an unchanged answer carried
	record := func(changed bool, o refetchOutcome, class string) (refetchOutcome, string, error) {
		base, wait := revisit.Next(a.RefreshCfg, it.Refresh.Interval, changed, p.Relevance, p.Hub)
		// A transient failure is checked again soon, later after each
		// further one in a row; a permanent one (a non-standard status,
		// robots.txt now disallowing the page) keeps its page as
		// an unchanged one does, revisited at the growing unchanged
		// interval rather than at refresh.min_interval for ever.
		if (o == refetchFailed || o == refetchUnreachable) && transient {
			base, wait = revisit.AfterFailure(a.RefreshCfg, it.Refresh.Interval, unreach)
		}
		r := store.RefreshResult{BatchID: in.BatchID, Changed: changed, NextAt: now.Add(wait), Interval: base,
			Unreachable: unreach, UnreachableSince: since, Validators: validators}
		switch {
		case p.Decision == store.DecisionAccepted || a.refreshHub(p, in):
			// Fine (or a hub): its count of drops starts over.
		case p.Decision == store.DecisionPending && o != refetchFailed && o != refetchUnreachable:
			r.Dropped = it.Refresh.Dropped
		default:
			// Dropped — gone, unparsable, no longer accepted — and answering
			// as before (not modified, unchanged, a permanent failure) or not
			// at all: one more drop (FinishRefresh). Also the first one, for
			// a page whose batch judged it and failed before FinishRefresh
			// (claimable again once that claim ran out); transient failures
			// count, or a dropped page would be retried every
			// refresh.min_interval for ever. A page left unjudged by a failed
			// batch that fails to answer counts too; given up, it gives up
			// the old document it may still have.
			r.Dropped = it.Refresh.Dropped + 1
			r.NextAt, r.Interval = droppedNext(a.RefreshCfg, it.Refresh.Interval, r.Dropped, now)
			// A page judged out of the topic by a batch that then failed
			// may still have its old document (dropStale); a page left
			// unjudged keeps its old document until it is given up.
			switch {
			case p.Decision == store.DecisionPending && r.NextAt.IsZero():
				if err := a.dropDocuments(ctx, p.Topic, []string{p.FinalHash}, []string{p.URLHash}); err != nil {
					return 0, "", fmt.Errorf("refresh: index document of %s: %w", p.URL, err)
				}
			case p.Decision != store.DecisionPending && it.Refresh.Failures > 0:
				a.dropStale(ctx, p)
			}
		}
		err := a.Store.RecordRefresh(ctx, p.Topic, p.URLHash, r)
		return o, class, err
	}
	if ferr == nil && resp.NotModified {
		// A 304 sends the validators a 200 would have (RFC 9110 15.4.5);
		// one it leaves out keeps the stored value.
		v := store.Validators{ETag: cmp.Or(resp.ETag, p.ETag), LastModified: cmp.Or(resp.LastModified, p.LastModified)}
		if v != (store.Validators{ETag: p.ETag, LastModified: p.LastModified}) {
			validators = &v
		}
		if restore {
			if err := a.restoreDocument(ctx, p); err != nil {
				return 0, "", err
			}
		}
		return record(false, refetchNotModified, "")
	}
	repl := p
	repl.BatchID = in.BatchID
	body := recordFetch(&repl, resp, ferr, now)
	outcome, class := refetchChanged, repl.ErrorClass
	switch {
	case ferr != nil && !goneStatus(repl.Status):
		if !down || !(p.Decision == store.DecisionAccepted || a.refreshHub(p, in)) ||
			!revisit.Unreachable(refusalLimit(a.RefreshCfg, refused), unreach, since, now) {
			return record(false, refetchFailed, class)
		}
		// A page in the topic (or a hub) whose host has not answered for
		// refresh.drop_unreachable_after: a search result that times out
		// is worse than none, so its document leaves the index — only
		// that. The page stays accepted with its body, parse, decision and
		// validators, revisited at the growing wait for ever; once its
		// host answers, an answer that it did not change puts its document
		// back from its stored parse (restoreDocument), a changed page is
		// processed as any. Before, it was replaced with its failure and
		// given up after refresh.recheck_dropped more checks (at once
		// with 0): a few days' outage — the worker's own network trouble
		// too — lost it for good.
		if err := a.unindexUnreachable(ctx, p, since, unreach, ferr); err != nil {
			return 0, "", err
		}
		return record(false, refetchUnreachable, class)
	case ferr != nil:
		outcome = refetchGone
	case repl.ContentHash == p.ContentHash && repl.FinalURL == p.FinalURL && repl.RobotsTag == p.RobotsTag && !reprocess:
		// An X-Robots-Tag that changed alone (noindex added or lifted)
		// is a change: the page must be judged and indexed again.
		if repl.ETag != p.ETag || repl.LastModified != p.LastModified {
			validators = &store.Validators{ETag: repl.ETag, LastModified: repl.LastModified}
		}
		if restore {
			if err := a.restoreDocument(ctx, p); err != nil {
				return 0, "", err
			}
		}
		return record(false, refetchUnchanged, "")
	}
	// The index document is keyed by the final URL hash; when that moves
	// (or the page is gone) the old document must go now, as FilterPages
	// only ever upserts under the new key — unless another page still
	// holds it (dropDocuments). Another page of this batch leaving that
	// document too may still look like its holder here, so ReplacePage
	// records the hash given up and FinishRefresh checks it again.
	// A page processed again (unjudged after a failed earlier batch, or
	// accepted and unflagged) may still have its old document.
	gone := outcome == refetchGone
	if (p.Indexed || reprocess) && (gone || repl.FinalHash != p.FinalHash) {
		if err := a.dropDocuments(ctx, p.Topic, []string{p.FinalHash}, []string{p.URLHash}); err != nil {
			return 0, "", fmt.Errorf("refresh: index document of %s: %w", p.URL, err)
		}
	}
	// Its copies are never revisited as copies: what it served may now
	// live on only in them, so they are judged again (ReleaseCopies) —
	// before the replacement, which a retry would skip the page after.
	// Also when its X-Robots-Tag turned noindex: a copy judged again finds
	// it no original (originalOf). (Turned indexable again, the page is
	// judged a copy of the copy that took its place: nothing to release.)
	if gone || repl.ContentHash != p.ContentHash || repl.FinalHash != p.FinalHash ||
		(a.headerNoindex(repl.RobotsTag) && !a.headerNoindex(p.RobotsTag)) {
		if _, err := a.Store.ReleaseCopies(ctx, p.Topic, p.URLHash, p.FinalHash, p.ContentHash, p.TextHash, now); err != nil {
			return 0, "", err
		}
	}
	if err := a.Store.ReplacePage(ctx, repl, body); err != nil {
		return 0, "", err
	}
	return outcome, class, nil
}

// goneStatus reports whether a revisit answered with status means the page
// is gone for this crawler: 404 and 410, 401 (the page now needs a login)
// and 451 (withdrawn for legal reasons) — a search result its user cannot
// open either. Such a page leaves the index and is checked again
// refresh.recheck_dropped times. Other client errors (400, 405, 413, 414,
// 431: often about the request, e.g. a validator the server will not
// take) keep the page, as a non-standard status does. A 403 is neither
// (forbiddenStatus).
func goneStatus(status int) bool {
	switch status {
	case 401, 404, 410, 451:
		return true
	}
	return false
}

// forbiddenStatus reports whether a revisit's failure is a refusal of
// this client: a 403, or a non-standard status of 600 or more (999, which
// LinkedIn and others answer crawlers with). It says the page refuses this
// crawler, which a page gone private does — and a web application firewall
// or bot filter that took a dislike to the crawler does for every page of
// its host, often for a day or two; a page's answer cannot tell the two
// apart (nor can one request for another page of the host: filters trip
// after a few requests, and many sites forbid their root). Taken for gone,
// as until 2026-11-28, such a filter emptied the index of its host's pages
// in one refresh, each dropped and soon given up. A refusal now counts as
// the host being unreachable (unreachableRow): the page stays searchable
// until its refusals in a row span refresh.drop_unreachable_after (72
// hours when that is 0: refusalLimit), then only leaves the index — kept
// accepted, revisited, and back when it answers again. The cost: a page
// truly gone private stays a search result for that long, and is revisited
// at the longest interval for ever.
func forbiddenStatus(err error) bool {
	var fe *fetch.Error
	return errors.As(err, &fe) && (fe.Status == http.StatusForbidden || fe.Status >= 600)
}

// refusalLimit is the refresh configuration whose drop_unreachable_after
// takes a refused page (forbiddenStatus) out of the index: the configured
// one, or 72 hours when it is 0. 0 keeps the pages of a host that is down
// searchable for ever (an operator's choice for outages); a page that
// answers that it refuses the crawler must leave some time, or a page gone
// private stayed a search result for good.
func refusalLimit(c config.Refresh, refused bool) config.Refresh {
	if refused && c.DropUnreachableAfter <= 0 {
		c.DropUnreachableAfter = refusalDropAfter
	}
	return c
}

// refusalDropAfter is refusalLimit's bound when drop_unreachable_after is 0:
// the option's default.
const refusalDropAfter = 72 * time.Hour

// restoreDocument puts back the index document of p, accepted and taken
// out of the index while its host was down, from its stored parse, and
// flags it indexed: its host answered that it did not change. The document
// is written before the flag, so a retry finds the page unflagged and
// writes it again (an upsert). Called only while the batch holds p
// (holdPage), as every write of a revisit is.
func (a *Activities) restoreDocument(ctx context.Context, p store.Page) error {
	rec, err := a.loadParse(ctx, p)
	if err != nil {
		return fmt.Errorf("refresh: restore the index document of %s: %w", p.URL, err)
	}
	doc, err := a.indexDocument(ctx, p, rec)
	if err != nil {
		return err
	}
	if err := a.Index.Upsert(ctx, []index.Document{doc}); err != nil {
		return fmt.Errorf("refresh: restore the index document of %s: %w", p.URL, err)
	}
	a.Log.Info("refresh: page answers again, back in the index", "url", p.URL)
	return a.Store.MarkIndexed(ctx, p.Topic, []string{p.URLHash})
}

// unreachableRow is a page's row of revisits that failed for its host
// being down (store.RefreshInfo.Unreachable, with the first one's time)
// after a revisit at now that ended with ferr, and whether ferr is one
// more (hostDown). Any answer, a permanent failure included, ends the row.
// Any other failure leaves it as it was: a request refused as held before
// it was sent (unsentHeld: its hold ended meanwhile) asked nothing, a 429
// or 503 (Overloaded) came from a host that is up, and a failure on this
// worker's side (the store, a cancelled wait: no fetch error of the
// host's) says nothing about the host. A 403 (refused: forbiddenStatus)
// is one more, as the host being down is.
func unreachableRow(ri store.RefreshInfo, ferr error, refused bool, now time.Time) (down bool, n int, since time.Time) {
	var fe *fetch.Error
	switch {
	case ferr == nil || !refused && errors.As(ferr, &fe) && fe.Permanent:
		return false, 0, time.Time{}
	case refused || hostDown(ferr) && !heldUnsent(ferr):
		n, since = ri.Unreachable+1, ri.UnreachableSince
		if n == 1 || since.IsZero() {
			since = now
		}
		return true, n, since
	}
	return false, ri.Unreachable, ri.UnreachableSince
}

// hostDown reports whether a revisit's failure says the page's host is
// down, which counts toward refresh.drop_unreachable_after: a fetch.Error
// that is not permanent (an answer: 4xx, robots.txt disallowing, a
// response that is no HTTP...) of a network or server class — dns,
// connect, timeout, tls, body_read, http_server (5xx, 408) or robots
// (robots.txt did not answer) — and no pause asked for (a 429, or any
// status with a Retry-After, this worker's own hold of the host included),
// which comes from a host that is up and said when to come back. A 503
// without Retry-After counts: a dead backend behind a live proxy answers
// it for days, and is down for the users a search result sends there. Not a failure on the crawler's side: an error that is no
// fetch.Error (fetch.ClassOther: the crawl store failing to book the
// host's slot, say) or canceled (a wait the worker gave up, or its pacer
// failing). A worker-wide DNS or network outage cannot be told from the
// host's own and counts: such an outage longer than the limit takes pages
// out of the index until they answer again (docs/operations.md).
func hostDown(err error) bool {
	var fe *fetch.Error
	const tooManyRequests = 429
	if !errors.As(err, &fe) || fe.Permanent || fe.Status == tooManyRequests || fe.RetryAfter > 0 {
		return false
	}
	switch fe.Class {
	case fetch.ClassDNS, fetch.ClassConnect, fetch.ClassTimeout, fetch.ClassTLS, fetch.ClassBodyRead,
		fetch.ClassHTTPServer:
		return true
	case fetch.ClassRobots:
		// robots.txt unanswered, or answered with a 5xx: the host is down
		// as for the page itself. A 429, a redirect it would not follow:
		// the host answered (a review: a rate-limited robots.txt counted).
		return fe.RobotsStatus == 0 || fe.RobotsStatus >= 500
	}
	return false
}

// unindexUnreachable takes the index document of p, accepted (or a hub)
// and unreachable since since (failures revisits in a row), out of the
// index — unless another accepted page still holds it (dropDocuments) —
// and unflags p, so that its next revisit that gets an answer indexes it
// again (lacksDocument). The document goes first: a retry after a failed
// unflagging finds the page still flagged and does both again. A page
// already unflagged (taken out by an earlier revisit, or a hub, which has
// no document) costs nothing. Called only while the batch holds p
// (holdPage): a stale attempt's failure must not take out a page another
// has just found answering.
func (a *Activities) unindexUnreachable(ctx context.Context, p store.Page, since time.Time, failures int, ferr error) error {
	if !p.Indexed {
		return nil
	}
	if err := a.dropDocuments(ctx, p.Topic, []string{p.FinalHash}, []string{p.URLHash}); err != nil {
		return fmt.Errorf("refresh: index document of unreachable %s: %w", p.URL, err)
	}
	if err := a.Store.UnmarkIndexed(ctx, p.Topic, []string{p.URLHash}); err != nil {
		return err
	}
	a.Log.Info("refresh: page unreachable, out of the index until it answers again",
		"topic", p.Topic, "url", p.URL, "since", since, "failures", failures, "error", ferr)
	return nil
}

// dropStale deletes the index document a page that must have none may
// still have, left by a refresh batch that failed between storing its
// decision and dropping its document (FilterPages stores decisions before
// it writes the index): unless another page holds it (dropDocuments).
// Asked only when the page's claim before this one ran out without an
// outcome (RefreshInfo.Failures), so a page with no document costs the
// index nothing. Best effort: an index outage must not fail the revisit
// (logged).
func (a *Activities) dropStale(ctx context.Context, p store.Page) {
	if err := a.dropDocuments(ctx, p.Topic, []string{p.FinalHash}, []string{p.URLHash}); err != nil && ctx.Err() == nil {
		a.Log.Warn("refresh: a possibly stale index document was not deleted; the next revisit tries again",
			"topic", p.Topic, "url", p.URL, "error", err)
	}
}

// refreshHold returns until when a refresh must leave host alone: this
// worker's hold, or the store's (any worker's), when longer than a request
// may wait (longHold); zero when it may be asked now.
func (a *Activities) refreshHold(ctx context.Context, host string) (time.Time, error) {
	stored, err := a.Store.HostHeldUntil(ctx, host)
	if err != nil {
		return time.Time{}, fmt.Errorf("refresh: hold of %s: %w", host, err)
	}
	if stored.After(a.now()) {
		a.sent.hold(host, stored)
	}
	return a.longHold(host), nil
}

// postpone records a refresh page that was not requested because its host
// is held until until: due then, no check counted (RefreshResult.Postponed).
// A page refreshable only while a claim holds it (not accepted, not a hub,
// judged: dropped or left by a failed batch) keeps a count of drops, so it
// stays refreshable without one being added; its failures in a row are
// kept too (nothing was asked). Like an answer, it is written only while
// the batch holds the page (holdPage): a stale attempt must not release a
// page its batch's retry replaced, nor push back another claim's revisit.
func (a *Activities) postpone(ctx context.Context, in crawlapi.BatchRef, it store.RefreshItem, until time.Time) (refetchOutcome, string, error) {
	p := it.Page
	if held, err := a.holdPage(ctx, in, p); err != nil || !held {
		return refetchLost, "", err
	}
	dropped := it.Refresh.Dropped
	if p.Decision != store.DecisionAccepted && p.Decision != store.DecisionPending && !a.refreshHub(p, in) {
		dropped = max(dropped, 1)
	}
	err := a.Store.RecordRefresh(ctx, p.Topic, p.URLHash, store.RefreshResult{BatchID: in.BatchID,
		NextAt: until, Interval: it.Refresh.Interval, Dropped: dropped, Postponed: true,
		Unreachable: it.Refresh.Unreachable, UnreachableSince: it.Refresh.UnreachableSince})
	return refetchPostponed, "", err
}

// lacksDocument reports, for p accepted but not indexed, whether it lacks
// its document — its stored parse says it may have one (no noindex), or
// there is no stored parse to tell — or must have none (noindex), and
// whether it has a stored parse (parsed) to rebuild the document from.
func (a *Activities) lacksDocument(ctx context.Context, p store.Page) (lacks, noindex, parsed bool, err error) {
	if p.Decision != store.DecisionAccepted || p.Indexed {
		return false, false, false, nil
	}
	rec, err := a.loadParse(ctx, p)
	if errors.Is(err, store.ErrNotFound) {
		return true, false, false, nil
	}
	if err != nil {
		return false, false, false, fmt.Errorf("refresh %s: %w", p.URL, err)
	}
	if rec.Doc == nil || rec.Doc.NoIndex || a.headerNoindex(p.RobotsTag) {
		return false, rec.Doc != nil, true, nil
	}
	return true, false, true, nil
}

// FinishRefresh completes a refresh batch after Parse, FilterPages and
// PredictLinks have processed its changed pages: pages that are gone, no
// longer accepted or accepted but not indexed (now noindex) are deleted
// from the index (their documents, unless another page holds one:
// dropDocuments), so are the documents under the final URLs the batch's
// pages moved away from that no page holds any more, and every changed
// page gets its next revisit time (a dropped page: refresh.recheck_dropped
// more checks, then never; a copy: never). It acts on the pages the batch
// still holds only (RefreshBatch, GivenUpFinals), as the stages before it
// do (heldPages): a late attempt leaves those another claim took, or that
// the batch's release gave back, to the claim that takes them.
func (a *Activities) FinishRefresh(ctx context.Context, in crawlapi.BatchRef) (crawlapi.FinishRefreshResult, error) {
	stop, err := a.keepClaim(ctx, in)
	if err != nil {
		return crawlapi.FinishRefreshResult{}, err
	}
	defer stop()
	// Beats while it works: its stage runs with the crawl's heartbeat
	// timeout, which a batch's judging or index writes can outlast (a slow
	// index, the store's writer busy with another crawl).
	defer heartbeatEvery(ctx, 2*time.Second, func() any { return "finishrefresh" })()
	items, err := a.Store.RefreshBatch(ctx, in.Topic, in.BatchID)
	if err != nil {
		return crawlapi.FinishRefreshResult{}, err
	}
	// Refetch asked for the holders of each of these before replacing its
	// page, but two pages of one final URL on two hosts, replaced side by
	// side, each found the other holding the document and wrote it again
	// from it: only now, with every page of the batch replaced and judged,
	// do the holders tell. The store keeps them with the pages until
	// ForgetGivenUp below, so a retry checks them again.
	gaveUp, err := a.Store.GivenUpFinals(ctx, in.Topic, in.BatchID)
	if err != nil {
		return crawlapi.FinishRefreshResult{}, err
	}
	var res crawlapi.FinishRefreshResult
	var drop, unmark []string
	for _, it := range items {
		// ReplacePage cleared the flag and FilterPages set it again on
		// every accepted page it indexed; one it left unflagged (noindex)
		// may still have the document the crawl indexed under its key.
		if it.Page.Decision != store.DecisionAccepted || !it.Page.Indexed {
			drop = append(drop, it.Page.FinalHash)
			unmark = append(unmark, it.Page.URLHash)
		}
	}
	if len(drop)+len(gaveUp) > 0 {
		// A page of the batch that now ends at a given-up final URL and
		// holds it (accepted, indexed) keeps the document.
		if err := a.dropDocuments(ctx, in.Topic, append(drop, gaveUp...), unmark); err != nil {
			return res, fmt.Errorf("refresh: %w", err)
		}
	}
	if len(unmark) > 0 {
		if err := a.Store.UnmarkIndexed(ctx, in.Topic, unmark); err != nil {
			return res, err
		}
	}
	if len(gaveUp) > 0 {
		if err := a.Store.ForgetGivenUp(ctx, in.Topic, in.BatchID); err != nil {
			return res, err
		}
	}
	now := a.now()
	for _, it := range items {
		p := it.Page
		r := store.RefreshResult{BatchID: in.BatchID, Changed: true}
		hub := a.refreshHub(p, in)
		switch {
		case p.Decision == store.DecisionDuplicate:
			res.Removed++ // now a copy: never revisited again (r.NextAt zero)
		case p.Decision == store.DecisionAccepted || hub:
			if p.Decision == store.DecisionAccepted {
				res.Kept++
			} else {
				res.Removed++ // no longer relevant; revisited as a hub (refresh.hub_min_score)
			}
			base, wait := revisit.Next(a.RefreshCfg, it.Refresh.Interval, true, p.Relevance, p.Hub)
			r.NextAt, r.Interval = now.Add(wait), base
		default:
			// Gone, unparsable or no longer relevant: checked again a few
			// times (refresh.recheck_dropped) before it is given up, and
			// counted as removed the first time only.
			if it.Refresh.Dropped == 0 {
				res.Removed++
			}
			r.Dropped = it.Refresh.Dropped + 1
			r.NextAt, r.Interval = droppedNext(a.RefreshCfg, it.Refresh.Interval, r.Dropped, now)
		}
		if err := a.Store.RecordRefresh(ctx, p.Topic, p.URLHash, r); err != nil {
			return res, err
		}
	}
	return res, nil
}

// ReleaseRefresh ends the claim of a batch whose refresh was cancelled
// (store.Refreshes.ReleaseRefresh): its pages are claimable again at once,
// where they waited for their lease (crawl.lease) and then their retry
// delay (refresh.min_interval). It keeps what a claim that ran out keeps,
// so the next claim of a page revisits it as it would after a failed
// batch, redoing the index writes this one may have left undone. The
// workflow calls it once the batch's activities have ended; an attempt of
// them still running somewhere (its worker cut off from the server) can
// no longer renew, hold or read the released pages (RefreshBatch,
// heldPages). Idempotent: a retry releases the same pages and answers the
// same count, until another claim takes them.
func (a *Activities) ReleaseRefresh(ctx context.Context, in crawlapi.ReleaseRefreshInput) (int, error) {
	if in.Topic == "" || in.BatchID == "" {
		return 0, nonRetryable(crawlapi.ErrBadInput, "release refresh batch: topic and batch ID are required")
	}
	n, err := a.Store.ReleaseRefresh(ctx, in.Topic, in.BatchID)
	if err != nil {
		return 0, fmt.Errorf("release refresh batch %s: %w", in.BatchID, err)
	}
	if n > 0 {
		a.Log.Info("released a cancelled refresh batch's claim", "topic", in.Topic, "batch", in.BatchID, "pages", n)
	}
	return n, nil
}

// refreshHub reports whether a page not accepted is revisited as a hub
// (refresh.hub_min_score), on the normal schedule: by the score the
// refresh recorded when it started (in.MinHub), the one ClaimRefresh
// chose its pages by — the worker's own config only for refreshes
// recorded before it was passed (workers with different settings had
// disagreed with the claim).
func (a *Activities) refreshHub(p store.Page, in crawlapi.BatchRef) bool {
	minHub := a.RefreshCfg.HubMinScore
	if in.MinHub != nil {
		minHub = *in.MinHub
	}
	return minHub > 0 && p.Hub >= minHub &&
		(p.Decision == store.DecisionRejected || p.Decision == store.DecisionTunnel)
}

// droppedNext is when a page found dropped for the times-th time in a row
// is checked again (revisit.Dropped), and its new base interval; zero:
// never, it is given up.
func droppedNext(c config.Refresh, base time.Duration, times int, now time.Time) (time.Time, time.Duration) {
	newBase, wait, ok := revisit.Dropped(c, base, times)
	if !ok {
		return time.Time{}, base
	}
	return now.Add(wait), newBase
}

func nonRetryable(errType, msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, errType, nil)
}
