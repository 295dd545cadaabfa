package activities

import (
	"context"
	"maps"
	"sync"

	"focuscrawl/internal/decision"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// crawlSplit is what strategy.accept: split judges one processing group
// with: a fork of the crawl's score distribution (relevance.ScoreDist), the
// in-links of the group's pages with their sources' stored scores, and the
// scores the group has judged so far (in-link sources within the group).
type crawlSplit struct {
	topic   string
	crawlID string
	dist    *relevance.ScoreDist
	inLinks map[string][]store.InLink // group page URL hash → links into it
	judged  map[string]float64        // this group's judged pages → mixed score
	base    float64                   // the page filter's own threshold, or the sample floor when higher
	floor   float64                   // the sample floor (sampleFloor), 0 when none
	// nav is the view of the crawl whether a page's in-links are the
	// site's navigation is decided against (relevance.Navigation): the
	// judged pages this worker's distribution held before the group, the
	// group's own excluded, and which in-link sources are among them. One
	// view for both counts — the store's in-links include other workers'
	// pages the cached distribution has not seen — and one for the whole
	// group, so neither the order the group is judged in nor a retry
	// changes the outcome (a code review).
	nav navView
}

// navView is a snapshot of a crawl's judged pages for the navigation test.
type navView struct {
	judged int             // judged pages, the group's excluded
	known  map[string]bool // in-link sources among them
}

// loadCrawlSplit reads what split acceptance needs for a group: the
// in-links of its pending pages (one indexed store query, O(group)) and a
// fork of the worker's cached score distribution of the crawl (O(bins);
// splitDists). nil when the topic does not ask for split acceptance.
func (a *Activities) loadCrawlSplit(ctx context.Context, lt *loadedTopic, crawlID, topicName string, batch []string) (*crawlSplit, error) {
	if lt.Topic.Strategy.AcceptMode() != topic.AcceptSplit {
		return nil, nil
	}
	base, err := relevance.BaseThreshold(lt.Filter, lt.Topic)
	if err != nil {
		return nil, err
	}
	in, err := a.Store.InLinks(ctx, topicName, batch)
	if err != nil {
		return nil, err
	}
	var sources []string
	for _, ls := range in {
		for _, l := range ls {
			sources = append(sources, l.Src)
		}
	}
	dist, nav, err := a.splits.fork(ctx, a.Store, topicName, crawlID, batch, sources)
	if err != nil {
		return nil, err
	}
	dist.SetSplitScale(lt.Topic.ThresholdFactor()) // a fork: the cached distribution is not touched
	return &crawlSplit{topic: topicName, crawlID: crawlID, dist: dist, inLinks: in, judged: map[string]float64{}, base: base, nav: nav}, nil
}

// sampleFloor is split acceptance's floor from the topic's sample pages
// (relevance.SampleFloor, strategy.sample_floor) under filter, the group's
// own (its running IDF); 0 when the topic has none.
func (a *Activities) sampleFloor(ctx context.Context, lt *loadedTopic, filter relevance.Filter) (float64, error) {
	if !floorApplies(lt) {
		return 0, nil
	}
	samples, err := a.samplesOf(ctx, lt.Model)
	if err != nil {
		return 0, err
	}
	return relevance.SampleFloor(filter, samples, lt.Topic.Strategy.SampleFloorShare()), nil
}

// floorApplies reports whether the topic's split acceptance has a sample
// floor: split acceptance, a share above 0 and sample pages.
func floorApplies(lt *loadedTopic) bool {
	return lt.Topic.Strategy.AcceptMode() == topic.AcceptSplit && lt.Topic.Strategy.SampleFloorShare() > 0 &&
		lt.Model.SamplesVersion != 0
}

// addSampleTerms adds the sample pages' terms to terms when the topic has
// a sample floor.
func (a *Activities) addSampleTerms(ctx context.Context, lt *loadedTopic, terms map[string]struct{}) error {
	if !floorApplies(lt) {
		return nil
	}
	samples, err := a.samplesOf(ctx, lt.Model)
	if err != nil || samples == nil {
		return err
	}
	for _, d := range samples.Positive {
		for t := range d.TF {
			terms[t] = struct{}{}
		}
	}
	return nil
}

// judgingCrawl is the crawl whose score distribution and in-link evidence
// judge page p: the crawl that fetched it. In a crawl that is the batch's
// own crawl; a refresh (whose batches carry the refresh's ID, no crawl's)
// judges a changed page against the crawl that first judged it, not
// against an empty distribution — which would leave the filter's own
// threshold alone and accept what the crawl turned down.
func judgingCrawl(batchCrawl string, p store.Page) string {
	if p.CrawlID != "" {
		return p.CrawlID
	}
	return batchCrawl
}

// loadCrawlSplits is loadCrawlSplit for each crawl of a group's pending
// pages (crawl ID → their URL hashes): one in a crawl, possibly several in
// a refresh. nil when the topic does not ask for split acceptance.
func (a *Activities) loadCrawlSplits(ctx context.Context, lt *loadedTopic, topicName string, pending map[string][]string) (map[string]*crawlSplit, error) {
	if lt.Topic.Strategy.AcceptMode() != topic.AcceptSplit || len(pending) == 0 {
		return nil, nil
	}
	out := make(map[string]*crawlSplit, len(pending))
	for id, hashes := range pending {
		c, err := a.loadCrawlSplit(ctx, lt, id, topicName, hashes)
		if err != nil {
			return nil, err
		}
		out[id] = c
	}
	return out, nil
}

// judge applies split acceptance to page hash's verdict v: its in-link
// evidence is the judged sources of this crawl — judged within this group
// (their new score) or before it (their stored score) — and whether they
// are all on other hosts than the page's (host: the host its content came
// from; relevance.JudgeNav's offSite).
func (c *crawlSplit) judge(v relevance.Verdict, hash, host string) (relevance.Verdict, bool) {
	var src []float64
	known, local := 0, 0
	for _, l := range c.inLinks[hash] {
		if l.Src == hash {
			continue
		}
		s, ok := c.judged[l.Src]
		if !ok && l.CrawlID == c.crawlID && decision.Judged(l.Decision) {
			s, ok = l.Relevance, true
			if c.nav.known[l.Src] {
				known++
			}
		}
		if ok {
			src = append(src, s)
			if relevance.SameSite(host, urlnorm.Host(l.SrcURL)) {
				local++
			}
		}
	}
	nav := relevance.Navigation(known, c.nav.judged)
	out, expand := c.dist.JudgeNav(v, hash, src, nav, len(src) > 0 && local == 0, c.base)
	if c.floor > 0 {
		// The threshold shown may be the floor: say where it comes from
		// (and keep it for the crawl's re-judgement, rejudge.go).
		out.Reason += relevance.SampleFloorNote(c.floor)
	}
	c.judged[hash] = out.Score
	return out, expand
}

// forget takes back page hash's judgement: its judging panicked after the
// split had recorded its score, and the page is stored as an error, or it
// is a seed site's exploration page (inNoSplit), so neither the group's
// later pages (as in-link evidence, in the split) nor the worker's
// distribution may count it.
func (c *crawlSplit) forget(hash string) {
	if c == nil {
		return
	}
	delete(c.judged, hash)
	c.dist.Remove(hash)
}

// commit records the group's judged pages in the worker's distribution of
// the crawl — after their decisions are stored, so the cache never holds a
// judgment the store lost; a retried group replaces its pages' scores.
func (a *Activities) commitCrawlSplit(c *crawlSplit) {
	if c != nil {
		a.splits.add(c.topic, c.crawlID, c.judged)
	}
}

// splitDists caches, per topic, the score distribution of the pages its
// crawls judged in this worker, so a group's split costs O(bins) instead
// of a pass over the crawl logs. The distribution is the topic's, not the
// crawl's: a crawl that goes on from an earlier crawl's frontier meets what
// that crawl left queued — its least promising links — and a split drawn
// from those pages alone accepted the best of them (a user trial's second
// crawl: 25 of 30 pages, off topic). It is loaded from the store (the
// CrawlLog of each of the topic's crawls) on the topic's first group and
// updated with every group this worker judges; it is reloaded only when this
// worker has added half as many pages as the last load held
// (splitReloadMin at least), which amortises the reload to O(1) a page.
// Between reloads the judgments of other workers are missing: the split is
// a statistic of the score distribution, and a sample of it (this worker's
// share, plus everything up to the last load) has the same two groups as
// the whole — it moves the cut by little, where a wrong cut would need the
// other workers' pages to be distributed differently from this worker's,
// which the shared frontier does not do. With one worker (the evaluation,
// the e2e tests) nothing is missed. In-link evidence, which a page's
// decision depends on directly, is read from the store per group, and it
// and the navigation view are the crawl's own (topicDist.own).
type splitDists struct {
	mu     sync.Mutex
	topics map[string]*topicDist
	// loading holds the topics being read from the store: the read runs
	// outside mu (a big topic's crawl logs take seconds, and every group
	// of every topic on the worker would wait), one read per topic at a
	// time, and the groups judged meanwhile are kept for it (pending).
	loading map[string]*topicLoad
	tick    uint64 // use counter for evicting the least recently used topic
}

// topicLoad is a read of a topic's distribution under way.
type topicLoad struct {
	done chan struct{} // closed when it is installed or failed
	// forgotten: the topic was reset while it ran, so what it read may be
	// gone; it is not installed (the next group loads again).
	forgotten bool
	// pending are the groups added while it ran: the read may have missed
	// them (stored after it read their crawl's log), so they are added to
	// what it read before it is installed.
	pending []pendingGroup
}

type pendingGroup struct {
	crawlID string
	scores  map[string]float64
}

type topicDist struct {
	dist *relevance.ScoreDist
	// own holds each crawl's own judged pages (crawl ID → URL hashes): the
	// navigation view's, as in-link evidence is the crawl's own
	// (crawlSplit.judge).
	own    map[string]map[string]bool
	loaded int    // pages the last load read
	added  int    // pages this worker added since
	used   uint64 // splitDists.tick at the last use
}

const (
	// splitReloadMin is the fewest added pages that trigger a reload, so a
	// young crawl is not reloaded every group.
	splitReloadMin = 256
	// splitMaxTopics bounds the cached topics (one per topic a crawl or a
	// refresh runs for on the worker; the rest are evicted first).
	splitMaxTopics = 16
)

// needsLoad reports whether a group of crawlID's pages must (re)load the
// topic's distribution c (nil: not cached) first.
func (c *topicDist) needsLoad(crawlID string) bool {
	// A crawl this cache has not seen reloads it: a --fresh crawl deleted
	// the topic's pages, which the cache still held (the evaluation's runs
	// of a topic, one worker, each --fresh, judged against the run before),
	// and another worker's new crawl may have judged pages since.
	_, seen := c.ownIfAny(crawlID)
	return c == nil || !seen || c.added >= max(splitReloadMin, c.loaded/2)
}

// fork returns a fork of topicName's distribution for a group of crawlID's
// pages hashes, loading or reloading it first when due, and the navigation
// view of the crawl: its judged pages but the group's, and which of
// sources (the group's in-link sources) are among them.
func (s *splitDists) fork(ctx context.Context, st store.Store, topicName, crawlID string, hashes, sources []string) (*relevance.ScoreDist, navView, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.topics == nil {
		s.topics = map[string]*topicDist{}
		s.loading = map[string]*topicLoad{}
	}
	for s.topics[topicName].needsLoad(crawlID) {
		if ld := s.loading[topicName]; ld != nil { // another group reads it: wait, then look again
			s.mu.Unlock()
			select {
			case <-ld.done:
			case <-ctx.Done():
				s.mu.Lock()
				return nil, navView{}, ctx.Err()
			}
			s.mu.Lock()
			continue
		}
		if err := s.load(ctx, st, topicName, crawlID); err != nil {
			return nil, navView{}, err
		}
	}
	s.tick++
	c := s.topics[topicName]
	// Marked used before evicting: a topic just loaded is the most
	// recently used, not the oldest (it was evicted at once, and every
	// group of it reloaded, once splitMaxTopics topics were cached).
	c.used = s.tick
	s.evict()
	own := c.ownOf(crawlID)
	group := make(map[string]bool, len(hashes))
	nav := navView{judged: len(own), known: map[string]bool{}}
	for _, h := range hashes {
		if !group[h] && own[h] {
			nav.judged-- // judged before: a retry, a refresh
		}
		group[h] = true
	}
	for _, src := range sources {
		if !group[src] && own[src] {
			nav.known[src] = true
		}
	}
	return c.dist.Fork(hashes), nav, nil
}

// load reads topicName's distribution from the store with s.mu released,
// and installs it with the groups added meanwhile. Called and returns with
// s.mu held.
func (s *splitDists) load(ctx context.Context, st store.Store, topicName, crawlID string) error {
	ld := &topicLoad{done: make(chan struct{})}
	s.loading[topicName] = ld
	fresh := &topicDist{dist: relevance.NewScoreDist(), own: map[string]map[string]bool{}}
	err := func() error {
		s.mu.Unlock()
		// Locked again, and the read ended for its waiters, whatever
		// happens — a panic in the read included (the caller's deferred
		// Unlock must find the lock held).
		defer func() {
			s.mu.Lock()
			delete(s.loading, topicName)
			close(ld.done)
		}()
		return topicScores(ctx, st, topicName, func(crawl string, p store.Page) {
			fresh.dist.Add(p.URLHash, p.Relevance)
			fresh.ownOf(crawl)[p.URLHash] = true
		})
	}()
	if err != nil || ld.forgotten {
		return err
	}
	fresh.loaded = fresh.dist.Len()
	for _, g := range ld.pending { // a page's latest score wins, as in add
		fresh.addGroup(g.crawlID, g.scores)
	}
	// Those groups are stored, as the pages read are: not "added since the
	// load" (counted so, many of them made the caller read the topic again
	// at once).
	fresh.added = 0
	// Seen, judged pages or not: this crawl, and those seen before (what
	// the store holds of them now is what was just read), so a crawl with
	// nothing stored yet does not reload every group.
	fresh.ownOf(crawlID)
	if c := s.topics[topicName]; c != nil {
		for crawl := range c.own {
			fresh.ownOf(crawl)
		}
	}
	s.topics[topicName] = fresh
	return nil
}

// ownIfAny is crawl's set of judged pages and whether the cache holds
// one: whether it has seen the crawl. c may be nil.
func (c *topicDist) ownIfAny(crawl string) (map[string]bool, bool) {
	if c == nil {
		return nil, false
	}
	own, ok := c.own[crawl]
	return own, ok
}

// ownOf is crawl's set of judged pages, made when missing.
func (c *topicDist) ownOf(crawl string) map[string]bool {
	own := c.own[crawl]
	if own == nil {
		own = map[string]bool{}
		c.own[crawl] = own
	}
	return own
}

// add records a group of crawlID's judged pages' scores.
func (s *splitDists) add(topicName, crawlID string, scores map[string]float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ld := s.loading[topicName]; ld != nil {
		ld.pending = append(ld.pending, pendingGroup{crawlID: crawlID, scores: maps.Clone(scores)})
	}
	if c := s.topics[topicName]; c != nil { // nil: evicted meanwhile; the next load reads them from the store
		c.addGroup(crawlID, scores)
	}
}

// addGroup records a group of crawlID's judged pages' scores in c.
func (c *topicDist) addGroup(crawlID string, scores map[string]float64) {
	own := c.ownOf(crawlID)
	for h, sc := range scores {
		c.dist.Add(h, sc)
		own[h] = true
	}
	c.added += len(scores)
}

// forget drops topicName's distribution: its crawls' pages were deleted
// (a topic reset), and a crawl the cache has already seen — a reset
// workflow's run under the same ID — would not reload it.
func (s *splitDists) forget(topicName string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.topics, topicName)
	if ld := s.loading[topicName]; ld != nil {
		ld.forgotten = true
	}
}

// evict drops the least recently used topics beyond splitMaxTopics.
func (s *splitDists) evict() {
	for len(s.topics) > splitMaxTopics {
		oldest := ""
		for id, c := range s.topics {
			if oldest == "" || c.used < s.topics[oldest].used {
				oldest = id
			}
		}
		delete(s.topics, oldest)
	}
}

// topicScores calls fn for every judged page of topicName's crawls (those
// a --fresh crawl deleted are gone with their pages), with the ID of the
// crawl that judged it: the pages a split is drawn from (topicDist). Pages
// the topic declares off topic and seed sites' exploration pages are left
// out (inNoSplit).
func topicScores(ctx context.Context, st store.Store, topicName string, fn func(crawl string, p store.Page)) error {
	crawls, err := st.Crawls(ctx, topicName, 0)
	if err != nil {
		return err
	}
	for _, c := range crawls {
		err := st.CrawlLog(ctx, c.ID, func(p store.Page) error {
			if decision.Judged(p.Decision) && !inNoSplit(p) {
				fn(c.ID, p)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
