package activities

import (
	"context"
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// TestSampleFloorKeepsForeignPagesOut: a topic with a sample page, crawled
// on a site without its topic (scoped to the football host), accepts
// nothing — its best pages, which mention a rose garden in passing, score
// far below what the sample scores; with strategy.sample_floor: 0 split
// acceptance, relative to the crawl's own scores, accepts some of them.
// The final re-judgement applies the same floor (it does not promote them).
func TestSampleFloorKeepsForeignPagesOut(t *testing.T) {
	for _, tc := range []struct {
		floor    string
		accepted bool
	}{{"", false}, {", sample_floor: 0", true}} {
		site := newLoopBackSite(t)
		links := []string{"http://c.test/x"}
		for i, p := range []string{"g1", "g2", "g3", "g4"} {
			u := "http://c.test/" + p
			links = append(links, u)
			mention := strings.Repeat(" Behind the stand is the club's rose garden.", i%2+1)
			site.pages[u] = sitePage{"Match day " + p, sportText(10+i) + mention, []string{"http://c.test/"}, false}
		}
		site.pages["http://c.test/"] = sitePage{"Football", sportText(1), links, false}
		a := siteActivities(t, site)
		yaml := strings.NewReplacer("seeds: [http://a.test/]", "seeds: [http://c.test/]",
			"scope: {hosts: [a.test, b.test, c.test]}", "scope: {hosts: [c.test]}",
			"threshold: 0.12}, accept: threshold", "threshold: 0.02}, accept: split"+tc.floor).Replace(siteTopicYAML)
		r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.CrawlSlice(context.Background(), sliceInput(r, "s000001", 20)); err != nil {
			t.Fatal(err)
		}
		online := 0 // accepted as judged, before the final re-judgement
		if err := a.Store.CrawlLog(context.Background(), "c1", func(p store.Page) error {
			if p.Decision == store.DecisionAccepted {
				online++
			}
			if floored := strings.Contains(p.Reason, "; sample floor "); floored == tc.accepted && p.Decision != store.DecisionError {
				t.Errorf("strategy%q: %s reason %q: the sample floor said %v", tc.floor, p.URL, p.Reason, floored)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !tc.accepted && online > 0 {
			t.Errorf("strategy%q: %d pages accepted online", tc.floor, online)
		}
		var rj crawlapi.RejudgeResult
		if err := runActivity(a, crawlapi.RejudgeCrawl.Name, crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic,
			TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion, Final: true}, &rj); err != nil {
			t.Fatal(err)
		}
		var accepted []string
		judged := 0
		if err := a.Store.CrawlLog(context.Background(), "c1", func(p store.Page) error {
			judged++
			if p.Decision == store.DecisionAccepted {
				accepted = append(accepted, p.URL)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if judged < 5 || (len(accepted) > 0) != tc.accepted {
			t.Errorf("strategy%q: %d pages, accepted %v; want some accepted: %v", tc.floor, judged, accepted, tc.accepted)
		}
	}
}
