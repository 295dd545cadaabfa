package linkmodel

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

type words struct{}

func (words) TermFreq(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(s)) {
		m[w]++
	}
	return m
}

func TestBM25HandComputed(t *testing.T) {
	// Corpus: d0 = "rose rose garden" (3 terms), d1 = "football match" (2);
	// N = 2, avgdl = 2.5, k1 = 2, b = 0.75.
	// idf(rose) = ln(1 + (2−1+0.5)/(1+0.5)) = ln 2 = 0.693147.
	// d0, tf 2: norm = 2·(0.25 + 0.75·3/2.5) = 2.3;
	// score = 0.693147 · 2·3 / (2 + 2.3) = 0.967182.
	// Adding "garden" (tf 1): 0.693147 · 1·3 / (1 + 2.3) = 0.630134.
	x := NewBM25([]map[string]int{{"rose": 2, "garden": 1}, {"football": 1, "match": 1}}, 2, 0.75)
	cases := []struct {
		q    []string
		doc  int
		want float64
	}{
		{[]string{"rose"}, 0, 0.967182},
		{[]string{"rose", "garden"}, 0, 0.967182 + 0.630134},
		{[]string{"rose", "rose"}, 0, 0.967182}, // query terms count once
		{[]string{"rose"}, 1, 0},
		{[]string{"unknown"}, 0, 0},
	}
	for _, c := range cases {
		if got := x.Score(c.q, c.doc); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("BM25(%v, d%d) = %.6f, want %.6f", c.q, c.doc, got, c.want)
		}
	}
}

func TestNaiveBayesLaplace(t *testing.T) {
	nb := NewNaiveBayes()
	nb.Add(map[string]int{"rose": 1}, true)
	nb.Add(map[string]int{"football": 1}, false)
	// V = 2, each class has 1 term: P(rose|pos) = 2/3, P(rose|neg) = 1/3,
	// equal priors → P(pos|rose) = (2/3)/(2/3+1/3) = 2/3.
	if got := nb.Posterior(map[string]int{"rose": 1}); math.Abs(got-2.0/3) > 1e-12 {
		t.Fatalf("posterior = %v, want 2/3", got)
	}
	if got := nb.Posterior(map[string]int{"football": 1}); math.Abs(got-1.0/3) > 1e-12 {
		t.Fatalf("posterior = %v, want 1/3", got)
	}
}

// crawl: seed s (rejected hub) → a (accepted), s → x (rejected) → y
// (rejected) → b (accepted); s → z (rejected, dead end).
func sampleData() TrainingData {
	return TrainingData{
		Pages: []PageInfo{
			{Hash: "s", URL: "http://h/", Rejected: true},
			{Hash: "a", URL: "http://h/rose/a", Parent: "s", Accepted: true, AnchorPath: "rose care"},
			{Hash: "x", URL: "http://h/sport/x", Parent: "s", Rejected: true, AnchorPath: "football news"},
			{Hash: "z", URL: "http://h/sport/z", Parent: "s", Rejected: true, AnchorPath: "match report"},
			{Hash: "y", URL: "http://h/links/y", Parent: "x", Rejected: true, AnchorPath: "football news > friends links"},
			{Hash: "b", URL: "http://h/rose/b", Parent: "y", Accepted: true, AnchorPath: "football news > friends links > rose pruning"},
		},
		Links: []LinkInfo{
			{Src: "s", Dst: "a", Anchor: "rose care", Context: "see rose care here"},
			{Src: "s", Dst: "x", Anchor: "football news", Context: "see football news here"},
			{Src: "s", Dst: "z", Anchor: "match report", Context: "match report today"},
			{Src: "x", Dst: "y", Anchor: "friends links", Context: "our friends links"},
			{Src: "y", Dst: "b", Anchor: "rose pruning", Context: "rose pruning guide"},
			{Src: "a", Dst: "s", Anchor: "home", Context: "home"},
		},
	}
}

func TestLearnBuildsGWAndQValues(t *testing.T) {
	m := Learn(sampleData(), words{})
	if m.Results != 2 {
		t.Fatalf("results = %d", m.Results)
	}
	val := map[string]float64{}
	for _, v := range m.JLSE.Vertices {
		val[v.Hash] = v.Value
	}
	// G_W = {a, s, b, y, x}; z is on no result chain. Leaves a, b: value 1;
	// Q(y) = 1 (y → b) so a link into y is worth 0.9; Q(x) = 0.9 → 0.81;
	// Q(s) = 1 (s → a) → 0.9.
	want := map[string]float64{"a": 1, "b": 1, "y": 0.9, "x": 0.81, "s": 0.9}
	if len(val) != len(want) {
		t.Fatalf("G_W vertices = %v", val)
	}
	for h, w := range want {
		if math.Abs(val[h]-w) > 1e-12 {
			t.Errorf("value(%s) = %v, want %v", h, val[h], w)
		}
	}
	// A new link like the tunnel's "friends links" maps to y.
	w := [3]float64{DefaultAnchorWeight, DefaultURLWeight, DefaultContextWeight}
	i, s := m.JLSE.Match(LinkDoc{Anchor: []string{"friends", "links"}}, w)
	if i < 0 || m.JLSE.Vertices[i].Hash != "y" || s <= 0 {
		t.Fatalf("match = %d (%v)", i, s)
	}
	if p := m.JLSE.Predicted(LinkDoc{Anchor: []string{"friends", "links"}}, w, DefaultBM25Scale); p <= 0 || p > 0.9 {
		t.Fatalf("predicted = %v, want in (0, 0.9]", p)
	}
	// NB: "rose" anchors led to results, "football"/"match" did not.
	if sim, ok := m.JLSE.AnchorSim(map[string]int{"rose": 1}); !ok || sim < 0.5 {
		t.Errorf("sim_anchor(rose) = %v %v", sim, ok)
	}
	if sim, _ := m.JLSE.AnchorSim(map[string]int{"match": 1}); sim != NegativeAnchorSim {
		t.Errorf("sim_anchor(match) = %v, want %v", sim, NegativeAnchorSim)
	}
}

func TestLearnLayersAndBFC(t *testing.T) {
	m := Learn(sampleData(), words{})
	// b's rejected predecessors: y (layer 1, reached by "friends links") and
	// x (layer 2, "football news"); a's parent s is a seed with no in-link.
	if m.Layers.Sets[0]["friends"] == 0 || m.Layers.Sets[1]["football"] == 0 {
		t.Fatalf("layers = %v", m.Layers.Sets)
	}
	if m.Layers.Sets[0]["football"] != 0 {
		t.Fatalf("layer 1 should not hold layer-2 words: %v", m.Layers.Sets[0])
	}
	if !m.BFC.Trained() {
		t.Fatal("BFC not trained")
	}
	pos := m.BFC.Score(PathFeatures("football news > friends links > rose pruning", words{}))
	neg := m.BFC.Score(PathFeatures("match report", words{}))
	if pos <= neg {
		t.Fatalf("BFC: result path %v not above off-topic path %v", pos, neg)
	}
	// Round trip through the store encoding keeps the model usable.
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	w := [3]float64{DefaultAnchorWeight, DefaultURLWeight, DefaultContextWeight}
	d := LinkDoc{Anchor: []string{"friends", "links"}}
	if a, b := m.JLSE.Predicted(d, w, 3), m2.JLSE.Predicted(d, w, 3); a != b {
		t.Fatalf("decoded model predicts %v, original %v", b, a)
	}
}

func TestLearnIsDeterministic(t *testing.T) {
	a, _ := Learn(sampleData(), words{}).Encode()
	b, _ := Learn(sampleData(), words{}).Encode()
	if string(a) != string(b) {
		t.Fatal("two learning runs over the same data differ")
	}
}

// JLSE's context attribute is the link's DOM context when the caller has
// one, else its ±30-byte Context; the layers keep Context.
func TestLearnUsesDOMContext(t *testing.T) {
	d := sampleData()
	var asked []string
	d.DOMContext = func(src, dst string) string {
		asked = append(asked, src+">"+dst)
		if src == "x" && dst == "y" {
			return "partner sites directory"
		}
		return "" // unknown: fall back to Context
	}
	m := Learn(d, words{})
	ctx := map[string]map[string]int{}
	for _, v := range m.JLSE.Vertices {
		ctx[v.Hash] = v.Context
	}
	if ctx["y"]["directory"] != 1 || ctx["y"]["our"] != 0 {
		t.Errorf("context of y = %v, want the DOM context's words", ctx["y"])
	}
	if ctx["a"]["see"] != 1 {
		t.Errorf("context of a = %v, want the Context fallback", ctx["a"])
	}
	for _, q := range asked {
		if q == "s>z" { // z is not in G_W
			t.Errorf("DOMContext asked for %s, which is not an in-link of G_W", q)
		}
	}
	if m.Layers.Sets[0]["friends"] == 0 || m.Layers.Sets[0]["directory"] != 0 {
		t.Errorf("layers should keep Context: %v", m.Layers.Sets[0])
	}
	// Without DOM context the vertex keeps Context.
	if v := Learn(sampleData(), words{}); v.JLSE.Vertices[0].Context == nil {
		t.Errorf("no context without DOMContext")
	}
}

// hubData: seed s (rejected) → h, an accepted hub (relevant, not a target)
// → target pages t1, t2; s → r (rejected). Every link also carries the
// navigation word "next".
func hubData() TrainingData {
	return TrainingData{
		Pages: []PageInfo{
			{Hash: "s", URL: "http://h/", Rejected: true},
			{Hash: "h", URL: "http://h/roses/", Parent: "s", Accepted: true},
			{Hash: "r", URL: "http://h/sport/", Parent: "s", Rejected: true},
			{Hash: "t1", URL: "http://h/roses/tea.html", Parent: "h", Accepted: true, Target: true},
			{Hash: "t2", URL: "http://h/roses/climbing.html", Parent: "h", Accepted: true, Target: true},
		},
		Links: []LinkInfo{
			{Src: "s", Dst: "h", Anchor: "rose varieties", Context: "next"},
			{Src: "s", Dst: "r", Anchor: "football", Context: "next"},
			{Src: "h", Dst: "t1", Anchor: "tea rose", Context: "next"},
			{Src: "h", Dst: "t2", Anchor: "climbing rose", Context: "next"},
			{Src: "t1", Dst: "s", Anchor: "home", Context: "next"},
			{Src: "r", Dst: "s", Anchor: "home", Context: "next"},
		},
	}
}

// TestLearnTargetsAreLeavesHubsInterior: seed 002's G_W makes only result
// (target) pages leaves; the relevant hub on their parent chain is an
// interior vertex whose Q-value the mapping exploits.
func TestLearnTargetsAreLeavesHubsInterior(t *testing.T) {
	m := Learn(hubData(), words{})
	if m.Results != 2 || m.AcceptedAsResults {
		t.Fatalf("results = %d (accepted as results %v), want the 2 targets", m.Results, m.AcceptedAsResults)
	}
	type vq struct {
		leaf     bool
		q, value float64
	}
	want := map[string]vq{
		"t1": {true, 0, 1}, "t2": {true, 0, 1},
		"h": {false, 1, 0.9}, // h → t1: Q(h) = 1, a link into h is worth γ·1
		"s": {false, 0.9, 0.81},
	}
	got := map[string]vq{}
	for _, v := range m.JLSE.Vertices {
		got[v.Hash] = vq{v.Leaf, v.Q, v.Value}
	}
	if len(got) != len(want) {
		t.Fatalf("G_W vertices = %v, want %v", got, want)
	}
	for h, w := range want {
		g := got[h]
		if g.leaf != w.leaf || math.Abs(g.q-w.q) > 1e-12 || math.Abs(g.value-w.value) > 1e-12 {
			t.Errorf("%s: %+v, want %+v", h, g, w)
		}
	}
	// Layers learn from the targets' chains: h (the hub, layer 1) was reached
	// by "rose varieties"; the navigation word "next", on every link, is
	// filtered out.
	if m.Layers.Sets[0]["varieties"] == 0 || m.Layers.Sets[0]["next"] != 0 {
		t.Errorf("layer 1 = %v, want varieties and not next", m.Layers.Sets[0])
	}
}

// TestLearnFallsBackToAcceptedWithoutTargets: with no target page known,
// every accepted page is a result page (the behaviour before the split).
func TestLearnFallsBackToAcceptedWithoutTargets(t *testing.T) {
	d := hubData()
	for i := range d.Pages {
		d.Pages[i].Target = false
	}
	m := Learn(d, words{})
	if m.Results != 3 || !m.AcceptedAsResults {
		t.Fatalf("results = %d, accepted as results %v; want 3, true", m.Results, m.AcceptedAsResults)
	}
	for _, v := range m.JLSE.Vertices {
		if v.Hash == "h" && !v.Leaf {
			t.Error("h should be a leaf when accepted pages stand in for targets")
		}
	}
}

// TestLearnReproducesSeed002Example: seed 002's worked example (10 vertices,
// leaves {3, 6, 10}, γ = 0.9) built as a crawl whose target pages are 3, 6
// and 10 gives the paper's Q-values divided by its reward rd = 100.
func TestLearnReproducesSeed002Example(t *testing.T) {
	parent := map[int]int{2: 1, 4: 1, 3: 2, 5: 2, 6: 5, 7: 4, 8: 7, 9: 8, 10: 9}
	edges := [][2]int{{1, 2}, {1, 4}, {2, 3}, {2, 5}, {4, 5}, {4, 7}, {5, 6}, {7, 8}, {7, 9}, {8, 9}, {9, 10}}
	name := func(v int) string { return string(rune('a' + v)) }
	var d TrainingData
	for v := 1; v <= 10; v++ {
		p := PageInfo{Hash: name(v), URL: "http://h/" + name(v), Accepted: true, Target: v == 3 || v == 6 || v == 10}
		if v > 1 {
			p.Parent = name(parent[v])
		}
		d.Pages = append(d.Pages, p)
	}
	for _, e := range edges {
		d.Links = append(d.Links, LinkInfo{Src: name(e[0]), Dst: name(e[1]), Anchor: "x"})
	}
	m := Learn(d, words{})
	want := map[int]float64{1: 90, 2: 100, 4: 90, 5: 100, 7: 90, 8: 90, 9: 100, 3: 0, 6: 0, 10: 0}
	q := map[string]float64{}
	for _, v := range m.JLSE.Vertices {
		q[v.Hash] = v.Q
	}
	if len(q) != 10 || m.JLSE.Edges != 11 {
		t.Fatalf("G_W has %d vertices, %d edges; want 10, 11", len(q), m.JLSE.Edges)
	}
	for v, w := range want {
		if math.Abs(q[name(v)]*100-w) > 1e-9 {
			t.Errorf("Q(%d) = %v·100, want %v", v, q[name(v)], w)
		}
	}
}

// TestLearnStreamedLinks: a model learned from links streamed (EachLink,
// what LearnLinkModel gives so that a big topic's edges are not all held
// in memory) is the model learned from the same links as a slice.
func TestLearnStreamedLinks(t *testing.T) {
	for name, d := range map[string]TrainingData{"sample": sampleData(), "hubs": hubData()} {
		want, err := Learn(d, words{}).Encode()
		if err != nil {
			t.Fatal(err)
		}
		links := d.Links
		d.Links = nil
		d.EachLink = func(yield func(LinkInfo)) {
			for _, l := range links {
				yield(l)
			}
		}
		got, err := Learn(d, words{}).Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the model learned from streamed links differs from the one learned from the slice", name)
		}
	}
}

// TestLearnSeedHasNoInLink: a seed was not reached by a link, so learning
// attributes none to it, though a later page links back to it (sampleData's
// a → s "home"): the seed's G_W vertex has no anchor or context, the anchor
// NB never saw "home" (s is rejected: it would be negative evidence), and
// the layers count no link for s as a's layer-0 predecessor.
func TestLearnSeedHasNoInLink(t *testing.T) {
	m := Learn(sampleData(), words{})
	found := false
	for _, v := range m.JLSE.Vertices {
		if v.Hash == "s" {
			found = true
			if len(v.Anchor) > 0 || len(v.Context) > 0 {
				t.Errorf("seed vertex anchor %v context %v; want none (a back-link is not how the crawl reached it)", v.Anchor, v.Context)
			}
		}
	}
	if !found {
		t.Fatal("the seed is not a G_W vertex")
	}
	if n := m.JLSE.NB.Neg["home"] + m.JLSE.NB.Pos["home"]; n != 0 {
		t.Errorf("anchor NB counted the back-link's anchor %q %d times; want 0", "home", n)
	}
	if c := m.Layers.Sets[0]["home"]; c != 0 {
		t.Errorf("layer 0 counts the back-link's anchor %q %d times; want 0", "home", c)
	}
}

// TestLearnMissingParentEdgeIsNoInLink: a page whose parent's edge is not
// in the crawl graph gets no in-link, as a seed gets none, rather than
// another page's link into it. sampleData without x → y "friends links"
// and with z → y "transfer rumours": y was found on x, not on z. Before,
// z's link stood in: y's G_W vertex had its anchor, the anchor NB counted
// "transfer" as negative evidence (y is rejected), and layer 0 (y is b's
// predecessor) held its words.
func TestLearnMissingParentEdgeIsNoInLink(t *testing.T) {
	d := sampleData()
	var links []LinkInfo
	for _, l := range d.Links {
		if l.Src != "x" || l.Dst != "y" {
			links = append(links, l)
		}
	}
	d.Links = append(links, LinkInfo{Src: "z", Dst: "y", Anchor: "transfer rumours", Context: "transfer rumours today"})
	m := Learn(d, words{})
	found := false
	for _, v := range m.JLSE.Vertices {
		if v.Hash == "y" {
			found = true
			if len(v.Anchor) > 0 || len(v.Context) > 0 {
				t.Errorf("y's vertex anchor %v context %v; want none (z's link is not how the crawl reached y)", v.Anchor, v.Context)
			}
		}
	}
	if !found {
		t.Fatal("y is not a G_W vertex")
	}
	if n := m.JLSE.NB.Neg["transfer"] + m.JLSE.NB.Pos["transfer"]; n != 0 {
		t.Errorf("anchor NB counted z's anchor %q %d times; want 0", "transfer", n)
	}
	if c := m.Layers.Sets[0]["transfer"]; c != 0 {
		t.Errorf("layer 0 counts z's anchor %q %d times; want 0", "transfer", c)
	}
	// The rest is learned as before: a's in-link is s's edge.
	if m.JLSE.NB.Pos["rose"] == 0 {
		t.Errorf("anchor NB lost a's anchor: %v", m.JLSE.NB.Pos)
	}
}
