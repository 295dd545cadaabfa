package activities

import (
	"fmt"
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// TestContinuedCrawlSplit: a second crawl of a topic, going on from the
// first one's frontier, meets only what the first left queued — here
// football pages that mention a garden — and judges them against the
// topic's judged pages, not against a split drawn from its own off-topic
// pages alone (a user trial's second crawl accepted 25 of 30 off-topic
// pages, "harvest 83%").
func TestContinuedCrawlSplit(t *testing.T) {
	site := newLoopBackSite(t)
	var garden []string
	for i := 1; i <= 6; i++ {
		garden = append(garden, fmt.Sprintf("http://b.test/g%d", i))
	}
	for i, u := range garden {
		site.pages[u] = sitePage{fmt.Sprintf("Match %d", i+10),
			sportText(i+10) + strings.Repeat(" The club's garden behind the stand.", i+1), garden, false}
	}
	p2 := site.pages["http://b.test/p2"]
	p2.links = append(append([]string(nil), p2.links...), garden[0])
	site.pages["http://b.test/p2"] = p2
	a := siteActivities(t, site)
	// The default acceptance (split) and threshold, and no sample pages:
	// no sample floor under the split.
	yaml := strings.Replace(siteTopicYAML, "accept: threshold", "accept: split", 1)
	yaml = strings.Replace(yaml, "threshold: 0.12", "threshold: 0.02", 1)
	yaml = strings.Replace(yaml, "samples: [http://a.test/roses/1]\n", "", 1)
	ctx := t.Context()
	start := func(id string) crawlapi.StartCrawlResult {
		r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: id, TopicYAML: yaml})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1 := start("c1")
	if _, err := a.CrawlSlice(ctx, sliceInput(r1, "s000001", 10)); err != nil {
		t.Fatal(err)
	}
	r2 := start("c2")
	in := sliceInput(r2, "s000001", 100)
	in.CrawlID, in.SliceID = "c2", "c2/s000001"
	if _, err := a.CrawlSlice(ctx, in); err != nil {
		t.Fatal(err)
	}
	// The crawl's final re-judgement draws its split from the topic too.
	if _, err := a.RejudgeCrawl(ctx, crawlapi.RejudgeInput{CrawlID: "c2", Topic: r2.Topic, TopicVersion: r2.TopicVersion,
		ModelVersion: r2.ModelVersion, Final: true}); err != nil {
		t.Fatal(err)
	}
	pages := map[string]map[string]store.Page{"c1": {}, "c2": {}}
	for id, m := range pages {
		if err := a.Store.CrawlLog(ctx, id, func(p store.Page) error { m[p.URL] = p; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	first, second := pages["c1"], pages["c2"]
	accepted := 0
	for _, p := range first {
		if p.Decision == store.DecisionAccepted {
			accepted++
		}
	}
	judged := 0
	for _, u := range garden {
		p, ok := second[u]
		if !ok || first[u].URL != "" {
			continue
		}
		judged++
		if p.Decision == store.DecisionAccepted {
			t.Errorf("second crawl accepted off-topic %s (%.3f: %s)", u, p.Relevance, p.Reason)
		}
	}
	if _, ok := first["http://b.test/p2"]; !ok || judged < 5 || accepted < 6 {
		t.Fatalf("first crawl accepted %d pages, the second judged %d garden pages; the test's premise is a first crawl that found the roses (b.test/p2 among them) and left the garden pages queued",
			accepted, judged)
	}
}

// TestFreshCrawlSplitForgetsDeletedPages: a --fresh crawl deletes the
// topic's pages; the worker's cached distribution of the topic must not
// go on holding them (the evaluation's runs of a topic, each --fresh in one
// worker, were judged against the run before).
func TestFreshCrawlSplitForgetsDeletedPages(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	yaml := strings.Replace(siteTopicYAML, "accept: threshold", "accept: split", 1)
	ctx := t.Context()
	for i, id := range []string{"c1", "c2"} {
		r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: id, TopicYAML: yaml, Fresh: i > 0})
		if err != nil {
			t.Fatal(err)
		}
		// The fresh crawl fetches fewer pages than the first: the same
		// URLs would replace the stale scores in the distribution.
		in := sliceInput(r, "s000001", 6-4*i)
		in.CrawlID, in.SliceID = id, id+"/s000001"
		if _, err := a.CrawlSlice(ctx, in); err != nil {
			t.Fatal(err)
		}
		judged := 0
		if err := a.Store.CrawlLog(ctx, id, func(p store.Page) error {
			if p.Decision == store.DecisionAccepted || p.Decision == store.DecisionRejected || p.Decision == store.DecisionTunnel {
				judged++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := a.splits.topics[r.Topic].dist.Len(); got != judged || judged == 0 {
			t.Errorf("crawl %s: the worker's distribution holds %d pages; want the %d the crawl judged (the store holds no other)", id, got, judged)
		}
	}
}
