package linkpred

import (
	"fmt"

	"focuscrawl/internal/topic"
)

func init() {
	Register("metadata-hits", newMetaHits)
}

// Default weights of seed 000's metadata-hit score AMH = a·UH + b·TeH + c·TiH
// (docs/algorithms.md "metadata-hits"). The thesis's formula survives only
// in outline and leaves a, b, c open with a + b + c ≤ 1; these are
// focuscrawl's choice: link text is the most direct description of the
// target (b = 0.5); URL words are frequent but often generic (a = 0.3); the
// title attribute is rare (0.8% of links in seed 000's count) but, when
// present, written for exactly this purpose (c = 0.2).
const (
	DefaultAMHURL   = 0.3 // a: a topic word in the URL (UH)
	DefaultAMHText  = 0.5 // b: a topic word in the link text (TeH)
	DefaultAMHTitle = 0.2 // c: a topic word in the title attribute (TiH)
)

// MetaHits computes seed 000's AMH [R]. Each hit is 0 or 1: whether any
// topic feature word (topic terms with weight ≥ min_term_weight) occurs in
// the URL's words, the link text (anchor and image alt) or the title
// attribute.
type MetaHits struct {
	A, B, C float64
	terms   map[string]bool
	tc      topic.TermCounter
}

// NewMetaHits builds the AMH scorer over the topic model's feature words.
func NewMetaHits(m *topic.Model, tc topic.TermCounter, a, b, c, minWeight float64) *MetaHits {
	h := &MetaHits{A: a, B: b, C: c, tc: tc, terms: map[string]bool{}}
	for _, t := range topicTermSet(m, minWeight) {
		h.terms[t] = true
	}
	return h
}

func (h *MetaHits) hit(text string) float64 {
	if text == "" {
		return 0
	}
	for w := range h.tc.TermFreq(text) {
		if h.terms[w] {
			return 1
		}
	}
	return 0
}

// AMH returns a·UH + b·TeH + c·TiH for one link, in [0, a+b+c].
func (h *MetaHits) AMH(l Link) float64 {
	return h.A*h.hit(urlWords(l.URL)) + h.B*h.hit(l.Anchor+" "+l.Alt) + h.C*h.hit(l.Title)
}

// metaHitsPredictor is the "metadata-hits" link predictor: the link's AMH
// as its priority; with threshold > 0 links below it are discarded (seed
// 000: URLs predicted below the threshold are not queued).
type metaHitsPredictor struct {
	h         *MetaHits
	threshold float64
}

func newMetaHits(spec topic.Spec, env Env) (Predictor, error) {
	if err := checkParams(spec, "a", "b", "c", "threshold", "min_term_weight"); err != nil {
		return nil, err
	}
	h, err := metaHitsFromSpec(spec, env, "a", "b", "c")
	if err != nil {
		return nil, err
	}
	th, err := spec.Float("threshold", 0)
	if err != nil {
		return nil, err
	}
	if err := unit(spec.Name, "threshold", th); err != nil {
		return nil, err
	}
	return &metaHitsPredictor{h: h, threshold: th}, nil
}

// metaHitsFromSpec reads the AMH weights under the given parameter names
// (best-first prefixes them) and checks a, b, c ≥ 0 with a + b + c ≤ 1.
func metaHitsFromSpec(spec topic.Spec, env Env, ka, kb, kc string) (*MetaHits, error) {
	var w [4]float64
	for i, p := range []struct {
		key string
		def float64
	}{{ka, DefaultAMHURL}, {kb, DefaultAMHText}, {kc, DefaultAMHTitle}, {"min_term_weight", 0.3}} {
		v, err := spec.Float(p.key, p.def)
		if err != nil {
			return nil, err
		}
		if err := unit(spec.Name, p.key, v); err != nil {
			return nil, err
		}
		w[i] = v
	}
	if w[0]+w[1]+w[2] > 1+1e-9 {
		return nil, fmt.Errorf("strategy.link_predictor %s: %s + %s + %s = %v must be ≤ 1 (seed 000)", spec.Name, ka, kb, kc, w[0]+w[1]+w[2])
	}
	return NewMetaHits(env.Model, env.Terms, w[0], w[1], w[2], w[3]), nil
}

// Name implements Predictor.
func (p *metaHitsPredictor) Name() string { return "metadata-hits" }

// Score implements Predictor.
func (p *metaHitsPredictor) Score(_ Parent, l Link) float64 {
	s := p.h.AMH(l)
	if p.threshold > 0 && s < p.threshold {
		return Discard
	}
	return s
}
