package sqlite

import (
	"context"
	"fmt"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// Crawls lists the newest crawls (by StartedAt) of topic, or of all topics
// when topic is "". limit <= 0 means no limit.
func (s *Store) Crawls(ctx context.Context, topic string, limit int) ([]store.Crawl, error) {
	q := `SELECT ` + sqlshared.CrawlColumns + ` FROM crawls`
	var args []any
	if topic != "" {
		q += ` WHERE topic = ?`
		args = append(args, topic)
	}
	q += ` ORDER BY started_at DESC, id DESC`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	out, err := collect(rows, err, sqlshared.ScanCrawl)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: crawls of topic %q: %w", topic, err)
	}
	return out, nil
}

// CrawlStats counts the pages of a crawl. A crawl without pages (or an
// unknown crawl ID) has all-zero stats.
func (s *Store) CrawlStats(ctx context.Context, crawlID string) (store.CrawlStats, error) {
	st := store.CrawlStats{ErrorsByClass: map[string]int{}}
	// CASE rather than SQLite's boolean-as-integer sums, for portability.
	err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(*),
		COALESCE(SUM(CASE WHEN status BETWEEN 200 AND 299 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN decision = ? THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN decision = ? THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN decision = ? THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN decision = ? THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN error_class <> '' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(is_indexed), 0)
		FROM pages WHERE crawl_id = ?`,
		store.DecisionAccepted, store.DecisionRejected, store.DecisionTunnel, store.DecisionDuplicate, crawlID,
	).Scan(&st.Fetched, &st.OK, &st.Accepted, &st.Rejected, &st.Tunnel, &st.Duplicates, &st.Errors, &st.Indexed)
	if err != nil {
		return store.CrawlStats{}, fmt.Errorf("store/sqlite: stats of crawl %q: %w", crawlID, err)
	}
	if st.Errors == 0 {
		return st, nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT error_class, COUNT(*) FROM pages
		WHERE crawl_id = ? AND error_class <> '' GROUP BY error_class`, crawlID)
	if err != nil {
		return store.CrawlStats{}, fmt.Errorf("store/sqlite: error classes of crawl %q: %w", crawlID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var class string
		var n int
		if err := rows.Scan(&class, &n); err != nil {
			return store.CrawlStats{}, fmt.Errorf("store/sqlite: error classes of crawl %q: %w", crawlID, err)
		}
		st.ErrorsByClass[class] = n
	}
	if err := rows.Err(); err != nil {
		return store.CrawlStats{}, fmt.Errorf("store/sqlite: error classes of crawl %q: %w", crawlID, err)
	}
	return st, nil
}

// ResetTopic deletes all crawl state of a topic: frontier, pages, blobs,
// links, term statistics, models and host yields. Topic versions, crawl records and the
// global host politeness table stay, and so does the generation of the
// topic's term sample, bumped (store.GroupResult.TermSampleGen).
func (s *Store) ResetTopic(ctx context.Context, topic string) error {
	return s.write(ctx, fmt.Sprintf("reset topic %q", topic), func(tx *wtx) error {
		for _, q := range []string{
			`DELETE FROM blobs WHERE topic = ?`, // before pages: avoids the cascade lookups
			`DELETE FROM pages WHERE topic = ?`,
			`DELETE FROM frontier WHERE topic = ?`,
			`DELETE FROM frontier_counts WHERE topic = ?`, // after frontier: its delete trigger keeps the row, at 0
			`DELETE FROM links WHERE topic = ?`,
			`DELETE FROM term_df WHERE topic = ?`,
			// The row stays, its sample's generation bumped: a worker
			// keeping the old sample's statistics tells a new sample
			// of the same size from it (store.GroupResult.TermSampleGen).
			// Its size is the next sample's first write's to fix
			// (store.GroupWrite.TermSample).
			`UPDATE topic_docs SET docs = 0, gen = gen + 1, sample = 0 WHERE topic = ?`,
			`DELETE FROM models WHERE topic = ?`,
			`DELETE FROM host_yield WHERE topic = ?`,
			`DELETE FROM fences WHERE topic = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, topic); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM sequences WHERE name = ?`, frontierSeqName(topic))
		return err
	})
}
