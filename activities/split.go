package activities

import (
	"context"

	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
)

// crawlSplit is the crawl state strategy.accept: split judges with
// (relevance.CrawlScores): the scores of the crawl's judged pages and the
// in-link sources of the batch's pages.
type crawlSplit struct {
	scores  *relevance.CrawlScores
	sources map[string][]string // batch page URL hash → URL hashes linking to it
	base    float64             // the page filter's own threshold
}

// loadCrawlSplit reads what split acceptance needs for a batch: one pass
// over the crawl log (judged pages' scores) and one over the topic's link
// graph, keeping only links into the batch. Both passes are linear in the
// crawl's size per batch — affordable at the evaluation's budgets, and the
// reason split is an option and not free (docs/algorithms.md). nil when the
// topic does not ask for split acceptance.
func (a *Activities) loadCrawlSplit(ctx context.Context, lt *loadedTopic, crawlID, topicName string, batch []string) (*crawlSplit, error) {
	if lt.Topic.Strategy.AcceptMode() != topic.AcceptSplit {
		return nil, nil
	}
	base, err := relevance.BaseThreshold(lt.Filter, lt.Topic)
	if err != nil {
		return nil, err
	}
	judged := map[string]float64{}
	err = a.Store.CrawlLog(ctx, crawlID, func(p store.Page) error {
		switch p.Decision {
		case store.DecisionAccepted, store.DecisionRejected, store.DecisionTunnel:
			judged[p.URLHash] = p.Relevance
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(batch))
	for _, h := range batch {
		want[h] = true
	}
	sources := map[string][]string{}
	err = a.Store.Edges(ctx, topicName, func(l store.Link) error {
		if want[l.Dst] {
			sources[l.Dst] = append(sources[l.Dst], l.Src)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &crawlSplit{scores: relevance.NewCrawlScores(judged), sources: sources, base: base}, nil
}
