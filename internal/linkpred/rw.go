package linkpred

import (
	"fmt"

	"focuscrawl/internal/topic"
)

func init() {
	register("rw", func(spec topic.Spec) (RWParams, error) { return decodeRW(spec, false) }, newRW)
	register("rwb", func(spec topic.Spec) (RWParams, error) { return decodeRW(spec, true) }, newRW)
}

// RW is seed 000's relatedness-of-words link predictor [R]:
//
//	RW(url) = max_{k ∈ M(url)} R(k)   if ≥ c, else the link is discarded
//
// where M(url) is the link's extended metadata (anchor, title, alt,
// surrounding text, URL words) and R(k) the relatedness of word k to the
// topic's terms from the lexicon (synonym 1.0, near-synonym 0.5–1.0, distant
// 0–0.5). Without a lexicon R is 1 for topic terms and 0 otherwise.
//
// RWB (Boost) adds seed 000's random boosting for tunnels: when RW fails,
// draw p1 ~ U(0,1); if p1 ≥ d, score the link by the best word of the whole
// parent page (kept if ≥ c); if that also fails, draw p2 ~ U(0,1) as the
// score, and the link is kept only if p2 ≥ c like any other score (the
// thesis: "p2 may exceed c, so the link may still be judged relevant").
// With the default c = 0.5 half of the boosted hopeless links survive, with
// scores in [c, 1). The draws are reproducible: hash(strategy.seed, parent,
// link). focuscrawl's choice where the thesis is silent: p1 < d discards the
// link (the boost is taken with probability 1−d). See docs/algorithms.md
// "rw / rwb".
//
// Parameters: c (default 0.5), min_term_weight (topic terms considered,
// default 0.3); rwb also d (default 0.5).
type RW struct {
	C, D      float64
	Boost     bool
	terms     []string
	lex       Relatedness
	tc        topic.TermCounter
	seed      int64
	minWeight float64
}

// RWParams are the rw and rwb predictors' decoded parameters.
type RWParams struct {
	Boost         bool // rwb
	C, D          float64
	MinTermWeight float64
}

func decodeRW(spec topic.Spec, boost bool) (RWParams, error) {
	known := []string{"c", "min_term_weight"}
	if boost {
		known = append(known, "d")
	}
	if err := checkParams(spec, known...); err != nil {
		return RWParams{}, err
	}
	p := RWParams{Boost: boost}
	var err error
	if p.C, err = spec.Float("c", 0.5); err != nil {
		return p, err
	}
	if p.D, err = spec.Float("d", 0.5); err != nil {
		return p, err
	}
	if p.MinTermWeight, err = spec.Float("min_term_weight", defaultMinTermWeight); err != nil {
		return p, err
	}
	for _, k := range []struct {
		key string
		v   float64
	}{{"c", p.C}, {"d", p.D}, {"min_term_weight", p.MinTermWeight}} {
		if err := unit(spec.Name, k.key, k.v); err != nil {
			return p, err
		}
	}
	return p, nil
}

func newRW(p RWParams, env Env) (Predictor, error) {
	r := &RW{C: p.C, D: p.D, Boost: p.Boost, lex: env.Lexicon, tc: env.Terms, seed: env.Seed, minWeight: p.MinTermWeight}
	r.terms = topicTermSet(env.Model, r.minWeight)
	if len(r.terms) == 0 {
		return nil, fmt.Errorf("strategy.link_predictor %s: no topic term has weight ≥ min_term_weight %v", r.Name(), r.minWeight)
	}
	return r, nil
}

// Name implements Predictor.
func (r *RW) Name() string {
	if r.Boost {
		return "rwb"
	}
	return "rw"
}

// BestRelatedness is max_k R(k) over the words of text's term frequencies.
func (r *RW) BestRelatedness(tf map[string]int) float64 {
	best := 0.0
	for _, w := range sortedTerms(tf) {
		var rel float64
		if r.lex != nil {
			rel = r.lex.Relatedness(w, r.terms)
		} else {
			rel = exact(w, r.terms)
		}
		if rel > best {
			best = rel
			if best >= 1 {
				break
			}
		}
	}
	return best
}

func exact(w string, terms []string) float64 {
	for _, t := range terms {
		if t == w {
			return 1
		}
	}
	return 0
}

// Score implements Predictor.
func (r *RW) Score(p Parent, l Link) float64 {
	if rw := r.BestRelatedness(r.tc.TermFreq(linkMetadata(l))); rw >= r.C {
		return rw
	}
	if !r.Boost {
		return Discard
	}
	if uniform(r.seed, p.Hash+p.URL, l.URL, 1) < r.D {
		return Discard
	}
	if pr := r.BestRelatedness(p.Terms); pr >= r.C {
		return pr
	}
	if p2 := uniform(r.seed, p.Hash+p.URL, l.URL, 2); p2 >= r.C {
		return p2
	}
	return Discard
}
