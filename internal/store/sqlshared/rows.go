package sqlshared

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/codec"
)

// PageColumns are the columns of a store.Page in the pages table, in the
// order of PageDest.
const PageColumns = `topic, url_hash, url, final_url, final_hash, crawl_id, batch_id, seq, depth,
	parent_url, anchor_path, link_score, link_strategy, status, error_class, error_msg, content_type,
	charset, etag, last_modified, content_hash, bytes, fetched_at, title, lang, relevance, filter_name,
	decision, reason, is_indexed, hub, authority, ipagerank, robots_tag, text_hash`

// PageDest returns the scan destinations of PageColumns for p, with the
// two columns that need converting scanned into fetched and indexed.
func PageDest(p *store.Page, fetched *int64, indexed *int) []any {
	return []any{&p.Topic, &p.URLHash, &p.URL, &p.FinalURL, &p.FinalHash, &p.CrawlID, &p.BatchID, &p.Seq,
		&p.Depth, &p.ParentURL, &p.AnchorPath, &p.LinkScore, &p.LinkStrategy, &p.Status, &p.ErrorClass,
		&p.Error, &p.ContentType, &p.Charset, &p.ETag, &p.LastModified, &p.ContentHash, &p.Bytes, fetched,
		&p.Title, &p.Lang, &p.Relevance, &p.Filter, &p.Decision, &p.Reason, indexed, &p.Hub, &p.Authority,
		&p.IPageRank, &p.RobotsTag, &p.TextHash}
}

// PageArgs returns the values of PageColumns for p, as query arguments.
func PageArgs(p store.Page) []any {
	fetched, indexed := ToNanos(p.FetchedAt), BoolInt(p.Indexed)
	return derefAll(PageDest(&p, &fetched, &indexed))
}

// ScanPage reads one row of PageColumns.
func ScanPage(sc Scanner) (store.Page, error) {
	return ScanPageWith(sc)
}

// ScanPageWith reads one row of PageColumns followed by the columns of
// extra (scan destinations of the caller's own columns).
func ScanPageWith(sc Scanner, extra ...any) (store.Page, error) {
	var p store.Page
	var fetched int64
	var indexed int
	if err := sc.Scan(append(PageDest(&p, &fetched, &indexed), extra...)...); err != nil {
		return store.Page{}, err
	}
	p.FetchedAt = FromNanos(fetched)
	p.Indexed = indexed != 0
	return p, nil
}

// derefAll turns scan destinations (pointers) into query arguments (values).
func derefAll(ptrs []any) []any {
	out := make([]any, len(ptrs))
	for i, p := range ptrs {
		switch v := p.(type) {
		case *string:
			out[i] = *v
		case *int:
			out[i] = *v
		case *int64:
			out[i] = *v
		case *float64:
			out[i] = *v
		default:
			panic(fmt.Sprintf("derefAll: unexpected %T", p))
		}
	}
	return out
}

// CheckPage refuses a page SavePage cannot store and fills in its
// FetchedAt (now, as it will read back: UTC, no monotonic clock) and Bytes
// (bodyLen) when zero.
func CheckPage(p *store.Page, bodyLen int) error {
	if p.Topic == "" || p.URLHash == "" {
		return fmt.Errorf("save page %q of topic %q: topic and URL hash are required", p.URL, p.Topic)
	}
	for _, f := range []float64{p.LinkScore, p.Relevance, p.Hub, p.Authority, p.IPageRank} {
		if math.IsNaN(f) {
			return fmt.Errorf("save page %q of topic %q: NaN score", p.URL, p.Topic)
		}
	}
	if p.FetchedAt.IsZero() {
		p.FetchedAt = time.Now()
	}
	p.FetchedAt = FromNanos(ToNanos(p.FetchedAt))
	if p.Bytes == 0 {
		p.Bytes = bodyLen
	}
	validText(p)
	return nil
}

// validText replaces invalid UTF-8 and NUL bytes in p's text fields with
// U+FFFD. They come from response headers (ETag, Last-Modified,
// X-Robots-Tag, which Go's HTTP client passes on byte for byte) and error
// messages (a TLS error names the certificate's DNS names as they are, NUL
// included): PostgreSQL refuses such text, and one server's Latin-1 ETag
// failed its whole group's write, and the slice with it, at every attempt.
func validText(p *store.Page) {
	for _, f := range []*string{&p.URL, &p.FinalURL, &p.ParentURL, &p.AnchorPath, &p.LinkStrategy, &p.ErrorClass,
		&p.Error, &p.ContentType, &p.Charset, &p.ETag, &p.LastModified, &p.RobotsTag, &p.Title, &p.Lang,
		&p.Filter, &p.Decision, &p.Reason} {
		*f = ValidText(*f)
	}
}

// ValidText returns s with invalid UTF-8 and NUL bytes replaced by U+FFFD:
// text both stores keep alike (PostgreSQL refuses either in a text column).
func ValidText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

// CrawlColumns are the columns of a store.Crawl in the crawls table, in
// the order ScanCrawl reads them.
const CrawlColumns = `id, topic, topic_version, state, started_at, updated_at, link_model_version, rank_version`

// ScanCrawl reads one row of CrawlColumns.
func ScanCrawl(sc Scanner) (store.Crawl, error) {
	var c store.Crawl
	var started, updated int64
	if err := sc.Scan(&c.ID, &c.Topic, &c.TopicVersion, &c.State, &started, &updated,
		&c.LinkModelVersion, &c.RankVersion); err != nil {
		return store.Crawl{}, err
	}
	c.StartedAt, c.UpdatedAt = FromNanos(started), FromNanos(updated)
	return c, nil
}

// FrontierColumns are the columns of a store.FrontierEntry in the frontier
// table, in the order ScanEntry reads them.
const FrontierColumns = `topic, url_hash, url, host, priority, depth, parent_hash, parent_url, anchor,
	anchor_path, link_score, strategy, state, batch_id, lease_until, attempts, crawl_id`

// ScanEntry reads one row of FrontierColumns.
func ScanEntry(sc Scanner) (store.FrontierEntry, error) {
	var e store.FrontierEntry
	var lease int64
	err := sc.Scan(&e.Topic, &e.URLHash, &e.URL, &e.Host, &e.Priority, &e.Depth, &e.ParentHash,
		&e.ParentURL, &e.Anchor, &e.AnchorPath, &e.LinkScore, &e.Strategy, &e.State, &e.BatchID,
		&lease, &e.Attempts, &e.CrawlID)
	e.LeaseUntil = FromNanos(lease)
	return e, err
}

// RefreshColumns are the refresh_state columns of a store.RefreshInfo, in
// the order ScanRefreshInfo reads them.
const RefreshColumns = `next_at, interval_ns, checks, changes, batch_id, dropped, failures, unreachable, unreachable_since`

// ScanRefreshInfo reads one row of RefreshColumns.
func ScanRefreshInfo(sc Scanner) (store.RefreshInfo, error) {
	var ri store.RefreshInfo
	var next, interval, since int64
	if err := sc.Scan(refreshDest(&ri, &next, &interval, &since)...); err != nil {
		return store.RefreshInfo{}, err
	}
	ri.NextAt, ri.Interval, ri.UnreachableSince = RefreshTime(next), time.Duration(interval), FromNanos(since)
	return ri, nil
}

// ScanRefreshItem reads one row of PageColumns followed by RefreshColumns.
func ScanRefreshItem(sc Scanner) (store.RefreshItem, error) {
	var it store.RefreshItem
	var next, interval, since int64
	p, err := ScanPageWith(sc, refreshDest(&it.Refresh, &next, &interval, &since)...)
	if err != nil {
		return store.RefreshItem{}, err
	}
	it.Page = p
	it.Refresh.NextAt, it.Refresh.Interval = RefreshTime(next), time.Duration(interval)
	it.Refresh.UnreachableSince = FromNanos(since)
	return it, nil
}

func refreshDest(ri *store.RefreshInfo, next, interval, since *int64) []any {
	return []any{next, interval, &ri.Checks, &ri.Changes, &ri.BatchID, &ri.Dropped, &ri.Failures, &ri.Unreachable, since}
}

// PrepareReplace fills in the FetchedAt (now) and Bytes (len(body)) of a
// page ReplacePage is given when zero, and returns its body compressed.
func PrepareReplace(p *store.Page, body []byte) ([]byte, error) {
	if p.FetchedAt.IsZero() {
		p.FetchedAt = time.Now()
	}
	validText(p)
	if p.Bytes == 0 {
		p.Bytes = len(body)
	}
	packed, err := CompressBody(body)
	if err != nil {
		return nil, fmt.Errorf("replace page %s of topic %q: compress body: %w", p.URLHash, p.Topic, err)
	}
	return packed, nil
}

// ScanQueryCount reads one row of query, count, last_at of
// no_result_queries.
func ScanQueryCount(sc Scanner) (store.QueryCount, error) {
	var q store.QueryCount
	var last int64
	err := sc.Scan(&q.Query, &q.Count, &last)
	q.Last = FromNanos(last)
	return q, err
}

// A PackedPage is a page checked and completed for saving (CheckPage),
// its body compressed.
type PackedPage struct {
	Page    store.Page
	Packed  []byte // the compressed body; nil without one
	HasBody bool   // a body (even an empty one) is to be stored
	Size    int    // the uncompressed body's length
}

// PackPage checks p (CheckPage) and compresses its body, outside any
// transaction: it is the slow part of saving a page.
func PackPage(p store.Page, body []byte) (PackedPage, error) {
	if err := CheckPage(&p, len(body)); err != nil {
		return PackedPage{}, err
	}
	packed, err := CompressBody(body)
	if err != nil {
		return PackedPage{}, fmt.Errorf("save page %s of topic %q: compress body: %w", p.URLHash, p.Topic, err)
	}
	return PackedPage{Page: p, Packed: packed, HasBody: body != nil, Size: len(body)}, nil
}

// PackGroup checks a group write's topic and pages and compresses its
// bodies and parse results (parses[i] is g.Parses[i].Parsed compressed),
// before its transaction starts.
func PackGroup(g store.GroupWrite) (pages []PackedPage, parses [][]byte, err error) {
	if g.Topic == "" {
		return nil, nil, fmt.Errorf("write group: topic is required")
	}
	pages = make([]PackedPage, len(g.Pages))
	for i, pb := range g.Pages {
		if pb.Page.Topic != g.Topic {
			return nil, nil, fmt.Errorf("write group of topic %q: page %s is of topic %q", g.Topic, pb.Page.URLHash, pb.Page.Topic)
		}
		if pages[i], err = PackPage(pb.Page, pb.Body); err != nil {
			return nil, nil, err
		}
	}
	parses = make([][]byte, len(g.Parses))
	for i, w := range g.Parses {
		if parses[i], err = codec.Compress(w.Parsed); err != nil {
			return nil, nil, fmt.Errorf("write group: compress parse of page %s of topic %q: %w", w.URLHash, g.Topic, err)
		}
	}
	return pages, parses, nil
}

// ScanString reads a row of one text column.
func ScanString(sc Scanner) (string, error) {
	var s string
	return s, sc.Scan(&s)
}

// InLinksQuery is the text of InLinks (store.Links): the links into a set
// of targets, each with its source page's crawl, decision, relevance and
// URL (final URL, else URL; zero values for a source never fetched), by
// target and source. Each
// backend fills in its index hint (%[1]s: SQLite's INDEXED BY, or nothing)
// and its target-set condition (%[2]s: an IN list or = ANY).
const InLinksQuery = `SELECT l.dst, l.src, COALESCE(p.crawl_id, ''), COALESCE(p.decision, ''), COALESCE(p.relevance, 0),
	COALESCE(NULLIF(p.final_url, ''), p.url, '')
	FROM links l %[1]s LEFT JOIN pages p ON p.topic = l.topic AND p.url_hash = l.src
	WHERE l.topic = ? AND l.dst %[2]s ORDER BY l.dst, l.src`

// GroupInLinks reads InLinksQuery's rows into out by target.
func GroupInLinks(rows Rows, out map[string][]store.InLink) error {
	return EachRow(rows, func(sc Scanner) error {
		var dst string
		var in store.InLink
		if err := sc.Scan(&dst, &in.Src, &in.CrawlID, &in.Decision, &in.Relevance, &in.SrcURL); err != nil {
			return err
		}
		out[dst] = append(out[dst], in)
		return nil
	})
}

// OutLinksQuery is the text of OutLinks (store.Links): the links out of a
// set of sources, each with its target's URL and its target page's crawl, decision, filter and
// relevance (zero values for a target never fetched), by source and
// target, read through the links' primary key (topic, src, dst). Each
// backend fills in its source-set condition (%s: an IN list or = ANY).
const OutLinksQuery = `SELECT l.src, l.dst, l.dst_url, COALESCE(p.crawl_id, ''), COALESCE(p.decision, ''), COALESCE(p.filter_name, ''),
	COALESCE(p.relevance, 0)
	FROM links l LEFT JOIN pages p ON p.topic = l.topic AND p.url_hash = l.dst
	WHERE l.topic = ? AND l.src %s ORDER BY l.src, l.dst`

// GroupOutLinks reads OutLinksQuery's rows into out by source.
func GroupOutLinks(rows Rows, out map[string][]store.OutLink) error {
	return EachRow(rows, func(sc Scanner) error {
		var src string
		var o store.OutLink
		if err := sc.Scan(&src, &o.Dst, &o.DstURL, &o.CrawlID, &o.Decision, &o.Filter, &o.Relevance); err != nil {
			return err
		}
		out[src] = append(out[src], o)
		return nil
	})
}

// HostYieldsQuery is the text of HostYields (store.Hosts); each backend
// fills in its host-set condition (%s: an IN list or = ANY).
const HostYieldsQuery = `SELECT host, judged, accepted FROM host_yield WHERE topic = ? AND host %s`

// CollectHostYields reads HostYieldsQuery's rows into out by host.
func CollectHostYields(rows Rows, out map[string]store.HostYield) error {
	return EachRow(rows, func(sc Scanner) error {
		var y store.HostYield
		if err := sc.Scan(&y.Host, &y.Judged, &y.Accepted); err != nil {
			return err
		}
		out[y.Host] = y
		return nil
	})
}

// ClassCount is one row of a count of pages by error class
// (store.Frontier.FailedByClass): SELECT error_class, COUNT(*) ... GROUP BY.
type ClassCount struct {
	Class string
	N     int
}

// ScanClassCount reads one ClassCount row.
func ScanClassCount(sc Scanner) (ClassCount, error) {
	var c ClassCount
	err := sc.Scan(&c.Class, &c.N)
	return c, err
}

// ClassCounts is rows of ClassCount as a map; nil for none, so a slice
// without failures carries nothing.
func ClassCounts(rows []ClassCount) map[string]int {
	if len(rows) == 0 {
		return nil
	}
	out := make(map[string]int, len(rows))
	for _, c := range rows {
		out[c.Class] += c.N
	}
	return out
}
