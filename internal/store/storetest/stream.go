package storetest

import (
	"slices"
	"testing"

	"focuscrawl/internal/store"
)

// The contract of the streaming fetch path's frontier calls: claims that
// skip hosts already being served, per-entry completion, the takeover of a
// dead attempt's batches, and exact per-prefix counts.

func testClaimExcludeHosts(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{},
		entry("go", u("a.test", 1), 0.9), entry("go", u("a.test", 2), 0.8),
		entry("go", u("b.test", 1), 0.5), entry("go", u("c.test", 1), 0.4))
	got := urls(claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/1", Max: 2, MaxPerHost: 1,
		ExcludeHosts: []string{"a.test"}}))
	want := []string{u("b.test", 1), u("c.test", 1)}
	if !slices.Equal(got, want) {
		t.Errorf("claim excluding a.test = %v, want %v", got, want)
	}
	// With nothing excluded, one per host: a.test's best entry only.
	got = urls(claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/2", Max: 5, MaxPerHost: 1}))
	if !slices.Equal(got, []string{u("a.test", 1)}) {
		t.Errorf("claim of one per host = %v, want [%s]", got, u("a.test", 1))
	}
}

func testCompleteEntries(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 1), 1), entry("go", u("b.test", 1), 1))
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/1", Max: 2})
	for range 2 { // idempotent
		if err := s.CompleteEntries(t.Context(), "go", []string{hash(u("a.test", 1))}); err != nil {
			t.Fatalf("CompleteEntries: %v", err)
		}
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Claimed: 1, Done: 1}) {
		t.Errorf("FrontierStats after completing one entry = %+v, want 1 claimed, 1 done", st)
	}
}

func testReleaseBatches(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 1), 0.9), entry("go", u("b.test", 1), 0.8),
		entry("go", u("c.test", 1), 0.7))
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "slice-1/a1/c1", Max: 2})
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "slice-2/a1/c1", Max: 1})
	// a.test's page was saved by the dead attempt; b.test's was not.
	savePage(t, s, page("go", "crawl-1", u("a.test", 1)), []byte("<html></html>"))
	got, err := s.ReleaseBatches(t.Context(), "go", "slice-1/")
	if err != nil {
		t.Fatalf("ReleaseBatches: %v", err)
	}
	if !slices.Equal(urls(got), []string{u("a.test", 1)}) {
		t.Errorf("ReleaseBatches returned %v, want the saved entry %s", urls(got), u("a.test", 1))
	}
	// b.test is queued again; slice-2's claim is untouched.
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Queued: 1, Claimed: 2}) {
		t.Errorf("FrontierStats after release = %+v, want 1 queued, 2 claimed", st)
	}
	again := urls(claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "slice-3/a1/c1", Max: 5}))
	if !slices.Equal(again, []string{u("b.test", 1)}) {
		t.Errorf("claim after release = %v, want [%s]", again, u("b.test", 1))
	}
	if _, err := s.ReleaseBatches(t.Context(), "go", ""); err == nil {
		t.Error("ReleaseBatches with an empty prefix succeeded; it must refuse (it would release every batch)")
	}
}

func testBatchStats(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 1), 0.9), entry("go", u("b.test", 1), 0.8),
		entry("go", u("c.test", 1), 0.7), entry("go", u("d.test", 1), 0.6))
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "sl/a1/c1", Max: 2})
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "sl/a2/c1", Max: 1})
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "other/c1", Max: 1})
	ok := page("go", "crawl-1", u("a.test", 1))
	ok.BatchID = "sl/a1/c1"
	savePage(t, s, ok, []byte("<html></html>"))
	if err := s.SetDecision(t.Context(), "go", ok.URLHash, store.Decision{Decision: store.DecisionAccepted}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkIndexed(t.Context(), "go", []string{ok.URLHash}); err != nil {
		t.Fatal(err)
	}
	bad := page("go", "crawl-1", u("c.test", 1))
	bad.BatchID, bad.Status, bad.ErrorClass = "sl/a2/c1", 0, "timeout"
	savePage(t, s, bad, nil)
	outside := page("go", "crawl-1", u("d.test", 1))
	outside.BatchID = "other/c1"
	savePage(t, s, outside, []byte("x"))

	got, err := s.BatchStats(t.Context(), "go", "sl/")
	if err != nil {
		t.Fatalf("BatchStats: %v", err)
	}
	want := store.BatchStats{Claimed: 3, Fetched: 2, OK: 1, Failed: 1, Accepted: 1, Indexed: 1}
	if got != want {
		t.Errorf("BatchStats(sl/) = %+v, want %+v", got, want)
	}
}

func testClaimMinRatio(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{},
		entry("go", u("a.test", 1), 0.8), entry("go", u("b.test", 1), 0.5), entry("go", u("c.test", 1), 0.3))
	// a.test is busy; b.test's 0.5 is within half of the best (0.8), c.test's 0.3 is not.
	got := urls(claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/1", Max: 5, MaxPerHost: 1,
		ExcludeHosts: []string{"a.test"}, MinRatio: 0.5}))
	if !slices.Equal(got, []string{u("b.test", 1)}) {
		t.Errorf("claim with MinRatio 0.5 = %v, want [%s]", got, u("b.test", 1))
	}
}

func testClaimPositiveOnly(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{},
		entry("go", u("a.test", 1), 0), entry("go", u("b.test", 1), 0.01), entry("go", u("c.test", 1), 0),
		entry("go", u("d.test", 1), -1))
	got := urls(claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/1", Max: 5, MaxPerHost: 1, PositiveOnly: true}))
	if !slices.Equal(got, []string{u("b.test", 1)}) {
		t.Errorf("claim with PositiveOnly = %v, want [%s]", got, u("b.test", 1))
	}
	// With MinRatio too, the higher floor holds; nothing positive is left.
	if got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/2", Max: 5, MaxPerHost: 1, PositiveOnly: true, MinRatio: 0.5}); len(got) != 0 {
		t.Errorf("claim with PositiveOnly and MinRatio = %v, want nothing", urls(got))
	}
	// Without it the zero-score entries are claimable again.
	got = urls(claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/3", Max: 5, MaxPerHost: 1}))
	if len(got) != 3 {
		t.Errorf("claim without PositiveOnly = %v, want the three entries left", got)
	}
}
