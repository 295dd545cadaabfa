package searcheval

import (
	"math"
	"testing"

	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/index"
)

// TestMeasure checks P@10 and nDCG@10 on a hand-computed ranking: relevant
// pages at ranks 1 and 3 of 3 relevant pages.
func TestMeasure(t *testing.T) {
	rel := metrics.Labels{"a": {}, "c": {}, "z": {}}
	r := index.Result{Total: 4, Hits: []index.Hit{{URL: "a", Score: 2}, {URL: "b"}, {URL: "c"}, {URL: "d"}}}
	got := Measure(r, rel)
	dcg := 1 + 1/math.Log2(4)
	ideal := 1 + 1/math.Log2(3) + 1/math.Log2(4)
	if math.Abs(got.NDCG-dcg/ideal) > 1e-12 || math.Abs(got.PAtK-0.2) > 1e-12 || got.Matches != 4 || got.TopScore != 2 {
		t.Errorf("Measure = %+v; want nDCG %.4f, P@10 0.2, 4 matches, top score 2", got, dcg/ideal)
	}
	if got := Measure(index.Result{}, rel); got.NDCG != 0 || got.PAtK != 0 {
		t.Errorf("no hits: %+v; want zeros", got)
	}
}
