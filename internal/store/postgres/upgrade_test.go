package postgres

import (
	"context"
	"testing"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres/pgtest"
	"focuscrawl/internal/store/storetest"
)

// TestUpgrade opens databases written at every older schema version with
// this program (storetest.RunUpgrade).
func TestUpgrade(t *testing.T) {
	storetest.RunUpgrade(t, storetest.UpgradeBackend{
		Current: len(migrations),
		Create: func(t *testing.T, v int) storetest.UpgradeDB {
			dsn, _ := pgtest.Schema(t)
			s, err := openAt(t.Context(), dsn, v)
			if err != nil {
				t.Fatalf("open at version %d: %v", v, err)
			}
			t.Cleanup(func() { s.Close() })
			return upgradeDB{s: s, dsn: dsn}
		},
		Tables: `SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()`,
		Columns: `SELECT column_name::text FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
		Version: `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`,
		// Columns with their types and defaults, indexes, triggers,
		// functions and sequences, the test's own schema name removed
		// from their definitions.
		Schema: `SELECT replace(def, current_schema() || '.', '') FROM (
			SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' ||
				COALESCE(column_default, '') AS def
			FROM information_schema.columns WHERE table_schema = current_schema()
			UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()
			UNION ALL SELECT 'trigger ' || pg_get_triggerdef(tg.oid) FROM pg_trigger tg
				JOIN pg_class c ON c.oid = tg.tgrelid WHERE c.relnamespace = current_schema()::regnamespace AND NOT tg.tgisinternal
			UNION ALL SELECT 'function ' || p.proname || ' ' || md5(p.prosrc) FROM pg_proc p
				WHERE p.pronamespace = current_schema()::regnamespace
			UNION ALL SELECT 'sequence ' || sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema()
		) AS objects`,
		// frontier_counts holds deltas whose rows depend on how the
		// frontier was written; FrontierStats compares their sums.
		Skip: []string{"schema_migrations", "frontier_counts"},
		// Rows written through the store take their seq from the
		// sequence: the fixture's must not be handed out again.
		AfterFill: `SELECT setval('frontier_seq', (SELECT MAX(seq) FROM frontier))`,
	})
}

// upgradeDB is a test schema as storetest.RunUpgrade uses it, through the
// pool of a Store opened at the old version.
type upgradeDB struct {
	s   *Store
	dsn string
}

// Exec runs q (? placeholders) on the pool.
func (d upgradeDB) Exec(ctx context.Context, q string, args ...any) error {
	_, err := d.s.pool.Exec(ctx, rebind(q), args...)
	return err
}

// Query reads every row of q (? placeholders) through the pool.
func (d upgradeDB) Query(ctx context.Context, q string, args ...any) ([][]any, error) {
	rows, err := d.s.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

// Open opens the schema with Open, as the new release does.
func (d upgradeDB) Open(t *testing.T) store.Store { return openDSN(t, d.dsn) }
