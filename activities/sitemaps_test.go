package activities

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// sitemapSite is one host, s.test, whose robots.txt lists a sitemap index
// of a gzipped sitemap about roses and a plain one about football. It
// counts requests per path.
type sitemapSite struct {
	srv      *httptest.Server
	robots   string
	mu       sync.Mutex
	requests map[string]int
}

func urlset(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, l := range locs {
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>2026-01-02</lastmod></url>\n", l)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func newSitemapSite(t *testing.T) *sitemapSite { return newSitemapSiteN(t, 0) }

// newSitemapSiteN is newSitemapSite with n more matching URLs
// (/roses/variety-i.html) in the roses sitemap.
func newSitemapSiteN(t *testing.T, n int) *sitemapSite {
	t.Helper()
	s := &sitemapSite{requests: map[string]int{},
		robots: "User-agent: *\nDisallow: /private/\nSitemap: /sitemap_index.xml\n"}
	locs := []string{
		"http://s.test/roses/pruning-roses.html",
		"http://s.test/garden/rose-varieties.html",
		"http://s.test/private/rose-secrets.html", // robots.txt disallows it
		"http://c.test/roses-elsewhere.html",      // another host: not this sitemap's to list
		"http://s.test/about-us.html",             // no topic word in its URL
		"http://s.test/roses/pruning-roses.pdf",   // a format the fetcher refuses
	}
	for i := range n {
		locs = append(locs, fmt.Sprintf("http://s.test/roses/variety-%d.html", i))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, urlset(locs...))
	zw.Close()
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path]++
		s.mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, s.robots)
		case "/sitemap_index.xml":
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
				`<sitemap><loc>http://s.test/sm-roses.xml.gz</loc></sitemap><sitemap><loc>http://s.test/sm-sport.xml</loc></sitemap>`+
				`<sitemap><loc>http://c.test/roses-sitemap.xml</loc></sitemap></sitemapindex>`)
		case "/sm-roses.xml.gz":
			w.Header().Set("Content-Type", "application/x-gzip")
			w.Write(gz.Bytes())
		case "/sm-sport.xml", "/sitemap.xml":
			w.Header().Set("Content-Type", "text/xml; charset=utf-8")
			io.WriteString(w, urlset("http://s.test/football/league-table.html"))
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<html><head><title>Roses</title></head><body><p>%s</p></body></html>", roseText(0))
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *sitemapSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

const sitemapTopicYAML = `name: roses-sm
language: en
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8}
seeds: [http://s.test/]
scope: {hosts: [s.test]}
sitemaps: true
`

// queuedEntries claims every queued entry of the topic (the test's way of
// reading the frontier), by URL.
func queuedEntries(t *testing.T, a *Activities, topicName string) map[string]store.FrontierEntry {
	t.Helper()
	b, err := a.Store.ClaimBatch(t.Context(), store.ClaimRequest{Topic: topicName, CrawlID: "c1", BatchID: "read", Max: 1000})
	if err != nil {
		t.Fatal(err)
	}
	es, err := a.Store.BatchEntries(t.Context(), topicName, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.FrontierEntry{}
	for _, e := range es {
		out[e.URL] = e
	}
	return out
}

// TestStartCrawlSitemaps: with sitemaps on, StartCrawl reads the sitemap
// index the seed host's robots.txt names (relative) and its two sitemaps on
// the host (one gzipped, as application/x-gzip) but not the
// one outside the topic's scope, and queues the URLs on the host that
// robots.txt allows and whose words match the topic, below the seed, one
// step from it (not a PDF: the content-type allowlist would refuse it).
func TestStartCrawlSitemaps(t *testing.T) {
	site := newSitemapSite(t)
	a := workerActivities(t, serverConfig(t, site.srv))
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: sitemapTopicYAML})
	if err != nil {
		t.Fatal(err)
	}
	if r.Seeded != 1 || r.SitemapURLs != 2 {
		t.Errorf("seeded %d, from sitemaps %d; want 1 and 2", r.Seeded, r.SitemapURLs)
	}
	for _, p := range []string{"/robots.txt", "/sitemap_index.xml", "/sm-roses.xml.gz", "/sm-sport.xml"} {
		if n := site.count(p); n != 1 {
			t.Errorf("%s requested %d times; want 1", p, n)
		}
	}
	if n := site.count("/roses-sitemap.xml"); n != 0 {
		t.Errorf("a sitemap outside the topic's scope was requested %d times", n)
	}
	if n := site.count("/sitemap.xml"); n != 0 {
		t.Errorf("/sitemap.xml requested although robots.txt lists a sitemap")
	}
	es := queuedEntries(t, a, r.Topic)
	var urls []string
	for u := range es {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	want := []string{"http://s.test/", "http://s.test/garden/rose-varieties.html", "http://s.test/roses/pruning-roses.html"}
	if strings.Join(urls, " ") != strings.Join(want, " ") {
		t.Fatalf("queued %v; want %v", urls, want)
	}
	seed := es["http://s.test/"]
	for _, u := range want[1:] {
		e := es[u]
		if e.Strategy != "sitemap" || e.Priority <= 0 || e.Priority >= seed.Priority || e.Depth != 1 {
			t.Errorf("%s: strategy %q priority %v depth %d; want sitemap, above 0 and below the seed's %v, depth 1",
				u, e.Strategy, e.Priority, e.Depth, seed.Priority)
		}
	}
}

// TestStartCrawlSitemapFallback: a robots.txt that lists no sitemap sends
// the crawl to /sitemap.xml; a sitemap that is not one (an HTML page) is
// skipped and the crawl still starts from its seeds; with sitemaps off no
// sitemap is read.
func TestStartCrawlSitemapFallback(t *testing.T) {
	site := newSitemapSite(t)
	site.robots = "User-agent: *\nDisallow:\n"
	a := workerActivities(t, serverConfig(t, site.srv))
	yaml := sitemapTopicYAML
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
	if err != nil {
		t.Fatal(err)
	}
	if site.count("/sitemap.xml") != 1 || r.SitemapURLs != 0 || r.Seeded != 1 {
		t.Errorf("/sitemap.xml requested %d times, %d URLs queued from it, %d seeds; want 1, 0 (no roses in it), 1",
			site.count("/sitemap.xml"), r.SitemapURLs, r.Seeded)
	}

	site = newSitemapSite(t)
	site.robots = "User-agent: *\nSitemap: http://s.test/not-a-sitemap.html\n"
	a = workerActivities(t, serverConfig(t, site.srv))
	r, err = startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
	if err != nil || r.Seeded != 1 || r.SitemapURLs != 0 {
		t.Errorf("HTML sitemap: %+v, %v; want the seed and nothing from the sitemap", r, err)
	}

	// robots.txt not read (fetch.respect_robots off): /sitemap.xml is, and
	// robots.txt is not requested at all.
	site = newSitemapSite(t)
	cfg := serverConfig(t, site.srv)
	cfg.Fetch.RespectRobots = false
	a = workerActivities(t, cfg)
	if _, err = startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml}); err != nil {
		t.Fatal(err)
	}
	if site.count("/robots.txt") != 0 || site.count("/sitemap.xml") != 1 || site.count("/sitemap_index.xml") != 0 {
		t.Errorf("respect_robots off: robots.txt %d, sitemap.xml %d, the index %d requests; want 0, 1, 0",
			site.count("/robots.txt"), site.count("/sitemap.xml"), site.count("/sitemap_index.xml"))
	}

	site = newSitemapSite(t)
	a = workerActivities(t, serverConfig(t, site.srv))
	off := strings.Replace(sitemapTopicYAML, "sitemaps: true", "sitemaps: {enabled: false, max_files: 3}", 1)
	if r, err = startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: off}); err != nil || r.SitemapURLs != 0 {
		t.Fatalf("sitemaps off: %+v, %v", r, err)
	}
	if n := site.count("/sitemap_index.xml") + site.count("/sitemap.xml"); n != 0 {
		t.Errorf("sitemaps off, but %d sitemap requests", n)
	}
}

// TestSitemapsArePaced: robots.txt, then each sitemap, are requests to the
// host spaced by its Crawl-delay (longer than fetch.host_delay here), the
// first sitemap a Crawl-delay after robots.txt; and the host's next slot
// in the crawl store (what another worker's request would wait for) is
// booked a Crawl-delay after the last one.
func TestSitemapsArePaced(t *testing.T) {
	const crawlDelay = 400 * time.Millisecond
	a, times := pacedSitemaps(t, "0.4", crawlDelay, func(a *Activities) {
		a.FetchCfg.HostDelay, a.FetchCfg.DelayMargin = 100*time.Millisecond, 0
	})
	at, err := a.Store.ReserveHostSlot(t.Context(), "s.test", 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if gap := at.Sub(times[len(times)-1]); gap < crawlDelay/2 {
		t.Errorf("the host's next slot %v after the last sitemap; want the Crawl-delay, %v", gap, crawlDelay)
	}
}

// TestSitemapsWaitLongCrawlDelay: a Crawl-delay longer than
// fetch.max_host_delay spaces the sitemaps in full, robots.txt counted as a
// request (the host is held after each request and the next sitemap waits
// the hold, within the discovery's time budget); before, they came every
// max_host_delay.
func TestSitemapsWaitLongCrawlDelay(t *testing.T) {
	// robots.txt is a request: the first sitemap waits the whole
	// Crawl-delay after it too.
	pacedSitemaps(t, "1", time.Second, func(a *Activities) {
		a.FetchCfg.HostDelay, a.FetchCfg.MaxHostDelay, a.FetchCfg.DelayMargin = 0, 200*time.Millisecond, 0
	})
}

// pacedSitemaps starts a crawl with sitemaps (at most 3 files) on a
// sitemap site whose robots.txt asks for Crawl-delay (seconds, as written
// there), with the activities tuned by tune; it checks that robots.txt and
// the three sitemaps were requested in order, each at least wantGap after
// the one before, and returns the activities and the requests' times.
func pacedSitemaps(t *testing.T, crawlDelay string, wantGap time.Duration, tune func(*Activities)) (*Activities, []time.Time) {
	t.Helper()
	site := newSitemapSite(t)
	site.robots = "User-agent: *\nCrawl-delay: " + crawlDelay + "\nSitemap: http://s.test/sitemap_index.xml\n"
	log := site.logRequests()
	a := workerActivities(t, serverConfig(t, site.srv))
	tune(a)
	topicYAML := strings.Replace(sitemapTopicYAML, "sitemaps: true", "sitemaps: {enabled: true, max_files: 3}", 1)
	if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: topicYAML}); err != nil {
		t.Fatal(err)
	}
	paths, times := log()
	if want := []string{"/robots.txt", "/sitemap_index.xml", "/sm-roses.xml.gz", "/sm-sport.xml"}; !slices.Equal(paths, want) {
		t.Fatalf("requests %q; want %q", paths, want)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < wantGap-20*time.Millisecond {
			t.Errorf("%s came %v after %s; want at least the Crawl-delay, %v", paths[i], gap, paths[i-1], wantGap)
		}
	}
	return a, times
}

// logRequests records the path and arrival time of every request the site
// gets from now on; the returned function reads them.
func (s *sitemapSite) logRequests() func() ([]string, []time.Time) {
	var mu sync.Mutex
	var paths []string
	var times []time.Time
	inner := s.srv.Config.Handler
	s.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths, times = append(paths, r.URL.Path), append(times, time.Now())
		mu.Unlock()
		inner.ServeHTTP(w, r)
	})
	return func() ([]string, []time.Time) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(paths), slices.Clone(times)
	}
}

// TestSitemapRobotsReadHolds: sitemap discovery's own robots.txt reads are
// requests too: a Crawl-delay longer than fetch.max_host_delay holds the
// host after them (the seed host's, here listing only a sitemap the topic
// does not read, and another host's checked for a sitemap entry), so the
// host's next request — the crawl's first page — waits the whole
// Crawl-delay, not max_host_delay.
func TestSitemapRobotsReadHolds(t *testing.T) {
	site := newSitemapSite(t)
	site.robots = "User-agent: *\nCrawl-delay: 60\nSitemap: http://elsewhere.test/sm.xml\n"
	a := workerActivities(t, serverConfig(t, site.srv))
	a.FetchCfg.MaxHostDelay, a.FetchCfg.DelayMargin = 200*time.Millisecond, 0
	if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: sitemapTopicYAML}); err != nil {
		t.Fatal(err)
	}
	if site.count("/robots.txt") != 1 {
		t.Fatalf("robots.txt requested %d times; want once", site.count("/robots.txt"))
	}
	if rest := time.Until(a.longHold("s.test")); rest < 50*time.Second {
		t.Errorf("s.test held %v more after the sitemaps' robots.txt read; want the 60s Crawl-delay", rest)
	}
	d := crawlDelaySite(t, 60)
	d.FetchCfg.MaxHostDelay, d.FetchCfg.DelayMargin = 200*time.Millisecond, 0
	if !d.sitemapAllows(t.Context(), "http://q.test/page") {
		t.Fatal("sitemapAllows refused a page robots.txt allows")
	}
	if d.longHold("q.test").IsZero() {
		t.Error("q.test not held after sitemapAllows read its robots.txt")
	}
}

// TestSitemapURLsCountNew: max_urls counts the entries new to the crawl
// store, so a later crawl of the topic reaches the pages the first one
// did not queue (or the site added since) instead of counting the same
// known ones again. 150 matching URLs, 60 a crawl.
func TestSitemapURLsCountNew(t *testing.T) {
	site := newSitemapSiteN(t, 148)
	a := workerActivities(t, serverConfig(t, site.srv))
	yaml := strings.Replace(sitemapTopicYAML, "sitemaps: true", "sitemaps: {enabled: true, max_urls: 60}", 1)
	var got []string
	for _, id := range []string{"c1", "c2", "c3"} {
		r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: id, TopicYAML: yaml})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(r.SitemapURLs))
	}
	if strings.Join(got, " ") != "60 60 30" {
		t.Errorf("sitemap URLs queued by three crawls: %s; want 60 60 30 (150 matching pages, at most 60 new each time)", strings.Join(got, " "))
	}
}

// TestUpdateTopicSitemaps: an update that turns sitemaps on reads the
// sitemaps of the crawl's seed hosts, as a start does, and queues their
// matching URLs; a later update whose seed hosts' sitemaps were read
// already reads none again (every reading would queue up to max_urls new
// entries more), nor does one that does not say which version the crawl
// had (a workflow from before). Before, an update read no sitemap at all.
func TestUpdateTopicSitemaps(t *testing.T) {
	site := newSitemapSite(t)
	a := workerActivities(t, serverConfig(t, site.srv))
	off := strings.Replace(sitemapTopicYAML, "sitemaps: true\n", "", 1)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: off})
	if err != nil {
		t.Fatal(err)
	}
	if r.SitemapURLs != 0 || site.count("/sitemap_index.xml") != 0 {
		t.Fatalf("start without sitemaps: %d sitemap URLs, index read %d times; want none", r.SitemapURLs, site.count("/sitemap_index.xml"))
	}
	update := func(yaml string, from int) crawlapi.UpdateTopicResult {
		t.Helper()
		var res crawlapi.UpdateTopicResult
		in := crawlapi.UpdateTopicInput{CrawlID: "c1", Topic: r.Topic, TopicYAML: yaml, FromVersion: from}
		if err := runActivity(a, crawlapi.UpdateTopic.Name, in, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := update(sitemapTopicYAML, r.TopicVersion)
	if res.SitemapURLs != 2 || site.count("/sm-roses.xml.gz") != 1 {
		t.Errorf("sitemaps turned on: %+v, roses sitemap read %d times; want its 2 matching URLs queued", res, site.count("/sm-roses.xml.gz"))
	}
	if es := queuedEntries(t, a, r.Topic); es["http://s.test/roses/pruning-roses.html"].Strategy != "sitemap" {
		t.Errorf("queued %v; want the sitemap's URLs", es)
	}
	robots := site.count("/robots.txt")
	more := strings.Replace(sitemapTopicYAML, "pruning: 0.8}", "pruning: 0.8, climbing: 0.5}", 1)
	if res := update(more, res.TopicVersion); res.SitemapURLs != 0 || site.count("/robots.txt") != robots || site.count("/sitemap_index.xml") != 1 {
		t.Errorf("same seed hosts: %+v, robots.txt %d→%d, index read %d times; want nothing read again",
			res, robots, site.count("/robots.txt"), site.count("/sitemap_index.xml"))
	}
	fresh := strings.Replace(sitemapTopicYAML, "pruning: 0.8}", "pruning: 0.8, hips: 0.5}", 1)
	if res := update(fresh, 0); res.SitemapURLs != 0 || site.count("/sitemap_index.xml") != 1 {
		t.Errorf("previous version unknown: %+v, index read %d times; want nothing read", res, site.count("/sitemap_index.xml"))
	}
}

// failHostEnqueue fails, once, the first Enqueue of sitemap entries on
// host: a store error while an attempt reads that host's sitemaps.
type failHostEnqueue struct {
	store.Store
	host   string
	failed bool
}

func (f *failHostEnqueue) Enqueue(ctx context.Context, es []store.FrontierEntry, opt store.EnqueueOptions) (int, error) {
	for _, e := range es {
		if !f.failed && e.Host == f.host && e.Strategy == "sitemap" {
			f.failed = true
			return 0, errors.New("store unavailable")
		}
	}
	return f.Store.Enqueue(ctx, es, opt)
}

// TestSitemapRetrySkipsHostsRead: an attempt of StartCrawl, or of an
// UpdateTopic that turns sitemaps on, that fails on its second seed host
// (a store error while queueing b.test's entries) after reading a.test's
// sitemaps is retried without reading a.test's again: each reading queues
// up to max_urls entries new to the crawl, so the retry would add as many
// again. b.test, not read through, is read by the retry.
func TestSitemapRetrySkipsHostsRead(t *testing.T) {
	const yaml = `name: roses-retry
language: en
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8}
seeds: [http://a.test/, http://b.test/]
scope: {hosts: [a.test, b.test]}
sitemaps: true
`
	for _, update := range []bool{false, true} {
		t.Run(fmt.Sprintf("update=%v", update), func(t *testing.T) {
			var mu sync.Mutex
			reads := map[string]int{} // host + path
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				host := strings.Split(r.Host, ":")[0]
				mu.Lock()
				reads[host+r.URL.Path]++
				mu.Unlock()
				switch r.URL.Path {
				case "/robots.txt":
					io.WriteString(w, "User-agent: *\nDisallow:\nSitemap: /sitemap.xml\n")
				case "/sitemap.xml":
					w.Header().Set("Content-Type", "application/xml")
					io.WriteString(w, urlset("http://"+host+"/roses/pruning-roses.html", "http://"+host+"/garden/rose-varieties.html"))
				default:
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					fmt.Fprintf(w, "<html><head><title>Roses</title></head><body><p>%s</p></body></html>", roseText(0))
				}
			}))
			t.Cleanup(srv.Close)
			count := func(hostPath string) int {
				mu.Lock()
				defer mu.Unlock()
				return reads[hostPath]
			}
			a := workerActivities(t, serverConfig(t, srv))
			failing := &failHostEnqueue{Store: a.Store, host: "b.test"}
			attempt := func() (int, error) {
				if !update {
					r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
					return r.SitemapURLs, err
				}
				var res crawlapi.UpdateTopicResult
				err := runActivity(a, crawlapi.UpdateTopic.Name, crawlapi.UpdateTopicInput{
					CrawlID: "c1", Topic: "roses-retry", TopicYAML: yaml, FromVersion: 1}, &res)
				return res.SitemapURLs, err
			}
			if update {
				off := strings.Replace(yaml, "sitemaps: true\n", "", 1)
				if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: off}); err != nil {
					t.Fatal(err)
				}
			}
			a.Store = failing
			if _, err := attempt(); err == nil || !failing.failed {
				t.Fatalf("first attempt: %v (store failed: %v); want the store's error on b.test", err, failing.failed)
			}
			if n := count("a.test/sitemap.xml"); n != 1 {
				t.Fatalf("first attempt read a.test's sitemap %d times; want 1", n)
			}
			n, err := attempt()
			if err != nil {
				t.Fatal(err)
			}
			if got := count("a.test/sitemap.xml"); got != 1 {
				t.Errorf("the retry read a.test's sitemap again (%d requests in all); want 1: its sitemaps were read", got)
			}
			if got := count("b.test/sitemap.xml"); got != 2 || n != 2 {
				t.Errorf("the retry read b.test's sitemap %d times in all and queued %d entries; want 2 and b.test's 2", got, n)
			}
		})
	}
}
