package linkmodel

import (
	"math"
	"strings"
	"testing"
)

// stopWords drops symbols and stop words, as textproc does for anchors
// such as "»" or "→".
type stopWords struct{}

func (stopWords) TermFreq(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(s)) {
		if w == "»" || w == "«" || w == "the" {
			continue
		}
		m[w]++
	}
	return m
}

// TestNBNoVocabulary: a crawl whose in-link anchors all tokenize to
// nothing (arrows, stop words) trains an NB with both classes (Trained) and
// an empty vocabulary: P(w|c) = 1/(0+0), and the posterior of any anchor
// with a word is NaN (Inf − Inf), which AnchorSim turns into
// NegativeAnchorSim instead of the cosine fallback. Such anchors now train nothing.
func TestNBNoVocabulary(t *testing.T) {
	d := TrainingData{
		Pages: []PageInfo{
			{Hash: "s", URL: "http://x.org/"},
			{Hash: "a", URL: "http://x.org/a", Parent: "s", Accepted: true},
			{Hash: "b", URL: "http://x.org/b", Parent: "s", Rejected: true},
		},
		Links: []LinkInfo{{Src: "s", Dst: "a", Anchor: "»"}, {Src: "s", Dst: "b", Anchor: "the «"}},
	}
	m := Learn(d, stopWords{})
	p := m.JLSE.NB.Posterior(map[string]int{"roses": 1})
	if math.IsNaN(p) {
		sim, ok := m.JLSE.AnchorSim(map[string]int{"roses": 1})
		t.Errorf("NB trained on %d+%d anchors with vocabulary %d: posterior NaN; AnchorSim = %v, %v", m.JLSE.NB.PosDocs, m.JLSE.NB.NegDocs, m.JLSE.NB.V, sim, ok)
	}
}
