package focus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"crypto/x509"

	"focuscrawl/internal/eval/offsite"
	"focuscrawl/internal/eval/replay"
)

// Web is the loopback web of an evaluation: one replay server per corpus
// and one off-site server for every other host the corpora link to.
type Web struct {
	Resolve  map[string]string // fetch.resolve for focuscrawl and the baselines
	Roots    *x509.CertPool    // trusts the off-site HTTPS server
	CertFile string            // the same, as a PEM file
	servers  []*replay.Server
	off      *offsite.Server
}

// Serve starts the web for corpora. The off-site server's certificate is
// written to certDir/offsite.pem; pointing SSL_CERT_FILE at it (the
// evaluation command does, before any TLS use) makes focuscrawl's fetcher
// trust it without any change to the fetcher. With sitemaps, each corpus
// is served with a robots.txt naming a generated sitemap of its HTML pages
// (replay.Options.Sitemap), for the topics' sitemaps: configurations.
func Serve(corpora []*Corpus, certDir string, sitemaps bool) (*Web, error) {
	w := &Web{Resolve: map[string]string{}}
	var endpoints []offsite.Endpoint
	seen := map[string]bool{}
	hosts := make([]string, len(corpora))
	for i, c := range corpora {
		hosts[i] = c.Spec.Host
	}
	for _, c := range corpora {
		srv, err := replay.New(c.Dir, replay.Options{Sitemap: sitemaps})
		if err != nil {
			w.Close()
			return nil, err
		}
		base, err := srv.Start("127.0.0.1:0")
		if err != nil {
			w.Close()
			return nil, err
		}
		w.servers = append(w.servers, srv)
		w.Resolve[c.Spec.Host] = strings.TrimPrefix(base, "http://")
		eps, err := offsite.Scan(c.Dir, hosts...)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("corpus %s: %w", c.Spec.Name, err)
		}
		hs := map[string]bool{}
		for _, e := range eps {
			hs[e.Host] = true
			if k := e.Key(); !seen[k] {
				seen[k] = true
				endpoints = append(endpoints, e)
			}
		}
		c.Offsite = len(hs)
	}
	if len(endpoints) > 0 {
		off, err := offsite.Start(endpoints)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.off = off
		for k, v := range off.Resolve() {
			w.Resolve[k] = v
		}
		w.Roots = off.CertPool()
		if err := os.MkdirAll(certDir, 0o755); err != nil {
			w.Close()
			return nil, err
		}
		w.CertFile = filepath.Join(certDir, "offsite.pem")
		if err := off.WriteCertFile(w.CertFile); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// Close stops every server.
func (w *Web) Close() {
	for _, s := range w.servers {
		s.Close()
	}
	if w.off != nil {
		w.off.Close()
	}
}
