package relevance

import (
	"fmt"

	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

// DefaultVSMThreshold is the cosine a page needs to be accepted by the vsm
// filter. Seed 001 used 0.3 with vectors restricted to topic terms; focuscrawl
// compares against the page's whole TF-IDF vector, whose norm includes every
// incidental word (navigation, boilerplate), so cosines run an order of
// magnitude lower. 0.02 gave precision 0.86 / recall 0.74 on the labelled
// GIMP-manual demo crawl (docs/algorithms.md has the table); topics with a
// crisp vocabulary can raise it.
const DefaultVSMThreshold = 0.02

func init() { register("vsm", decodeVSM, newVSM) }

// DefaultSeed003Threshold is the vsm filter's default threshold with
// weighting: seed003, whose cosine is restricted to the keyword library
// (seed 003 leaves m "to experience"; 0.3 is seed 001's θ for the same kind
// of keyword-restricted cosine — focuscrawl's choice).
const DefaultSeed003Threshold = 0.3

// VSM is the cosine filter of seeds 000/003, accepted at or above
// Threshold, in one of two weightings (docs/algorithms.md "vsm page
// filter"):
//
//   - "tfidf" (default, the foundation's): the page's whole TF-IDF vector,
//     (1 + ln tf) · idf, against the topic vector.
//   - "seed003": seed 003's VSM over the keyword library: the page's
//     weight of topic term i is F_i · W_i with F_i = count_i / count_max
//     (count_max = the count of the page's most frequent topic term) and
//     W_i the term's topic weight × idf; cosine against W.
//
// Parameters: threshold (default DefaultVSMThreshold, or
// DefaultSeed003Threshold with seed003), weighting (tfidf | seed003).
type VSM struct {
	Threshold float64
	Seed003   bool
	topic     vsm.Vector
	idf       vsm.IDF
}

// vsmSeed003 reads the vsm spec's weighting parameter.
func vsmSeed003(spec topic.Spec) (bool, error) {
	switch v := spec.Params["weighting"]; v {
	case nil, "tfidf":
		return false, nil
	case "seed003":
		return true, nil
	default:
		return false, fmt.Errorf("strategy.page_filter %s: parameter weighting: %v must be tfidf or seed003", spec.Name, v)
	}
}

// VSMParams are the vsm filter's decoded parameters.
type VSMParams struct {
	Threshold *float64 // nil: the default of the weighting, scaled by breadth
	Seed003   bool     // weighting: seed003
}

func decodeVSM(spec topic.Spec) (VSMParams, error) {
	if err := checkParams(spec, "threshold", "weighting"); err != nil {
		return VSMParams{}, err
	}
	s3, err := vsmSeed003(spec)
	if err != nil {
		return VSMParams{}, err
	}
	th, err := thresholdParam(spec)
	return VSMParams{Threshold: th, Seed003: s3}, err
}

func (p VSMParams) baseThreshold(t *topic.Topic) float64 {
	def := DefaultVSMThreshold
	if p.Seed003 {
		def = DefaultSeed003Threshold
	}
	return orDefault(p.Threshold, def, t)
}

func newVSM(p VSMParams, env Env) (Filter, error) {
	th, err := threshold("vsm", p, env)
	if err != nil {
		return nil, err
	}
	return &VSM{Threshold: th, Seed003: p.Seed003, topic: vsm.FromWeights(env.Model.Terms, env.IDF), idf: env.IDF}, nil
}

// Name implements Filter.
func (f *VSM) Name() string { return "vsm" }

// Judge implements Filter.
func (f *VSM) Judge(p *Page) Verdict {
	var page vsm.Vector
	if f.Seed003 {
		page = vsm.KeywordFW(p.TF, f.topic)
	} else {
		page = vsm.FromTF(p.TF, f.idf)
	}
	s := vsm.Cosine(page, f.topic)
	return Verdict{
		Score:    s,
		Relevant: s >= f.Threshold,
		Reason:   fmt.Sprintf("cosine %.3f vs threshold %.3f", s, f.Threshold),
	}
}
