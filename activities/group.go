package activities

import (
	"context"

	"focuscrawl/internal/store"
)

// group is a group of pages on its way through the processing stages
// (parse, judge and index, score links): what the stages hand each other in
// memory, and the store writes they leave for one WriteGroup transaction.
// A write transaction per stage and page was the largest cost of a crawl on
// fast sites (the throughput benchmark's CPU profile, docs/benchmarks.md).
//
// Ordering keeps every stage retry-safe: parse records and decisions are
// written (flush) before the accepted pages go to the index, and index flags,
// links, frontier entries and entry completion after it. A retry after a
// crash in between finds the decisions, indexes the accepted pages again
// (upserts keyed by URL hash: never twice) and writes the rest.
type group struct {
	// recs are the parse records made or read so far, by URL hash.
	recs parseCache
	// expandAnyway are pages whose out-links predictLinks follows although
	// the loop policy's shape rule leaves them (strategy.detail_page's
	// target pages, which a dry frontier expands: ExpandPruned), by URL
	// hash.
	expandAnyway map[string]bool
	// bodies are the bodies of pages this attempt fetched and saved, by URL
	// hash: they have no parse record yet, and are parsed from memory.
	bodies map[string][]byte
	// w collects the writes not yet flushed.
	w store.GroupWrite
	// enqueued counts the frontier entries the flushes inserted.
	enqueued int
	// seqs are the Seq numbers the flushes saved pages with, by URL hash.
	seqs map[string]int64
	// docs and df are the topic's term statistics as a stage of the group
	// read them (pending parse records included), kept for the next stage.
	docs int
	df   map[string]int
	// crawl is the crawl the group's pages belong to: the key of its
	// topic's frozen term statistics (termsample.go); "" = none kept.
	crawl string
	// sampleSeen: since the group began, a write of it (or a read,
	// sampledIDF) told this worker the state of its topic's term sample,
	// so what the worker keeps of the sample is the store's current one.
	sampleSeen bool
}

func newGroup(topic, crawl string) *group {
	return &group{recs: parseCache{}, w: store.GroupWrite{Topic: topic}, crawl: crawl}
}

// flush writes what the stages collected, in one transaction.
func (a *Activities) flush(ctx context.Context, g *group) error {
	w := &g.w
	if len(w.Pages)+len(w.Parses)+len(w.Decisions)+len(w.Links)+len(w.Entries)+len(w.Indexed)+len(w.Complete) == 0 {
		return nil
	}
	w.TermSample = a.CrawlCfg.TermSample
	res, err := a.Store.WriteGroup(ctx, *w)
	if err != nil {
		return err
	}
	if res.TermSampleFull {
		a.termSamples.full(w.Topic, g.crawl, res.TermDocs, res.TermSampleGen)
		g.sampleSeen = true
	} else if res.TermDF != nil {
		a.termSamples.counted(w.Topic, g.crawl)
		g.sampleSeen = true
	}
	g.enqueued += res.Enqueued
	if res.TermDF != nil {
		// The group's next stage builds its IDF from what this write left
		// for the terms it counted (idf), instead of reading them back.
		g.df, g.docs = res.TermDF, res.TermDocs
	}
	for h, seq := range res.Seqs {
		if g.seqs == nil {
			g.seqs = map[string]int64{}
		}
		g.seqs[h] = seq
	}
	g.w = store.GroupWrite{Topic: w.Topic, EnqueueOptions: w.EnqueueOptions, Fence: w.Fence, TermSample: w.TermSample}
	return nil
}

// pendingTerms returns the document count and term frequencies that the
// group's unflushed parse records will add to the topic's statistics, so
// that pages judged before the flush see them (as they would have after a
// separate parse transaction).
func (g *group) pendingTerms() (int, map[string]int) {
	if g == nil || len(g.w.Parses) == 0 {
		return 0, nil
	}
	df := map[string]int{}
	for _, p := range g.w.Parses {
		for _, t := range p.Terms { // distinct per page (parsePage)
			df[t]++
		}
	}
	return len(g.w.Parses), df
}
