package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// AddLinks inserts edges of topic's crawl graph in one statement; an
// existing (src, dst) edge keeps its first anchor, context and score. Edges
// are sent sorted by (src, dst) so concurrent calls take index locks in one
// order.
func (s *Store) AddLinks(ctx context.Context, topic string, links []store.Link) error {
	if len(links) == 0 {
		return nil
	}
	lc, err := linkColumns(topic, links)
	if err != nil {
		return err
	}
	return s.tx(ctx, fmt.Sprintf("add %d links of topic %q", len(lc.src), topic), func(tx pgx.Tx) error {
		if err := lockTopics(ctx, tx, topic); err != nil {
			return err
		}
		return addLinks(ctx, tx, topic, lc)
	})
}

// linkColumnsIn holds edges column by column, as arrays for unnest.
type linkColumnsIn struct {
	src, dst, dstURL, anchor, context []string
	score                             []float64
}

// linkColumns checks links and lays them out sorted by (src, dst), each
// edge once.
func linkColumns(topic string, links []store.Link) (linkColumnsIn, error) {
	ls := slices.Clone(links)
	for _, l := range ls {
		if l.Src == "" || l.Dst == "" {
			return linkColumnsIn{}, fmt.Errorf("store/postgres: add links of topic %q: link %q -> %q (%s): source and target hashes are required",
				topic, l.Src, l.Dst, l.DstURL)
		}
	}
	// Stable: of two copies of one edge in a call, the first one wins, as
	// it would if they were inserted one by one.
	slices.SortStableFunc(ls, func(a, b store.Link) int {
		return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst))
	})
	ls = slices.CompactFunc(ls, func(a, b store.Link) bool { return a.Src == b.Src && a.Dst == b.Dst })
	n := len(ls)
	c := linkColumnsIn{make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]float64, n)}
	for i, l := range ls {
		c.src[i], c.dst[i], c.dstURL[i], c.anchor[i], c.context[i], c.score[i] = l.Src, l.Dst, l.DstURL, l.Anchor, l.Context, l.Score
		if math.IsNaN(c.score[i]) {
			c.score[i] = 0
		}
	}
	return c, nil
}

func addLinks(ctx context.Context, tx pgx.Tx, topic string, c linkColumnsIn) error {
	if len(c.src) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO links (topic, src, dst, dst_url, anchor, context, score)
		SELECT $1, src, dst, dst_url, anchor, context, score
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[])
			WITH ORDINALITY AS l(src, dst, dst_url, anchor, context, score, i)
		ORDER BY i
		ON CONFLICT (topic, src, dst) DO NOTHING`, topic, c.src, c.dst, c.dstURL, c.anchor, c.context, c.score)
	return err
}

// InAnchors returns up to limit non-empty anchor texts of links to dst,
// ordered by linking page; limit <= 0 means all. The index links_dst
// (topic, dst, src) serves it without a sort.
func (s *Store) InAnchors(ctx context.Context, topic, dst string, limit int) ([]string, error) {
	q := `SELECT anchor FROM links WHERE topic = $1 AND dst = $2 AND anchor <> '' ORDER BY src`
	args := []any{topic, dst}
	if limit > 0 {
		q += ` LIMIT $3`
		args = append(args, limit)
	}
	rows, err := s.pool.Query(ctx, q, args...)
	out, err := collect(rows, err, sqlshared.ScanString)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: anchors to %s of topic %q: %w", dst, topic, err)
	}
	return out, nil
}

// ReserveHostSlot books host's next request slot: at = max(now, next allowed
// time), and the next allowed time becomes at + delay. It is one upsert: the
// host row's lock orders concurrent reservers on every machine, and each
// reads the previous one's result, so the slots are at least delay apart.
// A zero now means time.Now().
func (s *Store) ReserveHostSlot(ctx context.Context, host string, delay time.Duration, now time.Time) (time.Time, error) {
	if host == "" {
		return time.Time{}, errors.New("store/postgres: reserve host slot: empty host")
	}
	if now.IsZero() {
		now = time.Now()
	}
	d := int64(max(delay, 0))
	var next int64
	err := s.pool.QueryRow(ctx, `INSERT INTO hosts AS h (host, next_allowed_at) VALUES ($1, $2::bigint + $3::bigint)
		ON CONFLICT (host) DO UPDATE SET next_allowed_at = GREATEST(h.next_allowed_at, $2::bigint) + $3::bigint
		RETURNING next_allowed_at`, host, toNanos(now), d).Scan(&next)
	if err != nil {
		return time.Time{}, fmt.Errorf("store/postgres: reserve slot of host %q: %w", host, err)
	}
	return fromNanos(next - d), nil
}

// TermStats returns the topic's parsed-document count, the document
// frequency of each requested term (0 for terms never seen; every requested
// term is a key of DF) and its term sample's generation and size.
func (s *Store) TermStats(ctx context.Context, topic string, terms []string) (store.TermTotals, error) {
	var tt store.TermTotals
	err := s.pool.QueryRow(ctx, `SELECT docs, gen, sample FROM topic_docs WHERE topic = $1`, topic).Scan(&tt.Docs, &tt.Gen, &tt.Sample)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return store.TermTotals{}, fmt.Errorf("store/postgres: document count of topic %q: %w", topic, err)
	}
	df, uniq := sqlshared.UniqueTerms(terms)
	tt.DF = df
	if len(uniq) == 0 {
		return tt, nil
	}
	type termDF struct {
		term string
		n    int
	}
	rows, err := s.pool.Query(ctx, `SELECT term, df FROM term_df WHERE topic = $1 AND term = ANY($2)`, topic, uniq)
	got, err := collect(rows, err, func(sc scanner) (termDF, error) {
		var t termDF
		return t, sc.Scan(&t.term, &t.n)
	})
	if err != nil {
		return store.TermTotals{}, fmt.Errorf("store/postgres: document frequencies of %d terms of topic %q: %w", len(uniq), topic, err)
	}
	for _, t := range got {
		df[t.term] = t.n
	}
	return tt, nil
}

// AllTermStats returns the topic's parsed-document count, the document
// frequency of every term it counted and its term sample's generation and
// size, read in one snapshot.
func (s *Store) AllTermStats(ctx context.Context, topic string) (store.TermTotals, error) {
	var tt store.TermTotals
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		tt = store.TermTotals{DF: map[string]int{}}
		err := tx.QueryRow(ctx, `SELECT docs, gen, sample FROM topic_docs WHERE topic = $1`, topic).Scan(&tt.Docs, &tt.Gen, &tt.Sample)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("document count: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT term, df FROM term_df WHERE topic = $1`, topic)
		if err != nil {
			return fmt.Errorf("document frequencies: %w", err)
		}
		var t string
		var n int
		_, err = pgx.ForEachRow(rows, []any{&t, &n}, func() error { tt.DF[t] = n; return nil })
		return err
	})
	if err != nil {
		return store.TermTotals{}, fmt.Errorf("store/postgres: term statistics of topic %q: %w", topic, err)
	}
	return tt, nil
}

// InLinks returns the links into each of dsts with their source pages'
// crawl, decision and relevance (store.InLink), sources in hash order.
func (s *Store) InLinks(ctx context.Context, topic string, dsts []string) (map[string][]store.InLink, error) {
	out := map[string][]store.InLink{}
	if len(dsts) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, rebind(fmt.Sprintf(sqlshared.InLinksQuery, "", "= ANY(?)")), topic, dsts)
	if err == nil {
		err = sqlshared.GroupInLinks(rows, out)
		rows.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("store/postgres: in-links of %d pages of topic %q: %w", len(dsts), topic, err)
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
	rows, err := s.pool.Query(ctx, rebind(fmt.Sprintf(sqlshared.OutLinksQuery, "= ANY(?)")), topic, srcs)
	if err == nil {
		err = sqlshared.GroupOutLinks(rows, out)
		rows.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("store/postgres: out-links of %d pages of topic %q: %w", len(srcs), topic, err)
	}
	return out, nil
}

// HostYields returns the topic's counts of those of hosts that have any.
func (s *Store) HostYields(ctx context.Context, topic string, hosts []string) (map[string]store.HostYield, error) {
	out := map[string]store.HostYield{}
	if len(hosts) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, rebind(fmt.Sprintf(sqlshared.HostYieldsQuery, "= ANY(?)")), topic, hosts)
	if err == nil {
		err = sqlshared.CollectHostYields(rows, out)
		rows.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("store/postgres: host yields of %d hosts of topic %q: %w", len(hosts), topic, err)
	}
	return out, nil
}
