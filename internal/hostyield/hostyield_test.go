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
