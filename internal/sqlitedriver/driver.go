// Package sqlitedriver registers the database/sql driver focuscrawl's
// SQLite store and index use: github.com/mattn/go-sqlite3, SQLite's own C
// code through cgo, under the name Name.
//
// The data source name is a file name and, after a "?", go-sqlite3's
// parameters (_busy_timeout, _journal_mode, _txlock, _query_only, …) and
// any number of _pragma=name(value) parameters, which go-sqlite3 does not
// know: each runs as "PRAGMA name(value)" on every new connection, in
// order, after go-sqlite3's own.
//
// Functions registered with RegisterFunc exist on every connection the
// driver opens.
package sqlitedriver

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"strings"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// Name is the driver's name for sql.Open.
const Name = "focuscrawl_sqlite"

type function struct {
	name string
	impl any
	pure bool
}

var (
	funcsMu sync.Mutex
	funcs   []function
)

// RegisterFunc makes impl (a Go function, as
// sqlite3.SQLiteConn.RegisterFunc takes it) the SQL function name on every
// connection opened after the call; pure says its result depends on its
// arguments only. Call it from an init function.
func RegisterFunc(name string, impl any, pure bool) {
	funcsMu.Lock()
	defer funcsMu.Unlock()
	funcs = append(funcs, function{name, impl, pure})
}

func init() {
	sql.Register(Name, &pragmaDriver{&sqlite3.SQLiteDriver{ConnectHook: connect}})
}

// connect registers the functions on a new connection.
func connect(c *sqlite3.SQLiteConn) error {
	funcsMu.Lock()
	fs := append([]function(nil), funcs...)
	funcsMu.Unlock()
	for _, f := range fs {
		if err := c.RegisterFunc(f.name, f.impl, f.pure); err != nil {
			return fmt.Errorf("register SQL function %s: %w", f.name, err)
		}
	}
	return nil
}

// pragmaDriver is go-sqlite3's driver running the _pragma parameters.
type pragmaDriver struct{ d *sqlite3.SQLiteDriver }

// Open opens a connection with go-sqlite3 and runs dsn's _pragma
// parameters on it.
func (p *pragmaDriver) Open(dsn string) (driver.Conn, error) {
	name, pragmas, err := splitPragmas(dsn)
	if err != nil {
		return nil, err
	}
	c, err := p.d.Open(name)
	if err != nil {
		return nil, err
	}
	conn := c.(*sqlite3.SQLiteConn)
	for _, pr := range pragmas {
		if _, err := conn.Exec("PRAGMA "+pr, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("PRAGMA %s: %w", pr, err)
		}
	}
	return conn, nil
}

// splitPragmas takes the _pragma parameters out of dsn.
func splitPragmas(dsn string) (rest string, pragmas []string, err error) {
	i := strings.IndexByte(dsn, '?')
	if i < 0 {
		return dsn, nil, nil
	}
	q, err := url.ParseQuery(dsn[i+1:])
	if err != nil {
		return "", nil, fmt.Errorf("sqlitedriver: data source %q: %w", dsn, err)
	}
	pragmas = q["_pragma"]
	q.Del("_pragma")
	rest = dsn[:i]
	if len(q) > 0 {
		rest += "?" + q.Encode()
	}
	return rest, pragmas, nil
}
