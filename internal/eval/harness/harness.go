// Package harness runs real focuscrawl crawls for evaluation and
// benchmarking: a Temporal dev server (started from the CLI binary that
// scripts/ensure-temporal.sh installs, or an existing server), an in-process
// worker that the caller starts (Options.StartWorker: crawlworker.Start, the
// worker command's own assembly), corpora served on loopback by package
// replay, and each crawl run as a real TopicCrawlWorkflow whose crawl log is
// then exported and scored by package metrics. The harness itself builds on
// the contract (crawlapi) only.
//
// The harness is for long runs (`eval compare`, `eval focus`,
// scripts/eval.sh); the test that runs it end to end is in package
// crawlworker.
package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/store"
)

// Options configure a harness.
type Options struct {
	// Dir holds the harness's crawl store and index (created if missing).
	Dir string
	// TemporalAddress is an existing Temporal frontend (host:port); empty
	// starts a private dev server from TemporalBin.
	TemporalAddress string
	// TemporalBin is the Temporal CLI; empty means $(go env GOPATH)/bin/temporal.
	TemporalBin string
	// Config is the worker configuration to start from (nil: defaults plus
	// FOCUSCRAWL_* environment). The harness overrides the store and index
	// paths, the task queue, and makes fetching fit a loopback web: private
	// networks allowed, no host delay, Resolve from this Options.
	Config *config.Config
	// Resolve maps virtual host patterns (see fetch.resolve) to the
	// loopback addresses of the replay servers.
	Resolve map[string]string
	// Log receives the worker's log; nil discards it.
	Log *slog.Logger
	// Polite keeps the configuration's host delay (the politeness
	// benchmark); by default the harness sets fetch.host_delay to 0.
	Polite bool
	// StartWorker starts the in-process worker (required).
	StartWorker StartWorker
}

// Worker is an in-process focuscrawl worker polling the harness's task queue.
type Worker interface {
	// Store is the crawl store the worker writes; crawl logs are read from it.
	Store() store.Store
	// CrawlConfig is the worker's crawl configuration; changed between
	// crawls, it applies to the crawls started afterwards.
	CrawlConfig() *config.Crawl
	// Close stops the worker and closes its store and index.
	Close() error
}

// StartWorker starts an in-process worker on c polling cfg.Temporal.TaskQueue
// with the store, index and fetcher cfg describes.
type StartWorker func(c client.Client, cfg *config.Config, log *slog.Logger) (Worker, error)

// Harness is a running Temporal server connection plus an in-process worker.
type Harness struct {
	Cfg       *config.Config
	Worker    Worker
	client    client.Client
	dev       *testsuite.DevServer
	taskQueue string
}

// Start starts the dev server (unless an address is given) and the worker.
func Start(ctx context.Context, opt Options) (*Harness, error) {
	if opt.StartWorker == nil {
		return nil, errors.New("harness: Options.StartWorker is required")
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	cfg := opt.Config
	if cfg == nil {
		var err error
		if cfg, err = config.Load("", nil); err != nil {
			return nil, err
		}
	}
	c := *cfg
	c.Store.Path = filepath.Join(opt.Dir, "crawl.db")
	c.Index.Path = filepath.Join(opt.Dir, "index.db")
	c.Fetch.AllowPrivateNetworks = true
	if !opt.Polite {
		c.Fetch.HostDelay = 0
	}
	c.Fetch.Resolve = opt.Resolve
	c.Temporal.TaskQueue = fmt.Sprintf("eval-%d-%d", os.Getpid(), time.Now().UnixNano())
	log := opt.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	tl := tlog.NewStructuredLogger(log)

	h := &Harness{Cfg: &c, taskQueue: c.Temporal.TaskQueue}
	var err error
	if opt.TemporalAddress != "" {
		h.client, err = client.Dial(client.Options{HostPort: opt.TemporalAddress, Namespace: c.Temporal.Namespace, Logger: tl})
		if err != nil {
			return nil, fmt.Errorf("harness: connect to Temporal at %s: %w", opt.TemporalAddress, err)
		}
	} else {
		bin, err := TemporalBin(opt.TemporalBin)
		if err != nil {
			return nil, err
		}
		h.dev, err = testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
			ExistingPath:  bin,
			ClientOptions: &client.Options{Namespace: "default", Logger: tl},
			LogLevel:      "error",
			// The crawl workflow sets these; Temporal refuses unregistered ones.
			SearchAttributes: temporal.NewSearchAttributes(
				crawlapi.SearchAttrTopic.ValueSet(""), crawlapi.SearchAttrKind.ValueSet("")),
			Stdout: io.Discard,
			Stderr: io.Discard,
		})
		if err != nil {
			return nil, fmt.Errorf("harness: start Temporal dev server (%s): %w", bin, err)
		}
		h.client = h.dev.Client()
	}
	if h.Worker, err = opt.StartWorker(h.client, &c, log); err != nil {
		h.Close()
		return nil, fmt.Errorf("harness: %w", err)
	}
	return h, nil
}

// TemporalBin finds the Temporal CLI: bin, else $FOCUSCRAWL_TEMPORAL_BIN,
// else $(go env GOPATH)/bin/temporal (where scripts/ensure-temporal.sh
// installs it).
func TemporalBin(bin string) (string, error) {
	if bin == "" {
		bin = os.Getenv("FOCUSCRAWL_TEMPORAL_BIN")
	}
	if bin == "" {
		out, err := exec.Command("go", "env", "GOPATH").Output()
		if err != nil {
			return "", fmt.Errorf("harness: find GOPATH for the Temporal CLI: %w", err)
		}
		bin = filepath.Join(strings.TrimSpace(string(out)), "bin", "temporal")
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("harness: Temporal CLI not found at %s (run scripts/ensure-temporal.sh): %w", bin, err)
	}
	return bin, nil
}

// Close stops the worker and the dev server.
func (h *Harness) Close() error {
	var errs []error
	if h.Worker != nil {
		errs = append(errs, h.Worker.Close())
	}
	if h.client != nil && h.dev == nil {
		h.client.Close()
	}
	if h.dev != nil {
		errs = append(errs, h.dev.Stop())
	}
	return errors.Join(errs...)
}

// Crawl runs one crawl of topicYAML to its end as a TopicCrawlWorkflow with
// ID id (fresh: the topic's earlier state is forgotten first), and returns
// its final state and exported crawl log.
func (h *Harness) Crawl(ctx context.Context, id string, topicYAML []byte) (*crawlapi.CrawlState, []crawllog.Entry, error) {
	st, err := h.Run(ctx, id, topicYAML)
	if err != nil {
		return nil, nil, err
	}
	log, err := h.Log(ctx, st.CrawlID)
	return st, log, err
}

// Run runs one crawl as Crawl does and returns its final state.
func (h *Harness) Run(ctx context.Context, id string, topicYAML []byte) (*crawlapi.CrawlState, error) {
	run, err := crawlapi.TopicCrawlWorkflow.Start(ctx, h.client, client.StartWorkflowOptions{ID: id, TaskQueue: h.taskQueue},
		crawlapi.CrawlInput{TopicYAML: string(topicYAML), Fresh: true})
	if err != nil {
		return nil, fmt.Errorf("start crawl %s: %w", id, err)
	}
	st, err := run.Result(ctx)
	if err != nil {
		// Do not leave a failed or cancelled crawl running on a shared server.
		_ = h.client.TerminateWorkflow(context.Background(), id, "", "evaluation harness: "+err.Error())
		return nil, fmt.Errorf("crawl %s: %w", id, err)
	}
	return st, nil
}

// Log exports a crawl's log from the worker's store.
func (h *Harness) Log(ctx context.Context, crawlID string) ([]crawllog.Entry, error) {
	var buf bytes.Buffer
	if _, err := crawllog.Export(ctx, h.Worker.Store(), crawlID, &buf); err != nil {
		return nil, err
	}
	return crawllog.Read(&buf)
}
