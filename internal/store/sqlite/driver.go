package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net/url"

	"github.com/mattn/go-sqlite3"
)

// The crawl store runs on the cgo driver github.com/mattn/go-sqlite3
// (SQLite compiled by the C compiler, no build tag needed: the store uses
// no FTS5). The search index (internal/index/sqlitefts) stays on the
// pure-Go modernc.org/sqlite, whose FTS5 needs no build tag either. This
// file is the only one that knows the store's driver.

// openDB opens a pool on the database at path: params are the driver's DSN
// parameters (_busy_timeout, _journal_mode, _txlock, ...), pragmas are
// "PRAGMA" statements' bodies ("mmap_size=1073741824") run on every new
// connection, for the settings the DSN cannot carry.
func openDB(path string, params url.Values, pragmas ...string) *sql.DB {
	d := &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		for _, p := range pragmas {
			if _, err := c.Exec("PRAGMA "+p, nil); err != nil {
				return err
			}
		}
		return nil
	}}
	return sql.OpenDB(connector{dsn: path + "?" + params.Encode(), d: d})
}

// connector opens connections with one DSN on one driver value (whose
// ConnectHook carries its pool's pragmas), without a global registration.
type connector struct {
	dsn string
	d   *sqlite3.SQLiteDriver
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.d }

// isBusy reports whether err is SQLite's "database is locked" (SQLITE_BUSY).
func isBusy(err error) bool {
	var e sqlite3.Error
	return errors.As(err, &e) && e.Code == sqlite3.ErrBusy
}
