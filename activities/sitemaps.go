package activities

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"time"

	"focuscrawl/internal/fetch"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/robots"
	"focuscrawl/internal/sitemap"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// Sitemap discovery (topic.Sitemaps; focuscrawl's design, docs/algorithms.md
// "Sitemap discovery"): when a crawl starts, the sitemaps of its seed hosts
// are read and the URLs they list whose words match the topic are queued.
// A sitemap entry carries no anchor text and no page links to it yet, so its
// priority is the cosine of its URL words against the topic scaled far down
// (sitemapWeight), below the links judged pages give evidence for; an entry
// whose URL shares no word with the topic is not queued at all (links find
// it if it matters).
// Sitemaps are hints: a file that cannot be fetched or parsed is logged and
// skipped, and the crawl starts from its seeds whatever the sitemaps say.

// sitemapTypes are the media types sitemaps come as, accepted for sitemap
// requests only (text/plain, a text sitemap, is a page type already).
var sitemapTypes = []string{"application/xml", "text/xml", "application/gzip", "application/x-gzip", "application/octet-stream"}

const (
	// sitemapBudget bounds the time sitemap discovery takes in StartCrawl
	// (whose attempt may take 10 minutes, samples included): what was found
	// by then is queued, and the crawl starts. A host with a long
	// Crawl-delay and many files must not keep a crawl from starting.
	sitemapBudget = 3 * time.Minute
	// sitemapMaxBytes bounds a sitemap file decompressed (the protocol
	// allows 50 MB; a gzip file of fetch.max_body_bytes could inflate to
	// that and more): entries past it are not read.
	sitemapMaxBytes = 16 << 20
)

// sitemapWeight scales an entry's URL-word cosine into its priority: low
// enough that entries are hints, claimed after the links a judged page
// gives evidence for. Measured on the focus evaluation's tuning half with
// generated sitemaps (docs/evaluation.md, *Sitemaps*): at ½ (best-first's
// score of a link whose only text is its URL) the entries went ahead of
// better-evidenced links and cost the two large topics early recall
// (recall@B/2 0.879 → 0.724, 0.804 → 0.738); at 0.05 no topic lost it.
const sitemapWeight = 0.05

// sitemapEntry is a URL a sitemap listed, with its priority.
type sitemapEntry struct {
	url   string
	score float64
}

// discoverSitemaps reads the sitemaps of t's seed hosts (each host once, in
// seed order, within sitemapBudget) and queues their matching URLs for
// crawl crawlID; it returns the entries added. Only the caller's canceled
// ctx or a store failure is an error.
func (a *Activities) discoverSitemaps(ctx context.Context, crawlID string, t *topic.Topic, m *topic.Model) (int, error) {
	// A polite request can wait fetch.max_host_delay and take
	// fetch.max_fetch_time: beat meanwhile, as the sample fetches do.
	stop := heartbeatEvery(ctx, 2*time.Second, func() any { return "reading sitemaps" })
	defer stop()
	dctx, cancel := context.WithTimeout(ctx, sitemapBudget)
	defer cancel()
	score := linkpred.LinkTextScorer(m, nil, a.Tok)
	added := 0
	seen := map[string]bool{}
	for _, s := range t.Seeds {
		root, ok := rootOf(s)
		host := urlnorm.Host(root)
		if !ok || seen[host] || !t.InScope(host) {
			continue
		}
		seen[host] = true
		if dctx.Err() != nil {
			a.Log.Warn("sitemap discovery out of time; the host's sitemaps are not read", "crawl", crawlID, "host", host, "budget", sitemapBudget)
			continue
		}
		entries := a.hostSitemaps(dctx, t, score, root)
		if err := ctx.Err(); err != nil {
			return added, err
		}
		// Queued with the caller's ctx: entries found before the budget
		// ran out are kept.
		n, err := a.enqueueSitemapEntries(ctx, crawlID, t, entries)
		if err != nil {
			return added, err
		}
		a.Log.Info("sitemap URLs queued", "crawl", crawlID, "host", host, "matching", len(entries), "queued", n)
		added += n
	}
	return added, nil
}

// hostSitemaps reads the sitemaps root's robots.txt lists (root +
// sitemap.xml when it lists none, or when robots.txt is not read:
// fetch.respect_robots off), following sitemap indexes breadth first, at
// most t.Sitemaps.Files() files in the topic's scope, and returns up to
// t.Sitemaps.URLs() entries that robots.txt allows and whose URL words
// match the topic (score), best first. An entry must be on root's host or
// on the host that served its sitemap (sitemaps.org: a sitemap lists its
// own host's URLs; robots.txt's cross submission makes that the seed's).
func (a *Activities) hostSitemaps(ctx context.Context, t *topic.Topic, score func(linkpred.Link) float64, root string) []sitemapEntry {
	host := urlnorm.Host(root)
	files := []string{root + "sitemap.xml"}
	var rules *robots.Rules
	var robotsAt time.Time
	if a.FetchCfg.RespectRobots {
		// robots.txt is a request to its host, booked as politeDo books it;
		// the first sitemap request comes the host's delay after it.
		var err error
		if robotsAt, err = a.robotsSlot(ctx, host, root); err != nil {
			return nil
		}
		listed, err := a.Fetcher.Sitemaps(a.traceSends(ctx, host), root, a.paceRequest)
		if err != nil {
			a.Log.Warn("robots.txt not readable for sitemaps", "host", host, "error", err)
			return nil
		}
		if len(listed) > 0 {
			files = resolveAll(root+"robots.txt", listed)
		}
		if rules, err = a.Fetcher.Robots(ctx, root); err != nil { // cached now
			return nil
		}
	}
	maxFiles, limit := t.Sitemaps.Files(), t.Sitemaps.URLs()
	var out []sitemapEntry
	seenFile, seenURL := map[string]bool{}, map[string]bool{}
	read := 0
	for len(files) > 0 && read < maxFiles && len(out) < limit && ctx.Err() == nil {
		f := files[0]
		files = files[1:]
		n, err := urlnorm.Normalize(f)
		if err != nil || seenFile[n] {
			continue
		}
		seenFile[n] = true
		if !t.InScope(urlnorm.Host(n)) {
			a.Log.Info("sitemap outside the topic's scope, not read", "url", n, "listed_for", host)
			continue
		}
		read++
		resp, err := a.politeDoAfter(ctx, urlnorm.Host(n), fetch.Request{URL: n, ExtraTypes: sitemapTypes}, robotsAt)
		robotsAt = time.Time{} // only the first request follows robots.txt's
		if err != nil {
			if ctx.Err() == nil {
				a.Log.Warn("sitemap not fetched", "url", n, "error", err)
			}
			continue
		}
		res, err := sitemap.Parse(resp.Body, sitemap.Limits{MaxBytes: sitemapMaxBytes})
		if err != nil {
			a.Log.Warn("sitemap not usable", "url", n, "error", err)
			continue
		}
		if res.Truncated || res.Skipped > 0 {
			a.Log.Info("sitemap read in part", "url", n, "truncated", res.Truncated, "skipped", res.Skipped)
		}
		// Child sitemaps beyond the files left to read are never read:
		// not kept either.
		for _, c := range resolveAll(resp.FinalURL, res.Sitemaps) {
			if len(files) >= maxFiles-read {
				break
			}
			files = append(files, c)
		}
		served := urlnorm.Host(resp.FinalURL)
		dropped := 0
		for _, e := range res.URLs {
			u, err := urlnorm.Normalize(e.Loc)
			if err != nil || seenURL[u] {
				continue
			}
			if h := urlnorm.Host(u); h != host && h != served || !t.InScope(h) {
				dropped++
				continue
			}
			if pu, err := url.Parse(u); err != nil || (rules != nil && !rules.Allowed(pu.RequestURI())) {
				continue
			}
			if s := score(linkpred.Link{URL: u}); s > 0 {
				seenURL[u] = true
				out = append(out, sitemapEntry{u, s * sitemapWeight})
				if len(out) >= limit {
					break
				}
			}
		}
		if dropped > 0 {
			a.Log.Info("sitemap entries on other hosts not queued", "url", n, "dropped", dropped, "host", host)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// resolveAll resolves refs (robots.txt Sitemap lines, sitemap index
// entries) against base; those that do not parse are dropped.
func resolveAll(base string, refs []string) []string {
	b, err := url.Parse(base)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		if u, err := b.Parse(r); err == nil {
			out = append(out, u.String())
		}
	}
	return out
}

// enqueueSitemapEntries queues entries (best first, so the per-host cap
// keeps the best) with strategy "sitemap" at depth 1 (one step from the
// seed, as a link of its page would be); known URLs are left as they are.
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
			Depth: 1, Priority: e.score, Strategy: "sitemap", CrawlID: crawlID}
	}
	n, err := a.Store.Enqueue(ctx, fe, store.EnqueueOptions{MaxPerHost: maxPerHost})
	if err != nil {
		return 0, fmt.Errorf("queue sitemap URLs: %w", err)
	}
	return n, nil
}
