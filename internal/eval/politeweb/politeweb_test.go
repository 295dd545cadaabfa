package politeweb

import (
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestServeRobotsAndAnalyze(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(`<a href="a.html">a</a>`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Dir: dir, Hosts: 3, Domain: "p.test", Stragglers: 1, StragglerLatency: 20 * time.Millisecond,
		CrawlDelay: time.Second, Index: "index.html"}
	if got, want := cfg.IdealRate(), 3.0; got != want {
		t.Errorf("IdealRate = %v, want %v (three hosts limited by the 1 s delay)", got, want)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func(host, p string) string {
		req, _ := http.NewRequest("GET", "http://"+addr+p, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := get(s.Host(0), "/robots.txt"); got != "User-agent: *\nCrawl-delay: 1\n" {
		t.Errorf("robots.txt = %q", got)
	}
	get(s.Host(0), "/index.html") // straight after robots.txt: a violation
	get(s.Host(1), "/index.html")
	if got := get(s.Host(1), "/../../etc/passwd"); got != "404 page not found\n" {
		t.Errorf("a path outside the tree answered %q, want a 404", got)
	}
	// Two violations: robots.txt then the page on host 0, two pages on host 1.
	a := Analyze(s.Log(), time.Second)
	if a.Pages != 2 || a.Robots != 1 || a.Violations != 2 {
		t.Errorf("Analyze = %+v, want 2 pages, 1 robots.txt, 2 violations", a)
	}
	got := map[string]bool{}
	for _, v := range a.Closest {
		got[v.Host+" "+v.Prev+" "+v.Next] = v.Gap < time.Second
	}
	if want := map[string]bool{s.Host(0) + " /robots.txt /index.html": true, s.Host(1) + " /index.html /../../etc/passwd": true}; !maps.Equal(got, want) {
		t.Errorf("Closest = %+v, want the two pairs", a.Closest)
	}
}
