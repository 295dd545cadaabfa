package storetest

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"focuscrawl/internal/store"
)

// writePages saves pages, decided as they are, in one group write.
func writePages(t *testing.T, s store.Store, pages []store.Page) {
	t.Helper()
	g := store.GroupWrite{Topic: "go"}
	for _, p := range pages {
		g.Pages = append(g.Pages, store.PageBody{Page: p})
	}
	if _, err := s.WriteGroup(t.Context(), g); err != nil {
		t.Fatalf("WriteGroup: %v", err)
	}
}

// testBestPages: BestPages returns a crawl's pages of one decision within
// its depth and reason bounds, best score first and URL hash first on
// ties, at most Limit of them, and from after a given page on — so that
// reads of a few pages each, every one after the last one's last page,
// walk them all across boundaries inside runs of equal scores (5 scores
// among hundreds of pages). A reason term's LIKE wildcards match
// themselves; a Limit of 0 is an error.
func testBestPages(t *testing.T, s store.Store) {
	ctx := t.Context()
	var pages []store.Page
	for i := range 400 {
		p := page("go", "crawl-1", u("a.test", i))
		p.Depth, p.Relevance, p.Decision = i%4, float64(i%5)/4, store.DecisionRejected
		switch i % 11 {
		case 3:
			p.Decision = store.DecisionTunnel
		case 7:
			p.Decision = store.DecisionAccepted
		}
		p.Reason = []string{"plain", "marked: stored", "marked: stored; done", "100% sure_ly"}[i%4/2+i%3%2*2]
		pages = append(pages, p)
	}
	for i := range 20 { // another crawl's
		p := page("go", "crawl-2", u("b.test", i))
		p.Depth, p.Relevance, p.Decision = 1, 2, store.DecisionRejected
		pages = append(pages, p)
	}
	writePages(t, s, pages)

	want := func(q store.BestPagesQuery) []string {
		var out []store.Page
		for _, p := range pages {
			if p.CrawlID == q.CrawlID && p.Decision == q.Decision && p.Depth >= q.MinDepth && (q.MaxDepth == 0 || p.Depth < q.MaxDepth) &&
				strings.Contains(p.Reason, q.ReasonHas) && !slices.ContainsFunc(q.ReasonLacks, func(l string) bool { return l != "" && strings.Contains(p.Reason, l) }) {
				out = append(out, p)
			}
		}
		slices.SortFunc(out, func(a, b store.Page) int {
			if c := cmp.Compare(b.Relevance, a.Relevance); c != 0 {
				return c
			}
			return cmp.Compare(a.URLHash, b.URLHash)
		})
		return pageKeys(out)
	}
	for _, q := range []store.BestPagesQuery{
		{CrawlID: "crawl-1", Decision: store.DecisionRejected, MinDepth: 1, MaxDepth: 3},
		{CrawlID: "crawl-1", Decision: store.DecisionRejected},
		{CrawlID: "crawl-1", Decision: store.DecisionAccepted, MinDepth: 2},
		{CrawlID: "crawl-1", Decision: store.DecisionRejected, ReasonHas: "marked", ReasonLacks: []string{"done"}},
		{CrawlID: "crawl-1", Decision: store.DecisionRejected, ReasonLacks: []string{"stored"}},
		{CrawlID: "crawl-1", Decision: store.DecisionRejected, ReasonLacks: []string{"stored", "done", ""}},
		{CrawlID: "crawl-1", Decision: store.DecisionRejected, ReasonHas: "%"},
		{CrawlID: "crawl-1", Decision: store.DecisionRejected, ReasonHas: "_"},
		{CrawlID: "crawl-2", Decision: store.DecisionRejected, MinDepth: 1},
		{CrawlID: "crawl-3", Decision: store.DecisionRejected},
	} {
		w := want(q)
		for _, limit := range []int{7, 1000} {
			q.Limit, q.AfterRelevance, q.AfterHash = limit, 0, ""
			var got []store.Page
			for {
				read, err := s.BestPages(ctx, q)
				if err != nil {
					t.Fatalf("BestPages(%+v): %v", q, err)
				}
				if len(read) > limit || len(read) < min(limit, len(w)-len(got)) {
					t.Fatalf("BestPages(%+v) gave %d pages after %d; want %d", q, len(read), len(got), min(limit, len(w)-len(got)))
				}
				if got = append(got, read...); len(read) < limit {
					break
				}
				q.AfterRelevance, q.AfterHash = read[len(read)-1].Relevance, read[len(read)-1].URLHash
			}
			if !slices.Equal(pageKeys(got), w) {
				t.Errorf("BestPages(%+v) read to the end gave %d pages, want %d in order best first:\n got %v\nwant %v", q, len(got), len(w), head(pageKeys(got)), head(w))
			}
			if len(got) > 0 && (got[0].URL == "" || got[0].Topic != "go") {
				t.Errorf("BestPages(%+v): first page %+v; want the whole row", q, got[0])
			}
		}
	}
	if _, err := s.BestPages(ctx, store.BestPagesQuery{CrawlID: "crawl-1", Decision: store.DecisionRejected}); err == nil {
		t.Errorf("BestPages without a limit: no error")
	}
}

// pageKeys lists pages as "score hash" (what BestPages orders by).
func pageKeys(pages []store.Page) []string {
	out := make([]string, len(pages))
	for i, p := range pages {
		out[i] = fmt.Sprintf("%g %s", p.Relevance, p.URLHash)
	}
	return out
}

// head is the first few of keys, for messages.
func head(keys []string) []string { return keys[:min(len(keys), 4)] }

// testDryExpanded: DryExpanded counts by decision the crawl's pages whose
// reason contains the mark — round 1's, not round 10's, whose mark begins
// with it but for the parenthesis; another crawl's not; a mark's LIKE
// wildcards match themselves.
func testDryExpanded(t *testing.T, s store.Store) {
	ctx := t.Context()
	const dry = "; expanded later, when the frontier ran dry"
	mark := func(round string) string { return dry + " (round " + round + ")" }
	var pages []store.Page
	for i, c := range []struct{ crawl, decision, reason string }{
		{"crawl-1", store.DecisionTunnel, "irrelevant: not expanded" + mark("1")},
		{"crawl-1", store.DecisionTunnel, "irrelevant: not expanded" + mark("1")},
		{"crawl-1", store.DecisionAccepted, "target page: stored, not expanded" + mark("1") + "; later note"},
		{"crawl-1", store.DecisionTunnel, "irrelevant: not expanded" + mark("10")},
		{"crawl-1", store.DecisionTunnel, "irrelevant: not expanded" + mark("2")},
		{"crawl-1", store.DecisionTunnel, "irrelevant: not expanded" + dry},
		{"crawl-1", store.DecisionRejected, "irrelevant: not expanded"},
		{"crawl-2", store.DecisionTunnel, "irrelevant: not expanded" + mark("1")},
	} {
		p := page("go", c.crawl, u("a.test", i))
		p.Decision, p.Reason = c.decision, c.reason
		pages = append(pages, p)
	}
	writePages(t, s, pages)
	for _, c := range []struct {
		crawl, mark string
		want        map[string]int
	}{
		{"crawl-1", mark("1"), map[string]int{store.DecisionTunnel: 2, store.DecisionAccepted: 1}},
		{"crawl-1", mark("2"), map[string]int{store.DecisionTunnel: 1}},
		{"crawl-1", dry, map[string]int{store.DecisionTunnel: 5, store.DecisionAccepted: 1}},
		{"crawl-1", mark("_"), map[string]int{}},
		{"crawl-1", mark("%"), map[string]int{}},
		{"crawl-2", mark("1"), map[string]int{store.DecisionTunnel: 1}},
		{"crawl-3", mark("1"), map[string]int{}},
	} {
		got, err := s.DryExpanded(ctx, c.crawl, c.mark)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("DryExpanded(%s, %q) = %v, %v; want %v", c.crawl, c.mark, got, err, c.want)
		}
	}
}
