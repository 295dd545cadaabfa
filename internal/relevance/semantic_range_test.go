package relevance

import "testing"

// TestSemanticScoreAtMostOne: a page that names every feature alike has a
// page vector parallel to the topic's, and its cosine rounded to
// 1.0000000000000002 — above the [0,1] a Verdict's score is documented in.
func TestSemanticScoreAtMostOne(t *testing.T) {
	f := NewSemantic(map[string]float64{"a": 2.6, "b": 4.1}, nil, fields{}, 0.3, 0)
	if v := f.Judge(&Page{TF: map[string]int{"a": 1, "b": 1}}); v.Score > 1 {
		t.Fatalf("score %v, above 1", v.Score)
	}
}
