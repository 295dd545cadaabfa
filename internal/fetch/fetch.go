// Package fetch is focuscrawl's polite and safe HTTP fetcher, used by the
// crawl slices, the refresh's re-fetches and topic bootstrapping.
//
// It downloads one URL at a time: it follows redirects itself (normalising,
// SSRF-checking and robots-checking every hop; a prompt HTML meta refresh
// is a redirect too), retries transient failures
// with backoff, bounds time and size, refuses binary and non-allowlisted
// content, and converts text bodies to UTF-8 from whatever charset they were
// written in. Every failure is an *Error with a Class, so callers can tell
// "try later" from "give up".
//
// It does not sleep for politeness: the crawl store hands out per-host time
// slots. It does expose the robots.txt Crawl-delay (CrawlDelay) so the caller
// can widen those slots.
package fetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"focuscrawl/internal/urlnorm"
)

// Config configures a Fetcher. Start from DefaultConfig. The mapstructure
// tags are the keys of the configuration file's fetch section
// (internal/config embeds Config there), so one struct carries a setting from
// the file to the fetcher.
type Config struct {
	UserAgent      string        `mapstructure:"user_agent"`      // sent on every request, including robots.txt; its product token selects the robots.txt group
	ConnectTimeout time.Duration `mapstructure:"connect_timeout"` // TCP connect and TLS handshake
	ReadTimeout    time.Duration `mapstructure:"read_timeout"`    // deadline for a whole response (head and body) per attempt; guards against drip-feeding servers
	MaxRedirects   int           `mapstructure:"max_redirects"`   // redirects followed before too_many_redirects
	// MaxFetchTime caps one Fetch as a whole: every redirect hop, retry,
	// backoff and robots.txt check together — but not the Request.Pace
	// waits (a hop's politeness slot), which the caller bounds: a redirect
	// to a host with a long Crawl-delay would otherwise time out for being
	// polite. ReadTimeout bounds one attempt only, so a chain of slow
	// redirects could otherwise hold a URL for (MaxRedirects+1) ×
	// (Retries+1) × ReadTimeout. Past it: timeout.
	MaxFetchTime         time.Duration `mapstructure:"max_fetch_time"`
	MaxBodyBytes         int64         `mapstructure:"max_body_bytes"`         // larger bodies (after gzip decoding, and again once converted to UTF-8) fail with too_large
	ContentTypes         []string      `mapstructure:"content_types"`          // allowlisted media types; a missing Content-Type is sniffed
	AllowPrivateNetworks bool          `mapstructure:"allow_private_networks"` // turns the SSRF guard off (tests, evaluation webs on loopback)
	Retries              int           `mapstructure:"retries"`                // extra attempts on 429, 500, 502, 503, 504 and transient network errors
	RetryBaseDelay       time.Duration `mapstructure:"retry_base_delay"`       // first backoff; doubled per retry, with jitter
	RetryMaxDelay        time.Duration `mapstructure:"retry_max_delay"`        // cap on a backoff; a Retry-After above it ends the fetch (Error.RetryAfter) instead of being cut short
	RespectRobots        bool          `mapstructure:"respect_robots"`         // check robots.txt before every request
	RobotsTTL            time.Duration `mapstructure:"robots_ttl"`             // how long a robots.txt is cached per scheme+host
	// Resolve overrides dialling like curl --resolve. Keys are "host",
	// "host:port" or "*.suffix" (matching any name ending in ".suffix");
	// values are "ip:port". Evaluation webs use it to serve many virtual hosts
	// from one loopback server. The SSRF guard applies to the target.
	Resolve map[string]string `mapstructure:"resolve"`
}

// DefaultConfig returns settings suitable for crawling the public web. They
// are the worker's defaults too: internal/config takes its fetch.* defaults
// from here.
func DefaultConfig() Config {
	return Config{
		UserAgent:      "focuscrawl/0.1 (+https://github.com/focuscrawl/focuscrawl)",
		ConnectTimeout: 10 * time.Second,
		ReadTimeout:    30 * time.Second,
		MaxRedirects:   5,
		MaxFetchTime:   time.Minute,
		MaxBodyBytes:   5 << 20,
		ContentTypes:   []string{"text/html", "application/xhtml+xml", "text/plain"},
		Retries:        2,
		RetryBaseDelay: time.Second,
		RetryMaxDelay:  30 * time.Second,
		RespectRobots:  true,
		RobotsTTL:      24 * time.Hour,
		Resolve:        map[string]string{},
	}
}

// Fetcher fetches pages. It is safe for concurrent use; share one per
// process so that connections and the robots.txt cache are shared too.
type Fetcher struct {
	cfg      Config
	types    map[string]bool
	accept   string
	client   *http.Client
	dialer   *net.Dialer
	resolver *resolver

	robotsMu    sync.Mutex
	robotsCache map[string]*robotsEntry

	rngMu sync.Mutex
	rng   *rand.Rand

	// log receives what the fetcher tolerated rather than refused (a
	// robots.txt whose Content-Encoding lies); nil: not logged.
	log atomic.Pointer[slog.Logger]

	now func() time.Time // replaced in tests
}

// SetLogger makes the fetcher log, to l, the server faults it works around
// instead of failing on (a robots.txt labelled gzip that is not); nil
// turns that logging off. Fetch errors are not logged: they are returned.
func (f *Fetcher) SetLogger(l *slog.Logger) { f.log.Store(l) }

// New validates cfg and builds a Fetcher. The error names every bad field.
func New(cfg Config) (*Fetcher, error) {
	types, err := validate(cfg)
	if err != nil {
		return nil, err
	}
	res, _ := newResolver(cfg.Resolve) // validated
	f := &Fetcher{
		cfg:         cfg,
		types:       types,
		resolver:    res,
		robotsCache: map[string]*robotsEntry{},
		rng:         rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), rand.Uint64())),
		now:         time.Now,
	}
	accept := make([]string, 0, len(cfg.ContentTypes)+1)
	for _, t := range cfg.ContentTypes {
		accept = append(accept, strings.ToLower(strings.TrimSpace(t)))
	}
	f.accept = strings.Join(append(accept, "*/*;q=0.1"), ", ")

	f.dialer = &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivateNetworks {
		f.dialer.Control = dialControl
	}
	transport := &http.Transport{
		Proxy:                  nil, // a proxy would dial on our behalf, past the SSRF guard
		DialContext:            f.dialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           512,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    cfg.ConnectTimeout,
		ResponseHeaderTimeout:  cfg.ReadTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		// Every request asks for gzip itself (attempt), so the transport
		// leaves decoding to gunzipBody: its own decoder lost a whole page
		// behind a few bytes of trailing garbage (gzipMembers).
	}
	f.client = &http.Client{
		Transport: transport,
		// Redirects are followed by Fetch, which checks every hop.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return f, nil
}

// validate checks cfg and returns the allowlist as a set.
func validate(cfg Config) (map[string]bool, error) {
	var errs []error
	cfg.Validate(func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s %s", field, fmt.Sprintf(format, args...)))
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("fetch: invalid config: %w", errors.Join(errs...))
	}
	types := map[string]bool{}
	for _, t := range cfg.ContentTypes {
		mt, _, _ := mime.ParseMediaType(t)
		types[mt] = true
	}
	return types, nil
}

// Validate checks every field of cfg and calls bad for each bad one, naming
// it by its Go field name. It is the one validation of the fetcher's
// settings: New applies it, and so does the configuration loader, which
// names the field by its key (the field's mapstructure tag).
func (cfg Config) Validate(bad func(field, format string, args ...any)) {
	if strings.TrimSpace(cfg.UserAgent) == "" {
		bad("UserAgent", "must not be empty")
	} else if strings.ContainsAny(cfg.UserAgent, "\r\n") {
		bad("UserAgent", "%q contains a line break", cfg.UserAgent)
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"ConnectTimeout", cfg.ConnectTimeout}, {"ReadTimeout", cfg.ReadTimeout}, {"MaxFetchTime", cfg.MaxFetchTime},
		{"RobotsTTL", cfg.RobotsTTL}} {
		if d.v <= 0 {
			bad(d.field, "must be a positive duration, got %v", d.v)
		}
	}
	if cfg.MaxRedirects < 0 || cfg.MaxRedirects > 20 {
		bad("MaxRedirects", "must be between 0 and 20, got %d", cfg.MaxRedirects)
	}
	if cfg.MaxBodyBytes < 1024 {
		bad("MaxBodyBytes", "must be at least 1024, got %d", cfg.MaxBodyBytes)
	}
	if len(cfg.ContentTypes) == 0 {
		bad("ContentTypes", "must list at least one media type")
	}
	for _, t := range cfg.ContentTypes {
		mt, params, err := mime.ParseMediaType(t)
		if err != nil || len(params) > 0 || !strings.Contains(mt, "/") {
			bad("ContentTypes", "entry %q is not a bare media type such as text/html", t)
		}
	}
	if cfg.Retries < 0 || cfg.Retries > 10 {
		bad("Retries", "must be between 0 and 10, got %d", cfg.Retries)
	}
	if cfg.RetryBaseDelay < 0 {
		bad("RetryBaseDelay", "must not be negative, got %v", cfg.RetryBaseDelay)
	}
	if cfg.RetryMaxDelay < cfg.RetryBaseDelay {
		bad("RetryMaxDelay", "(%v) must not be below RetryBaseDelay (%v)", cfg.RetryMaxDelay, cfg.RetryBaseDelay)
	}
	if _, err := newResolver(cfg.Resolve); err != nil {
		bad("Resolve", "%v", err)
	}
}

// Request is one URL to fetch. ETag and LastModified, when set (from an
// earlier Response), make the request conditional.
type Request struct {
	URL          string
	ETag         string
	LastModified string
	// ValidatorsFor, when set, is the URL ETag and LastModified belong to
	// (the earlier response's FinalURL): only the request to it is made
	// conditional, not the hops before it. A redirect source answers 3xx
	// whatever it is sent, but an HTML meta refresh stub is a 200 page of
	// its own, and a static one older than its target's Last-Modified
	// would answer 304 for ever.
	ValidatorsFor string
	// Pace, if set, is called before every request the fetch sends after
	// its first one — each retry, each redirect hop (robots.txt's own
	// included), and the robots.txt of
	// a hop's host when it is not cached — with the URL about to be
	// requested, and may block (a politeness slot); an error ends the fetch
	// as canceled. The caller spaces the first request itself: the fetcher
	// knows no delays, so without Pace its retries and redirect hops follow
	// each other at once.
	Pace func(ctx context.Context, target string) error
	// ExtraTypes are media types accepted for this request besides
	// Config.ContentTypes (a sitemap is XML or gzip, which pages must not
	// be), and announced in its Accept header first.
	ExtraTypes []string
	// MaxBytes, when > 0, is this request's body limit instead of
	// Config.MaxBodyBytes, and a longer body is cut to it rather than
	// refused (its text, once converted to UTF-8, too: on a character
	// boundary): for a document its reader takes in part (a sitemap of
	// 50,000 URLs is larger than a page may be).
	MaxBytes int64
}

// bodyLimit is req's body limit, on the bytes read and again on the text
// converted from them (processBody), and whether a body over it is cut to
// it (Request.MaxBytes) rather than refused as too_large.
func (f *Fetcher) bodyLimit(req Request) (limit int64, truncate bool) {
	if req.MaxBytes > 0 {
		return req.MaxBytes, true
	}
	return f.cfg.MaxBodyBytes, false
}

// allows reports whether media type mt is accepted for req.
func (f *Fetcher) allows(req Request, mt string) bool {
	return f.types[mt] || slices.Contains(req.ExtraTypes, mt)
}

// acceptFor is the Accept header of req: its extra types first.
func (f *Fetcher) acceptFor(req Request) string {
	if len(req.ExtraTypes) == 0 {
		return f.accept
	}
	return strings.Join(req.ExtraTypes, ", ") + ", " + f.accept
}

// Response is a successfully fetched page, or a 304 Not Modified answer to a
// conditional request.
type Response struct {
	URL         string   // the requested URL, normalised
	FinalURL    string   // the URL after redirects, normalised
	Redirects   []string // each redirect target in order (normalised); the last equals FinalURL; empty without redirects
	Status      int
	NotModified bool   // 304 on a conditional request; Body is nil
	ContentType string // media type only, lower-case
	Charset     string // detected source charset (WHATWG name: "utf-8", "gbk", "gb18030", "big5", ...)
	// CharsetNote says why Charset is not what the page declared, when a
	// Content-Type or <meta> label was overridden because the bytes
	// contradict it; "" when the declaration (or its absence) was followed.
	CharsetNote string
	Body        []byte // converted to UTF-8 for text types
	ETag        string
	// LastModified is the Last-Modified header of the final response. On a 304
	// that omits the validators, ETag and LastModified echo the request's.
	LastModified string
	// RobotsTag is the final response's X-Robots-Tag header values, one
	// per line, at most maxRobotsTag bytes (parse.ApplyRobotsTags).
	RobotsTag string
	FetchedAt time.Time     // when the final response was complete
	Duration  time.Duration // whole fetch: robots checks, redirects, retries and backoff
	Attempts  int           // HTTP requests sent for the page itself: every retry and redirect hop counts, robots.txt does not
}

// Fetch downloads req.URL. A non-2xx final status is an error (http_client or
// http_server, with Status), except 304 on a conditional request, which
// returns NotModified. The whole fetch, redirects and retries included, is
// bounded by MaxFetchTime (a timeout error past it). All errors are *Error.
func (f *Fetcher) Fetch(ctx context.Context, req Request) (*Response, error) {
	tctx, b := newBudget(ctx, f.cfg.MaxFetchTime)
	defer b.stop()
	if req.Pace != nil {
		pace := req.Pace
		req.Pace = func(ctx context.Context, target string) error {
			b.pause()
			defer b.resume()
			return pace(ctx, target)
		}
	}
	resp, err := f.fetch(tctx, req)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(tctx), errBudget) {
		// Our own cap, not the caller's cancellation: a timeout, which a
		// later retry of the URL may not hit.
		var fe *Error
		if errors.As(err, &fe) && (fe.Class == ClassCanceled || fe.Class == ClassTimeout) {
			return nil, newError(fe.URL, ClassTimeout,
				fmt.Errorf("the fetch took longer than MaxFetchTime (%v) in all, redirects and retries included: %w", f.cfg.MaxFetchTime, fe.Err))
		}
	}
	return resp, err
}

// errBudget is the cause of a fetch's context ending at MaxFetchTime.
var errBudget = errors.New("fetch budget spent")

// budget is MaxFetchTime as a clock that stops while the fetch waits for a
// politeness slot: it cancels the fetch's context once the fetch has spent
// its time outside those waits.
type budget struct {
	mu      sync.Mutex
	left    time.Duration // budget left when the clock last stopped
	since   time.Time     // when it last started; zero while stopped
	timer   *time.Timer
	cancel  context.CancelCauseFunc
	stopped bool
}

// newBudget starts a budget of d on a context derived from ctx, which
// carries it (budgetLeft).
func newBudget(ctx context.Context, d time.Duration) (context.Context, *budget) {
	cctx, cancel := context.WithCancelCause(ctx)
	b := &budget{left: d, since: time.Now(), cancel: cancel}
	b.timer = time.AfterFunc(d, func() { cancel(errBudget) })
	return context.WithValue(cctx, budgetKey{}, b), b
}

// budgetKey keys a fetch's budget in its context.
type budgetKey struct{}

// budgetLeft is the time ctx's fetch budget has left, and whether there
// is one.
func budgetLeft(ctx context.Context) (time.Duration, bool) {
	b, ok := ctx.Value(budgetKey{}).(*budget)
	if !ok {
		return 0, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	left := b.left
	if !b.since.IsZero() {
		left -= time.Since(b.since)
	}
	return left, true
}

// fits reports whether a wait of d fits in what ctx's fetch budget has
// left (always, without one).
func fits(ctx context.Context, d time.Duration) bool {
	left, ok := budgetLeft(ctx)
	return !ok || d < left
}

// pause stops the clock (a Pace wait begins); nested pauses are not used.
func (b *budget) pause() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped || b.since.IsZero() {
		return
	}
	b.timer.Stop()
	b.left -= time.Since(b.since)
	b.since = time.Time{}
}

// resume restarts the clock with what is left (a Pace wait ended).
func (b *budget) resume() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped || !b.since.IsZero() {
		return
	}
	b.since = time.Now()
	if b.left <= 0 {
		b.cancel(errBudget)
		return
	}
	b.timer.Reset(b.left)
}

// stop ends the budget and releases its context.
func (b *budget) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	b.timer.Stop()
	b.cancel(context.Canceled)
}

// fetch is Fetch within the MaxFetchTime context.
func (f *Fetcher) fetch(ctx context.Context, req Request) (*Response, error) {
	start := f.now()
	norm, err := urlnorm.Normalize(req.URL)
	if err != nil {
		return nil, newError(req.URL, ClassBadURL, err)
	}
	resp := &Response{URL: norm}
	// Hops are keyed by their normalised URL (cur) but asked for as the
	// redirect named them (ask): a server that adds a session ID the key
	// drops would answer the key with the same redirect again. Loops are
	// told by what was asked for.
	ask := norm
	visited := map[string]bool{norm: true}
	validatorsFor := ""
	if req.ValidatorsFor != "" {
		if validatorsFor, err = urlnorm.Normalize(req.ValidatorsFor); err != nil {
			validatorsFor = "\x00" // matches no URL: no request is conditional
		}
	}
	all := req
	cur := norm
	for hop := 0; ; hop++ {
		req := all
		if validatorsFor != "" && cur != validatorsFor {
			req.ETag, req.LastModified = "", ""
		}
		conditional := req.ETag != "" || req.LastModified != ""
		if err := ctx.Err(); err != nil {
			return nil, newError(cur, ClassCanceled, err)
		}
		u, err := url.Parse(ask)
		if err != nil {
			return nil, newError(cur, ClassBadURL, err)
		}
		if err := f.checkLiteralHost(u.Hostname()); err != nil {
			return nil, newError(cur, ClassSSRF, err)
		}
		if f.cfg.RespectRobots {
			if hop > 0 && !f.RobotsCached(cur) {
				if err := paceWith(ctx, req.Pace, u.Scheme+"://"+u.Host+"/robots.txt"); err != nil {
					return nil, err
				}
			}
			re, ferr := f.robotsFor(ctx, u, req.Pace)
			if ferr != nil {
				ferr.URL = cur
				return nil, ferr
			}
			if !re.rules.Allowed(u.RequestURI()) {
				return nil, robotsRefusal(cur, re, f.now())
			}
		}

		if hop > 0 {
			if err := paceWith(ctx, req.Pace, cur); err != nil {
				return nil, err
			}
		}
		res, ferr := f.fetchWithRetries(ctx, ask, req, &resp.Attempts)
		if ferr != nil {
			return nil, ferr
		}

		// redirect makes loc (a Location header's or a meta refresh's
		// reference, what) the next hop.
		redirect := func(base *url.URL, loc, what string) *Error {
			next, nextAsk, err := urlnorm.ResolveRequest(base, loc)
			if err != nil {
				return newError(cur, ClassBadURL, fmt.Errorf("%s to %q: %w", what, loc, err))
			}
			if visited[nextAsk] {
				return newError(cur, ClassRedirectLoop, fmt.Errorf("%s back to %s", what, nextAsk))
			}
			if len(resp.Redirects) >= f.cfg.MaxRedirects {
				return newError(cur, ClassTooManyRedirects,
					fmt.Errorf("more than %d redirects (next: %s)", f.cfg.MaxRedirects, next))
			}
			visited[nextAsk] = true
			resp.Redirects = append(resp.Redirects, next)
			cur, ask = next, nextAsk
			return nil
		}
		if loc := res.header.Get("Location"); isRedirect(res.status) && loc != "" {
			if e := redirect(u, loc, "redirect"); e != nil {
				return nil, e
			}
			continue
		}

		resp.FinalURL = cur
		resp.Status = res.status
		// Header values are bytes (Go's client passes 0x80-0xFF through);
		// the page row keeps them as text, which must be UTF-8.
		resp.ETag = strings.ToValidUTF8(res.header.Get("ETag"), "\uFFFD")
		resp.LastModified = strings.ToValidUTF8(res.header.Get("Last-Modified"), "\uFFFD")
		resp.RobotsTag = strings.ToValidUTF8(robotsTag(res.header), "\uFFFD")
		switch {
		case res.status == http.StatusNotModified && conditional:
			resp.NotModified = true
			if resp.ETag == "" && resp.LastModified == "" {
				resp.ETag, resp.LastModified = req.ETag, req.LastModified
			}
		case res.status >= 200 && res.status < 300:
			if perr := f.processBody(resp, req, res.header, res.body); perr != nil {
				return nil, perr
			}
			// A refresh browsers would not follow (a javascript: or
			// unparsable URL, the page itself) leaves the page as it is.
			// The Refresh header comes first, as in browsers.
			loc, ok := headerRefresh(res.header)
			base, what := u, "Refresh header"
			if !ok && (resp.ContentType == "text/html" || resp.ContentType == "application/xhtml+xml") {
				if loc, ok = metaRefresh(resp.Body); ok {
					what = "meta refresh"
					// Resolved as browsers do: against the page's <base href>.
					if href := baseHref(resp.Body); href != "" {
						if b, err := u.Parse(href); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
							base = b
						}
					}
				}
			}
			// To itself (by key: a session ID that changes with each
			// answer would refresh to a new URL for ever) it is no hop.
			if ok {
				if next, _, err := urlnorm.ResolveRequest(base, loc); err == nil && next != cur {
					if e := redirect(base, loc, what); e != nil {
						return nil, e
					}
					resp.Body, resp.ContentType, resp.Charset, resp.CharsetNote = nil, "", "", ""
					continue
				}
			}
		default:
			e := statusError(cur, res.status)
			if retryableStatus(res.status) {
				e.RetryAfter = parseRetryAfter(res.header.Get("Retry-After"), f.now())
			}
			return nil, e
		}
		resp.FetchedAt = f.now()
		resp.Duration = resp.FetchedAt.Sub(start)
		return resp, nil
	}
}

// maxRobotsTag bounds Response.RobotsTag: a real X-Robots-Tag is a few
// words, and the page row keeps it.
const maxRobotsTag = 1024

// robotsTag joins a response's X-Robots-Tag values, one per line, cut at
// maxRobotsTag bytes on a value's end.
func robotsTag(h http.Header) string {
	var b strings.Builder
	for _, v := range h.Values("X-Robots-Tag") {
		v = strings.TrimSpace(v)
		if v == "" || b.Len()+len(v)+1 > maxRobotsTag {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(v)
	}
	return b.String()
}

// paceWith calls p (Request.Pace, or CrawlDelay's pacer), if not nil,
// before a request to target.
func paceWith(ctx context.Context, p func(ctx context.Context, target string) error, target string) *Error {
	if p == nil {
		return nil
	}
	if err := p(ctx, target); err != nil {
		// A pacer may refuse a request with a fetch error of its own (a
		// host that asked to be left alone): kept, class and all.
		var fe *Error
		if errors.As(err, &fe) {
			return fe
		}
		return newError(target, ClassCanceled, fmt.Errorf("waiting for the host's politeness slot: %w", err))
	}
	return nil
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// retryableStatus lists the statuses worth another attempt.
func retryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusRequestTimeout:
		return true
	}
	return false
}

// fetchWithRetries performs one hop, retrying transient failures and
// retryable statuses. A retryable status that persists is returned as a
// result, not an error, for the caller to classify.
func (f *Fetcher) fetchWithRetries(ctx context.Context, target string, req Request, attempts *int) (*hopResult, *Error) {
	var retryAfter time.Duration
	opts := attemptOptions{readBody: true, checkType: true}
	opts.limit, opts.truncate = f.bodyLimit(req)
	var wait time.Duration
	for try := 0; ; try++ {
		if try > 0 {
			if err := Sleep(ctx, wait); err != nil {
				return nil, newError(target, ClassCanceled, err)
			}
			if err := paceWith(ctx, req.Pace, target); err != nil {
				return nil, err
			}
		}
		*attempts++
		last := try >= f.cfg.Retries
		res, err := f.attempt(ctx, target, req, opts)
		if err != nil {
			if !last && retryable(err) {
				retryAfter = 0
				// A pause that cannot end within MaxFetchTime ends the
				// fetch with this error, not a timeout in the middle of it.
				if wait = f.backoff(try+1, 0); fits(ctx, wait) {
					continue
				}
			}
			return nil, err
		}
		if !last && retryableStatus(res.status) {
			retryAfter = parseRetryAfter(res.header.Get("Retry-After"), f.now())
			// The server asked for a longer pause than a fetch waits, or
			// than this one has left (MaxFetchTime): a retry sooner is what
			// it asked us not to send. The caller sees Error.RetryAfter and
			// holds the host; before, the second case slept into the
			// budget's end and failed as a timeout, and the host was not
			// held.
			if wait = f.backoff(try+1, retryAfter); retryAfter > f.cfg.RetryMaxDelay || !fits(ctx, wait) {
				return res, nil
			}
			continue
		}
		return res, nil
	}
}

// hopResult is one HTTP response, its body read when it matters.
type hopResult struct {
	status int
	header http.Header
	body   []byte // 2xx only
	// note says what was tolerated in reading the body ("" for nothing):
	// see attemptOptions.plainUnderGzip.
	note string
}

// attemptOptions tune attempt for pages and for robots.txt.
type attemptOptions struct {
	readBody  bool  // read the body of a 2xx response
	limit     int64 // body limit
	truncate  bool  // over the limit: keep the first limit bytes instead of failing
	checkType bool  // refuse a declared Content-Type outside the allowlist before reading
	// plainUnderGzip reads a body labelled Content-Encoding: gzip that does
	// not start as a gzip stream as the plain bytes it is, saying so in
	// hopResult.note, where a page fails as bad_encoding. For robots.txt:
	// refused, it counted as unreachable and its whole host was refused,
	// for as long as the server labels it so (servers and caches that
	// label every response gzip exist), while the text is right there.
	plainUnderGzip bool
}

// attempt sends one GET and reads the response within ReadTimeout.
func (f *Fetcher) attempt(ctx context.Context, target string, req Request, opts attemptOptions) (*hopResult, *Error) {
	actx, cancel := context.WithTimeout(ctx, f.cfg.ReadTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodGet, target, nil)
	if err != nil {
		return nil, newError(target, ClassBadURL, err)
	}
	hreq.Header.Set("User-Agent", f.cfg.UserAgent)
	hreq.Header.Set("Accept", f.acceptFor(req))
	// Asked for by us, gzip is left to us (gunzipBody, gunzipOrPlain): the
	// transport decodes only what it asked for itself, and what it cannot
	// decode it consumes.
	hreq.Header.Set("Accept-Encoding", "gzip")
	if req.ETag != "" {
		hreq.Header.Set("If-None-Match", req.ETag)
	}
	if req.LastModified != "" {
		hreq.Header.Set("If-Modified-Since", req.LastModified)
	}
	// The transport, not client.Do: Do parses a redirect's Location before
	// any CheckRedirect hook runs and fails the whole request when it does
	// not parse, an error that looked like a connect failure and was
	// retried. Fetch follows redirects itself and judges Location with the
	// URL normaliser (bad_url, permanent).
	hresp, err := f.client.Transport.RoundTrip(hreq)
	if err != nil {
		return nil, classify(ctx, actx, target, err, false)
	}
	defer hresp.Body.Close()
	if hresp.StatusCode == http.StatusSwitchingProtocols {
		// The body of a 101 is the raw connection, which no deadline of
		// the request's reaches: draining it hung the fetch for as long
		// as the server held the connection. A GET asks for no upgrade.
		return nil, newError(target, ClassBadResponse, errors.New("101 Switching Protocols in answer to a plain GET"))
	}
	res := &hopResult{status: hresp.StatusCode, header: hresp.Header}

	if !opts.readBody || hresp.StatusCode < 200 || hresp.StatusCode >= 300 {
		// A little draining lets the connection be reused; a big error page
		// is not worth waiting for.
		_, _ = io.CopyN(io.Discard, hresp.Body, 8<<10)
		return res, nil
	}
	if opts.checkType {
		if mt := mediaType(hresp.Header.Get("Content-Type")); mt != "" && !f.allows(req, mt) {
			return nil, newError(target, ClassContentType, fmt.Errorf("media type %q is not in the allowlist", mt))
		}
	}
	if hresp.ContentLength > opts.limit && !opts.truncate {
		return nil, newError(target, ClassTooLarge,
			fmt.Errorf("Content-Length %d exceeds the %d-byte limit", hresp.ContentLength, opts.limit))
	}
	var src io.Reader
	if opts.plainUnderGzip {
		var ferr *Error
		if src, res.note, ferr = gunzipOrPlain(ctx, actx, target, hresp); ferr != nil {
			return nil, ferr
		}
	} else {
		var ferr *Error
		if src, ferr = gunzipBody(ctx, actx, target, hresp); ferr != nil {
			return nil, ferr
		}
	}
	// Read one byte past the limit to tell "exactly at" from "over" (not
	// past MaxInt64: limit+1 would wrap negative and read nothing).
	body, err := io.ReadAll(io.LimitReader(src, opts.limit+min(1, math.MaxInt64-opts.limit)))
	if err != nil {
		return nil, classify(ctx, actx, target, err, true)
	}
	if int64(len(body)) > opts.limit {
		if !opts.truncate {
			return nil, newError(target, ClassTooLarge, fmt.Errorf("body exceeds the %d-byte limit", opts.limit))
		}
		body = body[:opts.limit]
	}
	res.body = body
	return res, nil
}

// plainPeek is how much of a body labelled gzip that is not gzip is
// looked at before it is read as text (looksLikeText).
const plainPeek = 512

// looksLikeText reports whether b, the start of a body, is text: valid
// UTF-8 (a rune cut at the end of b allowed) without NUL or other control
// bytes but tab, line feed, form feed and carriage return. A compressed or
// binary body fails within its first bytes.
func looksLikeText(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r' || c == 0x7f {
			return false
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return !utf8.FullRune(b[i:]) // a rune cut by the peek
		}
		i += size
	}
	return true
}

// hasControlBytes reports whether b holds a control byte no text has (tab,
// line and page breaks aside).
func hasControlBytes(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r' || c == 0x7f {
			return true
		}
	}
	return false
}

// gzipMagic is how every gzip stream starts (RFC 1952: ID1, ID2).
var gzipMagic = []byte{0x1f, 0x8b}

// gunzipBody returns the reader of a page's body: decoded when its
// Content-Encoding is gzip or x-gzip (gzip's old name, RFC 9110 §8.4.1.3),
// or a list of those (gzipLayers), member by member (gzipMembers), as it
// is otherwise (a coding the crawler does not ask for is refused once
// read: checkBody). An empty body is an empty page; a body that does not
// start as gzip is bad_encoding. The header no longer names the coding
// once decoded.
func gunzipBody(ctx, actx context.Context, target string, resp *http.Response) (io.Reader, *Error) {
	layers, coding := gzipLayers(resp.Header)
	if layers == 0 {
		return resp.Body, nil
	}
	resp.Header.Del("Content-Encoding")
	return gunzipLayers(ctx, actx, target, bufio.NewReader(resp.Body), layers, coding)
}

// maxGzipLayers is the most gzip codings in a row decoded: two is what a
// server compressing twice sends; more is no server's mistake.
const maxGzipLayers = 3

// contentCoding is resp's Content-Encoding, lower-cased, its values joined
// as one list: a server that compresses twice may send the header twice,
// and the first value alone named one coding of two.
func contentCoding(h http.Header) string {
	return strings.ToLower(strings.TrimSpace(strings.Join(h.Values("Content-Encoding"), ", ")))
}

// gzipLayers returns how many gzip codings h's Content-Encoding lists
// (gzip, x-gzip; identity passed over) and the coding as contentCoding
// gives it; 0 when it lists none, another coding, or more than
// maxGzipLayers. Browsers undo a list of codings in turn, and a site whose
// application gzips under a web server that gzips again ("gzip, gzip", or
// the header sent twice) is read by them; decoded once, its page failed
// as binary ("sniffs as application/x-gzip").
func gzipLayers(h http.Header) (int, string) {
	coding := contentCoding(h)
	layers := 0
	for c := range strings.SplitSeq(coding, ",") {
		switch strings.TrimSpace(c) {
		case "gzip", "x-gzip":
			layers++
		case "identity", "":
		default:
			return 0, coding
		}
	}
	if layers > maxGzipLayers {
		return 0, coding
	}
	return layers, coding
}

// gunzipLayers decodes up to layers gzip codings of br in turn (coding
// names them in errors). A body that does not start as gzip — also one
// shorter than a gzip header, which the decoder would call cut short
// (body_read, retried) — is bad_encoding; an empty one is an empty body.
// An inner layer that is not gzip is the content (a server that labels
// its one gzip twice: read so before lists were decoded, and checkBody
// still judges it).
func gunzipLayers(ctx, actx context.Context, target string, br *bufio.Reader, layers int, coding string) (io.Reader, *Error) {
	for i := range layers {
		head, _ := br.Peek(len(gzipMagic))
		if len(head) == 0 {
			return br, nil // a read error comes again from the next read, and is classified there
		}
		what := "the body"
		if i > 0 {
			what = fmt.Sprintf("the body once %d gzip codings are undone", i)
		}
		if i > 0 && !bytes.Equal(head, gzipMagic) {
			return br, nil
		}
		if !bytes.HasPrefix(gzipMagic, head) {
			return nil, newError(target, ClassEncoding, fmt.Errorf("Content-Encoding: %s, but %s is not gzip", coding, what))
		}
		zr, err := gzipMembers(br)
		if err != nil && isEncodingError(err) {
			return nil, newError(target, ClassEncoding, fmt.Errorf("Content-Encoding: %s, but %s is not gzip: %w", coding, what, err))
		}
		if err != nil {
			return nil, classify(ctx, actx, target, err, true)
		}
		if i == layers-1 {
			return zr, nil
		}
		br = bufio.NewReader(zr)
	}
	return br, nil
}

// gzipMembers returns a reader of the gzip stream br, read member by
// member (RFC 1952 allows several in a row). Whatever follows a complete
// member — its checksum verified — and is not a whole gzip header ends
// the body: trailing garbage (a script's stray newline after its gzipped
// output), which browsers ignore. Go's multistream reader failed on it:
// with ErrHeader from ten bytes on, and below ten with io.ErrUnexpectedEOF,
// which is also what a stream cut short gives, so the page was retried and
// lost, and a robots.txt so sent refused its whole host. A member cut
// short is still io.ErrUnexpectedEOF (body_read, retried).
func gzipMembers(br *bufio.Reader) (io.Reader, error) {
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	return &memberReader{br: br, zr: zr}, nil
}

// memberReader is gzipMembers' reader.
type memberReader struct {
	br   *bufio.Reader
	zr   *gzip.Reader
	done bool  // the body ended (next)
	err  error // next's error, returned once the bytes before it are
}

func (m *memberReader) Read(p []byte) (int, error) {
	for {
		if m.err != nil {
			return 0, m.err
		}
		if m.done {
			return 0, io.EOF
		}
		n, err := m.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		// The member ended and its checksum matched. The bufio.Reader is
		// an io.ByteReader, so the decoder read nothing past it.
		if err := m.next(); err != nil {
			if n > 0 {
				m.err = err
				return n, nil
			}
			return 0, err
		}
		if n > 0 {
			return n, nil
		}
	}
}

// next starts the member after a complete one, or marks the body done:
// at its end, or before trailing garbage (bytes that do not start as
// gzip, or a gzip header that is not one). A connection that fails there
// (a Content-Length not reached) and a next member whose header is cut
// short are errors — io.ErrUnexpectedEOF, read as body_read and retried
// — not a page of its first members only.
func (m *memberReader) next() error {
	head, err := m.br.Peek(len(gzipMagic))
	switch {
	case err != nil && err != io.EOF:
		return err
	case !bytes.Equal(head, gzipMagic):
		m.done = true // the end, or garbage
		return nil
	}
	switch err := m.zr.Reset(m.br); {
	case err == nil:
		m.zr.Multistream(false)
		return nil
	case errors.Is(err, gzip.ErrHeader):
		m.done = true // gzip's magic, then garbage
		return nil
	case err == io.EOF:
		return io.ErrUnexpectedEOF
	default:
		return err
	}
}

// gunzipOrPlain returns the reader of resp's body for
// attemptOptions.plainUnderGzip: decoding gzip when Content-Encoding says
// gzip (or x-gzip, its old name, RFC 9110 §8.4.1.3, or a list of those:
// gzipLayers) and the body starts as a gzip stream; the body as it is, with a note, when the label names gzip or
// another compression (compressions) but the body is UTF-8 text (a gzip
// stream that breaks later is still bad_encoding); bad_encoding when it is
// neither. Under any other label — a server's mistake ("none", "utf-8"), a
// list with another coding ("deflate, gzip"), one not listed ("bzip2") — text in a
// legacy encoding (Latin-1) is read as well: compressed bytes have control
// bytes, which no text has. The header no longer names a coding after this,
// as when the transport decodes.
func gunzipOrPlain(ctx, actx context.Context, target string, resp *http.Response) (io.Reader, string, *Error) {
	layers, coding := gzipLayers(resp.Header)
	if coding == "" || coding == "identity" {
		return resp.Body, "", nil
	}
	isGzip := layers > 0
	resp.Header.Del("Content-Encoding")
	br := bufio.NewReader(resp.Body)
	// A read error here comes again from the next read, and is classified
	// there.
	head, _ := br.Peek(len(gzipMagic))
	if len(head) == 0 {
		return br, "", nil
	}
	if !isGzip || !bytes.Equal(head, gzipMagic) {
		// Only text is read as plain: a brotli, zstd or zlib body (labelled
		// so, unasked, or labelled gzip) would parse to no rules and allow
		// everything, where a robots.txt that does not decode must count as
		// unreachable.
		prefix, _ := br.Peek(plainPeek)
		if !looksLikeText(prefix) && (isGzip || compressions[coding] || hasControlBytes(prefix)) {
			return nil, "", newError(target, ClassEncoding,
				fmt.Errorf("Content-Encoding: %s, but the body is neither %s nor text", coding, decodedName(isGzip)))
		}
		return br, fmt.Sprintf("sent with Content-Encoding: %s, but the body is not %s: read as plain text", coding, decodedName(isGzip)), nil
	}
	zr, ferr := gunzipLayers(ctx, actx, target, br, layers, coding)
	return zr, "", ferr
}

// compressions are the Content-Encoding values, besides gzip, that name a
// compression (the IANA registry's, old names included): a robots.txt so
// labelled is compressed unless it reads as text, and a compressed one
// parses to no rules, which would allow everything.
var compressions = map[string]bool{
	"deflate": true, "x-deflate": true, "br": true, "zstd": true, "compress": true, "x-compress": true,
	"dcb": true, "dcz": true, "pack200-gzip": true, "exi": true, "aes128gcm": true,
}

// decodedName names what gunzipOrPlain would have decoded for a message.
func decodedName(gzip bool) string {
	if gzip {
		return "gzip"
	}
	return "a coding the crawler decodes"
}

// backoff returns the pause before retry number try (1-based): exponential
// from RetryBaseDelay with "equal jitter" (half fixed, half random, so that
// many fetchers do not retry in step), capped at RetryMaxDelay. A server's
// Retry-After replaces it (fetchWithRetries retries only when that is at
// most RetryMaxDelay).
func (f *Fetcher) backoff(try int, retryAfter time.Duration) time.Duration {
	maxD := f.cfg.RetryMaxDelay
	if retryAfter > 0 {
		return min(retryAfter, maxD)
	}
	d := f.cfg.RetryBaseDelay
	for i := 1; i < try && d < maxD; i++ {
		d *= 2
	}
	d = min(d, maxD)
	if d <= 0 {
		return 0
	}
	half := d / 2
	f.rngMu.Lock()
	j := time.Duration(f.rng.Int64N(int64(d-half) + 1))
	f.rngMu.Unlock()
	return half + j
}

// maxRetryAfter caps a Retry-After: a server cannot ask for more than a day.
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date,
// either capped at maxRetryAfter. It returns 0 when the header is absent,
// malformed or in the past.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, int64(maxRetryAfter/time.Second))) * time.Second
	} else if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-") {
		return maxRetryAfter // more digits than an int64: as long as a server may ask
	}
	if t, err := http.ParseTime(v); err == nil {
		// A date in the year 9999 came back as 292 years, the cap on
		// delay-seconds notwithstanding.
		if d := t.Sub(now); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}

// Sleep pauses for d or until ctx ends (its error then).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CloseIdleConnections closes pooled connections that are not in use.
func (f *Fetcher) CloseIdleConnections() { f.client.CloseIdleConnections() }
