package sqlshared

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/codec"
)

// Conn is a backend's read connection as Methods uses it. Methods' queries
// are written with ? placeholders and SQL both dialects accept; a backend
// whose driver wants other placeholders rewrites them in its Conn.
type Conn interface {
	// QueryRow runs a query expected to return at most one row.
	QueryRow(ctx context.Context, query string, args ...any) Scanner
	// Each runs a query and calls fn for each row until fn fails.
	Each(ctx context.Context, fn func(Scanner) error, query string, args ...any) error
	// IsNoRows reports whether err is the driver's "no rows" of QueryRow.
	IsNoRows(err error) bool
}

// Methods is the one implementation of the store.Store methods whose SQL
// is the same in both backends; a backend embeds it, over its read
// connection and its ways to write.
type Methods struct {
	Conn   Conn   // reads
	Prefix string // names the backend in errors: "store/sqlite"
	// Tx runs fn in one write transaction and commits it; any error rolls
	// back. what names the operation in errors.
	Tx func(ctx context.Context, what string, fn func(Tx) error) error
	// Exec runs one statement as a write of its own and returns how many
	// rows it changed; what names the operation in errors.
	Exec func(ctx context.Context, what, query string, args ...any) (int64, error)
	// RefreshEligible returns the backend's clause (from FROM on) that
	// selects the pages a refresh claim may take, and its arguments: the
	// one refresh query whose SQL differs between the dialects.
	RefreshEligible func(store.RefreshClaim) (from string, args []any)
	// RefreshOutlookQuery returns the backend's query for RefreshOutlook and
	// its arguments: one row of the refreshable pages' count, the due pages'
	// count and the earliest time a claim could take one (unix ns, NULL
	// when none), over the eligibility clause's pages.
	RefreshOutlookQuery func(store.RefreshClaim) (query string, args []any)
}

// errorf returns an error prefixed with the backend's name.
func (r Methods) errorf(format string, args ...any) error {
	return fmt.Errorf(r.Prefix+": "+format, args...)
}

// notFound is NotFound with the backend's name.
func (r Methods) notFound(format string, args ...any) error {
	return fmt.Errorf("%s: %w", r.Prefix, NotFound(format, args...))
}

// NotFound builds an error wrapping store.ErrNotFound that names the key.
// The backends' transaction runners put their name before it.
func NotFound(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), store.ErrNotFound)
}

// queryAll reads every row of a query with scan.
func queryAll[T any](ctx context.Context, c Conn, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	var out []T
	err := c.Each(ctx, func(sc Scanner) error {
		v, err := scan(sc)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	}, query, args...)
	return out, err
}

// queryPages reads the pages selected by where (a clause after FROM pages).
func (r Methods) queryPages(ctx context.Context, where string, args ...any) ([]store.Page, error) {
	return queryAll(ctx, r.Conn, ScanPage, `SELECT `+PageColumns+` FROM pages `+where, args...)
}

// Topic returns version of topic name; version 0 means the latest.
func (r Methods) Topic(ctx context.Context, name string, version int) (store.Topic, error) {
	q := `SELECT name, version, yaml, hash, created_at FROM topics WHERE name = ? AND version = ?`
	args := []any{name, version}
	if version == 0 {
		q = `SELECT name, version, yaml, hash, created_at FROM topics WHERE name = ?
			ORDER BY version DESC LIMIT 1`
		args = args[:1]
	}
	var t store.Topic
	var created int64
	err := r.Conn.QueryRow(ctx, q, args...).Scan(&t.Name, &t.Version, &t.YAML, &t.Hash, &created)
	if r.Conn.IsNoRows(err) {
		return store.Topic{}, r.notFound("topic %q version %d", name, version)
	}
	if err != nil {
		return store.Topic{}, r.errorf("topic %q version %d: %w", name, version, err)
	}
	t.CreatedAt = FromNanos(created)
	return t, nil
}

// TopicNames lists every stored topic's name, sorted by bytes (as Go
// sorts: PostgreSQL's ORDER BY follows the database's collation, which an
// ICU or en_US database makes "Go" < "_misc" < "go").
func (r Methods) TopicNames(ctx context.Context) ([]string, error) {
	out, err := queryAll(ctx, r.Conn, ScanString, `SELECT DISTINCT name FROM topics`)
	if err != nil {
		return nil, r.errorf("topic names: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// HeldHosts lists the hosts held after now (store.Hosts). "held_until >
// 0" lets the planner use the partial index of held hosts.
func (r Methods) HeldHosts(ctx context.Context, now time.Time) ([]string, error) {
	out, err := queryAll(ctx, r.Conn, ScanString, `SELECT host FROM hosts WHERE held_until > 0 AND held_until > ?`, now.UnixNano())
	if err != nil {
		return nil, r.errorf("held hosts: %w", err)
	}
	return out, nil
}

// HostHeldUntil returns when host's hold ends (store.Hosts).
func (r Methods) HostHeldUntil(ctx context.Context, host string) (time.Time, error) {
	var until int64
	err := r.Conn.QueryRow(ctx, `SELECT held_until FROM hosts WHERE host = ?`, host).Scan(&until)
	if r.Conn.IsNoRows(err) || (err == nil && until <= 0) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, r.errorf("hold of host %q: %w", host, err)
	}
	return time.Unix(0, until), nil
}

// Crawl returns the crawl with the given ID.
func (r Methods) Crawl(ctx context.Context, id string) (store.Crawl, error) {
	c, err := ScanCrawl(r.Conn.QueryRow(ctx, `SELECT `+CrawlColumns+` FROM crawls WHERE id = ?`, id))
	if r.Conn.IsNoRows(err) {
		return store.Crawl{}, r.notFound("crawl %q", id)
	}
	if err != nil {
		return store.Crawl{}, r.errorf("crawl %q: %w", id, err)
	}
	return c, nil
}

// CrawlLog calls fn for every page of the crawl in Seq order, stopping at
// (and returning) fn's first error. Pages are read in chunks by keyset on
// (crawl_id, seq), so memory stays bounded however long the crawl.
func (r Methods) CrawlLog(ctx context.Context, crawlID string, fn func(store.Page) error) error {
	return Stream(func(last *store.Page) ([]store.Page, error) {
		after := int64(0)
		if last != nil {
			after = last.Seq
		}
		pages, err := r.queryPages(ctx, `WHERE crawl_id = ? AND seq > ? ORDER BY seq LIMIT ?`, crawlID, after, ChunkSize)
		if err != nil {
			return nil, r.errorf("log of crawl %q: %w", crawlID, err)
		}
		return pages, nil
	}, fn)
}

// RecentPages returns up to limit pages of the crawl fetched before
// beforeSeq (0: the newest), newest first, through the (crawl_id, seq) index.
func (r Methods) RecentPages(ctx context.Context, crawlID string, beforeSeq int64, limit int) ([]store.Page, error) {
	if beforeSeq <= 0 {
		beforeSeq = math.MaxInt64
	}
	pages, err := r.queryPages(ctx, `WHERE crawl_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, crawlID, beforeSeq, limit)
	if err != nil {
		return nil, r.errorf("recent pages of crawl %q: %w", crawlID, err)
	}
	return pages, nil
}

// Page returns one page of a topic.
func (r Methods) Page(ctx context.Context, topic, urlHash string) (store.Page, error) {
	p, err := ScanPage(r.Conn.QueryRow(ctx, `SELECT `+PageColumns+` FROM pages WHERE topic = ? AND url_hash = ?`,
		topic, urlHash))
	if r.Conn.IsNoRows(err) {
		return store.Page{}, r.notFound("page %s of topic %q", urlHash, topic)
	}
	if err != nil {
		return store.Page{}, r.errorf("page %s of topic %q: %w", urlHash, topic, err)
	}
	return p, nil
}

// BatchPages returns the pages saved by a batch, in Seq order.
func (r Methods) BatchPages(ctx context.Context, topic, batchID string) ([]store.Page, error) {
	if batchID == "" {
		return nil, nil // no batch: pages and queued entries carry the empty ID
	}
	// Seq is per crawl, and a refresh batch holds pages of several: the
	// URL hash makes the order one on both backends.
	pages, err := r.queryPages(ctx, `WHERE topic = ? AND batch_id = ? ORDER BY seq, url_hash`, topic, batchID)
	if err != nil {
		return nil, r.errorf("pages of batch %q of topic %q: %w", batchID, topic, err)
	}
	return pages, nil
}

// ClaimedPages returns, by URL hash, the topic's stored pages of the
// entries batchID holds (store.Pages).
func (r Methods) ClaimedPages(ctx context.Context, topic, batchID string) (map[string]store.Page, error) {
	if batchID == "" {
		return nil, nil // queued entries carry the empty ID
	}
	// batch_id <> '' lets PostgreSQL's planner use its partial batch index
	// in a generic plan too.
	pages, err := r.queryPages(ctx, `WHERE topic = ? AND url_hash IN
		(SELECT url_hash FROM frontier WHERE topic = ? AND batch_id = ? AND batch_id <> '')`, topic, topic, batchID)
	if err != nil {
		return nil, r.errorf("pages of the entries of batch %q of topic %q: %w", batchID, topic, err)
	}
	out := make(map[string]store.Page, len(pages))
	for _, p := range pages {
		out[p.URLHash] = p
	}
	return out, nil
}

// DuplicateOf returns the URL hash of an earlier page of p's topic — a
// judged one of another crawl, or one of p's crawl with a lower Seq (any,
// when p.Seq is 0) — or of an accepted one in any order, with p's final URL
// hash or, failing that, p's content hash; or "". Failed pages (ErrorClass
// != "") and duplicates are never originals (store.Pages says why), and
// neither is another crawl's page still waiting to be judged: a refresh
// batch holds pages of several crawls, all waiting, and two of them that
// became the same page were each judged the other's copy (neither indexed,
// neither revisited again). The earliest fetched match wins.
func (r Methods) DuplicateOf(ctx context.Context, p store.Page, skip ...string) (string, error) {
	seq, probes := DuplicateProbes(p)
	passOver, args := "", []any{}
	for _, h := range skip {
		passOver += ` AND url_hash <> ?`
		args = append(args, h)
	}
	for _, c := range probes {
		var hash string
		err := r.Conn.QueryRow(ctx, `SELECT url_hash FROM pages
			WHERE topic = ? AND `+c.Col+` = ? AND url_hash <> ? AND error_class = '' AND decision <> ?
			AND ((crawl_id <> ? AND decision <> ?) OR (crawl_id = ? AND seq < ?) OR decision = ?)`+passOver+`
			ORDER BY fetched_at, seq LIMIT 1`, append([]any{p.Topic, c.Val, p.URLHash, store.DecisionDuplicate,
			p.CrawlID, store.DecisionPending, p.CrawlID, seq, store.DecisionAccepted}, args...)...).Scan(&hash)
		if err == nil {
			return hash, nil
		}
		if !r.Conn.IsNoRows(err) {
			return "", r.errorf("duplicate of page %s of topic %q by %s: %w", p.URLHash, p.Topic, c.Col, err)
		}
	}
	return "", nil
}

// IndexHolders returns, by final URL hash, the earliest fetched accepted
// and indexed page of the topic outside except with each of finalHashes
// (store.Pages). A query per hash, on the pages_final_hash index: callers
// pass the few documents a batch gives up, and the one query form works
// in both dialects, which spell a list parameter differently.
func (r Methods) IndexHolders(ctx context.Context, topic string, finalHashes, except []string) (map[string]store.Page, error) {
	skip := make(map[string]bool, len(except))
	for _, h := range except {
		skip[h] = true
	}
	out := map[string]store.Page{}
	asked := map[string]bool{}
	for _, f := range finalHashes {
		if f == "" || asked[f] {
			continue
		}
		asked[f] = true
		// Through the final-hash index: with the decision in the same
		// WHERE, SQLite's planner read every accepted page of the topic.
		pages, err := r.queryPages(ctx, `WHERE url_hash IN (SELECT url_hash FROM pages WHERE topic = ? AND final_hash = ?)
			AND topic = ? AND decision = ? AND is_indexed <> 0
			ORDER BY fetched_at, seq`, topic, f, topic, store.DecisionAccepted)
		if err != nil {
			return nil, r.errorf("index holders of %s of topic %q: %w", f, topic, err)
		}
		for _, p := range pages {
			if !skip[p.URLHash] {
				out[f] = p
				break
			}
		}
	}
	return out, nil
}

// SharedFinalHashesQuery is SharedFinalHashes' query (exported for the
// backends' query plan tests). Grouped in the order of the pages_final_hash
// index (topic, final_hash), it holds one group at a time: no temporary
// table of the topic's documents.
const SharedFinalHashesQuery = `SELECT final_hash FROM pages
	WHERE topic = ? AND decision = ? AND is_indexed <> 0 AND final_hash <> ''
	GROUP BY final_hash HAVING COUNT(*) > 1 ORDER BY final_hash`

// SharedFinalHashes returns the final URL hashes two or more accepted,
// indexed pages of the topic share (store.Pages).
func (r Methods) SharedFinalHashes(ctx context.Context, topic string) ([]string, error) {
	out, err := queryAll(ctx, r.Conn, ScanString, SharedFinalHashesQuery, topic, store.DecisionAccepted)
	if err != nil {
		return nil, r.errorf("shared final hashes of topic %q: %w", topic, err)
	}
	return out, nil
}

// Blob returns a stored blob of a page, decompressed.
func (r Methods) Blob(ctx context.Context, topic, urlHash, kind string) ([]byte, error) {
	var encoding string
	var size int64
	var packed []byte
	err := r.Conn.QueryRow(ctx, `SELECT encoding, size, data FROM blobs WHERE topic = ? AND url_hash = ? AND kind = ?`,
		topic, urlHash, kind).Scan(&encoding, &size, &packed)
	if r.Conn.IsNoRows(err) {
		return nil, r.notFound("%s blob of page %s of topic %q", kind, urlHash, topic)
	}
	if err != nil {
		return nil, r.errorf("%s blob of page %s of topic %q: %w", kind, urlHash, topic, err)
	}
	data, err := codec.Decompress(encoding, packed, size)
	if err != nil {
		return nil, r.errorf("%s blob of page %s of topic %q: decompress: %w", kind, urlHash, topic, err)
	}
	return data, nil
}

// AcceptedPages calls fn for every accepted page of the topic (in URL hash
// order), stopping at and returning fn's first error.
func (r Methods) AcceptedPages(ctx context.Context, topic string, fn func(store.Page) error) error {
	return r.AcceptedPagesAfter(ctx, topic, "", fn)
}

// AcceptedPagesAfter is AcceptedPages from the first URL hash after after.
func (r Methods) AcceptedPagesAfter(ctx context.Context, topic, after string, fn func(store.Page) error) error {
	start := after
	return Stream(func(last *store.Page) ([]store.Page, error) {
		after := start
		if last != nil {
			after = last.URLHash
		}
		pages, err := r.queryPages(ctx, `WHERE topic = ? AND decision = ? AND url_hash > ? ORDER BY url_hash LIMIT ?`,
			topic, store.DecisionAccepted, after, ChunkSize)
		if err != nil {
			return nil, r.errorf("accepted pages of topic %q: %w", topic, err)
		}
		return pages, nil
	}, fn)
}

// BestPagesSQL is BestPages' query for q and its arguments. Only its
// crawl_id term has an index (pages_crawl_seq): the database reads the
// crawl's pages, filters them and keeps the best q.Limit in a bounded
// sort (store.Pages.BestPages says why no index by score). The reason
// terms are LIKE patterns, which SQLite matches ignoring ASCII case and
// PostgreSQL not: the marks they look for are focuscrawl's own phrases.
func BestPagesSQL(q store.BestPagesQuery) (string, []any) {
	query := `SELECT ` + PageColumns + ` FROM pages WHERE crawl_id = ? AND decision = ? AND depth >= ?`
	args := []any{q.CrawlID, q.Decision, q.MinDepth}
	if q.MaxDepth > 0 {
		query += ` AND depth < ?`
		args = append(args, q.MaxDepth)
	}
	if q.ReasonHas != "" {
		query += ` AND reason LIKE ? ESCAPE '\'`
		args = append(args, "%"+likeEscape(q.ReasonHas)+"%")
	}
	for _, lacks := range q.ReasonLacks {
		if lacks != "" {
			query += ` AND reason NOT LIKE ? ESCAPE '\'`
			args = append(args, "%"+likeEscape(lacks)+"%")
		}
	}
	if q.AfterHash != "" {
		query += ` AND (relevance < ? OR relevance = ? AND url_hash > ?)`
		args = append(args, q.AfterRelevance, q.AfterRelevance, q.AfterHash)
	}
	return query + ` ORDER BY relevance DESC, url_hash LIMIT ?`, append(args, q.Limit)
}

// BestPages returns the pages q selects, best first (store.Pages).
func (r Methods) BestPages(ctx context.Context, q store.BestPagesQuery) ([]store.Page, error) {
	if q.Limit <= 0 {
		return nil, r.errorf("best %s pages of crawl %q: limit %d (want > 0)", q.Decision, q.CrawlID, q.Limit)
	}
	query, args := BestPagesSQL(q)
	pages, err := queryAll(ctx, r.Conn, ScanPage, query, args...)
	if err != nil {
		return nil, r.errorf("best %s pages of crawl %q: %w", q.Decision, q.CrawlID, err)
	}
	return pages, nil
}

// DryExpandedQuery is DryExpanded's query (arguments: the crawl, the mark
// as a LIKE pattern escaped with a backslash). Like BestPagesSQL's, only
// its crawl_id term has an index.
const DryExpandedQuery = `SELECT decision, COUNT(*) FROM pages
	WHERE crawl_id = ? AND reason LIKE ? ESCAPE '\' GROUP BY decision`

// DryExpanded counts, by decision, the crawl's pages whose reason contains
// mark (store.Pages).
func (r Methods) DryExpanded(ctx context.Context, crawlID, mark string) (map[string]int, error) {
	out := map[string]int{}
	err := r.Conn.Each(ctx, func(sc Scanner) error {
		var d string
		var n int
		if err := sc.Scan(&d, &n); err != nil {
			return err
		}
		out[d] = n
		return nil
	}, DryExpandedQuery, crawlID, "%"+likeEscape(mark)+"%")
	if err != nil {
		return nil, r.errorf("dry-expanded pages of crawl %q: %w", crawlID, err)
	}
	return out, nil
}

// likeEscape escapes s for a LIKE pattern whose escape character is a
// backslash: s's own backslashes, percent signs and underscores match
// themselves.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// BatchEntries returns a batch's entries in claim order (empty for an
// unknown batch, and for the empty ID, which queued entries carry).
func (r Methods) BatchEntries(ctx context.Context, topic, batchID string) ([]store.FrontierEntry, error) {
	if batchID == "" {
		return nil, nil
	}
	out, err := queryAll(ctx, r.Conn, ScanEntry, `SELECT `+FrontierColumns+` FROM frontier
		WHERE topic = ? AND batch_id = ? ORDER BY claim_pos`, topic, batchID)
	if err != nil {
		return nil, r.errorf("entries of batch %q of topic %q: %w", batchID, topic, err)
	}
	return out, nil
}

// Edges calls fn for every edge of the topic's graph, ordered by (Src, Dst),
// stopping at and returning fn's first error. It reads chunks by keyset on
// the primary key, so memory is bounded by the chunk, not the graph; the
// row-value comparison is a range scan on that key in both dialects.
func (r Methods) Edges(ctx context.Context, topic string, fn func(store.Link) error) error {
	return r.edges(ctx, topic, true, fn)
}

// GraphEdges is Edges with only Src, Dst and Score read: the graph
// computations read every edge of the crawl, and the anchor texts, their
// surrounding text and the target URL were most of the bytes read and
// allocated for them (BenchmarkEdgesScan).
func (r Methods) GraphEdges(ctx context.Context, topic string, fn func(store.Link) error) error {
	return r.edges(ctx, topic, false, fn)
}

func (r Methods) edges(ctx context.Context, topic string, full bool, fn func(store.Link) error) error {
	cols := `src, dst, score`
	if full {
		cols = `src, dst, dst_url, anchor, context, score`
	}
	q := `SELECT ` + cols + ` FROM links WHERE topic = ? AND (src, dst) > (?, ?) ORDER BY src, dst LIMIT ?`
	return Stream(func(last *store.Link) ([]store.Link, error) {
		var afterSrc, afterDst string
		if last != nil {
			afterSrc, afterDst = last.Src, last.Dst
		}
		links, err := queryAll(ctx, r.Conn, func(sc Scanner) (store.Link, error) {
			var l store.Link
			if full {
				return l, sc.Scan(&l.Src, &l.Dst, &l.DstURL, &l.Anchor, &l.Context, &l.Score)
			}
			return l, sc.Scan(&l.Src, &l.Dst, &l.Score)
		}, q, topic, afterSrc, afterDst, ChunkSize)
		if err != nil {
			return nil, r.errorf("edges of topic %q: %w", topic, err)
		}
		return links, nil
	}, fn)
}

// Model returns version (0 = latest) of (topic, kind) and its version number.
func (r Methods) Model(ctx context.Context, topic, kind string, version int) ([]byte, int, error) {
	q := `SELECT data, version FROM models WHERE topic = ? AND kind = ? AND version = ?`
	args := []any{topic, kind, version}
	if version == 0 {
		q = `SELECT data, version FROM models WHERE topic = ? AND kind = ? ORDER BY version DESC LIMIT 1`
		args = args[:2]
	}
	var data []byte
	var v int
	err := r.Conn.QueryRow(ctx, q, args...).Scan(&data, &v)
	if r.Conn.IsNoRows(err) {
		return nil, 0, r.notFound("%q model of topic %q version %d", kind, topic, version)
	}
	if err != nil {
		return nil, 0, r.errorf("%q model of topic %q version %d: %w", kind, topic, version, err)
	}
	return data, v, nil
}

// RefreshDue counts the pages a refresh claim could take now.
func (r Methods) RefreshDue(ctx context.Context, req store.RefreshClaim) (int, error) {
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	from, args := r.RefreshEligible(req)
	var n int
	if err := r.Conn.QueryRow(ctx, `SELECT COUNT(*) `+from, args...).Scan(&n); err != nil {
		return 0, r.errorf("pages of topic %q due for refresh: %w", req.Topic, err)
	}
	return n, nil
}

// RefreshOutlook counts the pages a refresh may take and finds when a claim
// could take the next (see store.Refreshes).
func (r Methods) RefreshOutlook(ctx context.Context, req store.RefreshClaim) (store.RefreshOutlook, error) {
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	q, args := r.RefreshOutlookQuery(req)
	var o store.RefreshOutlook
	var next *int64
	if err := r.Conn.QueryRow(ctx, q, args...).Scan(&o.Refreshable, &o.Due, &next); err != nil {
		return o, r.errorf("refresh outlook of topic %q: %w", req.Topic, err)
	}
	if next != nil && o.Refreshable > 0 {
		// A page due since before now (a claim that ran out without a
		// retry delay has next_at 0) is due now: no date in the past.
		o.NextAt = FromNanos(*next)
		if o.NextAt.Before(req.Now) {
			o.NextAt = req.Now
		}
	}
	return o, nil
}

// GivenUpFinals returns the final hashes a refresh batch's pages gave up
// (see store.Refreshes): of the pages it still holds, as RefreshBatch
// reads them, not of those ReleaseRefresh released, which keep theirs for
// the claim that takes them next. An empty batch ID is refused: it would
// name every page no batch holds.
func (r Methods) GivenUpFinals(ctx context.Context, topic, batchID string) ([]string, error) {
	if batchID == "" {
		return nil, r.errorf("final hashes given up in topic %q: batch ID is required", topic)
	}
	out, err := queryAll(ctx, r.Conn, ScanString, `SELECT DISTINCT g.final_hash
		FROM refresh_state s JOIN refresh_given_up g ON g.topic = s.topic AND g.url_hash = s.url_hash
		WHERE s.topic = ? AND s.batch_id = ? AND s.lease_until > 0 ORDER BY g.final_hash`, topic, batchID)
	if err != nil {
		return nil, r.errorf("final hashes given up by refresh batch %q of topic %q: %w", batchID, topic, err)
	}
	return out, nil
}

// RefreshInfo returns a page's revisit bookkeeping (zero if never revisited).
func (r Methods) RefreshInfo(ctx context.Context, topic, urlHash string) (store.RefreshInfo, error) {
	ri, err := ScanRefreshInfo(r.Conn.QueryRow(ctx, `SELECT `+RefreshColumns+` FROM refresh_state
		WHERE topic = ? AND url_hash = ?`, topic, urlHash))
	if r.Conn.IsNoRows(err) {
		return store.RefreshInfo{}, nil
	}
	if err != nil {
		return ri, r.errorf("refresh info of page %s of topic %q: %w", urlHash, topic, err)
	}
	return ri, nil
}
