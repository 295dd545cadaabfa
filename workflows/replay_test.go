package workflows

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// TestReplayRecordedHistories replays every recorded TopicCrawlWorkflow and
// RefreshWorkflow history in testdata/ against the current workflow code: a change that
// makes the workflow issue different commands for a recorded history (a
// non-deterministic change without a workflow.GetVersion branch) fails here,
// without a Temporal server. The histories come from real crawls on a dev
// server; to record new ones after an intentional, versioned change, see
// TestRecordHistories in internal/e2e/record_test.go:
//
//	FOCUSCRAWL_TEMPORAL_BIN=$(go env GOPATH)/bin/temporal \
//	  go test ./internal/e2e -run TestRecordHistories -record -v
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "crawl-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	refreshes, err := filepath.Glob(filepath.Join("testdata", "refresh-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, refreshes...)
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata/")
	}
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			Register(r)
			if err := r.ReplayWorkflowHistoryFromJSONFile(logger, f); err != nil {
				t.Fatalf("replay %s: %v", f, err)
			}
		})
	}
}
