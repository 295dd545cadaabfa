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

// makeDueSQL is MakeRefreshDue's statement: $1 topic and $2 minHub
// (refreshPages'), $3 newPageDelay ns, $4 the time by which the pages are
// due. A page without a revisit row gets one due then, unless its first
// revisit comes sooner; a row due later and not dropped is made due then.
// One upsert in key order (collation "C", as updateInKeyOrder), so it takes
// the revisit rows in one run in key order and, after them, their pages in
// one run too (migration 15's trigger copies next_at to the page, in the
// order the rows were written). An INSERT of the missing rows and an
// UPDATE of the others, each in its plan's order, made two runs over the
// pages, the second from the first key again, and deadlocked with the
// key-order writers of either table (TestRefreshWritersLockInKeyOrder). A
// row another writer inserted after the statement's snapshot is made due
// as a row seen would be (the INSERT's DO NOTHING left it to the UPDATE,
// whose snapshot saw it).
var makeDueSQL = `INSERT INTO refresh_state (topic, url_hash, next_at)
	SELECT p.topic, p.url_hash, $4::bigint ` + refreshPages + `
		AND ((r.url_hash IS NULL AND p.fetched_at + $3::bigint > $4::bigint) OR (r.next_at > $4::bigint AND r.dropped = 0))
	ORDER BY p.url_hash COLLATE "C"
	ON CONFLICT (topic, url_hash) DO UPDATE SET next_at = excluded.next_at
		WHERE refresh_state.next_at > excluded.next_at AND refresh_state.dropped = 0`

// MakeRefreshDue makes the pages a refresh may take due by req's DueBy
// (see store.Refreshes), under the topic's refresh lock, as claims take
// them, in one statement that locks its rows in key order (makeDueSQL).
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
		tag, err := tx.Exec(ctx, makeDueSQL, req.Topic, req.MinHub, int64(req.NewPageDelay), by)
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected()) // inserted and updated; a conflict the WHERE skipped is not
		return nil
	})
	return n, err
}

// copiesOf is the condition (on pages, not aliased) of the copies that
// ReleaseCopies releases, as sqlshared.Methods.ReleaseCopies selects them:
// pages of topic $1 other than $5 judged duplicates ($6) with final URL
// hash $2, content hash $3 or text signature $4 (empty ones match
// nothing), each found through its hash's index.
const copiesOf = `pages.url_hash IN (SELECT c.url_hash FROM pages c WHERE c.topic = $1 AND c.final_hash = $2 AND c.final_hash <> ''
		UNION SELECT c.url_hash FROM pages c WHERE c.topic = $1 AND c.content_hash = $3 AND c.content_hash <> ''
		UNION SELECT c.url_hash FROM pages c WHERE c.topic = $1 AND c.text_hash = $4 AND c.text_hash <> '')
	AND pages.url_hash <> $5 AND pages.decision = $6`

// releaseCopiesDueSQL makes copiesOf's pages due at $7, their revisit rows
// written in key order (collation "C", as updateInKeyOrder).
const releaseCopiesDueSQL = `INSERT INTO refresh_state (topic, url_hash, next_at)
	SELECT pages.topic, pages.url_hash, $7::bigint FROM pages WHERE pages.topic = $1 AND ` + copiesOf + `
	ORDER BY pages.url_hash COLLATE "C"
	ON CONFLICT (topic, url_hash) DO UPDATE SET next_at = excluded.next_at, dropped = 0`

// releaseCopiesSQL sends those of copiesOf's pages that releaseCopiesDueSQL
// made due at $7 back to be judged, the rows locked in key order
// (updateInKeyOrder).
var releaseCopiesSQL = updateInKeyOrder(`pages`, `decision = '', reason = '', is_indexed = 0`,
	copiesOf+` AND pages.url_hash IN (SELECT r.url_hash FROM refresh_state r WHERE r.topic = $1 AND r.next_at = $7)`, ``, ``)

// ReleaseCopies sends a leaving page's copies back to be judged (see
// store.Refreshes). It is sqlshared.Methods.ReleaseCopies (whose comments
// say why it is written so) with every row taken in key order: the
// copies' revisit rows, then their pages — the trigger of migration 15
// copies each row's new next_at to its page at the end of the statement,
// in the order the rows were written, and the decisions' update finds
// those pages locked already. The upsert and the update took their rows
// in their plans' order (a hash join of the pages' heap with the union of
// the hash indexes), and a revisit deadlocked with SetScores, MarkIndexed
// or a group's writes over the pages of its copies, or with another
// page's ReleaseCopies over copies they share
// (TestRefreshWritersLockInKeyOrder). Revisit rows before pages is the
// order of every writer of both (ClaimRefresh, RecordRefresh, through the
// trigger).
func (s *Store) ReleaseCopies(ctx context.Context, topic, urlHash, finalHash, contentHash, textHash string, at time.Time) (int, error) {
	if finalHash == "" && contentHash == "" && textHash == "" {
		return 0, nil
	}
	args := []any{topic, finalHash, contentHash, textHash, urlHash, store.DecisionDuplicate, toNanos(at)}
	var n int64
	err := s.tx(ctx, fmt.Sprintf("release the copies of page %s of topic %q", urlHash, topic), func(tx pgx.Tx) error {
		if err := lockTopics(ctx, tx, topic); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, releaseCopiesDueSQL, args...); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, releaseCopiesSQL, args...)
		n = tag.RowsAffected()
		return err
	})
	return int(n), err
}

// renewRefreshSQL is RenewRefresh's statement: $1 topic, $2 batch ID, $3
// the lease's new end.
var renewRefreshSQL = updateInKeyOrder(`refresh_state`, `lease_until = $3`,
	`refresh_state.batch_id = $2 AND refresh_state.lease_until < $3 AND refresh_state.lease_until > 0`, ``, ``)

// RenewRefresh extends a refresh claim's lease (see store.Refreshes). It
// is sqlshared.Methods.RenewRefresh with the batch's revisit rows locked
// in key order (updateInKeyOrder), the order of a claim, which may take
// the rows of a batch whose lease ran out while the batch still renews it
// (ClaimRefresh's conflict re-check): the UPDATE alone took them in the
// order of the batch index (equal keys, heap order) and deadlocked with
// such a claim (TestRefreshWritersLockInKeyOrder).
func (s *Store) RenewRefresh(ctx context.Context, topic, batchID string, until time.Time) error {
	if batchID == "" {
		return fmt.Errorf("store/postgres: renew refresh claim of topic %q: batch ID is required", topic)
	}
	// A released page (lease_until 0: ReleaseRefresh) stays released.
	_, err := s.exec(ctx, fmt.Sprintf("renew refresh claim %q of topic %q", batchID, topic),
		renewRefreshSQL, topic, batchID, toNanos(until))
	return err
}

// releaseRefreshSQL is ReleaseRefresh's statement: $1 topic, $2 batch ID.
var releaseRefreshSQL = updateInKeyOrder(`refresh_state`, `lease_until = 0`, `refresh_state.batch_id = $2`, ``, ``)

// ReleaseRefresh ends a refresh batch's claim at once (see
// store.Refreshes and sqlshared.Methods.ReleaseRefresh), the batch's
// revisit rows locked in key order (updateInKeyOrder), as RenewRefresh's.
func (s *Store) ReleaseRefresh(ctx context.Context, topic, batchID string) (int, error) {
	if batchID == "" {
		return 0, fmt.Errorf("store/postgres: release refresh claim of topic %q: batch ID is required", topic)
	}
	// Rows matched count, also those released before: a retry answers as
	// the first call did.
	n, err := s.exec(ctx, fmt.Sprintf("release refresh claim %q of topic %q", batchID, topic), releaseRefreshSQL, topic, batchID)
	return int(n), err
}
