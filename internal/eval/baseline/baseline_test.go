package baseline

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
)

// site is a tiny web: the seed links first to an off-topic branch (two
// pages deep) and then to an on-topic hub whose children are the targets.
var site = map[string]string{
	"/":             `<a href="/news.html">company news</a> <a href="/hub.html">image filters: blur and sharpen</a>`,
	"/news.html":    `<p>news about the company</p><a href="/news2.html">more news</a>`,
	"/news2.html":   `<p>older news</p>`,
	"/hub.html":     `<p>filters blur sharpen</p><a href="/blur.html">blur filter</a> <a href="/sharpen.html">sharpen filter</a>`,
	"/blur.html":    `<p>the blur filter softens an image</p>`,
	"/sharpen.html": `<p>the sharpen filter</p>`,
}

func serve(t *testing.T) map[string]string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := site[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body>%s</body></html>", r.URL.Path, body)
	}))
	t.Cleanup(srv.Close)
	return map[string]string{"site.test": strings.TrimPrefix(srv.URL, "http://")}
}

// paths lists the fetched paths of a crawl log in order.
func paths(log []crawllog.Entry) string {
	var out []string
	for _, e := range log {
		out = append(out, strings.TrimPrefix(e.URL, "http://site.test"))
	}
	return strings.Join(out, " ")
}

func TestBFSAndBestFirstOrder(t *testing.T) {
	res := serve(t)
	tp := &topic.Topic{Name: "filters", Language: "en", Keywords: map[string]float64{"filter": 1, "blur": 0.8, "sharpen": 0.8}}
	opt := Options{Budget: 4, Resolve: res}
	seeds := []string{"http://site.test/"}
	if got, want := paths(BFS(context.Background(), seeds, opt)), "/ /news.html /hub.html /news2.html"; got != want {
		t.Errorf("BFS order %q, want %q (discovery order)", got, want)
	}
	best := paths(BestFirst(context.Background(), seeds, NewTopicScorer(tp, textproc.Shared()), opt))
	if !strings.HasPrefix(best, "/ /hub.html ") || strings.Contains(best, "news") {
		t.Errorf("best-first order %q: want the on-topic hub and its targets before the news pages", best)
	}
}

func TestFailedFetchSpendsBudget(t *testing.T) {
	res := serve(t)
	log := BFS(context.Background(), []string{"http://site.test/missing.html", "http://elsewhere.test/"}, Options{Budget: 5, Resolve: res})
	if len(log) != 2 || log[0].Error == "" || log[1].Error == "" {
		t.Fatalf("want two failed fetches (404, unknown host), got %+v", log)
	}
	if log[0].Seq != 1 || log[1].Seq != 2 {
		t.Errorf("fetches are numbered in order: %d, %d", log[0].Seq, log[1].Seq)
	}
}
