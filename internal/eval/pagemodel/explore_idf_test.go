package pagemodel

import (
	"math"
	"testing"

	"focuscrawl/internal/vsm"
)

// Exploration of the IDF a crawl's page scores use (tuning half only):
// PM_LOGS=dir PM_CACHE=var/corpus go test -run TestExploreIDF -v ./internal/eval/pagemodel/
// The crawler's IDF is the crawl's own (every page fetched so far); a
// focused crawl's pages share the topic's words, so the longer it stays on
// topic the less those words weigh.

// idfOver is the smoothed IDF over the pages j < i (and page i) that keep
// returns true for.
func idfOver(c *Crawl, i int, keep func(j int) bool) vsm.IDF {
	df := map[string]int{}
	n := 0
	for j := 0; j <= i; j++ {
		if j < i && !keep(j) {
			continue
		}
		n++
		for t := range c.Docs[j].TF {
			df[t]++
		}
	}
	return vsm.SmoothIDF(n, df)
}

func cosWith(c *Crawl, i int, idf vsm.IDF) float64 {
	return vsm.Cosine(vsm.FromTF(c.Docs[i].TF, idf), topicVec(c, idf))
}

func TestExploreIDF(t *testing.T) {
	m5 := mixW(0.5, "mean")
	frozen := func(k int) func(*Crawl, *xstate, int) float64 {
		return func(c *Crawl, st *xstate, i int) float64 {
			return cosWith(c, i, idfOver(c, i, func(j int) bool { return j < k }))
		}
	}
	rejected := func(c *Crawl, st *xstate, i int) float64 {
		return cosWith(c, i, idfOver(c, i, func(j int) bool { return !st.Acc[j] }))
	}
	// topic vector weighted by the user's weights only; the page's by IDF.
	flatTopic := func(c *Crawl, st *xstate, i int) float64 {
		idf := vsm.IDF(st.idf())
		return vsm.Cosine(vsm.FromTF(c.Docs[i].TF, idf), vsm.FromWeights(c.Model.Terms, vsm.Flat))
	}
	// topic terms keep the IDF of the rarest half: df counted at most at
	// half the pages.
	capped := func(c *Crawl, st *xstate, i int) float64 {
		n := float64(st.N)
		idf := func(t string) float64 {
			df := float64(st.DF[t])
			if _, ok := c.Model.Terms[t]; ok {
				df = math.Min(df, n/2)
			}
			return math.Log((n+1)/(df+1)) + 1
		}
		return cosWith(c, i, idf)
	}
	final := func(c *Crawl, st *xstate, i int) float64 {
		return cosWith(c, i, idfOver(c, len(c.Docs)-1, func(int) bool { return true }))
	}
	runCands(t, []xcand{
		{"vsm mean.5 split (default)", ownVSM, m5, ruleSplit(0.02)},
		{"idf frozen at 10 pages", frozen(10), m5, ruleSplit(0.02)},
		{"idf frozen at 20 pages", frozen(20), m5, ruleSplit(0.02)},
		{"idf frozen at 30 pages", frozen(30), m5, ruleSplit(0.02)},
		{"idf frozen at 50 pages", frozen(50), m5, ruleSplit(0.02)},
		{"idf frozen at 100 pages", frozen(100), m5, ruleSplit(0.02)},
		{"idf over rejected pages", rejected, m5, ruleSplit(0.02)},
		{"topic vector without idf", flatTopic, m5, ruleSplit(0.02)},
		{"topic terms' df capped at n/2", capped, m5, ruleSplit(0.02)},
		{"idf of the whole crawl (offline)", final, m5, ruleSplit(0.02)},
	})
}
