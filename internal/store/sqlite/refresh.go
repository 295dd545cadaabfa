package sqlite

import (
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// schemaRefreshSQL is migration 3: refresh bookkeeping.
//
//go:embed schema_refresh.sql
var schemaRefreshSQL string

// refreshPages selects the topic's pages that a refresh claim may take at
// some time, with their bookkeeping, given (in order) topic, topic, minHub,
// minHub: accepted pages, pages a refresh replaced and never judged, hubs,
// pages a refresh found dropped and checks again (store.RefreshInfo.Dropped)
// or judged not accepted in a batch that failed before recording it.
var refreshPages = `FROM pages LEFT JOIN (SELECT url_hash AS rh, next_at, batch_id AS rb, lease_until, failures, dropped
		FROM refresh_state WHERE topic = ?) ON url_hash = rh
	WHERE topic = ? AND (decision = 'accepted' OR (decision = '' AND rh IS NOT NULL)
		OR (? > 0 AND hub >= ? AND decision IN ('rejected', 'tunnel'))
		OR ((COALESCE(dropped, 0) > 0 OR COALESCE(rb, '') <> '') AND decision IN ('error', 'rejected', 'tunnel')))`

// refreshRetryAt is when a page whose claim runs out without an outcome is
// claimable again (sqlshared.RefreshRetry), given retry delay ns and retry
// ceiling ns.
var refreshRetryAt = `lease_until + MIN(? << MIN(failures, ` + strconv.Itoa(sqlshared.MaxRetryShift) + `), ?)`

// refreshEligible selects those of refreshPages that a claim may take now,
// given (after refreshPages') newPageDelay ns, now, retry delay ns, retry
// ceiling ns, now (a claim's DueBy when set: sqlshared.RefreshDueAt). A page without a refresh_state row is due newPageDelay
// after its fetch; a page whose claim ran out without an outcome waits for
// its retry delay after that.
var refreshEligible = refreshPages + `
	AND COALESCE(next_at, fetched_at + ?) BETWEEN 0 AND ?
	AND (COALESCE(rb, '') = '' OR ` + refreshRetryAt + ` < ?)`

func eligibleArgs(r store.RefreshClaim) []any {
	now := toNanos(sqlshared.RefreshDueAt(r))
	retry, ceiling := sqlshared.RefreshRetry(r)
	return []any{r.Topic, r.Topic, r.MinHub, r.MinHub, int64(r.NewPageDelay), now, retry, ceiling, now}
}

// eligible is refreshEligible with its arguments (sqlshared.Reader.RefreshEligible).
func eligible(r store.RefreshClaim) (string, []any) { return refreshEligible, eligibleArgs(r) }

// refreshOutlook is the query of store.Refreshes.RefreshOutlook: one pass
// over refreshPages that counts them (gone ones, next_at -1, left out),
// counts those refreshEligible would take (the same conditions) and takes
// the earliest time a claim could take one.
var refreshOutlook = `SELECT COUNT(*), COALESCE(SUM(due <= ? AND (rb = '' OR retry_at < ?)), 0),
		MIN(CASE WHEN rb = '' THEN due ELSE MAX(due, retry_at) END)
	FROM (SELECT COALESCE(next_at, fetched_at + ?) AS due, COALESCE(rb, '') AS rb, ` + refreshRetryAt + ` AS retry_at
		` + refreshPages + `)
	WHERE due >= 0`

// outlook is refreshOutlook with its arguments (sqlshared.Methods.RefreshOutlookQuery).
func outlook(r store.RefreshClaim) (string, []any) {
	now := toNanos(r.Now)
	retry, ceiling := sqlshared.RefreshRetry(r)
	return refreshOutlook, []any{now, now, int64(r.NewPageDelay), retry, ceiling, r.Topic, r.Topic, r.MinHub, r.MinHub}
}

// ClaimRefresh leases due pages to a refresh batch (see store.Refreshes).
//
// Choosing the pages walks the due pages in claim order through indexes
// and stops after enough (sqlshared.RefreshChoiceQuery); it read every
// refreshable page of the topic (about 0.2 s at 200,000 pages,
// BenchmarkClaimRefresh). It is done on a read connection, outside the
// write lock, which every crawl's writers share — a refresh of a large
// topic held it that long at every claim before. The choice
// takes a few times more pages than the claim needs, in claim order; the
// write transaction then leases the first of them that are still eligible
// (one index lookup each), so claims made at once (overlapping refreshes of
// a topic) mostly fill their batches from the same choice. A claim that
// finds every chosen page taken chooses again; after a few such rounds it
// chooses inside the write transaction, as before, so it answers 0 only
// when nothing is due (testRefreshConcurrentClaims).
func (s *Store) ClaimRefresh(ctx context.Context, req store.RefreshClaim) (int, error) {
	req, err := sqlshared.RefreshClaimDefaults(req)
	if err != nil {
		return 0, fmt.Errorf("store/sqlite: %w", err)
	}
	what := fmt.Sprintf("claim refresh batch %q of topic %q", req.BatchID, req.Topic)
	const readChoices, spare = 3, 4
	for try := 1; ; try++ {
		n, err := s.claimedRefresh(ctx, s.rdb, req)
		if err != nil {
			return 0, fmt.Errorf("store/sqlite: %s: %w", what, err)
		}
		if n > 0 || req.Max <= 0 {
			return n, nil
		}
		var chosen []string // nil: choose in the write transaction
		if try <= readChoices {
			if chosen, err = s.dueForRefresh(ctx, s.rdb, req, spare*req.Max); err != nil {
				return 0, fmt.Errorf("store/sqlite: %s: %w", what, err)
			}
			if len(chosen) == 0 {
				return 0, nil
			}
		}
		taken := 0
		err = s.write(ctx, what, func(tx *wtx) error {
			taken = 0
			if n, err := s.claimedRefresh(ctx, tx, req); err != nil || n > 0 {
				taken = n // the same claim again, made meanwhile
				return err
			}
			lease, err := s.stillDue(ctx, tx, req, chosen)
			if err != nil {
				return err
			}
			up, err := tx.PrepareContext(ctx, `INSERT INTO refresh_state (topic, url_hash, batch_id, lease_until)
				VALUES (?, ?, ?, ?) ON CONFLICT (topic, url_hash)
				DO UPDATE SET batch_id = excluded.batch_id, lease_until = excluded.lease_until,
					failures = refresh_state.failures + CASE WHEN refresh_state.batch_id <> '' THEN 1 ELSE 0 END`)
			if err != nil {
				return err
			}
			defer up.Close()
			until := toNanos(req.Now.Add(req.Lease))
			for _, h := range lease {
				if _, err := up.ExecContext(ctx, req.Topic, h, req.BatchID, until); err != nil {
					return fmt.Errorf("claim %s: %w", h, err)
				}
			}
			taken = len(lease)
			return nil
		})
		// Nothing leased from a choice: other claims took every chosen
		// page meanwhile (their progress), so choose again.
		if err != nil || taken > 0 || chosen == nil {
			return taken, err
		}
	}
}

// stillDue returns, in the order given, the first req.Max of chosen that a
// claim may still take; with chosen nil it chooses them (dueForRefresh in
// the transaction).
func (s *Store) stillDue(ctx context.Context, tx *wtx, req store.RefreshClaim, chosen []string) ([]string, error) {
	if chosen == nil {
		return s.dueForRefresh(ctx, tx, req, req.Max)
	}
	list, err := json.Marshal(chosen)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT url_hash `+refreshEligible+` AND url_hash IN (SELECT value FROM json_each(?))`,
		append(eligibleArgs(req), string(list))...)
	free, err := collect(rows, err, scanHash)
	if err != nil {
		return nil, err
	}
	ok := make(map[string]bool, len(free))
	for _, h := range free {
		ok[h] = true
	}
	var lease []string
	for _, h := range chosen {
		if ok[h] && len(lease) < req.Max {
			lease = append(lease, h)
		}
	}
	return lease, nil
}

// querier is what claimedRefresh reads through: the read pool or a write
// transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// claimedRefresh counts the pages claim req already holds (a claim made
// again returns them, not new ones; one whose pages were all released is
// claimed afresh: sqlshared.RefreshClaimedQuery).
func (s *Store) claimedRefresh(ctx context.Context, q querier, req store.RefreshClaim) (int, error) {
	n := 0
	err := q.QueryRowContext(ctx, sqlshared.RefreshClaimedQuery, req.Topic, req.BatchID).Scan(&n)
	return n, err
}

// refreshChoice is sqlshared.RefreshChoiceQuery in SQLite's dialect.
var refreshChoice = sqlshared.RefreshChoiceQuery("MIN")

// dueForRefresh chooses, through q (the read pool or the write
// transaction), up to limit pages a claim takes, in claim order: the
// earliest due, then the most relevant. It walks the due pages' indexes
// and stops after limit eligible ones (sqlshared.RefreshChoiceQuery).
func (s *Store) dueForRefresh(ctx context.Context, q rowsQuerier, req store.RefreshClaim, limit int) ([]string, error) {
	rows, err := q.QueryContext(ctx, refreshChoice, sqlshared.RefreshChoiceArgs(req, limit)...)
	return collect(rows, err, scanHash)
}

// rowsQuerier is what dueForRefresh reads through.
type rowsQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// scanHash scans a row of one URL hash.
func scanHash(sc sqlshared.Scanner) (string, error) {
	var h string
	return h, sc.Scan(&h)
}

// RefreshBatch returns the pages a refresh claim still holds in URL hash
// order (see store.Refreshes): not those ReleaseRefresh released.
func (s *Store) RefreshBatch(ctx context.Context, topic, batchID string) ([]store.RefreshItem, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+sqlshared.PageColumns+`, next_at, interval_ns, checks, changes, rb, dropped, failures,
			unreachable, unreachable_since
		FROM pages JOIN (SELECT url_hash AS rh, next_at, interval_ns, checks, changes, batch_id AS rb, dropped, failures,
				unreachable, unreachable_since
			FROM refresh_state WHERE topic = ? AND batch_id = ? AND lease_until > 0) ON url_hash = rh
		WHERE topic = ? ORDER BY url_hash`, topic, batchID, topic)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: refresh batch %q of topic %q: %w", batchID, topic, err)
	}
	out, err := collect(rows, err, sqlshared.ScanRefreshItem)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: refresh batch %q of topic %q: %w", batchID, topic, err)
	}
	return out, nil
}

// UnmarkIndexed clears the index flag of pages; unknown hashes are skipped.
func (s *Store) UnmarkIndexed(ctx context.Context, topic string, urlHashes []string) error {
	return s.setIndexed(ctx, topic, urlHashes, false)
}

// MakeRefreshDue makes the pages a refresh may take due by req's DueBy
// (see store.Refreshes): pages never revisited and not due yet get a row
// due then, revisited ones due later are moved to it. It runs in one write
// transaction over the topic's refreshable pages (several seconds at
// 200,000 pages, BenchmarkMakeRefreshDue, which other writers wait for:
// each row written also updates its page's refresh_next_at, by trigger):
// an operator's rare command.
func (s *Store) MakeRefreshDue(ctx context.Context, req store.RefreshClaim) (int, error) {
	n := 0
	by := toNanos(sqlshared.RefreshDueAt(req))
	err := s.write(ctx, fmt.Sprintf("make the pages of topic %q due for a refresh", req.Topic), func(tx *wtx) error {
		n = 0
		ins, err := tx.ExecContext(ctx, `INSERT INTO refresh_state (topic, url_hash, next_at)
			SELECT pages.topic, url_hash, ? `+refreshPages+` AND rh IS NULL AND fetched_at + ? > ?`,
			by, req.Topic, req.Topic, req.MinHub, req.MinHub, int64(req.NewPageDelay), by)
		if err != nil {
			return err
		}
		upd, err := tx.ExecContext(ctx, `UPDATE refresh_state SET next_at = ?
			WHERE topic = ? AND next_at > ? AND dropped = 0 AND url_hash IN (SELECT url_hash `+refreshPages+`)`,
			by, req.Topic, by, req.Topic, req.Topic, req.MinHub, req.MinHub)
		if err != nil {
			return err
		}
		for _, r := range []sql.Result{ins, upd} {
			k, err := r.RowsAffected()
			if err != nil {
				return err
			}
			n += int(k)
		}
		return nil
	})
	return n, err
}
