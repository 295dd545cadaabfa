package e2e

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"

	"focuscrawl/activities"
	"focuscrawl/crawlworker"
	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/workflows"
)

var (
	record    = flag.Bool("record", false, "record TopicCrawlWorkflow histories into workflows/testdata (TestRecordHistories)")
	recordTag = flag.String("record-tag", time.Now().UTC().Format("20060102"), "tag in the recorded histories' file names (TestRecordHistories)")
)

// learningTopicYAML is updateTopicYAML with the jlse link predictor: the
// default best-first reads no learned model, so its crawls never run
// LearnLinkModel, and the recording is to cover learning rounds.
func learningTopicYAML(name string, zh bool) string {
	return strings.Replace(updateTopicYAML(name, zh), "link_predictor: best-first", "link_predictor: jlse", 1)
}

// TestRecordHistories records real TopicCrawlWorkflow histories for the
// replay test (workflows/replay_test.go), which replays every
// workflows/testdata/*.json against the current workflow code so that a
// change that is not deterministic fails in `make test`. It runs only with
// -record:
//
//	FOCUSCRAWL_TEMPORAL_BIN=$(go env GOPATH)/bin/temporal \
//	  go test ./internal/e2e -run TestRecordHistories -record -v
//
// The files are named crawl-<name>.<tag>.json, the tag being the day of
// recording (or -record-tag). Record only after an intentional, versioned
// change (a new workflow.GetVersion branch), and keep the older files beside
// the new ones: runs recorded before the change must keep replaying. Commit
// the new files.
//
// Recorded crawls:
//   - crawl-signals: learn, rank and expansion cadences; pause (the control
//     signal), a corrupt and a good add-seeds, a bad and a good
//     update-topic, resume; ends with the frontier exhausted.
//   - crawl-continued-run1 / -last: continue-as-new after every 2 slices;
//     the first run (ending in continue-as-new) and the last, which a stop
//     signal ends.
//   - refresh-changed: a RefreshWorkflow over a crawled topic whose site has
//     changed (a page gone, one off topic now), ending with no more pages due.
//   - crawl-failed-slice: a slice fails all its attempts (the worker is in
//     this process, its CrawlSlice made to fail for that slice: see
//     startFailingWorker); the workflow releases its claims (ReleaseSlice)
//     and hands its budget out again; ends with the budget reached.
//   - crawl-canceled: a crawl cancelled from outside while its slices
//     fetch; the run that has the cancel request (recorded before the
//     cancel ended the crawl, tag …pre: it continued as new).
//   - crawl-canceled-start: a crawl cancelled while StartCrawl runs (its
//     seed host's sitemap hangs), which waits for StartCrawl and records
//     the crawl canceled (the cancel-during-start version marker).
//   - refresh-canceled: a refresh cancelled while its batch's Refetch
//     waits for a page that does not answer; the workflow waits for
//     Refetch's end and releases the batch's claim (ReleaseRefresh, the
//     refresh-release-canceled-batch version marker).
func TestRecordHistories(t *testing.T) {
	if !*record {
		t.Skip("records histories only with -record")
	}
	out := filepath.Join("..", "..", "workflows", "testdata")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	t.Run("signals", func(t *testing.T) {
		site := newTestSite(t, 60*time.Millisecond)
		e := newEnv(t, site, "FOCUSCRAWL_CRAWL_LEARN_EVERY=3", "FOCUSCRAWL_CRAWL_RANK_EVERY=5", "FOCUSCRAWL_CRAWL_EXPAND_EVERY=4")
		e.startWorker("worker")
		run := e.startTopic("rec", learningTopicYAML("rec", false))
		id, runID := run.GetID(), run.GetRunID()
		signal := func(name string, arg any) {
			t.Helper()
			if err := e.client.SignalWorkflow(ctx, id, "", name, arg); err != nil {
				t.Fatal(err)
			}
		}
		eventually(t, 60*time.Second, "a first accepted page", func() bool { return e.status(id).Accepted >= 1 })
		signal(crawlapi.SignalControl, crawlapi.ControlPause)
		eventually(t, 60*time.Second, "the paused crawl to drain", func() bool {
			s := e.status(id)
			return s.Paused && s.InFlight == 0
		})
		signal(crawlapi.SignalAddSeeds, "http://www.sport.test/") // not a list: dropped, reported
		signal(crawlapi.SignalAddSeeds, []string{"http://www.huayuan.test/", "http://www.sport.test/"})
		signal(crawlapi.SignalUpdateTopic, learningTopicYAML("another-topic", true))
		signal(crawlapi.SignalUpdateTopic, learningTopicYAML("rec", true))
		eventually(t, 60*time.Second, "topic version 2", func() bool { return e.status(id).TopicVersion == 2 })
		signal(crawlapi.SignalControl, crawlapi.ControlResume)
		res := e.wait(run, 3*time.Minute)
		if res.Reason != "frontier exhausted" || res.LinkModelVersion == 0 || res.RankVersion < 2 || res.ExpandedAt == 0 {
			t.Errorf("recorded crawl %+v; want learning, ranking and expansion rounds, frontier exhausted", res)
		}
		writeHistory(t, e, id, runID, filepath.Join(out, "crawl-signals."+*recordTag+".json"))
	})

	t.Run("continued", func(t *testing.T) {
		site := newTestSite(t, 150*time.Millisecond)
		e := newEnv(t, site, "FOCUSCRAWL_CRAWL_SLICES_PER_RUN=2")
		e.startWorker("worker")
		run := e.startCrawl("rec-can", 200)
		id, firstRun := run.GetID(), run.GetRunID() // run.Get follows the run to the last one
		eventually(t, 90*time.Second, "a second workflow run", func() bool { return e.status(id).Runs >= 2 })
		if err := e.client.SignalWorkflow(ctx, id, "", crawlapi.SignalStop, nil); err != nil {
			t.Fatal(err)
		}
		res := e.wait(run, 2*time.Minute)
		if res.Phase != crawlapi.PhaseStopped || res.Runs < 2 {
			t.Errorf("recorded crawl ended %s after %d runs; want stopped after 2 or more", res.Phase, res.Runs)
		}
		writeHistory(t, e, id, firstRun, filepath.Join(out, "crawl-continued-run1."+*recordTag+".json"))
		desc, err := e.client.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			t.Fatal(err)
		}
		writeHistory(t, e, id, desc.GetWorkflowExecutionInfo().GetExecution().GetRunId(), filepath.Join(out, "crawl-continued-last."+*recordTag+".json"))
	})

	t.Run("failed-slice", func(t *testing.T) {
		site := newTestSite(t, 60*time.Millisecond)
		e := newEnv(t, site)
		e.startFailingWorker(func(in crawlapi.SliceInput) bool { return strings.HasSuffix(in.SliceID, "/s000002") })
		run := e.startCrawl("rec-fail", 30)
		res := e.wait(run, 2*time.Minute)
		if res.FailedSlices != 1 || !strings.Contains(res.LastError, "injected slice failure") ||
			res.Reason != "page budget reached" || res.Claimed != 30 {
			t.Errorf("recorded crawl %+v; want one failed slice, the budget reached", res)
		}
		h := writeHistory(t, e, run.GetID(), run.GetRunID(), filepath.Join(out, "crawl-failed-slice."+*recordTag+".json"))
		released := false
		for _, ev := range h.Events {
			if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == crawlapi.ReleaseSlice.Name {
				released = true
			}
		}
		if !released {
			t.Error("the recorded history runs no ReleaseSlice")
		}
	})

	t.Run("canceled", func(t *testing.T) {
		// Few slices a run: a run from before cancel ended the crawl
		// relaunched slices up to this, each scheduled and cancelled.
		e := newEnv(t, newTestSite(t, 300*time.Millisecond), "FOCUSCRAWL_CRAWL_SLICES_PER_RUN=10")
		e.startWorker("worker")
		run, _ := cancelWhileFetching(t, e, "rec-cancel")
		writeHistory(t, e, run.GetID(), run.GetRunID(), filepath.Join(out, "crawl-canceled."+*recordTag+".json"))
	})

	t.Run("canceled-start", func(t *testing.T) {
		e, run := cancelDuringStart(t, newTestSite(t, 0), "rec-cancel-start")
		h := writeHistory(t, e, run.GetID(), run.GetRunID(), filepath.Join(out, "crawl-canceled-start."+*recordTag+".json"))
		if !hasMarker(h, "cancel-during-start") {
			t.Error("the recorded history has no cancel-during-start marker")
		}
	})

	t.Run("refresh-canceled", func(t *testing.T) {
		e, id, runID := cancelRefreshWhileFetching(t)
		h := writeHistory(t, e, id, runID, filepath.Join(out, "refresh-canceled."+*recordTag+".json"))
		if !hasMarker(h, "refresh-release-canceled-batch") {
			t.Error("the recorded history has no refresh-release-canceled-batch marker")
		}
	})

	t.Run("refresh", func(t *testing.T) {
		site := newChangingSite(t)
		e := newEnv(t, &testSite{addr: site.addr},
			"FOCUSCRAWL_REFRESH_MIN_INTERVAL=1s", "FOCUSCRAWL_REFRESH_INITIAL_INTERVAL=1s",
			"FOCUSCRAWL_REFRESH_MAX_INTERVAL=1h")
		e.startWorker("worker")
		if cs := e.wait(e.startTopic("rosenews", refreshTopic), 40*time.Second); cs.Accepted == 0 {
			t.Fatalf("initial crawl accepted nothing: %+v", cs)
		}
		site.edit(func(p map[string]string) {
			delete(p, "/r/2.html")
			p["/r/3.html"] = htmlPage("Match report", "", sentence(sportWords, 3, 80, " "), nil)
		})
		time.Sleep(1100 * time.Millisecond) // the pages' initial revisit interval (1s) passes
		run, err := e.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "refresh/rosenews/rec", TaskQueue: e.taskQueue},
			crawlapi.RefreshWorkflow.Name, crawlapi.RefreshInput{Topic: "rosenews"})
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		var rs crawlapi.RefreshState
		if err := run.Get(wctx, &rs); err != nil {
			t.Fatal(err)
		}
		if rs.Checked == 0 || rs.Gone == 0 || !strings.HasPrefix(rs.Reason, "no more pages due") {
			t.Errorf("recorded refresh %+v; want pages checked, one gone, no more pages due at the end", rs)
		}
		writeHistory(t, e, run.GetID(), run.GetRunID(), filepath.Join(out, "refresh-changed."+*recordTag+".json"))
	})
}

// startFailingWorker starts a worker in this process, configured as
// startWorker's processes are (workerEnv), whose CrawlSlice fails every
// attempt of the slices fail picks: the first attempt with a retryable
// error, the second with a non-retryable one, so the slice fails for good
// after a retry without waiting through the whole retry policy. No real
// failure makes one slice fail, and only that one, in seconds.
func (e *env) startFailingWorker(fail func(crawlapi.SliceInput) bool) {
	e.t.Helper()
	keys := map[string]string{} // FOCUSCRAWL_* name → configuration key
	for k := range config.Defaults() {
		keys[config.EnvName(k)] = k
	}
	fs := pflag.NewFlagSet("worker", pflag.ContinueOnError)
	config.AddFlags(fs)
	for _, kv := range e.workerEnv() {
		name, val, _ := strings.Cut(kv, "=")
		k, ok := keys[name]
		if !ok {
			e.t.Fatalf("worker environment %s is no configuration key", name)
		}
		if err := fs.Set(k, val); err != nil {
			e.t.Fatal(err)
		}
	}
	cfg, err := config.Load("", fs)
	if err != nil {
		e.t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(e.dir, "in-process-worker.log")) // not a name startWorkerEnv gives its processes' logs
	if err != nil {
		e.t.Fatal(err)
	}
	acts, err := activities.New(cfg, slog.New(slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		e.t.Fatal(err)
	}
	w := worker.New(e.client, cfg.Temporal.TaskQueue, worker.Options{MaxHeartbeatThrottleInterval: crawlworker.HeartbeatEvery})
	workflows.Register(w)
	acts.Register(failingSlices{w, fail})
	if err := w.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		w.Stop()
		acts.Close()
		logf.Close()
	})
}

// failingSlices registers activities on a worker, CrawlSlice wrapped to
// fail the slices fail picks (startFailingWorker).
type failingSlices struct {
	crawlapi.ActivityRegistry
	fail func(crawlapi.SliceInput) bool
}

func (r failingSlices) RegisterActivityWithOptions(a any, o activity.RegisterOptions) {
	if o.Name == crawlapi.CrawlSlice.Name {
		slice := a.(func(context.Context, crawlapi.SliceInput) (crawlapi.SliceResult, error))
		a = func(ctx context.Context, in crawlapi.SliceInput) (crawlapi.SliceResult, error) {
			switch {
			case !r.fail(in):
				return slice(ctx, in)
			case activity.GetInfo(ctx).Attempt < 2:
				return crawlapi.SliceResult{}, errors.New("injected slice failure")
			}
			return crawlapi.SliceResult{}, temporal.NewNonRetryableApplicationError("injected slice failure, last attempt", "InjectedFailure", nil)
		}
	}
	r.ActivityRegistry.RegisterActivityWithOptions(a, o)
}

// writeHistory writes one workflow run's whole history as protojson, the
// format worker.WorkflowReplayer.ReplayWorkflowHistoryFromJSONFile reads
// (and `temporal workflow show --output json` writes).
func writeHistory(t *testing.T, e *env, id, runID, path string) *historypb.History {
	t.Helper()
	var h historypb.History
	it := e.client.GetWorkflowHistory(context.Background(), id, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	data, err := protojson.MarshalOptions{Indent: "  "}.Marshal(&h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d events of %s run %s in %s", len(h.Events), id, runID, path)
	return &h
}

// hasMarker tells whether a history records the workflow.GetVersion marker
// of changeID: a recorded history that is to cover a versioned branch must
// have taken it.
func hasMarker(h *historypb.History, changeID string) bool {
	for _, ev := range h.Events {
		m := ev.GetMarkerRecordedEventAttributes()
		if m == nil {
			continue
		}
		for _, p := range m.GetDetails() {
			for _, d := range p.GetPayloads() {
				if strings.Contains(string(d.GetData()), changeID) {
					return true
				}
			}
		}
	}
	return false
}
