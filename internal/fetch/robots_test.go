package fetch

import (
	"errors"
	"fmt"
	"net/http"
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
