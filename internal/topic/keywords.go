package topic

import (
	"math"
	"sort"
)

// Keyword library "TopicLib" of seed 003: the topic's keywords are found by
// TF-IDF over its sample pages, then reviewed by hand. focuscrawl merges the
// hand-given keywords (which win) with the library built here.

// TFIDFNormalized is seed 003's weight of every term i of document j:
//
//	W_ij = tf_ij·idf_i / sqrt(Σ_k (tf_kj·idf_k)²)
//
// i.e. the TF-IDF vector scaled to unit length. Terms with zero weight are
// left out; an all-zero document gives an empty map.
func TFIDFNormalized(tf map[string]int, idf func(term string) float64) map[string]float64 {
	out := make(map[string]float64, len(tf))
	// The norm is summed in term order: floating-point addition is not
	// associative, and map order would make equal inputs differ in the last
	// bits (and StartCrawl's retries store a "changed" topic model).
	terms := make([]string, 0, len(tf))
	for t := range tf {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	sum := 0.0
	for _, t := range terms {
		w := float64(tf[t]) * idf(t)
		if w > 0 {
			out[t] = w
			sum += w * w
		}
	}
	if sum == 0 {
		return map[string]float64{}
	}
	norm := math.Sqrt(sum)
	for t := range out {
		out[t] /= norm
	}
	return out
}

// PaperIDF is seed 003's idf_i = log(N/n_i) over a collection of N documents
// in which term i occurs in n_i. A term in every document weighs 0.
func PaperIDF(docs []map[string]int) func(string) float64 {
	n, df := docFreq(docs)
	return func(t string) float64 {
		if df[t] == 0 {
			return 0
		}
		return math.Log(n / float64(df[t]))
	}
}

// SampleIDF is the IDF focuscrawl uses for the keyword library:
// log(1 + N/n_i). Seed 003 leaves the corpus open; over the topic's own
// sample pages the literal log(N/n_i) would zero exactly the terms every
// sample shares — the most topical ones — and everything when there is one
// sample. The +1 keeps them while still favouring terms that are
// concentrated in few samples.
func SampleIDF(docs []map[string]int) func(string) float64 {
	n, df := docFreq(docs)
	return func(t string) float64 {
		if df[t] == 0 {
			return 0
		}
		return math.Log(1 + n/float64(df[t]))
	}
}

func docFreq(docs []map[string]int) (float64, map[string]int) {
	df := map[string]int{}
	for _, d := range docs {
		for t, c := range d {
			if c > 0 {
				df[t]++
			}
		}
	}
	return float64(len(docs)), df
}

// KeywordLibrary builds the library from sample pages' term frequencies: the
// mean over samples of W_ij (TFIDFNormalized with idf), max-normalised so the
// strongest term weighs 1, keeping the size best terms (ties by name).
func KeywordLibrary(samples []map[string]int, idf func(string) float64, size int) map[string]float64 {
	if len(samples) == 0 {
		return map[string]float64{}
	}
	sum := map[string]float64{}
	for _, tf := range samples {
		for t, w := range TFIDFNormalized(tf, idf) {
			sum[t] += w / float64(len(samples))
		}
	}
	maxW := 0.0
	for _, w := range sum {
		maxW = math.Max(maxW, w)
	}
	if maxW == 0 {
		return map[string]float64{}
	}
	for t := range sum {
		sum[t] /= maxW
	}
	if size > 0 && len(sum) > size {
		sum = topN(sum, size)
	}
	return sum
}

func topN(terms map[string]float64, n int) map[string]float64 {
	keys := make([]string, 0, len(terms))
	for k := range terms {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if terms[keys[i]] != terms[keys[j]] {
			return terms[keys[i]] > terms[keys[j]]
		}
		return keys[i] < keys[j]
	})
	out := make(map[string]float64, n)
	for _, k := range keys[:n] {
		out[k] = terms[k]
	}
	return out
}
