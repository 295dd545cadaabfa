package linkpred

import (
	"testing"

	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
)

func env(t *testing.T) Env {
	t.Helper()
	tp, err := topic.Parse([]byte("name: ml\nkeywords: {neural network: 1, 机器学习: 1, training: 0.8}\nseeds: [http://x/]"))
	if err != nil {
		t.Fatal(err)
	}
	return Env{Model: topic.BuildModel(tp, 1, textproc.Shared(), nil), Terms: textproc.Shared()}
}

func TestBestFirstPrefersTopicalLinks(t *testing.T) {
	p, err := New(topic.Spec{Name: "best-first"}, env(t))
	if err != nil {
		t.Fatal(err)
	}
	parent := Parent{Relevance: 0.5}
	good := p.Score(parent, Link{URL: "http://x/ml/neural-network.html", Anchor: "Training a neural network"})
	zh := p.Score(parent, Link{URL: "http://x/a.html", Anchor: "机器学习入门"})
	bad := p.Score(parent, Link{URL: "http://x/sport/football.html", Anchor: "Football results"})
	if good <= bad || zh <= bad {
		t.Fatalf("topical links %v / %v should beat %v", good, zh, bad)
	}
	// λ = 0.5 and a link with no topical text: the score is half the parent's relevance.
	if want := 0.25; bad != want {
		t.Fatalf("off-topic link score = %v, want %v", bad, want)
	}
	// A more relevant parent raises the same link.
	if p.Score(Parent{Relevance: 0.9}, Link{Anchor: "Football"}) <= bad {
		t.Fatal("parent relevance not used")
	}
}

func TestBaselinesAndRegistry(t *testing.T) {
	b, _ := New(topic.Spec{Name: "bfs"}, Env{})
	if b.Score(Parent{Relevance: 1}, Link{Anchor: "neural network"}) != 0 {
		t.Fatal("bfs must give every link the same priority")
	}
	pp, _ := New(topic.Spec{Name: "parent"}, Env{})
	if pp.Score(Parent{Relevance: 0.7}, Link{}) != 0.7 {
		t.Fatal("parent predictor must inherit the parent's relevance")
	}
	if err := Check(topic.Spec{Name: "best-first", Params: map[string]any{"lambda": 1.5}}); err == nil {
		t.Fatal("lambda 1.5 accepted")
	}
	if err := Check(topic.Spec{Name: "bfs", Params: map[string]any{"x": 1}}); err == nil {
		t.Fatal("bfs accepted an unknown parameter")
	}
	if err := Check(topic.Spec{Name: "magic"}); err == nil {
		t.Fatal("unknown predictor accepted")
	}
}

// Only the predictors that read the learned link model make the crawl
// run LearnLinkModel.
func TestReadsLinkModel(t *testing.T) {
	for name, want := range map[string]bool{
		"jlse": true, "bfc": false, "anchor-context": true, // bfc learns only with learn: true
		"best-first": false, "bfs": false, "parent": false, "rw": false, "rwb": false, "ipagerank": false,
	} {
		s, err := Decode(topic.Spec{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if got := ReadsLinkModel(s); got != want {
			t.Errorf("ReadsLinkModel(%s) = %v, want %v", name, got, want)
		}
	}
	if s, err := Decode(topic.Spec{Name: "bfc", Params: map[string]any{"learn": true}}); err != nil || !ReadsLinkModel(s) {
		t.Error("bfc with learn: true must read the link model")
	}
}

// BestLinkText is the best link-text cosine among a page's links: a page
// with one topical link scores that link's cosine, one without any, 0.
func TestBestLinkText(t *testing.T) {
	env := env(t)
	bf := mustNew(t, "best-first", nil, env).(*BestFirst)
	rose := Link{URL: "http://h/a", Anchor: "Training a neural network"}
	weather := Link{URL: "http://h/b", Anchor: "Football results"}
	if got := BestLinkText(env.Model, env.IDF, env.Terms, []Link{weather}); got != 0 {
		t.Errorf("no topical link: %v, want 0", got)
	}
	got := BestLinkText(env.Model, env.IDF, env.Terms, []Link{weather, rose})
	if want := bf.TextSimilarity(rose); got != want || got <= 0 {
		t.Errorf("BestLinkText = %v, want the rose link's cosine %v > 0", got, want)
	}
}
