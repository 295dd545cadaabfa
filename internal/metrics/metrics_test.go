package metrics

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

func TestRecordAndServe(t *testing.T) {
	reg := NewRegistry()
	c := New(reg)
	h, closer := TemporalHandler(reg)
	defer closer.Close()
	h.Counter("test_sdk_counter").Inc(2) // an SDK metric goes to the same registry
	slice := []any{crawlapi.SliceInput{Topic: "roses", SliceID: "s1"}}
	// A crawl slice's failures count by class too (only refreshes' did,
	// while the runbook promised every failed fetch).
	c.record(slice, crawlapi.SliceResult{Stats: store.BatchStats{OK: 8, Failed: 3, Accepted: 1}, Queued: 42,
		FailedByClass: map[string]int{"timeout": 2, "robots": 1}})
	ref := []any{crawlapi.BatchRef{Topic: "roses", BatchID: "b1"}}
	c.record(ref, crawlapi.FilterResult{Accepted: 1})
	c.record(ref, crawlapi.RefetchResult{NotModified: 3, Changed: 1,
		ErrorsByClass: map[string]int{"timeout": 1}})
	if err := closer.Close(); err != nil { // flushes the tally scope into the registry
		t.Fatal(err)
	}
	s, err := Serve("127.0.0.1:0", reg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Get("http://" + s.Addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`focuscrawl_pages_fetched_total{topic="roses"} 8`,
		`focuscrawl_pages_accepted_total{topic="roses"} 2`,
		`focuscrawl_harvest_rate{topic="roses"} 0.25`,
		`focuscrawl_frontier_queued{topic="roses"} 42`,
		`focuscrawl_refresh_checks_total{outcome="not_modified",topic="roses"} 3`,
		`focuscrawl_fetch_errors_total{class="timeout",topic="roses"} 3`,
		`focuscrawl_fetch_errors_total{class="robots",topic="roses"} 1`,
		"test_sdk_counter 2", "go_goroutines",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
