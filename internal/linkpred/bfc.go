package linkpred

import (
	"strings"

	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/topic"
)

func init() { register("bfc", noParams, newBFC) }

// BFC is seed 004's bootstrapping path discriminator: the link's input is
// the list of anchor texts on the path from the site root down to it (the
// parent's anchor path plus the link's own anchor), scored by the
// discriminator LearnLinkModel retrains each round from the bootstrapped
// sample library (linkmodel.BFC: a logistic regression over position-tagged
// path terms — the paper's model is lost, this is focuscrawl's design).
// Before the discriminator has seen both classes the score is the cosine of
// the anchor path and the topic.
//
// No parameters.
type BFC struct {
	disc *linkmodel.BFC
	text *BestFirst
	tc   topic.TermCounter
}

func newBFC(_ struct{}, env Env) (Predictor, error) {
	bf, err := newBestFirst(textOnly, env)
	if err != nil {
		return nil, err
	}
	b := &BFC{text: bf.(*BestFirst), tc: env.Terms}
	if env.LinkModel != nil && env.LinkModel.BFC.Trained() {
		b.disc = env.LinkModel.BFC
	}
	return b, nil
}

// Name implements Predictor.
func (b *BFC) Name() string { return "bfc" }

// Score implements Predictor.
func (b *BFC) Score(p Parent, l Link) float64 {
	path := l.Anchor
	if p.AnchorPath != "" {
		path = p.AnchorPath + " > " + l.Anchor
	}
	if b.disc == nil {
		return b.text.TextSimilarity(Link{URL: l.URL, Anchor: strings.ReplaceAll(path, " > ", " "), Context: l.Context})
	}
	return b.disc.Score(linkmodel.PathFeatures(path, b.tc))
}

// ReadsLinkModel reports that BFC reads the learned link model.
func (*BFC) ReadsLinkModel() bool { return true }
