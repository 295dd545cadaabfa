package linkpred

import (
	"fmt"
	"strings"
	"testing"

	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/topic"
)

func lenv(lm *linkmodel.Model) Env {
	return Env{Model: &topic.Model{Terms: map[string]float64{"rose": 1, "garden": 0.8, "soil": 0.1}}, Terms: splitCounter{}, LinkModel: lm, Seed: 7}
}

func mustNew(t *testing.T, name string, params map[string]any, e Env) Predictor {
	t.Helper()
	p, err := New(topic.Spec{Name: name, Params: params}, e)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type fakeLex map[string]float64

func (f fakeLex) Relatedness(w string, _ []string) float64 { return f[w] }

func TestRWAndRWB(t *testing.T) {
	par := Parent{URL: "http://h/", Hash: "p", Relevance: 0.2, Terms: map[string]int{"football": 3}}
	onTopic := Link{URL: "http://h/a", Anchor: "rose care"}
	off := Link{URL: "http://h/b", Anchor: "football news"}
	rw := mustNew(t, "rw", nil, lenv(nil))
	if got := rw.Score(par, onTopic); got != 1 {
		t.Errorf("rw(on topic) = %v, want 1", got)
	}
	if got := rw.Score(par, off); got != Discard {
		t.Errorf("rw(off topic) = %v, want discard", got)
	}
	// Lexicon relatedness: "flower" is a near-synonym at 0.6 ≥ c = 0.5.
	e := lenv(nil)
	e.Lexicon = fakeLex{"rose": 1, "flower": 0.6}
	if got := mustNew(t, "rw", nil, e).Score(par, Link{URL: "http://h/f", Anchor: "flower"}); got != 0.6 {
		t.Errorf("rw with lexicon = %v, want 0.6", got)
	}
	// RWB with d = 0 always boosts: the parent has no topic word, so the
	// link's score is p2 ~ U(0,1), kept only if p2 ≥ c (seed 000) — never a
	// kept score below c. Reproducible for a fixed seed, different for another.
	rwb := mustNew(t, "rwb", map[string]any{"d": 0.0}, lenv(nil))
	e2 := lenv(nil)
	e2.Seed = 8
	rwb8 := mustNew(t, "rwb", map[string]any{"d": 0.0}, e2)
	kept, dropped, differ := 0, 0, 0
	for i := range 200 {
		l := Link{URL: fmt.Sprintf("http://h/b%d", i), Anchor: "football news"}
		s1 := rwb.Score(par, l)
		if s2 := rwb.Score(par, l); s1 != s2 {
			t.Fatalf("%s: scores %v, %v for the same link", l.URL, s1, s2)
		}
		p2 := uniform(7, par.Hash+par.URL, l.URL, 2)
		switch {
		case s1 == Discard && p2 < 0.5:
			dropped++
		case s1 == p2 && p2 >= 0.5:
			kept++
		default:
			t.Fatalf("%s: score %v with p2 = %v, want p2 if p2 ≥ c = 0.5 else discard", l.URL, s1, p2)
		}
		if rwb8.Score(par, l) != s1 {
			differ++
		}
	}
	if kept == 0 || dropped == 0 || differ == 0 {
		t.Errorf("kept %d, dropped %d, differing under another seed %d: want all > 0", kept, dropped, differ)
	}
	// Parent with a topic word: the parent's best relatedness R = 1.
	par2 := par
	par2.Terms = map[string]int{"rose": 1}
	if got := rwb.Score(par2, off); got != 1 {
		t.Errorf("rwb parent boost = %v, want 1", got)
	}
	// d = 1 never boosts: rwb behaves as rw.
	if got := mustNew(t, "rwb", map[string]any{"d": 1.0}, lenv(nil)).Score(par, off); got != Discard {
		t.Errorf("rwb d=1 = %v, want discard", got)
	}
}

func TestAnchorContext(t *testing.T) {
	lm := &linkmodel.Model{Layers: &linkmodel.Layers{Sets: []map[string]int{{"friends": 2, "links": 2}, {"football": 1}}}}
	ac := mustNew(t, "anchor-context", nil, lenv(lm))
	cases := []struct {
		name string
		l    Link
		want float64
	}{
		{"two topic words", Link{Anchor: "rose garden"}, 0.5 + 0.5*0.5},
		{"context counts", Link{Anchor: "rose", Context: "in the garden rose"}, 0.5 + 0.5*0.75},
		{"one word only", Link{Anchor: "rose"}, Discard},
		{"layer 1", Link{Anchor: "friends links"}, 0.4},
		{"layer 2", Link{Anchor: "football football"}, 0.2},
		{"nothing", Link{Anchor: "weather"}, Discard},
	}
	for _, c := range cases {
		if got := ac.Score(Parent{}, c.l); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// Without a learned model, layers never match.
	if got := mustNew(t, "anchor-context", nil, lenv(nil)).Score(Parent{}, Link{Anchor: "friends links"}); got != Discard {
		t.Errorf("unlearned layers = %v", got)
	}
}

func TestJLSEPageNormalised(t *testing.T) {
	j := mustNew(t, "jlse", nil, lenv(nil)).(*JLSE)
	links := []Link{{URL: "http://h/rose", Anchor: "rose garden"}, {URL: "http://h/x", Anchor: "weather"}}
	out := j.ScorePage(Parent{Relevance: 0.8}, links)
	if out[0] <= out[1] || out[0]+out[1] < 0.8-1e-9 || out[0]+out[1] > 0.8+1e-9 {
		t.Fatalf("priorities %v: want on-topic first, summing to the parent's relevance 0.8", out)
	}
	raw := mustNew(t, "jlse", map[string]any{"normalize": 0}, lenv(nil)).(*JLSE).ScorePage(Parent{Relevance: 1}, links)
	if raw[0] != j.Sim(links[0]) {
		t.Fatalf("normalize 0: %v vs sim %v", raw[0], j.Sim(links[0]))
	}
}

func TestLearnedPredictorsUseModel(t *testing.T) {
	data := linkmodel.TrainingData{
		Pages: []linkmodel.PageInfo{
			{Hash: "s", URL: "http://h/", Accepted: true, AnchorPath: ""},
			{Hash: "x", URL: "http://h/x", Parent: "s", Rejected: true, AnchorPath: "friends links"},
			{Hash: "b", URL: "http://h/b", Parent: "x", Accepted: true, AnchorPath: "friends links > rose"},
			{Hash: "z", URL: "http://h/z", Parent: "s", Rejected: true, AnchorPath: "weather"},
		},
		Links: []linkmodel.LinkInfo{{Src: "s", Dst: "x", Anchor: "friends links"}, {Src: "x", Dst: "b", Anchor: "rose"}, {Src: "s", Dst: "z", Anchor: "weather"}},
	}
	lm := linkmodel.Learn(data, splitCounter{})
	j := mustNew(t, "jlse", nil, lenv(lm)).(*JLSE)
	if tunnel, other := j.Sim(Link{URL: "http://h/y", Anchor: "friends links"}), j.Sim(Link{URL: "http://h/w", Anchor: "weather"}); tunnel <= other {
		t.Errorf("jlse: tunnel-like link %v not above %v", tunnel, other)
	}
	b := mustNew(t, "bfc", map[string]any{"learn": true}, lenv(lm))
	if good, bad := b.Score(Parent{AnchorPath: "friends links"}, Link{Anchor: "rose"}), b.Score(Parent{}, Link{Anchor: "weather"}); good <= bad {
		t.Errorf("bfc: %v not above %v", good, bad)
	}
	// Without learn: true (the default) BFC ignores the model: the same
	// score as with no model at all (the anchor-path cosine).
	cold, none := mustNew(t, "bfc", nil, lenv(lm)), mustNew(t, "bfc", nil, lenv(nil))
	for _, l := range []Link{{Anchor: "rose"}, {Anchor: "friends links"}, {Anchor: "weather"}} {
		if a, b := cold.Score(Parent{AnchorPath: "friends links"}, l), none.Score(Parent{AnchorPath: "friends links"}, l); a != b {
			t.Errorf("bfc without learn: %q scores %v with a model, %v without", l.Anchor, a, b)
		}
	}
	ip := mustNew(t, "ipagerank", map[string]any{"lambda": 0.5}, Env{Model: lenv(nil).Model, Terms: splitCounter{},
		Ranks: &linkmodel.Ranks{Scores: map[string]float64{"p": 0.6}}})
	if got := ip.Score(Parent{Hash: "p", Relevance: 0.1}, Link{Anchor: "rose"}); got != 0.5*1+0.5*0.6 {
		t.Errorf("ipagerank = %v, want 0.8", got)
	}
	// The link's own part, for the crawl graph, is its RWB score alone;
	// RWB's discard counts as 0 there too (with d = 1 RWB never boosts, so
	// "weather" is discarded).
	ipo := ip.(OwnScorer)
	if prio, own := ipo.ScoreOwn(Parent{Hash: "p", Relevance: 0.1}, Link{Anchor: "rose"}); prio != 0.8 || own != 1 {
		t.Errorf("ipagerank ScoreOwn = %v, %v; want 0.8, 1", prio, own)
	}
	noBoost := mustNew(t, "ipagerank", map[string]any{"lambda": 0.5, "d": 1.0}, Env{Model: lenv(nil).Model, Terms: splitCounter{}})
	if prio, own := noBoost.(OwnScorer).ScoreOwn(Parent{Hash: "p", Relevance: 0.4}, Link{Anchor: "weather"}); own != 0 || prio != 0.5*0.4 {
		t.Errorf("ipagerank ScoreOwn of a discarded link = %v, %v; want 0.2, 0", prio, own)
	}
}

// Only ipagerank mixes its parent's score into a link's priority, so only
// its crawl-graph edges keep a score other than the priority (OwnScorer).
func TestOwnScorers(t *testing.T) {
	for _, name := range Names() {
		p, err := New(topic.Spec{Name: name}, lenv(nil))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := p.(OwnScorer); ok != (name == "ipagerank") {
			t.Errorf("%s implements OwnScorer: %v", name, ok)
		}
	}
}

func TestNewPredictorsRejectBadParams(t *testing.T) {
	for _, spec := range []topic.Spec{
		{Name: "rw", Params: map[string]any{"c": 2.0}},
		{Name: "rw", Params: map[string]any{"d": 0.5}},
		{Name: "rwb", Params: map[string]any{"d": -1.0}},
		{Name: "anchor-context", Params: map[string]any{"alpha": 0.0}},
		{Name: "jlse", Params: map[string]any{"normalize": 2}},
		{Name: "bfc", Params: map[string]any{"x": 1}},
		{Name: "bfc", Params: map[string]any{"learn": "yes"}},
		{Name: "ipagerank", Params: map[string]any{"lambda": "a"}},
	} {
		if err := Check(spec); err == nil {
			t.Errorf("%s %v accepted", spec.Name, spec.Params)
		}
	}
}

// JLSE's context attribute is the link's DOM context (seed 002, δ = 5), and
// the ±30-byte Context only when DOMContext is empty (old records).
func TestJLSEUsesDOMContext(t *testing.T) {
	data := linkmodel.TrainingData{
		Pages: []linkmodel.PageInfo{
			{Hash: "s", URL: "http://h/", Accepted: true},
			{Hash: "x", URL: "http://h/x", Parent: "s", Rejected: true},
			{Hash: "b", URL: "http://h/b", Parent: "x", Accepted: true},
			{Hash: "z", URL: "http://h/z", Parent: "s", Rejected: true},
		},
		Links: []linkmodel.LinkInfo{{Src: "s", Dst: "x", Anchor: "weather", Context: "near"},
			{Src: "x", Dst: "b", Anchor: "rose"}, {Src: "s", Dst: "z", Anchor: "weather"}},
		DOMContext: func(src, dst string) string {
			if src == "s" && dst == "x" {
				return "partner directory"
			}
			return ""
		},
	}
	j := mustNew(t, "jlse", nil, lenv(linkmodel.Learn(data, splitCounter{}))).(*JLSE)
	dom := j.Sim(Link{URL: "http://h/q", Anchor: "weather", Context: "other", DOMContext: "partner directory"})
	ctxOnly := j.Sim(Link{URL: "http://h/q", Anchor: "weather", Context: "partner directory", DOMContext: "other"})
	old := j.Sim(Link{URL: "http://h/q", Anchor: "weather", Context: "partner directory"})
	if dom <= ctxOnly {
		t.Errorf("sim with matching DOMContext %v not above matching Context only %v", dom, ctxOnly)
	}
	if old != dom {
		t.Errorf("empty DOMContext: sim %v, want the Context fallback to match like DOMContext (%v)", old, dom)
	}
}

// splitCounter counts whitespace-separated lower-cased words: a tokenizer
// for tests whose expected values are worked out by hand.
type splitCounter struct{}

func (splitCounter) TermFreq(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(s)) {
		m[w]++
	}
	return m
}
