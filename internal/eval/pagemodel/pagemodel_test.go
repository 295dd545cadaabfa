package pagemodel

import (
	"math"
	"testing"

	"focuscrawl/internal/parse"
	"focuscrawl/internal/topic"
)

// toyCrawl: page 0 (a hub, target) links to 1 and 2; 1 is a target, 2 and
// 3 are not. Two targets in all, plus one never fetched (Targets = 3).
func toyCrawl() *Crawl {
	return &Crawl{
		Model:   &topic.Model{Terms: map[string]float64{"blur": 1}},
		Targets: 3,
		Docs: []Doc{
			{URL: "http://s/0", Target: true, TF: map[string]int{"blur": 3, "menu": 1},
				Links: []parse.Link{{URL: "http://s/1"}, {URL: "http://s/2"}}},
			{URL: "http://s/1", Target: true, TF: map[string]int{"blur": 1, "radius": 2}},
			{URL: "http://s/2", TF: map[string]int{"menu": 2, "layer": 1}},
			{URL: "http://s/3", TF: map[string]int{"layer": 1}},
		},
	}
}

func TestEvaluateAndOracle(t *testing.T) {
	c := toyCrawl()
	scores := []float64{0.9, 0.4, 0.3, 0.1}
	// Threshold 0.35 accepts pages 0 and 1: both targets of 3.
	r := Evaluate(c, scores, fixed(0.35))
	if r.Accepted != 2 || r.P != 1 || math.Abs(r.R-2.0/3) > 1e-12 || math.Abs(r.F1-0.8) > 1e-12 {
		t.Errorf("fixed 0.35: %+v, want 2 accepted, P 1, R 2/3, F1 0.8", r)
	}
	// The best any threshold does is the same cut.
	if o := Oracle(c, scores); math.Abs(o.F1-0.8) > 1e-12 {
		t.Errorf("oracle %+v, want F1 0.8", o)
	}
	// Accepting everything: P 2/4, R 2/3.
	if r := Evaluate(c, scores, fixed(0)); math.Abs(r.F1-2*0.5*(2.0/3)/(0.5+2.0/3)) > 1e-12 {
		t.Errorf("accept all: %+v", r)
	}
}

func TestReplayInLinkEvidence(t *testing.T) {
	c := toyCrawl()
	var own, mixed []float64
	for _, s := range Scorers() {
		switch s.Name {
		case "vsm":
			own = Replay(c, s, nil)
		case "vsm+in":
			mixed = Replay(c, s, nil)
		}
	}
	if own == nil || mixed == nil {
		t.Fatal("vsm and vsm+in scorers must exist")
	}
	// Pages 0 and 3 have no earlier in-link: the mix leaves them alone.
	for _, i := range []int{0, 3} {
		if mixed[i] != own[i] {
			t.Errorf("page %d: mixed %v, own %v; want equal (no in-link)", i, mixed[i], own[i])
		}
	}
	// Page 2 scores 0 on its own but is linked from page 0: half its score.
	if want := 0.5 * mixed[0]; math.Abs(mixed[2]-want) > 1e-12 || own[2] != 0 {
		t.Errorf("page 2: own %v mixed %v, want 0 and %v", own[2], mixed[2], want)
	}
}
