package relevance

import (
	"math/rand/v2"
	"testing"
)

// TestSampleFloorReadBackDecidesAlike: the crawl's re-judgement reads the
// sample floor back from a page's reason (SampleFloorOf) to decide as the
// online judgement did. Written with four decimals, a floor of 0.03126
// read back as 0.0313 (a page accepted online at 0.03128 was withdrawn)
// and 0.03124 as 0.0312 (a page turned down at 0.03122 could be promoted).
func TestSampleFloorReadBackDecidesAlike(t *testing.T) {
	for _, c := range []struct{ floor, score float64 }{
		{0.03126, 0.03128}, // accepted online
		{0.03124, 0.03122}, // turned down online
	} {
		d := NewScoreDist()
		v, _ := d.Judge(Verdict{Score: c.score, Relevant: true, Reason: "cosine"}, "p", nil, max(0.02, c.floor))
		f, ok := SampleFloorOf(v.Reason + SampleFloorNote(c.floor))
		if !ok {
			t.Fatalf("no floor in %q", v.Reason+SampleFloorNote(c.floor))
		}
		if again, _ := d.Accepts(v.Score, max(0.02, f)); again != v.Relevant {
			t.Errorf("floor %v read back as %v: page %v online %v, re-judged %v", c.floor, f, c.score, v.Relevant, again)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10_000 {
		floor := rng.Float64() * 0.2
		if f, ok := SampleFloorOf("cosine 0.1" + SampleFloorNote(floor) + "; more"); !ok || f != floor {
			t.Fatalf("floor %v read back as %v, %v", floor, f, ok)
		}
	}
}
