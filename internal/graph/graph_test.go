package graph

import (
	"math"
	"math/rand"
	"runtime"
	"testing"
)

func mustBuild(t testing.TB, n int, edges ...[2]int32) *Graph {
	t.Helper()
	es := make([]Edge, len(edges))
	for i, e := range edges {
		es[i] = Edge{e[0], e[1]}
	}
	g, err := Build(n, es)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestBuildCSR(t *testing.T) {
	g := mustBuild(t, 4, [2]int32{0, 1}, [2]int32{0, 2}, [2]int32{0, 1}, [2]int32{2, 2}, [2]int32{3, 0}, [2]int32{1, 2})
	if g.Edges() != 4 {
		t.Fatalf("edges = %d, want 4 (duplicate and self-loop dropped)", g.Edges())
	}
	if got := g.Out(0); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("out(0) = %v", got)
	}
	if got := g.In(2); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Fatalf("in(2) = %v", got)
	}
	if _, err := Build(2, []Edge{{0, 5}}); err == nil {
		t.Fatal("out-of-range edge accepted")
	}
}

func TestPageRankKnownAnswers(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges [][2]int32
		want  []float64
	}{
		// A cycle is symmetric: every node 1/3.
		{"cycle", 3, [][2]int32{{0, 1}, {1, 2}, {2, 0}}, []float64{1. / 3, 1. / 3, 1. / 3}},
		// Hand-solved: A→B, A→C, B→C, C→A, d = 0.85, N = 3:
		// B = 0.05 + 0.425A, C = 0.05 + 0.425A + 0.85B, A = 0.05 + 0.85C
		// → A = 0.387790, B = 0.214811, C = 0.397400.
		{"three", 3, [][2]int32{{0, 1}, {0, 2}, {1, 2}, {2, 0}}, []float64{0.3877897, 0.2148106, 0.3973997}},
		// Star into a dangling node: 1,2 → 0. Dangling mass is teleported
		// uniformly: x = PR(1) = PR(2), PR(0) = 1−2x,
		// x = 0.05 + 0.85·(1−2x)/3 → 1.5667x = 0.3333 → x = 0.212766,
		// PR(0) = 0.574468.
		{"dangling", 3, [][2]int32{{1, 0}, {2, 0}}, []float64{0.5744681, 0.2127660, 0.2127660}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := mustBuild(t, tc.n, tc.edges...)
			r := PageRank(g, RankOptions{Damping: 0.85, Tol: 1e-12, MaxIter: 1000})
			sum := 0.0
			for i, w := range tc.want {
				sum += r.Scores[i]
				if !near(r.Scores[i], w) {
					t.Errorf("PR(%d) = %.7f, want %.7f", i, r.Scores[i], w)
				}
			}
			if !near(sum, 1) {
				t.Errorf("scores sum to %v", sum)
			}
		})
	}
}

func TestPageRankUnnormalisedFormOfSeed000(t *testing.T) {
	// Seed 000: PR(A) = (1−d) + d Σ PR(T_i)/C(T_i). With no dangling node,
	// N·PR(normalised) satisfies it.
	g := mustBuild(t, 3, [2]int32{0, 1}, [2]int32{0, 2}, [2]int32{1, 2}, [2]int32{2, 0})
	r := PageRank(g, RankOptions{Tol: 1e-13, MaxIter: 1000})
	pr := make([]float64, 3)
	for i := range pr {
		pr[i] = 3 * r.Scores[i]
	}
	want := []float64{0.15 + 0.85*pr[2], 0.15 + 0.85*pr[0]/2, 0.15 + 0.85*(pr[0]/2+pr[1])}
	for i := range pr {
		if !near(pr[i], want[i]) {
			t.Errorf("PR(%d) = %v, equation gives %v", i, pr[i], want[i])
		}
	}
}

func TestHITSKnownAnswers(t *testing.T) {
	// Hubs 0,1 both point to authorities 2,3; 0 also to 4.
	// A = Lᵀh, h = L a. Principal eigenvectors: a ∝ (0,0,x,x,y) of LᵀL =
	// [[2,2,1],[2,2,1],[1,1,1]] on (2,3,4): λ = (5+√17)/2, a2=a3=1,
	// a4 = (λ−4)/2 ... solved numerically below by hand:
	// eigvec of [[2,2,1],[2,2,1],[1,1,1]]: (1,1,t) with 4+t = λ, 2+t = λt
	// → t = (λ−4), λ² −5λ +2 = 0 → λ = 4.5615528, t = 0.5615528.
	g := mustBuild(t, 5, [2]int32{0, 2}, [2]int32{0, 3}, [2]int32{1, 2}, [2]int32{1, 3}, [2]int32{0, 4})
	r := HITS(g, 1e-13, 1000)
	tt := 0.5615528
	na := math.Sqrt(2 + tt*tt)
	wantA := []float64{0, 0, 1 / na, 1 / na, tt / na}
	// h = L a: h0 = a2+a3+a4, h1 = a2+a3.
	h0, h1 := (2+tt)/na, 2/na
	nh := math.Hypot(h0, h1)
	wantH := []float64{h0 / nh, h1 / nh, 0, 0, 0}
	for i := 0; i < 5; i++ {
		if math.Abs(r.Authority[i]-wantA[i]) > 1e-6 || math.Abs(r.Hub[i]-wantH[i]) > 1e-6 {
			t.Errorf("node %d: hub %.7f auth %.7f, want %.7f %.7f", i, r.Hub[i], r.Authority[i], wantH[i], wantA[i])
		}
	}
	if r.Delta >= 1e-13 && r.Iterations == 1000 {
		t.Errorf("did not converge: delta %v", r.Delta)
	}
}

// example1 is a 10-vertex, 11-edge graph consistent with seed 002's Example
// 1 (the paper's figure is lost): vertices 1..10 map to ids 0..9, leaves
// {3, 6, 10}.
func example1(t testing.TB) (*Graph, []bool) {
	e := func(a, b int32) [2]int32 { return [2]int32{a - 1, b - 1} }
	g := mustBuild(t, 10, e(1, 2), e(1, 4), e(2, 3), e(2, 5), e(4, 5), e(4, 7), e(5, 6), e(7, 8), e(7, 9), e(8, 9), e(9, 10))
	leaf := make([]bool, 10)
	leaf[2], leaf[5], leaf[9] = true, true, true
	return g, leaf
}

func TestQLearnSeed002Example1(t *testing.T) {
	g, leaf := example1(t)
	if g.N != 10 || g.Edges() != 11 {
		t.Fatalf("graph has %d vertices, %d edges", g.N, g.Edges())
	}
	r := QLearn(g, leaf, QOptions{Reward: 100, Gamma: 0.9})
	want := map[int]float64{1: 90, 2: 100, 4: 90, 5: 100, 7: 90, 8: 90, 9: 100, 3: 0, 6: 0, 10: 0}
	for v, w := range want {
		if r.Q[v-1] != w { // exact: the paper's values are reproduced exactly
			t.Errorf("Q(%d) = %v, want %v", v, r.Q[v-1], w)
		}
	}
	if !r.Stable {
		t.Errorf("not stable after %d sweeps", r.Sweeps)
	}
}

func TestQLearnCycleHandComputed(t *testing.T) {
	// a(0)⇄b(1), b→c(2), c→d(3) leaf, f(5)→e(4) dead end; rd = 1, γ = 0.9.
	// Q(c) = 1; Q(b) = max(0.9·Q(a), 0.9·1) = 0.9; Q(a) = 0.9·0.9 = 0.81;
	// Q(e) = Q(f) = 0 (no path to a result page).
	g := mustBuild(t, 6, [2]int32{0, 1}, [2]int32{1, 0}, [2]int32{1, 2}, [2]int32{2, 3}, [2]int32{5, 4})
	leaf := []bool{false, false, false, true, false, false}
	r := QLearn(g, leaf, QOptions{Reward: 1, Gamma: 0.9})
	want := []float64{0.81, 0.9, 1, 0, 0, 0}
	for i, w := range want {
		if !near(r.Q[i], w) {
			t.Errorf("Q(%d) = %v, want %v", i, r.Q[i], w)
		}
	}
	if got := EdgeQ(r.Q, leaf, 3, QOptions{Reward: 1, Gamma: 0.9}); got != 1 {
		t.Errorf("edge into the leaf = %v, want 1", got)
	}
}

func TestIPageRankFavoursRelevantRegion(t *testing.T) {
	// 0 links to 1 (relevant) and 2 (irrelevant); both link back to 0.
	g := mustBuild(t, 3, [2]int32{0, 1}, [2]int32{0, 2}, [2]int32{1, 0}, [2]int32{2, 0})
	plain := PageRank(g, RankOptions{Tol: 1e-12})
	ipr := IPageRank(g, IPageRankInput{Relevance: []float64{0.2, 0.9, 0.0}, Relevant: []bool{false, true, false}}, RankOptions{Tol: 1e-12})
	if !near(plain.Scores[1], plain.Scores[2]) {
		t.Fatalf("plain PageRank should not tell 1 and 2 apart: %v", plain.Scores)
	}
	if ipr.Scores[1] <= 3*ipr.Scores[2] {
		t.Fatalf("IPageRank %v: relevant page not clearly above irrelevant sibling", ipr.Scores)
	}
	if ipr.Scores[2] <= 0 {
		t.Fatalf("epsilon should keep off-topic pages reachable: %v", ipr.Scores)
	}
}

// randomGraph generates n nodes and m edges with a power-law-ish out-degree
// (preferential targets), deterministically.
func randomGraph(n, m int) []Edge {
	rng := rand.New(rand.NewSource(1))
	es := make([]Edge, m)
	for i := range es {
		src := int32(rng.Intn(n))
		var dst int32
		if rng.Intn(2) == 0 && i > 0 {
			dst = es[rng.Intn(i)].To // preferential attachment
		} else {
			dst = int32(rng.Intn(n))
		}
		es[i] = Edge{src, dst}
	}
	return es
}

// BenchmarkRecompute1M builds the CSR graph of 1,000,000 edges over 200,000
// nodes and runs PageRank, HITS and IPageRank on it, as the
// RecomputeHubAuthority activity does.
func BenchmarkRecompute1M(b *testing.B) {
	const n, m = 200_000, 1_000_000
	edges := randomGraph(n, m)
	rel := make([]float64, n)
	relevant := make([]bool, n)
	for i := range rel {
		rel[i] = float64(i%10) / 10
		relevant[i] = i%10 >= 7
	}
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		g, err := Build(n, edges)
		if err != nil {
			b.Fatal(err)
		}
		pr := PageRank(g, RankOptions{Tol: 1e-6})
		h := HITS(g, 1e-6, 100)
		ip := IPageRank(g, IPageRankInput{Relevance: rel, Relevant: relevant}, RankOptions{Tol: 1e-6})
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peak {
			peak = ms.HeapInuse
		}
		b.ReportMetric(float64(pr.Iterations), "pr-iters")
		b.ReportMetric(float64(h.Iterations), "hits-iters")
		b.ReportMetric(float64(ip.Iterations), "ipr-iters")
		b.ReportMetric(float64(g.Edges()), "edges")
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-MiB")
}

// TestHubBoost: a queued URL linked from the strongest relevant hub gains
// the full boost, one linked only from a weaker hub gains in proportion,
// and links from irrelevant pages (however hubby) or from nowhere gain
// nothing.
func TestHubBoost(t *testing.T) {
	// 0 and 1 are accepted pages; 0 links to 3 authorities (2, 3, 4), 1
	// links to 2 and 5; 6 is a rejected page linking to 2, 3, 4 and 7.
	g := mustBuild(t, 8,
		[2]int32{0, 2}, [2]int32{0, 3}, [2]int32{0, 4},
		[2]int32{1, 2}, [2]int32{1, 5},
		[2]int32{6, 2}, [2]int32{6, 3}, [2]int32{6, 4}, [2]int32{6, 7})
	hits := HITS(g, 0, 0)
	from := []bool{true, true, false, false, false, false, false, false}
	b := HubBoost(g, hits.Hub, from)
	if !near(b[2], 1) || !near(b[3], 1) || !near(b[4], 1) {
		t.Errorf("out-links of the best relevant hub: %v, want 1", b[2:5])
	}
	if want := hits.Hub[1] / hits.Hub[0]; !near(b[5], want) || b[5] <= 0 || b[5] >= 1 {
		t.Errorf("out-link of the weaker hub: %v, want %v in (0,1)", b[5], want)
	}
	if b[7] != 0 || b[0] != 0 || b[6] != 0 {
		t.Errorf("from an irrelevant hub or no in-link: %v, %v, %v, want 0", b[7], b[0], b[6])
	}
	if hits.Hub[6] <= hits.Hub[0] {
		t.Fatalf("test graph: rejected page 6 should be the strongest hub (%v vs %v)", hits.Hub[6], hits.Hub[0])
	}
}
