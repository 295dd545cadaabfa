package activities

import (
	"context"
	"sync"

	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// SeedExploreMark ends the reason of a below-threshold page kept as a
// tunnel because its host is a seed site still being explored
// (exploringHosts).
const SeedExploreMark = "; a seed site's first pages: expanded (crawl.seed_explore)"

// exploringHosts returns the seed hosts of crawl crawlID of topic t (stored
// as topicName) that are still being explored: the hosts of the topic's
// seeds, in the seeds' order, while each has fewer than seedExploreQuota
// judged pages of the topic (host_yield, every worker's count; fetch
// failures included), and only when the seeds name two hosts or more.
// While a host explores, a claim takes its best entry below the claim
// ratio (store.ClaimRequest.ExploreHosts) and its pages are expanded
// whatever their decision (SeedExploreMark).
//
// Why: the claim ratio (crawl.claim_ratio) lets a free host take its best
// entry only when it scores near the frontier's best — best-first over one
// global queue, as seed 000 has it — and pruning (seed 000) follows no
// link of a rejected page. With seeds on several sites, a site whose entry
// pages score low got nothing: a trial's three-site crawl gave Apache
// Ant's manual, the site holding the topic, 1 fetch of 300 — its front
// page is a frame set whose frame links carry no anchor text, and its
// table of contents, rejected as off-topic navigation, was pruned
// (docs/evaluation.md). A user who names several sites expects each to be
// looked at; a few judged pages of each, followed, give its own links
// their real scores, and afterwards the site competes like any other (and
// sinks, through host_yield, if its pages were rejected). One seed host
// has nothing to be balanced against, so single-site crawls run as before.
// focuscrawl's own rule; no seed document has it.
//
// Hosts that reached the quota are remembered per crawl: judged counts
// only grow while a crawl runs, so they are not asked for again.
func (a *Activities) exploringHosts(ctx context.Context, crawlID, topicName string, t *topic.Topic) ([]string, error) {
	hosts := seedHosts(t.Seeds)
	k := seedExploreQuota(a.CrawlCfg.SeedExplore, t.Limits.MaxPages, len(hosts))
	if k <= 0 || len(hosts) < 2 {
		return nil, nil
	}
	done := a.explored.crawl(crawlID)
	hosts = done.left(hosts)
	if len(hosts) == 0 {
		return nil, nil
	}
	yields, err := a.Store.HostYields(ctx, topicName, hosts)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, h := range hosts {
		if yields[h].Judged >= k {
			done.add(h)
			continue
		}
		out = append(out, h)
	}
	return out, nil
}

// seedExploreQuota is how many judged pages each of hosts seed hosts is
// explored for: crawl.seed_explore, but at most a quarter of the topic's
// page budget (limits.max_pages; 0: none) shared among them, and at least
// one page each — exploration is a toll on every site the topic does not
// live on, and a small budget cannot pay much of it.
func seedExploreQuota(perHost, maxPages, hosts int) int {
	if perHost <= 0 || hosts == 0 {
		return 0
	}
	if maxPages > 0 {
		return max(1, min(perHost, maxPages/(4*hosts)))
	}
	return perHost
}

// seedHosts returns the distinct hosts of seeds, in order; seeds that do
// not normalise are left out (the topic's validation reports them).
func seedHosts(seeds []string) []string {
	var hosts []string
	seen := map[string]bool{}
	for _, s := range seeds {
		n, err := urlnorm.Normalize(s)
		if err != nil {
			continue
		}
		if h := urlnorm.Host(n); h != "" && !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// exploredHosts remembers, per crawl, the seed hosts that have had their
// share of exploration (exploreHosts).
type exploredHosts struct {
	mu sync.Mutex
	m  map[string]*hostsDone
}

// crawl returns the crawl's set.
func (e *exploredHosts) crawl(id string) *hostsDone {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m == nil {
		e.m = map[string]*hostsDone{}
	}
	d := e.m[id]
	if d == nil {
		d = &hostsDone{m: map[string]bool{}}
		e.m[id] = d
	}
	return d
}

// hostsDone is one crawl's explored seed hosts.
type hostsDone struct {
	mu sync.Mutex
	m  map[string]bool
}

func (d *hostsDone) add(h string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m[h] = true
}

// left returns hosts without the ones done.
func (d *hostsDone) left(hosts []string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, h := range hosts {
		if !d.m[h] {
			out = append(out, h)
		}
	}
	return out
}
