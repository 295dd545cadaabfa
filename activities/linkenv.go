package activities

import (
	"bytes"
	"context"
	"fmt"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/lexicon"
	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/parse"
)

// predictorEnv loads the learned state a batch's link predictor reads, in
// the versions the workflow recorded in the BatchRef (never "latest"): the
// link model, the IPageRank scores and the topic model's lexicon. Decoded
// versions are cached: stored versions never change.
func (a *Activities) predictorEnv(ctx context.Context, in crawlapi.BatchRef, lt *loadedTopic) (linkpred.Env, error) {
	env := linkpred.Env{Model: lt.Model, Terms: a.Tok, Seed: lt.Topic.Strategy.Seed}
	if in.LinkModelVersion > 0 {
		v, err := a.cachedModel(ctx, in.Topic, linkmodel.ModelKind, in.LinkModelVersion, func(b []byte) (any, error) { return linkmodel.Decode(b) })
		if err != nil {
			return env, err
		}
		env.LinkModel = v.(*linkmodel.Model)
	}
	if in.RankVersion > 0 {
		v, err := a.cachedModel(ctx, in.Topic, linkmodel.RanksKind, in.RankVersion, func(b []byte) (any, error) { return linkmodel.DecodeRanks(b) })
		if err != nil {
			return env, err
		}
		env.Ranks = v.(*linkmodel.Ranks)
	}
	if lt.Model.LexiconVersion > 0 {
		v, err := a.cachedModel(ctx, in.Topic, lexicon.ModelKind, lt.Model.LexiconVersion, func(b []byte) (any, error) { return lexicon.Parse(bytes.NewReader(b)) })
		if err != nil {
			return env, err
		}
		env.Lexicon = v.(*lexicon.Lexicon)
	}
	return env, nil
}

func (a *Activities) cachedModel(ctx context.Context, topicName, kind string, version int, decode func([]byte) (any, error)) (any, error) {
	key := fmt.Sprintf("model\x00%s\x00%s\x00%d", topicName, kind, version)
	if v, ok := a.cache.Load(key); ok {
		return v, nil
	}
	data, _, err := a.Store.Model(ctx, topicName, kind, version)
	if err != nil {
		return nil, fmt.Errorf("load %s v%d of %s: %w", kind, version, topicName, err)
	}
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	a.cache.Store(key, v)
	return v, nil
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
// normalises over the page (JLSE).
func scoreLinks(pred linkpred.Predictor, parent linkpred.Parent, links []parse.Link) []float64 {
	ls := predLinks(links)
	if ps, ok := pred.(linkpred.PageScorer); ok {
		return ps.ScorePage(parent, ls)
	}
	out := make([]float64, len(ls))
	for i, l := range ls {
		out[i] = pred.Score(parent, l)
	}
	return out
}
