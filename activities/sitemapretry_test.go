package activities

import (
	"context"
	"errors"
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// secondChunkFails queues a crawl's first chunk of sitemap entries and
// fails the second, as a store error after a committed chunk does.
type secondChunkFails struct {
	store.Store
	chunks int
}

func (f *secondChunkFails) Enqueue(ctx context.Context, es []store.FrontierEntry, opt store.EnqueueOptions) (int, error) {
	if len(es) > 0 && es[0].Strategy == "sitemap" {
		if f.chunks++; f.chunks == 2 {
			return 0, errors.New("injected: store unavailable")
		}
	}
	return f.Store.Enqueue(ctx, es, opt)
}

// TestSitemapRetryKeepsMaxURLs: an attempt that queued a chunk of a host's
// sitemap entries and then failed is retried; the host was not marked
// read, so the retry read it again and queued up to max_urls entries new
// to the crawl on top of the first chunk. The host is marked once entries
// of it are queued.
func TestSitemapRetryKeepsMaxURLs(t *testing.T) {
	site := newSitemapSiteN(t, 1200)
	a := workerActivities(t, serverConfig(t, site.srv))
	yaml := strings.Replace(sitemapTopicYAML, "sitemaps: true", "sitemaps: {enabled: true, max_urls: 600}", 1)
	real := a.Store
	failing := &secondChunkFails{Store: real}
	a.Store = failing
	if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml}); err == nil || failing.chunks < 2 {
		t.Fatalf("first attempt: %v after %d chunks; want the store's error on the second", err, failing.chunks)
	}
	if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml}); err != nil {
		t.Fatal(err)
	}
	a.Store = real
	n := 0
	for _, e := range queuedEntries(t, a, "roses-sm") {
		if e.Strategy == "sitemap" {
			n++
		}
	}
	if n == 0 || n > 600 {
		t.Errorf("crawl c1 queued %d sitemap entries of s.test; want some, max_urls is 600", n)
	}
}
