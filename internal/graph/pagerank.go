package graph

import "math"

// RankOptions configure PageRank and IPageRank.
type RankOptions struct {
	// Damping is d, the probability of following a link (seed 000: 0.85).
	Damping float64
	// Tol stops the iteration when the L1 change of the score vector falls
	// below it (default 1e-9).
	Tol float64
	// MaxIter bounds the iterations (default 100).
	MaxIter int
	// Teleport, if set (len N, non-negative, not all zero), is the
	// distribution a random jump lands on; nil means uniform. It also
	// receives the mass of dangling nodes.
	Teleport []float64
	// NodeWeight, if set (len N, non-negative), weights the transition into
	// a node: from u the surfer follows edge u→v with probability
	// w(v)/Σ_{x∈out(u)} w(x). Nil means every out-link is equally likely.
	// A node whose out-links all have weight 0 is treated as dangling.
	NodeWeight []float64
}

func (o RankOptions) norm() RankOptions {
	if o.Damping == 0 {
		o.Damping = 0.85
	}
	if o.Tol == 0 {
		o.Tol = 1e-9
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	return o
}

// RankResult is a score vector with how it converged.
type RankResult struct {
	Scores     []float64 // sums to 1 (normalised form)
	Iterations int
	Delta      float64 // L1 change in the last iteration
}

// PageRank computes the normalised PageRank of seed 000,
//
//	PR(v) = (1−d)·t(v) + d·( Σ_{u→v} PR(u)·P(u→v) + D·t(v) )
//
// by power iteration, where t is the teleport distribution (uniform by
// default), P(u→v) = 1/C(u) or the NodeWeight share, and D the mass on
// dangling nodes (redistributed like a jump so the vector stays a
// distribution). With uniform t and no dangling nodes, N·PR(v) equals the
// seed's un-normalised form PR(A) = (1−d) + d·Σ PR(T_i)/C(T_i).
// Memory: three float64 vectors of N plus one of N for out-weights.
func PageRank(g *Graph, o RankOptions) RankResult {
	o = o.norm()
	n := g.N
	if n == 0 {
		return RankResult{}
	}
	t := teleport(n, o.Teleport)
	// outW[u] = Σ_{v∈out(u)} w(v); 0 → dangling.
	outW := make([]float64, n)
	for u := 0; u < n; u++ {
		for _, v := range g.Out(u) {
			outW[u] += weight(o.NodeWeight, v)
		}
	}
	pr := make([]float64, n)
	copy(pr, t)
	next := make([]float64, n)
	res := RankResult{}
	for it := 1; it <= o.MaxIter; it++ {
		dangling := 0.0
		for u := 0; u < n; u++ {
			if outW[u] == 0 {
				dangling += pr[u]
			}
		}
		// Pull form over in-edges: cache-friendly and parallelisable.
		for v := 0; v < n; v++ {
			s := 0.0
			wv := weight(o.NodeWeight, int32(v))
			if wv != 0 {
				for _, u := range g.In(v) {
					if outW[u] != 0 {
						s += pr[u] * wv / outW[u]
					}
				}
			}
			next[v] = (1-o.Damping)*t[v] + o.Damping*(s+dangling*t[v])
		}
		delta := 0.0
		for i := range pr {
			delta += math.Abs(next[i] - pr[i])
		}
		pr, next = next, pr
		res.Iterations, res.Delta = it, delta
		if delta < o.Tol {
			break
		}
	}
	res.Scores = pr
	return res
}

func weight(w []float64, v int32) float64 {
	if w == nil {
		return 1
	}
	return w[v]
}

// teleport returns the normalised jump distribution (uniform if p is nil or
// sums to zero).
func teleport(n int, p []float64) []float64 {
	t := make([]float64, n)
	sum := 0.0
	if p != nil {
		for i := 0; i < n; i++ {
			if p[i] > 0 {
				sum += p[i]
			}
		}
	}
	if sum == 0 {
		for i := range t {
			t[i] = 1 / float64(n)
		}
		return t
	}
	for i := 0; i < n; i++ {
		if p[i] > 0 {
			t[i] = p[i] / sum
		}
	}
	return t
}
