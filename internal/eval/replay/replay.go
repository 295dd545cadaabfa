// Package replay serves local HTML trees as web sites on loopback, so that
// focuscrawl can be tested, demonstrated and evaluated without a network.
//
// Two layouts are served. A directory written by package synth (it holds
// manifest.json) is a whole web: requests are dispatched on the Host header,
// port stripped, to root/<host>/, and unknown hosts get 404. Any other
// directory, such as an unpacked Debian documentation package, is served as
// one site for whatever Host is asked.
//
// Serving rules: files only, never directory listings (a directory serves its
// index.html or 404; without its trailing slash it is redirected); no path
// escapes the root (paths with ".." segments are refused, symlinks resolving
// outside the root are refused); Content-Type comes from the extension, and
// HTML is sent as a bare "text/html" without a charset so that the crawler
// must sniff <meta charset> (GBK pages of the synthetic web declare their
// encoding only there); Last-Modified, ETag and conditional requests (304)
// follow http.ServeContent.
//
// Synthetic hosts whose manifest entry has Traps also answer two endless,
// generated spider traps: /trap/calendar/YYYY/MM/ links to the previous and
// next month, /trap/session/N?sid=X links to /trap/session/N+1 with a fresh
// sid and to copies of page N under other sids.
//
// Options add latency and flakiness (503 answers, connections reset
// mid-response). Every random decision is a hash of Options.Seed, the request
// URL and how many times that URL was asked before, so a run is reproducible
// however requests interleave, and a retried URL gets a fresh draw.
package replay

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"focuscrawl/internal/eval/synth"
)

// Options tune latency and flakiness. The zero value serves every request
// at once and correctly.
type Options struct {
	Latency   time.Duration // added to every response
	Jitter    time.Duration // random extra latency in [0, Jitter)
	ErrorRate float64       // share of requests answered 503 (robustness runs)
	ResetRate float64       // share of connections closed mid-response (hijack and close)
	Seed      int64         // makes the flakiness reproducible
	Log       io.Writer     // optional access log, one line per request
	// LogArrival starts each access-log line with the request's arrival
	// time (RFC 3339, nanoseconds), so politeness can be checked from the
	// server's side: the line itself is written when the response ends.
	LogArrival bool
	// Sitemap serves a single-site tree that has neither file with a
	// robots.txt naming /sitemap.xml and a sitemap.xml listing every .html
	// file of the tree (the focus evaluation's sitemap runs; the Debian
	// packages it serves have no sitemaps of their own). Their URLs are on
	// the host the request named, without its port: for a server reached
	// through fetch.resolve names, as the evaluation's are.
	Sitemap bool
}

// Server serves one directory tree. It is safe for concurrent use.
type Server struct {
	root  string // absolute, symlinks resolved
	opt   Options
	sites map[string]synth.Site // by host; nil when serving a single site

	requests atomic.Int64

	mu       sync.Mutex
	attempts map[string]uint64 // times each host+URI was requested

	logMu sync.Mutex

	sitemapOnce  sync.Once
	sitemapPaths []string // the tree's .html files, slash-separated, sorted

	srvMu sync.Mutex
	srv   *http.Server
	addr  string
}

// New prepares a server for the tree at root. A root holding synth's
// manifest.json is served as a multi-host synthetic web.
func New(root string, opt Options) (*Server, error) {
	if !(opt.ErrorRate >= 0 && opt.ErrorRate <= 1) || !(opt.ResetRate >= 0 && opt.ResetRate <= 1) {
		return nil, fmt.Errorf("replay: ErrorRate %v and ResetRate %v must be between 0 and 1", opt.ErrorRate, opt.ResetRate)
	}
	if opt.Latency < 0 || opt.Jitter < 0 {
		return nil, fmt.Errorf("replay: Latency %v and Jitter %v must not be negative", opt.Latency, opt.Jitter)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("replay: root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("replay: root %q: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("replay: root %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("replay: root %q is not a directory", root)
	}
	s := &Server{root: real, opt: opt, attempts: map[string]uint64{}}
	if _, err := os.Stat(filepath.Join(real, synth.ManifestFile)); err == nil {
		web, err := synth.Load(real)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		s.sites = make(map[string]synth.Site, len(web.Sites))
		for _, site := range web.Sites {
			s.sites[site.Host] = site
		}
	}
	return s, nil
}

// Handler returns the server's http.Handler, for use with httptest or an
// http.Server of the caller's own.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// Requests returns how many requests the server has handled, failed ones
// included.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Start listens on addr, which must be a loopback address such as
// "127.0.0.1:0", and serves in the background. It returns the base URL,
// e.g. "http://127.0.0.1:38411".
func (s *Server) Start(addr string) (baseURL string, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("replay: listen address %q: %w", addr, err)
	}
	if !isLoopback(host) {
		return "", fmt.Errorf("replay: refusing to listen on %q: only loopback addresses (127.0.0.0/8, ::1, localhost) are allowed, the replayed web must not be reachable from the network", addr)
	}
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	if s.srv != nil {
		return "", fmt.Errorf("replay: already listening on %s", s.addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("replay: listen on %q: %w", addr, err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		// "localhost" resolved to something else.
		ln.Close()
		return "", fmt.Errorf("replay: refusing to serve on %s (from %q): not a loopback address", ln.Addr(), addr)
	}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	s.addr = ln.Addr().String()
	go s.srv.Serve(ln) //nolint:errcheck // Serve always returns ErrServerClosed after Close.
	return "http://" + s.addr, nil
}

// Close stops a server started with Start, closing open connections. It is
// a no-op otherwise.
func (s *Server) Close() error {
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	if s.srv == nil {
		return nil
	}
	err := s.srv.Close()
	s.srv, s.addr = nil, ""
	if err != nil {
		return fmt.Errorf("replay: close: %w", err)
	}
	return nil
}

// DialContext connects to the started server whatever address is asked. An
// http.Transport using it reaches the synthetic hosts by name
// (http://www.site01.test/) without any DNS.
func (s *Server) DialContext(ctx context.Context, network, _ string) (net.Conn, error) {
	s.srvMu.Lock()
	addr := s.addr
	s.srvMu.Unlock()
	if addr == "" {
		return nil, errors.New("replay: dial: server not started")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Salts separate the independent random decisions made for one request.
const (
	saltDelay uint64 = iota + 1
	saltError
	saltReset
	saltTrap
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	arrived := time.Now()
	host := hostOf(r.Host)
	key := host + " " + r.URL.RequestURI()
	n := s.attempt(key)

	if d := s.opt.Latency + time.Duration(unit(s.rand(key, n, saltDelay))*float64(s.opt.Jitter)); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			s.logf(arrived, host, r, "gone", 0)
			return
		}
	}
	if s.opt.ErrorRate > 0 && unit(s.rand(key, n, saltError)) < s.opt.ErrorRate {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "replay: simulated failure", http.StatusServiceUnavailable)
		s.logf(arrived, host, r, "503", 0)
		return
	}
	if s.opt.ResetRate > 0 && unit(s.rand(key, n, saltReset)) < s.opt.ResetRate {
		s.logf(arrived, host, r, "reset", 0)
		reset(w)
		return
	}

	sw := &statusWriter{ResponseWriter: w}
	s.dispatch(sw, r, host, key, n)
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	s.logf(arrived, host, r, fmt.Sprint(sw.status), sw.bytes)
}

func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, host, key string, n uint64) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "replay: method not allowed", http.StatusMethodNotAllowed)
		return
	}
	dir := s.root
	if s.sites != nil {
		site, ok := s.sites[host]
		if !ok {
			http.Error(w, fmt.Sprintf("replay: unknown host %q", host), http.StatusNotFound)
			return
		}
		dir = filepath.Join(s.root, site.Host)
		if site.Traps && strings.HasPrefix(r.URL.Path, "/trap/") {
			s.serveTrap(w, r, key, n)
			return
		}
	} else if s.opt.Sitemap && s.serveSitemap(w, r, host) {
		return
	}
	s.serveFile(w, r, dir)
}

// serveSitemap answers /robots.txt and /sitemap.xml with generated ones
// when the tree has no such file (Options.Sitemap); false for any other
// request.
func (s *Server) serveSitemap(w http.ResponseWriter, r *http.Request, host string) bool {
	p := r.URL.Path
	if p != "/robots.txt" && p != "/sitemap.xml" {
		return false
	}
	if _, err := os.Stat(filepath.Join(s.root, p[1:])); err == nil {
		return false
	}
	if p == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "User-agent: *\nDisallow:\nSitemap: http://%s/sitemap.xml\n", host)
		return true
	}
	s.sitemapOnce.Do(func() {
		_ = filepath.WalkDir(s.root, func(name string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(name, ".html") {
				if rel, err := filepath.Rel(s.root, name); err == nil {
					s.sitemapPaths = append(s.sitemapPaths, filepath.ToSlash(rel))
				}
			}
			return nil
		})
	})
	w.Header().Set("Content-Type", "application/xml")
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+"\n")
	for _, rel := range s.sitemapPaths {
		u := url.URL{Scheme: "http", Host: host, Path: "/" + rel}
		fmt.Fprintf(w, "<url><loc>%s</loc></url>\n", html.EscapeString(u.String()))
	}
	io.WriteString(w, "</urlset>\n")
	return true
}

// serveFile serves the file r asks for from the site directory dir.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, dir string) {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	// r.URL.Path is already percent-decoded, so "%2e%2e%2f" arrives here as
	// "../" and is caught too. Backslashes and NULs have no business in a
	// URL path and would only serve an escape on some other system.
	if containsDotDot(p) || strings.ContainsAny(p, "\\\x00") {
		http.Error(w, "replay: invalid URL path", http.StatusBadRequest)
		return
	}
	clean := path.Clean(p)
	wantDir := strings.HasSuffix(p, "/")

	name, fi, status := s.resolve(filepath.Join(dir, filepath.FromSlash(clean)))
	if status != http.StatusOK {
		http.Error(w, http.StatusText(status), status)
		return
	}
	if fi.IsDir() {
		if !wantDir {
			// Relative links in the index would resolve wrongly without
			// the slash.
			target := clean + "/"
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, target, http.StatusMovedPermanently)
			return
		}
		name, fi, status = s.resolve(filepath.Join(name, "index.html"))
		if status == http.StatusOK && !fi.Mode().IsRegular() {
			status = http.StatusNotFound
		}
		if status != http.StatusOK {
			// Never a listing.
			http.Error(w, http.StatusText(status), status)
			return
		}
	} else if wantDir || !fi.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}

	f, err := os.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	if ct := contentType(name); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, fi.ModTime().UnixNano(), fi.Size()))
	http.ServeContent(w, r, name, fi.ModTime(), f)
}

// resolve follows symlinks in name and checks that the result stays inside
// the root. It returns the real path, its FileInfo and 200, or 404 / 403.
func (s *Server) resolve(name string) (string, os.FileInfo, int) {
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", nil, http.StatusNotFound
	}
	if real != s.root && !strings.HasPrefix(real, s.root+string(filepath.Separator)) {
		return "", nil, http.StatusForbidden
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", nil, http.StatusNotFound
	}
	return real, fi, http.StatusOK
}

func containsDotDot(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// contentTypes maps extensions to media types. It is fixed rather than taken
// from mime.TypeByExtension, which reads the host's mime.types and would make
// runs differ between machines, and which adds "charset=utf-8" to HTML.
var contentTypes = map[string]string{
	".html": "text/html",
	".htm":  "text/html",
	".txt":  "text/plain; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".json": "application/json",
	".xml":  "application/xml",
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".gif":  "image/gif",
	".svg":  "image/svg+xml",
	".ico":  "image/vnd.microsoft.icon",
	".pdf":  "application/pdf",
	".gz":   "application/gzip",
}

// contentType returns the media type of a file name, or "" to let
// http.ServeContent sniff (Debian documentation has many extensionless
// text files: README, copyright, changelog).
func contentType(name string) string {
	return contentTypes[strings.ToLower(filepath.Ext(name))]
}

// hostOf strips the port and a trailing dot from a Host header.
func hostOf(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

func (s *Server) attempt(key string) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.attempts[key]
	s.attempts[key] = n + 1
	return n
}

// rand is the reproducible random number for the n-th request of key.
func (s *Server) rand(key string, n, salt uint64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	x := h.Sum64() ^ uint64(s.opt.Seed)*0x9e3779b97f4a7c15 ^ (n+1)*0xbf58476d1ce4e5b9 ^ salt*0x94d049bb133111eb
	// splitmix64 finaliser: spreads every input bit over the output.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// unit maps x to [0, 1).
func unit(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// reset answers with the start of a response and then drops the connection,
// as a crashing server or a broken network path would.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // HTTP/2 or a test recorder: abort the stream instead
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 4096\r\n\r\n<!DOCTYPE html>\n<html><head><title>")
	buf.Flush()
	conn.Close()
}

func (s *Server) logf(arrived time.Time, host string, r *http.Request, status string, n int64) {
	if s.opt.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if s.opt.LogArrival {
		fmt.Fprintf(s.opt.Log, "%s ", arrived.UTC().Format(time.RFC3339Nano))
	}
	fmt.Fprintf(s.opt.Log, "%s %q %s %d\n", host, r.Method+" "+r.URL.RequestURI(), status, n)
}

// statusWriter records the status and size of a response for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
