package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres/pgtest"
	"focuscrawl/internal/urlnorm"
)

// TestMultiRowUpdatesLockInKeyOrder: the multi-row UPDATEs of frontier
// rows — Reprioritize, DemoteQueued, ReleaseBatches, CompleteBatch,
// CompleteEntries — and of pages — MarkIndexed, SetScores — must lock
// their rows in key order, url_hash within the topic, as Enqueue's raise
// does, or two of them over overlapping rows deadlock: each deadlock cost
// a worker PostgreSQL's deadlock_timeout (1 s) and a rerun, and the server
// log of TestFrontierHostsUnderConcurrentWriters showed DemoteQueued,
// Reprioritize and ReleaseBatches deadlocking with each other. An UPDATE
// locks rows in its plan's order, and sorting an array of hashes fixed
// none: for a few entries Reprioritize walked the topic's queue (by
// priority) and probed the array, MarkIndexed and CompleteEntries walked
// the topic by another index (pages_text_hash, frontier_host_state) and
// filtered by the array, DemoteQueued took frontier_host_state's order (by
// priority), ReleaseBatches and CompleteBatch the batch index's.
//
// The rows are laid out so that heap, priority and claim order are the
// reverse of key order. Another transaction holds the first row in key
// order; the call must wait for it holding none of the others
// (checkLocksInKeyOrder). That
// transaction then locks the last row in key order — key order too, as a
// writer must: a call that took it first deadlocks with it, which the
// store's deadlock counter or the transaction's error shows. (SetScores,
// whose plans here probe the array in its sorted order, passed before its
// UPDATE locked in key order too; it is checked all the same.)
func TestMultiRowUpdatesLockInKeyOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		table   string // whose rows the call updates: frontier or pages
		claimed bool   // the entries are claimed by batch "b/1", not queued
		call    func(s *Store, ctx context.Context, topic string, hashes []string) error
	}{
		// Every third entry: for a few entries the planner scans the
		// topic's queue (frontier_queue, priority order) and joins the
		// array to it; for many, it hashes the entries and probes them in
		// the array's order.
		{"Reprioritize", "frontier", false, func(s *Store, ctx context.Context, topic string, hashes []string) error {
			prios := map[string]float64{}
			for i := 0; i < len(hashes); i += 3 {
				prios[hashes[i]] = float64(i)
			}
			return s.Reprioritize(ctx, topic, prios)
		}},
		{"DemoteQueued", "frontier", false, func(s *Store, ctx context.Context, topic string, hashes []string) error {
			_, err := s.DemoteQueued(ctx, topic, "d.test", "https://d.test/", 0.5)
			return err
		}},
		{"DemoteQueuedClaimed", "frontier", true, func(s *Store, ctx context.Context, topic string, hashes []string) error {
			_, err := s.DemoteQueued(ctx, topic, "d.test", "https://d.test/", 0.5)
			return err
		}},
		{"ReleaseBatches", "frontier", true, func(s *Store, ctx context.Context, topic string, hashes []string) error {
			_, err := s.ReleaseBatches(ctx, topic, "b/")
			return err
		}},
		{"CompleteBatch", "frontier", true, func(s *Store, ctx context.Context, topic string, hashes []string) error {
			return s.CompleteBatch(ctx, topic, "b/1")
		}},
		{"CompleteEntries", "frontier", true, func(s *Store, ctx context.Context, topic string, hashes []string) error {
			rev := slices.Clone(hashes)
			slices.Reverse(rev)
			return s.CompleteEntries(ctx, topic, rev)
		}},
		{"MarkIndexed", "pages", false, func(s *Store, ctx context.Context, topic string, hashes []string) error {
			return s.MarkIndexed(ctx, topic, hashes)
		}},
		{"SetScores", "pages", false, func(s *Store, ctx context.Context, topic string, hashes []string) error {
			scores := map[string][3]float64{}
			for i := 0; i < len(hashes); i += 3 {
				scores[hashes[i]] = [3]float64{1, 2, 3}
			}
			return s.SetScores(ctx, topic, scores)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn, schema := pgtest.Schema(t)
			s := openDSN(t, dsn)
			ctx := t.Context()
			topic := "lock-order-" + schema
			const n = 16 // 3k+1: hashes[0] and hashes[n-1] are in every case's rows
			var es []store.FrontierEntry
			for i := range n {
				u := fmt.Sprintf("https://d.test/%d", i)
				es = append(es, store.FrontierEntry{Topic: topic, URL: u, URLHash: urlnorm.Hash(u), Host: "d.test", CrawlID: "c"})
			}
			// Inserted last key first, best first: heap order, priority
			// order (frontier_host_state) and claim order are all the
			// reverse of key order.
			slices.SortFunc(es, func(a, b store.FrontierEntry) int { return cmp.Compare(b.URLHash, a.URLHash) })
			for i := range es {
				es[i].Priority = float64(100 - i)
			}
			if _, err := s.Enqueue(ctx, es, store.EnqueueOptions{}); err != nil {
				t.Fatal(err)
			}
			if tc.table == "pages" {
				for _, e := range es {
					p := store.Page{Topic: topic, URLHash: e.URLHash, URL: e.URL, CrawlID: "c", Status: 200}
					if _, _, err := s.SavePage(ctx, p, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			if tc.claimed {
				if b, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: topic, BatchID: "b/1", Max: n}); err != nil || b.Size != n {
					t.Fatalf("ClaimBatch = %+v, %v; want all %d entries", b, err, n)
				}
			}
			hashes := make([]string, n)
			for i, e := range es {
				hashes[i] = e.URLHash
			}
			slices.Sort(hashes)
			checkLocksInKeyOrder(t, s, tc.name, tc.table, topic, hashes, func() error { return tc.call(s, ctx, topic, hashes) })
		})
	}
}

// checkLocksInKeyOrder checks that call, a writer of table's rows of topic
// (hashes: their URL hashes, sorted, every row of the topic in table),
// takes them in key order. Another transaction holds the first row in key
// order; call must wait for it holding none of the others. That
// transaction then locks the last row in key order — key order too, as a
// writer must: a call that took it first deadlocks with it, which the
// store's deadlock counter or the transaction's error shows.
func checkLocksInKeyOrder(t *testing.T, s *Store, name, table, topic string, hashes []string, call func() error) {
	t.Helper()
	ctx := t.Context()
	n := len(hashes)
	first, last := hashes[0], hashes[n-1]
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck
	pid := backendPID(t, tx)
	lockRow := `SELECT 1 FROM ` + table + ` WHERE topic = $1 AND url_hash = $2 FOR UPDATE`
	if _, err := tx.Exec(ctx, lockRow, topic, first); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- call() }()
	waitBlockedBy(t, s, pid, done) // it waits for the first row in key order

	// What it holds while it waits: it may hold nothing, in key order.
	var held int
	if err := s.pool.QueryRow(ctx, `SELECT $2 - COUNT(*) FROM (
			SELECT 1 FROM `+table+` WHERE topic = $1 AND url_hash <> $3 FOR UPDATE SKIP LOCKED) AS free`,
		topic, n-1, first).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if held > 0 {
		t.Errorf("%s held %d other %s rows while it waited for the first in key order", name, held, table)
	}
	// The other transaction takes the last row: a deadlock if the call
	// holds it. Whoever the detector aborts, the store's counter or the
	// transaction's error shows it.
	_, txErr := tx.Exec(ctx, lockRow, topic, last)
	if txErr == nil {
		txErr = tx.Commit(ctx)
	} else {
		_ = tx.Rollback(ctx)
	}
	if err := <-done; err != nil {
		t.Errorf("%s: %v", name, err)
	}
	if txErr != nil {
		t.Errorf("the other transaction, locking in key order: %v", txErr)
	}
	if d := s.deadlocks.Load(); d > 0 {
		t.Errorf("%s deadlocked %d time(s) with a transaction locking its rows in key order", name, d)
	}
}
