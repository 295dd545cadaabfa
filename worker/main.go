// Command worker runs focuscrawl's Temporal worker: it polls the task queue
// and executes crawl workflows and their activities against the configured
// crawl store, search index and fetcher.
//
//	go run ./worker [--config focuscrawl.yaml]
//
// Configuration comes from the optional file, FOCUSCRAWL_* environment
// variables and flags (see config.example.yaml).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"focuscrawl/activities"
	"focuscrawl/internal/config"
	"focuscrawl/internal/index/backend"
	"focuscrawl/internal/logging"
	"focuscrawl/internal/metrics"
	"focuscrawl/internal/searchattr"
	storebackend "focuscrawl/internal/store/backend"
	"focuscrawl/internal/textproc"
	"focuscrawl/workflows"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := pflag.NewFlagSet("worker", pflag.ContinueOnError)
	cfgFile := fs.String("config", os.Getenv("FOCUSCRAWL_CONFIG"), "configuration file (YAML)")
	config.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := config.Load(*cfgFile, fs)
	if err != nil {
		return err
	}
	log := logging.New(os.Stderr, cfg.Log.Level)
	slog.SetDefault(log)
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
		return fmt.Errorf("connect to Temporal at %s: %w", cfg.Temporal.Address, err)
	}
	defer c.Close()
	// Custom search attributes let operators filter crawls by topic in the
	// UI; register them if this server lacks them (the dev server does).
	if added, err := searchattr.Ensure(context.Background(), c, cfg.Temporal.Namespace); err != nil {
		log.Warn("search attributes unavailable; crawls still run, without topic filters in the UI", "error", err)
	} else if len(added) > 0 {
		log.Info("registered search attributes", "names", added)
	}

	w := worker.New(c, cfg.Temporal.TaskQueue, worker.Options{
		Interceptors: []interceptor.WorkerInterceptor{crawlerMetrics.Interceptor()},
	})
	workflows.Register(w)
	acts.Register(w)
	log.Info("worker started", "temporal", cfg.Temporal.Address, "task_queue", cfg.Temporal.TaskQueue,
		"store", storebackend.Describe(cfg.Store), "index", backend.Describe(cfg.Index))
	return w.Run(worker.InterruptCh())
}
