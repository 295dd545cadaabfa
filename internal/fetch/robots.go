package fetch

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"focuscrawl/internal/robots"
	"focuscrawl/internal/urlnorm"
)

const (
	// robotsFailureTTL is how long an unreachable robots.txt (5xx, 429,
	// network error, a redirect the SSRF guard refuses) is remembered as
	// "disallow all". RFC 9309 allows
	// assuming complete disallow; keeping it short lets the host recover
	// quickly once it is back.
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
	err         error
	expires     time.Time
}

// Robots returns the robots.txt rules that apply to rawURL's scheme and host,
// for the configured user agent. Results are cached for RobotsTTL. A missing
// robots.txt (4xx, or a non-standard status such as 999) allows everything;
// an unreachable one (5xx, 429, network failure, or a redirect to an
// address the SSRF guard refuses) disallows everything and is cached for at
// most a minute. A body labelled gzip that is not gzip is read
// as plain text (logged: SetLogger). Errors
// are returned only for a bad URL, an SSRF refusal or a canceled ctx.
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
	rules, _, ferr := f.robotsFor(ctx, u, pace)
	if ferr != nil {
		return nil, ferr
	}
	return rules, nil
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
	u, err := url.Parse(rawURL)
	if err != nil {
		return true // Fetch will refuse the URL without any request
	}
	f.robotsMu.Lock()
	defer f.robotsMu.Unlock()
	e := f.robotsCache[u.Scheme+"://"+u.Host]
	if e == nil {
		return false
	}
	select {
	case <-e.ready:
		return f.now().Before(e.expires)
	default:
		return false
	}
}

// robotsFor returns the cached or freshly fetched rules for u's origin and,
// when robots.txt could not be read, why (robotsEntry.unreachable); pace
// (may be nil) is called before each redirect hop of the fetch.
func (f *Fetcher) robotsFor(ctx context.Context, u *url.URL, pace func(ctx context.Context, target string) error) (*robots.Rules, string, *Error) {
	key := u.Scheme + "://" + u.Host
	for {
		f.robotsMu.Lock()
		e := f.robotsCache[key]
		if e != nil {
			select {
			case <-e.ready:
				if f.now().Before(e.expires) {
					f.robotsMu.Unlock()
					return e.rules, e.unreachable, nil
				}
				delete(f.robotsCache, key) // expired: fetch again below
			default:
				f.robotsMu.Unlock()
				select {
				case <-e.ready:
				case <-ctx.Done():
					return nil, "", newError(key+"/robots.txt", ClassCanceled, ctx.Err())
				}
				if e.err == nil {
					return e.rules, e.unreachable, nil
				}
				continue // the fetching caller failed (its ctx ended, say): try ourselves
			}
		}
		e = &robotsEntry{ready: make(chan struct{})}
		f.pruneRobotsLocked()
		f.robotsCache[key] = e
		f.robotsMu.Unlock()

		rules, unreachable, ttl, err := f.fetchRobots(ctx, u.Scheme, u.Host, pace)

		f.robotsMu.Lock()
		e.rules, e.unreachable, e.expires = rules, unreachable, f.now().Add(ttl)
		if err != nil {
			e.err = err
			if f.robotsCache[key] == e {
				delete(f.robotsCache, key)
			}
		}
		close(e.ready)
		f.robotsMu.Unlock()
		if err != nil {
			return nil, "", err
		}
		return rules, unreachable, nil
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

// fetchRobots downloads and parses scheme://host/robots.txt, following
// redirects. It returns the rules, why they stand for an unreachable file
// ("" when they do not), and how long to cache them.
func (f *Fetcher) fetchRobots(ctx context.Context, scheme, host string, pace func(ctx context.Context, target string) error) (*robots.Rules, string, time.Duration, *Error) {
	cur := scheme + "://" + host + "/robots.txt"
	visited := map[string]bool{cur: true}
	unreachable := func(why string) (*robots.Rules, string, time.Duration, *Error) {
		return robots.DisallowAll(), why, min(f.cfg.RobotsTTL, robotsFailureTTL), nil
	}
	unavailable := func() (*robots.Rules, string, time.Duration, *Error) {
		return robots.AllowAll(), "", f.cfg.RobotsTTL, nil
	}
	for hop := 0; ; hop++ {
		u, err := url.Parse(cur)
		if err != nil {
			return unavailable()
		}
		if err := f.checkLiteralHost(u.Hostname()); err != nil {
			if hop == 0 {
				return nil, "", 0, newError(cur, ClassSSRF, err)
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
				return nil, "", 0, ferr
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
				return nil, "", 0, ferr
			}
			why := string(ferr.Class)
			if ferr.Err != nil {
				why += ": " + ferr.Err.Error()
			}
			if hop > 0 {
				why = "redirected to " + cur + ": " + why
			}
			return unreachable(why)
		}
		switch st := res.status; {
		case st >= 200 && st < 300:
			if l := f.log.Load(); l != nil && res.note != "" {
				l.Warn("robots.txt read despite a server fault", "url", cur, "fault", res.note)
			}
			return robots.Parse(res.body, f.cfg.UserAgent), "", f.cfg.RobotsTTL, nil
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
			return unreachable(fmt.Sprintf("status %d", st))
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

// robotsRefusal builds the error for a URL robots.txt does not allow;
// unreachable is why robots.txt could not be read, "" when it was.
func robotsRefusal(rawURL string, unreachable string) *Error {
	if unreachable != "" {
		e := newError(rawURL, ClassRobots, fmt.Errorf("robots.txt unreachable (%s), assuming complete disallow", unreachable))
		e.Permanent = false
		return e
	}
	return newError(rawURL, ClassRobots, fmt.Errorf("disallowed by robots.txt"))
}
