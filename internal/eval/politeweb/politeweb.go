// Package politeweb is a loopback model of the polite crawler's world, for
// the politeness benchmark: many virtual hosts that each serve a copy of one
// real documentation tree (each HTML page marked with its host, so the
// copies are not byte-identical duplicates), answer after a per-host latency (a few
// "straggler" hosts much slower than the rest), and ask for a Crawl-delay in
// robots.txt. It logs every request with its start and end, so a run can be
// checked for politeness violations (two requests to one host closer than
// the delay) and its rate compared with the ideal polite rate
//
//	Σ over hosts of 1 / max(crawl delay, response time)
//
// — one request per host per max(delay, latency) is the best any polite
// crawler can do.
package politeweb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config describes the web.
type Config struct {
	Dir              string        // the documentation tree every host serves
	Hosts            int           // virtual hosts: h00.<Domain>, h01.<Domain>, ...
	Domain           string        // e.g. "polite.test"
	Latency          time.Duration // response time of ordinary hosts
	Stragglers       int           // the first this many hosts answer after StragglerLatency
	StragglerLatency time.Duration
	CrawlDelay       time.Duration // announced in every host's robots.txt
	Index            string        // the seed page under the tree, e.g. "index.html"
}

// Request is one logged request.
type Request struct {
	Host, Path string
	Start, End time.Time
	Status     int
}

// Server serves a Config's web on one loopback listener (virtual hosts by
// the Host header).
type Server struct {
	cfg  Config
	root string
	srv  *http.Server
	addr string

	mu  sync.Mutex
	log []Request
}

// New checks cfg and prepares a server.
func New(cfg Config) (*Server, error) {
	if cfg.Hosts < 1 || cfg.Domain == "" || cfg.Stragglers > cfg.Hosts {
		return nil, fmt.Errorf("politeweb: need ≥ 1 host, a domain and at most Hosts stragglers, got %+v", cfg)
	}
	root, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(root, cfg.Index)); err != nil {
		return nil, fmt.Errorf("politeweb: seed page: %w", err)
	}
	return &Server{cfg: cfg, root: root}, nil
}

// Host returns the name of virtual host i.
func (s *Server) Host(i int) string { return s.cfg.host(i) }

// Seeds returns every host's seed URL.
func (s *Server) Seeds() []string { return s.cfg.seeds() }

func (c Config) host(i int) string { return fmt.Sprintf("h%02d.%s", i, c.Domain) }

func (c Config) seeds() []string {
	out := make([]string, c.Hosts)
	for i := range out {
		out[i] = "http://" + c.host(i) + "/" + c.Index
	}
	return out
}

// latency returns host's response time.
func (s *Server) latency(host string) time.Duration {
	for i := range s.cfg.Stragglers {
		if host == s.Host(i) {
			return s.cfg.StragglerLatency
		}
	}
	return s.cfg.Latency
}

// IdealRate is the polite upper bound in pages per second (see the package
// documentation).
func (c Config) IdealRate() float64 {
	per := func(lat time.Duration) float64 { return 1 / max(c.CrawlDelay, lat).Seconds() }
	return float64(c.Hosts-c.Stragglers)*per(c.Latency) + float64(c.Stragglers)*per(c.StragglerLatency)
}

// Start listens on addr (e.g. 127.0.0.1:0) and returns host:port.
func (s *Server) Start(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	s.addr = ln.Addr().String()
	go s.srv.Serve(ln) //nolint:errcheck // ends with Close
	return s.addr, nil
}

// Close stops the server.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// DialContext dials the server whatever address is asked (for clients that
// take a dialer instead of a resolve map).
func (s *Server) DialContext(ctx context.Context, network, _ string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, s.addr)
}

// Log returns a copy of the request log, in start order.
func (s *Server) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Request(nil), s.log...)
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// Reset clears the request log (between two crawlers' runs).
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	host = strings.ToLower(host)
	if host == ControlHost {
		s.control(w, r)
		return
	}
	status := s.respond(w, r, host)
	s.mu.Lock()
	s.log = append(s.log, Request{Host: host, Path: r.URL.Path, Start: start, End: time.Now(), Status: status})
	s.mu.Unlock()
}

// control answers a Remote's requests: the log as JSON, or its reset.
func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/log":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.Log()) //nolint:errcheck // the client may hang up
	case "/reset":
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request, host string) int {
	if !strings.HasSuffix(host, "."+s.cfg.Domain) {
		http.NotFound(w, r)
		return http.StatusNotFound
	}
	time.Sleep(s.latency(host))
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %g\n", s.cfg.CrawlDelay.Seconds())
		return http.StatusOK
	}
	clean := path.Clean("/" + r.URL.Path)
	file := filepath.Join(s.root, filepath.FromSlash(clean))
	if !strings.HasPrefix(file, s.root) {
		http.NotFound(w, r)
		return http.StatusNotFound
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(b) == 0) {
		http.NotFound(w, r)
		return http.StatusNotFound
	} else if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return http.StatusInternalServerError
	}
	ct := "application/octet-stream"
	switch strings.ToLower(path.Ext(clean)) {
	case ".html", ".htm":
		ct = "text/html; charset=utf-8"
		// Each host's copy differs (as different sites' pages do), so a
		// crawler's duplicate detection does not fold the hosts into one.
		b = append([]byte(fmt.Sprintf("<!-- served by %s -->\n", host)), b...)
	case ".css":
		ct = "text/css"
	case ".png":
		ct = "image/png"
	}
	w.Header().Set("Content-Type", ct)
	w.Write(b) //nolint:errcheck // the client may hang up
	return http.StatusOK
}

// Analysis summarises a request log.
type Analysis struct {
	Pages      int           // page requests (robots.txt excluded) answered 200
	Robots     int           // robots.txt requests
	Violations int           // requests to a host less than the delay after the previous one started
	MinGap     time.Duration // smallest gap between two requests to one host
	Window     time.Duration // first request's start to last request's end
	Rate       float64       // Pages / Window, per second
	// Closest are the violations with the smallest gaps (at most
	// maxClosest, smallest first): which requests came too close, for
	// telling a crawler's mistake (a redirect hop, a retry, robots.txt)
	// from the machine's scheduling jitter.
	Closest []Violation
}

// A Violation is two requests to one host closer than the delay.
type Violation struct {
	Host, Prev, Next string        // the host and the two requests' paths
	Gap              time.Duration // between their starts
}

// maxClosest bounds Analysis.Closest.
const maxClosest = 5

// Analyze checks a log against a politeness delay. Every request counts
// for politeness, robots.txt included; only pages count for the rate.
func Analyze(log []Request, delay time.Duration) Analysis {
	var a Analysis
	if len(log) == 0 {
		return a
	}
	byHost := map[string][]Request{}
	first, last := log[0].Start, log[0].End
	for _, r := range log {
		byHost[r.Host] = append(byHost[r.Host], r)
		if r.Start.Before(first) {
			first = r.Start
		}
		if r.End.After(last) {
			last = r.End
		}
		if r.Path == "/robots.txt" {
			a.Robots++
		} else if r.Status == http.StatusOK {
			a.Pages++
		}
	}
	a.MinGap = -1
	for _, rs := range byHost {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
		for i := 1; i < len(rs); i++ {
			gap := rs[i].Start.Sub(rs[i-1].Start)
			if a.MinGap < 0 || gap < a.MinGap {
				a.MinGap = gap
			}
			if gap < delay {
				a.Violations++
				a.Closest = append(a.Closest, Violation{Host: rs[i].Host, Prev: rs[i-1].Path, Next: rs[i].Path, Gap: gap})
			}
		}
	}
	sort.Slice(a.Closest, func(i, j int) bool { return a.Closest[i].Gap < a.Closest[j].Gap })
	a.Closest = a.Closest[:min(len(a.Closest), maxClosest)]
	a.Window = last.Sub(first)
	if a.Window > 0 {
		a.Rate = float64(a.Pages) / a.Window.Seconds()
	}
	return a
}
