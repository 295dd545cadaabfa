package store

import (
	"context"
	"time"
)

// RefreshClaim asks for the next batch of a topic's pages due for a revisit.
type RefreshClaim struct {
	Topic   string
	BatchID string // chosen by the workflow; claiming the same BatchID again returns the same pages
	Max     int
	// MinHub, when > 0, makes non-accepted pages (rejected or tunnel) with a
	// hub score >= MinHub eligible too: hubs are where new links appear.
	MinHub float64
	Lease  time.Duration // a claim older than this is given up (its workflow died)
	Now    time.Time
	// NewPageDelay: a page never revisited is due this long after it was
	// fetched (the initial revisit interval).
	NewPageDelay time.Duration
	// RetryDelay, when > 0, backs off a page whose last claim ran out
	// without an outcome (its batch failed after ReplacePage, or its
	// workflow died): it is claimable RetryDelay after that lease ended,
	// twice as long after each further claim of it that runs out, at most
	// RetryMax (> 0) — not at every lease's end. 0: as soon as the lease
	// ends.
	RetryDelay time.Duration
	RetryMax   time.Duration
	// DueBy, when set, makes a claim take only the pages a claim at DueBy
	// could have taken: due by then, and not held at that time by a claim
	// still within its lease and retry delay. A refresh passes its start,
	// so that a page it revisited and that comes due again before the
	// refresh ends (a short refresh.min_interval) is left to the next
	// refresh. A DueBy after Now (a worker's clock behind the Temporal
	// server's, which dates the refresh's start) stands for Now too: the
	// claim judges and leases as at DueBy. Zero: Now.
	DueBy time.Time
}

// RefreshInfo is a page's revisit bookkeeping.
type RefreshInfo struct {
	NextAt   time.Time     // zero: never revisited, due at once
	Interval time.Duration // the adaptive base interval; 0 = not set yet
	Checks   int           // revisits recorded
	Changes  int           // revisits that found the page changed
	BatchID  string        // refresh batch holding the page, "" when none
	// Dropped counts the revisits in a row that found the page dropped:
	// gone, unparsable, or no longer accepted (RefreshResult.Dropped).
	Dropped int
	// Failures counts the claims of the page in a row that ran out without
	// an outcome (their batch failed): above 0, the batch before may have
	// stored the page's decision and not finished its index writes.
	Failures int
	// Unreachable counts the revisits in a row whose request failed for
	// the page's host being down (timeout, connection refused, DNS, 5xx
	// other than 503), the first of them at UnreachableSince (zero when
	// the count is 0, and in rows stored before it was kept): a page's
	// waits grow with it, and an accepted page that stays unreachable long
	// enough is out of the index until its host answers
	// (revisit.Unreachable). Rows stored before it was kept read 0.
	Unreachable      int
	UnreachableSince time.Time
}

// Validators are a page's HTTP cache validators.
type Validators struct {
	ETag         string
	LastModified string
}

// RefreshItem is a page with its revisit bookkeeping.
type RefreshItem struct {
	Page    Page
	Refresh RefreshInfo
}

// RefreshResult records one revisit of a page.
type RefreshResult struct {
	BatchID  string        // the claim it answers; a result for another batch is ignored
	Changed  bool          // the content changed (or the page is gone)
	NextAt   time.Time     // when the page is due again; zero = never (gone)
	Interval time.Duration // new adaptive base interval
	// Dropped is the page's new count of revisits in a row that found it
	// dropped (RefreshInfo.Dropped): 0 for a page that is fine. A page
	// with a count above 0 is claimable when it is rejected, a tunnel or
	// an error (not a duplicate), until its NextAt is never.
	Dropped int
	// Postponed records a page that was not requested (its host asked for
	// a pause): it is due again at NextAt, with Interval and Dropped as
	// given; no check is counted and its count of failed claims is kept.
	Postponed bool
	// Unreachable and UnreachableSince are the page's new count of
	// revisits in a row that failed transiently and the time of the first
	// (RefreshInfo.Unreachable): 0 and zero for a page that answered.
	// Given, not added, so that a result recorded twice counts once.
	Unreachable      int
	UnreachableSince time.Time
	// Validators, when set, are the page's new ETag and Last-Modified
	// (store.Page), written with the result: an answer that found the page
	// unchanged (a 304, a 200 with the same content) may carry new ones —
	// a server that changed how it computes ETags — and the next
	// conditional request must send them, or every revisit gets the whole
	// page again. Nil keeps the stored ones.
	Validators *Validators
}

// RefreshOutlook is a topic's refresh work as a claim would find it at a
// given time: what a refresh that finds nothing due can tell its operator
// about when there will be.
type RefreshOutlook struct {
	// Refreshable counts the pages a refresh may take at some time: those
	// a claim would take once due (RefreshClaim.MinHub decides about
	// hubs), gone pages left out.
	Refreshable int
	// Due counts those a claim could take now (RefreshDue).
	Due int
	// NextAt is the earliest time a claim could take one of them, as the
	// store stands: the claim's Now when one is due, the end of a live
	// claim's lease plus its retry delay for a held page; zero when
	// Refreshable is 0.
	NextAt time.Time
}

// Refreshes is the bookkeeping of incremental refresh (RefreshWorkflow).
type Refreshes interface {
	// ClaimRefresh leases up to Max of the topic's pages that are due
	// (NextAt <= Now or never revisited) and not held by another live
	// claim: accepted pages, plus hubs (see RefreshClaim.MinHub), plus pages
	// a refresh replaced and never judged (its batch failed after
	// ReplacePage), plus pages a refresh found dropped and checks again
	// (RefreshInfo.Dropped > 0) or judged not accepted in a batch that
	// failed before recording it, soonest due first, then most relevant. Claiming an existing BatchID returns
	// its size again without claiming more: the pages it holds under a
	// lease, ended or not. A BatchID whose pages were all released
	// (ReleaseRefresh) is claimed afresh, its pages taken back if still
	// due: a reset refresh claims its batch IDs again.
	ClaimRefresh(ctx context.Context, req RefreshClaim) (int, error)
	// RefreshBatch returns the pages batchID still holds with their
	// bookkeeping: those it claimed and has not recorded (RecordRefresh),
	// replaced or not, while no other claim took them — a lease that ran
	// out is still held until then, as HoldRefresh has it — and not those
	// ReleaseRefresh released, though they keep batchID. Each stage of a
	// batch reads what it may act on here: a late attempt of a released
	// batch must not fetch, judge or record the pages it gave back, which
	// the next claim takes (counting the failed claim) and revisits.
	RefreshBatch(ctx context.Context, topic, batchID string) ([]RefreshItem, error)
	// RenewRefresh extends the lease of the pages batchID still holds to
	// until (never shortening it): a batch whose revisits take longer than
	// one lease (slow hosts, long Crawl-delays) keeps its pages while it
	// runs, so another refresh does not claim and fetch them again. Pages
	// ReleaseRefresh released are not held: their lease stays ended.
	RenewRefresh(ctx context.Context, topic, batchID string, until time.Time) error
	// HoldRefresh reports whether batchID holds the page urlHash for a
	// revisit it has not finished — claimed by it, its outcome neither
	// recorded (RecordRefresh releases the page) nor stored as a
	// replacement (ReplacePage with BatchID batchID) — and, when it does,
	// extends that page's lease to until (never shortening it), in one
	// statement. A revisit asks it before it changes anything of its page
	// (the index above all): an attempt that outlived its claim, stuck
	// past its lease while another refresh claimed the page or a retry of
	// its batch revisited it, must leave both as the holder has them. A
	// page ReleaseRefresh released is not held.
	HoldRefresh(ctx context.Context, topic, urlHash, batchID string, until time.Time) (bool, error)
	// ReleaseRefresh ends at once the claim batchID has on the pages it
	// still holds, for a batch that will do no more (its refresh was
	// cancelled), and returns how many it holds — the same count when
	// called again, until another claim takes them. A released page is
	// claimable by the next claim at once: no lease to wait out, and no
	// retry delay (RefreshClaim.RetryDelay), which is for pages whose
	// batch failed, not for a batch an operator stopped. Otherwise it is
	// as a claim that ran out leaves it: it keeps batchID, so that a page
	// the batch judged not accepted and did not record stays claimable,
	// and the claim that takes it counts it among the page's failed
	// claims (RefreshInfo.Failures), so that its revisit redoes the index
	// writes the batch may have left undone. Clearing the batch ID instead
	// would have left such a page out of every later claim, with the
	// index document it may still have. RenewRefresh and HoldRefresh of
	// batchID no longer hold a released page, nor do RefreshBatch and
	// GivenUpFinals list it: an attempt of the batch that outlived its
	// workflow's cancel cannot take its pages back. RecordRefresh still
	// records its outcome. Idempotent.
	ReleaseRefresh(ctx context.Context, topic, batchID string) (int, error)
	// ReplacePage overwrites the fetch result of an existing page after a
	// revisit found it changed: status, error, final URL, validators,
	// content hash, size and fetch time are taken from p, the body blob is
	// replaced (removed when body is nil), the parse blob and the text
	// signature (Page.TextHash, the parse's) are removed, the
	// decision is reset to pending, the index flag cleared and the page's
	// BatchID set to p.BatchID, so the ordinary Parse and FilterPages stages
	// process it again. Seq, crawl, depth and link fields stay. The topic's
	// term statistics are not counted again. When p moves the page to
	// another final URL hash and the stored page was indexed or not judged
	// yet (it may hold the index document under the old hash), the old
	// hash is recorded as given up by the page (GivenUpFinals), in the same
	// transaction. Idempotent.
	ReplacePage(ctx context.Context, p Page, body []byte) error
	// ReleaseCopies sends the copies of a page that no longer holds its
	// content — the topic's pages other than urlHash judged duplicates
	// with final URL hash finalHash, content hash contentHash or text
	// signature textHash (Page.TextHash; the leaving page's before the
	// change; empty ones match nothing) — back
	// to be judged: their decision is reset to pending and they are due
	// for a refresh at at, which fetches them without validators and
	// judges them again, so the content, if a copy still serves it, finds
	// its way back into the index. It returns how many it released.
	// Idempotent.
	ReleaseCopies(ctx context.Context, topic, urlHash, finalHash, contentHash, textHash string, at time.Time) (int, error)
	// GivenUpFinals returns the final URL hashes that the pages batchID
	// holds (RefreshBatch's) gave up when ReplacePage moved them, in this batch or in an
	// earlier one that never finished, each once, sorted. A page checks
	// whether another page still holds the document it gives up before it
	// is replaced, but two pages of one final URL replaced side by side
	// each see the other: after both are replaced only these records name
	// the document, which FinishRefresh then checks.
	GivenUpFinals(ctx context.Context, topic, batchID string) ([]string, error)
	// ForgetGivenUp deletes the given-up final hashes of the pages batchID
	// holds, once the caller has dealt with their documents. Call it before
	// RecordRefresh releases the pages: a released page is no longer the
	// batch's. Idempotent.
	ForgetGivenUp(ctx context.Context, topic, batchID string) error
	// RecordRefresh stores a revisit's outcome and releases the page from
	// its claim; it does nothing when the page is not held by r.BatchID
	// (a retried activity), which keeps Checks and Changes exact.
	RecordRefresh(ctx context.Context, topic, urlHash string, r RefreshResult) error
	// UnmarkIndexed clears the index flag of pages removed from the index.
	UnmarkIndexed(ctx context.Context, topic string, urlHashes []string) error
	// RefreshDue counts the topic's eligible pages due at now (for status).
	// The request's Topic, MinHub, NewPageDelay and Now are used.
	RefreshDue(ctx context.Context, req RefreshClaim) (int, error)
	// RefreshOutlook counts the topic's pages a refresh may take and says
	// when the next is due, in the one scan of the topic's eligible pages
	// that RefreshDue makes: the request's Topic, MinHub, NewPageDelay,
	// Now, RetryDelay and RetryMax are used.
	RefreshOutlook(ctx context.Context, req RefreshClaim) (RefreshOutlook, error)
	// RefreshInfo returns a page's bookkeeping (zero RefreshInfo if never revisited).
	RefreshInfo(ctx context.Context, topic, urlHash string) (RefreshInfo, error)
	// MakeRefreshDue makes every page a claim with req's Topic and MinHub
	// may take due at req's DueBy (Now when unset) unless it is due by
	// then already (a page never revisited is due NewPageDelay after its
	// fetch), gone for good, or being rechecked after it was found
	// dropped (RefreshInfo.Dropped > 0: it keeps its own schedule, whose
	// rechecks are counted — refresh.recheck_dropped): an operator's
	// "revisit everything now" (starter refresh --all) after the site
	// changed. Pages made due sort among the others by that time, after
	// those overdue, and a refresh started earlier (whose claims judge at
	// its own start) leaves them to the one that made them due. A page
	// held by a claim keeps its claim; its revisit's outcome sets its next
	// time as usual. It returns how many pages it made due. Idempotent.
	MakeRefreshDue(ctx context.Context, req RefreshClaim) (int, error)
}
