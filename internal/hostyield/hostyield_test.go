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

func TestTableKeepsTopicsAndHostsApart(t *testing.T) {
	var tab Table
	for range 10 {
		tab.Record("roses", "spam.test", false)
	}
	tab.Record("roses", "garden.test", true)
	if got := tab.Factor("roses", "spam.test"); got >= 0.2 {
		t.Errorf("a host with ten rejections has factor %v, want < 0.2", got)
	}
	if got := tab.Factor("roses", "garden.test"); got != 1 {
		t.Errorf("a host with an accepted page has factor %v, want 1", got)
	}
	if got := tab.Factor("tulips", "spam.test"); got != 1 {
		t.Errorf("another topic's view of the host: factor %v, want 1", got)
	}
}
