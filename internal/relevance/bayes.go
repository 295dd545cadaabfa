package relevance

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"focuscrawl/internal/decision"
	"focuscrawl/internal/topic"
)

// Defaults of the bayes filter (focuscrawl's choices: seed 002 gives the
// model, not these numbers).
const (
	DefaultBayesThreshold    = 0.5 // posterior P(topic|page)
	DefaultBayesMinNegatives = 5   // negative documents needed before bayes judges alone
	DefaultBayesEvery        = 20  // judged pages between retrainings
	DefaultBayesMaxNegatives = 300 // learned negative pages kept (lowest relevance first)
	bayesStateKind           = "filter-bayes"
)

func init() { register("bayes", decodeBayes, newBayes) }

// Bayes is seed 002's unigram naive Bayes page classifier with Laplace
// smoothing:
//
//	P(w|c) = (1 + N(w,c)) / (|V| + Σ_w' N(w',c))
//
// and the page's relevance is the posterior P(topic|page), accepted at or
// above Threshold.
//
// Training: positives are the topic's sample pages plus a pseudo-document
// of its keywords (each repeated by weight, rounded up); negatives are the
// topic's negative_samples plus up to MaxNegatives pages the crawl rejected
// (lowest relevance first), so the model learns the off-topic vocabulary the
// crawl actually meets. Until there are MinNegatives negative documents, a
// cold-start vsm filter decides (and its rejections become the first
// negatives); the crawl log names it as the deciding filter.
//
// focuscrawl's choices where the seed is silent: equal class priors (the
// class sizes are artefacts of how many samples were given), page words
// outside the training vocabulary are ignored, raw term counts (title
// counted twice, as everywhere) form the multinomial.
//
// Parameters: threshold (0.5, scaled by breadth), min_negatives (5), every
// (20), max_negatives (300), vsm_threshold (cold start; vsm's default).
type Bayes struct {
	Threshold    float64
	MinNegatives int
	MaxNegatives int
	every        int
	nb           *NaiveBayes
	coldStart    Filter
	positives    []map[string]int
	negatives    []map[string]int
}

// NaiveBayes is a two-class multinomial naive Bayes model with Laplace
// smoothing. Its JSON form is the filter's stored state.
type NaiveBayes struct {
	Pos     map[string]int `json:"pos"` // N(w, topic)
	Neg     map[string]int `json:"neg"` // N(w, other)
	PosDocs int            `json:"pos_docs"`
	NegDocs int            `json:"neg_docs"`
	posSum  int
	negSum  int
	vocab   int
}

// TrainNB builds a model from positive and negative term-frequency maps.
func TrainNB(pos, neg []map[string]int) *NaiveBayes {
	m := &NaiveBayes{Pos: map[string]int{}, Neg: map[string]int{}, PosDocs: len(pos), NegDocs: len(neg)}
	for _, d := range pos {
		for w, n := range d {
			m.Pos[w] += n
		}
	}
	for _, d := range neg {
		for w, n := range d {
			m.Neg[w] += n
		}
	}
	m.init()
	return m
}

func (m *NaiveBayes) init() {
	m.posSum, m.negSum = 0, 0
	v := map[string]struct{}{}
	for w, n := range m.Pos {
		m.posSum += n
		v[w] = struct{}{}
	}
	for w, n := range m.Neg {
		m.negSum += n
		v[w] = struct{}{}
	}
	m.vocab = len(v)
}

// WordProb is P(w|c) with Laplace smoothing; positive selects the class.
func (m *NaiveBayes) WordProb(w string, positive bool) float64 {
	if positive {
		return (1 + float64(m.Pos[w])) / float64(m.vocab+m.posSum)
	}
	return (1 + float64(m.Neg[w])) / float64(m.vocab+m.negSum)
}

// Posterior is P(topic|page) with equal priors, computed in log space.
// Words outside the vocabulary are ignored; a page with none gives 0.5.
func (m *NaiveBayes) Posterior(tf map[string]int) float64 {
	lp, ln := 0.0, 0.0
	for w, n := range tf {
		if m.Pos[w] == 0 && m.Neg[w] == 0 {
			continue
		}
		lp += float64(n) * math.Log(m.WordProb(w, true))
		ln += float64(n) * math.Log(m.WordProb(w, false))
	}
	// P = e^lp / (e^lp + e^ln) = 1 / (1 + e^(ln-lp))
	return 1 / (1 + math.Exp(ln-lp))
}

// BayesParams are the bayes filter's decoded parameters.
type BayesParams struct {
	Threshold                         *float64 // nil: DefaultBayesThreshold scaled by breadth
	MinNegatives, Every, MaxNegatives int
	ColdStart                         VSMParams // vsm_threshold
}

func decodeBayes(spec topic.Spec) (BayesParams, error) {
	if err := checkParams(spec, "threshold", "min_negatives", "every", "max_negatives", "vsm_threshold"); err != nil {
		return BayesParams{}, err
	}
	var p BayesParams
	var err error
	if p.Threshold, err = thresholdParam(spec); err != nil {
		return p, err
	}
	ints := []struct {
		key string
		def int
		dst *int
	}{{"min_negatives", DefaultBayesMinNegatives, &p.MinNegatives}, {"every", DefaultBayesEvery, &p.Every},
		{"max_negatives", DefaultBayesMaxNegatives, &p.MaxNegatives}}
	for _, i := range ints {
		if *i.dst, err = spec.PositiveInt(i.key, i.def); err != nil {
			return p, err
		}
	}
	p.ColdStart, err = decodeColdStart(spec)
	return p, err
}

// decodeColdStart decodes a learner's cold-start vsm filter from its
// vsm_threshold parameter.
func decodeColdStart(spec topic.Spec) (VSMParams, error) {
	vspec := topic.Spec{Name: "vsm", Params: map[string]any{}}
	if v, ok := spec.Params["vsm_threshold"]; ok {
		vspec.Params["threshold"] = v
	}
	p, err := decodeVSM(vspec)
	if err != nil {
		return p, fmt.Errorf("strategy.page_filter %s: vsm_threshold: %w", spec.Name, err)
	}
	return p, nil
}

// coldStart builds a learner's cold-start vsm filter. The dynamic threshold
// scales the learner's own threshold, not this one.
func coldStart(p VSMParams, env Env) (Filter, error) {
	env.DynamicFactor = 0
	return newVSM(p, env)
}

func (BayesParams) learner() {}

func (p BayesParams) baseThreshold(t *topic.Topic) float64 {
	return orDefault(p.Threshold, DefaultBayesThreshold, t)
}

func newBayes(p BayesParams, env Env) (Filter, error) {
	th, err := threshold("bayes", p, env)
	if err != nil {
		return nil, err
	}
	f := &Bayes{Threshold: th, MinNegatives: p.MinNegatives, every: p.Every, MaxNegatives: p.MaxNegatives}
	if f.coldStart, err = coldStart(p.ColdStart, env); err != nil {
		return nil, err
	}
	f.positives = append(f.positives, keywordDoc(env))
	if env.Samples != nil {
		for _, d := range env.Samples.Positive {
			f.positives = append(f.positives, d.TF)
		}
		for _, d := range env.Samples.Negative {
			f.negatives = append(f.negatives, d.TF)
		}
	}
	if len(env.State) > 0 {
		var m NaiveBayes
		if err := json.Unmarshal(env.State, &m); err != nil {
			return nil, fmt.Errorf("bayes state: %w", err)
		}
		m.init()
		f.nb = &m
	} else if len(f.negatives) >= f.MinNegatives {
		f.nb = TrainNB(f.positives, f.negatives)
	}
	return f, nil
}

// keywordDoc is a pseudo-document of the topic's terms, each repeated by its
// weight rounded up (at least once).
func keywordDoc(env Env) map[string]int {
	d := map[string]int{}
	for t, w := range env.Model.Terms {
		d[t] = max(1, int(math.Ceil(w)))
	}
	return d
}

// Name implements Filter.
func (f *Bayes) Name() string { return "bayes" }

// StateKind implements Learner.
func (f *Bayes) StateKind() string { return bayesStateKind }

// Every implements Learner.
func (f *Bayes) Every() int { return f.every }

// Model returns the trained model, nil during the cold start.
func (f *Bayes) Model() *NaiveBayes { return f.nb }

// Judge implements Filter.
func (f *Bayes) Judge(p *Page) Verdict {
	if f.nb == nil || f.nb.NegDocs < f.MinNegatives {
		v := f.coldStart.Judge(p)
		v.Reason = "bayes cold start (too few negatives); " + v.Reason
		v.Decider = f.coldStart.Name()
		return v
	}
	s := f.nb.Posterior(p.TF)
	return Verdict{Score: s, Relevant: s >= f.Threshold,
		Reason: fmt.Sprintf("P(topic|page) %.3f vs threshold %.3f (%d+%d training docs)", s, f.Threshold, f.nb.PosDocs, f.nb.NegDocs)}
}

// Learn implements Learner: retrain from the positives, the given negatives
// and the MaxNegatives lowest-relevance rejected pages.
func (f *Bayes) Learn(judged []Judged) ([]byte, error) {
	var rej []Judged
	for _, j := range judged {
		if j.Decision == decision.Rejected && len(j.TF) > 0 {
			rej = append(rej, j)
		}
	}
	sort.SliceStable(rej, func(a, b int) bool { return rej[a].Relevance < rej[b].Relevance })
	if len(rej) > f.MaxNegatives {
		rej = rej[:f.MaxNegatives]
	}
	neg := append([]map[string]int(nil), f.negatives...)
	for _, j := range rej {
		neg = append(neg, j.TF)
	}
	return json.Marshal(TrainNB(f.positives, neg))
}
