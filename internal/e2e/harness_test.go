package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
	storebackend "focuscrawl/internal/store/backend"
	"focuscrawl/internal/store/postgres/pgtest"
)

var (
	devServer *testsuite.DevServer
	workerBin string
	skipWhy   string
	// temporalBin is the Temporal CLI the dev servers run from.
	temporalBin string
)

// TestMain starts one Temporal dev server for the package and builds the
// worker binary once.
func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	bin := os.Getenv("FOCUSCRAWL_TEMPORAL_BIN")
	if bin == "" {
		if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			bin = filepath.Join(strings.TrimSpace(string(gp)), "bin", "temporal")
		}
	}
	if _, err := os.Stat(bin); err != nil {
		skipWhy = fmt.Sprintf("Temporal CLI not found at %q (run scripts/ensure-temporal.sh or make test)", bin)
		return m.Run()
	}
	temporalBin = bin
	tmp, err := os.MkdirTemp("", "focuscrawl-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	workerBin = filepath.Join(tmp, "worker")
	build := exec.Command("go", "build", "-o", workerBin, "focuscrawl/worker")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build worker:", err)
		return 1
	}
	ctx := context.Background()
	devServer, err = testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath:  bin,
		ClientOptions: &client.Options{Namespace: "default", Logger: log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))},
		DBFilename:    filepath.Join(tmp, "temporal.db"),
		// The custom search attributes focuscrawl workflows set (issue 7).
		SearchAttributes: crawlapi.SearchAttributes("", ""),
		LogLevel:         "error",
		Stdout:           io.Discard,
		Stderr:           io.Discard,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start Temporal dev server:", err)
		return 1
	}
	defer devServer.Stop()
	return m.Run()
}

// env is one test's isolated world: its own task queue, store and index.
type env struct {
	t         *testing.T
	site      *testSite
	dir       string
	taskQueue string
	client    client.Client
	extraEnv  []string
	// storeDSN, when set, puts the crawl store on PostgreSQL (useStore)
	// instead of the SQLite file in dir.
	storeDSN string
}

func newEnv(t *testing.T, site *testSite, extra ...string) *env {
	t.Helper()
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
	e := &env{t: t, site: site, dir: t.TempDir(), taskQueue: "e2e-" + strings.ReplaceAll(t.Name(), "/", "-"), extraEnv: extra}
	e.client = devServer.Client()
	return e
}

func (e *env) storePath() string { return filepath.Join(e.dir, "crawl.db") }
func (e *env) indexPath() string { return filepath.Join(e.dir, "index.db") }

// usePostgres puts this test's crawl store on a fresh PostgreSQL schema
// (dropped when the test ends); workers started afterwards use it. It skips
// the test when PostgreSQL is unreachable (see package pgtest).
func (e *env) usePostgres() {
	e.t.Helper()
	e.storeDSN, _ = pgtest.Schema(e.t)
}

// startWorker starts a worker process; the returned function kills it with
// SIGKILL (no graceful shutdown: a crash).
func (e *env) startWorker(name string) (kill func()) {
	e.t.Helper()
	return e.startWorkerEnv(name)
}

// startWorkerEnv is startWorker with extra environment for this worker only.
func (e *env) startWorkerEnv(name string, extra ...string) (kill func()) {
	e.t.Helper()
	return e.startWorkerProc(name, extra...).kill
}

// workerProc is a worker process a test started.
type workerProc struct {
	cmd    *exec.Cmd
	logf   *os.File
	exited chan struct{} // closed once the process has exited and been reaped
	err    error         // its exit status, once exited is closed
}

// kill ends the worker with SIGKILL (a crash) and waits for it.
func (w *workerProc) kill() {
	w.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // already gone is fine
	<-w.exited
}

// terminate sends SIGTERM, as docker compose stop or Kubernetes do, and
// waits up to timeout for the process to exit; it reports whether it did and
// its exit status.
func (w *workerProc) terminate(timeout time.Duration) (exited bool, err error) {
	w.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	select {
	case <-w.exited:
		return true, w.err
	case <-time.After(timeout):
		return false, nil
	}
}

// startWorkerProc starts a worker process with extra environment; the test's
// cleanup kills it if it still runs and shows its log if the test failed.
func (e *env) startWorkerProc(name string, extra ...string) *workerProc {
	e.t.Helper()
	cmd := exec.Command(workerBin)
	logf, err := os.Create(filepath.Join(e.dir, name+".log"))
	if err != nil {
		e.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), e.workerEnv(extra...)...)
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	w := &workerProc{cmd: cmd, logf: logf, exited: make(chan struct{})}
	go func() {
		w.err = cmd.Wait()
		logf.Close()
		close(w.exited)
	}()
	e.t.Cleanup(func() {
		w.kill()
		if e.t.Failed() {
			if b, err := os.ReadFile(logf.Name()); err == nil {
				e.t.Logf("%s log:\n%s", name, tail(string(b), 4000))
			}
		}
	})
	return w
}

// workerEnv is the configuration (FOCUSCRAWL_* variables) of this test's
// workers: the common settings, then the test's, then extra.
func (e *env) workerEnv(extra ...string) []string {
	env := []string{
		"FOCUSCRAWL_TEMPORAL_ADDRESS=" + devServer.FrontendHostPort(),
		"FOCUSCRAWL_TEMPORAL_TASK_QUEUE=" + e.taskQueue,
		"FOCUSCRAWL_STORE_PATH=" + e.storePath(),
		"FOCUSCRAWL_INDEX_PATH=" + e.indexPath(),
		"FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=true",
		"FOCUSCRAWL_FETCH_RESOLVE=*.test=" + e.site.addr,
		"FOCUSCRAWL_FETCH_HOST_DELAY=0s",
		"FOCUSCRAWL_FETCH_RETRIES=0",
		"FOCUSCRAWL_CRAWL_BATCH_SIZE=4",
		"FOCUSCRAWL_CRAWL_PIPELINES=2",
		"FOCUSCRAWL_CRAWL_SLICE=2s", // several slices per crawl, so the tests cross slice boundaries
		"FOCUSCRAWL_CRAWL_HEARTBEAT_TIMEOUT=3s",
		"FOCUSCRAWL_LOG_LEVEL=warn",
		"FOCUSCRAWL_METRICS_ADDRESS=127.0.0.1:0", // several workers per test: any free port
	}
	if e.storeDSN != "" {
		env = append(env, "FOCUSCRAWL_STORE_DRIVER=postgres", "FOCUSCRAWL_STORE_DSN="+e.storeDSN)
	}
	env = append(env, e.extraEnv...)
	return append(env, extra...)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// startCrawl starts a crawl workflow of the site's topic.
func (e *env) startCrawl(topicName string, maxPages int) crawlRun {
	e.t.Helper()
	return e.startTopic(topicName, e.site.topicYAML(topicName, maxPages))
}

// startTopic starts a crawl of a topic file's content as the starter does:
// workflow ID crawl/<topic>/<task queue>, with the search attributes set.
func (e *env) startTopic(topicName, yaml string) crawlRun {
	e.t.Helper()
	run, err := crawlapi.TopicCrawlWorkflow.Start(context.Background(), e.client, client.StartWorkflowOptions{
		ID: "crawl/" + topicName + "/" + e.taskQueue, TaskQueue: e.taskQueue,
		TypedSearchAttributes: crawlapi.SearchAttributes(crawlapi.KindCrawl, topicName),
	}, crawlapi.CrawlInput{TopicYAML: yaml})
	if err != nil {
		e.t.Fatal(err)
	}
	return run
}

// crawlRun is a started crawl workflow.
type crawlRun = crawlapi.Run[*crawlapi.CrawlState]

// wait waits for the crawl's result.
func (e *env) wait(run crawlRun, timeout time.Duration) *crawlapi.CrawlState {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	st, err := run.Result(ctx)
	if err != nil {
		e.t.Fatalf("crawl %s: %v", run.GetID(), err)
	}
	return st
}

// status queries a running crawl, running slices' progress included.
func (e *env) status(id string) *crawlapi.CrawlState {
	e.t.Helper()
	st, err := crawlapi.Status(context.Background(), e.client, id)
	if err != nil {
		e.t.Fatalf("query %s: %v", id, err)
	}
	return st
}

// openStore opens the crawl store the worker writes (SQLite WAL lets a
// reader in beside the writer; PostgreSQL any number of clients).
func (e *env) openStore() store.Store {
	e.t.Helper()
	cfg := config.Store{Driver: "sqlite", Path: e.storePath()}
	if e.storeDSN != "" {
		cfg = config.Store{Driver: "postgres", DSN: e.storeDSN}
	}
	s, err := storebackend.Open(context.Background(), cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { s.Close() })
	return s
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s", timeout, what)
}
