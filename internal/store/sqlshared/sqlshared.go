// Package sqlshared is what the two SQL crawl-store backends
// (internal/store/sqlite and internal/store/postgres) have in common: the
// column lists and row scanners of their shared tables, the checks and
// defaults of the store.Store calls, and the algorithms that run in Go
// around their queries (the per-host claim walk, the keyset streaming loop).
// What stays in a backend is what differs between the SQL dialects and the
// drivers: the query text with its placeholders and the transaction
// handling.
//
// Errors returned here carry no backend prefix; each backend wraps them in
// its own ("store/sqlite: ...", "store/postgres: ...").
package sqlshared

import (
	"fmt"
	"math"
	"strings"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/codec"
)

// Scanner is what a single row and a row cursor of both drivers
// (database/sql and pgx) have in common.
type Scanner interface{ Scan(dest ...any) error }

// DefaultLease is how long a frontier or refresh claim lasts when the
// request names no lease.
const DefaultLease = 15 * time.Minute

// ChunkSize is how many rows the streaming methods (CrawlLog, Edges,
// AcceptedPages, ...) read per query. Reading in chunks, with the callback
// run between queries, keeps no read transaction open while the caller
// works and lets the callback write to the store freely.
const ChunkSize = 500

// ToNanos and FromNanos are the stores' time encoding (package codec).
var (
	ToNanos   = codec.Nanos
	FromNanos = codec.FromNanos
)

// RefreshTime reads refresh_state.next_at: 0 (due now) and -1 (never) are
// the zero time.
func RefreshTime(ns int64) time.Time {
	if ns <= 0 {
		return time.Time{}
	}
	return FromNanos(ns)
}

// NonNil keeps a nil slice from being bound as SQL NULL.
func NonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// BoolInt is the stores' boolean column encoding (0 or 1).
func BoolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CompressBody deflates a page body; nil (a failed fetch) stays nil.
func CompressBody(body []byte) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	return codec.Compress(body)
}

// PrefixRange returns the bounds of the batch IDs that start with prefix
// in code-point order, so prefix queries stay range scans on the
// (topic, batch_id) indexes.
func PrefixRange(prefix string) (lo, hi string) { return prefix, prefix + "\U0010FFFF" }

// Prefixed qualifies each column of a comma-separated list with prefix.
func Prefixed(prefix, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// Stream is the keyset loop of the streaming methods: it calls next for
// one chunk after another (last is nil for the first, then the previous
// chunk's last item) and fn for every item, until a chunk comes back
// shorter than ChunkSize or fn fails. Errors of next are returned as they
// are (next wraps them); fn's are returned unwrapped, as the callers
// document.
func Stream[T any](next func(last *T) ([]T, error), fn func(T) error) error {
	var last *T
	for {
		items, err := next(last)
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := fn(it); err != nil {
				return err
			}
		}
		if len(items) < ChunkSize {
			return nil
		}
		last = &items[len(items)-1]
	}
}

// CheckEntry refuses a frontier entry Enqueue cannot store.
func CheckEntry(e store.FrontierEntry) error {
	if e.Topic == "" || e.URL == "" {
		return fmt.Errorf("enqueue %q of topic %q: topic and URL are required", e.URL, e.Topic)
	}
	if !Finite(e.Priority) || !Finite(e.LinkScore) {
		return fmt.Errorf("enqueue %q of topic %q: priority %v and link score %v must be finite numbers", e.URL, e.Topic, e.Priority, e.LinkScore)
	}
	if !(e.Sink >= 0 && e.Sink <= 1) {
		return fmt.Errorf("enqueue %q of topic %q: sink %v (want 0 <= sink <= 1)", e.URL, e.Topic, e.Sink)
	}
	return nil
}

// EntrySink is the sink a new entry is stored with (store.FrontierEntry.
// Sink: 0 means not demoted, 1).
func EntrySink(e store.FrontierEntry) float64 {
	if e.Sink > 0 {
		return e.Sink
	}
	return 1
}

// Finite reports whether p is a number a priority can be: not NaN, not
// ±Inf. An infinite priority stores fine but breaks what is computed from
// it (DemoteQueued's factor 0 makes Inf·0 = NaN, which the stores keep as
// NULL and refuse), so it is refused where it would enter.
func Finite(p float64) bool { return !math.IsNaN(p) && !math.IsInf(p, 0) }

// CompleteSet is the SET list of both stores' CompleteEntries (and a
// group's Complete), for an UPDATE of frontier without an alias: the entry
// is done, and one that is queued under no batch — its claim's lease ran
// out under the fetch and a later claim put it back in the queue, while
// its holder went on and saved the page — goes back to the batch that
// saved its page. Without that it was done under no batch and counted
// toward no slice's budget (BatchStats.Claimed): with a 2 s lease a crawl
// fetched 256 pages on a budget of 40. An entry another batch claimed
// meanwhile stays that batch's, which counts it.
const CompleteSet = `state = 'done', batch_id = CASE WHEN frontier.batch_id <> '' THEN frontier.batch_id
	ELSE COALESCE((SELECT p.batch_id FROM pages p WHERE p.topic = frontier.topic AND p.url_hash = frontier.url_hash), '') END`

// ClaimDefaults checks a frontier claim and returns its time and lease,
// defaulted (now, DefaultLease) when the request leaves them zero.
func ClaimDefaults(req store.ClaimRequest) (now time.Time, lease time.Duration, err error) {
	if req.Topic == "" || req.BatchID == "" {
		return time.Time{}, 0, fmt.Errorf("claim batch %q of topic %q: topic and batch ID are required", req.BatchID, req.Topic)
	}
	now, lease = req.Now, req.Lease
	if now.IsZero() {
		now = time.Now()
	}
	if lease <= 0 {
		lease = DefaultLease
	}
	return now, lease, nil
}

// DefaultHoldWindow is ClaimRequest.HoldWindow's default: claims older than
// this no longer hold zero-scored entries back.
const DefaultHoldWindow = 2 * time.Minute

// HoldQuery decides ClaimRequest.HoldUnscored in the claim's transaction
// (args: topic, the lease_until bound HoldBound returns, topic): an entry
// claimed within the hold window, and a queued entry at or below 0 for the
// hold to keep back. state is spelled literally for the partial indexes
// frontier_lease and frontier_queue.
const HoldQuery = `SELECT EXISTS (SELECT 1 FROM frontier WHERE topic = ? AND state = 'claimed' AND lease_until > ?)
	AND EXISTS (SELECT 1 FROM frontier WHERE topic = ? AND state = 'queued' AND priority <= 0)`

// HoldBound is the lease_until above which a claim counts as in flight for
// HoldUnscored: claims end their lease at claim time + lease, so one made
// less than the hold window before now ends after now + lease − window.
func HoldBound(req store.ClaimRequest, now time.Time, lease time.Duration) time.Time {
	window := req.HoldWindow
	if window <= 0 {
		window = DefaultHoldWindow
	}
	return now.Add(lease - min(window, lease))
}

// RefreshClaimDefaults checks a refresh claim and fills in its Now and
// Lease when zero.
func RefreshClaimDefaults(req store.RefreshClaim) (store.RefreshClaim, error) {
	if req.Topic == "" || req.BatchID == "" {
		return req, fmt.Errorf("claim refresh: topic and batch ID are required")
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	// A claim never judges before its DueBy (store.RefreshClaim.DueBy):
	// a worker whose clock is behind the refresh's start, which the
	// Temporal server's clock dates, found nothing due.
	if req.DueBy.After(req.Now) {
		req.Now = req.DueBy
	}
	if req.Lease <= 0 {
		req.Lease = DefaultLease
	}
	return req, nil
}

// RefreshDueAt is the time a refresh claim's eligibility is judged at:
// its DueBy when that is set, else its Now.
func RefreshDueAt(req store.RefreshClaim) time.Time {
	if !req.DueBy.IsZero() {
		return req.DueBy
	}
	return req.Now
}

// MaxRetryShift bounds the doubling of a refresh claim's retry delay
// (RefreshRetry): 2^10 times RetryDelay is beyond any revisit interval, and
// the shift stays far from overflowing nanoseconds.
const MaxRetryShift = 10

// RefreshRetry is a refresh claim's retry delay and its cap in nanoseconds,
// as the backends' eligibility clauses take them: a page whose claim ran
// out after n earlier such claims is claimable
// min(delay << min(n, MaxRetryShift), ceiling) after that lease ended. Without
// a RetryMax the doubling alone bounds it.
func RefreshRetry(req store.RefreshClaim) (delay, ceiling int64) {
	// Clamped so that the shift cannot overflow (a retry delay of over
	// 100 days would otherwise turn negative: claimable at once).
	delay = min(max(int64(req.RetryDelay), 0), math.MaxInt64>>MaxRetryShift)
	ceiling = int64(req.RetryMax)
	if ceiling <= 0 {
		ceiling = delay << MaxRetryShift
	}
	return delay, ceiling
}

// RefreshNext is the next_at column of a revisit's outcome: -1 (never) for
// a zero NextAt. A result without a batch ID is refused.
func RefreshNext(topic, urlHash string, r store.RefreshResult) (int64, error) {
	if r.BatchID == "" {
		return 0, fmt.Errorf("record refresh of page %s of topic %q: batch ID is required", urlHash, topic)
	}
	if r.NextAt.IsZero() {
		return -1, nil
	}
	return ToNanos(r.NextAt), nil
}

// NoResultQuery checks a no-result query to record, returning it
// whitespace-collapsed and its time (now when zero).
func NoResultQuery(topic, query string, at time.Time) (string, time.Time, error) {
	q := strings.Join(strings.Fields(query), " ")
	if topic == "" || q == "" {
		return "", at, fmt.Errorf("record no-result query: topic %q and query %q must not be empty", topic, query)
	}
	if at.IsZero() {
		at = time.Now()
	}
	return q, at, nil
}

// CheckScores refuses link-analysis scores with a NaN.
func CheckScores(scores map[string][3]float64) error {
	for h, sc := range scores {
		if math.IsNaN(sc[0]) || math.IsNaN(sc[1]) || math.IsNaN(sc[2]) {
			return fmt.Errorf("NaN score for %s", h)
		}
	}
	return nil
}

// A Probe is one column DuplicateOf matches an earlier page on, with the
// value of the page asked about.
type Probe struct{ Col, Val string }

// DuplicateProbes returns what DuplicateOf looks for, in order: p's final
// URL hash, then its content hash, then its text signature (those that
// are set: the exact matches first, so a near one is only a candidate
// when there is no exact one), and the Seq below which a page of p's own
// crawl counts as earlier (any, when p.Seq is 0).
func DuplicateProbes(p store.Page) (seq int64, probes []Probe) {
	seq = p.Seq
	if seq <= 0 {
		seq = math.MaxInt64
	}
	for _, c := range []Probe{{"final_hash", p.FinalHash}, {"content_hash", p.ContentHash}, {"text_hash", p.TextHash}} {
		if c.Val != "" {
			probes = append(probes, c)
		}
	}
	return seq, probes
}

// CountTerms adds one to df for each distinct non-empty term of a page.
func CountTerms(df map[string]int, terms []string) {
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		if t != "" && !seen[t] {
			seen[t] = true
			df[t]++
		}
	}
}

// Rows is what a row cursor of both drivers has in common (their Close
// differs, so the caller closes it).
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// CollectRows reads every remaining row of rows with scan.
func CollectRows[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	err := EachRow(rows, func(sc Scanner) error {
		v, err := scan(sc)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachRow calls fn for every remaining row of rows until fn fails.
func EachRow(rows Rows, fn func(Scanner) error) error {
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CrawlDefaults checks a crawl to create and fills in its zero fields:
// StartedAt now, UpdatedAt StartedAt, State store.CrawlRunning.
func CrawlDefaults(c store.Crawl) (store.Crawl, error) {
	if c.ID == "" || c.Topic == "" {
		return c, fmt.Errorf("create crawl %q of topic %q: ID and topic are required", c.ID, c.Topic)
	}
	if c.StartedAt.IsZero() {
		c.StartedAt = time.Now()
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = c.StartedAt
	}
	if c.State == "" {
		c.State = store.CrawlRunning
	}
	return c, nil
}

// UniqueTerms returns the distinct terms of a TermStats request, in first
// appearance order, and the document-frequency map TermStats returns with
// each of them at 0.
func UniqueTerms(terms []string) (df map[string]int, uniq []string) {
	df = make(map[string]int, len(terms))
	uniq = make([]string, 0, len(terms))
	for _, t := range terms {
		if _, ok := df[t]; !ok {
			df[t] = 0
			uniq = append(uniq, t)
		}
	}
	return df, uniq
}
