package sqlite

import (
	"context"
	"fmt"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

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
