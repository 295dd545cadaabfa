package postgres

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres/pgtest"
	"focuscrawl/internal/urlnorm"
)

// TestRefreshWritersLockInKeyOrder: the refresh writers that update many
// pages or revisit rows (refresh_state) in one statement must take them in
// key order, url_hash within the topic, as every multi-row writer of those
// tables does (updateInKeyOrder; a claim's upsert), or they deadlock with
// one over overlapping rows. A revisit row's next_at is copied to its page
// by a trigger (migration 15) at the end of the statement, in the order
// the statement wrote the rows: a writer of next_at locks the pages in
// that order too, after the revisit rows, as a claim and RecordRefresh do.
//
//   - ReleaseCopies upserted the copies' revisit rows, and so locked their
//     pages, in the order of its union of the hash indexes, and reset their
//     decisions in its plan's order: a refresh's revisit of a page deadlocked
//     with SetScores, MarkIndexed or a group's pages (key order) over the
//     page's copies, or with another page's ReleaseCopies over shared copies.
//   - RenewRefresh and ReleaseRefresh updated a batch's revisit rows in the
//     order of the batch index or the heap: a renewal deadlocked with a
//     claim (key order) taking the rows of a batch whose lease ran out while
//     it still runs, as ClaimRefresh's conflict re-check expects.
//   - MakeRefreshDue inserted the missing revisit rows, then updated the
//     others, each in its plan's order: two runs over pages, the second
//     starting from the first key again, besides a run over revisit rows in
//     plan order.
//
// As in TestMultiRowUpdatesLockInKeyOrder, the rows are laid out with heap
// order the reverse of key order; another transaction holds the first row
// in key order, and the call must wait for it holding none of the table's
// others (checkLocksInKeyOrder).
func TestRefreshWritersLockInKeyOrder(t *testing.T) {
	const n = 16
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	const day = 24 * time.Hour
	at := t0.Add(2 * day) // when ReleaseCopies makes the copies due
	type row struct{ nextAt, lease int64 }
	for _, tc := range []struct {
		name     string
		table    string // whose rows the call must take in key order: pages or refresh_state
		decision string // of every page
		// revisit returns the revisit row of the i-th page in key order,
		// or false for none.
		revisit func(i int) (row, bool)
		call    func(ctx context.Context, s *Store, topic string) error
	}{
		{"ReleaseCopies", "pages", store.DecisionDuplicate,
			func(int) (row, bool) { return row{}, false },
			releaseCopies(at)},
		{"ReleaseCopiesRevisitRows", "refresh_state", store.DecisionDuplicate,
			func(int) (row, bool) { return row{nextAt: 1}, true },
			releaseCopies(at)},
		// Due at the time already (no trigger locks the pages): the
		// decisions' update is the first to lock them.
		{"ReleaseCopiesDue", "pages", store.DecisionDuplicate,
			func(int) (row, bool) { return row{nextAt: at.UnixNano()}, true },
			releaseCopies(at)},
		{"RenewRefresh", "refresh_state", store.DecisionAccepted,
			func(int) (row, bool) { return row{nextAt: 1, lease: 1000}, true },
			func(ctx context.Context, s *Store, topic string) error {
				return s.RenewRefresh(ctx, topic, "r/1", time.Unix(0, 2000))
			}},
		{"ReleaseRefresh", "refresh_state", store.DecisionAccepted,
			func(int) (row, bool) { return row{nextAt: 1, lease: 1000}, true },
			func(ctx context.Context, s *Store, topic string) error {
				_, err := s.ReleaseRefresh(ctx, topic, "r/1")
				return err
			}},
		// Every other page has a revisit row not due yet: MakeRefreshDue
		// inserts the others' rows and updates these.
		{"MakeRefreshDue", "pages", store.DecisionAccepted,
			func(i int) (row, bool) { return row{nextAt: t0.Add(30 * day).UnixNano()}, i%2 == 1 },
			makeRefreshDue(t0)},
		{"MakeRefreshDueRevisitRows", "refresh_state", store.DecisionAccepted,
			func(int) (row, bool) { return row{nextAt: t0.Add(30 * day).UnixNano()}, true },
			makeRefreshDue(t0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn, schema := pgtest.Schema(t)
			s := openDSN(t, dsn)
			ctx := t.Context()
			topic := "refresh-lock-order-" + schema // advisory locks are server-wide
			hashes := make([]string, n)
			urls := map[string]string{}
			for i := range n {
				u := fmt.Sprintf("https://d.test/%d", i)
				hashes[i], urls[urlnorm.Hash(u)] = urlnorm.Hash(u), u
			}
			slices.Sort(hashes)
			// Written last key first: heap order (and the batch index's,
			// equal keys in heap order) is the reverse of key order.
			for i := n - 1; i >= 0; i-- {
				h := hashes[i]
				p := store.Page{Topic: topic, URLHash: h, URL: urls[h], FinalURL: urls[h], FinalHash: h, CrawlID: "c",
					Status: 200, FetchedAt: t0, ContentHash: "copy"}
				if _, _, err := s.SavePage(ctx, p, nil); err != nil {
					t.Fatal(err)
				}
			}
			for i := n - 1; i >= 0; i-- {
				if err := s.SetDecision(ctx, topic, hashes[i], store.Decision{Decision: tc.decision, Relevance: 1}); err != nil {
					t.Fatal(err)
				}
			}
			for i := n - 1; i >= 0; i-- {
				r, ok := tc.revisit(i)
				if !ok {
					continue
				}
				batch := ""
				if r.lease > 0 {
					batch = "r/1"
				}
				if _, err := s.pool.Exec(ctx, `INSERT INTO refresh_state (topic, url_hash, next_at, batch_id, lease_until)
					VALUES ($1, $2, $3, $4, $5)`, topic, hashes[i], r.nextAt, batch, r.lease); err != nil {
					t.Fatal(err)
				}
			}
			// With statistics, as a live database has them: without, the
			// planner walked pages_decision, in key order, and hid
			// ReleaseCopies' order (a hash join of the pages' heap and the
			// union's hash table).
			if _, err := s.pool.Exec(ctx, `ANALYZE pages, refresh_state`); err != nil {
				t.Fatal(err)
			}
			checkLocksInKeyOrder(t, s, tc.name, tc.table, topic, hashes, func() error { return tc.call(ctx, s, topic) })
		})
	}
}

// releaseCopies returns a call of ReleaseCopies that releases every page
// of the topic (content hash "copy", of a page of another hash) at at.
func releaseCopies(at time.Time) func(ctx context.Context, s *Store, topic string) error {
	return func(ctx context.Context, s *Store, topic string) error {
		n, err := s.ReleaseCopies(ctx, topic, "0000", "", "copy", "", at)
		if err == nil && n != 16 {
			err = fmt.Errorf("released %d copies, want 16", n)
		}
		return err
	}
}

// makeRefreshDue returns a call of MakeRefreshDue that makes every page
// of the topic (accepted, fetched at t0) due an hour after t0.
func makeRefreshDue(t0 time.Time) func(ctx context.Context, s *Store, topic string) error {
	return func(ctx context.Context, s *Store, topic string) error {
		n, err := s.MakeRefreshDue(ctx, store.RefreshClaim{Topic: topic, Now: t0, NewPageDelay: 24 * time.Hour,
			DueBy: t0.Add(time.Hour)})
		if err == nil && n != 16 {
			err = fmt.Errorf("made %d pages due, want 16", n)
		}
		return err
	}
}
