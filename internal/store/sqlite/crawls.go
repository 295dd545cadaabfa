package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// PutTopic stores yaml as the newest version of topic name, unless it is
// identical to the latest version, whose number is then returned.
func (s *Store) PutTopic(ctx context.Context, name string, yaml []byte) (int, error) {
	if name == "" {
		return 0, errors.New("store/sqlite: put topic: empty name")
	}
	sum := sha256.Sum256(yaml)
	hash := hex.EncodeToString(sum[:])
	var version int
	err := s.write(ctx, fmt.Sprintf("put topic %q", name), func(tx *wtx) error {
		var latest int
		var latestHash string
		err := tx.QueryRowContext(ctx, `SELECT version, hash FROM topics WHERE name = ?
			ORDER BY version DESC LIMIT 1`, name).Scan(&latest, &latestHash)
		switch {
		case err == nil && latestHash == hash:
			version = latest
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		version = latest + 1
		_, err = tx.ExecContext(ctx, `INSERT INTO topics (name, version, yaml, hash, created_at)
			VALUES (?, ?, ?, ?, ?)`, name, version, sqlshared.NonNil(yaml), hash, time.Now().UnixNano())
		return err
	})
	return version, err
}

// CreateCrawl inserts c unless a crawl with its ID exists. A zero StartedAt
// or UpdatedAt becomes now; an empty State becomes store.CrawlRunning.
func (s *Store) CreateCrawl(ctx context.Context, c store.Crawl) error {
	c, err := sqlshared.CrawlDefaults(c)
	if err != nil {
		return fmt.Errorf("store/sqlite: %w", err)
	}
	return s.write(ctx, fmt.Sprintf("create crawl %q", c.ID), func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO crawls (id, topic, topic_version, state, started_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			c.ID, c.Topic, c.TopicVersion, c.State, toNanos(c.StartedAt), toNanos(c.UpdatedAt))
		return err
	})
}

// SetCrawlState sets a crawl's state and bumps its UpdatedAt.
func (s *Store) SetCrawlState(ctx context.Context, id, state string) error {
	return s.updateCrawl(ctx, id, fmt.Sprintf("set crawl %q state %q", id, state), `state = ?`, state)
}

// SetCrawlTopicVersion records that the crawl now uses another topic version.
func (s *Store) SetCrawlTopicVersion(ctx context.Context, id string, version int) error {
	return s.updateCrawl(ctx, id, fmt.Sprintf("set crawl %q topic version %d", id, version), `topic_version = ?`, version)
}

func (s *Store) updateCrawl(ctx context.Context, id, what, set string, val any) error {
	return s.write(ctx, what, func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE crawls SET `+set+`, updated_at = ? WHERE id = ?`,
			val, time.Now().UnixNano(), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound("crawl %q", id)
		}
		return nil
	})
}

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
// links, term statistics and models. Topic versions, crawl records and the
// global host politeness table stay.
func (s *Store) ResetTopic(ctx context.Context, topic string) error {
	return s.write(ctx, fmt.Sprintf("reset topic %q", topic), func(tx *wtx) error {
		for _, q := range []string{
			`DELETE FROM blobs WHERE topic = ?`, // before pages: avoids the cascade lookups
			`DELETE FROM pages WHERE topic = ?`,
			`DELETE FROM frontier WHERE topic = ?`,
			`DELETE FROM links WHERE topic = ?`,
			`DELETE FROM term_df WHERE topic = ?`,
			`DELETE FROM topic_docs WHERE topic = ?`,
			`DELETE FROM models WHERE topic = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, topic); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM sequences WHERE name = ?`, frontierSeqName(topic))
		return err
	})
}
