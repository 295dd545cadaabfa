package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
)

// updateTopic handles one update-topic signal: the UpdateTopic activity
// validates and stores the new topic version with its model (fetching its
// sample pages, loading its lexicon) and queues its new seeds, then the
// crawl switches to the new versions for every slice it launches
// afterwards, and to the file's page budget and learning cadence
// (applyTopic). Slices in flight finish with the versions they started
// with. A bad file is recorded in LastError and the crawl goes on with the
// old topic.
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
	// Runs recorded before took only the new versions from the file.
	whole := workflow.GetVersion(c.ctx, "update-topic-whole-file", workflow.DefaultVersion, 1) == 1
	in := crawlapi.UpdateTopicInput{CrawlID: st.CrawlID, Topic: st.Topic, TopicYAML: yaml}
	if whole {
		in.FromVersion = st.TopicVersion
	}
	r, err := awaitSignalled(c, crawlapi.UpdateTopic.Execute(actx, in))
	if err != nil {
		st.SetError(workflow.Now(c.ctx), "update-topic: "+err.Error())
		return
	}
	st.TopicVersion, st.ModelVersion = r.TopicVersion, r.ModelVersion
	// The memo names the version the crawl runs (the Temporal UI shows it);
	// it kept the first run's. (Histories recorded before replay without it.)
	if workflow.GetVersion(c.ctx, "memo-on-topic-update", workflow.DefaultVersion, 1) == 1 {
		if err := workflow.UpsertMemo(c.ctx, map[string]any{crawlapi.MemoTopicVersion: st.TopicVersion}); err != nil {
			workflow.GetLogger(c.ctx).Warn("memo not updated", "error", err)
		}
	}
	// The notes are the file's in use now: the previous file's go.
	st.Notes = r.Notes
	if whole {
		c.applyTopic(r)
	}
	workflow.GetLogger(c.ctx).Info("topic updated", "version", r.TopicVersion, "model", r.ModelVersion,
		"max_pages", st.Params.MaxPages, "learn_every", st.Params.LearnEvery, "seeded", r.Seeded, "sitemap_urls", r.SitemapURLs)
}

// applyTopic takes what an updated topic file changes besides its
// versions: the page budget (never above the crawl's MaxPagesCap), the
// learning cadence, which follows the link predictor, and the frontier
// entries its seeds and sitemaps added, which revive a crawl whose slices
// found the frontier dry. A budget below what the crawl has claimed ends
// it once its running slices report.
func (c *crawler) applyTopic(r crawlapi.UpdateTopicResult) {
	st := c.st
	if r.MaxPages > 0 { // 0: a worker from before they were returned
		st.Params.MaxPages = r.MaxPages
		if st.MaxPagesCap > 0 {
			st.Params.MaxPages = min(r.MaxPages, st.MaxPagesCap)
		}
		st.Params.LearnEvery = r.LearnEvery
	}
	st.UpdateSeeded += r.Seeded
	st.SitemapURLs += r.SitemapURLs
	if n := r.Seeded + r.SitemapURLs; n > 0 {
		st.Queued += n
		c.frontierDry = false
	}
}
