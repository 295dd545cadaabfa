package activities

import (
	"context"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// TestFreshResetLeavesNoDocuments: a --fresh start leaves the topic's
// index empty. A withdrawn page whose index deletion failed (tunnel, still
// flagged indexed) and an accepted page whose document was written but not
// flagged are both states the activities acknowledge; resetTopic deleted
// only accepted flagged pages' documents, so the others stayed in the
// index for good (the reset wiped the rows that named them).
func TestFreshResetLeavesNoDocuments(t *testing.T) {
	a, r, judged := rejudgeFixture(t, "accept: split")
	ctx := context.Background()
	var acc []store.Page
	for _, p := range judged {
		if p.Decision == store.DecisionAccepted && p.Indexed {
			acc = append(acc, p)
		}
	}
	if len(acc) == 0 {
		t.Fatal("no accepted indexed page")
	}
	// A withdrawal whose index deletion failed: tunnel, still flagged indexed.
	w := acc[0]
	if err := a.Store.SetDecision(ctx, r.Topic, w.URLHash, store.Decision{Relevance: w.Relevance, Filter: w.Filter,
		Decision: store.DecisionTunnel, Reason: w.Reason + rejudgedMark + "x"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Store.Page(ctx, r.Topic, w.URLHash); !got.Indexed || got.Decision != store.DecisionTunnel {
		t.Fatalf("setup: %s indexed %v", got.Decision, got.Indexed)
	}
	// An accepted page with a document, not flagged indexed.
	poor := judged[len(judged)-1]
	acceptAndIndex(t, a, poor)

	n, _ := a.Index.Count(ctx, r.Topic)
	t.Logf("index holds %d documents before the fresh start", n)
	if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c2", TopicYAML: siteTopicYAML, Fresh: true}); err != nil {
		t.Fatal(err)
	}
	if n, err := a.Index.Count(ctx, r.Topic); err != nil || n != 0 {
		t.Errorf("after a --fresh start the topic's index holds %d documents (%v); want 0", n, err)
	}
}
