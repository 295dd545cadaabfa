package activities

import (
	"context"
	"net/url"
	"strings"
	"sync"

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

// record counts a fetch of u (notFound: answered 404 or 410) and returns
// the directories to demote now.
func (g *goneDirs) record(topic, u string, notFound bool) []string {
	prefixes := dirPrefixes(u)
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
		if !notFound {
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
// (goneAfter not-found answers there, no page): a link into it found now
// starts as low as the directory's queued links were sunk.
func (g *goneDirs) sunk(topic, u string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.n) == 0 {
		return false
	}
	for _, p := range dirPrefixes(u) {
		if c := g.n[topic+"\x00"+p]; c != nil && c.found == 0 && c.notFound >= goneAfter {
			return true
		}
	}
	return false
}

// countGone counts a fetch of entry e with the page's status and sinks
// the queued entries of the directories that turned out gone.
func (a *Activities) countGone(ctx context.Context, e store.FrontierEntry, status int, ok bool) {
	notFound := status == 404 || status == 410
	if !ok && !notFound {
		return // a server error or a timeout says nothing of the directory
	}
	for _, p := range a.gone.record(e.Topic, e.URL, notFound) {
		n, err := a.Store.DemoteQueued(ctx, e.Topic, e.Host, p, goneFactor)
		if err != nil {
			// Only an ordering hint: the crawl goes on without it.
			a.Log.Warn("could not demote a gone directory's links", "topic", e.Topic, "prefix", p, "error", err)
			continue
		}
		a.Log.Info("links into a gone directory sink", "topic", e.Topic, "prefix", p, "entries", n)
	}
}
