package activities

import (
	"encoding/json"
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/decision"
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
	const negative = "http://b.test/p2"
	a, r := crawlSiteOnce(t, newLoopBackSite(t), negativeSampleTopic(negative, "accept: split"))
	ctx := t.Context()
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

// TestKeywordStuffingRejected: a page that is nothing but the topic's
// keywords repeated (relevance.Stuffed) is rejected with relevance 0 — the
// vsm filter alone would accept it, its cosine near the topic's — its
// on-topic sibling is accepted, and the final re-judgement, feedback
// included, does not promote it.
func TestKeywordStuffingRejected(t *testing.T) {
	site := newLoopBackSite(t)
	const stuffed = "http://b.test/p2"
	site.pages[stuffed] = sitePage{"Climbing roses", strings.Repeat("rose roses garden pruning climbing ", 1000), nil, true}
	a, r := crawlSiteOnce(t, site, strings.Replace(siteTopicYAML, "accept: threshold", "accept: split, feedback: true", 1))
	ctx := t.Context()
	p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(stuffed))
	if err != nil {
		t.Fatal(err)
	}
	if p.Decision != store.DecisionRejected || !strings.HasPrefix(p.Reason, relevance.StuffedMark) || p.Relevance != 0 {
		t.Fatalf("stuffed page: %s %.3f (%s); want rejected as keyword stuffing, relevance 0", p.Decision, p.Relevance, p.Reason)
	}
	if p1, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash("http://b.test/p1")); err != nil || p1.Decision != store.DecisionAccepted {
		t.Fatalf("its on-topic sibling b.test/p1: %+v, %v; want accepted", p1.Decision, err)
	}
	if _, err := a.RejudgeCrawl(ctx, crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion,
		ModelVersion: r.ModelVersion, Final: true}); err != nil {
		t.Fatal(err)
	}
	if p, err = a.Store.Page(ctx, r.Topic, urlnorm.Hash(stuffed)); err != nil || p.Decision != store.DecisionRejected || p.Indexed {
		t.Fatalf("after the final re-judgement: %s indexed %v (%s), %v; want still rejected, not indexed", p.Decision, p.Indexed, p.Reason, err)
	}
}

// crawlSiteOnce starts crawl c1 of topic yaml on site and runs one slice
// of it (budget 100), from a fresh request count.
func crawlSiteOnce(t *testing.T, site *loopBackSite, yaml string) (*Activities, crawlapi.StartCrawlResult) {
	t.Helper()
	a := siteActivities(t, site)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
	if err != nil {
		t.Fatal(err)
	}
	site.reset()
	if _, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	return a, r
}

// TestKeywordStuffingNotLearnedAsNegative: a page rejected as keyword
// stuffing is stored with relevance 0, and bayes learns from the
// lowest-relevance rejected pages first (Bayes.Learn): the stuffed page —
// nothing but the topic's own keywords, thousands of times — must not
// become a negative training document, which would teach the filter that
// the topic's keywords are off topic.
func TestKeywordStuffingNotLearnedAsNegative(t *testing.T) {
	site := newLoopBackSite(t)
	const stuffed = "http://b.test/p2"
	site.pages[stuffed] = sitePage{"Climbing roses", strings.Repeat("rose roses garden pruning climbing ", 1000), nil, true}
	yaml := strings.Replace(siteTopicYAML, "page_filter: {name: vsm, threshold: 0.12}",
		"page_filter: {name: bayes, every: 1, min_negatives: 1, vsm_threshold: 0.12}", 1)
	a, r := crawlSiteOnce(t, site, yaml)
	ctx := t.Context()
	p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(stuffed))
	if err != nil || !strings.HasPrefix(p.Reason, relevance.StuffedMark) {
		t.Fatalf("%s: %q (%v); want rejected as keyword stuffing (the test's premise)", stuffed, p.Reason, err)
	}
	st, err := a.learnerState(ctx, r.Topic, "filter-bayes")
	if err != nil || len(st.State) == 0 {
		t.Fatalf("bayes state %+v, %v; want one learned (the test's premise)", st, err)
	}
	var m relevance.NaiveBayes
	if err := json.Unmarshal(st.State, &m); err != nil {
		t.Fatal(err)
	}
	for term, n := range a.Tok.TermFreq(strings.Repeat("rose roses garden pruning climbing ", 1000)) {
		if m.Neg[term] >= n {
			t.Errorf("bayes learned %d occurrences of %q as off topic (%d negative documents): the stuffed page is a negative", m.Neg[term], term, m.NegDocs)
		}
	}
}

// TestKeywordStuffingNoFeedbackEvidence: the feedback re-judgement scores
// every judged page again, a stuffed page too — its text is the topic's
// keywords, so its feedback score is high — and mixed that score into the
// pages it links to as in-link evidence, promoting an off-topic page
// linked only from it. Online its stored relevance (0) was the evidence;
// a stuffed page's text says nothing of the topic in feedback either.
func TestKeywordStuffingNoFeedbackEvidence(t *testing.T) {
	site := newLoopBackSite(t)
	const stuffed, linked = "http://b.test/p2", "http://b.test/p3"
	site.pages[stuffed] = sitePage{"Climbing roses", strings.Repeat("rose roses garden pruning climbing ", 1000), []string{linked}, true}
	site.pages[linked] = sitePage{"Match report", sportText(3) + " A rose.", nil, false}
	a, r := crawlSiteOnce(t, site, strings.Replace(siteTopicYAML, "accept: threshold", "accept: split, feedback: true", 1))
	ctx := t.Context()
	p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(linked))
	if err != nil || p.Decision == store.DecisionAccepted {
		t.Fatalf("%s: %s %.3f (%s), %v; want not accepted online (the test's premise)", linked, p.Decision, p.Relevance, p.Reason, err)
	}
	res, err := a.RejudgeCrawl(ctx, crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion,
		ModelVersion: r.ModelVersion, Final: true})
	if err != nil || !res.Feedback {
		t.Fatalf("final re-judgement %+v, %v; want feedback applied (the test's premise)", res, err)
	}
	if p, err = a.Store.Page(ctx, r.Topic, urlnorm.Hash(linked)); err != nil || p.Decision == store.DecisionAccepted {
		t.Errorf("after the feedback re-judgement %s: %s (%s), %v; want not promoted on a stuffed page's in-link evidence", linked, p.Decision, p.Reason, err)
	}
}

// TestFeedbackSplitLeavesOutNegativeSamples: the feedback re-judgement's
// split holds the crawl's judged pages but those in no split online
// (inNoSplit: a declared negative sample here) — its feedback score, an
// on-topic page's, placed it in the split's upper group before.
func TestFeedbackSplitLeavesOutNegativeSamples(t *testing.T) {
	const negative = "http://b.test/p2"
	a, r := crawlSiteOnce(t, newLoopBackSite(t), negativeSampleTopic(negative, "accept: split, feedback: true"))
	ctx := t.Context()
	lt, err := a.loadTopic(ctx, r.Topic, r.TopicVersion, r.ModelVersion)
	if err != nil {
		t.Fatal(err)
	}
	var pages []judgedPage
	inSplit := 0
	if err := a.Store.CrawlLog(ctx, "c1", func(p store.Page) error {
		if decision.Judged(p.Decision) {
			pages = append(pages, judgedPageOf(p))
			if !inNoSplit(p) {
				inSplit++
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if inSplit == len(pages) {
		t.Fatalf("no judged page is in no split (the test's premise: the negative sample %s is)", negative)
	}
	dist := relevance.NewScoreDist()
	for _, p := range pages {
		dist.Add(p.hash, p.score)
	}
	in := crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion, Final: true}
	_, split, ok, err := a.feedbackVerdicts(ctx, lt, in, pages, dist, 0.12)
	if err != nil || !ok {
		t.Fatalf("feedbackVerdicts: ok %v, %v; want feedback scores (the test's premise)", ok, err)
	}
	if split.Len() != inSplit {
		t.Errorf("feedback split of %d pages; want %d (the %d judged but those in no split)", split.Len(), inSplit, len(pages))
	}
}

// negativeSampleTopic is siteTopicYAML listing negative among its
// negative_samples, with acceptance accept in place of "accept: threshold".
func negativeSampleTopic(negative, accept string) string {
	yaml := strings.Replace(siteTopicYAML, "samples: [http://a.test/roses/1]\n",
		"samples: [http://a.test/roses/1]\nnegative_samples: ["+negative+"]\n", 1)
	return strings.Replace(yaml, "accept: threshold", accept, 1)
}
