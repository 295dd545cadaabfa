package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/eval/replay"
	"focuscrawl/internal/eval/synth"
)

func TestCombosStarAndFull(t *testing.T) {
	def, vsm := Spec{Name: "best-first"}, Spec{Name: "vsm", Params: map[string]any{"threshold": 0.02}}
	opt := CompareOptions{Predictors: []string{"bfs", "best-first", "parent"}, Filters: []string{"vsm", "other"}}
	star := Combos(opt, def, vsm)
	var got []string
	for _, c := range star {
		got = append(got, c.Predictor.String()+"×"+c.Filter.String())
	}
	want := "best-first×vsm{threshold=0.02} bfs×vsm{threshold=0.02} parent×vsm{threshold=0.02} best-first×other"
	if strings.Join(got, " ") != want {
		t.Errorf("star combos = %v, want %s", got, want)
	}
	opt.Full = true
	if n := len(Combos(opt, def, vsm)); n != 6 {
		t.Errorf("full combos = %d, want 3×2", n)
	}
}

func TestWithStrategyAndTopicStrategies(t *testing.T) {
	in := []byte("name: x\nkeywords: {a: 1}\nseeds: [http://h.test/]\nstrategy:\n  page_filter: {name: vsm, threshold: 0.05}\n  link_predictor: best-first\n")
	p, f, err := TopicStrategies(in)
	if err != nil || p.Name != "best-first" || f.String() != "vsm{threshold=0.05}" {
		t.Fatalf("TopicStrategies = %v, %v, %v", p, f, err)
	}
	out, err := WithStrategy(in, "renamed", 42, Spec{Name: "bfs"}, Spec{Name: "vsm", Params: map[string]any{"threshold": 0.0}})
	if err != nil {
		t.Fatal(err)
	}
	p, f, _ = TopicStrategies(out)
	if p.Name != "bfs" || f.String() != "vsm{threshold=0}" || !bytes.Contains(out, []byte("name: renamed")) || !bytes.Contains(out, []byte("max_pages: 42")) {
		t.Errorf("WithStrategy:\n%s", out)
	}
}

func TestLabelByUpChain(t *testing.T) {
	dir := t.TempDir()
	page := func(name, up string) {
		link := ""
		if up != "" {
			link = `<link rel="up" href="` + up + `" title="x" />`
		}
		os.WriteFile(filepath.Join(dir, name), []byte("<html><head>"+link+"</head></html>"), 0o644)
	}
	page("index.html", "")
	page("filters.html", "index.html")
	page("filters-blur.html", "filters.html")
	page("gimp-filter-gauss.html", "filters-blur.html")
	page("layers.html", "index.html")
	page("loop-a.html", "loop-b.html") // cycles must not hang
	page("loop-b.html", "loop-a.html")
	labels, n, err := LabelByUpChain(dir, "http://docs.test/", "filters.html")
	if err != nil {
		t.Fatal(err)
	}
	if n != 7 || len(labels) != 3 {
		t.Fatalf("%d pages, labels %v", n, labels)
	}
	for _, u := range []string{"http://docs.test/filters.html", "http://docs.test/filters-blur.html", "http://docs.test/gimp-filter-gauss.html"} {
		if _, ok := labels[u]; !ok {
			t.Errorf("%s not labelled", u)
		}
	}
}

// TestSmokeCompare runs two tiny real crawls through Temporal and checks the
// report end to end. It needs the Temporal CLI (scripts/ensure-temporal.sh).
func TestSmokeCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	if _, err := temporalBin(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	sc := synth.DefaultConfig()
	sc.Hosts, sc.PagesPerHost = 4, 10
	c, err := SynthCorpus(dir, "synth", sc)
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
	h, err := Start(ctx, Options{Dir: filepath.Join(dir, "state"), Resolve: map[string]string{c.Resolve: strings.TrimPrefix(base, "http://")}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	runs, err := h.Compare(ctx, c, CompareOptions{Pages: 25, Predictors: []string{"bfs", "no-such-predictor"}, Filters: []string{"vsm"}})
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
	rep := &Report{Command: "test", Machine: Machine(), Date: time.Now(), Pages: 25, N: 20, Corpora: []CorpusResults{{Corpus: c, Runs: runs}}}
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
