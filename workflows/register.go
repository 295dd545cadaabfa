package workflows

import "focuscrawl/internal/crawlapi"

// Register registers every focuscrawl workflow under its contract name
// (package crawlapi); a workflow whose signature differs from the contract
// does not compile. Activities are registered by their implementation
// (activities.Register); a worker needs both.
func Register(r crawlapi.WorkflowRegistry) {
	crawlapi.TopicCrawlWorkflow.Register(r, TopicCrawlWorkflow)
	crawlapi.RefreshWorkflow.Register(r, RefreshWorkflow)
	crawlapi.ReindexWorkflow.Register(r, ReindexWorkflow)
}
