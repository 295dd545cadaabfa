package replay

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/eval/synth"
	"focuscrawl/internal/sitemap"
	"focuscrawl/internal/urlnorm"
)

// smallWeb generates a synthetic web with a trap host, a GBK host and a
// robots-protected host.
func smallWeb(t *testing.T) *synth.Web {
	t.Helper()
	cfg := synth.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.PagesPerHost, cfg.Tunnels = 5, 4, 10, 1
	cfg.OnTopicHosts, cfg.ChineseShare, cfg.GBKShare = 0.5, 0.5, 1
	web, err := synth.Generate(cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return web
}

func newServer(t *testing.T, root string, opt Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(root, opt)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// get requests path from ts under the given Host header.
func get(t *testing.T, ts *httptest.Server, host, path string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for k, v := range header {
		req.Header[k] = v
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s%s: %v", host, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s%s: read body: %v", host, path, err)
	}
	return resp, body
}

func siteWith(t *testing.T, web *synth.Web, pred func(synth.Site) bool) synth.Site {
	t.Helper()
	for _, s := range web.Sites {
		if pred(s) {
			return s
		}
	}
	t.Fatal("the test web has no site of the wanted kind")
	return synth.Site{}
}

func TestHostDispatch(t *testing.T) {
	web := smallWeb(t)
	_, ts := newServer(t, web.Dir, Options{})
	for _, site := range web.Sites {
		want, err := os.ReadFile(filepath.Join(web.Dir, site.Host, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, host := range []string{site.Host, site.Host + ":8080", strings.ToUpper(site.Host)} {
			resp, body := get(t, ts, host, "/", nil)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want) {
				t.Errorf("GET %s/: status %d, %d bytes; want 200 and the %d bytes of its index.html", host, resp.StatusCode, len(body), len(want))
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/html" {
				t.Errorf("GET %s/: Content-Type %q, want bare text/html", host, ct)
			}
		}
	}
	// Pages of one host are not served under another.
	a, b := web.Sites[0], web.Sites[1]
	entries, _ := os.ReadDir(filepath.Join(web.Dir, a.Host))
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(web.Dir, b.Host, e.Name())); err == nil {
				continue // both have this section
			}
			if resp, _ := get(t, ts, b.Host, "/"+e.Name()+"/", nil); resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s's /%s/ served for %s: %d", a.Host, e.Name(), b.Host, resp.StatusCode)
			}
			break
		}
	}
	for _, host := range []string{"www.nowhere.test", "127.0.0.1", "manifest.json", ".."} {
		if resp, _ := get(t, ts, host, "/", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("unknown host %q: status %d, want 404", host, resp.StatusCode)
		}
	}
	if resp, _ := get(t, ts, web.Sites[0].Host, "/"+synth.ManifestFile, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the manifest is served as a page: %d", resp.StatusCode)
	}
}

func TestGBKServedAsIs(t *testing.T) {
	web := smallWeb(t)
	_, ts := newServer(t, web.Dir, Options{})
	site := siteWith(t, web, func(s synth.Site) bool { return s.Charset == "gbk" })
	want, err := os.ReadFile(filepath.Join(web.Dir, site.Host, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	resp, body := get(t, ts, site.Host, "/", nil)
	if !bytes.Equal(body, want) {
		t.Error("GBK page bytes changed in transit")
	}
	if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "charset") {
		t.Errorf("Content-Type %q gives the charset away", ct)
	}
}

func TestRobots(t *testing.T) {
	web := smallWeb(t)
	_, ts := newServer(t, web.Dir, Options{})
	for _, site := range web.Sites {
		resp, body := get(t, ts, site.Host, "/robots.txt", nil)
		switch {
		case site.Robots && resp.StatusCode != http.StatusOK:
			t.Errorf("%s: robots.txt status %d", site.Host, resp.StatusCode)
		case site.Robots && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain"):
			t.Errorf("%s: robots.txt Content-Type %q", site.Host, resp.Header.Get("Content-Type"))
		case !site.Robots && resp.StatusCode != http.StatusNotFound:
			t.Errorf("%s has no robots.txt but got %d", site.Host, resp.StatusCode)
		}
		for _, d := range site.Disallow {
			if !strings.Contains(string(body), "Disallow: "+d) {
				t.Errorf("%s: robots.txt %q lacks %s", site.Host, body, d)
			}
		}
	}
}

// siteTree writes a small single-site tree and returns its root.
func siteTree(t *testing.T) (base, root string) {
	t.Helper()
	base = t.TempDir()
	root = filepath.Join(base, "site")
	files := map[string]string{
		"site/index.html":      "<html><title>home</title></html>",
		"site/docs/a.htm":      "<html><title>a</title></html>",
		"site/docs/readme.txt": "read me",
		"site/sub/index.html":  "<html><title>sub</title></html>",
		"secret.txt":           "TOP SECRET",
	}
	for name, content := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"out":    filepath.Join(base, "secret.txt"), // escapes the root
		"outdir": base,                              // so does this directory
		"in":     filepath.Join(root, "docs", "a.htm"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return base, root
}

func TestSingleSite(t *testing.T) {
	_, root := siteTree(t)
	_, ts := newServer(t, root, Options{})
	tests := []struct {
		path, host string
		status     int
		ctype      string
		body       string
	}{
		{"/", "anything.example", 200, "text/html", "home"},
		{"/", "docs.local:9000", 200, "text/html", "home"},
		{"/docs/a.htm", "x", 200, "text/html", "<title>a</title>"},
		{"/docs/readme.txt", "x", 200, "text/plain; charset=utf-8", "read me"},
		{"/sub/", "x", 200, "text/html", "sub"},
		{"/sub/index.html", "x", 200, "text/html", "sub"},
		{"/sub", "x", 301, "", ""},
		{"/docs/", "x", 404, "", ""},
		{"/empty/", "x", 404, "", ""},
		{"/docs/a.htm/", "x", 404, "", ""},
		{"/missing.html", "x", 404, "", ""},
		{"/robots.txt", "x", 404, "", ""},
		{"/in", "x", 200, "", "<title>a</title>"},
	}
	for _, tt := range tests {
		resp, body := get(t, ts, tt.host, tt.path, nil)
		if resp.StatusCode != tt.status {
			t.Errorf("GET %s: status %d, want %d", tt.path, resp.StatusCode, tt.status)
			continue
		}
		if tt.ctype != "" && resp.Header.Get("Content-Type") != tt.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", tt.path, resp.Header.Get("Content-Type"), tt.ctype)
		}
		if !strings.Contains(string(body), tt.body) {
			t.Errorf("GET %s: body %q lacks %q", tt.path, body, tt.body)
		}
		if tt.status == 404 && (strings.Contains(string(body), "a.htm") || strings.Contains(string(body), "readme")) {
			t.Errorf("GET %s: looks like a directory listing: %q", tt.path, body)
		}
	}
	if resp, _ := get(t, ts, "x", "/sub?q=1", nil); resp.Header.Get("Location") != "/sub/?q=1" {
		t.Errorf("redirect of /sub?q=1 goes to %q", resp.Header.Get("Location"))
	}
}

func TestTraversalRefused(t *testing.T) {
	_, root := siteTree(t)
	s, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	attempts := []string{
		"/../secret.txt",
		"/../../../../etc/passwd",
		"/docs/../../secret.txt",
		"//../secret.txt",
		"/%2e%2e/secret.txt",
		"/%2E%2E%2Fsecret.txt",
		"/..%2fsecret.txt",
		"/docs/..%2f..%2fsecret.txt",
		"/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
		"/..%5csecret.txt",
		"/docs/..%5c..%5csecret.txt",
		"/secret.txt%00.html",
		"/out",
		"/outdir/secret.txt",
	}
	for _, target := range attempts {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		body := rec.Body.String()
		if rec.Code == http.StatusOK || strings.Contains(body, "TOP SECRET") || strings.Contains(body, "root:") {
			t.Errorf("GET %s: status %d, body %q", target, rec.Code, body)
		}
	}

	// The same over a real connection, where no client library cleans the
	// path first.
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	for _, target := range attempts[:4] {
		conn, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("raw GET %s: %v", target, err)
		}
		body, _ := io.ReadAll(resp.Body)
		conn.Close()
		if resp.StatusCode == http.StatusOK || strings.Contains(string(body), "TOP SECRET") {
			t.Errorf("raw GET %s: status %d, body %q", target, resp.StatusCode, body)
		}
	}
}

func TestConditionalGet(t *testing.T) {
	web := smallWeb(t)
	_, ts := newServer(t, web.Dir, Options{})
	host := web.Sites[0].Host
	resp, _ := get(t, ts, host, "/", nil)
	etag, lastMod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if etag == "" || lastMod == "" {
		t.Fatalf("no validators: ETag %q, Last-Modified %q", etag, lastMod)
	}
	fi, err := os.Stat(filepath.Join(web.Dir, host, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fi.ModTime().UTC().Format(http.TimeFormat); lastMod != want {
		t.Errorf("Last-Modified %q, file dated %q", lastMod, want)
	}
	for name, h := range map[string]http.Header{
		"If-None-Match":     {"If-None-Match": {etag}},
		"If-Modified-Since": {"If-Modified-Since": {lastMod}},
	} {
		resp, body := get(t, ts, host, "/", h)
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("%s: status %d with %d bytes, want 304 and no body", name, resp.StatusCode, len(body))
		}
	}
	resp, _ = get(t, ts, host, "/", http.Header{"If-None-Match": {`"stale"`}})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("stale If-None-Match: status %d, want 200", resp.StatusCode)
	}
}

var hrefRE = regexp.MustCompile(`href="([^"]*)"`)

func pageLinks(body []byte) []string {
	var out []string
	for _, m := range hrefRE.FindAllSubmatch(body, -1) {
		out = append(out, strings.ReplaceAll(string(m[1]), "&amp;", "&"))
	}
	return out
}

func TestTraps(t *testing.T) {
	web := smallWeb(t)
	_, ts := newServer(t, web.Dir, Options{Seed: 9})
	trap := siteWith(t, web, func(s synth.Site) bool { return s.Traps })
	plain := siteWith(t, web, func(s synth.Site) bool { return !s.Traps })

	// The calendar goes on for as long as anyone follows it.
	path := "/trap/calendar/2026/01/"
	for range 30 {
		resp, body := get(t, ts, trap.Host, path, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html" {
			t.Fatalf("GET %s: status %d, Content-Type %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		var next string
		prevFound := false
		for _, l := range pageLinks(body) {
			switch {
			case l > path && strings.HasPrefix(l, "/trap/calendar/"):
				next = l
			case l < path && strings.HasPrefix(l, "/trap/calendar/"):
				prevFound = true
			}
		}
		if next == "" || !prevFound {
			t.Fatalf("GET %s: links %v lack the next or previous month", path, pageLinks(body))
		}
		path = next
	}
	if path != "/trap/calendar/2028/07/" {
		t.Errorf("30 months after January 2026 the calendar is at %s", path)
	}

	// Session pages link onwards under fresh ids, and to themselves under
	// other ids.
	resp, body := get(t, ts, trap.Host, "/trap/session/1?sid=abc", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("session page: status %d", resp.StatusCode)
	}
	sids := map[string]bool{}
	var onward, same int
	for _, l := range pageLinks(body) {
		if m := regexp.MustCompile(`^/trap/session/(\d+)\?sid=([0-9a-f]+)$`).FindStringSubmatch(l); m != nil {
			sids[m[2]] = true
			switch m[1] {
			case "2":
				onward++
			case "1":
				same++
			}
		}
	}
	if onward != 1 || same < 2 || len(sids) != onward+same || sids["abc"] {
		t.Errorf("session page links %v: want one link to page 2 and several to page 1, all with new distinct sids", pageLinks(body))
	}
	_, again := get(t, ts, trap.Host, "/trap/session/1?sid=abc", nil)
	if bytes.Equal(body, again) {
		t.Error("the same session URL served the same sids twice")
	}

	for _, bad := range []string{"/trap/calendar/2026/13/", "/trap/calendar/2026/1/", "/trap/session/0?sid=x", "/trap/other/"} {
		if resp, _ := get(t, ts, trap.Host, bad, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", bad, resp.StatusCode)
		}
	}
	if resp, _ := get(t, ts, plain.Host, "/trap/calendar/2026/01/", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("trap served on %s, which has none: %d", plain.Host, resp.StatusCode)
	}
	err := filepath.WalkDir(web.Dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "trap" {
			t.Errorf("trap written to disk: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestErrorRate(t *testing.T) {
	web := smallWeb(t)
	host := web.Sites[0].Host

	s, ts := newServer(t, web.Dir, Options{ErrorRate: 1})
	for range 5 {
		resp, _ := get(t, ts, host, "/", nil)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("ErrorRate 1: status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	if s.Requests() != 5 {
		t.Errorf("Requests() = %d after 5 requests", s.Requests())
	}

	// Half the requests fail, the same ones for the same seed.
	statuses := func() []int {
		_, ts := newServer(t, web.Dir, Options{ErrorRate: 0.5, Seed: 42})
		var out []int
		for range 3 {
			for _, p := range []string{"/", "/robots.txt", "/nope.html"} {
				for _, site := range web.Sites {
					resp, _ := get(t, ts, site.Host, p, nil)
					out = append(out, resp.StatusCode)
				}
			}
		}
		return out
	}
	a, b := statuses(), statuses()
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("same seed, different failures:\n%v\n%v", a, b)
	}
	if !strings.Contains(fmt.Sprint(a), "503") || strings.Count(fmt.Sprint(a), "503") == len(a) {
		t.Errorf("ErrorRate 0.5 gave %v", a)
	}
}

func TestResetRate(t *testing.T) {
	web := smallWeb(t)
	s, err := New(web.Dir, Options{ResetRate: 1})
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
	req.Host = web.Sites[0].Host
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Error("ResetRate 1: the response arrived whole")
	}
	if s.Requests() == 0 {
		t.Error("the reset request was not counted")
	}
}

func TestStart(t *testing.T) {
	web := smallWeb(t)
	s, err := New(web.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:80", "no-port"} {
		if _, err := s.Start(addr); err == nil {
			s.Close()
			t.Errorf("Start(%q) succeeded", addr)
		}
	}
	base, err := s.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start("127.0.0.1:0"); err == nil {
		t.Error("second Start succeeded")
	}
	host := web.Sites[0].Host
	req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s with Host %s: %d", base, host, resp.StatusCode)
	}

	// Through DialContext the hosts are reachable by name.
	client := &http.Client{Transport: &http.Transport{DialContext: s.DialContext}}
	resp, err = client.Get("http://" + host + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET http://%s/ via DialContext: %d", host, resp.StatusCode)
	}
	client.CloseIdleConnections()

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DialContext(context.Background(), "tcp", "x:80"); err == nil {
		t.Error("DialContext after Close succeeded")
	}
}

func TestLatencyHonoursCancellation(t *testing.T) {
	web := smallWeb(t)
	s, err := New(web.Dir, Options{Latency: 1 << 62})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx)
	req.Host = web.Sites[0].Host
	s.Handler().ServeHTTP(rec, req) // returns at once instead of sleeping for ages
	if rec.Body.Len() != 0 {
		t.Errorf("a cancelled request got a body: %q", rec.Body.String())
	}
}

// TestLogArrival: with LogArrival each line starts with the request's
// arrival time, which is what a politeness check compares.
func TestLogArrival(t *testing.T) {
	web := smallWeb(t)
	var log bytes.Buffer
	_, ts := newServer(t, web.Dir, Options{Log: &log, LogArrival: true, Latency: 50 * time.Millisecond})
	before := time.Now()
	get(t, ts, web.Sites[0].Host, "/", nil)
	after := time.Now()
	stamp, rest, ok := strings.Cut(strings.TrimSpace(log.String()), " ")
	if !ok || !strings.HasPrefix(rest, web.Sites[0].Host+` "GET /" 200`) {
		t.Fatalf("log line %q", log.String())
	}
	at, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		t.Fatal(err)
	}
	// The arrival, not the end of the response: the server waits its 50 ms
	// latency after the arrival, so the answer comes at least that long
	// after the logged time, however slow the machine (a bound by cause,
	// not a wall-clock threshold: one of "within 50 ms of the send" failed
	// on a loaded machine at 63 ms).
	if at.Before(before.Add(-time.Second)) || after.Sub(at) < 50*time.Millisecond {
		t.Errorf("logged time %v: %v after the request was sent, %v before its answer came (want at least the 50 ms latency)", at, at.Sub(before), after.Sub(at))
	}
}

func TestMethodsAndLog(t *testing.T) {
	web := smallWeb(t)
	var log bytes.Buffer
	_, ts := newServer(t, web.Dir, Options{Log: &log})
	host := web.Sites[0].Host
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/", strings.NewReader("x"))
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d", resp.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodHead, ts.URL+"/", nil)
	req.Host = host
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength <= 0 {
		t.Errorf("HEAD: status %d, length %d", resp.StatusCode, resp.ContentLength)
	}
	get(t, ts, host, "/missing.html", nil)
	for _, want := range []string{host + ` "POST /" 405`, host + ` "HEAD /" 200`, host + ` "GET /missing.html" 404`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("access log lacks %q:\n%s", want, log.String())
		}
	}
}

func TestNewRejects(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.html")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, synth.ManifestFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		root string
		opt  Options
	}{
		"missing root":    {filepath.Join(dir, "nope"), Options{}},
		"root is a file":  {file, Options{}},
		"bad manifest":    {broken, Options{}},
		"error rate > 1":  {dir, Options{ErrorRate: 2}},
		"negative reset":  {dir, Options{ResetRate: -1}},
		"negative jitter": {dir, Options{Jitter: -1}},
	}
	for name, tt := range tests {
		if _, err := New(tt.root, tt.opt); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}

// TestCrawlWholeWeb walks the synthetic web over HTTP, by host name, the way
// the crawler will: every target must come back 200, and no link may be
// broken.
func TestCrawlWholeWeb(t *testing.T) {
	web := smallWeb(t)
	s, err := New(web.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	transport := &http.Transport{DialContext: s.DialContext}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}

	fetched := map[string]int{}
	queue := append([]string(nil), web.Seeds...)
	for _, u := range queue {
		fetched[u] = 0
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		resp, err := client.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		fetched[u] = resp.StatusCode
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d", u, resp.StatusCode)
			continue
		}
		if strings.Contains(u, "/trap/") {
			continue // one page of each trap is enough
		}
		base, _ := url.Parse(u)
		for _, href := range pageLinks(body) {
			n, err := urlnorm.Resolve(base, href)
			if err != nil {
				t.Errorf("%s: bad link %q: %v", u, href, err)
				continue
			}
			if _, seen := fetched[n]; !seen {
				fetched[n] = 0
				queue = append(queue, n)
			}
		}
	}
	for _, target := range web.Targets {
		if fetched[target] != http.StatusOK {
			t.Errorf("target %s: status %d", target, fetched[target])
		}
	}
	if s.Requests() != int64(len(fetched)) {
		t.Errorf("%d URLs fetched, server counted %d requests", len(fetched), s.Requests())
	}
	t.Logf("%d URLs fetched, %d targets", len(fetched), len(web.Targets))
}

// TestSitemapServed: with Options.Sitemap a single-site tree gets a
// robots.txt naming /sitemap.xml and a sitemap of its .html files, on the
// host asked for; without it both are 404.
func TestSitemapServed(t *testing.T) {
	_, root := siteTree(t)
	_, ts := newServer(t, root, Options{Sitemap: true})
	resp, body := get(t, ts, "docs.test", "/robots.txt", nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Sitemap: http://docs.test/sitemap.xml") {
		t.Errorf("robots.txt: %d %q", resp.StatusCode, body)
	}
	resp, body = get(t, ts, "docs.test", "/sitemap.xml", nil)
	res, err := sitemap.Parse(body, sitemap.Limits{})
	if resp.StatusCode != 200 || err != nil {
		t.Fatalf("sitemap.xml: %d, %v", resp.StatusCode, err)
	}
	var locs []string
	for _, e := range res.URLs {
		locs = append(locs, e.Loc)
	}
	if got, want := strings.Join(locs, " "), "http://docs.test/index.html http://docs.test/sub/index.html"; got != want {
		t.Errorf("sitemap lists %q; want %q", got, want)
	}
	_, plain := newServer(t, root, Options{})
	for _, p := range []string{"/robots.txt", "/sitemap.xml"} {
		if resp, _ := get(t, plain, "docs.test", p, nil); resp.StatusCode != 404 {
			t.Errorf("without Sitemap, %s: %d; want 404", p, resp.StatusCode)
		}
	}
}
