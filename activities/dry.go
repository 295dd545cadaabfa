package activities

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// DryExpandedMark ends the reason of a page ExpandPruned turned from
// rejected into a tunnel.
const DryExpandedMark = "; expanded later, when the frontier ran dry"

// ExpandPruned follows the out-links of the crawl's best pruned pages —
// rejected, so under pruning (strategy.prune, seed 000) never expanded — at
// most in.Max of them, highest score first, when the crawl's frontier ran
// dry with budget left. Pruning saves the budget for better links; once
// there are none, the pruned pages' links are the best the crawl has, and
// without them it ended early: a drafted topic with `breadth: specific` on
// a manual whose table of contents (a frame) scored just under the
// threshold ended after 3 of 150 pages, its only way on pruned. The pages
// become tunnels (expanded, not accepted; DryExpandedMark in their
// reason), so no re-judgement promotes them and a later call takes the
// next ones. Decisions, links and frontier entries go in one store
// write: a retry finds the pages expanded and expands the next ones only
// if the first attempt's write did not happen — in either case the result
// counts the topic's queued entries from the store. Nothing to do for a
// topic that does not prune (its rejected pages are expanded already).
// focuscrawl's own rule.
func (a *Activities) ExpandPruned(ctx context.Context, in crawlapi.ExpandPrunedInput) (crawlapi.ExpandPrunedResult, error) {
	var res crawlapi.ExpandPrunedResult
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return res, err
	}
	if in.Max > 0 && lt.Loop.MayExpand(store.DecisionTunnel, 1) && !lt.Loop.MayExpand(store.DecisionRejected, 1) {
		var pruned []store.Page
		stopBeat := heartbeatEvery(ctx, sliceBeat, func() any { return 0 })
		err = a.Store.CrawlLog(ctx, in.CrawlID, func(p store.Page) error {
			if p.Decision == store.DecisionRejected && p.Depth > 0 && !declaredOffTopic(p) &&
				(lt.Topic.Limits.MaxDepth == 0 || p.Depth < lt.Topic.Limits.MaxDepth) {
				pruned = append(pruned, p)
			}
			return nil
		})
		stopBeat()
		if err != nil {
			return res, fmt.Errorf("expand pruned pages of crawl %s: %w", in.CrawlID, err)
		}
		slices.SortFunc(pruned, func(x, y store.Page) int {
			if c := cmp.Compare(y.Relevance, x.Relevance); c != 0 {
				return c
			}
			return cmp.Compare(x.URLHash, y.URLHash)
		})
		pruned = pruned[:min(len(pruned), in.Max)]
		g := newGroup(in.Topic, in.CrawlID)
		for i := range pruned {
			p := &pruned[i]
			p.Decision, p.Reason = store.DecisionTunnel, p.Reason+DryExpandedMark
			g.w.Decisions = append(g.w.Decisions, store.PageDecision{URLHash: p.URLHash, Decision: store.Decision{
				Relevance: p.Relevance, Filter: p.Filter, Decision: p.Decision, Reason: p.Reason, Title: p.Title, Lang: p.Lang}})
		}
		if len(pruned) > 0 {
			ref := crawlapi.BatchRef{CrawlID: in.CrawlID, Topic: in.Topic, TopicVersion: in.TopicVersion,
				ModelVersion: in.ModelVersion, LinkModelVersion: in.LinkModelVersion, RankVersion: in.RankVersion}
			pr, err := a.predictLinks(ctx, ref, pruned, g)
			if err != nil {
				return res, err
			}
			if err := a.flush(ctx, g); err != nil {
				return res, err
			}
			res.Expanded, res.Links = len(pruned), pr.Links
			a.Log.Info("frontier ran dry: expanded the crawl's best pruned pages", "crawl", in.CrawlID,
				"pages", res.Expanded, "links", res.Links, "new_entries", g.enqueued)
		}
	}
	res.Queued, err = a.CountQueued(ctx, in.Topic)
	return res, err
}
