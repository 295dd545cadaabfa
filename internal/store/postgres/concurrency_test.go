package postgres

// Regression tests of the store's behaviour under concurrent transactions:
// each stages an interleaving with a transaction of its own and waits for
// the store's call to block on it (pg_blocking_pids), so the order of events
// is fixed, not left to timing.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres/pgtest"
	"focuscrawl/internal/urlnorm"
)

// waitBlockedBy waits until some backend is blocked by the backend pid (a
// lock it holds), failing t if done delivers first or 30 s pass.
func waitBlockedBy[T any](t *testing.T, s *Store, pid int, done <-chan T) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		var waiting bool
		if err := s.pool.QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)))`,
			pid).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		select {
		case r := <-done:
			t.Fatalf("finished (%v) before it waited for pid %d", r, pid)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing ever waited for pid %d", pid)
		}
	}
}

func backendPID(t *testing.T, tx pgx.Tx) int {
	t.Helper()
	var pid int
	if err := tx.QueryRow(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestClaimRefreshChoosesAgainWhenItsChoiceIsTaken: refresh batch r1's claim of two
// pages ran out (lease and retry delay); a third page, never revisited, is
// due too. A claim of r2 for Max 2 chooses r1's two pages (next_at 0 sorts
// first), and r1 — a slow batch still running — renews its lease while the
// claim waits for their rows. The DO UPDATE's re-check (rightly) leaves
// them to r1; the claim must then choose again and take the third page,
// not answer 0 while it is due: RefreshWorkflow ends its run at a claim of
// 0 (workflows/refresh.go "if n == 0 { break }"). (It answered 0.)
func TestClaimRefreshChoosesAgainWhenItsChoiceIsTaken(t *testing.T) {
	dsn, schema := pgtest.Schema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	topic := "refresh-again-" + schema // advisory locks are server-wide
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	const day = 24 * time.Hour
	var hashes []string
	for i := range 3 {
		u := fmt.Sprintf("https://r.test/%d", i)
		p := store.Page{Topic: topic, URLHash: urlnorm.Hash(u), URL: u, FinalURL: u, FinalHash: urlnorm.Hash(u),
			CrawlID: "c", Status: 200, FetchedAt: t0}
		if i == 2 {
			p.FetchedAt = t0.Add(time.Hour) // due after the other two: not in r1's claim
		}
		if _, _, err := s.SavePage(ctx, p, []byte("body")); err != nil {
			t.Fatal(err)
		}
		if err := s.SetDecision(ctx, topic, p.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, p.URLHash)
	}
	req := store.RefreshClaim{Topic: topic, BatchID: "r1", Max: 2, Now: t0.Add(day), NewPageDelay: day,
		Lease: time.Hour, RetryDelay: time.Hour}
	if n, err := s.ClaimRefresh(ctx, req); err != nil || n != 2 {
		t.Fatalf("ClaimRefresh(r1) = %d, %v; want 2", n, err)
	}
	// r1's lease ended at day+1h, its retry delay at day+2h; page 2 is due since day+1h.
	req.BatchID, req.Now = "r2", t0.Add(day+3*time.Hour)
	if n, err := s.RefreshDue(ctx, req); err != nil || n != 3 {
		t.Fatalf("RefreshDue = %d, %v; want 3", n, err)
	}

	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck
	pid := backendPID(t, tx)
	// r1 renews its claim (RenewRefresh's statement, in a transaction that
	// commits while r2's claim waits).
	if _, err := tx.Exec(ctx, rebind(`UPDATE refresh_state SET lease_until = ? WHERE topic = ? AND batch_id = ? AND lease_until < ?`),
		t0.Add(day+4*time.Hour).UnixNano(), topic, "r1", t0.Add(day+4*time.Hour).UnixNano()); err != nil {
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
	waitBlockedBy(t, s, pid, done)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	due, _ := s.RefreshDue(ctx, req)
	if r.err != nil || r.n != 1 {
		t.Errorf("ClaimRefresh(r2, Max 2) = %d, %v while %d page(s) were due and free; want 1 (page 2): a claim of 0 ends the refresh run",
			r.n, r.err, due)
	}
	for i, want := range []string{"r1", "r1", "r2"} {
		if ri, _ := s.RefreshInfo(ctx, topic, hashes[i]); ri.BatchID != want {
			t.Errorf("page %d after r2's claim: batch %q; want %s", i, ri.BatchID, want)
		}
	}
}

// blockedOn returns the backend that waits for a lock the backend pid holds,
// waiting for one as waitBlockedBy does.
func blockedOn[T any](t *testing.T, s *Store, pid int, done <-chan T) int {
	t.Helper()
	waitBlockedBy(t, s, pid, done)
	var waiter int
	if err := s.pool.QueryRow(t.Context(), `SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) LIMIT 1`,
		pid).Scan(&waiter); err != nil {
		t.Fatal(err)
	}
	return waiter
}

// TestResetTopicKeepsCountsOfConcurrentEnqueue: ResetTopic deletes the
// frontier and then, in a later statement with a later snapshot, the
// topic's frontier_counts rows. An Enqueue that committed between the two
// kept its entries (the frontier DELETE's snapshot predated them) but lost
// its count delta (the frontier_counts DELETE saw it): FrontierStats then
// read 0 queued with 3 entries queued, and a negative queue once they were
// claimed (a worker of an earlier crawl still writing while a --fresh crawl
// resets the topic is such an Enqueue). The Enqueue must wait for the reset
// (the topic's writers' lock) and then count what it adds.
func TestResetTopicKeepsCountsOfConcurrentEnqueue(t *testing.T) {
	dsn, schema := pgtest.Schema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	topic := "reset-counts-" + schema // advisory locks are server-wide
	old := store.FrontierEntry{Topic: topic, URL: "https://old.test/1", Priority: 1}
	if _, err := s.Enqueue(ctx, []store.FrontierEntry{old}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	// Something holds the old entry's row (a claim in flight, say), so the
	// reset's DELETE FROM frontier waits after its snapshot was taken.
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck
	pid := backendPID(t, tx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM frontier WHERE topic = $1 FOR UPDATE`, topic); err != nil {
		t.Fatal(err)
	}
	resetDone := make(chan error, 1)
	go func() { resetDone <- s.ResetTopic(ctx, topic) }()
	reset := blockedOn(t, s, pid, resetDone)
	// Meanwhile another worker enqueues new URLs: it waits for the reset.
	var es []store.FrontierEntry
	for i := range 3 {
		es = append(es, store.FrontierEntry{Topic: topic, URL: fmt.Sprintf("https://new.test/%d", i), Priority: 1})
	}
	enqDone := make(chan error, 1)
	go func() {
		n, err := s.Enqueue(ctx, es, store.EnqueueOptions{})
		if err == nil && n != 3 {
			err = fmt.Errorf("Enqueue = %d; want 3", n)
		}
		enqDone <- err
	}()
	waitBlockedBy(t, s, reset, enqDone)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-resetDone; err != nil {
		t.Fatalf("ResetTopic: %v", err)
	}
	if err := <-enqDone; err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	var rows int
	if err := s.pool.QueryRow(ctx, `SELECT COUNT(*) FROM frontier WHERE topic = $1 AND state = 'queued'`, topic).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	st, err := s.FrontierStats(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 3 || st.Queued != rows {
		t.Errorf("after the reset: FrontierStats.Queued = %d, %d entries queued; want 3 and 3", st.Queued, rows)
	}
	if _, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: topic, BatchID: "b1", Max: 10}); err != nil {
		t.Fatal(err)
	}
	if st, err := s.FrontierStats(ctx, topic); err != nil || st.Queued != 0 || st.Claimed != 3 {
		t.Errorf("after claiming them: FrontierStats = %+v, %v; want 0 queued, 3 claimed", st, err)
	}
}

// TestTopicWritersWaitForReset: every write that adds rows of a topic
// takes the topic's writers' lock (topicKey) shared before anything else,
// so a ResetTopic (which holds it exclusive) never runs between its
// statements; a WriteGroup mid-reset kept its pages while its links and
// term counts were deleted. Each writer here must wait for a transaction
// that holds the lock as ResetTopic does, and succeed once it ends.
func TestTopicWritersWaitForReset(t *testing.T) {
	dsn, schema := pgtest.Schema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	topic := "reset-writers-" + schema
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	pg := func(i int) store.Page {
		u := fmt.Sprintf("https://w.test/%d", i)
		return store.Page{Topic: topic, URLHash: urlnorm.Hash(u), URL: u, FinalURL: u, FinalHash: urlnorm.Hash(u),
			CrawlID: "c", Status: 200, FetchedAt: t0}
	}
	base := pg(0)
	if _, _, err := s.SavePage(ctx, base, []byte("body")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDecision(ctx, topic, base.URLHash, store.Decision{Decision: store.DecisionAccepted, Relevance: 0.5}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		name string
		call func() error
	}{
		{"Enqueue", func() error {
			_, err := s.Enqueue(ctx, []store.FrontierEntry{{Topic: topic, URL: "https://w.test/e", Priority: 1}}, store.EnqueueOptions{})
			return err
		}},
		{"WriteGroup", func() error {
			_, err := s.WriteGroup(ctx, store.GroupWrite{Topic: topic, Pages: []store.PageBody{{Page: pg(1), Body: []byte("b")}},
				Links: []store.Link{{Src: pg(1).URLHash, Dst: base.URLHash, DstURL: base.URL}}})
			return err
		}},
		{"AddLinks", func() error {
			return s.AddLinks(ctx, topic, []store.Link{{Src: base.URLHash, Dst: pg(1).URLHash, DstURL: pg(1).URL}})
		}},
		{"SavePage", func() error { _, _, err := s.SavePage(ctx, pg(2), []byte("b")); return err }},
		{"SaveParse", func() error { return s.SaveParse(ctx, topic, base.URLHash, []byte("p"), "t", "en", []string{"go"}) }},
		{"ReplacePage", func() error { return s.ReplacePage(ctx, pg(2), []byte("new")) }},
		{"ReleaseCopies", func() error {
			_, err := s.ReleaseCopies(ctx, topic, base.URLHash, base.FinalHash, "", "", t0)
			return err
		}},
		{"PutModel", func() error { _, err := s.PutModel(ctx, topic, "link", []byte("m")); return err }},
		{"RaiseFence", func() error { return s.RaiseFence(ctx, topic, store.Fence{Name: "f", Token: 1}) }},
		{"ClaimRefresh", func() error {
			_, err := s.ClaimRefresh(ctx, store.RefreshClaim{Topic: topic, BatchID: "r1", Max: 1, Now: t0.Add(48 * time.Hour),
				NewPageDelay: time.Hour, Lease: time.Hour})
			return err
		}},
	} {
		t.Run(w.name, func(t *testing.T) {
			tx, err := s.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(context.Background()) //nolint:errcheck
			pid := backendPID(t, tx)
			if err := lock(ctx, tx, topicKey(topic)); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- w.call() }()
			waitBlockedBy(t, s, pid, done)
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Errorf("%s after the lock was released: %v", w.name, err)
			}
		})
	}
}

// TestEnqueueLeavesUnchangedEntriesUnlocked: a WriteGroup (or Enqueue) that
// merely mentions a URL the frontier already has — a link to the site's
// best queued page, found on every page — ran INSERT ... ON CONFLICT DO
// UPDATE ... WHERE f.state = 'queued' AND f.priority < excluded.priority,
// and PostgreSQL locks the conflicting row before it evaluates that WHERE:
// the row stayed locked to the end of the group's transaction although
// nothing changed, and every ClaimBatch meanwhile skipped it (FOR UPDATE
// SKIP LOCKED) and handed out a worse entry. Only a raised entry may be
// locked.
func TestEnqueueLeavesUnchangedEntriesUnlocked(t *testing.T) {
	dsn, schema := pgtest.Schema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	topic := "enqueue-unlocked-" + schema
	best := store.FrontierEntry{Topic: topic, URL: "https://a.test/best", Priority: 9}
	worse := store.FrontierEntry{Topic: topic, URL: "https://b.test/worse", Priority: 1}
	raised := store.FrontierEntry{Topic: topic, URL: "https://c.test/raised", Priority: 0.1}
	if _, err := s.Enqueue(ctx, []store.FrontierEntry{best, worse, raised}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	// A group in flight: its entries link to best, scored lower (no change
	// to make), and to raised, scored higher. enqueueTx is what WriteGroup runs.
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck
	link, up := best, raised
	link.Priority, up.Priority = 0.5, 0.2
	es, err := mergeEntries([]store.FrontierEntry{link, up})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := enqueueTx(ctx, tx, es, store.EnqueueOptions{}, entryKeys{}); err != nil || n != 0 {
		t.Fatalf("enqueueTx = %d, %v; want 0 (known)", n, err)
	}
	lockedRow := func(url string) bool {
		t.Helper()
		var locked bool
		if err := s.pool.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM frontier WHERE topic = $1 AND url_hash = $2 FOR UPDATE SKIP LOCKED)`,
			topic, urlnorm.Hash(url)).Scan(&locked); err != nil {
			t.Fatal(err)
		}
		return locked
	}
	if lockedRow(best.URL) {
		t.Error("the best entry's row is locked by an enqueue that did not change it")
	}
	if !lockedRow(raised.URL) {
		t.Error("the raised entry's row is not locked by the enqueue that changed it")
	}
	b, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: topic, BatchID: "b1", Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.BatchEntries(ctx, topic, "b1")
	if b.Size != 1 || len(got) != 1 || got[0].URL != best.URL {
		var urls []string
		for _, e := range got {
			urls = append(urls, fmt.Sprintf("%s (%.1f)", e.URL, e.Priority))
		}
		t.Errorf("ClaimBatch(Max 1) while a group links to the best entry = %v; want %s (priority 9), the best queued entry", urls, best.URL)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	b, err = s.ClaimBatch(ctx, store.ClaimRequest{Topic: topic, BatchID: "b2", Max: 1})
	if got, _ := s.BatchEntries(ctx, topic, "b2"); err != nil || b.Size != 1 || got[0].URL != worse.URL {
		t.Errorf("second claim = %+v, %v; want %s", got, err, worse.URL)
	}
	b, err = s.ClaimBatch(ctx, store.ClaimRequest{Topic: topic, BatchID: "b3", Max: 1})
	if got, _ := s.BatchEntries(ctx, topic, "b3"); err != nil || b.Size != 1 || got[0].Priority != 0.2 {
		t.Errorf("third claim = %+v, %v; want %s raised to 0.2", got, err, raised.URL)
	}
}

// TestMutualLinksDoNotWait: two processing groups in flight at once whose
// pages link to each other — A's group enqueues B's URL and completes A's
// entry, B's group enqueues A's URL and completes B's entry — locked the
// two frontier rows in opposite orders (the upsert's ON CONFLICT locked the
// known, claimed row although it changed nothing, and completion locked the
// group's own entry after it): a deadlock, a second's deadlock_timeout and
// a rerun for 1 to 5 of 20 such pairs. The groups' statements are run here
// step by step, interleaved, with a lock timeout: neither may wait on the
// other.
func TestMutualLinksDoNotWait(t *testing.T) {
	dsn, schema := pgtest.Schema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	topic := "mutual-" + schema
	a := store.FrontierEntry{Topic: topic, URL: "https://m.test/a", Priority: 1}
	b := store.FrontierEntry{Topic: topic, URL: "https://m.test/b", Priority: 1}
	if _, err := s.Enqueue(ctx, []store.FrontierEntry{a, b}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	if bt, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: topic, BatchID: "all", Max: 2}); err != nil || bt.Size != 2 {
		t.Fatalf("claim: %+v, %v", bt, err)
	}
	begin := func() pgx.Tx {
		t.Helper()
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tx.Rollback(context.Background()) }) //nolint:errcheck
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '5s'`); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	link := func(tx pgx.Tx, to store.FrontierEntry) {
		t.Helper()
		to.Priority = 0.5
		es, err := mergeEntries([]store.FrontierEntry{to})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := enqueueTx(ctx, tx, es, store.EnqueueOptions{}, entryKeys{}); err != nil {
			t.Fatalf("enqueue a link to %s: %v", to.URL, err)
		}
	}
	txA, txB := begin(), begin()
	link(txA, b)
	link(txB, a)
	if err := completeEntries(ctx, txA.Exec, topic, []string{urlnorm.Hash(a.URL)}); err != nil {
		t.Fatalf("A's group completing A after B's group linked to it: %v", err)
	}
	if err := completeEntries(ctx, txB.Exec, topic, []string{urlnorm.Hash(b.URL)}); err != nil {
		t.Fatalf("B's group completing B after A's group linked to it: %v", err)
	}
	for _, tx := range []pgx.Tx{txA, txB} {
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := s.FrontierStats(ctx, topic); err != nil || st.Done != 2 {
		t.Errorf("FrontierStats = %+v, %v; want both entries done", st, err)
	}
}

// TestMultiRowUpdatesRetriedAfterDeadlock: MarkIndexed, UnmarkIndexed and
// CompleteEntries ran their multi-row UPDATE with s.pool.Exec, not
// execRetry, although such statements can deadlock with other workers'
// writes that take the same rows in another order, and a deadlock reached
// the caller as an error. Here another transaction holds the later row
// and, once the call holds the earlier one and waits, asks for the earlier
// one: whichever the deadlock detector aborts, the call must succeed.
func TestMultiRowUpdatesRetriedAfterDeadlock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table string // the rows the call updates
		call  func(s *Store, ctx context.Context, topic string, hashes []string) error
	}{
		{"MarkIndexed", "pages", func(s *Store, ctx context.Context, topic string, hashes []string) error {
			return s.MarkIndexed(ctx, topic, hashes)
		}},
		{"UnmarkIndexed", "pages", func(s *Store, ctx context.Context, topic string, hashes []string) error {
			return s.UnmarkIndexed(ctx, topic, hashes)
		}},
		{"SetScores", "pages", func(s *Store, ctx context.Context, topic string, hashes []string) error {
			return s.SetScores(ctx, topic, map[string][3]float64{hashes[0]: {1, 1, 1}, hashes[1]: {1, 1, 1}})
		}},
		{"CompleteEntries", "frontier", func(s *Store, ctx context.Context, topic string, hashes []string) error {
			return s.CompleteEntries(ctx, topic, hashes)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn, schema := pgtest.Schema(t)
			s := openDSN(t, dsn)
			ctx := t.Context()
			topic := "retry-" + schema
			var hashes []string
			for i := range 2 {
				u := fmt.Sprintf("https://d.test/%d", i)
				p := store.Page{Topic: topic, URLHash: urlnorm.Hash(u), URL: u, CrawlID: "c", Status: 200}
				if _, _, err := s.SavePage(ctx, p, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Enqueue(ctx, []store.FrontierEntry{{Topic: topic, URL: u, Priority: 1}}, store.EnqueueOptions{}); err != nil {
					t.Fatal(err)
				}
				hashes = append(hashes, p.URLHash)
			}
			if hashes[0] > hashes[1] {
				hashes[0], hashes[1] = hashes[1], hashes[0]
			}
			// Another worker's transaction updates the rows one by one, the
			// later hash first.
			upd := `UPDATE ` + tc.table + ` SET url = url WHERE topic = $1 AND url_hash = $2`
			tx, err := s.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(context.Background()) //nolint:errcheck
			pid := backendPID(t, tx)
			if _, err := tx.Exec(ctx, upd, topic, hashes[1]); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- tc.call(s, ctx, topic, hashes) }()
			waitBlockedBy(t, s, pid, done) // it holds hashes[0] and waits for hashes[1]
			// The other transaction now wants hashes[0]: a cycle. Whoever the
			// deadlock detector aborts, the other goes on.
			_, txErr := tx.Exec(ctx, upd, topic, hashes[0])
			if txErr == nil {
				_ = tx.Commit(ctx)
			} else {
				_ = tx.Rollback(ctx)
			}
			err = <-done
			t.Logf("other transaction: %v", txErr)
			if err != nil {
				t.Errorf("%s: %v; want it rerun after the deadlock, as execRetry does", tc.name, err)
			}
		})
	}
}
