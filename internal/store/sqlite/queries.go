package sqlite

import (
	"context"
	"fmt"
	"strings"
	"time"

	"focuscrawl/internal/store"
)

// RecordNoResultQuery counts one search of topic for query that found
// nothing. The query is whitespace-collapsed; an empty query is an error.
func (s *Store) RecordNoResultQuery(ctx context.Context, topic, query string, at time.Time) error {
	q := strings.Join(strings.Fields(query), " ")
	if topic == "" || q == "" {
		return fmt.Errorf("store/sqlite: record no-result query: topic %q and query %q must not be empty", topic, query)
	}
	if at.IsZero() {
		at = time.Now()
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
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: no-result queries of %s: %w", topic, err)
	}
	defer rows.Close()
	var out []store.QueryCount
	for rows.Next() {
		var q store.QueryCount
		var last int64
		if err := rows.Scan(&q.Query, &q.Count, &last); err != nil {
			return nil, fmt.Errorf("store/sqlite: no-result queries of %s: %w", topic, err)
		}
		q.Last = fromNanos(last)
		out = append(out, q)
	}
	return out, rows.Err()
}
