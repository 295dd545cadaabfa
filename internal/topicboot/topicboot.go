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
	"sync"
	"time"

	"focuscrawl/internal/fetch"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// Fetch fetches and parses the example pages in order. A page that cannot
// be fetched or parsed is an error naming its URL: a topic built from
// fewer examples than the user gave would silently be a different topic.
// Requests to one host are paced by p (nil: not paced).
func Fetch(ctx context.Context, f *fetch.Fetcher, urls []string, p *Pacer) ([]topic.ExamplePage, error) {
	var pages []topic.ExamplePage
	var errs []error
	for _, u := range urls {
		resp, err := p.fetch(ctx, f, u)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
			continue
		}
		doc, err := parse.Parse(resp.FinalURL, resp.Body, parse.Options{})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
			continue
		}
		pages = append(pages, topic.ExamplePage{URL: resp.URL, Title: doc.Title, Headings: doc.Emphasis, Text: doc.Text})
	}
	return pages, errors.Join(errs...)
}

// Pacer spaces the requests to each host by at least Delay (a crawl's
// fetch.host_delay), or by the host's robots.txt Crawl-delay when longer,
// robots.txt counting as a request, as a crawl does: the examples are
// often pages of one site, fetched one after another.
type Pacer struct {
	Delay time.Duration
	mu    sync.Mutex
	next  map[string]time.Time // host → earliest next request
	delay map[string]time.Duration
}

// pace is p's fetch.Request.Pace hook (nil for a nil Pacer or no delay).
func (p *Pacer) pace() func(ctx context.Context, target string) error {
	if p == nil || p.Delay <= 0 {
		return nil
	}
	return func(ctx context.Context, target string) error {
		host := urlnorm.Host(target)
		p.mu.Lock()
		if p.next == nil {
			p.next, p.delay = map[string]time.Time{}, map[string]time.Duration{}
		}
		now := time.Now()
		at := p.next[host]
		if at.Before(now) {
			at = now
		}
		p.next[host] = at.Add(max(p.Delay, p.delay[host]))
		p.mu.Unlock()
		select {
		case <-time.After(at.Sub(now)):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// fetch fetches u with f, paced. The fetcher paces the requests a fetch
// sends after its first one (redirect hops); robots.txt, when not cached,
// is read first as a request of its own, and its Crawl-delay kept for the
// host; then the page takes its slot.
func (p *Pacer) fetch(ctx context.Context, f *fetch.Fetcher, u string) (*fetch.Response, error) {
	pace := p.pace()
	if pace != nil {
		if !f.RobotsCached(u) {
			if err := pace(ctx, u); err != nil {
				return nil, err
			}
			if d := f.CrawlDelay(ctx, u, pace); d > 0 {
				p.mu.Lock()
				p.delay[urlnorm.Host(u)] = d
				p.mu.Unlock()
			}
		}
		if err := pace(ctx, u); err != nil {
			return nil, err
		}
	}
	return f.Fetch(ctx, fetch.Request{URL: u, Pace: pace})
}

// Bootstrap fetches the example URLs, pacing each host by delay, and
// writes the topic file's YAML.
func Bootstrap(ctx context.Context, f *fetch.Fetcher, urls []string, name, language string, keywords int, tc topic.TermCounter, delay time.Duration) ([]byte, error) {
	pages, err := Fetch(ctx, f, urls, &Pacer{Delay: delay})
	if err != nil {
		return nil, err
	}
	return topic.Bootstrap(name, language, pages, tc, keywords)
}
