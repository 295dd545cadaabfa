package graph

// QOptions configure QLearn.
type QOptions struct {
	Reward    float64 // rd, paid for an edge that enters a leaf (seed 002: 1.0; its Example 1 uses 100)
	Gamma     float64 // discount γ (seed 002: 0.9)
	MaxSweeps int     // bound on Bellman sweeps (default 100; seed 002 leaves it open)
}

// QResult holds vertex values Q(u) = max over u's out-edges of the edge's Q.
type QResult struct {
	Q      []float64
	Sweeps int
	Stable bool // the last sweep changed nothing
}

// QLearn runs seed 002's deterministic Q-learning on a learned link graph:
//
//	Q(u_i, <u_i,u_j>) = r(u_j) + γ · max_m Q(u_j, <u_j,u_m>)   (empty max = 0)
//	Q(u)              = max over u's out-edges
//
// with r(u_j) = Reward if u_j is a leaf (a result page) and 0 otherwise.
// Leaves are terminal: their own out-edges are ignored and Q(leaf) = 0.
// There is no learning rate (the backups are exact), so sweeping the
// vertices in id order until a sweep changes nothing reaches the fixed
// point; values only grow from 0 and are bounded by the best simple path,
// so on any finite graph this happens within N+1 sweeps.
func QLearn(g *Graph, leaf []bool, o QOptions) QResult {
	if o.MaxSweeps == 0 {
		o.MaxSweeps = 100
	}
	q := make([]float64, g.N)
	res := QResult{}
	for s := 1; s <= o.MaxSweeps; s++ {
		changed := false
		for u := 0; u < g.N; u++ {
			if leaf[u] {
				continue
			}
			best := 0.0
			for _, v := range g.Out(u) {
				if e := EdgeQ(q, leaf, int(v), o); e > best {
					best = e
				}
			}
			if best != q[u] {
				q[u], changed = best, true
			}
		}
		res.Sweeps = s
		if !changed {
			res.Stable = true
			break
		}
	}
	res.Q = q
	return res
}

// EdgeQ is the value of following a link into v: r(v) + γ·Q(v).
func EdgeQ(q []float64, leaf []bool, v int, o QOptions) float64 {
	r := 0.0
	if leaf[v] {
		r = o.Reward
	}
	return r + o.Gamma*q[v]
}
