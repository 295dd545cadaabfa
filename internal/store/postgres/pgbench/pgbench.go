// Package pgbench measures the PostgreSQL crawl store at size and with
// several workers (issue 14). It is not part of make test: filling a
// frontier of 10 M rows takes minutes. Two phases, each optional:
//
//   - claims (--rows): for each frontier size, a fresh schema is filled
//     server-side with generate_series (every row queued, 1,000 hosts), and
//     store.ClaimBatch is timed the way the crawl calls it (32 entries, at
//     most 16 per host), first from one client, then from --claimers
//     concurrent clients; p50 and p99 are reported, plus FrontierStats (the
//     count a crawl slice and the workflow's exhaustion check read).
//   - graph (--edges): for each size, a topic's link graph is filled the
//     same way and AddLinks (one page's out-links) and InAnchors (one page's
//     in-anchors) are timed.
//   - crawl (--workers): the same crawl of the synthetic web (package synth,
//     served by replay) on a fresh schema with 1, 2, 4, ... worker processes
//     sharing it, on a Temporal dev server; pages/s and each worker's peak
//     RSS are reported.
//
// It prints a Markdown section, and with --update FILE replaces the section
// between the markers <!-- pgbench:begin --> and <!-- pgbench:end --> of
// FILE (appending it when absent), e.g. docs/benchmarks.md.
//
//	go run ./eval pgbench --rows 10000,10000000 --workers 1,2,4 --update docs/benchmarks.md
package pgbench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres"
	"focuscrawl/internal/store/postgres/pgtest"
)

// options are the command line.
type options struct {
	dsn         string
	rows        []int
	edges       []int
	claims      int
	claimers    int
	workers     []int
	pages       int
	hosts       int
	perHost     int
	work        string
	temporalBin string
	note        string
	update      string
	keep        bool
}

// Main runs the benchmark with command-line arguments args (the eval
// command's pgbench tool).
func Main(ctx context.Context, args []string) error {
	var o options
	fs := flag.NewFlagSet("pgbench", flag.ContinueOnError)
	rows := fs.String("rows", "10000,10000000", "frontier sizes for the claim-latency phase (comma-separated; empty: skip)")
	edges := fs.String("edges", "", "link-graph sizes for the graph phase (comma-separated; empty: skip), e.g. 1000000,50000000")
	workers := fs.String("workers", "1,2,4", "worker counts for the crawl phase (comma-separated; empty: skip)")
	fs.StringVar(&o.dsn, "dsn", "", "PostgreSQL server (default: $"+pgtest.EnvDSN+" or "+pgtest.DefaultDSN+"); each phase uses its own schema, dropped afterwards")
	fs.IntVar(&o.claims, "claims", 200, "claims timed per frontier size and client setting")
	fs.IntVar(&o.claimers, "claimers", 4, "concurrent clients in the concurrent claim measurement")
	fs.IntVar(&o.pages, "pages", 1000, "crawl phase: page budget of the crawl")
	fs.IntVar(&o.hosts, "hosts", 30, "crawl phase: synthetic web hosts")
	fs.IntVar(&o.perHost, "pages-per-host", 60, "crawl phase: synthetic web pages per host")
	fs.StringVar(&o.work, "work", "var/eval/pgbench", "working directory (synthetic web, index, worker logs)")
	fs.StringVar(&o.temporalBin, "temporal-bin", "", "Temporal CLI (default $FOCUSCRAWL_TEMPORAL_BIN or $(go env GOPATH)/bin/temporal)")
	fs.StringVar(&o.note, "note", "", "a sentence on the conditions of the run (machine load), put in the report")
	fs.StringVar(&o.update, "update", "", "replace the pgbench section of this Markdown file (e.g. docs/benchmarks.md)")
	fs.BoolVar(&o.keep, "keep", false, "keep the benchmark schemas (for inspection)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if o.rows, err = ints(*rows); err != nil {
		return fmt.Errorf("--rows: %w", err)
	}
	if o.workers, err = ints(*workers); err != nil {
		return fmt.Errorf("--workers: %w", err)
	}
	if o.edges, err = ints(*edges); err != nil {
		return fmt.Errorf("--edges: %w", err)
	}
	if o.dsn == "" {
		o.dsn = pgtest.BaseDSN()
	}

	var claimResults []claimResult
	for _, n := range o.rows {
		r, err := benchClaims(ctx, o, n)
		if err != nil {
			return err
		}
		claimResults = append(claimResults, r)
	}
	var graphResults []graphResult
	for _, n := range o.edges {
		r, err := benchGraph(ctx, o, n)
		if err != nil {
			return err
		}
		graphResults = append(graphResults, r)
	}
	var crawlResults []crawlResult
	if len(o.workers) > 0 {
		if crawlResults, err = benchCrawls(ctx, o); err != nil {
			return err
		}
	}
	report := writeReport(o, claimResults, graphResults, crawlResults)
	fmt.Print(report)
	if o.update != "" {
		return updateSection(o.update, report)
	}
	return nil
}

// ints parses a comma-separated list of positive integers.
func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// schema creates a schema with a random name and returns a DSN selecting it
// and a function dropping it (unless keep).
func schema(ctx context.Context, o options, prefix string) (dsn string, drop func(), err error) {
	conn, err := pgx.Connect(ctx, o.dsn)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s: %w", o.dsn, err)
	}
	defer conn.Close(ctx)
	var b [4]byte
	rand.Read(b[:])
	name := prefix + "_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+name); err != nil {
		return "", nil, err
	}
	drop = func() {
		if o.keep {
			fmt.Fprintf(os.Stderr, "kept schema %s\n", name)
			return
		}
		c, err := pgx.Connect(context.Background(), o.dsn)
		if err != nil {
			fmt.Fprintf(os.Stderr, "drop schema %s: %v\n", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), `DROP SCHEMA `+name+` CASCADE`); err != nil {
			fmt.Fprintf(os.Stderr, "drop schema %s: %v\n", name, err)
		}
	}
	return withSearchPath(o.dsn, name), drop, nil
}

// withSearchPath adds search_path to a URL or key=value DSN.
func withSearchPath(dsn, schema string) string {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + "search_path=" + schema
	}
	return dsn + " search_path=" + schema
}

// claimResult is the claim-latency phase's result for one frontier size.
type claimResult struct {
	Rows          int
	Fill          time.Duration // generate_series insert + VACUUM ANALYZE
	Single        latencies     // one client
	Concurrent    latencies     // o.claimers clients at once
	Claimers      int
	Stats         latencies // FrontierStats
	TableSize     string    // frontier table + indexes on disk
	QueueIndex    string    // size of frontier_queue
	BatchSize     int
	MaxPerHost    int
	DistinctHosts int
}

// latencies holds sorted durations.
type latencies []time.Duration

func (l latencies) pct(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	return l[min(len(l)-1, int(p*float64(len(l))))]
}

const (
	benchTopic = "bench"
	benchHosts = 1000
	// The streaming fetch path's claim: a slice serving crawl.hosts (64)
	// hosts claims for the ones that just came free, one entry each, the
	// hosts it is serving excluded, the free host taking its best entry
	// only when it is within crawl.claim_ratio of the frontier's best.
	claimSize    = 8
	claimPerHst  = 1
	claimBusy    = 56 // 64 served − 8 free
	claimMinRate = 0.9
)

// busyHosts are the hosts a claim excludes: claimBusy of the benchmark's
// hosts, a different set for each claim (i), as a slice's set moves.
func busyHosts(i int) []string {
	out := make([]string, claimBusy)
	for k := range out {
		out[k] = fmt.Sprintf("h%d.bench.test", (i*claimBusy+k*17)%benchHosts)
	}
	return out
}

func benchClaims(ctx context.Context, o options, rows int) (claimResult, error) {
	dsn, drop, err := schema(ctx, o, "fcbench")
	if err != nil {
		return claimResult{}, err
	}
	defer drop()
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		return claimResult{}, err
	}
	defer st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return claimResult{}, err
	}
	defer conn.Close(ctx)

	r := claimResult{Rows: rows, Claimers: o.claimers, BatchSize: claimSize, MaxPerHost: claimPerHst, DistinctHosts: benchHosts}
	start := time.Now()
	const chunk = 1_000_000
	for lo := 1; lo <= rows; lo += chunk {
		hi := min(lo+chunk-1, rows)
		if _, err := conn.Exec(ctx, `INSERT INTO frontier (topic, url_hash, url, host, priority, depth, strategy, state, crawl_id)
			SELECT $1, md5(i::text), 'https://h' || (i % $4) || '.bench.test/page/' || i, 'h' || (i % $4) || '.bench.test',
				((i::bigint * 7919) % 10007) / 10007.0, 2, 'bench', 'queued', 'bench'
			FROM generate_series($2::bigint, $3::bigint) AS i`, benchTopic, lo, hi, benchHosts); err != nil {
			return r, fmt.Errorf("fill frontier rows %d-%d: %w", lo, hi, err)
		}
		fmt.Fprintf(os.Stderr, "frontier %d: %d rows inserted (%s)\n", rows, hi, time.Since(start).Round(time.Second))
	}
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE frontier`); err != nil {
		return r, err
	}
	r.Fill = time.Since(start)
	if err := conn.QueryRow(ctx, `SELECT pg_size_pretty(pg_total_relation_size('frontier')), pg_size_pretty(pg_relation_size('frontier_queue'))`).
		Scan(&r.TableSize, &r.QueueIndex); err != nil {
		return r, err
	}

	now := time.Now()
	claim := func(id string, n int) (time.Duration, error) {
		t := time.Now()
		b, err := st.ClaimBatch(ctx, store.ClaimRequest{Topic: benchTopic, BatchID: id, Max: claimSize,
			MaxPerHost: claimPerHst, ExcludeHosts: busyHosts(n), MinRatio: claimMinRate,
			Lease: time.Hour, Now: now})
		d := time.Since(t)
		if err == nil && b.Size != claimSize {
			err = fmt.Errorf("claim %s got %d entries, want %d", id, b.Size, claimSize)
		}
		return d, err
	}
	// requeue returns the claimed entries, so every measurement starts from
	// the same frontier.
	requeue := func() error {
		_, err := conn.Exec(ctx, `UPDATE frontier SET state = 'queued', batch_id = '', lease_until = 0, claim_pos = 0
			WHERE topic = $1 AND state = 'claimed'`, benchTopic)
		return err
	}
	for i := range o.claims {
		d, err := claim(fmt.Sprintf("single-%d", i), i)
		if err != nil {
			return r, err
		}
		r.Single = append(r.Single, d)
	}
	if err := requeue(); err != nil {
		return r, err
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var errs []error
	for c := range o.claimers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range o.claims / o.claimers {
				d, err := claim(fmt.Sprintf("conc-%d-%d", c, i), c*o.claims+i)
				mu.Lock()
				r.Concurrent = append(r.Concurrent, d)
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	for range 20 {
		t := time.Now()
		if _, err := st.FrontierStats(ctx, benchTopic); err != nil {
			return r, err
		}
		r.Stats = append(r.Stats, time.Since(t))
	}
	for _, l := range []latencies{r.Single, r.Concurrent, r.Stats} {
		slices.Sort(l)
	}
	fmt.Fprintf(os.Stderr, "frontier %d: claim p50 %s p99 %s; %d concurrent p50 %s p99 %s; FrontierStats p50 %s\n",
		rows, r.Single.pct(0.5), r.Single.pct(0.99), o.claimers, r.Concurrent.pct(0.5), r.Concurrent.pct(0.99), r.Stats.pct(0.5))
	return r, nil
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func writeReport(o options, claims []claimResult, graphs []graphResult, crawls []crawlResult) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## PostgreSQL crawl store: claims at size, several workers\n\n")
	cmd := "go run ./eval pgbench"
	for _, f := range []struct {
		name string
		vals []int
	}{{"rows", o.rows}, {"edges", o.edges}, {"workers", o.workers}} {
		cmd += fmt.Sprintf(" --%s '%s'", f.name, joinInts(f.vals)) // '' skips a phase
	}
	p("Generated by `%s --update docs/benchmarks.md` on %s.  \n", cmd, time.Now().UTC().Format("2006-01-02 15:04 MST"))
	p("Machine: %s; PostgreSQL on the same machine.\n\n", harness.Machine())
	if o.note != "" {
		p("**Conditions:** %s\n\n", o.note)
	}
	if len(claims) > 0 {
		p("### Claim latency against frontier size\n\n")
		p("`store.ClaimBatch` as the streaming fetch path calls it (%d entries for the hosts that came free, at most %d per host, %d hosts being served excluded, claim ratio %.1f; 1,000 hosts), on a frontier filled server-side with `generate_series` (every row queued: the queue index is as large as it gets), after `VACUUM ANALYZE`. ", claimSize, claimPerHst, claimBusy, claimMinRate)
		p("%d claims from one client, then %d claims from %d concurrent clients (`FOR UPDATE SKIP LOCKED`: none waits for another). ", o.claims, o.claims/max(o.claimers, 1)*o.claimers, o.claimers)
		p("`FrontierStats` is the per-state count every crawl slice reads (for the status query and the exhaustion check); it reads counts kept by triggers (migration 2) rather than counting rows — before that change it took 980 ms at 10 M rows on this machine.\n\n")
		p("| frontier rows | fill time | table + indexes | queue index | claim p50 | claim p99 | %d clients p50 | %d clients p99 | FrontierStats p50 |\n", o.claimers, o.claimers)
		p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range claims {
			p("| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Rows, r.Fill.Round(time.Second), r.TableSize, r.QueueIndex,
				ms(r.Single.pct(0.5)), ms(r.Single.pct(0.99)), ms(r.Concurrent.pct(0.5)), ms(r.Concurrent.pct(0.99)), ms(r.Stats.pct(0.5)))
		}
		p("\n")
	}
	if len(graphs) > 0 {
		writeGraphReport(p, graphs)
	}
	if len(crawls) > 0 {
		writeCrawlReport(p, o, crawls)
	}
	return b.String()
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

const (
	beginMarker = "<!-- pgbench:begin -->"
	endMarker   = "<!-- pgbench:end -->"
)

// updateSection replaces the marked pgbench section of the file at path
// with report, or appends it.
func updateSection(path, report string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	block := beginMarker + "\n" + report + endMarker + "\n"
	s := string(old)
	i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker)
	if (i >= 0) != (j >= 0) || (i >= 0 && j < i) || strings.Count(s, beginMarker) > 1 || strings.Count(s, endMarker) > 1 {
		// Appending a second block would leave the broken one, and the
		// report's regeneration (harness.KeptSection) refuses the file.
		return fmt.Errorf("%s: the %s and %s markers are not one pair: fix them first", path, beginMarker, endMarker)
	}
	if i >= 0 {
		s = s[:i] + block + s[j+len(endMarker):]
		s = strings.Replace(s, endMarker+"\n\n", endMarker+"\n", 1)
	} else {
		if s != "" && !strings.HasSuffix(s, "\n\n") {
			s += "\n"
		}
		s += block
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
