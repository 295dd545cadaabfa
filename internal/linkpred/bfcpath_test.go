package linkpred

import (
	"testing"

	"focuscrawl/internal/linkmodel"
)

// TestBFCScoresTheStoredPath: the discriminator learns from the anchor
// paths pages are stored with (ExtendAnchorPath: a '>' in an anchor is no
// step separator, an anchor keeps 40 runes, a path its last 8 steps), so a
// link must be scored on the path its page will have. Joining the raw
// anchor made "Chapter 2 > Roses" two steps at scoring time — "chapter"
// read as the parent's anchor ("1:chapter") — and one when learned from.
func TestBFCScoresTheStoredPath(t *testing.T) {
	disc := &linkmodel.BFC{W: map[string]float64{"1:chapter": -10}, Samples: 2, Pos: 1}
	b := &BFC{disc: disc, tc: splitCounter{}, learn: true}
	par := Parent{AnchorPath: "home"}
	for _, anchor := range []string{"Chapter 2 > Roses", "Chapter 2>Roses"} {
		stored := ExtendAnchorPath(par.AnchorPath, anchor)
		want := disc.Score(linkmodel.PathFeatures(stored, splitCounter{}))
		if got := b.Score(par, Link{Anchor: anchor}); got != want {
			t.Errorf("anchor %q: scored %v, the stored path %q scores %v", anchor, got, stored, want)
		}
	}
	long := "a > b > c > d > e > f > g > h"
	if got := ExtendAnchorPath(long, "i"); got != "b > c > d > e > f > g > h > i" {
		t.Errorf("ExtendAnchorPath kept %q", got)
	}
}
