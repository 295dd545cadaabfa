package activities

import (
	"context"
	"net/url"
	"sort"

	"focuscrawl/internal/fetch"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/sitemap"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// Sitemap discovery (topic.Sitemaps; focuscrawl's design, docs/algorithms.md
// "Sitemap discovery"): when a crawl starts, the sitemaps of its seed hosts
// are read and the URLs they list whose words match the topic are queued.
// A sitemap entry carries no anchor text and no page links to it yet, so its
// priority is half the cosine of its URL words against the topic — best-first's
// score of a link whose text is its URL, with no parent evidence (λ = ½) —
// below every seed; an entry whose URL shares no word with the topic is not
// queued at all (links find it if it matters). Sitemaps are hints: a file
// that cannot be fetched or parsed is logged and skipped, and the crawl
// starts from its seeds whatever the sitemaps say.

// sitemapTypes are the media types sitemaps come as, accepted for sitemap
// requests only (text/plain, a text sitemap, is a page type already).
var sitemapTypes = []string{"application/xml", "text/xml", "application/gzip", "application/x-gzip", "application/octet-stream"}

// sitemapEntry is a URL a sitemap listed, with its priority.
type sitemapEntry struct {
	url   string
	score float64
}

// discoverSitemaps reads the sitemaps of t's seed hosts (each host once, in
// seed order) and queues their matching URLs for crawl crawlID; it returns
// the entries added. Only a canceled ctx or a store failure is an error.
func (a *Activities) discoverSitemaps(ctx context.Context, crawlID string, t *topic.Topic, m *topic.Model) (int, error) {
	added := 0
	seen := map[string]bool{}
	for _, s := range t.Seeds {
		root, ok := rootOf(s)
		if !ok || seen[root] || !t.InScope(urlnorm.Host(root)) {
			continue
		}
		seen[root] = true
		entries := a.hostSitemaps(ctx, t, m, root)
		if err := ctx.Err(); err != nil {
			return added, err
		}
		n, err := a.enqueueSitemapEntries(ctx, crawlID, t, entries)
		if err != nil {
			return added, err
		}
		a.Log.Info("sitemap URLs queued", "crawl", crawlID, "host", urlnorm.Host(root), "matching", len(entries), "queued", n)
		added += n
	}
	return added, nil
}

// hostSitemaps reads the sitemaps root's robots.txt lists (root + sitemap.xml
// when it lists none), following sitemap indexes breadth first, at most
// t.Sitemaps.Files() files, and returns up to t.Sitemaps.URLs() entries on
// root's host that robots.txt allows and whose URL words match the topic,
// best first.
func (a *Activities) hostSitemaps(ctx context.Context, t *topic.Topic, m *topic.Model, root string) []sitemapEntry {
	host := urlnorm.Host(root)
	// robots.txt is a request to its host: booked as politeDo books it.
	if _, err := a.robotsSlot(ctx, host, root); err != nil {
		return nil
	}
	files, err := a.Fetcher.Sitemaps(a.traceSends(ctx, host), root, a.paceRequest)
	if err != nil {
		a.Log.Warn("robots.txt not readable for sitemaps", "host", host, "error", err)
		return nil
	}
	if len(files) == 0 {
		files = []string{root + "sitemap.xml"}
	}
	rules, err := a.Fetcher.Robots(ctx, root) // cached now
	if err != nil {
		return nil
	}
	limit := t.Sitemaps.URLs()
	var out []sitemapEntry
	seenFile, seenURL := map[string]bool{}, map[string]bool{}
	read := 0
	for len(files) > 0 && read < t.Sitemaps.Files() && len(out) < limit {
		f := files[0]
		files = files[1:]
		n, err := urlnorm.Normalize(f)
		if err != nil || seenFile[n] {
			continue
		}
		seenFile[n] = true
		read++
		resp, err := a.politeDo(ctx, urlnorm.Host(n), fetch.Request{URL: n, ExtraTypes: sitemapTypes})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			a.Log.Warn("sitemap not fetched", "url", n, "error", err)
			continue
		}
		res, err := sitemap.Parse(resp.Body, sitemap.Limits{})
		if err != nil {
			a.Log.Warn("sitemap not usable", "url", n, "error", err)
			continue
		}
		if res.Truncated || res.Skipped > 0 {
			a.Log.Info("sitemap read in part", "url", n, "truncated", res.Truncated, "skipped", res.Skipped)
		}
		files = append(files, res.Sitemaps...)
		for _, e := range res.URLs {
			u, err := urlnorm.Normalize(e.Loc)
			// A sitemap lists its own host's URLs (sitemaps.org, cross
			// submission through robots.txt included).
			if err != nil || seenURL[u] || urlnorm.Host(u) != host {
				continue
			}
			seenURL[u] = true
			if pu, err := url.Parse(u); err != nil || (a.FetchCfg.RespectRobots && !rules.Allowed(pu.RequestURI())) {
				continue
			}
			if s := linkpred.BestLinkText(m, nil, a.Tok, []linkpred.Link{{URL: u}}); s > 0 {
				out = append(out, sitemapEntry{u, s / 2})
				if len(out) >= limit {
					break
				}
			}
		}
		heartbeat(ctx, "sitemaps", read, len(out))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// enqueueSitemapEntries queues entries (best first, so the per-host cap
// keeps the best) with strategy "sitemap"; known URLs are left as they are.
func (a *Activities) enqueueSitemapEntries(ctx context.Context, crawlID string, t *topic.Topic, entries []sitemapEntry) (int, error) {
	if len(entries) == 0 {
		return 0, nil
	}
	maxPerHost := t.Limits.MaxPagesPerHost
	if maxPerHost == 0 {
		maxPerHost = a.CrawlCfg.MaxFrontierPerHost
	}
	fe := make([]store.FrontierEntry, len(entries))
	for i, e := range entries {
		fe[i] = store.FrontierEntry{Topic: t.Name, URLHash: urlnorm.Hash(e.url), URL: e.url, Host: urlnorm.Host(e.url),
			Priority: e.score, Strategy: "sitemap", CrawlID: crawlID}
	}
	return a.Store.Enqueue(ctx, fe, store.EnqueueOptions{MaxPerHost: maxPerHost})
}
