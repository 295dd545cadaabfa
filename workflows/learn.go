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
// anything was accepted since the last run. Decisions use only counters in
// CrawlState, so replay is deterministic; the new versions go into the
// inputs of slices launched afterwards. Failures are recorded in
// LastError and do not stop the crawl: slices keep the previous versions.
func (c *crawler) learnAndRank(final bool) {
	st := c.st
	// Runs recorded before link learning existed replay without it.
	if workflow.GetVersion(c.ctx, "learn-and-rank", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	ctx := workflow.WithActivityOptions(c.ctx, learnOptions())
	if p := st.Params.LearnEvery; p > 0 && !final && st.Accepted-st.LearnedAt >= p {
		r, err := crawlapi.LearnLinkModel.Execute(ctx, crawlapi.LearnInput{
			CrawlID: st.CrawlID, Topic: st.Topic, Results: st.Accepted,
		}).Get(c.ctx)
		if err != nil {
			st.LastError = "learn link model: " + err.Error()
		} else {
			st.LinkModelVersion = r.Version
		}
		st.LearnedAt = st.Accepted
	}
	due := st.Params.RankEvery > 0 && st.Accepted-st.RankedAt >= st.Params.RankEvery
	if final {
		due = st.Accepted > st.RankedAt || st.RankVersion == 0
	}
	if due {
		r, err := crawlapi.RecomputeHubAuthority.Execute(ctx, crawlapi.HubAuthInput{
			CrawlID: st.CrawlID, Topic: st.Topic, TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion,
			Accepted: st.Accepted,
		}).Get(c.ctx)
		if err != nil {
			st.LastError = "recompute hub/authority: " + err.Error()
		} else {
			st.RankVersion = r.RankVersion
		}
		st.RankedAt = st.Accepted
	}
}
