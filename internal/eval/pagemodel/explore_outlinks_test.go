package pagemodel

import (
	"fmt"
	"focuscrawl/internal/textproc"
	"math"
	"os"
	"strings"
	"testing"

	"focuscrawl/internal/relevance"
	"focuscrawl/internal/vsm"
)

// Exploration (tuning half only): after the crawl, does the judged pages'
// link neighbourhood in both directions — the pages a page links to as well
// as the pages linking to it — tell targets from their neighbours better
// than in-links alone? PM_LOGS=dir PM_CACHE=var/corpus go test -run
// TestExploreOutLinks -v ./internal/eval/pagemodel/

// neighbourScores: every judged page's own cosine (whole-crawl IDF) mixed
// with the mean own cosine of its judged in-link sources (wIn) and of its
// judged out-link destinations (wOut), iterated iters times on the mixed
// scores (0: one pass over own scores).
func neighbourScores(c *Crawl, wIn, wOut float64, iters int) []float64 {
	n := len(c.Docs)
	df := map[string]int{}
	for _, d := range c.Docs {
		for t := range d.TF {
			df[t]++
		}
	}
	idf := vsm.SmoothIDF(n, df)
	q := vsm.FromWeights(c.Model.Terms, idf)
	own := make([]float64, n)
	for j, d := range c.Docs {
		own[j] = vsm.Cosine(vsm.FromTF(d.TF, idf), q)
	}
	idx := map[string]int{}
	for i, d := range c.Docs {
		idx[d.URL] = i
	}
	in := make([][]int, n)
	out := make([][]int, n)
	for j, d := range c.Docs {
		seen := map[int]bool{}
		for _, l := range d.Links {
			if i, ok := idx[l.URL]; ok && i != j && !seen[i] {
				seen[i] = true
				in[i] = append(in[i], j)
				out[j] = append(out[j], i)
			}
		}
	}
	cur := own
	for it := 0; it <= iters; it++ {
		next := make([]float64, n)
		for j := range c.Docs {
			if own[j] == 0 {
				continue // a page needs a score of its own
			}
			s, w := (1-wIn-wOut)*own[j], 1-wIn-wOut
			for _, part := range []struct {
				nb []int
				w  float64
			}{{in[j], wIn}, {out[j], wOut}} {
				if len(part.nb) == 0 || part.w == 0 {
					continue
				}
				m := 0.0
				for _, i := range part.nb {
					m += cur[i]
				}
				s += part.w * m / float64(len(part.nb))
				w += part.w
			}
			next[j] = s / w
		}
		cur = next
	}
	return cur
}

func TestExploreOutLinks(t *testing.T) {
	crawls := loadExplore(t)
	type cand struct {
		name      string
		wIn, wOut float64
		iters     int
	}
	cands := []cand{{"own only", 0, 0, 0}, {"in .5 (β=0)", 0.5, 0, 0}}
	for _, w := range [][2]float64{{0.25, 0.25}, {0.33, 0.33}, {0, 0.5}, {0.4, 0.2}, {0.2, 0.4}} {
		for _, it := range []int{0, 2} {
			cands = append(cands, cand{fmt.Sprintf("in %.2g out %.2g it %d", w[0], w[1], it), w[0], w[1], it})
		}
	}
	for _, k := range cands {
		var f1s, dem, orc topicF1s
		for _, c := range crawls {
			st, _ := xreplay(c, xcand{"default", ownVSM, mixMean, ruleSplit(0.02)})
			s := neighbourScores(c, k.wIn, k.wOut, k.iters)
			th := math.Max(relevance.SplitThreshold(s), 0.02)
			f1s.add(c, Evaluate(c, s, Rule{Accept: func(s []float64, i int) bool { return s[i] >= th }}).F1)
			dem.add(c, Evaluate(c, s, Rule{Accept: func(s []float64, i int) bool { return s[i] >= th && st.Acc[i] }}).F1)
			orc.add(c, Oracle(c, s).F1)
		}
		m, line := f1s.summary()
		md, ld := dem.summary()
		mo, _ := orc.summary()
		fmt.Printf("%-22s split %.3f |%s\n%-22s demote %.3f |%s  (oracle %.3f)\n", k.name, m, line, "", md, ld, mo)
	}
}

func TestExploreOutLinksDump(t *testing.T) {
	want := os.Getenv("PM_DUMP")
	if want == "" {
		t.Skip()
	}
	for _, c := range loadExplore(t) {
		if !strings.Contains(c.Log, want) {
			continue
		}
		st, _ := xreplay(c, xcand{"default", ownVSM, mixMean, ruleSplit(0.02)})
		own := neighbourScores(c, 0, 0, 0)
		in := neighbourScores(c, 0.5, 0, 0)
		nb := neighbourScores(c, 0.33, 0.33, 0)
		fmt.Printf("== %s split online-final %.4f own %.4f in %.4f nb %.4f\n", c.Log, relevance.SplitThreshold(st.Mix), relevance.SplitThreshold(own), relevance.SplitThreshold(in), relevance.SplitThreshold(nb))
		for i, d := range c.Docs {
			tg, acc := " ", " "
			if d.Target {
				tg = "T"
			}
			if st.Acc[i] {
				acc = "A"
			}
			fmt.Printf("%3d %s %s online %.4f own %.4f in %.4f nb %.4f %s\n", i, tg, acc, st.Mix[i], own[i], in[i], nb[i], d.URL)
		}
		return
	}
}

// TestExploreLinkShare (tuning half only): would turning down pages made
// mostly of link text (a site's index, a contents page) help the accepted
// set? Replays the default online and final (withdraw-only) decisions and
// drops, at the end, accepted pages whose link words are more than share
// of their words.
func TestExploreLinkShare(t *testing.T) {
	crawls := loadExplore(t)
	tok := textproc.Shared()
	for _, share := range []float64{1.01, 0.9, 0.8, 0.7, 0.6, 0.5} {
		var f1s topicF1s
		dropped, droppedT := 0, 0
		for _, c := range crawls {
			st, _ := xreplay(c, xcand{"default", ownVSM, mixMean, ruleSplit(0.02)})
			th := math.Max(relevance.SplitThreshold(st.Mix), 0.02)
			keep := make([]bool, len(c.Docs))
			for i, d := range c.Docs {
				keep[i] = st.Acc[i] && st.Mix[i] >= th
				if !keep[i] {
					continue
				}
				words := 0
				for _, n := range d.TF {
					words += n
				}
				anchor := 0
				for _, l := range d.Links {
					anchor += len(tok.Tokens(l.Anchor))
				}
				if words > 0 && float64(anchor)/float64(words) > share {
					keep[i] = false
					dropped++
					if d.Target {
						droppedT++
					}
				}
			}
			f1s.add(c, Evaluate(c, st.Mix, Rule{Accept: func(_ []float64, i int) bool { return keep[i] }}).F1)
		}
		m, line := f1s.summary()
		fmt.Printf("share > %.2f dropped %d (targets %d) mean %.3f |%s\n", share, dropped, droppedT, m, line)
	}
}
