package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
)

// TestRobotsRefusalCarriesStatus: a refusal for an unreachable robots.txt
// says what robots.txt was answered with (Error.RobotsStatus): a 429 or a
// 503 from a host that is up, 0 when nothing answered — which a refresh
// reads to tell a host that is down from one asking for a pause.
func TestRobotsRefusalCarriesStatus(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				w.WriteHeader(status)
				return
			}
			fmt.Fprint(w, "<html>page</html>")
		}))
		_, err := newFetcher(t, func(c *Config) { c.Retries, c.RespectRobots = 0, true }).Fetch(t.Context(), Request{URL: srv.URL + "/page"})
		var fe *Error
		if !errors.As(err, &fe) || fe.Class != ClassRobots || fe.Permanent || fe.RobotsStatus != status {
			t.Errorf("robots.txt answered %d: %v (%+v); want a transient robots refusal with RobotsStatus %d", status, err, fe, status)
		}
	}
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	u := srv.URL
	srv.Close() // nothing listens: no answer
	_, err := newFetcher(t, func(c *Config) { c.Retries, c.RespectRobots = 0, true }).Fetch(t.Context(), Request{URL: u + "/page"})
	var fe *Error
	if !errors.As(err, &fe) || fe.Class != ClassRobots || fe.RobotsStatus != 0 {
		t.Errorf("robots.txt unanswered: %v; want a robots refusal with RobotsStatus 0", err)
	}
}

// TestRobotsDisallows: a link can be checked against the robots.txt its
// host's pages were fetched under, without a request: disallowed once the
// file is cached (a wiki's edit and history links), allowed when it is not
// cached yet, could not be read (no verdict: the crawl asks again later) or
// robots.txt is not respected.
func TestRobotsDisallows(t *testing.T) {
	var robotsHits atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsHits.Add(1)
			fmt.Fprint(w, "User-agent: *\nDisallow: /wiki/edit/\nDisallow: /*?action=\n")
			return
		}
		fmt.Fprint(w, "<html>page</html>")
	}))
	f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
	edit := srv.URL + "/wiki/edit/Iterators.html"
	if f.RobotsDisallows(edit) || robotsHits.Load() != 0 {
		t.Fatalf("before robots.txt is read: disallowed %v after %d requests; want false and none", f.RobotsDisallows(edit), robotsHits.Load())
	}
	if _, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/wiki/Iterators.html"}); err != nil {
		t.Fatal(err)
	}
	for u, want := range map[string]bool{
		edit: true,
		srv.URL + "/wiki/Iterators.html?action=history": true,
		srv.URL + "/wiki/Closures.html":                 false,
	} {
		if got := f.RobotsDisallows(u); got != want {
			t.Errorf("RobotsDisallows(%s) = %v; want %v", u, got, want)
		}
	}
	if n := robotsHits.Load(); n != 1 {
		t.Errorf("robots.txt asked for %d times; want once (RobotsDisallows sends nothing)", n)
	}
	if off := newFetcher(t, func(c *Config) { c.RespectRobots = false }); off.RobotsDisallows(edit) {
		t.Error("RobotsDisallows with robots.txt not respected")
	}
	// Unreachable robots.txt: every URL is refused for now, but that is no
	// verdict on a link.
	dead := newServer(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	u := dead.URL
	dead.Close()
	if _, err := f.Fetch(t.Context(), Request{URL: u + "/page"}); err == nil {
		t.Fatal("a fetch from a closed port succeeded")
	}
	if f.RobotsDisallows(u + "/other") {
		t.Error("RobotsDisallows of a host whose robots.txt is unreachable")
	}
}
