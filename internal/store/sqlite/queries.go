package sqlite

import (
	"context"
	"fmt"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// RecordNoResultQuery counts one search of topic for query that found
// nothing. The query is whitespace-collapsed; an empty query is an error.
func (s *Store) RecordNoResultQuery(ctx context.Context, topic, query string, at time.Time) error {
	q, at, err := sqlshared.NoResultQuery(topic, query, at)
	if err != nil {
		return fmt.Errorf("store/sqlite: %w", err)
	}
	return s.write(ctx, "record no-result query", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO no_result_queries (topic, query, count, last_at) VALUES (?, ?, 1, ?)
			ON CONFLICT (topic, query) DO UPDATE SET count = count + 1, last_at = MAX(last_at, excluded.last_at)`, // SQLite: scalar MAX; PostgreSQL spells it GREATEST
			topic, q, toNanos(at))
		return err
	})
}

// NoResultQueries lists a topic's no-result queries, most frequent first
// (then most recent, then by text). limit <= 0 means all.
func (s *Store) NoResultQueries(ctx context.Context, topic string, limit int) ([]store.QueryCount, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT query, count, last_at FROM no_result_queries WHERE topic = ?
		ORDER BY count DESC, last_at DESC, query LIMIT ?`, topic, limit)
	out, err := collect(rows, err, sqlshared.ScanQueryCount)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: no-result queries of %s: %w", topic, err)
	}
	return out, nil
}
