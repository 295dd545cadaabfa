package activities

import "focuscrawl/internal/crawlapi"

// Register registers every activity under its contract name (package
// crawlapi). Each is registered as a method value, so a method whose
// signature drifts from the contract does not compile; exported methods that
// are not activities (Close) are not registered.
func (a *Activities) Register(r crawlapi.ActivityRegistry) {
	crawlapi.StartCrawl.Register(r, a.StartCrawl)
	crawlapi.CrawlSlice.Register(r, a.CrawlSlice)
	crawlapi.CountQueued.Register(r, a.CountQueued)
	crawlapi.SetCrawlState.Register(r, a.SetCrawlState)
	crawlapi.ReleaseSlice.Register(r, a.ReleaseSlice)
	crawlapi.SliceStats.Register(r, a.SliceStats)
	crawlapi.AddSeeds.Register(r, a.AddSeeds)
	crawlapi.UpdateTopic.Register(r, a.UpdateTopic)
	crawlapi.LearnLinkModel.Register(r, a.LearnLinkModel)
	crawlapi.RejudgeCrawl.Register(r, a.RejudgeCrawl)
	crawlapi.RecomputeHubAuthority.Register(r, a.RecomputeHubAuthority)
	crawlapi.ExpandSeeds.Register(r, a.ExpandSeeds)

	crawlapi.StartRefresh.Register(r, a.StartRefresh)
	crawlapi.ClaimRefresh.Register(r, a.ClaimRefresh)
	crawlapi.Refetch.Register(r, a.Refetch)
	crawlapi.Parse.Register(r, a.Parse)
	crawlapi.FilterPages.Register(r, a.FilterPages)
	crawlapi.PredictLinks.Register(r, a.PredictLinks)
	crawlapi.FinishRefresh.Register(r, a.FinishRefresh)
	crawlapi.TopicYAML.Register(r, a.TopicYAML)
}
