package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// AddLinks inserts edges of topic's crawl graph; an existing (src, dst) edge
// keeps its first anchor, context and score.
func (s *Store) AddLinks(ctx context.Context, topic string, links []store.Link) error {
	if len(links) == 0 {
		return nil
	}
	return s.write(ctx, fmt.Sprintf("add %d links of topic %q", len(links), topic), func(tx *wtx) error {
		return addLinksTx(ctx, tx, topic, links)
	})
}

func addLinksTx(ctx context.Context, tx *wtx, topic string, links []store.Link) error {
	ins, err := tx.PrepareContext(ctx, `INSERT INTO links (topic, src, dst, dst_url, anchor, context, score)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (topic, src, dst) DO NOTHING`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, l := range links {
		if l.Src == "" || l.Dst == "" {
			return fmt.Errorf("link %q -> %q (%s): source and target hashes are required", l.Src, l.Dst, l.DstURL)
		}
		score := l.Score
		if math.IsNaN(score) {
			score = 0
		}
		if _, err := ins.ExecContext(ctx, topic, l.Src, l.Dst, l.DstURL, l.Anchor, l.Context, score); err != nil {
			return fmt.Errorf("link %s -> %s: %w", l.Src, l.Dst, err)
		}
	}
	return nil
}

// InAnchors returns up to limit non-empty anchor texts of links to dst,
// ordered by linking page; limit <= 0 means all.
func (s *Store) InAnchors(ctx context.Context, topic, dst string, limit int) ([]string, error) {
	// INDEXED BY: without statistics SQLite prefers the primary key
	// (topic, src, dst) to avoid sorting, which scans the topic's whole link
	// table per call — quadratic over a crawl (found by the throughput
	// benchmark: 20% of the worker's CPU).
	q := `SELECT anchor FROM links INDEXED BY links_dst WHERE topic = ? AND dst = ? AND anchor <> '' ORDER BY src`
	args := []any{topic, dst}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	out, err := collect(rows, err, sqlshared.ScanString)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: anchors to %s of topic %q: %w", dst, topic, err)
	}
	return out, nil
}

// ReserveHostSlot books host's next request slot: at = max(now, next allowed
// time), and the next allowed time becomes at + delay. Read and update are
// one IMMEDIATE transaction, so concurrent reservers — in any process —
// receive distinct slots at least delay apart. A zero now means time.Now().
func (s *Store) ReserveHostSlot(ctx context.Context, host string, delay time.Duration, now time.Time) (time.Time, error) {
	if host == "" {
		return time.Time{}, errors.New("store/sqlite: reserve host slot: empty host")
	}
	if now.IsZero() {
		now = time.Now()
	}
	at := toNanos(now)
	err := s.write(ctx, fmt.Sprintf("reserve slot of host %q", host), func(tx *wtx) error {
		var next int64
		err := tx.QueryRowContext(ctx, `SELECT next_allowed_at FROM hosts WHERE host = ?`, host).Scan(&next)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		at = max(at, next)
		_, err = tx.ExecContext(ctx, `INSERT INTO hosts (host, next_allowed_at) VALUES (?, ?)
			ON CONFLICT (host) DO UPDATE SET next_allowed_at = excluded.next_allowed_at`, host, at+int64(max(delay, 0)))
		return err
	})
	if err != nil {
		return time.Time{}, err
	}
	return fromNanos(at), nil
}

// TermStats returns the topic's parsed-document count, the document
// frequency of each requested term (0 for terms never seen; every requested
// term is a key of DF) and its term sample's generation and size.
func (s *Store) TermStats(ctx context.Context, topic string, terms []string) (store.TermTotals, error) {
	var tt store.TermTotals
	err := s.rdb.QueryRowContext(ctx, `SELECT docs, gen, sample FROM topic_docs WHERE topic = ?`, topic).Scan(&tt.Docs, &tt.Gen, &tt.Sample)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return store.TermTotals{}, fmt.Errorf("store/sqlite: document count of topic %q: %w", topic, err)
	}
	df, uniq := sqlshared.UniqueTerms(terms)
	tt.DF = df
	if len(uniq) == 0 {
		return tt, nil
	}
	// One statement of one shape for any number of terms (a JSON array
	// walked by json_each, each term looked up on the primary key), so it
	// is prepared once: an IN list per call was parsed anew every time.
	list, err := json.Marshal(uniq)
	if err != nil {
		return store.TermTotals{}, fmt.Errorf("store/sqlite: document frequencies of topic %q: %w", topic, err)
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT t.term, t.df FROM json_each(?) AS j
		CROSS JOIN term_df AS t ON t.topic = ? AND t.term = j.value`, string(list), topic)
	if err != nil {
		return store.TermTotals{}, fmt.Errorf("store/sqlite: document frequencies of %d terms of topic %q: %w", len(uniq), topic, err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return store.TermTotals{}, fmt.Errorf("store/sqlite: document frequencies of %d terms of topic %q: %w", len(uniq), topic, err)
		}
		df[t] = n
	}
	if err := rows.Err(); err != nil {
		return store.TermTotals{}, fmt.Errorf("store/sqlite: document frequencies of %d terms of topic %q: %w", len(uniq), topic, err)
	}
	return tt, nil
}

// AllTermStats returns the topic's parsed-document count, the document
// frequency of every term it counted and its term sample's generation and
// size, read in one transaction.
func (s *Store) AllTermStats(ctx context.Context, topic string) (store.TermTotals, error) {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return store.TermTotals{}, fmt.Errorf("store/sqlite: term statistics of topic %q: %w", topic, err)
	}
	defer tx.Rollback()
	var tt store.TermTotals
	err = tx.QueryRowContext(ctx, `SELECT docs, gen, sample FROM topic_docs WHERE topic = ?`, topic).Scan(&tt.Docs, &tt.Gen, &tt.Sample)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return store.TermTotals{}, fmt.Errorf("store/sqlite: document count of topic %q: %w", topic, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT term, df FROM term_df WHERE topic = ?`, topic)
	if err != nil {
		return store.TermTotals{}, fmt.Errorf("store/sqlite: document frequencies of topic %q: %w", topic, err)
	}
	tt.DF = map[string]int{}
	if err := scanTermDF(rows, tt.DF); err != nil {
		return store.TermTotals{}, fmt.Errorf("store/sqlite: document frequencies of topic %q: %w", topic, err)
	}
	return tt, nil
}

// InLinks returns the links into each of dsts with their source pages'
// crawl, decision and relevance (store.InLink), sources in hash order.
func (s *Store) InLinks(ctx context.Context, topic string, dsts []string) (map[string][]store.InLink, error) {
	out := map[string][]store.InLink{}
	for start := 0; start < len(dsts); start += sqlshared.ChunkSize {
		chunk := dsts[start:min(start+sqlshared.ChunkSize, len(dsts))]
		args := []any{topic}
		for _, d := range chunk {
			args = append(args, d)
		}
		// INDEXED BY links_dst for the reason InAnchors gives; the join
		// reads each source page by its primary key.
		rows, err := s.rdb.QueryContext(ctx, fmt.Sprintf(sqlshared.InLinksQuery, "INDEXED BY links_dst",
			"IN (?"+strings.Repeat(", ?", len(chunk)-1)+")"), args...)
		if err == nil {
			err = sqlshared.GroupInLinks(rows, out)
			rows.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("store/sqlite: in-links of %d pages of topic %q: %w", len(chunk), topic, err)
		}
	}
	return out, nil
}

// OutLinks returns the links out of each of srcs with their target pages
// (store.OutLink), by source.
func (s *Store) OutLinks(ctx context.Context, topic string, srcs []string) (map[string][]store.OutLink, error) {
	out := map[string][]store.OutLink{}
	if len(srcs) == 0 {
		return out, nil
	}
	if err := s.queryKeys(ctx, sqlshared.OutLinksQuery, topic, srcs, func(rows sqlshared.Rows) error {
		return sqlshared.GroupOutLinks(rows, out)
	}); err != nil {
		return nil, fmt.Errorf("store/sqlite: out-links of %d pages of topic %q: %w", len(srcs), topic, err)
	}
	return out, nil
}

// queryKeys runs q, a query of topic whose %s is a condition on a set of
// keys, with keys as one JSON array (json_each: one statement shape for
// any number of keys, prepared once), and reads its rows with read.
func (s *Store) queryKeys(ctx context.Context, q, topic string, keys []string, read func(sqlshared.Rows) error) error {
	list, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	rows, err := s.rdb.QueryContext(ctx, fmt.Sprintf(q, "IN (SELECT value FROM json_each(?))"), topic, string(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	return read(rows)
}

// HostYields returns the topic's counts of those of hosts that have any,
// the hosts as one JSON array (queryKeys), as in TermStats.
func (s *Store) HostYields(ctx context.Context, topic string, hosts []string) (map[string]store.HostYield, error) {
	out := map[string]store.HostYield{}
	if len(hosts) == 0 {
		return out, nil
	}
	if err := s.queryKeys(ctx, sqlshared.HostYieldsQuery, topic, hosts, func(rows sqlshared.Rows) error {
		return sqlshared.CollectHostYields(rows, out)
	}); err != nil {
		return nil, fmt.Errorf("store/sqlite: host yields of %d hosts of topic %q: %w", len(hosts), topic, err)
	}
	return out, nil
}
