package fetch

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestParseRefresh(t *testing.T) {
	for _, c := range []struct {
		content string
		delay   float64
		ref     string
		ok      bool
	}{
		{"0;URL=Documentation/web/index.html", 0, "Documentation/web/index.html", true},
		{"0; url=/next", 0, "/next", true},
		{"  3 ,URL = 'a b.html' trailing", 3, "a b.html", true},
		{`1; url="/q?x=1;y=2"`, 1, "/q?x=1;y=2", true},
		{"5;/bare", 5, "/bare", true},
		{"2.5; url=/f", 2, "/f", true},
		{"5.9; url=/f", 5, "/f", true},
		{".5; url=/h", 0, "/h", true},
		{"1.2.3; url=/g", 1, "/g", true},
		{"30", 30, "", true},
		{"; url=/x", 0, "", false},
		{"", 0, "", false},
		{"soon; url=/x", 0, "", false},
		{"5abc", 0, "", false},
		{"1e3", 0, "", false},
		{"0URL=/x", 0, "", false},
		{"0\tURL=/x", 0, "/x", true},
	} {
		d, ref, ok := parseRefresh(c.content)
		if d != c.delay || ref != c.ref || ok != c.ok {
			t.Errorf("parseRefresh(%q) = %v, %q, %v; want %v, %q, %v", c.content, d, ref, ok, c.delay, c.ref, c.ok)
		}
	}
}

func TestMetaRefresh(t *testing.T) {
	for _, c := range []struct {
		body, ref string
		ok        bool
		why       string
	}{
		{`<META HTTP-EQUIV="refresh" content="0;URL=Documentation/web/index.html"><html><body>Redirecting...</body></html>`,
			"Documentation/web/index.html", true, "an old manual's root, before <html>"},
		{`<html><head><meta http-equiv="Refresh" content="5; url=/moved"></head><body>moved</body></html>`, "/moved", true, "at the limit"},
		{`<html><head><meta http-equiv="refresh" content="300"></head><body>news</body></html>`, "", false, "a page reloading itself"},
		{`<html><head><meta http-equiv="refresh" content="30; url=/later"></head></html>`, "", false, "a long delay: a page with content"},
		{`<html><head><meta name="description" content="refresh your garden"></head></html>`, "", false, "the word, no refresh element"},
		{`<html><head><meta content="0; url=/first" http-equiv="refresh"><meta http-equiv="refresh" content="0; url=/second"></head></html>`,
			"/first", true, "attributes in any order; the first element counts"},
		{`<html><head><meta http-equiv="refresh" content="0; url="></head></html>`, "", false, "no URL"},
		{`<html><body><p>` + strings.Repeat("x", metaRefreshScan) + `<meta http-equiv="refresh" content="0; url=/deep">`, "", false, "beyond the scanned head"},
	} {
		ref, ok := metaRefresh([]byte(c.body))
		if ref != c.ref || ok != c.ok {
			t.Errorf("%s: got %q, %v; want %q, %v", c.why, ref, ok, c.ref, c.ok)
		}
	}
}

// refreshServer serves pages whose bodies are meta refreshes to the
// mapped references, and any other path as a page naming itself.
func refreshServer(t *testing.T, hops map[string]string) string {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		if to, ok := hops[r.URL.Path]; ok {
			fmt.Fprintf(w, `<html><head><meta http-equiv="refresh" content="0; url=%s"><title>Redirecting</title></head><body>Redirecting...</body></html>`, to)
			return
		}
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body>landed on %s</body></html>", r.URL.Path, r.URL.Path)
	}))
	return srv.URL
}

// TestFetchFollowsMetaRefresh: a meta refresh stub is a redirect hop — the
// page fetched is its target, in Redirects, checked for loops, counted
// against MaxRedirects and against robots.txt like a Location hop.
func TestFetchFollowsMetaRefresh(t *testing.T) {
	base := refreshServer(t, map[string]string{
		"/":        "docs/index.html",
		"/loop-a":  "/loop-b",
		"/loop-b":  "/loop-a",
		"/hidden":  "/private/page",
		"/chain1":  "/chain2",
		"/chain2":  "/chain3",
		"/chain3":  "/end",
		"/encoded": "/caf%C3%A9.html",
		"/self":    "/self#top",
		"/js":      "javascript:location.reload()",
	})
	f := newFetcher(t, func(c *Config) { c.RespectRobots = true; c.MaxRedirects = 2 })

	resp, err := f.Fetch(t.Context(), Request{URL: base + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinalURL != base+"/docs/index.html" || !slices.Equal(resp.Redirects, []string{base + "/docs/index.html"}) {
		t.Errorf("FinalURL %q, Redirects %q; want the refresh target", resp.FinalURL, resp.Redirects)
	}
	if !strings.Contains(string(resp.Body), "landed on /docs/index.html") || resp.ContentType != "text/html" || resp.Charset != "utf-8" {
		t.Errorf("body %q (%s, %s): want the target's", resp.Body, resp.ContentType, resp.Charset)
	}
	if resp.Attempts != 2 {
		t.Errorf("Attempts = %d, want 2 (the stub and its target)", resp.Attempts)
	}

	_, err = f.Fetch(t.Context(), Request{URL: base + "/loop-a"})
	if fe := wantClass(t, err, ClassRedirectLoop); !strings.Contains(fe.Error(), "meta refresh") {
		t.Errorf("loop error %q does not say it was a meta refresh", fe)
	}
	_, err = f.Fetch(t.Context(), Request{URL: base + "/hidden"})
	if fe := wantClass(t, err, ClassRobots); fe.URL != base+"/private/page" {
		t.Errorf("robots error for %q, want the refresh target", fe.URL)
	}
	_, err = f.Fetch(t.Context(), Request{URL: base + "/chain1"})
	wantClass(t, err, ClassTooManyRedirects)
	// A refresh browsers would not follow leaves the page as it is: to
	// itself (a page reloading itself), or to a URL that is no page.
	for _, p := range []string{"/self", "/js"} {
		resp, err := f.Fetch(t.Context(), Request{URL: base + p})
		if err != nil {
			t.Errorf("%s: %v; want the page itself", p, err)
			continue
		}
		if resp.FinalURL != base+p || len(resp.Redirects) != 0 || !strings.Contains(string(resp.Body), "Redirecting...") {
			t.Errorf("%s: final %q, redirects %q: want the page itself", p, resp.FinalURL, resp.Redirects)
		}
	}
	resp, err = f.Fetch(t.Context(), Request{URL: base + "/encoded"})
	if err != nil || !strings.Contains(string(resp.Body), "landed on /café.html") {
		t.Errorf("refresh to an escaped path: %v, %q", err, resp.Body)
	}
}

// TestFetchFollowsRefreshHeader: a Refresh response header within the
// delay is a redirect hop as the element is, also on an empty body, and
// goes before the element; a long delay, and one to the page itself, leave
// the page as it is.
func TestFetchFollowsRefreshHeader(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/empty":
			w.Header().Set("Refresh", "0; url=/target")
			return
		case "/both":
			w.Header().Set("Refresh", "1;URL='/target'")
			fmt.Fprint(w, `<html><head><meta http-equiv="refresh" content="0; url=/elsewhere"></head></html>`)
			return
		case "/slow":
			w.Header().Set("Refresh", "300; url=/target")
		case "/self":
			w.Header().Set("Refresh", "0; url=/self")
		case "/loop":
			w.Header().Set("Refresh", "0; url=/loop2")
		case "/loop2":
			w.Header().Set("Refresh", "0; url=/loop")
		}
		fmt.Fprintf(w, "<html><body>landed on %s</body></html>", r.URL.Path)
	}))
	f := newFetcher(t, nil)
	for path, want := range map[string]string{"/empty": "/target", "/both": "/target", "/slow": "/slow", "/self": "/self"} {
		resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + path})
		if err != nil || resp.FinalURL != srv.URL+want || !strings.Contains(string(resp.Body), "landed on "+want) {
			t.Errorf("%s: %v; want the page at %s", path, err, want)
		}
	}
	_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/loop"})
	if fe := wantClass(t, err, ClassRedirectLoop); !strings.Contains(fe.Error(), "Refresh header") {
		t.Errorf("loop error %q does not say it was a Refresh header", fe)
	}
}

// TestValidatorsForTheFinalURL: with ValidatorsFor, only the request to
// that URL is conditional — a meta refresh stub before it (a 200 page of
// its own, which would answer 304 for its target's validators) is asked
// plainly, and the target's 304 is the answer.
func TestValidatorsForTheFinalURL(t *testing.T) {
	var mu sync.Mutex
	conditional := map[string]bool{}
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conditional[r.URL.Path] = r.Header.Get("If-Modified-Since") != ""
		mu.Unlock()
		if r.Header.Get("If-Modified-Since") != "" {
			w.WriteHeader(http.StatusNotModified) // a static server: nothing changed since
			return
		}
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/stub" {
			fmt.Fprint(w, `<meta http-equiv="refresh" content="0; url=/target">`)
			return
		}
		fmt.Fprint(w, "<p>target</p>")
	}))
	f := newFetcher(t, nil)
	lm := "Mon, 02 Jan 2006 15:04:05 GMT"
	resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/stub", LastModified: lm, ValidatorsFor: srv.URL + "/target"})
	if err != nil || !resp.NotModified || resp.FinalURL != srv.URL+"/target" {
		t.Fatalf("got %+v, %v; want the target's 304 through the stub", resp, err)
	}
	mu.Lock()
	if conditional["/stub"] || !conditional["/target"] {
		t.Errorf("conditional requests %v: want the target's only", conditional)
	}
	mu.Unlock()
	// Without ValidatorsFor every request is conditional, and the stub's
	// 304 ends the fetch: the case ValidatorsFor exists for.
	resp, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/stub", LastModified: lm})
	if err != nil || !resp.NotModified || resp.FinalURL != srv.URL+"/stub" {
		t.Errorf("without ValidatorsFor: %+v, %v; want the stub's own 304", resp, err)
	}
}

// TestMetaRefreshResolvesAgainstBase: a refresh's relative URL is resolved
// against the page's <base href>, as browsers do, wherever the base stands
// in the head; before, against the stub's own URL (/b/x.html for
// /other/x.html).
func TestMetaRefreshResolvesAgainstBase(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/b/":
			fmt.Fprint(w, `<html><head><meta http-equiv="refresh" content="0; url=x.html"><base href="/other/"></head><body>moved</body></html>`)
		default:
			fmt.Fprintf(w, "<html><head><title>t</title></head><body>landed on %s</body></html>", r.URL.Path)
		}
	}))
	resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/b/"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinalURL != srv.URL+"/other/x.html" {
		t.Errorf("FinalURL %q; want %s/other/x.html", resp.FinalURL, srv.URL)
	}
	if got := baseHref([]byte(`<head><BASE target=_top><base href=" /a/ "></head>`)); got != "/a/" {
		t.Errorf("baseHref = %q; want the first base with an href", got)
	}
}
