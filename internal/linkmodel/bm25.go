package linkmodel

import "math"

// BM25 parameters of seed 002.
const (
	DefaultK1 = 2.0
	DefaultB  = 0.75
)

// BM25 is an inverted index over a fixed corpus of term-frequency documents,
// scoring a query with Okapi BM25:
//
//	score(q, D) = Σ_{t∈q} idf(t) · f(t,D)·(k1+1) / (f(t,D) + k1·(1 − b + b·|D|/avgdl))
//	idf(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
//
// (the non-negative idf variant, so a term in most documents never
// subtracts). Query terms are counted once each.
type BM25 struct {
	K1, B    float64
	n        int
	avgdl    float64
	dl       []float64
	postings map[string][]posting
}

type posting struct {
	doc int32
	tf  float64
}

// NewBM25 indexes docs (term → count).
func NewBM25(docs []map[string]int, k1, b float64) *BM25 {
	x := &BM25{K1: k1, B: b, n: len(docs), dl: make([]float64, len(docs)), postings: map[string][]posting{}}
	total := 0.0
	for i, d := range docs {
		for t, c := range d {
			x.dl[i] += float64(c)
			x.postings[t] = append(x.postings[t], posting{int32(i), float64(c)})
		}
		total += x.dl[i]
	}
	if x.n > 0 {
		x.avgdl = total / float64(x.n)
	}
	return x
}

// IDF is the BM25 idf of a term.
func (x *BM25) IDF(term string) float64 {
	nt := float64(len(x.postings[term]))
	return math.Log(1 + (float64(x.n)-nt+0.5)/(nt+0.5))
}

// AddScores adds weight·BM25(query, D) to acc[D] for every document.
func (x *BM25) AddScores(query []string, weight float64, acc []float64) {
	if x.avgdl == 0 {
		return
	}
	seen := map[string]bool{}
	for _, t := range query {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := x.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := x.IDF(t)
		for _, p := range ps {
			norm := x.K1 * (1 - x.B + x.B*x.dl[p.doc]/x.avgdl)
			acc[p.doc] += weight * idf * p.tf * (x.K1 + 1) / (p.tf + norm)
		}
	}
}

// Score is BM25(query, doc i).
func (x *BM25) Score(query []string, i int) float64 {
	acc := make([]float64, x.n)
	x.AddScores(query, 1, acc)
	return acc[i]
}
