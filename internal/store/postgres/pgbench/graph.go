package pgbench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres"
)

// graphResult is the graph phase's result for one graph size.
type graphResult struct {
	Edges     int
	Fill      time.Duration
	TableSize string
	AddLinks  latencies // one page's 60 out-links
	InAnchors latencies // anchors of links into one page (limit 20)
}

// benchGraph fills a topic's link graph with edges rows server-side (pages
// of 60 out-links into a site 10 times as many pages as linking pages) and
// times the two graph calls of every batch: AddLinks of one page's links
// (PredictLinks) and InAnchors of one page (FilterPages).
func benchGraph(ctx context.Context, o options, edges int) (graphResult, error) {
	dsn, drop, err := schema(ctx, o, "fcbenchgraph")
	if err != nil {
		return graphResult{}, err
	}
	defer drop()
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		return graphResult{}, err
	}
	defer st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return graphResult{}, err
	}
	defer conn.Close(ctx)
	r := graphResult{Edges: edges}
	const perPage = 60
	pages := max(edges/perPage, 1)
	start := time.Now()
	const chunk = 1_000_000
	for lo := 0; lo < edges; lo += chunk {
		hi := min(lo+chunk, edges) - 1
		// Edge i: from page i/60 to page (i*7919) mod (10*pages).
		if _, err := conn.Exec(ctx, `INSERT INTO links (topic, src, dst, dst_url, anchor, context, score)
			SELECT $1, md5('p' || (i / 60)), md5('p' || ((i::bigint * 7919) % $4)), 'https://g.bench.test/p' || ((i::bigint * 7919) % $4),
				'anchor ' || (i % 97), 'context', 0.5
			FROM generate_series($2::bigint, $3::bigint) AS i
			ON CONFLICT DO NOTHING`, benchTopic, lo, hi, 10*pages); err != nil {
			return r, fmt.Errorf("fill links %d-%d: %w", lo, hi, err)
		}
		fmt.Fprintf(os.Stderr, "graph %d: %d edges inserted (%s)\n", edges, hi+1, time.Since(start).Round(time.Second))
	}
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE links`); err != nil {
		return r, err
	}
	r.Fill = time.Since(start)
	if err := conn.QueryRow(ctx, `SELECT pg_size_pretty(pg_total_relation_size('links'))`).Scan(&r.TableSize); err != nil {
		return r, err
	}
	for i := range o.claims {
		src := fmt.Sprintf("new-page-%d", i)
		ls := make([]store.Link, perPage)
		for j := range ls {
			u := fmt.Sprintf("https://g.bench.test/p%d", (i*perPage+j)*31%(10*pages))
			ls[j] = store.Link{Src: src, Dst: fmt.Sprintf("dst-%d-%d", i, j), DstURL: u, Anchor: "anchor", Context: "context", Score: 0.5}
		}
		t := time.Now()
		if err := st.AddLinks(ctx, benchTopic, ls); err != nil {
			return r, err
		}
		r.AddLinks = append(r.AddLinks, time.Since(t))
		var dst string
		if err := conn.QueryRow(ctx, `SELECT md5('p' || $1::bigint)`, (i*7919)%(10*pages)).Scan(&dst); err != nil {
			return r, err
		}
		t = time.Now()
		if _, err := st.InAnchors(ctx, benchTopic, dst, 20); err != nil {
			return r, err
		}
		r.InAnchors = append(r.InAnchors, time.Since(t))
	}
	slices.Sort(r.AddLinks)
	slices.Sort(r.InAnchors)
	fmt.Fprintf(os.Stderr, "graph %d: AddLinks p50 %s p99 %s; InAnchors p50 %s p99 %s\n", edges,
		r.AddLinks.pct(0.5), r.AddLinks.pct(0.99), r.InAnchors.pct(0.5), r.InAnchors.pct(0.99))
	return r, nil
}

func writeGraphReport(p func(string, ...any), graphs []graphResult) {
	p("### The link graph against its size\n\n")
	p("A topic's `links` table filled server-side with `generate_series` (pages of 60 out-links into a site ten times that many pages), after `VACUUM ANALYZE`; then per measurement one page's 60 new out-links stored (`AddLinks`, as PredictLinks does per page) and the anchors into one page read (`InAnchors`, limit 20, as FilterPages does per page).\n\n")
	p("| edges | fill time | table + indexes | AddLinks p50 | AddLinks p99 | InAnchors p50 | InAnchors p99 |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range graphs {
		p("| %d | %s | %s | %s | %s | %s | %s |\n", r.Edges, r.Fill.Round(time.Second), r.TableSize,
			ms(r.AddLinks.pct(0.5)), ms(r.AddLinks.pct(0.99)), ms(r.InAnchors.pct(0.5)), ms(r.InAnchors.pct(0.99)))
	}
	p("\n")
}
