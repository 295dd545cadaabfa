package activities

import (
	"context"
	"errors"
	"fmt"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
)

// DryExpandedMark ends the reason of a page ExpandPruned expanded
// (followed by its round: dryMark).
const DryExpandedMark = "; expanded later, when the frontier ran dry"

// dryMark is DryExpandedMark with round's number, which tells a
// retried round the pages an earlier attempt of it expanded; round 0 (a
// workflow from before rounds were numbered) has none.
func dryMark(round int) string {
	if round <= 0 {
		return DryExpandedMark
	}
	return fmt.Sprintf("%s (round %d)", DryExpandedMark, round)
}

// ExpandPruned follows the out-links of the crawl's best pruned pages —
// rejected, so under pruning (strategy.prune, seed 000) never expanded — at
// most in.Max of them, highest score first, when the crawl's frontier ran
// dry with budget left. Pruning saves the budget for better links; once
// there are none, the pruned pages' links are the best the crawl has, and
// without them it ended early: a drafted topic with `breadth: specific` on
// a manual whose table of contents (a frame) scored just under the
// threshold ended after 3 of 150 pages, its only way on pruned. The pages
// become tunnels (expanded, not accepted; dryMark in their reason), so the
// final re-judgement's promotion, which takes only tunnels the split
// turned down, leaves them as it leaves rejected pages (feedback
// re-judgement, which may accept any judged page, treats them alike too),
// and a later call takes the next ones. A page whose links cannot be
// followed (no parse record, nofollow) is left rejected and takes no place
// of the round. Decisions, links and frontier entries go in one store
// write. Retry-safe: an attempt of round in.Round that finds pages marked
// with the round (an earlier attempt's write succeeded) reports them and
// expands no others; the result counts the topic's queued entries from the
// store. Nothing to do for a topic that does not prune (its rejected pages
// are expanded already). focuscrawl's own rule.
//
// The candidates come from the store best first, filtered and cut to the
// round's size by the database (Store.BestPages), and a retry's marked
// pages are counted there (Store.DryExpanded): the database still scans
// the crawl's pages, O(crawl) a round, but hands over about as many as
// the round expands, where the whole crawl log was read into the activity
// before, every round. Rounds are rare next to page writes, so no index
// serves them (it would cost every page write of the crawl).
//
// "Best" is the stored score, which under strategy.accept: split mixes
// the page's own score with its judged in-linkers' (relevance.MixInLinks),
// so a page with next to no text of its own can rank on its in-links
// alone. That is kept, on purpose. Every rejected page's own score is
// below the filter's threshold already (a split page whose own verdict
// was relevant is a tunnel: relevance.ScoreDist.JudgeNav), so requiring
// it above the threshold would leave nothing to expand; and ordering by it
// would put last the pages the rule is for — a frame set, a table of
// contents with little text, linked from on-topic pages — whose in-links
// are the crawl's one evidence that their links lead on topic. Nor is the
// own score stored apart (Page.Relevance holds the mix): ordering by it
// would mean reading every candidate's parse record, the crawl-sized read
// this replaced.
//
// Under strategy.detail_page an accepted target page is stored with its
// links unfollowed (relevance.DetailStoredMark), and nothing else ever
// follows them. Once no rejected candidate is left, a round fills up with
// those, best first: their links are followed, and they stay accepted
// (dryMark in their reason; counted in the result's Detail, not in
// Expanded, which the workflow moves from rejected to tunnel). They come
// after the rejected pages, not by score among them (they would all come
// first): seed 002 leaves them unexpanded because a target page's links
// are mostly the site's navigation, which its hub pages offered already.
// A round of detail pages that queues nothing counts as a fruitless round
// (the workflow's maxDryRounds in a row), as one of rejected pages does;
// it ended the dry rounds at once until 2026-11-29
// (TestCrawlDryDetailRoundsGoOn). A detail_page crawl whose only way on
// was behind a target page ended with budget left before
// (TestExpandPrunedDetailPages).
func (a *Activities) ExpandPruned(ctx context.Context, in crawlapi.ExpandPrunedInput) (crawlapi.ExpandPrunedResult, error) {
	var res crawlapi.ExpandPrunedResult
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return res, err
	}
	if in.Max > 0 && lt.Loop.MayExpand(store.DecisionTunnel, 1) && !lt.Loop.MayExpand(store.DecisionRejected, 1) {
		// The whole activity beats, not only the reads: a store write
		// held up past the heartbeat timeout started a second attempt
		// beside the first.
		stopBeat := heartbeatEvery(ctx, sliceBeat, func() any { return 0 })
		res, err = a.expandPruned(ctx, in, lt)
		stopBeat()
		if err != nil {
			return res, err
		}
	}
	res.Queued, err = a.CountQueued(ctx, in.Topic)
	return res, err
}

// expandPruned is ExpandPruned for a topic that prunes.
func (a *Activities) expandPruned(ctx context.Context, in crawlapi.ExpandPrunedInput, lt *loadedTopic) (crawlapi.ExpandPrunedResult, error) {
	var res crawlapi.ExpandPrunedResult
	mark := dryMark(in.Round)
	if in.Round > 0 {
		done, err := a.Store.DryExpanded(ctx, in.CrawlID, mark)
		if err != nil {
			return res, fmt.Errorf("expand pruned pages of crawl %s: %w", in.CrawlID, err)
		}
		if done[store.DecisionTunnel]+done[store.DecisionAccepted] > 0 {
			// An earlier attempt's write is durable (links and entries
			// with the decisions): nothing is left to do but report it.
			// Its links are counted by the attempt that wrote them, whose
			// result was lost.
			res.Expanded, res.Detail = done[store.DecisionTunnel], done[store.DecisionAccepted]
			return res, nil
		}
	}
	g := newGroup(in.Topic, in.CrawlID)
	var chosen []store.Page
	// take reads the crawl's pages q selects, best first, and chooses
	// those whose links can be followed until the round is full. A read
	// asks for as many pages as the round still wants; one that passed
	// some over is followed by a read after its last page of twice as
	// many, since each read scans the crawl's pages (store.Pages.BestPages)
	// and a run of pages passed over should cost few. None is at
	// limits.max_depth (predictLinks drops every link deeper).
	take := func(q store.BestPagesQuery) error {
		q.CrawlID, q.MaxDepth = in.CrawlID, lt.Topic.Limits.MaxDepth
		for q.Limit = in.Max - len(chosen); len(chosen) < in.Max; q.Limit *= 2 {
			pages, err := a.Store.BestPages(ctx, q)
			if err != nil {
				return fmt.Errorf("expand pruned pages of crawl %s: %w", in.CrawlID, err)
			}
			for _, p := range pages {
				if len(chosen) == in.Max {
					break
				}
				rec, err := a.parseOf(ctx, g.recs, p)
				switch {
				case errors.Is(err, store.ErrNotFound) || errors.Is(err, errUnreadableParse):
					continue // nothing to follow its links from
				case err != nil:
					return err
				case rec.Doc == nil || rec.Doc.NoFollow:
					continue
				}
				chosen = append(chosen, p)
			}
			if len(pages) < q.Limit {
				return nil // none left
			}
			last := pages[len(pages)-1]
			q.AfterRelevance, q.AfterHash = last.Relevance, last.URLHash
		}
		return nil
	}
	// Rejected pages that are not seeds (a rejected seed is expanded) nor
	// rejected whatever their score (declaredOffTopic: a negative sample,
	// keyword stuffing; the mark begins their reason, and no other reason
	// holds it).
	err := take(store.BestPagesQuery{Decision: store.DecisionRejected, MinDepth: 1,
		ReasonLacks: []string{relevance.NegativeSampleMark, relevance.StuffedMark}})
	if err == nil && lt.Loop.DetailPage { // target pages not expanded yet, seeds too
		err = take(store.BestPagesQuery{Decision: store.DecisionAccepted, ReasonHas: relevance.DetailStoredMark, ReasonLacks: []string{DryExpandedMark}})
	}
	if err != nil || len(chosen) == 0 {
		return res, err
	}
	for i := range chosen {
		p := &chosen[i]
		if p.Decision == store.DecisionRejected {
			p.Decision = store.DecisionTunnel
			res.Expanded++
		} else {
			if g.expandAnyway == nil {
				g.expandAnyway = map[string]bool{}
			}
			g.expandAnyway[p.URLHash] = true
			res.Detail++
		}
		p.Reason += mark
		g.w.Decisions = append(g.w.Decisions, store.PageDecision{URLHash: p.URLHash, Decision: store.Decision{
			Relevance: p.Relevance, Filter: p.Filter, Decision: p.Decision, Reason: p.Reason, Title: p.Title, Lang: p.Lang}})
	}
	ref := crawlapi.BatchRef{CrawlID: in.CrawlID, Topic: in.Topic, TopicVersion: in.TopicVersion,
		ModelVersion: in.ModelVersion, LinkModelVersion: in.LinkModelVersion, RankVersion: in.RankVersion}
	pr, err := a.predictLinks(ctx, ref, chosen, g)
	if err != nil {
		return crawlapi.ExpandPrunedResult{}, err
	}
	if err := a.flush(ctx, g); err != nil {
		return crawlapi.ExpandPrunedResult{}, err
	}
	res.Links, res.Enqueued = pr.Links, g.enqueued
	a.Log.Info("frontier ran dry: expanded the crawl's best pruned pages", "crawl", in.CrawlID, "round", in.Round,
		"pages", res.Expanded, "target_pages", res.Detail, "links", res.Links, "new_entries", res.Enqueued)
	return res, nil
}
