package activities

import (
	"context"
	"net"
	"strings"
	"sync"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// SeedExploreMark ends the reason of a below-threshold page kept as a
// tunnel because its host is a seed site still being explored
// (exploringHosts).
const SeedExploreMark = "; a seed site's first pages: expanded (crawl.seed_explore)"

// exploringHosts returns the hosts of crawl crawlID of topic t (stored as
// topicName) that are still being explored: the hosts of the topic's seed
// sites (seedSites: a seed's host and its www twin), in the seeds' order,
// while the site has fewer than seedExploreQuota judged pages of the topic
// (host_yield, every worker's count, its hosts summed; fetch failures
// included), and only when the seeds name two sites or more.
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
// Sites that reached the quota are remembered per crawl: judged counts
// only grow while a crawl runs, so they are not asked for again (a
// topic's reset forgets them: exploredHosts.forget).
func (a *Activities) exploringHosts(ctx context.Context, ref crawlapi.BatchRef, t *topic.Topic) ([]string, error) {
	crawlID, topicName := ref.CrawlID, ref.Topic
	sites := seedSites(t.Seeds)
	perSite, pages := a.seedExplore(ref, t.Limits.MaxPages)
	k := seedExploreQuota(perSite, pages, len(sites))
	if k <= 0 || len(sites) < 2 {
		return nil, nil
	}
	done := a.explored.crawl(topicName, crawlID)
	sites = done.left(sites)
	if len(sites) == 0 {
		return nil, nil
	}
	var hosts []string
	for _, s := range sites {
		hosts = append(hosts, s...)
	}
	yields, err := a.Store.HostYields(ctx, topicName, hosts)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range sites {
		judged := 0
		for _, h := range s {
			judged += yields[h].Judged
		}
		if judged >= k {
			done.add(s[0])
			continue
		}
		out = append(out, s...)
	}
	return out, nil
}

// seedExplore returns the crawl.seed_explore and the page budget a crawl's
// slice explores its seed sites by: those the crawl recorded when it
// started (BatchRef.SeedExplore, its budget BatchRef.CrawlPages), so that
// every worker explores alike and a crawl given fewer pages than its topic
// file's (a --max-pages, a refresh's continuation) explores for its own
// budget; for a slice from before they were recorded, this worker's
// setting and the topic file's limits.max_pages (fileMaxPages).
func (a *Activities) seedExplore(ref crawlapi.BatchRef, fileMaxPages int) (perSite, pages int) {
	perSite, pages = a.CrawlCfg.SeedExplore, fileMaxPages
	if ref.SeedExplore != nil {
		perSite = *ref.SeedExplore
	}
	if ref.CrawlPages > 0 {
		pages = ref.CrawlPages
	}
	return perSite, pages
}

// seedExploreQuota is how many judged pages each of sites seed sites is
// explored for: crawl.seed_explore, but at most a quarter of the crawl's
// page budget (maxPages; 0: none) shared among them, and at least
// one page each — exploration is a toll on every site the topic does not
// live on, and a small budget cannot pay much of it.
func seedExploreQuota(perSite, maxPages, sites int) int {
	if perSite <= 0 || sites == 0 {
		return 0
	}
	if maxPages > 0 {
		return max(1, min(perSite, maxPages/(4*sites)))
	}
	return perSite
}

// seedSites returns the sites of seeds, in order, each as its hosts: the
// seed's host and its www twin (urlnorm.SameSite), since a site's links
// and redirects move between the two — seeds on example.org and
// www.example.org are one site, and a seed on a.org whose front page
// redirects to www.a.org is explored there. Seeds that do not normalise
// are left out (the topic's validation reports them).
func seedSites(seeds []string) [][]string {
	var sites [][]string
	seen := map[string]bool{}
	for _, s := range seeds {
		n, err := urlnorm.Normalize(s)
		if err != nil {
			continue
		}
		h := urlnorm.Host(n)
		bare := strings.TrimPrefix(h, "www.")
		if h == "" || bare == "" || seen[bare] {
			continue
		}
		seen[bare] = true
		if strings.Contains(bare, ":") || net.ParseIP(bare) != nil {
			sites = append(sites, []string{h}) // no www twin of an address or a host:port
			continue
		}
		sites = append(sites, []string{bare, "www." + bare})
	}
	return sites
}

// exploredHosts remembers, per topic and crawl, the seed sites (by their
// first host) that have had their share of exploration (exploringHosts).
type exploredHosts struct {
	mu sync.Mutex
	m  map[[2]string]*hostsDone
}

// crawl returns the set of crawl crawlID of topic topicName.
func (e *exploredHosts) crawl(topicName, crawlID string) *hostsDone {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m == nil {
		e.m = map[[2]string]*hostsDone{}
	}
	k := [2]string{topicName, crawlID}
	d := e.m[k]
	if d == nil {
		d = &hostsDone{m: map[string]bool{}}
		e.m[k] = d
	}
	return d
}

// forget drops what is remembered of topicName's crawls: its judged
// counts were deleted (a --fresh crawl's ResetTopic), so a crawl ID seen
// before (a reset workflow's run) starts its exploration over.
func (e *exploredHosts) forget(topicName string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k := range e.m {
		if k[0] == topicName {
			delete(e.m, k)
		}
	}
}

// hostsDone is one crawl's explored seed sites.
type hostsDone struct {
	mu sync.Mutex
	m  map[string]bool
}

func (d *hostsDone) add(h string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m[h] = true
}

// left returns the sites not done.
func (d *hostsDone) left(sites [][]string) [][]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out [][]string
	for _, s := range sites {
		if !d.m[s[0]] {
			out = append(out, s)
		}
	}
	return out
}
