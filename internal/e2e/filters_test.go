package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
)

// TestPageFilters crawls the loopback test site once with every page filter
// of issue 3 and checks that the on-topic (rose) pages are accepted and the
// off-topic (football) pages are not, with the score and the deciding
// filter recorded for every judged page.
func TestPageFilters(t *testing.T) {
	const noPrune = "  prune: false\n"
	site := newTestSite(t, 0)
	// The tunnel case's budget must stay below the site's size.
	const tunnelBudget = 24
	if n := site.htmlPages(); n <= tunnelBudget {
		t.Fatalf("test site has %d HTML pages, not more than the tunnel case's budget %d", n, tunnelBudget)
	}
	e := newEnv(t, site)
	e.startWorker("worker")
	on := map[string]bool{}
	for _, u := range site.onTopic {
		on[u] = true
	}
	for _, tc := range []struct {
		name, filter string
		extra        string // appended to the strategy section
		top          string // added at the top level
		maxWrong     int    // off-topic pages the filter may accept
		minRecall    float64
		budget       int // max_pages; 0 = 200 (more than the site: the filter cases judge every page)
	}{
		// Seed 001's θ = 0.3 also accepts the football home page: its only
		// topical words are the rose anchor texts linking to the garden site,
		// and a cosine restricted to topic features ignores everything else
		// on the page. 0.4 separates this site.
		//
		// The filter cases set prune: false: the Chinese site is reachable
		// only through rejected football pages, and these cases test the
		// filters' judgements, not the loop policy (the tunnel and
		// detail-page cases below, and relevance/loop_test.go, do that).
		{"semantic", "{name: semantic, threshold: 0.4}", noPrune, "", 0, 0.9, 0},
		{"bayes", "{name: bayes, vsm_threshold: 0.12, min_negatives: 3, every: 4}", noPrune, "", 1, 0.8, 0},
		// BFC starts from sample pages, one per site (seed 004: 3 sites × 1
		// page); without the Chinese sample the promoted library would be
		// English only and the Chinese rose pages would share no terms with it.
		{"sample-rank", "{name: sample-rank, every: 4, promote: 2}", noPrune,
			"samples: [http://www.garden.test/roses/1.html, http://www.huayuan.test/meigui/1.html]\n", 1, 0.8, 0},
		{"url-template", "{name: url-template, threshold: 0.12}", noPrune, "", 0, 0.9, 0},
		// Tunnels: rejected pages are only expanded when the seeded draw keeps
		// them, so the Chinese site (reachable only through football pages) is
		// partly lost; the test checks that pages were tunnelled. The budget
		// (24) is below the site's 30 HTML pages, so the crawl cannot reach
		// the tunnel by simply fetching everything.
		{"vsm-tunnel", "{name: vsm, threshold: 0.12}", "  tunnel: 0.5\n  seed: 7\n", "", 0, 0.6, tunnelBudget},
		{"detail-page", "{name: vsm, threshold: 0.12}", "  detail_page: true\n", "", 0, 0.6, 0},
		// The dynamic threshold (seed 000 §4, opt-in) in a real crawl: its
		// rounds read the crawl's last pages and out-links from the store
		// (store.RecentPages, store.OutLinks) while the crawl runs.
		{"vsm-dynamic", "{name: vsm, threshold: 0.12}", noPrune + "  dynamic_threshold: {enabled: true, every: 4, window: 4}\n", "", 1, 0.8, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			budget := tc.budget
			if budget == 0 {
				budget = 200
			}
			yaml := tc.top + site.topicYAML("f-"+tc.name, budget)
			yaml = strings.Replace(yaml, "strategy: {page_filter: {name: vsm, threshold: 0.12}, link_predictor: best-first, prune: false}",
				"strategy:\n  page_filter: "+tc.filter+"\n  link_predictor: best-first\n"+tc.extra, 1)
			run := e.startTopic("f-"+tc.name, yaml)
			res := e.wait(run, 90*time.Second)
			st := e.openStore()
			accepted, wrong, onFetched, tunnels, self, shaped := 0, 0, 0, 0, 0, 0
			var log []string
			err := st.CrawlLog(context.Background(), run.GetID(), func(p store.Page) error {
				log = append(log, p.URL+" "+p.Decision+" "+p.Filter+" "+p.Reason)
				if on[p.URL] {
					onFetched++
				}
				if strings.HasPrefix(tc.filter, "{name: "+p.Filter+",") {
					self++ // decided by the filter itself, not a cold-start or fallback delegate
				}
				if strings.Contains(p.Reason, "target page") || strings.Contains(p.Reason, "hub page") {
					shaped++
				}
				switch p.Decision {
				case store.DecisionAccepted:
					if on[p.URL] {
						accepted++
					} else {
						wrong++
					}
				case store.DecisionTunnel:
					// Kept by the draw: a crawl whose frontier runs dry
					// makes tunnels of its pruned pages too (ExpandPruned),
					// which say nothing of the tunnel probability.
					if strings.Contains(p.Reason, "kept as tunnel") {
						tunnels++
					}
				}
				if (p.Decision == store.DecisionAccepted || p.Decision == store.DecisionRejected || p.Decision == store.DecisionTunnel) &&
					(p.Filter == "" || p.Reason == "") {
					t.Errorf("%s judged without filter or reason: %+v", p.URL, p)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			recall := float64(accepted) / float64(len(site.onTopic))
			if wrong > tc.maxWrong || recall < tc.minRecall {
				t.Errorf("%s: %d/%d on-topic pages accepted (%d fetched), %d off-topic accepted (crawl: %s)\n%s",
					tc.name, accepted, len(site.onTopic), onFetched, wrong, res.Reason, strings.Join(log, "\n"))
			}
			if self == 0 {
				t.Errorf("no page was decided by %s itself:\n%s", tc.filter, strings.Join(log, "\n"))
			}
			if tc.name == "detail-page" && shaped == 0 {
				t.Errorf("detail_page set but no decision names a target or hub page:\n%s", strings.Join(log, "\n"))
			}
			if tc.budget > 0 && len(log) > tc.budget {
				t.Errorf("fetched %d pages, budget %d", len(log), tc.budget)
			}
			if strings.Contains(tc.name, "tunnel") && tunnels == 0 {
				t.Errorf("tunnel p = 0.5 kept no below-threshold page:\n%s", strings.Join(log, "\n"))
			}
			if tc.name == "vsm-dynamic" {
				var ds relevance.DynamicState
				data, _, err := st.Model(context.Background(), "f-"+tc.name, relevance.DynamicStateKind, 0)
				if err == nil {
					err = json.Unmarshal(data, &ds)
				}
				if err != nil || ds.CrawlID != run.GetID() || ds.Round < 2 || ds.Evaluated == 0 {
					t.Errorf("dynamic threshold state %+v, %v; want rounds of this crawl with evaluated pages", ds, err)
				}
			}
		})
	}
}
