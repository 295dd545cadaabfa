package relevance

import (
	"math"
	"testing"
)

func TestMixInLinks(t *testing.T) {
	if got := MixInLinks(0.2, nil); got != 0.2 {
		t.Errorf("no sources: got %v, want the own score 0.2", got)
	}
	// 0.5·0.2 + 0.5·mean(0.1, 0.3) = 0.1 + 0.1
	if got := MixInLinks(0.2, []float64{0.1, 0.3}); math.Abs(got-0.2) > 1e-12 {
		t.Errorf("got %v, want 0.2", got)
	}
	if got := MixInLinks(0, []float64{0.4}); math.Abs(got-0.2) > 1e-12 {
		t.Errorf("got %v, want 0.2", got)
	}
}

func TestSplitThresholdSeparatesTwoGroups(t *testing.T) {
	// Two groups a decade apart in log space; zeros (off-site pages) are
	// left out of the split.
	scores := []float64{0, 0, 0, 0.01, 0.012, 0.011, 0.1, 0.12, 0.11}
	th := SplitThreshold(scores)
	if th <= 0.012 || th > 0.1 {
		t.Fatalf("split %v does not separate {0.010..0.012} from {0.10..0.12}", th)
	}
	// The split is the lowest score of the upper group.
	if th != 0.1 {
		t.Errorf("split %v, want 0.1 (the upper group's lowest score)", th)
	}
	if got := SplitThreshold([]float64{0, 0.3}); got != 0 {
		t.Errorf("one qualifying score: got %v, want 0", got)
	}
	if got := SplitThreshold([]float64{0.2, 0.2, 0.2}); got != 0 {
		t.Errorf("one distinct score: got %v, want 0", got)
	}
	// One group (an all-on-topic crawl, the e2e tests' garden site): Otsu
	// would cut it in two; the groups are less than splitMinRatio apart, so
	// no split.
	if got := SplitThreshold([]float64{0.413, 0.385, 0.369, 0.338, 0.3}); got != 0 {
		t.Errorf("one group: got %v, want 0 (no split)", got)
	}
}

func TestCrawlScoresJudge(t *testing.T) {
	cs := NewCrawlScores(map[string]float64{"a": 0.3, "b": 0.32, "c": 0.03, "d": 0.031})
	// A page linked from the two high pages, own score 0.1: mixed
	// 0.5·0.1 + 0.5·0.31 = 0.205, above the split between ~0.03 and ~0.3.
	v, expand := cs.Judge(Verdict{Score: 0.1, Relevant: true, Reason: "cosine"}, "e", []string{"a", "b", "unjudged"}, 0.02)
	if !v.Relevant || expand || math.Abs(v.Score-0.205) > 1e-12 {
		t.Errorf("linked from the high group: got %+v expand %v, want accepted with score 0.205", v, expand)
	}
	// A page linked only from the low group, own score 0.05 (above the
	// filter's 0.02): mixed 0.0405, below the split, but still expanded.
	v, expand = cs.Judge(Verdict{Score: 0.05, Relevant: true}, "f", []string{"c", "d"}, 0.02)
	if v.Relevant || !expand {
		t.Errorf("linked from the low group: got %+v expand %v, want not accepted but expanded", v, expand)
	}
	// Below the filter's own threshold: neither accepted nor expanded here
	// (the loop policy's tunnel draw decides).
	v, expand = cs.Judge(Verdict{Score: 0.001}, "g", nil, 0.02)
	if v.Relevant || expand {
		t.Errorf("below base: got %+v expand %v", v, expand)
	}
	// Judged pages are recorded with their mixed score.
	if got := cs.byHash["e"]; math.Abs(got-0.205) > 1e-12 {
		t.Errorf("recorded %v for e, want 0.205", got)
	}
	// The base threshold is a floor under the split.
	cs2 := NewCrawlScores(map[string]float64{"a": 0.01, "b": 0.011})
	if v, _ := cs2.Judge(Verdict{Score: 0.015, Relevant: false}, "x", nil, 0.02); v.Relevant {
		t.Errorf("below the base threshold 0.02 but accepted: %+v", v)
	}
}
