package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
	"time"

	"focuscrawl/internal/robots"
	"focuscrawl/internal/urlnorm"
)

const (
	// robotsFailureTTL is how long an unreachable robots.txt (5xx, 429,
	// network error, a redirect the SSRF guard refuses) is remembered as
	// "disallow all". RFC 9309 allows assuming complete disallow; keeping
	// it short lets the host recover quickly once it is back.
	robotsFailureTTL = time.Minute
	// robotsMaxRedirects is how many redirects are followed for robots.txt
	// (RFC 9309 §2.3.1.2 asks for at least five).
	robotsMaxRedirects = 5
	// robotsCacheMax bounds the cache; past it, expired entries are dropped
	// first, then arbitrary ones.
	robotsCacheMax = 50000
)

// robotsEntry is one cached robots.txt outcome. ready is closed once the
// fields are set; concurrent callers for the same host wait on it instead of
// fetching the file again.
type robotsEntry struct {
	ready chan struct{}
	rules *robots.Rules
	// unreachable, when not "", is why robots.txt could not be read (rules
	// is then DisallowAll): the refusal of every URL of the host names it,
	// since "robots.txt unreachable" alone read as the site's robots.txt
	// being at fault when nothing listened on the port or the name did not
	// resolve.
	unreachable string
	// retryUntil is when the Retry-After robots.txt was answered with
	// ends (zero: none). Every refusal the entry makes says how much of it
	// is left (Error.RetryAfter), so the caller holds the host as after a
	// page's 429 or 503, and the entry expires by then at the latest.
	retryUntil time.Time
	// status is the HTTP status robots.txt was last answered with (0: no
	// answer, a network failure): a refusal carries it (Error.RobotsStatus).
	status  int
	err     error
	expires time.Time
	// asked is when robots.txt was asked for: a refusal made from the
	// remembered answer says so, or a host that came up since looks down
	// without a request having been sent (a new user's trial).
	asked time.Time
	// noAnswer is the class of the failure when robots.txt's own host did
	// not answer at all (the first request: no redirect followed), "" when
	// it answered; lasting, whether that failure is one that does not pass
	// in a minute (the name does not exist, nothing listens on the port).
	noAnswer Class
	lasting  bool
}

// RobotsNoAnswer reports, for rawURL's origin, the class of the failure
// that left its cached robots.txt unread because its host did not answer
// at all — the name did not resolve, the connection or TLS failed, the
// response timed out — and whether that failure lasts: a name that does
// not exist, or a port nothing listens on. "" when robots.txt is not cached
// or was answered (a 5xx or 429 is an answer; so is a redirect whose
// target failed). A crawl sinks the links of a host that does not answer
// (activities' dead hosts).
func (f *Fetcher) RobotsNoAnswer(rawURL string) (class Class, lasting bool) {
	if f == nil || !f.cfg.RespectRobots {
		return "", false
	}
	e, _ := f.cachedRobots(rawURL)
	if e == nil {
		return "", false
	}
	return e.noAnswer, e.lasting
}

// LastingNoAnswer reports whether err, a request's failure to get any
// answer, will not pass in a minute: DNS says the name does not exist, or
// the host refused the connection (nothing listens) — answers about the
// host, from its DNS or from the host itself. A timeout, an unreachable
// network or a resolver that failed may be this worker's own trouble.
func LastingNoAnswer(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound || errors.Is(err, syscall.ECONNREFUSED)
}

// Robots returns the robots.txt rules that apply to rawURL's scheme and host,
// for the configured user agent. Results are cached for RobotsTTL. A missing
// robots.txt (4xx, or a non-standard status such as 999) allows everything;
// an unreachable one (5xx, 429, network failure, or a redirect to an
// address the SSRF guard refuses) disallows everything and is cached for at
// most a minute, or until its Retry-After when that is sooner (Fetch's
// refusals carry what is left of it: Error.RetryAfter). A body labelled
// gzip that is not gzip is read as plain text (logged: SetLogger). Errors
// are returned only for a bad URL, an SSRF refusal of the first request or
// a canceled ctx.
func (f *Fetcher) Robots(ctx context.Context, rawURL string) (*robots.Rules, error) {
	return f.robots(ctx, rawURL, nil)
}

// robots is Robots, calling pace (may be nil) before each redirect hop of
// a robots.txt fetch.
func (f *Fetcher) robots(ctx context.Context, rawURL string, pace func(ctx context.Context, target string) error) (*robots.Rules, error) {
	norm, err := urlnorm.Normalize(rawURL)
	if err != nil {
		return nil, newError(rawURL, ClassBadURL, err)
	}
	u, err := url.Parse(norm)
	if err != nil {
		return nil, newError(rawURL, ClassBadURL, err)
	}
	e, ferr := f.robotsFor(ctx, u, pace)
	if ferr != nil {
		return nil, ferr
	}
	return e.rules, nil
}

// RobotsPaced is Robots for a caller that paces requests: fetching
// robots.txt, it calls pace (if not nil) before each of its redirect hops,
// as CrawlDelay does; the caller books the first request's slot.
func (f *Fetcher) RobotsPaced(ctx context.Context, rawURL string, pace func(ctx context.Context, target string) error) (*robots.Rules, error) {
	return f.robots(ctx, rawURL, pace)
}

// CrawlDelay returns the Crawl-delay robots.txt sets for rawURL's host, or 0
// when it sets none, when robots.txt cannot be had, or when RespectRobots is
// off. The Fetcher itself never sleeps for politeness; the caller spaces
// requests to a host by at least this much. When reading it fetches
// robots.txt, pace (if not nil) is called before each redirect hop of that
// request, as Request.Pace is for a page's hops: the caller books the first
// request's slot itself (RobotsCached tells when one is needed).
func (f *Fetcher) CrawlDelay(ctx context.Context, rawURL string, pace func(ctx context.Context, target string) error) time.Duration {
	if !f.cfg.RespectRobots {
		return 0
	}
	rules, err := f.robots(ctx, rawURL, pace)
	if err != nil {
		return 0
	}
	return rules.CrawlDelay()
}

// RobotsCached reports whether robots.txt for rawURL's origin is cached and
// fresh, i.e. whether the next Robots or CrawlDelay call for it is free of
// network traffic. Politeness counts a robots.txt fetch as a request to the
// host, so the caller books a slot for it when this is false.
func (f *Fetcher) RobotsCached(rawURL string) bool {
	if !f.cfg.RespectRobots {
		return true
	}
	e, ok := f.cachedRobots(rawURL)
	return !ok || e != nil
}

// cachedRobots is rawURL's origin's robots.txt entry when it is read and
// not yet expired (nil otherwise); ok false when rawURL does not parse.
func (f *Fetcher) cachedRobots(rawURL string) (e *robotsEntry, ok bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, false
	}
	f.robotsMu.Lock()
	defer f.robotsMu.Unlock()
	e = f.robotsCache[u.Scheme+"://"+u.Host]
	if e == nil {
		return nil, true
	}
	select {
	case <-e.ready:
		if f.now().Before(e.expires) {
			return e, true
		}
	default:
	}
	return nil, true
}

// RobotsUnreachable reports whether rawURL's origin has a cached robots.txt
// that could not be read (RFC 9309's "unreachable": everything disallowed
// until the entry ends) — so a refusal of its URLs now is no verdict on
// them, and a crawl can ask again later.
func (f *Fetcher) RobotsUnreachable(rawURL string) bool {
	if !f.cfg.RespectRobots {
		return false
	}
	e, _ := f.cachedRobots(rawURL)
	return e != nil && e.unreachable != ""
}

// RobotsDisallows reports whether rawURL's origin has a fresh cached
// robots.txt, read from the site, that disallows rawURL: a fetch of it now
// would be refused without a request. It sends nothing: an origin whose
// robots.txt is not cached, or could not be read (unreachable: no verdict
// on its URLs), gets false, and so does every URL when RespectRobots is off.
// A crawl asks it of each link before queueing it: a wiki's "edit" and
// "history" links, on every page and disallowed, were queued, claimed and
// refused one by one, each a page of the crawl's budget without a request
// (8 of a trial crawl's 12).
func (f *Fetcher) RobotsDisallows(rawURL string) bool {
	if f == nil || !f.cfg.RespectRobots {
		return false
	}
	e, _ := f.cachedRobots(rawURL)
	if e == nil || e.unreachable != "" {
		return false
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	return !e.rules.Allowed(u.RequestURI())
}

// robotsFor returns the cached or freshly fetched robots.txt outcome for
// u's origin, ready and not to be modified; pace (may be nil) is called
// before each redirect hop of the fetch.
func (f *Fetcher) robotsFor(ctx context.Context, u *url.URL, pace func(ctx context.Context, target string) error) (*robotsEntry, *Error) {
	key := u.Scheme + "://" + u.Host
	for {
		f.robotsMu.Lock()
		e := f.robotsCache[key]
		if e != nil {
			select {
			case <-e.ready:
				if f.now().Before(e.expires) {
					f.robotsMu.Unlock()
					return e, nil
				}
				delete(f.robotsCache, key) // expired: fetch again below
			default:
				f.robotsMu.Unlock()
				select {
				case <-e.ready:
				case <-ctx.Done():
					return nil, newError(key+"/robots.txt", ClassCanceled, ctx.Err())
				}
				if e.err == nil {
					return e, nil
				}
				continue // the fetching caller failed (its ctx ended, say): try ourselves
			}
		}
		e = &robotsEntry{ready: make(chan struct{})}
		f.pruneRobotsLocked()
		f.robotsCache[key] = e
		f.robotsMu.Unlock()

		var na robotsNoAnswer
		rules, unreachable, ttl, retryAfter, status, err := f.fetchRobots(ctx, u.Scheme, u.Host, pace, &na)

		f.robotsMu.Lock()
		now := f.now()
		e.rules, e.unreachable, e.expires, e.status, e.asked = rules, unreachable, now.Add(ttl), status, now
		e.noAnswer, e.lasting = na.class, na.lasting
		if retryAfter > 0 {
			e.retryUntil = now.Add(retryAfter)
		}
		if err != nil {
			e.err = err
			if f.robotsCache[key] == e {
				delete(f.robotsCache, key)
			}
		}
		close(e.ready)
		f.robotsMu.Unlock()
		if err != nil {
			return nil, err
		}
		return e, nil
	}
}

// pruneRobotsLocked keeps the cache under robotsCacheMax entries.
func (f *Fetcher) pruneRobotsLocked() {
	if len(f.robotsCache) < robotsCacheMax {
		return
	}
	now := f.now()
	for k, e := range f.robotsCache {
		select {
		case <-e.ready:
			if !now.Before(e.expires) {
				delete(f.robotsCache, k)
			}
		default:
		}
	}
	for k, e := range f.robotsCache {
		if len(f.robotsCache) < robotsCacheMax*3/4 {
			break
		}
		select {
		case <-e.ready:
			delete(f.robotsCache, k)
		default:
		}
	}
}

// robotsNoAnswer is how robots.txt's host did not answer (robotsEntry).
type robotsNoAnswer struct {
	class   Class
	lasting bool
}

// fetchRobots downloads and parses scheme://host/robots.txt, following
// redirects. It returns the rules, why they stand for an unreachable file
// ("" when they do not), how long to cache them, the Retry-After an
// unreachable one was answered with (0: none), and the status it was
// answered with (0: no answer). When the host did not answer the first
// request at all, na says how (robotsEntry.noAnswer).
func (f *Fetcher) fetchRobots(ctx context.Context, scheme, host string, pace func(ctx context.Context, target string) error, na *robotsNoAnswer) (*robots.Rules, string, time.Duration, time.Duration, int, *Error) {
	cur := scheme + "://" + host + "/robots.txt"
	visited := map[string]bool{cur: true}
	status := 0 // of the last answer
	unreachable := func(why string) (*robots.Rules, string, time.Duration, time.Duration, int, *Error) {
		return robots.DisallowAll(), why, min(f.cfg.RobotsTTL, robotsFailureTTL), 0, status, nil
	}
	unavailable := func() (*robots.Rules, string, time.Duration, time.Duration, int, *Error) {
		return robots.AllowAll(), "", f.cfg.RobotsTTL, 0, status, nil
	}
	for hop := 0; ; hop++ {
		u, err := url.Parse(cur)
		if err != nil {
			return unavailable()
		}
		if err := f.checkLiteralHost(u.Hostname()); err != nil {
			if hop == 0 {
				return nil, "", 0, 0, 0, newError(cur, ClassSSRF, err)
			}
			// A redirect into our own network is a file we may not read,
			// not one that is missing: RFC 9309 makes that unreachable
			// (disallow all, for a while). Read as missing, it allowed the
			// whole host for a day on the strength of a file nobody saw.
			return unreachable(fmt.Sprintf("redirected to %s: %s: %v", cur, ClassSSRF, err))
		}
		if hop > 0 {
			// A redirect hop is a request too, to the host it names.
			if ferr := paceWith(ctx, pace, cur); ferr != nil {
				return nil, "", 0, 0, 0, ferr
			}
		}
		res, ferr := f.attempt(ctx, cur, Request{}, attemptOptions{
			readBody: true, limit: robots.MaxBodyBytes, truncate: true, plainUnderGzip: true,
		})
		if ferr != nil {
			// An ssrf refusal of a redirect hop (a name that resolves into
			// our own network) is unreachable like any failure to connect;
			// of the first request, it is the page's own host.
			if ferr.Class == ClassCanceled || ferr.Class == ClassSSRF && hop == 0 {
				return nil, "", 0, 0, 0, ferr
			}
			why := string(ferr.Class)
			if ferr.Err != nil {
				why += ": " + ferr.Err.Error()
			}
			if hop > 0 {
				why = "redirected to " + cur + ": " + why
			} else {
				na.class, na.lasting = ferr.Class, ferr.Class == ClassTLS || LastingNoAnswer(ferr.Err) // a failed TLS handshake is the host's answer, as for a page (activities.deadHostFailure)
			}
			return unreachable(why)
		}
		status = res.status
		switch st := res.status; {
		case st >= 200 && st < 300:
			if l := f.log.Load(); l != nil && res.note != "" {
				l.Warn("robots.txt read despite a server fault", "url", cur, "fault", res.note)
			}
			return robots.Parse(res.body, f.cfg.UserAgent), "", f.cfg.RobotsTTL, 0, res.status, nil
		case isRedirect(st) && res.header.Get("Location") != "":
			// As a page's redirect: the request URL keeps what the
			// normaliser takes out (a session ID the server adds and then
			// expects: asked for without it, /robots.txt redirected to
			// itself, a loop, and its rules were ignored).
			_, next, err := urlnorm.ResolveRequest(u, res.header.Get("Location"))
			if err != nil || visited[next] || hop >= robotsMaxRedirects {
				return unavailable()
			}
			visited[next] = true
			cur = next
		case isServerError(st):
			why := fmt.Sprintf("status %d", st)
			// Read as on a page's final status (fetchWithRetries), capped
			// alike (parseRetryAfter): the caller holds the host for it
			// through Error.RetryAfter, as for a page, instead of asking
			// again within the minute and refusing the host's URLs in
			// between. The file is asked for again when it ends, if that
			// comes before the failure's minute is up.
			var ra time.Duration
			if retryableStatus(st) {
				ra = parseRetryAfter(res.header.Get("Retry-After"), f.now())
			}
			if ra <= 0 {
				return unreachable(why)
			}
			return robots.DisallowAll(), fmt.Sprintf("%s, Retry-After %v", why, ra),
				min(f.cfg.RobotsTTL, robotsFailureTTL, ra), ra, st, nil
		default:
			// 4xx and oddities, a non-standard status ≥ 600 (999) among
			// them: no usable file. RFC 9309's "unreachable" is 5xx; 999
			// refuses this client as 403 does, and counted as unreachable
			// it refused every URL of the host, asking for robots.txt
			// again each minute.
			return unavailable()
		}
	}
}

// robotsRefusal builds the error for a URL the robots.txt outcome e does
// not allow, at now.
func robotsRefusal(rawURL string, e *robotsEntry, now time.Time) *Error {
	if e.unreachable != "" {
		why := fmt.Errorf("robots.txt unreachable (%s), assuming complete disallow", e.unreachable)
		if until := e.expires; !e.asked.IsZero() && now.Before(until) {
			if e.retryUntil.After(until) {
				until = e.retryUntil // a Retry-After holds the host longer
			}
			why = fmt.Errorf("%w until %s (robots.txt asked at %s; asked again after that)", why,
				until.UTC().Format(time.RFC3339), e.asked.UTC().Format(time.RFC3339))
		}
		re := newError(rawURL, ClassRobots, why)
		re.Permanent = false
		re.RobotsStatus = e.status
		if now.Before(e.expires) {
			re.RobotsRetryIn = e.expires.Sub(now)
		}
		if now.Before(e.retryUntil) {
			re.RetryAfter = e.retryUntil.Sub(now)
		}
		return re
	}
	return newError(rawURL, ClassRobots, fmt.Errorf("disallowed by robots.txt"))
}
