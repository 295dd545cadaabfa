package activities

import (
	"time"

	"focuscrawl/internal/crawlapi"
)

// Register registers every activity under its contract name (package
// crawlapi). Each is registered as a method value, so a method whose
// signature drifts from the contract does not compile; exported methods that
// are not activities (Close) are not registered. The activities of a running
// crawl (all but StartCrawl, which creates its row, and CountQueued, which
// reads a topic) are guarded: they refuse to run on a worker whose crawl store
// does not hold the crawl (requireCrawl). A refresh has no crawl row: its
// activities after StartRefresh (which decides the store, as StartCrawl
// does a crawl's) refuse a worker whose store does not hold the topic
// version StartRefresh resolved as that store recorded it (requireTopic).
func (a *Activities) Register(r crawlapi.ActivityRegistry) {
	crawlapi.StartCrawl.Register(r, a.StartCrawl)
	crawlapi.CrawlSlice.Register(r, guarded(a, func(in crawlapi.SliceInput) string { return in.CrawlID }, a.CrawlSlice))
	crawlapi.CountQueued.Register(r, a.CountQueued)
	crawlapi.SetCrawlState.Register(r, guarded(a, func(in crawlapi.SetCrawlStateInput) string { return in.CrawlID }, a.SetCrawlState))
	crawlapi.SetCrawlModels.Register(r, guarded(a, func(in crawlapi.SetCrawlModelsInput) string { return in.CrawlID }, a.SetCrawlModels))
	crawlapi.ReleaseSlice.Register(r, guarded(a, releaseCrawl, a.ReleaseSlice))
	crawlapi.SliceStats.Register(r, guarded(a, releaseCrawl, a.SliceStats))
	crawlapi.AddSeeds.Register(r, guarded(a, func(in crawlapi.AddSeedsInput) string { return in.CrawlID }, a.AddSeeds))
	crawlapi.UpdateTopic.Register(r, guarded(a, func(in crawlapi.UpdateTopicInput) string { return in.CrawlID }, a.UpdateTopic))
	crawlapi.LearnLinkModel.Register(r, guarded(a, func(in crawlapi.LearnInput) string { return in.CrawlID }, a.LearnLinkModel))
	crawlapi.RejudgeCrawl.Register(r, guarded(a, func(in crawlapi.RejudgeInput) string { return in.CrawlID }, a.RejudgeCrawl))
	crawlapi.ExpandPruned.Register(r, guarded(a, func(in crawlapi.ExpandPrunedInput) string { return in.CrawlID }, a.ExpandPruned))
	crawlapi.RecomputeHubAuthority.Register(r, guarded(a, func(in crawlapi.HubAuthInput) string { return in.CrawlID }, a.RecomputeHubAuthority))
	crawlapi.ExpandSeeds.Register(r, guarded(a, func(in crawlapi.ExpandInput) string { return in.CrawlID }, a.ExpandSeeds))

	crawlapi.StartRefresh.Register(r, a.StartRefresh)
	crawlapi.ClaimRefresh.Register(r, topicGuarded(a, func(in crawlapi.RefreshClaimInput) (string, int, time.Time) {
		return in.Topic, in.TopicVersion, in.TopicStoredAt
	}, a.ClaimRefresh))
	crawlapi.Refetch.Register(r, topicGuarded(a, batchTopic, a.Refetch))
	crawlapi.Parse.Register(r, topicGuarded(a, batchTopic, a.Parse))
	crawlapi.FilterPages.Register(r, topicGuarded(a, batchTopic, a.FilterPages))
	crawlapi.PredictLinks.Register(r, topicGuarded(a, batchTopic, a.PredictLinks))
	crawlapi.FinishRefresh.Register(r, topicGuarded(a, batchTopic, a.FinishRefresh))
	crawlapi.ReleaseRefresh.Register(r, topicGuarded(a, func(in crawlapi.ReleaseRefreshInput) (string, int, time.Time) {
		return in.Topic, in.TopicVersion, in.TopicStoredAt
	}, a.ReleaseRefresh))
	crawlapi.TopicYAML.Register(r, topicGuarded(a, func(in crawlapi.TopicYAMLInput) (string, int, time.Time) {
		return in.Topic, in.Version, in.StoredAt
	}, a.TopicYAML))
	crawlapi.NextRefresh.Register(r, topicGuarded(a, func(in crawlapi.NextRefreshInput) (string, int, time.Time) {
		return in.Topic, in.TopicVersion, in.TopicStoredAt
	}, a.NextRefresh))

	// A reindex reads only what the store holds of the topic, whichever
	// worker runs it (a store without the topic fails with ErrNoTopic).
	crawlapi.RebuildIndex.Register(r, a.RebuildIndex)
	crawlapi.ReindexPages.Register(r, a.ReindexPages)
}

// batchTopic is the topic version, and its stored time, of a refresh batch
// (a crawl's slices run Parse, FilterPages and PredictLinks in process,
// not through the registered activities).
func batchTopic(in crawlapi.BatchRef) (string, int, time.Time) {
	return in.Topic, in.TopicVersion, in.TopicStoredAt
}

// releaseCrawl is the crawl of a ReleaseSlice or SliceStats input.
func releaseCrawl(in crawlapi.ReleaseSliceInput) string { return sliceCrawl(in.SliceID) }
