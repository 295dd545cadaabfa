package main

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

	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/replay"
	"focuscrawl/internal/eval/synth"
	"focuscrawl/internal/store/postgres"
	"focuscrawl/workflows"
)

// crawlResult is one crawl of the crawl phase.
type crawlResult struct {
	Workers int
	Pages   int
	Elapsed time.Duration
	PeakRSS []int64 // per worker, bytes
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
		LogLevel: "error", SearchAttributes: workflows.SearchAttributes("", ""),
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
	start := time.Now()
	run, err := dev.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: "crawl/pgbench/" + queue, TaskQueue: queue,
		TypedSearchAttributes: workflows.SearchAttributes(workflows.KindCrawl, "pgbench"),
	}, workflows.TopicCrawlWorkflow, workflows.CrawlInput{TopicYAML: string(yml)})
	if err != nil {
		close(done)
		return crawlResult{}, err
	}
	var res workflows.CrawlState
	err = run.Get(ctx, &res)
	elapsed := time.Since(start)
	close(done)
	wg.Wait()
	if err != nil {
		return crawlResult{}, fmt.Errorf("crawl with %d workers: %w (logs in %s)", n, err, dir)
	}
	cs, err := st.CrawlStats(ctx, res.CrawlID)
	if err != nil {
		return crawlResult{}, err
	}
	return crawlResult{Workers: n, Pages: cs.Fetched, Elapsed: elapsed, PeakRSS: rss}, nil
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
	p("### The same crawl with 1, 2, 4 workers\n\n")
	p("The synthetic web (%d hosts × %d pages, no traps) on loopback, crawled to a budget of %d pages, every page accepted (vsm threshold 0, bfs), fetch.host_delay=0, default crawl settings (batch 32, 3 pipelines); ", o.hosts, o.perHost, o.pages)
	p("N worker *processes* share one PostgreSQL schema and one SQLite FTS5 index file, on one Temporal dev server. Wall time from start to the workflow's result; peak RSS of each worker process sampled every 50 ms.\n\n")
	p("| workers | pages | wall time | pages/s | peak RSS per worker |\n|---:|---:|---:|---:|---|\n")
	for _, r := range crawls {
		p("| %d | %d | %s | %.1f | %s |\n", r.Workers, r.Pages, r.Elapsed.Round(time.Millisecond), r.rate(), mibs(r.PeakRSS))
	}
	p("\n")
}
