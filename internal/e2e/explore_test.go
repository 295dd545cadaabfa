package e2e

import (
	"fmt"
	"strings"
	"testing"

	"focuscrawl/internal/store"
)

// newTwoSeedSite is a web of two seed sites where the topic lives on the
// one whose front page says nothing (crawl.seed_explore):
//
//	www.gardenweather.test/   a weather site that mentions gardens: 30 links
//	                          "garden weather report N" to weather pages
//	www.roses.test/           a frame set: two frame links, no anchor text
//	www.roses.test/toc.html   its table of contents → 6 rose pages
//	www.roses.test/r/N.html   the topic
//
// 41 pages; the crawl's budget of 24 is less than the weather site alone.
func newTwoSeedSite(t *testing.T) *testSite {
	t.Helper()
	s := &testSite{pages: map[string]sitePage{}}
	add := s.addHTML
	var wl [][2]string
	for i := 1; i <= 30; i++ {
		wl = append(wl, [2]string{fmt.Sprintf("/w/%d.html", i), fmt.Sprintf("garden weather report %d", i)})
		add(fmt.Sprintf("www.gardenweather.test/w/%d.html", i), htmlPage("Weather "+sentence(weatherWords, i, 3, " "), "",
			"garden "+sentence(weatherWords, i, 80, " "), nil), false)
	}
	add("www.gardenweather.test/", htmlPage("Garden weather", "", "garden "+sentence(weatherWords, 0, 60, " "), wl), false)
	add("www.roses.test/", `<!DOCTYPE html><html><head><title>Handbook</title></head>
<frameset cols="25%,75%"><frame src="toc.html"><frame src="cover.html"></frameset></html>`, false)
	add("www.roses.test/cover.html", htmlPage("Welcome", "", "This handbook is maintained by volunteers.", nil), false)
	var rl [][2]string
	for i := 1; i <= 6; i++ {
		rl = append(rl, [2]string{fmt.Sprintf("r/%d.html", i), "rose pruning guide " + sentence(roseWords, i, 2, " ")})
		add(fmt.Sprintf("www.roses.test/r/%d.html", i), htmlPage("Roses "+sentence(roseWords, i, 3, " "), "",
			sentence(roseWords, i, 80, " "), nil), true)
	}
	add("www.roses.test/toc.html", htmlPage("Contents", "", "Contents of the handbook.", rl), false)
	s.start(t)
	return s
}

// TestSeedSitesExplored: a crawl seeded on two sites looks at both. The
// weather site's links carry a topic word and the rose site's front page
// is a frame set whose links carry none, so with the claim ratio alone
// the crawl spends its whole budget on the weather site; exploring each
// seed site's first pages (the default) reaches the rose pages behind the
// frame set's table of contents, which pruning alone would not expand.
func TestSeedSitesExplored(t *testing.T) {
	const budget = 24
	topic := fmt.Sprintf(`name: %%s
language: en
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8}
seeds: [http://www.gardenweather.test/, http://www.roses.test/]
limits: {max_pages: %d}
`, budget)
	for _, tc := range []struct {
		name    string
		env     []string
		explore bool
	}{
		{"explored", nil, true},
		{"not-explored", []string{"FOCUSCRAWL_CRAWL_SEED_EXPLORE=0"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := newTwoSeedSite(t)
			e := newEnv(t, site, tc.env...)
			e.startWorker("worker")
			name := "two-seeds-" + tc.name
			st, pages := runTopic(t, e, name, fmt.Sprintf(topic, name))
			roses, marked := 0, 0
			for _, p := range pages {
				if strings.HasPrefix(p.URL, "http://www.roses.test/r/") && p.Decision == store.DecisionAccepted {
					roses++
				}
				if strings.Contains(p.Reason, "a seed site's first pages") {
					marked++
				}
			}
			t.Logf("%s: fetched %d, accepted %d, rose pages accepted %d, exploration tunnels %d", tc.name, len(pages), st.Accepted, roses, marked)
			if len(pages) > budget || st.LastError != "" {
				t.Fatalf("fetched %d pages (budget %d), last error %q", len(pages), budget, st.LastError)
			}
			if tc.explore && (roses < 3 || marked == 0) {
				t.Fatalf("exploring: %d rose pages accepted, %d exploration tunnels; want ≥ 3 and some", roses, marked)
			}
			if !tc.explore && (roses > 0 || marked > 0) {
				t.Fatalf("without exploration: %d rose pages accepted, %d exploration tunnels; want none (the weather site's links outscore the frame set's)", roses, marked)
			}
		})
	}
}
