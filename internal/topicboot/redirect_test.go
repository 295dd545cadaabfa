package topicboot

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"focuscrawl/internal/config"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
)

// TestRedirectedExampleScope: an example URL that redirects to another
// host (example.com -> www.example.com) is read from its final host, and
// the draft's seed and suggested scope name that host; they named the
// requested one, so a crawl of the draft with its scope uncommented
// refused its own seed's redirect as off scope.
func TestRedirectedExampleScope(t *testing.T) {
	site := newSite(t)
	su, _ := url.Parse(site.URL)
	// "localhost:PORT" redirects every path to the site on 127.0.0.1:PORT.
	var front *httptest.Server
	front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("User-agent: *\n"))
			return
		}
		http.Redirect(w, r, site.URL+r.URL.Path, http.StatusMovedPermanently)
	}))
	defer front.Close()
	fu, _ := url.Parse(front.URL)
	frontURL := "http://localhost:" + fu.Port()
	urls := []string{frontURL + "/roses/pruning.html", frontURL + "/roses/soil.html"}
	out, _, err := Bootstrap(context.Background(), fetcher(t), urls, "roses", "auto", 10, textproc.Shared(), config.Fetch{})
	if err != nil {
		t.Fatal(err)
	}
	// The draft suggests a scope as a comment; uncommented as it says
	// ("to keep the crawl on the examples' sites"), it must take the site
	// the examples were read from.
	yaml := strings.Replace(string(out), "# scope: {hosts:", "scope: {hosts:", 1)
	tp, err := topic.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	finalHost := su.Hostname() // 127.0.0.1: where the examples are
	if len(tp.Scope.Hosts) == 0 || !tp.InScope(finalHost) {
		t.Errorf("the examples were read from %s, but the draft's suggested scope leaves it out: hosts %v, seeds %v\n%s",
			finalHost, tp.Scope.Hosts, tp.Seeds, firstLines(string(out), 30))
	}
}

func firstLines(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}
