// Package crawlworker assembles a focuscrawl worker: the activities on the
// configured crawl store, search index and fetcher (activities.New), every
// workflow and activity registered under its contract name (workflows.Register,
// Activities.Register), and the crawler's metrics. The worker command runs
// one as a process (Run); the evaluation tools and tests start one in their
// own process (Start).
//
// It sits beside the commands, outside internal/, because it is the one
// package that links the workflows and the activities' implementation
// together: packages under internal/ build on the contract (crawlapi) alone.
package crawlworker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"focuscrawl/activities"
	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/index/backend"
	"focuscrawl/internal/logging"
	"focuscrawl/internal/metrics"
	"focuscrawl/internal/searchattr"
	"focuscrawl/internal/store"
	storebackend "focuscrawl/internal/store/backend"
	"focuscrawl/internal/suggest"
	"focuscrawl/internal/textproc"
	"focuscrawl/workflows"
)

// register registers every workflow and activity on w.
func register(w worker.Worker, acts *activities.Activities) {
	workflows.Register(w)
	acts.Register(w)
}

// GCPercent is the garbage collector's target a worker process runs with
// unless the GOGC environment variable says otherwise. A worker's live heap
// is small (tens of MiB: the pages of the groups in flight, a topic's
// models) and its garbage is mostly per-page parse trees and token lists,
// so Go's default of 100 spends a tenth of the worker's CPU collecting
// (docs/benchmarks.md, profile); 200 roughly halves the collections for a
// peak heap about twice the live one.
const GCPercent = 200

// TuneGC sets the process's garbage-collector target to GCPercent unless
// GOGC is set. The worker command calls it first; so does any command that
// runs a worker in its own process (the evaluation tools), so that their
// numbers are the worker's.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}

// Run is the worker command: it loads the configuration (file, FOCUSCRAWL_*
// environment, flags in args), opens the store, index and fetcher, serves
// the metrics endpoint and polls the task queue until interrupted. Errors in
// args are cli.UsageErrors; --help prints the usage and returns nil.
func Run(args []string) error {
	TuneGC()
	fs := pflag.NewFlagSet("worker", pflag.ContinueOnError)
	cfgFile := fs.String("config", os.Getenv("FOCUSCRAWL_CONFIG"), "configuration file (YAML)")
	config.AddFlags(fs)
	// The configuration flags are hidden (there are dozens): the usage says
	// how they are spelt, where pflag's default listed --config alone.
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: worker [--config FILE] [--SECTION.KEY=VALUE ...]\n"+
			"runs focuscrawl's Temporal worker (crawls, refreshes) until interrupted\n\nflags:\n%s"+
			"  --SECTION.KEY=VALUE   any configuration key, e.g. --temporal.address=HOST:PORT, --fetch.host_delay=2s\n"+
			"                        (also an environment variable: %s_ and the key in capitals, '.' as '_';\n"+
			"                        keys: README's configuration reference, config.example.yaml)\n", fs.FlagUsages(), config.EnvPrefix)
	}
	// Like the other commands (internal/cli): --help is not an error, a
	// bad flag exits with status 2, and a stray argument is refused rather
	// than ignored (the worker takes none).
	if err := fs.Parse(args); errors.Is(err, pflag.ErrHelp) {
		return nil
	} else if err != nil {
		var ne *pflag.NotExistError
		if errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "" {
			var names []string
			fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
			if s := suggest.Closest(ne.GetSpecifiedName(), names, 2); s != "" {
				return cli.Usagef("%v (did you mean --%s?)", err, s)
			}
		}
		return cli.UsageError(err.Error())
	}
	if fs.NArg() > 0 {
		return cli.Usagef("the worker takes no arguments, got %q (configuration flags look like --temporal.address=HOST:PORT)", fs.Args())
	}
	cfg, err := config.Load(*cfgFile, fs)
	if err != nil {
		return err
	}
	log := logging.New(os.Stderr, cfg.Log.Level)
	slog.SetDefault(log)
	for _, msg := range config.UnknownEnv(os.Environ()) {
		log.Warn(msg)
	}
	if err := textproc.Preload(); err != nil {
		return fmt.Errorf("load Chinese dictionaries: %w", err)
	}
	defer textproc.Close()

	acts, err := activities.New(cfg, log)
	if err != nil {
		return err
	}
	defer acts.Close()

	// Prometheus: the SDK's metrics and the crawler's in one registry.
	reg := metrics.NewRegistry()
	crawlerMetrics := metrics.New(reg)
	sdkMetrics, sdkMetricsCloser := metrics.TemporalHandler(reg)
	defer sdkMetricsCloser.Close()
	if cfg.Metrics.Address != "" {
		ms, err := metrics.Serve(cfg.Metrics.Address, reg)
		if err != nil {
			return fmt.Errorf("metrics endpoint on %s (config metrics.address): %w", cfg.Metrics.Address, err)
		}
		defer ms.Close()
		log.Info("metrics endpoint", "url", "http://"+ms.Addr.String()+"/metrics")
	}

	c, err := client.Dial(client.Options{
		HostPort: cfg.Temporal.Address, Namespace: cfg.Temporal.Namespace,
		Logger: logging.Temporal(log), MetricsHandler: sdkMetrics,
	})
	if err != nil {
		if why := cli.Unresolvable(cfg.Temporal.Address); why != "" {
			return fmt.Errorf("connect to Temporal at %s (config temporal.address, env FOCUSCRAWL_TEMPORAL_ADDRESS): %s", cfg.Temporal.Address, why)
		}
		return fmt.Errorf("connect to Temporal at %s: %w", cfg.Temporal.Address, err)
	}
	defer c.Close()
	// Custom search attributes let operators filter crawls by topic in the
	// UI; register them if this server lacks them (the dev server does).
	added, err := searchattr.Ensure(context.Background(), c, cfg.Temporal.Namespace)
	var noNamespace *serviceerror.NamespaceNotFound
	if errors.As(err, &noNamespace) {
		// Not a missing search attribute: the worker could not run at all
		// (it logged "crawls still run", then exited).
		return fmt.Errorf("Temporal at %s has no namespace %q (config temporal.namespace): %w",
			cfg.Temporal.Address, cfg.Temporal.Namespace, err)
	}
	if err != nil {
		log.Warn("search attributes unavailable; crawls still run, without topic filters in the UI", "error", err)
	} else if len(added) > 0 {
		log.Info("registered search attributes", "names", added)
	}

	acts.Workflows = c
	acts.Heartbeats = c
	opts := workerOptions(cfg)
	opts.Interceptors = []interceptor.WorkerInterceptor{crawlerMetrics.Interceptor()}
	w := worker.New(c, cfg.Temporal.TaskQueue, opts)
	register(w, acts)
	log.Info("worker started", "temporal", cfg.Temporal.Address, "task_queue", cfg.Temporal.TaskQueue,
		"store", storebackend.Describe(cfg.Store), "index", backend.Describe(cfg.Index))
	if err := w.Run(worker.InterruptCh()); err != nil {
		return fmt.Errorf("worker on Temporal at %s (namespace %s, task queue %s): %w",
			cfg.Temporal.Address, cfg.Temporal.Namespace, cfg.Temporal.TaskQueue, err)
	}
	return nil
}

// HeartbeatEvery bounds how long an activity's latest heartbeat waits in
// the worker before it reaches the server. The SDK otherwise holds
// heartbeats back for 80% of the heartbeat timeout (16 s at the default
// crawl.heartbeat_timeout), and a crawl's live progress (`starter crawl
// --wait`, the Temporal UI's pending activities) is read from the slices'
// heartbeat details: it stood at 0 for the first seconds of every crawl.
const HeartbeatEvery = 2 * time.Second

// workerOptions are the Temporal worker options every focuscrawl worker
// runs with. WorkerStopTimeout is crawl.stop_timeout: on Stop the SDK
// closes the activities' worker-stop channel, which ends crawl slices
// gracefully (activities.CrawlSlice), and cancels what still runs after it.
func workerOptions(cfg *config.Config) worker.Options {
	return worker.Options{MaxHeartbeatThrottleInterval: HeartbeatEvery, WorkerStopTimeout: cfg.Crawl.StopTimeout}
}

// InProcess is a worker running inside the calling process.
type InProcess struct {
	acts *activities.Activities
	w    worker.Worker
}

// Start starts a worker in this process polling cfg.Temporal.TaskQueue on
// c, with the store, index and fetcher cfg describes. Close stops it.
func Start(c client.Client, cfg *config.Config, log *slog.Logger) (*InProcess, error) {
	acts, err := activities.New(cfg, log)
	if err != nil {
		return nil, err
	}
	acts.Workflows = c
	acts.Heartbeats = c
	p := &InProcess{acts: acts, w: worker.New(c, cfg.Temporal.TaskQueue, workerOptions(cfg))}
	register(p.w, acts)
	if err := p.w.Start(); err != nil {
		return nil, errors.Join(fmt.Errorf("start worker: %w", err), acts.Close())
	}
	return p, nil
}

// Store is the crawl store the worker writes.
func (p *InProcess) Store() store.Store { return p.acts.Store }

// CrawlConfig is the worker's crawl configuration. Changed between crawls,
// it applies to crawls started afterwards (StartCrawl copies it into each
// crawl's parameters); it must not change while activities run.
func (p *InProcess) CrawlConfig() *config.Crawl { return &p.acts.CrawlCfg }

// Close stops the worker and closes its store and index.
func (p *InProcess) Close() error {
	p.w.Stop()
	return p.acts.Close()
}
