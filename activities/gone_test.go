package activities

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

func TestDirPrefixes(t *testing.T) {
	for u, want := range map[string][]string{
		"https://h.test/a/b/c.html":  {"https://h.test/a/", "https://h.test/a/b/"},
		"https://h.test/a/":          {"https://h.test/a/"},
		"https://h.test/c.html":      nil,
		"https://h.test/":            nil,
		"https://h.test/a%2Fb/c?x=/": {"https://h.test/a%2Fb/"},
		"not a url":                  nil,
	} {
		if got := dirPrefixes(u); !slices.Equal(got, want) {
			t.Errorf("dirPrefixes(%q) = %q, want %q", u, got, want)
		}
	}
}

// TestGoneDirsRecord: a directory sinks after goneAfter not-found answers
// with no page found there, again when the count doubles, and never once
// a page was found in it; each topic counts its own.
func TestGoneDirsRecord(t *testing.T) {
	var g goneDirs
	var got []string
	for i := 1; i <= 6; i++ {
		got = append(got, g.record("t", fmt.Sprintf("https://h.test/gone/%d.html", i), pageNotFound)...)
	}
	if want := []string{"https://h.test/gone/", "https://h.test/gone/"}; !slices.Equal(got, want) {
		t.Errorf("demotions after 6 not-found answers: %q, want %q (at 3 and at 6)", got, want)
	}
	if d := g.record("other", "https://h.test/gone/1.html", pageNotFound); d != nil {
		t.Errorf("another topic's first not-found answer demoted %q", d)
	}
	if !g.sunk("t", "https://h.test/gone/new/9.html") || g.sunk("t", "https://h.test/other/1.html") || g.sunk("other", "https://h.test/gone/9.html") {
		t.Errorf("sunk: want a link under the gone directory sunk, not one elsewhere or of another topic")
	}
	g.record("t", "https://h.test/mixed/ok.html", pageFound)
	for i := 1; i <= 10; i++ {
		if d := g.record("t", fmt.Sprintf("https://h.test/mixed/%d.html", i), pageNotFound); d != nil {
			t.Fatalf("a directory with a page found demoted %q", d)
		}
	}
	// A fresh start of the topic (resetTopic) forgets its directories, and
	// only its own: the evaluation's later runs of a topic began with the
	// earlier runs' gone directories sunk.
	g.forget("t")
	if g.sunk("t", "https://h.test/gone/9.html") {
		t.Error("a forgotten topic's gone directory still sinks links")
	}
	if d := g.record("other", "https://h.test/gone/2.html", pageNotFound); d != nil {
		t.Errorf("another topic's second not-found answer demoted %q; its count was lost", d)
	}
	if d := g.record("other", "https://h.test/gone/3.html", pageNotFound); len(d) != 1 {
		t.Errorf("another topic's third not-found answer demoted %q; want its directory: forget kept its counts", d)
	}
}

// TestCrawlSliceSinksGoneDirectory: a hub links 20 pages of a directory
// that is gone (404), their anchors matching the topic best, and 5 real
// pages. The crawl fetches three of the gone pages, then the directory's
// other links sink below the real pages: all 5 are fetched within a budget
// of the hub, three gone pages and five (before, it went to the 404s in
// score order, and no real page was fetched). A link into the directory
// that a real page brings afterwards starts sunk too.
func TestCrawlSliceSinksGoneDirectory(t *testing.T) {
	a, topicName, served := crawlRoseHub(t, "/gone/%d.html", "/gone/new/21.html", nil)
	var gone, docs int
	for _, p := range served {
		switch {
		case strings.HasPrefix(p, "/gone/"):
			gone++
		case strings.HasPrefix(p, "/docs/"):
			docs++
		}
	}
	if docs != 5 || gone != goneAfter {
		t.Errorf("fetched %v: %d gone pages and %d real ones; want %d gone (then the directory sinks) and all 5 real", served, gone, docs, goneAfter)
	}
	// The gone links are still queued, sunk, not dropped.
	st, err := a.Store.FrontierStats(t.Context(), topicName)
	if err != nil || st.Queued != 21-goneAfter {
		t.Errorf("frontier %+v (%v): want the other %d gone links still queued", st, err, 21-goneAfter)
	}
}

// crawlRoseHub crawls, in one slice of one host at a time and a budget of
// 1 + goneAfter + 5, a rose garden hub at http://g.test/ that links 20
// pages at linkFmt (%d: 1…20; a path of g.test or a URL of another host),
// their anchors matching the topic best, and 5 real pages /docs/N.html,
// the first of which links late (a link found after the others failed).
// Anything else g.test answers 404. configure, when set, edits the
// worker's configuration. It returns the worker, the topic and the paths
// g.test served, in order.
func crawlRoseHub(t *testing.T, linkFmt, late string, configure func(*config.Config)) (*Activities, string, []string) {
	t.Helper()
	var mu sync.Mutex
	var fetched []string
	var links strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&links, `<a href="`+linkFmt+`">rose garden pruning roses %d</a> `, i, i)
	}
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&links, `<a href="/docs/%d.html">notes %d</a> `, i, i)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fetched = append(fetched, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		switch {
		case r.URL.Path == "/":
			fmt.Fprintf(w, "<html><title>Rose garden</title><body><p>%s</p>%s</body></html>", roseText(0), links.String())
		case r.URL.Path == "/docs/1.html":
			fmt.Fprintf(w, `<html><title>Rose notes</title><body><p>%s</p><a href="%s">rose garden pruning roses more</a></body></html>`, roseText(1), late)
		case strings.HasPrefix(r.URL.Path, "/docs/"):
			fmt.Fprintf(w, "<html><title>Rose notes</title><body><p>%s</p></body></html>", roseText(1))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	cfg := serverConfig(t, srv)
	if configure != nil {
		configure(cfg)
	}
	a := workerActivities(t, cfg)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: `name: roses
language: en
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8}
seeds: [http://g.test/]
limits: {max_pages: 50}
strategy: {page_filter: {name: vsm, threshold: 0.12}, accept: threshold, link_predictor: best-first, prune: false}
`})
	if err != nil {
		t.Fatal(err)
	}
	in := sliceInput(r, "s000001", 1+goneAfter+5)
	in.Hosts = 1 // one host at a time: the order is the frontier's
	if _, err := a.CrawlSlice(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return a, r.Topic, slices.Clone(fetched)
}

// TestGoneDirsDeadHost: a host sinks, on its site root, after goneAfter
// fetches it did not answer with no page served; a 404 never counts on the
// root, and a host that served a page never sinks as dead.
func TestGoneDirsDeadHost(t *testing.T) {
	var g goneDirs
	var got []string
	for i := 1; i <= goneAfter; i++ {
		got = append(got, g.record("t", fmt.Sprintf("http://dead.test/p/%d.html", i), hostDead)...)
	}
	if want := []string{"http://dead.test/"}; !slices.Equal(got, want) {
		t.Errorf("demotions after %d fetches without an answer: %q, want %q", goneAfter, got, want)
	}
	if !g.sunk("t", "http://dead.test/other/page.html") || !g.sunk("t", "http://dead.test/") || g.sunk("t", "https://dead.test/p/1.html") {
		t.Error("sunk: want every link of the dead host's site sunk, not the same host under another scheme")
	}
	for i := 1; i <= 10; i++ {
		if d := g.record("t", fmt.Sprintf("http://up.test/gone/%d.html", i), pageNotFound); slices.Contains(d, "http://up.test/") {
			t.Fatalf("404s demoted the site's root: %q", d)
		}
	}
	g.record("t", "http://blip.test/ok.html", pageFound)
	for i := 1; i <= 10; i++ {
		if d := g.record("t", fmt.Sprintf("http://blip.test/p/%d.html", i), hostDead); d != nil {
			t.Fatalf("a host that served a page demoted %q", d)
		}
	}
}

// TestCrawlSliceSinksDeadHost: a hub links 20 pages of a host where nothing
// listens, their anchors matching the topic best, and 5 real pages of its
// own host. Every fetch on the dead host is refused (its robots.txt cannot
// be read) and took a page of the budget: before, the crawl spent a budget
// of 9 on the hub and 8 of them; now the dead host's links sink after
// goneAfter refusals and all 5 real pages are fetched. The sunk links stay
// queued (a link found afterwards starts sunk: TestGoneDirsDeadHost).
func TestCrawlSliceSinksDeadHost(t *testing.T) {
	// Nothing listens where dead.test resolves: a port taken and released.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := l.Addr().String()
	l.Close()
	a, topicName, served := crawlRoseHub(t, "http://dead.test/p/%d.html", "http://dead.test/q/21.html",
		func(cfg *config.Config) { cfg.Fetch.Resolve["dead.test"] = deadAddr })
	var dead, docs int
	if err := a.Store.CrawlLog(t.Context(), "c1", func(p store.Page) error {
		switch {
		case strings.HasPrefix(p.URL, "http://dead.test/"):
			dead++
		case strings.Contains(p.URL, "/docs/"):
			docs++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if docs != 5 || dead != goneAfter {
		t.Errorf("crawled %d pages on the dead host and %d real ones (served %v); want %d on the dead host, then it sinks, and all 5 real",
			dead, docs, served, goneAfter)
	}
	st, err := a.Store.FrontierStats(t.Context(), topicName)
	if err != nil || st.Queued != 21-goneAfter {
		t.Errorf("frontier %+v (%v): want the dead host's other %d links still queued", st, err, 21-goneAfter)
	}
}

// TestDeadHostFailure: what counts as a host that does not answer, on real
// fetches. A robots.txt answered 500 or 429 is an answer (its host is up,
// and a 429 is held and requeued), and so is one that disallows; a
// redirect to a host where nothing listens is no failure of the host that
// redirected; a refusal from a cached robots.txt without an answer counts
// only when that failure lasts (nothing listens: it does here).
func TestDeadHostFailure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Host == "err500.test" && r.URL.Path == "/robots.txt":
			w.WriteHeader(http.StatusInternalServerError)
		case r.Host == "err429.test" && r.URL.Path == "/robots.txt":
			w.WriteHeader(http.StatusTooManyRequests)
		case r.Host == "deny.test" && r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /\n")
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case r.Host == "hop.test":
			http.Redirect(w, r, "http://dead.test/target.html", http.StatusMovedPermanently)
		default:
			fmt.Fprint(w, "<html><title>x</title><body>x</body></html>")
		}
	}))
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := l.Addr().String()
	l.Close()
	cfg := serverConfig(t, srv)
	cfg.Fetch.Resolve["dead.test"] = deadAddr
	a := workerActivities(t, cfg)
	for _, tc := range []struct {
		url         string
		robotsAsked bool
		want        fetch.Class
	}{
		{"http://err500.test/a.html", true, ""},
		{"http://err429.test/a.html", true, ""},
		{"http://deny.test/a.html", true, ""},
		{"http://hop.test/a.html", true, ""},
		{"http://dead.test/a.html", true, fetch.ClassConnect},
		// The same host's next URL, refused from the cache: nothing
		// listens (a lasting failure), so it counts too.
		{"http://dead.test/b.html", false, fetch.ClassConnect},
	} {
		_, ferr := a.Fetcher.Fetch(t.Context(), fetch.Request{URL: tc.url})
		if ferr == nil {
			t.Fatalf("%s: fetched; want a failure", tc.url)
		}
		e := store.FrontierEntry{URL: tc.url, Host: urlnorm.Host(tc.url)}
		if got, _ := a.deadHostFailure(e, ferr, tc.robotsAsked); got != tc.want {
			t.Errorf("%s (%v): dead host %q; want %q", tc.url, ferr, got, tc.want)
		}
	}
}

// TestDeadHostNeedsAWorkingNetwork: a failure that may be this worker's
// own trouble (a timeout, an unreachable network) counts against its host
// only when another host answered the worker while the fetch ran; one that
// is an answer about the host (nothing listens, no such name) counts as it
// comes. Before, a worker that lost its network for a minute sank every
// host that had not served a page yet.
func TestDeadHostNeedsAWorkingNetwork(t *testing.T) {
	cfg, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Not the default paths: they left a crawl store and an index in the
	// package's directory, which were committed by mistake.
	dir := t.TempDir()
	cfg.Store.Path, cfg.Index.Path = filepath.Join(dir, "crawl.db"), filepath.Join(dir, "index.db")
	a := workerActivities(t, cfg)
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	a.Now = func() time.Time { return now }
	fail := func(host string, i int, err error, class fetch.Class) {
		u := fmt.Sprintf("http://%s/p/%d.html", host, i)
		e := store.FrontierEntry{Topic: "t", URL: u, Host: host}
		began := now
		now = now.Add(time.Second)
		a.countDeadHost(t.Context(), e, &fetch.Error{URL: u, Class: class, Err: err}, false, began)
	}
	timeout := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	unreachable := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ENETUNREACH}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	nxdomain := &net.DNSError{Err: "no such host", Name: "gone.test", IsNotFound: true}
	for i := range 2 * goneAfter { // the worker's network is down: nobody answers
		fail("slow.test", i, timeout, fetch.ClassTimeout)
		fail("far.test", i, unreachable, fetch.ClassConnect)
	}
	if g := &a.gone; g.sunk("t", "http://slow.test/x.html") || g.sunk("t", "http://far.test/x.html") {
		t.Fatal("timeouts and an unreachable network while no host answered sank their hosts")
	}
	for i := range goneAfter { // answers about the host count without another host's answer
		fail("closed.test", i, refused, fetch.ClassConnect)
		fail("gone.test", i, nxdomain, fetch.ClassDNS)
	}
	if g := &a.gone; !g.sunk("t", "http://closed.test/x.html") || !g.sunk("t", "http://gone.test/x.html") {
		t.Error("a refused connection and NXDOMAIN did not sink their hosts")
	}
	// The network is back: another host answers while each fetch runs.
	for i := range goneAfter {
		u := fmt.Sprintf("http://hang.test/p/%d.html", i)
		e := store.FrontierEntry{Topic: "t", URL: u, Host: "hang.test"}
		began := now
		now = now.Add(time.Second)
		a.countGone(t.Context(), store.FrontierEntry{Topic: "t", URL: "http://up.test/ok.html", Host: "up.test"}, store.Page{Status: 200}, true)
		now = now.Add(time.Second)
		a.countDeadHost(t.Context(), e, &fetch.Error{URL: u, Class: fetch.ClassTimeout, Err: timeout}, false, began)
	}
	if !a.gone.sunk("t", "http://hang.test/x.html") {
		t.Error("a host that timed out while others answered did not sink")
	}
}

// TestNestedCrawl: an ended crawl's claims are released by its slices'
// prefix (ID + "/s") only when no other crawl's ID extends its own so — a
// crawl "nightly/second" has batches under "nightly/s" too (a review);
// "nightly/2" has not.
func TestNestedCrawl(t *testing.T) {
	crawls := []store.Crawl{{ID: "nightly"}, {ID: "nightly/second"}, {ID: "crawl/t/20261128T120000Z"}}
	if got := nestedCrawl("nightly", "crawl/t/new", crawls); got != "nightly/second" {
		t.Errorf("nestedCrawl(nightly) = %q, want nightly/second", got)
	}
	if got := nestedCrawl("nightly", "nightly/sweep", crawls[:1]); got != "nightly/sweep" {
		t.Errorf("nestedCrawl with the new crawl extending it = %q, want nightly/sweep", got)
	}
	if got := nestedCrawl("nightly", "nightly/2", crawls[:1]); got != "" {
		t.Errorf("nestedCrawl(nightly) beside nightly/2 = %q, want none: its slices are nightly/2/s…", got)
	}
	if got := nestedCrawl("crawl/t/20261128T120000Z", "crawl/t/20261128T130000Z", crawls); got != "" {
		t.Errorf("nestedCrawl of a default ID = %q, want none", got)
	}
}
