package postgres

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
		return fmt.Errorf("store/postgres: %w", err)
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO no_result_queries AS q (topic, query, count, last_at) VALUES ($1, $2, 1, $3)
		ON CONFLICT (topic, query) DO UPDATE SET count = q.count + 1, last_at = GREATEST(q.last_at, excluded.last_at)`,
		topic, q, toNanos(at))
	if err != nil {
		return fmt.Errorf("store/postgres: record no-result query of %s: %w", topic, err)
	}
	return nil
}

// NoResultQueries lists a topic's no-result queries, most frequent first
// (then most recent, then by text). limit <= 0 means all.
func (s *Store) NoResultQueries(ctx context.Context, topic string, limit int) ([]store.QueryCount, error) {
	var lim *int // NULL: LIMIT ALL
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx, `SELECT query, count, last_at FROM no_result_queries WHERE topic = $1
		ORDER BY count DESC, last_at DESC, query LIMIT $2`, topic, lim)
	out, err := collect(rows, err, sqlshared.ScanQueryCount)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: no-result queries of %s: %w", topic, err)
	}
	return out, nil
}
