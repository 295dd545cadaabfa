package linkpred

import (
	"fmt"
	"strings"

	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/topic"
)

func init() { register("bfc", decodeBFC, newBFC) }

// BFC is seed 004's bootstrapping path discriminator: the link's input is
// the list of anchor texts on the path from the site root down to it (the
// parent's anchor path plus the link's own anchor), scored by the
// discriminator LearnLinkModel retrains each round from the bootstrapped
// sample library (linkmodel.BFC: a logistic regression over position-tagged
// path terms — the paper's model is lost, this is focuscrawl's design).
// Before the discriminator has seen both classes the score is the cosine of
// the anchor path and the topic.
//
// Parameter learn (default false): read the learned discriminator. Off by
// default because on the evaluation's tuning half the learned model made
// BFC's crawls worse than the cold-start cosine (docs/evaluation.md,
// "Learning on vs off"); without it BFC is the anchor-path cosine and the
// worker never runs LearnLinkModel for it.
type BFC struct {
	disc  *linkmodel.BFC
	text  *BestFirst
	tc    topic.TermCounter
	learn bool
}

// BFCParams are the bfc predictor's decoded parameters.
type BFCParams struct {
	Learn bool
}

func decodeBFC(spec topic.Spec) (BFCParams, error) {
	if err := checkParams(spec, "learn"); err != nil {
		return BFCParams{}, err
	}
	var p BFCParams
	if v, ok := spec.Params["learn"]; ok {
		if p.Learn, ok = v.(bool); !ok {
			return p, fmt.Errorf("strategy.link_predictor %s: parameter learn: %v is not true or false", spec.Name, v)
		}
	}
	return p, nil
}

func newBFC(p BFCParams, env Env) (Predictor, error) {
	learn := p.Learn
	bf, err := newBestFirst(textOnly, env)
	if err != nil {
		return nil, err
	}
	b := &BFC{text: bf.(*BestFirst), tc: env.Terms, learn: learn}
	if learn && env.LinkModel != nil && env.LinkModel.BFC.Trained() {
		b.disc = env.LinkModel.BFC
	}
	return b, nil
}

// Name implements Predictor.
func (b *BFC) Name() string { return "bfc" }

// Score implements Predictor.
func (b *BFC) Score(p Parent, l Link) float64 {
	if b.disc == nil {
		path := l.Anchor
		if p.AnchorPath != "" {
			path = p.AnchorPath + " > " + l.Anchor
		}
		return b.text.TextSimilarity(Link{URL: l.URL, Anchor: strings.ReplaceAll(path, " > ", " "), Context: l.Context})
	}
	// The path the link's page will be stored with, which the
	// discriminator learns from: the raw anchor's own " > " would read as
	// a step and move its words to the parent's position.
	return b.disc.Score(linkmodel.PathFeatures(ExtendAnchorPath(p.AnchorPath, l.Anchor), b.tc))
}

// ReadsLinkModel reports whether BFC reads the learned link model
// (parameter learn).
func (b *BFC) ReadsLinkModel() bool { return b.learn }

// MaxAnchorPath bounds a stored anchor path (seed 004's path from the site
// root), keeping its most recent steps.
const MaxAnchorPath = 8

// ExtendAnchorPath is the anchor path of a link with anchor found on a page
// with path: the anchor appended as the last step (" > "-joined), its own
// '>' blanked so that it stays one step, cut to 40 runes, and the path cut
// to its last MaxAnchorPath steps. Frontier entries and pages store it, and
// BFC scores a link on it, so that it scores what it learns from.
func ExtendAnchorPath(path, anchor string) string {
	anchor = strings.TrimSpace(strings.ReplaceAll(anchor, ">", " "))
	if len([]rune(anchor)) > 40 {
		anchor = string([]rune(anchor)[:40])
	}
	parts := []string{}
	if path != "" {
		parts = strings.Split(path, " > ")
	}
	parts = append(parts, anchor)
	if len(parts) > MaxAnchorPath {
		parts = parts[len(parts)-MaxAnchorPath:]
	}
	return strings.Join(parts, " > ")
}
