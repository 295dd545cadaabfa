package activities

import (
	"context"
	"encoding/json"
	"fmt"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/graph"
	"focuscrawl/internal/index"
	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/store"
)

// RecomputeHubAuthority runs PageRank (d = 0.85), HITS (hub and authority,
// L2-normalised each round, until the L1 change is below 1e-9 or 100 rounds)
// and focuscrawl's IPageRank over the topic's whole crawl graph in CSR form
// (package graph), then
//
//   - writes hub, authority and IPageRank (scaled to max 1) to the pages,
//   - writes them to the index documents of accepted pages (ranking),
//   - stores the scaled IPageRank and PageRank as a new linkmodel.RanksKind
//     version, which later batches of the ipagerank predictor read — for
//     any other predictor an empty version, which still numbers the round:
//     nothing else reads them, and on a 30,000-page crawl the ranks of
//     every page were 1.4–3.4 MB per round, kept for ever (docs/benchmarks.md),
//   - re-prioritises queued URLs: with ipagerank every one as
//     λ·(best in-link score) + (1−λ)·IPageRank(URL), where an in-link's
//     stored score is its own RWB score, not ipagerank's mixed priority
//     (linkpred.OwnScorer), so the parent's rank counts once, through
//     IPageRank(URL); with any predictor but bfs, out-links of relevant
//     hubs gain β·HubBoost (graph.HubBoost).
//
// Every write sets absolute values, so a retry is harmless.
func (a *Activities) RecomputeHubAuthority(ctx context.Context, in crawlapi.HubAuthInput) (crawlapi.HubAuthResult, error) {
	var res crawlapi.HubAuthResult
	// Its ranks, writes and the frontier's re-prioritisation each take
	// minutes on a big crawl, with no point between to beat at.
	defer beatThroughout(ctx, "hubauth")()
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return res, err
	}
	ids := graph.NewInterner()
	var edges []graph.Edge
	// The best stored score of a link into the node: the predictor's score
	// times the host's yield factor at scoring time, for ipagerank its RWB
	// part alone (links stored before that kept the mixed priority).
	linkScore := map[int32]float64{}
	err = a.Store.GraphEdges(ctx, in.Topic, func(l store.Link) error {
		s, d := ids.ID(l.Src), ids.ID(l.Dst)
		edges = append(edges, graph.Edge{From: s, To: d})
		if l.Score > linkScore[d] {
			linkScore[d] = l.Score
		}
		if len(edges)%100000 == 0 {
			heartbeat(ctx, len(edges))
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("read crawl graph of %s: %w", in.Topic, err)
	}
	type pageInfo struct {
		rel      float64
		accepted bool
		docID    string
	}
	pages := map[string]pageInfo{}
	add := func(p store.Page) error {
		if _, ok := pages[p.URLHash]; !ok {
			pages[p.URLHash] = pageInfo{p.Relevance, p.Decision == store.DecisionAccepted, p.FinalHash}
			ids.ID(p.URLHash) // pages without links are nodes too
		}
		return nil
	}
	if err := a.Store.CrawlLog(ctx, in.CrawlID, add); err != nil {
		return res, fmt.Errorf("read crawl %s: %w", in.CrawlID, err)
	}
	if err := a.Store.AcceptedPages(ctx, in.Topic, add); err != nil { // earlier crawls' results
		return res, fmt.Errorf("read accepted pages of %s: %w", in.Topic, err)
	}
	heartbeat(ctx, "graph read")
	g, err := graph.Build(ids.Len(), edges)
	if err != nil {
		return res, err
	}
	edges = nil
	res.Nodes, res.Edges = g.N, g.Edges()

	rel := make([]float64, g.N)
	relevant := make([]bool, g.N)
	for i, h := range ids.Keys {
		if p, ok := pages[h]; ok {
			rel[i], relevant[i] = p.rel, p.accepted
		} else {
			rel[i] = linkScore[int32(i)]
		}
	}
	pr := graph.PageRank(g, graph.RankOptions{})
	heartbeat(ctx, "pagerank")
	hits := graph.HITS(g, 0, 0)
	heartbeat(ctx, "hits")
	ipr := graph.IPageRank(g, graph.IPageRankInput{Relevance: rel, Relevant: relevant}, graph.RankOptions{})
	res.PageRankIters, res.HITSIters, res.IPageRankIters = pr.Iterations, hits.Iterations, ipr.Iterations
	iprN, prN := scaleMax(ipr.Scores), scaleMax(pr.Scores)

	scores := make(map[string][3]float64, len(pages))
	docs := map[string]index.Scores{}
	ranks := linkmodel.Ranks{Scores: map[string]float64{}, PageRank: map[string]float64{}}
	keepRanks := linkpred.ReadsRanks(lt.Predictor)
	for i, h := range ids.Keys {
		p, ok := pages[h]
		if !ok {
			continue
		}
		scores[h] = [3]float64{hits.Hub[i], hits.Authority[i], iprN[i]}
		if keepRanks {
			ranks.Scores[h], ranks.PageRank[h] = iprN[i], prN[i]
		}
		if p.accepted && p.docID != "" {
			docs[p.docID] = index.Scores{Hub: hits.Hub[i], Authority: hits.Authority[i], IPageRank: iprN[i]}
		}
	}
	if err := a.Store.SetScores(ctx, in.Topic, scores); err != nil {
		return res, err
	}
	res.Pages = len(scores)
	if a.Index != nil {
		if err := a.Index.UpdateScores(ctx, in.Topic, docs); err != nil {
			return res, fmt.Errorf("update index scores of %s: %w", in.Topic, err)
		}
		res.Indexed = len(docs)
	}
	blob, err := json.Marshal(ranks)
	if err != nil {
		return res, err
	}
	if res.RankVersion, err = a.Store.PutModel(ctx, in.Topic, linkmodel.RanksKind, blob); err != nil {
		return res, fmt.Errorf("store ranks of %s: %w", in.Topic, err)
	}
	if _, err := a.Store.PruneModels(ctx, in.Topic, linkmodel.RanksKind, keepLearnedVersions); err != nil {
		return res, fmt.Errorf("prune the ranks of %s: %w", in.Topic, err)
	}

	// Queued URLs: ipagerank's λ·(best in-link RWB) + (1−λ)·IPageRank,
	// other predictors keep their best in-link score; every predictor but
	// the bfs baseline then adds β·HubBoost, so a relevant hub's out-links
	// move up (docs/algorithms.md "HITS hubs steer the frontier").
	ip, isIPR := lt.Predictor.Params().(linkpred.IPageRankParams)
	var boost []float64
	if lt.Predictor.Name() != "bfs" {
		boost = graph.HubBoost(g, hits.Hub, relevant)
	}
	prio := map[string]float64{}
	for i, h := range ids.Keys {
		if _, fetched := pages[h]; fetched {
			continue
		}
		p := linkScore[int32(i)]
		if isIPR {
			p = ip.Lambda*p + (1-ip.Lambda)*iprN[i]
		} else if boost == nil || boost[i] == 0 {
			continue // unchanged
		}
		if boost != nil {
			p += graph.DefaultHubBoost * boost[i]
		}
		prio[h] = p
	}
	if len(prio) > 0 {
		if err := a.Store.Reprioritize(ctx, in.Topic, prio); err != nil {
			return res, err
		}
	}
	res.Reprioritized = len(prio)
	return res, nil
}

// scaleMax divides by the maximum so scores are comparable across graphs
// of different sizes (a distribution's values shrink as N grows).
func scaleMax(x []float64) []float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, v)
	}
	out := make([]float64, len(x))
	if m > 0 {
		for i, v := range x {
			out[i] = v / m
		}
	}
	return out
}
