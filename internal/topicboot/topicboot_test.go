package topicboot

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"

	"focuscrawl/internal/config"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
)

// A loopback site: three rose pages (the examples) among off-topic pages.
var sitePages = map[string]string{
	"/robots.txt": "User-agent: *\nDisallow: /private/\n",
	"/roses/pruning.html": `<html><head><title>Pruning roses</title></head><body><h1>Pruning roses in spring</h1>
		<p>Prune roses in early spring. Cut rose canes above an outward bud; remove dead wood. Pruning keeps the rose
		bush open. Climbing roses need lighter pruning. <a href="/">Home</a> <a href="/football.html">Football</a></p></body></html>`,
	"/roses/soil.html": `<html><head><title>Soil for roses</title></head><body><h1>Rose soil and compost</h1>
		<p>Roses like rich soil with compost. Mulch the rose bed; feed roses with compost in spring. A rose in poor
		soil flowers less. <a href="/">Home</a></p></body></html>`,
	"/roses/varieties.html": `<html><head><title>玫瑰品种</title></head><body><h1>玫瑰品种介绍</h1>
		<p>玫瑰品种很多，月季和玫瑰都需要修剪。玫瑰喜欢肥沃的土壤，玫瑰花园每年春天修剪。 <a href="/">Home</a></p></body></html>`,
	"/private/secret.html": `<html><head><title>Secret</title></head><body>rose</body></html>`,
	"/":                    `<html><head><title>Garden</title></head><body><a href="/roses/pruning.html">Roses</a></body></html>`,
}

func newSite(t *testing.T) *httptest.Server { return newSiteWithout(t, "") }

// newSiteWithout serves sitePages but the page at path gone.
func newSiteWithout(t *testing.T, gone string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := sitePages[r.URL.Path]
		ok = ok && r.URL.Path != gone
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".txt") {
			w.Header().Set("Content-Type", "text/plain")
		} else {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fetcher(t *testing.T) *fetch.Fetcher {
	cfg := fetch.DefaultConfig()
	cfg.AllowPrivateNetworks = true
	cfg.Retries = 0
	f, err := fetch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestBootstrapOnLoopbackSite(t *testing.T) {
	srv := newSite(t)
	urls := []string{srv.URL + "/roses/pruning.html", srv.URL + "/roses/soil.html", srv.URL + "/roses/varieties.html"}
	out, notes, err := Bootstrap(context.Background(), fetcher(t), urls, "roses", "auto", 10, textproc.Shared(), config.Fetch{})
	if err != nil || len(notes) != 0 {
		t.Fatal(err, notes)
	}
	tp, err := topic.Parse(out)
	if err != nil {
		t.Fatalf("generated topic does not parse: %v\n%s", err, out)
	}
	if tp.Name != "roses" || len(tp.Samples) != 3 || len(tp.Seeds) != 1 || tp.Seeds[0] != srv.URL+"/" {
		t.Errorf("name %q samples %v seeds %v, want roses, the 3 URLs, the site root", tp.Name, tp.Samples, tp.Seeds)
	}
	if len(tp.Keywords) == 0 || len(tp.Keywords) > 10 {
		t.Fatalf("keywords %v: want 1..10\n%s", tp.Keywords, out)
	}
	for _, want := range []string{"rose", "roses", "玫瑰"} {
		if tp.Keywords[want] == 0 {
			t.Errorf("keyword %q missing from %v", want, tp.Keywords)
		}
	}
	for _, nav := range []string{"home", "football"} {
		if tp.Keywords[nav] != 0 {
			t.Errorf("navigation word %q became a keyword: %v", nav, tp.Keywords)
		}
	}
	for _, title := range []string{"Pruning roses", "Soil for roses", "玫瑰品种"} {
		if !strings.Contains(tp.Description, title) {
			t.Errorf("description %q lacks the title %q", tp.Description, title)
		}
	}
	// The header names the command that wrote the file (it said "starter
	// topic bootstrap", a command that does not exist).
	if !strings.HasPrefix(string(out), "# Bootstrapped from example pages (search topic bootstrap)") {
		t.Errorf("header of\n%s\ndoes not name 'search topic bootstrap'", out)
	}
	// A commented scope line offers to keep the crawl on the examples'
	// host: without a scope, a trial crawl of a documentation mirror spent
	// 18% of its budget on links to other sites. Uncommented, it is valid.
	if tp.Scope.Hosts != nil {
		t.Errorf("scope %v set; the draft should only offer it", tp.Scope.Hosts)
	}
	scoped := strings.Replace(string(out), "\n# scope:", "\nscope:", 1)
	ts, err := topic.Parse([]byte(scoped))
	if err != nil {
		t.Fatalf("draft with its scope line uncommented does not parse: %v\n%s", err, scoped)
	}
	if len(ts.Scope.Hosts) != 1 || !ts.InScope("127.0.0.1") || ts.InScope("example.com") {
		t.Errorf("uncommented scope %v: want the examples' host 127.0.0.1 only\n%s", ts.Scope.Hosts, scoped)
	}
}

// A page that cannot be fetched (robots.txt, 404) is an error naming it.
func TestBootstrapReportsUnfetchablePages(t *testing.T) {
	srv := newSite(t)
	for _, path := range []string{"/private/secret.html", "/missing.html"} {
		_, _, err := Bootstrap(context.Background(), fetcher(t), []string{srv.URL + "/roses/soil.html", srv.URL + path}, "r", "auto", 0, textproc.Shared(), config.Fetch{})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the page", path, err)
		}
	}
}

// TestBootstrapSeedsExamplesWhenRootIsGone: the draft's seed is the site
// root, but a documentation mirror often has no page there (Debian's
// debian-reference-zh-cn served as files: "/" is a 404), and the crawl of
// the draft fetched that one URL and ended. A root that cannot be fetched
// is replaced by the examples of its host, and the file and the notes say
// why.
func TestBootstrapSeedsExamplesWhenRootIsGone(t *testing.T) {
	srv := newSiteWithout(t, "/")
	urls := []string{srv.URL + "/roses/pruning.html", srv.URL + "/roses/soil.html"}
	out, notes, err := Bootstrap(context.Background(), fetcher(t), urls, "roses", "auto", 10, textproc.Shared(), config.Fetch{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topic.Parse(out)
	if err != nil {
		t.Fatalf("generated topic does not parse: %v\n%s", err, out)
	}
	if strings.Join(tp.Seeds, " ") != strings.Join(urls, " ") {
		t.Errorf("seeds %v, want the examples %v (the root is a 404)\n%s", tp.Seeds, urls, out)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], srv.URL+"/ could not be fetched") || !strings.Contains(notes[0], "404") {
		t.Errorf("notes %q: want one naming the root and its 404", notes)
	}
	if !strings.Contains(string(out), "# "+notes[0]+"\n") {
		t.Errorf("the draft does not say why its seeds are the examples:\n%s", out)
	}
}

// TestPacerSpacesRequestsToAHost: the examples are often pages of one
// site; their requests are spaced as a crawl's (they went back to back):
// robots.txt by fetch.host_delay, then the pages by the host's delay —
// here its Crawl-delay, longer than host_delay, which is 0 — the first page
// counted from the robots.txt request. The server stamps a request when its
// handler runs, a little after it was sent, so a gap may look shorter by
// that much: a quarter of the delay is allowed.
func TestPacerSpacesRequestsToAHost(t *testing.T) {
	const crawlDelay = 120 * time.Millisecond
	var mu sync.Mutex
	var at []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("User-agent: *\nCrawl-delay: 0.12\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><title>x</title><body>rose</body></html>"))
	}))
	defer srv.Close()
	cfg := config.Fetch{Config: fetch.DefaultConfig(), HostDelay: 0, MaxHostDelay: 30 * time.Second}
	p := &Pacer{Cfg: cfg}
	if _, err := Fetch(context.Background(), fetcher(t), []string{srv.URL + "/a.html", srv.URL + "/b.html"}, p); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(at) != 3 { // robots.txt and the two pages
		t.Fatalf("%d requests, want 3", len(at))
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < crawlDelay*3/4 {
			t.Errorf("requests %d and %d were %v apart, want at least the Crawl-delay %v", i-1, i, gap, crawlDelay)
		}
	}
}

// TestBootstrapSkipsNavigation: every example carries the manual's table of
// contents as links; its words, on every example and many times, do not
// become the draft's keywords (a GBK user trial on the LilyPond manual got
// "property", "objects", "templates" first). A page of links only still
// gives its link text.
func TestBootstrapSkipsNavigation(t *testing.T) {
	nav := strings.Repeat(`<a href="/t.html">Templates</a> <a href="/o.html">Objects and properties</a> `, 6)
	pages := map[string]string{
		"/robots.txt": "User-agent: *\nDisallow:\n",
		"/":           `<html><body>home</body></html>`,
		"/a.html":     `<html><head><title>Pruning roses</title></head><body>` + nav + `<p>Prune roses in spring above an outward bud.</p></body></html>`,
		"/b.html":     `<html><head><title>Rose soil</title></head><body>` + nav + `<p>Roses like rich soil; feed roses with compost.</p></body></html>`,
	}
	srv := serveMap(t, pages, nil)
	tp := draft(t, []string{srv.URL + "/a.html", srv.URL + "/b.html"}, 10)
	if tp.Keywords["roses"] == 0 {
		t.Errorf("keywords %v lack roses", tp.Keywords)
	}
	for _, nav := range []string{"templates", "objects", "properties"} {
		if tp.Keywords[nav] != 0 {
			t.Errorf("navigation word %q became a keyword: %v", nav, tp.Keywords)
		}
	}
	links := &parse.Document{Text: "Templates Objects", Anchor: "Templates Objects"}
	if got := Prose(links); got != "Templates Objects" {
		t.Errorf("Prose of a page of links only = %q, want its link text", got)
	}
}

// TestBootstrapNotesCharsetOverride: an example labelled utf-8 whose bytes
// are GBK is read as GBK (package fetch), and the bootstrap says so — its
// draft's words come from the page as decoded (GBK user trial).
func TestBootstrapNotesCharsetOverride(t *testing.T) {
	gbk, err := simplifiedchinese.GBK.NewEncoder().String(`<html><head><meta charset="utf-8"><title>玫瑰修剪</title></head><body><p>春天修剪玫瑰，玫瑰喜欢肥沃的土壤。修剪玫瑰的方法。</p></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a.html", "/b.html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(gbk))
		case "/":
			_, _ = w.Write([]byte("<html><body>home</body></html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	out, notes, err := Bootstrap(context.Background(), fetcher(t), []string{srv.URL + "/a.html", srv.URL + "/b.html"}, "roses", "auto", 10, textproc.Shared(), config.Fetch{})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], srv.URL+"/a.html was read as gbk") {
		t.Errorf("notes %q; want one per example naming it and gbk", notes)
	}
	if !strings.Contains(string(out), "玫瑰") {
		t.Errorf("draft lacks 玫瑰:\n%s", out)
	}
}

// TestBootstrapLeavesOutTheSitesWords: every page of a manual carries its
// name in the title and a footer; the draft's keywords and description
// are the examples' subject, not the manual's. The background is the
// pages the examples link to (contents, index, a neighbour), read
// politely like the examples; a robots.txt-refused link is skipped.
func TestBootstrapLeavesOutTheSitesWords(t *testing.T) {
	page := func(title, text string, links ...string) string {
		var a string
		for _, l := range links {
			if strings.HasPrefix(l, "<") { // a whole element
				a += l + " "
				continue
			}
			a += `<a href="` + l + `">` + strings.TrimSuffix(strings.TrimPrefix(l, "/"), ".html") + `</a> `
		}
		return `<html><head><title>Orchard Handbook: ` + title + `</title></head><body>` + a +
			`<p>` + text + `</p><p>This page is part of the Orchard Handbook. Please report errors to the handbook team.</p></body></html>`
	}
	pages := map[string]string{
		"/robots.txt": "User-agent: *\nDisallow: /private/\n",
		"/":           `<html><body>home</body></html>`,
		"/pruning.html": page("Pruning apple trees", "Prune apple trees in late winter; cut crossing branches and thin the crown.",
			`<a rel="nofollow" href="/nofollow.html">n</a>`, "/toc.html", `<a href="/guide.pdf">g</a>`, "/private/x.html", "/index.html", "/grafting.html", "/soil.html"),
		"/nofollow.html": page("Not followed", "A page the examples link to with rel=nofollow."),
		"/grafting.html": page("Grafting apple trees", "Graft apple scions onto rootstock in spring; whip grafting joins scion and stock.",
			"/toc.html", "/pests.html", "/pruning.html"),
		"/toc.html":       page("Contents", "Soil. Planting. Pruning. Grafting. Pests. Harvest."),
		"/index.html":     page("Index", "Alphabetical index of the handbook's subjects."),
		"/pests.html":     page("Pests", "Aphids and codling moths damage fruit."),
		"/soil.html":      page("Soil", "Loam drains well."),
		"/private/x.html": page("Private", "secret"),
	}
	var mu sync.Mutex
	var got []string
	srv := serveMap(t, pages, func(path string) {
		mu.Lock()
		got = append(got, path)
		mu.Unlock()
	})
	out, _, err := Bootstrap(context.Background(), fetcher(t), []string{srv.URL + "/pruning.html", srv.URL + "/grafting.html"}, "apples", "auto", 10, textproc.Shared(), config.Fetch{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topic.Parse(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, site := range []string{"orchard", "handbook", "report", "please"} {
		if tp.Keywords[site] != 0 {
			t.Errorf("the site's word %q became a keyword: %v", site, tp.Keywords)
		}
	}
	for _, topical := range []string{"apple", "trees"} {
		if tp.Keywords[topical] == 0 {
			t.Errorf("keywords %v lack %q", tp.Keywords, topical)
		}
	}
	if tp.Description != "Pruning apple trees; Grafting apple trees" {
		t.Errorf("description %q: want the examples' titles without the handbook's name", tp.Description)
	}
	// The examples, the root, then the examples' links taken in turn (the
	// first of each, the second of each, …), the first ContrastPages that
	// can be read: /toc.html (both examples' first), /private/ (refused
	// by robots.txt, not requested) and /pests.html, /index.html, then
	// /soil.html; examples are not fetched again, nor a rel=nofollow link
	// or a download (/guide.pdf). config.Fetch{} sets no delay here; the
	// pacing itself is TestPacerSpacesRequestsToAHost's.
	mu.Lock()
	defer mu.Unlock()
	want := []string{"/robots.txt", "/pruning.html", "/grafting.html", "/", "/toc.html", "/pests.html", "/index.html", "/soil.html"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("requests %v, want %v", got, want)
	}
}

// serveMap serves pages (path → HTML) on loopback, calling seen (if not
// nil) with each request's path.
func serveMap(t *testing.T, pages map[string]string, seen func(path string)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			seen(r.URL.Path)
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestBootstrapLanguageFromExamples: a draft's language: is the one its
// examples say they are in — their URL's code among their switcher's, or
// their <html lang> — when they agree. A user trial's draft of the Chinese
// LilyPond manual (English prose, no <html lang>) said auto, its English
// keywords had one function word, and the crawl followed every page's 11
// other translations (17 of 60 fetches).
func TestBootstrapLanguageFromExamples(t *testing.T) {
	switcher := `<p><a href="x.html">English</a> <a href="x.de.html">Deutsch</a> <a href="x.fr.html">Francais</a></p>`
	pages := map[string]string{
		"/m/lyrics.zh.html": `<html><head><title>Aligning lyrics</title></head><body><h1>Aligning lyrics to a melody</h1>
			<p>The word shine should be sung on two notes, not one: a melisma.</p>` +
			strings.ReplaceAll(switcher, "x.", "lyrics.") + `</body></html>`,
		"/m/songs.zh.html": `<html><head><title>Setting simple songs</title></head><body><h1>Simple songs</h1>
			<p>Lyrics are entered with addlyrics after the notes of a song.</p>` +
			strings.ReplaceAll(switcher, "x.", "songs.") + `</body></html>`,
		"/en/vocal.html":  `<html lang="en-GB"><head><title>Vocal ensembles</title></head><body><p>Templates for vocal ensembles and lyrics.</p></body></html>`,
		"/de/gesang.html": `<html lang="de"><head><title>Gesang</title></head><body><p>Vorlagen für Gesang und Liedtexte.</p></body></html>`,
	}
	srv := serveMap(t, pages, nil)
	for _, c := range []struct {
		name, flag string
		paths      []string
		want       string
	}{
		{"switcher URLs say zh", "auto", []string{"/m/lyrics.zh.html", "/m/songs.zh.html"}, "zh"},
		{"<html lang>", "auto", []string{"/en/vocal.html"}, "en"},
		{"examples disagree", "auto", []string{"/m/lyrics.zh.html", "/en/vocal.html"}, "auto"},
		{"a language a topic file cannot name", "auto", []string{"/de/gesang.html"}, "auto"},
		{"the flag wins", "en", []string{"/m/lyrics.zh.html"}, "en"},
	} {
		var urls []string
		for _, p := range c.paths {
			urls = append(urls, srv.URL+p)
		}
		out, _, err := Bootstrap(context.Background(), fetcher(t), urls, "vocal", c.flag, 10, textproc.Shared(), config.Fetch{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tp, err := topic.Parse(out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		if tp.Language != c.want {
			t.Errorf("%s: language %q, want %q\n%s", c.name, tp.Language, c.want, out)
		}
	}
}
