package fetch

import (
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// Class names the kind of failure of a fetch, so that callers can decide
// between retrying later, giving up on the URL, and counting errors by kind.
type Class string

// Error classes. ClassOf returns one of these for errors from this package.
const (
	ClassRobots           Class = "robots"             // robots.txt forbids the URL (or is unreachable)
	ClassSSRF             Class = "ssrf"               // the host is, or resolves to, a private address
	ClassBadURL           Class = "bad_url"            // the URL or a redirect target does not normalise
	ClassDNS              Class = "dns"                // the host name did not resolve
	ClassConnect          Class = "connect"            // TCP connect failed, or the connection broke before a response
	ClassTimeout          Class = "timeout"            // ReadTimeout passed before the whole response arrived
	ClassTLS              Class = "tls"                // TLS handshake or certificate failure
	ClassTooLarge         Class = "too_large"          // body over MaxBodyBytes, as sent or once converted to UTF-8
	ClassContentType      Class = "content_type"       // media type not in the allowlist
	ClassBinary           Class = "binary"             // body is binary despite a text media type
	ClassRedirectLoop     Class = "redirect_loop"      // a redirect led back to a URL already visited
	ClassTooManyRedirects Class = "too_many_redirects" // more than MaxRedirects redirects
	ClassHTTPClient       Class = "http_client"        // final status 4xx other than 408 and 429, or another unusable status (non-standard ones ≥ 600 such as 999 included)
	ClassHTTPServer       Class = "http_server"        // final status 5xx, 429 or 408, after retries
	ClassBodyRead         Class = "body_read"          // the connection failed while reading the body
	ClassEncoding         Class = "bad_encoding"       // the body's Content-Encoding (gzip) does not decode: a corrupt stream
	ClassBadResponse      Class = "bad_response"       // not a usable HTTP response: malformed, framing net/http cannot follow, or headers over the 1 MiB limit
	ClassCanceled         Class = "canceled"           // the caller's context ended
	ClassOther            Class = "other"              // ClassOf of an error not from this package
)

// permanentClasses are failures that a later retry of the same URL cannot
// cure.
var permanentClasses = map[Class]bool{
	ClassRobots: true, ClassSSRF: true, ClassBadURL: true, ClassTooLarge: true,
	ClassContentType: true, ClassBinary: true, ClassRedirectLoop: true,
	ClassTooManyRedirects: true, ClassHTTPClient: true, ClassEncoding: true, ClassBadResponse: true,
}

// Error is the error type of Fetch and Robots.
type Error struct {
	URL    string // the URL being fetched when the failure happened (a redirect hop, possibly)
	Class  Class
	Status int // HTTP status for http_client and http_server, else 0
	// Permanent is true when retrying the URL later cannot help. It follows
	// the class, with one exception: a robots refusal caused by an
	// unreachable robots.txt (5xx, network error) is not permanent.
	Permanent bool
	// RetryAfter is the server's Retry-After on a final 429, 500, 502, 503
	// or 504 (0: none, unreadable or past): how long it asked to be left
	// alone. Within a fetch, retries wait for it only up to RetryMaxDelay;
	// a longer one ends the fetch at once (see Overloaded). On a robots
	// refusal it is what is left of the Retry-After robots.txt was
	// answered with, read and capped alike.
	RetryAfter time.Duration
	// RobotsStatus is, on a refusal for an unreachable robots.txt, the
	// HTTP status robots.txt was answered with (a 5xx, a 429, a redirect
	// this fetcher would not follow); 0 when nothing answered (a network
	// failure): whether the host is up.
	RobotsStatus int
	// RobotsRetryIn is, on a refusal because robots.txt is unreachable,
	// how long that outcome is still remembered: robots.txt is asked for
	// again after it, and the host's URLs are refused until then. A hold
	// of the host for a robots.txt 429 or 503 without Retry-After lasts
	// that long (activities: holdHost), so the refusals served from the
	// remembered outcome all end it at the same instant instead of each
	// pushing it on (a review: every refusal held the host
	// fetch.retry_max_delay from its own time). Unlike RetryAfter it is
	// not a pause the host asked for.
	RobotsRetryIn time.Duration
	Err           error // the cause
}

// Overloaded reports whether the server asked to be left alone for a
// while: a final 429 (Too Many Requests) or 503 (Service Unavailable), or
// a final 500, 502 or 504 with a Retry-After (the statuses whose
// Retry-After is read: RetryAfter), or robots.txt answered with one of
// those and a Retry-After that has not yet passed, or with a 429 or 503
// (a refusal of the host's URLs while its robots.txt is unreachable for
// that answer). The crawl then holds the host, not only this URL
// (activities: holdHost), and requeues the URLs refused meanwhile; before,
// a robots.txt's 429 or 503 without Retry-After held nothing, and every
// URL of the host claimed in the next minute failed for the crawl.
func (e *Error) Overloaded() bool {
	if e.Class == ClassRobots && (e.RobotsStatus == http.StatusTooManyRequests || e.RobotsStatus == http.StatusServiceUnavailable) {
		return true
	}
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable || e.RetryAfter > 0
}

// Error names the URL, the class, the status if any and the cause.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("fetch ")
	b.WriteString(e.URL)
	b.WriteString(": ")
	b.WriteString(string(e.Class))
	if e.Status != 0 {
		fmt.Fprintf(&b, " (status %d)", e.Status)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ClassOf returns the class of err: "" for nil, the Class of an *Error found
// in err's chain, and ClassOther for anything else.
func ClassOf(err error) Class {
	if err == nil {
		return ""
	}
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Class
	}
	return ClassOther
}

func newError(rawURL string, class Class, err error) *Error {
	return &Error{URL: rawURL, Class: class, Permanent: permanentClasses[class], Err: err}
}

// statusError is the error of a final status that is not a page: a server
// error (5xx, and 429) is transient, anything else permanent for the URL.
// A status past 599 is no server error: HTTP defines none, and the one met
// in practice, 999 (LinkedIn and others, to crawlers), refuses this client
// as 403 does. It was http_server, a transient failure, for being ≥ 500.
// Nor is it an overload (Error.Overloaded) that holds the host: it says
// nothing about load or about when to come back, so a hold would only
// requeue the host's other URLs to be refused later; each URL fails once,
// at the host's usual pace, and host yield sinks a host whose pages fail.
func statusError(rawURL string, status int) *Error {
	class := ClassHTTPClient
	if isServerError(status) {
		class = ClassHTTPServer
	}
	e := newError(rawURL, class, fmt.Errorf("HTTP status %d", status))
	e.Status = status
	return e
}

// isServerError reports whether status says the server cannot answer for
// now: 5xx, 429 Too Many Requests, or 408 Request Timeout (the server gave
// up waiting for the request: a retry is what RFC 9110 §15.5.9 expects;
// it was a permanent http_client failure). Not a non-standard status ≥ 600
// (statusError).
func isServerError(status int) bool {
	return (status >= 500 && status < 600) || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout
}

// retryable reports whether another attempt at once (after a backoff) may
// succeed.
func retryable(e *Error) bool {
	switch e.Class {
	case ClassConnect, ClassTimeout, ClassBodyRead:
		return true
	case ClassDNS:
		var de *net.DNSError
		return errors.As(e.Err, &de) && (de.IsTimeout || de.IsTemporary)
	}
	return false
}

// errSSRF is the cause of ssrf errors raised at dial time.
type errSSRF struct{ addr string }

func (e *errSSRF) Error() string {
	// Crawling a site on one's own machine or network is a common first
	// step (a documentation mirror on loopback); say which setting allows it.
	return fmt.Sprintf("refusing to connect to non-public address %s (fetch.allow_private_networks: true allows it)", e.addr)
}

// classify turns an error of the HTTP client into an *Error. ctx is the
// caller's context, actx the attempt's (ReadTimeout) context; readingBody
// tells whether the response head had already arrived.
func classify(ctx, actx context.Context, rawURL string, err error, readingBody bool) *Error {
	var se *errSSRF
	var de *net.DNSError
	var oe *net.OpError
	var ne net.Error
	switch {
	case errors.As(err, &se):
		return newError(rawURL, ClassSSRF, err)
	case ctx.Err() != nil:
		return newError(rawURL, ClassCanceled, err)
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return newError(rawURL, ClassTimeout, err)
	case errors.As(err, &de):
		return newError(rawURL, ClassDNS, err)
	case isTLSError(err):
		return newError(rawURL, ClassTLS, err)
	case errors.As(err, &oe) && oe.Op == "dial":
		return newError(rawURL, ClassConnect, err)
	case isBadResponse(err):
		return newError(rawURL, ClassBadResponse, err)
	case errors.As(err, &ne) && ne.Timeout():
		return newError(rawURL, ClassTimeout, err)
	case readingBody && isEncodingError(err):
		return newError(rawURL, ClassEncoding, err)
	case readingBody:
		return newError(rawURL, ClassBodyRead, err)
	default:
		return newError(rawURL, ClassConnect, err)
	}
}

// isBadResponse reports whether err is net/http refusing what the server
// sent as a response: headers over the transport's limit, bytes that are
// not HTTP, or HTTP framing it cannot follow (badFraming). The same server
// sends the same again; retrying (it used to be a connect or body_read
// error) only spends the host's politeness slots, and the crawl log named a
// network failure where the server was at fault. net/http has no typed
// errors for these, so its messages are matched.
func isBadResponse(err error) bool {
	msg := err.Error()
	for _, m := range badFraming {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// badFraming are the parts of net/http's messages for a response it cannot
// read: the status line, the headers, the body's length or its chunked
// encoding. Not among them: "unexpected EOF", a connection cut short, which
// the next attempt may not meet.
var badFraming = []string{
	"server response headers exceeded", // over MaxResponseHeaderBytes
	"malformed HTTP",                   // status line, version or status code
	"malformed MIME header",            // a header line without a colon, a bad first line
	"Content-Length",                   // not a number, negative, or several that differ
	"unsupported transfer encoding",    // Transfer-Encoding other than chunked
	"chunk length",                     // chunked body: a size that is not hex, empty or too large
	"chunked encoding",                 // chunked body: malformed, or too much non-data
	"chunked line",                     // chunked body: bare LF or stray CR
	"trailer key", "Trailer key",       // a bad trailer name
}

// isEncodingError reports whether err is the gzip decoder's refusal of the
// stream itself — a bad header, corrupt data, a wrong checksum — which the
// same bytes would give again: not a broken connection (a stream cut short
// ends in io.ErrUnexpectedEOF, which stays body_read and is retried).
func isEncodingError(err error) bool {
	var corrupt flate.CorruptInputError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt)
}

func isTLSError(err error) bool {
	var (
		cve *tls.CertificateVerificationError
		rhe tls.RecordHeaderError
		ae  tls.AlertError
		uae x509.UnknownAuthorityError
		he  x509.HostnameError
		cie x509.CertificateInvalidError
	)
	return errors.As(err, &cve) || errors.As(err, &rhe) || errors.As(err, &ae) ||
		errors.As(err, &uae) || errors.As(err, &he) || errors.As(err, &cie) ||
		strings.Contains(err.Error(), "tls: ")
}
