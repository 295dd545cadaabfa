package graph

import "math"

// HITSResult holds hub and authority scores, each L2-normalised.
type HITSResult struct {
	Hub, Authority []float64
	Iterations     int
	Delta          float64 // L1 change of hub+authority in the last round
}

// HITS computes Kleinberg's hub and authority scores (seed 000): starting
// from all ones, each round sets a(p) = Σ_{q→p} h(q), then h(p) = Σ_{p→r}
// a(r), and normalises both vectors to unit L2 length; it stops when the
// L1 change of both vectors is below tol (default 1e-9) or after maxIter
// rounds (default 100). Seed 000 runs it on a query's root set expanded by
// in/out links; over a topic crawl the whole crawl graph already is that
// expanded set. Nodes without edges get 0.
func HITS(g *Graph, tol float64, maxIter int) HITSResult {
	if tol == 0 {
		tol = 1e-9
	}
	if maxIter == 0 {
		maxIter = 100
	}
	n := g.N
	h := make([]float64, n)
	a := make([]float64, n)
	for i := range h {
		h[i] = 1
	}
	na := make([]float64, n)
	nh := make([]float64, n)
	res := HITSResult{}
	for it := 1; it <= maxIter; it++ {
		for v := 0; v < n; v++ {
			s := 0.0
			for _, u := range g.In(v) {
				s += h[u]
			}
			na[v] = s
		}
		normalise(na)
		for u := 0; u < n; u++ {
			s := 0.0
			for _, v := range g.Out(u) {
				s += na[v]
			}
			nh[u] = s
		}
		normalise(nh)
		delta := 0.0
		for i := 0; i < n; i++ {
			delta += math.Abs(na[i]-a[i]) + math.Abs(nh[i]-h[i])
		}
		a, na = na, a
		h, nh = nh, h
		res.Iterations, res.Delta = it, delta
		if delta < tol {
			break
		}
	}
	res.Hub, res.Authority = h, a
	return res
}

func normalise(x []float64) {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	if s == 0 {
		return
	}
	s = math.Sqrt(s)
	for i := range x {
		x[i] /= s
	}
}

// DefaultHubBoost is β of HubBoost's priority rule: focuscrawl's choice
// (seed 000 computes HITS but does not say how hubs steer the queue). A
// link from the best relevant hub gains 0.2, about the gap between a
// topical and an untopical anchor in best-first's scores; smaller hubs
// gain in proportion.
const DefaultHubBoost = 0.2

// HubBoost returns, per node v, the largest hub score among v's
// in-neighbours u with from[u] (the fetched, relevant pages), scaled so the
// largest hub of the graph is 1; 0 when no such in-neighbour exists. A
// crawl adds β · HubBoost(v) to a queued URL's priority
// (docs/algorithms.md "HITS hubs steer the frontier"): the out-links of a
// good hub are where more authorities are likely to be.
func HubBoost(g *Graph, hub []float64, from []bool) []float64 {
	m := 0.0
	for u, h := range hub {
		if from[u] {
			m = max(m, h)
		}
	}
	out := make([]float64, g.N)
	if m == 0 {
		return out
	}
	for v := range g.N {
		for _, u := range g.In(v) {
			if from[u] {
				out[v] = max(out[v], hub[u]/m)
			}
		}
	}
	return out
}
