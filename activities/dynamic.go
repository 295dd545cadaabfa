package activities

import (
	"context"
	"encoding/json"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/decision"
	"focuscrawl/internal/modelstore"
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
// at factor 1. anyCrawl takes the latest state whatever its crawl.
func (a *Activities) dynamicState(ctx context.Context, topicName, crawlID string, anyCrawl bool) (relevance.DynamicState, error) {
	var st relevance.DynamicState
	if _, err := modelstore.Latest(ctx, a.Store, topicName, relevance.DynamicStateKind, &st); err != nil || (st.CrawlID != crawlID && !anyCrawl) {
		return relevance.DynamicState{}, err
	}
	return st, nil
}

// dynamicFactor is the controller's current factor for the crawl, which the
// page filter applies to its own threshold (relevance.Env.DynamicFactor);
// 0 when the controller is off or has no state yet (the threshold as is).
// A refresh batch (revisited pages of earlier crawls: revisited) judges
// with the topic's latest factor, the one its last crawl accepted pages
// at: its own ID names no state, and the filter's bare threshold judged a
// page that crawl had accepted at a lower one anew (and a page a refresh
// turns down is not revisited again).
func (a *Activities) dynamicFactor(ctx context.Context, lt *loadedTopic, crawlID string, revisited bool) (float64, error) {
	if !lt.Topic.Strategy.DynamicThreshold.Enabled {
		return 0, nil
	}
	st, err := a.dynamicState(ctx, lt.Topic.Name, crawlID, revisited)
	return st.Factor, err
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
	round := stats.Judged() / cfg.Every
	prev, err := a.dynamicState(ctx, in.Topic, in.CrawlID, false)
	if err != nil || round <= prev.Round {
		return err
	}
	accepted, judged, err := a.recentAccepted(ctx, in, cfg.Window)
	if err != nil {
		return err
	}
	base, err := relevance.BaseThreshold(lt.Filter, lt.Topic)
	if err != nil {
		return err
	}
	p, n := relevance.LinkPrecisionOf(accepted, judged, cfg.Window, lt.Filter.Name(), base)
	next := relevance.DynamicState{CrawlID: in.CrawlID, Round: round, Precision: p, Evaluated: n,
		Factor: relevance.NextFactor(cfg, prev.Factor, p, n)}
	next.Threshold = min(base*next.Factor, 1)
	data, err := json.Marshal(next)
	if err != nil {
		return err
	}
	if _, err := modelstore.PutIfChanged(ctx, a.Store, in.Topic, relevance.DynamicStateKind, data); err != nil {
		return err
	}
	// Only the latest state is read; a round every Every judged pages
	// left one version per round behind.
	if _, err := a.Store.PruneModels(ctx, in.Topic, relevance.DynamicStateKind, keepLearnedVersions); err != nil {
		return err
	}
	if next.Factor != prev.Factor {
		a.Log.Info("dynamic threshold", "crawl", in.CrawlID, "round", round, "precision", p,
			"evaluated", n, "factor", next.Factor, "threshold", next.Threshold)
	}
	return nil
}

// recentAccepted reads what link-confirmed precision needs
// (relevance.LinkPrecisionOf): the crawl's accepted pages newest first and,
// for each, the pages it links to that the crawl judged — from the crawl's
// last pages back, a chunk at a time, until window of them are evaluable
// or the crawl's pages run out. Before, every round read the crawl's
// whole log and the topic's whole link graph, a round every Every (10)
// judged pages: O(pages²) over a crawl, about 6 × 10⁸ rows read for a
// 30,000-page one; now a round reads about a chunk.
func (a *Activities) recentAccepted(ctx context.Context, in crawlapi.BatchRef, window int) ([]string, map[string][]relevance.PrecisionPage, error) {
	chunk := max(64, 4*window)
	var accepted []string
	judged := map[string][]relevance.PrecisionPage{}
	evaluable := 0
	for before := int64(0); evaluable < window; {
		pages, err := a.Store.RecentPages(ctx, in.CrawlID, before, chunk)
		if err != nil {
			return nil, nil, err
		}
		var srcs []string
		for _, p := range pages {
			if p.Decision == store.DecisionAccepted {
				srcs = append(srcs, p.URLHash)
			}
		}
		links, err := a.Store.OutLinks(ctx, in.Topic, srcs)
		if err != nil {
			return nil, nil, err
		}
		for _, h := range srcs {
			accepted = append(accepted, h)
			for _, l := range links[h] {
				if l.Dst != h && l.CrawlID == in.CrawlID && decision.Judged(l.Decision) {
					judged[h] = append(judged[h], relevance.PrecisionPage{Hash: l.Dst, Decision: l.Decision, Filter: l.Filter, Relevance: l.Relevance})
				}
			}
			if len(judged[h]) > 0 {
				evaluable++
			}
		}
		if len(pages) < chunk {
			break
		}
		before = pages[len(pages)-1].Seq
	}
	return accepted, judged, nil
}
