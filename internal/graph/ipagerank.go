package graph

// IPageRankInput is what IPageRank needs per node, all in [0,1].
type IPageRankInput struct {
	// Relevance is the page filter's score of a fetched page, or for an
	// unfetched URL the best link-predictor score (RW/RWB, ...) of a link
	// pointing to it: the link's own score, not one that mixes in its
	// parent's rank (the rank reaches the URL through the walk already).
	Relevance []float64
	// Relevant marks pages the page filter accepted.
	Relevant []bool
	// Epsilon keeps off-topic nodes reachable (tunnels): the transition
	// weight of a node is Epsilon + Relevance (default 0.05).
	Epsilon float64
}

// IPageRank is focuscrawl's topic-sensitive PageRank, standing in for seed
// 000's lost IPageRank chapter (focuscrawl's own design, not the thesis's).
// It is PageRank with two changes, each fixing one reason plain PageRank
// drifts off topic:
//
//   - relevance-weighted transitions: from u the surfer follows u→v with
//     probability proportional to ε + rel(v), so rank flows mostly along
//     links that the page filter (or, for unfetched URLs, the link predictor
//     — RW/RWB) found on topic, while ε keeps tunnels through off-topic pages
//     open;
//   - topic teleport: random jumps land on accepted (relevant) pages in
//     proportion to their relevance + ε instead of uniformly (Haveliwala's
//     topic-sensitive PageRank), so rank is injected where the topic lives.
//
// With no relevant page yet the teleport is uniform. The result is a
// distribution; callers scale it (e.g. by its maximum) before combining it
// with link scores.
func IPageRank(g *Graph, in IPageRankInput, o RankOptions) RankResult {
	eps := in.Epsilon
	if eps == 0 {
		eps = 0.05
	}
	w := make([]float64, g.N)
	t := make([]float64, g.N)
	for i := 0; i < g.N; i++ {
		r := clamp01(in.Relevance[i])
		w[i] = eps + r
		if in.Relevant[i] {
			t[i] = r + eps
		}
	}
	o.NodeWeight, o.Teleport = w, t
	return PageRank(g, o)
}

func clamp01(x float64) float64 {
	if x < 0 || x != x {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}
