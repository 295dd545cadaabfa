package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// The frontier calls of the streaming fetch path: per-entry completion, the
// takeover of a dead attempt's batches, and per-prefix counts.

// CompleteEntries marks entries done by URL hash (idempotent), in one
// statement of its own, its rows locked in key order (updateInKeyOrder),
// run again after a deadlock (execRetry).
func (s *Store) CompleteEntries(ctx context.Context, topic string, urlHashes []string) error {
	return completeEntries(ctx, s.execRetry, topic, urlHashes)
}

// completeEntriesSQL is completeEntries' statement: $1 topic, $2 URL hashes.
var completeEntriesSQL = updateInKeyOrder(`frontier`, sqlshared.CompleteSet,
	`frontier.url_hash = ANY($2) AND frontier.state <> 'done'`, ``, ``)

// completeEntries is CompleteEntries with exec (a transaction's, or
// execRetry). Sorting the hashes fixed no lock order: a plan that walks
// the topic by another index and filters by the array (frontier_host_state,
// on a table without statistics) takes the rows in that index's order.
func completeEntries(ctx context.Context, exec execFunc, topic string, urlHashes []string) error {
	if len(urlHashes) == 0 {
		return nil
	}
	_, err := exec(ctx, completeEntriesSQL, topic, urlHashes)
	if err != nil {
		return fmt.Errorf("store/postgres: complete %d entries of topic %q: %w", len(urlHashes), topic, err)
	}
	return nil
}

// releaseSQL is ReleaseBatches' requeue of unsaved entries: $1 topic, $2
// and $3 the batch IDs' range in collation "C" (sqlshared.PrefixRange).
var releaseSQL = updateInKeyOrder(`frontier`, `state = 'queued', batch_id = '', lease_until = 0, claim_pos = 0`,
	`frontier.batch_id COLLATE "C" >= $2 AND frontier.batch_id COLLATE "C" < $3 AND frontier.batch_id <> ''
		AND frontier.state = 'claimed'
		AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.topic = frontier.topic AND p.url_hash = frontier.url_hash)`, ``, ``)

// ReleaseBatches ends the claims of the batches whose IDs start with prefix
// (see store.Frontier): unsaved entries are requeued, saved ones returned
// still claimed, in batch and claim order, and so are entries an expired
// lease closed before their page was judged. The requeued rows are locked
// in key order (updateInKeyOrder), not in the batch index's.
func (s *Store) ReleaseBatches(ctx context.Context, topic, prefix string) ([]store.FrontierEntry, error) {
	if topic == "" || prefix == "" {
		return nil, fmt.Errorf("store/postgres: release batches %q of topic %q: topic and prefix are required", prefix, topic)
	}
	lo, hi := sqlshared.PrefixRange(prefix) // compared COLLATE "C" (code-point order), so migration 3's indexes serve
	var out []store.FrontierEntry
	err := s.tx(ctx, fmt.Sprintf("release batches %q of topic %q", prefix, topic), func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, releaseSQL, topic, lo, hi)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+sqlshared.FrontierColumns+` FROM frontier f
			WHERE f.topic = $1 AND f.batch_id COLLATE "C" >= $2 AND f.batch_id COLLATE "C" < $3 AND f.batch_id <> ''
			AND (f.state = 'claimed' OR (f.state = 'done'
				AND EXISTS (SELECT 1 FROM pages p WHERE p.topic = f.topic AND p.url_hash = f.url_hash
					AND p.batch_id = f.batch_id AND p.decision = $4)))
			ORDER BY f.batch_id COLLATE "C", f.claim_pos`, topic, lo, hi, store.DecisionPending)
		out, err = collect(rows, err, sqlshared.ScanEntry)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BatchStats counts the work of the batches whose IDs start with prefix.
func (s *Store) BatchStats(ctx context.Context, topic, prefix string) (store.BatchStats, error) {
	lo, hi := sqlshared.PrefixRange(prefix)
	var st store.BatchStats
	if err := s.pool.QueryRow(ctx, `SELECT COUNT(*) FROM frontier
		WHERE topic = $1 AND batch_id COLLATE "C" >= $2 AND batch_id COLLATE "C" < $3 AND batch_id <> ''`,
		topic, lo, hi).Scan(&st.Claimed); err != nil {
		return st, fmt.Errorf("store/postgres: claims of batches %q of topic %q: %w", prefix, topic, err)
	}
	err := s.pool.QueryRow(ctx, `SELECT COUNT(*),
		COUNT(*) FILTER (WHERE error_class = '' AND status >= 200 AND status < 300),
		COUNT(*) FILTER (WHERE error_class <> ''),
		COUNT(*) FILTER (WHERE terms_counted <> 0),
		COUNT(*) FILTER (WHERE decision = 'accepted'),
		COUNT(*) FILTER (WHERE decision = 'rejected'),
		COUNT(*) FILTER (WHERE decision = 'tunnel'),
		COUNT(*) FILTER (WHERE decision = 'duplicate'),
		COUNT(*) FILTER (WHERE decision = 'error'),
		COUNT(*) FILTER (WHERE is_indexed <> 0)
		FROM pages WHERE topic = $1 AND batch_id COLLATE "C" >= $2 AND batch_id COLLATE "C" < $3`, topic, lo, hi).Scan(
		&st.Fetched, &st.OK, &st.Failed, &st.Parsed, &st.Accepted, &st.Rejected, &st.Tunnel,
		&st.Duplicates, &st.Errors, &st.Indexed)
	if err != nil {
		return st, fmt.Errorf("store/postgres: pages of batches %q of topic %q: %w", prefix, topic, err)
	}
	return st, nil
}

// FailedByClass counts the failed pages of the batches whose IDs start with
// prefix by error class (store.Frontier); the prefix range in collation "C",
// as in BatchStats, walks the batch index whatever the database's collation.
func (s *Store) FailedByClass(ctx context.Context, topic, prefix string) (map[string]int, error) {
	lo, hi := sqlshared.PrefixRange(prefix)
	rows, err := s.pool.Query(ctx, `SELECT error_class, COUNT(*) FROM pages
		WHERE topic = $1 AND batch_id COLLATE "C" >= $2 AND batch_id COLLATE "C" < $3 AND error_class <> ''
		GROUP BY error_class`, topic, lo, hi)
	counts, err := collect(rows, err, sqlshared.ScanClassCount)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: failed pages of batches %q of topic %q: %w", prefix, topic, err)
	}
	return sqlshared.ClassCounts(counts), nil
}
