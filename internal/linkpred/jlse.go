package linkpred

import (
	"fmt"
	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

func init() { register("jlse", decodeJLSE, newJLSE) }

// JLSE is seed 002's joint link similarity evaluation:
//
//	sim(u,t) = max(sim_anchor, sim_predicted)
//
// sim_anchor is the naive-Bayes posterior of the anchor text (positive →
// posterior, negative → 0.01); sim_predicted maps the link (anchor, URL
// tokens, context) onto the learned Web link graph with BM25 (k1 = 2,
// b = 0.75, weights 0.5/0.2/0.3) and is norm(s_j)·value(v_j), the
// Q-learning value of the nearest vertex (see linkmodel). The priority of
// link i on page k is page-normalised [R]:
//
//	priority(i) = sim(i,t) / Σ_{v ∈ links of k} sim(v,t) · P(topic|page k)
//
// with P(topic|page k) the page filter's relevance of the parent.
// Before the first learning round (or while NB has seen only one class),
// sim_anchor falls back to the cosine of the link text and the topic
// (focuscrawl's choice: the paper starts from sample pages' anchors).
//
// Parameters: normalize (1 = page-normalised priority as in the paper,
// default; 0 = raw sim), bm25_scale (default 3).
type JLSE struct {
	normalize bool
	scale     float64
	model     *linkmodel.JLSE
	text      *BestFirst
	tc        topic.TermCounter
}

// JLSEParams are the jlse predictor's decoded parameters.
type JLSEParams struct {
	Normalize bool
	BM25Scale float64
}

func decodeJLSE(spec topic.Spec) (JLSEParams, error) {
	if err := checkParams(spec, "normalize", "bm25_scale"); err != nil {
		return JLSEParams{}, err
	}
	n, err := spec.Float("normalize", 1)
	if err != nil {
		return JLSEParams{}, err
	}
	if n != 0 && n != 1 {
		return JLSEParams{}, errRange(spec.Name, "normalize (0 or 1)", n)
	}
	sc, err := spec.Float("bm25_scale", linkmodel.DefaultBM25Scale)
	if err != nil {
		return JLSEParams{}, err
	}
	if sc <= 0 {
		return JLSEParams{}, fmt.Errorf("strategy.link_predictor %s: bm25_scale %v must be above 0 (default %v)", spec.Name, sc, linkmodel.DefaultBM25Scale)
	}
	return JLSEParams{Normalize: n == 1, BM25Scale: sc}, nil
}

func newJLSE(p JLSEParams, env Env) (Predictor, error) {
	bf, err := newBestFirst(textOnly, env)
	if err != nil {
		return nil, err
	}
	j := &JLSE{normalize: p.Normalize, scale: p.BM25Scale, text: bf.(*BestFirst), tc: env.Terms}
	if env.LinkModel != nil {
		j.model = env.LinkModel.JLSE
	}
	return j, nil
}

// Name implements Predictor.
func (j *JLSE) Name() string { return "jlse" }

// Sim is sim(u,t) = max(sim_anchor, sim_predicted).
func (j *JLSE) Sim(l Link) float64 {
	anchorTF := j.tc.TermFreq(l.Anchor + " " + l.Title + " " + l.Alt)
	var anchor float64
	ok := false
	if j.model != nil {
		anchor, ok = j.model.AnchorSim(anchorTF)
	}
	if !ok {
		anchor = j.text.TextSimilarity(l)
	}
	pred := 0.0
	if j.model != nil {
		d := linkmodel.LinkDoc{
			Anchor:  sortedTerms(anchorTF),
			URL:     sortedTerms(j.tc.TermFreq(urlnorm.Words(l.URL))),
			Context: sortedTerms(j.tc.TermFreq(jlseContext(l))),
		}
		pred = j.model.Predicted(d, [3]float64{linkmodel.DefaultAnchorWeight, linkmodel.DefaultURLWeight, linkmodel.DefaultContextWeight}, j.scale)
	}
	return max(anchor, pred)
}

// jlseContext is the link's context attribute: seed 002's DOM context
// (text within tree distance δ = 5), or the ±30-byte Context for links
// parsed before DOMContext was recorded.
func jlseContext(l Link) string {
	if l.DOMContext != "" {
		return l.DOMContext
	}
	return l.Context
}

// Score implements Predictor for a single link (no normalisation).
func (j *JLSE) Score(p Parent, l Link) float64 {
	return j.Sim(l) * p.Relevance
}

// ScorePage implements PageScorer: the page-normalised priority.
func (j *JLSE) ScorePage(p Parent, links []Link) []float64 {
	out := make([]float64, len(links))
	sum := 0.0
	for i, l := range links {
		out[i] = j.Sim(l)
		sum += out[i]
	}
	for i := range out {
		if j.normalize {
			if sum > 0 {
				out[i] = out[i] / sum * p.Relevance
			}
		} else {
			out[i] *= p.Relevance
		}
	}
	return out
}

// ReadsLinkModel reports that JLSE reads the learned link model.
func (*JLSE) ReadsLinkModel() bool { return true }
