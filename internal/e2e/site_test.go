package e2e

import (
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// testSite is a small web of three hosts with a known topical structure,
// served on one loopback listener and told apart by Host header (the worker
// reaches them through fetch.resolve "*.test"):
//
//   - www.garden.test: English pages about growing roses (on topic)
//   - www.huayuan.test: Chinese pages about roses (on topic), half GBK-encoded
//   - www.sport.test: football pages (off topic), with a robots.txt-disallowed
//     area, a binary file, a redirect, a 404 link and a redirect loop
//
// Every on-topic page is reachable, some only through sport pages.
type testSite struct {
	addr     string
	pages    map[string]sitePage // "host/path" → page
	onTopic  []string            // normalised URLs of on-topic pages
	latency  time.Duration
	requests atomic.Int64
	srv      *http.Server
	// dynamic, when set, answers requests before the page map: it returns
	// false to leave the request to the map (sites that generate pages,
	// such as the hostile site's spider traps).
	dynamic func(w http.ResponseWriter, r *http.Request, host string) bool

	mu       sync.Mutex
	log      []siteRequest     // every request, in arrival order
	onArrive func(siteRequest) // if set, called on each arrival (before the latency)
}

// siteRequest is one entry of the site's request log.
type siteRequest struct {
	At        time.Time // arrival
	Host      string
	Path      string
	UserAgent string
	Status    int    // the response's status
	Location  string // its redirect target, if any
}

type sitePage struct {
	body        []byte
	contentType string
	status      int
	location    string
}

var roseWords = strings.Fields("rose roses garden pruning bloom compost soil petals climbing varieties fertilizer mulch gardeners cuttings aphids watering")
var roseWordsZH = []string{"玫瑰", "花园", "修剪", "种植", "花瓣", "土壤", "施肥", "浇水", "品种", "月季", "扦插", "病虫害"}
var sportWords = strings.Fields("football match striker goal league season coach referee stadium penalty tactics midfield supporters transfer")

func sentence(words []string, i, n int, sep string) string {
	out := make([]string, n)
	for k := range out {
		out[k] = words[(i*7+k*3)%len(words)]
	}
	return strings.Join(out, sep)
}

// weatherWords are an off-topic vocabulary for the rose topics' sites.
var weatherWords = strings.Fields("weather rain forecast cloud wind storm temperature humidity sunny pressure front drizzle")

// addHTML serves html at hostPath ("host/path"), an on-topic page if on.
func (s *testSite) addHTML(hostPath, html string, on bool) {
	s.pages[hostPath] = sitePage{body: []byte(html), contentType: "text/html", status: 200}
	if on {
		s.onTopic = append(s.onTopic, "http://"+hostPath)
	}
}

func htmlPage(title, charsetMeta, body string, links [][2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head>%s<title>%s</title></head><body><h1>%s</h1><p>%s</p><ul>", charsetMeta, title, title, body)
	for _, l := range links {
		fmt.Fprintf(&b, "<li>See <a href=\"%s\">%s</a> here.</li>", l[0], l[1])
	}
	b.WriteString("</ul></body></html>")
	return b.String()
}

func newTestSite(t *testing.T, latency time.Duration) *testSite {
	t.Helper()
	s := &testSite{pages: map[string]sitePage{}, latency: latency}
	add := s.addHTML
	// Garden: a home hub and 12 rose pages in a chain + hub links.
	var gardenLinks [][2]string
	for i := 1; i <= 12; i++ {
		gardenLinks = append(gardenLinks, [2]string{fmt.Sprintf("/roses/%d.html", i), "rose care " + sentence(roseWords, i, 2, " ")})
	}
	gardenLinks = append(gardenLinks, [2]string{"http://www.sport.test/", "football news"})
	add("www.garden.test/", htmlPage("Rose garden: growing roses", "", sentence(roseWords, 0, 60, " "), gardenLinks), true)
	for i := 1; i <= 12; i++ {
		links := [][2]string{{"/", "rose garden home"}}
		if i < 12 {
			links = append(links, [2]string{fmt.Sprintf("/roses/%d.html", i+1), "next rose page"})
		}
		add(fmt.Sprintf("www.garden.test/roses/%d.html", i),
			htmlPage(fmt.Sprintf("Roses %d: %s", i, sentence(roseWords, i, 3, " ")), "", sentence(roseWords, i, 80, " "), links), true)
	}
	// Huayuan (Chinese): reachable only from the sport site (a tunnel through off-topic pages).
	gbk := simplifiedchinese.GBK.NewEncoder()
	for i := 0; i <= 6; i++ {
		path := "www.huayuan.test/"
		if i > 0 {
			path = fmt.Sprintf("www.huayuan.test/meigui/%d.html", i)
		}
		var links [][2]string
		for j := 1; j <= 6; j++ {
			if j != i {
				links = append(links, [2]string{fmt.Sprintf("/meigui/%d.html", j), "玫瑰" + sentence(roseWordsZH, j, 2, "")})
			}
		}
		title := "玫瑰种植指南 " + sentence(roseWordsZH, i, 2, "")
		body := sentence(roseWordsZH, i, 120, "，")
		if i%2 == 1 { // odd pages in GBK, declared only by <meta>
			h := htmlPage(title, `<meta http-equiv="Content-Type" content="text/html; charset=gbk">`, body, links)
			enc, err := gbk.String(h)
			if err != nil {
				t.Fatal(err)
			}
			s.pages[path] = sitePage{body: []byte(enc), contentType: "text/html", status: 200}
			s.onTopic = append(s.onTopic, "http://"+path)
			continue
		}
		add(path, htmlPage(title, `<meta charset="utf-8">`, body, links), true)
	}
	// Sport: off topic, plus the awkward cases.
	sportLinks := [][2]string{{"http://www.garden.test/", "a garden site"}, {"/private/secret.html", "members"},
		{"/photo.jpg", "team photo"}, {"/team-photo", "team photo (full size)"}, {"/old-news", "old news"}, {"/missing.html", "archive"}, {"/loop-a", "loop"}}
	for i := 1; i <= 8; i++ {
		sportLinks = append(sportLinks, [2]string{fmt.Sprintf("/news/%d.html", i), "match report " + sentence(sportWords, i, 2, " ")})
	}
	add("www.sport.test/", htmlPage("Football news", "", sentence(sportWords, 0, 60, " "), sportLinks), false)
	for i := 1; i <= 8; i++ {
		links := [][2]string{{"/", "football home"}}
		if i == 8 {
			links = append(links, [2]string{"http://www.huayuan.test/", "友情链接"})
		}
		add(fmt.Sprintf("www.sport.test/news/%d.html", i), htmlPage("Match report "+sentence(sportWords, i, 3, " "), "",
			sentence(sportWords, i, 80, " "), links), false)
	}
	add("www.sport.test/private/secret.html", htmlPage("Secret rose garden", "", sentence(roseWords, 3, 80, " "), nil), false)
	s.pages["www.sport.test/robots.txt"] = sitePage{body: []byte("User-agent: *\nDisallow: /private/\n"), contentType: "text/plain", status: 200}
	// An image behind a page-like URL costs a request and is refused by its
	// Content-Type; behind an image extension it is never requested
	// (fetch.Fetcher.RefusesExtension).
	s.pages["www.sport.test/team-photo"] = sitePage{body: []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00binary"), contentType: "image/jpeg", status: 200}
	s.pages["www.sport.test/photo.jpg"] = s.pages["www.sport.test/team-photo"]
	s.pages["www.sport.test/old-news"] = sitePage{status: 301, location: "/news/1.html"}
	s.pages["www.sport.test/loop-a"] = sitePage{status: 302, location: "/loop-b"}
	s.pages["www.sport.test/loop-b"] = sitePage{status: 302, location: "/loop-a"}
	sort.Strings(s.onTopic)

	s.start(t)
	return s
}

// start serves the site on a loopback port until the test ends.
func (s *testSite) start(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
}

func (s *testSite) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	p, ok := s.pages[host+r.URL.Path]
	req := siteRequest{At: time.Now(), Host: host, Path: r.URL.Path, UserAgent: r.UserAgent(), Status: p.status, Location: p.location}
	if !ok {
		req.Status = http.StatusNotFound
	}
	s.mu.Lock()
	s.log = append(s.log, req)
	arrive := s.onArrive
	s.mu.Unlock()
	if arrive != nil {
		arrive(req)
	}
	if s.latency > 0 {
		time.Sleep(s.latency)
	}
	if s.dynamic != nil && s.dynamic(w, r, host) {
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	if p.location != "" {
		http.Redirect(w, r, p.location, p.status)
		return
	}
	w.Header().Set("Content-Type", p.contentType)
	w.WriteHeader(p.status)
	w.Write(p.body)
}

// topicYAML is the topic the site is built around. It sets prune: false:
// the site's Chinese pages and its awkward cases (robots, content type,
// 404, redirect loop) sit behind the off-topic football home page, and the
// tests using this topic are about crawl mechanics over the whole site, not
// the loop policy (filters_test.go's tunnel and detail-page cases and
// internal/relevance/loop_test.go cover pruning).
func (s *testSite) topicYAML(name string, maxPages int) string {
	return fmt.Sprintf(`name: %s
language: auto
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8, 玫瑰: 1.0, 种植: 0.8, 修剪: 0.8}
seeds: [http://www.garden.test/]
limits: {max_pages: %d}
strategy: {page_filter: {name: vsm, threshold: 0.12}, link_predictor: best-first, prune: false}
`, name, maxPages)
}

// htmlPages counts the site's HTML pages (redirects, robots.txt and the
// binary file excluded).
func (s *testSite) htmlPages() int {
	n := 0
	for _, p := range s.pages {
		if p.contentType == "text/html" {
			n++
		}
	}
	return n
}

// requestLog returns a copy of the request log.
func (s *testSite) requestLog() []siteRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]siteRequest(nil), s.log...)
}
