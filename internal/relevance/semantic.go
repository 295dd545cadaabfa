package relevance

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"focuscrawl/internal/lexicon"
	"focuscrawl/internal/topic"
)

// DefaultSemanticThreshold is seed 001's θ = 0.3. The semantic vector has
// one dimension per topic feature (not per page word), so cosines are of the
// order seed 001 reports, unlike vsm's whole-page cosine.
const DefaultSemanticThreshold = 0.3

// DefaultSemanticDepth is the hyponym depth of the lexicon expansion (seed
// 001 leaves n open; two levels stay on topic in the bundled lexicons).
const DefaultSemanticDepth = 2

// Position weights of seed 001: anchor text 2, title/h1/h2/strong 1.5,
// other text 1.
const (
	WeightAnchor   = 2.0
	WeightEmphasis = 1.5
	WeightOther    = 1.0
)

func init() { register("semantic", decodeSemantic, newSemantic) }

// Semantic is seed 001's semantic, position-weighted filter
// (docs/algorithms.md "semantic"). Every topic feature k_i (the topic's keywords, or its
// model terms when it has none) is expanded with the lexicon into {k_i} ∪
// synonyms ∪ hyponyms down to Depth levels; tf_ij is the count of the
// expansion set in the page and tf_ijn the same per position class n. The
// page weight of feature i is
//
//	w_ij = S_ij · F_ij · w_ir,  S_ij = Σ_n f(n)·tf_ijn,  F_ij = tf_ij / max_k tf_kj
//
// with f = 2 (anchor), 1.5 (title, h1, h2, strong, b), 1 (other), and the
// page is accepted when cos(P_j, R) ≥ Threshold.
//
// focuscrawl's choices where the paper is silent: each expansion term's
// count is multiplied by its lexicon relatedness (a near-synonym at 0.6
// counts 0.6), and a multi-token phrase (jieba splits 卷积神经网络 into 卷积 +
// 神经网络) counts min over its tokens' frequencies, the most it can occur
// given the bag of words. Title words are counted in the emphasis class.
//
// Parameters: threshold (default DefaultSemanticThreshold, scaled by the
// topic's breadth), depth (default DefaultSemanticDepth; 0 = keywords only).
type Semantic struct {
	Threshold float64
	Depth     int
	features  []feature
	topicNorm float64
}

type feature struct {
	name   string
	weight float64 // w_ir
	exp    []phrase
}

type phrase struct {
	tokens []string
	rel    float64
}

// SemanticParams are the semantic filter's decoded parameters.
type SemanticParams struct {
	Threshold *float64 // nil: DefaultSemanticThreshold scaled by breadth
	Depth     int
}

func decodeSemantic(spec topic.Spec) (SemanticParams, error) {
	if err := checkParams(spec, "threshold", "depth"); err != nil {
		return SemanticParams{}, err
	}
	th, err := thresholdParam(spec)
	if err != nil {
		return SemanticParams{}, err
	}
	d, err := spec.Float("depth", DefaultSemanticDepth)
	if err != nil {
		return SemanticParams{}, err
	}
	if d < 0 || d > 5 || d != math.Trunc(d) {
		return SemanticParams{}, fmt.Errorf("strategy.page_filter semantic: depth %v must be an integer in [0,5]", d)
	}
	return SemanticParams{Threshold: th, Depth: int(d)}, nil
}

func (p SemanticParams) baseThreshold(t *topic.Topic) float64 {
	return orDefault(p.Threshold, DefaultSemanticThreshold, t)
}

func newSemantic(p SemanticParams, env Env) (Filter, error) {
	if env.Terms == nil {
		return nil, fmt.Errorf("strategy.page_filter semantic: no tokenizer (Env.Terms)")
	}
	th, err := threshold("semantic", p, env)
	if err != nil {
		return nil, err
	}
	return NewSemantic(featuresOf(env), env.Lexicon, env.Terms, th, p.Depth), nil
}

// featuresOf returns the topic's features with their weights: the
// hand-given keywords when there are any (phrases the lexicon knows), else
// the compiled model's terms.
func featuresOf(env Env) map[string]float64 {
	if env.Topic != nil && len(env.Topic.Keywords) > 0 {
		return env.Topic.Keywords
	}
	return env.Model.Terms
}

// NewSemantic builds the filter for features (term → w_ir); lex may be nil
// (no expansion). tok splits the features and their expansions into the
// page's terms: a phrase is the set of its distinct terms, in sorted order.
func NewSemantic(features map[string]float64, lex *lexicon.Lexicon, tok topic.TermCounter, threshold float64, depth int) *Semantic {
	split := func(s string) []string {
		tf := tok.TermFreq(s)
		out := make([]string, 0, len(tf))
		for t := range tf {
			out = append(out, t)
		}
		sort.Strings(out)
		return out
	}
	f := &Semantic{Threshold: threshold, Depth: depth}
	names := make([]string, 0, len(features))
	for k := range features {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ft := feature{name: k, weight: features[k]}
		for term, rel := range lex.Expand(k, depth) {
			if toks := split(term); len(toks) > 0 {
				ft.exp = append(ft.exp, phrase{toks, rel})
			}
		}
		if len(ft.exp) == 0 {
			continue
		}
		sort.Slice(ft.exp, func(i, j int) bool {
			return strings.Join(ft.exp[i].tokens, " ") < strings.Join(ft.exp[j].tokens, " ")
		})
		f.features = append(f.features, ft)
		f.topicNorm += ft.weight * ft.weight
	}
	f.topicNorm = math.Sqrt(f.topicNorm)
	return f
}

// Name implements Filter.
func (f *Semantic) Name() string { return "semantic" }

// Positional implements Positional.
func (f *Semantic) Positional() {}

// count is the relatedness-weighted frequency of a feature's expansion set.
func (ft *feature) count(tf map[string]int) float64 {
	if len(tf) == 0 {
		return 0
	}
	sum := 0.0
	for _, p := range ft.exp {
		n := math.MaxInt
		for _, t := range p.tokens {
			n = min(n, tf[t])
		}
		sum += float64(n) * p.rel
	}
	return sum
}

// Judge implements Filter.
func (f *Semantic) Judge(p *Page) Verdict {
	anchor, emph, other := p.AnchorTF, p.EmphasisTF, p.OtherTF
	if anchor == nil && emph == nil && other == nil {
		other = p.TF // no position classes: everything counts as other text
	}
	tf := make([]float64, len(f.features))
	s := make([]float64, len(f.features))
	maxTF := 0.0
	for i := range f.features {
		ft := &f.features[i]
		a, e, o := ft.count(anchor), ft.count(emph), ft.count(other)
		tf[i] = a + e + o
		s[i] = WeightAnchor*a + WeightEmphasis*e + WeightOther*o
		maxTF = math.Max(maxTF, tf[i])
	}
	score, best := 0.0, ""
	if maxTF > 0 {
		dot, norm, bestW := 0.0, 0.0, 0.0
		for i, ft := range f.features {
			w := s[i] * (tf[i] / maxTF) * ft.weight
			dot += w * ft.weight
			norm += w * w
			if w > bestW {
				bestW, best = w, ft.name
			}
		}
		if norm > 0 && f.topicNorm > 0 {
			// At most 1: a page vector parallel to the topic's rounds
			// above it (vsm.Cosine).
			score = min(dot/(math.Sqrt(norm)*f.topicNorm), 1)
		}
	}
	reason := fmt.Sprintf("semantic cosine %.3f vs threshold %.3f", score, f.Threshold)
	if best != "" {
		reason += fmt.Sprintf(" (strongest feature %q)", best)
	}
	return Verdict{Score: score, Relevant: score >= f.Threshold, Reason: reason}
}
