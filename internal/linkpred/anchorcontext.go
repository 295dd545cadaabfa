package linkpred

import (
	"fmt"
	"strings"

	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/topic"
)

func init() { Register("anchor-context", newAnchorContext) }

// AnchorContext is seed 001's Algorithm 3: f = the number of topic-feature
// word occurrences in the anchor text and the ±30 characters around it; the
// link is enqueued if f ≥ α. Otherwise the feature sets of the N = 2
// predecessor layers are tried in turn (words typical of links that lead
// to pages 1 and 2 links before a topic page, learned by LearnLinkModel —
// see linkmodel.Layers); if one reaches α the link is enqueued with a lower
// score, else it is discarded.
//
// Scores (focuscrawl's, the paper only enqueues or discards): topic hit
// 0.5 + 0.5·min(1, f/(2α)); layer-n hit 0.4/n.
//
// Parameters: alpha (default 2; the paper used 2 and 3), min_term_weight
// (which topic-model terms are feature words, default 0.3).
type AnchorContext struct {
	Alpha  float64
	terms  map[string]bool
	layers *linkmodel.Layers
	tc     topic.TermCounter
}

func newAnchorContext(spec topic.Spec, env Env) (Predictor, error) {
	if err := checkParams(spec, "alpha", "min_term_weight"); err != nil {
		return nil, err
	}
	a := &AnchorContext{tc: env.Terms, terms: map[string]bool{}}
	var err error
	if a.Alpha, err = spec.Float("alpha", 2); err != nil {
		return nil, err
	}
	if a.Alpha < 1 {
		return nil, fmt.Errorf("strategy.link_predictor anchor-context: alpha %v must be ≥ 1", a.Alpha)
	}
	mw, err := spec.Float("min_term_weight", 0.3)
	if err != nil {
		return nil, err
	}
	if err := unit(spec.Name, "min_term_weight", mw); err != nil {
		return nil, err
	}
	for _, t := range topicTermSet(env.Model, mw) {
		a.terms[t] = true
	}
	if env.LinkModel != nil {
		a.layers = env.LinkModel.Layers
	}
	return a, nil
}

// Name implements Predictor.
func (a *AnchorContext) Name() string { return "anchor-context" }

// Score implements Predictor.
func (a *AnchorContext) Score(_ Parent, l Link) float64 {
	tf := a.tc.TermFreq(strings.Join([]string{l.Anchor, l.Context}, " "))
	f := 0
	for t, c := range tf {
		if a.terms[t] {
			f += c
		}
	}
	if float64(f) >= a.Alpha {
		return 0.5 + 0.5*min(1, float64(f)/(2*a.Alpha))
	}
	for n := 0; n < linkmodel.LayerDepth; n++ {
		if float64(a.layers.Hits(n, tf)) >= a.Alpha {
			return 0.4 / float64(n+1)
		}
	}
	return Discard
}

// ReadsLinkModel reports that AnchorContext reads the learned link model.
func (*AnchorContext) ReadsLinkModel() bool { return true }
