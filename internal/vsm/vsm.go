// Package vsm is the vector space model shared by page filters and link
// predictors: TF-IDF weighting and cosine similarity over sparse term
// vectors (seed documents 000, 001 and 003).
//
// Weights: a document term gets (1 + ln tf) · idf, a topic term gets its
// topic weight · idf. IDF comes from the running document frequencies of the
// topic's crawled pages: idf = ln((N+1)/(df+1)) + 1, which stays positive and
// finite while the crawl is young (N small) and sharpens as it grows.
package vsm

import "math"

// Vector is a sparse term → weight vector.
type Vector map[string]float64

// IDF returns the inverse document frequency of a term.
type IDF func(term string) float64

// Flat is the IDF of an empty collection: every term weighs 1.
func Flat(string) float64 { return 1 }

// SmoothIDF builds an IDF from a collection size and document frequencies.
// Terms missing from df are treated as unseen (df = 0).
func SmoothIDF(docs int, df map[string]int) IDF {
	n := float64(docs)
	return func(term string) float64 {
		return math.Log((n+1)/(float64(df[term])+1)) + 1
	}
}

// FromTF weights raw term frequencies with sublinear tf and idf.
func FromTF(tf map[string]int, idf IDF) Vector {
	v := make(Vector, len(tf))
	for t, n := range tf {
		if n > 0 {
			v[t] = (1 + math.Log(float64(n))) * idf(t)
		}
	}
	return v
}

// KeywordFW is seed 003's page vector over a keyword library W (a topic
// vector): the page's weight of keyword i is F_i · W_i with F_i = count_i /
// count_max, count_max being the count of the page's most frequent keyword
// (seed 003 Step 3: the most frequent word is the base, F = 1). Terms
// outside W are not dimensions of the space (docs/algorithms.md "vsm page
// filter").
func KeywordFW(tf map[string]int, w Vector) Vector {
	maxN := 0
	for t, n := range tf {
		if w[t] != 0 {
			maxN = max(maxN, n)
		}
	}
	v := Vector{}
	if maxN == 0 {
		return v
	}
	for t, n := range tf {
		if x := w[t]; x != 0 && n > 0 {
			v[t] = float64(n) / float64(maxN) * x
		}
	}
	return v
}

// FromWeights applies idf to explicit weights (a topic vector).
func FromWeights(w map[string]float64, idf IDF) Vector {
	v := make(Vector, len(w))
	for t, x := range w {
		v[t] = x * idf(t)
	}
	return v
}

// Norm is the Euclidean length of v.
func (v Vector) Norm() float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// Cosine is sim(D1,D2) = Σ w1k·w2k / sqrt(Σ w1k² · Σ w2k²), 0 when either
// vector is empty, at most 1: two parallel vectors' quotient rounds to
// 1.0000000000000002 about as often as not, and the page filters' scores
// built on it are documented in [0,1].
func Cosine(a, b Vector) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	dot := 0.0
	for t, x := range a {
		if y, ok := b[t]; ok {
			dot += x * y
		}
	}
	if dot == 0 {
		return 0
	}
	return min(dot/(a.Norm()*b.Norm()), 1)
}

// Unit is v scaled to length 1, a new vector (v itself when empty or zero).
func (v Vector) Unit() Vector {
	n := v.Norm()
	if n == 0 {
		return v
	}
	out := make(Vector, len(v))
	for t, x := range v {
		out[t] = x / n
	}
	return out
}

// AddScaled adds s·w to v in place (nothing for a zero or non-finite s: a
// zero vector's 1/norm).
func (v Vector) AddScaled(w Vector, s float64) {
	if s == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return
	}
	for t, x := range w {
		v[t] += s * x
	}
}
