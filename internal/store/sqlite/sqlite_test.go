package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
	"focuscrawl/internal/store/storetest"
	"focuscrawl/internal/urlnorm"
)

func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "sub", "dir", "crawl.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t) })
}

func TestOpenMigratesIdempotently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	// Concurrent first opens, as by several workers starting together.
	var wg sync.WaitGroup
	stores := make([]*Store, 4)
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(path)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Open #%d: %v", i, err)
		}
	}
	if _, err := stores[0].PutTopic(t.Context(), "go", []byte("x")); err != nil {
		t.Fatalf("PutTopic: %v", err)
	}
	for _, s := range stores {
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	v, err := s.SchemaVersion(t.Context())
	if err != nil || v != len(migrations) {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, len(migrations))
	}
	var n int
	if err := s.rdb.QueryRow(`SELECT COUNT(*) FROM schema_version`).Scan(&n); err != nil || n != len(migrations) {
		t.Errorf("schema_version has %d rows (%v), want one per migration", n, err)
	}
	if tp, err := s.Topic(t.Context(), "go", 0); err != nil || tp.Version != 1 {
		t.Errorf("data lost across reopen: Topic = %+v, %v", tp, err)
	}
	var mode string
	if err := s.rdb.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.wdb.Exec(`INSERT INTO schema_version (version, applied_at) VALUES (?, 0)`, len(migrations)+1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open of a database with a newer schema succeeded")
	}
	// The error must tell the operator what happened: the file is from a
	// newer release, at which version, and which version this one knows.
	for _, want := range []string{path, "newer", fmt.Sprint(len(migrations) + 1), fmt.Sprint(len(migrations))} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestTwoStoresClaimConcurrently opens two Stores on one file, as two worker
// processes would, and drains the frontier from both at once.
func TestTwoStoresClaimConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	const n = 300
	var es []store.FrontierEntry
	for i := 0; i < n; i++ {
		url := fmt.Sprintf("https://h%d.test/%d", i%11, i)
		es = append(es, store.FrontierEntry{Topic: "go", URL: url, Priority: float64(i % 3)})
	}
	// Enqueue half through each store, concurrently.
	var wg sync.WaitGroup
	for i, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Enqueue(context.Background(), es[i*n/2:(i+1)*n/2], store.EnqueueOptions{}); err != nil {
				t.Errorf("Enqueue: %v", err)
			}
		}()
	}
	wg.Wait()
	seen := storetest.ClaimAll(t, []store.Store{a, b, a, b}, "go", 9)
	if len(seen) != n {
		t.Errorf("claimed %d distinct entries through two stores, want %d", len(seen), n)
	}
	st, err := b.FrontierStats(t.Context(), "go")
	if err != nil || st != (store.FrontierStats{Claimed: n}) {
		t.Errorf("FrontierStats = %+v, %v; want %d claimed", st, err, n)
	}
}

// TestTwoStoresSavePageSeq checks Seq assignment across two Stores on one file.
func TestTwoStoresSavePageSeq(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const per = 40
	seqs := make(chan int64, 2*per)
	var wg sync.WaitGroup
	for i, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < per; j++ {
				url := fmt.Sprintf("https://s%d.test/%d", i, j)
				p, _, err := s.SavePage(context.Background(), store.Page{
					Topic: "go", URL: url, URLHash: urlnorm.Hash(url), CrawlID: "c"}, nil)
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
		if got[q] || q < 1 || q > 2*per {
			t.Errorf("Seq %d repeated or out of 1..%d", q, 2*per)
		}
		got[q] = true
	}
	if len(got) != 2*per {
		t.Errorf("%d distinct Seqs, want %d", len(got), 2*per)
	}
}

// The behaviour below is specific to this backend (documented in the
// package comment), so it is tested here rather than in storetest.

func TestDuplicateOfIgnoresFailedPages(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	failed := store.Page{Topic: "go", URLHash: "h1", URL: "https://a.test/1", CrawlID: "c",
		FinalHash: "F", ErrorClass: "timeout"}
	ok := store.Page{Topic: "go", URLHash: "h2", URL: "https://a.test/2", CrawlID: "c", FinalHash: "F", Status: 200}
	for _, p := range []store.Page{failed, ok} {
		if _, _, err := s.SavePage(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	if dup, err := s.DuplicateOf(ctx, ok); err != nil || dup != "" {
		t.Errorf("DuplicateOf(copy of a failed page) = %q, %v; want \"\"", dup, err)
	}
}

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

func TestSavePageDefaults(t *testing.T) {
	s := openTemp(t)
	body := []byte("0123456789")
	p, _, err := s.SavePage(t.Context(), store.Page{Topic: "go", URLHash: "h", URL: "https://a.test/", CrawlID: "c"}, body)
	if err != nil {
		t.Fatal(err)
	}
	if p.Bytes != len(body) || p.FetchedAt.IsZero() || p.FetchedAt.Location() != time.UTC {
		t.Errorf("SavePage defaults: Bytes %d, FetchedAt %v; want %d and a UTC time", p.Bytes, p.FetchedAt, len(body))
	}
}

func TestErrorsNameTheKey(t *testing.T) {
	s := openTemp(t)
	_, err := s.Page(t.Context(), "topic-x", "hash-y")
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Page error %v does not wrap ErrNotFound", err)
	}
	for _, want := range []string{"topic-x", "hash-y"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	_, err = s.Enqueue(t.Context(), []store.FrontierEntry{{Topic: "", URL: "https://a.test/"}}, store.EnqueueOptions{})
	if err == nil || !strings.Contains(err.Error(), "https://a.test/") {
		t.Errorf("Enqueue without topic: error %v, want one naming the URL", err)
	}
}

func TestBlobIsCompressed(t *testing.T) {
	s := openTemp(t)
	body := make([]byte, 100_000)
	for i := range body {
		body[i] = "abcdefgh"[i%8]
	}
	if _, _, err := s.SavePage(t.Context(), store.Page{Topic: "go", URLHash: "h", URL: "https://a.test/", CrawlID: "c"}, body); err != nil {
		t.Fatal(err)
	}
	var stored int
	if err := s.rdb.QueryRow(`SELECT length(data) FROM blobs WHERE topic = 'go' AND url_hash = 'h'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored >= len(body)/10 {
		t.Errorf("repetitive %d-byte body stored in %d bytes; want it compressed", len(body), stored)
	}
}

// TestConnectionPragmas checks that the tuning in Open's DSN reaches both
// pools' connections (the driver ignores a misspelt parameter silently).
func TestConnectionPragmas(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for name, db := range map[string]*sql.DB{"writer": s.wdb.DB, "reader": s.rdb.DB} {
		for pragma, want := range map[string]int64{"cache_size": -65536, "mmap_size": 0, "temp_store": 2} {
			var got int64
			if err := db.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
				t.Fatalf("%s: PRAGMA %s: %v", name, pragma, err)
			}
			if got != want {
				t.Errorf("%s: %s = %d, want %d", name, pragma, got, want)
			}
		}
	}
	var ckpt int64
	if err := s.wdb.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&ckpt); err != nil || ckpt != 4096 {
		t.Errorf("writer: wal_autocheckpoint = %d (%v), want 4096", ckpt, err)
	}
}

// rowCounts counts topic's frontier rows by state, as FrontierStats did
// before migration 6.
func rowCounts(t *testing.T, s *Store, topic string) store.FrontierStats {
	t.Helper()
	var st store.FrontierStats
	err := s.rdb.QueryRow(`SELECT COALESCE(SUM(state = 'queued'), 0), COALESCE(SUM(state = 'claimed'), 0),
		COALESCE(SUM(state = 'done'), 0) FROM frontier WHERE topic = ?`, topic).Scan(&st.Queued, &st.Claimed, &st.Done)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// countEntries is n seed entries of topic on three hosts.
func countEntries(topic string, n int) []store.FrontierEntry {
	es := make([]store.FrontierEntry, n)
	for i := range es {
		u := fmt.Sprintf("http://h%d.test/p%d", i%3, i)
		es[i] = store.FrontierEntry{Topic: topic, URLHash: urlnorm.Hash(u), URL: u, Host: fmt.Sprintf("h%d.test", i%3),
			Priority: float64(i % 7), Strategy: "seed"}
	}
	return es
}

// TestFrontierCountsFollowRows: the per-topic counts the triggers keep
// (migration 6) equal the rows' counts after every kind of frontier write —
// enqueue (duplicates ignored), claim, completion, release, lease expiry,
// a priority change, a topic reset — and topics are counted apart.
func TestFrontierCountsFollowRows(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	check := func(step string) {
		t.Helper()
		for _, topic := range []string{"a", "b"} {
			got, err := s.FrontierStats(ctx, topic)
			if err != nil {
				t.Fatalf("%s: FrontierStats(%s): %v", step, topic, err)
			}
			if want := rowCounts(t, s, topic); got != want {
				t.Errorf("%s: FrontierStats(%s) = %+v, rows say %+v", step, topic, got, want)
			}
		}
	}
	check("empty")
	for _, topic := range []string{"a", "b"} {
		if _, err := s.Enqueue(ctx, countEntries(topic, 30), store.EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Enqueue(ctx, countEntries("a", 40), store.EnqueueOptions{}); err != nil { // 30 known, 10 new
		t.Fatal(err)
	}
	check("enqueue")
	if st, _ := s.FrontierStats(ctx, "a"); st.Queued != 40 {
		t.Errorf("topic a: %d queued after enqueueing 40 distinct URLs, want 40", st.Queued)
	}
	now := time.Unix(1_000, 0)
	claim := func(batch string, lease time.Duration) {
		t.Helper()
		if _, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "a", CrawlID: "c", BatchID: batch, Max: 9, Lease: lease, Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	claim("x/1", time.Hour)
	claim("x/2", time.Hour)
	claim("y/1", time.Second)
	check("claim")
	if err := s.CompleteBatch(ctx, "a", "x/1"); err != nil {
		t.Fatal(err)
	}
	check("complete batch")
	es, err := s.BatchEntries(ctx, "a", "x/2")
	if err != nil || len(es) == 0 {
		t.Fatalf("BatchEntries = %d, %v", len(es), err)
	}
	if err := s.CompleteEntries(ctx, "a", []string{es[0].URLHash}); err != nil {
		t.Fatal(err)
	}
	check("complete entries")
	if _, err := s.ReleaseBatches(ctx, "a", "x/"); err != nil {
		t.Fatal(err)
	}
	check("release")
	now = now.Add(time.Minute) // y/1's lease has run out: the next claim expires it
	claim("z/1", time.Hour)
	check("lease expiry")
	if err := s.Reprioritize(ctx, "a", map[string]float64{es[1].URLHash: 99}); err != nil {
		t.Fatal(err)
	}
	check("reprioritize")
	if err := s.ResetTopic(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	check("reset")
	if st, _ := s.FrontierStats(ctx, "b"); st != (store.FrontierStats{Queued: 30}) {
		t.Errorf("topic b after topic a's writes = %+v, want 30 queued", st)
	}
}

// TestFrontierCountsMigration: a database whose frontier was written before
// migration 6 gets its counts from the rows when it is opened, and its
// fences (migration 7) a raise time that keeps them.
func TestFrontierCountsMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	// Back to schema 5: no counts table, no triggers, fences without their
	// raise time, and one fence raised then.
	for _, q := range []string{`DROP TRIGGER frontier_counts_insert`, `DROP TRIGGER frontier_counts_update`,
		`DROP TRIGGER frontier_counts_delete`, `DROP TABLE frontier_counts`, `ALTER TABLE fences DROP COLUMN raised_at`,
		`ALTER TABLE refresh_state DROP COLUMN failures`, `DROP INDEX hosts_held`, `ALTER TABLE hosts DROP COLUMN held_until`, `ALTER TABLE pages DROP COLUMN robots_tag`, `DROP TABLE refresh_given_up`, `ALTER TABLE crawls DROP COLUMN link_model_version`, `ALTER TABLE crawls DROP COLUMN rank_version`, `ALTER TABLE refresh_state DROP COLUMN dropped`,
		`ALTER TABLE refresh_state DROP COLUMN unreachable`, `ALTER TABLE refresh_state DROP COLUMN unreachable_since`,
		`DROP TRIGGER refresh_state_due_insert`, `DROP TRIGGER refresh_state_due_update`, `DROP TRIGGER refresh_state_due_delete`,
		`DROP INDEX pages_refresh_revisited`, `DROP INDEX pages_refresh_fresh`, `DROP INDEX pages_refresh_hubs`,
		`ALTER TABLE pages DROP COLUMN refresh_next_at`, `DROP INDEX pages_text_hash`, `ALTER TABLE pages DROP COLUMN text_hash`,
		`DROP TRIGGER topic_docs_gone`, `DROP TRIGGER topic_docs_new_gen`, `DROP TABLE term_sample_gens`,
		`ALTER TABLE topic_docs DROP COLUMN sample`, `ALTER TABLE topic_docs DROP COLUMN gen`,
		`INSERT INTO fences (topic, name, token) VALUES ('a', 'old-slice', 7)`, `DELETE FROM schema_version WHERE version >= 6`} {
		if _, err := s.wdb.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := s.Enqueue(t.Context(), countEntries("a", 12), store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimBatch(t.Context(), store.ClaimRequest{Topic: "a", CrawlID: "c", BatchID: "b1", Max: 5, Lease: time.Hour, Now: time.Unix(1_000, 0)}); err != nil {
		t.Fatal(err)
	}
	// Migration 19's column goes last: this release's Enqueue reads it.
	if _, err := s.wdb.Exec(`ALTER TABLE frontier DROP COLUMN sink`); err != nil {
		t.Fatal(err)
	}
	want := rowCounts(t, s, "a")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if got, err := s.FrontierStats(t.Context(), "a"); err != nil || got != want || want.Queued == 0 || want.Claimed == 0 {
		t.Errorf("FrontierStats after migration = %+v, %v; rows say %+v", got, err, want)
	}
	// Migration 7: a fence from before it counts as raised at the migration,
	// so a prune of older fences keeps it, and it still holds.
	if n, err := s.PruneFences(t.Context(), "a", time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Errorf("PruneFences(an hour ago) after migration = %d, %v; want 0", n, err)
	}
	if err := s.RaiseFence(t.Context(), "a", store.Fence{Name: "old-slice", Token: 1}); !errors.Is(err, store.ErrFenced) {
		t.Errorf("RaiseFence below the migrated fence's token: %v, want ErrFenced", err)
	}
}

// TestPruneKeepsUnstampedFences: a fence with no raise time — written by a
// worker of the release before migration 7 while a rolling upgrade runs —
// is kept by PruneFences, which cannot tell its age.
func TestPruneKeepsUnstampedFences(t *testing.T) {
	s := openTemp(t)
	if _, err := s.wdb.Exec(`INSERT INTO fences (topic, name, token, raised_at) VALUES ('go', 'old-release', 9, 0)`); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PruneFences(t.Context(), "go", time.Now().Add(time.Hour)); err != nil || n != 0 {
		t.Errorf("PruneFences = %d, %v; want the unstamped fence kept", n, err)
	}
	if err := s.RaiseFence(t.Context(), "go", store.Fence{Name: "old-release", Token: 1}); !errors.Is(err, store.ErrFenced) {
		t.Errorf("RaiseFence below the kept fence: %v; want ErrFenced", err)
	}
}

// termCountsJSON decodes as json.Marshal's encoding of the same map does,
// invalid UTF-8 included.
func TestTermCountsJSON(t *testing.T) {
	for _, df := range []map[string]int{
		{},
		{"go": 1},
		{`"q"`: 2, `a\b`: 3, "\x00\x1f\t\n": 4, "\u2028\u2029": 5, "中文": 6, "😀": 7, "<&>": 8, "\xff\xfeok\xc3": 9, "é\xe4\xb8": 10},
	} {
		want, err := json.Marshal(df)
		if err != nil {
			t.Fatal(err)
		}
		var got, wantMap map[string]int
		if err := json.Unmarshal([]byte(termCountsJSON(df)), &got); err != nil {
			t.Fatalf("termCountsJSON(%v) = %s: %v", df, termCountsJSON(df), err)
		}
		if err := json.Unmarshal(want, &wantMap); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantMap) {
			t.Errorf("termCountsJSON(%v) decodes to %v; json.Marshal's to %v", df, got, wantMap)
		}
	}
}

// TestSharedFinalHashesPlan: SharedFinalHashes reads the topic's pages in
// the order of the pages_final_hash index, one group at a time, and not
// through pages_decision with a temporary B-tree of every accepted page's
// final hash (a reindex of a large topic asks it once per attempt).
func TestSharedFinalHashesPlan(t *testing.T) {
	s := openTemp(t)
	got := queryPlan(t, s, sqlshared.SharedFinalHashesQuery, "go", store.DecisionAccepted)
	if !strings.Contains(got, "USING INDEX pages_final_hash (topic=?)") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("query plan %q; want a search of pages_final_hash by topic, no temporary B-tree", got)
	}
}

// queryPlan is SQLite's plan of query with args, its steps "; "-joined.
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.rdb.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}

// TestDryExpandPlans: the queries of a crawl whose frontier ran dry read
// the crawl's pages through the existing index pages_crawl_seq — no scan
// of the table, no index of their own (one on pages would cost every page
// write for a query run a few times a crawl).
func TestDryExpandPlans(t *testing.T) {
	s := openTemp(t)
	for _, q := range []store.BestPagesQuery{
		{CrawlID: "c", Decision: store.DecisionRejected, MinDepth: 1, Limit: 8},
		{CrawlID: "c", Decision: store.DecisionAccepted, MaxDepth: 3, ReasonHas: "a", ReasonLacks: []string{"b", "c"}, Limit: 8, AfterRelevance: 0.5, AfterHash: "h"},
	} {
		query, args := sqlshared.BestPagesSQL(q)
		if got := queryPlan(t, s, query, args...); !strings.Contains(got, "USING INDEX pages_crawl_seq (crawl_id=?)") {
			t.Errorf("BestPages(%+v): plan %q; want a search of pages_crawl_seq by crawl", q, got)
		}
	}
	if got := queryPlan(t, s, sqlshared.DryExpandedQuery, "c", "%x%"); !strings.Contains(got, "USING INDEX pages_crawl_seq (crawl_id=?)") {
		t.Errorf("DryExpanded plan %q; want a search of pages_crawl_seq by crawl", got)
	}
}

// SQLite says only "unable to open database file (14)" for a path it
// cannot open; Open says what is wrong with it.
func TestOpenErrorNamesTheCause(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), dir+" is a directory, not a database file") {
		t.Fatalf("Open(a directory) = %v; want it named a directory", err)
	}
	bare := errors.New("unable to open database file: out of memory (14)")
	err = openError(filepath.Join(dir, "crawl.db"), bare)
	if !errors.Is(err, bare) || !strings.Contains(err.Error(), "must be able to write the file and its directory "+dir) ||
		!strings.Contains(err.Error(), "crawl.db-wal") {
		t.Errorf("openError(cannot open) = %v; want the directory and the -wal file named, the cause kept", err)
	}
	if other := errors.New("disk I/O error"); openError("x.db", other) != other {
		t.Errorf("openError(other error) changed it")
	}
}
