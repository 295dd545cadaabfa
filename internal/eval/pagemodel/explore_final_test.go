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

// finalRescore re-scores every judged page once the crawl is over with
// relevance.FeedbackScores (the design the crawler uses, β swept): the feedback set
// is the pages the default accepted and the final split keeps ("demote"),
// or every page above the final split ("split"). With gamma > 0 (an
// exploration the crawler does not have) gamma × the centroid of the other
// judged pages is taken off the expanded topic vector first.
func finalRescore(c *Crawl, st *xstate, beta, gamma float64, posRule string) []float64 {
	n := len(c.Docs)
	df := map[string]int{}
	for _, d := range c.Docs {
		for t := range d.TF {
			df[t]++
		}
	}
	idf := vsm.SmoothIDF(n, df)
	th := math.Max(relevance.SplitThreshold(st.Mix), 0.02)
	idx := map[string]int{}
	for i, d := range c.Docs {
		idx[d.URL] = i
	}
	pages := make([]relevance.FeedbackPage, n)
	for j, d := range c.Docs {
		pages[j].TF = d.TF
		switch posRule {
		case "demote":
			pages[j].Positive = st.Acc[j] && st.Mix[j] >= th
		case "split":
			pages[j].Positive = st.Mix[j] >= th
		}
		seen := map[int]bool{}
		for _, l := range d.Links {
			if i, ok := idx[l.URL]; ok && i != j && !seen[i] {
				seen[i] = true
				pages[i].Sources = append(pages[i].Sources, j)
			}
		}
	}
	if gamma == 0 {
		return relevance.FeedbackScores(c.Model.Terms, idf, pages, beta)
	}
	// Rocchio with a negative part: the expanded vector less gamma × the
	// mean unit vector of the other judged pages (score > 0.005).
	q := vsm.FromWeights(c.Model.Terms, idf).Unit()
	pos, neg := vsm.Vector{}, vsm.Vector{}
	np, nn := 0, 0
	vecs := make([]vsm.Vector, n)
	for j := range pages {
		vecs[j] = vsm.FromTF(pages[j].TF, idf).Unit()
		if pages[j].Positive {
			pos.AddScaled(vecs[j], 1)
			np++
		} else if st.Mix[j] > 0.005 {
			neg.AddScaled(vecs[j], 1)
			nn++
		}
	}
	if np > 0 {
		q.AddScaled(pos, beta/float64(np))
	}
	if nn > 0 {
		q.AddScaled(neg, -gamma/float64(nn))
	}
	for t, x := range q {
		if x <= 0 {
			delete(q, t)
		}
	}
	own := make([]float64, n)
	for j := range pages {
		own[j] = vsm.Cosine(vecs[j], q)
	}
	mix := make([]float64, n)
	for j, p := range pages {
		var src []float64
		for _, i := range p.Sources {
			src = append(src, own[i])
		}
		mix[j] = relevance.MixInLinks(own[j], src)
	}
	return mix
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
