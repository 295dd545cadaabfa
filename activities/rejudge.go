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
	"focuscrawl/internal/urlnorm"
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
// These re-judgements, before learning rounds and hub/authority
// recomputations, never promote. The final one (in.Final) with
// strategy.promote (the default) accepts the pages the online split turned
// down — tunnels whose own score passed the filter's threshold
// (relevance.BelowSplitMark) — and those an earlier re-judgement withdrew,
// when their stored score reaches the whole crawl's split: early in a crawl
// from an on-topic seed the split sits among on-topic pages and turned
// them down for good. Rejected pages (own score below the threshold) are
// never promoted: their mixed score can reach a lower final split on
// in-link evidence alone (an off-topic site's home page linked from an
// on-topic page).
//
// The final re-judgement (in.Final: the crawl is over) of a vsm topic with
// strategy.feedback (off by default) scores every judged page again instead
// (feedbackVerdicts, relevance.FeedbackScores): the topic vector expanded
// with the accepted pages' centroid, in-link evidence from every judged
// source. It withdraws the accepted pages below the new split and accepts
// (promotes) the others above it, indexing them (docs/algorithms.md,
// "Feedback re-judgement"). The stored scores stay the online ones, which a
// refresh judges changed pages against; the feedback score is in the reason.
//
// Idempotent and retry-safe: decisions are written before the index changes,
// and a later call also finishes index deletions and writes an earlier
// attempt left (a page no longer accepted but still flagged indexed, or
// promoted but not indexed yet); the feedback set is read from the online
// decisions, which the reasons' marks keep (onlineAccepted), so a retry
// computes the same scores. A topic without split acceptance, or with
// strategy.rejudge: false, is left as it is.
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
	dist := relevance.NewScoreDist()
	dist.SetSplitScale(lt.Topic.ThresholdFactor()) // as online (split.go)
	var pages []judgedPage
	floor := 0.0 // the sample floor the crawl's latest judgement recorded
	// Reading the crawl's and the topic's judged pages takes a while on a
	// big topic (every crawl log of it): heartbeat meanwhile, no change
	// made yet.
	stopBeat := heartbeatEvery(ctx, sliceBeat, func() any { return 0 })
	err = a.Store.CrawlLog(ctx, in.CrawlID, func(p store.Page) error {
		if decision.Judged(p.Decision) {
			jp := judgedPageOf(p)
			if !inNoSplit(p) { // as online: a declared off-topic page, an exploration page is in no split
				dist.Add(p.URLHash, p.Relevance)
			}
			pages = append(pages, jp)
			if f, ok := relevance.SampleFloorOf(p.Reason); ok {
				floor = f
			}
		}
		return nil
	})
	if err == nil {
		// The split is the topic's, as online (topicDist): the crawl's
		// pages are withdrawn or promoted against every page the topic's
		// crawls judged, and only its own change.
		err = topicScores(ctx, a.Store, in.Topic, func(crawl string, p store.Page) {
			if crawl != in.CrawlID { // the crawl's own are in already
				dist.Add(p.URLHash, p.Relevance)
			}
		})
	}
	stopBeat()
	if err != nil {
		return res, fmt.Errorf("re-judge crawl %s: %w", in.CrawlID, err)
	}
	res.Judged = len(pages)
	// keep is the re-judgement's verdict on a page: by default its stored
	// score against the whole crawl's split; with feedback at the crawl's
	// end, its feedback score against the split of those.
	split, scores := dist, map[string]float64(nil)
	if in.Final && lt.Topic.Strategy.FeedbackOn() && relevance.FeedbackApplies(lt.Filter) {
		s, fsplit, ok, err := a.feedbackVerdicts(ctx, lt, in, pages, dist, base)
		if err != nil {
			return res, err
		}
		if ok {
			split, scores, res.Feedback = fsplit, s, true
		}
	}
	if scores == nil {
		// The stored scores meet the floor they were judged against
		// (split.go), read from their reasons, not recomputed: other
		// crawls of the topic may have moved its statistics since. Feedback
		// scores are on another scale and keep the filter's threshold.
		base = max(base, floor)
	}
	keepScore := func(hash string, stored float64) bool {
		if scores != nil {
			stored = scores[hash]
		}
		ok, _ := split.Accepts(stored, base)
		return ok
	}
	keep := func(p store.Page) bool { return keepScore(p.URLHash, p.Relevance) }
	_, threshold := split.Accepts(0, base)
	promoting := in.Final && scores == nil && lt.Topic.Strategy.Promoting()
	var change, promote []string
	for _, p := range pages {
		if p.withdrawn {
			res.Withdrawn++
		}
		if p.indexed {
			res.Indexed++ // withdraw takes off what it deletes
		}
		if p.promoted {
			res.Promoted++ // by an earlier attempt; promote counts this call's
		}
		if p.accepted {
			res.Accepted++ // withdraw and promote move it by what they change
		}
		kept := keepScore(p.hash, p.score)
		switch {
		case scores != nil && kept && !p.offSite && !p.negative && !p.explored:
			// Feedback keeps it: promoted if not accepted, indexed if an
			// earlier attempt's promotion lacks its index write (promote
			// leaves an indexed page's document alone).
			if !p.accepted || !p.indexed {
				promote = append(promote, p.hash)
			}
		case promoting && kept && p.promoted:
			// Promoted by an earlier attempt whose index write failed after
			// its decision write: the flag it had (a withdrawal's that
			// failed to clear) says nothing; the write is idempotent.
			promote = append(promote, p.hash)
		case promoting && kept && (p.belowSplit || p.withdrawn):
			// Turned down by an unsettled online split (or withdrawn by an
			// earlier, higher one), above the settled one: accepted now.
			promote = append(promote, p.hash)
		case in.Final && kept && p.accepted && !p.indexed:
			// Its slice's index write failed on every attempt (the slice
			// was released): nothing is in flight at the crawl's end, so
			// it is indexed now — unless it says noindex (promote reads
			// its parse).
			promote = append(promote, p.hash)
		case p.accepted && !kept && (p.indexed || in.Final):
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
		if err := a.withdraw(ctx, in.Topic, part, keep, scores, threshold, &res); err != nil {
			return res, err
		}
		if activity.IsActivity(ctx) {
			activity.RecordHeartbeat(ctx, start+len(part))
		}
	}
	res.Accepted -= res.Demoted
	promotedBefore := res.Promoted
	for start := 0; start < len(promote); start += rejudgeChunk {
		part := promote[start:min(start+rejudgeChunk, len(promote))]
		if err := a.promote(ctx, in.Topic, part, scores, split, base, &res); err != nil {
			return res, err
		}
		if activity.IsActivity(ctx) {
			activity.RecordHeartbeat(ctx, len(change)+start+len(part))
		}
	}
	res.Accepted += res.Promoted - promotedBefore
	if res.Demoted > 0 || res.Promoted > 0 {
		a.Log.Info("re-judged a crawl", "crawl", in.CrawlID, "judged", res.Judged, "threshold", threshold,
			"feedback", res.Feedback, "withdrawn now", res.Demoted, "promoted now", res.Promoted, "withdrawn in all", res.Withdrawn)
	}
	return res, nil
}

// rejudgedMark marks the reason of a page re-judgement withdrew (also how
// RejudgeCrawl counts the crawl's withdrawals, retries included).
const rejudgedMark = "; re-judged: "

// judgedPage is what re-judgement keeps of a judged page of the crawl log
// (a few words a page, not the row: a crawl can hold millions).
type judgedPage struct {
	hash      string
	score     float64 // stored (online) mixed score
	accepted  bool
	indexed   bool
	withdrawn bool // by an earlier re-judgement, still withdrawn
	// belowSplit: a tunnel the online split turned down, its own score
	// above the filter's threshold (relevance.BelowSplitMark).
	belowSplit bool
	promoted   bool // by an earlier feedback re-judgement, still accepted
	online     bool // accepted when judged online (onlineAccepted)
	// offSite: a tunnel turned down because its in-link evidence came from
	// other sites only (relevance.OffSiteMark); no re-judgement accepts it.
	offSite bool
	// negative: rejected whatever its score — listed in the topic's
	// negative_samples (relevance.NegativeSampleMark) or keyword stuffing
	// (relevance.StuffedMark); no re-judgement accepts it.
	negative bool
	// stuffed: rejected as keyword stuffing (relevance.StuffedMark); the
	// feedback re-judgement reads no text of it (feedbackVerdicts).
	stuffed bool
	// explored: a tunnel only because its seed site was being explored
	// (SeedExploreMark); no re-judgement accepts it.
	explored bool
}

func judgedPageOf(p store.Page) judgedPage {
	accepted := p.Decision == store.DecisionAccepted
	marked := strings.Contains(p.Reason, promotedMark) || strings.Contains(p.Reason, restoredMark)
	return judgedPage{
		hash: p.URLHash, score: p.Relevance, accepted: accepted, indexed: p.Indexed,
		withdrawn:  p.Decision == store.DecisionTunnel && strings.Contains(p.Reason, rejudgedMark),
		belowSplit: p.Decision == store.DecisionTunnel && strings.Contains(p.Reason, relevance.BelowSplitMark),
		promoted:   accepted && marked,
		online:     onlineAccepted(p),
		offSite:    p.Decision == store.DecisionTunnel && strings.Contains(p.Reason, relevance.OffSiteMark),
		negative:   declaredOffTopic(p),
		stuffed:    stuffedPage(p),
		explored:   exploredOnly(p),
	}
}

// withdraw ends the acceptance of one chunk of pages: their decisions in
// one transaction, then their index documents and flags.
func (a *Activities) withdraw(ctx context.Context, topicName string, hashes []string, keep func(store.Page) bool, scores map[string]float64, threshold float64, res *crawlapi.RejudgeResult) error {
	var decisions []store.PageDecision
	var drop, unmark, leaving []string
	for _, h := range hashes {
		// Each page is read again (a read per withdrawal, not per judged
		// page): its row, not the crawl-log snapshot, is what the decision
		// overwrites.
		p, err := a.Store.Page(ctx, topicName, h)
		if err != nil {
			return fmt.Errorf("re-judge %s: %w", h, err)
		}
		if keep(p) && p.Decision == store.DecisionAccepted {
			continue // judged again (a refresh) since the crawl log was read
		}
		if p.Decision == store.DecisionAccepted {
			why := fmt.Sprintf("%.3f below the crawl's split %.3f", p.Relevance, threshold)
			if s, ok := scores[p.URLHash]; ok {
				why = fmt.Sprintf("feedback score %.3f below the split %.3f", s, threshold)
			}
			decisions = append(decisions, store.PageDecision{URLHash: p.URLHash, Decision: store.Decision{
				Relevance: p.Relevance, Filter: p.Filter, Decision: store.DecisionTunnel,
				Reason: p.Reason + rejudgedMark + why,
			}, RecountHost: urlnorm.Host(p.URL), YieldAlso: outwardYield(p)}) // its host's yield loses the acceptance
			res.Demoted++
			res.Withdrawn++
		}
		switch {
		case p.Indexed:
			drop, unmark = append(drop, p.FinalHash), append(unmark, p.URLHash)
			leaving = append(leaving, p.URLHash)
		case p.Decision == store.DecisionAccepted:
			// Unflagged, it may still have a document: a slice whose
			// index write succeeded and whose flag write failed on every
			// attempt. Deleting a missing document is no error.
			drop = append(drop, p.FinalHash)
			leaving = append(leaving, p.URLHash)
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
		// A document another accepted page still holds stays (a pair of
		// pages with one final URL) — also one of this chunk's pages a
		// refresh judged again meanwhile, which is not leaving.
		if err := a.dropDocuments(ctx, topicName, drop, leaving); err != nil {
			return fmt.Errorf("re-judge: %w", err)
		}
		if len(unmark) > 0 {
			if err := a.Store.UnmarkIndexed(ctx, topicName, unmark); err != nil {
				return err
			}
			res.Indexed -= len(unmark)
		}
	}
	return nil
}
