package activities

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/graph"
	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/parse"
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

// TestIPageRankCountsParentRankOnce: with the ipagerank predictor two
// children whose own links score alike (RWB 1, the anchor "rose") end up
// with the same queue priority after RecomputeHubAuthority, whatever
// their parents' ranks in the ranks version the links were scored with:
// the parent's rank reaches a child once, through the child's IPageRank.
// The crawl graph keeps each link's own RWB score for it, and the
// re-prioritisation is λ·RWB + (1−λ)·IPR(URL) + β·HubBoost, computed here
// by hand from the graph package. Before, the crawl graph kept the
// predictor's mixed priority λ·RWB + (1−λ)·IPR(parent), so the stale rank
// of the parent counted a second time, λ(1−λ)·rank (and, from a page
// with several out-links, weighted its children's transitions in
// IPageRank): the child of the 0.9-ranked parent came out 0.2 above the
// child of the 0.1-ranked one.
func TestIPageRankCountsParentRankOnce(t *testing.T) {
	const lambda = 0.5
	yaml := "name: ex\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nstrategy: {link_predictor: {name: ipagerank, lambda: 0.5}}\n"
	a, _, tv, mv := topicFixture(t, yaml)
	ctx := context.Background()
	st := a.Store
	parents := []struct {
		url, child string
		rank       float64 // in the ranks version the links are scored with
	}{
		{"http://a.test/high/", "http://a.test/high/tea.html", 0.9},
		{"http://a.test/low/", "http://a.test/low/tea.html", 0.1},
	}
	ranks := linkmodel.Ranks{Scores: map[string]float64{}}
	g := newGroup("ex", "c1")
	var pages []store.Page
	for _, p := range parents {
		judgePage(t, st, "ex", p.url, store.DecisionAccepted, 0.6)
		h := urlnorm.Hash(p.url)
		ranks.Scores[h] = p.rank
		page, err := st.Page(ctx, "ex", h)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page)
		g.recs[h] = &parseRecord{Doc: &parse.Document{URL: p.url, Links: []parse.Link{{URL: p.child, Anchor: "rose"}}},
			TF: map[string]int{"rose": 3}}
	}
	blob, err := json.Marshal(ranks)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := st.PutModel(ctx, "ex", linkmodel.RanksKind, blob)
	if err != nil {
		t.Fatal(err)
	}
	ref := crawlapi.BatchRef{CrawlID: "c1", Topic: "ex", TopicVersion: tv, ModelVersion: mv, RankVersion: rv}
	if _, err := a.predictLinks(ctx, ref, pages, g); err != nil {
		t.Fatal(err)
	}
	// The predictor's priorities are its mix, the parent's rank in it.
	for _, e := range g.w.Entries {
		want := lambda*1 + (1-lambda)*ranks.Scores[e.ParentHash]
		if math.Abs(e.Priority-want) > 1e-9 || e.LinkScore != e.Priority {
			t.Errorf("%s: queued at %v (link score %v), want %v", e.URL, e.Priority, e.LinkScore, want)
		}
	}
	if len(g.w.Entries) != len(parents) {
		t.Fatalf("queued %d links, want %d", len(g.w.Entries), len(parents))
	}
	if err := a.flush(ctx, g); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RecomputeHubAuthority(ctx, crawlapi.HubAuthInput{CrawlID: "c1", Topic: "ex", TopicVersion: tv, ModelVersion: mv}); err != nil {
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
	// By hand: nodes high, low (accepted, relevance 0.6) and their
	// children (unfetched, relevance = their link's RWB, 1).
	gr, err := graph.Build(4, []graph.Edge{{From: 0, To: 2}, {From: 1, To: 3}})
	if err != nil {
		t.Fatal(err)
	}
	relevant := []bool{true, true, false, false}
	ipr := scaleMax(graph.IPageRank(gr, graph.IPageRankInput{Relevance: []float64{0.6, 0.6, 1, 1}, Relevant: relevant}, graph.RankOptions{}).Scores)
	boost := graph.HubBoost(gr, graph.HITS(gr, 0, 0).Hub, relevant)
	prio := map[string]float64{}
	for _, e := range es {
		prio[e.URL] = e.Priority
	}
	for i, p := range parents {
		want := lambda*1 + (1-lambda)*ipr[2+i] + graph.DefaultHubBoost*boost[2+i]
		if got, ok := prio[p.child]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s (parent ranked %v): priority %v, want λ·RWB + (1−λ)·IPR + β·HubBoost = %v", p.child, p.rank, got, want)
		}
	}
	// The crawl graph keeps the links' own scores.
	if err := st.GraphEdges(ctx, "ex", func(l store.Link) error {
		if l.Score != 1 {
			t.Errorf("edge %s → %s stored with score %v, want its RWB score 1", l.Src, l.Dst, l.Score)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestRanksOnlyForTheirReader: a ranking round stores the pages' ranks
// only for a predictor that reads them (ipagerank), and only such a
// predictor's batches load a rank version. Before, best-first crawls
// stored every page's IPageRank and PageRank at every round, kept every
// version, and every worker decoded and kept each one it was named — a
// 30,000-page loopback crawl held 12 versions, 17 MB (docs/benchmarks.md).
func TestRanksOnlyForTheirReader(t *testing.T) {
	for _, tc := range []struct {
		predictor string
		reads     bool
	}{{"best-first", false}, {"ipagerank", true}} {
		t.Run(tc.predictor, func(t *testing.T) {
			yaml := "name: ex\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nstrategy: {link_predictor: " + tc.predictor + "}\n"
			a, _, tv, mv := topicFixture(t, yaml)
			ctx := context.Background()
			st := a.Store
			hub := "http://a.test/roses/"
			judgePage(t, st, "ex", hub, store.DecisionAccepted, 0.6)
			child := "http://a.test/roses/tea.html"
			if err := st.AddLinks(ctx, "ex", []store.Link{{Src: urlnorm.Hash(hub), Dst: urlnorm.Hash(child), DstURL: child, Score: 0.3}}); err != nil {
				t.Fatal(err)
			}
			res, err := a.RecomputeHubAuthority(ctx, crawlapi.HubAuthInput{CrawlID: "c1", Topic: "ex", TopicVersion: tv, ModelVersion: mv})
			if err != nil {
				t.Fatal(err)
			}
			if res.RankVersion == 0 {
				t.Fatal("no rank version: the round must still be numbered")
			}
			data, _, err := st.Model(ctx, "ex", linkmodel.RanksKind, res.RankVersion)
			if err != nil {
				t.Fatal(err)
			}
			r, err := linkmodel.DecodeRanks(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(r.Scores) > 0 && len(r.PageRank) > 0; got != tc.reads {
				t.Errorf("ranks stored for %d pages (%d PageRank), want some: %v", len(r.Scores), len(r.PageRank), tc.reads)
			}
			// A rank version that does not decode: only its reader's batch
			// loads it, and fails on it.
			bad, err := st.PutModel(ctx, "ex", linkmodel.RanksKind, []byte("{not json"))
			if err != nil {
				t.Fatal(err)
			}
			lt, err := a.loadTopic(ctx, "ex", tv, mv)
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.predictorEnv(ctx, crawlapi.BatchRef{CrawlID: "c1", Topic: "ex", TopicVersion: tv, ModelVersion: mv, RankVersion: bad}, lt)
			if (err != nil) != tc.reads {
				t.Errorf("batch with an undecodable rank version: %v (the predictor reads ranks: %v)", err, tc.reads)
			}
		})
	}
}

// TestRankVersionsPruned: a topic keeps its newest keepLearnedVersions rank
// versions (each scores every page of the crawl; before, every round's
// stayed), and a batch that names a pruned version — a slice retried
// rounds after it started — reads the newest instead of failing.
func TestRankVersionsPruned(t *testing.T) {
	yaml := "name: ex\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nstrategy: {link_predictor: ipagerank}\n"
	a, _, tv, mv := topicFixture(t, yaml)
	ctx := context.Background()
	st := a.Store
	hub, child := "http://a.test/roses/", "http://a.test/roses/tea.html"
	judgePage(t, st, "ex", hub, store.DecisionAccepted, 0.6)
	if err := st.AddLinks(ctx, "ex", []store.Link{{Src: urlnorm.Hash(hub), Dst: urlnorm.Hash(child), DstURL: child, Score: 0.3}}); err != nil {
		t.Fatal(err)
	}
	var versions []int
	for range keepLearnedVersions + 2 {
		res, err := a.RecomputeHubAuthority(ctx, crawlapi.HubAuthInput{CrawlID: "c1", Topic: "ex", TopicVersion: tv, ModelVersion: mv})
		if err != nil {
			t.Fatal(err)
		}
		versions = append(versions, res.RankVersion)
	}
	for i, v := range versions {
		_, _, err := st.Model(ctx, "ex", linkmodel.RanksKind, v)
		if kept := i >= len(versions)-keepLearnedVersions; kept != (err == nil) {
			t.Errorf("rank version %d: kept %v, want %v (%v)", v, err == nil, kept, err)
		}
	}
	lt, err := a.loadTopic(ctx, "ex", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	ref := crawlapi.BatchRef{CrawlID: "c1", Topic: "ex", TopicVersion: tv, ModelVersion: mv, RankVersion: versions[0]}
	env, err := a.predictorEnv(ctx, ref, lt)
	if err != nil || env.Ranks == nil || len(env.Ranks.Scores) == 0 {
		t.Fatalf("batch naming pruned version %d: %v (ranks %v); want the newest ranks", versions[0], err, env.Ranks)
	}
	// The slice's next batch finds the newest ranks without the store
	// (a review: each batch read the pruned version, then the newest, twice).
	mc := &modelReadCounter{Store: st}
	a.Store = mc
	if again, err := a.predictorEnv(ctx, ref, lt); err != nil || again.Ranks != env.Ranks || mc.reads != 0 {
		t.Errorf("the next batch: %v, same ranks %v, %d model reads; want the cached newest and no read", err, again.Ranks == env.Ranks, mc.reads)
	}
}

// modelReadCounter counts model reads.
type modelReadCounter struct {
	store.Store
	reads int
}

func (c *modelReadCounter) Model(ctx context.Context, topic, kind string, version int) ([]byte, int, error) {
	c.reads++
	return c.Store.Model(ctx, topic, kind, version)
}
