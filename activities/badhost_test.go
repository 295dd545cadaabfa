package activities

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"focuscrawl/internal/fetch"
)

// TestMisbehavingHostIsNotLost: a host whose robots.txt and one page carry
// Content-Encoding: gzip over plain text, and whose other page answers 999
// (an anti-crawler refusal), loses only those pages, each a clear permanent
// failure, and is neither held nor refused as a whole: robots.txt is read as
// the plain text it is (the mismatch logged) and its next page is fetched at
// once. Before, the mislabelled robots.txt counted as unreachable, and every
// URL of the host was refused for as long as it was served so.
func TestMisbehavingHostIsNotLost(t *testing.T) {
	var (
		mu    sync.Mutex
		paths []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Encoding", "gzip")
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		case "/mislabelled":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			fmt.Fprint(w, "<html><body>plain</body></html>")
		case "/refused":
			w.WriteHeader(999)
		default:
			fmt.Fprint(w, "<html><body>here</body></html>")
		}
	}))
	t.Cleanup(srv.Close)
	cfg := siteConfig(t, &loopBackSite{srv: srv})
	cfg.Fetch.Retries = 2
	var logs bytes.Buffer
	a, err := New(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	ctx := t.Context()

	for _, tc := range []struct {
		path  string
		class fetch.Class
	}{
		{"/mislabelled", fetch.ClassEncoding},
		{"/refused", fetch.ClassHTTPClient},
		{"/private/x", fetch.ClassRobots},
		{"/next", ""},
	} {
		_, err := a.politeDo(ctx, "h.test", fetch.Request{URL: "http://h.test" + tc.path})
		if tc.class == "" {
			if err != nil {
				t.Errorf("%s: %v; want the page", tc.path, err)
			}
			continue
		}
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Class != tc.class || !fe.Permanent || fe.Overloaded() {
			t.Errorf("%s: %v; want a permanent %s failure, not an overload", tc.path, err, tc.class)
		}
		if until := a.sent.heldUntil("h.test", a.now()); !until.IsZero() {
			t.Fatalf("after %s the host is held until %v; want no hold", tc.path, until)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"/robots.txt", "/mislabelled", "/refused", "/next"}; !slices.Equal(paths, want) {
		t.Errorf("requests %q; want %q (robots.txt once, no retries)", paths, want)
	}
	if !strings.Contains(logs.String(), "robots.txt") || !strings.Contains(logs.String(), "not gzip") {
		t.Errorf("log %q does not record robots.txt's mislabelled encoding", logs.String())
	}
}
