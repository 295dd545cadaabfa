package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres/pgtest"
	"focuscrawl/internal/store/sqlshared"
	"focuscrawl/internal/store/storetest"
	"focuscrawl/internal/urlnorm"
)

// openTemp opens a Store on a fresh schema of the test server.
func openTemp(t testing.TB) *Store {
	t.Helper()
	dsn, _ := pgtest.Schema(t)
	return openDSN(t, dsn)
}

func openDSN(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t) })
}

// TestOpenMigratesConcurrently opens one schema from several goroutines at
// once, as several workers starting together do: the advisory lock must let
// exactly one of them apply each migration.
func TestOpenMigratesConcurrently(t *testing.T) {
	dsn, _ := pgtest.Schema(t)
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Open #%d: %v", i, err)
		}
	}
	s := openDSN(t, dsn)
	if v, err := s.SchemaVersion(t.Context()); err != nil || v != Migrations() {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, Migrations())
	}
	var rows int
	if err := s.pool.QueryRow(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&rows); err != nil || rows != Migrations() {
		t.Errorf("schema_migrations has %d rows (%v), want one per migration", rows, err)
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	dsn, _ := pgtest.Schema(t)
	s := openDSN(t, dsn)
	if _, err := s.pool.Exec(t.Context(), `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, 0)`, Migrations()+1); err != nil {
		t.Fatal(err)
	}
	if s2, err := Open(t.Context(), dsn); err == nil {
		s2.Close()
		t.Fatal("Open of a database with a newer schema succeeded")
	} else if want := fmt.Sprintf("database schema version %d is newer than this program's %d", Migrations()+1, Migrations()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not say %q", err, want)
	}
}

// TestThreeStoresShareOneDatabase opens three Stores on one schema, as three
// workers on three machines would, and drains the frontier from all at once
// while saving pages of one crawl from all three.
func TestThreeStoresShareOneDatabase(t *testing.T) {
	dsn, _ := pgtest.Schema(t)
	stores := []store.Store{openDSN(t, dsn), openDSN(t, dsn), openDSN(t, dsn)}
	const n = 600
	var es []store.FrontierEntry
	for i := range n {
		es = append(es, store.FrontierEntry{Topic: "go", URL: fmt.Sprintf("https://h%d.test/%d", i%13, i), Priority: float64(i % 4)})
	}
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Overlapping thirds: every URL is enqueued by two stores.
			lo, hi := i*n/3, min((i+2)*n/3, n)
			if _, err := s.Enqueue(context.Background(), es[lo:hi], store.EnqueueOptions{}); err != nil {
				t.Errorf("Enqueue: %v", err)
			}
		}()
	}
	wg.Wait()
	if _, err := stores[0].Enqueue(t.Context(), es[:n/3], store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := storetest.ClaimAll(t, []store.Store{stores[0], stores[1], stores[2], stores[0], stores[1], stores[2]}, "go", 7)
	if len(seen) != n {
		t.Errorf("claimed %d distinct entries through three stores, want %d", len(seen), n)
	}
	if st, err := stores[2].FrontierStats(t.Context(), "go"); err != nil || st != (store.FrontierStats{Claimed: n}) {
		t.Errorf("FrontierStats = %+v, %v; want %d claimed", st, err, n)
	}

	const per = 30
	seqs := make(chan int64, 3*per)
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range per {
				url := fmt.Sprintf("https://s%d.test/%d", i, j)
				p, _, err := s.SavePage(context.Background(), store.Page{Topic: "go", URL: url, URLHash: urlnorm.Hash(url), CrawlID: "c"}, nil)
				if err != nil {
					t.Errorf("SavePage: %v", err)
					return
				}
				seqs <- p.Seq
			}
		}()
	}
	wg.Wait()
	close(seqs)
	got := map[int64]bool{}
	for q := range seqs {
		if got[q] || q < 1 || q > 3*per {
			t.Errorf("Seq %d repeated or outside 1..%d", q, 3*per)
		}
		got[q] = true
	}
	if len(got) != 3*per {
		t.Errorf("%d distinct Seqs, want %d", len(got), 3*per)
	}
}

// TestClaimUsesQueueIndex checks the plans of the claim's queries on a
// frontier with many done entries and a thousand hosts with queued ones
// (fewer heads are read faster by sorting them): the host walk must read frontier_hosts
// through frontier_hosts_claim and a host's entries through
// frontier_host_state, which is what keeps claim latency independent of
// the frontier's size and of the excluded hosts' queues.
func TestClaimUsesQueueIndex(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	if _, err := s.pool.Exec(ctx, `INSERT INTO frontier (topic, url_hash, url, host, priority, state)
		SELECT 'big', md5(i::text), 'https://h' || (i % 5000) || '.test/' || i, 'h' || (i % 5000) || '.test',
			(i % 10)::float8, CASE WHEN i % 5 = 0 THEN 'queued' ELSE 'done' END
		FROM generate_series(1, 20000) AS i`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ANALYZE frontier`, `ANALYZE frontier_hosts`} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		query, index string
		args         []any
	}{
		{headsFirst, "frontier_hosts_claim",
			[]any{"big", []string{"h1.test"}, 0.0, 64}},
		{fmt.Sprintf(hostSelect, ">"), "frontier_host_state", []any{"big", "h2.test", 0.0, 5.0, int64(100)}},
	} {
		rows, err := s.pool.Query(ctx, `EXPLAIN `+c.query, c.args...)
		plan, err := collect(rows, err, sqlshared.ScanString)
		if err != nil {
			t.Fatal(err)
		}
		if joined := strings.Join(plan, "\n"); !strings.Contains(joined, c.index) {
			t.Errorf("claim query does not use %s:\n%s", c.index, joined)
		}
	}
	b, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "big", BatchID: "b1", Max: 50, MaxPerHost: 1, Lease: time.Hour})
	if err != nil || b.Size != 50 {
		t.Errorf("ClaimBatch = %+v, %v; want 50 entries", b, err)
	}
}

// TestDryExpandUsesIndexes checks the plans of the queries of a crawl
// whose frontier ran dry, on 40 crawls of 1,000 pages: both read the
// crawl's pages through the existing index pages_crawl_seq (no index of
// their own: one on pages would cost every page write for a query run a
// few times a crawl), not the table.
func TestDryExpandUsesIndexes(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	if _, err := s.pool.Exec(ctx, `INSERT INTO pages (topic, url_hash, url, crawl_id, seq, depth, relevance, decision, reason)
		SELECT 'go', md5(i::text), 'https://a.test/' || i, 'c' || (i % 40), i, i % 4, (i % 97) / 97.0,
			(ARRAY['rejected', 'accepted', 'tunnel', 'error'])[i % 4 + 1],
			CASE WHEN i % 100 = 0 THEN 'x; expanded (round 1)' ELSE 'x' END
		FROM generate_series(1, 40000) AS i`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE pages`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []store.BestPagesQuery{
		{CrawlID: "c1", Decision: store.DecisionRejected, MinDepth: 1, Limit: 8},
		{CrawlID: "c1", Decision: store.DecisionAccepted, MaxDepth: 3, ReasonHas: "a", ReasonLacks: []string{"b", "c"}, Limit: 8, AfterRelevance: 0.5, AfterHash: "h"},
	} {
		query, args := sqlshared.BestPagesSQL(q)
		requirePlan(t, s, "pages_crawl_seq", query, args...)
	}
	requirePlan(t, s, "pages_crawl_seq", sqlshared.DryExpandedQuery, "c1", "%round 1%")
}

// requirePlan fails t unless PostgreSQL's plan of query (? placeholders)
// with args reads index.
func requirePlan(t *testing.T, s *Store, index, query string, args ...any) {
	t.Helper()
	rows, err := s.pool.Query(t.Context(), `EXPLAIN `+rebind(query), args...)
	plan, err := collect(rows, err, sqlshared.ScanString)
	if err != nil {
		t.Fatal(err)
	}
	if joined := strings.Join(plan, "\n"); !strings.Contains(joined, index) {
		t.Errorf("plan of %s does not read %s:\n%s", query, index, joined)
	}
}

// TestExpiredClaimWithPageIsDone: an expired claim whose page was saved is
// finished, not re-queued (documented in the package comment).
func TestExpiredClaimWithPageIsDone(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	url := "https://a.test/1"
	if _, err := s.Enqueue(ctx, []store.FrontierEntry{{Topic: "go", URL: url}}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 1, Lease: time.Minute, Now: now}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.SavePage(ctx, store.Page{Topic: "go", URLHash: urlnorm.Hash(url), URL: url, CrawlID: "c", BatchID: "b1"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "go", BatchID: "b2", Max: 1, Now: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.FrontierStats(ctx, "go"); st != (store.FrontierStats{Done: 1}) {
		t.Errorf("FrontierStats = %+v, want the fetched entry done", st)
	}
}

// TestClaimWaitsForLockedQueue: while another transaction holds every queued
// entry locked, ClaimBatch must not report an empty queue (the workflow
// would end the crawl); it gets the entries once they are released.
func TestClaimWaitsForLockedQueue(t *testing.T) {
	dsn, schema := pgtest.Schema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	topic := "locked-" + schema // advisory locks are server-wide: a key no other test uses
	if _, err := s.Enqueue(ctx, []store.FrontierEntry{{Topic: topic, URL: "https://a.test/1"}}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM frontier WHERE topic = $1 FOR UPDATE`, topic); err != nil {
		t.Fatal(err)
	}
	type result struct {
		b   store.Batch
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := s.ClaimBatch(context.Background(), store.ClaimRequest{Topic: topic, BatchID: "b1", Max: 5, Lease: time.Hour})
		done <- result{b, err}
	}()
	// Release the lock once the claimer has seen it held at least once
	// (pg_locks shows the claimer's advisory lock on its batch while it
	// tries), or after half the claimer's retry budget (claimTries ×
	// claimWait): on a loaded machine the poll can miss every one of the
	// claimer's short tries, and waiting for one hung the test after the
	// claimer had given up.
	for deadline := time.Now().Add(claimTries * claimWait / 2); time.Now().Before(deadline); {
		var waiting bool
		if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'
			AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0))`, "batch/"+topic+"/b1").Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.b.Size != 1 {
		t.Errorf("ClaimBatch while the queue was locked = %+v, %v; want the one entry once released", r.b, r.err)
	}
}

func TestBlobIsCompressed(t *testing.T) {
	s := openTemp(t)
	body := []byte(strings.Repeat("abcdefgh", 12_500))
	if _, _, err := s.SavePage(t.Context(), store.Page{Topic: "go", URLHash: "h", URL: "https://a.test/", CrawlID: "c"}, body); err != nil {
		t.Fatal(err)
	}
	var stored int
	if err := s.pool.QueryRow(t.Context(), `SELECT octet_length(data) FROM blobs WHERE topic = 'go' AND url_hash = 'h'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored >= len(body)/10 {
		t.Errorf("repetitive %d-byte body stored in %d bytes; want it compressed", len(body), stored)
	}
}

// TestFrontierCountsMatchRows: the trigger-kept counts FrontierStats reads
// agree with counting the rows, after concurrent enqueues, claims, expiries,
// completions and FrontierStats calls of their own, and after a reset.
func TestFrontierCountsMatchRows(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	counted := func(topic string) store.FrontierStats {
		t.Helper()
		var st store.FrontierStats
		if err := s.pool.QueryRow(ctx, `SELECT COUNT(*) FILTER (WHERE state = 'queued'), COUNT(*) FILTER (WHERE state = 'claimed'),
			COUNT(*) FILTER (WHERE state = 'done') FROM frontier WHERE topic = $1`, topic).Scan(&st.Queued, &st.Claimed, &st.Done); err != nil {
			t.Fatal(err)
		}
		return st
	}
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				var es []store.FrontierEntry
				for j := range 10 {
					es = append(es, store.FrontierEntry{Topic: "go", URL: fmt.Sprintf("https://h%d.test/%d/%d", j%3, (w+i)%20, j), Priority: float64(j)})
				}
				if _, err := s.Enqueue(ctx, es, store.EnqueueOptions{}); err != nil {
					t.Error(err)
					return
				}
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "go", BatchID: id, Max: 4, Lease: time.Minute, Now: now.Add(time.Duration(i) * time.Minute)}); err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					if err := s.CompleteBatch(ctx, "go", id); err != nil {
						t.Error(err)
						return
					}
				}
				if _, err := s.FrontierStats(ctx, "go"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := s.FrontierStats(ctx, "go")
	if want := counted("go"); err != nil || got != want {
		t.Errorf("FrontierStats = %+v, %v; counting the rows gives %+v", got, err, want)
	}
	if got.Queued+got.Claimed+got.Done == 0 || got.Done == 0 {
		t.Errorf("FrontierStats = %+v: the test did not exercise every state", got)
	}
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.FrontierStats(ctx, "go"); err != nil || got != (store.FrontierStats{}) {
		t.Errorf("FrontierStats after ResetTopic = %+v, %v; want zero", got, err)
	}
}

// TestFrontierCountsMigrationBackfills: a database created before migration
// 2 gets counts of the frontier it already has.
func TestFrontierCountsMigrationBackfills(t *testing.T) {
	dsn, _ := pgtest.Schema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	var es []store.FrontierEntry
	for i := range 5 {
		es = append(es, store.FrontierEntry{Topic: "go", URL: fmt.Sprintf("https://a.test/%d", i)})
	}
	if _, err := s.Enqueue(ctx, es, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 2, Lease: time.Hour}); err != nil {
		t.Fatal(err)
	}
	// Back to schema version 1, as a database from before migration 2.
	for _, q := range []string{`DROP TRIGGER frontier_counts_insert ON frontier`, `DROP TRIGGER frontier_counts_update ON frontier`,
		`DROP TRIGGER frontier_counts_delete ON frontier`, `DROP TABLE frontier_counts`, `DELETE FROM schema_migrations WHERE version >= 2`} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s2 := openDSN(t, dsn)
	if got, err := s2.FrontierStats(ctx, "go"); err != nil || got != (store.FrontierStats{Queued: 3, Claimed: 2}) {
		t.Errorf("FrontierStats after migrating to version 2 = %+v, %v; want 3 queued, 2 claimed", got, err)
	}
}
