package activities

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// DryExpandedMark ends the reason of a page ExpandPruned turned from
// rejected into a tunnel (followed by its round: dryMark).
const DryExpandedMark = "; expanded later, when the frontier ran dry"

// dryMark is DryExpandedMark with round's number, which tells a retried
// round the pages an earlier attempt of it expanded; round 0 (a workflow
// from before rounds were numbered) has none.
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
// write, and each page is read again before it (a refresh may have judged
// it since the crawl log was read). Retry-safe: an attempt of round
// in.Round that finds pages marked with the round (an earlier attempt's
// write succeeded) reports them and expands no others; the result counts
// the topic's queued entries from the store. Nothing to do for a topic
// that does not prune (its rejected pages are expanded already).
// focuscrawl's own rule.
func (a *Activities) ExpandPruned(ctx context.Context, in crawlapi.ExpandPrunedInput) (crawlapi.ExpandPrunedResult, error) {
	var res crawlapi.ExpandPrunedResult
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return res, err
	}
	if in.Max > 0 && lt.Loop.MayExpand(store.DecisionTunnel, 1) && !lt.Loop.MayExpand(store.DecisionRejected, 1) {
		// The whole activity beats, not only the log's read: a store write
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

// prunedPage is what ExpandPruned keeps of a candidate while it reads the
// crawl log (a few words a page: a crawl can hold millions); the page is
// read again when chosen.
type prunedPage struct {
	hash  string
	score float64
}

// expandPruned is ExpandPruned for a topic that prunes.
func (a *Activities) expandPruned(ctx context.Context, in crawlapi.ExpandPrunedInput, lt *loadedTopic) (crawlapi.ExpandPrunedResult, error) {
	var res crawlapi.ExpandPrunedResult
	maxDepth := lt.Topic.Limits.MaxDepth
	// candidate: a pruned page whose links may lead somewhere — not a seed
	// (always expanded), not declared off topic, not at limits.max_depth
	// (predictLinks drops every link deeper).
	candidate := func(p store.Page) bool {
		return p.Decision == store.DecisionRejected && p.Depth > 0 && !declaredOffTopic(p) &&
			(maxDepth == 0 || p.Depth < maxDepth)
	}
	mark := dryMark(in.Round)
	var pruned []prunedPage
	done := 0 // pages an earlier attempt of this round expanded
	err := a.Store.CrawlLog(ctx, in.CrawlID, func(p store.Page) error {
		switch {
		case in.Round > 0 && p.Decision == store.DecisionTunnel && strings.Contains(p.Reason, mark):
			done++
		case candidate(p):
			pruned = append(pruned, prunedPage{p.URLHash, p.Relevance})
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("expand pruned pages of crawl %s: %w", in.CrawlID, err)
	}
	if done > 0 {
		// Its write is durable (links and entries with the decisions):
		// nothing is left to do but report it. Its links are counted by
		// the attempt that wrote them, whose result was lost.
		res.Expanded = done
		return res, nil
	}
	slices.SortFunc(pruned, func(x, y prunedPage) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		return cmp.Compare(x.hash, y.hash)
	})
	g := newGroup(in.Topic, in.CrawlID)
	var chosen []store.Page
	for _, c := range pruned {
		if len(chosen) == in.Max {
			break
		}
		p, err := a.Store.Page(ctx, in.Topic, c.hash)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue
		case err != nil:
			return res, err
		case p.CrawlID != in.CrawlID || !candidate(p):
			continue // judged again since the log was read (a refresh)
		}
		rec, err := a.parseOf(ctx, g.recs, p)
		switch {
		case errors.Is(err, store.ErrNotFound) || errors.Is(err, errUnreadableParse):
			continue // nothing to follow its links from
		case err != nil:
			return res, err
		case rec.Doc == nil || rec.Doc.NoFollow:
			continue
		}
		p.Decision, p.Reason = store.DecisionTunnel, p.Reason+mark
		g.w.Decisions = append(g.w.Decisions, store.PageDecision{URLHash: p.URLHash, Decision: store.Decision{
			Relevance: p.Relevance, Filter: p.Filter, Decision: p.Decision, Reason: p.Reason, Title: p.Title, Lang: p.Lang}})
		chosen = append(chosen, p)
	}
	if len(chosen) == 0 {
		return res, nil
	}
	ref := crawlapi.BatchRef{CrawlID: in.CrawlID, Topic: in.Topic, TopicVersion: in.TopicVersion,
		ModelVersion: in.ModelVersion, LinkModelVersion: in.LinkModelVersion, RankVersion: in.RankVersion}
	pr, err := a.predictLinks(ctx, ref, chosen, g)
	if err != nil {
		return res, err
	}
	if err := a.flush(ctx, g); err != nil {
		return res, err
	}
	res.Expanded, res.Links, res.Enqueued = len(chosen), pr.Links, g.enqueued
	a.Log.Info("frontier ran dry: expanded the crawl's best pruned pages", "crawl", in.CrawlID, "round", in.Round,
		"pages", res.Expanded, "links", res.Links, "new_entries", res.Enqueued)
	return res, nil
}
