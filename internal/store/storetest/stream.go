package storetest

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

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

// testReleaseBatchesAfterExpiry: entries whose claim ran out after their
// page was saved are closed (done) by the next claim of the topic. A
// retried slice's ReleaseBatches still returns those whose page its batch
// saved and no one judged (nothing else would judge them), and leaves them
// done; not a judged page's, nor one another batch saved.
func testReleaseBatchesAfterExpiry(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 1), 0.9), entry("go", u("b.test", 1), 0.8),
		entry("go", u("c.test", 1), 0.7), entry("go", u("d.test", 1), 0.6))
	const dead = "slice-1/a1/c1"
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: dead, Max: 3, Lease: time.Minute})
	unjudged := page("go", "crawl-1", u("a.test", 1))
	unjudged.BatchID = dead
	savePage(t, s, unjudged, []byte("<html></html>"))
	judged := page("go", "crawl-1", u("b.test", 1))
	judged.BatchID = dead
	savePage(t, s, judged, []byte("<html></html>"))
	if err := s.SetDecision(t.Context(), "go", judged.URLHash, store.Decision{Decision: store.DecisionAccepted}); err != nil {
		t.Fatal(err)
	}
	others := page("go", "crawl-1", u("c.test", 1))
	others.BatchID = "elsewhere/c1"
	savePage(t, s, others, []byte("<html></html>"))
	// An hour later another slice's claim ends the three expired claims.
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "slice-2/a1/c1", Max: 1, Now: t0.Add(time.Hour)})
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Claimed: 1, Done: 3}) {
		t.Fatalf("FrontierStats after the leases ran out = %+v, want 1 claimed, 3 done", st)
	}
	got, err := s.ReleaseBatches(t.Context(), "go", "slice-1/")
	if err != nil {
		t.Fatalf("ReleaseBatches: %v", err)
	}
	if !slices.Equal(urls(got), []string{u("a.test", 1)}) || got[0].State != store.StateDone || got[0].BatchID != dead {
		t.Errorf("ReleaseBatches returned %+v, want the unjudged page's entry %s, done, of batch %s", got, u("a.test", 1), dead)
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Claimed: 1, Done: 3}) {
		t.Errorf("FrontierStats after ReleaseBatches = %+v, want it unchanged", st)
	}
}

// testLapsedClaimStaysCounted: a claim whose lease runs out while its
// fetch is under way (a slow host, a short crawl.lease) is requeued by the
// next claim, but its holder still fetches, saves and completes the page.
// The page must still count toward the budget of exactly one batch — the
// one that saved it, or another that claimed the entry again before it was
// completed — so that the per-prefix Claimed counts the crawl's budget is
// kept with never miss a page fetched. Before, the entry was completed
// under no batch and counted nowhere: with a 2 s lease a crawl fetched 256
// pages on a budget of 40. A holder that dies between the save and the
// completion leaves the entry queued with its page unjudged, as before:
// the next claim takes it (and judges the page), and counts it.
func testLapsedClaimStaysCounted(t *testing.T, s store.Store) {
	ctx := t.Context()
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 1), 0.9), entry("go", u("b.test", 1), 0.8),
		entry("go", u("c.test", 1), 0.7), entry("go", u("d.test", 1), 0.6))
	const slow, other, dead, late = "slice-1/a1/c1", "slice-2/a1/c1", "slice-3/a1/c1", "slice-4/a1/c1"
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: slow, Max: 3, Lease: time.Minute})
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: dead, Max: 1, Lease: time.Minute})
	// An hour later another slice's claim ends the four expired claims
	// (none has a page yet: all requeued) and takes c.test's entry again;
	// the other hosts are busy.
	again := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: other, Max: 3, Now: t0.Add(time.Hour),
		ExcludeHosts: []string{"a.test", "b.test", "d.test"}})
	if !slices.Equal(urls(again), []string{u("c.test", 1)}) {
		t.Fatalf("claim after the leases ran out = %v, want [%s]", urls(again), u("c.test", 1))
	}
	// The slow fetches come back: a.test's page saved on its own, b.test's
	// with its group, c.test's too (its entry is slice-2's now); then
	// each is completed, as the streaming path does.
	pageOf := func(url, batch string) store.Page {
		p := page("go", "crawl-1", url)
		p.BatchID = batch
		return p
	}
	savePage(t, s, pageOf(u("a.test", 1), slow), []byte("<html></html>"))
	savePage(t, s, pageOf(u("c.test", 1), slow), []byte("<html></html>"))
	if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go",
		Pages:    []store.PageBody{{Page: pageOf(u("b.test", 1), slow), Body: []byte("<html></html>")}},
		Complete: []string{hash(u("b.test", 1))}}); err != nil {
		t.Fatalf("WriteGroup: %v", err)
	}
	if err := s.CompleteEntries(ctx, "go", []string{hash(u("a.test", 1)), hash(u("c.test", 1))}); err != nil {
		t.Fatalf("CompleteEntries: %v", err)
	}
	// The dead attempt saved d.test's page and died before judging it or
	// completing its entry.
	savePage(t, s, pageOf(u("d.test", 1), dead), []byte("<html></html>"))

	stats := func(prefix string) store.BatchStats {
		t.Helper()
		st, err := s.BatchStats(ctx, "go", prefix)
		if err != nil {
			t.Fatalf("BatchStats(%s): %v", prefix, err)
		}
		return st
	}
	if st := stats("slice-1/"); st.Claimed != 2 || st.Fetched != 3 {
		t.Errorf("BatchStats(slice-1/) = %+v, want 2 claimed (a.test's and b.test's, whose pages it saved after "+
			"its lease ran out), 3 fetched", st)
	}
	if st := stats("slice-2/"); st.Claimed != 1 || st.Fetched != 0 {
		t.Errorf("BatchStats(slice-2/) = %+v, want 1 claimed (c.test's, claimed again), 0 fetched", st)
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Queued: 1, Done: 3}) {
		t.Errorf("FrontierStats = %+v, want d.test's entry queued, the others done", st)
	}
	// The next claim takes d.test's entry (its page waits to be judged)
	// and, once it completes it, counts it.
	if got := urls(claim(t, s, store.ClaimRequest{Topic: "go", BatchID: late, Max: 5, Now: t0.Add(2 * time.Hour)})); !slices.Equal(got, []string{u("d.test", 1)}) {
		t.Errorf("a later claim took %v; want [%s]", got, u("d.test", 1))
	}
	if err := s.CompleteEntries(ctx, "go", []string{hash(u("d.test", 1))}); err != nil {
		t.Fatalf("CompleteEntries: %v", err)
	}
	if st := stats("slice-4/"); st.Claimed != 1 || st.Fetched != 0 {
		t.Errorf("BatchStats(slice-4/) = %+v, want 1 claimed (d.test's), 0 fetched", st)
	}
	if st := stats("slice-3/"); st.Claimed != 0 || st.Fetched != 1 {
		t.Errorf("BatchStats(slice-3/) = %+v, want 0 claimed, 1 fetched", st)
	}
}

func testRequeueEntry(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 1), 0.9), entry("go", u("a.test", 2), 0.5),
		entry("go", u("b.test", 1), 0.8))
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/c1", Max: 2, MaxPerHost: 1})
	ctx := t.Context()
	// Not the batch that holds it: nothing happens.
	if ok, err := s.RequeueEntry(ctx, "go", hash(u("a.test", 1)), "s/c9", false); ok || err != nil {
		t.Errorf("RequeueEntry by another batch = %v, %v; want false, nil", ok, err)
	}
	if ok, err := s.RequeueEntry(ctx, "go", hash(u("a.test", 1)), "s/c1", false); !ok || err != nil {
		t.Fatalf("RequeueEntry = %v, %v; want true", ok, err)
	}
	if ok, err := s.RequeueEntry(ctx, "go", hash(u("a.test", 1)), "s/c1", false); ok || err != nil {
		t.Errorf("second RequeueEntry = %v, %v; want false, nil (no longer claimed)", ok, err)
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Queued: 2, Claimed: 1}) {
		t.Errorf("FrontierStats after requeue = %+v, want 2 queued, 1 claimed", st)
	}
	// Back in its place: a.test's best entry again, claimed a second time.
	again := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/c2", Max: 1, MaxPerHost: 1})
	if len(again) != 1 || again[0].URL != u("a.test", 1) || again[0].Attempts != 2 {
		t.Errorf("claim after requeue = %+v; want %s on its second attempt", again, u("a.test", 1))
	}
	// A claim whose request was never sent is not counted.
	if ok, err := s.RequeueEntry(ctx, "go", hash(u("a.test", 1)), "s/c2", true); !ok || err != nil {
		t.Fatalf("RequeueEntry uncounting = %v, %v; want true", ok, err)
	}
	third := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/c3", Max: 1, MaxPerHost: 1})
	if len(third) != 1 || third[0].URL != u("a.test", 1) || third[0].Attempts != 2 {
		t.Errorf("claim after an uncounted requeue = %+v; want %s on its second attempt again", third, u("a.test", 1))
	}
}

// testDemoteQueued: only the topic's queued and claimed entries of the host
// under the prefix sink; the claim order then puts them last, a claimed one
// too once its claim is released.
func testDemoteQueued(t *testing.T, s store.Store) {
	gone := func(i int) string { return fmt.Sprintf("https://a.test/gone/%d.html", i) }
	enqueue(t, s, store.EnqueueOptions{}, entry("go", gone(1), 0.9), entry("go", gone(2), 0.8),
		entry("go", gone(3), 0.7), entry("go", "https://a.test/gonework.html", 0.6),
		entry("go", "https://a.test/ok.html", 0.5), entry("go", "https://b.test/gone/1.html", 0.95),
		entry("other", gone(1), 0.9))
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/c1", Max: 1, MaxPerHost: 1}) // b.test's
	claimed := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "s/c2", Max: 1, MaxPerHost: 1})
	if len(claimed) != 1 || claimed[0].URL != gone(1) {
		t.Fatalf("claimed %+v, want %s", claimed, gone(1))
	}
	ctx := t.Context()
	n, err := s.DemoteQueued(ctx, "go", "a.test", "https://a.test/gone/", 0.1)
	if err != nil || n != 3 {
		t.Fatalf("DemoteQueued = %d, %v; want the 3 entries under /gone/, queued or claimed (not /gonework.html, not b.test's or another topic's)", n, err)
	}
	// The claimed one, its claim released, comes back sunk: last.
	if _, err := s.ReleaseBatches(ctx, "go", "s/c2"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 3; i <= 7; i++ {
		for _, e := range claim(t, s, store.ClaimRequest{Topic: "go", BatchID: fmt.Sprintf("s/c%d", i), Max: 1, MaxPerHost: 1}) {
			got = append(got, e.URL)
			if e.URL == gone(2) && math.Abs(e.Priority-0.08) > 1e-9 {
				t.Errorf("%s priority %v, want 0.08", e.URL, e.Priority)
			}
		}
	}
	if want := []string{"https://a.test/gonework.html", "https://a.test/ok.html", gone(1), gone(2), gone(3)}; !slices.Equal(got, want) {
		t.Errorf("claim order after the demotion %v, want %v", got, want)
	}
	other := claim(t, s, store.ClaimRequest{Topic: "other", BatchID: "o/c1", Max: 1})
	if len(other) != 1 || other[0].Priority != 0.9 {
		t.Errorf("another topic's entry %+v; want it untouched at 0.9", other)
	}
	for _, bad := range []float64{1, 1.5, -0.1} {
		if _, err := s.DemoteQueued(ctx, "go", "a.test", "https://a.test/", bad); err == nil {
			t.Errorf("DemoteQueued with factor %v: no error", bad)
		}
	}
}

// testDemotionOutlastsNewPriorities: a demoted entry stays sunk when a
// priority is written for it later — the hub/authority recomputation's
// Reprioritize, a new link's raise — where those wrote the absolute
// priority and lifted a gone directory back above real work.
func testDemotionOutlastsNewPriorities(t *testing.T, s store.Store) {
	ctx := t.Context()
	gone, live := "https://a.test/gone/1.html", "https://a.test/live.html"
	enqueue(t, s, store.EnqueueOptions{}, entry("go", gone, 0.8), entry("go", live, 0.5))
	if n, err := s.DemoteQueued(ctx, "go", "a.test", "https://a.test/gone/", 0.1); err != nil || n != 1 {
		t.Fatalf("DemoteQueued = %d, %v; want 1", n, err)
	}
	if err := s.Reprioritize(ctx, "go", map[string]float64{hash(gone): 0.9, hash(live): 0.6}); err != nil {
		t.Fatal(err)
	}
	// A link scored 1 raises the sunk entry to 0.1 (above its 0.09); one
	// scored 0.95 (0.095 sunk) no longer raises it.
	enqueue(t, s, store.EnqueueOptions{}, entry("go", gone, 1), entry("go", gone, 0.95))
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "d/c1", Max: 2})
	if len(got) != 2 || got[0].URL != live || got[1].URL != gone {
		t.Fatalf("claim after the new priorities = %v; want %s first, then the sunk %s", urls(got), live, gone)
	}
	if math.Abs(got[0].Priority-0.6) > 1e-9 || math.Abs(got[1].Priority-0.1) > 1e-9 {
		t.Errorf("priorities %v, %v; want 0.6 (not demoted) and 0.1 (the raise times the sink 0.1)", got[0].Priority, got[1].Priority)
	}

	// An entry enqueued sunk (a link into a directory already known gone)
	// keeps its sink too: Reprioritize to 0.9 sets 0.09, below a live 0.5.
	late := entry("go", "https://a.test/gone/2.html", 0.8) // stored at 0.08
	late.Sink = 0.1
	enqueue(t, s, store.EnqueueOptions{}, late, entry("go", "https://a.test/live2.html", 0.5))
	if err := s.Reprioritize(ctx, "go", map[string]float64{hash(late.URL): 0.9}); err != nil {
		t.Fatal(err)
	}
	got = claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "d/c2", Max: 2})
	if len(got) != 2 || got[1].URL != late.URL || math.Abs(got[1].Priority-0.09) > 1e-9 {
		t.Errorf("claim after reprioritizing an entry enqueued sunk = %+v; want it last at 0.09", got)
	}
	// A better link into the same gone directory raises the sunk entry by
	// the demotion once, not twice (0.9 × 0.1, not 0.9 × 0.1 × 0.1).
	g3 := entry("go", "https://a.test/gone/3.html", 0.5) // stored at 0.05
	g3.Sink = 0.1
	better := g3
	better.Priority = 0.9
	enqueue(t, s, store.EnqueueOptions{}, g3)
	enqueue(t, s, store.EnqueueOptions{}, better, entry("go", "https://a.test/live3.html", 0.08))
	got = claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "d/c3", Max: 2})
	if len(got) != 2 || got[0].URL != g3.URL || math.Abs(got[0].Priority-0.09) > 1e-9 {
		t.Errorf("claim after a better link into the sunk entry = %+v; want %s first at 0.09", got, g3.URL)
	}
	bad := entry("go", "https://a.test/x.html", 0.5)
	bad.Sink = 1.5
	if _, err := s.Enqueue(ctx, []store.FrontierEntry{bad}, store.EnqueueOptions{}); err == nil {
		t.Error("Enqueue with sink 1.5: no error")
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
	// The failures by class, for the worker's metrics: the outside batch's
	// failure is not counted, and a prefix without failures has none.
	outsideBad := page("go", "crawl-1", u("b.test", 1))
	outsideBad.BatchID, outsideBad.Status, outsideBad.ErrorClass = "other/c1", 0, "robots"
	savePage(t, s, outsideBad, nil)
	if byClass, err := s.FailedByClass(t.Context(), "go", "sl/"); err != nil || !maps.Equal(byClass, map[string]int{"timeout": 1}) {
		t.Errorf("FailedByClass(sl/) = %v, %v; want timeout 1", byClass, err)
	}
	if byClass, err := s.FailedByClass(t.Context(), "go", "sl/a1/"); err != nil || len(byClass) != 0 {
		t.Errorf("FailedByClass(sl/a1/) = %v, %v; want none", byClass, err)
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

// testClaimExploreHosts: an exploring host's best entry is claimed below
// the ratio's floor, first, one per host and claim; excluded hosts, the
// hold on zero scores and the claim's size still bound it, and without a
// MinRatio the list changes nothing.
func testClaimExploreHosts(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{},
		entry("go", u("a.test", 1), 0.8), entry("go", u("a.test", 2), 0.7),
		entry("go", u("b.test", 1), 0.05), entry("go", u("b.test", 2), 0.02),
		entry("go", u("c.test", 1), 0.04), entry("go", u("d.test", 1), 0.03),
		entry("go", u("e.test", 1), 0))
	claimed := func(req store.ClaimRequest) []string {
		t.Helper()
		req.Topic, req.MaxPerHost, req.Lease = "go", 1, time.Hour
		return urls(claim(t, s, req))
	}
	// b.test explores: its best entry, not the next; c.test is excluded;
	// d.test (0.03) does not explore and stays under the floor (0.45).
	got := claimed(store.ClaimRequest{BatchID: "x/1", Max: 5, MinRatio: 0.5,
		ExploreHosts: []string{"b.test", "c.test", "b.test"}, ExcludeHosts: []string{"c.test"}})
	if want := []string{u("b.test", 1), u("a.test", 1)}; !slices.Equal(got, want) {
		t.Errorf("claim exploring b.test = %v, want %v", got, want)
	}
	// The claim's size bounds the explored picks too.
	got = claimed(store.ClaimRequest{BatchID: "x/2", Max: 1, MinRatio: 0.5,
		ExploreHosts: []string{"d.test", "c.test"}})
	if want := []string{u("d.test", 1)}; !slices.Equal(got, want) {
		t.Errorf("claim of one exploring d.test and c.test = %v, want %v", got, want)
	}
	// Without a ratio the list is ignored: claim order alone (a.test's
	// second entry, then b.test's).
	got = claimed(store.ClaimRequest{BatchID: "x/3", Max: 2, ExploreHosts: []string{"e.test"}})
	if want := []string{u("a.test", 2), u("c.test", 1)}; !slices.Equal(got, want) {
		t.Errorf("claim without a ratio = %v, want %v", got, want)
	}
	// A held zero is not explored while entries are in flight.
	req := store.ClaimRequest{Topic: "go", BatchID: "x/4", Max: 3, MaxPerHost: 1,
		MinRatio: 0.5, ExploreHosts: []string{"e.test"}, HoldUnscored: true, Lease: time.Hour, Now: t0}
	b, err := s.ClaimBatch(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	es, err := s.BatchEntries(t.Context(), "go", "x/4")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := urls(es), []string{u("b.test", 2)}; !slices.Equal(got, want) || !b.Held {
		t.Errorf("claim holding zeros, exploring e.test = %v (held %v), want %v with e.test's zero held", got, b.Held, want)
	}
}

// testClaimHoldUnscored: HoldUnscored holds zero scores back only while an
// entry of the topic was claimed within the hold window — by any claimer,
// which is what makes the rule hold across workers — and says so in
// Batch.Held only when it kept a zero-scored entry back.
func testClaimHoldUnscored(t *testing.T, s store.Store) {
	enqueue(t, s, store.EnqueueOptions{},
		entry("go", u("a.test", 1), 0), entry("go", u("b.test", 1), 0.01), entry("go", u("c.test", 1), 0),
		entry("go", u("d.test", 1), -1))
	hold := func(batch string, max int, now time.Time) (store.Batch, []string) {
		t.Helper()
		b, err := s.ClaimBatch(t.Context(), store.ClaimRequest{Topic: "go", BatchID: batch, Max: max, MaxPerHost: 1,
			HoldUnscored: true, HoldWindow: 2 * time.Minute, Lease: time.Hour, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		es, err := s.BatchEntries(t.Context(), "go", batch)
		if err != nil {
			t.Fatal(err)
		}
		return b, urls(es)
	}
	// Nothing in flight: nothing held, the best entry is claimed.
	if b, got := hold("s/1", 1, t0); b.Held || !slices.Equal(got, []string{u("b.test", 1)}) {
		t.Errorf("claim with nothing in flight = %v (held %v), want [%s], not held", got, b.Held, u("b.test", 1))
	}
	// s/1 is in flight (as if another worker held it): the zeros wait.
	if b, got := hold("s/2", 5, t0.Add(time.Minute)); !b.Held || len(got) != 0 {
		t.Errorf("claim while s/1 is in flight = %v (held %v), want nothing, held", got, b.Held)
	}
	// Three minutes on, s/1's claim is older than the hold window (its
	// lease has not ended): it no longer holds, and the zero and negative
	// entries are claimed.
	later := t0.Add(3 * time.Minute)
	if b, got := hold("s/3", 5, later); b.Held || len(got) != 3 {
		t.Errorf("claim after the hold window = %v (held %v), want the three entries left, not held", got, b.Held)
	}
	// s/3 is in flight now, but no zero-scored entry is queued: nothing is
	// held back, so the claim is not Held and takes the positive entry.
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("e.test", 1), 0.3))
	if b, got := hold("s/4", 5, later); b.Held || !slices.Equal(got, []string{u("e.test", 1)}) {
		t.Errorf("claim with no zero queued = %v (held %v), want [%s], not held", got, b.Held, u("e.test", 1))
	}
	// Completing the claims ends the hold too.
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("f.test", 1), 0))
	if b, got := hold("s/5", 5, later); !b.Held || len(got) != 0 {
		t.Errorf("claim while s/3 and s/4 are in flight = %v (held %v), want nothing, held", got, b.Held)
	}
	for _, id := range []string{"s/1", "s/3", "s/4"} {
		if err := s.CompleteBatch(t.Context(), "go", id); err != nil {
			t.Fatal(err)
		}
	}
	if b, got := hold("s/6", 5, later); b.Held || !slices.Equal(got, []string{u("f.test", 1)}) {
		t.Errorf("claim after every claim completed = %v (held %v), want [%s], not held", got, b.Held, u("f.test", 1))
	}
}

func testClaimFence(t *testing.T, s store.Store) {
	ctx := t.Context()
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 1), 0.9), entry("go", u("b.test", 1), 0.8),
		entry("go", u("c.test", 1), 0.7))
	f1 := store.Fence{Name: "slice-1", Token: 1}
	if err := s.RaiseFence(ctx, "go", f1); err != nil {
		t.Fatalf("RaiseFence(1): %v", err)
	}
	if err := s.RaiseFence(ctx, "go", f1); err != nil { // idempotent
		t.Fatalf("RaiseFence(1) again: %v", err)
	}
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "slice-1/a1/c1", Max: 1, Fence: f1})
	// The retry raises the fence: the first attempt can no longer claim,
	// not even a batch ID it used before, nor raise the fence back.
	f2 := store.Fence{Name: "slice-1", Token: 2}
	if err := s.RaiseFence(ctx, "go", f2); err != nil {
		t.Fatalf("RaiseFence(2): %v", err)
	}
	for _, id := range []string{"slice-1/a1/c2", "slice-1/a1/c1"} {
		if _, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "go", BatchID: id, Max: 1, Fence: f1}); !errors.Is(err, store.ErrFenced) {
			t.Errorf("claim %s with the old token: %v, want ErrFenced", id, err)
		}
	}
	if err := s.RaiseFence(ctx, "go", f1); !errors.Is(err, store.ErrFenced) {
		t.Errorf("RaiseFence(1) after 2: %v, want ErrFenced", err)
	}
	// Nor write: a group write with the old token writes nothing.
	if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Fence: f1,
		Complete: []string{hash(u("a.test", 1))}}); !errors.Is(err, store.ErrFenced) {
		t.Errorf("WriteGroup with the old token: %v, want ErrFenced", err)
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Queued: 2, Claimed: 1}) {
		t.Errorf("FrontierStats after the fenced claims and write = %+v, want 2 queued, 1 claimed", st)
	}
	// The current token claims; another fence, another topic and an
	// unfenced claim are not affected.
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "slice-1/a2/c1", Max: 1, Fence: f2})
	if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Fence: f2, Complete: []string{hash(u("a.test", 1))}}); err != nil {
		t.Errorf("WriteGroup with the current token: %v", err)
	}
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "slice-2/a1/c1", Max: 1, Fence: store.Fence{Name: "slice-2", Token: 1}})
	if err := s.RaiseFence(ctx, "rust", f1); err != nil {
		t.Errorf("RaiseFence of another topic: %v", err)
	}
	// ResetTopic forgets the topic's fences.
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatalf("ResetTopic: %v", err)
	}
	if err := s.RaiseFence(ctx, "go", f1); err != nil {
		t.Errorf("RaiseFence(1) after ResetTopic: %v", err)
	}
	if err := s.RaiseFence(ctx, "", f1); err == nil {
		t.Error("RaiseFence without a topic: no error")
	}
}

// testPruneFences: PruneFences drops the fences raised before its cutoff,
// of its topic only; a pruned fence's name starts afresh, and a fence
// raised again counts from its new raise.
func testPruneFences(t *testing.T, s store.Store) {
	ctx := t.Context()
	for _, f := range []store.Fence{{Name: "slice-1", Token: 5}, {Name: "slice-2", Token: math.MaxInt64}} {
		if err := s.RaiseFence(ctx, "go", f); err != nil {
			t.Fatalf("RaiseFence(%+v): %v", f, err)
		}
	}
	if err := s.RaiseFence(ctx, "rust", store.Fence{Name: "slice-1", Token: 5}); err != nil {
		t.Fatal(err)
	}
	prune := func(before time.Time) int {
		t.Helper()
		n, err := s.PruneFences(ctx, "go", before)
		if err != nil {
			t.Fatalf("PruneFences(%v): %v", before, err)
		}
		return n
	}
	if n := prune(time.Now().Add(-time.Hour)); n != 0 {
		t.Errorf("PruneFences(an hour ago) = %d, want 0 (both fences were raised just now)", n)
	}
	if err := s.RaiseFence(ctx, "go", store.Fence{Name: "slice-1", Token: 1}); !errors.Is(err, store.ErrFenced) {
		t.Errorf("RaiseFence(slice-1, 1) below the kept token 5: %v, want ErrFenced", err)
	}
	if n := prune(time.Now().Add(time.Hour)); n != 2 {
		t.Errorf("PruneFences(in an hour) = %d, want 2", n)
	}
	if err := s.RaiseFence(ctx, "go", store.Fence{Name: "slice-2", Token: 1}); err != nil {
		t.Errorf("RaiseFence(slice-2, 1) after its fence was pruned: %v", err)
	}
	if err := s.RaiseFence(ctx, "rust", store.Fence{Name: "slice-1", Token: 1}); !errors.Is(err, store.ErrFenced) {
		t.Errorf("RaiseFence(rust slice-1, 1): %v, want ErrFenced (another topic's fences are not pruned)", err)
	}
}

// testFrontierBusy: FrontierBusy is true while any entry of the topic is
// queued or claimed, and false once every one is done (or there is none).
func testFrontierBusy(t *testing.T, s store.Store) {
	checkBusy(t, s, "go", false)
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 1), 0.9), entry("go", u("b.test", 1), 0.8))
	checkBusy(t, s, "go", true)
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 2})
	if st := frontierStats(t, s, "go"); st.Claimed != 2 {
		t.Fatalf("FrontierStats after claiming both = %+v", st)
	}
	checkBusy(t, s, "go", true) // claimed only
	if err := s.CompleteBatch(t.Context(), "go", "b1"); err != nil {
		t.Fatal(err)
	}
	checkBusy(t, s, "go", false)
	checkBusy(t, s, "rust", false)
}

// testEnqueueMergesKnownBySink: a URL given twice in one Enqueue call, the
// first time sunk (FrontierEntry.Sink), raises an entry the frontier knows
// as one-by-one calls do: each by the stored entry's sink, which a new
// entry's Sink does not change. (PostgreSQL merged the second by the
// first's sink before raising by the stored one: 0.4 where 0.6 is due.)
func testEnqueueMergesKnownBySink(t *testing.T, s store.Store) {
	ctx := t.Context()
	plain, sunk := "https://a.test/plain.html", "https://a.test/gone/sunk.html"
	stored := entry("go", sunk, 0.1) // stored at 0.05, sink 0.5
	stored.Sink = 0.5
	enqueue(t, s, store.EnqueueOptions{}, entry("go", plain, 0.1), stored)
	first := func(url string, p float64) store.FrontierEntry {
		e := entry("go", url, p)
		e.Sink = 0.5 // a link into a directory known gone
		return e
	}
	if _, err := s.Enqueue(ctx, []store.FrontierEntry{
		first(plain, 0.4), entry("go", plain, 0.6),
		first(sunk, 0.2), entry("go", sunk, 0.8),
	}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "m/c1", Max: 2})
	if len(got) != 2 || got[0].URL != plain || math.Abs(got[0].Priority-0.6) > 1e-9 ||
		got[1].URL != sunk || math.Abs(got[1].Priority-0.4) > 1e-9 {
		t.Errorf("claim after a call giving each known URL twice = %+v; want %s at 0.6 (the higher priority, sink 1), %s at 0.4 (0.8 times its stored sink 0.5)",
			got, plain, sunk)
	}
}
