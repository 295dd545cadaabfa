package metrics

import (
	"math"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/crawllog"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// handLog is a six-fetch crawl over labels {a, b, c, d}:
//
//	seq  url      target  accepted
//	1    /a       yes     yes
//	2    /x       no      yes
//	3    /b→/c    yes(c)  no      (redirect: final URL is the target)
//	4    /y       no      no
//	5    /a?dup=1 no      yes     (a different URL, not a target)
//	6    /a       dup     yes     (target found again: not counted twice)
func handLog() ([]crawllog.Entry, Labels) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := func(seq int64, url, final string, acc bool) crawllog.Entry {
		return crawllog.Entry{Seq: seq, URL: url, FinalURL: final, Accepted: acc, FetchedAt: t0.Add(time.Duration(seq) * time.Second)}
	}
	log := []crawllog.Entry{
		e(4, "http://h.test/y", "", false), // out of order on purpose: Compute sorts by Seq
		e(1, "http://h.test/a", "http://h.test/a", true),
		e(2, "http://h.test/x", "", true),
		e(3, "http://h.test/b", "http://h.test/c", false),
		e(5, "http://h.test/a?dup=1", "", true),
		e(6, "http://H.test/a", "", true),
	}
	labels, err := ReadLabels(strings.NewReader("# targets\nhttp://h.test/a\nhttp://h.test/c\n\nhttp://h.test/d\nhttp://h.test/e\n"))
	if err != nil {
		panic(err)
	}
	return log, labels
}

func TestComputeHandLog(t *testing.T) {
	log, labels := handLog()
	r := Compute(log, labels)
	if r.Fetched != 6 || r.Labels != 4 || r.TargetsFound != 2 || r.Accepted != 4 || r.AcceptedTarget != 1 {
		t.Fatalf("counts: %+v", r)
	}
	// Accepted set: 4 accepted, 1 of them a target; 4 targets in all.
	if !near(r.Precision, 0.25) || !near(r.Recall, 0.25) || !near(r.F1, 0.25) {
		t.Errorf("P/R/F1 = %v/%v/%v, want 0.25 each", r.Precision, r.Recall, r.F1)
	}
	if !near(r.PerTarget, 3) {
		t.Errorf("fetches per target = %v, want 6/2 = 3", r.PerTarget)
	}
	if r.Wall != 5*time.Second {
		t.Errorf("wall = %v, want 5s", r.Wall)
	}
	// Curve by hand: targets found after each fetch 1,1,2,2,2,2.
	wantTargets := []int{1, 1, 2, 2, 2, 2}
	wantHarvest := []float64{1, 0.5, 2.0 / 3, 0.5, 0.4, 2.0 / 6}
	// H(j): p = acceptedTargets/accepted, r = acceptedTargets/targetsFetched.
	// j=1: p=1/1, r=1/1 → 1. j=2: p=1/2, r=1 → 2/3. j=3: p=1/2, r=1/2 → 1/2.
	// j=4: same → 1/2. j=5: p=1/3, r=1/2 → 0.4. j=6: p=1/4, r=1/2 → 1/3.
	wantH := []float64{1, 2.0 / 3, 0.5, 0.5, 0.4, 1.0 / 3}
	for i, p := range r.Curve {
		if p.N != i+1 || p.Targets != wantTargets[i] || !near(p.Harvest, wantHarvest[i]) ||
			!near(p.Recall, float64(wantTargets[i])/4) || !near(p.H, wantH[i]) {
			t.Errorf("curve[%d] = %+v, want targets %d harvest %v H %v", i, p, wantTargets[i], wantHarvest[i], wantH[i])
		}
	}
	if !near(r.H, 1.0/3) {
		t.Errorf("H = %v", r.H)
	}
}

func TestAt(t *testing.T) {
	log, labels := handLog()
	r := Compute(log, labels)
	tests := []struct {
		n       int
		targets int
		harvest float64
	}{
		{0, 0, 0},
		{1, 1, 1},
		{3, 2, 2.0 / 3},
		{6, 2, 2.0 / 6},
		{10, 2, 0.2}, // past the end: the shorter crawl is not credited with its own denominator
	}
	for _, tt := range tests {
		p := r.At(tt.n)
		if p.N != tt.n || p.Targets != tt.targets || !near(p.Harvest, tt.harvest) {
			t.Errorf("At(%d) = %+v, want targets %d harvest %v", tt.n, p, tt.targets, tt.harvest)
		}
	}
}

func TestComputeEmpty(t *testing.T) {
	_, labels := handLog()
	r := Compute(nil, labels)
	if r.Fetched != 0 || r.Precision != 0 || r.F1 != 0 || r.H != 0 || !math.IsInf(r.PerTarget, 1) || len(r.Curve) != 0 {
		t.Errorf("empty crawl: %+v", r)
	}
}

func TestNothingAcceptedHIsZero(t *testing.T) {
	log := []crawllog.Entry{{Seq: 1, URL: "http://h.test/a"}}
	labels := Labels{"http://h.test/a": {}}
	r := Compute(log, labels)
	if r.TargetsFound != 1 || r.H != 0 || r.Precision != 0 || !near(r.Curve[0].Harvest, 1) {
		t.Errorf("%+v", r)
	}
}

func TestReadLabelsBadLine(t *testing.T) {
	_, err := ReadLabels(strings.NewReader("http://h.test/a\nnot a url\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want one naming line 2", err)
	}
}

// TestBestF1 checks the oracle threshold by hand. Labels {a, b, c, d};
// judged pages by score: a 0.9 (target), x 0.8, b 0.7 (target), y 0.7,
// c 0.5 (target), z 0.3; an error page scoring 0.95 is not judged and a
// duplicate of a is not a second target.
//
//	cut after   accepted  TP  P     R     F1
//	a           1         1   1     1/4   0.4
//	x           2         1   1/2   1/4   1/3
//	b, y (tie)  4         2   1/2   1/2   0.5
//	c           5         3   3/5   3/4   2/3   ← best
//	z           6         3   1/2   3/4   0.6
func TestBestF1(t *testing.T) {
	e := func(seq int64, path, dec string, score float64) crawllog.Entry {
		return crawllog.Entry{Seq: seq, URL: "http://h.test/" + path, Decision: dec, Relevance: score, Accepted: dec == "accepted"}
	}
	log := []crawllog.Entry{
		e(1, "a", "accepted", 0.9), e(2, "x", "rejected", 0.8), e(3, "b", "tunnel", 0.7),
		e(4, "y", "accepted", 0.7), e(5, "c", "rejected", 0.5), e(6, "z", "rejected", 0.3),
		e(7, "err", "error", 0.95), e(8, "a", "duplicate", 0.9),
	}
	labels, err := ReadLabels(strings.NewReader("http://h.test/a\nhttp://h.test/b\nhttp://h.test/c\nhttp://h.test/d\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := Compute(log, labels)
	if !near(r.BestF1, 2.0/3) || r.BestCut != 5 || r.Judged != 6 {
		t.Errorf("BestF1 = %v at %d of %d judged, want 2/3 at 5 of 6 (cut after c)", r.BestF1, r.BestCut, r.Judged)
	}
	// The actual accepted set {a, y}: P 1/2, R 1/4, F1 1/3 — below the oracle.
	if !near(r.F1, 1.0/3) {
		t.Errorf("F1 = %v, want 1/3", r.F1)
	}
	if got, cut := bestF1(nil, 4); got != 0 || cut != 0 {
		t.Errorf("bestF1 of no pages = %v at %d, want 0 at 0", got, cut)
	}
}

// A sample page (neutral) accepted is no false positive: the hand log with /x
// neutral has 3 accepted pages, 1 a target, and still 6 fetches.
func TestComputeNeutral(t *testing.T) {
	log, labels := handLog()
	neutral, err := ReadLabels(strings.NewReader("http://h.test/x\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range log {
		log[i].Decision, log[i].Relevance = "accepted", float64(10-log[i].Seq)
	}
	r := ComputeNeutral(log, labels, neutral)
	if r.Fetched != 6 || len(r.Curve) != 6 || r.Accepted != 3 || r.AcceptedTarget != 1 || r.Judged != 5 {
		t.Fatalf("counts: fetched %d, curve %d, accepted %d, accepted targets %d, judged %d", r.Fetched, len(r.Curve), r.Accepted, r.AcceptedTarget, r.Judged)
	}
	if !near(r.Precision, 1.0/3) || !near(r.F1, 2.0/7) {
		t.Errorf("P/F1 = %v/%v, want 1/3 and 2/7", r.Precision, r.F1)
	}
	// A neutral page fetched last still ends the crawl's wall time.
	last := log[0]
	last.Seq, last.URL, last.FetchedAt = 7, "http://h.test/x", last.FetchedAt.Add(3*time.Second) // seq 4's time + 3s
	if w := ComputeNeutral(append(log, last), labels, neutral).Wall; w != 6*time.Second {
		t.Errorf("wall = %v, want 6s: a neutral fetch is a fetch", w)
	}
	if p := r.Curve[1]; p.N != 2 || p.Accepted != 1 || !near(p.Harvest, 0.5) {
		t.Errorf("curve[1] = %+v: the neutral fetch counts as a fetch only", p)
	}
	// Without the neutral set, /x is a false positive.
	if all := Compute(log, labels); all.Accepted != 4 || !near(all.Precision, 0.25) {
		t.Errorf("Compute: accepted %d, P %v", all.Accepted, all.Precision)
	}
}
