// Package sqlitefts is focuscrawl's embedded search index: an index.Index in
// one SQLite file (modernc.org/sqlite, pure Go, FTS5), for a crawl that runs
// on one machine. Elasticsearch replaces it behind the same interface when
// one machine is not enough.
//
// # Schema
//
// Table docs holds each document as given, original text included; snippets
// are cut from it. Its key is (topic, id), enforced by UNIQUE(topic, id)
// rather than by PRIMARY KEY(topic, id): the table also needs an explicit
// INTEGER PRIMARY KEY (docid), because the full-text table is joined on
// rowid and SQLite's VACUUM may renumber the implicit rowid of a table that
// does not declare one. fetched_at is Unix milliseconds (UTC), NULL when
// unknown. PRAGMA user_version records the schema version.
//
// Table docs_fts is an FTS5 table over the segmented title, text and anchor
// texts, with rowid = docs.docid. It is contentless (option content set to
// the empty string) with contentless_delete=1: the segmented text exists only
// as index data, never
// a second time as stored columns, and rows can still be replaced and
// deleted. External content was not an option, because FTS5 would re-read
// the columns from docs on delete, and docs holds the unsegmented text. Both
// tables are written in the same transaction, so they never disagree. The
// FTS5 tokenizer is unicode61 with diacritics removed: it only re-splits the
// Segmenter's space-joined terms (a term like "e-mail" becomes the
// two-token phrase "e mail" on both the document and the query side), and
// lets "cafe" find "café". Its token characters include the tokenizer's
// textproc.ProtectedSymbols, so that "c++" and "c#" stay one token each.
//
// # Search
//
// The query text goes through index.ParseQuery; the MATCH expression is built
// from its output only, every term a quoted FTS5 string, phrases as quoted
// multi-token strings, all joined by AND. User input is therefore never FTS5
// syntax: `a OR b NEAR(c)` searches for the words a, or, b, near and c. A
// Chinese word a page may hold inside a longer word (index.HanWords) is the
// word or its parts in a NEAR group, a quoted Chinese phrase
// (index.HanPhrases) its tokens in a NEAR group; where only the NEAR group
// matched, the characters must be in a row in the stored title, text or
// anchor texts (index.ContainsChars, registered with the driver as the SQL
// function focuscrawl_contains_chars).
//
// Ranking:
//
//	score = bm25w × (0.5 + relevance) × (1 + authority)
//
// where bm25w = -bm25(docs_fts, 4, 1, 2), the positive form of FTS5's BM25
// (k1 = 1.2, b = 0.75) with column weights title 4, text 1, anchor texts 2:
// a term in the title says more about a page than one in its body, and the
// anchors other pages use for it come in between. Relevance (the page-to-topic
// score, in [0,1]) scales the text score by 0.5 to 1.5, so a page that is
// barely on topic needs a three times better text match to outrank a page
// that is squarely on topic. Authority (HITS, 0 until computed) is the
// crawl graph's L2-normalised authority: in [0,1], its squares summing to 1,
// so on a graph of N pages a typical page's is about 1/√N and the factor
// (1 + authority) separates near-ties rather than reorders results; only a
// small graph's most cited page comes near a factor of 2. The factors multiply rather than add so
// that the text score's scale, which varies with the corpus and the query,
// does not matter. Ties break by topic and ID, so paging is stable. BM25's
// statistics (document count, average lengths) are those of the whole index,
// all topics together.
//
// Relevance is clamped into [0,1] and negative link scores are stored as 0
// when documents are upserted; NaN or infinite scores are refused.
package sqlitefts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"focuscrawl/internal/index"
	"focuscrawl/internal/textproc"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// schemaVersion is stored in PRAGMA user_version. Version 2 added
// docs.link_spans, version 3 the protected tokens ("c++", "c#": docs_fts's
// tokenizer keeps textproc.ProtectedSymbols, and the documents are
// segmented again) (upgrades).
const schemaVersion = 3

// schema creates everything idempotently. The long text columns of docs come
// last: reading a column means stepping over the ones before it, and ranking
// reads relevance and authority of every match, so they must not sit behind
// a page text spilled into overflow pages.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS docs (
		docid        INTEGER PRIMARY KEY,
		topic        TEXT NOT NULL,
		id           TEXT NOT NULL,
		url          TEXT NOT NULL,
		host         TEXT NOT NULL,
		lang         TEXT NOT NULL,
		relevance    REAL NOT NULL,
		hub          REAL NOT NULL,
		authority    REAL NOT NULL,
		ipagerank    REAL NOT NULL,
		fetched_at   INTEGER,
		title        TEXT NOT NULL,
		text         TEXT NOT NULL,
		anchor_texts TEXT NOT NULL,
		link_spans   TEXT NOT NULL DEFAULT '', -- index.EncodeSpans of the text's link text
		UNIQUE (topic, id)
	)`,
	`CREATE INDEX IF NOT EXISTS docs_host ON docs (host)`,
	createFTSSQL,
	fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion),
}

// createFTSSQL creates docs_fts. The tokenize option is double-quoted:
// ftsTokenizer holds single quotes.
const createFTSSQL = `CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
		title, body, anchors,
		content='', contentless_delete=1,
		tokenize="` + ftsTokenizer + `"
	)`

// upgrades bring an index written by an earlier version to schemaVersion,
// in order; each runs when the file's version is below its own.
var upgrades = []struct {
	version int
	stmt    string
	// run, when not nil, runs after stmt.
	run func(x *Index, ctx context.Context, tx *sql.Tx) error
}{
	{2, `ALTER TABLE docs ADD COLUMN link_spans TEXT NOT NULL DEFAULT ''`, nil},
	// The tokenizer of an FTS5 table cannot be changed, and the text it
	// holds was segmented by a tokenizer that dropped "C++": the table is
	// made again and filled from the original text docs keeps
	// (resegment).
	{3, `DROP TABLE docs_fts`, (*Index).resegment},
}

// ftsTokenizer is docs_fts's tokenizer. It only re-splits the segmented
// text (terms joined by spaces), so what it splits at must not cut a term
// the tokenizer made whole: textproc.ProtectedSymbols are token characters,
// or "c++" would be indexed, and searched, as "c" — found in every page
// with "c#" or "c-section". The Elasticsearch template's focuscrawl_terms
// analyzer splits and folds the same way (TestElasticAnalyzerSplitsAsFTS5).
const ftsTokenizer = "unicode61 remove_diacritics 2 tokenchars '" + textproc.ProtectedSymbols + "'"

// Index is an index.Index stored in SQLite. It is safe for concurrent use.
type Index struct {
	db   *sql.DB
	seg  index.Segmenter
	path string // for the log lines of a long upgrade
}

var _ index.Index = (*Index)(nil)

// Open opens (creating if needed) the index at path, a file name or
// ":memory:" for a private in-memory index, and creates the schema if it is
// missing. seg segments documents and queries; give it the project's one
// tokenizer (textproc.Shared()).
//
// Connections use WAL (readers never wait for the writer), a 10 s busy
// timeout, foreign keys, and BEGIN IMMEDIATE for write transactions, so two
// writers queue on the busy timeout instead of deadlocking on a lock upgrade.
func Open(path string, seg index.Segmenter) (*Index, error) {
	if seg == nil {
		return nil, errors.New("sqlitefts: Open needs a Segmenter, got nil")
	}
	if path == "" {
		return nil, errors.New("sqlitefts: Open needs a path (or \":memory:\"), got \"\"")
	}
	// The driver reads connection parameters after a "?", so a path with
	// one would be cut in two.
	if strings.Contains(path, "?") {
		return nil, fmt.Errorf("sqlitefts: index path %q contains '?'", path)
	}
	// Its directory is made as the crawl store makes its own: a new
	// index.path directory failed with "unable to open database file".
	if path != ":memory:" && !strings.HasPrefix(path, "file:") {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("sqlitefts: open %s: create directory: %w", path, err)
		}
	}
	dsn := path + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlitefts: open %s: %w", path, err)
	}
	if path == ":memory:" {
		// Every connection to ":memory:" is a new, empty database: keep
		// exactly one and never let the pool close it.
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
	}
	x := &Index{db: db, seg: seg, path: path}
	// While another process (a worker starting beside this one) switches a
	// new file to WAL, SQLite can answer SQLITE_BUSY at once, without its
	// busy handler: wait and try again, for at most the busy timeout.
	deadline := time.Now().Add(openBusyTimeout)
	for {
		err := x.migrate(context.Background())
		if err == nil {
			return x, nil
		}
		if !isBusy(err) || time.Now().After(deadline) {
			db.Close()
			return nil, fmt.Errorf("sqlitefts: open %s: %w", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openBusyTimeout is how long Open keeps trying while the file is busy
// (the connections' busy_timeout).
const openBusyTimeout = 10 * time.Second

// isBusy reports whether err is SQLite's "database is locked" (SQLITE_BUSY).
func isBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

// migrate creates the schema, refusing a database written by a newer
// version of this package.
func (x *Index) migrate(ctx context.Context) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin schema transaction: %w", err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > schemaVersion {
		return fmt.Errorf("schema version %d is newer than this program's %d", v, schemaVersion)
	}
	for _, up := range upgrades {
		if v != 0 && v < up.version { // 0: a new file, created whole by schema
			if _, err := tx.ExecContext(ctx, up.stmt); err != nil {
				return fmt.Errorf("upgrade schema to version %d: %w", up.version, err)
			}
			if up.run != nil {
				if err := up.run(x, ctx, tx); err != nil {
					return fmt.Errorf("upgrade schema to version %d: %w", up.version, err)
				}
			}
		}
	}
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit schema: %w", err)
	}
	return nil
}

// resegmentBatch is how many documents resegment reads at a time, and
// resegmentReport how many it segments between two progress lines.
const (
	resegmentBatch  = 256
	resegmentReport = 20000
)

// resegment creates docs_fts (dropped by the upgrade) and fills it with
// every document's title, text and anchor texts segmented by x's
// Segmenter, as Upsert writes them, inside the upgrade's transaction: an
// index written before the protected tokens has no "c++" in its segmented
// text, and keeping that text under the new tokenizer would leave every
// such page unfindable by "C++" until re-crawled. It reads docs in docid
// order, a batch at a time. On a large index this takes a while (the
// tokenizer's speed: gojieba on every Chinese page), once.
func (x *Index) resegment(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, createFTSSQL); err != nil {
		return fmt.Errorf("create the full-text table again: %w", err)
	}
	insert, err := tx.PrepareContext(ctx, replaceFTSSQL)
	if err != nil {
		return err
	}
	defer insert.Close()
	type doc struct {
		docid                int64
		title, text, anchors string
	}
	// Minutes on a big index, inside Open, with the file locked: say so,
	// and how far it got (the worker's log; stderr for a search command).
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM docs`).Scan(&total); err != nil {
		return fmt.Errorf("count documents to segment again: %w", err)
	}
	start, done, next := time.Now(), 0, resegmentReport
	slog.Info("search index: segmenting every document again for the protected tokens (c++, c#); the index file is locked until it ends",
		"path", x.path, "documents", total)
	var last int64 = -1 << 63
	for {
		rows, err := tx.QueryContext(ctx,
			`SELECT docid, title, text, anchor_texts FROM docs WHERE docid > ? ORDER BY docid LIMIT ?`, last, resegmentBatch)
		if err != nil {
			return fmt.Errorf("read documents to segment again: %w", err)
		}
		var batch []doc
		for rows.Next() {
			var d doc
			if err := rows.Scan(&d.docid, &d.title, &d.text, &d.anchors); err != nil {
				rows.Close()
				return fmt.Errorf("read documents to segment again: %w", err)
			}
			batch = append(batch, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read documents to segment again: %w", err)
		}
		if len(batch) == 0 {
			slog.Info("search index: documents segmented again", "path", x.path, "documents", done,
				"took", time.Since(start).Round(time.Millisecond))
			return nil
		}
		if done += len(batch); done >= next {
			slog.Info("search index: segmenting documents again", "path", x.path, "done", done, "of", total,
				"elapsed", time.Since(start).Round(time.Second))
			next += resegmentReport
		}
		for _, d := range batch {
			_, err := insert.ExecContext(ctx, d.docid, x.seg.Segment(d.title), x.seg.Segment(d.text), x.seg.Segment(d.anchors))
			if err != nil {
				return fmt.Errorf("index the text of document %d again: %w", d.docid, err)
			}
		}
		last = batch[len(batch)-1].docid
	}
}

// Count returns the number of documents of topic, or of all topics if topic
// is "".
func (x *Index) Count(ctx context.Context, topic string) (int, error) {
	var n int
	var err error
	if topic == "" {
		err = x.db.QueryRowContext(ctx, `SELECT count(*) FROM docs`).Scan(&n)
	} else {
		err = x.db.QueryRowContext(ctx, `SELECT count(*) FROM docs WHERE topic = ?`, topic).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("sqlitefts: count documents of topic %q: %w", topic, err)
	}
	return n, nil
}

// Close closes the database. For ":memory:" this discards the index.
func (x *Index) Close() error {
	if err := x.db.Close(); err != nil {
		return fmt.Errorf("sqlitefts: close: %w", err)
	}
	return nil
}
