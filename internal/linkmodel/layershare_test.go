package linkmodel

import "testing"

// TestLayerShareCountsLinks: the lift test compares a word's share of a
// layer's links with its share of all crawl links (docs/algorithms.md
// "anchor-context"). A predecessor page no link led to — a seed — is no
// layer link; counted in the denominator it halved "gallery"'s share
// here (1/2 against 2 × 1/3 of all links) and the one word of the one
// link that leads to the hub of target pages was dropped as navigation.
func TestLayerShareCountsLinks(t *testing.T) {
	d := TrainingData{
		Pages: []PageInfo{
			{Hash: "s", URL: "http://x.org/"},
			{Hash: "t1", URL: "http://x.org/t1", Parent: "s", Accepted: true, Target: true},
			{Hash: "h", URL: "http://x.org/h", Parent: "s", Rejected: true},
			{Hash: "t2", URL: "http://x.org/t2", Parent: "h", Accepted: true, Target: true},
		},
		Links: []LinkInfo{
			{Src: "s", Dst: "t1", Anchor: "alpha"},
			{Src: "s", Dst: "h", Anchor: "gallery"},
			{Src: "h", Dst: "t2", Anchor: "beta"},
		},
	}
	m := Learn(d, words{})
	if m.Layers.Sets[0]["gallery"] == 0 {
		t.Fatalf("layer 1 = %v: the link into the hub of t2 lost its word", m.Layers.Sets[0])
	}
}
