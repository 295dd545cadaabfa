package linkmodel

import "math"

// JLSE defaults (seed 002).
const (
	DefaultAnchorWeight  = 0.5
	DefaultURLWeight     = 0.2
	DefaultContextWeight = 0.3
	DefaultReward        = 1.0
	DefaultGamma         = 0.9
	// DefaultBM25Scale is focuscrawl's choice for norm(s) = 1 − exp(−s/scale):
	// the paper normalises the BM25 match score but its formula is lost.
	DefaultBM25Scale = 3.0
	// NegativeAnchorSim is sim_anchor for an anchor NB classifies negative.
	NegativeAnchorSim = 0.01
)

// Vertex is one page of the learned Web link graph G_W with the attribute
// documents of the link that led to it (seed 002's link model u =
// <AnchorText, URL tokens, Context>) and the value of following such a link.
type Vertex struct {
	Hash    string         `json:"hash"`
	Anchor  map[string]int `json:"anchor,omitempty"`
	URL     map[string]int `json:"url,omitempty"`
	Context map[string]int `json:"context,omitempty"`
	Leaf    bool           `json:"leaf,omitempty"` // a result (target) page
	Q       float64        `json:"q"`              // Q(v): best out-edge value
	// Value = (r(v) + γ·Q(v)) / rd, the normalised value of a link into v.
	Value float64 `json:"value"`
}

// JLSE is seed 002's joint link similarity model.
type JLSE struct {
	NB       *NaiveBayes `json:"nb"`
	Vertices []Vertex    `json:"vertices"`
	Edges    int         `json:"edges"`
	Sweeps   int         `json:"sweeps"`

	bm [3]*BM25 // anchor, URL, context; built by Prepare
}

// Prepare builds the BM25 indexes of the vertices' attribute documents.
func (j *JLSE) Prepare() {
	docs := [3][]map[string]int{}
	for _, v := range j.Vertices {
		docs[0] = append(docs[0], v.Anchor)
		docs[1] = append(docs[1], v.URL)
		docs[2] = append(docs[2], v.Context)
	}
	for i := range docs {
		j.bm[i] = NewBM25(docs[i], DefaultK1, DefaultB)
	}
	if j.NB == nil {
		j.NB = NewNaiveBayes()
	}
}

// LinkDoc is a new link's attribute documents as term lists.
type LinkDoc struct {
	Anchor, URL, Context []string
}

// Match maps a link onto G_W: the vertex with the highest weighted BM25
// score 0.5·anchor + 0.2·URL + 0.3·context, its index (−1 if nothing
// matches) and score. Ties go to the lower index (deterministic).
func (j *JLSE) Match(d LinkDoc, w [3]float64) (int, float64) {
	if len(j.Vertices) == 0 {
		return -1, 0
	}
	acc := make([]float64, len(j.Vertices))
	j.bm[0].AddScores(d.Anchor, w[0], acc)
	j.bm[1].AddScores(d.URL, w[1], acc)
	j.bm[2].AddScores(d.Context, w[2], acc)
	best, bs := -1, 0.0
	for i, s := range acc {
		if s > bs {
			best, bs = i, s
		}
	}
	return best, bs
}

// Predicted is sim_predicted = norm(s_j)·Value(v_j) with norm(s) =
// 1 − exp(−s/scale); 0 when nothing matches.
func (j *JLSE) Predicted(d LinkDoc, w [3]float64, scale float64) float64 {
	i, s := j.Match(d, w)
	if i < 0 {
		return 0
	}
	return (1 - math.Exp(-s/scale)) * j.Vertices[i].Value
}

// AnchorSim is sim_anchor: the NB posterior that the anchor leads to a
// result page if NB classifies it positive, else NegativeAnchorSim. ok is
// false when NB has not seen both classes yet.
func (j *JLSE) AnchorSim(anchor map[string]int) (sim float64, ok bool) {
	if j.NB == nil || !j.NB.Trained() {
		return 0, false
	}
	p := j.NB.Posterior(anchor)
	if p >= 0.5 {
		return p, true
	}
	return NegativeAnchorSim, true
}
