package searcheval

import (
	"math"
	"slices"
	"testing"

	"focuscrawl/internal/eval/focus"
	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/index"
	"focuscrawl/internal/topic"
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

// TestQueriesKeywordsAndPairs: each keyword alone, then each two of them,
// in keyword order, all with the topic's targets and samples as relevant.
func TestQueriesKeywordsAndPairs(t *testing.T) {
	c := &focus.Corpus{Topics: []*focus.Topic{{
		Name:    "t",
		Topic:   &topic.Topic{Keywords: map[string]float64{"c": 1, "a": 0.5, "b": 0.2}},
		Labels:  metrics.Labels{"u1": {}},
		Neutral: metrics.Labels{"u2": {}},
	}}}
	var got []string
	for _, q := range Queries(c) {
		got = append(got, q.Set+":"+q.Text)
		if len(q.Relevant) != 2 || q.Topic != "t" {
			t.Errorf("%q: topic %q, relevant %v; want t, u1 and u2", q.Text, q.Topic, q.Relevant)
		}
	}
	want := []string{"keyword:a", "keyword:b", "keyword:c", "keyword pair:a b", "keyword pair:a c", "keyword pair:b c"}
	if !slices.Equal(got, want) {
		t.Errorf("Queries = %q, want %q", got, want)
	}
}
