// Package politebench runs the politeness benchmark: the same polite crawl
// of a politeweb (many virtual hosts, per-host latency with a few
// stragglers, robots.txt Crawl-delay) by Colly with one limit rule per host
// and by focuscrawl's full stack with its defaults, and compares each with
// the ideal polite rate and with the server's request log (politeness
// violations). Colly is used only here, as the baseline.
package politebench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"focuscrawl/internal/config"
	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/politeweb"
	"focuscrawl/internal/topic"
)

// Options configure a run.
type Options struct {
	Web         politeweb.Config
	Pages       int    // page budget of each crawler
	Work        string // harness directory (crawl store, index)
	TemporalBin string
	Log         *slog.Logger
	StartWorker harness.StartWorker // focuscrawl's in-process worker (crawlworker.Start)
	// ServeCommand, when set, runs the server in a child process
	// (politeweb.Spawn: the command, whose politeweb.Serve takes the
	// configuration as its last argument); else it runs in this one.
	ServeCommand []string
}

// web is the server a run crawls: in a child process (politeweb.Remote) or
// in this one (local).
type web interface {
	Host(i int) string
	Seeds() []string
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
	Addr() string
	Log() ([]politeweb.Request, error)
	Reset() error
	Close() error
}

// local is a politeweb.Server in this process, as a web.
type local struct {
	*politeweb.Server
	addr string
}

func (l local) Addr() string                      { return l.addr }
func (l local) Log() ([]politeweb.Request, error) { return l.Server.Log(), nil }
func (l local) Reset() error                      { l.Server.Reset(); return nil }

// serve starts opt's server.
func serve(ctx context.Context, opt Options) (web, error) {
	if len(opt.ServeCommand) > 0 {
		return politeweb.Spawn(ctx, opt.Web, opt.ServeCommand...)
	}
	srv, err := politeweb.New(opt.Web)
	if err != nil {
		return nil, err
	}
	addr, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return local{srv, addr}, nil
}

// Result is one crawler's run.
type Result struct {
	Name     string
	Fetched  int // pages the crawler reports
	Analysis politeweb.Analysis
	Note     string
}

// Report is a whole run.
type Report struct {
	Options Options
	Ideal   float64
	Colly   Result
	Focus   Result
	Config  config.Crawl
	Delay   time.Duration
	// OwnProcess: the server ran in a child process (Options.ServeCommand).
	OwnProcess bool
	// ServerPriority is the child's scheduling priority (politeweb.Remote).
	ServerPriority string
}

// Run runs Colly, then focuscrawl, against one politeweb server.
func Run(ctx context.Context, opt Options) (*Report, error) {
	srv, err := serve(ctx, opt)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	addr := srv.Addr()
	rep := &Report{Options: opt, Ideal: opt.Web.IdealRate(), Delay: opt.Web.CrawlDelay, OwnProcess: len(opt.ServeCommand) > 0}
	if r, ok := srv.(*politeweb.Remote); ok {
		rep.ServerPriority = r.Priority
	}

	rep.Colly, err = crawlColly(srv, opt)
	if err != nil {
		return nil, err
	}
	if err := srv.Reset(); err != nil {
		return nil, err
	}
	cfg, err := config.Load("", nil)
	if err != nil {
		return nil, err
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h, err := harness.Start(ctx, harness.Options{Dir: opt.Work, TemporalBin: opt.TemporalBin, Config: cfg,
		Resolve: map[string]string{"*." + opt.Web.Domain: addr}, Log: log, Polite: true, StartWorker: opt.StartWorker})
	if err != nil {
		return nil, err
	}
	defer h.Close()
	rep.Config = h.Cfg.Crawl
	rep.Focus, err = crawlFocus(ctx, h, srv, opt)
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// crawlColly crawls with Colly until it has fetched the page budget. Colly
// cannot stop a crawl at a budget by itself — its limiter queues every
// discovered URL in a goroutine that sleeps the delay even when aborted — so
// the run's context is cancelled at the budget and the queued requests fail
// without reaching the server.
func crawlColly(srv web, opt Options) (Result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := colly.NewCollector(colly.Async(true), colly.UserAgent("colly-baseline"), colly.StdlibContext(ctx))
	c.IgnoreRobotsTxt = false
	c.WithTransport(&http.Transport{DialContext: srv.DialContext, MaxIdleConnsPerHost: 2})
	for i := range opt.Web.Hosts { // one limit rule per host: parallelism 1, the crawl delay
		if err := c.Limit(&colly.LimitRule{DomainGlob: srv.Host(i), Parallelism: 1, Delay: opt.Web.CrawlDelay}); err != nil {
			return Result{}, err
		}
	}
	var pages atomic.Int64
	c.OnResponse(func(*colly.Response) {
		if pages.Add(1) >= int64(opt.Pages) {
			cancel()
		}
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		// The same work focuscrawl does: pages of the benchmark's hosts,
		// fragments dropped (Colly would fetch page#a and page#b twice).
		u, err := url.Parse(e.Request.AbsoluteURL(e.Attr("href")))
		if err != nil || !strings.HasSuffix(u.Hostname(), "."+opt.Web.Domain) {
			return
		}
		u.Fragment = ""
		e.Request.Visit(u.String()) //nolint:errcheck // visited/disallowed URLs are expected
	})
	for _, s := range srv.Seeds() {
		c.Visit(s) //nolint:errcheck
	}
	waited := make(chan struct{})
	go func() { c.Wait(); close(waited) }()
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-waited:
			done = true
		case <-tick.C:
			fmt.Fprintf(os.Stderr, "colly: %d pages\n", pages.Load())
		}
	}
	time.Sleep(opt.Web.StragglerLatency + time.Second) // let requests already at the server finish into its log
	log, err := srv.Log()
	if err != nil {
		return Result{}, err
	}
	return Result{Name: "Colly, one limit rule per host (parallelism 1, delay = Crawl-delay)", Fetched: int(pages.Load()),
		Analysis: politeweb.Analyze(log, opt.Web.CrawlDelay)}, nil
}

func crawlFocus(ctx context.Context, h *harness.Harness, srv web, opt Options) (Result, error) {
	var b strings.Builder
	b.WriteString("name: polite\nlanguage: en\ndescription: the politeness benchmark (every page accepted)\nkeywords: {gimp: 1}\n")
	fmt.Fprintf(&b, "scope: {hosts: ['*.%s']}\nseeds:\n", opt.Web.Domain) // Colly too stays on the benchmark's hosts
	for _, s := range srv.Seeds() {
		fmt.Fprintf(&b, "  - %s\n", s)
	}
	yml, err := harness.WithStrategy([]byte(b.String()), "polite", opt.Pages,
		harness.Spec{Name: "bfs"}, harness.Spec{Name: "vsm", Params: map[string]any{"threshold": 0.0}})
	if err != nil {
		return Result{}, err
	}
	if yml, err = harness.WithAccept(yml, topic.AcceptThreshold); err != nil { // every page accepted
		return Result{}, err
	}
	st, log, err := h.Crawl(ctx, fmt.Sprintf("polite/%d", time.Now().UnixNano()), yml)
	if err != nil {
		return Result{}, err
	}
	requests, err := srv.Log()
	if err != nil {
		return Result{}, err
	}
	return Result{Name: "focuscrawl, defaults (Temporal + worker, every page accepted, bfs)", Fetched: len(log),
		Analysis: politeweb.Analyze(requests, opt.Web.CrawlDelay),
		Note:     fmt.Sprintf("%d accepted, %d indexed, %d links scored; %s", st.Accepted, st.Indexed, st.Links, st.Reason)}, nil
}

// Markdown writes the report as a section of docs/benchmarks.md.
func (r *Report) Markdown(w io.Writer, command string) {
	o := r.Options.Web
	fmt.Fprintf(w, "## Polite crawling: keeping every host busy\n\n")
	fmt.Fprintf(w, "Generated on %s. Machine: %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), harness.Machine())
	fmt.Fprintf(w, "`%s`: %d virtual hosts on one loopback server, each serving a copy of the documentation tree %s; "+
		"responses take %s (%d straggler hosts: %s); every robots.txt asks for Crawl-delay %s. "+
		"Ideal polite rate Σ 1/max(delay, response time) = **%.1f pages/s**. Page budget %d per crawler. "+
		"Rates are pages answered 200 over the window from the first request's start to the last one's end, from the server's own request log; "+
		"a violation is a request to a host less than the delay after the previous request to it started (robots.txt counts as a request). %s\n\n",
		command, o.Hosts, o.Dir, o.Latency, o.Stragglers, o.StragglerLatency, o.CrawlDelay, r.Ideal, r.Options.Pages, r.serverNote())
	fmt.Fprintf(w, "| crawler | pages | robots.txt | window | pages/s | share of ideal | politeness violations | smallest gap |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, res := range []Result{r.Colly, r.Focus} {
		a := res.Analysis
		fmt.Fprintf(w, "| %s | %d | %d | %s | %.1f | %.2f | %d | %s |\n", res.Name, a.Pages, a.Robots,
			a.Window.Round(10*time.Millisecond), a.Rate, a.Rate/r.Ideal, a.Violations, a.MinGap.Round(time.Millisecond))
	}
	c := r.Config
	fmt.Fprintf(w, "\nfocuscrawl / Colly: **%.2f**; focuscrawl settings: crawl.pipelines=%d, crawl.hosts=%d, crawl.slice=%s, crawl.fetch_concurrency=%d, crawl.batch_size=%d. %s\n\n",
		r.Focus.Analysis.Rate/r.Colly.Analysis.Rate, c.Pipelines, c.Hosts, c.Slice, c.FetchConcurrency, c.BatchSize, r.Focus.Note)
}

// serverNote says where the server ran.
func (r *Report) serverNote() string {
	if r.OwnProcess {
		return "The server runs in a process of its own (" + r.ServerPriority + "; a site's server runs on a machine of its own), so the times it logs are when requests arrived, not when the crawler's work on the same cores let it run (docs/benchmarks-polite.md, 2026-11-28)."
	}
	return "The server runs in the benchmark's own process: under load the times it logs lag the requests' arrival by varying amounts, which can show violations the crawler did not commit."
}
