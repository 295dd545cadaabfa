package e2e

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"focuscrawl/internal/crawlapi"
)

// startOwnServer starts a Temporal dev server of this test's own on
// hostPort with its database in db — one the test may stop and start
// again (the package's shared server must stay up for the other tests).
func startOwnServer(t *testing.T, hostPort, db string) *testsuite.DevServer {
	t.Helper()
	s, err := testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{
		ExistingPath: temporalBin,
		ClientOptions: &client.Options{HostPort: hostPort, Namespace: "default",
			Logger: log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))},
		DBFilename:       db,
		SearchAttributes: crawlapi.SearchAttributes("", ""),
		LogLevel:         "error",
		Stdout:           io.Discard,
		Stderr:           io.Discard,
	})
	if err != nil {
		t.Fatalf("start a Temporal dev server on %s: %v", hostPort, err)
	}
	return s
}

// freeHostPort returns a loopback address no one listens on now.
func freeHostPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestSliceOutlastsTemporalOutage: the Temporal server goes away in the
// middle of a crawl slice and comes back on its database. The SDK cancels
// a heartbeating activity's context once a heartbeat cannot reach the
// server; a crawl slice, which needs nothing from the server while it
// fetches, goes on fetching through the outage (activities.outlastOutage),
// and the crawl completes with no page requested twice. Before, every
// slice stopped at the first failed heartbeat and the crawl stood still
// until its heartbeat timeout had passed after the server's return.
func TestSliceOutlastsTemporalOutage(t *testing.T) {
	site := newTestSite(t, 50*time.Millisecond)
	e := newEnv(t, site)
	hostPort, db := freeHostPort(t), filepath.Join(e.dir, "temporal.db")
	server := startOwnServer(t, hostPort, db)
	stopped := false
	defer func() {
		if !stopped {
			server.Stop()
		}
	}()
	e.client = server.Client()
	// One long slice, a heartbeat timeout that outlasts the outage, and a
	// host delay that spreads the site's pages over many seconds.
	e.startWorkerProc("worker", "FOCUSCRAWL_TEMPORAL_ADDRESS="+hostPort, "FOCUSCRAWL_CRAWL_SLICE=5m",
		"FOCUSCRAWL_CRAWL_HEARTBEAT_TIMEOUT=60s", "FOCUSCRAWL_FETCH_HOST_DELAY=1s")
	run := e.startCrawl("roses-outage", 200)
	st := e.openStore()
	eventually(t, 60*time.Second, "the crawl to get going", func() bool {
		cs, err := st.CrawlStats(context.Background(), run.GetID())
		return err == nil && cs.Fetched >= 3
	})

	if err := server.Stop(); err != nil {
		t.Logf("stopping the Temporal server: %v", err)
	}
	stopped = true
	logPath := filepath.Join(e.dir, "worker.log")
	eventually(t, 60*time.Second, "the worker to notice the outage", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "the slice goes on while it is away")
	})
	before := len(site.requestLog())
	eventually(t, 30*time.Second, "a page fetched while the Temporal server is away", func() bool {
		return len(site.requestLog()) > before
	})

	server = startOwnServer(t, hostPort, db)
	stopped = false
	e.client = server.Client()
	res := e.wait(run, 4*time.Minute)
	if res.Phase != crawlapi.PhaseCompleted {
		t.Fatalf("crawl ended %s (%s)", res.Phase, res.Reason)
	}
	checkCrawl(t, e, run.GetID(), "roses-outage")
	checkNoPageRequestedTwice(t, site)
}
