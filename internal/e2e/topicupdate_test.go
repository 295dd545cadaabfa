package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// updateTopicYAML is the test site's topic with English keywords only, or
// (zh) with the Chinese rose keywords added and the threshold moved from
// 0.12 to 0.11, so every decision's reason shows which version judged it.
func updateTopicYAML(name string, zh bool) string {
	kw, th := "rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8", "0.12"
	if zh {
		kw, th = kw+", 玫瑰: 1.0, 种植: 0.8, 修剪: 0.8", "0.11"
	}
	return fmt.Sprintf(`name: %s
language: auto
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {%s}
seeds: [http://www.garden.test/]
limits: {max_pages: 200}
strategy:
  page_filter: {name: vsm, threshold: %s}
  link_predictor: best-first
  prune: false # the Chinese pages sit behind the rejected football site (site_test.go)
  expand: {keywords: 5}
`, name, kw, th)
}

// TestUpdateTopicSignal checks seed 000's variable topic end to end: a crawl
// starts with an English-only topic (the Chinese rose pages score 0 and are
// rejected); it is paused after its first accepted page, sent a bad
// update-topic (recorded in LastError, crawl unchanged) and then a topic that
// adds the Chinese keywords and lowers the threshold, and resumed. Every
// batch launched after the update must judge with the new version (its
// threshold in every reason; the Chinese rose pages accepted), every batch
// before with the old one; the crawl's store row and state name topic
// version 2. The
// crawl also runs seed expansion (crawl.expand_every) and records the
// no-result query planted in the store as a candidate keyword.
func TestUpdateTopicSignal(t *testing.T) {
	site := newTestSite(t, 100*time.Millisecond) // slow enough to pause before the Chinese site
	e := newEnv(t, site, "FOCUSCRAWL_CRAWL_EXPAND_EVERY=2")
	st := e.openStore()
	ctx := context.Background()
	if err := st.RecordNoResultQuery(ctx, "upd", "rose hips", time.Now()); err != nil {
		t.Fatal(err)
	}
	e.startWorker("worker")
	run := e.startTopic("upd", updateTopicYAML("upd", false))
	id := run.GetID()
	signal := func(name string, arg any) {
		t.Helper()
		if err := e.client.SignalWorkflow(ctx, id, "", name, arg); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 60*time.Second, "a first accepted page", func() bool { return e.status(id).Accepted >= 1 })
	signal(crawlapi.SignalPause, nil)
	eventually(t, 60*time.Second, "the paused crawl to drain", func() bool {
		s := e.status(id)
		return s.Paused && s.InFlight == 0
	})
	before := e.status(id)
	if before.TopicVersion != 1 {
		t.Fatalf("topic version %d before the update, want 1", before.TopicVersion)
	}
	signal(crawlapi.SignalUpdateTopic, updateTopicYAML("another-topic", true))
	eventually(t, 30*time.Second, "the bad update to be reported", func() bool {
		return strings.Contains(e.status(id).LastError, "update-topic")
	})
	if s := e.status(id); s.TopicVersion != 1 {
		t.Fatalf("a bad update changed the topic version to %d", s.TopicVersion)
	}
	signal(crawlapi.SignalUpdateTopic, updateTopicYAML("upd", true))
	eventually(t, 60*time.Second, "topic version 2", func() bool { return e.status(id).TopicVersion == 2 })
	signal(crawlapi.SignalResume, nil)
	res := e.wait(run, 120*time.Second)

	if res.TopicVersion != 2 || res.ModelVersion <= before.ModelVersion {
		t.Errorf("final state: topic v%d model v%d, want topic v2 and a model newer than v%d",
			res.TopicVersion, res.ModelVersion, before.ModelVersion)
	}
	crawl, err := st.Crawl(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if crawl.TopicVersion != 2 {
		t.Errorf("crawl store row records topic version %d, want 2", crawl.TopicVersion)
	}
	var zhAfter, zhAfterAccepted, zhBefore, enAccepted int
	var log []string
	err = st.CrawlLog(ctx, id, func(p store.Page) error {
		b := sliceOf(p.BatchID)
		log = append(log, fmt.Sprintf("b%d %s %s %.3f %s", b, p.URL, p.Decision, p.Relevance, p.Reason))
		switch p.Decision {
		case store.DecisionAccepted, store.DecisionRejected:
			want := "vs threshold 0.120"
			if b > before.Slices {
				want = "vs threshold 0.110"
			}
			if !strings.Contains(p.Reason, want) {
				t.Errorf("slice %d (update after slice %d): %s judged %q, want %q", b, before.Slices, p.URL, p.Reason, want)
			}
		}
		switch {
		case strings.HasPrefix(p.URL, "http://www.huayuan.test/") && p.Decision != store.DecisionError:
			if b > before.Slices {
				zhAfter++
				if p.Decision == store.DecisionAccepted {
					zhAfterAccepted++
				}
			} else {
				zhBefore++
				if p.Decision == store.DecisionAccepted {
					t.Errorf("%s accepted by the English-only topic", p.URL)
				}
			}
		case strings.HasPrefix(p.URL, "http://www.garden.test/") && p.Decision == store.DecisionAccepted:
			enAccepted++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if zhAfter == 0 || zhAfterAccepted != zhAfter || enAccepted == 0 {
		t.Errorf("after the update (slices > %d): %d/%d Chinese rose pages accepted (want all, at least one); %d judged before; %d English accepted\n%s",
			before.Slices, zhAfterAccepted, zhAfter, zhBefore, enAccepted, strings.Join(log, "\n"))
	}
	t.Logf("update after slice %d: Chinese pages judged before %d, after %d (%d accepted); English accepted %d; expansion added %d",
		before.Slices, zhBefore, zhAfter, zhAfterAccepted, enAccepted, res.Expanded)
	if res.CandidateKeywords != 1 {
		t.Errorf("candidate keywords in the crawl state: %d, want 1 (the planted no-result query)", res.CandidateKeywords)
	}
}

// sliceOf returns the crawl slice number in a batch ID made by CrawlSlice
// ("<crawl ID>/s000003/a1-<token>/c000002" → 3), or 0.
func sliceOf(batchID string) int {
	for _, seg := range strings.Split(batchID, "/") {
		var n int
		if len(seg) == 7 && seg[0] == 's' {
			if _, err := fmt.Sscanf(seg[1:], "%d", &n); err == nil {
				return n
			}
		}
	}
	return 0
}
