package postgres

import (
	"context"
	"fmt"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// NoResultQueries lists a topic's no-result queries, most frequent first
// (then most recent, then by text). limit <= 0 means all.
func (s *Store) NoResultQueries(ctx context.Context, topic string, limit int) ([]store.QueryCount, error) {
	var lim *int // NULL: LIMIT ALL
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx, `SELECT query, count, last_at FROM no_result_queries WHERE topic = $1
		ORDER BY count DESC, last_at DESC, query COLLATE "C" LIMIT $2`, topic, lim)
	out, err := collect(rows, err, sqlshared.ScanQueryCount)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: no-result queries of %s: %w", topic, err)
	}
	return out, nil
}
