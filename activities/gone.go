package activities

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"focuscrawl/internal/fetch"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
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
// listens, TLS fails, requests time out, or its robots.txt got no answer,
// which refuses all its URLs without a request — is the same case one
// level up, counted on the site's root ("https://h/"): a documentation
// site links dozens of pages of a project host that is long gone, and each
// of them took a page of the crawl's budget (a trial crawl of Debian's
// reference manual: 138 of 150 fetches refused on 13 hosts whose
// robots.txt could not be read, 32 of them on one). A 404 does not count
// on the root, and any page the host served keeps it from sinking
// (deadHostFailure says what counts); a failure that may be this worker's
// own network trouble counts only when another host answered meanwhile
// (countDeadHost).
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
	// answered is when this worker last got an HTTP answer from any host
	// (a page, a 404, a 500): a fetch that timed out or could not reach
	// its host counts against the host only when another host answered
	// while it ran (countDeadHost) — a worker whose own network is down
	// gets no answer from anyone, and its failures are no host's.
	answered time.Time
}

// heard notes an HTTP answer at t.
func (g *goneDirs) heard(t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.After(g.answered) {
		g.answered = t
	}
}

// heardSince reports whether some host answered at t or later.
func (g *goneDirs) heardSince(t time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.answered.Before(t)
}

// fetchVerdict is what a fetch says of the directories its URL lies in.
type fetchVerdict int

const (
	// pageFound: a page was served; counted on its directories and its
	// site's root, none of which sinks any more.
	pageFound fetchVerdict = iota
	// pageNotFound: 404 or 410, counted on the URL's directories.
	pageNotFound
	// hostDead: the host did not answer (deadHostFailure), counted on its
	// root.
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
// gone. A page served through a redirect counts on its final URL's site
// and directories too. A host that did not answer is counted where the
// failure is known (countDeadHost).
func (a *Activities) countGone(ctx context.Context, e store.FrontierEntry, page store.Page, ok bool) {
	if ok || page.Status != 0 {
		a.gone.heard(a.now())
	}
	switch {
	case ok:
		a.gone.record(e.Topic, e.URL, pageFound)
		if page.FinalURL != "" && page.FinalURL != e.URL {
			a.gone.record(e.Topic, page.FinalURL, pageFound)
		}
	case page.Status == 404 || page.Status == 410:
		a.demote(ctx, e, a.gone.record(e.Topic, e.URL, pageNotFound), "")
	}
}

// countDeadHost counts a failed fetch of e, begun at began, on its site's
// root when ferr says e's host did not answer (deadHostFailure) and sinks
// the host's queued entries once it turns out dead. robotsAsked: this
// fetch asked for the host's robots.txt (it was not cached before).
//
// A failure that is an answer about the host — its name does not exist,
// it refused the connection, its TLS failed — counts as it comes. One that
// may be this worker's own trouble — a timeout, an unreachable network, a
// resolver that did not answer — counts only when some host answered this
// worker while the fetch ran: a worker that lost its network for a minute
// saw every host fail so, and sank every host that had not served a page
// yet (noted in the dead-host change's review).
func (a *Activities) countDeadHost(ctx context.Context, e store.FrontierEntry, ferr error, robotsAsked bool, began time.Time) {
	class, lasting := a.deadHostFailure(e, ferr, robotsAsked)
	if class == "" || !lasting && !a.gone.heardSince(began) {
		return
	}
	a.demote(ctx, e, a.gone.record(e.Topic, e.URL, hostDead), class)
}

// demote sinks the queued entries of e's host under each of prefixes;
// deadClass, when set, is why the host counts as not answering (logged).
func (a *Activities) demote(ctx context.Context, e store.FrontierEntry, prefixes []string, deadClass fetch.Class) {
	for _, p := range prefixes {
		n, err := a.Store.DemoteQueued(ctx, e.Topic, e.Host, p, goneFactor)
		if err != nil {
			// Only an ordering hint: the crawl goes on without it.
			a.Log.Warn("could not demote a gone directory's links", "topic", e.Topic, "prefix", p, "error", err)
			continue
		}
		if deadClass != "" {
			a.Log.Info("links into a host that does not answer sink", "topic", e.Topic, "host", p, "entries", n, "error_class", deadClass)
			continue
		}
		a.Log.Info("links into a gone directory sink", "topic", e.Topic, "prefix", p, "entries", n)
	}
}

// deadHostFailure returns the class of ferr, a failed fetch of e, when it
// says e's own host did not answer — "" otherwise:
//   - the page's request failed to resolve the name, connect, complete TLS
//     or get a response in time, on e's host (a redirect whose target
//     failed says nothing of the host that redirected);
//   - or its host's robots.txt got no answer at all (fetch.Fetcher.
//     RobotsNoAnswer; a 5xx or 429 is an answer, and a robots.txt that
//     disallows the URL is no failure of the host), which refuses every
//     URL of the host without a request until its cache entry ends. Such
//     a refusal counts when this fetch asked for robots.txt, and each one
//     when the failure lasts (the name does not exist, nothing listens):
//     a timeout or a resolver failure may be this worker's own passing
//     trouble, and one of them must not count once per URL refused in
//     its minute.
//
// lasting says the failure is an answer about the host (fetch.
// LastingNoAnswer, or a TLS handshake the host failed), not possibly this
// worker's own passing trouble.
func (a *Activities) deadHostFailure(e store.FrontierEntry, ferr error, robotsAsked bool) (class fetch.Class, lasting bool) {
	var fe *fetch.Error
	if !errors.As(ferr, &fe) {
		return "", false
	}
	switch fe.Class {
	case fetch.ClassDNS, fetch.ClassConnect, fetch.ClassTLS, fetch.ClassTimeout:
		// fe.URL is the request that failed, as sent (not normalised).
		if n, err := urlnorm.Normalize(fe.URL); err != nil || urlnorm.Host(n) != e.Host {
			return "", false
		}
		return fe.Class, fe.Class == fetch.ClassTLS || fetch.LastingNoAnswer(fe.Err)
	case fetch.ClassRobots:
		if fe.RobotsStatus != 0 {
			return "", false
		}
		if class, lasting := a.Fetcher.RobotsNoAnswer(e.URL); class != "" && (robotsAsked || lasting) {
			return class, lasting
		}
	}
	return "", false
}
