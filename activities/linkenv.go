package activities

import (
	"context"
	"errors"
	"fmt"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/modelstore"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/store"
)

// predictorEnv loads the learned state a batch's link predictor reads, in
// the versions the workflow recorded in the BatchRef (never "latest"): the
// link model, the IPageRank scores and the topic model's lexicon. Decoded
// versions are cached: stored versions never change. A version the
// predictor does not read is not loaded: the BatchRef names the crawl's
// latest rank version whatever its predictor, and decoding every version
// of a large crawl's ranks (two maps over every page) for best-first,
// which never reads them, cost a worker memory and time at every ranking
// round (a 30,000-page loopback crawl, docs/benchmarks.md).
func (a *Activities) predictorEnv(ctx context.Context, in crawlapi.BatchRef, lt *loadedTopic) (linkpred.Env, error) {
	env := linkpred.Env{Model: lt.Model, Terms: a.Tok, Seed: lt.Topic.Strategy.Seed}
	var err error
	if in.LinkModelVersion > 0 && lt.LearnsLinks {
		if env.LinkModel, err = loadOrNewest(ctx, a, in.Topic, linkmodel.ModelKind, in.LinkModelVersion, linkmodel.Decode); err != nil {
			return env, err
		}
	}
	if in.RankVersion > 0 && linkpred.ReadsRanks(lt.Predictor) {
		if env.Ranks, err = loadOrNewest(ctx, a, in.Topic, linkmodel.RanksKind, in.RankVersion, linkmodel.DecodeRanks); err != nil {
			return env, err
		}
	}
	lex, err := a.lexiconOf(ctx, lt.Model)
	if lex != nil { // a nil *Lexicon in the interface would not read as "none"
		env.Lexicon = lex
	}
	return env, err
}

// keepLearnedVersions is how many versions of a learned link model or of
// the ranks a topic keeps (the newest; store.Models.PruneModels): each
// holds the crawl's whole vocabulary or a score for every page, a round
// comes every few hundred accepted pages, and a crawl reads only the
// newest — a slice ends when a newer one is recorded.
const keepLearnedVersions = 3

// loadOrNewest loads version v of (topic, kind) as modelstore.Load does,
// or the newest version when v was pruned (keepLearnedVersions): a slice
// retried rounds after it started reads what its crawl has now. The newest
// found for a pruned version is remembered (Activities.prunedTo), so the
// slice's later batches read it from the cache, not the store again.
func loadOrNewest[T any](ctx context.Context, a *Activities, topic, kind string, v int, decode func([]byte) (T, error)) (T, error) {
	key := fmt.Sprintf("%s\x00%s\x00%d", topic, kind, v)
	if n, ok := a.prunedTo.Load(key); ok {
		v = n.(int)
	}
	m, err := modelstore.Load(ctx, &a.models, a.Store, topic, kind, v, decode)
	if errors.Is(err, store.ErrNotFound) {
		var newest int
		if _, newest, err = a.Store.Model(ctx, topic, kind, 0); err == nil {
			a.prunedTo.Store(key, newest)
			m, err = modelstore.Load(ctx, &a.models, a.Store, topic, kind, newest, decode)
		}
	}
	return m, err
}

// predLinks converts parsed links to what link predictors read.
func predLinks(links []parse.Link) []linkpred.Link {
	ls := make([]linkpred.Link, len(links))
	for i, l := range links {
		ls[i] = linkpred.Link{URL: l.URL, Anchor: l.Anchor, Title: l.Title, Alt: l.Alt, Context: l.Context,
			DOMContext: l.DOMContext}
	}
	return ls
}

// scoreLinks scores a page's links, all at once when the predictor
// normalises over the page (JLSE): their priorities, and the scores the
// crawl graph keeps for them — the links' own scores for a predictor that
// mixes in its parent's (linkpred.OwnScorer: ipagerank), else the same
// slice as the priorities.
func scoreLinks(pred linkpred.Predictor, parent linkpred.Parent, links []parse.Link) (prio, own []float64) {
	ls := predLinks(links)
	if ps, ok := pred.(linkpred.PageScorer); ok {
		prio = ps.ScorePage(parent, ls)
		return prio, prio
	}
	prio = make([]float64, len(ls))
	if ms, ok := pred.(linkpred.OwnScorer); ok {
		own = make([]float64, len(ls))
		for i, l := range ls {
			prio[i], own[i] = ms.ScoreOwn(parent, l)
		}
		return prio, own
	}
	for i, l := range ls {
		prio[i] = pred.Score(parent, l)
	}
	return prio, prio
}
