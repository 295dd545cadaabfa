package hostyield

import (
	"math"
	"testing"
)

func TestFactor(t *testing.T) {
	for _, c := range []struct {
		accepted, judged int
		want             float64
	}{
		{0, 0, 1},         // unseen: no opinion
		{0, 10, 2.0 / 12}, // only rejections: sinks
		{5, 10, 1},        // half relevant: untouched
		{1, 10, 4.0 / 12}, // mostly rejections
		{10, 10, 1},       // all relevant
		{0, 1, 2.0 / 3},   // one rejection is weak evidence
	} {
		if got := Factor(c.accepted, c.judged); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Factor(%d, %d) = %v, want %v", c.accepted, c.judged, got, c.want)
		}
	}
}

// TestFactorWithPrior: the prior rate stands in for 1/2 — the same
// formula at 1/2, an unseen host at 2r, and a host's own pages outweigh it.
func TestFactorWithPrior(t *testing.T) {
	for _, c := range []struct {
		accepted, judged int
		r, want          float64
	}{
		{0, 0, 0.5, 1},
		{0, 10, 0.5, 2.0 / 12},
		{0, 0, Rate(0, 2), 0.5},       // two outward rejections: an unseen host at 1/2
		{0, 0, Rate(0, 10), 2.0 / 12}, // ten: 1/6
		{3, 4, Rate(0, 10), 1},        // the host's own acceptances win
		{0, 0, Rate(5, 5), 1},         // leaving the site paid: no penalty
	} {
		if got := FactorWithPrior(c.accepted, c.judged, c.r); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("FactorWithPrior(%d, %d, %v) = %v, want %v", c.accepted, c.judged, c.r, got, c.want)
		}
	}
	for a := range 5 {
		for j := a; j < 12; j++ {
			if Factor(a, j) != FactorWithPrior(a, j, 0.5) {
				t.Fatalf("Factor(%d, %d) differs from FactorWithPrior at 1/2", a, j)
			}
		}
	}
}
