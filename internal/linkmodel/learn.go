package linkmodel

import (
	"focuscrawl/internal/graph"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// PageInfo is one fetched page of the crawl, as learning sees it.
type PageInfo struct {
	Hash     string // URL hash (the crawl graph's node key)
	URL      string
	Parent   string // URL hash of the page the link was found on; "" for seeds (and sitemap or expansion entries)
	Accepted bool   // judged relevant
	Rejected bool   // judged irrelevant
	// Target: accepted and a target (detail) page rather than a link (hub)
	// page (seed 002's split, relevance.IsDetailPage). Target pages are
	// G_W's leaves and the layers' anchors; accepted hubs are interior.
	Target     bool
	AnchorPath string // anchor texts from the seed down to this page
}

// LinkInfo is one edge of the crawl graph.
type LinkInfo struct {
	Src, Dst        string
	Anchor, Context string
}

// TrainingData is the crawl graph learning reads. Pages must be in fetch
// order and Links in a fixed order, so learning is deterministic.
type TrainingData struct {
	Pages []PageInfo
	Links []LinkInfo
	// EachLink, when set, streams the crawl graph's edges (in a fixed
	// order) instead of Links. Learn reads them once and keeps only what it
	// learns from — each crawled page's in-link, the edges among G_W's
	// vertices, the layers' word counts — not every edge's anchor and
	// context: on a big topic those were gigabytes (ten links a page). A
	// read error is the caller's to record and check after Learn, as with
	// DOMContext.
	EachLink func(yield func(LinkInfo))
	// DOMContext, when set, returns the DOM context (text within tree
	// distance 5, seed 002) of the link src → dst as parsed on src, or ""
	// when unknown. Learn calls it only for the in-links of G_W's vertices
	// (so a caller may load it lazily) and uses it as the JLSE context
	// attribute, falling back to LinkInfo.Context; the anchor-context
	// layers keep Context (seed 001's ±30 bytes).
	DOMContext func(src, dst string) string
}

// Learn builds every link model from the crawl graph:
//
//   - JLSE (seed 002): NB over anchors of links into accepted (positive)
//     and rejected (negative) pages; G_W = all pages on the parent chains
//     from each result (target) page back to a seed, with every crawl edge
//     among them; target pages are leaves, relevant hubs on the chains are
//     interior vertices; Q-learning with reward 1 and γ = 0.9.
//   - BFC (seed 004): the path discriminator trained on the anchor paths of
//     accepted (positive) and rejected (negative) pages.
//   - Layers (seed 001): the predecessor-layer feature sets, from the
//     parent chains of target pages, navigation words filtered out.
//
// Result pages are the pages marked Target. When no accepted page is (a
// site whose pages are all short or link-dense, or a caller that does not
// classify), every accepted page is a result page, as before the split
// (docs/algorithms.md "jlse").
func Learn(d TrainingData, tc topic.TermCounter) *Model {
	pages := map[string]*PageInfo{}
	anyTarget := false
	for i := range d.Pages {
		pages[d.Pages[i].Hash] = &d.Pages[i]
		anyTarget = anyTarget || d.Pages[i].Accepted && d.Pages[i].Target
	}
	result := func(p *PageInfo) bool {
		return p != nil && p.Accepted && (p.Target || !anyTarget)
	}
	// G_W's vertices: the parent chains of result pages, in first-reached
	// order.
	ids := graph.NewInterner()
	for _, p := range d.Pages {
		if !result(&p) {
			continue
		}
		seen := map[string]bool{}
		for h := p.Hash; h != "" && !seen[h]; {
			seen[h] = true
			ids.ID(h)
			pp, ok := pages[h]
			if !ok {
				break
			}
			h = pp.Parent
		}
	}
	// One pass over the links: the link that led to each page (its
	// parent's edge), G_W's edges, and the words of every link's anchor
	// and context for the layers' lift test. Only the parent's edge is a
	// page's in-link. A page without a parent (a seed, a sitemap or
	// expansion entry) was reached by no link: a later page's link back to
	// it ("home") is not how the crawl found it, and taken for its in-link
	// it taught the anchor NB, its G_W vertex and the layers that anchor.
	// Likewise a page whose parent's edge is not in the crawl graph has
	// none: the first other link into it used to stand in, attributing the
	// page to a page that did not lead to it (its anchor taught as the one
	// that found the page, its words counted in the wrong layer).
	inLink := map[string]*LinkInfo{}
	var edges []graph.Edge
	wordLinks := map[string]int{} // links whose anchor + context hold the word
	links := 0
	d.eachLink(func(l LinkInfo) {
		links++
		if p, ok := pages[l.Dst]; ok && p.Parent != "" && l.Src == p.Parent && inLink[l.Dst] == nil {
			kept := l // a copy per kept link, not one per link read
			inLink[l.Dst] = &kept
		}
		s, ok1 := ids.Lookup(l.Src)
		t, ok2 := ids.Lookup(l.Dst)
		if ok1 && ok2 {
			edges = append(edges, graph.Edge{From: s, To: t})
		}
		for w := range tc.TermFreq(l.Anchor + " " + l.Context) {
			wordLinks[w]++
		}
	})
	m := &Model{AcceptedAsResults: !anyTarget}

	// NB anchor evidence and BFC samples, in fetch order.
	nb := NewNaiveBayes()
	var samples []BFCSample
	for _, p := range d.Pages {
		if !p.Accepted && !p.Rejected {
			continue
		}
		if result(&p) {
			m.Results++
		}
		// An anchor with no term ("»", "the") is no training document: if
		// every anchor were such, both classes counted as seen with an
		// empty vocabulary and every posterior was NaN (1/0 − 1/0).
		if l := inLink[p.Hash]; l != nil {
			if tf := tc.TermFreq(l.Anchor); len(tf) > 0 {
				nb.Add(tf, p.Accepted)
			}
		}
		if p.AnchorPath != "" {
			samples = append(samples, BFCSample{PathFeatures(p.AnchorPath, tc), p.Accepted})
		}
	}
	m.BFC = TrainBFC(samples)

	// G_W: its vertices and edges read above.
	g, _ := graph.Build(ids.Len(), edges) // ids are in range by construction
	leaf := make([]bool, ids.Len())
	for i, h := range ids.Keys {
		leaf[i] = result(pages[h])
	}
	qo := graph.QOptions{Reward: DefaultReward, Gamma: DefaultGamma}
	q := graph.QLearn(g, leaf, qo)
	j := &JLSE{NB: nb, Edges: g.Edges(), Sweeps: q.Sweeps}
	for i, h := range ids.Keys {
		v := Vertex{Hash: h, Leaf: leaf[i], Q: q.Q[i], Value: graph.EdgeQ(q.Q, leaf, i, qo) / qo.Reward}
		if p := pages[h]; p != nil {
			v.URL = tc.TermFreq(urlnorm.Words(p.URL))
		}
		if l := inLink[h]; l != nil {
			v.Anchor = tc.TermFreq(l.Anchor)
			ctx := l.Context
			if d.DOMContext != nil {
				if dc := d.DOMContext(l.Src, l.Dst); dc != "" {
					ctx = dc
				}
			}
			v.Context = tc.TermFreq(ctx)
		}
		j.Vertices = append(j.Vertices, v)
	}
	j.Prepare()
	m.JLSE = j

	m.Layers = learnLayers(d, pages, inLink, result, tc, wordLinks, links)
	return m
}

// eachLink calls fn with every link of d, streamed (EachLink) or not.
func (d TrainingData) eachLink(fn func(LinkInfo)) {
	if d.EachLink != nil {
		d.EachLink(fn)
		return
	}
	for _, l := range d.Links {
		fn(l)
	}
}

// learnLayers learns seed 001's predecessor layers from the parent chains
// of result pages: the ancestor at distance n+1 of a result page (itself
// not a result page; a relevant hub counts) is a layer-n predecessor, and
// the words of the anchor text and context of the link that led to it
// count toward layer n. Navigation words ("next", "home", 下一页) occur on
// almost every link of a site, so a word is kept only if its share of
// layer-n links is at least LayerMinLift times its share of all the crawl
// graph's links (df: the links whose anchor + context hold each word, of
// all the graph's links); stop words are already dropped by the tokenizer.
func learnLayers(d TrainingData, pages map[string]*PageInfo, inLink map[string]*LinkInfo,
	result func(*PageInfo) bool, tc topic.TermCounter, df map[string]int, allLinks int) *Layers {
	counts := make([]map[string]int, LayerDepth)
	used := make([]map[string]bool, LayerDepth)
	// links[n] counts layer n's links: its predecessor pages that a link
	// led to. A seed has none, and counted it would dilute every word's
	// share of the layer (the lift test compares shares of links).
	links := make([]int, LayerDepth)
	for n := range counts {
		counts[n], used[n] = map[string]int{}, map[string]bool{}
	}
	for _, p := range d.Pages {
		if !result(&p) {
			continue
		}
		h := p.Parent
		for n := 0; n < LayerDepth && h != ""; n++ {
			pp := pages[h]
			if pp == nil {
				break
			}
			if !result(pp) && !used[n][h] {
				used[n][h] = true
				if l := inLink[h]; l != nil {
					links[n]++
					for t := range tc.TermFreq(l.Anchor + " " + l.Context) {
						counts[n][t]++
					}
				}
			}
			h = pp.Parent
		}
	}
	layers := &Layers{}
	for n := range counts {
		for t, c := range counts[n] {
			if links[n] == 0 || float64(c)/float64(links[n]) < LayerMinLift*float64(df[t])/float64(max(allLinks, 1)) {
				delete(counts[n], t)
			}
		}
		layers.Sets = append(layers.Sets, topWords(counts[n]))
	}
	return layers
}
