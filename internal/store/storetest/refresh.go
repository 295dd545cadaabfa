package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"focuscrawl/internal/store"
)

// testRefresh checks the refresh bookkeeping: which pages are due, claims
// and their idempotency, leases, ReplacePage and RecordRefresh.
func testRefresh(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	var hashes []string
	for i := 0; i < 5; i++ {
		p := savePage(t, s, page("go", "crawl-1", u("r.test", i)), []byte("old body"))
		hashes = append(hashes, p.URLHash)
		if err := s.SaveParse(ctx, "go", p.URLHash, []byte("parse"), "T", "en", []string{"a"}); err != nil {
			t.Fatal(err)
		}
	}
	// 0, 1, 2 accepted; 3 rejected with a hub score; 4 rejected.
	for i, d := range []string{store.DecisionAccepted, store.DecisionAccepted, store.DecisionAccepted,
		store.DecisionRejected, store.DecisionRejected} {
		if err := s.SetDecision(ctx, "go", hashes[i], store.Decision{Decision: d, Relevance: float64(5-i) / 10}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.MarkIndexed(ctx, "go", hashes[:3]); err != nil {
		t.Fatal(err)
	}
	if err := s.SetScores(ctx, "go", map[string][3]float64{hashes[3]: {0.5, 0, 0}, hashes[4]: {0.01, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	req := store.RefreshClaim{Topic: "go", BatchID: "r1", Max: 2, Now: t0.Add(time.Hour), NewPageDelay: day, Lease: time.Hour}
	// Pages are due NewPageDelay after their fetch.
	if n, err := s.RefreshDue(ctx, req); err != nil || n != 0 {
		t.Fatalf("RefreshDue before the initial delay = %d, %v; want 0", n, err)
	}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 0 {
		t.Fatalf("ClaimRefresh before the initial delay = %d, %v; want 0", n, err)
	}
	req.Now = t0.Add(day)
	if n, err := s.RefreshDue(ctx, req); err != nil || n != 3 {
		t.Fatalf("RefreshDue = %d, %v; want the 3 accepted pages", n, err)
	}
	hubReq := req
	hubReq.MinHub = 0.1
	if n, err := s.RefreshDue(ctx, hubReq); err != nil || n != 4 {
		t.Fatalf("RefreshDue with MinHub 0.1 = %d, %v; want 3 accepted + 1 hub", n, err)
	}
	n, err := s.ClaimRefresh(ctx, req)
	if err != nil || n != 2 {
		t.Fatalf("ClaimRefresh = %d, %v; want 2", n, err)
	}
	if again, err := s.ClaimRefresh(ctx, req); err != nil || again != 2 {
		t.Fatalf("ClaimRefresh with the same batch ID = %d, %v; want the same 2", again, err)
	}
	items, err := s.RefreshBatch(ctx, "go", "r1")
	if err != nil || len(items) != 2 {
		t.Fatalf("RefreshBatch = %d items, %v; want 2", len(items), err)
	}
	held := map[string]bool{}
	for _, it := range items {
		held[it.Page.URLHash] = true
		if it.Refresh.BatchID != "r1" || it.Page.Decision != store.DecisionAccepted {
			t.Errorf("claimed item %+v: want batch r1, accepted", it)
		}
	}
	// The most relevant pages (0 and 1) go first; page 2 is left for another claim.
	if !held[hashes[0]] || !held[hashes[1]] {
		t.Errorf("claimed %v; want pages 0 and 1 (most relevant)", held)
	}
	req2 := req
	req2.BatchID, req2.Max = "r2", 10
	if n, err := s.ClaimRefresh(ctx, req2); err != nil || n != 1 {
		t.Fatalf("second claim = %d, %v; want only page 2 (0 and 1 are held)", n, err)
	}

	// Page 0 changed: replace it.
	p0, _ := s.Page(ctx, "go", hashes[0])
	p0.BatchID, p0.ContentHash, p0.ETag, p0.FetchedAt, p0.RobotsTag = "r1", "newhash", `"v2"`, t0.Add(day), "noindex"
	for i := 0; i < 2; i++ { // idempotent
		if err := s.ReplacePage(ctx, p0, []byte("new body")); err != nil {
			t.Fatalf("ReplacePage: %v", err)
		}
	}
	got, _ := s.Page(ctx, "go", hashes[0])
	if got.Decision != store.DecisionPending || got.Indexed || got.ETag != `"v2"` || got.ContentHash != "newhash" ||
		got.BatchID != "r1" || got.Seq != p0.Seq || got.CrawlID != "crawl-1" || got.RobotsTag != "noindex" {
		t.Errorf("page after ReplacePage = %+v; want pending, not indexed, new validators and X-Robots-Tag, batch r1, same seq and crawl", got)
	}
	if b, err := s.Blob(ctx, "go", hashes[0], store.BlobBody); err != nil || string(b) != "new body" {
		t.Errorf("body after ReplacePage = %q, %v", b, err)
	}
	_, err = s.Blob(ctx, "go", hashes[0], store.BlobParse)
	wantNotFound(t, "parse blob after ReplacePage", err)
	if bp, err := s.BatchPages(ctx, "go", "r1"); err != nil || len(bp) != 1 || bp[0].URLHash != hashes[0] {
		t.Errorf("BatchPages(r1) = %v, %v; want the replaced page only", bp, err)
	}
	missing := page("go", "crawl-1", u("r.test", 99))
	wantNotFound(t, "ReplacePage(missing)", s.ReplacePage(ctx, missing, nil))

	// Record outcomes; a result for another batch, or a repeat, changes nothing.
	next := t0.Add(3 * day)
	res := store.RefreshResult{BatchID: "r1", Changed: true, NextAt: next, Interval: 12 * time.Hour}
	for i := 0; i < 2; i++ {
		if err := s.RecordRefresh(ctx, "go", hashes[0], res); err != nil {
			t.Fatal(err)
		}
	}
	// A result for another batch writes no validators either.
	if err := s.RecordRefresh(ctx, "go", hashes[1], store.RefreshResult{BatchID: "other", NextAt: next,
		Validators: &store.Validators{ETag: `"stale"`, LastModified: "stale"}}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Page(ctx, "go", hashes[1]); err != nil || p.ETag == `"stale"` || p.LastModified == "stale" {
		t.Errorf("page 1 after another batch's result with validators = %+v, %v; want its own validators", p, err)
	}
	ri, err := s.RefreshInfo(ctx, "go", hashes[0])
	if err != nil || ri.Checks != 1 || ri.Changes != 1 || !ri.NextAt.Equal(next) || ri.Interval != 12*time.Hour || ri.BatchID != "" {
		t.Errorf("RefreshInfo(page 0) = %+v, %v; want 1 check, 1 change, next %v, 12h, released", ri, err, next)
	}
	if ri, _ := s.RefreshInfo(ctx, "go", hashes[1]); ri.BatchID != "r1" || ri.Checks != 0 {
		t.Errorf("RefreshInfo(page 1) after a result for another batch = %+v; want still held by r1", ri)
	}
	// Gone: never due again. Validators given with a result are stored.
	v := store.Validators{ETag: `"e2"`, LastModified: "Sat, 28 Nov 2026 02:00:00 GMT"}
	if err := s.RecordRefresh(ctx, "go", hashes[1], store.RefreshResult{BatchID: "r1", Changed: true, Validators: &v}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Page(ctx, "go", hashes[1]); err != nil || p.ETag != v.ETag || p.LastModified != v.LastModified {
		t.Errorf("page 1 after a result with validators %+v = %+v, %v", v, p, err)
	}
	// Lease expiry: r2's page 2 is claimable again after its lease.
	later := req
	later.BatchID, later.Max, later.Now = "r3", 10, t0.Add(day+2*time.Hour)
	if n, err := s.ClaimRefresh(ctx, later); err != nil || n != 1 {
		t.Errorf("claim after r2's lease expired = %d, %v; want page 2 again", n, err)
	}
	// At page 0's next time it is due again (it is still unjudged here,
	// which a refresh takes too: testRefreshUnjudged), and so is page 2,
	// whose r3 claim ran out unrecorded; page 1 (gone) never is.
	later.BatchID, later.Now = "r4", next
	if n, err := s.ClaimRefresh(ctx, later); err != nil || n != 2 {
		t.Errorf("claim at page 0's next time = %d, %v; want pages 0 and 2", n, err)
	}
	if items, err := s.RefreshBatch(ctx, "go", "r4"); err != nil || len(items) != 2 ||
		!slices.ContainsFunc(items, func(it store.RefreshItem) bool { return it.Page.URLHash == hashes[0] }) ||
		!slices.ContainsFunc(items, func(it store.RefreshItem) bool { return it.Page.URLHash == hashes[2] }) {
		t.Errorf("RefreshBatch(r4) = %+v, %v; want pages 0 and 2", items, err)
	}
	if err := s.UnmarkIndexed(ctx, "go", []string{hashes[2], hash(u("r.test", 99))}); err != nil {
		t.Fatal(err)
	}
	if p2, _ := s.Page(ctx, "go", hashes[2]); p2.Indexed {
		t.Error("UnmarkIndexed left the page indexed")
	}
	// ResetTopic forgets the bookkeeping with the pages.
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	if ri, err := s.RefreshInfo(ctx, "go", hashes[0]); err != nil || ri.Checks != 0 {
		t.Errorf("RefreshInfo after ResetTopic = %+v, %v; want zero", ri, err)
	}
}

// testRefreshUnjudged: a page a refresh replaced (decision pending) whose
// batch then failed before judging it is taken by a later refresh once the
// failed claim's lease has run out. Only accepted pages and hubs were
// eligible, so such a page stayed pending and out of the index for good.
func testRefreshUnjudged(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	p := acceptedPage(t, s, 1, "old body")
	req := store.RefreshClaim{Topic: "go", BatchID: "r1", Max: 10, Now: t0.Add(day), NewPageDelay: day, Lease: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Fatalf("ClaimRefresh = %d, %v; want the accepted page", n, err)
	}
	p.BatchID, p.ContentHash = "r1", "newhash"
	if err := s.ReplacePage(ctx, p, []byte("new body")); err != nil {
		t.Fatal(err)
	}
	// r1 fails here: no parse, no decision, no RecordRefresh.
	req.BatchID = "r2"
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 0 {
		t.Errorf("claim while r1 holds the page = %d, %v; want 0", n, err)
	}
	req.BatchID, req.Now = "r3", req.Now.Add(2*time.Hour)
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Fatalf("claim after r1's lease ran out = %d, %v; want the unjudged page", n, err)
	}
	if items, err := s.RefreshBatch(ctx, "go", "r3"); err != nil || len(items) != 1 || items[0].Page.Decision != store.DecisionPending {
		t.Errorf("RefreshBatch(r3) = %+v, %v; want the pending page", items, err)
	}
	// A page a crawl saved and has not judged yet has no refresh state:
	// refreshes leave it to its crawl.
	savePage(t, s, page("go", "crawl-1", u("r.test", 2)), []byte("body"))
	req.BatchID, req.Now = "r4", req.Now.Add(3*day)
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Errorf("claim beside a crawl's unjudged page = %d, %v; want 1: the refreshed page again (r3's lease is over), not the crawl's page", n, err)
	}
}

// testRefreshDropped: a page a refresh found dropped — rejected now, or
// gone — is claimable again at its next time while its count of drops is
// above 0, whatever its decision; once given up (NextAt zero) or back to 0
// (it recovered) it is treated as any page of its decision. The count is
// stored as given, and a repeat of the result changes nothing.
func testRefreshDropped(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	p := acceptedPage(t, s, 1, "old body")
	q := acceptedPage(t, s, 2, "old body")
	req := store.RefreshClaim{Topic: "go", BatchID: "r1", Max: 10, Now: t0.Add(day), NewPageDelay: day, Lease: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
		t.Fatalf("ClaimRefresh = %d, %v; want both accepted pages", n, err)
	}
	// The refresh turns p down and finds q gone.
	if err := s.SetDecision(ctx, "go", p.URLHash, store.Decision{Decision: store.DecisionRejected}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDecision(ctx, "go", q.URLHash, store.Decision{Decision: store.DecisionError}); err != nil {
		t.Fatal(err)
	}
	next := t0.Add(3 * day)
	for i := 0; i < 2; i++ { // a repeat changes nothing
		for _, h := range []string{p.URLHash, q.URLHash} {
			if err := s.RecordRefresh(ctx, "go", h, store.RefreshResult{BatchID: "r1", Changed: true, NextAt: next, Dropped: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if ri, err := s.RefreshInfo(ctx, "go", p.URLHash); err != nil || ri.Dropped != 1 || ri.Checks != 1 {
		t.Errorf("RefreshInfo(p) = %+v, %v; want dropped 1 after one check", ri, err)
	}
	req.BatchID, req.Now = "r2", next
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
		t.Fatalf("claim at their next time = %d, %v; want the rejected and the gone page", n, err)
	}
	// p is given up; q recovered (accepted again, count back to 0).
	if err := s.RecordRefresh(ctx, "go", p.URLHash, store.RefreshResult{BatchID: "r2", Dropped: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDecision(ctx, "go", q.URLHash, store.Decision{Decision: store.DecisionAccepted}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordRefresh(ctx, "go", q.URLHash, store.RefreshResult{BatchID: "r2", Changed: true, NextAt: next.Add(day)}); err != nil {
		t.Fatal(err)
	}
	req.BatchID, req.Now = "r3", next.Add(30*day)
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Fatalf("claim a month later = %d, %v; want the recovered page only", n, err)
	}
	if items, err := s.RefreshBatch(ctx, "go", "r3"); err != nil || len(items) != 1 || items[0].Page.URLHash != q.URLHash || items[0].Refresh.Dropped != 0 {
		t.Errorf("RefreshBatch(r3) = %+v, %v; want q with its count back to 0", items, err)
	}
	// A page a batch judged not accepted and that batch then failed (no
	// RecordRefresh: its count is still 0) is claimable again once the
	// claim has run out, so its drop is counted then.
	req.BatchID, req.Now = "r3b", req.Now.Add(time.Minute)
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 0 {
		t.Fatalf("claim while r3 holds q = %d, %v; want 0", n, err)
	}
	if err := s.SetDecision(ctx, "go", q.URLHash, store.Decision{Decision: store.DecisionRejected}); err != nil {
		t.Fatal(err)
	}
	req.BatchID, req.Now = "r3c", req.Now.Add(2*time.Hour) // r3's lease (1h) is over
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Fatalf("claim after r3 failed on q = %d, %v; want q again", n, err)
	}
	if err := s.RecordRefresh(ctx, "go", q.URLHash, store.RefreshResult{BatchID: "r3c", Changed: true, NextAt: req.Now.Add(day), Dropped: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDecision(ctx, "go", q.URLHash, store.Decision{Decision: store.DecisionAccepted}); err != nil {
		t.Fatal(err)
	}
	// A rejected page that no refresh dropped (the crawl turned it down)
	// is not a refresh's.
	r := savePage(t, s, page("go", "crawl-1", u("r.test", 3)), []byte("body"))
	if err := s.SetDecision(ctx, "go", r.URLHash, store.Decision{Decision: store.DecisionRejected}); err != nil {
		t.Fatal(err)
	}
	req.BatchID, req.Now = "r4", req.Now.Add(60*day)
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Errorf("claim beside a crawl's rejected page = %d, %v; want q only", n, err)
	}
}

// testRefreshRenew: RenewRefresh keeps a claim's pages from another claim
// past the claim's first lease, never shortens a lease and touches only
// the pages the batch still holds.
func testRefreshRenew(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	acceptedPage(t, s, 0, "body")
	acceptedPage(t, s, 1, "body")
	req := store.RefreshClaim{Topic: "go", BatchID: "r1", Max: 1, Now: t0.Add(day), NewPageDelay: day, Lease: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Fatalf("ClaimRefresh(r1) = %d, %v; want 1", n, err)
	}
	if err := s.RenewRefresh(ctx, "go", "r1", t0.Add(day+3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.RenewRefresh(ctx, "go", "r1", t0.Add(day+2*time.Hour)); err != nil { // shorter: ignored
		t.Fatal(err)
	}
	other := req
	other.BatchID, other.Max, other.Now = "r2", 10, t0.Add(day+150*time.Minute)
	if n, err := s.ClaimRefresh(ctx, other); err != nil || n != 1 {
		t.Errorf("claim after r1's first lease, before its renewed one ends = %d, %v; want only the page r1 does not hold", n, err)
	}
	if err := s.RenewRefresh(ctx, "go", "", t0.Add(2*day)); err == nil {
		t.Error("RenewRefresh without a batch ID was accepted")
	}
	other.BatchID, other.Now = "r3", t0.Add(day+3*time.Hour+time.Nanosecond)
	if n, err := s.ClaimRefresh(ctx, other); err != nil || n != 1 {
		t.Errorf("claim after r1's renewed lease = %d, %v; want r1's page", n, err)
	}
	// r1 no longer holds its page: renewing it changes nothing.
	if err := s.RenewRefresh(ctx, "go", "r1", t0.Add(2*day)); err != nil {
		t.Fatal(err)
	}
	other.BatchID, other.Now = "r4", t0.Add(day+5*time.Hour)
	if n, err := s.ClaimRefresh(ctx, other); err != nil || n != 2 {
		t.Errorf("claim after every lease ran out = %d, %v; want both pages (a renewal of r1 must not reach r3's page)", n, err)
	}
}

// testRefreshClaimAfterRenew: a claim whose best choices (the pages due
// longest) another batch renewed takes the next due page instead, and
// answers 0 only when nothing is due: RefreshWorkflow ends its run at a
// claim of 0. (PostgreSQL's claim chose the renewed pages by an older
// snapshot, left them to their batch and took nothing.)
func testRefreshClaimAfterRenew(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	var hashes []string
	for i := range 3 {
		p := page("go", "crawl-1", u("r.test", i))
		if i == 2 {
			p.FetchedAt = t0.Add(time.Hour) // due after the other two: not in r1's claim
		}
		p = savePage(t, s, p, []byte("body"))
		if err := s.SetDecision(ctx, "go", p.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, p.URLHash)
	}
	req := store.RefreshClaim{Topic: "go", BatchID: "r1", Max: 2, Now: t0.Add(day), NewPageDelay: day,
		Lease: time.Hour, RetryDelay: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
		t.Fatalf("ClaimRefresh(r1) = %d, %v; want 2", n, err)
	}
	// r1's lease ended at day+1h, its retry delay at day+2h, and it renews.
	if err := s.RenewRefresh(ctx, "go", "r1", t0.Add(day+4*time.Hour)); err != nil {
		t.Fatal(err)
	}
	req.BatchID, req.Now = "r2", t0.Add(day+3*time.Hour)
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Errorf("ClaimRefresh(r2, Max 2) after r1 renewed = %d, %v; want 1 (the page r1 does not hold)", n, err)
	}
	for i, want := range []string{"r1", "r1", "r2"} {
		if ri, err := s.RefreshInfo(ctx, "go", hashes[i]); err != nil || ri.BatchID != want {
			t.Errorf("page %d: batch %q, %v; want %s", i, ri.BatchID, err, want)
		}
	}
	req.BatchID = "r3"
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 0 {
		t.Errorf("ClaimRefresh(r3) with nothing due = %d, %v; want 0", n, err)
	}
}

// testRefreshHold: HoldRefresh tells whether a batch holds a page for a
// revisit it has not finished — not once another claim took the page, nor
// once the batch replaced it or recorded its outcome — and extends that
// page's lease only, never shortening it.
func testRefreshHold(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	p0, p1 := acceptedPage(t, s, 0, "body"), acceptedPage(t, s, 1, "body")
	req := store.RefreshClaim{Topic: "go", BatchID: "r1", Max: 2, Now: t0.Add(day), NewPageDelay: day, Lease: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
		t.Fatalf("ClaimRefresh(r1) = %d, %v; want 2", n, err)
	}
	hold := func(h, batch string, until time.Time, want bool) {
		t.Helper()
		if held, err := s.HoldRefresh(ctx, "go", h, batch, until); err != nil || held != want {
			t.Errorf("HoldRefresh(%s, %s) = %v, %v; want %v", h, batch, held, err, want)
		}
	}
	hold(p0.URLHash, "r1", t0.Add(day+3*time.Hour), true)
	hold(p0.URLHash, "r1", t0.Add(day+2*time.Hour), true) // held still; the lease is not shortened
	other := req
	other.BatchID, other.Max, other.Now = "r2", 10, t0.Add(day+150*time.Minute)
	if n, err := s.ClaimRefresh(ctx, other); err != nil || n != 1 {
		t.Fatalf("claim after r1's lease, before p0's extended one ends = %d, %v; want p1 only", n, err)
	}
	hold(p1.URLHash, "r1", t0.Add(2*day), false) // r2's now
	hold(p1.URLHash, "r2", t0.Add(day+4*time.Hour), true)
	if items, err := s.RefreshBatch(ctx, "go", "r2"); err != nil || len(items) != 1 || items[0].Page.URLHash != p1.URLHash {
		t.Fatalf("RefreshBatch(r2) = %v, %v; want p1", items, err)
	}

	// Replaced by r1: still r1's (RefreshBatch), but its revisit is done.
	r := p0
	r.BatchID, r.ContentHash = "r1", "newhash"
	if err := s.ReplacePage(ctx, r, []byte("new body")); err != nil {
		t.Fatal(err)
	}
	hold(p0.URLHash, "r1", t0.Add(2*day), false)
	if err := s.RecordRefresh(ctx, "go", p1.URLHash, store.RefreshResult{BatchID: "r2", NextAt: t0.Add(3 * day)}); err != nil {
		t.Fatal(err)
	}
	hold(p1.URLHash, "r2", t0.Add(2*day), false)
	hold("no-such-page", "r1", t0.Add(2*day), false)
	if _, err := s.HoldRefresh(ctx, "go", p0.URLHash, "", t0.Add(2*day)); err == nil {
		t.Error("HoldRefresh without a batch ID was accepted")
	}
	// p0's extended lease: a claim before it ends leaves the page to r1.
	other.BatchID, other.Now = "r3", t0.Add(day+170*time.Minute)
	if n, err := s.ClaimRefresh(ctx, other); err != nil || n != 0 {
		t.Errorf("claim before p0's extended lease ends = %d, %v; want 0", n, err)
	}
	other.BatchID, other.Now = "r4", t0.Add(day+3*time.Hour+time.Nanosecond)
	if n, err := s.ClaimRefresh(ctx, other); err != nil || n != 1 {
		t.Errorf("claim after p0's extended lease = %d, %v; want p0 (replaced, never judged)", n, err)
	}
}

// testRefreshRelease: ReleaseRefresh makes the pages a batch still holds
// claimable at once — before its lease and retry delay end, by a claim
// judging at its refresh's start too — and loses nothing a claim that ran
// out keeps: a page the batch judged not accepted is still taken, and the
// claim that takes them counts the failed claim, so that the revisit redoes
// the batch's index writes. Renewals and holds of the released batch no
// longer reach its pages; pages it recorded or another batch holds are left
// alone; a release made again answers as the first.
func testRefreshRelease(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	var ps []store.Page
	for i := range 4 {
		ps = append(ps, acceptedPage(t, s, i, "body"))
	}
	claimAt := t0.Add(day) // every page due: fetched at t0, NewPageDelay a day
	req := store.RefreshClaim{Topic: "go", BatchID: "r0", Max: 1, Now: claimAt, NewPageDelay: day,
		Lease: time.Hour, RetryDelay: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Fatalf("ClaimRefresh(r0) = %d, %v; want 1", n, err)
	}
	req.BatchID, req.Max = "r1", 3
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 3 {
		t.Fatalf("ClaimRefresh(r1) = %d, %v; want 3", n, err)
	}
	batch := func(id string) []string {
		t.Helper()
		items, err := s.RefreshBatch(ctx, "go", id)
		if err != nil {
			t.Fatal(err)
		}
		var hs []string
		for _, it := range items {
			hs = append(hs, it.Page.URLHash)
		}
		return hs
	}
	r0, r1 := batch("r0"), batch("r1")
	if len(r0) != 1 || len(r1) != 3 {
		t.Fatalf("batches r0 %v, r1 %v; want 1 and 3 pages", r0, r1)
	}
	byHash := map[string]store.Page{}
	for _, p := range ps {
		byHash[p.URLHash] = p
	}
	// r1 recorded one page, replaced another and judged it out of the
	// topic without recording it (cancelled before FinishRefresh), and
	// has not reached the third.
	recorded, judged, untouched := r1[0], r1[1], r1[2]
	if err := s.RecordRefresh(ctx, "go", recorded, store.RefreshResult{BatchID: "r1", NextAt: t0.Add(3 * day), Interval: day}); err != nil {
		t.Fatal(err)
	}
	repl := byHash[judged]
	repl.BatchID, repl.ContentHash = "r1", "newhash"
	if err := s.ReplacePage(ctx, repl, []byte("new body")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDecision(ctx, "go", judged, store.Decision{Decision: store.DecisionRejected, Relevance: 0.1}); err != nil {
		t.Fatal(err)
	}

	for range 2 { // the second: a retried release
		if n, err := s.ReleaseRefresh(ctx, "go", "r1"); err != nil || n != 2 {
			t.Fatalf("ReleaseRefresh(r1) = %d, %v; want the 2 pages it still holds", n, err)
		}
	}
	if _, err := s.ReleaseRefresh(ctx, "go", ""); err == nil {
		t.Error("ReleaseRefresh without a batch ID was accepted")
	}
	for _, h := range []string{judged, untouched} {
		ri, err := s.RefreshInfo(ctx, "go", h)
		if err != nil || ri.BatchID != "r1" || ri.Failures != 0 {
			t.Errorf("released page %s: batch %q, %d failures, %v; want r1's still, none counted yet", h, ri.BatchID, ri.Failures, err)
		}
	}
	// A late attempt of r1 cannot take its pages back, nor read them as
	// its own: a stage would act on pages the next claim takes.
	if got := batch("r1"); len(got) != 0 {
		t.Errorf("RefreshBatch(r1) after its release = %v; want none: released pages are not held", got)
	}
	if held, err := s.HoldRefresh(ctx, "go", untouched, "r1", claimAt.Add(2*time.Hour)); err != nil || held {
		t.Errorf("HoldRefresh(r1) of a released page = %v, %v; want false", held, err)
	}
	if err := s.RenewRefresh(ctx, "go", "r1", claimAt.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if held, err := s.HoldRefresh(ctx, "go", r0[0], "r0", claimAt.Add(30*time.Minute)); err != nil || !held {
		t.Errorf("HoldRefresh(r0) of its page after r1's release = %v, %v; want true", held, err)
	}

	// A minute after the claim, inside r1's lease of an hour and its retry
	// delay of another: due now, and taken, also by a claim judging at its
	// refresh's start (DueBy), which came before the release.
	now := claimAt.Add(time.Minute)
	o, err := s.RefreshOutlook(ctx, store.RefreshClaim{Topic: "go", Now: now, NewPageDelay: day,
		RetryDelay: time.Hour})
	if err != nil || o.Due != 2 || !o.NextAt.Equal(now) {
		t.Errorf("RefreshOutlook after the release = %+v, %v; want the 2 released pages due now", o, err)
	}
	req.BatchID, req.Max, req.Now, req.DueBy = "r2", 10, now, claimAt
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
		t.Fatalf("ClaimRefresh(r2) after r1's release = %d, %v; want r1's 2 released pages", n, err)
	}
	if got, want := batch("r2"), []string{judged, untouched}; !slices.Equal(got, want) {
		t.Errorf("batch r2 = %v; want %v (r0's page held, r1's recorded one not due)", got, want)
	}
	for _, h := range []string{judged, untouched} {
		ri, err := s.RefreshInfo(ctx, "go", h)
		if err != nil || ri.BatchID != "r2" || ri.Failures != 1 {
			t.Errorf("page %s: batch %q, %d failures, %v; want r2's, r1's claim counted failed", h, ri.BatchID, ri.Failures, err)
		}
	}
	if got := batch("r1"); len(got) != 0 {
		t.Errorf("RefreshBatch(r1) once r2 took its pages = %v; want none", got)
	}
	// r2 holds them: r1's release is over, and reaches none of them.
	if n, err := s.ReleaseRefresh(ctx, "go", "r1"); err != nil || n != 0 {
		t.Errorf("ReleaseRefresh(r1) once r2 took its pages = %d, %v; want 0", n, err)
	}
	if held, err := s.HoldRefresh(ctx, "go", untouched, "r2", now.Add(time.Hour)); err != nil || !held {
		t.Errorf("HoldRefresh(r2) = %v, %v; want true: r2's live claim", held, err)
	}
	// r2's claim is live (its lease an hour from now): not claimable.
	req.BatchID, req.Now, req.DueBy = "r3", now.Add(time.Minute), time.Time{}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 0 {
		t.Errorf("ClaimRefresh(r3) during r2's lease = %d, %v; want 0", n, err)
	}
}

// testRefreshReclaimReleased: a claim of a batch ID whose pages were all
// released (ReleaseRefresh) claims afresh — the pages it takes are held,
// renewable, under a live lease — where a claim of a batch ID that holds
// pages answers their count again without claiming more. Refresh batch IDs
// come from the workflow ID, so a refresh cancelled in a batch, its claim
// released, and then reset claims that batch's ID again: counted as the
// same claim made again, the released pages came back unrenewed, the batch
// fetched them, could hold none (HoldRefresh) and threw the answers away.
// The released pages are due again, so the fresh claim takes them back,
// each counting the released claim among its failed ones as any claim of
// a released page does, and a retry of the fresh claim answers as it did.
func testRefreshReclaimReleased(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	for i := range 3 {
		acceptedPage(t, s, i, "body")
	}
	claimAt := t0.Add(day) // every page due: fetched at t0, NewPageDelay a day
	req := store.RefreshClaim{Topic: "go", BatchID: "r1", Max: 2, Now: claimAt, NewPageDelay: day,
		Lease: time.Hour, RetryDelay: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
		t.Fatalf("ClaimRefresh(r1) = %d, %v; want 2", n, err)
	}
	batch := func(id string) []string {
		t.Helper()
		items, err := s.RefreshBatch(ctx, "go", id)
		if err != nil {
			t.Fatal(err)
		}
		var hs []string
		for _, it := range items {
			hs = append(hs, it.Page.URLHash)
		}
		return hs
	}
	first := batch("r1")
	if n, err := s.ReleaseRefresh(ctx, "go", "r1"); err != nil || n != 2 {
		t.Fatalf("ReleaseRefresh(r1) = %d, %v; want 2", n, err)
	}

	// The reset refresh claims r1 again, judging at its start as before.
	req.Now, req.DueBy = claimAt.Add(time.Minute), claimAt
	for try := range 2 { // the second: the claim's activity retried
		if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
			t.Fatalf("ClaimRefresh(r1) after its release, call %d = %d, %v; want its 2 released pages claimed again", try+1, n, err)
		}
	}
	if got := batch("r1"); !slices.Equal(got, first) {
		t.Errorf("batch r1 claimed again = %v; want its released pages %v", got, first)
	}
	for _, h := range first {
		if held, err := s.HoldRefresh(ctx, "go", h, "r1", req.Now.Add(time.Hour)); err != nil || !held {
			t.Errorf("HoldRefresh(r1) of %s claimed again = %v, %v; want true: a live claim, not the released one", h, held, err)
		}
		ri, err := s.RefreshInfo(ctx, "go", h)
		if err != nil || ri.BatchID != "r1" || ri.Failures != 1 {
			t.Errorf("page %s: batch %q, %d failures, %v; want r1's, the released claim counted failed", h, ri.BatchID, ri.Failures, err)
		}
	}
	// r1 holds them under a live lease: another claim takes only the rest.
	other := req
	other.BatchID, other.Max = "r2", 10
	if n, err := s.ClaimRefresh(ctx, other); err != nil || n != 1 {
		t.Errorf("ClaimRefresh(r2) = %d, %v; want only the page r1 does not hold", n, err)
	}
}

// testRefreshDueBy: a claim with DueBy (a refresh's start) takes only the
// pages a claim at DueBy could have taken. A page the refresh revisited
// and that came due again before the refresh's next claim, or whose claim
// the refresh took after DueBy and which ran out, is left to a later
// refresh; before, one refresh run fetched such a page again. DueBy after
// Now changes nothing.
func testRefreshDueBy(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	acceptedPage(t, s, 0, "body")
	acceptedPage(t, s, 1, "body")
	start := t0.Add(day) // both due since their fetch a day before
	// (A claim whose Now is before its DueBy — a worker's clock behind
	// the refresh's start — judges at DueBy: testRefreshMakeDue.)
	req := store.RefreshClaim{Topic: "go", BatchID: "r0", Max: 10, Now: t0, DueBy: start, NewPageDelay: day, Lease: time.Hour}
	claim := func(id string, at time.Time, max int) []store.RefreshItem {
		t.Helper()
		req.BatchID, req.Now, req.Max = id, at, max
		if _, err := s.ClaimRefresh(ctx, req); err != nil {
			t.Fatal(err)
		}
		items, err := s.RefreshBatch(ctx, "go", id)
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	items := claim("r1", start, 1)
	if len(items) != 1 {
		t.Fatalf("first claim = %+v; want one page", items)
	}
	first := items[0].Page.URLHash
	if err := s.RecordRefresh(ctx, "go", first, store.RefreshResult{BatchID: "r1", NextAt: start.Add(time.Hour), Interval: time.Hour}); err != nil {
		t.Fatal(err)
	}
	// Two hours on, the first page is due again, but only since after DueBy.
	if items := claim("r2", start.Add(2*time.Hour), 10); len(items) != 1 || items[0].Page.URLHash == first {
		t.Fatalf("claim after the first page came due again = %+v; want the other page only", items)
	}
	// r2 fails without an outcome; its lease runs out after DueBy.
	if items := claim("r3", start.Add(4*time.Hour), 10); len(items) != 0 {
		t.Errorf("claim after r2's lease ran out = %+v; want nothing: both pages were taken since DueBy", items)
	}
	req.DueBy = time.Time{} // the next refresh
	if items := claim("r4", start.Add(4*time.Hour), 10); len(items) != 2 {
		t.Errorf("claim without DueBy = %+v; want both pages", items)
	}
}

// testRefreshBackoff: a page whose claims keep running out without an
// outcome (a batch that fails after ReplacePage, every time) is claimed
// again RetryDelay after the lease ended, then twice that, up to RetryMax,
// and at once again after a recorded outcome. Before, it was claimed again
// at every lease's end, with the unconditional refetch that goes with it.
func testRefreshBackoff(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	p := acceptedPage(t, s, 1, "body")
	start := t0.Add(day)
	req := store.RefreshClaim{Topic: "go", Max: 10, NewPageDelay: day, Lease: time.Hour,
		RetryDelay: 2 * time.Hour, RetryMax: 5 * time.Hour}
	claims := 0
	claim := func(at time.Time) int {
		t.Helper()
		claims++
		req.BatchID, req.Now = fmt.Sprintf("r%d", claims), at
		n, err := s.ClaimRefresh(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if due, err := s.RefreshDue(ctx, req); err != nil || due != 0 {
			t.Errorf("RefreshDue right after claim %s = %d, %v; want 0", req.BatchID, due, err)
		}
		return n
	}
	const ns = time.Nanosecond
	// (claim time, claimed) in order; every claim that takes the page runs
	// out unrecorded, its lease ending an hour after it.
	steps := []struct {
		at   time.Duration
		want int
	}{
		{0, 1},                   // first claim; lease ends at 1h
		{1*time.Hour + ns, 0},    // lease over, but the retry waits 2h
		{3 * time.Hour, 0},       // 1h + 2h: not yet (strictly after)
		{3*time.Hour + ns, 1},    // claim 2; lease ends at 4h+1ns
		{8 * time.Hour, 0},       // 4h+1ns + 4h: not yet
		{8*time.Hour + 2*ns, 1},  // claim 3; lease ends at 9h+2ns
		{14*time.Hour + 2*ns, 0}, // 8h would be due at 17h+2ns, capped at 5h: 14h+2ns
		{14*time.Hour + 3*ns, 1}, // claim 4, recorded below
	}
	for _, st := range steps {
		if n := claim(start.Add(st.at)); n != st.want {
			t.Fatalf("claim at +%v = %d; want %d", st.at, n, st.want)
		}
	}
	// The batch sees how many claims before it ran out (RefreshInfo.Failures).
	failures := func() int {
		t.Helper()
		items, err := s.RefreshBatch(ctx, "go", req.BatchID)
		if err != nil || len(items) != 1 {
			t.Fatalf("RefreshBatch %s = %v, %v", req.BatchID, items, err)
		}
		return items[0].Refresh.Failures
	}
	if f := failures(); f != 3 {
		t.Errorf("claim 4's batch: Failures %d; want 3 (claims 1-3 ran out)", f)
	}
	if err := s.RecordRefresh(ctx, "go", p.URLHash, store.RefreshResult{BatchID: req.BatchID, NextAt: start.Add(20 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	// An outcome ends the backoff: the next claim runs out at 21h, and the
	// page is due again 2h later, not 5h.
	if n := claim(start.Add(20 * time.Hour)); n != 1 {
		t.Fatalf("claim at the recorded next time = %d; want 1", n)
	}
	if f := failures(); f != 0 {
		t.Errorf("the claim after a recorded outcome: Failures %d; want 0", f)
	}
	if n := claim(start.Add(23*time.Hour + ns)); n != 1 {
		t.Errorf("claim 2h after a lease that ran out after a recorded outcome = %d; want 1 (the backoff starts again)", n)
	}
}

// acceptedPage saves page i of r.test in topic "go", crawl-1, with body,
// accepted with relevance 0.5.
func acceptedPage(t *testing.T, s store.Store, i int, body string) store.Page {
	t.Helper()
	p := savePage(t, s, page("go", "crawl-1", u("r.test", i)), []byte(body))
	if err := s.SetDecision(t.Context(), "go", p.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
		t.Fatal(err)
	}
	return p
}

// testRefreshOutlook: RefreshOutlook counts the pages a refresh may ever
// take and says when a claim could take the next one — the fetch time plus
// the initial interval for a page never revisited, the recorded next time
// for one revisited, the end of a claim's lease and its retry delay for a
// held page, never for a gone one — with the due count RefreshDue gives.
// A refresh with nothing due said "no pages due" and nothing of when.
func testRefreshOutlook(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	req := store.RefreshClaim{Topic: "go", Now: t0, NewPageDelay: day, Lease: time.Hour,
		RetryDelay: 2 * time.Hour, RetryMax: 5 * time.Hour}
	check := func(what string, want store.RefreshOutlook) {
		t.Helper()
		got, err := s.RefreshOutlook(ctx, req)
		if err != nil || got.Refreshable != want.Refreshable || got.Due != want.Due || !got.NextAt.Equal(want.NextAt) {
			t.Errorf("%s: RefreshOutlook = %+v, %v; want %+v", what, got, err, want)
		}
		if due, err := s.RefreshDue(ctx, req); err != nil || due != got.Due {
			t.Errorf("%s: RefreshDue = %d, %v; RefreshOutlook counted %d due", what, due, err, got.Due)
		}
	}
	check("a topic without pages", store.RefreshOutlook{})
	// 0 accepted, fetched at t0; 1 accepted, fetched 2 h later; 2 a
	// rejected hub fetched 3 h earlier; 3 rejected.
	var hashes []string
	for i, at := range []time.Duration{0, 2 * time.Hour, -3 * time.Hour, 0} {
		p := page("go", "crawl-1", u("r.test", i))
		p.FetchedAt = t0.Add(at)
		hashes = append(hashes, savePage(t, s, p, []byte("body")).URLHash)
	}
	for i, d := range []string{store.DecisionAccepted, store.DecisionAccepted, store.DecisionRejected, store.DecisionRejected} {
		if err := s.SetDecision(ctx, "go", hashes[i], store.Decision{Decision: d, Relevance: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetScores(ctx, "go", map[string][3]float64{hashes[2]: {0.5, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	check("before the initial delay", store.RefreshOutlook{Refreshable: 2, NextAt: t0.Add(day)})
	hubs := req
	hubs.MinHub = 0.1
	if got, err := s.RefreshOutlook(ctx, hubs); err != nil || got.Refreshable != 3 || !got.NextAt.Equal(t0.Add(day-3*time.Hour)) {
		t.Errorf("RefreshOutlook with MinHub 0.1 = %+v, %v; want 3 pages, the hub next, at %v", got, err, t0.Add(day-3*time.Hour))
	}
	other := req
	other.Topic = "other"
	if got, err := s.RefreshOutlook(ctx, other); err != nil || got != (store.RefreshOutlook{}) {
		t.Errorf("RefreshOutlook of another topic = %+v, %v; want nothing", got, err)
	}
	// Due: the next time is now.
	req.Now = t0.Add(day)
	check("page 0 due", store.RefreshOutlook{Refreshable: 2, Due: 1, NextAt: req.Now})
	claim := func(batch string, want int) {
		t.Helper()
		c := req
		c.BatchID, c.Max = batch, 10
		if n, err := s.ClaimRefresh(ctx, c); err != nil || n != want {
			t.Fatalf("ClaimRefresh(%s) = %d, %v; want %d", batch, n, err, want)
		}
	}
	claim("r1", 1)
	if err := s.RecordRefresh(ctx, "go", hashes[0], store.RefreshResult{BatchID: "r1", NextAt: t0.Add(3 * day), Interval: day}); err != nil {
		t.Fatal(err)
	}
	check("page 0 revisited", store.RefreshOutlook{Refreshable: 2, NextAt: t0.Add(day + 2*time.Hour)})
	// Page 1 claimed, its claim running out unrecorded: claimable again
	// after the lease (1 h) and the retry delay (2 h).
	req.Now = t0.Add(day + 2*time.Hour)
	claim("r2", 1)
	check("page 1 held", store.RefreshOutlook{Refreshable: 2, NextAt: t0.Add(day + 5*time.Hour)})
	// Gone pages are never due again; with none left there is nothing to refresh.
	if err := s.RecordRefresh(ctx, "go", hashes[1], store.RefreshResult{BatchID: "r2", Changed: true}); err != nil {
		t.Fatal(err)
	}
	check("page 1 gone", store.RefreshOutlook{Refreshable: 1, NextAt: t0.Add(3 * day)})
	req.Now = t0.Add(3 * day)
	claim("r3", 1)
	if err := s.RecordRefresh(ctx, "go", hashes[0], store.RefreshResult{BatchID: "r3", Changed: true}); err != nil {
		t.Fatal(err)
	}
	check("every accepted page gone", store.RefreshOutlook{})
}

// testRefreshGivenUp: ReplacePage records the final URL hash a page gives
// up when it moves, if the page may hold the index document under it
// (indexed, or not judged yet); GivenUpFinals lists those of the pages a
// batch holds — carried over to a later batch when the one that moved them
// failed — and ForgetGivenUp deletes them. FinishRefresh checks them: two
// pages of one document moved side by side each saw the other holding it.
func testRefreshGivenUp(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	givenUp := func(batch string, want ...string) {
		t.Helper()
		slices.Sort(want)
		got, err := s.GivenUpFinals(ctx, "go", batch)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("GivenUpFinals(%s) = %v, %v; want %v", batch, got, err, want)
		}
	}
	replace := func(p store.Page, batch, finalURL, content string) {
		t.Helper()
		p.BatchID, p.FinalURL, p.FinalHash, p.ContentHash = batch, finalURL, hash(finalURL), content
		if err := s.ReplacePage(ctx, p, []byte("new body")); err != nil {
			t.Fatalf("ReplacePage(%s): %v", p.URL, err)
		}
	}
	p0 := acceptedPage(t, s, 0, "body") // indexed; moves
	p1 := acceptedPage(t, s, 1, "body") // accepted but not indexed (noindex); moves
	p2 := acceptedPage(t, s, 2, "body") // indexed; changes at its final URL
	p3 := page("go", "crawl-1", u("r.test", 3))
	p3.FinalURL, p3.FinalHash = p0.FinalURL, p0.FinalHash // shares p0's document; moves
	p3 = savePage(t, s, p3, []byte("body"))
	if err := s.SetDecision(ctx, "go", p3.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkIndexed(ctx, "go", []string{p0.URLHash, p2.URLHash, p3.URLHash}); err != nil {
		t.Fatal(err)
	}
	req := store.RefreshClaim{Topic: "go", BatchID: "r1", Max: 10, Now: t0.Add(day), NewPageDelay: day, Lease: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 4 {
		t.Fatalf("ClaimRefresh(r1) = %d, %v; want the 4 accepted pages", n, err)
	}
	givenUp("r1")
	replace(p0, "r1", u("r.test", 100), "h0")
	replace(p0, "r1", u("r.test", 100), "h0") // idempotent
	replace(p1, "r1", u("r.test", 101), "h1")
	replace(p2, "r1", p2.FinalURL, "h2")
	replace(p3, "r1", u("r.test", 103), "h3")
	givenUp("r1", p0.FinalHash) // once, though two pages gave it up

	// r1 fails before FinishRefresh; r2 takes its unjudged pages after
	// r1's lease, and the hashes they gave up with them.
	req.BatchID, req.Now = "r2", req.Now.Add(2*time.Hour)
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 4 {
		t.Fatalf("ClaimRefresh(r2) = %d, %v; want r1's 4 unjudged pages", n, err)
	}
	givenUp("r1")
	givenUp("r2", p0.FinalHash)
	// An unjudged page that moves again gives up its new final URL too.
	replace(p0, "r2", u("r.test", 200), "h0b")
	givenUp("r2", p0.FinalHash, hash(u("r.test", 100)))

	// r2 is released (its refresh cancelled): its pages keep what they
	// gave up for the claim that takes them next, which a late attempt of
	// r2 neither reads nor forgets.
	if n, err := s.ReleaseRefresh(ctx, "go", "r2"); err != nil || n != 4 {
		t.Fatalf("ReleaseRefresh(r2) = %d, %v; want its 4 pages", n, err)
	}
	givenUp("r2")
	if err := s.ForgetGivenUp(ctx, "go", "r2"); err != nil {
		t.Fatal(err)
	}
	req.BatchID = "r3"
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 4 {
		t.Fatalf("ClaimRefresh(r3) = %d, %v; want r2's 4 released pages", n, err)
	}
	givenUp("r3", p0.FinalHash, hash(u("r.test", 100)))

	if err := s.ForgetGivenUp(ctx, "go", "r1"); err != nil { // holds nothing
		t.Fatal(err)
	}
	givenUp("r3", p0.FinalHash, hash(u("r.test", 100)))
	for range 2 { // idempotent
		if err := s.ForgetGivenUp(ctx, "go", "r3"); err != nil {
			t.Fatal(err)
		}
	}
	givenUp("r3")
	if _, err := s.GivenUpFinals(ctx, "go", ""); err == nil {
		t.Error("GivenUpFinals without a batch ID was accepted")
	}
	if err := s.ForgetGivenUp(ctx, "go", ""); err == nil {
		t.Error("ForgetGivenUp without a batch ID was accepted")
	}
	// ResetTopic with records left: they go with their pages.
	replace(p3, "r3", u("r.test", 300), "h3b")
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	givenUp("r3")
}

// testRefreshReleaseCopies: ReleaseCopies sends the duplicates of a page
// by its old content or final URL back to be judged — pending, due at the
// given time, claimable by a refresh — and leaves other pages (the page
// itself, pages judged otherwise, other content) alone; a repeat releases
// nothing more.
func testRefreshReleaseCopies(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	mk := func(i int, content, final string, d string) store.Page {
		t.Helper()
		p := page("go", "crawl-1", u("c.test", i))
		p.ContentHash = content
		if final != "" {
			p.FinalURL, p.FinalHash = final, hash(final)
		}
		p = savePage(t, s, p, nil)
		if err := s.SetDecision(ctx, "go", p.URLHash, store.Decision{Decision: d, Reason: "judged"}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orig := mk(1, "aaa", "", store.DecisionAccepted)
	byContent := mk(2, "aaa", "", store.DecisionDuplicate)
	byFinal := mk(3, "bbb", orig.FinalURL, store.DecisionDuplicate)
	rejected := mk(4, "aaa", "", store.DecisionRejected)
	other := mk(5, "ccc", "", store.DecisionDuplicate)
	// The original is revisited (and due again only much later).
	req := store.RefreshClaim{Topic: "go", BatchID: "r0", Max: 10, Now: t0.Add(day), NewPageDelay: day, Lease: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Fatalf("ClaimRefresh = %d, %v; want the accepted page", n, err)
	}
	if err := s.RecordRefresh(ctx, "go", orig.URLHash, store.RefreshResult{BatchID: "r0", Changed: true, NextAt: t0.Add(30 * day)}); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(2 * day)
	for i, want := range []int{2, 0} {
		if n, err := s.ReleaseCopies(ctx, "go", orig.URLHash, orig.FinalHash, orig.ContentHash, orig.TextHash, at); err != nil || n != want {
			t.Fatalf("ReleaseCopies (call %d) = %d, %v; want %d", i+1, n, err, want)
		}
	}
	for _, c := range []struct {
		p    store.Page
		want string
	}{{orig, store.DecisionAccepted}, {byContent, store.DecisionPending}, {byFinal, store.DecisionPending},
		{rejected, store.DecisionRejected}, {other, store.DecisionDuplicate}} {
		if got, err := s.Page(ctx, "go", c.p.URLHash); err != nil || got.Decision != c.want {
			t.Errorf("%s after ReleaseCopies: decision %q, %v; want %q", c.p.URL, got.Decision, err, c.want)
		}
	}
	for _, p := range []store.Page{byContent, byFinal} {
		if ri, err := s.RefreshInfo(ctx, "go", p.URLHash); err != nil || !ri.NextAt.Equal(at) {
			t.Errorf("RefreshInfo(%s) = %+v, %v; want due at %v", p.URL, ri, err, at)
		}
	}
	req.BatchID, req.Now = "r1", at
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
		t.Errorf("claim at the release time = %d, %v; want the two released copies", n, err)
	}
	if n, err := s.ReleaseCopies(ctx, "go", orig.URLHash, "", "", "", at); err != nil || n != 0 {
		t.Errorf("ReleaseCopies without hashes = %d, %v; want 0", n, err)
	}
}

// testRefreshConcurrentClaims: refresh claims running at once (two refresh
// runs of a topic, schedule overlap allow_all) never take one page twice,
// together take every due page, and none answers 0 while pages are due
// (a refresh ends its run at a claim of 0). The SQLite store chooses a claim's
// pages outside its write lock and leases them inside it, so two claims can
// choose the same pages; the second leases only what is still free.
func testRefreshConcurrentClaims(t *testing.T, s store.Store) {
	ctx := t.Context()
	const pages, claimers, size = 400, 8, 8
	for i := 0; i < pages; i++ {
		p := savePage(t, s, page("go", "crawl-1", u("cc.test", i)), []byte("body"))
		if err := s.SetDecision(ctx, "go", p.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu    sync.Mutex
		owner = map[string]string{}
		errs  []error
		wg    sync.WaitGroup
	)
	for w := 0; w < claimers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				id := fmt.Sprintf("w%d-r%d", w, i)
				req := store.RefreshClaim{Topic: "go", BatchID: id, Max: size,
					Now: t0.Add(48 * time.Hour), NewPageDelay: 24 * time.Hour, Lease: time.Hour}
				n, err := s.ClaimRefresh(ctx, req)
				if err == nil && n == 0 {
					// Claims only take due pages away: any due now was due
					// when this claim found none, which a refresh reads as
					// the end of its run.
					if due, err := s.RefreshDue(ctx, req); err != nil || due > 0 {
						mu.Lock()
						errs = append(errs, fmt.Errorf("claim %s took nothing while %d pages were due (%v)", id, due, err))
						mu.Unlock()
					}
					return
				}
				var items []store.RefreshItem
				if err == nil {
					items, err = s.RefreshBatch(ctx, "go", id)
				}
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("claim %s: %w", id, err))
				} else if len(items) != n {
					errs = append(errs, fmt.Errorf("claim %s took %d pages, its batch holds %d", id, n, len(items)))
				}
				for _, it := range items {
					if prev, dup := owner[it.Page.URLHash]; dup {
						errs = append(errs, fmt.Errorf("%s claimed by both %s and %s", it.Page.URL, prev, id))
					}
					owner[it.Page.URLHash] = id
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(owner) != pages {
		t.Errorf("%d pages claimed in all; want every one of the %d due", len(owner), pages)
	}
}

// testRefreshPostponed: a revisit recorded as postponed (the page was not
// requested: its host asked for a pause) releases the claim and sets the
// next due time, and counts no check; interval and drops are as given.
func testRefreshPostponed(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := savePage(t, s, page("go", "crawl-1", u("pp.test", 1)), []byte("body"))
	if err := s.SetDecision(ctx, "go", p.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(48 * time.Hour)
	req := store.RefreshClaim{Topic: "go", BatchID: "r1", Max: 5, Now: now, NewPageDelay: 24 * time.Hour, Lease: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Fatalf("ClaimRefresh = %d, %v; want 1", n, err)
	}
	if err := s.RecordRefresh(ctx, "go", p.URLHash, store.RefreshResult{BatchID: "r1", NextAt: now.Add(time.Hour),
		Interval: 3 * time.Hour, Dropped: 2, Postponed: true}); err != nil {
		t.Fatal(err)
	}
	ri, err := s.RefreshInfo(ctx, "go", p.URLHash)
	if err != nil {
		t.Fatal(err)
	}
	if ri.Checks != 0 || ri.BatchID != "" || !ri.NextAt.Equal(now.Add(time.Hour)) || ri.Interval != 3*time.Hour || ri.Dropped != 2 {
		t.Errorf("after a postponed revisit: %+v; want no check, released, due in an hour, interval 3h, 2 drops", ri)
	}
	if err := s.RecordRefresh(ctx, "go", p.URLHash, store.RefreshResult{BatchID: "r1", NextAt: now}); err != nil {
		t.Fatal(err)
	}
	if ri, err := s.RefreshInfo(ctx, "go", p.URLHash); err != nil || ri.Checks != 0 {
		t.Errorf("a second outcome for the released claim: %+v, %v; want it ignored", ri, err)
	}
}

// testRefreshUnreachable: a page's count of revisits in a row that failed
// for its host being down, and the time of the first, are stored as given
// with a revisit's outcome and read back by RefreshInfo and RefreshBatch;
// a repeat of the outcome (a retried activity) changes nothing, a
// postponed revisit keeps what it is given, an answer (count 0) clears
// both, and a count without its start is none. A dropped page — replaced
// with its failure, judged an error, one drop counted — keeps the count it
// is given (as the refresh of the release before recorded it for a page it
// dropped as unreachable) and is claimable again at its next time with
// it, as any dropped page.
func testRefreshUnreachable(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	p := acceptedPage(t, s, 1, "old body")
	since := t0.Add(day + time.Second) // nanoseconds kept
	now := t0.Add(day)
	claim := func(batch string) {
		t.Helper()
		req := store.RefreshClaim{Topic: "go", BatchID: batch, Max: 10, Now: now, NewPageDelay: day, Lease: time.Hour}
		if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
			t.Fatalf("ClaimRefresh(%s) at %v = %d, %v; want the page", batch, now, n, err)
		}
	}
	info := func() store.RefreshInfo {
		t.Helper()
		ri, err := s.RefreshInfo(ctx, "go", p.URLHash)
		if err != nil {
			t.Fatal(err)
		}
		return ri
	}
	record := func(r store.RefreshResult) {
		t.Helper()
		if err := s.RecordRefresh(ctx, "go", p.URLHash, r); err != nil {
			t.Fatal(err)
		}
	}
	claim("r1")
	// The first failure, recorded twice: counted once.
	for range 2 {
		record(store.RefreshResult{BatchID: "r1", NextAt: now.Add(time.Hour), Interval: day, Unreachable: 1, UnreachableSince: since})
	}
	if ri := info(); ri.Unreachable != 1 || !ri.UnreachableSince.Equal(since) || ri.Checks != 1 || ri.BatchID != "" {
		t.Fatalf("after one failure: %+v; want unreachable 1 since %v, one check, released", ri, since)
	}
	now = now.Add(time.Hour)
	claim("r2")
	items, err := s.RefreshBatch(ctx, "go", "r2")
	if err != nil || len(items) != 1 || items[0].Refresh.Unreachable != 1 || !items[0].Refresh.UnreachableSince.Equal(since) {
		t.Fatalf("RefreshBatch(r2) = %+v, %v; want the page with its count and start", items, err)
	}
	// Postponed: as given (the activity passes the count on).
	record(store.RefreshResult{BatchID: "r2", NextAt: now.Add(time.Hour), Interval: day, Postponed: true,
		Unreachable: 1, UnreachableSince: since})
	if ri := info(); ri.Unreachable != 1 || !ri.UnreachableSince.Equal(since) || ri.Checks != 1 {
		t.Fatalf("after a postponed revisit: %+v; want the count and start kept, no check", ri)
	}
	now = now.Add(time.Hour)
	claim("r3")
	record(store.RefreshResult{BatchID: "r3", NextAt: now.Add(2 * time.Hour), Interval: day, Unreachable: 2, UnreachableSince: since})
	if ri := info(); ri.Unreachable != 2 || !ri.UnreachableSince.Equal(since) {
		t.Fatalf("after a second failure: %+v; want unreachable 2 since %v", ri, since)
	}
	// It answers: both cleared.
	now = now.Add(2 * time.Hour)
	claim("r4")
	record(store.RefreshResult{BatchID: "r4", NextAt: now.Add(day), Interval: day})
	if ri := info(); ri.Unreachable != 0 || !ri.UnreachableSince.IsZero() {
		t.Fatalf("after an answer: %+v; want no count, no start", ri)
	}
	// A count without a start, or a negative one, is none.
	now = now.Add(day)
	claim("r5")
	record(store.RefreshResult{BatchID: "r5", NextAt: now.Add(time.Hour), Interval: day, Unreachable: 3})
	if ri := info(); ri.Unreachable != 0 || !ri.UnreachableSince.IsZero() {
		t.Errorf("a count without its start: %+v; want none stored", ri)
	}
	now = now.Add(time.Hour)
	claim("r6")
	record(store.RefreshResult{BatchID: "r6", NextAt: now.Add(time.Hour), Interval: day, Unreachable: -1, UnreachableSince: since})
	if ri := info(); ri.Unreachable != 0 || !ri.UnreachableSince.IsZero() {
		t.Errorf("a negative count: %+v; want none stored", ri)
	}
	// Dropped with a count: the refresh replaces the page with its
	// failure, judges it an error and records one drop with the count.
	now = now.Add(time.Hour)
	claim("r7")
	failed := p
	failed.BatchID, failed.Status, failed.ErrorClass, failed.Error = "r7", 0, "connect", "unreachable: connection refused"
	failed.ContentHash, failed.ETag, failed.LastModified, failed.FetchedAt = "", "", "", now
	if err := s.ReplacePage(ctx, failed, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDecision(ctx, "go", p.URLHash, store.Decision{Decision: store.DecisionError, Reason: "connect"}); err != nil {
		t.Fatal(err)
	}
	if items, err := s.RefreshBatch(ctx, "go", "r7"); err != nil || len(items) != 1 || items[0].Page.ErrorClass != "connect" ||
		items[0].Page.Decision != store.DecisionError {
		t.Fatalf("RefreshBatch(r7) = %+v, %v; want the page replaced with its failure, an error", items, err)
	}
	record(store.RefreshResult{BatchID: "r7", Changed: true, NextAt: now.Add(2 * day), Interval: day, Dropped: 1,
		Unreachable: 5, UnreachableSince: since})
	if ri := info(); ri.Dropped != 1 || ri.Unreachable != 5 || !ri.UnreachableSince.Equal(since) || ri.NextAt.IsZero() {
		t.Fatalf("after the drop: %+v; want dropped 1, unreachable 5 since %v, due again", ri, since)
	}
	now = now.Add(2 * day)
	claim("r8") // an error page, claimable as a dropped one
	if items, err := s.RefreshBatch(ctx, "go", "r8"); err != nil || len(items) != 1 || items[0].Refresh.Unreachable != 5 ||
		items[0].Refresh.Dropped != 1 {
		t.Errorf("RefreshBatch(r8) = %+v, %v; want the dropped page with its counts", items, err)
	}
}

// testRefreshMakeDue: MakeRefreshDue makes the pages a refresh may take due
// by the time given (its DueBy) — never-revisited ones not due yet and
// revisited ones due later — but not gone pages, pages a refresh would not
// take (a rejected page below the hub score), pages being rechecked after
// they were found dropped (their rechecks are counted), or pages due
// already (left as they are, not counted); a held page keeps its claim; a
// second call changes nothing. A claim then takes them after the pages
// that were overdue, also when its clock is behind the time they were made
// due by (a review: made due by the Temporal server's clock, a worker a
// second behind took none), and a refresh started before them leaves them
// to the one that made them due (a review: set to "due now", they were
// taken before overdue pages and twice by a refresh already running).
func testRefreshMakeDue(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	later := acceptedPage(t, s, 1, "body")   // revisited, due in a week
	gone := acceptedPage(t, s, 2, "body")    // revisited, gone for good
	early := acceptedPage(t, s, 3, "body")   // revisited, overdue
	held := acceptedPage(t, s, 4, "body")    // claimed by a refresh batch, no outcome yet
	dropped := acceptedPage(t, s, 8, "body") // found dropped, its recheck due later
	req := store.RefreshClaim{Topic: "go", BatchID: "r0", Max: 10, Now: t0.Add(2 * day), NewPageDelay: day, Lease: 2 * day}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 5 {
		t.Fatalf("first claim = %d, %v; want the 5 accepted pages", n, err)
	}
	for _, r := range []struct {
		p       store.Page
		next    time.Time
		dropped int
	}{{later, t0.Add(9 * day), 0}, {gone, time.Time{}, 0}, {early, t0.Add(2 * day), 0}, {dropped, t0.Add(8 * day), 1}} {
		if err := s.RecordRefresh(ctx, "go", r.p.URLHash, store.RefreshResult{BatchID: "r0", NextAt: r.next, Interval: day, Dropped: r.dropped}); err != nil {
			t.Fatal(err)
		}
	}
	at := t0.Add(3 * day)
	// Fetched at t0: due since t0 + 1d, left as it is. Fetched at at − 2h:
	// due at at + 22h, made due.
	fresh := savePage(t, s, page("go", "crawl-2", u("r.test", 6)), []byte("body"))
	if err := s.SetDecision(ctx, "go", fresh.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
		t.Fatal(err)
	}
	young := page("go", "crawl-2", u("r.test", 7))
	young.FetchedAt = at.Add(-2 * time.Hour)
	young = savePage(t, s, young, []byte("body"))
	if err := s.SetDecision(ctx, "go", young.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
		t.Fatal(err)
	}
	other := savePage(t, s, page("go", "crawl-1", u("r.test", 5)), []byte("body"))
	if err := s.SetDecision(ctx, "go", other.URLHash, store.Decision{Decision: store.DecisionRejected, Relevance: 0.01}); err != nil {
		t.Fatal(err)
	}
	made := store.RefreshClaim{Topic: "go", Now: at.Add(time.Second), DueBy: at, NewPageDelay: day}
	n, err := s.MakeRefreshDue(ctx, made)
	if err != nil || n != 2 {
		t.Fatalf("MakeRefreshDue = %d, %v; want 2 (the young never-revisited page and the one due later)", n, err)
	}
	for _, c := range []struct {
		name string
		p    store.Page
		want time.Time
	}{{"due later", later, at}, {"young", young, at}, {"overdue", early, t0.Add(2 * day)}, {"dropped", dropped, t0.Add(8 * day)}} {
		if info, err := s.RefreshInfo(ctx, "go", c.p.URLHash); err != nil || !info.NextAt.Equal(c.want) {
			t.Errorf("%s page: next at %v, %v after MakeRefreshDue; want %v", c.name, info.NextAt, err, c.want)
		}
	}
	if info, err := s.RefreshInfo(ctx, "go", other.URLHash); err != nil || !info.NextAt.IsZero() || info.Checks != 0 {
		t.Errorf("rejected page: %+v, %v; want no bookkeeping", info, err)
	}
	if n, err := s.MakeRefreshDue(ctx, made); err != nil || n != 0 {
		t.Errorf("MakeRefreshDue again = %d, %v; want 0", n, err)
	}
	if items, err := s.RefreshBatch(ctx, "go", "r0"); err != nil || len(items) != 1 || items[0].Page.URLHash != held.URLHash {
		t.Errorf("r0 after MakeRefreshDue = %d pages, %v; want the held page only", len(items), err)
	}
	claim := func(id string, now, dueBy time.Time, max int) []string {
		t.Helper()
		r := store.RefreshClaim{Topic: "go", BatchID: id, Max: max, Now: now, DueBy: dueBy, NewPageDelay: day, Lease: time.Hour}
		if _, err := s.ClaimRefresh(ctx, r); err != nil {
			t.Fatal(err)
		}
		items, err := s.RefreshBatch(ctx, "go", id)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range items {
			got = append(got, it.Page.URLHash)
		}
		return got
	}
	// A refresh that started before them (DueBy an hour before at) takes
	// the overdue pages only.
	if got := claim("r-earlier", at.Add(time.Minute), at.Add(-time.Hour), 10); len(got) != 2 ||
		!slices.Contains(got, early.URLHash) || !slices.Contains(got, fresh.URLHash) {
		t.Errorf("claim of a refresh started before = %d pages; want the two overdue ones", len(got))
	}
	// The refresh that made them due, by a clock a second behind its
	// DueBy: the rest, not the gone, rejected, dropped or held ones (the
	// held one's lease runs until t0+4d).
	got := claim("r1", at.Add(-time.Second), at, 10)
	if len(got) != 2 || !slices.Contains(got, later.URLHash) || !slices.Contains(got, young.URLHash) {
		t.Errorf("claim after MakeRefreshDue by a clock behind = %d pages; want the due-later and the young page", len(got))
	}
	// Its lease runs from DueBy, as if the clock were right: a claim an
	// hour after DueBy by a right clock finds the page still held.
	if got := claim("r2", at.Add(time.Hour-time.Millisecond), time.Time{}, 10); slices.Contains(got, later.URLHash) {
		t.Errorf("a claim within the lease (from DueBy) took the page r1 holds")
	}
}

// testRefreshMakeDueOrder: pages made due sort after the pages that were
// overdue already, so a claim smaller than the topic takes those first.
func testRefreshMakeDueOrder(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	overdue := acceptedPage(t, s, 0, "body")
	later := acceptedPage(t, s, 1, "body")
	req := store.RefreshClaim{Topic: "go", BatchID: "r0", Max: 10, Now: t0.Add(2 * day), NewPageDelay: day, Lease: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
		t.Fatalf("first claim = %d, %v", n, err)
	}
	for p, next := range map[string]time.Time{overdue.URLHash: t0.Add(2*day + time.Hour), later.URLHash: t0.Add(9 * day)} {
		if err := s.RecordRefresh(ctx, "go", p, store.RefreshResult{BatchID: "r0", NextAt: next, Interval: day}); err != nil {
			t.Fatal(err)
		}
	}
	at := t0.Add(3 * day)
	if n, err := s.MakeRefreshDue(ctx, store.RefreshClaim{Topic: "go", Now: at, DueBy: at, NewPageDelay: day}); err != nil || n != 1 {
		t.Fatalf("MakeRefreshDue = %d, %v; want 1", n, err)
	}
	req.BatchID, req.Now, req.DueBy, req.Max = "r1", at, at, 1
	if _, err := s.ClaimRefresh(ctx, req); err != nil {
		t.Fatal(err)
	}
	if items, err := s.RefreshBatch(ctx, "go", "r1"); err != nil || len(items) != 1 || items[0].Page.URLHash != overdue.URLHash {
		t.Errorf("claim of one page after MakeRefreshDue = %d pages, %v; want the overdue page", len(items), err)
	}
}

// claimOrder claims the due pages of req's topic one at a time (batch IDs
// prefix-1, prefix-2, …) until a claim takes none, and returns their URL
// hashes in the order claimed: the claim order, seen through ClaimRefresh
// alone.
func claimOrder(t *testing.T, s store.Store, req store.RefreshClaim, prefix string) []string {
	t.Helper()
	var order []string
	for i := 1; i <= 50; i++ {
		r := req
		r.BatchID, r.Max = fmt.Sprintf("%s-%d", prefix, i), 1
		n, err := s.ClaimRefresh(t.Context(), r)
		if err != nil {
			t.Fatalf("ClaimRefresh(%s): %v", r.BatchID, err)
		}
		if n == 0 {
			return order
		}
		items, err := s.RefreshBatch(t.Context(), req.Topic, r.BatchID)
		if err != nil || len(items) != 1 {
			t.Fatalf("RefreshBatch(%s) = %d items, %v; want 1", r.BatchID, len(items), err)
		}
		order = append(order, items[0].Page.URLHash)
	}
	t.Fatalf("more than 50 claims of one page each in topic %s", req.Topic)
	return nil
}

// namedPage saves page name of topic, fetched at fetched, and judges it
// decision with relevance rel (DecisionPending: left unjudged).
func namedPage(t *testing.T, s store.Store, topic, name string, fetched time.Time, decision string, rel float64) store.Page {
	t.Helper()
	p := page(topic, "crawl-1", "https://order.test/"+name)
	p.FetchedAt, p.ContentHash = fetched, "content of "+name
	p = savePage(t, s, p, []byte("body"))
	if decision != store.DecisionPending {
		if err := s.SetDecision(t.Context(), topic, p.URLHash, store.Decision{Decision: decision, Relevance: rel}); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// names maps the URL hashes of order back to the names namedPage gave.
func names(order []string) []string {
	out := make([]string, len(order))
	for i, h := range order {
		out[i] = h
		for _, n := range []string{"lapsed", "revisited", "fresh-early", "copy", "hub", "fresh-lo", "fresh-hi",
			"judged-late", "orig", "low-hub", "unaccepted", "overdue", "moved", "fresh-not-due", "fresh-due", "reset"} {
			if hash("https://order.test/"+n) == h {
				out[i] = n
			}
		}
	}
	return out
}

// testRefreshClaimOrder: a claim takes the due pages soonest due first,
// then by relevance + hub, then by URL hash, whichever write last changed
// a page's due time, its eligibility or its rank — a claim that ran out
// (the page due at once), RecordRefresh, ReleaseCopies, MakeRefreshDue
// (moving a revisited page, and giving one never revisited its first
// revisit row), SetDecision (judged later, accepted no longer), SetScores
// (a hub, a hub no longer, a higher rank), ResetTopic — and a claim of
// several pages takes the first of that order, across pages revisited,
// never revisited and hubs alike. The stores keep each page's due time
// beside the page for an indexed walk (pages.refresh_next_at): this is
// what keeps that copy honest.
func testRefreshClaimOrder(t *testing.T, s store.Store) {
	ctx := t.Context()
	const day = 24 * time.Hour
	// scenario builds the writes on topic and returns the claim that
	// judges them: every path above but MakeRefreshDue and ResetTopic.
	scenario := func(topic string) store.RefreshClaim {
		t.Helper()
		long := t0.Add(-10 * day) // due long before the others: the setup claim's
		namedPage(t, s, topic, "lapsed", long, store.DecisionAccepted, 0.1)
		revisited := namedPage(t, s, topic, "revisited", long, store.DecisionAccepted, 0.5)
		setup := store.RefreshClaim{Topic: topic, BatchID: "setup", Max: 10, Now: long.Add(day + time.Minute),
			NewPageDelay: day, Lease: time.Hour}
		if n, err := s.ClaimRefresh(ctx, setup); err != nil || n != 2 {
			t.Fatalf("setup claim = %d, %v; want 2", n, err)
		}
		// lapsed's claim runs out without an outcome: due at once.
		if err := s.RecordRefresh(ctx, topic, revisited.URLHash, store.RefreshResult{BatchID: "setup",
			NextAt: t0.Add(day - 3*time.Hour), Interval: day}); err != nil {
			t.Fatal(err)
		}
		namedPage(t, s, topic, "fresh-early", t0.Add(-2*time.Hour), store.DecisionAccepted, 0.2)
		hi := namedPage(t, s, topic, "fresh-hi", t0, store.DecisionAccepted, 0.9)
		lo := namedPage(t, s, topic, "fresh-lo", t0, store.DecisionAccepted, 0.3)
		hub := namedPage(t, s, topic, "hub", t0.Add(-time.Hour), store.DecisionRejected, 0.1)
		low := namedPage(t, s, topic, "low-hub", t0.Add(-4*time.Hour), store.DecisionRejected, 0.1)
		// fresh-lo outranks fresh-hi once it is a hub (0.3 + 0.7 > 0.9 + 0);
		// low-hub was a hub above MinHub and is one no longer.
		if err := s.SetScores(ctx, topic, map[string][3]float64{lo.URLHash: {0.7, 0, 0}, hub.URLHash: {0.5, 0, 0},
			low.URLHash: {0.9, 0, 0}, hi.URLHash: {0, 0, 0}}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetScores(ctx, topic, map[string][3]float64{low.URLHash: {0.2, 0, 0}}); err != nil {
			t.Fatal(err)
		}
		late := namedPage(t, s, topic, "judged-late", t0.Add(time.Hour), store.DecisionPending, 0)
		if err := s.SetDecision(ctx, topic, late.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.4}); err != nil {
			t.Fatal(err)
		}
		gone := namedPage(t, s, topic, "unaccepted", t0.Add(-5*time.Hour), store.DecisionAccepted, 0.8)
		if err := s.SetDecision(ctx, topic, gone.URLHash, store.Decision{Decision: store.DecisionRejected, Relevance: 0.1}); err != nil {
			t.Fatal(err)
		}
		// A copy of orig (same content), released when orig changed.
		orig := namedPage(t, s, topic, "orig", t0.Add(3*time.Hour), store.DecisionAccepted, 0.6)
		cp := page(topic, "crawl-1", "https://order.test/copy")
		cp.ContentHash = orig.ContentHash
		cp = savePage(t, s, cp, []byte("body"))
		if err := s.SetDecision(ctx, topic, cp.URLHash, store.Decision{Decision: store.DecisionDuplicate}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.ReleaseCopies(ctx, topic, orig.URLHash, "", orig.ContentHash, "", t0.Add(day-90*time.Minute)); err != nil || n != 1 {
			t.Fatalf("ReleaseCopies = %d, %v; want 1", n, err)
		}
		return store.RefreshClaim{Topic: topic, Now: t0.Add(day + 2*time.Hour), NewPageDelay: day, Lease: time.Hour, MinHub: 0.3}
	}
	want := []string{"lapsed", "revisited", "fresh-early", "copy", "hub", "fresh-lo", "fresh-hi", "judged-late"}
	if got := names(claimOrder(t, s, scenario("order"), "one")); !slices.Equal(got, want) {
		t.Errorf("claim order = %v; want %v", got, want)
	}
	// Claims of several pages take the first of that order.
	for _, k := range []int{3, 5, 8} {
		req := scenario(fmt.Sprint("order-", k))
		req.BatchID, req.Max = "many", k
		if n, err := s.ClaimRefresh(ctx, req); err != nil || n != k {
			t.Fatalf("claim of %d = %d, %v", k, n, err)
		}
		items, err := s.RefreshBatch(ctx, req.Topic, "many")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range items {
			got = append(got, it.Page.URLHash)
		}
		got = names(got)
		first := slices.Clone(want[:k])
		slices.Sort(got)
		slices.Sort(first)
		if !slices.Equal(got, first) {
			t.Errorf("claim of %d took %v; want %v", k, got, first)
		}
	}

	// MakeRefreshDue: a revisited page due later moves to its time, among
	// the pages due by then, and a page never revisited and not due by
	// then gets it too; one due by then keeps its own.
	long := t0.Add(-10 * day)
	namedPage(t, s, "made", "overdue", long, store.DecisionAccepted, 0.1)
	namedPage(t, s, "made", "moved", long, store.DecisionAccepted, 0.5)
	setup := store.RefreshClaim{Topic: "made", BatchID: "setup", Max: 10, Now: long.Add(day + time.Minute), NewPageDelay: day, Lease: time.Hour}
	if n, err := s.ClaimRefresh(ctx, setup); err != nil || n != 2 {
		t.Fatalf("setup claim in topic made = %d, %v; want 2", n, err)
	}
	for name, next := range map[string]time.Time{"overdue": t0.Add(day - time.Hour), "moved": t0.Add(10 * day)} {
		if err := s.RecordRefresh(ctx, "made", hash("https://order.test/"+name), store.RefreshResult{BatchID: "setup",
			NextAt: next, Interval: day}); err != nil {
			t.Fatal(err)
		}
	}
	namedPage(t, s, "made", "fresh-not-due", t0.Add(2*time.Hour), store.DecisionAccepted, 0.9)
	namedPage(t, s, "made", "fresh-due", t0.Add(-2*time.Hour), store.DecisionAccepted, 0.05)
	by := t0.Add(day)
	req := store.RefreshClaim{Topic: "made", Now: by, DueBy: by, NewPageDelay: day, Lease: time.Hour}
	if n, err := s.MakeRefreshDue(ctx, req); err != nil || n != 2 {
		t.Fatalf("MakeRefreshDue = %d, %v; want 2 (moved, fresh-not-due)", n, err)
	}
	want = []string{"fresh-due", "overdue", "fresh-not-due", "moved"}
	if got := names(claimOrder(t, s, req, "made")); !slices.Equal(got, want) {
		t.Errorf("claim order after MakeRefreshDue = %v; want %v", got, want)
	}

	// ResetTopic: the same page fetched again in a new crawl is a page
	// never revisited, due after its new fetch, not at its old revisit
	// time.
	namedPage(t, s, "reset", "reset", long, store.DecisionAccepted, 0.5)
	setup.Topic = "reset"
	if n, err := s.ClaimRefresh(ctx, setup); err != nil || n != 1 {
		t.Fatalf("setup claim in topic reset = %d, %v; want 1", n, err)
	}
	if err := s.RecordRefresh(ctx, "reset", hash("https://order.test/reset"), store.RefreshResult{BatchID: "setup",
		NextAt: t0.Add(-day), Interval: day}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetTopic(ctx, "reset"); err != nil {
		t.Fatal(err)
	}
	namedPage(t, s, "reset", "reset", t0, store.DecisionAccepted, 0.5)
	req = store.RefreshClaim{Topic: "reset", Now: t0.Add(day - time.Minute), NewPageDelay: day, Lease: time.Hour}
	if got := claimOrder(t, s, req, "early"); len(got) != 0 {
		t.Errorf("claim a minute before the page's first revisit after ResetTopic took %v; want none", names(got))
	}
	req.Now = t0.Add(day)
	if got := names(claimOrder(t, s, req, "due")); !slices.Equal(got, []string{"reset"}) {
		t.Errorf("claim at the page's first revisit after ResetTopic took %v; want [reset]", got)
	}
}
