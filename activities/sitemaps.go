package activities

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"focuscrawl/internal/fetch"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/sitemap"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// Sitemap discovery (topic.Sitemaps; focuscrawl's design, docs/algorithms.md
// "Sitemap discovery"): when a crawl starts, the sitemaps of its seed hosts
// are read and the URLs they list whose words match the topic are queued;
// a topic update reads those of seed hosts not read yet (updateSitemaps).
// A sitemap entry carries no anchor text and no page links to it yet, so its
// priority is the cosine of its URL words against the topic scaled far down
// (sitemapWeight), below the links judged pages give evidence for; an entry
// whose URL shares no word with the topic is not queued at all (links find
// it if it matters).
// Sitemaps are hints: a file that cannot be fetched or parsed is logged and
// skipped, and the crawl starts from its seeds whatever the sitemaps say.

// sitemapTypes are the media types sitemaps come as, accepted for sitemap
// requests only (text/plain, a text sitemap, is a page type already); RSS
// and Atom feeds are sitemaps too.
var sitemapTypes = []string{"application/xml", "text/xml", "application/gzip", "application/x-gzip", "application/octet-stream",
	"application/rss+xml", "application/atom+xml"}

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
// (recall@B/2 0.879 → 0.724, 0.804 → 0.738); at 0.05 no topic lost it
// beyond its run-to-run spread.
const sitemapWeight = 0.05

// sitemapChunk is how many matching entries one Enqueue carries: the
// store counts the new ones, so URLs it knows do not use up max_urls.
// Near the limit a chunk shrinks to what is left, but not below
// sitemapMinChunk: among many known URLs a chunk of one would be one
// transaction per entry; max_urls may be passed by fewer than that.
const (
	sitemapChunk    = 500
	sitemapMinChunk = 50
)

// discoverSitemaps reads the sitemaps of t's seed hosts (each host once, in
// seed order, within sitemapBudget; a host whose sitemaps the crawl read
// before, in an earlier attempt or update, is skipped: sitemapsReadKind)
// and queues their matching URLs for crawl crawlID; it returns the entries
// added. Only the caller's canceled
// ctx or a failure to queue is an error.
func (a *Activities) discoverSitemaps(ctx context.Context, crawlID string, t *topic.Topic, m *topic.Model) (int, error) {
	// A polite request can wait fetch.max_host_delay and take
	// fetch.max_fetch_time: beat meanwhile, as the sample fetches do.
	stop := heartbeatEvery(ctx, 2*time.Second, func() any { return "reading sitemaps" })
	defer stop()
	dctx, cancel := context.WithTimeout(ctx, sitemapBudget)
	defer cancel()
	score := linkpred.LinkTextScorer(m, nil, a.Tok)
	added, skipped := 0, 0
	seen := map[string]bool{}
	for _, s := range t.Seeds {
		root, ok := rootOf(s)
		host := urlnorm.Host(root)
		if !ok || seen[host] || !t.InScope(host) {
			continue
		}
		seen[host] = true
		done, err := a.sitemapsRead(ctx, t.Name, crawlID, host)
		if err != nil {
			return added, err
		}
		if done {
			continue // an earlier attempt, or an earlier update, read them
		}
		if dctx.Err() != nil {
			skipped++
			continue
		}
		// Entries are queued with the caller's ctx: what was found before
		// the budget ran out is kept.
		n, err := a.hostSitemaps(ctx, dctx, crawlID, t, score, root)
		added += n
		if err != nil {
			return added, err
		}
		if err := ctx.Err(); err != nil {
			return added, err
		}
		a.markSitemapsRead(ctx, t.Name, crawlID, host, n)
	}
	if skipped > 0 {
		a.Log.Warn("sitemap discovery out of time: some seed hosts' sitemaps not read", "crawl", crawlID, "hosts", skipped, "budget", sitemapBudget)
	}
	return added, nil
}

// sitemapsReadKind is the model kind (store.Models) of the record that a
// crawl read one seed host's sitemaps: sitemapsReadKind/crawl ID/host,
// written as soon as that host is done (markSitemapsRead), before the next
// one is read. Each reading queues up to max_urls entries new to the
// crawl, so a retried StartCrawl or UpdateTopic — an attempt that failed
// on host B or ran out of time after reading host A — must not read A
// again: it would queue max_urls more. ResetTopic (a --fresh start) deletes
// these records with the frontier whose entries they account for.
const sitemapsReadKind = "sitemaps-read"

func sitemapsReadRecord(crawlID, host string) string {
	return sitemapsReadKind + "/" + crawlID + "/" + host
}

// sitemapsRead reports whether crawl crawlID recorded reading host's
// sitemaps (markSitemapsRead).
func (a *Activities) sitemapsRead(ctx context.Context, topicName, crawlID, host string) (bool, error) {
	_, _, err := a.Store.Model(ctx, topicName, sitemapsReadRecord(crawlID, host), 0)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	}
	return false, fmt.Errorf("look up whether the sitemaps of %s were read: %w", host, err)
}

// markSitemapsRead records that crawl crawlID read host's sitemaps (in
// full, or in part when the discovery's time budget ran out: a later
// attempt does not read the rest), having queued queued entries. Best
// effort: a failure is logged, and a retry of the activity would read the
// host again.
func (a *Activities) markSitemapsRead(ctx context.Context, topicName, crawlID, host string, queued int) {
	data := fmt.Appendf(nil, `{"queued":%d}`, queued)
	if _, err := a.Store.PutModel(ctx, topicName, sitemapsReadRecord(crawlID, host), data); err != nil {
		a.Log.Warn("could not record that a host's sitemaps were read: a retry would read them again", "crawl", crawlID, "host", host, "error", err)
	}
}

// hostSitemaps reads the sitemaps root's robots.txt lists (root +
// sitemap.xml when it lists none, or when robots.txt is not read:
// fetch.respect_robots off), following sitemap indexes breadth first, at
// most t.Sitemaps.Files() files in the topic's scope, within dctx, and
// queues (with ctx) the entries their host's robots.txt allows and whose
// URL words match the topic (score), until t.Sitemaps.URLs() new ones were
// added; it returns how many. An entry must be on root's host or on the
// host that served its sitemap (sitemaps.org: a sitemap lists its own
// host's URLs; robots.txt's cross submission makes that the seed's).
func (a *Activities) hostSitemaps(ctx, dctx context.Context, crawlID string, t *topic.Topic, score func(linkpred.Link) float64, root string) (int, error) {
	host := urlnorm.Host(root)
	files := []string{root + "sitemap.xml"}
	fallback := true // files is the guessed /sitemap.xml, not a listed one
	var robotsAt time.Time
	if a.FetchCfg.RespectRobots {
		// robots.txt is a request to its host, booked as politeDoAfter books it;
		// the first sitemap request comes the host's delay after it.
		var err error
		if robotsAt, err = a.robotsSlot(dctx, host, root); err != nil {
			a.Log.Warn("sitemaps not read: no slot for robots.txt", "host", host, "error", err)
			return 0, nil
		}
		rules, err := a.Fetcher.RobotsPaced(a.traceSends(dctx, host), root, a.paceRequest)
		if err != nil {
			a.Log.Warn("robots.txt not readable for sitemaps", "host", host, "error", err)
			return 0, nil
		}
		a.holdAfterRobots(dctx, host, root, robotsAt)
		if listed := rules.Sitemaps(); len(listed) > 0 {
			files, fallback = resolveAll(root+"robots.txt", listed), false
		}
	}
	maxFiles, limit := t.Sitemaps.Files(), t.Sitemaps.URLs()
	maxPerHost := t.Limits.MaxPagesPerHost
	if maxPerHost == 0 {
		maxPerHost = a.CrawlCfg.MaxFrontierPerHost
	}
	if maxPerHost > 0 {
		limit = min(limit, maxPerHost) // the frontier would take no more
	}
	var chunk []store.FrontierEntry
	added := 0
	marked := false
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		n, err := a.Store.Enqueue(ctx, chunk, store.EnqueueOptions{MaxPerHost: maxPerHost})
		if err != nil {
			return fmt.Errorf("queue sitemap URLs: %w", err)
		}
		added, chunk = added+n, chunk[:0]
		// The host counts as read once entries of it are queued: an
		// attempt that failed or timed out after that (a later chunk's
		// store error, the activity's deadline) left it unmarked, and its
		// retry read it again and queued up to max_urls new entries on top
		// of those. What a reading cut short queued is kept, as for one out
		// of time; a chunk whose write failed marks nothing.
		if !marked {
			a.markSitemapsRead(ctx, t.Name, crawlID, host, added)
			marked = true
		}
		return nil
	}
	seenFile := map[string]bool{}
	read := 0
	for len(files) > 0 && read < maxFiles && added < limit && dctx.Err() == nil {
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
		after := time.Time{}
		if urlnorm.Host(n) == host {
			after, robotsAt = robotsAt, time.Time{} // the request after robots.txt's
		}
		// A host whose Crawl-delay is longer than fetch.max_host_delay is
		// held after each request, robots.txt's included: its next
		// sitemap waits the whole pause, within the discovery's time
		// budget (fetchAfterHolds).
		resp, err := a.fetchAfterHolds(dctx, dctx, urlnorm.Host(n),
			fetch.Request{URL: n, ExtraTypes: sitemapTypes, MaxBytes: sitemapMaxBytes}, after)
		guessed := fallback && read == 1
		if err != nil {
			switch {
			case dctx.Err() != nil:
			case guessed && fetch.ClassOf(err) == fetch.ClassHTTPClient:
				a.Log.Info("no sitemap: robots.txt lists none and /sitemap.xml is missing", "host", host)
			default:
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
		dropped, refused, files := 0, 0, 0
		for _, e := range res.URLs {
			if added >= limit || dctx.Err() != nil {
				break
			}
			u, err := urlnorm.Normalize(e.Loc)
			if err != nil {
				continue
			}
			h := urlnorm.Host(u)
			if h != host && h != served || !t.InScope(h) {
				dropped++
				continue
			}
			if a.Fetcher.RefusesExtension(u) { // a PDF, a picture: refused after a request
				files++
				continue
			}
			if !a.sitemapAllows(dctx, u) {
				refused++
				continue
			}
			if s := score(linkpred.Link{URL: u}); s > 0 {
				chunk = append(chunk, store.FrontierEntry{Topic: t.Name, URLHash: urlnorm.Hash(u), URL: u, Host: h,
					Depth: 1, Priority: s * sitemapWeight, Strategy: "sitemap", CrawlID: crawlID})
				if len(chunk) >= min(sitemapChunk, max(limit-added, sitemapMinChunk)) {
					if err := flush(); err != nil {
						return added, err
					}
				}
			}
		}
		if err := flush(); err != nil {
			return added, err
		}
		if dropped > 0 || refused > 0 || files > 0 {
			a.Log.Info("sitemap entries not queued", "url", n, "on_other_hosts", dropped, "refused_by_robots", refused,
				"refused_types", files, "host", host)
		}
	}
	if dctx.Err() != nil && ctx.Err() == nil {
		a.Log.Warn("sitemap discovery out of time: the host's sitemaps read in part", "host", host, "files", read, "budget", sitemapBudget)
	}
	a.Log.Info("sitemap URLs queued", "crawl", crawlID, "host", host, "files", read, "queued", added)
	return added, nil
}

// sitemapAllows reports whether the robots.txt of u's origin allows u
// (always, with fetch.respect_robots off). Entries are on the seed's host
// or on the host that served their sitemap, whose robots.txt is usually
// cached (the fetcher checks it on every hop); another scheme's (a sitemap
// on http listing https URLs) is fetched once, paced as every robots.txt
// request, and then cached like the others.
func (a *Activities) sitemapAllows(ctx context.Context, u string) bool {
	if !a.FetchCfg.RespectRobots {
		return true
	}
	pu, err := url.Parse(u)
	if err != nil {
		return false
	}
	host := urlnorm.Host(u)
	var robotsAt time.Time
	if !a.Fetcher.RobotsCached(u) {
		if robotsAt, err = a.robotsSlot(ctx, host, u); err != nil {
			return false
		}
	}
	// Cached, or read now in the slot just booked.
	rules, err := a.Fetcher.RobotsPaced(a.traceSends(ctx, host), u, a.paceRequest)
	if err != nil {
		return false
	}
	a.holdAfterRobots(ctx, host, u, robotsAt)
	return rules.Allowed(pu.RequestURI())
}

// holdAfterRobots holds host for a Crawl-delay longer than
// fetch.max_host_delay after a robots.txt read booked at robotsAt (zero:
// none was made), as after any request (holdForCrawlDelay): sitemap
// discovery reads robots.txt on its own, and the host's next request —
// a sitemap, the crawl's first page — must not come max_host_delay after
// it.
func (a *Activities) holdAfterRobots(ctx context.Context, host, target string, robotsAt time.Time) {
	if !robotsAt.IsZero() {
		a.holdForCrawlDelay(ctx, host, target, later(robotsAt, a.sent.lastSend(host)))
	}
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
