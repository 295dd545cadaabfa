package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// Crawls lists the newest crawls (by StartedAt) of topic, or of all topics
// when topic is "". limit <= 0 means no limit.
func (s *Store) Crawls(ctx context.Context, topic string, limit int) ([]store.Crawl, error) {
	q := `SELECT ` + sqlshared.CrawlColumns + ` FROM crawls WHERE ($1 = '' OR topic = $1)
		ORDER BY started_at DESC, id COLLATE "C" DESC`
	args := []any{topic}
	if limit > 0 {
		q += ` LIMIT $2`
		args = append(args, limit)
	}
	rows, err := s.pool.Query(ctx, q, args...)
	out, err := collect(rows, err, sqlshared.ScanCrawl)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: crawls of topic %q: %w", topic, err)
	}
	return out, nil
}

// CrawlStats counts the pages of a crawl. A crawl without pages (or an
// unknown crawl ID) has all-zero stats.
func (s *Store) CrawlStats(ctx context.Context, crawlID string) (store.CrawlStats, error) {
	st := store.CrawlStats{ErrorsByClass: map[string]int{}}
	err := s.pool.QueryRow(ctx, `SELECT COUNT(*),
		COUNT(*) FILTER (WHERE status BETWEEN 200 AND 299),
		COUNT(*) FILTER (WHERE decision = $1),
		COUNT(*) FILTER (WHERE decision = $2),
		COUNT(*) FILTER (WHERE decision = $3),
		COUNT(*) FILTER (WHERE decision = $4),
		COUNT(*) FILTER (WHERE error_class <> ''),
		COUNT(*) FILTER (WHERE is_indexed <> 0)
		FROM pages WHERE crawl_id = $5`,
		store.DecisionAccepted, store.DecisionRejected, store.DecisionTunnel, store.DecisionDuplicate, crawlID,
	).Scan(&st.Fetched, &st.OK, &st.Accepted, &st.Rejected, &st.Tunnel, &st.Duplicates, &st.Errors, &st.Indexed)
	if err != nil {
		return store.CrawlStats{}, fmt.Errorf("store/postgres: stats of crawl %q: %w", crawlID, err)
	}
	if st.Errors == 0 {
		return st, nil
	}
	type classCount struct {
		class string
		n     int
	}
	rows, err := s.pool.Query(ctx, `SELECT error_class, COUNT(*) FROM pages
		WHERE crawl_id = $1 AND error_class <> '' GROUP BY error_class`, crawlID)
	counts, err := collect(rows, err, func(sc scanner) (classCount, error) {
		var c classCount
		return c, sc.Scan(&c.class, &c.n)
	})
	if err != nil {
		return store.CrawlStats{}, fmt.Errorf("store/postgres: error classes of crawl %q: %w", crawlID, err)
	}
	for _, c := range counts {
		st.ErrorsByClass[c.class] = c.n
	}
	return st, nil
}

// ResetTopic deletes all crawl state of a topic: frontier, pages, blobs,
// refresh bookkeeping, links, term statistics, models and host yields. Topic versions,
// crawl records, no-result queries and the global host table stay, and so
// does the generation of the topic's term sample, bumped
// (store.GroupResult.TermSampleGen). It is
// atomic with respect to the topic's writers (topicKey): a write that adds
// rows of the topic is deleted whole or, coming after, kept whole.
func (s *Store) ResetTopic(ctx context.Context, topic string) error {
	return s.tx(ctx, fmt.Sprintf("reset topic %q", topic), func(tx pgx.Tx) error {
		// The topic's writers' lock (topicKey), exclusive: the reset waits
		// for the transactions adding rows of the topic, and they for it,
		// so each of them is deleted whole or kept whole.
		if err := lock(ctx, tx, topicKey(topic)); err != nil {
			return err
		}
		// FrontierStats's lock: a fold committed while this waited on its
		// rows inserted a sum row this transaction's delete never saw, and
		// the topic kept the old counts after the reset.
		if err := lock(ctx, tx, "counts/"+topic); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM blobs WHERE topic = $1`, // before pages: spares the cascade its lookups
			`DELETE FROM refresh_state WHERE topic = $1`,
			`DELETE FROM refresh_given_up WHERE topic = $1`,
			`DELETE FROM pages WHERE topic = $1`,
			`DELETE FROM frontier WHERE topic = $1`,
			`DELETE FROM frontier_counts WHERE topic = $1`, // after frontier: its trigger adds a row
			`DELETE FROM links WHERE topic = $1`,
			`DELETE FROM term_df WHERE topic = $1`,
			// The row stays, its sample's generation bumped: a worker
			// keeping the old sample's statistics tells a new sample
			// of the same size from it (store.GroupResult.TermSampleGen).
			// Its size is the next sample's first write's to fix
			// (store.GroupWrite.TermSample).
			`UPDATE topic_docs SET docs = 0, gen = gen + 1, sample = 0 WHERE topic = $1`,
			`DELETE FROM models WHERE topic = $1`,
			`DELETE FROM host_yield WHERE topic = $1`,
			`DELETE FROM fences WHERE topic = $1`,
		} {
			if _, err := tx.Exec(ctx, q, topic); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
}
