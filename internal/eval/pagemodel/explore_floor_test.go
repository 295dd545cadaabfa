package pagemodel

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"focuscrawl/internal/eval/focus"
	"focuscrawl/internal/relevance"
)

// splitFn is a candidate split: the threshold over scores (0: none).
type splitFn func(scores []float64) float64

// splitCand is a split replayed online (f, over the scores judged so far)
// and at the crawl's final withdraw-only re-judgement (fin).
type splitCand struct {
	name   string
	f, fin splitFn
}

// replaySplits replays the default page score with each candidate split
// (the filter's threshold 0.02 the floor, an own score above 0 required)
// and prints the mean over topics of the run-mean F1, and each topic's.
func replaySplits(crawls []*Crawl, cands []splitCand) {
	m5 := mixW(0.5, "mean")
	for _, k := range cands {
		var f1s topicF1s
		for _, c := range crawls {
			st, _ := xreplay(c, xcand{own: ownVSM, mix: m5, rule: func(st *xstate, i int) bool {
				return st.Mix[i] >= math.Max(k.f(st.Mix[:i+1]), 0.02) && st.Own[i] > 0
			}})
			th := math.Max(k.fin(st.Mix), 0.02)
			r := Evaluate(c, st.Mix, Rule{Accept: func(s []float64, i int) bool { return st.Acc[i] && s[i] >= th }})
			f1s.add(c, r.F1)
		}
		mean, line := f1s.summary()
		fmt.Printf("%-18s mean %.3f |%s\n", k.name, mean, line)
	}
}

// floorSplit: the default split over the scores at or above floor only.
func floorSplit(floor float64) splitFn {
	return func(s []float64) float64 {
		var v []float64
		for _, x := range s {
			if x >= floor {
				v = append(v, x)
			}
		}
		return relevance.SplitThreshold(v)
	}
}

// junkSplit: the default split; while its lower group's geometric mean is
// below base (it separated pages the filter's own threshold turns down
// anyway), split the upper group again with the same guard.
func junkSplit(base float64, times int) splitFn {
	return func(s []float64) float64 {
		th := relevance.SplitThreshold(s)
		for range times {
			if th <= 0 {
				break
			}
			lo, n := 0.0, 0
			var up []float64
			for _, x := range s {
				switch {
				case x > 0.005 && x < th:
					lo += math.Log(x)
					n++
				case x >= th:
					up = append(up, x)
				}
			}
			if n == 0 || math.Exp(lo/float64(n)) >= base {
				break
			}
			t2 := relevance.SplitThreshold(up)
			if t2 <= th {
				break
			}
			th = t2
		}
		return th
	}
}

// TestExploreSplitFloor replays the default page score online and at the
// crawl's end (withdraw-only re-judgement) with candidate splits.
func TestExploreSplitFloor(t *testing.T) {
	def := func(s []float64) float64 { return relevance.SplitThreshold(s) }
	replaySplits(loadExplore(t), []splitCand{
		{"default", def, def},
		{"floor 0.02", floorSplit(0.02), floorSplit(0.02)},
		{"final floor", def, floorSplit(0.02)},
		{"final junk x1", def, junkSplit(0.02, 1)},
		{"final junk x3", def, junkSplit(0.02, 3)},
		{"final minority .25", def, minoritySplit(0.02, 0.25)},
		{"final minority .33", def, minoritySplit(0.02, 0.33)},
		{"final minority .5", def, minoritySplit(0.02, 0.5)},
		{"clamp", clampSplit(0.02), clampSplit(0.02)},
		{"final clamp", def, clampSplit(0.02)},
		{"clamp all (0 too)", clampAll(0.02), clampAll(0.02)},
		{"minority .25", minoritySplit(0.02, 0.25), minoritySplit(0.02, 0.25)},
		{"minority .33", minoritySplit(0.02, 0.33), minoritySplit(0.02, 0.33)},
	})
}

// minoritySplit: the default split; if its lower group is below base in
// geometric mean and holds less than frac of the scores, the split of the
// scores at or above base instead.
func minoritySplit(base, frac float64) splitFn {
	return func(s []float64) float64 {
		th := relevance.SplitThreshold(s)
		if th <= 0 {
			return th
		}
		lo, n, all := 0.0, 0, 0
		for _, x := range s {
			if x > 0.005 {
				all++
				if x < th {
					lo += math.Log(x)
					n++
				}
			}
		}
		if n == 0 || math.Exp(lo/float64(n)) >= base || float64(n) >= frac*float64(all) {
			return th
		}
		return floorSplit(base)(s)
	}
}

// clampSplit: the default split over the scores with those below floor
// raised to floor: pages the filter turns down still weigh as the lower
// group, but no longer pull it far down in log space.
func clampSplit(floor float64) splitFn {
	return func(s []float64) float64 {
		v := make([]float64, 0, len(s))
		for _, x := range s {
			if x > 0.005 && x < floor {
				x = floor
			}
			v = append(v, x)
		}
		return relevance.SplitThreshold(v)
	}
}

// clampAll: as clampSplit, zeros included.
func clampAll(floor float64) splitFn {
	return func(s []float64) float64 {
		v := make([]float64, 0, len(s))
		for _, x := range s {
			v = append(v, math.Max(x, floor))
		}
		return relevance.SplitThreshold(v)
	}
}

// TestExploreOwnOrMixed: is a page whose own score reaches the split kept
// whatever its in-links' mix (a user trial saw a 12-page crawl withdraw its
// topic's main page)? Online and at the final withdraw-only re-judgement.
func TestExploreOwnOrMixed(t *testing.T) {
	crawls := loadExplore(t)
	m5 := mixW(0.5, "mean")
	for _, orOwn := range []bool{false, true} {
		var f1s topicF1s
		for _, c := range crawls {
			keep := func(st *xstate, i int, th float64) bool {
				return st.Own[i] > 0 && (st.Mix[i] >= th || (orOwn && st.Own[i] >= th))
			}
			st, _ := xreplay(c, xcand{own: ownVSM, mix: m5, rule: func(st *xstate, i int) bool {
				return keep(st, i, math.Max(relevance.SplitThreshold(st.Mix[:i+1]), 0.02))
			}})
			th := math.Max(relevance.SplitThreshold(st.Mix), 0.02)
			r := Evaluate(c, st.Mix, Rule{Accept: func(s []float64, i int) bool { return st.Acc[i] && keep(st, i, th) }})
			f1s.add(c, r.F1)
		}
		mean, line := f1s.summary()
		fmt.Printf("own or mixed %-5v mean %.3f |%s\n", orOwn, mean, line)
	}
}

// topicF1s collects replayed F1s per topic, in the crawls' order.
type topicF1s struct {
	names []string
	per   map[string][]float64
}

func (f *topicF1s) add(c *Crawl, f1 float64) {
	if f.per == nil {
		f.per = map[string][]float64{}
	}
	n := strings.TrimPrefix(c.Topic.Name, "eval-")
	if _, ok := f.per[n]; !ok {
		f.names = append(f.names, n)
	}
	f.per[n] = append(f.per[n], f1)
}

// summary is the mean over topics of the run-mean F1 and a line of the
// per-topic means.
func (f *topicF1s) summary() (mean float64, line string) {
	for _, n := range f.names {
		s := focus.Summarize(f.per[n])
		mean += s.Mean / float64(len(f.names))
		line += fmt.Sprintf(" %s %.3f", n, s.Mean)
	}
	return mean, line
}

// minGroupSplit: the default split, with each of Otsu's groups holding at
// least m scores above the split's minimum (a split over a handful of pages
// is noise: a user trial's crawl split its first two pages).
func minGroupSplit(m int) splitFn { return minGroupsSplit(m, m) }

// minGroupsSplit: the default split with at least lo scores in the lower
// group and up in the upper one.
func minGroupsSplit(lo, up int) splitFn {
	return func(s []float64) float64 { return relevance.SplitThresholdGroups(s, lo, up) }
}

// TestExploreMinGroup replays the default with a minimum group size for the
// split, online and at the final re-judgement.
func TestExploreMinGroup(t *testing.T) {
	var cands []splitCand
	for _, m := range []int{1, 2, 3, 5, 8} {
		cands = append(cands, splitCand{fmt.Sprintf("min group %d", m), minGroupSplit(m), minGroupSplit(m)})
	}
	for _, m := range []int{2, 3} { // the upper group only
		cands = append(cands, splitCand{fmt.Sprintf("min upper %d", m), minGroupsSplit(1, m), minGroupsSplit(1, m)})
	}
	replaySplits(loadExplore(t), cands)
}
