// Package throughput is focuscrawl's end-to-end throughput benchmark (the
// eval command's throughput tool). In one
// process and one run it generates a synthetic web (no spider traps), serves
// it on loopback with package replay, and crawls it twice:
//
//  1. with a plain Colly crawler (github.com/gocolly/colly/v2, the baseline:
//     fetch, extract links, nothing else), and
//  2. with focuscrawl's full stack: a TopicCrawlWorkflow on a Temporal dev
//     server with an in-process worker (package harness), every page
//     accepted (vsm threshold 0, bfs order), so each page is fetched,
//     parsed, tokenised, judged, indexed and its links scored and stored.
//
// It reports pages per second, peak memory (this process's RSS and Go heap,
// plus the Temporal dev server's RSS for focuscrawl) and the throughput
// ratio, and can write docs/benchmarks.md together with the Go benchmark
// results of the hot paths (--bench FILE, the output of go test -bench).
//
// Colly is used only here, never in the product.
//
//	go run ./eval throughput --out docs/benchmarks.md --bench var/eval/bench.txt
//	go run ./eval throughput --polite --out docs/benchmarks-polite.md
package throughput

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"focuscrawl/internal/config"
	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/politebench"
	"focuscrawl/internal/eval/politeweb"
	"focuscrawl/internal/eval/replay"
	"focuscrawl/internal/eval/synth"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/topic"
)

type result struct {
	Name     string
	Pages    int
	Elapsed  time.Duration
	PeakRSS  int64 // bytes, this process
	PeakHeap uint64
	PeakSide int64 // bytes, child processes (the Temporal dev server)
	Note     string
}

func (r result) rate() float64 { return float64(r.Pages) / r.Elapsed.Seconds() }

// Main runs the benchmark with command-line arguments args; start starts
// focuscrawl's in-process worker (crawlworker.Start).
func Main(ctx context.Context, args []string, start harness.StartWorker) error {
	fs := flag.NewFlagSet("throughput", flag.ContinueOnError)
	out := fs.String("out", "", "write the Markdown report here (e.g. docs/benchmarks.md)")
	bench := fs.String("bench", "", "go test -bench output to include in the report")
	work := fs.String("work", "var/eval/throughput", "working directory")
	hosts := fs.Int("hosts", 30, "synthetic web: hosts")
	perHost := fs.Int("pages-per-host", 80, "synthetic web: pages per host")
	parallel := fs.Int("parallel", 0, "Colly parallelism (default: crawl.fetch_concurrency)")
	cpuprof := fs.String("cpuprofile", "", "write a CPU profile of the focuscrawl crawl")
	temporalBin := fs.String("temporal-bin", "", "Temporal CLI (default $(go env GOPATH)/bin/temporal)")
	sweep := fs.String("sweep", "64x2,32x4", "also crawl with these crawl.batch_size x crawl.pipelines settings (comma-separated; empty: none)")
	polite := fs.Bool("polite", false, "run the politeness benchmark instead (internal/eval/politebench) and write its section to --out")
	cache := fs.String("corpus-cache", "var/corpus", "--polite: where the GIMP manual is unpacked (apt-get download + dpkg -x)")
	politePages := fs.Int("polite-pages", 2000, "--polite: page budget of each crawler")
	hostDelay := fs.Duration("host-delay", 0, "a host-bound crawl: both crawlers wait this long between two requests to a host "+
		"(focuscrawl: fetch.host_delay; Colly: a limit rule per host, parallelism 1); 0: none, the CPU-bound default")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// A report whose kept sections would be lost is refused before the
	// runs, not after them.
	if *out != "" {
		if err := harness.CheckKept(*out, "profile", "pgbench", "notes"); err != nil {
			return err
		}
	}
	if *polite {
		return runPolite(ctx, *out, *work, *cache, *temporalBin, *politePages, start)
	}

	cfg, err := config.Load("", nil) // defaults + FOCUSCRAWL_* environment
	if err != nil {
		return err
	}
	cfg.Fetch.HostDelay = *hostDelay
	if *parallel <= 0 {
		*parallel = cfg.Crawl.FetchConcurrency
	}
	webDir := filepath.Join(*work, "web")
	os.RemoveAll(webDir)
	sc := synth.DefaultConfig()
	sc.Hosts, sc.PagesPerHost, sc.Traps = *hosts, *perHost, false
	web, err := synth.Generate(sc, webDir)
	if err != nil {
		return err
	}
	srv, err := replay.New(webDir, replay.Options{})
	if err != nil {
		return err
	}
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(os.Stderr, "synthetic web: %d pages on %d hosts\n", web.Pages, len(web.Hosts))

	// Start Temporal before either crawl so both phases see the same machine load.
	h, err := harness.Start(ctx, harness.Options{
		Dir: filepath.Join(*work, "state-"+strconv.FormatInt(time.Now().UnixNano(), 36)), TemporalBin: *temporalBin,
		Config: cfg, Resolve: map[string]string{"*." + sc.Domain: strings.TrimPrefix(base, "http://")},
		Log:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		StartWorker: start,
		Polite:      *hostDelay > 0, // keeps fetch.host_delay
	})
	if err != nil {
		return err
	}
	defer h.Close()

	cr, err := crawlColly(web, srv, *parallel, *hostDelay)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "colly: %d pages in %s = %.1f pages/s\n", cr.Pages, cr.Elapsed.Round(time.Millisecond), cr.rate())

	fr, err := crawlFocus(ctx, h, web, *cpuprof)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "focuscrawl: %d pages in %s = %.1f pages/s (ratio %.2f); %s\n", fr.Pages, fr.Elapsed.Round(time.Millisecond), fr.rate(), fr.rate()/cr.rate(), fr.Note)
	// The sweep changes the worker's scheduling settings between crawls:
	// StartCrawl copies them into each new crawl's parameters.
	var swept []result
	cc := h.Worker.CrawlConfig()
	defaults := *cc
	for _, bp := range strings.Split(*sweep, ",") {
		if bp = strings.TrimSpace(bp); bp == "" {
			continue
		}
		var b, p int
		if n, _ := fmt.Sscanf(bp, "%dx%d", &b, &p); n != 2 || b < 1 || p < 1 {
			return fmt.Errorf("--sweep: %q is not BATCHxPIPELINES", bp)
		}
		*cc = defaults
		cc.BatchSize, cc.Pipelines = b, p
		r, err := crawlFocus(ctx, h, web, "")
		if err != nil {
			return err
		}
		r.Name = fmt.Sprintf("focuscrawl, crawl.batch_size=%d, crawl.pipelines=%d", b, p)
		fmt.Fprintf(os.Stderr, "%s: %.1f pages/s\n", r.Name, r.rate())
		swept = append(swept, r)
	}
	*cc = defaults
	if *out == "" {
		return nil
	}
	return writeReport(*out, *bench, web, h.Cfg, *parallel, cr, fr, swept)
}

func crawlColly(web *synth.Web, srv *replay.Server, parallel int, hostDelay time.Duration) (result, error) {
	settle()
	c := colly.NewCollector(colly.Async(true), colly.UserAgent("colly-baseline"))
	c.IgnoreRobotsTxt = false // focuscrawl obeys robots.txt: do the same work
	c.WithTransport(&http.Transport{DialContext: srv.DialContext, MaxIdleConnsPerHost: parallel})
	if hostDelay > 0 {
		// One rule per host: a rule's parallelism is shared by every host it
		// matches, so a "*" rule would make the whole crawl serial.
		for _, host := range web.Hosts {
			if err := c.Limit(&colly.LimitRule{DomainGlob: host, Parallelism: 1, Delay: hostDelay}); err != nil {
				return result{}, err
			}
		}
	} else if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: parallel}); err != nil {
		return result{}, err
	}
	var pages atomic.Int64
	c.OnResponse(func(r *colly.Response) { pages.Add(1) })
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		u := e.Request.AbsoluteURL(e.Attr("href"))
		if strings.Contains(u, "."+web.Config.Domain+"/") {
			e.Request.Visit(u) //nolint:errcheck // already-visited and disallowed URLs are expected
		}
	})
	m := startMonitor()
	start := time.Now()
	for _, s := range web.Seeds {
		c.Visit(s) //nolint:errcheck
	}
	c.Wait()
	r := result{Name: "Colly (plain crawler)", Pages: int(pages.Load()), Elapsed: time.Since(start)}
	r.PeakRSS, r.PeakHeap, r.PeakSide = m.stop()
	return r, nil
}

func crawlFocus(ctx context.Context, h *harness.Harness, web *synth.Web, cpuprof string) (result, error) {
	settle()
	topicYAML, err := os.ReadFile(filepath.Join(web.Dir, "topic.yaml"))
	if err != nil {
		return result{}, err
	}
	yml, err := harness.WithStrategy(topicYAML, "throughput", 10*web.Pages,
		harness.Spec{Name: "bfs"}, harness.Spec{Name: "vsm", Params: map[string]any{"threshold": 0.0}})
	if err != nil {
		return result{}, err
	}
	if yml, err = harness.WithAccept(yml, topic.AcceptThreshold); err != nil { // every page accepted
		return result{}, err
	}
	_ = relevance.Names // the vsm filter is registered by importing relevance (via activities)
	if cpuprof != "" {
		f, err := os.Create(cpuprof)
		if err != nil {
			return result{}, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return result{}, err
		}
		defer pprof.StopCPUProfile()
	}
	m := startMonitor()
	start := time.Now()
	st, err := h.Run(ctx, fmt.Sprintf("throughput/%d", time.Now().UnixNano()), yml)
	elapsed := time.Since(start) // the crawl, from its start to the workflow's result; not the log export below
	rss, heap, side := m.stop()
	if err != nil {
		return result{}, err
	}
	log, err := h.Log(ctx, st.CrawlID)
	if err != nil {
		return result{}, err
	}
	ok := 0
	var first, last time.Time
	for _, e := range log {
		if e.Status >= 200 && e.Status < 300 {
			ok++
		}
		if first.IsZero() || e.FetchedAt.Before(first) {
			first = e.FetchedAt
		}
		if e.FetchedAt.After(last) {
			last = e.FetchedAt
		}
	}
	// Where the wall time goes: the workflow's start until the first fetch,
	// the fetching itself, and the final steps after the last fetch.
	phases := "no fetches"
	if !first.IsZero() {
		end := start.Add(elapsed)
		phases = fmt.Sprintf("first fetch after %s, fetching %s, result %s after the last fetch",
			first.Sub(start).Round(time.Millisecond), last.Sub(first).Round(time.Millisecond), end.Sub(last).Round(time.Millisecond))
	}
	return result{Name: "focuscrawl (Temporal + worker, all pages accepted)", Pages: len(log), Elapsed: elapsed,
		PeakRSS: rss, PeakHeap: heap, PeakSide: side,
		Note: fmt.Sprintf("%d OK, %d accepted, %d indexed, %d links scored in %d crawl slices; %s; %s",
			ok, st.Accepted, st.Indexed, st.Links, st.Slices, st.Reason, phases)}, nil
}

// settle collects garbage and returns memory to the OS so each phase's
// peak starts from the same floor.
func settle() {
	runtime.GC()
	debug.FreeOSMemory()
	time.Sleep(200 * time.Millisecond)
}

// monitor samples memory every 20 ms until stopped.
type monitor struct {
	done      chan struct{}
	wg        sync.WaitGroup
	rss, side int64
	heap      uint64
}

func startMonitor() *monitor {
	m := &monitor{done: make(chan struct{})}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		// runtime/metrics, not runtime.ReadMemStats: the latter stops the
		// world, and every 20 ms that cost the crawl being measured ~3% of
		// its CPU. Heap in use = live and unswept objects + free space in
		// in-use spans (MemStats.HeapInuse).
		t := time.NewTicker(25 * time.Millisecond)
		defer t.Stop()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for i := 0; ; i++ {
			m.rss = max(m.rss, statusKB("/proc/self/status", "VmRSS:")*1024)
			metrics.Read(sample)
			m.heap = max(m.heap, sample[0].Value.Uint64()+sample[1].Value.Uint64())
			if i%8 == 0 {
				m.side = max(m.side, childrenRSS())
			}
			select {
			case <-m.done:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *monitor) stop() (rss int64, heap uint64, side int64) {
	close(m.done)
	m.wg.Wait()
	return m.rss, m.heap, m.side
}

// statusKB reads a "Key: N kB" line of a /proc status file (0 if absent).
func statusKB(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}

// childrenRSS sums the RSS of this process's direct children (the Temporal
// dev server that harness started).
func childrenRSS() int64 {
	self := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	var sum int64
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == self {
			sum += statusKB("/proc/"+e.Name()+"/status", "VmRSS:") * 1024
		}
	}
	return sum
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func writeReport(path, benchFile string, web *synth.Web, cfg *config.Config, parallel int, cr, fr result, swept []result) error {
	// The PostgreSQL section is written by another command
	// (internal/store/postgres/pgbench); keep it.
	// So are the CPU profile summary (written by hand from --cpuprofile
	// runs, between its markers) and the notes at the end.
	kept, err := harness.KeptSection(path, "pgbench")
	if err != nil {
		return err
	}
	profile, err := harness.KeptSection(path, "profile")
	if err != nil {
		return err
	}
	notes, err := harness.KeptSection(path, "notes")
	if err != nil {
		return err
	}
	if profile != "" {
		profile += "\n"
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# Benchmarks\n\n")
	p("Generated by `bash scripts/eval.sh bench` (runs the Go benchmarks, then `go run ./eval throughput --out docs/benchmarks.md --bench FILE`) on %s.  \n", time.Now().Format("2006-01-02 15:04 MST"))
	p("Machine: %s.\n\n", harness.Machine())
	p("## End-to-end throughput\n\n")
	p("One process, one run, one site: the synthetic web (seed %d, %d hosts, %d HTML pages, no spider traps; robots.txt obeyed by both) served on loopback by `internal/eval/replay`. ", web.Config.Seed, len(web.Hosts), web.Pages)
	if d := cfg.Fetch.HostDelay; d > 0 {
		p("The plain crawler is Colly with a limit rule per host (parallelism 1, delay %s = fetch.host_delay), fetching and extracting links only. ", d)
	} else {
		p("The plain crawler is Colly with parallelism %d (= crawl.fetch_concurrency), fetching and extracting links only. ", parallel)
	}
	p("focuscrawl runs its full stack: a `TopicCrawlWorkflow` on a Temporal dev server with an in-process worker, every page accepted (vsm threshold 0, bfs order), so each page is fetched, stored, parsed, tokenised (gojieba), judged, indexed in FTS5, and its links scored and stored. ")
	p("Settings: crawl.batch_size=%d, crawl.pipelines=%d, crawl.hosts=%d, crawl.fetch_concurrency=%d, fetch.host_delay=%s.\n\n",
		cfg.Crawl.BatchSize, cfg.Crawl.Pipelines, cfg.Crawl.Hosts, cfg.Crawl.FetchConcurrency, cfg.Fetch.HostDelay)
	p("| crawler | pages | wall time | pages/s | peak RSS (this process) | peak Go heap in use | peak RSS of Temporal dev server |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range []result{cr, fr} {
		side := "—"
		if r.PeakSide > 0 && r.Name != cr.Name {
			side = mib(r.PeakSide)
		}
		p("| %s | %d | %s | %.1f | %s | %s | %s |\n", r.Name, r.Pages, r.Elapsed.Round(time.Millisecond), r.rate(), mib(r.PeakRSS), mib(int64(r.PeakHeap)), side)
	}
	ratio := fr.rate() / cr.rate()
	verdict := "NOT met"
	if ratio >= 0.3 {
		verdict = "met"
	}
	p("\nfocuscrawl / Colly throughput ratio: **%.2f** (issue 13 target on loopback without delays ≥ 0.3: %s). focuscrawl: %s.\n\n", ratio, verdict, fr.Note)
	p("Why the gap: on loopback, with pages of a few kB and no politeness delay, Colly's cost per page is one HTTP round trip and a link extraction. focuscrawl's is the full durable pipeline: the streaming fetch path (one request in flight per host, a claim per free host, a politeness check) and per page a stored page row, a parse record, term statistics, a decision, an FTS5 index write, scored links and frontier inserts in SQLite, plus gojieba tokenisation; the workflow only steers between slices. ")
	p("A processing group's store writes take three transactions (`store.WriteGroup`: the fetched pages with their parse records and term counts, no body unless crawl.keep_bodies; decisions before the index write; index flags, links, frontier entries and completion after it), the FTS5 write one more, statements are prepared once per connection, bodies and parse records travel between the stages in memory, and the term statistics one stage read are reused by the next; what the CPU goes to now, before and after, is in the profile summary below. ")
	p("Earlier fixes: LearnLinkModel no longer runs for predictors that never read its model; no store write for a politeness slot without a delay; pages processed on every core.\n\n")
	if len(swept) > 0 {
		p("Scheduling sweep on the same site, same run (crawl.batch_size = most pages processed together, crawl.pipelines = crawl slices in flight):\n\n")
		p("| crawler | pages | wall time | pages/s | ratio to Colly | peak Go heap in use |\n|---|---:|---:|---:|---:|---:|\n")
		for _, r := range append([]result{fr}, swept...) {
			p("| %s | %d | %s | %.1f | %.3f | %s |\n", r.Name, r.Pages, r.Elapsed.Round(time.Millisecond), r.rate(), r.rate()/cr.rate(), mib(int64(r.PeakHeap)))
		}
		p("\n")
	}
	p("%s", profile)
	p("Peak RSS is sampled every 20 ms from /proc/self/status (VmRSS) during each phase, after a GC that returns freed memory to the OS; the process also holds gojieba's dictionaries (loaded once) and, for the focuscrawl phase, the in-process worker. The Temporal dev server runs as a child process; its RSS is sampled every 100 ms.\n\n")
	if benchFile != "" {
		b, err := os.ReadFile(benchFile)
		if err != nil {
			return err
		}
		p("## Hot-path Go benchmarks\n\n")
		p("`go test -run '^$' -bench . -benchmem` over the packages of the hot paths (see scripts/eval.sh for the list).\n\n")
		p("| benchmark | ns/op | B/op | allocs/op |\n|---|---:|---:|---:|\n")
		pkg := ""
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "pkg: "); ok {
				pkg = strings.TrimPrefix(rest, "focuscrawl/")
			}
			f := strings.Fields(line)
			if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
				continue
			}
			vals := map[string]string{}
			for i := 2; i+1 < len(f); i += 2 {
				vals[f[i+1]] = f[i]
			}
			p("| %s `%s` | %s | %s | %s |\n", pkg, f[0], vals["ns/op"], vals["B/op"], vals["allocs/op"])
		}
		p("\n")
	}
	p("%s", kept)
	if notes != "" {
		p("\n%s", notes)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	_, err = io.WriteString(os.Stderr, "report written to "+path+"\n")
	return err
}

// runPolite runs the politeness benchmark: 40 virtual hosts serving the
// English GIMP manual, 100 ms responses, two stragglers at 3 s, Crawl-delay 1 s.
func runPolite(ctx context.Context, out, work, cache, temporalBin string, pages int, start harness.StartWorker) error {
	corpus, err := harness.GIMPCorpus(cache, harness.GIMPEn)
	if err != nil {
		return err
	}
	opt := politebench.Options{
		Web: politeweb.Config{Dir: corpus.Dir, Hosts: 40, Domain: "polite.test", Latency: 100 * time.Millisecond,
			Stragglers: 2, StragglerLatency: 3 * time.Second, CrawlDelay: time.Second, Index: "index.html"},
		Pages: pages, Work: filepath.Join(work, "polite-"+strconv.FormatInt(time.Now().UnixNano(), 36)), TemporalBin: temporalBin,
		StartWorker: start,
	}
	// The server in a process of its own (politeweb.Remote says why): this
	// program's serve-polite command.
	if exe, err := os.Executable(); err == nil {
		opt.ServeCommand = []string{exe, "serve-polite"}
	}
	rep, err := politebench.Run(ctx, opt)
	if err != nil {
		return err
	}
	w := io.Writer(os.Stdout)
	kept := ""
	if out != "" {
		// hand-written notes on earlier runs survive
		if kept, err = harness.KeptSection(out, "notes"); err != nil {
			return err
		}
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	rep.Markdown(w, "bash scripts/eval.sh polite")
	if kept != "" {
		fmt.Fprint(w, "\n"+kept)
	}
	fmt.Fprintf(os.Stderr, "colly %.1f pages/s, focuscrawl %.1f pages/s, ideal %.1f; violations colly %d, focuscrawl %d\n",
		rep.Colly.Analysis.Rate, rep.Focus.Analysis.Rate, rep.Ideal, rep.Colly.Analysis.Violations, rep.Focus.Analysis.Violations)
	for _, v := range rep.Focus.Analysis.Closest {
		fmt.Fprintf(os.Stderr, "focuscrawl violation: %s %s then %s %v later\n", v.Host, v.Prev, v.Next, v.Gap)
	}
	return nil
}
