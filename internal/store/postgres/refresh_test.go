package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres/pgtest"
	"focuscrawl/internal/urlnorm"
)

// TestClaimRefreshRechecksWaitedRow: batch r1's claim of a page ran out
// (lease and retry delay), and r1 holds the page again (HoldRefresh) or
// renews its claim (RenewRefresh) in a transaction that commits while a
// claim of r2 waits for the page's row. The claim's SELECT saw the
// expired lease; its conflicting row is the renewed one: the claim leaves
// the page to r1 and counts nothing. Before, ON CONFLICT DO UPDATE took
// it unconditionally, though HoldRefresh had just told r1 it held the
// page.
func TestClaimRefreshRechecksWaitedRow(t *testing.T) {
	for _, tc := range []struct {
		name string
		keep func(ctx context.Context, m methods, topic, hash string, until time.Time) error
	}{
		{"HoldRefresh", func(ctx context.Context, m methods, topic, hash string, until time.Time) error {
			held, err := m.HoldRefresh(ctx, topic, hash, "r1", until)
			if err == nil && !held {
				err = errors.New("HoldRefresh(r1) = false; want true: r1's claim, not replaced")
			}
			return err
		}},
		{"RenewRefresh", func(ctx context.Context, m methods, topic, _ string, until time.Time) error {
			return m.RenewRefresh(ctx, topic, "r1", until)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { claimWhileKept(t, tc.keep) })
	}
}

// claimWhileKept runs TestClaimRefreshRechecksWaitedRow with keep as r1's
// write, made through methods whose writes are one open transaction's.
func claimWhileKept(t *testing.T, keep func(ctx context.Context, m methods, topic, hash string, until time.Time) error) {
	dsn, schema := pgtest.Schema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	topic := "rechecked-" + schema // advisory locks are server-wide: a key no other test uses
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	const day = 24 * time.Hour
	u := "https://r.test/1"
	p := store.Page{Topic: topic, URLHash: urlnorm.Hash(u), URL: u, FinalURL: u, FinalHash: urlnorm.Hash(u),
		CrawlID: "c", Status: 200, FetchedAt: t0}
	if _, _, err := s.SavePage(ctx, p, []byte("body")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDecision(ctx, topic, p.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
		t.Fatal(err)
	}
	req := store.RefreshClaim{Topic: topic, BatchID: "r1", Max: 10, Now: t0.Add(day), NewPageDelay: day,
		Lease: time.Hour, RetryDelay: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 1 {
		t.Fatalf("ClaimRefresh(r1) = %d, %v; want 1", n, err)
	}
	// r1's lease ended at day+1h, its retry delay at day+2h.
	req.BatchID, req.Now = "r2", t0.Add(day+3*time.Hour)

	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // no-op after Commit
	pid := backendPID(t, tx)
	m := s.methods
	m.Exec = func(ctx context.Context, _, q string, args ...any) (int64, error) {
		tag, err := tx.Exec(ctx, rebind(q), args...)
		return tag.RowsAffected(), err
	}
	if err := keep(ctx, m, topic, p.URLHash, t0.Add(day+4*time.Hour)); err != nil {
		t.Fatal(err)
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := s.ClaimRefresh(ctx, req)
		done <- result{n, err}
	}()
	// Commit once the claim waits for the row this transaction locked:
	// its statement started before the commit, its snapshot has r1's
	// expired lease.
	waitBlockedBy(t, s, pid, done)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err != nil || r.n != 0 {
		t.Errorf("ClaimRefresh(r2) while r1 kept the page = %d, %v; want 0", r.n, r.err)
	}
	if ri, err := s.RefreshInfo(ctx, topic, p.URLHash); err != nil || ri.BatchID != "r1" || ri.Failures != 0 {
		t.Errorf("the page after r2's claim: %+v, %v; want r1's, no failed claim counted", ri, err)
	}
}
