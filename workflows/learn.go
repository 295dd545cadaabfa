package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
)

// learnOptions give the learning activities room: they read the whole crawl
// graph and heartbeat between phases.
func learnOptions() workflow.ActivityOptions {
	o := shortOptions()
	o.StartToCloseTimeout = 30 * time.Minute
	o.HeartbeatTimeout = 5 * time.Minute
	o.RetryPolicy.MaximumAttempts = 5
	return o
}

// learnAndRank runs LearnLinkModel every Params.LearnEvery new accepted
// pages (seed 002's cf) and RecomputeHubAuthority every Params.RankEvery
// accepted pages, and — when final — once more at the crawl's end if
// anything was accepted since the last run. Each is preceded by a
// re-judgement (rejudge), at most one a step: learning reads which pages
// are accepted, and a model trained before that step's withdrawals would
// learn from pages the crawl is about to withdraw. Decisions use only
// counters in CrawlState, so replay is deterministic; the new versions go
// into the inputs of slices launched afterwards. Failures are recorded in
// LastError and do not stop the crawl: slices keep the previous versions.
func (c *crawler) learnAndRank(final bool) {
	st := c.st
	// Runs recorded before link learning existed replay without it.
	if workflow.GetVersion(c.ctx, "learn-and-rank", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	// After a stop only the final steps run (at the crawl's end): learning
	// or ranking for slices that will not come is wasted. Checked again
	// before the ranking, as a stop can come while the learning round runs
	// (await). Runs recorded before replay as they were (c.control nil).
	// Nothing more runs once the workflow is cancelled (cancel).
	stopped := func() bool { return c.canceled() || (!final && c.control != nil && st.StopRequested) }
	if stopped() {
		return
	}
	ctx := workflow.WithActivityOptions(c.ctx, learnOptions())
	rejudged := false // this step's re-judgement has run
	if p := c.learnInterval(); p > 0 && !final && st.Accepted-st.LearnedAt >= p {
		// Crawls recorded before learning waited for re-judgement replay
		// with the model trained first (and re-judged only for a ranking).
		if workflow.GetVersion(c.ctx, "rejudge-before-learn", workflow.DefaultVersion, 1) == 1 {
			c.rejudge(ctx, false)
			rejudged = true
		}
		if stopped() { // a stop came during the re-judgement
			return
		}
		r, err := await(c, crawlapi.LearnLinkModel.Execute(ctx, crawlapi.LearnInput{
			CrawlID: st.CrawlID, Topic: st.Topic, Results: st.Accepted,
		}))
		if err != nil {
			st.SetError(workflow.Now(ctx), "learn link model: "+err.Error())
		} else {
			st.LinkModelVersion = r.Version
		}
		st.LearnedAt = st.Accepted
	}
	if stopped() {
		return
	}
	every := c.rankInterval()
	due := every > 0 && st.Accepted-st.RankedAt >= every
	if final {
		due = st.Accepted > st.RankedAt || st.RankVersion == 0
	}
	// LearnLinkModel changes no decision: a re-judgement run before it
	// still holds for the ranking (final never learns, so the final
	// re-judgement always runs here).
	if (due || final) && !rejudged {
		c.rejudge(ctx, final)
	}
	if due {
		r, err := await(c, crawlapi.RecomputeHubAuthority.Execute(ctx, crawlapi.HubAuthInput{
			CrawlID: st.CrawlID, Topic: st.Topic, TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion,
			Accepted: st.Accepted,
		}))
		if err != nil {
			st.SetError(workflow.Now(ctx), "recompute hub/authority: "+err.Error())
		} else {
			st.RankVersion = r.RankVersion
		}
		st.RankedAt = st.Accepted
	}
}

// learnInterval is how many accepted pages after the last LearnLinkModel
// the next one comes: Params.LearnEvery (seed 002's cf), or a quarter of
// the pages accepted by the last one when that is more (0: never). Each
// round reads every edge and page of the crawl (and re-judges it first), so
// at seed 002's fixed cf a crawl's rounds together cost O(accepted² / cf)
// — 6,700 passes over a million-page crawl at the default 150; grown with
// the crawl they cost O(accepted), as for the ranking rounds
// (rankInterval). Ours: the seed's crawls were thousands of pages, and up
// to 4 × cf accepted pages (600 by default, more than any evaluation crawl
// accepts) nothing changes. Crawls recorded before this rule replay with
// the fixed one.
func (c *crawler) learnInterval() int {
	return c.growingInterval(c.st.Params.LearnEvery, c.st.LearnedAt, "learn-interval-grows")
}

// rankInterval is how many accepted pages after the last
// RecomputeHubAuthority the next one comes: Params.RankEvery, or a quarter
// of the pages accepted by the last one when that is more (0: only at the
// end). Each recomputation reads the whole crawl graph and rewrites every
// page's scores, so at a fixed interval a crawl's recomputations together
// cost O(accepted² / RankEvery) — 2,000 passes over a million pages for
// the default 500; growing the interval with the crawl makes them O(accepted)
// in all, while a short crawl keeps the fixed cadence (up to 4 × RankEvery
// accepted pages nothing changes). Crawls recorded before this rule replay
// with the fixed one.
func (c *crawler) rankInterval() int {
	return c.growingInterval(c.st.Params.RankEvery, c.st.RankedAt, "rank-interval-grows")
}

// growingInterval is every (0: none), or a quarter of at — the accepted
// pages when the round last ran — when that is more; histories recorded
// before changeID replay with every.
func (c *crawler) growingInterval(every, at int, changeID string) int {
	if every <= 0 {
		return 0
	}
	if workflow.GetVersion(c.ctx, changeID, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return every
	}
	return max(every, at/4)
}

// rejudge runs RejudgeCrawl before each learning round and each
// hub/authority recomputation (so the link models, the link analysis and
// the index see the corrected accepted set) and at the crawl's end, whether
// or not a recomputation is due then (final: no slice is running). Crawls
// recorded before re-judgement existed replay without it.
func (c *crawler) rejudge(ctx workflow.Context, final bool) {
	if workflow.GetVersion(c.ctx, "rejudge", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	st := c.st
	r, err := await(c, crawlapi.RejudgeCrawl.Execute(ctx, crawlapi.RejudgeInput{
		CrawlID: st.CrawlID, Topic: st.Topic, TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion,
		Accepted: st.Accepted, Final: final,
	}))
	if err != nil {
		st.SetError(workflow.Now(ctx), "re-judge: "+err.Error())
		return
	}
	st.Withdrawn = r.Withdrawn // counted from the store: exact however often the activity was retried
	if final && r.Applied {
		st.Promoted, st.AcceptedFinal = r.Promoted, r.Accepted
		// Nothing is in flight: the store's count is the index's, where the
		// slices' reported counts still include the withdrawn pages.
		st.Indexed = r.Indexed
	}
}
