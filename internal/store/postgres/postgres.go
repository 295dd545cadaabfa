// Package postgres implements focuscrawl's crawl store (store.Store) on
// PostgreSQL with pgx v5, for crawls that outgrow one machine: any number of
// worker processes on any number of machines share one database.
//
// The schema mirrors store/sqlite's (same tables and columns; times are unix
// nanoseconds in BIGINT columns, 0 = unset; booleans are INTEGER 0/1; blobs
// are compressed with raw DEFLATE by the worker, package codec) so the two
// backends behave alike and their queries read alike. Migrations are
// versioned in schema_migrations and applied by Open, each in one
// transaction under a transaction-scoped advisory lock, so several workers
// starting at once apply each migration exactly once.
//
// Concurrency is per row rather than per database (SQLite has one writer):
//
//   - ClaimBatch walks each host's best queued entry (frontier_hosts, kept
//     at commit by migration 19's triggers under a lock per host row) and
//     locks the entries it picks with FOR UPDATE SKIP LOCKED, so concurrent
//     claimers never receive one entry twice, never wait for each other
//     while they choose, and claim latency depends neither on how many
//     entries are done or claimed nor on how many the excluded hosts queue.
//     Claims of one batch ID are serialised by an advisory lock, so a retried
//     claim racing its original returns the same batch.
//
//   - ReserveHostSlot is one INSERT ... ON CONFLICT DO UPDATE ... RETURNING
//     statement: the host's row lock orders concurrent reservers, wherever
//     they run, and each gets a slot at least the delay after the previous.
//
//   - SavePage's per-crawl Seq, PutTopic's and PutModel's versions and
//     ClaimRefresh take a transaction-scoped advisory lock on their key
//     (crawl, topic, model kind, refresh topic), so numbers stay contiguous.
//
//   - Transactions that fail with a serialization failure or deadlock
//     (40001, 40P01) are retried a few times, and so are multi-row UPDATEs
//     run as statements of their own (execRetry); multi-row upserts are
//     sorted by key, and multi-row updates lock their rows in key order
//     first (updateInKeyOrder; the order of an UPDATE's own locks is its
//     plan's), to make deadlocks rare in the first place. So do the
//     writers of many revisit rows (refresh_state), whose writes of
//     next_at lock their pages too, after them (migration 15's trigger;
//     see ReleaseCopies). Enqueue inserts new entries in key order;
//     WriteGroup locks each table's rows in one run in key order across
//     its statements (see WriteGroup).
//     Enqueue locks only the known entries whose priority it raises (not
//     an upsert's DO UPDATE ... WHERE, which locks every row in conflict).
//
//   - ResetTopic takes the topic's advisory lock (topicKey) exclusive and
//     every transaction that adds rows of the topic takes it shared first,
//     so a reset never runs between such a transaction's statements.
//
//   - FrontierStats reads per-topic counts that statement-level triggers keep
//     (migration 2) instead of counting rows, so it costs the same at 10 k
//     and 10 M entries; every crawl slice calls it.
//
//   - ReleaseBatches and BatchStats select batch-ID prefixes as ranges in
//     collation "C" on indexes of migration 3, so they stay index scans
//     whatever the database's default collation.
//
// Behaviour beyond the store.Store doc comments, the same as store/sqlite's:
//   - ClaimBatch marks expired claims whose page was saved as done (the URL
//     was fetched). A Lease <= 0 means DefaultLease; a zero Now means
//     time.Now(). When the queue is non-empty but every queued entry is
//     locked by concurrent claimers, ClaimBatch waits briefly and tries
//     again instead of returning an empty batch, which the crawl workflow
//     would read as an exhausted frontier.
//   - DuplicateOf ignores failed pages (ErrorClass != "").
//   - SaveParse counts a page's terms once per page row.
//   - MarkIndexed and SetScores skip URL hashes without a page; SetDecision
//     on a missing page fails with store.ErrNotFound.
//   - Enqueue fills in a missing URLHash or Host from the URL with urlnorm.
//
// Where it differs: Enqueue's MaxPerHost cap is checked against the entries
// committed when the call starts, so two workers enqueueing new URLs of one
// host at the same moment may overshoot the cap by one call's worth (the cap
// is a spider-trap defence, not an exact quota). Frontier insertion order
// (the FIFO tie-break) comes from one database sequence shared by all topics.
package postgres

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/codec"
	"focuscrawl/internal/store/sqlshared"
)

// migrations[i] brings the schema from version i to version i+1. Append new
// migrations (a new embedded file each); never edit an applied one.
var migrations = []string{schemaSQL, frontierCountsSQL, batchPrefixSQL, hostYieldSQL, fencesSQL, fenceAgeSQL, refreshFailuresSQL, hostHoldsSQL, robotsTagSQL,
	refreshGivenUpSQL, modelVersionsSQL, crawlModelsSQL, refreshDroppedSQL, refreshUnreachableSQL,
	refreshDueSQL, textHashSQL, frontierSinkSQL, termSampleGenSQL, frontierHostsSQL, termSampleSizeSQL}

// schemaSQL is migration 1: the whole schema as of store/sqlite's version 3.
//
//go:embed schema.sql
var schemaSQL string

// frontierCountsSQL is migration 2: frontier counts kept by triggers, so
// FrontierStats does not count rows.
//
//go:embed schema_frontier_counts.sql
var frontierCountsSQL string

// batchPrefixSQL is migration 3: indexes for batch-ID prefix ranges
// (ReleaseBatches, BatchStats).
//
//go:embed schema_batch_prefix.sql
var batchPrefixSQL string

// hostYieldSQL is migration 4: the topics' host yields.
//
//go:embed schema_host_yield.sql
var hostYieldSQL string

// fencesSQL is migration 5: claim fences (store.Fence).
//
//go:embed schema_fences.sql
var fencesSQL string

// fenceAgeSQL is migration 6: when each fence was raised (PruneFences).
//
//go:embed schema_fence_age.sql
var fenceAgeSQL string

// refreshFailuresSQL is migration 7: refresh claims that ran out without
// an outcome, in a row (store.RefreshClaim.RetryDelay).
//
//go:embed schema_refresh_failures.sql
var refreshFailuresSQL string

// hostHoldsSQL is migration 8: hosts held after 429 or 503
// (store.Hosts.HoldHost).
//
//go:embed schema_host_holds.sql
var hostHoldsSQL string

// robotsTagSQL is migration 9: pages' X-Robots-Tag values
// (store.Page.RobotsTag).
//
//go:embed schema_robots_tag.sql
var robotsTagSQL string

// refreshGivenUpSQL is migration 10: the final URL hashes pages gave up
// when a refresh replaced them (store.Refreshes.GivenUpFinals).
//
//go:embed schema_refresh_given_up.sql
var refreshGivenUpSQL string

// modelVersionsSQL is migration 11: the last model version handed out per
// topic and kind, kept through ResetTopic (store.Models.PutModel).
//
//go:embed schema_model_versions.sql
var modelVersionsSQL string

// crawlModelsSQL is migration 12: the link model and rank versions a
// crawl's workflow last chose (store.Crawls.SetCrawlModels).
//
//go:embed schema_crawl_models.sql
var crawlModelsSQL string

// refreshDroppedSQL is migration 13: revisits in a row that found a page
// dropped (store.RefreshInfo.Dropped).
//
//go:embed schema_refresh_dropped.sql
var refreshDroppedSQL string

// refreshUnreachableSQL is migration 14: revisits in a row that failed
// transiently, and when the first did (store.RefreshInfo.Unreachable).
//
//go:embed schema_refresh_unreachable.sql
var refreshUnreachableSQL string

// refreshDueSQL is migration 15: every page carries its revisit row's
// next_at, so a refresh claim walks due pages through an index
// (sqlshared.RefreshChoiceQuery).
//
//go:embed schema_refresh_due.sql
var refreshDueSQL string

// textHashSQL is migration 16: pages' near-duplicate text signatures
// (store.Page.TextHash).
//
//go:embed schema_text_hash.sql
var textHashSQL string

// frontierSinkSQL is migration 17: what each queued entry was demoted by,
// which later priorities keep (store.Frontier.DemoteQueued).
//
//go:embed schema_frontier_sink.sql
var frontierSinkSQL string

// termSampleGenSQL is migration 18: the generation of each topic's term
// sample, bumped by ResetTopic (store.GroupResult.TermSampleGen).
//
//go:embed schema_term_sample_gen.sql
var termSampleGenSQL string

// frontierHostsSQL is migration 19: each host's best queued entry, kept at
// commit under a lock per host, so a claim walks hosts instead of the
// queue (sqlshared.PickByHostLocking).
//
//go:embed schema_frontier_hosts.sql
var frontierHostsSQL string

// termSampleSizeSQL is migration 20: the size of each topic's term
// sample, fixed by the write that starts it (store.GroupWrite.TermSample),
// and the last generation of each topic's sample, kept past a delete of its
// topic_docs row (by a release before migration 18) so that
// generations never repeat (store.GroupResult.TermSampleGen).
//
//go:embed schema_term_sample_size.sql
var termSampleSizeSQL string

// DefaultLease is the claim lease used when ClaimRequest.Lease is not positive.
const DefaultLease = sqlshared.DefaultLease

// txRetries is how often a transaction that failed with a serialization
// failure or a deadlock is run again before the error is returned.
const txRetries = 5

// Store is a store.Store backed by a PostgreSQL database. It is safe for
// concurrent use; any number of Stores, in any number of processes and
// machines, may share one database.
type Store struct {
	methods // the methods both backends share (package sqlshared)
	pool    *pgxpool.Pool
	name    string // the DSN without password, for errors
	// deadlocks counts the statements and transactions this Store ran
	// again after a deadlock (40P01): each cost its caller the server's
	// deadlock_timeout, so the tests of lock order read it.
	deadlocks atomic.Int64
}

// methods is embedded unexported: its methods are the Store's, the field is not.
type methods = sqlshared.Methods

var _ store.Store = (*Store)(nil)

// Open connects to the database dsn names (a postgres:// URL or a key=value
// string; search_path may select a schema) and brings the schema up to date.
// It fails when the server is unreachable or the schema is newer than this
// program's.
func Open(ctx context.Context, dsn string) (*Store, error) { return openAt(ctx, dsn, len(migrations)) }

// openAt is Open bringing the schema only up to version target (at most
// len(migrations)): the upgrade tests make databases as an older release
// left them with it. A database already past target is left as it is.
func openAt(ctx context.Context, dsn string, target int) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: parse DSN: %w", err)
	}
	name := fmt.Sprintf("%s@%s:%d/%s", cfg.ConnConfig.User, cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: open %s: %w", name, err)
	}
	s := &Store{pool: pool, name: name}
	s.methods = sqlshared.Methods{Conn: readConn{pool}, Prefix: "store/postgres", RefreshEligible: eligible, RefreshOutlookQuery: outlook,
		Tx: s.sharedTx, Exec: s.exec}
	if err := s.migrate(ctx, target); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the connection pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// SchemaVersion reports the schema version the database is at.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.pool.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store/postgres: schema version of %s: %w", s.name, err)
	}
	return v, nil
}

// Migrations reports how many migrations this program knows.
func Migrations() int { return len(migrations) }

// migrate applies the missing migrations up to version target, each in its
// own transaction under an advisory lock scoped to the current schema, so
// concurrent Opens (several workers starting together) apply each exactly
// once and the losers find the work done.
func (s *Store) migrate(ctx context.Context, target int) error {
	for {
		done, err := s.migrateOne(ctx, target)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// migrateOne applies the next missing migration up to version target, if
// any, and reports whether the schema is at (or past) target.
func (s *Store) migrateOne(ctx context.Context, target int) (upToDate bool, err error) {
	err = s.tx(ctx, "migrate "+s.name, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('focuscrawl/migrate/' || current_schema(), 0))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
			return err
		}
		var cur int
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&cur); err != nil {
			return err
		}
		if cur > len(migrations) {
			return fmt.Errorf("database schema version %d is newer than this program's %d", cur, len(migrations))
		}
		if cur >= target {
			upToDate = true
			return nil
		}
		v := cur + 1
		if _, err := tx.Exec(ctx, migrations[v-1]); err != nil {
			return fmt.Errorf("migration %d: %w", v, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`,
			v, time.Now().UnixNano()); err != nil {
			return fmt.Errorf("record migration %d: %w", v, err)
		}
		return nil
	})
	return upToDate, err
}

// tx runs fn in one transaction and commits it; any error rolls back. A
// serialization failure or deadlock runs fn again (fn must be safe to rerun:
// it is, as everything it did was rolled back). what names the operation in
// errors.
func (s *Store) tx(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	var err error
	for attempt := 0; attempt <= txRetries; attempt++ {
		err = s.txOnce(ctx, fn)
		if !s.retryable(err) {
			break
		}
	}
	if err == nil {
		return nil
	}
	return sqlshared.WrapTxError("store/postgres", what, err)
}

func (s *Store) txOnce(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// retryable reports whether err is a serialization failure or a deadlock,
// after which the whole transaction may simply run again, and counts the
// deadlocks (Store.deadlocks).
func (s *Store) retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	if pe.Code == "40P01" {
		s.deadlocks.Add(1)
	}
	return pe.Code == "40001" || pe.Code == "40P01"
}

// lock takes a transaction-scoped advisory lock on key (hashed to 64 bits),
// serialising transactions that must not interleave on one logical key.
func lock(ctx context.Context, tx pgx.Tx, key string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, key); err != nil {
		return fmt.Errorf("lock %q: %w", key, err)
	}
	return nil
}

// lockShared takes key's transaction-scoped advisory lock in shared mode:
// any number of shared holders, none while lock holds it.
func lockShared(ctx context.Context, tx pgx.Tx, key string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))`, key); err != nil {
		return fmt.Errorf("lock %q (shared): %w", key, err)
	}
	return nil
}

// topicKey is the advisory lock key of a topic's crawl state. ResetTopic
// takes it exclusive; every transaction that adds rows of the topic
// (frontier entries, pages, blobs, parses' term counts, links, host yields,
// refresh claims, models, fences) takes it shared (lockTopics) as its first
// lock, before any row lock, so that a reset's deletes see all or nothing
// of each such transaction: under READ COMMITTED each of its statements has
// a snapshot of its own, and a write committed between two of them kept
// some rows and lost others (an enqueue its entries but not their counts,
// a group its pages but not their links). Transactions that only update or
// delete existing rows need no such lock: the reset's deletes wait for
// their row locks, or they for the reset's.
func topicKey(topic string) string { return "reset/" + topic }

// lockTopics takes the topics' topicKey locks shared, in sorted order.
func lockTopics(ctx context.Context, tx pgx.Tx, topics ...string) error {
	if len(topics) > 1 {
		topics = slices.Compact(slices.Sorted(slices.Values(topics)))
	}
	for _, t := range topics {
		if err := lockShared(ctx, tx, topicKey(t)); err != nil {
			return err
		}
	}
	return nil
}

// sharedTx is tx for the shared write methods (sqlshared.Methods.Tx).
func (s *Store) sharedTx(ctx context.Context, what string, fn func(sqlshared.Tx) error) error {
	return s.tx(ctx, what, func(tx pgx.Tx) error { return fn(writeTx{tx}) })
}

// exec runs one statement on the pool, a transaction of its own
// (sqlshared.Methods.Exec).
func (s *Store) exec(ctx context.Context, what, q string, args ...any) (int64, error) {
	tag, err := s.execRetry(ctx, rebind(q), args...)
	if err != nil {
		return 0, sqlshared.WrapTxError("store/postgres", what, err)
	}
	return tag.RowsAffected(), nil
}

// execRetry runs one statement on the pool as its own transaction, again
// after a deadlock or serialization failure, as tx does: a multi-row
// UPDATE takes its rows in key order (updateInKeyOrder), but another
// worker's transaction of several statements may not (a group's pages,
// then its entries; a test's rows one by one), and a deadlock with it
// (seen in TestFrontierCountsMatchRows) should not reach the caller.
// Every statement given to it must be safe to run twice.
func (s *Store) execRetry(ctx context.Context, q string, args ...any) (pgconn.CommandTag, error) {
	var tag pgconn.CommandTag
	var err error
	for attempt := 0; attempt <= txRetries; attempt++ {
		if tag, err = s.pool.Exec(ctx, q, args...); !s.retryable(err) {
			break
		}
	}
	return tag, err
}

// updateInKeyOrder returns an UPDATE of table's rows (frontier, pages or
// refresh_state, keyed by (topic, url_hash)) of topic $1 that meet where, a condition on
// table not aliased, its columns qualified by the table's name. It sets
// set on them; from and join, if not empty, add a FROM item and the
// condition that joins it. Before the UPDATE locks any row, it locks the
// rows that meet where in key order — url_hash in collation "C", the order
// in which raiseQueued takes the entries it raises.
//
// Every multi-row writer of a table's rows takes them in this one order,
// so two of them cannot deadlock. An UPDATE on its own locks rows in the
// order its plan reaches them: a scan of frontier_host_state (priority
// order, which other writers keep changing), frontier_batch_prefix, the
// topic's queue or the heap, or a join with an array whichever way the
// planner joins (sorting the array fixes nothing when the plan walks the
// table and probes the array). Such statements over overlapping rows
// deadlocked, each deadlock costing a worker the server's deadlock_timeout
// (1 s) and a rerun: DemoteQueued, Reprioritize and ReleaseBatches in
// TestFrontierHostsUnderConcurrentWriters, and every one of them in
// TestMultiRowUpdatesLockInKeyOrder. The sort is in collation "C" so that
// no plan walks the primary key through the whole topic for its order:
// the rows are found by where's index and then sorted (for hex URL
// hashes, "C" is the key's order in any collation anyway).
//
// The locks are taken by a CTE that the UPDATE's condition reads through
// an always-true sub-select: an InitPlan, which the plan runs once, as a
// one-time filter, before its scan returns a row, so the UPDATE itself
// keeps the plan it had alone. Both read the same snapshot with the same
// condition, so every row the UPDATE meets is one the CTE locked: FOR NO
// KEY UPDATE, the lock the UPDATE takes anyway, which under READ COMMITTED
// locks a row's newest version and checks where again on it, keeping the
// lock whether it still matches or not. The UPDATE waits for no row. The frontier_hosts head rows that a
// commit locks (migration 19) are taken after every row lock of the
// transaction, by a commit that waits for nothing else, so this order
// cannot invert with theirs.
func updateInKeyOrder(table, set, where, from, join string) string {
	q := `WITH locked AS (` + lockInKeyOrder(table, where) + `)
		UPDATE ` + table + ` SET ` + set
	if from != "" {
		q += `
		FROM ` + from
	}
	q += `
		WHERE ` + table + `.topic = $1 AND ` + where
	if join != "" {
		q += ` AND ` + join
	}
	return q + `
			AND (SELECT COUNT(*) FROM locked) >= 0`
}

// lockInKeyOrder returns a SELECT that locks table's rows (frontier, pages
// or refresh_state) of topic $1 that meet where (as in updateInKeyOrder) in key order,
// FOR NO KEY UPDATE: updateInKeyOrder's first step, and on its own the
// lock run of a transaction that updates the rows in several statements
// (WriteGroup's pages), so that it takes them in the one order of every
// multi-row writer and not statement by statement.
func lockInKeyOrder(table, where string) string {
	return `SELECT 1 FROM ` + table + ` WHERE ` + table + `.topic = $1 AND ` + where + `
			ORDER BY ` + table + `.url_hash COLLATE "C"
			FOR NO KEY UPDATE`
}

// writeTx is a transaction as the shared write code uses it: ?
// placeholders are rebound, and Lock is an advisory lock.
type writeTx struct{ tx pgx.Tx }

func (x writeTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := x.tx.Exec(ctx, rebind(q), args...)
	return tag.RowsAffected(), err
}

func (x writeTx) QueryRow(ctx context.Context, q string, args ...any) sqlshared.Scanner {
	return x.tx.QueryRow(ctx, rebind(q), args...)
}

func (writeTx) IsNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

func (x writeTx) Lock(ctx context.Context, key string) error { return lock(ctx, x.tx, key) }

func (x writeTx) LockTopic(ctx context.Context, topic string) error {
	return lockTopics(ctx, x.tx, topic)
}

// readConn is the pool as sqlshared.Reader uses it: its queries' ?
// placeholders become $1, $2, ... (rebind).
type readConn struct{ pool *pgxpool.Pool }

func (c readConn) QueryRow(ctx context.Context, q string, args ...any) sqlshared.Scanner {
	return c.pool.QueryRow(ctx, rebind(q), args...)
}

func (c readConn) Each(ctx context.Context, fn func(sqlshared.Scanner) error, q string, args ...any) error {
	rows, err := c.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return sqlshared.EachRow(rows, fn)
}

func (readConn) IsNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// rebound caches rebind's results: the shared queries are a few fixed texts.
var rebound sync.Map

// rebind rewrites the ? placeholders of a query written for both dialects
// as PostgreSQL's $1, $2, ... (none of the shared queries has a ? inside a
// string literal; those are skipped anyway).
func rebind(q string) string {
	if r, ok := rebound.Load(q); ok {
		return r.(string)
	}
	b := make([]byte, 0, len(q)+16)
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\'':
			quoted = !quoted
			b = append(b, c)
		case c == '?' && !quoted:
			n++
			b = fmt.Appendf(b, "$%d", n)
		default:
			b = append(b, c)
		}
	}
	r := string(b)
	rebound.Store(q, r)
	return r
}

// scanner is what pgx.Row and pgx.Rows have in common.
type scanner = sqlshared.Scanner

// execFunc runs one statement: a transaction's Exec when it is one part of
// a larger write (WriteGroup), or Store.execRetry when it is a write of its
// own, run again after a deadlock.
type execFunc func(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)

// collect reads every row of rows with scan, closing rows.
func collect[T any](rows pgx.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshared.CollectRows(rows, scan)
}

var (
	toNanos   = codec.Nanos
	fromNanos = codec.FromNanos
)
