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

func init() { Register("vsm", newVSM) }

// VSM is the TF-IDF cosine filter of seeds 000/003: the page's vector
// against the topic vector, accepted at or above Threshold. The page's
// weight of term i is seed 003's F_i · W_i, F_i = count_i / count_max over
// the page's own counts (vsm.FromTFMax); tf: sublinear restores the
// foundation's (1 + log tf) · idf.
//
// Parameters: threshold (default DefaultVSMThreshold), tf (seed003 |
// sublinear, default seed003).
type VSM struct {
	Threshold float64
	Sublinear bool
	topic     vsm.Vector
	idf       vsm.IDF
}

func newVSM(spec topic.Spec, env Env) (Filter, error) {
	if err := checkParams(spec, "threshold", "tf"); err != nil {
		return nil, err
	}
	th, err := threshold(spec, env, DefaultVSMThreshold)
	if err != nil {
		return nil, err
	}
	sub := false
	switch v := spec.Params["tf"]; v {
	case nil, "seed003":
	case "sublinear":
		sub = true
	default:
		return nil, fmt.Errorf("strategy.page_filter %s: parameter tf: %v must be seed003 or sublinear", spec.Name, v)
	}
	return &VSM{Threshold: th, Sublinear: sub, topic: vsm.FromWeights(env.Model.Terms, env.IDF), idf: env.IDF}, nil
}

// Name implements Filter.
func (f *VSM) Name() string { return "vsm" }

// Judge implements Filter.
func (f *VSM) Judge(p *Page) Verdict {
	page := vsm.FromTFMax(p.TF, f.idf)
	if f.Sublinear {
		page = vsm.FromTF(p.TF, f.idf)
	}
	s := vsm.Cosine(page, f.topic)
	return Verdict{
		Score:    s,
		Relevant: s >= f.Threshold,
		Reason:   fmt.Sprintf("cosine %.3f vs threshold %.3f", s, f.Threshold),
	}
}
