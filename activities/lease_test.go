package activities

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// slowChainTopicYAML is a crawl of slowChainSite: its seed and the hosts it
// links to.
const slowChainTopicYAML = `name: roses
language: en
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8}
seeds: [http://a.test/]
samples: [http://a.test/]
scope: {hosts: [a.test, h1.test, h2.test, h3.test, h4.test, h5.test, h6.test]}
limits: {max_pages: 50}
strategy: {page_filter: {name: vsm, threshold: 0.12}, accept: threshold, link_predictor: best-first, prune: false}
`

// slowChainSite serves a seed on a.test linking to the first page of six
// hosts h1.test … h6.test, each of whose pages 1 to 4 links to the next;
// every page takes delay to answer (robots.txt is answered at once, 404).
func slowChainSite(t *testing.T, delay time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		time.Sleep(delay)
		host, _, _ := strings.Cut(r.Host, ":")
		var links []string
		switch {
		case host == "a.test" && r.URL.Path == "/":
			for h := 1; h <= 6; h++ {
				links = append(links, fmt.Sprintf("http://h%d.test/1", h))
			}
		case strings.HasPrefix(host, "h"):
			var i int
			if _, err := fmt.Sscanf(r.URL.Path, "/%d", &i); err != nil || i < 1 || i > 4 {
				break
			}
			links = append(links, fmt.Sprintf("http://%s/%d", host, i+1))
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!DOCTYPE html><html lang=en><head><title>Roses</title></head><body><p>%s</p><ul>", roseText(len(links)))
		for _, l := range links {
			fmt.Fprintf(w, "<li><a href=%q>more roses</a></li>", l)
		}
		fmt.Fprint(w, "</ul></body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestLapsedLeasesKeepTheBudget: with a lease far shorter than a fetch,
// every claim runs out under its fetch, and the slice's next claim (a poll
// tick while hosts are free) puts the entry back in the queue; the slice
// still fetches, saves and completes the page. Slices are run one after
// another as the crawl workflow runs them, each allotted what the earlier
// ones' store counts (BatchStats.Claimed) leave of the budget. Before, the
// lapsed claims dropped out of those counts — the page was completed under
// no batch — so every slice reported almost nothing spent and the next
// one was given the budget again: the 256 pages of a budget of 40 that a
// crawl with a 2 s lease fetched. Now each page fetched counts once, in
// the batch that fetched it, and the crawl stops at its budget. (The
// configuration refuses such a lease; the test sets it on the slice's
// input. Whether a claim runs out depends on timing; the assertions are on
// counts only, which must hold either way.)
func TestLapsedLeasesKeepTheBudget(t *testing.T) {
	srv := slowChainSite(t, 400*time.Millisecond) // two of the slice's 200 ms poll ticks
	a := workerActivities(t, serverConfig(t, srv))
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: slowChainTopicYAML})
	if err != nil {
		t.Fatal(err)
	}
	const budget = 8
	claimed, fetched := 0, 0
	for i := 1; claimed < budget && i <= 10; i++ {
		in := sliceInput(r, fmt.Sprintf("s%06d", i), budget-claimed)
		in.Lease = time.Millisecond
		var res crawlapi.SliceResult
		if err := runActivity(a, crawlapi.CrawlSlice.Name, in, &res); err != nil {
			t.Fatalf("slice %d: %v", i, err)
		}
		claimed += res.Stats.Claimed
		fetched += res.Stats.Fetched
		if res.Exhausted {
			break
		}
	}
	pages := 0
	if err := a.Store.CrawlLog(t.Context(), "c1", func(store.Page) error {
		pages++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if pages > budget {
		t.Errorf("%d pages fetched on a budget of %d (the slices counted %d claims)", pages, budget, claimed)
	}
	if claimed != pages || fetched != pages {
		t.Errorf("the slices counted %d claims and %d pages fetched; want each of the %d pages once", claimed, fetched, pages)
	}
}
