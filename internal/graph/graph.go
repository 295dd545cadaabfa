// Package graph holds focuscrawl's link-analysis algorithms over a sparse
// directed graph: PageRank (seed 000), HITS hub/authority (seed 000),
// focuscrawl's topic-sensitive IPageRank, and the deterministic Q-learning
// backups of JLSE (docs/algorithms.md "jlse"). Graphs are stored in compressed sparse row
// form (CSR) with int32 node ids, so a crawl graph of millions of edges costs
// a few bytes per edge and no algorithm ever builds a dense matrix.
package graph

import (
	"fmt"
	"sort"
)

// Graph is a directed graph in CSR form: the out-neighbours of node u are
// Dst[Off[u]:Off[u+1]] and the in-neighbours Src[InOff[u]:InOff[u+1]].
// Parallel edges are collapsed and self-loops dropped when the graph is built.
type Graph struct {
	N     int
	Off   []int32 // len N+1
	Dst   []int32
	InOff []int32 // len N+1
	Src   []int32
}

// Edge is one directed edge by node id.
type Edge struct{ From, To int32 }

// Build makes a CSR graph of n nodes from an edge list. Edges naming a node
// outside [0,n) are an error; duplicates and self-loops are dropped (a page
// linking to itself or twice to one target carries no extra vote).
func Build(n int, edges []Edge) (*Graph, error) {
	for _, e := range edges {
		if e.From < 0 || int(e.From) >= n || e.To < 0 || int(e.To) >= n {
			return nil, fmt.Errorf("graph: edge %d→%d outside %d nodes", e.From, e.To, n)
		}
	}
	es := make([]Edge, 0, len(edges))
	for _, e := range edges {
		if e.From != e.To {
			es = append(es, e)
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].From != es[j].From {
			return es[i].From < es[j].From
		}
		return es[i].To < es[j].To
	})
	g := &Graph{N: n, Off: make([]int32, n+1), InOff: make([]int32, n+1)}
	g.Dst = make([]int32, 0, len(es))
	var prev Edge = Edge{-1, -1}
	for _, e := range es {
		if e == prev {
			continue
		}
		prev = e
		g.Dst = append(g.Dst, e.To)
		g.Off[e.From+1]++
		g.InOff[e.To+1]++
	}
	for i := 0; i < n; i++ {
		g.Off[i+1] += g.Off[i]
		g.InOff[i+1] += g.InOff[i]
	}
	// Reverse adjacency by counting sort over the (sorted) forward edges.
	g.Src = make([]int32, len(g.Dst))
	next := make([]int32, n)
	copy(next, g.InOff[:n])
	for u := 0; u < n; u++ {
		for _, v := range g.Dst[g.Off[u]:g.Off[u+1]] {
			g.Src[next[v]] = int32(u)
			next[v]++
		}
	}
	return g, nil
}

// Edges is the number of (distinct, non-loop) edges.
func (g *Graph) Edges() int { return len(g.Dst) }

// Out returns u's out-neighbours.
func (g *Graph) Out(u int) []int32 { return g.Dst[g.Off[u]:g.Off[u+1]] }

// In returns u's in-neighbours.
func (g *Graph) In(u int) []int32 { return g.Src[g.InOff[u]:g.InOff[u+1]] }

// Interner assigns dense int32 ids to string keys (URL hashes) in first-seen
// order, so a graph built from the same edge stream always numbers its nodes
// the same way.
type Interner struct {
	ids  map[string]int32
	Keys []string
}

// NewInterner returns an empty interner.
func NewInterner() *Interner { return &Interner{ids: map[string]int32{}} }

// ID returns key's id, assigning the next one if it is new.
func (in *Interner) ID(key string) int32 {
	if id, ok := in.ids[key]; ok {
		return id
	}
	id := int32(len(in.Keys))
	in.ids[key] = id
	in.Keys = append(in.Keys, key)
	return id
}

// Lookup returns key's id if it has one.
func (in *Interner) Lookup(key string) (int32, bool) {
	id, ok := in.ids[key]
	return id, ok
}

// Len is the number of keys.
func (in *Interner) Len() int { return len(in.Keys) }
