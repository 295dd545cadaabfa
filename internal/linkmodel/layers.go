package linkmodel

import "sort"

// Layers are seed 001's predecessor-layer feature sets (Algorithm 3): Sets[n]
// holds the words typical of links that lead to pages n+1 links before a
// topic page — the context-graph idea. The paper picked them by hand from
// the pages around its samples; focuscrawl learns them from the crawl graph:
// for every result (target) page, walk up its parent chain; each ancestor at
// distance n that is not itself a result page (relevant hubs included) is a
// predecessor page of layer n, and the anchor text + context of the link
// that led to it counts toward layer n. A word enters the set if it occurs
// in at least MinSupport such links and is not a navigation word (lift
// below LayerMinLift); the MaxWords most frequent are kept.
type Layers struct {
	Sets []map[string]int `json:"sets"`
}

// Layer learning constants (focuscrawl's choices).
const (
	LayerDepth      = 2 // N = 2 (seed 001)
	LayerMinSupport = 1
	LayerMaxWords   = 50
	// LayerMinLift: a layer word's share of the layer's links must be at
	// least this multiple of its share of all crawl links, which drops
	// navigation words present on every page's links.
	LayerMinLift = 2.0
)

// Hits counts occurrences of layer n's words in terms.
func (l *Layers) Hits(n int, terms map[string]int) int {
	if l == nil || n >= len(l.Sets) {
		return 0
	}
	f := 0
	for t, c := range terms {
		if l.Sets[n][t] > 0 {
			f += c
		}
	}
	return f
}

func topWords(counts map[string]int) map[string]int {
	type wc struct {
		w string
		c int
	}
	var list []wc
	for w, c := range counts {
		if c >= LayerMinSupport {
			list = append(list, wc{w, c})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].c != list[j].c {
			return list[i].c > list[j].c
		}
		return list[i].w < list[j].w
	})
	if len(list) > LayerMaxWords {
		list = list[:LayerMaxWords]
	}
	out := make(map[string]int, len(list))
	for _, x := range list {
		out[x.w] = x.c
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
