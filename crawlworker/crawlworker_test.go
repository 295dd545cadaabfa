package crawlworker

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/replay"
	"focuscrawl/internal/eval/synth"
)

func startWorker(c client.Client, cfg *config.Config, log *slog.Logger) (harness.Worker, error) {
	w, err := Start(c, cfg, log)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// TestSmokeCompare runs the evaluation harness on this package's in-process
// worker: two tiny real crawls through Temporal, and the comparison report
// end to end. It needs the Temporal CLI (scripts/ensure-temporal.sh).
func TestSmokeCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	if _, err := harness.TemporalBin(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	sc := synth.DefaultConfig()
	sc.Hosts, sc.PagesPerHost = 4, 10
	c, err := harness.SynthCorpus(dir, "synth", sc)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := replay.New(c.Dir, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, err := harness.Start(ctx, harness.Options{Dir: filepath.Join(dir, "state"), Resolve: map[string]string{c.Resolve: strings.TrimPrefix(base, "http://")},
		StartWorker: startWorker})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	runs, err := h.Compare(ctx, c, harness.CompareOptions{Pages: 25, Predictors: []string{"bfs", "no-such-predictor"}, Filters: []string{"vsm"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs, want default + bfs + the unknown one", len(runs))
	}
	for _, r := range runs {
		switch {
		case r.Predictor.Name == "no-such-predictor":
			if !strings.Contains(r.Err, "no-such-predictor") {
				t.Errorf("unknown predictor not skipped with a clear error: %q", r.Err)
			}
		case r.Err != "":
			t.Errorf("%s × %s failed: %s", r.Predictor, r.Filter, r.Err)
		case r.Metrics.Fetched == 0 || r.Metrics.Fetched > 25 || r.Metrics.TargetsFound == 0:
			t.Errorf("%s × %s: implausible metrics %+v", r.Predictor, r.Filter, r.Metrics)
		case r.State.OK == 0:
			t.Errorf("%s: no page fetched OK: %+v", r.Predictor, r.State)
		}
	}
	rep := &harness.Report{Command: "test", Machine: harness.Machine(), Date: time.Now(), Pages: 25, N: 20, Corpora: []harness.CorpusResults{{Corpus: c, Runs: runs}}}
	var buf bytes.Buffer
	if err := rep.WriteMarkdown(&buf, filepath.Join(dir, "plots"), "plots"); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"| best-first (default) | vsm |", "| bfs |", "no-such-predictor", "ratio **", "plots/synth-harvest-1.svg"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "synth-recall-1.svg")); err != nil {
		t.Error(err)
	}
}

// TestRunArguments: the worker command treats its arguments like the other
// commands. Before, --help returned "pflag: help requested" (exit status
// 1), a bad flag exited with status 1, and a stray argument was ignored:
// the worker started (here: went on to dial Temporal).
func TestRunArguments(t *testing.T) {
	dir := t.TempDir()
	// Whatever gets past argument checking fails fast and touches nothing
	// outside dir: no Temporal listens on port 1.
	safe := []string{"--temporal.address=127.0.0.1:1", "--metrics.address=",
		"--store.path=" + filepath.Join(dir, "crawl.db"), "--index.path=" + filepath.Join(dir, "index.db")}
	if err := Run([]string{"--help"}); err != nil {
		t.Errorf("--help = %v; want nil", err)
	}
	for _, args := range [][]string{{"--bogus"}, {"start"}} {
		err := Run(append(args, safe...))
		var ue cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("worker %q = %v; want a usage error", args, err)
		}
	}
	// A misspelt configuration flag names the one meant, as the other
	// commands do.
	if err := Run(append([]string{"--fetch.host_dlay=2s"}, safe...)); err == nil || !strings.Contains(err.Error(), "did you mean --fetch.host_delay?") {
		t.Errorf("worker --fetch.host_dlay = %v; want a usage error suggesting --fetch.host_delay", err)
	}
}
