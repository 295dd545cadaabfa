package activities

import (
	"context"
	"math"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/graph"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// TestRecomputeHubAuthorityRaisesHubOutLinks: the out-links of an accepted
// hub gain β·HubBoost in the frontier; a rejected page's out-links and the
// bfs baseline's frontier keep their priorities (docs/algorithms.md "HITS
// hubs steer the frontier").
func TestRecomputeHubAuthorityRaisesHubOutLinks(t *testing.T) {
	for _, tc := range []struct {
		predictor string
		boosted   bool
	}{{"best-first", true}, {"bfs", false}} {
		t.Run(tc.predictor, func(t *testing.T) {
			yaml := "name: ex\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nstrategy: {link_predictor: " + tc.predictor + "}\n"
			a, _, tv, mv := topicFixture(t, yaml)
			ctx := context.Background()
			st := a.Store
			hub, off := "http://a.test/roses/", "http://a.test/sport/"
			judgePage(t, st, "ex", hub, store.DecisionAccepted, 0.6)
			judgePage(t, st, "ex", off, store.DecisionRejected, 0.01)
			queued := map[string]struct {
				src   string
				score float64
			}{
				"http://a.test/roses/tea.html":   {hub, 0.3},
				"http://a.test/roses/climb.html": {hub, 0.3},
				"http://a.test/sport/match.html": {off, 0.4},
			}
			var links []store.Link
			var entries []store.FrontierEntry
			for u, q := range queued {
				h := urlnorm.Hash(u)
				links = append(links, store.Link{Src: urlnorm.Hash(q.src), Dst: h, DstURL: u, Score: q.score})
				entries = append(entries, store.FrontierEntry{Topic: "ex", URLHash: h, URL: u, Host: "a.test",
					Priority: q.score, Depth: 1, LinkScore: q.score, Strategy: tc.predictor, CrawlID: "c1"})
			}
			if err := st.AddLinks(ctx, "ex", links); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Enqueue(ctx, entries, store.EnqueueOptions{}); err != nil {
				t.Fatal(err)
			}
			res, err := a.RecomputeHubAuthority(ctx, crawlapi.HubAuthInput{CrawlID: "c1", Topic: "ex", TopicVersion: tv, ModelVersion: mv})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.ClaimBatch(ctx, store.ClaimRequest{Topic: "ex", CrawlID: "c1", BatchID: "all", Max: 10,
				Lease: time.Hour, Now: time.Now()}); err != nil {
				t.Fatal(err)
			}
			es, err := st.BatchEntries(ctx, "ex", "all")
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != len(queued) {
				t.Fatalf("claimed %d entries, want %d", len(es), len(queued))
			}
			for _, e := range es {
				q := queued[e.URL]
				want := q.score
				if tc.boosted && q.src == hub {
					want += graph.DefaultHubBoost // the only accepted hub: HubBoost 1
				}
				if math.Abs(e.Priority-want) > 1e-9 {
					t.Errorf("%s: priority %v, want %v (reprioritized %d)", e.URL, e.Priority, want, res.Reprioritized)
				}
			}
		})
	}
}
