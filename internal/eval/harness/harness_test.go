package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
