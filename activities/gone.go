package activities

import (
	"context"
	"net/url"
	"strings"
	"sync"

	"focuscrawl/internal/fetch"
	"focuscrawl/internal/store"
)

// A section of a site that is gone — a directory whose links all answer
// 404 or 410 — can hold hundreds of links from one page (the SQLite
// manual's requirements page links ~290 pages of a matrix/ tree that is not
// there: 243 of a 1,000-page crawl's fetches were those 404s). Host yield
// cannot help (the host's other pages are relevant), and the links were
// scored before any of them failed. So each worker counts, per topic and
// URL directory, the fetches that found nothing and those that found a
// page; once a directory has goneAfter not-found answers and no page, its
// queued entries sink (store DemoteQueued, × goneFactor), and again each
// time its not-found count doubles; links into it found afterwards are
// scored down alike (sunk). They stay in the frontier: a crawl with
// nothing better still fetches them. This is focuscrawl's own heuristic,
// not a seed document's.
//
// A whole host that does not answer — its name does not resolve, nothing
// listens, TLS fails, every request times out, or its robots.txt cannot
// be read, which refuses all its URLs without a request — is the same
// case one level up, counted on the site's root ("https://h/"): a
// documentation site links dozens of pages of a project host that is long
// gone, and each of them took a page of the crawl's budget (a trial crawl
// of Debian's reference manual: 138 of 150 fetches refused on 13 hosts
// whose robots.txt could not be read, 32 of them on one). A 404 does not
// count on the root, and any page the host served keeps it from sinking.
const (
	goneAfter  = 3
	goneFactor = 0.1
	// goneMaxDirs bounds the counts a worker keeps; past it they start
	// over (a directory then needs goneAfter more answers to sink).
	goneMaxDirs = 100_000
)

// goneDirs is the per-directory count (its zero value is ready to use).
type goneDirs struct {
	mu sync.Mutex
	n  map[string]*goneCount
}

// fetchVerdict is what a fetch says of the directories its URL lies in.
type fetchVerdict int

const (
	// pageFound: a page was served; counted on its directories and its
	// site's root, none of which sinks any more.
	pageFound fetchVerdict = iota
	// pageNotFound: 404 or 410, counted on the URL's directories.
	pageNotFound
	// hostDead: the host did not answer (deadHost), counted on its root.
	hostDead
)

type goneCount struct {
	notFound, found int
	next            int // the not-found count that demotes next
}

// dirPrefixes returns the directories u lies in below its site's root,
// shortest first: "https://h/a/b/c.html" → "https://h/a/", "https://h/a/b/".
func dirPrefixes(u string) []string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return nil
	}
	root := p.Scheme + "://" + p.Host + "/"
	path := strings.TrimPrefix(p.EscapedPath(), "/")
	var out []string
	for i := strings.IndexByte(path, '/'); i >= 0; {
		out = append(out, root+path[:i+1])
		j := strings.IndexByte(path[i+1:], '/')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return out
}

// siteRoot returns u's site root, "https://h/" ("" when u has no host).
func siteRoot(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return ""
	}
	return p.Scheme + "://" + p.Host + "/"
}

// prefixesOf returns the prefixes a fetch of u with verdict v counts on.
func prefixesOf(u string, v fetchVerdict) []string {
	switch v {
	case pageNotFound:
		return dirPrefixes(u)
	case hostDead:
		if r := siteRoot(u); r != "" {
			return []string{r}
		}
		return nil
	}
	if r := siteRoot(u); r != "" {
		return append([]string{r}, dirPrefixes(u)...)
	}
	return nil
}

// record counts a fetch of u with verdict v and returns the prefixes
// (directories, or a site's root) to demote now.
func (g *goneDirs) record(topic, u string, v fetchVerdict) []string {
	prefixes := prefixesOf(u, v)
	if len(prefixes) == 0 {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == nil || len(g.n) > goneMaxDirs {
		g.n = map[string]*goneCount{}
	}
	var demote []string
	for _, p := range prefixes {
		key := topic + "\x00" + p
		c := g.n[key]
		if c == nil {
			c = &goneCount{next: goneAfter}
			g.n[key] = c
		}
		if v == pageFound {
			c.found++
			continue
		}
		c.notFound++
		if c.found == 0 && c.notFound >= c.next {
			c.next *= 2
			demote = append(demote, p)
		}
	}
	return demote
}

// forget drops what this worker counted of topic's directories: a fresh
// start of the topic (resetTopic) begins without them, as the store does.
func (g *goneDirs) forget(topic string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k := range g.n {
		if strings.HasPrefix(k, topic+"\x00") {
			delete(g.n, k)
		}
	}
}

// sunk reports whether u lies in a directory this worker found gone
// (goneAfter not-found answers there, no page), or on a host it found dead
// (goneAfter fetches without an answer, no page): a link into it found
// now starts as low as the queued links there were sunk.
func (g *goneDirs) sunk(topic, u string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.n) == 0 {
		return false
	}
	for _, p := range prefixesOf(u, pageFound) {
		if c := g.n[topic+"\x00"+p]; c != nil && c.found == 0 && c.notFound >= goneAfter {
			return true
		}
	}
	return false
}

// countGone counts a fetch of entry e that ended with page (ok: a page was
// served) and sinks the queued entries of the directories that turned out
// gone and of the hosts that turned out dead.
func (a *Activities) countGone(ctx context.Context, e store.FrontierEntry, page store.Page, ok bool) {
	var v fetchVerdict
	switch {
	case ok:
		v = pageFound
	case page.Status == 404 || page.Status == 410:
		v = pageNotFound
	case a.deadHost(e, page):
		v = hostDead
	default:
		return // a server error or a refusal says nothing of the directory
	}
	for _, p := range a.gone.record(e.Topic, e.URL, v) {
		n, err := a.Store.DemoteQueued(ctx, e.Topic, e.Host, p, goneFactor)
		if err != nil {
			// Only an ordering hint: the crawl goes on without it.
			a.Log.Warn("could not demote a gone directory's links", "topic", e.Topic, "prefix", p, "error", err)
			continue
		}
		if v == hostDead {
			a.Log.Info("links into a host that does not answer sink", "topic", e.Topic, "host", p, "entries", n, "error_class", page.ErrorClass)
			continue
		}
		a.Log.Info("links into a gone directory sink", "topic", e.Topic, "prefix", p, "entries", n)
	}
}

// deadHost reports whether a failed fetch of e says its host does not
// answer: the name did not resolve, the connection or TLS failed, the
// response timed out, or the host's robots.txt could not be read (which
// refuses every URL of the host, without a request, until its cache entry
// ends). A 5xx or 429 is an answer (a host that asks for a pause is held
// and its entries requeued: requeueHeld), and so is a robots.txt that
// disallows the URL.
func (a *Activities) deadHost(e store.FrontierEntry, page store.Page) bool {
	switch fetch.Class(page.ErrorClass) {
	case fetch.ClassDNS, fetch.ClassConnect, fetch.ClassTLS, fetch.ClassTimeout:
		return true
	case fetch.ClassRobots:
		return a.Fetcher.RobotsUnreachable(e.URL)
	}
	return false
}
