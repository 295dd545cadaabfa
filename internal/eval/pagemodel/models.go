package pagemodel

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"focuscrawl/internal/relevance"
	"focuscrawl/internal/vsm"
)

// Scorer scores page i of a crawl with what the crawl knew when page i
// arrived (pages 0..i): the online view the crawler's filter has.
type Scorer struct {
	Name  string
	Score func(c *Crawl, st *State, i int) float64
}

// State is the crawl-so-far statistics a scorer may read: document
// frequencies over pages 0..i (the crawler's running IDF) and the scores
// already given.
type State struct {
	N      int
	DF     map[string]int
	Scores []float64
	tok    Tokenizer
}

// IDF is the crawl's running IDF (vsm.SmoothIDF over pages 0..i).
func (s *State) IDF() vsm.IDF { return vsm.SmoothIDF(s.N, s.DF) }

// Rule turns the online scores into accept decisions: rule(scores, i)
// decides page i from scores[0..i].
type Rule struct {
	Name   string
	Accept func(scores []float64, i int) bool
}

// Result is one (scorer, rule) on one crawl.
type Result struct {
	P, R, F1 float64
	Accepted int
}

// Replay runs scorer over the crawl in fetch order and returns its online
// scores.
func Replay(c *Crawl, s Scorer, tok Tokenizer) []float64 {
	st := &State{DF: map[string]int{}, tok: tok}
	for i := range c.Docs {
		st.N++
		for t := range c.Docs[i].TF {
			st.DF[t]++
		}
		st.Scores = append(st.Scores, s.Score(c, st, i))
	}
	return st.Scores
}

// Evaluate applies rule to the scores and scores the accepted set.
func Evaluate(c *Crawl, scores []float64, r Rule) Result {
	tp, acc := 0, 0
	for i := range c.Docs {
		if r.Accept(scores, i) && !c.Docs[i].Neutral {
			acc++
			if c.Docs[i].Target {
				tp++
			}
		}
	}
	return prf(tp, acc, c.Targets)
}

func prf(tp, acc, targets int) Result {
	res := Result{Accepted: acc}
	if acc > 0 {
		res.P = float64(tp) / float64(acc)
	}
	if targets > 0 {
		res.R = float64(tp) / float64(targets)
	}
	if res.P+res.R > 0 {
		res.F1 = 2 * res.P * res.R / (res.P + res.R)
	}
	return res
}

// Oracle is the best F1 any fixed threshold on the final scores reaches: how
// well the score ranks targets above the rest, whatever the threshold rule.
func Oracle(c *Crawl, scores []float64) Result {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	best, tp, k := Result{}, 0, 0
	for _, i := range idx {
		if c.Docs[i].Neutral {
			continue
		}
		if c.Docs[i].Target {
			tp++
		}
		k++
		if r := prf(tp, k, c.Targets); r.F1 > best.F1 {
			best = r
		}
	}
	return best
}

// topicVec is the topic vector under the running IDF.
func topicVec(c *Crawl, idf vsm.IDF) vsm.Vector { return vsm.FromWeights(c.Model.Terms, idf) }

// Scorers are the candidate page scores.
func Scorers() []Scorer {
	return []Scorer{
		{Name: "vsm", Score: func(c *Crawl, st *State, i int) float64 {
			idf := st.IDF()
			return vsm.Cosine(vsm.FromTF(c.Docs[i].TF, idf), topicVec(c, idf))
		}},
		{Name: "title", Score: func(c *Crawl, st *State, i int) float64 {
			idf := st.IDF()
			return vsm.Cosine(vsm.FromTF(c.Docs[i].TitleTF, idf), topicVec(c, idf))
		}},
		{Name: "anchor", Score: func(c *Crawl, st *State, i int) float64 {
			idf := st.IDF()
			return vsm.Cosine(vsm.FromTF(st.tok.TermFreq(strings.Join(c.Docs[i].InAnchors, " ")), idf), topicVec(c, idf))
		}},
		{Name: "bm25", Score: func(c *Crawl, st *State, i int) float64 {
			return bm25(c, st, i)
		}},
		{Name: "bm25+in", Score: func(c *Crawl, st *State, i int) float64 {
			return withInLinks(c, st, i, bm25(c, st, i))
		}},
		{Name: "vsm+parent", Score: func(c *Crawl, st *State, i int) float64 {
			idf := st.IDF()
			own := vsm.Cosine(vsm.FromTF(c.Docs[i].TF, idf), topicVec(c, idf))
			if p := c.Docs[i].Parent; p >= 0 {
				return 0.5*own + 0.5*st.Scores[p]
			}
			return own
		}},
		{Name: "vsm+in", Score: func(c *Crawl, st *State, i int) float64 {
			idf := st.IDF()
			return withInLinks(c, st, i, vsm.Cosine(vsm.FromTF(c.Docs[i].TF, idf), topicVec(c, idf)))
		}},
	}
}

// bm25 is a BM25 score of the page against the topic's terms as a weighted
// query (k1 1.2, b 0.75, average length over pages 0..i), normalised by the
// score of a page that had every topic term saturated so it lies in [0, 1).
func bm25(c *Crawl, st *State, i int) float64 {
	const k1, b = 1.2, 0.75
	total := 0
	for j := 0; j <= i; j++ {
		total += docLen(c.Docs[j].TF)
	}
	avg := float64(total) / float64(i+1)
	dl := float64(docLen(c.Docs[i].TF))
	n := float64(st.N)
	var s, max float64
	for t, w := range c.Model.Terms {
		idf := math.Log(1 + (n-float64(st.DF[t])+0.5)/(float64(st.DF[t])+0.5))
		max += w * idf
		tf := float64(c.Docs[i].TF[t])
		if tf == 0 {
			continue
		}
		s += w * idf * tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avg)) / (k1 + 1)
	}
	if max == 0 {
		return 0
	}
	return s / max
}

func docLen(tf map[string]int) int {
	n := 0
	for _, k := range tf {
		n += k
	}
	return n
}

// withInLinks is split acceptance's in-link evidence
// (relevance.MixInLinks): the own score mixed with the mean score of the
// earlier pages linking to page i.
func withInLinks(c *Crawl, st *State, i int, own float64) float64 {
	var src []float64
	for j := 0; j < i; j++ {
		for _, l := range c.Docs[j].Links {
			if l.URL == c.Docs[i].URL {
				src = append(src, st.Scores[j])
				break
			}
		}
	}
	return relevance.MixInLinks(own, relevance.InLinkEvidence(src, i))
}

func fixed(th float64) Rule {
	return Rule{Name: fmt.Sprintf("%.3g", th), Accept: func(s []float64, i int) bool { return s[i] >= th }}
}

// Rules are the candidate threshold rules. "online" rules decide page i
// from scores[0..i] (what the crawler can do); "final" ones from the whole
// crawl's scores (a re-judgement after the crawl — a bound, not shipped).
func Rules() []Rule {
	return []Rule{fixed(0.01), fixed(0.02), fixed(0.05),
		{Name: "otsu online", Accept: func(s []float64, i int) bool { return s[i] >= math.Max(otsu(s[:i+1]), 0.02) }},
		{Name: "otsu log online (split)", Accept: func(s []float64, i int) bool {
			return s[i] >= math.Max(relevance.SplitThreshold(s[:i+1]), 0.02)
		}},
		{Name: "otsu log final", Accept: func(s []float64, i int) bool { return s[i] >= math.Max(relevance.SplitThreshold(s), 0.02) }},
		{Name: "rel .5 final", Accept: func(s []float64, i int) bool { return s[i] >= math.Max(0.5*maxOf(s), 0.02) }},
		{Name: "mean+sd final", Accept: func(s []float64, i int) bool { return s[i] >= math.Max(meanSD(positive(s)), 0.02) }},
	}
}

// otsu is the threshold splitting xs into two groups with the largest
// between-group variance (Otsu's method over the sorted values); 0 for
// fewer than two distinct values.
func otsu(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	v := append([]float64(nil), xs...)
	sort.Float64s(v)
	total := 0.0
	for _, x := range v {
		total += x
	}
	best, th, sum := -1.0, 0.0, 0.0
	n := float64(len(v))
	for k := 1; k < len(v); k++ {
		sum += v[k-1]
		if v[k] == v[k-1] {
			continue
		}
		w0, w1 := float64(k)/n, 1-float64(k)/n
		m0, m1 := sum/float64(k), (total-sum)/(n-float64(k))
		if bv := w0 * w1 * (m0 - m1) * (m0 - m1); bv > best {
			best, th = bv, v[k]
		}
	}
	return th
}

func positive(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if x > 0.005 {
			out = append(out, x)
		}
	}
	return out
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

func meanSD(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m, v := meanVar(xs)
	return m + math.Sqrt(math.Max(v, 0))
}

// meanVar is the mean and (population) variance of xs, which must not be
// empty.
func meanVar(xs []float64) (mean, variance float64) {
	var s, ss float64
	for _, x := range xs {
		s += x
		ss += x * x
	}
	n := float64(len(xs))
	mean = s / n
	return mean, ss/n - mean*mean
}
