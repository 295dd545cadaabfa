package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres/pgtest"
)

// TestClaimChunkKeysetAfterConcurrentRaise: the claim walk paged through the
// queue by keyset on the last candidate's (priority, seq). Under READ
// COMMITTED, FOR UPDATE returns the newest version of a row that was
// updated after the statement's snapshot, so a candidate whose priority a
// concurrent raise committed mid-scan comes back with its new priority;
// the next chunk then continues "below" that raised priority and reads
// again the entries this claim already picked (its own locks do not make
// SKIP LOCKED skip them). The batch reported more entries than it held
// (sqlshared.PickQueued now takes an entry once). The walk reads the
// hosts' heads now (migration 19) and a host's next entries by the same
// keyset, and takes each entry once too (sqlshared.PickByHostLocking).
func TestClaimChunkKeysetAfterConcurrentRaise(t *testing.T) {
	dsn, schema := pgtest.Schema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	topic := "raise-" + schema
	// seq order = insertion order.
	ins := func(q string, args ...any) {
		t.Helper()
		if _, err := s.pool.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	ins(`INSERT INTO frontier (topic, url_hash, url, host, priority) VALUES ($1, 'Y', 'https://y.test/', 'y.test', 200)`, topic)
	ins(`INSERT INTO frontier (topic, url_hash, url, host, priority)
		SELECT $1, 'h0-' || i, 'https://h0.test/' || i, 'h0.test', 150 FROM generate_series(1, 62) AS i`, topic)
	ins(`INSERT INTO frontier (topic, url_hash, url, host, priority)
		SELECT $1, 'x-' || i, 'https://x.test/' || i, 'x.test', 100 FROM generate_series(1, 400000) AS i`, topic)
	ins(`INSERT INTO frontier (topic, url_hash, url, host, priority) VALUES ($1, 'Z', 'https://z.test/', 'z.test', 50)`, topic)
	ins(`INSERT INTO frontier (topic, url_hash, url, host, priority)
		SELECT $1, 'low-' || i, 'https://l' || i || '.test/', 'l' || i || '.test', 10 FROM generate_series(1, 20) AS i`, topic)
	ins(`ANALYZE frontier`)

	for trial := 0; trial < 8; trial++ {
		// A raise of Z, in progress when the claim's chunk query starts.
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `UPDATE frontier SET priority = 1000 WHERE topic = $1 AND url_hash = 'Z'`, topic); err != nil {
			t.Fatal(err)
		}
		type result struct {
			b   store.Batch
			err error
		}
		done := make(chan result, 1)
		batch := "b" + string(rune('0'+trial))
		go func() {
			b, err := s.ClaimBatch(context.Background(), store.ClaimRequest{Topic: topic, BatchID: batch, Max: 10,
				MaxPerHost: 2, ExcludeHosts: []string{"x.test"}, Lease: time.Hour})
			done <- result{b, err}
		}()
		// Commit the raise once the claim's host walk is running (its
		// snapshot taken, Z's old version in it), or once the claim is
		// done: the walk reads a row per host, not the queue, and can be
		// over before a poll sees it.
		var r result
		finished := false
	wait:
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Microsecond) {
			select {
			case r = <-done:
				finished = true
				break wait
			default:
			}
			var running bool
			if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE state = 'active'
				AND query LIKE '%FROM frontier_hosts h%' AND query NOT LIKE '%pg_stat_activity%')`).Scan(&running); err != nil {
				t.Fatal(err)
			}
			if running || time.Now().After(deadline) {
				break
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if !finished {
			r = <-done
		}
		if r.err != nil {
			t.Fatal(r.err)
		}
		es, err := s.BatchEntries(ctx, topic, batch)
		if err != nil {
			t.Fatal(err)
		}
		var hashes []string
		for _, e := range es {
			hashes = append(hashes, e.URLHash)
		}
		if r.b.Size != len(es) {
			t.Fatalf("trial %d: Batch.Size = %d, but the batch holds %d entries: %s", trial, r.b.Size, len(es), strings.Join(hashes, " "))
		}
		t.Logf("trial %d: size %d: %s", trial, r.b.Size, strings.Join(hashes, " "))
		// Put everything back for the next trial.
		if _, err := s.ReleaseBatches(ctx, topic, batch); err != nil {
			t.Fatal(err)
		}
		ins(`UPDATE frontier SET priority = 50 WHERE topic = $1 AND url_hash = 'Z'`, topic)
	}
}
