package sqlshared

import (
	"strconv"

	"focuscrawl/internal/store"
)

// A refresh claim takes the due pages soonest due first, then the most
// relevant (relevance + hub, descending), then by URL hash. Finding them
// by reading every refreshable page of the topic and sorting made each
// claim O(refreshable pages), and a whole refresh of a large topic
// O(pages²/batch). Every page now carries its revisit row's next_at
// (pages.refresh_next_at, kept by triggers on refresh_state: migration 16
// on SQLite, 15 on PostgreSQL), so the claim order is an index order
// within each of three disjoint groups of pages, and the claim walks each
// group's partial index from its earliest due page and stops after limit
// eligible ones:
//
//   - revisited pages (a refresh_state row, next_at >= 0): due at next_at;
//     index (topic, refresh_next_at, relevance + hub DESC, url_hash) over
//     the decisions a revisited page can be claimed with. Due pages held
//     by a live claim (or waiting out their retry delay), and former hubs
//     below the claim's MinHub, are walked past, so the walk reads those
//     too: a few batches' worth while refreshes run.
//   - accepted pages never revisited (no row): due NewPageDelay after
//     their fetch, a delay every page of one claim shares, so fetched_at
//     orders them as their due time does; index (topic, fetched_at,
//     relevance + hub DESC, url_hash).
//   - hubs never revisited (rejected or tunnel pages, no row), claimable
//     only with MinHub > 0: MinHub is the claim's, so no index can hold
//     them in due order among those above it. They are read through
//     (topic, hub) from MinHub up and sorted: O(never-revisited hubs above
//     MinHub), which each hub leaves at its first claim (it then has a
//     row); nothing with refresh.hub_min_score 0, the default.
//
// Each group yields its first limit pages in the full claim order, and the
// first limit of their union are the claim's: a page after a group's
// limit-th is after limit pages of the claim already. The order is thus
// exactly the order of reading every refreshable page, ties included.

// revisitedDecisions are the decisions a page with a revisit row may be
// claimed with (refreshPages' conditions): the partial index of revisited
// pages holds those only, so duplicates with a row (ReleaseCopies makes
// them due, then they are judged copies again) are not walked past at
// every claim. The query repeats the index's condition word for word, as
// SQLite's planner wants to use a partial index.
const revisitedDecisions = `p.decision IN ('accepted', '', 'rejected', 'tunnel', 'error')`

// RefreshChoiceQuery is the query that chooses, in claim order, up to a
// number of the pages a refresh claim may take (one url_hash column; the
// eligibility of the backends' refreshEligible), with ? placeholders
// (RefreshChoiceArgs). least is the dialect's two-argument minimum: MIN on
// SQLite, LEAST on PostgreSQL.
func RefreshChoiceQuery(least string) string {
	retryAt := RefreshRetryAt(least, "r")
	// CROSS JOIN: SQLite keeps pages outer, walking the index in claim
	// order; PostgreSQL plans it as any join. The parameters are cast
	// where PostgreSQL could not infer their types.
	return `SELECT url_hash FROM (
	SELECT * FROM (SELECT p.url_hash, p.refresh_next_at AS due, p.relevance + p.hub AS score
		FROM pages p CROSS JOIN refresh_state r
		WHERE p.topic = ? AND p.refresh_next_at >= 0 AND ` + revisitedDecisions + ` AND p.refresh_next_at <= ?
			AND r.topic = p.topic AND r.url_hash = p.url_hash
			AND (p.decision IN ('accepted', '')
				OR (CAST(? AS DOUBLE PRECISION) > 0 AND p.hub >= ? AND p.decision IN ('rejected', 'tunnel'))
				OR ((r.dropped > 0 OR r.batch_id <> '') AND p.decision IN ('error', 'rejected', 'tunnel')))
			AND (r.batch_id = '' OR ` + retryAt + ` < ?)
		ORDER BY p.refresh_next_at, p.relevance + p.hub DESC, p.url_hash LIMIT ?) AS revisited
	UNION ALL
	SELECT * FROM (SELECT url_hash, fetched_at + CAST(? AS BIGINT) AS due, relevance + hub AS score FROM pages
		WHERE topic = ? AND refresh_next_at IS NULL AND decision = 'accepted' AND fetched_at BETWEEN ? AND ?
		ORDER BY fetched_at, relevance + hub DESC, url_hash LIMIT ?) AS fresh
	UNION ALL
	SELECT * FROM (SELECT url_hash, fetched_at + CAST(? AS BIGINT) AS due, relevance + hub AS score FROM pages
		WHERE topic = ? AND refresh_next_at IS NULL AND decision IN ('rejected', 'tunnel') AND hub >= ?
			AND CAST(? AS DOUBLE PRECISION) > 0 AND fetched_at BETWEEN ? AND ?
		ORDER BY fetched_at, relevance + hub DESC, url_hash LIMIT ?) AS hubs
) AS chosen ORDER BY due, score DESC, url_hash LIMIT ?`
}

// RefreshRetryAt is when a page whose claim ran out without an outcome is
// claimable again (RefreshRetry), given its refresh_state row's name and,
// as ? placeholders, the retry delay ns and the retry ceiling ns; least is
// the dialect's two-argument minimum (RefreshChoiceQuery).
func RefreshRetryAt(least, row string) string {
	return row + `.lease_until + ` + least + `(CAST(? AS BIGINT) << ` + least + `(` + row + `.failures, ` +
		strconv.Itoa(MaxRetryShift) + `), CAST(? AS BIGINT))`
}

// RefreshChoiceArgs are RefreshChoiceQuery's arguments for a claim of up
// to limit pages. A page never revisited is due NewPageDelay after its
// fetch, between 0 and the claim's time (RefreshDueAt), as refreshEligible
// has it: its fetch time between -delay and that time - delay.
func RefreshChoiceArgs(req store.RefreshClaim, limit int) []any {
	at := ToNanos(RefreshDueAt(req))
	retry, ceiling := RefreshRetry(req)
	delay := int64(req.NewPageDelay)
	return []any{
		req.Topic, at, req.MinHub, req.MinHub, retry, ceiling, at, limit, // revisited
		delay, req.Topic, -delay, at - delay, limit, // fresh
		delay, req.Topic, req.MinHub, req.MinHub, -delay, at - delay, limit, // hubs
		limit,
	}
}

// RefreshClaimedQuery counts the pages a refresh claim already holds,
// given (? placeholders) the topic and the batch ID: a claim of a batch ID
// that holds pages is the same claim made again (its activity retried,
// the answer lost) and answers their count without claiming more. Only
// pages with a lease count, ended or not (lease_until > 0): a page
// ReleaseRefresh released keeps the batch ID with lease_until 0, and a
// batch ID whose pages were all released is claimed afresh. Refresh batch
// IDs come from the workflow ID, so a cancelled refresh that is reset
// claims its released batch's ID again; counted as the same claim, the
// released pages came back unrenewed, and the batch fetched them, could
// hold none (HoldRefresh) and threw the answers away. Both backends'
// ClaimRefresh ask it.
const RefreshClaimedQuery = `SELECT COUNT(*) FROM refresh_state WHERE topic = ? AND batch_id = ? AND lease_until > 0`
