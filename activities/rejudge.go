package activities

import (
	"context"
	"fmt"
	"strings"

	"go.temporal.io/sdk/activity"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/decision"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
)

// rejudgeChunk is how many changed pages one store transaction and one
// index write carry.
const rejudgeChunk = 256

// RejudgeCrawl re-applies crawl-relative acceptance (strategy.accept: split)
// to every page the crawl has accepted, against the split of the whole
// crawl's score distribution — the scores themselves (own score mixed with
// in-link evidence) are kept as judged. A page is judged online against the
// split of the scores judged before it, which is unsettled early in a crawl
// and depends on the order pages came in; an accepted page that the settled
// split puts below it is withdrawn: it becomes a tunnel (its links were
// expanded) and leaves the index (docs/algorithms.md, "Re-judgement").
// Pages are never promoted: a rejected page's mixed score can reach a
// lower final split on in-link evidence alone (an off-topic site's home
// page linked from an on-topic page), and the measured gain is the
// withdrawals' (docs/evaluation.md).
//
// Idempotent and retry-safe: decisions are written before the index changes,
// and a later call also finishes index deletions an earlier attempt left (a
// page no longer accepted but still flagged indexed). A topic without split
// acceptance, or with strategy.rejudge: false, is left as it is.
func (a *Activities) RejudgeCrawl(ctx context.Context, in crawlapi.RejudgeInput) (crawlapi.RejudgeResult, error) {
	var res crawlapi.RejudgeResult
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return res, err
	}
	if lt.Topic.Strategy.AcceptMode() != topic.AcceptSplit || !lt.Topic.Strategy.Rejudging() {
		return res, nil
	}
	base, err := relevance.BaseThreshold(lt.Filter, lt.Topic)
	if err != nil {
		return res, err
	}
	res.Applied = true
	var change []string
	dist := relevance.NewScoreDist()
	type judged struct {
		hash      string
		accepted  bool
		score     float64
		indexed   bool
		withdrawn bool // by an earlier re-judgement
	}
	var pages []judged
	err = a.Store.CrawlLog(ctx, in.CrawlID, func(p store.Page) error {
		if decision.Judged(p.Decision) {
			dist.Add(p.URLHash, p.Relevance)
			pages = append(pages, judged{p.URLHash, p.Decision == store.DecisionAccepted, p.Relevance, p.Indexed,
				p.Decision == store.DecisionTunnel && strings.Contains(p.Reason, rejudgedMark)})
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("re-judge crawl %s: %w", in.CrawlID, err)
	}
	res.Judged = len(pages)
	_, threshold := dist.Accepts(0, base)
	for _, p := range pages {
		if p.withdrawn {
			res.Withdrawn++
		}
		if p.indexed {
			res.Indexed++ // withdraw takes off what it deletes
		}
		ok, _ := dist.Accepts(p.score, base)
		switch {
		case p.accepted && !ok && (p.indexed || in.Final):
			// An accepted page not yet flagged indexed may be in a running
			// slice, between its decision and its index write: the slice
			// would index it after the withdrawal. It waits for the next
			// re-judgement; the final one (nothing in flight) takes it.
			change = append(change, p.hash)
		case !p.accepted && p.indexed:
			// An earlier attempt's withdrawal whose index deletion failed.
			change = append(change, p.hash)
		}
	}
	for start := 0; start < len(change); start += rejudgeChunk {
		part := change[start:min(start+rejudgeChunk, len(change))]
		if err := a.withdraw(ctx, in.Topic, part, dist, base, threshold, &res); err != nil {
			return res, err
		}
		if activity.IsActivity(ctx) {
			activity.RecordHeartbeat(ctx, start+len(part))
		}
	}
	if res.Demoted > 0 {
		a.Log.Info("re-judged a crawl", "crawl", in.CrawlID, "judged", res.Judged, "threshold", threshold,
			"withdrawn now", res.Demoted, "withdrawn in all", res.Withdrawn)
	}
	return res, nil
}

// rejudgedMark marks the reason of a page re-judgement withdrew (also how
// RejudgeCrawl counts the crawl's withdrawals, retries included).
const rejudgedMark = "; re-judged: "

// withdraw ends the acceptance of one chunk of pages: their decisions in
// one transaction, then their index documents and flags.
func (a *Activities) withdraw(ctx context.Context, topicName string, hashes []string, dist *relevance.ScoreDist, base, threshold float64, res *crawlapi.RejudgeResult) error {
	var decisions []store.PageDecision
	var drop, unmark []string
	for _, h := range hashes {
		// Each page is read again (a read per withdrawal, not per judged
		// page): its row, not the crawl-log snapshot, is what the decision
		// overwrites.
		p, err := a.Store.Page(ctx, topicName, h)
		if err != nil {
			return fmt.Errorf("re-judge %s: %w", h, err)
		}
		if ok, _ := dist.Accepts(p.Relevance, base); ok && p.Decision == store.DecisionAccepted {
			continue // judged again (a refresh) since the crawl log was read
		}
		if p.Decision == store.DecisionAccepted {
			decisions = append(decisions, store.PageDecision{URLHash: p.URLHash, Decision: store.Decision{
				Relevance: p.Relevance, Filter: p.Filter, Decision: store.DecisionTunnel,
				Reason: fmt.Sprintf("%s%s%.3f below the crawl's split %.3f", p.Reason, rejudgedMark, p.Relevance, threshold),
			}})
			res.Demoted++
			res.Withdrawn++
		}
		if p.Indexed {
			drop, unmark = append(drop, p.FinalHash), append(unmark, p.URLHash)
		}
	}
	// Decisions are durable before the index changes: a retry finds them
	// and redoes only the deletions (RejudgeCrawl's flag check).
	if len(decisions) > 0 {
		if _, err := a.Store.WriteGroup(ctx, store.GroupWrite{Topic: topicName, Decisions: decisions}); err != nil {
			return err
		}
	}
	if len(drop) > 0 {
		if err := a.Index.Delete(ctx, topicName, drop); err != nil {
			return fmt.Errorf("re-judge: delete %d index documents: %w", len(drop), err)
		}
		if err := a.Store.UnmarkIndexed(ctx, topicName, unmark); err != nil {
			return err
		}
		res.Indexed -= len(unmark)
	}
	return nil
}
