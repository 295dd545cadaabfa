package relevance

import (
	"maps"
	"math"
	"slices"

	"focuscrawl/internal/vsm"
)

// Feedback re-judgement (strategy.feedback) — focuscrawl's own design, no
// seed document describes it (docs/algorithms.md "Feedback re-judgement").
// Once a crawl is over, its judged pages are scored again with what the
// whole crawl knows, which no page had when it was judged online:
//
//  1. The topic vector is expanded with the centroid of the pages the crawl
//     accepted and its settled split keeps (Rocchio's relevance feedback,
//     positive part only, pseudo-relevant pages as the feedback set):
//     q' = q/|q| + FeedbackBeta · mean(d/|d|). A topic file names a few
//     words; the accepted pages add the vocabulary its targets share
//     (a GIMP tool page's "tool options", "shortcut", "activate").
//  2. Every page's in-link evidence is the mean of all its judged in-link
//     sources' new scores, later-fetched sources included (online, only
//     the sources judged before it counted).
//
// The caller cuts the new scores with the split (ScoreDist) and both
// withdraws and promotes. Measured on the focus evaluation's tuning half
// with the offline page-model evaluator before any real crawl used it
// (docs/evaluation.md, "Feedback re-judgement").

// FeedbackBeta is the weight of the accepted pages' centroid against the
// topic vector (both unit length). Chosen on the tuning half: 0.25–0.75
// raise how well the scores rank targets as much as 1 but the split cuts
// them where it cut before; 0.9–1.5 measured alike; the negative centroid
// (Rocchio's γ) cost more than it gained at every weight tried.
const FeedbackBeta = 1.0

// FeedbackPage is one judged page of a finished crawl.
type FeedbackPage struct {
	TF map[string]int // the page's term frequencies (title twice + text)
	// Positive: accepted online and kept by the crawl's split — a member of
	// the feedback set.
	Positive bool
	Sources  []int // indexes of the judged pages linking to this one
}

// FeedbackScores scores every page against the topic vector (topic term
// weights under idf) expanded with beta times the centroid of the positive
// pages (FeedbackBeta by default; 0: no expansion), each score mixed with
// the mean of its sources' new own scores (MixInLinks; none when they are
// the site's navigation, InLinkEvidence). With no positive
// page the topic vector is used alone.
func FeedbackScores(terms map[string]float64, idf vsm.IDF, pages []FeedbackPage, beta float64) []float64 {
	vecs := make([]sortedVec, len(pages))
	topic := newSortedVec(vsm.FromWeights(terms, idf))
	q := vsm.Vector{}
	if n := topic.norm(); n > 0 {
		q.AddScaled(topic.v, 1/n)
	}
	centroid := vsm.Vector{}
	positives := 0
	for i, p := range pages {
		vecs[i] = newSortedVec(vsm.FromTF(p.TF, idf))
		if p.Positive {
			positives++
			// Each term's sum takes the pages in their order, whatever
			// order a page's map is walked in.
			centroid.AddScaled(vecs[i].v, 1/vecs[i].norm())
		}
	}
	if positives > 0 {
		q.AddScaled(centroid, beta/float64(positives))
	}
	qs := newSortedVec(q)
	own := make([]float64, len(pages))
	for i := range pages {
		own[i] = vecs[i].cosine(qs)
	}
	out := make([]float64, len(pages))
	src := make([]float64, 0, 8)
	for i, p := range pages {
		src = src[:0]
		for _, j := range p.Sources {
			if j != i && j >= 0 && j < len(pages) {
				src = append(src, own[j])
			}
		}
		out[i] = MixInLinks(own[i], InLinkEvidence(src, len(pages)-1)) // every other page was judged
		if own[i] <= 0 {
			out[i] = 0 // in-link evidence alone never accepts a page (ScoreDist.Judge)
		}
	}
	return out
}

// sortedVec is a vector with its terms in a fixed order, so that its norm
// and dot products sum in the same order every time. vsm's map walks are
// in Go's random map order, and floating-point sums in another order differ
// in the last bits: a retried final re-judgement, which scores every page
// again, moved a page across the split on such a difference. The online
// path scores a page once and stores it, so it keeps vsm's faster walks.
type sortedVec struct {
	v    vsm.Vector
	keys []string
	n    float64 // the norm, summed in key order
}

func newSortedVec(v vsm.Vector) sortedVec {
	keys := slices.Sorted(maps.Keys(v))
	sum := 0.0
	for _, t := range keys {
		sum += v[t] * v[t]
	}
	return sortedVec{v: v, keys: keys, n: math.Sqrt(sum)}
}

func (s sortedVec) norm() float64 { return s.n }

// cosine is vsm.Cosine summed in term order.
func (s sortedVec) cosine(o sortedVec) float64 {
	a, b := s, o
	if len(a.keys) > len(b.keys) {
		a, b = b, a
	}
	dot := 0.0
	for _, t := range a.keys {
		if y, ok := b.v[t]; ok {
			dot += a.v[t] * y
		}
	}
	if dot == 0 {
		return 0
	}
	return min(dot/(a.norm()*b.norm()), 1)
}

// FeedbackApplies reports whether feedback re-judgement can score pages for
// page filter s: the vsm filter with tfidf weighting, whose cosine it
// extends. Other filters keep the plain re-judgement.
func FeedbackApplies(s Strategy) bool {
	p, ok := s.Params().(VSMParams)
	return ok && !p.Seed003
}
