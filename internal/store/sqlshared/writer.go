package sqlshared

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/codec"
)

// Tx is a backend's write transaction as the shared write code uses it.
// Queries are written with ? placeholders, as for Conn.
type Tx interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryRow runs a query expected to return at most one row.
	QueryRow(ctx context.Context, query string, args ...any) Scanner
	// IsNoRows reports whether err is the driver's "no rows" of QueryRow.
	IsNoRows(err error) bool
	// Lock serialises, until the transaction ends, the transactions that
	// lock the same key: concurrent writers that would otherwise pick one
	// version or sequence number twice. (PostgreSQL: an advisory lock;
	// SQLite: nothing, its write transactions run one at a time anyway.)
	Lock(ctx context.Context, key string) error
	// LockTopic must come first in every transaction that adds rows of a
	// topic's crawl state (ResetTopic deletes them): it keeps a reset from
	// running in the middle of the transaction, which would leave some of
	// its rows and delete others. (PostgreSQL: the topic's advisory lock,
	// shared, which ResetTopic takes exclusive; SQLite: nothing, its reset
	// is one write transaction like any other.)
	LockTopic(ctx context.Context, topic string) error
}

// PutTopic stores yaml as the newest version of topic name, unless it is
// identical to the latest version, whose number is then returned. A lock
// on the topic name keeps concurrent puts from choosing one version twice.
func (r Methods) PutTopic(ctx context.Context, name string, yaml []byte) (int, error) {
	if name == "" {
		return 0, r.errorf("put topic: empty name")
	}
	sum := sha256.Sum256(yaml)
	hash := hex.EncodeToString(sum[:])
	var version int
	err := r.Tx(ctx, fmt.Sprintf("put topic %q", name), func(tx Tx) error {
		if err := tx.Lock(ctx, "topic/"+name); err != nil {
			return err
		}
		var latest int
		var latestHash string
		err := tx.QueryRow(ctx, `SELECT version, hash FROM topics WHERE name = ?
			ORDER BY version DESC LIMIT 1`, name).Scan(&latest, &latestHash)
		switch {
		case err == nil && latestHash == hash:
			version = latest
			return nil
		case err != nil && !tx.IsNoRows(err):
			return err
		}
		version = latest + 1
		_, err = tx.Exec(ctx, `INSERT INTO topics (name, version, yaml, hash, created_at)
			VALUES (?, ?, ?, ?, ?)`, name, version, NonNil(yaml), hash, time.Now().UnixNano())
		return err
	})
	return version, err
}

// CreateCrawl inserts c unless a crawl with its ID exists. A zero StartedAt
// or UpdatedAt becomes now; an empty State becomes store.CrawlRunning.
func (r Methods) CreateCrawl(ctx context.Context, c store.Crawl) error {
	c, err := CrawlDefaults(c)
	if err != nil {
		return r.errorf("%w", err)
	}
	_, err = r.Exec(ctx, fmt.Sprintf("create crawl %q", c.ID), `INSERT INTO crawls (id, topic, topic_version, state, started_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		c.ID, c.Topic, c.TopicVersion, c.State, ToNanos(c.StartedAt), ToNanos(c.UpdatedAt))
	return err
}

// SetCrawlState sets a crawl's state and bumps its UpdatedAt.
func (r Methods) SetCrawlState(ctx context.Context, id, state string) error {
	return r.updateCrawl(ctx, id, fmt.Sprintf("set crawl %q state %q", id, state), `state = ?`, state)
}

// HoldHost records host's hold until until, keeping a later one
// (store.Hosts). A host never booked gets a row with no slot booked.
func (r Methods) HoldHost(ctx context.Context, host string, until time.Time) error {
	if host == "" {
		return r.errorf("hold host: empty host")
	}
	_, err := r.Exec(ctx, fmt.Sprintf("hold host %q", host),
		`INSERT INTO hosts (host, next_allowed_at, held_until) VALUES (?, 0, ?)
		ON CONFLICT (host) DO UPDATE SET held_until =
			CASE WHEN excluded.held_until > hosts.held_until THEN excluded.held_until ELSE hosts.held_until END`,
		host, until.UnixNano())
	return err
}

// RequeueEntry returns a claimed entry to the queue if batchID still holds
// it (store.Frontier).
func (r Methods) RequeueEntry(ctx context.Context, topic, urlHash, batchID string, uncount bool) (bool, error) {
	n, err := r.Exec(ctx, fmt.Sprintf("requeue entry %s of topic %q", urlHash, topic),
		`UPDATE frontier SET state = 'queued', batch_id = '', lease_until = 0, claim_pos = 0,
			attempts = CASE WHEN attempts > 0 THEN attempts - ? ELSE 0 END
		WHERE topic = ? AND url_hash = ? AND batch_id = ? AND state = 'claimed'`, BoolInt(uncount), topic, urlHash, batchID)
	return n > 0, err
}

// DemoteQueued multiplies by factor the priority and the sink of the
// topic's queued and claimed entries of host whose URL starts with prefix,
// and returns how many it changed (store.Frontier).
func (r Methods) DemoteQueued(ctx context.Context, topic, host, prefix string, factor float64) (int, error) {
	if err := CheckDemote(prefix, factor); err != nil {
		return 0, r.errorf("demote queued entries: %w", err)
	}
	// substr counts characters on both backends, as RuneCountInString does.
	n, err := r.Exec(ctx, fmt.Sprintf("demote queued entries %s of topic %q", prefix, topic),
		`UPDATE frontier SET priority = priority * ?, sink = sink * ?
		WHERE topic = ? AND host = ? AND state IN ('queued', 'claimed') AND substr(url, 1, ?) = ?`,
		factor, factor, topic, host, utf8.RuneCountInString(prefix), prefix)
	return int(n), err
}

// CheckDemote checks DemoteQueued's arguments: a prefix (none would demote
// a whole host) and 0 <= factor < 1.
func CheckDemote(prefix string, factor float64) error {
	if prefix == "" || !(factor >= 0 && factor < 1) {
		return fmt.Errorf("prefix %q and factor %v (want a prefix and 0 <= factor < 1)", prefix, factor)
	}
	return nil
}

// SetCrawlTopicVersion records that the crawl now uses another topic version.
func (r Methods) SetCrawlTopicVersion(ctx context.Context, id string, version int) error {
	return r.updateCrawl(ctx, id, fmt.Sprintf("set crawl %q topic version %d", id, version), `topic_version = ?`, version)
}

// SetCrawlModels records the learned link model and rank versions the
// crawl's workflow now uses.
func (r Methods) SetCrawlModels(ctx context.Context, id string, linkModel, ranks int) error {
	n, err := r.Exec(ctx, fmt.Sprintf("set crawl %q link model version %d, rank version %d", id, linkModel, ranks),
		`UPDATE crawls SET link_model_version = ?, rank_version = ?, updated_at = ? WHERE id = ?`,
		linkModel, ranks, time.Now().UnixNano(), id)
	if err != nil {
		return err
	}
	if n == 0 {
		return r.notFound("crawl %q", id)
	}
	return nil
}

// updateCrawl applies set (one "column = ?" for val) to one crawl.
func (r Methods) updateCrawl(ctx context.Context, id, what, set string, val any) error {
	n, err := r.Exec(ctx, what, `UPDATE crawls SET `+set+`, updated_at = ? WHERE id = ?`,
		val, time.Now().UnixNano(), id)
	if err != nil {
		return err
	}
	if n == 0 {
		return r.notFound("crawl %q", id)
	}
	return nil
}

// SavePage records a fetched (or failed) page and its body (see
// store.Pages). The new page's Seq is 1 + the crawl's highest Seq, computed
// under a lock on the crawl held to commit, so concurrent savers get
// distinct, contiguous numbers. A zero FetchedAt becomes now; a zero Bytes
// becomes len(body).
func (r Methods) SavePage(ctx context.Context, p store.Page, body []byte) (store.Page, bool, error) {
	pp, err := PackPage(p, body)
	if err != nil {
		return store.Page{}, false, r.errorf("%w", err)
	}
	var saved store.Page
	created := false
	err = r.Tx(ctx, fmt.Sprintf("save page %s (%q) of topic %q", p.URLHash, p.URL, p.Topic), func(tx Tx) error {
		if err := tx.LockTopic(ctx, p.Topic); err != nil {
			return err
		}
		var err error
		saved, created, err = SavePageTx(ctx, tx, pp)
		return err
	})
	if err != nil {
		return store.Page{}, false, err
	}
	return saved, created, nil
}

// pagePlaceholders is the VALUES list of an INSERT of PageColumns.
var pagePlaceholders = strings.TrimSuffix(strings.Repeat("?, ", strings.Count(PageColumns, ",")+1), ", ")

// SavePageTx inserts a packed page and its body in tx unless the page
// exists, which it then returns unchanged with created=false. The caller
// took the page's topic's Tx.LockTopic.
func SavePageTx(ctx context.Context, tx Tx, pp PackedPage) (saved store.Page, created bool, err error) {
	p := pp.Page
	const byKey = `SELECT ` + PageColumns + ` FROM pages WHERE topic = ? AND url_hash = ?`
	old, err := ScanPage(tx.QueryRow(ctx, byKey, p.Topic, p.URLHash))
	if err == nil {
		return old, false, nil
	}
	if !tx.IsNoRows(err) {
		return store.Page{}, false, err
	}
	if err := tx.Lock(ctx, "pageseq/"+p.CrawlID); err != nil {
		return store.Page{}, false, err
	}
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM pages WHERE crawl_id = ?`,
		p.CrawlID).Scan(&p.Seq); err != nil {
		return store.Page{}, false, fmt.Errorf("next seq of crawl %q: %w", p.CrawlID, err)
	}
	n, err := tx.Exec(ctx, `INSERT INTO pages (`+PageColumns+`) VALUES (`+pagePlaceholders+`)
		ON CONFLICT (topic, url_hash) DO NOTHING`, PageArgs(p)...)
	if err != nil {
		return store.Page{}, false, err
	}
	if n == 0 {
		// Saved meanwhile by another transaction (of another crawl: one
		// crawl's savers are serialised by the lock): return that row.
		saved, err := ScanPage(tx.QueryRow(ctx, byKey, p.Topic, p.URLHash))
		return saved, false, err
	}
	if pp.HasBody {
		if err := PutBlob(ctx, tx, p.Topic, p.URLHash, store.BlobBody, pp.Packed, pp.Size); err != nil {
			return store.Page{}, false, err
		}
	}
	return p, true, nil
}

// SaveGroupPagesTx saves a processing group's new pages in order (each gets
// the next Seq of its crawl) and returns their Seqs by URL hash (nil for no
// pages). A page that already exists fails it: whoever saved it meanwhile
// owns it (store.GroupWrite.Pages).
func SaveGroupPagesTx(ctx context.Context, tx Tx, pages []PackedPage) (map[string]int64, error) {
	if len(pages) == 0 {
		return nil, nil
	}
	seqs := make(map[string]int64, len(pages))
	for _, pp := range pages {
		saved, created, err := SavePageTx(ctx, tx, pp)
		if err != nil {
			return nil, err
		}
		if !created {
			return nil, fmt.Errorf("page %s (%s) is already saved", pp.Page.URLHash, pp.Page.URL)
		}
		seqs[saved.URLHash] = saved.Seq
	}
	return seqs, nil
}

// PutBlob inserts or replaces a compressed blob.
func PutBlob(ctx context.Context, tx Tx, topic, urlHash, kind string, packed []byte, size int) error {
	_, err := tx.Exec(ctx, `INSERT INTO blobs (topic, url_hash, kind, encoding, size, data)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (topic, url_hash, kind)
		DO UPDATE SET encoding = excluded.encoding, size = excluded.size, data = excluded.data`,
		topic, urlHash, kind, codec.Encoding, size, NonNil(packed))
	if err != nil {
		return fmt.Errorf("store %s blob: %w", kind, err)
	}
	return nil
}

// DeleteBlob removes a blob; removing an absent blob is not an error.
func (r Methods) DeleteBlob(ctx context.Context, topic, urlHash, kind string) error {
	_, err := r.Exec(ctx, fmt.Sprintf("delete %s blob of page %s of topic %q", kind, urlHash, topic),
		deleteBlob, topic, urlHash, kind)
	return err
}

const deleteBlob = `DELETE FROM blobs WHERE topic = ? AND url_hash = ? AND kind = ?`

// DeleteBlobTx is DeleteBlob in tx.
func DeleteBlobTx(ctx context.Context, tx Tx, topic, urlHash, kind string) error {
	_, err := tx.Exec(ctx, deleteBlob, topic, urlHash, kind)
	return err
}

// SetDecision records the page filter's verdict. An empty Title or Lang in d
// leaves the page's value (set by SaveParse) unchanged.
func (r Methods) SetDecision(ctx context.Context, topic, urlHash string, d store.Decision) error {
	what := fmt.Sprintf("set decision %q of page %s of topic %q", d.Decision, urlHash, topic)
	var execErr error // Exec's errors name the backend already
	_, err := setDecision(topic, urlHash, d, "", func(q string, args ...any) (int64, error) {
		n, err := r.Exec(ctx, what, q, args...)
		execErr = err
		return n, err
	})
	if err != nil && err != execErr {
		return r.errorf("%w", err)
	}
	return err
}

// SetDecisionTx is SetDecision in tx.
func SetDecisionTx(ctx context.Context, tx Tx, topic, urlHash string, d store.Decision) error {
	_, err := setDecision(topic, urlHash, d, "", func(q string, args ...any) (int64, error) {
		return tx.Exec(ctx, q, args...)
	})
	return err
}

// setDecision overwrites a page's decision. With cond (an SQL condition on
// the page's current decision; a first judgement's is that the decision is
// still empty) it first tries the update on the page only while cond holds,
// and reports whether that changed it; otherwise, or when cond did not
// hold, it overwrites whatever decision the page has.
func setDecision(topic, urlHash string, d store.Decision, cond string, exec func(q string, args ...any) (int64, error)) (matched bool, err error) {
	if math.IsNaN(d.Relevance) {
		return false, fmt.Errorf("set decision of page %s of topic %q: NaN relevance", urlHash, topic)
	}
	const q = `UPDATE pages SET relevance = ?, filter_name = ?, decision = ?, reason = ?,
		title = CASE WHEN ? = '' THEN title ELSE ? END,
		lang = CASE WHEN ? = '' THEN lang ELSE ? END
		WHERE topic = ? AND url_hash = ?`
	args := []any{d.Relevance, d.Filter, d.Decision, d.Reason, d.Title, d.Title, d.Lang, d.Lang, topic, urlHash}
	if cond != "" {
		n, err := exec(q+cond, args...)
		if err != nil || n > 0 {
			return n > 0, err
		}
	}
	n, err := exec(q, args...)
	if err != nil {
		return false, err
	}
	if n == 0 {
		return false, NotFound("page %s of topic %q", urlHash, topic)
	}
	return false, nil
}

// ReplacePage overwrites a changed page's fetch result (see store.Refreshes).
func (r Methods) ReplacePage(ctx context.Context, p store.Page, body []byte) error {
	packed, err := PrepareReplace(&p, body)
	if err != nil {
		return r.errorf("%w", err)
	}
	return r.Tx(ctx, fmt.Sprintf("replace page %s of topic %q", p.URLHash, p.Topic), func(tx Tx) error {
		if err := tx.LockTopic(ctx, p.Topic); err != nil {
			return err
		}
		// Before the update, which overwrites the hash given up. A
		// repeated call finds the new hash stored and records nothing.
		if _, err := tx.Exec(ctx, `INSERT INTO refresh_given_up (topic, url_hash, final_hash)
			SELECT topic, url_hash, final_hash FROM pages
			WHERE topic = ? AND url_hash = ? AND final_hash <> ? AND final_hash <> ''
				AND (is_indexed <> 0 OR decision = ?)
			ON CONFLICT DO NOTHING`, p.Topic, p.URLHash, p.FinalHash, store.DecisionPending); err != nil {
			return fmt.Errorf("record the final hash given up: %w", err)
		}
		n, err := tx.Exec(ctx, `UPDATE pages SET final_url = ?, final_hash = ?, batch_id = ?, status = ?,
			error_class = ?, error_msg = ?, content_type = ?, charset = ?, etag = ?, last_modified = ?,
			content_hash = ?, bytes = ?, fetched_at = ?, robots_tag = ?, text_hash = '', relevance = 0, decision = '', reason = '', is_indexed = 0
			WHERE topic = ? AND url_hash = ?`,
			p.FinalURL, p.FinalHash, p.BatchID, p.Status, p.ErrorClass, p.Error, p.ContentType, p.Charset,
			p.ETag, p.LastModified, p.ContentHash, p.Bytes, ToNanos(p.FetchedAt), p.RobotsTag, p.Topic, p.URLHash)
		if err != nil {
			return err
		}
		if n == 0 {
			return NotFound("page %s of topic %q", p.URLHash, p.Topic)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM blobs WHERE topic = ? AND url_hash = ? AND kind IN (?, ?)`,
			p.Topic, p.URLHash, store.BlobParse, store.BlobBody); err != nil {
			return err
		}
		if body != nil {
			return PutBlob(ctx, tx, p.Topic, p.URLHash, store.BlobBody, packed, len(body))
		}
		return nil
	})
}

// ReleaseCopies sends a leaving page's copies back to be judged (see
// store.Refreshes). SQLite's; PostgreSQL's (store/postgres) is the same
// with its rows locked in key order, and must change with it.
func (r Methods) ReleaseCopies(ctx context.Context, topic, urlHash, finalHash, contentHash, textHash string, at time.Time) (int, error) {
	if finalHash == "" && contentHash == "" && textHash == "" {
		return 0, nil
	}
	// Through the hash indexes (a subquery per hash): with the decision in
	// the same WHERE, SQLite's planner took the (topic, decision) index and
	// read every copy of the topic under the write lock. A page with the
	// signature that was not judged its copy (Near said no) is pending
	// already or not a duplicate: the decision below leaves it alone.
	where := `url_hash IN (SELECT url_hash FROM pages WHERE topic = ? AND final_hash = ? AND final_hash <> ''
			UNION SELECT url_hash FROM pages WHERE topic = ? AND content_hash = ? AND content_hash <> ''
			UNION SELECT url_hash FROM pages WHERE topic = ? AND text_hash = ? AND text_hash <> '')
		AND topic = ? AND url_hash <> ? AND decision = ?`
	args := []any{topic, finalHash, topic, contentHash, topic, textHash, topic, urlHash, store.DecisionDuplicate}
	nanos := ToNanos(at)
	var n int64
	err := r.Tx(ctx, fmt.Sprintf("release the copies of page %s of topic %q", urlHash, topic), func(tx Tx) error {
		if err := tx.LockTopic(ctx, topic); err != nil {
			return err
		}
		// A copy is never claimed (refresh_state's batch stays as it is);
		// given up as a copy, it is due again.
		if _, err := tx.Exec(ctx, `INSERT INTO refresh_state (topic, url_hash, next_at)
			SELECT topic, url_hash, ? FROM pages WHERE `+where+`
			ON CONFLICT (topic, url_hash) DO UPDATE SET next_at = excluded.next_at, dropped = 0`,
			append([]any{nanos}, args...)...); err != nil {
			return err
		}
		// Only the pages the statement above made due: under PostgreSQL's
		// READ COMMITTED each statement has its own snapshot, and a page
		// judged a copy in between would be reset to pending with no
		// refresh due — unjudged for good.
		var err error
		n, err = tx.Exec(ctx, `UPDATE pages SET decision = '', reason = '', is_indexed = 0 WHERE `+where+`
			AND url_hash IN (SELECT url_hash FROM refresh_state WHERE topic = ? AND next_at = ?)`,
			append(args, topic, nanos)...)
		return err
	})
	return int(n), err
}

// ForgetGivenUp deletes the given-up final hashes of a refresh batch's
// pages (see store.Refreshes): of those it still holds, as GivenUpFinals
// reads them.
func (r Methods) ForgetGivenUp(ctx context.Context, topic, batchID string) error {
	if batchID == "" {
		return r.errorf("forget final hashes given up in topic %q: batch ID is required", topic)
	}
	_, err := r.Exec(ctx, fmt.Sprintf("forget final hashes given up by refresh batch %q of topic %q", batchID, topic),
		`DELETE FROM refresh_given_up WHERE topic = ?
		AND url_hash IN (SELECT url_hash FROM refresh_state WHERE topic = ? AND batch_id = ? AND lease_until > 0)`,
		topic, topic, batchID)
	return err
}

// RecordRefresh stores a revisit's outcome (see store.Refreshes).
func (r Methods) RecordRefresh(ctx context.Context, topic, urlHash string, res store.RefreshResult) error {
	next, err := RefreshNext(topic, urlHash, res)
	if err != nil {
		return r.errorf("%w", err)
	}
	// A count without its start (or a start without a count) would read
	// as a page unreachable since 1970, or as none: both or neither.
	unreachable, since := max(res.Unreachable, 0), ToNanos(res.UnreachableSince)
	if unreachable == 0 || since <= 0 {
		unreachable, since = 0, 0
	}
	const update = `UPDATE refresh_state SET next_at = ?, interval_ns = ?, checks = checks + ?,
		changes = changes + ?, batch_id = '', lease_until = 0, failures = failures * ?, dropped = ?,
		unreachable = ?, unreachable_since = ?
		WHERE topic = ? AND url_hash = ? AND batch_id = ?`
	args := []any{next, int64(res.Interval), BoolInt(!res.Postponed), BoolInt(res.Changed), BoolInt(res.Postponed), max(res.Dropped, 0),
		unreachable, since, topic, urlHash, res.BatchID}
	what := fmt.Sprintf("record refresh of page %s of topic %q", urlHash, topic)
	if res.Validators == nil {
		_, err = r.Exec(ctx, what, update, args...)
		return err
	}
	return r.Tx(ctx, what, func(tx Tx) error {
		n, err := tx.Exec(ctx, update, args...)
		if err != nil || n == 0 {
			return err // not this batch's page any more: nothing of it is written
		}
		_, err = tx.Exec(ctx, `UPDATE pages SET etag = ?, last_modified = ? WHERE topic = ? AND url_hash = ?`,
			res.Validators.ETag, res.Validators.LastModified, topic, urlHash)
		return err
	})
}

// RenewRefresh extends a refresh claim's lease (see store.Refreshes).
// SQLite's; PostgreSQL's (store/postgres) is the same with its rows
// locked in key order, and must change with it.
func (r Methods) RenewRefresh(ctx context.Context, topic, batchID string, until time.Time) error {
	if batchID == "" {
		return r.errorf("renew refresh claim of topic %q: batch ID is required", topic)
	}
	// A released page (lease_until 0: ReleaseRefresh) stays released.
	_, err := r.Exec(ctx, fmt.Sprintf("renew refresh claim %q of topic %q", batchID, topic),
		`UPDATE refresh_state SET lease_until = ? WHERE topic = ? AND batch_id = ? AND lease_until < ? AND lease_until > 0`,
		ToNanos(until), topic, batchID, ToNanos(until))
	return err
}

// ReleaseRefresh ends a refresh batch's claim at once (see store.Refreshes).
// SQLite's; PostgreSQL's (store/postgres) is the same with its rows
// locked in key order, and must change with it.
//
// A released page keeps its batch ID with lease_until 0, a state no claim
// makes (a claim's lease ends after its time, unix ns > 0; a recorded page
// has no batch): its claim ended in 1970, so a claim finds its lease and
// any retry delay after it long over, and the claim counts a failure as
// for any claim that ran out (the batch ID is kept). The eligibility
// queries, the outlook and PostgreSQL's conflict re-check need no change,
// and RenewRefresh and HoldRefresh tell it from a live claim by it.
func (r Methods) ReleaseRefresh(ctx context.Context, topic, batchID string) (int, error) {
	if batchID == "" {
		return 0, r.errorf("release refresh claim of topic %q: batch ID is required", topic)
	}
	// Rows matched count, also those released before: a retry answers as
	// the first call did.
	n, err := r.Exec(ctx, fmt.Sprintf("release refresh claim %q of topic %q", batchID, topic),
		`UPDATE refresh_state SET lease_until = 0 WHERE topic = ? AND batch_id = ?`, topic, batchID)
	return int(n), err
}

// HoldRefresh reports whether a refresh batch still holds a page for its
// revisit and extends that page's lease (see store.Refreshes).
func (r Methods) HoldRefresh(ctx context.Context, topic, urlHash, batchID string, until time.Time) (bool, error) {
	if batchID == "" {
		return false, r.errorf("hold page %s of topic %q for a refresh: batch ID is required", urlHash, topic)
	}
	// The check and the lease are one statement: no claim can take the page
	// between them. Rows matched count, also with the lease left as it was.
	// A released page (lease_until 0: ReleaseRefresh) is not held.
	nanos := ToNanos(until)
	n, err := r.Exec(ctx, fmt.Sprintf("hold page %s of topic %q for refresh batch %q", urlHash, topic, batchID),
		`UPDATE refresh_state SET lease_until = CASE WHEN lease_until < ? THEN ? ELSE lease_until END
		WHERE topic = ? AND url_hash = ? AND batch_id = ? AND lease_until > 0
			AND NOT EXISTS (SELECT 1 FROM pages WHERE topic = ? AND url_hash = ? AND batch_id = ?)`,
		nanos, nanos, topic, urlHash, batchID, topic, urlHash, batchID)
	return n > 0, err
}

// PutModel stores data as the newest version of (topic, kind) and returns
// that version (1 for the first). A lock on (topic, kind) keeps concurrent
// puts from choosing one version twice.
func (r Methods) PutModel(ctx context.Context, topic, kind string, data []byte) (int, error) {
	var version int
	err := r.Tx(ctx, fmt.Sprintf("put %q model of topic %q", kind, topic), func(tx Tx) error {
		if err := tx.LockTopic(ctx, topic); err != nil {
			return err
		}
		if err := tx.Lock(ctx, fmt.Sprintf("model/%d/%s/%s", len(topic), topic, kind)); err != nil {
			return err
		}
		// The next version follows the last one ever handed out, not the
		// last one stored: ResetTopic deletes the models and keeps
		// model_versions, and a version number once used must never name
		// other bytes (modelstore caches decoded versions by number).
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(v), 0) + 1 FROM (
				SELECT MAX(version) AS v FROM models WHERE topic = ? AND kind = ?
				UNION ALL SELECT last_version FROM model_versions WHERE topic = ? AND kind = ?) AS seen`,
			topic, kind, topic, kind).Scan(&version); err != nil {
			return err
		}
		// A trigger records the version in model_versions.
		_, err := tx.Exec(ctx, `INSERT INTO models (topic, kind, version, data, created_at) VALUES (?, ?, ?, ?, ?)`,
			topic, kind, version, NonNil(data), time.Now().UnixNano())
		return err
	})
	if err != nil {
		return 0, err
	}
	return version, nil
}

// PruneModels deletes the versions of (topic, kind) but the newest keep.
func (r Methods) PruneModels(ctx context.Context, topic, kind string, keep int) (int, error) {
	if keep < 1 {
		return 0, r.errorf("prune %q models of topic %q: keep %d, want at least 1", kind, topic, keep)
	}
	n, err := r.Exec(ctx, fmt.Sprintf("prune %q models of topic %q", kind, topic),
		`DELETE FROM models WHERE topic = ? AND kind = ? AND version < (
			SELECT COALESCE(MIN(version), 0) FROM (
				SELECT version FROM models WHERE topic = ? AND kind = ? ORDER BY version DESC LIMIT ?) AS newest)`,
		topic, kind, topic, kind, keep)
	return int(n), err
}

// WrapTxError is how a backend's transaction runner reports fn's error: a
// not-found error (which already names what is missing) with the backend's
// name before it, any other with the operation's too.
func WrapTxError(prefix, what string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	return fmt.Errorf("%s: %s: %w", prefix, what, err)
}

// RecordNoResultQuery counts one search of topic for query that found
// nothing. The query is whitespace-collapsed; an empty query is an error.
func (r Methods) RecordNoResultQuery(ctx context.Context, topic, query string, at time.Time) error {
	q, at, err := NoResultQuery(topic, query, at)
	if err != nil {
		return r.errorf("%w", err)
	}
	// CASE rather than SQLite's scalar MAX or PostgreSQL's GREATEST: one
	// text for both; the table name keeps the columns unambiguous in both.
	_, err = r.Exec(ctx, fmt.Sprintf("record no-result query of %s", topic), `INSERT INTO no_result_queries (topic, query, count, last_at)
		VALUES (?, ?, 1, ?) ON CONFLICT (topic, query) DO UPDATE SET count = no_result_queries.count + 1,
		last_at = CASE WHEN no_result_queries.last_at > excluded.last_at THEN no_result_queries.last_at ELSE excluded.last_at END`,
		topic, q, ToNanos(at))
	return err
}

// SetDecisionsTx records a group's decisions in tx (SetDecision each),
// then adds the first judgements of those with a YieldHost to their hosts'
// yields, and the acceptance changes of those with a RecountHost (each
// also to its YieldAlso key), summed per host and written in host order, so that concurrent transactions lock
// the yield rows in one order.
func SetDecisionsTx(ctx context.Context, tx Tx, topic string, ds []store.PageDecision) error {
	yields := map[string]store.HostYield{}
	for _, d := range ds {
		cond, host := "", d.YieldHost
		switch {
		case d.YieldHost != "":
			cond = ` AND decision = ''`
		case d.RecountHost != "" && d.Decision.Decision == store.DecisionAccepted:
			cond, host = ` AND decision <> 'accepted'`, d.RecountHost
		case d.RecountHost != "":
			cond, host = ` AND decision = 'accepted'`, d.RecountHost
		}
		matched, err := setDecision(topic, d.URLHash, d.Decision, cond, func(q string, args ...any) (int64, error) {
			return tx.Exec(ctx, q, args...)
		})
		if err != nil {
			return err
		}
		if !matched {
			continue
		}
		var judged, accepted int
		switch {
		case d.YieldHost != "":
			judged = 1
			if d.Decision.Decision == store.DecisionAccepted {
				accepted = 1
			}
		case d.Decision.Decision == store.DecisionAccepted:
			accepted = 1
		default:
			accepted = -1
		}
		for _, key := range []string{host, d.YieldAlso} {
			if key != "" {
				y := yields[key]
				y.Judged, y.Accepted = y.Judged+judged, y.Accepted+accepted
				yields[key] = y
			}
		}
	}
	for _, host := range slices.Sorted(maps.Keys(yields)) {
		y := yields[host]
		if y.Judged == 0 && y.Accepted == 0 {
			continue
		}
		if _, err := tx.Exec(ctx, `INSERT INTO host_yield (topic, host, judged, accepted) VALUES (?, ?, ?, ?)
			ON CONFLICT (topic, host) DO UPDATE SET judged = host_yield.judged + excluded.judged,
			accepted = CASE WHEN host_yield.accepted + ? < 0 THEN 0 ELSE host_yield.accepted + ? END`,
			topic, host, y.Judged, max(y.Accepted, 0), y.Accepted, y.Accepted); err != nil {
			return fmt.Errorf("host yield of %s, topic %q: %w", host, topic, err)
		}
	}
	return nil
}

// TermCount is what a parse write did to the topic's term statistics
// (store.GroupResult.TermDocs, TermDF, TermSampleFull, TermSampleGen);
// Docs is the count before the write when the sample was full, and Gen
// the sample's generation then.
type TermCount struct {
	Docs int
	DF   map[string]int
	Full bool
	Gen  int64
}

// TermSampleFull returns, when the topic's term sample (store.GroupWrite.
// TermSample) is full before a write of parses parse records, its document
// count and generation with Full set; the zero TermCount when it is not.
// The sample's size is the one stored with it; sample, the write's own,
// only when none is: it is fixed here for a sample counted by a release
// that stored none, and by the write's count (CountedDocsSQL) for a
// sample it starts. No read when nothing is to be counted.
func TermSampleFull(ctx context.Context, tx Tx, topic string, parses, sample int) (TermCount, error) {
	if parses == 0 {
		return TermCount{}, nil
	}
	var tc TermCount
	var size int
	err := tx.QueryRow(ctx, `SELECT docs, gen, sample FROM topic_docs WHERE topic = ?`, topic).Scan(&tc.Docs, &tc.Gen, &size)
	switch {
	case tx.IsNoRows(err):
		return TermCount{}, nil // the write starts the sample
	case err != nil:
		return TermCount{}, fmt.Errorf("document count: %w", err)
	case size == 0:
		// Conditional, as another writer (PostgreSQL) may have fixed it
		// since the read: the size returned is the one that stays.
		err := tx.QueryRow(ctx, `UPDATE topic_docs SET sample = CASE WHEN sample = 0 THEN ? ELSE sample END
			WHERE topic = ? RETURNING docs, gen, sample`, FixedTermSample(sample), topic).Scan(&tc.Docs, &tc.Gen, &size)
		if err != nil {
			return TermCount{}, fmt.Errorf("fix the term sample's size: %w", err)
		}
	}
	if !(store.TermTotals{Docs: tc.Docs, Sample: size}).Full(sample) {
		return TermCount{}, nil
	}
	tc.Full = true
	return tc, nil
}

// FixedTermSample is the size a write with store.GroupWrite.TermSample
// sample fixes for the sample it starts (topic_docs.sample,
// store.TermTotals.Sample): sample, or -1 (no bound) for none; 0 there
// means that no size is fixed.
func FixedTermSample(sample int) int {
	if sample <= 0 {
		return -1
	}
	return sample
}

// CountedDocsSQL adds a write's counted documents (the arguments: topic,
// documents, the write's FixedTermSample) to the topic's document count,
// returning the new count; the write that creates the row (starts the
// sample) fixes its size.
const CountedDocsSQL = `INSERT INTO topic_docs (topic, docs, sample) VALUES (?, ?, ?)
	ON CONFLICT (topic) DO UPDATE SET docs = topic_docs.docs + excluded.docs,
		sample = CASE WHEN topic_docs.sample = 0 THEN excluded.sample ELSE topic_docs.sample END
	RETURNING docs`
