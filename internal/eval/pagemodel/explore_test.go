package pagemodel

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"focuscrawl/internal/eval/focus"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/vsm"
)

// Exploration harness (not part of the evaluator): PM_LOGS=dir go test
// -run TestExplore ./internal/eval/pagemodel/ -v. Tuning half only.

var (
	exploreOnce   sync.Once
	exploreCrawls []*Crawl
)

func loadExplore(t *testing.T) []*Crawl {
	logs := os.Getenv("PM_LOGS")
	if logs == "" {
		t.Skip("PM_LOGS not set")
	}
	exploreOnce.Do(func() {
		specs, err := focus.Select("tune", nil)
		if err != nil {
			t.Fatal(err)
		}
		tok := textproc.Shared()
		for _, s := range specs {
			c, err := focus.Load(os.Getenv("PM_CACHE"), "../../..", s)
			if err != nil {
				t.Fatal(err)
			}
			for _, tp := range c.Topics {
				ls, _ := filepath.Glob(filepath.Join(logs, fmt.Sprintf("%s-default-[0-9]*.jsonl", tp.Name)))
				sort.Strings(ls)
				for _, l := range ls {
					cr, err := Load(c, tp, l, tok)
					if err != nil {
						t.Fatal(err)
					}
					exploreCrawls = append(exploreCrawls, cr)
				}
			}
		}
	})
	return exploreCrawls
}

func TestExploreDump(t *testing.T) {
	crawls := loadExplore(t)
	want := os.Getenv("PM_DUMP")
	if want == "" {
		t.Skip()
	}
	tok := textproc.Shared()
	var vs, vi Scorer
	for _, s := range Scorers() {
		switch s.Name {
		case "vsm":
			vs = s
		case "vsm+in":
			vi = s
		}
	}
	for _, c := range crawls {
		if !strings.Contains(c.Log, want) {
			continue
		}
		own := Replay(c, vs, tok)
		mix := Replay(c, vi, tok)
		split := Rules()[4]
		fmt.Printf("== %s targets %d\n", c.Log, c.Targets)
		for i, d := range c.Docs {
			tg := " "
			if d.Target {
				tg = "T"
			}
			acc := " "
			if split.Accept(mix, i) {
				acc = "A"
			}
			fmt.Printf("%3d %s %s own %.4f mix %.4f  %s\n", i, tg, acc, own[i], mix[i], strings.TrimPrefix(d.URL, "http://"))
		}
	}
}

// ---- generic online engine: own score, in-link mix, rule, in fetch order.

type xstate struct {
	N        int
	DF       map[string]int
	Own, Mix []float64
	Acc      []bool
	cent     map[string]float64 // sum of accepted pages' unit sublinear-tf vectors
	nacc     int
	inSrc    [][]int // earlier pages linking to page i
}

func (s *xstate) idf() func(string) float64 {
	n := float64(s.N)
	return func(t string) float64 { return math.Log((n+1)/(float64(s.DF[t])+1)) + 1 }
}

type xcand struct {
	name string
	own  func(c *Crawl, st *xstate, i int) float64
	mix  func(st *xstate, own float64, srcs []int) float64
	rule func(st *xstate, i int) bool
}

func inSources(c *Crawl) [][]int {
	idx := map[string]int{}
	for i, d := range c.Docs {
		idx[d.URL] = i
	}
	out := make([][]int, len(c.Docs))
	for j, d := range c.Docs {
		seen := map[int]bool{}
		for _, l := range d.Links {
			if i, ok := idx[l.URL]; ok && i > j && !seen[i] {
				seen[i] = true
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

func xreplay(c *Crawl, k xcand) (*xstate, Result) {
	curCrawl = c
	st := &xstate{DF: map[string]int{}, cent: map[string]float64{}, inSrc: inSources(c)}
	tp, acc := 0, 0
	for i := range c.Docs {
		st.N++
		for t := range c.Docs[i].TF {
			st.DF[t]++
		}
		o := k.own(c, st, i)
		st.Own = append(st.Own, o)
		st.Mix = append(st.Mix, k.mix(st, o, st.inSrc[i]))
		a := k.rule(st, i)
		st.Acc = append(st.Acc, a)
		if a && !c.Docs[i].Neutral {
			acc++
		}
		if a {
			if c.Docs[i].Target {
				tp++
			}
			st.nacc++
			u := unitTF(c.Docs[i].TF)
			for t, x := range u {
				st.cent[t] += x
			}
		}
	}
	return st, prf(tp, acc, c.Targets)
}

func unitTF(tf map[string]int) map[string]float64 {
	v := map[string]float64{}
	s := 0.0
	for t, n := range tf {
		if n > 0 {
			x := 1 + math.Log(float64(n))
			v[t] = x
			s += x * x
		}
	}
	s = math.Sqrt(s)
	for t := range v {
		v[t] /= s
	}
	return v
}

func runCands(t *testing.T, cands []xcand) {
	crawls := loadExplore(t)
	for _, k := range cands {
		per := map[string][]float64{}
		var names []string
		fin, orc, dem := 0.0, 0.0, 0.0
		finT := map[string][]float64{}
		demT := map[string][]float64{}
		for _, c := range crawls {
			st, r := xreplay(c, k)
			n := strings.TrimPrefix(c.Topic.Name, "eval-")
			if _, ok := per[n]; !ok {
				names = append(names, n)
			}
			per[n] = append(per[n], r.F1)
			th := math.Max(relevance.SplitThreshold(st.Mix), 0.02)
			fin += Evaluate(c, st.Mix, Rule{Accept: func(s []float64, i int) bool { return s[i] >= th }}).F1 / float64(len(crawls))
			finT[n] = append(finT[n], Evaluate(c, st.Mix, Rule{Accept: func(s []float64, i int) bool { return s[i] >= th }}).F1)
			orc += Oracle(c, st.Mix).F1 / float64(len(crawls))
			demT[n] = append(demT[n], Evaluate(c, st.Mix, Rule{Accept: func(s []float64, i int) bool { return s[i] >= th && st.Acc[i] }}).F1)
			dem += Evaluate(c, st.Mix, Rule{Accept: func(s []float64, i int) bool { return s[i] >= th && st.Acc[i] }}).F1 / float64(len(crawls))
		}
		if os.Getenv("PM_FINAL") != "" {
			line := ""
			for _, n := range names {
				line += fmt.Sprintf(" %s", focus.Summarize(finT[n]))
			}
			fmt.Printf("%-40s   final %.3f demote-only %.3f oracle %.3f | final:%s\n", k.name, fin, dem, orc, line)
			line = ""
			for _, n := range names {
				line += fmt.Sprintf(" %s", focus.Summarize(demT[n]))
			}
			fmt.Printf("%-40s   demote-only:%s\n", k.name, line)
		}
		mean := 0.0
		line := ""
		for _, n := range names {
			st := focus.Summarize(per[n])
			mean += st.Mean / float64(len(names))
			line += fmt.Sprintf(" %s", st)
		}
		fmt.Printf("%-40s mean %.3f |%s\n", k.name, mean, line)
	}
}

// ---- own scores

func ownVSM(c *Crawl, st *xstate, i int) float64 {
	idf := vsm.IDF(st.idf())
	return vsm.Cosine(vsm.FromTF(c.Docs[i].TF, idf), topicVec(c, idf))
}

// ownCov: weighted share of the topic's terms present in the page.
func ownCov(c *Crawl, st *xstate, i int) float64 {
	idf := st.idf()
	var have, all float64
	for t, w := range c.Model.Terms {
		x := w * idf(t)
		all += x
		if c.Docs[i].TF[t] > 0 {
			have += x
		}
	}
	if all == 0 {
		return 0
	}
	return have / all
}

// ownKW: cosine of the page restricted to topic terms (what mix of topic terms).
func ownKW(c *Crawl, st *xstate, i int) float64 {
	idf := vsm.IDF(st.idf())
	tv := topicVec(c, idf)
	pv := vsm.Vector{}
	for t, n := range c.Docs[i].TF {
		if _, ok := tv[t]; ok && n > 0 {
			pv[t] = (1 + math.Log(float64(n))) * idf(t)
		}
	}
	return vsm.Cosine(pv, tv)
}

// ownSat: cosine with BM25-like saturated tf: tf/(tf+1.2) instead of 1+ln tf.
func ownSat(c *Crawl, st *xstate, i int) float64 {
	idf := vsm.IDF(st.idf())
	pv := vsm.Vector{}
	for t, n := range c.Docs[i].TF {
		if n > 0 {
			pv[t] = float64(n) / (float64(n) + 1.2) * idf(t)
		}
	}
	return vsm.Cosine(pv, topicVec(c, idf))
}

func ownTitle(c *Crawl, st *xstate, i int) float64 {
	idf := vsm.IDF(st.idf())
	return vsm.Cosine(vsm.FromTF(c.Docs[i].TitleTF, idf), topicVec(c, idf))
}

// centroid cosine of page i against accepted pages so far (idf-weighted)
func centCos(c *Crawl, st *xstate, i int) float64 {
	if st.nacc == 0 {
		return 0
	}
	idf := vsm.IDF(st.idf())
	cv := vsm.Vector{}
	for t, x := range st.cent {
		cv[t] = x / float64(st.nacc) * idf(t)
	}
	return vsm.Cosine(vsm.FromTF(c.Docs[i].TF, idf), cv)
}

// ---- mixes

func mixNone(st *xstate, own float64, src []int) float64 { return own }
func mixMean(st *xstate, own float64, src []int) float64 {
	var s []float64
	for _, j := range src {
		s = append(s, st.Mix[j])
	}
	return relevance.MixInLinks(own, s)
}
func mixW(w float64, agg string) func(*xstate, float64, []int) float64 {
	return func(st *xstate, own float64, src []int) float64 {
		if len(src) == 0 {
			return own
		}
		var in float64
		switch agg {
		case "mean":
			for _, j := range src {
				in += st.Mix[j]
			}
			in /= float64(len(src))
		case "max":
			for _, j := range src {
				in = math.Max(in, st.Mix[j])
			}
		case "accmean": // mean over accepted in-linkers only (0 if none accepted)
			k := 0
			for _, j := range src {
				if st.Acc[j] {
					in += st.Mix[j]
					k++
				}
			}
			if k == 0 {
				return own
			}
			in /= float64(k)
		case "geo":
			for _, j := range src {
				in += st.Mix[j]
			}
			in /= float64(len(src))
			return math.Pow(own, 1-w) * math.Pow(in, w)
		case "cap": // in-link lift capped at 2x own
			for _, j := range src {
				in += st.Mix[j]
			}
			in /= float64(len(src))
			return math.Min((1-w)*own+w*in, 2*own)
		}
		return (1-w)*own + w*in
	}
}

// ---- rules

func ruleSplit(floor float64) func(st *xstate, i int) bool {
	return func(st *xstate, i int) bool {
		return st.Mix[i] >= math.Max(relevance.SplitThreshold(st.Mix[:i+1]), floor)
	}
}

func logsAbove(xs []float64) []float64 {
	var ls []float64
	for _, s := range xs {
		if s > 0.005 {
			ls = append(ls, math.Log(s))
		}
	}
	sort.Float64s(ls)
	return ls
}

// kiThreshold: Kittler–Illingworth minimum-error threshold over log scores
// (two Gaussians of their own variance and weight), with Otsu's guard.
func kiThreshold(scores []float64, minRatio float64) float64 {
	ls := logsAbove(scores)
	n := len(ls)
	if n < 4 {
		return 0
	}
	best, th, gap := math.Inf(1), 0.0, 0.0
	for k := 2; k <= n-2; k++ {
		if ls[k] == ls[k-1] {
			continue
		}
		m0, v0 := meanVar(ls[:k])
		m1, v1 := meanVar(ls[k:])
		v0, v1 = math.Max(v0, 1e-4), math.Max(v1, 1e-4)
		p0, p1 := float64(k)/float64(n), float64(n-k)/float64(n)
		j := p0*math.Log(v0)/2 + p1*math.Log(v1)/2 - p0*math.Log(p0) - p1*math.Log(p1)
		if j < best {
			best, th, gap = j, math.Exp(ls[k]), m1-m0
		}
	}
	if gap < math.Log(minRatio) {
		return 0
	}
	return th
}

// otsuGuard: Otsu on logs with a given guard ratio; returns th and whether applied
func otsuLog(scores []float64, minRatio float64) float64 {
	ls := logsAbove(scores)
	n := len(ls)
	if n < 2 {
		return 0
	}
	total := 0.0
	for _, x := range ls {
		total += x
	}
	best, th, gap, sum := -1.0, 0.0, 0.0, 0.0
	for k := 1; k < n; k++ {
		sum += ls[k-1]
		if ls[k] == ls[k-1] {
			continue
		}
		w0 := float64(k) / float64(n)
		d := (total-sum)/float64(n-k) - sum/float64(k)
		if bv := w0 * (1 - w0) * d * d; bv > best {
			best, th, gap = bv, math.Exp(ls[k]), d
		}
	}
	if best < 0 || gap < math.Log(minRatio) {
		return 0
	}
	return th
}

func ruleKI(floor, ratio float64) func(st *xstate, i int) bool {
	return func(st *xstate, i int) bool {
		return st.Mix[i] >= math.Max(kiThreshold(st.Mix[:i+1], ratio), floor)
	}
}

func ruleOtsu(floor, ratio float64) func(st *xstate, i int) bool {
	return func(st *xstate, i int) bool {
		return st.Mix[i] >= math.Max(otsuLog(st.Mix[:i+1], ratio), floor)
	}
}

// ruleOwnToo: mixed above the split and own above frac × split.
func ruleOwnToo(frac float64) func(st *xstate, i int) bool {
	return func(st *xstate, i int) bool {
		th := math.Max(relevance.SplitThreshold(st.Mix[:i+1]), 0.02)
		return st.Mix[i] >= th && st.Own[i] >= frac*th
	}
}

// ruleOwnSplit: mixed above the mixed split and own above the own-score split.
func ruleOwnSplit(st *xstate, i int) bool {
	th := math.Max(relevance.SplitThreshold(st.Mix[:i+1]), 0.02)
	return st.Mix[i] >= th && st.Own[i] >= relevance.SplitThreshold(st.Own[:i+1])
}

func mixOwnSrc(w float64) func(*xstate, float64, []int) float64 {
	return func(st *xstate, own float64, src []int) float64 {
		if len(src) == 0 {
			return own
		}
		in := 0.0
		for _, j := range src {
			in += st.Own[j]
		}
		return (1-w)*own + w*in/float64(len(src))
	}
}

// mixInvDeg: in-link mean weighted by 1/outdegree of the source (hubs count less).
func mixInvDeg(c *Crawl) func(*xstate, float64, []int) float64 {
	return func(st *xstate, own float64, src []int) float64 {
		if len(src) == 0 {
			return own
		}
		var in, ws float64
		for _, j := range src {
			w := 1 / float64(len(c.Docs[j].Links)+1)
			in += w * st.Mix[j]
			ws += w
		}
		return 0.5*own + 0.5*in/ws
	}
}

var curCrawl *Crawl

func ruleWarmEligible(n int) func(st *xstate, i int) bool {
	return func(st *xstate, i int) bool {
		th := relevance.SplitThreshold(st.Mix[:i+1])
		if th == 0 && len(positive(st.Mix[:i+1])) < n {
			return false
		}
		return st.Mix[i] >= math.Max(th, 0.02)
	}
}

// TestExplore prints mean accepted-set F1 over the tuning half's replayed
// crawls for every candidate (docs/evaluation.md, "Page-score and
// acceptance candidates"); PM_FINAL=1 adds the after-the-crawl bounds.
func TestExplore(t *testing.T) {
	m5 := mixW(0.5, "mean")
	geo := func(a, b func(*Crawl, *xstate, int) float64) func(*Crawl, *xstate, int) float64 {
		return func(c *Crawl, st *xstate, i int) float64 { return math.Sqrt(a(c, st, i) * b(c, st, i)) }
	}
	runCands(t, []xcand{
		{"vsm none split", ownVSM, mixNone, ruleSplit(0.02)},
		{"vsm mean.5 split (default)", ownVSM, mixMean, ruleSplit(0.02)},
		// acceptance rules on the default score
		{"vsm mean.5 otsu guard 1.0", ownVSM, m5, ruleOtsu(0.02, 1.0)},
		{"vsm mean.5 otsu guard 2", ownVSM, m5, ruleOtsu(0.02, 2)},
		{"vsm mean.5 KI guard 1.5", ownVSM, m5, ruleKI(0.02, 1.5)},
		{"vsm mean.5 split floor .01", ownVSM, m5, ruleSplit(0.01)},
		{"vsm mean.5 split floor .03", ownVSM, m5, ruleSplit(0.03)},
		{"vsm mean.5 own>=.25 split", ownVSM, m5, ruleOwnToo(0.25)},
		{"vsm mean.5 own>=.5 split", ownVSM, m5, ruleOwnToo(0.5)},
		{"vsm mean.5 own>=own split", ownVSM, m5, ruleOwnSplit},
		{"vsm mean.5 warm 3", ownVSM, m5, ruleWarmEligible(3)},
		{"vsm mean.5 warm 5", ownVSM, m5, ruleWarmEligible(5)},
		{"vsm mean.5 warm 10 (split-warm)", ownVSM, m5, ruleWarmEligible(10)},
		{"vsm mean.5 warm 20", ownVSM, m5, ruleWarmEligible(20)},
		{"vsm mean.5 warm 40", ownVSM, m5, ruleWarmEligible(40)},
		// in-link evidence variants
		{"vsm mean.3 split", ownVSM, mixW(0.3, "mean"), ruleSplit(0.02)},
		{"vsm mean.7 split", ownVSM, mixW(0.7, "mean"), ruleSplit(0.02)},
		{"vsm max.5 split", ownVSM, mixW(0.5, "max"), ruleSplit(0.02)},
		{"vsm accepted-mean.5 split", ownVSM, mixW(0.5, "accmean"), ruleSplit(0.02)},
		{"vsm geo.5 split", ownVSM, mixW(0.5, "geo"), ruleSplit(0.02)},
		{"vsm cap2x.5 split", ownVSM, mixW(0.5, "cap"), ruleSplit(0.02)},
		{"vsm own-of-sources.5 split", ownVSM, mixOwnSrc(0.5), ruleSplit(0.02)},
		{"vsm 1/outdegree.5 split", ownVSM, func(st *xstate, own float64, src []int) float64 { return mixInvDeg(curCrawl)(st, own, src) }, ruleSplit(0.02)},
		// own page scores (with the default in-link mix and split)
		{"coverage mean.5 split", ownCov, m5, ruleSplit(0.02)},
		{"topic-terms cosine mean.5 split", ownKW, m5, ruleSplit(0.02)},
		{"saturated-tf cosine mean.5 split", ownSat, m5, ruleSplit(0.02)},
		{"sqrt(vsm*coverage) mean.5 split", geo(ownVSM, ownCov), m5, ruleSplit(0.02)},
		{"sqrt(vsm*topic-terms) mean.5 split", geo(ownVSM, ownKW), m5, ruleSplit(0.02)},
		{".7 vsm + .3 title mean.5 split", func(c *Crawl, st *xstate, i int) float64 { return 0.7*ownVSM(c, st, i) + 0.3*ownTitle(c, st, i) }, m5, ruleSplit(0.02)},
		{".8 vsm + .2 coverage*max mean.5 split", func(c *Crawl, st *xstate, i int) float64 {
			return 0.8*ownVSM(c, st, i) + 0.2*ownCov(c, st, i)*maxOf(st.Own[:i])
		}, m5, ruleSplit(0.02)},
		{"rocchio .5 mean.5 split", func(c *Crawl, st *xstate, i int) float64 {
			return 0.5*ownVSM(c, st, i) + 0.5*centCos(c, st, i)*maxOf(st.Own[:i])
		}, m5, ruleSplit(0.02)},
		{"rocchio .2 mean.5 split", func(c *Crawl, st *xstate, i int) float64 {
			return 0.8*ownVSM(c, st, i) + 0.2*centCos(c, st, i)*maxOf(st.Own[:i])
		}, m5, ruleSplit(0.02)},
	})
}

// ruleOwnMin: the default split, and own score at least min: in-link
// evidence lifts only a page with some evidence of its own.
func ruleOwnMin(min float64) func(st *xstate, i int) bool {
	return func(st *xstate, i int) bool {
		th := math.Max(relevance.SplitThreshold(st.Mix[:i+1]), 0.02)
		return st.Mix[i] >= th && st.Own[i] >= min
	}
}

// TestExploreOwnMin: does an absolute minimum own score (a page sharing no
// topic term is never accepted on in-link evidence alone) change F1?
func TestExploreOwnMin(t *testing.T) {
	m5 := mixW(0.5, "mean")
	runCands(t, []xcand{
		{"vsm mean.5 split (default)", ownVSM, m5, ruleSplit(0.02)},
		{"vsm mean.5 split own>0", ownVSM, m5, ruleOwnMin(1e-12)},
		{"vsm mean.5 split own>=.005", ownVSM, m5, ruleOwnMin(0.005)},
		{"vsm mean.5 split own>=.01", ownVSM, m5, ruleOwnMin(0.01)},
		{"vsm mean.5 split own>=.02", ownVSM, m5, ruleOwnMin(0.02)},
	})
}
