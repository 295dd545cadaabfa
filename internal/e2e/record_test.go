package e2e

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"focuscrawl/internal/crawlapi"
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
//   - crawl-signals: learn, rank and expansion cadences; pause, add-seeds,
//     a bad and a good update-topic, resume; ends with the frontier exhausted.
//   - crawl-continued-run1 / -last: continue-as-new after every 2 slices;
//     the first run (ending in continue-as-new) and the last, which a stop
//     signal ends.
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
		signal(crawlapi.SignalPause, nil)
		eventually(t, 60*time.Second, "the paused crawl to drain", func() bool {
			s := e.status(id)
			return s.Paused && s.InFlight == 0
		})
		signal(crawlapi.SignalAddSeeds, []string{"http://www.huayuan.test/", "http://www.sport.test/"})
		signal(crawlapi.SignalUpdateTopic, learningTopicYAML("another-topic", true))
		signal(crawlapi.SignalUpdateTopic, learningTopicYAML("rec", true))
		eventually(t, 60*time.Second, "topic version 2", func() bool { return e.status(id).TopicVersion == 2 })
		signal(crawlapi.SignalResume, nil)
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
}

// writeHistory writes one workflow run's whole history as protojson, the
// format worker.WorkflowReplayer.ReplayWorkflowHistoryFromJSONFile reads
// (and `temporal workflow show --output json` writes).
func writeHistory(t *testing.T, e *env, id, runID, path string) {
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
}
