// Package sqlite implements focuscrawl's crawl store (store.Store) on SQLite,
// using the pure-Go driver modernc.org/sqlite.
//
// One database file may be shared by several worker processes: the file runs
// in WAL mode (readers never block the writer), every write transaction
// starts with BEGIN IMMEDIATE (it takes the write lock up front, so two
// writers queue on busy_timeout instead of failing with SQLITE_BUSY when one
// of them tries to upgrade a read lock), and every multi-statement write —
// sequence numbers, claims, host slots, term counts — happens inside one such
// transaction, which makes it atomic across goroutines and processes alike.
//
// Within a process a Store keeps two connection pools: one single-connection
// pool for writes (SQLite admits one writer at a time anyway; queueing in Go
// is cheaper than spinning in the busy handler) and a read-only pool for
// queries, which in WAL mode run concurrently with the writer.
//
// Times are stored as unix nanoseconds (0 for the zero time) and returned in
// UTC. Blobs are compressed with raw DEFLATE (compress/flate).
//
// Behaviour beyond the store.Store doc comments:
//   - ClaimBatch marks expired claims whose page was saved as done: the URL
//     was fetched, and leaving it claimed forever would keep the frontier
//     from ever draining. A Lease <= 0 means DefaultLease; a zero Now means
//     time.Now().
//   - DuplicateOf ignores failed pages (ErrorClass != ""): a page must not be
//     discarded as a copy of one whose fetch failed.
//   - SaveParse counts a page's terms once per page row (a flag on the page),
//     so a retried or repeated parse never counts twice.
//   - MarkIndexed and SetScores skip URL hashes without a page (the link
//     graph has nodes that were never fetched); SetDecision on a missing page
//     fails with store.ErrNotFound.
//   - Enqueue fills in a missing URLHash or Host from the URL with urlnorm.
package sqlite

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/codec"
	"focuscrawl/internal/store/sqlshared"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// schemaSQL is migration 1: the whole initial schema.
//
//go:embed schema.sql
var schemaSQL string

// migrations[i] brings the schema from version i to version i+1. Append new
// migrations; never edit an applied one.
var migrations = []string{schemaSQL, schemaQueriesSQL, schemaRefreshSQL, schemaHostYieldSQL, schemaFencesSQL, schemaFrontierCountsSQL,
	schemaFenceAgeSQL, schemaRefreshFailuresSQL, schemaHostHoldsSQL,
	schemaRobotsTagSQL, schemaRefreshGivenUpSQL, schemaModelVersionsSQL, schemaCrawlModelsSQL, schemaRefreshDroppedSQL,
	schemaRefreshUnreachableSQL, schemaRefreshDueSQL, schemaTextHashSQL, schemaFrontierHostsSQL, schemaFrontierSinkSQL,
	schemaTermSampleGenSQL, schemaTermSampleSizeSQL}

// schemaTermSampleSizeSQL is migration 21: the size of each topic's term
// sample, fixed by the write that starts it (store.GroupWrite.TermSample),
// and the last generation of each topic's sample, kept past a delete of its
// topic_docs row (by a release before migration 20) so that
// generations never repeat (store.GroupResult.TermSampleGen).
//
//go:embed schema_term_sample_size.sql
var schemaTermSampleSizeSQL string

// schemaTermSampleGenSQL is migration 20: the generation of each topic's
// term sample, bumped by ResetTopic (store.GroupResult.TermSampleGen).
//
//go:embed schema_term_sample_gen.sql
var schemaTermSampleGenSQL string

// schemaFrontierSinkSQL is migration 19: what each queued entry was
// demoted by, which later priorities keep (store.Frontier.DemoteQueued).
//
//go:embed schema_frontier_sink.sql
var schemaFrontierSinkSQL string

// schemaFrontierHostsSQL is migration 18: each host's best queued entry,
// kept by triggers, which claims walk instead of the queue
// (sqlshared.PickByHost).
//
//go:embed schema_frontier_hosts.sql
var schemaFrontierHostsSQL string

// schemaRefreshDueSQL is migration 16: every page carries its revisit
// row's next_at, so a refresh claim walks due pages through an index
// (sqlshared.RefreshChoiceQuery).
//
//go:embed schema_refresh_due.sql
var schemaRefreshDueSQL string

// schemaFrontierCountsSQL is migration 6: per-topic frontier counts kept by
// triggers (FrontierStats).
//
//go:embed schema_frontier_counts.sql
var schemaFrontierCountsSQL string

// schemaFenceAgeSQL is migration 7: when each fence was raised
// (PruneFences).
//
//go:embed schema_fence_age.sql
var schemaFenceAgeSQL string

// schemaRefreshFailuresSQL is migration 8: refresh claims that ran out
// without an outcome, in a row (store.RefreshClaim.RetryDelay).
//
//go:embed schema_refresh_failures.sql
var schemaRefreshFailuresSQL string

// schemaHostHoldsSQL is migration 9: hosts held after 429 or 503
// (store.Hosts.HoldHost).
//
//go:embed schema_host_holds.sql
var schemaHostHoldsSQL string

// schemaRobotsTagSQL is migration 10: pages' X-Robots-Tag values
// (store.Page.RobotsTag).
//
//go:embed schema_robots_tag.sql
var schemaRobotsTagSQL string

// schemaRefreshGivenUpSQL is migration 11: the final URL hashes pages
// gave up when a refresh replaced them (store.Refreshes.GivenUpFinals).
//
//go:embed schema_refresh_given_up.sql
var schemaRefreshGivenUpSQL string

// schemaModelVersionsSQL is migration 12: the last model version handed out
// per topic and kind, kept through ResetTopic (store.Models.PutModel).
//
//go:embed schema_model_versions.sql
var schemaModelVersionsSQL string

// schemaCrawlModelsSQL is migration 13: the link model and rank versions a
// crawl's workflow last chose (store.Crawls.SetCrawlModels).
//
//go:embed schema_crawl_models.sql
var schemaCrawlModelsSQL string

// schemaRefreshDroppedSQL is migration 14: revisits in a row that found a
// page dropped (store.RefreshInfo.Dropped).
//
//go:embed schema_refresh_dropped.sql
var schemaRefreshDroppedSQL string

// schemaRefreshUnreachableSQL is migration 15: revisits in a row that
// failed transiently, and when the first did (store.RefreshInfo.Unreachable).
//
//go:embed schema_refresh_unreachable.sql
var schemaRefreshUnreachableSQL string

// schemaTextHashSQL is migration 17: pages' near-duplicate text signatures
// (store.Page.TextHash).
//
//go:embed schema_text_hash.sql
var schemaTextHashSQL string

// schemaFencesSQL is migration 5: claim fences (store.Fence).
//
//go:embed schema_fences.sql
var schemaFencesSQL string

// schemaHostYieldSQL is migration 4: the topics' host yields.
//
//go:embed schema_host_yield.sql
var schemaHostYieldSQL string

// schemaQueriesSQL is migration 2: the no-result search queries.
//
//go:embed schema_queries.sql
var schemaQueriesSQL string

// BusyTimeout is how long a connection waits for another connection's (or
// process's) lock before failing with SQLITE_BUSY.
const BusyTimeout = 10 * time.Second

// DefaultLease is the claim lease used when ClaimRequest.Lease is not positive.
const DefaultLease = sqlshared.DefaultLease

// Store is a store.Store backed by one SQLite database file. It is safe for
// concurrent use, and several Stores (in one or many processes) may share a file.
type Store struct {
	methods // the methods both backends share (package sqlshared)
	path    string
	wdb     *pool // writes: one connection, BEGIN IMMEDIATE
	rdb     *pool // reads: query_only connections
}

// methods is embedded unexported: its methods are the Store's, the field is not.
type methods = sqlshared.Methods

var _ store.Store = (*Store)(nil)

// Open opens (creating if needed) the database at path, creating its parent
// directory, and brings the schema up to date. The missing migrations run in
// one write transaction that reads the schema version first, so concurrent
// Opens of one file apply each exactly once (migrations 7 on add columns,
// which could not run twice).
func Open(path string) (*Store, error) { return openAt(path, len(migrations)) }

// openAt is Open bringing the schema only up to version target (at most
// len(migrations)): the upgrade tests make databases as an older release
// left them with it. A database already past target is left as it is.
func openAt(path string, target int) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("store/sqlite: open %q: invalid database path", path)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("store/sqlite: open %q: create directory: %w", path, err)
		}
	}
	common := url.Values{}
	common.Set("_busy_timeout", fmt.Sprint(BusyTimeout.Milliseconds()))
	common.Set("_foreign_keys", "1")
	common.Set("_synchronous", "NORMAL")
	// A page cache larger than SQLite's 2 MiB default: a crawl's working set
	// (frontier, term_df, link indexes) is tens of MiB, and with the default
	// much of the writer's time went to pread/pwrite system calls
	// (docs/benchmarks.md, profile). No mmap: in WAL mode a connection
	// whose read transaction finds the database changed unmaps its whole
	// mapping (pagerBeginReadTransaction), and a crawl commits every few
	// milliseconds, so the readers unmapped and faulted their maps in
	// again on nearly every query — 14% fewer pages/s on the loopback
	// benchmark than without (docs/benchmarks.md, 2026-11-29 16:35).
	common.Add("_pragma", "cache_size(-65536)")
	common.Add("_pragma", "mmap_size(0)")
	common.Add("_pragma", "temp_store(memory)")

	w := cloneValues(common)
	w.Set("_journal_mode", "WAL")
	w.Set("_txlock", "immediate")
	// Checkpoint every ~16 MiB of WAL instead of 4 MiB: pages rewritten by
	// consecutive transactions (frontier, term_df) reach the database file
	// once per checkpoint, and each checkpoint costs an fsync.
	w.Add("_pragma", "wal_autocheckpoint(4096)")
	wdb, err := sql.Open("sqlite", path+"?"+w.Encode())
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: open %q: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)

	s := &Store{path: path, wdb: newPool(wdb)}
	// Migrate before opening readers: the first write connection switches
	// the file to WAL, which readers then find already set. While another
	// process is switching a new file to WAL, SQLite can answer SQLITE_BUSY
	// at once, without its busy handler: such a first open waits and tries
	// again, for at most BusyTimeout.
	deadline := time.Now().Add(BusyTimeout)
	for {
		err := s.migrate(context.Background(), target)
		if err == nil {
			break
		}
		if !isBusy(err) || time.Now().After(deadline) {
			wdb.Close()
			return nil, openError(path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	r := cloneValues(common)
	r.Set("_query_only", "1")
	rdb, err := sql.Open("sqlite", path+"?"+r.Encode())
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store/sqlite: open %q for reading: %w", path, err)
	}
	rdb.SetMaxIdleConns(4)
	if err := rdb.Ping(); err != nil {
		wdb.Close()
		rdb.Close()
		return nil, fmt.Errorf("store/sqlite: open %q for reading: %w", path, err)
	}
	s.rdb = newPool(rdb)
	s.methods = sqlshared.Methods{Conn: readConn{s.rdb}, Prefix: "store/sqlite", RefreshEligible: eligible, RefreshOutlookQuery: outlook,
		Tx: s.sharedTx, Exec: s.exec}
	return s, nil
}

// openError explains SQLite's SQLITE_CANTOPEN, which says only "unable to
// open database file (14)" (a chaos trial's store directory the worker
// could not write): what SQLite needs at path is named.
func openError(path string, err error) error {
	if !strings.Contains(err.Error(), "unable to open database file") {
		return err
	}
	dir := filepath.Dir(path)
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		return fmt.Errorf("store/sqlite: %s is a directory, not a database file (store.path names the database file, e.g. DIR/crawl.db): %w", path, err)
	}
	return fmt.Errorf("store/sqlite: cannot open or create %s: this process must be able to write the file and its directory %s (SQLite creates %s-wal and %s-shm beside it); check their owner and mode and whether the file system is mounted read-only: %w",
		path, dir, filepath.Base(path), filepath.Base(path), err)
}

func cloneValues(v url.Values) url.Values {
	c := url.Values{}
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// Close closes both connection pools.
func (s *Store) Close() error {
	var errs []error
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	errs = append(errs, s.wdb.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store/sqlite: close %q: %w", s.path, err)
	}
	return nil
}

// SchemaVersion reports the schema version the database is at.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.rdb.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("store/sqlite: schema version of %q: %w", s.path, err)
	}
	return v, nil
}

// errProbe ends CheckWritable's transaction: its write is rolled back.
var errProbe = errors.New("probe")

// CheckWritable reports whether this process can write the database: it
// changes a row in a transaction that it rolls back. SQLite opens a file
// it may not write (its mode, its owner, a read-only mount) read-only
// without a word, and Open's migrations write nothing to a database at the
// current schema: a worker then started on such a file and every activity
// of every crawl failed, retried for ever, with "attempt to write a
// readonly database" (chaos trial). The worker calls it at start-up;
// commands that only read the store (search) do not.
func (s *Store) CheckWritable(ctx context.Context) error {
	err := s.write(ctx, "check that "+s.path+" is writable", func(tx *wtx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET applied_at = applied_at
			WHERE version = (SELECT MAX(version) FROM schema_version)`); err != nil {
			return err
		}
		return errProbe
	})
	if errors.Is(err, errProbe) {
		return nil
	}
	if err != nil && strings.Contains(err.Error(), "readonly database") {
		return fmt.Errorf("store/sqlite: %s is read-only for this process (check the file's and its directory's owner and mode, and whether its file system is mounted read-only): %w", s.path, err)
	}
	return err
}

// migrate applies the migrations after the database's version up to
// version target, in one write transaction.
func (s *Store) migrate(ctx context.Context, target int) error {
	return s.write(ctx, "migrate "+s.path, func(tx *wtx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
			version INTEGER NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
			return err
		}
		var cur int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&cur); err != nil {
			return err
		}
		if cur > len(migrations) {
			return fmt.Errorf("database schema version %d is newer than this program's %d", cur, len(migrations))
		}
		for v := cur + 1; v <= target; v++ {
			// Unprepared: a migration is several statements, run once.
			if _, err := tx.tx.ExecContext(ctx, migrations[v-1]); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, applied_at) VALUES (?, ?)`,
				v, time.Now().UnixNano()); err != nil {
				return fmt.Errorf("record migration %d: %w", v, err)
			}
		}
		return nil
	})
}

// write runs fn in one write transaction (BEGIN IMMEDIATE, via _txlock) and
// commits it; any error rolls back. what names the operation in errors.
func (s *Store) write(ctx context.Context, what string, fn func(tx *wtx) error) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store/sqlite: %s: begin: %w", what, err)
	}
	defer s.wdb.preparePending(context.WithoutCancel(ctx)) // runs after the rollback below frees the connection
	defer tx.Rollback()                                    //nolint:errcheck // no-op after Commit
	if err := fn(&wtx{tx: tx, p: s.wdb}); err != nil {
		return sqlshared.WrapTxError("store/sqlite", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store/sqlite: %s: commit: %w", what, err)
	}
	return nil
}

// collect reads every row of rows with scan, closing rows; err is the
// error of the query that returned rows.
func collect[T any](rows *sql.Rows, err error, scan func(sqlshared.Scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshared.CollectRows(rows, scan)
}

// sharedTx is write for the shared write methods (sqlshared.Methods.Tx).
func (s *Store) sharedTx(ctx context.Context, what string, fn func(sqlshared.Tx) error) error {
	return s.write(ctx, what, func(tx *wtx) error { return fn(writeTx{tx}) })
}

// exec runs one statement in a write transaction of its own
// (sqlshared.Methods.Exec).
func (s *Store) exec(ctx context.Context, what, q string, args ...any) (int64, error) {
	var n int64
	err := s.write(ctx, what, func(tx *wtx) error {
		var err error
		n, err = writeTx{tx}.Exec(ctx, q, args...)
		return err
	})
	return n, err
}

// writeTx is a write transaction as the shared write code uses it.
type writeTx struct{ t *wtx }

func (x writeTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := x.t.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (x writeTx) QueryRow(ctx context.Context, q string, args ...any) sqlshared.Scanner {
	return x.t.QueryRowContext(ctx, q, args...)
}

func (writeTx) IsNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// Lock does nothing: a write transaction holds SQLite's one write lock.
func (writeTx) Lock(context.Context, string) error { return nil }

// LockTopic does nothing: ResetTopic is one write transaction, which no
// other write interleaves.
func (writeTx) LockTopic(context.Context, string) error { return nil }

// readConn is the read pool as sqlshared.Reader uses it.
type readConn struct{ p *pool }

func (c readConn) QueryRow(ctx context.Context, q string, args ...any) sqlshared.Scanner {
	return c.p.QueryRowContext(ctx, q, args...)
}

func (c readConn) Each(ctx context.Context, fn func(sqlshared.Scanner) error, q string, args ...any) error {
	rows, err := c.p.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return sqlshared.EachRow(rows, fn)
}

func (readConn) IsNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// toNanos and fromNanos are the shared time encoding (package codec).
func toNanos(t time.Time) int64   { return codec.Nanos(t) }
func fromNanos(n int64) time.Time { return codec.FromNanos(n) }

// isBusy reports whether err is SQLite's "database is locked" (SQLITE_BUSY).
func isBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}
