package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
)

// updateTopic handles one update-topic signal: the UpdateTopic activity
// validates and stores the new topic version with its model (fetching its
// sample pages, loading its lexicon), then the crawl switches to the new
// versions for every slice it launches afterwards. Slices in flight finish
// with the versions they started with. A bad file is recorded in LastError
// and the crawl goes on with the old topic.
func (c *crawler) updateTopic(ch workflow.ReceiveChannel) {
	var yaml string
	if !receive(c, ch, &yaml, crawlapi.SignalUpdateTopic+": payload is not a string (want the topic file's YAML)") {
		return
	}
	st := c.st
	actx := workflow.WithActivityOptions(c.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute, HeartbeatTimeout: time.Minute,
		RetryPolicy: shortOptions().RetryPolicy,
	})
	r, err := awaitSignalled(c, crawlapi.UpdateTopic.Execute(actx, crawlapi.UpdateTopicInput{
		CrawlID: st.CrawlID, Topic: st.Topic, TopicYAML: yaml,
	}))
	if err != nil {
		st.LastError = "update-topic: " + err.Error()
		return
	}
	st.TopicVersion, st.ModelVersion = r.TopicVersion, r.ModelVersion
	workflow.GetLogger(c.ctx).Info("topic updated", "version", r.TopicVersion, "model", r.ModelVersion)
}
