package activities

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/decision"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// twoSites is a roses topic seeded on the loopback site's a.test and c.test.
const twoSites = `name: roses
language: en
description: growing roses in the garden
keywords: {rose: 1.0, roses: 1.0, garden: 0.8}
seeds: [http://a.test/, http://c.test/]
scope: {hosts: [a.test, c.test]}
limits: {max_pages: 50}
`

// TestClaimExploresSeedHosts: with seeds on two hosts, a free slot takes
// the weak seed host's best entry although it scores far below the claim
// ratio's floor (crawl.seed_explore), until the host has that many judged
// pages; with the rule off, or once the host has them, the ratio holds it
// back as before.
func TestClaimExploresSeedHosts(t *testing.T) {
	site := newLoopBackSite(t)
	for _, explore := range []int{0, 2} {
		cfg := siteConfig(t, site)
		cfg.Crawl.SeedExplore = explore
		a := workerActivities(t, cfg)
		ctx := context.Background()
		r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: twoSites})
		if err != nil {
			t.Fatal(err)
		}
		// The seeds fetched: both hosts' entries now come from links.
		if _, err := a.Store.ClaimBatch(ctx, store.ClaimRequest{Topic: r.Topic, BatchID: "seeds", Max: 10}); err != nil {
			t.Fatal(err)
		}
		if err := a.Store.CompleteBatch(ctx, r.Topic, "seeds"); err != nil {
			t.Fatal(err)
		}
		link := func(url string, prio float64) store.FrontierEntry {
			return store.FrontierEntry{Topic: r.Topic, URL: url, URLHash: urlnorm.Hash(url), Host: urlnorm.Host(url),
				Priority: prio, Depth: 1, Strategy: "test", CrawlID: "c1"}
		}
		if _, err := a.Store.Enqueue(ctx, []store.FrontierEntry{
			link("http://a.test/roses/1", 0.8), link("http://a.test/roses/2", 0.7), link("http://c.test/x", 0.05), link("http://c.test/y", 0.04),
		}, store.EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
		in := sliceInput(r, "s1", 50)
		in.MinRatio = 0.9
		claimed := func(batch string) []string {
			t.Helper()
			held := &heldHosts{set: &a.serving, topic: in.Topic}
			es, err := a.claimHosts(ctx, in, batch, store.Fence{}, 4, nil, held, &claimedPages{})
			held.releaseAll() // the hosts free again for the next claim
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range es {
				got = append(got, e.URL)
			}
			slices.Sort(got)
			return got
		}
		got := claimed("c1/s1/a1/c1")
		want := []string{"http://a.test/roses/1"}
		if explore > 0 {
			want = []string{"http://a.test/roses/1", "http://c.test/x"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("seed_explore %d: claim = %v, want %v", explore, got, want)
		}
		if explore == 0 {
			continue
		}
		// c.test judged twice (the seed and x): it competes like any host.
		var judged []store.PageDecision
		for _, u := range []string{"http://c.test/", "http://c.test/x"} {
			p, _, err := a.Store.SavePage(ctx, store.Page{Topic: r.Topic, URLHash: urlnorm.Hash(u), URL: u, FinalURL: u,
				FinalHash: urlnorm.Hash(u), CrawlID: "c1", Status: 200, ContentType: "text/html"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			judged = append(judged, store.PageDecision{URLHash: p.URLHash,
				Decision: store.Decision{Decision: store.DecisionRejected}, YieldHost: "c.test"})
		}
		if _, err := a.Store.WriteGroup(ctx, store.GroupWrite{Topic: r.Topic, Decisions: judged}); err != nil {
			t.Fatal(err)
		}
		if err := a.Store.CompleteBatch(ctx, r.Topic, "c1/s1/a1/c1"); err != nil {
			t.Fatal(err)
		}
		got = claimed("c1/s1/a1/c2")
		if want := []string{"http://a.test/roses/2"}; !slices.Equal(got, want) {
			t.Errorf("claim after c.test's %d judged pages = %v, want %v (c.test's 0.04 below the floor)", explore, got, want)
		}
	}
}

// TestSeedSitePagesExpanded: with seeds on two hosts, a page of a seed
// host still being explored that the filter does not accept is a tunnel
// (its links followed), where pruning would have left it rejected; with
// crawl.seed_explore 0 pruning holds as before.
func TestSeedSitePagesExpanded(t *testing.T) {
	for _, explore := range []int{0, 8} {
		a, _ := twoSiteCrawl(t, "page_filter: {name: vsm, threshold: 0.12}, accept: threshold", explore)
		var x store.Page
		if err := a.Store.CrawlLog(context.Background(), "c1", func(p store.Page) error {
			if p.URL == "http://c.test/x" {
				x = p
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := store.DecisionRejected
		if explore > 0 {
			want = store.DecisionTunnel
		}
		if x.Decision != want || (explore > 0) != strings.HasSuffix(x.Reason, SeedExploreMark) {
			t.Errorf("seed_explore %d: c.test/x judged %s (%q), want %s", explore, x.Decision, x.Reason, want)
		}
	}
}

// TestSeedExploreFromCrawl: a crawl's slices explore its seed sites by
// the crawl.seed_explore recorded when it started and by the crawl's own
// page budget, not by the worker's setting and the topic file's
// limits.max_pages (a --max-pages or a refresh's continuation below it);
// a slice from before they were recorded falls back to those.
func TestSeedExploreFromCrawl(t *testing.T) {
	cfg := siteConfig(t, newLoopBackSite(t))
	cfg.Crawl.SeedExplore = 16
	a := workerActivities(t, cfg)
	ctx := context.Background()
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: twoSites})
	if err != nil {
		t.Fatal(err)
	}
	if r.Params.SeedExplore == nil || *r.Params.SeedExplore != 16 {
		t.Fatalf("StartCrawl recorded seed_explore %v, want 16", r.Params.SeedExplore)
	}
	// c.test has one judged page: explored while k > 1.
	u := "http://c.test/"
	if _, _, err := a.Store.SavePage(ctx, store.Page{Topic: r.Topic, URLHash: urlnorm.Hash(u), URL: u, FinalURL: u,
		FinalHash: urlnorm.Hash(u), CrawlID: "c1", Status: 200, ContentType: "text/html"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Store.WriteGroup(ctx, store.GroupWrite{Topic: r.Topic, Decisions: []store.PageDecision{{URLHash: urlnorm.Hash(u),
		Decision: store.Decision{Decision: store.DecisionRejected}, YieldHost: "c.test"}}}); err != nil {
		t.Fatal(err)
	}
	zero, sixteen := 0, 16
	for i, c := range []struct {
		name        string
		seedExplore *int
		crawlPages  int
		wantC       bool
	}{
		{"not recorded: the worker's 16, the file's 50 pages (k 6)", nil, 0, true},
		{"recorded 16, the crawl's 8 pages (k 1)", &sixteen, 8, false},
		{"recorded 16, the crawl's 50 pages (k 6)", &sixteen, 50, true},
		{"recorded 0 (off), the worker's 16 aside", &zero, 50, false},
	} {
		// A crawl of its own per case: explored sites are remembered per crawl.
		ref := crawlapi.BatchRef{CrawlID: fmt.Sprintf("x%d", i), Topic: r.Topic, SeedExplore: c.seedExplore, CrawlPages: c.crawlPages}
		lt, err := a.loadTopic(ctx, r.Topic, r.TopicVersion, r.ModelVersion)
		if err != nil {
			t.Fatal(err)
		}
		hosts, err := a.exploringHosts(ctx, ref, lt.Topic)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(hosts, "c.test"); got != c.wantC {
			t.Errorf("%s: exploring %v; c.test among them %v, want %v", c.name, hosts, got, c.wantC)
		}
	}
}

func TestSeedExploreQuota(t *testing.T) {
	for _, c := range []struct{ perHost, maxPages, hosts, want int }{
		{4, 300, 3, 4}, // the budget pays for it
		{8, 40, 3, 3},  // a quarter of 40 among three sites
		{8, 10, 3, 1},  // at least one page each
		{8, 0, 2, 8},   // no page budget
		{0, 300, 3, 0}, // off
		{4, 300, 0, 0}, // no seed hosts
	} {
		if got := seedExploreQuota(c.perHost, c.maxPages, c.hosts); got != c.want {
			t.Errorf("seedExploreQuota(%d, %d, %d) = %d, want %d", c.perHost, c.maxPages, c.hosts, got, c.want)
		}
	}
}

// TestExplorationPagesInNoSplit: under split acceptance, a seed site's
// exploration page (a tunnel only because its site was explored) is in no
// crawl split — not in the worker's distribution after its group, nor in
// one another worker loads from the store — while the crawl's other
// judged pages are.
func TestExplorationPagesInNoSplit(t *testing.T) {
	a, cfg := twoSiteCrawl(t, "page_filter: {name: vsm}, accept: split", 8)
	ctx := context.Background()
	explored, judged := 0, 0
	if err := a.Store.CrawlLog(ctx, "c1", func(p store.Page) error {
		if strings.Contains(p.Reason, SeedExploreMark) {
			explored++
		}
		if decision.Judged(p.Decision) {
			judged++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if explored == 0 {
		t.Fatal("no page was expanded as a seed site's exploration page")
	}
	for name, w := range map[string]*Activities{"this worker": a, "another worker": workerActivities(t, cfg)} {
		dist, _, err := w.splits.fork(ctx, w.Store, "roses", "c1", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := dist.Len(), judged-explored; got != want {
			t.Errorf("%s: split of %d pages, want %d (%d judged, %d explored only)", name, got, want, judged, explored)
		}
	}
}

// TestSeedSites: a seed site is its host and its www twin (redirects and
// links move between them), so seeds on both twins are one site — a
// single-site crawl, nothing explored — and an address or host:port has
// no twin.
func TestSeedSites(t *testing.T) {
	got := seedSites([]string{"http://example.org/", "https://www.example.org/docs", "http://www.b.org/x",
		"http://127.0.0.1:8081/", "not a url"})
	want := [][]string{{"example.org", "www.example.org"}, {"b.org", "www.b.org"}, {"127.0.0.1:8081"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("seedSites = %v, want %v", got, want)
	}
	if got := seedSites([]string{"http://example.org/", "http://www.example.org/docs"}); len(got) != 1 {
		t.Errorf("seeds on www twins = %d sites, want 1", len(got))
	}
}

// TestExploredPagesNeverPromoted: an exploration tunnel is marked so for
// the re-judgements (no feedback re-judgement accepts it) and is in no
// split; a tunnel for another reason is neither.
func TestExploredPagesNeverPromoted(t *testing.T) {
	explored := store.Page{Decision: store.DecisionTunnel, Reason: "cosine 0.001 vs threshold 0.020" + SeedExploreMark}
	drawn := store.Page{Decision: store.DecisionTunnel, Reason: "cosine 0.001 vs threshold 0.020; kept as tunnel (p 0.20)"}
	if jp := judgedPageOf(explored); !jp.explored || !inNoSplit(explored) {
		t.Errorf("exploration tunnel: explored %v, in no split %v; want both", jp.explored, inNoSplit(explored))
	}
	if jp := judgedPageOf(drawn); jp.explored || inNoSplit(drawn) {
		t.Errorf("drawn tunnel: explored %v, in no split %v; want neither", jp.explored, inNoSplit(drawn))
	}
}

// TestExploredForgottenOnReset: a topic's reset (a --fresh crawl deletes
// its judged counts) drops what was remembered of its crawls' explored
// sites, and only its own.
func TestExploredForgottenOnReset(t *testing.T) {
	var e exploredHosts
	e.crawl("roses", "c1").add("a.test")
	e.crawl("tulips", "c1").add("a.test")
	e.forget("roses")
	site := [][]string{{"a.test", "www.a.test"}}
	if got := e.crawl("roses", "c1").left(site); len(got) != 1 {
		t.Errorf("after reset, roses' c1 explored sites left = %v, want a.test again", got)
	}
	if got := e.crawl("tulips", "c1").left(site); len(got) != 0 {
		t.Errorf("tulips' c1 left = %v, want none (not reset)", got)
	}
}

// twoSiteCrawl runs crawl c1 of a roses topic seeded on the loopback
// site's a.test (roses) and c.test (football) with the given filter and
// acceptance (a strategy fragment), pruning without tunnels, and
// crawl.seed_explore explore, to its end; it returns the worker and its
// configuration.
func twoSiteCrawl(t *testing.T, strategy string, explore int) (*Activities, *config.Config) {
	t.Helper()
	yml := `name: roses
language: en
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8}
seeds: [http://a.test/, http://c.test/]
scope: {hosts: [a.test, b.test, c.test]}
limits: {max_pages: 50}
strategy: {` + strategy + `, link_predictor: best-first, prune: true, tunnel: 0}
`
	cfg := siteConfig(t, newLoopBackSite(t))
	cfg.Crawl.SeedExplore = explore
	a := workerActivities(t, cfg)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yml})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.CrawlSlice(context.Background(), sliceInput(r, "s000001", 50)); err != nil {
		t.Fatal(err)
	}
	return a, cfg
}
