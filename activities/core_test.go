package activities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/fetchloop"
	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// The core activities' tests run each activity on a real SQLite crawl
// store and FTS5 index in a temporary directory, fetching from loopBackSite
// over loopback HTTP (fetch.resolve maps *.test to it).

// missingURL is a link of loopBackSite that answers 404.
const missingURL = "http://c.test/missing"

// sitePage is one page of loopBackSite.
type sitePage struct {
	title, text string
	links       []string // absolute URLs
	onTopic     bool
}

// loopBackSite is a small web of three hosts on one loopback listener, told
// apart by Host header: a.test and b.test about roses, c.test about
// football, with one broken link (missingURL). It records every request and the most requests it ever had in
// flight per host and in all.
type loopBackSite struct {
	pages map[string]sitePage // URL → page
	srv   *httptest.Server
	cSeen chan struct{} // closed at c.test's first request
	cOnce sync.Once
	// onCSeen, when set, runs once at c.test's first request, before it
	// is answered.
	onCSeen func()
	// overload answers a URL's first n requests 429 with Retry-After: 1.
	overload map[string]int
	// robotsTag sends a URL's page with this X-Robots-Tag header.
	robotsTag map[string]string
	// redirect answers a URL with a 301 to another URL of the site.
	redirect map[string]string
	// status answers a URL with this status and no page.
	status map[string]int
	// down closes every connection to these hosts without an answer, as
	// a host that is gone does (a transient connect failure). Under mu.
	down map[string]bool
	// refuse answers every request to these hosts, robots.txt included,
	// with this status, as a firewall refusing the crawler does. Under mu.
	refuse map[string]int
	// lastModified, when set, is every page's Last-Modified header.
	lastModified string
	// etag, when set, is every page's ETag; a request whose If-None-Match
	// is it is answered 304, as a server with validators does. Under mu.
	etag string
	// notModifiedSent counts the 304s sent per URL; under mu.
	notModifiedSent map[string]int
	// notModified answers every conditional request for a page (one with
	// If-None-Match or If-Modified-Since) 304, whatever it carries.
	notModified bool
	// robots, when set, is every host's robots.txt (404 otherwise).
	robots string

	// conditional counts the requests per URL that carried validators
	// (If-None-Match or If-Modified-Since); under mu.
	conditional map[string]int

	mu          sync.Mutex
	requests    map[string]int // URL (path included) → requests
	inFlight    map[string]int
	maxPerHost  int
	total       int
	maxInFlight int
}

func roseText(i int) string {
	return strings.Repeat(fmt.Sprintf("Roses in the garden: pruning roses, rose varieties number %d, garden rose care. ", i), 5)
}

func sportText(i int) string {
	return strings.Repeat(fmt.Sprintf("Football match %d: the striker scored a goal, the league season and the referee. ", i), 5)
}

func newLoopBackSite(t *testing.T) *loopBackSite {
	t.Helper()
	s := &loopBackSite{pages: map[string]sitePage{}, requests: map[string]int{}, inFlight: map[string]int{}, cSeen: make(chan struct{})}
	s.pages["http://a.test/"] = sitePage{"Rose garden", roseText(0),
		[]string{"http://a.test/roses/1", "http://a.test/roses/2", "http://a.test/roses/3", "http://b.test/", "http://c.test/"}, true}
	for i := 1; i <= 3; i++ {
		s.pages[fmt.Sprintf("http://a.test/roses/%d", i)] = sitePage{fmt.Sprintf("Rose %d", i), roseText(i), []string{"http://a.test/"}, true}
	}
	s.pages["http://b.test/"] = sitePage{"Roses of b", roseText(4), []string{"http://b.test/p1", "http://b.test/p2"}, true}
	s.pages["http://b.test/p1"] = sitePage{"Pruning roses", roseText(5), nil, true}
	s.pages["http://b.test/p2"] = sitePage{"Climbing roses", roseText(6), []string{"http://c.test/x"}, true}
	s.pages["http://c.test/"] = sitePage{"Football", sportText(1), []string{"http://c.test/x"}, false}
	s.pages["http://c.test/x"] = sitePage{"Match report", sportText(2), []string{missingURL}, false}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *loopBackSite) serve(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	u := "http://" + host + r.URL.Path
	s.mu.Lock()
	s.requests[u]++
	if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
		if s.conditional == nil {
			s.conditional = map[string]int{}
		}
		s.conditional[u]++
	}
	s.inFlight[host]++
	s.total++
	s.maxPerHost = max(s.maxPerHost, s.inFlight[host])
	s.maxInFlight = max(s.maxInFlight, s.total)
	down := s.down[host]
	s.mu.Unlock()
	if down {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		s.mu.Lock()
		s.inFlight[host]--
		s.total--
		s.mu.Unlock()
		return
	}
	defer func() {
		s.mu.Lock()
		s.inFlight[host]--
		s.total--
		s.mu.Unlock()
	}()
	// b.test's root answers only once c.test has seen a request (both are
	// linked from the seed, so a crawler serving hosts side by side fetches
	// them together): then at least two requests are in flight whatever the
	// machine's speed. A crawler that serves one host at a time waits out
	// the fallback and fails the test's maxInFlight check.
	switch {
	case host == "c.test":
		s.cOnce.Do(func() {
			if s.onCSeen != nil {
				s.onCSeen()
			}
			close(s.cSeen)
		})
	case u == "http://b.test/":
		select {
		case <-s.cSeen:
		case <-time.After(10 * time.Second):
		}
	}
	time.Sleep(10 * time.Millisecond) // a request lasts a while, so overlapping ones to one host would show
	s.mu.Lock()
	busy := s.requests[u] <= s.overload[u]
	s.mu.Unlock()
	if busy {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "slow down", http.StatusTooManyRequests)
		return
	}
	if r.URL.Path == "/robots.txt" && s.robots != "" {
		io.WriteString(w, s.robots)
		return
	}
	if to := s.redirect[u]; to != "" {
		http.Redirect(w, r, to, http.StatusMovedPermanently)
		return
	}
	s.mu.Lock()
	refuse := s.refuse[host]
	s.mu.Unlock()
	if code := s.status[u]; code != 0 || refuse != 0 {
		w.WriteHeader(max(code, refuse))
		return
	}
	s.mu.Lock()
	notModified := s.notModified && (r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "")
	etag := s.etag
	if etag != "" && r.Header.Get("If-None-Match") == etag {
		notModified = true
	}
	if notModified {
		if s.notModifiedSent == nil {
			s.notModifiedSent = map[string]int{}
		}
		s.notModifiedSent[u]++
	}
	s.mu.Unlock()
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	if notModified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	p, ok := s.pages[u]
	if !ok {
		http.NotFound(w, r)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html lang=en><head><title>%s</title></head><body><h1>%s</h1><p>%s</p><ul>", p.title, p.title, p.text)
	for _, l := range p.links {
		fmt.Fprintf(&b, "<li><a href=\"%s\">more on %s</a></li>", l, strings.TrimPrefix(l, "http://"))
	}
	b.WriteString("</ul></body></html>")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if s.lastModified != "" {
		w.Header().Set("Last-Modified", s.lastModified)
	}
	if v := s.robotsTag[u]; v != "" {
		w.Header().Set("X-Robots-Tag", v)
	}
	io.WriteString(w, b.String())
}

// setDown takes host off the network (true) or brings it back.
func (s *loopBackSite) setDown(host string, down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down == nil {
		s.down = map[string]bool{}
	}
	s.down[host] = down
}

// reset forgets the requests so far (StartCrawl's sample page fetches).
func (s *loopBackSite) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = map[string]int{}
}

// pageRequests counts the requests for pages (robots.txt excluded).
func (s *loopBackSite) pageRequests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for u, n := range s.requests {
		if !strings.HasSuffix(u, "/robots.txt") {
			out[u] = n
		}
	}
	return out
}

// checkPolite checks that every page was requested exactly once and never
// two requests were in flight to one host.
func (s *loopBackSite) checkPolite(t *testing.T) {
	t.Helper()
	for u, c := range s.pageRequests() {
		if c != 1 {
			t.Errorf("%s requested %d times", u, c)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maxPerHost != 1 {
		t.Errorf("%d requests in flight to one host; want 1", s.maxPerHost)
	}
}

// links counts the site's links, all pages together.
func (s *loopBackSite) links() int {
	n := 0
	for _, p := range s.pages {
		n += len(p.links)
	}
	return n
}

// siteTopicYAML pins accept: threshold: these tests check the slice's
// decisions at a fixed threshold (split acceptance's decisions depend on
// the crawl's score distribution; internal/relevance/split_test.go).
const siteTopicYAML = `name: roses
language: en
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8}
seeds: [http://a.test/]
samples: [http://a.test/roses/1]
scope: {hosts: [a.test, b.test, c.test]}
limits: {max_pages: 50}
strategy: {page_filter: {name: vsm, threshold: 0.12}, accept: threshold, link_predictor: best-first, prune: false}
`

// siteActivities builds the activities the worker would (activities.New
// on the default configuration) over a store and an index in a temporary
// directory, fetching from site.
func siteActivities(t *testing.T, site *loopBackSite) *Activities {
	t.Helper()
	return workerActivities(t, siteConfig(t, site))
}

// siteConfig is a worker configuration for loopBackSite, with its crawl
// store and index in a new temporary directory.
func siteConfig(t *testing.T, site *loopBackSite) *config.Config {
	t.Helper()
	return serverConfig(t, site.srv)
}

// serverConfig is a worker configuration for srv, which answers every
// *.test host, with its crawl store and index in a new temporary directory.
func serverConfig(t *testing.T, srv *httptest.Server) *config.Config {
	t.Helper()
	cfg, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg.Store.Path = filepath.Join(dir, "crawl.db")
	cfg.Index.Driver, cfg.Index.Path = "sqlite", filepath.Join(dir, "index.db")
	cfg.Fetch.AllowPrivateNetworks = true
	cfg.Fetch.Resolve = map[string]string{"*.test": strings.TrimPrefix(srv.URL, "http://")}
	cfg.Fetch.HostDelay, cfg.Fetch.Retries = 0, 0
	cfg.Crawl.LexiconDir = ""
	return cfg
}

// workerActivities is a worker's Activities on cfg, closed with the test.
func workerActivities(t *testing.T, cfg *config.Config) *Activities {
	t.Helper()
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// runActivity runs the named activity of a in Temporal's activity test
// environment, with a real activity context (StartCrawl and UpdateTopic
// heartbeat while they fetch sample pages), and decodes its result into out.
func runActivity(a *Activities, name string, in, out any) error {
	env := activityEnv(a)
	v, err := env.ExecuteActivity(name, in)
	if err != nil {
		return err
	}
	return v.Get(out)
}

// activityEnv is Temporal's activity test environment with a's activities
// registered and the SDK's log discarded.
func activityEnv(a *Activities) *testsuite.TestActivityEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestActivityEnvironment()
	a.Register(env)
	return env
}

// startCrawl runs StartCrawl (see runActivity).
func startCrawl(a *Activities, in crawlapi.StartCrawlInput) (crawlapi.StartCrawlResult, error) {
	var r crawlapi.StartCrawlResult
	err := runActivity(a, crawlapi.StartCrawl.Name, in, &r)
	return r, err
}

// startSiteCrawl runs StartCrawl for crawl "c1" of siteTopicYAML.
func startSiteCrawl(t *testing.T, a *Activities) crawlapi.StartCrawlResult {
	t.Helper()
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: siteTopicYAML})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// siteCrawl is the loopback site with crawl "c1" of siteTopicYAML started
// on it (the sample page's request forgotten).
func siteCrawl(t *testing.T) (*loopBackSite, *Activities, crawlapi.StartCrawlResult) {
	t.Helper()
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	r := startSiteCrawl(t, a)
	site.reset()
	return site, a, r
}

// sliceInput is a slice of crawl c1 without a time limit.
func sliceInput(r crawlapi.StartCrawlResult, id string, budget int) crawlapi.SliceInput {
	return crawlapi.SliceInput{CrawlID: "c1", Topic: r.Topic, SliceID: "c1/" + id, TopicVersion: r.TopicVersion,
		ModelVersion: r.ModelVersion, Budget: budget, Hosts: 8, Group: 4, Lease: time.Minute}
}

// decisions maps every page of crawl c1 to its decision.
func decisions(t *testing.T, st store.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := st.CrawlLog(context.Background(), "c1", func(p store.Page) error {
		out[p.URL] = p.Decision
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkDecisions checks that every site page was judged, on-topic pages
// accepted and the others rejected, the broken link's page an error, and
// returns how many were accepted.
func checkDecisions(t *testing.T, site *loopBackSite, st store.Store) int {
	t.Helper()
	got := decisions(t, st)
	accepted := 0
	for u, p := range site.pages {
		want := store.DecisionRejected
		if p.onTopic {
			want = store.DecisionAccepted
			accepted++
		}
		if got[u] != want {
			t.Errorf("%s: decision %q, want %q", u, got[u], want)
		}
	}
	if got[missingURL] != store.DecisionError || len(got) != len(site.pages)+1 {
		t.Errorf("pages %v; want the site's %d and the broken link's error", got, len(site.pages))
	}
	return accepted
}

// wantStats is the BatchStats of a crawl of the whole site: every page
// fetched, parsed and judged, the broken link fetched and failed.
func wantStats(site *loopBackSite, accepted int) store.BatchStats {
	n := len(site.pages)
	return store.BatchStats{Claimed: n + 1, Fetched: n + 1, OK: n, Failed: 1, Errors: 1, Parsed: n,
		Accepted: accepted, Rejected: n - accepted, Indexed: accepted}
}

// TestStartCrawl: the topic is stored as version 1, the crawl registered as
// running, the topic model built from keywords, description and the fetched
// sample page, the in-scope seeds enqueued once, and the crawl parameters
// taken from the configuration; starting again changes nothing.
func TestStartCrawl(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	ctx := context.Background()
	yaml := strings.Replace(siteTopicYAML, "seeds: [http://a.test/]", "seeds: [http://a.test/, http://b.test/, http://a.test/#top]", 1)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
	if err != nil {
		t.Fatal(err)
	}
	// The seed that normalises to another is enqueued once; the sample page is fetched.
	if r.Topic != "roses" || r.TopicVersion != 1 || r.ModelVersion != 1 || r.Seeded != 2 || r.Samples != 1 {
		t.Errorf("result %+v; want roses v1, model v1, 2 seeds, 1 sample", r)
	}
	c := a.CrawlCfg
	// best-first reads no learned link model, so the crawl never learns one.
	if r.Params.MaxPages != 50 || r.Params.Pipelines != c.Pipelines || r.Params.Slice != c.Slice ||
		r.Params.LearnEvery != 0 || r.Params.SlicesPerRun != c.SlicesPerRun || r.Params.Lease != c.Lease {
		t.Errorf("params %+v; want the crawl configuration, the topic's max_pages and no learning", r.Params)
	}
	jlse := strings.Replace(strings.Replace(yaml, "name: roses", "name: roses-jlse", 1), "link_predictor: best-first", "link_predictor: jlse", 1)
	if rj, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1-jlse", TopicYAML: jlse}); err != nil {
		t.Fatal(err)
	} else if rj.Params.LearnEvery != c.LearnEvery {
		t.Errorf("jlse crawl learns every %d accepted pages, want crawl.learn_every %d", rj.Params.LearnEvery, c.LearnEvery)
	}
	if rec, err := a.Store.Topic(ctx, "roses", 1); err != nil || string(rec.YAML) != yaml {
		t.Errorf("stored topic v1: %q, %v", rec.YAML, err)
	}
	if cr, err := a.Store.Crawl(ctx, "c1"); err != nil || cr.State != store.CrawlRunning || cr.TopicVersion != 1 || cr.Topic != "roses" {
		t.Errorf("crawl row %+v, %v", cr, err)
	}
	data, _, err := a.Store.Model(ctx, "roses", topic.ModelKind, r.ModelVersion)
	if err != nil {
		t.Fatal(err)
	}
	m, err := topic.DecodeModel(data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Terms["rose"] == 0 || m.SamplesVersion == 0 {
		t.Errorf("model: rose weight %v, samples v%d; want the keyword and the sample page", m.Terms["rose"], m.SamplesVersion)
	}
	if fs, err := a.Store.FrontierStats(ctx, "roses"); err != nil || fs.Queued != 2 {
		t.Errorf("frontier %+v, %v; want 2 queued seeds", fs, err)
	}
	// Starting again is harmless: same versions, no new seeds, the sample
	// fetched again but no new model version.
	again, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
	if err != nil || again.TopicVersion != 1 || again.ModelVersion != 1 || again.Seeded != 0 {
		t.Errorf("second StartCrawl %+v, %v; want v1, model v1, nothing seeded", again, err)
	}
}

// TestFreshStartUsesTheNewModel: a user edits the topic file and starts
// the crawl again with --fresh on the same worker. The reset deletes the
// topic's models; the new model must be the one the crawl judges with,
// not the previous file's, which the worker had decoded under the same
// version number (version numbers restarted at 1 after a reset, and
// models are cached by number).
func TestFreshStartUsesTheNewModel(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	ctx := context.Background()
	r1, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: siteTopicYAML})
	if err != nil {
		t.Fatal(err)
	}
	lt1, err := a.loadTopic(ctx, "roses", r1.TopicVersion, r1.ModelVersion)
	if err != nil || lt1.Model.Terms["tulip"] != 0 {
		t.Fatalf("first model: %v, tulip weight %v", err, lt1.Model.Terms["tulip"])
	}
	edited := strings.Replace(siteTopicYAML, "keywords: {rose: 1.0,", "keywords: {tulip: 1.0, rose: 1.0,", 1)
	r2, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c2", TopicYAML: edited, Fresh: true})
	if err != nil {
		t.Fatal(err)
	}
	if r2.ModelVersion == r1.ModelVersion {
		t.Errorf("the edited file's model has version %d, as the previous one had: a reset must not reuse a version number", r2.ModelVersion)
	}
	lt2, err := a.loadTopic(ctx, "roses", r2.TopicVersion, r2.ModelVersion)
	if err != nil {
		t.Fatal(err)
	}
	if lt2.Model.Terms["tulip"] == 0 {
		t.Errorf("the fresh crawl judges with the previous file's model (no 'tulip' among %d terms)", len(lt2.Model.Terms))
	}
}

// TestStartCrawlInvalidTopic: a bad topic file is a non-retryable
// InvalidTopic error, and no crawl is registered.
func TestStartCrawlInvalidTopic(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	for name, yaml := range map[string]string{
		"not yaml":       "name: [",
		"no name":        "keywords: {rose: 1}\nseeds: [http://a.test/]\n",
		"unknown filter": strings.Replace(siteTopicYAML, "name: vsm", "name: no-such-filter", 1),
		// A topic whose model has no term used to start, and every slice
		// then failed, retried without end: "topic model has no terms".
		"only stop words":  "name: roses\nkeywords: {the: 1, 的: 1}\ndescription: and of the\nseeds: [http://a.test/]\n",
		"only punctuation": "name: roses\ndescription: \"!!! ... ，。！？\"\nseeds: [http://a.test/]\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
			var appErr *temporal.ApplicationError
			if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrInvalidTopic || !appErr.NonRetryable() {
				t.Fatalf("error %v; want a non-retryable %s", err, crawlapi.ErrInvalidTopic)
			}
			if _, err := a.Store.Crawl(context.Background(), "c1"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("an invalid topic registered crawl c1 (%v)", err)
			}
		})
	}
}

// TestStartCrawlSamplesUnreachable: a topic whose only terms would come
// from sample pages none of which could be fetched is refused retryably (a
// sample host down for a minute must not fail the crawl for good), and
// nothing of it is stored: no crawl, no topic version (a later refresh
// would run the refused file with the previous model).
func TestStartCrawlSamplesUnreachable(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	yaml := "name: roses\nsamples: [" + missingURL + "]\nseeds: [http://a.test/]\nscope: {hosts: [a.test, c.test]}\n"
	_, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
	var appErr *temporal.ApplicationError
	if err == nil || !strings.Contains(err.Error(), "none of its 1 sample pages") || (errors.As(err, &appErr) && appErr.NonRetryable()) {
		t.Fatalf("error %v; want a retryable refusal naming the unreachable samples", err)
	}
	if _, err := a.Store.Crawl(context.Background(), "c1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused topic registered crawl c1 (%v)", err)
	}
	if tp, err := a.Store.Topic(context.Background(), "roses", 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused topic was stored (%+v, %v)", tp, err)
	}
}

// TestStartCrawlReusedID: StartCrawl run again for a running crawl (an
// activity retry) passes; a finished crawl's ID, or another topic's, is a
// non-retryable BadInput error that says what to do.
func TestStartCrawlReusedID(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	startSiteCrawl(t, a)
	if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: siteTopicYAML}); err != nil {
		t.Fatalf("StartCrawl again for running crawl c1: %v", err)
	}
	other := strings.Replace(siteTopicYAML, "name: roses", "name: tulips", 1)
	if other == siteTopicYAML {
		t.Fatal("test topic has no 'name: roses' line")
	}
	wantRefused := func(what, yml string, fresh bool) {
		t.Helper()
		_, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yml, Fresh: fresh})
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrBadInput || !appErr.NonRetryable() ||
			!strings.Contains(err.Error(), "already used") {
			t.Errorf("%s: error %v; want a non-retryable %s saying the ID was already used", what, err, crawlapi.ErrBadInput)
		}
	}
	wantRefused("another topic under a running crawl's ID", other, false)
	if err := a.Store.SetCrawlState(context.Background(), "c1", store.CrawlCompleted); err != nil {
		t.Fatal(err)
	}
	wantRefused("a completed crawl's ID", siteTopicYAML, false)
	wantRefused("a completed crawl's ID, fresh", siteTopicYAML, true)
	if c, err := a.Store.Crawl(context.Background(), "c1"); err != nil || c.State != store.CrawlCompleted || c.Topic != "roses" {
		t.Errorf("crawl c1 after refused starts: %+v, %v; want it unchanged (completed, roses)", c, err)
	}
}

// TestCrawlSlice crawls the whole loopback site in one slice: every page
// fetched once, parsed, judged, the relevant ones indexed, links enqueued
// and every entry completed, with exact counts; never more than one
// request in flight per host, while hosts are served side by side.
func TestCrawlSlice(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := context.Background()
	res, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100))
	if err != nil {
		t.Fatal(err)
	}
	n := len(site.pages)
	accepted := checkDecisions(t, site, a.Store)
	if want := wantStats(site, accepted); res.Stats != want {
		t.Errorf("stats %+v; want %+v", res.Stats, want)
	}
	// Every page and the broken link but the seed were enqueued.
	if !res.Exhausted || res.Queued != 0 || res.Enqueued != n || res.Links != site.links() {
		t.Errorf("result %+v; want the frontier exhausted, %d enqueued, %d links", res, n, site.links())
	}
	site.checkPolite(t)
	if fs, err := a.Store.FrontierStats(ctx, "roses"); err != nil || fs != (store.FrontierStats{Done: n + 1}) {
		t.Errorf("frontier %+v, %v; want all %d entries done", fs, err, n+1)
	}
	if c, err := a.Index.Count(ctx, "roses"); err != nil || c != accepted {
		t.Errorf("index holds %d documents (%v); want the %d accepted pages", c, err, accepted)
	}
	if site.maxInFlight < 2 {
		t.Errorf("at most %d request in flight; want hosts served side by side", site.maxInFlight)
	}
	// The worker's busy-host set is empty once the slice ends.
	if busy := a.serving.hosts("roses", nil); len(busy) != 0 {
		t.Errorf("hosts still marked busy: %v", busy)
	}
}

// TestCrawlSliceXRobotsTag: a page sent with "X-Robots-Tag: noindex" is
// judged (and accepted) but not indexed, one with "nofollow" has its links
// recorded but not followed, and a tag addressed to another crawler changes
// nothing. Before, the header was ignored.
func TestCrawlSliceXRobotsTag(t *testing.T) {
	site, a, r := siteCrawl(t)
	site.robotsTag = map[string]string{
		"http://a.test/roses/1": "noindex",
		"http://b.test/":        "nofollow",
		"http://a.test/roses/2": "otherbot: noindex",
	}
	if _, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	page := func(u string) store.Page {
		t.Helper()
		p, err := a.Store.Page(t.Context(), "roses", urlnorm.Hash(u))
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		return p
	}
	if p := page("http://a.test/roses/1"); p.Decision != store.DecisionAccepted || p.Indexed || p.RobotsTag != "noindex" {
		t.Errorf("noindex page: %s, indexed %v, tag %q; want accepted, not indexed", p.Decision, p.Indexed, p.RobotsTag)
	}
	if p := page("http://a.test/roses/2"); !p.Indexed {
		t.Errorf("page with another crawler's noindex: not indexed")
	}
	// b.test's root is the only page linking to b.test/p1 and p2.
	for _, u := range []string{"http://b.test/p1", "http://b.test/p2"} {
		if _, err := a.Store.Page(t.Context(), "roses", urlnorm.Hash(u)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s fetched (%v); want it not followed from a nofollow page", u, err)
		}
	}
}

// TestCrawlSliceRequeuesHeldHost: an entry whose host answers 429 with
// Retry-After goes back to the queue and is fetched after the hold, the
// crawl's other hosts served meanwhile; after maxHeldAttempts claims the
// failure is recorded as the page's. Before, the first 429 was final.
func TestCrawlSliceRequeuesHeldHost(t *testing.T) {
	for _, tc := range []struct {
		refusals, requests, status int
	}{
		{1, 2, http.StatusOK},
		{maxHeldAttempts, maxHeldAttempts, http.StatusTooManyRequests},
	} {
		t.Run(fmt.Sprint(tc.refusals, " refusals"), func(t *testing.T) {
			site, a, r := siteCrawl(t)
			const busy = "http://b.test/p1"
			site.overload = map[string]int{busy: tc.refusals}
			res, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100))
			if err != nil {
				t.Fatal(err)
			}
			p, err := a.Store.Page(t.Context(), "roses", urlnorm.Hash(busy))
			if err != nil {
				t.Fatal(err)
			}
			if got := site.pageRequests()[busy]; got != tc.requests || p.Status != tc.status {
				t.Errorf("%s: %d requests, stored status %d; want %d, %d", busy, got, p.Status, tc.requests, tc.status)
			}
			if !res.Exhausted || res.Queued != 0 || res.Stats.Fetched != len(site.pages)+1 {
				t.Errorf("result %+v; want every page fetched once (the broken link too), the frontier exhausted", res)
			}
			for u, c := range site.pageRequests() {
				if c != 1 && u != busy {
					t.Errorf("%s requested %d times", u, c)
				}
			}
		})
	}
}

// TestCrawlSliceBudget: a slice claims no more than its budget, counted
// over all its attempts, and leaves the rest queued.
func TestCrawlSliceBudget(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	r := startSiteCrawl(t, a)
	res, err := a.CrawlSlice(context.Background(), sliceInput(r, "s000001", 4))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Claimed != 4 || res.Stats.Fetched != 4 || res.Exhausted || res.Queued == 0 {
		t.Errorf("result %+v; want 4 claimed and fetched, the frontier not exhausted", res)
	}
	// The same slice called again (a new attempt) has nothing left to claim.
	again, err := a.CrawlSlice(context.Background(), sliceInput(r, "s000001", 4))
	if err != nil || again.Stats.Claimed != 4 {
		t.Errorf("second call %+v, %v; want the same 4 claims", again.Stats, err)
	}
}

// sliceFencedAtC runs slice s000001 of crawl c1 with budget, its fence
// raised to 2 (a retry started) at c.test's first request, before c.test is
// answered, and returns the slice's error.
func sliceFencedAtC(t *testing.T, budget int) (*loopBackSite, *Activities, crawlapi.StartCrawlResult, crawlapi.SliceInput, error) {
	t.Helper()
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	r := startSiteCrawl(t, a)
	ctx := context.Background()
	in := sliceInput(r, "s000001", budget)
	raised := make(chan error, 1)
	site.onCSeen = func() { raised <- a.Store.RaiseFence(ctx, in.Topic, store.Fence{Name: in.SliceID, Token: 2}) }
	_, err := a.CrawlSlice(ctx, in)
	select {
	case rerr := <-raised:
		if rerr != nil {
			t.Fatalf("RaiseFence: %v", rerr)
		}
	default:
		t.Fatal("the slice ended without requesting c.test")
	}
	return site, a, r, in, err
}

// TestCrawlSliceFenced: a slice attempt whose retry has started (its fence
// raised to attempt 2 while it runs, here at c.test's first request) stops
// claiming at its next claim and fails as superseded, leaving the rest of
// the frontier to the retry; an attempt that starts already fenced off
// claims nothing.
func TestCrawlSliceFenced(t *testing.T) {
	site, a, r, in, err := sliceFencedAtC(t, 100)
	ctx := context.Background()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrSuperseded || !appErr.NonRetryable() {
		t.Fatalf("CrawlSlice after its fence rose: %v; want a non-retryable %s error", err, crawlapi.ErrSuperseded)
	}
	fs, err := a.Store.FrontierStats(ctx, in.Topic)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Queued == 0 {
		t.Errorf("frontier %+v after the superseded attempt; want entries left queued for the retry", fs)
	}
	count := func() (n int) {
		for _, k := range site.pageRequests() {
			n += k
		}
		return n
	}
	fetched := count()
	// Started fenced off: no claim, no request.
	if _, err := a.CrawlSlice(ctx, in); !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrSuperseded {
		t.Errorf("CrawlSlice fenced off from the start: %v; want %s", err, crawlapi.ErrSuperseded)
	}
	if n := count(); n != fetched {
		t.Errorf("the fenced-off attempt made %d requests; want none", n-fetched)
	}
	// A store failure while raising the fence is not a supersession: the
	// attempt fails retryably.
	st := a.Store
	a.Store = failingFence{st}
	_, err = a.CrawlSlice(ctx, sliceInput(r, "s000002", 100))
	a.Store = st
	if err == nil || errors.As(err, &appErr) {
		t.Errorf("CrawlSlice when the fence cannot be raised: %v; want a plain (retryable) error", err)
	}
	// ReleaseSlice fences the slice off for good, whatever the attempt.
	if _, err := a.ReleaseSlice(ctx, crawlapi.ReleaseSliceInput{Topic: in.Topic, SliceID: in.SliceID}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.RaiseFence(ctx, in.Topic, store.Fence{Name: in.SliceID, Token: 1 << 40}); !errors.Is(err, store.ErrFenced) {
		t.Errorf("RaiseFence after ReleaseSlice: %v; want ErrFenced", err)
	}
}

// TestCrawlSlicePrunesOldFences: a slice drops the topic's fences raised
// more than fenceKeep before it starts (their attempts are past their
// deadlines) and keeps the recent ones.
func TestCrawlSlicePrunesOldFences(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	r := startSiteCrawl(t, a)
	ctx := context.Background()
	old := store.Fence{Name: "s000001", Token: 50}
	if err := a.Store.RaiseFence(ctx, r.Topic, old); err != nil {
		t.Fatal(err)
	}
	stillHeld := func() bool {
		err := a.Store.RaiseFence(ctx, r.Topic, store.Fence{Name: old.Name, Token: 1})
		if err != nil && !errors.Is(err, store.ErrFenced) {
			t.Fatal(err)
		}
		return err != nil
	}
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000002", 1)); err != nil {
		t.Fatal(err)
	}
	if !stillHeld() {
		t.Fatal("a fence raised just now was pruned")
	}
	a.Now = func() time.Time { return time.Now().Add(fenceKeep(ctx) + time.Hour) }
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000003", 1)); err != nil {
		t.Fatal(err)
	}
	if stillHeld() {
		t.Error("a fence raised longer than fenceKeep ago was kept")
	}
}

// TestCrawlSliceWritesFenced: a superseded attempt that has nothing left
// to claim (its budget is spent: the seed and the three hosts it links to)
// still cannot write: the fence rises at c.test's request, and the groups
// with c.test's and b.test's pages fail to save.
func TestCrawlSliceWritesFenced(t *testing.T) {
	_, a, _, in, err := sliceFencedAtC(t, 4)
	ctx := context.Background()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrSuperseded {
		t.Fatalf("CrawlSlice whose fence rose after its last claim: %v; want %s", err, crawlapi.ErrSuperseded)
	}
	if p, err := a.Store.Page(ctx, in.Topic, urlnorm.Hash("http://c.test/")); err == nil && p.Decision != store.DecisionPending {
		t.Errorf("c.test/ was judged %q by the superseded attempt; want its writes refused", p.Decision)
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
}

// TestCrawlSliceFallbackSaveFenced: when a group's write fails for another
// reason than the fence (here a lost connection), the slice saves the
// group's pages one by one. If its retry has started meanwhile (the fence
// rose between the two), those saves must be refused as the group write
// would have been: the superseded attempt saves nothing after the fence
// rose. Before, the one-by-one saves carried no fence, and the attempt
// saved the seed's page after its retry had started — a page row beside an
// entry the retry had put back in the queue.
func TestCrawlSliceFallbackSaveFenced(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := t.Context()
	in := sliceInput(r, "s000001", 100)
	st := a.Store
	a.Store = &raiseOnFailedSave{Store: st, topic: in.Topic, fence: store.Fence{Name: in.SliceID, Token: 2}}
	_, err := a.CrawlSlice(ctx, in)
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrSuperseded {
		t.Fatalf("CrawlSlice whose fence rose after its group write failed: %v; want %s", err, crawlapi.ErrSuperseded)
	}
	if p, err := st.Page(ctx, in.Topic, urlnorm.Hash("http://a.test/")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the superseded attempt saved the seed's page (%v, %v); want nothing saved after the fence rose", p.URL, err)
	}
}

// raiseOnFailedSave is a store whose first group write that saves pages
// fails with a lost connection, as the slice's retry starts: the fence
// rises to fence.Token before the error returns.
type raiseOnFailedSave struct {
	store.Store
	topic  string
	fence  store.Fence
	failed atomic.Bool
}

func (s *raiseOnFailedSave) WriteGroup(ctx context.Context, g store.GroupWrite) (store.GroupResult, error) {
	if len(g.Pages) > 0 && s.failed.CompareAndSwap(false, true) {
		if err := s.Store.RaiseFence(ctx, s.topic, s.fence); err != nil {
			return store.GroupResult{}, err
		}
		return store.GroupResult{}, errInjected
	}
	return s.Store.WriteGroup(ctx, g)
}

// failingFence is a store whose fences cannot be raised (the database is
// unreachable).
type failingFence struct{ store.Store }

func (failingFence) RaiseFence(context.Context, string, store.Fence) error {
	return errors.New("connection refused")
}

// TestCrawlSliceJudgesOrphanedPage: a page saved by an attempt after its
// entry went back to the queue (the attempt's retry requeued it while the
// fetch ran, then the attempt was fenced off or killed before judging it)
// is judged when the entry is claimed again — not fetched again, and not
// completed unjudged with its links lost.
func TestCrawlSliceJudgesOrphanedPage(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := context.Background()
	old := "c1/s000001/a1/c000001"
	if _, err := a.Store.ClaimBatch(ctx, store.ClaimRequest{Topic: r.Topic, CrawlID: "c1", BatchID: old, Max: 1}); err != nil {
		t.Fatal(err)
	}
	entries, err := a.Store.BatchEntries(ctx, r.Topic, old)
	if err != nil || len(entries) != 1 {
		t.Fatalf("claimed %d entries (%v); want the seed", len(entries), err)
	}
	if _, err := a.Store.ReleaseBatches(ctx, r.Topic, "c1/s000001/"); err != nil { // the retry's take-over
		t.Fatal(err)
	}
	ref := crawlapi.BatchRef{CrawlID: "c1", Topic: r.Topic, BatchID: old, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if out, p, err := a.fetchOne(ctx, ref, entries[0]); err != nil || out != outcomeOK || p.Decision != store.DecisionPending {
		t.Fatalf("the old attempt's fetch: outcome %v, decision %q, %v; want a saved, unjudged page", out, p.Decision, err)
	}
	res, err := a.CrawlSlice(ctx, sliceInput(r, "s000002", 100))
	if err != nil {
		t.Fatal(err)
	}
	accepted := checkDecisions(t, site, a.Store) // every page judged: the seed's links were followed
	site.checkPolite(t)                          // every page requested once: the seed was not fetched again
	// This slice claimed every entry, the seed again included, and
	// fetched all but the seed (its page row is the old slice's).
	want := wantStats(site, accepted)
	if res.Stats.Claimed != want.Claimed || res.Stats.Fetched != want.Fetched-1 {
		t.Errorf("stats %+v; want %d claimed, %d fetched", res.Stats, want.Claimed, want.Fetched-1)
	}
}

// TestCrawlSliceTakesOverDeadAttempt: the first attempt of a slice claims
// two seeds under the slice's prefix, saves one page and dies before
// processing it. The retried attempt (attempt 2, run by Temporal's test
// environment) returns the unfetched claim to the queue, processes the
// saved page without fetching it again, and crawls the rest: every page
// fetched exactly once and every count exact.
func TestCrawlSliceTakesOverDeadAttempt(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	ctx := context.Background()
	yaml := strings.Replace(siteTopicYAML, "seeds: [http://a.test/]", "seeds: [http://a.test/, http://b.test/]", 1)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
	if err != nil {
		t.Fatal(err)
	}
	site.reset()
	in := sliceInput(r, "s000001", 100)
	attempts := 0
	dead := func(ctx context.Context, in crawlapi.SliceInput) (crawlapi.SliceResult, error) {
		attempts++
		if attempts > 1 {
			return a.CrawlSlice(ctx, in)
		}
		batch := in.SliceID + "/a1/c000001"
		if _, err := a.Store.ClaimBatch(ctx, store.ClaimRequest{Topic: in.Topic, CrawlID: in.CrawlID, BatchID: batch,
			Max: 2, MaxPerHost: 1, Lease: time.Hour, Now: time.Now()}); err != nil {
			return crawlapi.SliceResult{}, err
		}
		entries, err := a.Store.BatchEntries(ctx, in.Topic, batch)
		if err != nil || len(entries) != 2 {
			return crawlapi.SliceResult{}, fmt.Errorf("dead attempt claimed %d entries (%v)", len(entries), err)
		}
		ref := in.Ref()
		ref.BatchID = batch
		if _, _, err := a.fetchOne(ctx, ref, entries[0]); err != nil {
			return crawlapi.SliceResult{}, err
		}
		return crawlapi.SliceResult{}, errors.New("worker died")
	}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivityWithOptions(dead, activity.RegisterOptions{Name: crawlapi.CrawlSlice.Name})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, in crawlapi.SliceInput) (crawlapi.SliceResult, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 2}})
		var res crawlapi.SliceResult
		err := workflow.ExecuteActivity(ctx, crawlapi.CrawlSlice.Name, in).Get(ctx, &res)
		return res, err
	}, workflow.RegisterOptions{Name: "slice"})
	env.ExecuteWorkflow("slice", in)
	var res crawlapi.SliceResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Fatalf("%d attempts; want 2", attempts)
	}
	n := len(site.pages)
	accepted := checkDecisions(t, site, a.Store)
	if want := wantStats(site, accepted); res.Stats != want {
		t.Errorf("stats %+v; want %+v", res.Stats, want)
	}
	site.checkPolite(t)
	if fs, err := a.Store.FrontierStats(ctx, "roses"); err != nil || fs != (store.FrontierStats{Done: n + 1}) {
		t.Errorf("frontier %+v, %v; want all %d entries done", fs, err, n+1)
	}
}

// TestCrawlSliceRetryAfterLease: a slice attempt saved the seed's page and
// died before judging it, and its retry came later than its claim's lease
// (every worker down that long, or the attempt hung, heartbeating, until
// its start-to-close timeout of crawl.slice + 30 minutes). Meanwhile
// another slice's claim ended the expired claim: the entry is done, its
// page saved. The retry must still judge that page and follow its links —
// nothing else ever would. Before, the take-over looked at claimed entries
// only: the seed stayed unjudged and out of the index, its links were never
// followed, and the crawl ended at the seed.
func TestCrawlSliceRetryAfterLease(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := t.Context()
	in := sliceInput(r, "s000001", 100)
	dead := in.SliceID + "/a1-dead/c000001"
	if _, err := a.Store.ClaimBatch(ctx, store.ClaimRequest{Topic: in.Topic, CrawlID: in.CrawlID, BatchID: dead,
		Max: 1, Lease: time.Minute, Now: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	entries, err := a.Store.BatchEntries(ctx, in.Topic, dead)
	if err != nil || len(entries) != 1 {
		t.Fatalf("the dead attempt claimed %d entries (%v); want the seed", len(entries), err)
	}
	ref := in.Ref()
	ref.BatchID = dead
	if _, _, err := a.fetchOne(ctx, ref, entries[0]); err != nil {
		t.Fatal(err)
	}
	// Another slice claims first: nothing queued, the seed's expired claim
	// closed.
	if other, err := a.CrawlSlice(ctx, sliceInput(r, "s000002", 100)); err != nil || other.Stats.Claimed != 0 {
		t.Fatalf("the other slice: %+v, %v; want nothing claimed", other.Stats, err)
	}
	res, err := a.CrawlSlice(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	accepted := checkDecisions(t, site, a.Store)
	if want := wantStats(site, accepted); res.Stats != want {
		t.Errorf("stats %+v; want %+v", res.Stats, want)
	}
	site.checkPolite(t)
}

// TestCrawlSliceAfterAttemptReset: an operator's reset of a slice's
// activity (temporal activity reset, after fixing what made its attempts
// fail) starts it as attempt 1 again, later than every earlier attempt.
// Here the earlier attempt 1 saved, judged and indexed the seed and failed
// writing the rest of the group (its links and its entry's completion: a
// store error mid-group). The attempt after the reset must take that over
// as any retry does — the seed's links written — and spend the slice's
// whole budget on entries of its own. Before, it took over nothing (only
// attempts > 1 did) and its first claim reused the earlier attempt 1's
// batch ID, so the store handed that batch back: the seed was completed
// with its links never written, and the slice ended with the frontier dry
// after one page. With the take-over alone, the reused batch IDs still cost
// the slice budget it never claimed.
func TestCrawlSliceAfterAttemptReset(t *testing.T) {
	site, a, r := siteCrawl(t)
	in := sliceInput(r, "s000001", 5)
	st := a.Store
	a.Store = &failCompletingWrite{Store: st}
	var res crawlapi.SliceResult
	// runActivity runs every activity as attempt 1, started now: the
	// second run is the attempt after the reset.
	if err := runActivity(a, crawlapi.CrawlSlice.Name, in, &res); err == nil || !strings.Contains(err.Error(), errInjected.Error()) {
		t.Fatalf("the attempt before the reset: %v; want the injected store error", err)
	}
	a.Store = st
	if err := runActivity(a, crawlapi.CrawlSlice.Name, in, &res); err != nil {
		t.Fatal(err)
	}
	if res.Stats.Claimed != in.Budget || res.Stats.Fetched != in.Budget || res.Exhausted {
		t.Errorf("after the reset: %+v, reason %q; want the budget of %d entries claimed and fetched", res.Stats, res.Reason, in.Budget)
	}
	seed := urlnorm.Hash("http://a.test/")
	links := 0
	if err := a.Store.Edges(t.Context(), r.Topic, func(l store.Link) error {
		if l.Src == seed {
			links++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := len(site.pages["http://a.test/"].links); links != want {
		t.Errorf("the seed has %d links stored; want its %d", links, want)
	}
	for u, n := range site.pageRequests() {
		if n != 1 {
			t.Errorf("%s requested %d times", u, n)
		}
	}
}

// errInjected is the store error failCompletingWrite injects.
var errInjected = errors.New("injected: connection reset by peer")

// failCompletingWrite is a store whose first group write that completes
// frontier entries fails: a store error in the middle of a group, after its
// pages were saved, judged and indexed.
type failCompletingWrite struct {
	store.Store
	failed atomic.Bool
}

func (s *failCompletingWrite) WriteGroup(ctx context.Context, g store.GroupWrite) (store.GroupResult, error) {
	if len(g.Complete) > 0 && s.failed.CompareAndSwap(false, true) {
		return store.GroupResult{}, errInjected
	}
	return s.Store.WriteGroup(ctx, g)
}

// TestBatchStages runs the batch stages the refresh workflow uses — Parse,
// FilterPages, PredictLinks — on batches claimed from the store and fetched
// (fetchOne, the slice's fetch) over the seed and then its out-links, checks
// each stage's counts, and runs every stage a second time (a retry) to check
// that it adds nothing.
func TestBatchStages(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := context.Background()
	ref := func(batch string) crawlapi.BatchRef {
		return crawlapi.BatchRef{CrawlID: "c1", Topic: "roses", BatchID: batch, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	}
	type fetched struct{ OK, Skipped int }
	type counts struct {
		Fetch   fetched
		Parse   crawlapi.ParseResult
		Filter  crawlapi.FilterResult
		Predict crawlapi.PredictResult
	}
	run := func(batch string) counts {
		t.Helper()
		var c counts
		var err error
		entries, err := a.Store.BatchEntries(ctx, "roses", batch)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			switch out, _, err := a.fetchOne(ctx, ref(batch), e); {
			case err != nil:
				t.Fatal(err)
			case out == outcomeOK:
				c.Fetch.OK++
			case out == outcomeSkipped:
				c.Fetch.Skipped++
			}
		}
		if c.Parse, err = a.Parse(ctx, ref(batch)); err != nil {
			t.Fatal(err)
		}
		if c.Filter, err = a.FilterPages(ctx, ref(batch)); err != nil {
			t.Fatal(err)
		}
		if c.Predict, err = a.PredictLinks(ctx, ref(batch)); err != nil {
			t.Fatal(err)
		}
		return c
	}
	claim := func(batch string, maxPerHost int) (size, queued int) {
		t.Helper()
		b, err := a.Store.ClaimBatch(ctx, store.ClaimRequest{CrawlID: "c1", Topic: "roses", BatchID: batch, Max: 10,
			MaxPerHost: maxPerHost, Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		fs, err := a.Store.FrontierStats(ctx, "roses")
		if err != nil {
			t.Fatal(err)
		}
		return b.Size, fs.Queued
	}
	if size, queued := claim("b1", 0); size != 1 || queued != 0 {
		t.Fatalf("claimed %d, %d queued; want the seed", size, queued)
	}
	seed := site.pages["http://a.test/"]
	got := run("b1")
	want := counts{
		Fetch:   fetched{OK: 1},
		Parse:   crawlapi.ParseResult{Parsed: 1, Links: len(seed.links)},
		Filter:  crawlapi.FilterResult{Accepted: 1, Indexed: 1},
		Predict: crawlapi.PredictResult{Links: len(seed.links), Enqueued: len(seed.links)},
	}
	if got != want {
		t.Errorf("seed batch: %+v; want %+v", got, want)
	}
	// A retry of every stage finds its work done.
	retry := run("b1")
	if want := (counts{Fetch: fetched{Skipped: 1}, Predict: crawlapi.PredictResult{Links: len(seed.links)}}); retry != want {
		t.Errorf("retried seed batch: %+v; want %+v", retry, want)
	}
	// The seed's out-links, one per host at most (MaxPerHost 1): a.test's
	// best, b.test's root and c.test's root.
	if size, queued := claim("b2", 1); size != 3 || queued != 2 {
		t.Fatalf("second claim: %d entries, %d queued; want 3 entries (one per host), 2 left", size, queued)
	}
	got = run("b2")
	if got.Fetch != (fetched{OK: 3}) || got.Parse.Parsed != 3 || got.Filter.Accepted != 2 ||
		got.Filter.Rejected != 1 || got.Filter.Indexed != 2 {
		t.Errorf("second batch: %+v; want 3 fetched and parsed, 2 accepted and indexed, the football page rejected", got)
	}
	if fs, err := a.Store.FrontierStats(ctx, "roses"); err != nil || fs.Done != 4 || fs.Claimed != 0 {
		t.Errorf("frontier %+v, %v; want both batches completed", fs, err)
	}
	if c, err := a.Index.Count(ctx, "roses"); err != nil || c != 3 {
		t.Errorf("index holds %d documents (%v); want 3", c, err)
	}
}

// TestLearnAndRank: after a crawl of the site, LearnLinkModel stores a new
// link model version each call, learned from the accepted pages, and
// RecomputeHubAuthority scores every page, writes the scores to the index
// documents and stores a new ranks version.
func TestLearnAndRank(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := context.Background()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	accepted := checkDecisions(t, site, a.Store)

	lr, err := a.LearnLinkModel(ctx, crawlapi.LearnInput{CrawlID: "c1", Topic: "roses", Results: accepted})
	if err != nil {
		t.Fatal(err)
	}
	if lr.Version != 1 || lr.Results == 0 || lr.Results > accepted || lr.Vertices == 0 {
		t.Errorf("learn result %+v; want version 1 learned from up to %d result pages", lr, accepted)
	}
	data, _, err := a.Store.Model(ctx, "roses", linkmodel.ModelKind, lr.Version)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := linkmodel.Decode(data); err != nil || m.Results != lr.Results {
		t.Errorf("stored link model: %v (results %v); want %d", err, m, lr.Results)
	}
	if again, err := a.LearnLinkModel(ctx, crawlapi.LearnInput{CrawlID: "c1", Topic: "roses", Results: accepted}); err != nil || again.Version != 2 {
		t.Errorf("second learn %+v, %v; want version 2", again, err)
	}
	// The topic keeps the newest keepLearnedVersions link models: each
	// holds the crawl's whole learned vocabulary, and a round comes every
	// few hundred accepted pages.
	for range keepLearnedVersions - 1 {
		if _, err := a.LearnLinkModel(ctx, crawlapi.LearnInput{CrawlID: "c1", Topic: "roses", Results: accepted}); err != nil {
			t.Fatal(err)
		}
	}
	for v := 1; v <= keepLearnedVersions+1; v++ {
		_, _, err := a.Store.Model(ctx, "roses", linkmodel.ModelKind, v)
		if kept := v > 1; kept != (err == nil) {
			t.Errorf("link model version %d: kept %v, want %v (%v)", v, err == nil, kept, err)
		}
	}

	hr, err := a.RecomputeHubAuthority(ctx, crawlapi.HubAuthInput{CrawlID: "c1", Topic: "roses", TopicVersion: r.TopicVersion,
		ModelVersion: r.ModelVersion, Accepted: accepted})
	if err != nil {
		t.Fatal(err)
	}
	// Every fetched page (the broken link's too) is a node, every link an edge.
	n := len(site.pages) + 1
	if hr.RankVersion != 1 || hr.Pages != n || hr.Nodes != n || hr.Edges != site.links() || hr.Indexed != accepted || hr.PageRankIters == 0 {
		t.Errorf("hub/authority result %+v; want ranks v1 over %d pages and %d links, %d index documents", hr, n, site.links(), accepted)
	}
	var scored []string
	if err := a.Store.CrawlLog(ctx, "c1", func(p store.Page) error {
		if p.Hub > 0 || p.Authority > 0 {
			scored = append(scored, p.URL)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(scored)
	// The root is the best hub of the site; it links to a.test's roses.
	root, err := a.Store.Page(ctx, "roses", urlnorm.Hash("http://a.test/"))
	if err != nil || root.Hub == 0 || len(scored) < 3 {
		t.Errorf("root hub %v (%v); pages scored %v", root.Hub, err, scored)
	}
}

// TestCrawlSliceControl: a slice reads the crawl's state from the store —
// a paused or stopped crawl, or one switched to a newer topic version,
// claims nothing — and stops claiming once it has accepted
// StopAfterAccepted pages (the workflow's learning cadence).
func TestCrawlSliceControl(t *testing.T) {
	for _, tc := range []struct {
		name        string
		state       string // crawl state set before the slice ("": running)
		newTopic    bool   // the crawl switched to topic version 2
		stopAfter   int
		wantClaimed int
		wantReason  string
	}{
		{name: "paused", state: store.CrawlPaused, wantReason: fetchloop.ReasonStopped},
		{name: "stopped", state: store.CrawlStopped, wantReason: fetchloop.ReasonStopped},
		{name: "topic updated", newTopic: true, wantReason: fetchloop.ReasonStopped},
		// The seed is the only entry at first: the slice accepts it and stops.
		{name: "stop after accepted", stopAfter: 1, wantClaimed: 1, wantReason: fetchloop.ReasonStopped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, a, r := siteCrawl(t)
			ctx := context.Background()
			if tc.state != "" {
				if _, err := a.SetCrawlState(ctx, crawlapi.SetCrawlStateInput{CrawlID: "c1", State: tc.state}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.newTopic {
				if err := a.Store.SetCrawlTopicVersion(ctx, "c1", r.TopicVersion+1); err != nil {
					t.Fatal(err)
				}
			}
			in := sliceInput(r, "s000001", 100)
			in.StopAfterAccepted = tc.stopAfter
			res, err := a.CrawlSlice(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.Claimed != tc.wantClaimed || res.Reason != tc.wantReason || res.Exhausted {
				t.Errorf("result %+v; want %d claimed, reason %q", res, tc.wantClaimed, tc.wantReason)
			}
			if tc.wantClaimed > 0 && (res.Stats.Accepted != tc.wantClaimed || res.Queued == 0) {
				t.Errorf("result %+v; want the seed accepted and its links queued", res)
			}
		})
	}
}

// TestCrawlSliceNewerModels: a running slice ends when the crawl records a
// newer learned model that its link predictor reads (the workflow's learning
// or ranking round ran while it was under way, and its successor is
// launched with the new version), and runs on when the predictor does not
// read it. Versions the crawl's row already held when the slice started (a
// new run of the same crawl ID) do not end it.
func TestCrawlSliceNewerModels(t *testing.T) {
	for _, tc := range []struct {
		predictor   string
		before      [2]int // link model and rank versions on the crawl's row at the start
		during      [2]int // ... recorded at c.test's first request ({0, 0}: none)
		wantStopped bool
	}{
		{"best-first", [2]int{}, [2]int{3, 3}, false},
		{"jlse", [2]int{}, [2]int{0, 3}, false},
		{"jlse", [2]int{}, [2]int{3, 0}, true},
		{"jlse", [2]int{3, 0}, [2]int{}, false},
		{"jlse", [2]int{3, 0}, [2]int{3, 1}, false},
		{"jlse", [2]int{3, 0}, [2]int{4, 0}, true},
		{"ipagerank", [2]int{}, [2]int{3, 0}, false},
		{"ipagerank", [2]int{}, [2]int{0, 3}, true},
	} {
		t.Run(fmt.Sprintf("%s %v then %v", tc.predictor, tc.before, tc.during), func(t *testing.T) {
			site := newLoopBackSite(t)
			a := siteActivities(t, site)
			yaml := strings.Replace(siteTopicYAML, "link_predictor: best-first", "link_predictor: "+tc.predictor, 1)
			r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := a.Store.SetCrawlModels(ctx, "c1", tc.before[0], tc.before[1]); err != nil {
				t.Fatal(err)
			}
			if tc.during != [2]int{} {
				site.onCSeen = func() {
					if err := a.Store.SetCrawlModels(ctx, "c1", tc.during[0], tc.during[1]); err != nil {
						t.Error(err)
					}
					// Past the slice's next look at its crawl's row.
					time.Sleep(2 * controlPoll)
				}
			}
			res, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100))
			if err != nil {
				t.Fatal(err)
			}
			if stopped := res.Reason == fetchloop.ReasonStopped; stopped != tc.wantStopped || res.Exhausted == tc.wantStopped {
				t.Errorf("result %+v; want stopped by the crawl's row: %v", res, tc.wantStopped)
			}
			if res.Stats.Accepted == 0 {
				t.Errorf("result %+v; want pages crawled", res)
			}
		})
	}
}

// TestAddSeeds: new in-scope URLs are enqueued, known, out-of-scope and
// malformed ones skipped; more than MaxSeedsPerSignal is a non-retryable
// BadInput error.
func TestAddSeeds(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	in := crawlapi.AddSeedsInput{CrawlID: "c1", Topic: "roses", TopicVersion: r.TopicVersion,
		URLs: []string{"http://b.test/", "http://a.test/", "http://elsewhere.test/", "not a url"}}
	// b.test is new; a.test is the seed already queued; elsewhere.test is
	// out of scope; the last is not a URL.
	if n, err := a.AddSeeds(ctx, in); err != nil || n != 1 {
		t.Errorf("AddSeeds = %d, %v; want 1 new entry", n, err)
	}
	if fs, err := a.Store.FrontierStats(ctx, "roses"); err != nil || fs.Queued != 2 {
		t.Errorf("frontier %+v, %v; want 2 queued", fs, err)
	}
	in.URLs = make([]string, crawlapi.MaxSeedsPerSignal+1)
	var appErr *temporal.ApplicationError
	if _, err := a.AddSeeds(ctx, in); !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrBadInput || !appErr.NonRetryable() {
		t.Errorf("too many seeds: %v; want a non-retryable %s", err, crawlapi.ErrBadInput)
	}
}

// TestUpdateTopic: a new topic file becomes topic version 2 with its own
// model and is recorded on the crawl; a file naming another topic or an
// invalid one is a non-retryable error that changes nothing.
func TestUpdateTopic(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	update := func(yaml string) (crawlapi.UpdateTopicResult, error) {
		var res crawlapi.UpdateTopicResult
		err := runActivity(a, crawlapi.UpdateTopic.Name, crawlapi.UpdateTopicInput{CrawlID: "c1", Topic: "roses", TopicYAML: yaml}, &res)
		return res, err
	}
	for name, tc := range map[string]struct {
		yaml    string
		errType string
	}{
		"another topic": {strings.Replace(siteTopicYAML, "name: roses", "name: tulips", 1), crawlapi.ErrBadInput},
		"invalid":       {strings.Replace(siteTopicYAML, "name: vsm", "name: no-such-filter", 1), crawlapi.ErrInvalidTopic},
		"no terms":      {"name: roses\nkeywords: {the: 1, and: 1}\nseeds: [http://a.test/]\n", crawlapi.ErrInvalidTopic},
	} {
		_, err := update(tc.yaml)
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != tc.errType || !appErr.NonRetryable() {
			t.Errorf("%s: %v; want a non-retryable %s", name, err, tc.errType)
		}
	}
	if c, err := a.Store.Crawl(ctx, "c1"); err != nil || c.TopicVersion != r.TopicVersion {
		t.Fatalf("crawl row %+v, %v; want topic version %d still", c, err, r.TopicVersion)
	}
	res, err := update(strings.Replace(siteTopicYAML, "pruning: 0.8", "pruning: 0.8, climbing: 0.6", 1))
	if err != nil {
		t.Fatal(err)
	}
	if res.TopicVersion != 2 || res.ModelVersion != 2 {
		t.Errorf("update %+v; want topic v2, model v2", res)
	}
	if c, err := a.Store.Crawl(ctx, "c1"); err != nil || c.TopicVersion != 2 {
		t.Errorf("crawl row %+v, %v; want topic version 2", c, err)
	}
	data, _, err := a.Store.Model(ctx, "roses", topic.ModelKind, res.ModelVersion)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := topic.DecodeModel(data); err != nil || m.Version != 2 || m.Terms["climbing"] == 0 {
		t.Errorf("model v2: %+v, %v; want topic version 2 with the new keyword", m, err)
	}
}

// failEnqueue is a store whose Enqueue fails, as in a store outage.
type failEnqueue struct{ store.Store }

func (failEnqueue) Enqueue(context.Context, []store.FrontierEntry, store.EnqueueOptions) (int, error) {
	return 0, errors.New("injected: store unavailable")
}

// TestUpdateTopicFailureKeepsCrawlVersion: an update that fails after its
// topic version is stored (here queueing the seeds) leaves the crawl's row
// on the old version, the one the workflow goes on with: a slice ends when
// its version is not the row's, so a row already on the new version made
// every later slice end before its first claim.
func TestUpdateTopicFailureKeepsCrawlVersion(t *testing.T) {
	_, a, r := siteCrawl(t)
	st := a.Store
	a.Store = failEnqueue{st}
	var res crawlapi.UpdateTopicResult
	err := runActivity(a, crawlapi.UpdateTopic.Name, crawlapi.UpdateTopicInput{CrawlID: "c1", Topic: "roses",
		TopicYAML: strings.Replace(siteTopicYAML, "pruning: 0.8", "pruning: 0.8, climbing: 0.6", 1)}, &res)
	a.Store = st
	if err == nil {
		t.Fatal("UpdateTopic with a failing store: no error")
	}
	if c, err := st.Crawl(context.Background(), "c1"); err != nil || c.TopicVersion != r.TopicVersion {
		t.Errorf("crawl row %+v, %v; want topic version %d still after the failed update", c, err, r.TopicVersion)
	}
}

// TestTermlessKeywordsNoted: keywords that give no term ("the", "802.11",
// a one-syllable Korean noun) were left out of the topic model without a
// word, though the file weighted them; StartCrawl and UpdateTopic now say
// so in a note (CrawlState.Notes, printed by the starter), and the crawl
// goes on with the keywords that do give terms — also for a file stored
// before (a refresh's continuation runs it) and for keywords no spelling
// makes a term. "C++" and "C#" were among them until the tokenizer kept
// them (textproc's protected tokens): they are now model terms, and not
// in the note.
func TestTermlessKeywordsNoted(t *testing.T) {
	_, a, _ := siteCrawl(t)
	yaml := strings.Replace(siteTopicYAML, "keywords: {rose: 1.0,", `keywords: {"C++": 3, "C#": 2, the: 2, "802.11": 1, 꽃: 1, rose: 1.0,`, 1)
	if yaml == siteTopicYAML {
		t.Fatal("the site's topic file changed: the test adds no keyword")
	}
	var res crawlapi.UpdateTopicResult
	if err := runActivity(a, crawlapi.UpdateTopic.Name, crawlapi.UpdateTopicInput{CrawlID: "c1", Topic: "roses", TopicYAML: yaml}, &res); err != nil {
		t.Fatalf("UpdateTopic: %v; want the file taken, with a note", err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], `keywords "802.11", "the", "꽃" give no term`) {
		t.Errorf("notes %q; want one naming the three keywords (not C++ or C#)", res.Notes)
	}
	data, _, err := a.Store.Model(context.Background(), "roses", topic.ModelKind, res.ModelVersion)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := topic.DecodeModel(data); err != nil || m.Terms["c++"] != 3 || m.Terms["c#"] != 2 {
		t.Errorf("model %+v, %v; want the terms c++ (weight 3) and c# (2)", m, err)
	}
	start, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c2", TopicYAML: yaml})
	if err != nil || len(start.Notes) != 1 {
		t.Errorf("StartCrawl: %+v, %v; want it started, with the note", start.Notes, err)
	}
}

// TestUpdateTopicWholeFile: UpdateTopic returns the new file's page budget
// and the learning cadence of its link predictor, and queues its seeds new
// to the crawl (the one the crawl knows is not added again); a repeated
// update — the activity retried — adds nothing.
// Before, only the versions changed: the crawl kept its start's budget,
// never learned for a predictor switched to jlse, and the new seeds were
// never crawled.
func TestUpdateTopicWholeFile(t *testing.T) {
	_, a, r := siteCrawl(t)
	if a.CrawlCfg.LearnEvery <= 0 {
		t.Fatalf("crawl.learn_every %d; the test needs learning on", a.CrawlCfg.LearnEvery)
	}
	yaml := strings.NewReplacer(
		"seeds: [http://a.test/]", "seeds: [http://a.test/, http://b.test/p1]",
		"max_pages: 50", "max_pages: 500",
		"link_predictor: best-first", "link_predictor: jlse",
	).Replace(siteTopicYAML)
	update := func() crawlapi.UpdateTopicResult {
		t.Helper()
		var res crawlapi.UpdateTopicResult
		in := crawlapi.UpdateTopicInput{CrawlID: "c1", Topic: "roses", TopicYAML: yaml, FromVersion: r.TopicVersion}
		if err := runActivity(a, crawlapi.UpdateTopic.Name, in, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := update()
	want := crawlapi.UpdateTopicResult{TopicVersion: 2, ModelVersion: 2, MaxPages: 500, LearnEvery: a.CrawlCfg.LearnEvery, Seeded: 1}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("update: %+v; want %+v", res, want)
	}
	b, err := a.Store.ClaimBatch(t.Context(), store.ClaimRequest{Topic: "roses", CrawlID: "c1", BatchID: "read", Max: 10})
	if err != nil {
		t.Fatal(err)
	}
	es, err := a.Store.BatchEntries(t.Context(), "roses", b.ID)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, e := range es {
		urls = append(urls, fmt.Sprintf("%s %s %v", e.URL, e.Strategy, e.Priority))
	}
	if fmt.Sprint(urls) != fmt.Sprintf("[http://a.test/ seed %v http://b.test/p1 seed %v]", seedPriority, seedPriority) {
		t.Errorf("frontier %v; want the start's seed and the new one, at seed priority", urls)
	}
	if again := update(); again.Seeded != 0 || again.TopicVersion != 2 {
		t.Errorf("the same update again: %+v; want nothing new", again)
	}
	// Back to best-first: nothing reads a learned model, nothing is learned.
	yaml = strings.Replace(yaml, "link_predictor: jlse", "link_predictor: best-first", 1)
	if res := update(); res.LearnEvery != 0 || res.MaxPages != 500 {
		t.Errorf("best-first again: %+v; want no learning, the budget kept", res)
	}
}

// TestConcurrentSlicesShareHosts: two slices of one crawl in one worker
// never have two requests in flight to one host (the worker's serving set
// spans slices), and together with a last slice that drains what they left
// they fetch every page exactly once.
func TestConcurrentSlicesShareHosts(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	results := make([]crawlapi.SliceResult, 2)
	errs := make([]error, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = a.CrawlSlice(ctx, sliceInput(r, fmt.Sprintf("s%06d", i+1), 100))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	last, err := a.CrawlSlice(ctx, sliceInput(r, "s000003", 100))
	if err != nil {
		t.Fatal(err)
	}
	n := len(site.pages)
	if got := results[0].Stats.Claimed + results[1].Stats.Claimed + last.Stats.Claimed; got != n+1 {
		t.Errorf("slices claimed %d, %d and %d; want %d in all", results[0].Stats.Claimed, results[1].Stats.Claimed, last.Stats.Claimed, n+1)
	}
	site.checkPolite(t)
	checkDecisions(t, site, a.Store)
}

// TestCrawlSliceSplitAcceptance: with strategy.accept: split every judged
// page goes through the split (its reason says so, with the in-links it
// used), no page is accepted below the filter's own threshold (the floor),
// and a page the split turns down although its own score passed the filter
// is kept for expansion (tunnel), never rejected.
func TestCrawlSliceSplitAcceptance(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	yaml := strings.Replace(siteTopicYAML, "accept: threshold", "accept: split", 1)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
	if err != nil {
		t.Fatal(err)
	}
	site.reset()
	if _, err := a.CrawlSlice(context.Background(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	judged, withInLinks, accepted := 0, 0, 0
	err = a.Store.CrawlLog(context.Background(), "c1", func(p store.Page) error {
		switch p.Decision {
		case store.DecisionAccepted, store.DecisionRejected, store.DecisionTunnel:
		default:
			return nil
		}
		judged++
		if !strings.Contains(p.Reason, "; split: ") {
			t.Errorf("%s: reason %q does not record the split", p.URL, p.Reason)
		}
		if !strings.Contains(p.Reason, "with 0 in-link(s)") {
			withInLinks++
		}
		if p.Decision == store.DecisionAccepted {
			accepted++
			if p.Relevance < 0.12 {
				t.Errorf("%s accepted with score %v below the filter's threshold 0.12", p.URL, p.Relevance)
			}
		}
		if strings.Contains(p.Reason, "below the split") && p.Decision != store.DecisionTunnel {
			t.Errorf("%s: turned down by the split with decision %q, want tunnel (expanded)", p.URL, p.Decision)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if judged != len(site.pages) || accepted == 0 || withInLinks == 0 {
		t.Errorf("judged %d of %d pages, %d accepted, %d with in-link evidence; want all judged, some accepted, some with in-links",
			judged, len(site.pages), accepted, withInLinks)
	}
}

// A send marked later than wait recorded it (headers written late on a
// loaded machine) pushes the host's next send to at least delay after the
// mark.
func TestSendClockSpacesFromTheLatestMark(t *testing.T) {
	var c sendClock
	const delay = 40 * time.Millisecond
	if err := c.wait(t.Context(), "h.test", delay, time.Now, nil); err != nil {
		t.Fatal(err)
	}
	marked := time.Now().Add(60 * time.Millisecond)
	c.mark("h.test", marked)
	c.mark("h.test", marked.Add(-time.Second)) // an earlier mark never moves the clock back
	if err := c.wait(t.Context(), "h.test", delay, time.Now, nil); err != nil {
		t.Fatal(err)
	}
	if sent := time.Now(); sent.Sub(marked) < delay {
		t.Fatalf("second send %v after the mark; want at least the delay %v", sent.Sub(marked), delay)
	}
}

// TestPoliteDoSpacesHopsAndRetries: the requests one fetch sends to a host
// after robots.txt — the page, a redirect hop on the same host, that hop's
// retry — each come at least the host delay after the one before, as the
// server sees them.
func TestPoliteDoSpacesHopsAndRetries(t *testing.T) {
	var (
		mu    sync.Mutex
		times []time.Time
		paths []string
		tries int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times, paths = append(times, time.Now()), append(paths, r.URL.Path)
		tries += map[bool]int{true: 1}[r.URL.Path == "/moved"]
		first := tries == 1
		mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow:\n")
		case r.URL.Path == "/old":
			http.Redirect(w, r, "/moved", http.StatusMovedPermanently)
		case first:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			fmt.Fprint(w, "<html><body>here</body></html>")
		}
	}))
	t.Cleanup(srv.Close)
	site := &loopBackSite{srv: srv}
	a := siteActivities(t, site)
	const delay = 150 * time.Millisecond
	// The server notes a request when its handler starts, which lags the
	// request's write by a scheduling delay that varies between requests
	// (0.12 ms more for one than the next failed a run under load): the
	// margin, which production crawls add for the same reason
	// (fetch.delay_margin), absorbs that; the assertion stays the delay.
	a.FetchCfg.HostDelay, a.FetchCfg.DelayMargin = delay, 20*time.Millisecond
	a.Fetcher = newTestFetcher(t, a, func(c *fetch.Config) {
		c.Retries, c.RetryBaseDelay, c.RetryMaxDelay = 1, time.Millisecond, time.Millisecond
	})

	resp, err := a.politeDo(t.Context(), "h.test", fetch.Request{URL: "http://h.test/old"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinalURL != "http://h.test/moved" {
		t.Fatalf("FinalURL = %s", resp.FinalURL)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"/robots.txt", "/old", "/moved", "/moved"}; !slices.Equal(paths, want) {
		t.Fatalf("requests %q, want %q", paths, want)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < delay {
			t.Errorf("request %d (%s) came %v after the one before; want at least the host delay %v", i, paths[i], gap, delay)
		}
	}
}

// newTestFetcher is a fetcher on a's fetch configuration changed by mutate.
func newTestFetcher(t *testing.T, a *Activities, mutate func(*fetch.Config)) *fetch.Fetcher {
	t.Helper()
	c := a.FetchCfg.Config
	mutate(&c)
	f, err := fetch.New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.CloseIdleConnections)
	return f
}

// TestClaimHoldsUnscored: with HoldUnscored, entries scored 0 stay queued
// while an entry of the topic is claimed and not completed — in this worker
// or, as here after the worker's own host set is emptied, in any other
// sharing the store (the claim answers fetchloop.ErrWait) — and are claimed
// once nothing is; without it they are claimed at once.
func TestClaimHoldsUnscored(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	in := sliceInput(r, "s000001", 100)
	in.HoldUnscored = true
	inFlight := &heldHosts{set: &a.serving, topic: in.Topic}
	seeds, err := a.claimHosts(ctx, in, "c1/s000001/a1/c000001", store.Fence{}, 100, nil, inFlight, &claimedPages{})
	if err != nil || len(seeds) == 0 {
		t.Fatalf("claim of the seeds (nothing in flight): %d entries, %v", len(seeds), err)
	}
	zero := func(host string) store.FrontierEntry {
		u := "http://" + host + "/"
		return store.FrontierEntry{Topic: in.Topic, URL: u, URLHash: urlnorm.Hash(u), Host: host, Priority: 0, CrawlID: "c1"}
	}
	if _, err := a.Store.Enqueue(ctx, []store.FrontierEntry{zero("z1.test"), zero("z2.test")}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := a.claimHosts(ctx, in, "c1/s000001/a1/c000002", store.Fence{}, 10, nil, &heldHosts{set: &a.serving, topic: in.Topic}, &claimedPages{})
	if !errors.Is(err, fetchloop.ErrWait) || len(got) != 0 {
		t.Fatalf("claim while the seeds are in flight = %d entries, %v; want none and ErrWait", len(got), err)
	}
	// The worker forgets its hosts, as another worker would not know them:
	// the seeds' claims in the store still hold the zeros back.
	inFlight.releaseAll()
	got, err = a.claimHosts(ctx, in, "c1/s000001/a1/c000003", store.Fence{}, 10, nil, &heldHosts{set: &a.serving, topic: in.Topic}, &claimedPages{})
	if !errors.Is(err, fetchloop.ErrWait) || len(got) != 0 {
		t.Fatalf("claim while another worker's entries are in flight = %d entries, %v; want none and ErrWait", len(got), err)
	}
	noHold := in
	noHold.HoldUnscored = false
	other := &heldHosts{set: &a.serving, topic: in.Topic}
	defer other.releaseAll()
	if got, err := a.claimHosts(ctx, noHold, "c1/s000001/a1/c000004", store.Fence{}, 1, nil, other, &claimedPages{}); err != nil || len(got) != 1 || got[0].Priority != 0 {
		t.Errorf("claim without HoldUnscored = %+v, %v; want one zero-score entry", got, err)
	}
	for _, b := range []string{"c1/s000001/a1/c000001", "c1/s000001/a1/c000004"} {
		if err := a.Store.CompleteBatch(ctx, in.Topic, b); err != nil {
			t.Fatal(err)
		}
	}
	other.releaseAll()
	if got, err := a.claimHosts(ctx, in, "c1/s000001/a1/c000005", store.Fence{}, 10, nil, &heldHosts{set: &a.serving, topic: in.Topic}, &claimedPages{}); err != nil || len(got) != 1 {
		t.Errorf("claim with nothing in flight = %d entries, %v; want the zero-score entry left", len(got), err)
	}
}

// TestClaimWaitsWhileBusy: a claim that finds nothing to take answers
// fetchloop.ErrWait, not "exhausted", while the topic has entries queued on
// hosts another slice of this worker serves or entries claimed anywhere
// (their pages may add links), and nil only once it has neither.
func TestClaimWaitsWhileBusy(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	in := sliceInput(r, "s000001", 100)
	first := &heldHosts{set: &a.serving, topic: in.Topic}
	defer first.releaseAll()
	seeds, err := a.claimHosts(ctx, in, "c1/s000001/a1/c000001", store.Fence{}, 100, nil, first, &claimedPages{})
	if err != nil || len(seeds) == 0 {
		t.Fatalf("claim of the seeds: %d entries, %v", len(seeds), err)
	}
	claim := func(batch string) ([]store.FrontierEntry, error) {
		other := &heldHosts{set: &a.serving, topic: in.Topic}
		defer other.releaseAll()
		return a.claimHosts(ctx, sliceInput(r, "s000002", 100), batch, store.Fence{}, 10, nil, other, &claimedPages{})
	}
	if got, err := claim("c1/s000002/a1/c000001"); !errors.Is(err, fetchloop.ErrWait) || len(got) != 0 {
		t.Errorf("claim while the seeds are in flight in another slice = %d entries, %v; want none and ErrWait", len(got), err)
	}
	// Queued on a host the first slice serves: busy, not exhausted.
	more := seeds[0]
	more.URL += "more"
	more.URLHash = urlnorm.Hash(more.URL)
	more.State, more.BatchID = "", ""
	if _, err := a.Store.Enqueue(ctx, []store.FrontierEntry{more}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.CompleteBatch(ctx, in.Topic, "c1/s000001/a1/c000001"); err != nil {
		t.Fatal(err)
	}
	if got, err := claim("c1/s000002/a1/c000002"); !errors.Is(err, fetchloop.ErrWait) || len(got) != 0 {
		t.Errorf("claim while the only queued entry's host is served by another slice = %d entries, %v; want none and ErrWait", len(got), err)
	}
	first.releaseAll()
	if got, err := claim("c1/s000002/a1/c000003"); err != nil || len(got) != 1 {
		t.Fatalf("claim once the host is free = %d entries, %v; want the queued entry", len(got), err)
	}
	if err := a.Store.CompleteBatch(ctx, in.Topic, "c1/s000002/a1/c000003"); err != nil {
		t.Fatal(err)
	}
	if got, err := claim("c1/s000002/a1/c000004"); err != nil || len(got) != 0 {
		t.Errorf("claim with nothing queued or in flight = %d entries, %v; want none, no error (exhausted)", len(got), err)
	}
}

// TestReleaseSlice: a slice that failed every attempt gives its claims
// back — the entry it never fetched to the queue, the one whose page it
// saved closed as done — and a second call finds nothing left; SliceStats
// then counts what the slice spent: the saved page only.
func TestReleaseSlice(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	in := sliceInput(r, "s000001", 100)
	held := &heldHosts{set: &a.serving, topic: in.Topic}
	defer held.releaseAll()
	one, err := a.claimHosts(ctx, in, in.SliceID+"/a1/c000001", store.Fence{}, 1, nil, held, &claimedPages{})
	if err != nil || len(one) != 1 {
		t.Fatalf("first claim: %d entries, %v", len(one), err)
	}
	e := one[0]
	if _, _, err := a.Store.SavePage(ctx, store.Page{Topic: in.Topic, URLHash: e.URLHash, URL: e.URL, FinalURL: e.URL,
		FinalHash: e.URLHash, Status: 200, CrawlID: "c1", BatchID: e.BatchID, FetchedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	u := "http://other.test/"
	if _, err := a.Store.Enqueue(ctx, []store.FrontierEntry{{Topic: in.Topic, URL: u, URLHash: urlnorm.Hash(u),
		Host: "other.test", Priority: 9, CrawlID: "c1"}}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	two, err := a.claimHosts(ctx, in, in.SliceID+"/a2/c000001", store.Fence{}, 1, []string{e.Host}, held, &claimedPages{})
	if err != nil || len(two) != 1 {
		t.Fatalf("second claim: %d entries, %v", len(two), err)
	}
	before, err := a.Store.FrontierStats(ctx, in.Topic)
	if err != nil {
		t.Fatal(err)
	}
	closed, err := a.ReleaseSlice(ctx, crawlapi.ReleaseSliceInput{Topic: in.Topic, SliceID: in.SliceID})
	if err != nil || closed != 1 {
		t.Fatalf("ReleaseSlice = %d, %v; want 1 fetched entry closed", closed, err)
	}
	after, err := a.Store.FrontierStats(ctx, in.Topic)
	if err != nil {
		t.Fatal(err)
	}
	if after.Claimed != 0 || after.Queued != before.Queued+1 || after.Done != before.Done+1 {
		t.Errorf("frontier %+v after release (before %+v); want nothing claimed, one more queued, one more done", after, before)
	}
	if closed, err := a.ReleaseSlice(ctx, crawlapi.ReleaseSliceInput{Topic: in.Topic, SliceID: in.SliceID}); err != nil || closed != 0 {
		t.Errorf("second ReleaseSlice = %d, %v; want 0, nil", closed, err)
	}
	// What the released slice spent: the entry whose page it saved, not the
	// one it gave back to the queue.
	if bs, err := a.SliceStats(ctx, crawlapi.ReleaseSliceInput{Topic: in.Topic, SliceID: in.SliceID}); err != nil ||
		bs.Claimed != 1 || bs.Fetched != 1 {
		t.Errorf("SliceStats after release = %+v, %v; want 1 claimed, 1 fetched", bs, err)
	}
}

// TestRefetchUnjudgedPage: a page an earlier refresh replaced but never
// judged (its batch failed after Refetch) is refetched as changed by the
// next refresh that claims it — unconditionally, and although its stored
// content hash is the live page's — so Parse and FilterPages judge it
// again instead of it staying pending and out of the index.
func TestRefetchUnjudgedPage(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash("http://b.test/p1"))
	if err != nil || p.Decision != store.DecisionAccepted {
		t.Fatalf("b.test/p1 after the crawl: %q, %v; want accepted", p.Decision, err)
	}
	later := time.Now().Add(365 * 24 * time.Hour) // every page due
	a.Now = func() time.Time { return later }
	claim := func(batch string) crawlapi.BatchRef {
		t.Helper()
		if n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: batch, Max: 100}); err != nil || n == 0 {
			t.Fatalf("ClaimRefresh(%s) = %d, %v", batch, n, err)
		}
		return crawlapi.BatchRef{CrawlID: batch, Topic: r.Topic, BatchID: batch, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	}
	claim("refresh/1")
	// Refresh 1's Refetch replaced the page with what the site serves now
	// (same content hash) and the batch failed before Parse.
	replaced := p
	replaced.BatchID = "refresh/1"
	if err := a.Store.ReplacePage(ctx, replaced, []byte("<html>as fetched by refresh 1</html>")); err != nil {
		t.Fatal(err)
	}
	// Refresh 1's claim has run out: a refresh takes the page again
	// refresh.min_interval later, not at once (a batch that fails every
	// time would refetch its pages at every lease's end).
	later = later.Add(2 * a.CrawlCfg.Lease)
	if n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: "refresh/early", Max: 100}); err != nil || n != 0 {
		t.Errorf("claim just after refresh 1's lease ran out = %d, %v; want 0 (the retry delay)", n, err)
	}
	later = later.Add(a.RefreshCfg.MinInterval)
	res, err := a.Refetch(ctx, claim("refresh/2"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != 1 {
		t.Errorf("refetch after the failed batch: %+v; want the unjudged page changed (and only it)", res)
	}
	got, err := a.Store.Page(ctx, r.Topic, p.URLHash)
	if err != nil || got.BatchID != "refresh/2" || got.Decision != store.DecisionPending {
		t.Errorf("b.test/p1 after refresh 2's Refetch: batch %q, decision %q, %v; want it in refresh/2 for Parse", got.BatchID, got.Decision, err)
	}
	if b, err := a.Store.Blob(ctx, r.Topic, p.URLHash, store.BlobBody); err != nil || strings.Contains(string(b), "refresh 1") {
		t.Errorf("body after refresh 2's Refetch: %.40q, %v; want the page as refetched", b, err)
	}
}

// TestStoredTopicBeforeStricterRules: a topic version stored before a rule
// that now refuses it (here a fractional max_depth, which used to be
// truncated) still loads for the crawls that run on it, and starting a crawl
// with that very file — a refresh's crawl continuation does — works; a file
// not stored yet is refused as before.
func TestStoredTopicBeforeStricterRules(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	ctx := context.Background()
	old := strings.Replace(siteTopicYAML, "limits: {max_pages: 50}", "limits: {max_pages: 50, max_depth: 4.5}", 1)
	if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c0", TopicYAML: old}); err == nil {
		t.Fatal("a new file with a fractional max_depth was accepted; the test expects it refused")
	}
	version, err := a.Store.PutTopic(ctx, "roses", []byte(old)) // stored by an earlier release
	if err != nil {
		t.Fatal(err)
	}
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: old})
	if err != nil {
		t.Fatalf("StartCrawl with the stored file: %v", err)
	}
	if r.TopicVersion != version {
		t.Errorf("topic version %d; want the stored %d", r.TopicVersion, version)
	}
	lt, err := a.loadTopic(ctx, "roses", r.TopicVersion, r.ModelVersion)
	if err != nil || lt.Topic.Limits.MaxDepth != 4 {
		t.Fatalf("loadTopic of the stored version: %v (max depth %v); want it loaded as before, 4", err, lt)
	}
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 3)); err != nil {
		t.Errorf("a slice on the stored version: %v", err)
	}
	other := strings.Replace(old, "max_depth: 4.5", "max_depth: 5.5", 1)
	if _, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c2", TopicYAML: other}); err == nil {
		t.Error("a new, unstored file with a fractional max_depth was accepted")
	}
}

// claimSkipsHeldHost queues held (a URL of the held host h.test) and a
// page of other.test for crawl c of topic t, and checks that a claim of
// slice c/s1 takes other.test's entry only; it returns the slice input.
func claimSkipsHeldHost(t *testing.T, a *Activities, held string) crawlapi.SliceInput {
	t.Helper()
	ctx := t.Context()
	for _, u := range []string{held, "http://other.test/page"} {
		e := store.FrontierEntry{Topic: "t", URL: u, URLHash: urlnorm.Hash(u), Host: urlnorm.Host(u), Priority: 1, CrawlID: "c"}
		if _, err := a.Store.Enqueue(ctx, []store.FrontierEntry{e}, store.EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	in := crawlapi.SliceInput{CrawlID: "c", Topic: "t", SliceID: "c/s1", Lease: time.Minute}
	entries, err := a.claimHosts(ctx, in, "c/s1/c1", store.Fence{}, 10, nil, &heldHosts{set: &a.serving, topic: "t"}, &claimedPages{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Host != "other.test" {
		t.Errorf("claimed %+v; want only other.test's entry while %s's host is held", entries, held)
	}
	return in
}

// TestHoldOverloadedHost: a host that answers 429 with a Retry-After
// longer than a fetch's retries wait is left alone for it: the fetch ends
// without retrying, every worker's claims skip the host until the hold
// ends (its other entries stay queued), its next request comes after the hold
// (with fetch.host_delay 0, which books no store slots otherwise) or, when
// more than fetch.max_host_delay of the hold is left, fails at once, and
// the store's slot for the host is pushed by at most fetch.max_host_delay
// for other workers. Before, the fetch retried after retry_max_delay and the
// host's next URL went out at once.
func TestHoldOverloadedHost(t *testing.T) {
	var (
		mu    sync.Mutex
		times []time.Time
		paths []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times, paths = append(times, time.Now()), append(paths, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow:\n")
		case "/busy":
			w.Header().Set("Retry-After", "2")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		default:
			fmt.Fprint(w, "<html><body>here</body></html>")
		}
	}))
	t.Cleanup(srv.Close)
	cfg := siteConfig(t, &loopBackSite{srv: srv})
	a := workerActivities(t, cfg)
	other := workerActivities(t, cfg) // another worker on the same crawl store
	a.FetchCfg.MaxHostDelay = 500 * time.Millisecond
	a.Fetcher = newTestFetcher(t, a, func(c *fetch.Config) {
		c.Retries, c.RetryBaseDelay, c.RetryMaxDelay = 2, time.Millisecond, time.Second
	})
	ctx := t.Context()

	_, err := a.politeDo(ctx, "h.test", fetch.Request{URL: "http://h.test/busy"})
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Status != http.StatusTooManyRequests || fe.RetryAfter != 2*time.Second {
		t.Fatalf("fetch error %v; want 429 with Retry-After 2s", err)
	}
	refused := time.Now()

	// Claims skip the held host.
	in := claimSkipsHeldHost(t, a, "http://h.test/next")
	// Another worker's claims skip it too: the hold is in the store.
	in.SliceID = "c/s2"
	if got, err := other.claimHosts(ctx, in, "c/s2/c1", store.Fence{}, 10, nil, &heldHosts{set: &other.serving, topic: "t"}, &claimedPages{}); !errors.Is(err, fetchloop.ErrWait) || len(got) != 0 {
		t.Errorf("another worker claimed %+v (%v); want nothing while h.test is held (ErrWait: its entry is queued)", got, err)
	}
	// Other workers: the store's next slot for the host, pushed by at most
	// max_host_delay.
	at, err := a.Store.ReserveHostSlot(ctx, "h.test", 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if wait := at.Sub(refused); wait < 400*time.Millisecond || wait > 600*time.Millisecond {
		t.Errorf("store slot %v after the refusal; want max_host_delay (500ms)", wait)
	}

	// A request to the host while more than max_host_delay of the hold is
	// left (a redirect hop, a refresh, another topic's slice) fails at once
	// as the overload it is, instead of sleeping through the hold.
	_, err = a.politeDo(ctx, "h.test", fetch.Request{URL: "http://h.test/next"})
	if !errors.As(err, &fe) || !fe.Overloaded() || fe.RetryAfter <= time.Second || fe.Permanent {
		t.Fatalf("request during the hold: %v; want an immediate transient overload error with the hold's rest", err)
	}
	// With less of it left than max_host_delay, it is waited out as a
	// delay: this worker's next request comes after the hold.
	a.FetchCfg.MaxHostDelay = 5 * time.Second
	if _, err := a.politeDo(ctx, "h.test", fetch.Request{URL: "http://h.test/next"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"/robots.txt", "/busy", "/next"}; !slices.Equal(paths, want) {
		t.Fatalf("requests %q, want %q (no retry of /busy)", paths, want)
	}
	if gap := times[2].Sub(times[1]); gap < 2*time.Second {
		t.Errorf("next request %v after the 429; want at least its Retry-After, 2s", gap)
	}
}

// TestHoldForRobotsRetryAfter: a robots.txt answered 503 with a Retry-After
// holds its host through the same hold as a page's 429 (holdHost): the URL
// it refused carries the Retry-After, claims skip the host, and its next
// request fails at once as held, sending nothing, robots.txt included.
// Before, the Retry-After was ignored: the host's URLs were refused one by
// one and robots.txt asked for again each minute.
func TestHoldForRobotsRetryAfter(t *testing.T) {
	var robotsHits, pageHits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsHits.Add(1)
			w.Header().Set("Retry-After", "600")
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		pageHits.Add(1)
		fmt.Fprint(w, "<html><body>here</body></html>")
	}))
	t.Cleanup(srv.Close)
	a := workerActivities(t, siteConfig(t, &loopBackSite{srv: srv}))
	ctx := t.Context()

	_, err := a.politeDo(ctx, "h.test", fetch.Request{URL: "http://h.test/page"})
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Class != fetch.ClassRobots || !fe.Overloaded() || fe.RetryAfter <= 9*time.Minute || fe.Permanent {
		t.Fatalf("fetch error %v; want a transient robots refusal carrying robots.txt's Retry-After (10m)", err)
	}
	if until := a.sent.heldUntil("h.test", a.now()); until.Sub(a.now()) <= 9*time.Minute {
		t.Errorf("h.test held until %v; want about 10 minutes from now", until)
	}
	claimSkipsHeldHost(t, a, "http://h.test/next")
	_, err = a.politeDo(ctx, "h.test", fetch.Request{URL: "http://h.test/next"})
	if !errors.As(err, &fe) || !fe.Overloaded() || fe.Permanent {
		t.Fatalf("request during the hold: %v; want an immediate transient overload error", err)
	}
	if robotsHits.Load() != 1 || pageHits.Load() != 0 {
		t.Errorf("robots.txt asked for %d times, pages %d; want 1 and 0", robotsHits.Load(), pageHits.Load())
	}
}

// TestHoldForRobotsOverloadedWithoutRetryAfter: a robots.txt answered 503
// or 429 without a Retry-After holds its host until robots.txt is asked for
// again (its failure is remembered a minute), as a page's 503 holds it; a
// 500 holds nothing (as a page's 500). Before, the host was not held, and
// every URL of it claimed within that minute failed for the crawl,
// unrequeued. The hold is the refusal's RobotsRetryIn, which ends at the
// same instant for every refusal of that minute (internal/fetch
// TestRobotsRetryAfter), so later refusals do not push it on.
func TestHoldForRobotsOverloadedWithoutRetryAfter(t *testing.T) {
	for _, status := range []int{503, 429, 500} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					http.Error(w, "busy", status)
					return
				}
				fmt.Fprint(w, "<html><body>here</body></html>")
			}))
			t.Cleanup(srv.Close)
			a := workerActivities(t, siteConfig(t, &loopBackSite{srv: srv}))
			a.FetchCfg.MaxHostDelay = 0 // a held host's request fails at once, unsent
			_, err := a.politeDo(t.Context(), "h.test", fetch.Request{URL: "http://h.test/page"})
			var fe *fetch.Error
			if !errors.As(err, &fe) || fe.Class != fetch.ClassRobots || fe.Permanent {
				t.Fatalf("fetch error %v; want a transient robots refusal", err)
			}
			until := a.sent.heldUntil("h.test", a.now())
			if status == 500 {
				if !until.IsZero() {
					t.Errorf("held until %v after robots.txt's 500; want no hold", until)
				}
				return
			}
			if held := until.Sub(a.now()); held < 50*time.Second || held > time.Minute {
				t.Errorf("held %v after robots.txt's %d; want until robots.txt is asked again (a minute)", held, status)
			}
			if !a.Fetcher.RobotsUnreachable("http://h.test/page") {
				t.Error("robots.txt not reported unreachable: the refused URL would not be requeued")
			}
			claimSkipsHeldHost(t, a, "http://h.test/next")
		})
	}
}

// TestHoldForLongCrawlDelay: a host whose robots.txt Crawl-delay is longer
// than fetch.max_host_delay is held after each request of a crawl for the
// whole Crawl-delay: claims skip its entries and a request that comes anyway
// fails at once as held (the slice requeues it), so no request reaches it
// sooner. Before, its requests came every max_host_delay, against what it
// asked.
func TestHoldForLongCrawlDelay(t *testing.T) {
	a := crawlDelaySite(t, 60)
	a.FetchCfg.MaxHostDelay, a.FetchCfg.DelayMargin = 500*time.Millisecond, 0
	ctx := t.Context()
	// A crawl's first request to the host: robots.txt, read just before
	// it, is a request, and its Crawl-delay holds the host from it; the
	// page is refused unsent (the slice requeues it) instead of going out
	// max_host_delay after robots.txt.
	_, err := a.politeFetch(ctx, store.FrontierEntry{URL: "http://h.test/one", Host: "h.test"})
	if !heldUnsent(err) {
		t.Fatalf("first request after robots.txt: %v; want it refused unsent as held", err)
	}
	claimSkipsHeldHost(t, a, "http://h.test/two")
	_, err = a.politeDo(ctx, "h.test", fetch.Request{URL: "http://h.test/two"})
	var fe *fetch.Error
	if !errors.As(err, &fe) || !fe.Overloaded() || fe.Permanent {
		t.Fatalf("request within the Crawl-delay: %v; want an immediate transient held error", err)
	}
	if fe.RetryAfter <= a.FetchCfg.MaxHostDelay || fe.RetryAfter > time.Minute {
		t.Errorf("held for %v more; want the rest of the 60s Crawl-delay", fe.RetryAfter)
	}
	// A crawl's request refused as held sends nothing and moves no hold.
	until := a.sent.heldUntil("h.test", time.Now())
	if _, err := a.politeFetch(ctx, store.FrontierEntry{URL: "http://h.test/two", Host: "h.test"}); err == nil {
		t.Fatal("a crawl's request within the Crawl-delay was sent")
	}
	if again := a.sent.heldUntil("h.test", time.Now()); !again.Equal(until) {
		t.Errorf("a refused request moved the hold from %v to %v", until, again)
	}
	// A refresh batch's request holds its host as a crawl's does (here
	// from robots.txt on); the batch's pages of the host see the hold
	// (longHold) and are postponed (TestRefreshPostponesHeldHost).
	if !a.longHold("r.test").IsZero() {
		t.Fatal("r.test held before any request")
	}
	if _, err := a.politeDoHolding(ctx, "r.test", fetch.Request{URL: "http://r.test/one"}); !heldUnsent(err) {
		t.Fatalf("a refresh's first request after robots.txt: %v; want it refused unsent as held", err)
	}
	if rest := time.Until(a.longHold("r.test")); rest <= a.FetchCfg.MaxHostDelay || rest > time.Minute {
		t.Errorf("after robots.txt r.test is held %v more; want the rest of the 60s Crawl-delay", rest)
	}
	// Sample pages wait for the hold until their wait deadline
	// (sampleHoldWait in a crawl's start): a minute's Crawl-delay is
	// longer than this one, so they are skipped, not sent early.
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if texts := a.sampleTexts(ctx, wctx, []string{"http://s.test/one", "http://s.test/two"}); len(texts) != 0 {
		t.Errorf("%d sample texts; want none: each would come sooner than the Crawl-delay asks", len(texts))
	}
}

// TestHeldUnsentIsNoAttempt: a crawl's request refused unsent because its
// host is held (here from the robots.txt read just before it) is an entry
// to requeue, however often its claims ended so: each worker reads a
// host's robots.txt anew and refuses its first request to it, and counted
// as a held attempt (maxHeldAttempts) such an entry failed without ever
// being requested (a reviewer's finding, with three workers).
func TestHeldUnsentIsNoAttempt(t *testing.T) {
	a := crawlDelaySite(t, 60)
	a.FetchCfg.MaxHostDelay, a.FetchCfg.DelayMargin = 500*time.Millisecond, 0
	const u = "http://u.test/one"
	e := store.FrontierEntry{Topic: "t", URL: u, URLHash: urlnorm.Hash(u), Host: "u.test", Attempts: maxHeldAttempts + 2}
	out, _, _, err := a.fetchUnsaved(t.Context(), crawlapi.BatchRef{CrawlID: "c", Topic: "t", BatchID: "b"}, e)
	if err != nil || out != outcomeUnsent {
		t.Errorf("fetch refused unsent after robots.txt: outcome %v, %v; want outcomeUnsent (requeued, not failed)", out, err)
	}
}

// TestSliceRequeuesUnsentUncounted: in a crawl slice, the first request to
// a host whose robots.txt (read just before it) asks for a Crawl-delay
// longer than fetch.max_host_delay is refused unsent and its entry goes
// back to the queue with its claim uncounted, so refusals on several
// workers never add up to the failure that three 429s are.
func TestSliceRequeuesUnsentUncounted(t *testing.T) {
	site, a, r := siteCrawl(t)
	site.cOnce.Do(func() { close(site.cSeen) }) // b.test's root need not wait for c.test
	site.robots = "User-agent: *\nCrawl-delay: 60\n"
	a.FetchCfg.MaxHostDelay, a.FetchCfg.DelayMargin = 200*time.Millisecond, 0
	in := sliceInput(r, "s000001", 100)
	in.Duration = 3 * time.Second // then only held hosts' entries are left
	if _, err := a.CrawlSlice(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	for u := range site.pageRequests() {
		if strings.HasPrefix(u, "http://b.test/") || strings.HasPrefix(u, "http://c.test/") {
			t.Errorf("%s requested within the Crawl-delay its host's robots.txt, read just before, asks for", u)
		}
	}
	// Claimed after the holds (a claim's time two minutes on): b.test's
	// root on its first counted attempt.
	later := time.Now().Add(2 * time.Minute)
	if _, err := a.Store.ClaimBatch(t.Context(), store.ClaimRequest{Topic: r.Topic, BatchID: "after", Max: 10, Lease: time.Minute, Now: later}); err != nil {
		t.Fatal(err)
	}
	entries, err := a.Store.BatchEntries(t.Context(), r.Topic, "after")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range entries {
		if e.URL == "http://b.test/" {
			found = true
			if e.Attempts != 1 {
				t.Errorf("b.test/ claimed on attempt %d; want 1: refusals unsent are not attempts", e.Attempts)
			}
		}
	}
	if !found {
		t.Errorf("b.test/ not queued after the slice: %+v", entries)
	}
}

// TestHoldShorterThanRobotsTTL: a Crawl-delay hold ends while the host's
// robots.txt is still cached (at most half of fetch.robots_ttl), so the
// request after it is sent; with a robots_ttl shorter than the Crawl-delay
// every request re-read robots.txt, was held anew and refused, for ever.
func TestHoldShorterThanRobotsTTL(t *testing.T) {
	a := crawlDelaySite(t, 3)
	a.FetchCfg.MaxHostDelay, a.FetchCfg.DelayMargin, a.FetchCfg.RobotsTTL = 100*time.Millisecond, 0, 2*time.Second
	ctx := t.Context()
	e := store.FrontierEntry{URL: "http://v.test/one", Host: "v.test"}
	if _, err := a.politeFetch(ctx, e); !heldUnsent(err) {
		t.Fatalf("first request after robots.txt: %v; want it refused unsent", err)
	}
	if rest := time.Until(a.sent.heldUntil("v.test", time.Now())); rest > time.Second {
		t.Errorf("held %v more; want at most half the 2s robots_ttl", rest)
	}
	if err := a.waitLongHold(ctx, "v.test"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.politeFetch(ctx, e); err != nil {
		t.Errorf("request after the hold: %v; want it sent (robots.txt still cached)", err)
	}
}

// TestSamplesWaitLongCrawlDelay: sample pages of a host whose Crawl-delay
// (1 s) is longer than fetch.max_host_delay (200 ms) are fetched a whole
// Crawl-delay apart, robots.txt counted as a request; before, they came
// max_host_delay apart.
func TestSamplesWaitLongCrawlDelay(t *testing.T) {
	a := crawlDelaySite(t, 1)
	a.FetchCfg.MaxHostDelay, a.FetchCfg.DelayMargin = 200*time.Millisecond, 0
	start := time.Now()
	if texts := a.sampleTexts(t.Context(), t.Context(), []string{"http://s.test/one", "http://s.test/two"}); len(texts) != 2 {
		t.Fatalf("%d sample texts; want 2", len(texts))
	}
	// robots.txt, then each sample a Crawl-delay after the request before.
	if took := time.Since(start); took < 2*time.Second-50*time.Millisecond {
		t.Errorf("two samples after robots.txt took %v; want at least two 1s Crawl-delays", took)
	}
}

// politeDo is one polite request (politeDoAfter, no robots.txt request
// booked by the caller) without politeDoHolding's hold after it: the tests'
// plain request.
func (a *Activities) politeDo(ctx context.Context, host string, req fetch.Request) (*fetch.Response, error) {
	return a.politeDoAfter(ctx, host, req, time.Time{})
}

// crawlDelaySite is activities over a site whose robots.txt sets a
// Crawl-delay of seconds and whose every page is a small HTML page.
func crawlDelaySite(t *testing.T, seconds int) *Activities {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %d\n", seconds)
			return
		}
		fmt.Fprint(w, "<html><body>here</body></html>")
	}))
	t.Cleanup(srv.Close)
	return siteActivities(t, &loopBackSite{srv: srv})
}

// TestPaceRobotsLookalike: a request to a page whose path merely ends in
// /robots.txt (a redirect hop to /docs/robots.txt) is spaced by its host's
// Crawl-delay like any page; only the host's own /robots.txt is spaced by
// fetch.host_delay (its Crawl-delay is not known before it). Before, any
// URL ending in "/robots.txt" was.
func TestPaceRobotsLookalike(t *testing.T) {
	a := crawlDelaySite(t, 2)
	a.FetchCfg.DelayMargin = 0
	ctx := t.Context()
	if d := a.hostDelay(ctx, "http://h.test/"); d != 2*time.Second { // reads and caches robots.txt
		t.Fatalf("host delay %v; want the Crawl-delay, 2s", d)
	}
	start := time.Now()
	// Returns at once: the host's slot is free, and the pace books the next
	// one a Crawl-delay later.
	if err := a.paceRequest(ctx, "http://h.test/docs/robots.txt"); err != nil {
		t.Fatal(err)
	}
	at, err := a.Store.ReserveHostSlot(ctx, "h.test", 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if gap := at.Sub(start); gap < 2*time.Second {
		t.Errorf("next slot %v after the request to /docs/robots.txt; want the Crawl-delay, 2s", gap)
	}
}

// TestSamplesArePaced: a topic's sample pages are fetched at the crawl's
// start as politely as its pages — robots.txt first, then each sample a host
// delay after the request before it — and the host's next slot in the crawl
// store comes a delay after the last sample, so the seed that follows on
// the same site waits too (a GBK user trial: the samples went out back to
// back, with no delay, though docs/topic-file.md says they are fetched
// politely).
func TestSamplesArePaced(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	var times []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths, times = append(paths, r.URL.Path), append(times, time.Now())
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow:\n")
			return
		}
		fmt.Fprint(w, "<html><head><title>Roses</title></head><body>pruning roses</body></html>")
	}))
	t.Cleanup(srv.Close)
	a := siteActivities(t, &loopBackSite{srv: srv})
	const delay = 300 * time.Millisecond
	a.FetchCfg.HostDelay, a.FetchCfg.DelayMargin = delay, 0
	texts := a.sampleTexts(t.Context(), t.Context(), []string{"http://h.test/a.html", "http://h.test/b.html"})
	if len(texts) != 2 {
		t.Fatalf("sample texts %q; want two", texts)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"/robots.txt", "/a.html", "/b.html"}; !slices.Equal(paths, want) {
		t.Fatalf("requests %q, want %q", paths, want)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < delay-10*time.Millisecond {
			t.Errorf("%s came %v after %s; want at least the host delay, %v", paths[i], gap, paths[i-1], delay)
		}
	}
	at, err := a.Store.ReserveHostSlot(t.Context(), "h.test", 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// The slot is booked from the request's start, which on a loaded
	// machine comes tens of milliseconds before the server sees it: half
	// the delay of slack still fails a slot booked without it (gap ≈ 0).
	if gap := at.Sub(times[2]); gap < delay/2 {
		t.Errorf("the host's next slot %v after the last sample; want the host delay, %v", gap, delay)
	}
}

// TestCrawlSliceRetryCountsEarlierAttempts: a retried slice's heartbeats
// and result go on from its earlier attempts. 'starter status' adds the
// running attempt's heartbeat to the workflow's counters, which count a
// slice only when it ends; a retry that started from zero made a running
// crawl's fetched count fall (an operator saw 18 go to 0 after restarting
// the Temporal server, which cancelled both slices' attempts, and 153 to
// 151 after a kill -9 of a worker) and lost the earlier attempts' links
// from the crawl's counters for good.
func TestCrawlSliceRetryCountsEarlierAttempts(t *testing.T) {
	// The slice takes a fraction of a second: it beats only with a short
	// interval (its first beat comes one interval after the start).
	defer func(d time.Duration) { sliceBeat = d }(sliceBeat)
	sliceBeat = time.Millisecond
	site, a, r := siteCrawl(t)
	in := sliceInput(r, "s000001", 100)
	// The earlier attempt: two pages fetched and judged, then it was lost
	// (its result never reached the workflow); its last heartbeat counted
	// their links.
	first := in
	first.Budget = 2
	var res crawlapi.SliceResult
	if err := runActivity(a, crawlapi.CrawlSlice.Name, first, &res); err != nil {
		t.Fatal(err)
	}
	if res.Stats.Fetched != 2 || res.Links == 0 {
		t.Fatalf("the earlier attempt: %+v; want 2 pages fetched and their links", res)
	}
	earlierLinks, earlierEnqueued := res.Links, res.Enqueued

	env := activityEnv(a)
	env.SetHeartbeatDetails(crawlapi.SliceProgress{Fetched: 2, OK: 2, Processed: 2,
		Links: int64(earlierLinks), Enqueued: int64(earlierEnqueued)})
	var mu sync.Mutex
	var beats []crawlapi.SliceProgress
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, d converter.EncodedValues) {
		var p crawlapi.SliceProgress
		if err := d.Get(&p); err != nil {
			t.Error(err)
		}
		mu.Lock()
		beats = append(beats, p)
		mu.Unlock()
	})
	v, err := env.ExecuteActivity(crawlapi.CrawlSlice.Name, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Get(&res); err != nil {
		t.Fatal(err)
	}
	n := len(site.pages)
	accepted := checkDecisions(t, site, a.Store)
	if want := wantStats(site, accepted); res.Stats != want {
		t.Errorf("stats %+v; want %+v", res.Stats, want)
	}
	// Both attempts' links: every page and the broken link but the seed
	// enqueued once, as one attempt does (TestCrawlSlice).
	if res.Links != site.links() || res.Enqueued != n {
		t.Errorf("result: %d links, %d enqueued; want %d and %d, the earlier attempt's included", res.Links, res.Enqueued, site.links(), n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(beats) == 0 {
		t.Fatal("no heartbeat")
	}
	for i, p := range beats {
		if p.Fetched < 2 || p.OK < 2 || p.Accepted < 1 || p.Links < int64(earlierLinks) {
			t.Errorf("heartbeat %d: %+v; want at least the earlier attempt's 2 pages, 1 accepted, %d links", i, p, earlierLinks)
		}
	}
	if last := beats[len(beats)-1]; last.Fetched > int64(n+1) {
		t.Errorf("last heartbeat %+v counts more than the %d pages fetched", last, n+1)
	}
}

// TestCrawlSliceRetryStopsAfterEarlierAccepted: a retried slice counts the
// pages its earlier attempts accepted towards StopAfterAccepted. Here the
// earlier attempt accepted the seed, the slice's one page to accept, and
// died before completing its entry; the retry takes the seed over and
// claims nothing more. Before, it counted from zero and went on until it
// had accepted another page of its own, so the workflow's learning and
// ranking rounds came later than their cadence.
func TestCrawlSliceRetryStopsAfterEarlierAccepted(t *testing.T) {
	_, a, r := siteCrawl(t)
	in := sliceInput(r, "s000001", 100)
	in.StopAfterAccepted = 1
	st := a.Store
	a.Store = &failCompletingWrite{Store: st}
	if _, err := a.CrawlSlice(t.Context(), in); err == nil || !strings.Contains(err.Error(), errInjected.Error()) {
		t.Fatalf("the earlier attempt: %v; want the injected store error", err)
	}
	a.Store = st
	if p, err := st.Page(t.Context(), r.Topic, urlnorm.Hash("http://a.test/")); err != nil || p.Decision != store.DecisionAccepted {
		t.Fatalf("the seed after the earlier attempt: %q, %v; want accepted", p.Decision, err)
	}
	res, err := a.CrawlSlice(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Claimed != 1 || res.Stats.Accepted != 1 || res.Reason != fetchloop.ReasonStopped {
		t.Errorf("the retry: %+v, reason %q; want only the earlier attempt's seed, stopped at 1 accepted", res.Stats, res.Reason)
	}
}

// TestCrawlSliceRetryProcessedOnce: a page an earlier attempt judged but
// whose entry it never completed (it died between the group's decisions
// and its completion) is processed again by the retry's take-over, as
// every stage skips what is recorded, and counted once in what the
// retry's heartbeats carry (withEarlier of earlierProgress and the
// attempt's own progress). Before, earlierProgress counted it from the
// store as processed and the take-over counted it again: Processed read 2
// for the one page. Fetched, accepted and indexed pages were counted once.
func TestCrawlSliceRetryProcessedOnce(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := t.Context()
	in := sliceInput(r, "s000001", 1) // the seed alone
	st := a.Store
	a.Store = &failCompletingWrite{Store: st}
	if _, err := a.CrawlSlice(ctx, in); err == nil || !strings.Contains(err.Error(), errInjected.Error()) {
		t.Fatalf("the earlier attempt: %v; want the injected store error", err)
	}
	a.Store = st
	// The retry's first steps, as CrawlSlice takes them; its heartbeats
	// carry withEarlier(earlier, prog.snapshot()).
	prefix := in.SliceID + "/"
	earlier, err := a.earlierProgress(ctx, in.Topic, prefix)
	if err != nil {
		t.Fatal(err)
	}
	var prog sliceProgress
	hosts := &heldHosts{set: &a.serving, topic: in.Topic}
	defer hosts.releaseAll()
	if err := a.takeOver(ctx, in.Ref(), prefix, sliceFence(ctx, in.SliceID, 1), hosts, &prog); err != nil {
		t.Fatal(err)
	}
	got := withEarlier(earlier, prog.snapshot())
	if got.Fetched != 1 || got.OK != 1 || got.Processed != 1 || got.Accepted != 1 || got.Indexed != 1 {
		t.Errorf("progress after the take-over %+v; want the seed counted once: fetched, processed, accepted and indexed 1", got)
	}
	if bs, err := st.BatchStats(ctx, in.Topic, prefix); err != nil || bs.Accepted != 1 || bs.Indexed != 1 {
		t.Errorf("the slice's pages %+v, %v; want the seed accepted and indexed", bs, err)
	}
	if n := site.pageRequests()["http://a.test/"]; n != 1 {
		t.Errorf("the seed requested %d times; want once", n)
	}
}

// TestLoadTopicMissingIsNoTopic: a topic or model version this crawl store
// does not hold is a non-retryable NoTopic error — the crawl fails at once
// (workflows' unloadable) — where a plain error had its slices relaunched
// for ever.
func TestLoadTopicMissingIsNoTopic(t *testing.T) {
	a := siteActivities(t, newLoopBackSite(t))
	ctx := context.Background()
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: siteTopicYAML})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range [][2]int{{r.TopicVersion + 7, r.ModelVersion}, {r.TopicVersion, r.ModelVersion + 7}} {
		_, err := a.loadTopic(ctx, "roses", v[0], v[1])
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrNoTopic || !appErr.NonRetryable() || !errors.Is(err, store.ErrNotFound) {
			t.Errorf("loadTopic(roses v%d, model v%d) = %v; want a non-retryable %s error wrapping store.ErrNotFound", v[0], v[1], err, crawlapi.ErrNoTopic)
		}
	}
}

// TestRobotsExpiredWhileWaiting: a request that waits out a short hold set
// by robots.txt's Retry-After finds robots.txt's failed entry gone when its
// wait ends; robots.txt is read again in a slot of its own and the page
// comes the host's delay after it — they went out 1 ms apart (a review).
func TestRobotsExpiredWhileWaiting(t *testing.T) {
	var mu sync.Mutex
	var robotsAt, pageAt []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			robotsAt = append(robotsAt, time.Now())
			if len(robotsAt) == 1 {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "maintenance", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return
		}
		pageAt = append(pageAt, time.Now())
		fmt.Fprint(w, "<html><body>here</body></html>")
	}))
	t.Cleanup(srv.Close)
	a := workerActivities(t, siteConfig(t, &loopBackSite{srv: srv}))
	const delay = 400 * time.Millisecond
	a.FetchCfg.HostDelay, a.FetchCfg.DelayMargin = delay, 0
	ctx := t.Context()
	if _, err := a.politeDo(ctx, "h.test", fetch.Request{URL: "http://h.test/first"}); err == nil {
		t.Fatal("first request: no error; want robots.txt's 503 to refuse it")
	}
	if _, err := a.politeDo(ctx, "h.test", fetch.Request{URL: "http://h.test/second"}); err != nil {
		t.Fatalf("second request, after the hold: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(robotsAt) != 2 || len(pageAt) != 1 {
		t.Fatalf("robots.txt read %d times, pages %d; want 2 and 1", len(robotsAt), len(pageAt))
	}
	if gap := pageAt[0].Sub(robotsAt[1]); gap < delay-20*time.Millisecond {
		t.Errorf("page %v after robots.txt's second read; want at least the host delay %v", gap, delay)
	}
}

// TestCrawlSliceRequeuesRobotsHeld: the URL refused because its host's
// robots.txt answered 429 with Retry-After (robots.txt unreachable: the
// host is held) goes back to the queue and is fetched after the hold, as a
// URL whose own answer was a 429 is; it was recorded as failed, lost to the
// crawl (a review).
func TestCrawlSliceRequeuesRobotsHeld(t *testing.T) {
	site, a, r := siteCrawl(t)
	site.overload = map[string]int{"http://b.test/robots.txt": 1}
	if _, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	p, err := a.Store.Page(t.Context(), "roses", urlnorm.Hash("http://b.test/"))
	if err != nil {
		t.Fatal(err)
	}
	site.mu.Lock()
	robots := site.requests["http://b.test/robots.txt"]
	site.mu.Unlock()
	if p.Status != http.StatusOK || site.pageRequests()["http://b.test/"] != 1 || robots != 2 {
		t.Errorf("b.test/: status %d (%s %q), %d requests, robots.txt read %d times; want fetched once after robots.txt's second read",
			p.Status, p.ErrorClass, p.Error, site.pageRequests()["http://b.test/"], robots)
	}
}
