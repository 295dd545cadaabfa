package workflows

import (
	"go.temporal.io/sdk/worker"

	"focuscrawl/activities"
)

// Register registers every focuscrawl workflow and activity on w. The worker
// command and the evaluation harness's in-process worker both call it, so
// they can never register different sets.
func Register(w worker.Registry, acts *activities.Activities) {
	w.RegisterWorkflow(TopicCrawlWorkflow)
	w.RegisterWorkflow(RefreshWorkflow)
	w.RegisterActivity(acts)
}
