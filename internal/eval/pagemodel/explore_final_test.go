package pagemodel

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"focuscrawl/internal/eval/focus"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/vsm"
)

// Exploration of after-the-crawl re-scoring, the offline study behind
// feedback re-judgement (relevance.FeedbackScores; docs/evaluation.md,
// "Feedback re-judgement"), tuning half only:
// PM_LOGS=dir PM_CACHE=var/corpus go test -run TestExploreFinal -v ./internal/eval/pagemodel/
// (dir: the logs of `eval focus --split tune --configs default`).

// finalRescore re-scores every judged page once the crawl is over: the
// topic vector is expanded with the centroid of the pages the default
// accepted and the final split keeps (Rocchio, β), minus γ × the centroid of
// the rest; each page's own cosine against it is mixed with the mean of its
// in-link sources' new own scores (every judged source, earlier or later).
func finalRescore(c *Crawl, st *xstate, beta, gamma float64, posRule string) []float64 {
	n := len(c.Docs)
	df := map[string]int{}
	for _, d := range c.Docs {
		for t := range d.TF {
			df[t]++
		}
	}
	idf := vsm.SmoothIDF(n, df)
	vecs := make([]vsm.Vector, n)
	for i, d := range c.Docs {
		vecs[i] = unit(vsm.FromTF(d.TF, idf))
	}
	th := math.Max(relevance.SplitThreshold(st.Mix), 0.02)
	pos, neg := vsm.Vector{}, vsm.Vector{}
	np, nn := 0, 0
	for i := range c.Docs {
		p := false
		switch posRule {
		case "demote":
			p = st.Acc[i] && st.Mix[i] >= th
		case "split":
			p = st.Mix[i] >= th
		}
		if p {
			add(pos, vecs[i])
			np++
		} else if st.Mix[i] > 0.005 {
			add(neg, vecs[i])
			nn++
		}
	}
	q := unit(topicVec(c, idf))
	if np > 0 {
		for t, x := range pos {
			q[t] += beta * x / float64(np)
		}
	}
	if nn > 0 {
		for t, x := range neg {
			q[t] -= gamma * x / float64(nn)
		}
	}
	for t, x := range q {
		if x <= 0 {
			delete(q, t)
		}
	}
	own := make([]float64, n)
	for i := range c.Docs {
		own[i] = vsm.Cosine(vecs[i], q)
	}
	// all judged in-link sources
	idx := map[string]int{}
	for i, d := range c.Docs {
		idx[d.URL] = i
	}
	src := make([][]int, n)
	for j, d := range c.Docs {
		seen := map[int]bool{}
		for _, l := range d.Links {
			if i, ok := idx[l.URL]; ok && i != j && !seen[i] {
				seen[i] = true
				src[i] = append(src[i], j)
			}
		}
	}
	mix := make([]float64, n)
	for i := range c.Docs {
		var s []float64
		for _, j := range src[i] {
			s = append(s, own[j])
		}
		mix[i] = relevance.MixInLinks(own[i], s)
	}
	return mix
}

func unit(v vsm.Vector) vsm.Vector {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	s = math.Sqrt(s)
	out := vsm.Vector{}
	if s == 0 {
		return out
	}
	for t, x := range v {
		out[t] = x / s
	}
	return out
}

func add(dst, v vsm.Vector) {
	for t, x := range v {
		dst[t] += x
	}
}

func TestExploreFinal(t *testing.T) {
	crawls := loadExplore(t)
	type cand struct {
		name        string
		beta, gamma float64
		pos         string
	}
	cands := []cand{{"no expansion", 0, 0, "demote"}}
	for _, b := range []float64{0.25, 0.5, 0.75, 1, 1.5, 2} {
		for _, g := range []float64{0, 0.25} {
			for _, p := range []string{"demote", "split"} {
				cands = append(cands, cand{fmt.Sprintf("β %.2g γ %.2g pos %s", b, g, p), b, g, p})
			}
		}
	}
	for _, k := range cands {
		per := map[string][]float64{}
		perD := map[string][]float64{}
		var names []string
		orc, base, mean, meanD := 0.0, 0.0, 0.0, 0.0
		for _, c := range crawls {
			st, _ := xreplay(c, xcand{"default", ownVSM, mixMean, ruleSplit(0.02)})
			th0 := math.Max(relevance.SplitThreshold(st.Mix), 0.02)
			base += Evaluate(c, st.Mix, Rule{Accept: func(s []float64, i int) bool { return s[i] >= th0 && st.Acc[i] }}).F1 / float64(len(crawls))
			s := finalRescore(c, st, k.beta, k.gamma, k.pos)
			th := math.Max(relevance.SplitThreshold(s), 0.02)
			r := Evaluate(c, s, Rule{Accept: func(s []float64, i int) bool { return s[i] >= th }})
			rd := Evaluate(c, s, Rule{Accept: func(s []float64, i int) bool { return s[i] >= th && st.Acc[i] }})
			orc += Oracle(c, s).F1 / float64(len(crawls))
			n := strings.TrimPrefix(c.Topic.Name, "eval-")
			if _, ok := per[n]; !ok {
				names = append(names, n)
			}
			per[n] = append(per[n], r.F1)
			perD[n] = append(perD[n], rd.F1)
		}
		line, lineD := "", ""
		for _, n := range names {
			a, d := focus.Summarize(per[n]), focus.Summarize(perD[n])
			mean += a.Mean / float64(len(names))
			meanD += d.Mean / float64(len(names))
			line += fmt.Sprintf(" %s", a)
			lineD += fmt.Sprintf(" %.3f", d.Mean)
		}
		fmt.Printf("%-28s rejudged(default) %.3f | split %.3f:%s | demote-only %.3f:%s | oracle %.3f\n", k.name, base, mean, line, meanD, lineD, orc)
	}
}
