package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http/httptrace"
	"net/url"
	"sync"
	"time"
	"unicode/utf8"

	"go.temporal.io/sdk/activity"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

type outcome int

const (
	outcomeSkipped outcome = iota
	outcomeOK
	outcomeFailed
	outcomeUnsent // not requested: the worker is stopping (withSendStop), or the host is held (unsentHeld)
)

// errUnsent is a request given up before it was sent because its context's
// send stop (withSendStop) closed while it waited for its politeness slot.
var errUnsent = errors.New("worker stopping: request not sent")

type sendStopKey struct{}

// withSendStop makes requests made with ctx give up with errUnsent, sending
// nothing, when stop closes while they wait for their host's politeness
// slot or a fetch slot; a request already sent runs to its end (its retries
// and redirect hops included). A nil stop removes the parent's.
func withSendStop(ctx context.Context, stop <-chan struct{}) context.Context {
	return context.WithValue(ctx, sendStopKey{}, stop)
}

// sendStop is ctx's send stop: nil (never closes) when it has none.
func sendStop(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(sendStopKey{}).(<-chan struct{})
	return ch
}

// fetchOne fetches one frontier entry and saves the page. Only store errors
// and cancellation are returned as errors; fetch failures become page rows.
func (a *Activities) fetchOne(ctx context.Context, in crawlapi.BatchRef, e store.FrontierEntry) (outcome, store.Page, error) {
	out, page, body, err := a.fetchUnsaved(ctx, in, e)
	if err != nil || out == outcomeSkipped || out == outcomeUnsent {
		return out, page, err
	}
	saved, _, err := a.savePage(ctx, page, body)
	return out, saved, err
}

// fetchUnsaved is fetchOne without the save: it returns the page row made
// from the fetch and the body to store with it (nil for a failure), for the
// caller to save — the streaming path saves a group's pages in one
// transaction with their parse records (parseAndSave). A page the topic already has is returned as it
// is stored, with outcomeSkipped.
func (a *Activities) fetchUnsaved(ctx context.Context, in crawlapi.BatchRef, e store.FrontierEntry) (outcome, store.Page, []byte, error) {
	saved, err := a.Store.Page(ctx, e.Topic, e.URLHash)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return 0, store.Page{}, nil, err
	}
	return a.fetchUnlessSaved(ctx, in, e, saved, err == nil)
}

// fetchUnlessSaved is fetchUnsaved with the entry's stored page read by the
// caller: saved, when found (the streaming path reads a claim's stored
// pages in one read, store.Pages.ClaimedPages, right after the claim).
func (a *Activities) fetchUnlessSaved(ctx context.Context, in crawlapi.BatchRef, e store.FrontierEntry, saved store.Page, found bool) (outcome, store.Page, []byte, error) {
	if found {
		return outcomeSkipped, saved, nil, nil
	}
	page := store.Page{
		Topic: e.Topic, URLHash: e.URLHash, URL: e.URL, CrawlID: in.CrawlID, BatchID: in.BatchID,
		Depth: e.Depth, ParentURL: e.ParentURL, AnchorPath: e.AnchorPath,
		LinkScore: e.LinkScore, LinkStrategy: e.Strategy,
	}
	if e.Attempts > maxUnfinishedClaims {
		page.FinalURL, page.FinalHash = e.URL, e.URLHash
		page.ErrorClass = ErrorClassAbandoned
		page.Error = fmt.Sprintf("claimed %d times without an outcome (each crawl slice that took it died or timed out with it in flight: a page that hangs or crashes the worker?); given up without a request", e.Attempts-1)
		page.FetchedAt = a.now()
		return outcomeFailed, page, nil, nil
	}
	robotsAsked := !a.Fetcher.RobotsCached(e.URL) // this fetch asks for it (countDeadHost)
	began := a.now()
	resp, ferr := a.politeFetch(ctx, e)
	if ctx.Err() != nil {
		return 0, store.Page{}, nil, ctx.Err() // the activity is being cancelled; the entry stays claimed and will be retried
	}
	// Not requested: the worker is stopping, or the host is held — by a
	// 429's Retry-After or a Crawl-delay longer than fetch.max_host_delay,
	// robots.txt's read just now included. Its entry goes back to the
	// queue with its claim uncounted (the slice: RequeueEntry): an entry
	// refused unsent once per worker that reads the host's robots.txt
	// (each worker reads it anew) failed after maxHeldAttempts without a
	// request.
	if errors.Is(ferr, errUnsent) || heldUnsent(ferr) {
		return outcomeUnsent, page, nil, nil
	}
	// The store failed while booking the host's politeness slot (before a
	// request or a redirect hop): no request was refused, the store was.
	// Returned as the store error it is, so the attempt fails and its retry
	// takes the entry over; recorded as the page's failure, it was judged
	// an error and never fetched, its links never found.
	if se := (slotStoreError{}); errors.As(ferr, &se) {
		return 0, store.Page{}, nil, ferr
	}
	if ferr != nil { // a failure's page is its own final page
		page.FinalURL, page.FinalHash = e.URL, e.URLHash
	}
	body := recordFetch(&page, resp, ferr, a.now())
	if ferr != nil {
		// The window in which another host's answer shows the network
		// works opens when this fetch's last request went out, not when
		// the fetch began: it may have waited its host's politeness gap
		// first, while the network was still up (a review's finding).
		if sent := a.sent.lastSend(e.Host); sent.After(began) {
			began = sent
		}
		a.countDeadHost(ctx, e, ferr, robotsAsked, began)
		return outcomeFailed, page, nil, nil
	}
	return outcomeOK, page, body, nil
}

// ErrorClassAbandoned is the error class (store.Page.ErrorClass) of a
// frontier entry given up after maxUnfinishedClaims claims that ended with
// no outcome — not a fetch failure (internal/fetch's classes), but the
// crawl's: a page that hangs its processing or crashes the worker took its
// crawl slice down with it every time.
const ErrorClassAbandoned = "abandoned"

// maxUnfinishedClaims is how many claims of a frontier entry may end
// without an outcome — no page row saved: its slice killed, timed out or
// failed, and the entry returned to the queue (store.Frontier.
// ReleaseBatches) — before the next claim records it as abandoned instead
// of fetching it. A claim counts (store: attempts) unless its request was
// never sent (RequeueEntry with uncount), and a held host's requeues count
// (at most maxHeldAttempts), so a healthy entry ends with a page row long
// before this. Without the cap an entry that crashed or hung its worker was
// claimed again by every retry and every new slice of its crawl, for ever.
// A deployment that kills a worker with an entry in flight costs that
// entry one claim.
const maxUnfinishedClaims = 6

// savePage saves a fetched page with its body and returns the stored page
// and the body to parse from memory: nil when the stored page is not this
// fetch's (someone saved it meanwhile: a claim that outlived its lease).
func (a *Activities) savePage(ctx context.Context, page store.Page, body []byte) (store.Page, []byte, error) {
	saved, created, err := a.Store.SavePage(ctx, page, body)
	if err != nil {
		return store.Page{}, nil, fmt.Errorf("save page %s: %w", page.URL, err)
	}
	if !created {
		body = nil
	}
	return saved, body, nil
}

// recordFetch writes a fetch's outcome into p — the one place a page row is
// made from a response — and returns the body to store with it. A response
// gives the final URL, status, headers, size and content hash (the first
// 16 bytes of its SHA-256, hex) and clears an earlier failure; a failure
// gives its class, message and HTTP status (0 when there was none) and
// clears the content fields, so a revisited page that is gone keeps no
// stale validators. The final URL of a failure is left to the caller.
func recordFetch(p *store.Page, resp *fetch.Response, ferr error, now time.Time) []byte {
	if ferr != nil {
		var fe *fetch.Error
		p.Status = 0
		if errors.As(ferr, &fe) {
			p.Status = fe.Status
		}
		p.ErrorClass, p.Error = string(fetch.ClassOf(ferr)), truncate(ferr.Error(), 500)
		p.ContentHash, p.ETag, p.LastModified, p.Bytes, p.RobotsTag = "", "", "", 0, ""
		p.FetchedAt = now
		return nil
	}
	sum := sha256.Sum256(resp.Body)
	p.FinalURL, p.FinalHash = resp.FinalURL, urlnorm.Hash(resp.FinalURL)
	p.Status, p.ErrorClass, p.Error = resp.Status, "", ""
	p.ContentType, p.Charset = resp.ContentType, resp.Charset
	p.ETag, p.LastModified, p.ContentHash = resp.ETag, resp.LastModified, hex.EncodeToString(sum[:16])
	p.RobotsTag = resp.RobotsTag
	p.Bytes, p.FetchedAt = len(resp.Body), resp.FetchedAt
	return resp.Body
}

// politeFetch books the host's next politeness slot in the store, waits for
// it and fetches. The fetcher itself enforces robots.txt on every hop.
func (a *Activities) politeFetch(ctx context.Context, e store.FrontierEntry) (*fetch.Response, error) {
	return a.politeDoHolding(ctx, e.Host, fetch.Request{URL: e.URL})
}

// politeDoHolding is the polite request every caller makes (politeDoAfter):
// a held host's next URL waits rather than fails — a crawl's entries wait
// in the frontier, a refresh batch's pages are postponed, sample pages and
// sitemaps wait for the hold (fetchAfterHolds). After the request it holds
// the host for its robots.txt Crawl-delay when that is longer than
// fetch.max_host_delay (holdForCrawlDelay). Only after a request went
// out: one refused as held (or stopped before it was sent) moved the hold
// on each time.
func (a *Activities) politeDoHolding(ctx context.Context, host string, req fetch.Request) (*fetch.Response, error) {
	return a.politeDoHoldingAfter(ctx, host, req, time.Time{})
}

// politeDoHoldingAfter is politeDoHolding for a request after a robots.txt
// request booked at robotsAt (politeDoAfter).
func (a *Activities) politeDoHoldingAfter(ctx context.Context, host string, req fetch.Request, robotsAt time.Time) (*fetch.Response, error) {
	before := a.sent.lastSend(host)
	resp, err := a.politeDoAfter(ctx, host, req, robotsAt)
	if sent := a.sent.lastSend(host); sent.After(before) {
		a.holdForCrawlDelay(ctx, host, req.URL, sent)
	}
	return resp, err
}

// unsentHeld is a request refused as held (heldError) before it was sent:
// not a retry or a redirect hop of one sent, whose refusal comes from
// paceRequest.
type unsentHeld struct{ error }

func (e unsentHeld) Unwrap() error { return e.error }

// heldUnsent reports whether err is a request refused as held before it
// was sent (unsentHeld).
func heldUnsent(err error) bool {
	var u unsentHeld
	return errors.As(err, &u)
}

// fetchAfterHolds is politeDoHoldingAfter for callers that wait out their
// host's long hold (longHold) instead of failing — sample pages and
// sitemaps, a few requests at a crawl's start: before the request, and
// once more when the request right after robots.txt is refused, unsent,
// for the Crawl-delay robots.txt asks for (politeDoAfter). waitCtx
// bounds the waiting: a hold that ends after its deadline fails at once.
func (a *Activities) fetchAfterHolds(ctx, waitCtx context.Context, host string, req fetch.Request, robotsAt time.Time) (*fetch.Response, error) {
	var resp *fetch.Response
	var err error
	for try := 0; try < 2; try++ {
		if err := a.waitLongHold(waitCtx, host); err != nil {
			return nil, fmt.Errorf("%s: its host asked for a pause (robots.txt Crawl-delay, Retry-After) longer than there is time to wait: %w", req.URL, err)
		}
		resp, err = a.politeDoHoldingAfter(ctx, host, req, robotsAt)
		if !heldUnsent(err) {
			return resp, err
		}
		robotsAt = time.Time{}
	}
	return resp, err
}

// waitLongHold waits until host's long hold (longHold), if any, is over, or
// ctx ends; a hold ending after ctx's deadline fails at once.
func (a *Activities) waitLongHold(ctx context.Context, host string) error {
	until := a.longHold(host)
	if until.IsZero() {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && until.After(dl) {
		return fmt.Errorf("held until %s", until.UTC().Format(time.RFC3339))
	}
	return fetch.Sleep(ctx, until.Sub(a.now()))
}

// longHold reports until when host is held for longer than a request may
// wait for it (fetch.max_host_delay): a robots.txt Crawl-delay that long, or
// a 429/503's Retry-After. Zero: not held that long.
func (a *Activities) longHold(host string) time.Time {
	now := a.now()
	until := a.sent.heldUntil(host, now)
	if until.Sub(now) <= a.FetchCfg.MaxHostDelay {
		return time.Time{}
	}
	return until
}

// robotsRecheckKey marks a politeDoAfter that started over because
// robots.txt's cached entry ended while it waited: it does so once.
type robotsRecheckKey struct{}

// politeDoAfter sends one request paced as a crawl's: it books the host's
// next politeness slot in the store and waits for it (and for a fetch
// slot) before sending. robots.txt counts as a request to its host: when
// it is not cached, a slot is booked for it first (or the caller booked
// one at robotsAt: robotsSlot; zero: none), and the request's slot comes
// at least the host's delay after it; a Crawl-delay longer than
// fetch.max_host_delay holds the host from that robots.txt request on, as
// after a page request (holdForCrawlDelay), and the request is refused
// unsent as held (unsentHeld), for its caller to requeue, postpone or
// wait, instead of going out max_host_delay after robots.txt. Callers go
// through politeDoHolding, which also holds after the request.
func (a *Activities) politeDoAfter(ctx context.Context, host string, req fetch.Request, robotsAt time.Time) (*fetch.Response, error) {
	// Every request this fetch sends (robots.txt, the page, retries and
	// redirect hops) moves the host's send clock to the moment it was
	// written to the connection: on a loaded machine that can be tens of
	// milliseconds after sendClock.wait let it go, and the next request is
	// spaced from the later time.
	orig := ctx
	ctx = a.traceSends(ctx, host)
	if err := a.heldError(host, req.URL); err != nil {
		return nil, unsentHeld{err}
	}
	// The send stop applies to this request's own waits only: robots.txt
	// (whose failure would be cached), retries and redirect hops of a
	// request sent are not given up.
	stop := sendStop(ctx)
	ctx = withSendStop(ctx, nil)
	select {
	case <-stop:
		return nil, errUnsent
	default:
	}
	if robotsAt.IsZero() {
		var err error
		if robotsAt, err = a.robotsSlot(ctx, host, req.URL); err != nil {
			return nil, err
		}
	}
	delay := a.hostDelay(ctx, req.URL)
	if !robotsAt.IsZero() {
		a.holdAfterRobots(ctx, host, req.URL, robotsAt)
		if err := a.heldError(host, req.URL); err != nil {
			return nil, unsentHeld{err}
		}
	}
	earliest := later(a.now(), a.sent.heldUntil(host, a.now()))
	if !robotsAt.IsZero() { // a robots.txt request went first
		earliest = later(robotsAt.Add(delay), earliest)
	}
	if _, err := a.waitHostSlotOr(ctx, host, delay, earliest, stop); err != nil {
		return nil, err
	}
	if err := a.heldError(host, req.URL); err != nil { // a hold that began while this request waited
		return nil, unsentHeld{err}
	}
	if robotsAt.IsZero() && a.FetchCfg.RespectRobots && !a.Fetcher.RobotsCached(req.URL) && ctx.Value(robotsRecheckKey{}) == nil {
		// robots.txt was cached when this request began, and its entry
		// ended while it waited (a failure's is short: a minute, or a
		// Retry-After's end, which is also when the host's hold ends):
		// the fetch would read it again and send the page right after.
		// Start over once, so robots.txt gets its own slot and the page
		// its delay after it (a review found them 1 ms apart).
		return a.politeDoAfter(context.WithValue(orig, robotsRecheckKey{}, true), host, req, time.Time{})
	}
	if a.fetchSlots != nil { // the worker's bound on requests in flight
		select {
		case a.fetchSlots <- struct{}{}:
			defer func() { <-a.fetchSlots }()
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-stop:
			return nil, errUnsent
		}
	}
	if delay > 0 {
		if err := a.sent.wait(ctx, host, delay, a.now, stop); err != nil {
			return nil, err
		}
	}
	// Retries and redirect hops are requests too: each waits for its
	// host's next slot (another host's, for a redirect off the host).
	req.Pace = a.paceRequest
	resp, err := a.Fetcher.Fetch(ctx, req)
	var fe *fetch.Error
	if errors.As(err, &fe) && fe.Overloaded() {
		hold := fe.RetryAfter
		if hold <= 0 && fe.Class == fetch.ClassRobots && fe.RobotsRetryIn > 0 {
			// robots.txt's 429 or 503 without Retry-After: until robots.txt
			// is asked for again, the same instant for every refusal.
			hold = fe.RobotsRetryIn
		}
		a.holdHost(ctx, urlnorm.Host(fe.URL), hold)
	}
	if err == nil && resp.CharsetNote != "" {
		// The crawl log shows only the charset the page was decoded as; this
		// says which declaration lost and why, for whoever wonders.
		a.Log.Info("charset declaration overridden", "url", resp.FinalURL, "charset", resp.Charset, "why", resp.CharsetNote)
	}
	return resp, err
}

// traceSends returns ctx with a trace that moves host's send clock to the
// moment each request sent under it was written to its connection: after
// the flush that hands it to the kernel (WroteRequest), not when its
// headers went into the connection's buffer (WroteHeaders, before the
// flush) — the later of the two, so a pause of this process between them
// never shortens the gap the host sees.
func (a *Activities) traceSends(ctx context.Context, host string) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { a.sent.mark(host, a.now()) },
	})
}

// robotsSlot books and waits for a slot for the robots.txt request of
// target's host when the fetcher has no cached robots.txt for it (robots.txt
// counts as a request to its host), returning the slot's time; zero when
// no request is needed.
func (a *Activities) robotsSlot(ctx context.Context, host, target string) (time.Time, error) {
	if a.Fetcher.RobotsCached(target) {
		return time.Time{}, nil
	}
	rdelay := a.FetchCfg.PoliteDelay(0) // its Crawl-delay is not known yet
	at, err := a.waitHostSlot(ctx, host, rdelay, a.now())
	if err != nil {
		return time.Time{}, err
	}
	return at, a.sent.wait(ctx, host, rdelay, a.now, nil)
}

// heldError refuses a request to a host held for longer than
// fetch.max_host_delay from now (the longest politeness wait a fetch
// takes): a fetch that slept through an hour's hold would hold its slice,
// a refresh batch or its claim's lease past their deadlines. The error is
// the overload itself (class http_server, RetryAfter the hold's rest), so
// the slice requeues the entry (requeueHeld) and a refresh keeps the page
// as a transient failure. A shorter hold is waited out as a delay is.
func (a *Activities) heldError(host, target string) error {
	until := a.sent.heldUntil(host, a.now())
	if until.IsZero() {
		return nil
	}
	rest := until.Sub(a.now())
	if rest <= a.FetchCfg.MaxHostDelay {
		return nil
	}
	return &fetch.Error{URL: target, Class: fetch.ClassHTTPServer, RetryAfter: rest,
		Err: fmt.Errorf("host %s asked to be left alone (429, 503 or a robots.txt Crawl-delay longer than fetch.max_host_delay) until %s",
			host, until.UTC().Format(time.RFC3339))}
}

// holdHost leaves alone a host that answered 429 or 503 or sent
// Retry-After, once the fetch's own retries are spent: its next request —
// the next URL's, in this worker or another — waits the server's
// Retry-After, capped by fetch.max_host_hold, or fetch.retry_max_delay
// without one. Before, the host's next URL went out at the usual delay,
// into the same overload, and a Retry-After longer than retry_max_delay
// was cut to it. The store records the hold (store.Hosts.HoldHost), so
// every worker's claims skip the host (claimHosts); this worker also keeps
// it in its send clock, for its requests to the host that come anyway (a
// redirect hop, a refresh: heldError), also with fetch.host_delay 0, where
// requests book no store slots. A request another worker has already
// claimed finds a store slot booked at most fetch.max_host_delay ahead.
func (a *Activities) holdHost(ctx context.Context, host string, retryAfter time.Duration) {
	d := a.FetchCfg.RetryMaxDelay
	if retryAfter > 0 {
		d = retryAfter
	}
	d = min(d, a.FetchCfg.MaxHostHold)
	if d <= 0 || host == "" {
		return
	}
	now := a.now()
	a.sent.hold(host, now.Add(d))
	// Every worker's claims leave the host's entries queued meanwhile.
	if err := a.Store.HoldHost(ctx, host, now.Add(d)); err != nil {
		a.Log.Warn("could not record a host's hold in the store; other workers may claim its entries sooner", "host", host, "hold", d, "error", err)
	}
	// A fetch another worker has already claimed waits for the host's next
	// slot however far away, so the slot moves by at most
	// fetch.max_host_delay, the longest politeness wait a fetch ever takes:
	// a slice must not hang for an hour.
	if _, err := a.Store.ReserveHostSlot(ctx, host, min(d, a.FetchCfg.MaxHostDelay), now); err != nil {
		a.Log.Warn("could not record a host's hold in the store; other workers may send it requests sooner", "host", host, "hold", d, "error", err)
	}
	a.Log.Info("host asked to be left alone; holding its requests", "host", host, "hold", d)
}

// holdForCrawlDelay leaves host alone for its robots.txt Crawl-delay after
// a request to it (target) sent at sent by a crawl, a refresh batch, a
// sample page or a sitemap (politeDoHolding), when that is longer than the
// longest politeness wait a fetch takes (fetch.max_host_delay, or
// host_delay when longer): every worker's claims skip its entries until
// then, a refresh batch postpones its pages (refreshHold), the next
// sample page or sitemap waits (fetchAfterHolds), and a crawl's request
// to it that comes anyway fails as held (heldError) and is requeued, as
// for a 429's Retry-After. Before, such a host got a request every
// max_host_delay, against what it asked. Not held: a fetch's own redirect
// hops and retries. The hold is capped by fetch.max_host_hold and by half
// of fetch.robots_ttl (logged when that cuts it short).
func (a *Activities) holdForCrawlDelay(ctx context.Context, host, target string, sent time.Time) {
	if !a.FetchCfg.RespectRobots || host == "" || !a.Fetcher.RobotsCached(target) {
		return
	}
	cd := a.Fetcher.CrawlDelay(ctx, target, a.paceRequest) // cached: no request
	if cd <= max(a.FetchCfg.MaxHostDelay, a.FetchCfg.HostDelay) {
		return
	}
	hold := min(cd+a.FetchCfg.DelayMargin, a.FetchCfg.MaxHostHold)
	if ttl := a.FetchCfg.RobotsTTL; ttl > 0 && hold > ttl/2 {
		// The next request must find robots.txt still cached: read again,
		// it would hold the host anew and refuse that request unsent, for
		// ever, with fetch.robots_ttl shorter than the Crawl-delay.
		hold = ttl / 2
		a.Log.Warn("Crawl-delay hold cut to half of fetch.robots_ttl: the host gets requests sooner than it asks; set robots_ttl to at least twice its Crawl-delay",
			"host", host, "crawl_delay", cd, "hold", hold)
	}
	until := sent.Add(hold)
	a.sent.hold(host, until)
	if err := a.Store.HoldHost(ctx, host, until); err != nil {
		a.Log.Warn("could not record a host's Crawl-delay hold in the store; other workers may claim its entries sooner", "host", host, "crawl_delay", cd, "error", err)
	}
}

// hostDelay is the politeness delay of target's host: the configured one,
// or robots.txt's Crawl-delay when longer (capped by max_host_delay), plus
// the margin. Reading Crawl-delay may fetch robots.txt.
func (a *Activities) hostDelay(ctx context.Context, target string) time.Duration {
	var cd time.Duration
	if a.FetchCfg.RespectRobots {
		// Reading Crawl-delay may fetch robots.txt, whose own redirect hops
		// are requests too (the first one's slot the caller booked).
		cd = a.Fetcher.CrawlDelay(ctx, target, a.paceRequest)
	}
	return a.FetchCfg.PoliteDelay(cd)
}

// paceRequest is fetch.Request.Pace: it books target's host's next slot
// and waits for it and for the worker's send clock. A robots.txt request
// is spaced by the configured delay (its Crawl-delay is not known yet).
func (a *Activities) paceRequest(ctx context.Context, target string) error {
	host := urlnorm.Host(target)
	var delay time.Duration
	if isRobotsURL(target) || !a.Fetcher.RobotsCached(target) {
		delay = a.FetchCfg.PoliteDelay(0)
	} else {
		delay = a.hostDelay(ctx, target)
	}
	if err := a.heldError(host, target); err != nil {
		return err
	}
	held := a.sent.heldUntil(host, a.now())
	if delay <= 0 && held.IsZero() {
		return nil
	}
	if _, err := a.waitHostSlot(ctx, host, delay, later(a.now(), held)); err != nil {
		return err
	}
	if err := a.heldError(host, target); err != nil {
		return err
	}
	if delay <= 0 {
		return nil
	}
	return a.sent.wait(ctx, host, delay, a.now, nil)
}

// isRobotsURL reports whether target is a host's robots.txt (its path is
// exactly /robots.txt): a page that merely ends in "/robots.txt"
// (/docs/robots.txt) is spaced like any page, by its host's Crawl-delay.
func isRobotsURL(target string) bool {
	u, err := url.Parse(target)
	return err == nil && u.Path == "/robots.txt"
}

// slotStoreError is a store failure while booking a host's politeness slot
// (waitHostSlotOr): the store's error, not the fetch's.
type slotStoreError struct{ error }

func (e slotStoreError) Unwrap() error { return e.error }

// waitHostSlot books host's next politeness slot no earlier than earliest
// and sleeps until it opens; it returns the slot's time.
func (a *Activities) waitHostSlot(ctx context.Context, host string, delay time.Duration, earliest time.Time) (time.Time, error) {
	return a.waitHostSlotOr(ctx, host, delay, earliest, nil)
}

// waitHostSlotOr is waitHostSlot giving up with errUnsent when stop closes
// first (the slot it booked then goes unused).
func (a *Activities) waitHostSlotOr(ctx context.Context, host string, delay time.Duration, earliest time.Time, stop <-chan struct{}) (time.Time, error) {
	if delay <= 0 && !earliest.After(a.now()) {
		return a.now(), nil // no politeness to book: spare the store a write per request
	}
	at, err := a.Store.ReserveHostSlot(ctx, host, delay, later(earliest, a.now()))
	if err != nil {
		return at, slotStoreError{fmt.Errorf("reserve politeness slot for %s: %w", host, err)}
	}
	if wait := at.Sub(a.now()); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return at, ctx.Err()
		case <-stop:
			t.Stop()
			return at, errUnsent
		}
	}
	return at, nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// stepBeat is how often beatThroughout beats (a variable so tests can beat
// fast).
var stepBeat = 2 * time.Second

// recordHeartbeat is activity.RecordHeartbeat, which heartbeatEvery calls:
// a variable so tests can count the beats, which the SDK batches (up to
// 30 s in its test environment) before they reach the server.
var recordHeartbeat = activity.RecordHeartbeat

// beatThroughout heartbeats what every stepBeat until the returned stop is
// called, for an activity whose steps are single long store or index calls
// or computations (a topic's reset, SetScores over every page, IPageRank):
// a beat only between steps came later than the heartbeat timeout on a big
// crawl, and the attempt was timed out while it still ran, a retry
// overlapping it.
func beatThroughout(ctx context.Context, what string) (stop func()) {
	return heartbeatEvery(ctx, stepBeat, func() any { return what })
}

// heartbeatEvery records activity heartbeats with progress until stopped, so
// a dead worker is noticed within the heartbeat timeout even while a batch
// waits on politeness slots. Outside an activity context it does nothing.
func heartbeatEvery(ctx context.Context, every time.Duration, progress func() any) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	// The first beat comes one interval after the start (beatEvery): with a
	// heartbeat timeout below a few intervals it would come too late.
	if hb := activity.GetInfo(ctx).HeartbeatTimeout; hb > 0 {
		every = min(every, hb/4)
	}
	return beatEvery(ctx, every, func() { recordHeartbeat(ctx, progress()) })
}

// beatEvery calls beat every interval until stop is called or ctx ends. The
// first beat comes one interval after the start, not at once, and stop
// returns only after a beat under way has returned: a heartbeat sent from
// here while the activity returned raced the SDK's cancellation of the
// activity's context, and the worker logged "RecordActivityHeartbeat with
// error ... context canceled" at every crawl start without sample pages
// (StartCrawl stopped its beat microseconds after starting it).
func beatEvery(ctx context.Context, every time.Duration, beat func()) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				beat()
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-exited
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n-- // not inside a character: the store takes UTF-8 only (PostgreSQL)
	}
	return s[:n] + "…"
}

// sendClock spaces one worker's requests to a host by at least the host's
// delay between the moments they are actually sent. The store's slots space
// requests across workers, but a timer that fires late for one request and
// on time for the next would bring two sends closer than the delay; this
// closes that gap within a worker.
type sendClock struct {
	mu   sync.Mutex
	last map[string]time.Time
	held map[string]time.Time // host → until when it is left alone (holdHost)
}

// hold leaves host alone until until (a later hold wins).
func (c *sendClock) hold(host string, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	raise(&c.held, host, until)
}

// raise sets m[host] to t if t is later (allocating m when nil).
func raise(m *map[string]time.Time, host string, t time.Time) {
	if *m == nil {
		*m = map[string]time.Time{}
	}
	if t.After((*m)[host]) {
		(*m)[host] = t
	}
}

// heldUntil returns when host's hold ends, or the zero time when it has
// none at now (an ended hold is forgotten).
func (c *sendClock) heldUntil(host string, now time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, ok := c.held[host]
	if !ok {
		return time.Time{}
	}
	if !until.After(now) {
		delete(c.held, host)
		return time.Time{}
	}
	return until
}

// heldHosts lists the hosts held at now, which claims leave alone.
func (c *sendClock) heldHosts(now time.Time) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for h, until := range c.held {
		if until.After(now) {
			out = append(out, h)
		} else {
			delete(c.held, h)
		}
	}
	return out
}

// maxClockHosts bounds the hosts a sendClock remembers; older entries than
// any delay are dropped when it is full.
const maxClockHosts = 100000

// lastSend is the last send to host recorded (zero: none).
func (c *sendClock) lastSend(host string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last[host]
}

// mark records t as a send to host if it is later than the last one
// recorded (see politeDoAfter).
func (c *sendClock) mark(host string, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	raise(&c.last, host, t)
}

// wait blocks until delay has passed since the last send to host, then
// records now as its send; it gives up with errUnsent when stop closes
// first (nil: never).
func (c *sendClock) wait(ctx context.Context, host string, delay time.Duration, now func() time.Time, stop <-chan struct{}) error {
	for {
		c.mu.Lock()
		if c.last == nil {
			c.last = map[string]time.Time{}
		}
		t := now()
		next := c.last[host].Add(delay)
		if !t.Before(next) {
			if len(c.last) >= maxClockHosts {
				for h, at := range c.last {
					if t.Sub(at) > time.Hour {
						delete(c.last, h)
					}
				}
			}
			c.last[host] = t
			c.mu.Unlock()
			return nil
		}
		c.mu.Unlock()
		timer := time.NewTimer(next.Sub(t))
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-stop:
			timer.Stop()
			return errUnsent
		}
	}
}
