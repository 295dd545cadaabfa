package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/storetest"
)

// TestUpgrade opens databases written at every older schema version with
// this program (storetest.RunUpgrade).
func TestUpgrade(t *testing.T) {
	storetest.RunUpgrade(t, storetest.UpgradeBackend{
		Current: len(migrations),
		Create: func(t *testing.T, v int) storetest.UpgradeDB {
			path := filepath.Join(t.TempDir(), "crawl.db")
			s, err := openAt(path, v)
			if err != nil {
				t.Fatalf("open at version %d: %v", v, err)
			}
			t.Cleanup(func() { s.Close() })
			return upgradeDB{s}
		},
		Tables:  `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
		Columns: `SELECT name FROM pragma_table_info(?) ORDER BY cid`,
		Version: `SELECT COALESCE(MAX(version), 0) FROM schema_version`,
		// Every object's definition as SQLite keeps it (ALTER TABLE
		// rewrites a table's).
		Schema: `SELECT type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_master`,
		Skip:   []string{"schema_version"},
	})
}

// upgradeDB is a database file as storetest.RunUpgrade uses it: through
// the write pool of a Store opened at the old version, whose connection
// has foreign keys on, as the store's have.
type upgradeDB struct{ s *Store }

// Exec runs q on the write pool.
func (d upgradeDB) Exec(ctx context.Context, q string, args ...any) error {
	_, err := d.s.wdb.DB.ExecContext(ctx, q, args...)
	return err
}

// Query reads every row of q through the write pool.
func (d upgradeDB) Query(ctx context.Context, q string, args ...any) ([][]any, error) {
	rows, err := d.s.wdb.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

// Open opens the file with Open, as the new release does.
func (d upgradeDB) Open(t *testing.T) store.Store {
	s, err := Open(d.s.path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
