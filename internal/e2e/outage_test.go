package e2e

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
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

// outage is a crawl whose Temporal server went away in the middle of a
// crawl slice while the slice went on fetching (outageMidSlice).
type outage struct {
	e        *env
	site     *testSite
	run      crawlRun
	hostPort string
	db       string
	server   *testsuite.DevServer // nil while it is away
}

// outageMidSlice starts a crawl on a Temporal dev server of the test's own,
// stops the server in the middle of the crawl's one long slice, and
// returns once the worker said it goes on and a page was fetched while the
// server was away. The test's cleanup stops the server if it runs.
func outageMidSlice(t *testing.T, topicName string) *outage {
	t.Helper()
	site := newTestSite(t, 50*time.Millisecond)
	o := &outage{e: newEnv(t, site), site: site, hostPort: freeHostPort(t)}
	o.db = filepath.Join(o.e.dir, "temporal.db")
	o.server = startOwnServer(t, o.hostPort, o.db)
	t.Cleanup(func() {
		if o.server != nil {
			o.server.Client().Close()
			o.server.Stop()
		}
	})
	o.e.client = o.server.Client()
	// One long slice, a heartbeat timeout that outlasts the outage, and a
	// host delay that spreads the site's pages over many seconds.
	o.e.startWorkerProc("worker", "FOCUSCRAWL_TEMPORAL_ADDRESS="+o.hostPort, "FOCUSCRAWL_CRAWL_SLICE=5m",
		"FOCUSCRAWL_CRAWL_HEARTBEAT_TIMEOUT=60s", "FOCUSCRAWL_FETCH_HOST_DELAY=1s")
	o.run = o.e.startCrawl(topicName, 200)
	st := o.e.openStore()
	eventually(t, 60*time.Second, "the crawl to get going", func() bool {
		cs, err := st.CrawlStats(context.Background(), o.run.GetID())
		return err == nil && cs.Fetched >= 3
	})

	if err := o.server.Stop(); err != nil {
		t.Logf("stopping the Temporal server: %v", err)
	}
	// DevServer.Stop leaves its client's connection open (and retrying).
	o.server.Client().Close()
	o.server = nil
	logPath := filepath.Join(o.e.dir, "worker.log")
	eventually(t, 60*time.Second, "the worker to notice the outage", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "the slice goes on while it is away")
	})
	before := len(site.requestLog())
	eventually(t, 30*time.Second, "a page fetched while the Temporal server is away", func() bool {
		return len(site.requestLog()) > before
	})
	return o
}

// restart starts the server again on its address and database, and
// follows the crawl through the new server's client (the first one was
// closed with its server).
func (o *outage) restart(t *testing.T) {
	t.Helper()
	o.server = startOwnServer(t, o.hostPort, o.db)
	o.e.client = o.server.Client()
	o.run = crawlRun{WorkflowRun: o.e.client.GetWorkflow(context.Background(), o.run.GetID(), o.run.GetRunID())}
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
	o := outageMidSlice(t, "roses-outage")
	o.restart(t)
	res := o.e.wait(o.run, 4*time.Minute)
	if res.Phase != crawlapi.PhaseCompleted {
		t.Fatalf("crawl ended %s (%s)", res.Phase, res.Reason)
	}
	checkCrawl(t, o.e, o.run.GetID(), "roses-outage")
	checkNoPageRequestedTwice(t, o.site)
}

// TestCancelAfterOutageIsCancelled: a crawl cancelled once the server is
// back ends cancelled, and the slice that outlasted the outage is recorded
// in the history as cancelled, not failed (the SDK reads the outage's
// transport error as its context's cause and would report a failure;
// activities.reportCanceled reports it itself).
func TestCancelAfterOutageIsCancelled(t *testing.T) {
	o := outageMidSlice(t, "roses-outage-cancel")
	o.restart(t)
	ctx := context.Background()
	if err := o.e.client.CancelWorkflow(ctx, o.run.GetID(), ""); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var canceled *temporal.CanceledError
	if _, err := o.run.Result(wctx); !errors.As(err, &canceled) {
		t.Fatalf("crawl result after the cancellation: %v; want cancelled", err)
	}
	var slices, cancelledSlices int
	var failed []string
	it := o.e.client.GetWorkflowHistory(ctx, o.run.GetID(), o.run.GetRunID(), false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	sliceEvents := map[int64]bool{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == crawlapi.CrawlSlice.Name {
			sliceEvents[ev.GetEventId()] = true
			slices++
		}
		if a := ev.GetActivityTaskCanceledEventAttributes(); a != nil && sliceEvents[a.GetScheduledEventId()] {
			cancelledSlices++
		}
		if a := ev.GetActivityTaskFailedEventAttributes(); a != nil && sliceEvents[a.GetScheduledEventId()] {
			failed = append(failed, a.GetFailure().GetMessage())
		}
	}
	if cancelledSlices == 0 || len(failed) > 0 {
		t.Errorf("%d crawl slices, %d recorded cancelled, failed: %q; want the slice that outlasted the outage cancelled, none failed",
			slices, cancelledSlices, failed)
	}
	checkNoPageRequestedTwice(t, o.site)
}
