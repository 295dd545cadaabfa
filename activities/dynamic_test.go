package activities

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// TestDynamicThresholdRounds drives the controller through the store: high
// link-confirmed precision lowers the vsm threshold by one step per round,
// a round is computed once (a repeat writes nothing), a later batch reads
// the scaled threshold, and another crawl of the topic starts at factor 1.
func TestDynamicThresholdRounds(t *testing.T) {
	ctx := context.Background()
	a, _, tv, mv := topicFixture(t, `name: dyn
keywords: {rose: 1}
seeds: [http://a.test/]
strategy:
  page_filter: {name: vsm, threshold: 0.2}
  dynamic_threshold: {enabled: true, every: 2, window: 4}
`)
	st := a.Store
	in := crawlapi.BatchRef{CrawlID: "c1", Topic: "dyn", TopicVersion: tv, ModelVersion: mv}
	lt, err := a.loadTopic(ctx, "dyn", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	// A chain of accepted pages, each linking to the next: all confirmed.
	urls := []string{"http://a.test/", "http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4"}
	var links []store.Link
	for i, u := range urls {
		judgePage(t, st, "dyn", u, store.DecisionAccepted, 0.5)
		if i+1 < len(urls) {
			links = append(links, store.Link{Src: urlnorm.Hash(u), Dst: urlnorm.Hash(urls[i+1]), DstURL: urls[i+1]})
		}
	}
	if err := st.AddLinks(ctx, "dyn", links); err != nil {
		t.Fatal(err)
	}
	state := func() (relevance.DynamicState, int) {
		data, v, err := st.Model(ctx, "dyn", relevance.DynamicStateKind, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ds relevance.DynamicState
		if err := json.Unmarshal(data, &ds); err != nil {
			t.Fatal(err)
		}
		return ds, v
	}
	if err := a.adjustThreshold(ctx, lt, in); err != nil {
		t.Fatal(err)
	}
	ds, v := state() // 5 judged / every 2 = round 2; 4 evaluable, all confirmed
	if ds.Round != 2 || ds.Factor != 0.9 || ds.Precision != 1 || ds.Evaluated != 4 || v != 1 {
		t.Errorf("after round 2: %+v (v%d), want factor 0.9, precision 1 over 4", ds, v)
	}
	if err := a.adjustThreshold(ctx, lt, in); err != nil {
		t.Fatal(err)
	}
	if _, v2 := state(); v2 != v {
		t.Errorf("repeating round 2 stored version %d", v2)
	}
	threshold := func(crawlID string, revisited bool) float64 {
		t.Helper()
		factor, err := a.dynamicFactor(ctx, lt, crawlID, revisited)
		if err != nil {
			t.Fatal(err)
		}
		f, err := a.pageFilter(ctx, lt, nil, factor)
		if err != nil {
			t.Fatal(err)
		}
		return f.(*relevance.VSM).Threshold
	}
	if th := threshold("c1", false); math.Abs(th-0.18) > 1e-12 {
		t.Errorf("scaled threshold %v, want 0.18", th)
	}
	if th := threshold("another-crawl", false); th != 0.2 {
		t.Errorf("another crawl does not start at factor 1: threshold %v", th)
	}
	// A refresh batch judges revisited pages at the last crawl's factor.
	if th := threshold("refresh/1", true); math.Abs(th-0.18) > 1e-12 {
		t.Errorf("a refresh batch's threshold %v, want the last crawl's 0.18", th)
	}
	// Two more judged pages: round 3, one more step down.
	judgePage(t, st, "dyn", "http://a.test/5", store.DecisionAccepted, 0.5)
	judgePage(t, st, "dyn", "http://a.test/6", store.DecisionRejected, 0.01)
	if err := a.adjustThreshold(ctx, lt, in); err != nil {
		t.Fatal(err)
	}
	if ds, _ := state(); ds.Round != 3 || ds.Factor != 0.8 {
		t.Errorf("after round 3: %+v, want factor 0.8", ds)
	}
}
