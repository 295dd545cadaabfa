package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// PutTopic stores yaml as the newest version of topic name, unless it is
// identical to the latest version, whose number is then returned. An
// advisory lock on the topic name keeps concurrent puts from choosing one
// version number twice.
func (s *Store) PutTopic(ctx context.Context, name string, yaml []byte) (int, error) {
	if name == "" {
		return 0, errors.New("store/postgres: put topic: empty name")
	}
	sum := sha256.Sum256(yaml)
	hash := hex.EncodeToString(sum[:])
	var version int
	err := s.tx(ctx, fmt.Sprintf("put topic %q", name), func(tx pgx.Tx) error {
		if err := lock(ctx, tx, "topic/"+name); err != nil {
			return err
		}
		var latest int
		var latestHash string
		err := tx.QueryRow(ctx, `SELECT version, hash FROM topics WHERE name = $1
			ORDER BY version DESC LIMIT 1`, name).Scan(&latest, &latestHash)
		switch {
		case err == nil && latestHash == hash:
			version = latest
			return nil
		case err != nil && !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		version = latest + 1
		_, err = tx.Exec(ctx, `INSERT INTO topics (name, version, yaml, hash, created_at)
			VALUES ($1, $2, $3, $4, $5)`, name, version, sqlshared.NonNil(yaml), hash, time.Now().UnixNano())
		return err
	})
	return version, err
}

// CreateCrawl inserts c unless a crawl with its ID exists. A zero StartedAt
// or UpdatedAt becomes now; an empty State becomes store.CrawlRunning.
func (s *Store) CreateCrawl(ctx context.Context, c store.Crawl) error {
	c, err := sqlshared.CrawlDefaults(c)
	if err != nil {
		return fmt.Errorf("store/postgres: %w", err)
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO crawls (id, topic, topic_version, state, started_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
		c.ID, c.Topic, c.TopicVersion, c.State, toNanos(c.StartedAt), toNanos(c.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store/postgres: create crawl %q: %w", c.ID, err)
	}
	return nil
}

// SetCrawlState sets a crawl's state and bumps its UpdatedAt.
func (s *Store) SetCrawlState(ctx context.Context, id, state string) error {
	return s.updateCrawl(ctx, id, fmt.Sprintf("set crawl %q state %q", id, state), `state = $1`, state)
}

// SetCrawlTopicVersion records that the crawl now uses another topic version.
func (s *Store) SetCrawlTopicVersion(ctx context.Context, id string, version int) error {
	return s.updateCrawl(ctx, id, fmt.Sprintf("set crawl %q topic version %d", id, version), `topic_version = $1`, version)
}

// updateCrawl applies set (which uses $1 for val) to one crawl.
func (s *Store) updateCrawl(ctx context.Context, id, what, set string, val any) error {
	tag, err := s.pool.Exec(ctx, `UPDATE crawls SET `+set+`, updated_at = $2 WHERE id = $3`,
		val, time.Now().UnixNano(), id)
	if err != nil {
		return fmt.Errorf("store/postgres: %s: %w", what, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("crawl %q", id)
	}
	return nil
}

// Crawls lists the newest crawls (by StartedAt) of topic, or of all topics
// when topic is "". limit <= 0 means no limit.
func (s *Store) Crawls(ctx context.Context, topic string, limit int) ([]store.Crawl, error) {
	q := `SELECT ` + sqlshared.CrawlColumns + ` FROM crawls WHERE ($1 = '' OR topic = $1)
		ORDER BY started_at DESC, id DESC`
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
// refresh bookkeeping, links, term statistics and models. Topic versions,
// crawl records, no-result queries and the global host table stay.
func (s *Store) ResetTopic(ctx context.Context, topic string) error {
	return s.tx(ctx, fmt.Sprintf("reset topic %q", topic), func(tx pgx.Tx) error {
		for _, q := range []string{
			`DELETE FROM blobs WHERE topic = $1`, // before pages: spares the cascade its lookups
			`DELETE FROM refresh_state WHERE topic = $1`,
			`DELETE FROM pages WHERE topic = $1`,
			`DELETE FROM frontier WHERE topic = $1`,
			`DELETE FROM frontier_counts WHERE topic = $1`, // after frontier: its trigger adds a row
			`DELETE FROM links WHERE topic = $1`,
			`DELETE FROM term_df WHERE topic = $1`,
			`DELETE FROM topic_docs WHERE topic = $1`,
			`DELETE FROM models WHERE topic = $1`,
		} {
			if _, err := tx.Exec(ctx, q, topic); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
}
