package pgbench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/replay"
	"focuscrawl/internal/eval/synth"
	"focuscrawl/internal/store/postgres"
	"focuscrawl/internal/topic"
)

// crawlResult is one crawl of the crawl phase.
type crawlResult struct {
	Workers int
	Pages   int
	Elapsed time.Duration
	PeakRSS []int64 // per worker, bytes
	// CPU seconds spent during the crawl by the workers together, by all
	// PostgreSQL server processes, and by the Temporal dev server.
	WorkerCPU, DBCPU, TemporalCPU float64
}

func (r crawlResult) rate() float64 { return float64(r.Pages) / r.Elapsed.Seconds() }

// benchCrawls runs the same crawl once per entry of o.workers, each on a
// fresh schema with that many worker processes.
func benchCrawls(ctx context.Context, o options) ([]crawlResult, error) {
	if err := os.MkdirAll(o.work, 0o755); err != nil {
		return nil, err
	}
	work, err := filepath.Abs(o.work)
	if err != nil {
		return nil, err
	}
	workerBin := filepath.Join(work, "worker")
	build := exec.Command("go", "build", "-o", workerBin, "focuscrawl/worker")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build worker: %w", err)
	}
	webDir := filepath.Join(work, "web")
	os.RemoveAll(webDir)
	sc := synth.DefaultConfig()
	sc.Hosts, sc.PagesPerHost, sc.Traps = o.hosts, o.perHost, false
	web, err := synth.Generate(sc, webDir)
	if err != nil {
		return nil, err
	}
	srv, err := replay.New(webDir, replay.Options{})
	if err != nil {
		return nil, err
	}
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	topicYAML, err := os.ReadFile(filepath.Join(web.Dir, "topic.yaml"))
	if err != nil {
		return nil, err
	}
	yml, err := harness.WithStrategy(topicYAML, "pgbench", o.pages,
		harness.Spec{Name: "bfs"}, harness.Spec{Name: "vsm", Params: map[string]any{"threshold": 0.0}})
	if err != nil {
		return nil, err
	}
	if yml, err = harness.WithAccept(yml, topic.AcceptThreshold); err != nil { // every page accepted
		return nil, err
	}

	bin := o.temporalBin
	if bin == "" {
		bin = os.Getenv("FOCUSCRAWL_TEMPORAL_BIN")
	}
	if bin == "" {
		bin = filepath.Join(os.Getenv("HOME"), "go", "bin", "temporal")
	}
	quiet := tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	dev, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath: bin, ClientOptions: &client.Options{Namespace: "default", Logger: quiet},
		LogLevel: "error", SearchAttributes: crawlapi.SearchAttributes("", ""),
		Stdout: io.Discard, Stderr: io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("start Temporal dev server (%s): %w", bin, err)
	}
	defer dev.Stop()

	var out []crawlResult
	for _, n := range o.workers {
		r, err := crawlWith(ctx, o, dev, workerBin, work, strings.TrimPrefix(base, "http://"), yml, n)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "%d workers: %d pages in %s = %.1f pages/s, peak RSS %v\n",
			n, r.Pages, r.Elapsed.Round(time.Millisecond), r.rate(), mibs(r.PeakRSS))
		out = append(out, r)
	}
	return out, nil
}

// crawlWith runs the crawl with n worker processes on a fresh schema.
func crawlWith(ctx context.Context, o options, dev *testsuite.DevServer, workerBin, work, siteAddr string, yml []byte, n int) (crawlResult, error) {
	dsn, drop, err := schema(ctx, o, "fcbenchcrawl")
	if err != nil {
		return crawlResult{}, err
	}
	defer drop()
	// Migrate once up front, so no worker's start-up is counted.
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		return crawlResult{}, err
	}
	defer st.Close()
	dir := filepath.Join(work, fmt.Sprintf("run-%d-workers-%d", n, time.Now().UnixNano()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return crawlResult{}, err
	}
	queue := filepath.Base(dir)
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			p.Process.Signal(syscall.SIGTERM)
			p.Wait()
		}
	}()
	for i := range n {
		cmd := exec.Command(workerBin)
		logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("worker-%d.log", i)))
		if err != nil {
			return crawlResult{}, err
		}
		defer logf.Close()
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.Env = append(os.Environ(),
			"FOCUSCRAWL_TEMPORAL_ADDRESS="+dev.FrontendHostPort(),
			"FOCUSCRAWL_TEMPORAL_TASK_QUEUE="+queue,
			"FOCUSCRAWL_STORE_DRIVER=postgres",
			"FOCUSCRAWL_STORE_DSN="+dsn,
			"FOCUSCRAWL_INDEX_PATH="+filepath.Join(dir, "index.db"),
			"FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=true",
			"FOCUSCRAWL_FETCH_RESOLVE=*.test="+siteAddr,
			"FOCUSCRAWL_FETCH_HOST_DELAY=0s",
			"FOCUSCRAWL_LOG_LEVEL=warn",
			"FOCUSCRAWL_METRICS_ADDRESS=127.0.0.1:0",
		)
		if err := cmd.Start(); err != nil {
			return crawlResult{}, err
		}
		procs = append(procs, cmd)
	}
	time.Sleep(3 * time.Second) // let every worker load its dictionaries and start polling

	rss := make([]int64, n)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			for i, p := range procs {
				rss[i] = max(rss[i], vmRSS(p.Process.Pid))
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	cpu0 := cpuSnapshot(procs)
	start := time.Now()
	run, err := crawlapi.TopicCrawlWorkflow.Start(ctx, dev.Client(), client.StartWorkflowOptions{
		ID: "crawl/pgbench/" + queue, TaskQueue: queue,
		TypedSearchAttributes: crawlapi.SearchAttributes(crawlapi.KindCrawl, "pgbench"),
	}, crawlapi.CrawlInput{TopicYAML: string(yml)})
	if err != nil {
		close(done)
		return crawlResult{}, err
	}
	res, err := run.Result(ctx)
	elapsed := time.Since(start)
	cpu1 := cpuSnapshot(procs)
	close(done)
	wg.Wait()
	if err != nil {
		return crawlResult{}, fmt.Errorf("crawl with %d workers: %w (logs in %s)", n, err, dir)
	}
	cs, err := st.CrawlStats(ctx, res.CrawlID)
	if err != nil {
		return crawlResult{}, err
	}
	return crawlResult{Workers: n, Pages: cs.Fetched, Elapsed: elapsed, PeakRSS: rss,
		WorkerCPU: cpu1.workers - cpu0.workers, DBCPU: cpu1.db - cpu0.db, TemporalCPU: cpu1.temporal - cpu0.temporal}, nil
}

// cpuTimes are CPU seconds (user + system) consumed so far.
type cpuTimes struct{ workers, db, temporal float64 }

// cpuSnapshot reads the CPU time of the worker processes, of every process
// named postgres (the server and its backends: other clients of the server
// count too) and of this process's child named temporal (the dev server).
func cpuSnapshot(workers []*exec.Cmd) cpuTimes {
	var c cpuTimes
	for _, w := range workers {
		_, sec := procCPU(strconv.Itoa(w.Process.Pid))
		c.workers += sec
	}
	self := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		f, sec := procCPU(e.Name())
		switch {
		case len(f) < 2:
		case f[0] == "(postgres)":
			c.db += sec
		case f[0] == "(temporal)" && f[2] == self:
			c.temporal += sec
		}
	}
	return c
}

// procCPU returns the fields of /proc/PID/stat from comm on and the
// process's user + system CPU seconds.
func procCPU(pid string) ([]string, float64) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil, 0
	}
	s := string(b)
	i := strings.IndexByte(s, '(')
	j := strings.LastIndexByte(s, ')')
	if i < 0 || j < i {
		return nil, 0
	}
	// After ") ": state ppid ... utime is field 14 of the line, i.e. index 11 here.
	rest := strings.Fields(s[j+1:])
	f := append([]string{s[i : j+1]}, rest...)
	if len(rest) < 13 {
		return f, 0
	}
	ut, _ := strconv.ParseFloat(rest[11], 64)
	st, _ := strconv.ParseFloat(rest[12], 64)
	return f, (ut + st) / 100 // USER_HZ is 100 on Linux
}

// vmRSS reads a process's resident set size in bytes (0 if gone).
func vmRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v * 1024
		}
	}
	return 0
}

func mibs(bs []int64) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return strings.Join(s, ", ")
}

func writeCrawlReport(p func(string, ...any), o options, crawls []crawlResult) {
	p("### The same crawl with %s workers\n\n", joinInts(o.workers))
	p("The synthetic web (%d hosts × %d pages, no traps) on loopback, crawled to a budget of %d pages, every page accepted (vsm threshold 0, bfs), fetch.host_delay=0, the worker's default crawl settings; ", o.hosts, o.perHost, o.pages)
	p("N worker *processes* share one PostgreSQL schema and one SQLite FTS5 index file, on one Temporal dev server. Wall time from start to the workflow's result; peak RSS of each worker process sampled every 50 ms.\n\n")
	p("CPU per page is CPU time during the crawl divided by pages: all workers together, all PostgreSQL server processes (other clients of the server included), the Temporal dev server.\n\n")
	p("| workers | pages | wall time | pages/s | peak RSS per worker | worker CPU/page | PostgreSQL CPU/page | Temporal CPU/page |\n|---:|---:|---:|---:|---|---:|---:|---:|\n")
	for _, r := range crawls {
		per := func(sec float64) string { return fmt.Sprintf("%.1f ms", 1000*sec/float64(max(r.Pages, 1))) }
		p("| %d | %d | %s | %.1f | %s | %s | %s | %s |\n", r.Workers, r.Pages, r.Elapsed.Round(time.Millisecond), r.rate(), mibs(r.PeakRSS),
			per(r.WorkerCPU), per(r.DBCPU), per(r.TemporalCPU))
	}
	p("\n")
	writeCapacity(p, crawls)
}

// writeCapacity turns the measured CPU per page into the capacity model of
// "what one more machine adds": each tier's pages/s per core is 1 s over
// its CPU per page; workers scale out, the crawl store and Temporal do not.
func writeCapacity(p func(string, ...any), crawls []crawlResult) {
	var w, d, t float64
	for _, r := range crawls {
		n := float64(max(r.Pages, 1))
		w, d, t = w+r.WorkerCPU/n, d+r.DBCPU/n, t+r.TemporalCPU/n
	}
	k := float64(len(crawls))
	w, d, t = w/k, d/k, t/k
	if w <= 0 || d <= 0 || t <= 0 {
		return
	}
	perCore := func(sec float64) float64 { return 1 / sec }
	p("#### What one more machine would add (on paper, from these costs)\n\n")
	p("Averaged over the runs above, a page costs **%.1f ms** of worker CPU, **%.1f ms** of PostgreSQL CPU and **%.1f ms** of Temporal CPU. ", 1000*w, 1000*d, 1000*t)
	p("Per core that is %.0f pages/s of worker capacity, %.0f pages/s of crawl-store capacity and %.0f pages/s of Temporal capacity. ", perCore(w), perCore(d), perCore(t))
	p("On this machine the three share 2 cores (with the load noted above): together, %.1f ms per page cap the stack near %.0f pages/s. ", 1000*(w+d+t), 2/(w+d+t))
	p("Here more workers cannot add capacity — they share the same two cores — so the differences between the rows above are this machine's scheduling and the other load on it, not the worker count. Workers add throughput with cores of their own, given enough work in flight (several crawls, or more crawl.pipelines).\n\n")
	p("With the tiers on their own machines, one more worker machine with C cores adds about C × %.0f pages/s, until the crawl store or Temporal is the bottleneck: a 4-core PostgreSQL machine serves about %.0f pages/s, and a 4-core Temporal about %.0f pages/s, so from there on more workers add nothing and the store or Temporal needs the next machine (PostgreSQL scales up, Temporal scales out). ",
		perCore(w), 4*perCore(d), 4*perCore(t))
	p("Two further bounds do not move with machines: a single crawl serves at most crawl.pipelines × crawl.hosts hosts at once (one request in flight each), and its slices' store writes queue on the crawl store's write paths; several crawls at once are not bound by the first. And politeness: each host still gets at most one request per fetch.host_delay, whatever the number of workers, so on real sites the number of hosts in the frontier, not machines, usually sets the crawl's speed.\n\n")
}
