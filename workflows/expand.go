package workflows

import (
	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
)

// expandSeeds runs the ExpandSeeds activity (seed 003's seed expansion)
// every Params.ExpandEvery new accepted pages while page budget is left; the
// activity adds at most the remaining budget (MaxPages − Claimed) of new
// frontier entries. Whether the topic enables any source is the activity's
// business (strategy.expand); with none it adds nothing. The decision uses
// only CrawlState counters, so replay is deterministic; the activity returns
// counts only. Failures are recorded in LastError and the crawl goes on.
func (c *crawler) expandSeeds() {
	st := c.st
	p := st.Params.ExpandEvery
	if p <= 0 || st.Accepted-st.ExpandedAt < p || st.Claimed >= st.Params.MaxPages || st.StopRequested || c.canceled() {
		return
	}
	// Runs recorded before seed expansion existed replay without it.
	if workflow.GetVersion(c.ctx, "expand-seeds", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	ctx := workflow.WithActivityOptions(c.ctx, learnOptions())
	r, err := await(c, crawlapi.ExpandSeeds.Execute(ctx, crawlapi.ExpandInput{
		CrawlID: st.CrawlID, Topic: st.Topic, TopicVersion: st.TopicVersion, ModelVersion: st.ModelVersion,
		MaxNew: st.Params.MaxPages - st.Claimed,
	}))
	st.ExpandedAt = st.Accepted
	if err != nil {
		st.SetError(workflow.Now(ctx), "expand seeds: "+err.Error())
		return
	}
	st.Expanded += r.Enqueued
	st.Queued += r.Enqueued
	if r.KeywordsVersion > 0 {
		st.CandidateKeywords = r.Keywords
	}
	if r.Enqueued > 0 {
		c.frontierDry = false
	}
}
