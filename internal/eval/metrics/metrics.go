// Package metrics judges a crawl against a set of known target pages. It
// reads nothing but a crawl log (package crawllog) and a labels file, so any
// crawl — focuscrawl's or another tool's, exported in the same format — can
// be compared on the same numbers.
//
// Definitions (docs/evaluation.md repeats them). Every crawl log entry is one
// fetch, in Seq order; N counts fetches, failed ones included, because a
// failed fetch spends the crawl's budget too. A fetch "finds" a target when
// its URL or final URL is a labelled target that no earlier fetch found
// (redirects and duplicate URLs are counted once).
//
//   - Harvest rate@N (seed 002): targets found in the first N fetches / N.
//   - Target recall@N (seed 002): targets found in the first N fetches /
//     all targets in the labels file.
//   - Precision / recall / F1 of the accepted set (seed 004): the pages the
//     crawl's page filter accepted, against all targets: precision =
//     |accepted ∩ targets| / |accepted|, recall = |accepted ∩ targets| /
//     |targets|, F1 their harmonic mean.
//   - H(j) (seed 001): H(j) = 2 / (1/r(j) + 1/p(j)) over the first j fetches,
//     where p(j) = |accepted ∩ targets| / |accepted| and r(j) = |accepted ∩
//     targets| / |targets fetched| within those j fetches. Seed 001 measures
//     the relevance judgement on the pages the crawler collected, so r(j)
//     is relative to the targets fetched so far, not to the whole label set
//     (that global view is the accepted-set recall above). H is 0 when
//     either part is 0.
//   - Fetches per target: all fetches / targets found (lower is better;
//     +Inf when nothing was found).
//   - Wall time: from the first fetch's FetchedAt to the last's.
package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/decision"
	"focuscrawl/internal/urlnorm"
)

// Labels is a set of target URLs, normalised with urlnorm.
type Labels map[string]struct{}

// ReadLabels parses a labels file: one URL per line; blank lines and lines
// starting with '#' are ignored. A line that is not an http(s) URL is an
// error naming the line.
func ReadLabels(r io.Reader) (Labels, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	l := Labels{}
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		n, err := urlnorm.Normalize(s)
		if err != nil {
			return nil, fmt.Errorf("labels line %d: %q: %w", line, s, err)
		}
		l[n] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	return l, nil
}

// LoadLabels reads a labels file from disk.
func LoadLabels(path string) (Labels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	defer f.Close()
	l, err := ReadLabels(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(l) == 0 {
		return nil, fmt.Errorf("labels %s: no target URLs", path)
	}
	return l, nil
}

// Point is one step of the curves: the state after the first N fetches.
type Point struct {
	N        int     // fetches so far
	Targets  int     // distinct targets found
	Accepted int     // pages the filter accepted
	Harvest  float64 // Targets / N
	Recall   float64 // Targets / |labels|
	H        float64 // seed 001's H(j) with j = N
}

// Result holds every metric of one crawl.
type Result struct {
	Fetched        int     // log entries
	Labels         int     // targets in the labels file
	TargetsFound   int     // distinct targets fetched
	Accepted       int     // pages accepted by the filter
	AcceptedTarget int     // accepted pages that are targets
	Precision      float64 // of the accepted set
	Recall         float64 // of the accepted set, against all targets
	F1             float64
	// BestF1 is the accepted-set F1 the crawl's own page scores would give
	// at the best single threshold: the judged pages ranked by Relevance, cut
	// where F1 against all targets is highest (our diagnostic, not a paper's).
	// An oracle — the threshold is chosen with the labels — so it bounds what
	// any acceptance threshold over these scores could do on this crawl, and
	// separates a weak threshold (F1 far below BestF1) from a score that does
	// not separate targets from their neighbours (BestF1 low as well).
	BestF1    float64
	BestCut   int     // judged pages at or above the BestF1 threshold
	Judged    int     // judged pages (accepted, rejected or tunnel)
	H         float64 // H(j) at j = Fetched
	PerTarget float64 // fetches per target found
	Wall      time.Duration
	Curve     []Point // Curve[i] is the state after i+1 fetches
}

// Compute scores a crawl log against labels. The log is sorted by Seq
// first (a copy; the argument is not modified).
func Compute(log []crawllog.Entry, labels Labels) Result {
	return ComputeNeutral(log, labels, nil)
}

// ComputeNeutral is Compute with pages that are neither targets nor
// off-topic: the topic's own sample pages, which the topic author declared
// relevant but which are kept out of labels so that fetching them earns
// nothing. Accepting one is not a false positive either, so a neutral page
// counts in no accepted-set figure (Accepted, Precision, F1, BestF1, and
// Judged); it still counts as a fetch, and in Wall.
func ComputeNeutral(log []crawllog.Entry, labels, neutral Labels) Result {
	es := append([]crawllog.Entry(nil), log...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].Seq < es[j].Seq })
	r := Result{Fetched: len(es), Labels: len(labels), Curve: make([]Point, 0, len(es))}
	found := map[string]bool{}
	var judged []scored    // the judged pages, for BestF1
	var fetchedTargets int // fetches whose page is a target (first time found)
	var minT, maxT time.Time
	for i, e := range es {
		target := labels.match(e)
		if !e.FetchedAt.IsZero() {
			if minT.IsZero() || e.FetchedAt.Before(minT) {
				minT = e.FetchedAt
			}
			if e.FetchedAt.After(maxT) {
				maxT = e.FetchedAt
			}
		}
		if target == "" && neutral.match(e) != "" {
			// Only the fetch counts: the accepted figures (and Judged,
			// the pages BestF1 ranks) skip it.
			r.Curve = append(r.Curve, point(r, i+1, len(labels), fetchedTargets))
			continue
		}
		isNew := target != "" && !found[target]
		if isNew {
			found[target] = true
			r.TargetsFound++
			fetchedTargets++
		}
		if decision.Judged(e.Decision) {
			judged = append(judged, scored{e.Relevance, isNew})
		}
		if e.Accepted {
			r.Accepted++
			// A duplicate URL of a target accepted again is not a second
			// true positive.
			if isNew {
				r.AcceptedTarget++
			}
		}
		r.Curve = append(r.Curve, point(r, i+1, len(labels), fetchedTargets))
	}
	r.Precision = ratio(r.AcceptedTarget, r.Accepted)
	r.Recall = ratio(r.AcceptedTarget, len(labels))
	r.F1 = harmonic(r.Precision, r.Recall)
	r.BestF1, r.BestCut = bestF1(judged, len(labels))
	r.Judged = len(judged)
	if len(r.Curve) > 0 {
		r.H = r.Curve[len(r.Curve)-1].H
	}
	r.PerTarget = math.Inf(1)
	if r.TargetsFound > 0 {
		r.PerTarget = float64(r.Fetched) / float64(r.TargetsFound)
	}
	if !minT.IsZero() {
		r.Wall = maxT.Sub(minT)
	}
	return r
}

// point is the curve point after n fetches, from the running totals in r.
func point(r Result, n, labels, fetchedTargets int) Point {
	return Point{
		N: n, Targets: r.TargetsFound, Accepted: r.Accepted,
		Harvest: ratio(r.TargetsFound, n), Recall: ratio(r.TargetsFound, labels),
		H: harmonic(ratio(r.AcceptedTarget, fetchedTargets), ratio(r.AcceptedTarget, r.Accepted)),
	}
}

// match returns the normalised URL or final URL of e that l holds (the
// URL first), or "".
func (l Labels) match(e crawllog.Entry) string {
	if len(l) == 0 {
		return ""
	}
	for _, u := range []string{e.URL, e.FinalURL} {
		if u == "" {
			continue
		}
		n, err := urlnorm.Normalize(u)
		if err != nil {
			n = u
		}
		if _, ok := l[n]; ok {
			return n
		}
	}
	return ""
}

// scored is a judged page's score and whether it is a target (first found).
type scored struct {
	score  float64
	target bool
}

// bestF1 is the highest F1 against labels targets of accepting the pages
// scoring at least t, over every threshold t, and how many pages that
// threshold accepts; pages with equal scores are accepted or turned down
// together, as a threshold would.
func bestF1(pages []scored, labels int) (float64, int) {
	sort.SliceStable(pages, func(i, j int) bool { return pages[i].score > pages[j].score })
	best, cut, tp := 0.0, 0, 0
	for i, p := range pages {
		if p.target {
			tp++
		}
		if i+1 < len(pages) && pages[i+1].score == p.score {
			continue
		}
		if f := harmonic(ratio(tp, i+1), ratio(tp, labels)); f > best {
			best, cut = f, i+1
		}
	}
	return best, cut
}

// At returns the curve point after n fetches; past the end of the crawl it
// returns the last point with N set to n and Harvest recomputed over n, so a
// crawl that stopped early is not credited with its shorter denominator.
func (r Result) At(n int) Point {
	if n <= 0 || len(r.Curve) == 0 {
		return Point{N: n}
	}
	if n <= len(r.Curve) {
		return r.Curve[n-1]
	}
	p := r.Curve[len(r.Curve)-1]
	p.N = n
	p.Harvest = ratio(p.Targets, n)
	return p
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// harmonic is 2/(1/a + 1/b), 0 when either is 0.
func harmonic(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return 2 * a * b / (a + b)
}
