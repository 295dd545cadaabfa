package linkpred

import (
	"fmt"

	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

func init() {
	register("metadata-hits", decodeMetaHits, newMetaHits)
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
	return h.A*h.hit(urlnorm.Words(l.URL)) + h.B*h.hit(l.Anchor+" "+l.Alt) + h.C*h.hit(l.Title)
}

// metaHitsPredictor is the "metadata-hits" link predictor: the link's AMH
// as its priority; with threshold > 0 links below it are discarded (seed
// 000: URLs predicted below the threshold are not queued).
type metaHitsPredictor struct {
	h         *MetaHits
	threshold float64
}

// MetaHitsParams are the AMH weights a, b, c and the feature words'
// minimum topic weight.
type MetaHitsParams struct {
	A, B, C       float64
	MinTermWeight float64
}

// defaultMetaHits are the AMH defaults.
var defaultMetaHits = MetaHitsParams{A: DefaultAMHURL, B: DefaultAMHText, C: DefaultAMHTitle, MinTermWeight: defaultMinTermWeight}

func (p MetaHitsParams) build(env Env) *MetaHits {
	return NewMetaHits(env.Model, env.Terms, p.A, p.B, p.C, p.MinTermWeight)
}

// MetaHitsPredictorParams are the metadata-hits predictor's decoded
// parameters.
type MetaHitsPredictorParams struct {
	Hits      MetaHitsParams
	Threshold float64
}

func decodeMetaHits(spec topic.Spec) (MetaHitsPredictorParams, error) {
	if err := checkParams(spec, "a", "b", "c", "threshold", "min_term_weight"); err != nil {
		return MetaHitsPredictorParams{}, err
	}
	var p MetaHitsPredictorParams
	var err error
	if p.Hits, err = decodeMetaHitsWeights(spec, "a", "b", "c"); err != nil {
		return p, err
	}
	if p.Threshold, err = spec.Float("threshold", 0); err != nil {
		return p, err
	}
	return p, unit(spec.Name, "threshold", p.Threshold)
}

func newMetaHits(p MetaHitsPredictorParams, env Env) (Predictor, error) {
	return &metaHitsPredictor{h: p.Hits.build(env), threshold: p.Threshold}, nil
}

// decodeMetaHitsWeights reads the AMH weights under the given parameter
// names (best-first prefixes them) and checks a, b, c ≥ 0 with a + b + c ≤ 1.
func decodeMetaHitsWeights(spec topic.Spec, ka, kb, kc string) (MetaHitsParams, error) {
	var w [4]float64
	for i, p := range []struct {
		key string
		def float64
	}{{ka, DefaultAMHURL}, {kb, DefaultAMHText}, {kc, DefaultAMHTitle}, {"min_term_weight", defaultMinTermWeight}} {
		v, err := spec.Float(p.key, p.def)
		if err != nil {
			return MetaHitsParams{}, err
		}
		if err := unit(spec.Name, p.key, v); err != nil {
			return MetaHitsParams{}, err
		}
		w[i] = v
	}
	if w[0]+w[1]+w[2] > 1+1e-9 {
		return MetaHitsParams{}, fmt.Errorf("strategy.link_predictor %s: %s + %s + %s = %v must be ≤ 1 (seed 000)", spec.Name, ka, kb, kc, w[0]+w[1]+w[2])
	}
	return MetaHitsParams{A: w[0], B: w[1], C: w[2], MinTermWeight: w[3]}, nil
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
