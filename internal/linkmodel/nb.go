package linkmodel

import "math"

// NaiveBayes is a two-class (positive = the link led to a result page,
// negative = it led to a rejected page) multinomial naive-Bayes model over
// anchor-text terms with Laplace smoothing (seed 002):
//
//	P(w|c) = (1 + N(w,c)) / (|V| + Σ_w' N(w',c))
type NaiveBayes struct {
	Pos     map[string]int `json:"pos"`
	Neg     map[string]int `json:"neg"`
	PosN    int            `json:"pos_n"` // term totals
	NegN    int            `json:"neg_n"`
	PosDocs int            `json:"pos_docs"`
	NegDocs int            `json:"neg_docs"`
	V       int            `json:"v"` // vocabulary size
}

// NewNaiveBayes returns an empty model.
func NewNaiveBayes() *NaiveBayes {
	return &NaiveBayes{Pos: map[string]int{}, Neg: map[string]int{}}
}

// Add counts one training anchor.
func (nb *NaiveBayes) Add(terms map[string]int, positive bool) {
	for t, c := range terms {
		if nb.Pos[t] == 0 && nb.Neg[t] == 0 {
			nb.V++
		}
		if positive {
			nb.Pos[t] += c
			nb.PosN += c
		} else {
			nb.Neg[t] += c
			nb.NegN += c
		}
	}
	if positive {
		nb.PosDocs++
	} else {
		nb.NegDocs++
	}
}

// Trained reports whether both classes have examples.
func (nb *NaiveBayes) Trained() bool { return nb.PosDocs > 0 && nb.NegDocs > 0 }

// Posterior is P(positive | terms); 0.5 without evidence.
func (nb *NaiveBayes) Posterior(terms map[string]int) float64 {
	if !nb.Trained() {
		return 0.5
	}
	v := float64(nb.V)
	total := float64(nb.PosDocs + nb.NegDocs)
	lp := math.Log(float64(nb.PosDocs) / total)
	ln := math.Log(float64(nb.NegDocs) / total)
	for _, t := range sortedKeys(terms) {
		c := terms[t]
		lp += float64(c) * math.Log((1+float64(nb.Pos[t]))/(v+float64(nb.PosN)))
		ln += float64(c) * math.Log((1+float64(nb.Neg[t]))/(v+float64(nb.NegN)))
	}
	// P(pos) = 1 / (1 + exp(ln − lp)), computed stably.
	return 1 / (1 + math.Exp(ln-lp))
}
