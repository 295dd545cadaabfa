package fetch

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// switchingServer answers every request on loopback with
// "101 Switching Protocols" and then holds the connection open, silent,
// until the test ends. pathOK, when not nil, serves the paths it accepts
// with a normal page instead.
func switchingServer(t *testing.T, pathOK func(path string) bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				if pathOK != nil && pathOK(req.URL.Path) {
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\nConnection: close\r\n\r\n<p>page</p>\r\n")
					return
				}
				io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
				<-done // send nothing more; keep the connection open
			}(c)
		}
	}()
	return "http://" + ln.Addr().String()
}

// within runs fn and fails the test if it has not returned after d.
func within(t *testing.T, d time.Duration, what string, fn func() error) {
	t.Helper()
	res := make(chan error, 1)
	start := time.Now()
	go func() { res <- fn() }()
	select {
	case err := <-res:
		t.Logf("%s returned after %v: %v", what, time.Since(start).Round(time.Millisecond), err)
	case <-time.After(d):
		t.Errorf("%s still blocked after %v (ReadTimeout 300ms, MaxFetchTime 1s): a 101 response hangs the fetcher", what, d)
	}
}

// A server that answers 101 Switching Protocols (to a request that
// asked for no upgrade) and then says nothing hung Fetch for ever:
// attempt drained the non-2xx body, and net/http hands a 101's body over
// as the raw connection, which no request context (ReadTimeout,
// MaxFetchTime) bounds. Now a bad_response at once (a review's finding).
func Test101DoesNotHangFetch(t *testing.T) {
	base := switchingServer(t, nil)
	f := newFetcher(t, func(c *Config) {
		c.ReadTimeout = 300 * time.Millisecond
		c.MaxFetchTime = time.Second
	})
	within(t, 20*time.Second, "Fetch", func() error {
		_, err := f.Fetch(t.Context(), Request{URL: base + "/"})
		return err
	})
}

// The same through robots.txt: the robots entry never became ready, so
// Robots/CrawlDelay callers hung for ever, and every Fetch of the host
// (whose page itself is fine) failed as a timeout after MaxFetchTime.
func Test101OnRobotsTxtIsUnreachable(t *testing.T) {
	base := switchingServer(t, func(p string) bool { return p != "/robots.txt" })
	f := newFetcher(t, func(c *Config) {
		c.RespectRobots = true
		c.ReadTimeout = 300 * time.Millisecond
		c.MaxFetchTime = time.Second
	})
	within(t, 20*time.Second, "Robots", func() error {
		_, err := f.Robots(t.Context(), base+"/")
		return err
	})
	// While that robots.txt request hangs, a page of the host waits for
	// it and fails as a timeout after all of MaxFetchTime — and so does
	// every later one: the entry never becomes ready, so it never expires.
	for i := 0; i < 2; i++ {
		_, err := f.Fetch(t.Context(), Request{URL: base + "/page"})
		if ClassOf(err) == ClassTimeout {
			t.Errorf("Fetch /page #%d: %v; want the page, or a prompt robots (unreachable) refusal", i+1, err)
		}
	}
}

// fetchRobots resolved a robots.txt redirect with urlnorm.Resolve, which
// drops session IDs: a server that redirects /robots.txt to
// /robots.txt;jsessionid=… (or ?PHPSESSID=…) was asked for /robots.txt
// again, the hop taken for a loop, and the file counted as missing
// (AllowAll, cached for RobotsTTL). It uses ResolveRequest, as pages do.
func TestRobotsSessionRedirect(t *testing.T) {
	for _, target := range []string{"/robots.txt;jsessionid=ABC123", "/robots.txt?PHPSESSID=abc123", "/(S(lit3py55t21z5v55vlm25s55))/robots.txt"} {
		t.Run(target, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.RequestURI == "/robots.txt":
					w.Header().Set("Location", target)
					w.WriteHeader(http.StatusFound)
				case strings.HasSuffix(r.URL.Path, "/robots.txt") || strings.HasPrefix(r.URL.Path, "/robots.txt"):
					io.WriteString(w, "User-agent: *\nDisallow: /private\n")
				default:
					io.WriteString(w, "<html><body>page</body></html>")
				}
			}))
			f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
			rules, err := f.Robots(t.Context(), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			if rules.Allowed("/private") {
				t.Errorf("Robots: /private allowed; robots.txt (behind a session redirect) disallows it")
			}
			if _, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/private"}); ClassOf(err) != ClassRobots {
				t.Errorf("Fetch /private: err = %v, want a robots refusal", err)
			}
		})
	}
}

// A Retry-After the fetcher agrees to wait for (≤ RetryMaxDelay) was
// slept even when the sleep could not end within what is left of
// MaxFetchTime: the fetch failed as a plain timeout (no Status 429, no
// RetryAfter, not Overloaded), so the crawl did not hold the host that
// asked to be left alone. With the defaults (MaxFetchTime 1m, Retries 2,
// RetryMaxDelay 30s) a "429 + Retry-After: 30" did exactly this.
func TestRetryAfterPastBudget(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	f := newFetcher(t, func(c *Config) {
		c.Retries = 2
		c.RetryMaxDelay = 2 * time.Second
		c.MaxFetchTime = 1500 * time.Millisecond // room for one 1 s wait, not two
	})
	_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/"})
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v", err)
	}
	if fe.Class != ClassHTTPServer || fe.Status != http.StatusTooManyRequests || !fe.Overloaded() || fe.RetryAfter != time.Second {
		t.Errorf("got class %s, status %d, RetryAfter %v, Overloaded %v (%v); want http_server, 429, 1s, true",
			fe.Class, fe.Status, fe.RetryAfter, fe.Overloaded(), err)
	}
}

// TestRequestTimeoutIsTransient: 408 Request Timeout (the server gave up
// waiting for the request) is retried and, persisting, a transient
// http_server failure; it was a permanent http_client one.
func TestRequestTimeoutIsTransient(t *testing.T) {
	calls := 0
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		calls++
		w.WriteHeader(http.StatusRequestTimeout)
	}))
	f := newFetcher(t, func(c *Config) { c.Retries = 1; c.RetryBaseDelay = time.Millisecond })
	_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/"})
	var fe *Error
	if !errors.As(err, &fe) || fe.Class != ClassHTTPServer || fe.Permanent || fe.Status != http.StatusRequestTimeout || calls != 2 {
		t.Errorf("408: %v (%d requests); want a transient http_server failure after one retry", err, calls)
	}
}
