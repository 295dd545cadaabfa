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

// TestWriteGroupLocksInKeyOrder: WriteGroup runs several statements in one
// transaction, and the rows of one table that they lock must be taken in
// one run in key order (url_hash within the topic, collation "C"), the
// order of every multi-row writer (updateInKeyOrder), or it deadlocks with
// such a writer — or with another group — over overlapping rows:
//
//   - frontier: it raised known queued entries in key order, then marked
//     its own entries done in key order — two runs. DemoteQueued, which
//     locks a directory's queued and claimed entries in key order, took a
//     completed entry below a raised one, then waited for the raised one
//     while the group waited for the completed one.
//   - frontier: new entries were inserted in the caller's order; a
//     concurrent inserter of the same URLs in another order (two groups
//     whose pages link to the same new pages) waits for the group's
//     uncommitted row while the group waits for its.
//   - pages: parse results and decisions were written one page at a time
//     in the caller's order and index flags in key order: MarkIndexed or
//     SetScores (key order) over the same pages deadlocked with it.
//
// As in TestMultiRowUpdatesLockInKeyOrder, the rows are laid out with the
// caller's order the reverse of key order; another transaction holds (or
// inserts) the first row in key order, the group must wait for it holding
// none of its other rows of that table, then that transaction takes the
// last row: a group that took it first deadlocks (Store.deadlocks, or the
// transaction's error).
func TestWriteGroupLocksInKeyOrder(t *testing.T) {
	const n = 16
	for _, tc := range []struct {
		name  string
		table string // whose rows the group locks: frontier or pages
		// setup lays out rows of es (key order reversed) and returns the
		// group write of the case.
		setup func(t *testing.T, s *Store, topic string, es []store.FrontierEntry) store.GroupWrite
		// insert: the other transaction inserts the first and last rows
		// (the group inserts them too) instead of locking stored ones.
		insert bool
	}{
		{"RaiseAndComplete", "frontier", func(t *testing.T, s *Store, topic string, es []store.FrontierEntry) store.GroupWrite {
			// Alternately by key: entries of batch b/1 that the group
			// completes, and queued ones it raises. The first in key
			// order is completed, the last raised.
			keyed := slices.Clone(es)
			slices.SortFunc(keyed, func(a, b store.FrontierEntry) int { return cmp.Compare(a.URLHash, b.URLHash) })
			claimed := map[string]bool{}
			for i := range keyed {
				if i%2 == 0 {
					claimed[keyed[i].URLHash] = true
				}
			}
			for i := range es {
				es[i].Priority = 1
				if claimed[es[i].URLHash] {
					es[i].Priority = 100
				}
			}
			if _, err := s.Enqueue(t.Context(), es, store.EnqueueOptions{}); err != nil {
				t.Fatal(err)
			}
			if b, err := s.ClaimBatch(t.Context(), store.ClaimRequest{Topic: topic, BatchID: "b/1", Max: n / 2}); err != nil || b.Size != n/2 {
				t.Fatalf("ClaimBatch = %+v, %v; want %d entries", b, err, n/2)
			}
			g := store.GroupWrite{Topic: topic}
			for _, e := range es { // reverse key order
				if claimed[e.URLHash] {
					g.Complete = append(g.Complete, e.URLHash)
				} else {
					e.Priority = 50
					g.Entries = append(g.Entries, e)
				}
			}
			return g
		}, false},
		{"NewEntries", "frontier", func(t *testing.T, s *Store, topic string, es []store.FrontierEntry) store.GroupWrite {
			return store.GroupWrite{Topic: topic, Entries: es}
		}, true},
		{"Pages", "pages", func(t *testing.T, s *Store, topic string, es []store.FrontierEntry) store.GroupWrite {
			g := store.GroupWrite{Topic: topic}
			for _, e := range es {
				p := store.Page{Topic: topic, URLHash: e.URLHash, URL: e.URL, CrawlID: "c", Status: 200}
				if _, _, err := s.SavePage(t.Context(), p, nil); err != nil {
					t.Fatal(err)
				}
				g.Parses = append(g.Parses, store.ParseWrite{URLHash: e.URLHash, Parsed: []byte("{}"), Title: "t", Terms: []string{"term"}})
				g.Decisions = append(g.Decisions, store.PageDecision{URLHash: e.URLHash, YieldHost: "d.test",
					Decision: store.Decision{Decision: store.DecisionAccepted, Relevance: 1}})
				g.Indexed = append(g.Indexed, e.URLHash)
			}
			return g
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn, schema := pgtest.Schema(t)
			s := openDSN(t, dsn)
			ctx := t.Context()
			topic := "group-lock-order-" + schema
			var es []store.FrontierEntry
			for i := range n {
				u := fmt.Sprintf("https://d.test/%d", i)
				es = append(es, store.FrontierEntry{Topic: topic, URL: u, URLHash: urlnorm.Hash(u), Host: "d.test",
					CrawlID: "c", Priority: 1})
			}
			// The caller's order is the reverse of key order.
			slices.SortFunc(es, func(a, b store.FrontierEntry) int { return cmp.Compare(b.URLHash, a.URLHash) })
			first, last := es[n-1], es[0]
			g := tc.setup(t, s, topic, es)

			tx, err := s.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(context.Background()) //nolint:errcheck
			pid := backendPID(t, tx)
			take := func(e store.FrontierEntry) error {
				if tc.insert {
					_, err := tx.Exec(ctx, `INSERT INTO frontier (topic, url_hash, url, host, priority, depth, parent_hash,
						parent_url, anchor, anchor_path, link_score, strategy, state, crawl_id)
						VALUES ($1, $2, $3, $4, 1, 0, '', '', '', '', 0, '', 'queued', 'c')`, topic, e.URLHash, e.URL, e.Host)
					return err
				}
				_, err := tx.Exec(ctx, `SELECT 1 FROM `+tc.table+` WHERE topic = $1 AND url_hash = $2 FOR UPDATE`, topic, e.URLHash)
				return err
			}
			if err := take(first); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := s.WriteGroup(ctx, g)
				done <- err
			}()
			waitBlockedBy(t, s, pid, done) // it waits for the first row in key order

			// What it holds while it waits: none of the table's other
			// rows (a row inserted and not committed is not seen here;
			// the last step shows those).
			var held int
			if err := s.pool.QueryRow(ctx, `SELECT $2 - COUNT(*) FROM (
					SELECT 1 FROM `+tc.table+` WHERE topic = $1 AND url_hash <> $3 FOR UPDATE SKIP LOCKED) AS free`,
				topic, n-1, first.URLHash).Scan(&held); err != nil {
				t.Fatal(err)
			}
			if !tc.insert && held > 0 {
				t.Errorf("WriteGroup held %d other %s rows while it waited for the first in key order", held, tc.table)
			}
			// The other transaction takes the last row: a deadlock if the
			// group holds it.
			txErr := take(last)
			if txErr == nil {
				txErr = tx.Commit(ctx)
			} else {
				_ = tx.Rollback(ctx)
			}
			if err := <-done; err != nil {
				t.Errorf("WriteGroup: %v", err)
			}
			if txErr != nil {
				t.Errorf("the other transaction, taking its rows in key order: %v", txErr)
			}
			if d := s.deadlocks.Load(); d > 0 {
				t.Errorf("WriteGroup deadlocked %d time(s) with a transaction taking its rows in key order", d)
			}
		})
	}
}
