package activities

import (
	"context"
	"fmt"
	"sync"

	"focuscrawl/internal/vsm"
)

// A topic's term statistics — the document frequencies behind every page
// and link score's IDF — were counted over every page it parsed: one upsert
// per distinct term of each processing group, inside the store's single
// write transaction. At a real site's vocabulary that upsert was the
// largest cost of a page (about 4 ms per page against a 200,000-term
// table, docs/benchmarks.md), and it grows with the crawl. With
// crawl.term_sample (default 1,000) the statistics count only the topic's
// first pages (store.GroupWrite.TermSample); after that they no longer
// change, so each worker reads them once (store AllTermStats) and builds
// every later IDF from memory, with no store read or write for terms at
// all. An IDF from a sample of the crawl's own pages is an estimate of the
// one from all of them; a term first seen after the sample weighs as an
// unseen term does (df 0). This is focuscrawl's own engineering choice,
// not a seed document's.

// maxSampledTopics bounds the frozen statistics a worker keeps (a few MB
// each); past it the least recently used topic's are dropped, and read
// again if it is needed again. Dropping all of them, as once done, made
// a worker serving more topics than this read each whole again, one after
// another.
const maxSampledTopics = 16

// termSamples holds, per topic and crawl, the frozen term statistics of
// topics whose sample is full (its zero value is ready to use). Keyed by
// crawl too: a fresh start of a topic (ResetTopic) usually begins a new
// crawl and a new sample. A reset under the same crawl ID (a Temporal
// reset of a --fresh crawl's workflow) drops the topic's entries here
// (forget) or, done by another worker, at this worker's next write: one
// that counts terms (counted), or one that finds the new sample full
// already (full) — told from the old by the sample's generation, which
// the reset bumped, even when it holds as many documents. A group that
// writes no parse record before it judges checks the sample first
// (sampledIDF).
type termSamples struct {
	mu sync.Mutex
	m  map[sampleKey]*sampledTerms
	// clock counts the uses of entries; each entry's used is the clock at
	// its last, which orders them for eviction.
	clock uint64
}

type sampleKey struct{ topic, crawl string }

// sampledTerms is one topic's frozen statistics; df nil until read. Only
// used and loading change once it is stored (under termSamples.mu), not
// docs, gen and df, which are read without the lock; nor the map: IDFs
// share it.
type sampledTerms struct {
	// docs and gen are the sample's identity: the document count and
	// generation (store.GroupResult.TermSampleGen) the store reported
	// frozen. The count alone does not tell a sample refilled after a
	// reset from the one before.
	docs int
	gen  int64
	df   map[string]int
	used uint64 // termSamples.clock at its last use
	// loading, while a reader reads the statistics, is closed when it is
	// done: the others wait for it instead of each reading the topic's
	// whole statistics (a few MB) at once, as the first groups of a crawl
	// past its sample, in every pipeline of a worker, did.
	loading chan struct{}
}

// same reports whether st and o are statistics of one sample.
func (st *sampledTerms) same(o *sampledTerms) bool {
	return st.docs == o.docs && st.gen == o.gen
}

// full records that a write of the topic's crawl found its sample full at
// docs documents in generation gen. Statistics kept of another sample (a
// reset topic that filled a new one) are dropped.
func (ts *termSamples) full(topic, crawl string, docs int, gen int64) {
	if crawl == "" {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	k := sampleKey{topic, crawl}
	id := &sampledTerms{docs: docs, gen: gen}
	if st, ok := ts.m[k]; ok && st.same(id) {
		ts.clock++
		st.used = ts.clock
		return
	}
	if ts.m == nil {
		ts.m = map[sampleKey]*sampledTerms{}
	}
	if _, ok := ts.m[k]; !ok && len(ts.m) >= maxSampledTopics {
		ts.evict()
	}
	ts.clock++
	id.used = ts.clock
	ts.m[k] = id
}

// evict drops the least recently used entry; ts.mu is held. A scan: there
// are at most maxSampledTopics entries.
func (ts *termSamples) evict() {
	var lru sampleKey
	first := true
	for k, st := range ts.m {
		if first || st.used < ts.m[lru].used {
			lru, first = k, false
		}
	}
	delete(ts.m, lru)
}

// counted records that a write of the topic's crawl counted terms: its
// sample is not full (the topic was reset under a crawl ID this worker
// kept a sample of — a Temporal reset of a --fresh crawl's workflow — and
// by another worker), so what this worker kept is stale.
func (ts *termSamples) counted(topic, crawl string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	delete(ts.m, sampleKey{topic, crawl})
}

// has reports whether the topic's crawl has an entry (a sample known full).
func (ts *termSamples) has(topic, crawl string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	_, ok := ts.m[sampleKey{topic, crawl}]
	return ok
}

// forget drops what this worker kept of the topic (ResetTopic).
func (ts *termSamples) forget(topic string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for k := range ts.m {
		if k.topic == topic {
			delete(ts.m, k)
		}
	}
}

// acquire returns the entry of the topic's crawl, ok when its sample is
// known full. With its statistics not read yet, the caller is to read them
// (lead, and then call loaded) unless another caller is reading them
// already: wait is then closed when that read is done.
func (ts *termSamples) acquire(topic, crawl string) (st *sampledTerms, lead bool, wait <-chan struct{}, ok bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	st, ok = ts.m[sampleKey{topic, crawl}]
	if !ok {
		return nil, false, nil, false
	}
	ts.clock++
	st.used = ts.clock
	switch {
	case st.df != nil:
	case st.loading != nil:
		wait = st.loading
	default:
		st.loading = make(chan struct{})
		lead = true
	}
	return st, lead, wait, true
}

// loaded ends the read of st's statistics that acquire handed its caller:
// those read are kept in st's place when they are of st's sample (and st
// was not dropped meanwhile); with another sample's, st is dropped. The
// callers waiting for the read try again: after a failed one, one of them
// reads.
func (ts *termSamples) loaded(topic, crawl string, st, read *sampledTerms, err error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	close(st.loading)
	st.loading = nil
	k := sampleKey{topic, crawl}
	switch {
	case err != nil || ts.m[k] != st:
	case read.same(st):
		read.used = st.used
		ts.m[k] = read
	default:
		delete(ts.m, k)
	}
}

// sampledIDF returns the IDF of g's topic from its frozen term statistics
// when its sample is known full (ok), reading them from the store the
// first time — once for all the groups asking at that time. Pages of g not
// yet written add nothing: past the sample, they will not be counted.
//
// What the worker keeps is checked against the store's sample (its
// document count and generation, one row read) for a group that no write
// of its own has told them yet: a group judging pages whose parse records
// are all stored already (a refresh batch's FilterPages and PredictLinks,
// a taken-over slice's pages saved by the attempt before) writes none
// before it judges, and a worker doing only such groups after another
// reset the topic under the same crawl ID kept judging with the old
// sample's statistics.
func (a *Activities) sampledIDF(ctx context.Context, g *group) (idf vsm.IDF, ok bool, err error) {
	if g == nil || g.crawl == "" {
		return nil, false, nil
	}
	topic := g.w.Topic
	if !g.sampleSeen && a.termSamples.has(topic, g.crawl) {
		tt, err := a.Store.TermStats(ctx, topic, nil)
		if err != nil {
			return nil, false, fmt.Errorf("term sample of %s: %w", topic, err)
		}
		if tt.Full(a.CrawlCfg.TermSample) {
			a.termSamples.full(topic, g.crawl, tt.Docs, tt.Gen) // the kept one, or another full one
		} else {
			a.termSamples.counted(topic, g.crawl) // reset, filling again
		}
		g.sampleSeen = true
	}
	for {
		st, lead, wait, ok := a.termSamples.acquire(topic, g.crawl)
		switch {
		case !ok:
			return nil, false, nil
		case st.df != nil:
			return vsm.SmoothIDF(st.docs, st.df), true, nil
		case !lead:
			select {
			case <-wait:
				continue // read, or to be read again after a failure
			case <-ctx.Done():
				return nil, false, fmt.Errorf("term statistics of %s: %w", topic, ctx.Err())
			}
		}
		// No lock is held during the read: other topics' IDFs go on.
		tt, err := a.Store.AllTermStats(ctx, topic)
		read := &sampledTerms{docs: tt.Docs, gen: tt.Gen, df: tt.DF}
		a.termSamples.loaded(topic, g.crawl, st, read, err)
		if err != nil {
			return nil, false, fmt.Errorf("term statistics of %s: %w", topic, err)
		}
		if !read.same(st) {
			// The store moved on since a write found the sample full
			// (reset by another worker, say): what it holds now may be
			// a sample still filling. The ordinary read serves this
			// group, and the next write that finds a full sample says
			// which.
			return nil, false, nil
		}
		return vsm.SmoothIDF(read.docs, read.df), true, nil
	}
}
