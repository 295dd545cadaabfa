// Package offsite makes the off-site links of an offline corpus behave as
// they do on the real web. A documentation package links to project web
// sites, bug trackers and source browsers; offline those links would fail at
// once (no DNS, or robots.txt unreachable), which is cheaper than the real
// web, where the crawler fetches the page, spends budget on it and then
// rejects it. Server answers every URL of every host it is given, over HTTP
// and HTTPS, with a small deterministic off-topic page that links to a few
// other off-site URLs, so a crawler that strays off the site keeps paying
// for it, as on the real web.
//
// HTTPS is served with a self-signed certificate for all the hosts; a
// crawler trusts it through the CertFile (SSL_CERT_FILE for Go's system
// roots) or through CertPool.
package offsite

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"hash/fnv"
	"html"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Endpoint is one scheme, host and port seen in a corpus's links.
type Endpoint struct {
	Scheme string // http or https
	Host   string // lower-cased host name, no port
	Port   string // explicit or the scheme's default
}

// Key is the fetch.resolve key of the endpoint ("host:port").
func (e Endpoint) Key() string { return net.JoinHostPort(e.Host, e.Port) }

var hrefRE = regexp.MustCompile(`(?i)(?:href|src)\s*=\s*["'](https?://[^"'\s<>]+)`)

// Scan lists the endpoints of the absolute http(s) links in the HTML files
// under dir (recursively, symlinks to files followed), except the hosts in
// skip. The list is sorted, so a corpus always yields the same off-site web.
func Scan(dir string, skip ...string) ([]Endpoint, error) {
	seen := map[Endpoint]bool{}
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[strings.ToLower(s)] = true
	}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		ext := strings.ToLower(filepath.Ext(p))
		if fi.IsDir() || (ext != ".html" && ext != ".htm") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil // dangling symlink: the replay server 404s it too
		}
		for _, m := range hrefRE.FindAllSubmatch(b, -1) {
			if e, ok := endpointOf(html.UnescapeString(string(m[1]))); ok && !skipped[e.Host] {
				seen[e] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Endpoint, 0, len(seen))
	for e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key()+out[i].Scheme < out[j].Key()+out[j].Scheme })
	return out, nil
}

func endpointOf(raw string) (Endpoint, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return Endpoint{}, false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if strings.ContainsAny(host, "*/ ") || net.ParseIP(host) != nil {
		return Endpoint{}, false // IP literals are not dialled through resolve
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return Endpoint{Scheme: u.Scheme, Host: host, Port: port}, true
}

// Server serves the off-site web of a set of endpoints on loopback.
type Server struct {
	endpoints []Endpoint
	httpSrv   *http.Server
	tlsSrv    *http.Server
	httpAddr  string
	tlsAddr   string
	certPEM   []byte
	pool      *x509.CertPool
}

// Start serves endpoints on two loopback listeners, one plain and one TLS.
func Start(endpoints []Endpoint) (*Server, error) {
	s := &Server{endpoints: endpoints}
	hosts := map[string]bool{}
	for _, e := range endpoints {
		hosts[e.Host] = true
	}
	names := make([]string, 0, len(hosts))
	for h := range hosts {
		names = append(names, h)
	}
	sort.Strings(names)
	cert, err := s.selfSigned(names)
	if err != nil {
		return nil, err
	}
	h := http.HandlerFunc(s.serve)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("offsite: %w", err)
	}
	tln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("offsite: %w", err)
	}
	s.httpAddr, s.tlsAddr = ln.Addr().String(), tln.Addr().String()
	s.httpSrv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.tlsSrv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	go s.httpSrv.Serve(ln)                                      //nolint:errcheck // ErrServerClosed on Close
	go s.tlsSrv.Serve(tls.NewListener(tln, s.tlsSrv.TLSConfig)) //nolint:errcheck
	return s, nil
}

// selfSigned makes a certificate valid for names (and its own CA).
func (s *Server) selfSigned(names []string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "focuscrawl off-site web"},
		NotBefore:    time.Now().Add(-time.Hour), NotAfter: time.Now().Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
		DNSNames: names,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	s.pool = x509.NewCertPool()
	s.pool.AddCert(c)
	s.certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: c}, nil
}

// Resolve returns the fetch.resolve entries ("host:port" → loopback address)
// that send every endpoint to this server.
func (s *Server) Resolve() map[string]string {
	m := make(map[string]string, len(s.endpoints))
	for _, e := range s.endpoints {
		if e.Scheme == "https" {
			m[e.Key()] = s.tlsAddr
		} else {
			m[e.Key()] = s.httpAddr
		}
	}
	return m
}

// CertPool trusts the server's certificate.
func (s *Server) CertPool() *x509.CertPool { return s.pool }

// WriteCertFile writes the certificate as PEM to path, for SSL_CERT_FILE.
func (s *Server) WriteCertFile(path string) error { return os.WriteFile(path, s.certPEM, 0o644) }

// Close stops both listeners.
func (s *Server) Close() error {
	err := s.httpSrv.Close()
	if e := s.tlsSrv.Close(); err == nil {
		err = e
	}
	return err
}

// serve answers robots.txt with "allow all" and every other URL with Page.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(Page(scheme+"://"+r.Host+r.URL.RequestURI(), s.endpoints)) //nolint:errcheck
}

// filler is the off-topic text of every off-site page: the words of a
// project's home page, news and donation boxes, in both corpus languages.
var filler = []string{
	"Welcome to our community news page. Download the latest release, read the blog, join the mailing list and follow us.",
	"Donate to support the project. Sponsors, events, conferences and meetups around the world this year.",
	"Sign in to your account, report a problem, browse the archive or contact the team by email.",
	"欢迎访问社区新闻页面。下载最新版本，阅读博客，加入邮件列表，关注我们的活动。",
	"捐助本项目。赞助商、会议和聚会信息，以及联系方式和账户登录。",
}

// Page is the off-site page for pageURL: a title, two filler paragraphs and
// four links to other off-site URLs, all chosen by a hash of the URL, so the
// same URL always gets the same page.
func Page(pageURL string, endpoints []Endpoint) []byte {
	h := fnv.New64a()
	h.Write([]byte(pageURL))
	x := h.Sum64()
	next := func(n int) int {
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
		x ^= x >> 33
		return int(x % uint64(n))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><title>Project site %d</title></head><body>\n<h1>News and community</h1>\n", next(1000))
	for i := 0; i < 2; i++ {
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(filler[next(len(filler))]))
	}
	b.WriteString("<ul>\n")
	words := []string{"news", "download", "donate", "events", "blog", "about", "archive", "login"}
	for i := 0; i < 4 && len(endpoints) > 0; i++ {
		e := endpoints[next(len(endpoints))]
		w := words[next(len(words))]
		hostport := e.Host
		if (e.Scheme == "http" && e.Port != "80") || (e.Scheme == "https" && e.Port != "443") {
			hostport = e.Key()
		}
		fmt.Fprintf(&b, "<li><a href=\"%s://%s/%s/%d.html\">%s</a></li>\n", e.Scheme, hostport, w, next(100000), w)
	}
	b.WriteString("</ul>\n</body></html>\n")
	return []byte(b.String())
}
