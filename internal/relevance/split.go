package relevance

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// Crawl-relative acceptance (strategy.accept: split) — focuscrawl's own
// design, no seed document describes it (docs/algorithms.md "Crawl-relative
// acceptance"). Two changes to how a page filter's score becomes "accepted":
//
//  1. In-link evidence: the page's score is mixed half and half with the
//     mean score of the already-judged pages that link to it
//     (MixInLinks). Pages of one chapter link to each other (its table of
//     contents, previous/next), so the mix pulls a chapter's pages together
//     and pushes a neighbouring chapter's pages, linked mostly from their
//     own chapter, apart — topical locality used on the page side.
//  2. A threshold learned from the crawl's own score distribution instead
//     of a fixed cosine: Otsu's two-group split of the logarithms of the
//     scores judged so far (SplitThreshold), never below the filter's own
//     threshold. Cosines differ by an order of magnitude between topics and
//     languages (a Chinese topic on a half-translated manual scores its
//     targets around 0.01, an English one around 0.1), which no fixed
//     threshold serves; the split follows each crawl's own scale.
//
// And one guard: a page whose own score is 0 is not accepted, however high
// its in-linkers lift the mix (it shares no word with the topic).
//
// A page the split rejects but whose own score reached the filter's
// threshold is still expanded (decision tunnel), and so is one the guard
// alone keeps out, so the crawl's path is that of the rule without them:
// only the accepted set changes.

// splitMinScore is the score below which a page does not enter the split:
// off-site and empty pages score 0 and would make the split "zero vs the
// rest" (a value, not a tuned parameter: any score below the filters'
// thresholds behaves the same).
const splitMinScore = 0.005

// splitMinRatio is how far apart the split's two groups must be — the
// upper group's geometric mean at least this multiple of the lower's — for
// the split to apply. Otsu always cuts a sample in two; without this guard a
// crawl whose pages are all on topic (an on-topic seed, a small site) has
// its lower half turned down (found by the e2e tests, whose seeds are on
// topic). 1.5 was chosen on the focus evaluation's tuning half with the
// offline evaluator (2 cost install-zh media most of its gain, 1.3 and 1.5
// measured the same; docs/evaluation.md), one value for every topic.
const splitMinRatio = 1.5

// splitMinUpper is the fewest pages the split's upper group — the pages it
// accepts — must hold. Otsu cuts any two distinct scores apart: a crawl's
// first two judged pages, 1.7x apart, set a split that turned down the next
// on-topic pages of a user trial (Git's manual) for good (the re-judgement
// withdraws, it never promotes). With one page above the cut the split
// would turn the crawl down on that one page's evidence; two is the least
// that is a group at all. A lower group of one stays possible: one page far
// below the rest is what a split is for. Not a tuned value
// (docs/evaluation.md, *A split needs two pages above it*, has the replay).
const splitMinUpper = 2

// inLinkWeight is the in-link evidence's share of the mixed score.
const inLinkWeight = 0.5

// A page linked from navMinSources or more judged pages, and from at least
// navShare of all the crawl's judged pages before it, is linked by the
// site's navigation — a table of contents on every page — and its in-links
// say nothing about it: InLinkEvidence drops them. Found in a user trial
// (the LilyPond manual, whose every page links all 130 others): from the
// tenth page on, every page's mixed score was half its own and half the
// crawl's mean, so the scores were pressed together (0.21–0.47 from own
// cosines 0.06–0.56), the split never applied, and all 58 pages were
// accepted, the licence page among them. Not tuned values: a half is a
// majority of the pages, and five sources are more than a chapter's
// previous, next, up and contents links.
const (
	navShare      = 0.5
	navMinSources = 5
)

// Navigation reports whether a page's judged in-linkers, sources of the
// judged pages of its crawl, are the site's navigation: navMinSources at
// least and navShare of them. Both counts must come from one view of the
// crawl (a worker's sample of it, say).
func Navigation(sources, judged int) bool {
	return sources >= navMinSources && float64(sources) >= navShare*float64(judged)
}

// InLinkEvidence returns the in-link sources' scores a page's mixed score
// reads: sources, or none when they are the site's navigation (Navigation,
// against the judged pages before the page).
func InLinkEvidence(sources []float64, judged int) []float64 {
	if Navigation(len(sources), judged) {
		return nil
	}
	return sources
}

// SameSite reports whether hosts a and b are one site for in-link
// evidence (urlnorm.SameSite: the same host but for a leading "www.";
// "" is no host and never the same).
func SameSite(a, b string) bool {
	return urlnorm.SameSite(a, b)
}

// MixInLinks mixes a page's own score with the mean of its judged in-link
// sources' scores (inLinkWeight); with no judged source the own score is
// returned unchanged.
func MixInLinks(own float64, sources []float64) float64 {
	if len(sources) == 0 {
		return own
	}
	sum := 0.0
	for _, s := range sources {
		sum += s
	}
	return (1-inLinkWeight)*own + inLinkWeight*sum/float64(len(sources))
}

// SplitThreshold is Otsu's threshold over the logarithms of the scores
// above splitMinScore: the value separating them into two groups, the upper
// one of at least splitMinUpper scores, with the largest between-group
// variance. 0 when no such split exists or the two groups' geometric means
// differ by less than splitMinRatio (the caller's own threshold then applies
// alone).
func SplitThreshold(scores []float64) float64 {
	return SplitThresholdGroups(scores, 1, splitMinUpper)
}

// SplitThresholdGroups is SplitThreshold with at least minLower scores in
// the lower group and minUpper in the upper one (the evaluation's replays
// compare minimums with it).
func SplitThresholdGroups(scores []float64, minLower, minUpper int) float64 {
	var vs []float64
	for _, s := range scores {
		if s > splitMinScore {
			vs = append(vs, s)
		}
	}
	if len(vs) < 2 {
		return 0
	}
	sort.Float64s(vs)
	ls := make([]float64, len(vs))
	total := 0.0
	for i, v := range vs {
		ls[i] = math.Log(v)
		total += ls[i]
	}
	n := float64(len(ls))
	best, th, gap, sum := -1.0, 0.0, 0.0, 0.0
	for k := 1; k < len(ls); k++ {
		sum += ls[k-1]
		if ls[k] == ls[k-1] || k < minLower || len(ls)-k < minUpper {
			continue
		}
		w0, w1 := float64(k)/n, 1-float64(k)/n
		d := (total-sum)/(n-float64(k)) - sum/float64(k) // upper minus lower mean log
		if bv := w0 * w1 * d * d; bv > best {
			best, th, gap = bv, vs[k], d // th: the upper group's lowest score
		}
	}
	if best < 0 || gap < math.Log(splitMinRatio) {
		return 0
	}
	return th
}

// The crawl's score distribution is kept as a fixed-bin histogram of the
// logarithms of the scores above splitMinScore (ScoreDist), so finding the
// split costs splitBins steps whatever the crawl's size. Each bin keeps its
// count and the exact sum of its logarithms, so a cut between two bins has
// exactly the between-group variance SplitThreshold computes for it; the
// histogram only cannot cut inside a bin. splitBins bins over
// [ln splitMinScore, ln 1] are 0.0013 wide in log — scores 0.13% apart —
// far below the spread of a crawl's scores; scores above 1 (no page filter's
// cosine reaches it) share the top bin. The tuning-half re-run measured the
// same acceptance as the exact split (docs/evaluation.md).
const splitBins = 4096

var splitLogMin = math.Log(splitMinScore)

// splitBin is the histogram bin of score s > splitMinScore.
func splitBin(s float64) int {
	b := int((math.Log(s) - splitLogMin) / -splitLogMin * splitBins)
	return min(max(b, 0), splitBins-1)
}

// splitEdge is the lowest score of bin b (for reasons; decisions compare bins).
func splitEdge(b int) float64 {
	return math.Exp(splitLogMin - splitLogMin*float64(b)/splitBins)
}

// BelowSplitMark ends the reason of a page whose own score passed the
// filter's threshold but whose mixed score fell below the crawl's split
// (the final re-judgement may promote it: activities.RejudgeCrawl).
const BelowSplitMark = "; below the split: expanded, not accepted"

// ScoreDist is the distribution of a crawl's judged pages' scores: each
// page's latest score by URL hash and the histogram split acceptance cuts.
// Recording a page again replaces its score, so a retried group never
// counts a page twice. Not safe for concurrent use.
type ScoreDist struct {
	byHash map[string]float64
	pages  int // pages recorded, scores of 0 included (byHash of a fork holds only its group's)
	n      [splitBins]int
	sum    [splitBins]float64 // Σ ln score per bin
	scale  float64            // SetSplitScale's factor; 0 means 1
}

// SetSplitScale sets the factor the split's edge is multiplied by before a
// score is compared with it: the topic's breadth (topic.ThresholdFactor,
// 0.6 broad, 1.5 specific), which scales a filter's default threshold and,
// since the split is the threshold split acceptance computes, the split
// too — so `breadth: specific` makes a crawl stricter under split
// acceptance as it does under a fixed threshold (without it, breadth moved
// only the filter's threshold of 0.02, which the split almost always
// exceeds). The scaled edge stays between the two groups' geometric means:
// a tight upper group (every page at 0.3, its edge 0.3) is not turned down
// whole by a factor of 1.5, nor a tight lower group let in whole by 0.6
// (the bound is compared in bins, scaleBound). The cut itself (which pages form the groups) is unchanged. focuscrawl's
// own rule. f <= 0 means 1.
func (d *ScoreDist) SetSplitScale(f float64) { d.scale = f }

// NewScoreDist returns an empty distribution.
func NewScoreDist() *ScoreDist { return &ScoreDist{byHash: map[string]float64{}} }

// Has reports whether page hash is recorded (in a fork: among the pages
// it was forked for, or judged since).
func (d *ScoreDist) Has(hash string) bool {
	_, ok := d.byHash[hash]
	return ok
}

// Len is the number of pages recorded (in a fork, the distribution's it
// was forked from and its own since).
func (d *ScoreDist) Len() int { return d.pages }

// Add records page hash's score, replacing an earlier one.
func (d *ScoreDist) Add(hash string, score float64) {
	if old, ok := d.byHash[hash]; ok {
		d.bin(old, -1)
	} else {
		d.pages++
	}
	d.byHash[hash] = score
	d.bin(score, 1)
}

// Remove forgets page hash's score (a page whose judgement was given up).
func (d *ScoreDist) Remove(hash string) {
	if old, ok := d.byHash[hash]; ok {
		d.bin(old, -1)
		delete(d.byHash, hash)
		d.pages--
	}
}

func (d *ScoreDist) bin(s float64, sign int) {
	if !(s > splitMinScore) {
		return
	}
	b := splitBin(s)
	d.n[b] += sign
	d.sum[b] += float64(sign) * math.Log(s)
}

// Fork returns a copy holding the histogram and, of the pages in hashes,
// those recorded — what one group needs to judge its pages against the
// crawl without touching d (and to replace its own pages' earlier scores on
// a retry). O(splitBins + len(hashes)).
func (d *ScoreDist) Fork(hashes []string) *ScoreDist {
	f := &ScoreDist{byHash: map[string]float64{}, pages: d.pages, n: d.n, sum: d.sum, scale: d.scale}
	for _, h := range hashes {
		if s, ok := d.byHash[h]; ok {
			f.byHash[h] = s
		}
	}
	return f
}

// cut is Otsu's split of the histogram (SplitThreshold's rule, cuts at bin
// boundaries): the first bin of the upper group, or -1 when there are not
// two groups, the upper one of splitMinUpper pages, or their geometric means
// differ by less than splitMinRatio.
func (d *ScoreDist) cut() int {
	n, total := 0, 0.0
	for b := range d.n {
		n += d.n[b]
		total += d.sum[b]
	}
	if n < 2 {
		return -1
	}
	best, cut, gap := -1.0, -1, 0.0
	k, sum := 0, 0.0
	for b := range d.n {
		if d.n[b] == 0 {
			continue
		}
		if k > 0 && n-k >= splitMinUpper {
			w0 := float64(k) / float64(n)
			dm := (total-sum)/float64(n-k) - sum/float64(k)
			if bv := w0 * (1 - w0) * dm * dm; bv > best {
				best, cut, gap = bv, b, dm
			}
		}
		k += d.n[b]
		sum += d.sum[b]
	}
	if best < 0 || gap < math.Log(splitMinRatio) {
		return -1
	}
	return cut
}

// groupMeans returns the geometric means of the scores below cut c and
// of those from it up.
func (d *ScoreDist) groupMeans(c int) (lower, upper float64) {
	var n0, n1 int
	var s0, s1 float64
	for b := range d.n {
		if b < c {
			n0, s0 = n0+d.n[b], s0+d.sum[b]
		} else {
			n1, s1 = n1+d.n[b], s1+d.sum[b]
		}
	}
	if n0 > 0 {
		lower = math.Exp(s0 / float64(n0))
	}
	if n1 > 0 {
		upper = math.Exp(s1 / float64(n1))
	}
	return lower, upper
}

// scaleBound is the first bin a score must reach when SetSplitScale's
// factor would carry the edge of cut c past the groups' geometric mean —
// for a factor above 1 the upper group's mean's bin (its pages in that bin
// and above stay accepted), below 1 the bin after the lower group's
// mean's (a score must lie above that mean) — or -1 when the scaled edge
// stays inside them and is compared as it is.
func (d *ScoreDist) scaleBound(c int) int {
	lower, upper := d.groupMeans(c)
	scaled := splitBin(d.scale * splitEdge(c))
	if d.scale > 1 {
		if b := max(splitBin(upper), c); scaled >= b {
			return b
		}
		return -1
	}
	if b := min(splitBin(lower)+1, c); scaled < b {
		return b
	}
	return -1
}

// Accepts reports whether a mixed score is accepted against the
// distribution as it stands — it reaches base and, when the split applies,
// the split's upper group (its edge times SetSplitScale's factor) — and the
// threshold that decided it.
func (d *ScoreDist) Accepts(mixed, base float64) (ok bool, threshold float64) {
	threshold, ok = base, mixed >= base
	if c := d.cut(); c >= 0 {
		ok = ok && mixed > splitMinScore
		if d.scale <= 0 || d.scale == 1 {
			// Bins, not the edge: a score in the cut's bin is in the upper
			// group whatever the edge's rounding.
			threshold = math.Max(base, splitEdge(c))
			ok = ok && splitBin(mixed) >= c
		} else if b := d.scaleBound(c); b >= 0 {
			// The groups' mean bounds the scaled edge: compared in bins.
			// A mean, the exponential of a sum of logarithms, lands a
			// rounding off the scores it is the mean of: compared as a
			// value it turned down a tight upper group whole (every page
			// at 0.202) under specific and let a tight lower one in whole
			// (every page at 0.2, its own mean) under broad.
			threshold = math.Max(base, splitEdge(b))
			ok = ok && splitBin(mixed) >= b
		} else {
			edge := d.scale * splitEdge(c)
			threshold = math.Max(base, edge)
			ok = ok && mixed >= edge
		}
	}
	return ok, threshold
}

// Judge applies split acceptance to a filter's verdict v on page hash, whose
// judged in-link sources scored sources. It returns the verdict with the
// mixed score, accepted when that reaches base and, when the split applies,
// the split's upper group over the crawl's scores and this page's, and its
// own score is above 0; and expand = the page is to be expanded although
// not accepted (its own verdict was relevant, or only its own score of 0
// kept it out), with the reason saying why. The page's mixed score is recorded.
func (d *ScoreDist) Judge(v Verdict, hash string, sources []float64, base float64) (out Verdict, expand bool) {
	judged := d.pages
	if d.Has(hash) {
		judged-- // judged again: not its own in-linkers' peer
	}
	return d.JudgeNav(v, hash, sources, Navigation(len(sources), judged), false, base)
}

// JudgeNav is Judge with whether sources are the site's navigation decided
// by the caller (Navigation over its own view of the crawl; navigation
// sources count for nothing) and whether they are all on other hosts than
// the page (offSite). A page whose in-linkers are all on other sites is not
// accepted on their evidence alone: its own verdict must be relevant and
// its own score reach base (the sample floor, when higher), though its
// mixed score is what the split compares, as for every page. The mix
// rests on a site's structure (a chapter's contents and previous/next links
// tie its pages together); a link from another site is a citation, and the
// off-site pages linked from on-topic ones — a footer's permalink to the
// live site, a project's home page, an issue tracker — were accepted on
// their linkers' scores with own scores a tenth of the filter's threshold
// (docs/evaluation.md, *In-links from other sites*). Like the own-score
// guard it changes the accepted set only: such a page keeps its mixed score
// in the distribution and is expanded. focuscrawl's own rule.
func (d *ScoreDist) JudgeNav(v Verdict, hash string, sources []float64, navigation, offSite bool, base float64) (out Verdict, expand bool) {
	evidence := sources
	if navigation {
		evidence = nil
	}
	mixed := MixInLinks(v.Score, evidence)
	d.Add(hash, mixed)
	ok, th := d.Accepts(mixed, base)
	out = v
	out.Score = mixed
	out.Relevant = ok && v.Score > 0 && (!offSite || v.Relevant && v.Score >= base)
	nav := ""
	if len(evidence) < len(sources) {
		nav = " (the site's navigation: not counted)"
	}
	scaled := ""
	if d.scale > 0 && d.scale != 1 && th > base {
		scaled = fmt.Sprintf(" (×%g, the topic's breadth)", d.scale)
	}
	out.Reason = fmt.Sprintf("%s; split: %.3f with %d in-link(s)%s vs crawl split %.3f%s", v.Reason, mixed, len(sources), nav, th, scaled)
	switch {
	case ok && !out.Relevant:
		// In-link evidence lifts a page with evidence of its own; one that
		// shares no topic term (an off-site page linked from the topic's
		// pages, a page rewritten off topic since) is not accepted on its
		// neighbours' word alone. It is expanded as it was when it was
		// accepted, so the crawl's path does not change (a page with no
		// text of its own — a frame set, an image map — still leads on).
		if v.Score > 0 {
			out.Reason += OffSiteMark
		} else {
			out.Reason += "; no score of its own: expanded, not accepted"
		}
		expand = true
	case !out.Relevant && v.Relevant:
		out.Reason += BelowSplitMark
		expand = true
	}
	return out, expand
}

// NegativeSampleMark begins the reason of a page the topic lists in its
// negative_samples: rejected whatever its score (activities.judge), never
// promoted by a re-judgement.
const NegativeSampleMark = "listed in the topic's negative_samples"

// OffSiteMark ends the reason of a page JudgeNav turned down because its
// only in-link evidence came from other sites.
const OffSiteMark = "; in-links from other sites only: expanded, not accepted"

// SampleFloor is the lowest score filter gives the topic's sample pages
// (their term frequencies), times share: split acceptance's floor for
// a topic with samples (strategy.sample_floor). Split acceptance is
// relative to the crawl's own scores, so a crawl that never reaches its
// topic accepts the best of what it finds; its sample pages say what an
// on-topic page scores. 0 without samples, with share 0, or for a filter
// other than vsm (the split's scale).
func SampleFloor(filter Filter, samples *topic.Samples, share float64) float64 {
	if share <= 0 || samples == nil || len(samples.Positive) == 0 || filter.Name() != "vsm" {
		return 0
	}
	low := math.Inf(1)
	for _, s := range samples.Positive {
		low = math.Min(low, filter.Judge(&Page{URL: s.URL, TF: s.TF}).Score)
	}
	return share * low
}

// SampleFloorMark precedes, in a page's reason, the sample floor that was
// in force when it was judged (activities' split acceptance); the crawl's
// re-judgement reads it back (SampleFloorOf) instead of computing it again
// from topic statistics that other crawls may have moved since.
const SampleFloorMark = "; sample floor "

// SampleFloorNote is what a page's reason gains to record floor
// (SampleFloorMark and the floor): every digit, so that SampleFloorOf reads
// back the very number the page was judged against. Four decimals, as it
// was written, moved it by up to 0.00005 — enough for the re-judgement to
// withdraw a page accepted just above the floor, or promote one turned
// down just below it.
func SampleFloorNote(floor float64) string {
	return SampleFloorMark + strconv.FormatFloat(floor, 'g', -1, 64)
}

// SampleFloorOf returns the sample floor a reason records, if any.
func SampleFloorOf(reason string) (float64, bool) {
	i := strings.LastIndex(reason, SampleFloorMark)
	if i < 0 {
		return 0, false
	}
	rest := reason[i+len(SampleFloorMark):]
	if j := strings.IndexByte(rest, ';'); j >= 0 {
		rest = rest[:j]
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
	if err != nil || f < 0 || f > 1 {
		return 0, false
	}
	return f, true
}
