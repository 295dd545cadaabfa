package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
)

// The dynamic threshold controller (strategy.dynamic_threshold, seed 000;
// rule and signal in internal/relevance/dynamic.go). Its state is the
// crawl-store model relevance.DynamicStateKind, one versioned JSON document
// per topic naming the crawl it belongs to. FilterPages reads it once per
// call, before judging (so a batch is judged with one factor), and after
// judging advances it once per round of Every judged pages.

// dynamicState reads the controller's latest state; a state of another
// crawl (an earlier crawl of the topic) counts as none: every crawl starts
// at factor 1.
func (a *Activities) dynamicState(ctx context.Context, topicName, crawlID string) (relevance.DynamicState, error) {
	data, _, err := a.Store.Model(ctx, topicName, relevance.DynamicStateKind, 0)
	if errors.Is(err, store.ErrNotFound) {
		return relevance.DynamicState{}, nil
	} else if err != nil {
		return relevance.DynamicState{}, err
	}
	var st relevance.DynamicState
	if err := json.Unmarshal(data, &st); err != nil {
		return relevance.DynamicState{}, fmt.Errorf("stored dynamic threshold of %s: %w", topicName, err)
	}
	if st.CrawlID != crawlID {
		return relevance.DynamicState{}, nil
	}
	return st, nil
}

// dynamicTopic returns lt with the page filter's threshold scaled by the
// controller's current factor, or lt itself when the controller is off or
// at factor 1. The cached lt is never modified.
func (a *Activities) dynamicTopic(ctx context.Context, lt *loadedTopic, crawlID string) (*loadedTopic, error) {
	if !lt.Topic.Strategy.DynamicThreshold.Enabled {
		return lt, nil
	}
	st, err := a.dynamicState(ctx, lt.Topic.Name, crawlID)
	if err != nil || st.Factor == 0 || st.Factor == 1 {
		return lt, err
	}
	spec, err := relevance.ScaleThreshold(lt.Topic.Strategy.PageFilter, lt.Topic, st.Factor)
	if err != nil {
		return nil, err
	}
	t := *lt.Topic
	t.Strategy.PageFilter = spec
	return &loadedTopic{Topic: &t, Model: lt.Model}, nil
}

// adjustThreshold advances the controller when the crawl has judged another
// Every pages since the stored round: it measures link-confirmed precision
// from the crawl's judged pages and the topic's link graph and stores the
// next factor (only if the bytes change, so a retry writes nothing new).
func (a *Activities) adjustThreshold(ctx context.Context, lt *loadedTopic, in crawlapi.BatchRef) error {
	cfg := lt.Topic.Strategy.DynamicThreshold
	if !cfg.Enabled {
		return nil
	}
	stats, err := a.Store.CrawlStats(ctx, in.CrawlID)
	if err != nil {
		return err
	}
	round := (stats.Accepted + stats.Rejected + stats.Tunnel) / cfg.Every
	prev, err := a.dynamicState(ctx, in.Topic, in.CrawlID)
	if err != nil || round <= prev.Round {
		return err
	}
	var pages []relevance.PrecisionPage
	accepted := map[string]bool{}
	err = a.Store.CrawlLog(ctx, in.CrawlID, func(p store.Page) error {
		switch p.Decision {
		case store.DecisionAccepted, store.DecisionRejected, store.DecisionTunnel:
			pages = append(pages, relevance.PrecisionPage{Hash: p.URLHash, Decision: p.Decision, Filter: p.Filter, Relevance: p.Relevance})
			if p.Decision == store.DecisionAccepted {
				accepted[p.URLHash] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	children := map[string][]string{}
	if err := a.Store.Edges(ctx, in.Topic, func(l store.Link) error {
		if accepted[l.Src] {
			children[l.Src] = append(children[l.Src], l.Dst)
		}
		return nil
	}); err != nil {
		return err
	}
	spec := lt.Topic.Strategy.PageFilter
	base, err := relevance.BaseThreshold(spec, lt.Topic)
	if err != nil {
		return err
	}
	p, n := relevance.LinkPrecision(pages, children, cfg.Window, spec.Name, base)
	next := relevance.DynamicState{CrawlID: in.CrawlID, Round: round, Precision: p, Evaluated: n,
		Factor: relevance.NextFactor(cfg, prev.Factor, p, n)}
	next.Threshold = min(base*next.Factor, 1)
	data, err := json.Marshal(next)
	if err != nil {
		return err
	}
	if _, err := a.putModelIfChanged(ctx, in.Topic, relevance.DynamicStateKind, data); err != nil {
		return err
	}
	if next.Factor != prev.Factor {
		a.Log.Info("dynamic threshold", "crawl", in.CrawlID, "round", round, "precision", p,
			"evaluated", n, "factor", next.Factor, "threshold", next.Threshold)
	}
	return nil
}
