package activities

import (
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// TestNegativeSampleRejected: a page the topic lists in negative_samples
// is rejected whatever its score — here an on-topic rose page the vsm
// filter would accept, as bayes's cold start (vsm) accepted a user trial's
// own negative samples — while its on-topic neighbours are accepted, and
// the crawl's final re-judgement does not promote it.
func TestNegativeSampleRejected(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	const negative = "http://b.test/p2"
	yaml := strings.Replace(siteTopicYAML, "samples: [http://a.test/roses/1]\n",
		"samples: [http://a.test/roses/1]\nnegative_samples: ["+negative+"]\n", 1)
	yaml = strings.Replace(yaml, "accept: threshold", "accept: split", 1)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
	if err != nil {
		t.Fatal(err)
	}
	site.reset()
	ctx := t.Context()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(negative))
	if err != nil {
		t.Fatal(err)
	}
	if p.Decision != store.DecisionRejected || !strings.HasPrefix(p.Reason, relevance.NegativeSampleMark) || p.Relevance <= 0 {
		t.Fatalf("negative sample %s: %s %.3f (%s); want rejected as a negative sample, its score kept", negative, p.Decision, p.Relevance, p.Reason)
	}
	if p1, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash("http://b.test/p1")); err != nil || p1.Decision != store.DecisionAccepted {
		t.Fatalf("its on-topic sibling b.test/p1: %+v, %v; want accepted (the test's premise: the site's rose pages are accepted)", p1.Decision, err)
	}
	if p.Relevance < 0.12 {
		t.Fatalf("negative sample's own score %.3f; the test's premise is a page the filter (threshold 0.12) would accept", p.Relevance)
	}
	if _, err := a.RejudgeCrawl(ctx, crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion,
		ModelVersion: r.ModelVersion, Final: true}); err != nil {
		t.Fatal(err)
	}
	if p, err = a.Store.Page(ctx, r.Topic, urlnorm.Hash(negative)); err != nil || p.Decision != store.DecisionRejected || p.Indexed {
		t.Fatalf("after the final re-judgement: %s indexed %v (%s), %v; want still rejected, not indexed", p.Decision, p.Indexed, p.Reason, err)
	}
}
