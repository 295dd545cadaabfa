// Package topicboot bootstraps a topic file from a handful of example URLs
// (`search topic bootstrap`): it fetches the pages with the crawler's own
// fetcher (robots.txt, content types and size limits as in a crawl), parses
// them with the crawler's parser and hands them to topic.Bootstrap, which
// derives keywords (seed 003's TopicLib), a description, samples and seeds.
package topicboot

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"focuscrawl/internal/config"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/langalt"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/robots"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// Fetch fetches and parses the example pages in order. A page that cannot
// be fetched or parsed is an error naming its URL: a topic built from
// fewer examples than the user gave would silently be a different topic.
// Requests to one host are paced by p (nil: not paced).
func Fetch(ctx context.Context, f *fetch.Fetcher, urls []string, p *Pacer) ([]topic.ExamplePage, error) {
	pages, _, _, err := fetchExamples(ctx, f, urls, p)
	return pages, err
}

// fetchExamples is Fetch that also returns a note for each page whose
// charset declaration its bytes overrode (fetch.Response.CharsetNote): the
// draft's words come from the page as decoded, and a user comparing them
// with the page's label should know why.
// It returns each page's links too (parse.Link.URL, in page order).
func fetchExamples(ctx context.Context, f *fetch.Fetcher, urls []string, p *Pacer) ([]topic.ExamplePage, [][]string, []string, error) {
	var pages []topic.ExamplePage
	var links [][]string
	var notes []string
	var errs []error
	for _, u := range urls {
		resp, err := p.fetch(ctx, f, u)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
			continue
		}
		var ua string // nil p: not paced, the default agent
		if p != nil {
			ua = p.Cfg.UserAgent
		}
		token := robots.ProductToken(ua)
		doc, err := parse.Parse(resp.FinalURL, resp.Body, parse.Options{AgentToken: token, Charset: resp.Charset, Cells: true, Code: true})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
			continue
		}
		parse.ApplyRobotsTags(doc, resp.RobotsTag, token)
		lang := langalt.Own(resp.FinalURL, doc.Links)
		if lang == "" {
			lang = langalt.Primary(doc.Lang)
		}
		// The page as read: its URL after redirects (example.com →
		// www.example.com), which the draft's samples, seeds and scope
		// name; the requested one put a scope in the draft that refused
		// its own seed's redirect.
		pages = append(pages, topic.ExamplePage{URL: resp.FinalURL, Title: doc.Title, Headings: doc.Emphasis, Text: Prose(doc), Cells: doc.Cells, Code: doc.Code, Lang: lang})
		// The links a crawl would follow: the final URL first (so a
		// redirected example is not read again as its own background),
		// none of a nofollow page, no rel=nofollow link.
		ls := []string{resp.FinalURL}
		for _, l := range doc.Links {
			if !doc.NoFollow && !l.Nofollow {
				ls = append(ls, l.URL)
			}
		}
		links = append(links, ls)
		if resp.CharsetNote != "" {
			notes = append(notes, fmt.Sprintf("%s was read as %s: %s", u, resp.Charset, resp.CharsetNote))
		}
	}
	return pages, links, notes, errors.Join(errs...)
}

// ContrastPages is how many pages the examples link to on their own hosts
// a bootstrap fetches as the site's background (topic.Bootstrap's
// contrast): the words every page of a site has — a manual's name in
// every title, a footer's "please report errors" — are the site's, not
// the topic's, and led drafts made from one manual's pages (a LilyPond
// draft about error messages had "lilypond", "学习" and "手册", the
// manual's title, as three of its first seven keywords, and accepted the
// whole manual). Four pages cost four politeness delays; at most
// contrastAttempts links are tried in all, so a page of dead links does
// not hold a bootstrap for minutes.
const ContrastPages = 4

// contrastAttempts bounds the background links tried (fetched, failed or
// refused), successful or not.
const contrastAttempts = 3 * ContrastPages

// fetchContrast fetches up to ContrastPages pages the examples link to on
// their own hosts — in each example's link order, taking the examples in
// turn, so a manual's navigation (its index, contents, neighbours) comes
// first — skipping the examples (links[i][0] is example i's final URL),
// their roots, downloads and pages that fail (robots.txt, errors: a
// background page is optional), trying at most contrastAttempts links.
func fetchContrast(ctx context.Context, f *fetch.Fetcher, pages []topic.ExamplePage, links [][]string, p *Pacer) ([]topic.ExamplePage, error) {
	skip := map[string]bool{}
	hosts := map[string]bool{}
	for _, pg := range pages {
		skip[pg.URL] = true
	}
	for _, ls := range links {
		for _, ex := range ls[:min(1, len(ls))] {
			skip[ex] = true
		}
	}
	for ex := range skip {
		if u, err := url.Parse(ex); err == nil && u.Host != "" {
			hosts[u.Host] = true
			skip[u.Scheme+"://"+u.Host+"/"] = true
		}
	}
	var out []topic.ExamplePage
	attempts := 0
	for i := 1; len(out) < ContrastPages && attempts < contrastAttempts; i++ {
		more := false
		for _, ls := range links {
			if i >= len(ls) || len(out) == ContrastPages || attempts == contrastAttempts {
				continue
			}
			more = true
			target, err := urlnorm.Normalize(ls[i])
			if err != nil {
				continue
			}
			u, err := url.Parse(target)
			if err != nil || !hosts[u.Host] || (u.Scheme != "http" && u.Scheme != "https") || skip[target] {
				continue
			}
			skip[target] = true
			if f.RefusesExtension(target) { // downloads and media: refused after a request
				continue
			}
			attempts++
			resp, err := p.fetch(ctx, f, target)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			if skip[resp.FinalURL] && resp.FinalURL != target {
				continue // a redirect to an example or a page already read
			}
			skip[resp.FinalURL] = true
			doc, err := parse.Parse(resp.FinalURL, resp.Body, parse.Options{Charset: resp.Charset, Cells: true, Code: true})
			if err != nil {
				continue
			}
			out = append(out, topic.ExamplePage{URL: resp.FinalURL, Title: doc.Title, Headings: doc.Emphasis, Text: Prose(doc), Cells: doc.Cells, Code: doc.Code})
		}
		if !more {
			break
		}
	}
	return out, nil
}

// Prose is the text a draft's keywords are drawn from: a page's visible
// text outside links (parse.Document.Other), or all of it for a page that
// is nothing but links. A manual's navigation — its table of contents on
// every page, "Previous", "Up" — is links, and its words led drafts
// (property, objects, templates on a LilyPond page about error messages);
// the words the examples share in their own text are what they are about.
func Prose(doc *parse.Document) string {
	if strings.TrimSpace(doc.Other) != "" {
		return doc.Other
	}
	return doc.Text
}

// Pacer spaces the requests to each host as a crawl does
// (config.Fetch.PoliteDelay: fetch.host_delay, or the host's robots.txt
// Crawl-delay when longer, capped by fetch.max_host_delay, plus
// fetch.delay_margin). robots.txt counts as a request: it is spaced by the
// configured delay, and the host's first page comes the host's delay
// after it. The examples are often pages of one site, fetched one after
// another.
type Pacer struct {
	Cfg   config.Fetch
	mu    sync.Mutex
	next  map[string]time.Time     // host → earliest next request
	delay map[string]time.Duration // host → its delay, once its robots.txt is read
}

// slot waits for host's next slot, books the one after it d later and
// returns the slot's time.
func (p *Pacer) slot(ctx context.Context, host string, d time.Duration) (time.Time, error) {
	p.mu.Lock()
	if p.next == nil {
		p.next, p.delay = map[string]time.Time{}, map[string]time.Duration{}
	}
	now := time.Now()
	at := p.next[host]
	if at.Before(now) {
		at = now
	}
	p.next[host] = at.Add(d)
	p.mu.Unlock()
	if wait := at.Sub(now); wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return at, ctx.Err()
		}
	}
	return at, nil
}

// hostDelay is host's delay: its own once its robots.txt is read, the
// configured one before.
func (p *Pacer) hostDelay(host string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.delay[host]; ok {
		return d
	}
	return p.Cfg.PoliteDelay(0)
}

// pace is the fetch.Request.Pace hook: the requests a fetch sends after
// its first one (redirect hops, a hop's robots.txt).
func (p *Pacer) pace(ctx context.Context, target string) error {
	host := urlnorm.Host(target)
	_, err := p.slot(ctx, host, p.hostDelay(host))
	return err
}

// fetch fetches u with f, paced (a nil Pacer does not pace).
func (p *Pacer) fetch(ctx context.Context, f *fetch.Fetcher, u string) (*fetch.Response, error) {
	if p == nil {
		return f.Fetch(ctx, fetch.Request{URL: u})
	}
	// Keyed by the normalised host: "Docs.Example.com" and
	// "docs.example.com" are one host, with one clock and one Crawl-delay.
	if n, err := urlnorm.Normalize(u); err == nil {
		u = n
	}
	host := urlnorm.Host(u)
	if !f.RobotsCached(u) {
		robotsAt, err := p.slot(ctx, host, p.Cfg.PoliteDelay(0))
		if err != nil {
			return nil, err
		}
		d := p.Cfg.PoliteDelay(f.CrawlDelay(ctx, u, p.pace))
		p.mu.Lock()
		p.delay[host] = d
		if next := robotsAt.Add(d); next.After(p.next[host]) {
			p.next[host] = next
		}
		p.mu.Unlock()
	}
	if _, err := p.slot(ctx, host, p.hostDelay(host)); err != nil {
		return nil, err
	}
	return f.Fetch(ctx, fetch.Request{URL: u, Pace: p.pace})
}

// Bootstrap fetches the example URLs, each host paced as cfg paces a
// crawl's, and writes the topic file's YAML. It fetches up to
// ContrastPages pages they link to on their hosts as the site's
// background (fetchContrast), and each example host's root, the draft's
// seed: a root that cannot be fetched is
// replaced by that host's examples, and notes (topic.DeadRootNote) say so;
// notes also name an example whose charset label its bytes overrode.
func Bootstrap(ctx context.Context, f *fetch.Fetcher, urls []string, name, language string, keywords int, tc topic.TermCounter, cfg config.Fetch) (data []byte, notes []string, err error) {
	p := &Pacer{Cfg: cfg}
	pages, links, notes, err := fetchExamples(ctx, f, urls, p)
	if err != nil {
		return nil, nil, err
	}
	dead, err := deadRoots(ctx, f, pages, p)
	if err != nil {
		return nil, nil, err
	}
	for root, why := range dead {
		notes = append(notes, topic.DeadRootNote(root, why))
	}
	contrast, err := fetchContrast(ctx, f, pages, links, p)
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(notes)
	data, err = topic.Bootstrap(name, language, pages, contrast, tc, keywords, dead)
	return data, notes, err
}

// deadRoots fetches the site root of each example's host (an example that
// is its root was fetched already) and returns those that failed, with
// why. The root is the draft's seed; on a mirror of a manual it was a 404,
// and the crawl of the draft fetched that one URL and ended.
func deadRoots(ctx context.Context, f *fetch.Fetcher, pages []topic.ExamplePage, p *Pacer) (map[string]string, error) {
	checked := map[string]bool{}
	for _, pg := range pages {
		checked[pg.URL] = true
	}
	dead := map[string]string{}
	for _, pg := range pages {
		u, err := url.Parse(pg.URL)
		if err != nil || u.Host == "" {
			continue
		}
		root := u.Scheme + "://" + u.Host + "/"
		if checked[root] {
			continue
		}
		checked[root] = true
		if _, err := p.fetch(ctx, f, root); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			dead[root] = err.Error()
		}
	}
	return dead, nil
}
