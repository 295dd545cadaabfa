package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// refreshPages selects the topic's pages that a refresh claim may take at
// some time, with their bookkeeping (r), given $1 topic and $2 minHub:
// accepted pages, pages a refresh replaced and never judged, hubs, pages a
// refresh found dropped and checks again (store.RefreshInfo.Dropped) or
// judged not accepted in a batch that failed before recording it.
var refreshPages = `FROM pages p LEFT JOIN refresh_state r ON r.topic = p.topic AND r.url_hash = p.url_hash
	WHERE p.topic = $1 AND (p.decision = 'accepted' OR (p.decision = '' AND r.url_hash IS NOT NULL)
		OR ($2::float8 > 0 AND p.hub >= $2::float8 AND p.decision IN ('rejected', 'tunnel'))
		OR ((COALESCE(r.dropped, 0) > 0 OR COALESCE(r.batch_id, '') <> '') AND p.decision IN ('error', 'rejected', 'tunnel')))`

// retryAt is when a page whose claim runs out without an outcome is
// claimable again (sqlshared.RefreshRetry), given its refresh_state row as
// row, $5 retry delay ns and $6 retry ceiling ns.
func retryAt(row string) string {
	return row + `.lease_until + LEAST($5::bigint << LEAST(` + row + `.failures, ` + strconv.Itoa(sqlshared.MaxRetryShift) + `), $6::bigint)`
}

// refreshRetryAt is retryAt of refreshPages' refresh_state row.
var refreshRetryAt = retryAt("r")

// refreshEligible selects those of refreshPages that a claim may take now,
// given also $3 newPageDelay ns, $4 now (a claim's DueBy when set:
// sqlshared.RefreshDueAt) and refreshRetryAt's $5 and $6. A
// page without a refresh_state row is due newPageDelay after its fetch; a
// page whose claim ran out without an outcome waits for its retry delay
// after that.
var refreshEligible = refreshPages + `
	AND COALESCE(r.next_at, p.fetched_at + $3::bigint) BETWEEN 0 AND $4::bigint
	AND (COALESCE(r.batch_id, '') = '' OR ` + refreshRetryAt + ` < $4::bigint)`

// refreshStillEligible is refreshEligible's condition on a page's
// refresh_state row, for the DO UPDATE of a claim (the existing row as
// refresh_state), given (? placeholders) the claim's time, retry delay ns,
// retry ceiling ns and time again: due, and not held by a live claim. Under
// READ COMMITTED the claim's SELECT sees the rows as of its start, and the
// row it then finds in conflict is the latest version, waited for: a lease
// renewed or a page held (RenewRefresh, HoldRefresh) or recorded
// (RecordRefresh) meanwhile must keep the page from the claim.
var refreshStillEligible = `refresh_state.next_at BETWEEN 0 AND CAST(? AS BIGINT)
	AND (refresh_state.batch_id = '' OR ` + sqlshared.RefreshRetryAt("LEAST", "refresh_state") + ` < CAST(? AS BIGINT))`

// claimRound is one round of a claim (ClaimRefresh), with ? placeholders:
// it chooses pages in claim order (sqlshared.RefreshChoiceQuery, its
// arguments first), leases those its conflict re-check finds still free
// (refreshStillEligible's arguments after the topic, batch ID and lease
// end) and returns how many it chose and how many it took.
var claimRound = rebind(`WITH chosen AS (` + sqlshared.RefreshChoiceQuery("LEAST") + `),
	taken AS (
		INSERT INTO refresh_state (topic, url_hash, batch_id, lease_until)
		SELECT CAST(? AS TEXT), url_hash, CAST(? AS TEXT), CAST(? AS BIGINT) FROM chosen ORDER BY url_hash
		ON CONFLICT (topic, url_hash) DO UPDATE SET batch_id = excluded.batch_id, lease_until = excluded.lease_until,
			failures = refresh_state.failures + CASE WHEN refresh_state.batch_id <> '' THEN 1 ELSE 0 END
		WHERE ` + refreshStillEligible + `
		RETURNING 1)
	SELECT (SELECT COUNT(*) FROM chosen), (SELECT COUNT(*) FROM taken)`)

// refreshClaimed is sqlshared.RefreshClaimedQuery with PostgreSQL's placeholders.
var refreshClaimed = rebind(sqlshared.RefreshClaimedQuery)

func eligibleArgs(r store.RefreshClaim) []any {
	retry, ceiling := sqlshared.RefreshRetry(r)
	return []any{r.Topic, r.MinHub, int64(r.NewPageDelay), toNanos(sqlshared.RefreshDueAt(r)), retry, ceiling}
}

// eligible is refreshEligible with its arguments (sqlshared.Reader.RefreshEligible).
func eligible(r store.RefreshClaim) (string, []any) { return refreshEligible, eligibleArgs(r) }

// refreshOutlook is the query of store.Refreshes.RefreshOutlook, with
// refreshEligible's arguments: one pass over refreshPages that counts them
// (gone ones, next_at -1, left out), counts those refreshEligible would take
// (the same conditions) and takes the earliest time a claim could take one.
var refreshOutlook = `SELECT COUNT(*), COUNT(*) FILTER (WHERE due <= $4::bigint AND (rb = '' OR retry_at < $4::bigint)),
		MIN(CASE WHEN rb = '' THEN due ELSE GREATEST(due, retry_at) END)
	FROM (SELECT COALESCE(r.next_at, p.fetched_at + $3::bigint) AS due, COALESCE(r.batch_id, '') AS rb,
			` + refreshRetryAt + ` AS retry_at
		` + refreshPages + `) AS x
	WHERE due >= 0`

// outlook is refreshOutlook with its arguments (sqlshared.Methods.RefreshOutlookQuery).
// An outlook is as of Now (DueBy is a claim's), as SQLite's.
func outlook(r store.RefreshClaim) (string, []any) {
	r.DueBy = time.Time{}
	return refreshOutlook, eligibleArgs(r)
}

// ClaimRefresh leases due pages to a refresh batch (see store.Refreshes).
// Claims of one topic are serialised by an advisory lock: refresh claims are
// rare, and two of them must not take one page.
//
// Each round chooses up to the pages still wanted and leases those its
// conflict re-check (refreshStillEligible) finds still free: a page that
// another writer renewed, held or recorded while the round waited for its
// row is left to that writer. When a round loses any of its choice, the next
// one, with a new snapshot that sees those writes, chooses again; so the
// claim answers 0 only when nothing is due, as SQLite's does (a claim of 0
// ends a refresh run). Every lossy round follows another writer's commit on
// a chosen page, which the next round no longer chooses, so the rounds end.
func (s *Store) ClaimRefresh(ctx context.Context, req store.RefreshClaim) (int, error) {
	req, err := sqlshared.RefreshClaimDefaults(req)
	if err != nil {
		return 0, fmt.Errorf("store/postgres: %w", err)
	}
	n := 0
	err = s.tx(ctx, fmt.Sprintf("claim refresh batch %q of topic %q", req.BatchID, req.Topic), func(tx pgx.Tx) error {
		n = 0 // a rerun transaction starts over
		if err := lockTopics(ctx, tx, req.Topic); err != nil {
			return err
		}
		if err := lock(ctx, tx, "refresh/"+req.Topic); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, refreshClaimed, req.Topic, req.BatchID).Scan(&n); err != nil {
			return err
		}
		if n > 0 || req.Max <= 0 {
			return nil // the same claim again (a released one is claimed afresh)
		}
		at := toNanos(sqlshared.RefreshDueAt(req))
		retry, ceiling := sqlshared.RefreshRetry(req)
		for n < req.Max {
			// chosen: what the round's snapshot finds due; taken: the rows
			// inserted or updated (a conflict the WHERE skipped is not).
			var chosen, taken int
			args := append(sqlshared.RefreshChoiceArgs(req, req.Max-n),
				req.Topic, req.BatchID, toNanos(req.Now.Add(req.Lease)), at, retry, ceiling, at)
			if err := tx.QueryRow(ctx, claimRound, args...).Scan(&chosen, &taken); err != nil {
				return err
			}
			n += taken
			if taken == chosen {
				return nil // all it chose, or nothing due
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// RefreshBatch returns the pages a refresh claim still holds in URL hash
// order (see store.Refreshes): not those ReleaseRefresh released.
func (s *Store) RefreshBatch(ctx context.Context, topic, batchID string) ([]store.RefreshItem, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sqlshared.Prefixed("p.", sqlshared.PageColumns)+`, `+sqlshared.Prefixed("r.", sqlshared.RefreshColumns)+`
		FROM pages p JOIN refresh_state r ON r.topic = p.topic AND r.url_hash = p.url_hash
		WHERE r.topic = $1 AND r.batch_id = $2 AND r.lease_until > 0 ORDER BY p.url_hash`, topic, batchID)
	out, err := collect(rows, err, sqlshared.ScanRefreshItem)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: refresh batch %q of topic %q: %w", batchID, topic, err)
	}
	return out, nil
}

// UnmarkIndexed clears the index flag of pages; unknown hashes are skipped.
func (s *Store) UnmarkIndexed(ctx context.Context, topic string, urlHashes []string) error {
	return s.setIndexed(ctx, topic, urlHashes, false)
}

// MakeRefreshDue makes the pages a refresh may take due by req's DueBy
// (see store.Refreshes), under the topic's refresh lock, as claims take
// them.
func (s *Store) MakeRefreshDue(ctx context.Context, req store.RefreshClaim) (int, error) {
	n := 0
	by := toNanos(sqlshared.RefreshDueAt(req))
	err := s.tx(ctx, fmt.Sprintf("make the pages of topic %q due for a refresh", req.Topic), func(tx pgx.Tx) error {
		n = 0 // a rerun transaction starts over
		if err := lockTopics(ctx, tx, req.Topic); err != nil {
			return err
		}
		if err := lock(ctx, tx, "refresh/"+req.Topic); err != nil {
			return err
		}
		ins, err := tx.Exec(ctx, `INSERT INTO refresh_state (topic, url_hash, next_at)
			SELECT p.topic, p.url_hash, $4::bigint `+refreshPages+` AND r.url_hash IS NULL AND p.fetched_at + $3::bigint > $4::bigint
			ON CONFLICT (topic, url_hash) DO NOTHING`, req.Topic, req.MinHub, int64(req.NewPageDelay), by)
		if err != nil {
			return err
		}
		upd, err := tx.Exec(ctx, `UPDATE refresh_state SET next_at = $3::bigint
			WHERE topic = $1 AND next_at > $3::bigint AND dropped = 0 AND url_hash IN (SELECT p.url_hash `+refreshPages+`)`,
			req.Topic, req.MinHub, by)
		if err != nil {
			return err
		}
		n = int(ins.RowsAffected() + upd.RowsAffected())
		return nil
	})
	return n, err
}
