package linkpred

import (
	"fmt"
	"strings"

	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/topic"
)

func init() { register("anchor-context", decodeAnchorContext, newAnchorContext) }

// AnchorContext is seed 001's Algorithm 3: f = the number of topic-feature
// word occurrences in the anchor text and the ±30 bytes around it; the
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

// AnchorContextParams are the anchor-context predictor's decoded
// parameters.
type AnchorContextParams struct {
	Alpha         float64
	MinTermWeight float64
}

func decodeAnchorContext(spec topic.Spec) (AnchorContextParams, error) {
	if err := checkParams(spec, "alpha", "min_term_weight"); err != nil {
		return AnchorContextParams{}, err
	}
	var p AnchorContextParams
	var err error
	if p.Alpha, err = spec.Float("alpha", 2); err != nil {
		return p, err
	}
	if p.Alpha < 1 {
		return p, fmt.Errorf("strategy.link_predictor anchor-context: alpha %v must be ≥ 1", p.Alpha)
	}
	if p.MinTermWeight, err = spec.Float("min_term_weight", defaultMinTermWeight); err != nil {
		return p, err
	}
	return p, unit(spec.Name, "min_term_weight", p.MinTermWeight)
}

func newAnchorContext(p AnchorContextParams, env Env) (Predictor, error) {
	a := &AnchorContext{Alpha: p.Alpha, tc: env.Terms, terms: map[string]bool{}}
	for _, t := range topicTermSet(env.Model, p.MinTermWeight) {
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
