// Package synth generates a deterministic synthetic web with a known topical
// structure, on which focuscrawl is tested, demonstrated and evaluated. The
// web is a directory tree that package replay serves on loopback.
//
// The target topic is machine learning (机器学习); five off-topic themes
// (cooking, football, travel, finance, gardening) fill the rest. Every theme
// has its own vocabulary in English and Chinese, and every page mixes mostly
// its theme's words with shared background words and a little of one other
// theme, so that a TF-IDF cosine separates the themes well but not perfectly:
// a few borderline pages are almost as much about a second theme (off-topic
// pages then about machine learning) as about their own.
//
// Structure of each site (host www.siteNN.<domain>): a home page, section hub
// pages (/<section>/) listing the section's leaf pages (/<section>/pNN.html),
// and the leaves. On-topic sites are mostly machine learning with one
// off-topic section; off-topic sites have a blog section with a few machine
// learning posts. Home pages and hubs link across sites, much more densely
// among on-topic sites than from off-topic ones; two off-topic sites are
// portals whose home page links to every site. On top of that:
//
//   - Tunnels: on-topic clusters (/collection-K/) whose only in-link comes
//     from a chain of at least two off-topic pages (/archive/K-J.html),
//     starting at an ordinary off-topic leaf of the same site.
//   - Traps (Config.Traps): a few hosts link to /trap/calendar/2026/01/ and
//     /trap/session/1?sid=abc, which replay generates on the fly, endlessly.
//   - Duplicates (Config.Duplicates): some leaves are also written, byte for
//     byte, as pNN-print.html and linked as the printer-friendly version.
//   - robots.txt: two hosts disallow a /private/ directory that their home
//     page links to; some other hosts have an allow-all robots.txt.
//   - Encodings: Chinese sites are UTF-8 or GBK; GBK pages declare their
//     charset only with <meta http-equiv="Content-Type">.
//
// Targets (labels.txt, Web.Targets) are the pages written with the target
// theme: on-topic leaves, on-topic section hubs, home pages of on-topic sites,
// machine-learning posts on off-topic sites and tunnel clusters. Printer
// copies, /private/ pages (a polite crawler must not fetch them) and trap
// pages are never targets.
//
// Generation is deterministic: the same Config yields byte-identical files,
// including their modification times, which replay sends as Last-Modified.
package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Config describes the web to generate. Start from DefaultConfig: Generate
// fills in only a zero Hosts, PagesPerHost or Domain, because for the shares,
// Tunnels and the two switches zero is a meaningful setting.
type Config struct {
	Seed         int64   `json:"seed"`
	Hosts        int     `json:"hosts"`          // number of web sites (default 20)
	PagesPerHost int     `json:"pages_per_host"` // approximate pages per site (default 60)
	OnTopicHosts float64 `json:"on_topic_hosts"` // share of sites mainly about the target topic (default 0.3)
	ChineseShare float64 `json:"chinese_share"`  // share of sites written in Chinese (default 0.5)
	GBKShare     float64 `json:"gbk_share"`      // share of Chinese sites encoded in GBK (default 0.3)
	Tunnels      int     `json:"tunnels"`        // on-topic clusters behind chains of >= 2 off-topic pages (default 3)
	Traps        bool    `json:"traps"`          // some hosts link into calendar and session-id traps (default true)
	Duplicates   bool    `json:"duplicates"`     // some pages written under a second URL (default true)
	Domain       string  `json:"domain"`         // host suffix (default "test": www.site07.test)
}

// DefaultConfig returns the documented defaults: 20 hosts of about 60 pages,
// some 1,300 pages in all, generated in well under a second.
func DefaultConfig() Config {
	return Config{
		Seed:         1,
		Hosts:        20,
		PagesPerHost: 60,
		OnTopicHosts: 0.3,
		ChineseShare: 0.5,
		GBKShare:     0.3,
		Tunnels:      3,
		Traps:        true,
		Duplicates:   true,
		Domain:       "test",
	}
}

// Web is a generated synthetic web, as recorded in its manifest.json.
type Web struct {
	Dir        string      `json:"-"`          // directory holding the web (not stored)
	Hosts      []string    `json:"hosts"`      // host names, sorted
	Seeds      []string    `json:"seeds"`      // start URLs: on-topic hubs first, then portals
	Targets    []string    `json:"targets"`    // normalised URLs of all target pages, sorted
	Pages      int         `json:"pages"`      // HTML files written, printer copies included
	Config     Config      `json:"config"`     // the configuration, defaults filled in
	Sites      []Site      `json:"sites"`      // per-host facts, in Hosts order
	Tunnels    []Tunnel    `json:"tunnels"`    // the hidden on-topic clusters
	Duplicates []Duplicate `json:"duplicates"` // URL pairs serving identical bytes
}

// Site describes one host of the web.
type Site struct {
	Host     string   `json:"host"`
	Name     string   `json:"name"`               // display name, in the site's language
	Lang     string   `json:"lang"`               // "en" or "zh"
	Charset  string   `json:"charset"`            // "utf-8" or "gbk"
	Theme    string   `json:"theme"`              // main theme id; TargetTheme for on-topic sites
	OnTopic  bool     `json:"on_topic"`           // the site is mainly about the target topic
	Portal   bool     `json:"portal"`             // the home page links to every site
	Traps    bool     `json:"traps"`              // replay serves /trap/ pages for this host
	Robots   bool     `json:"robots"`             // the site has a robots.txt
	Disallow []string `json:"disallow,omitempty"` // path prefixes its robots.txt disallows
}

// Tunnel is an on-topic cluster reachable only through a chain of off-topic
// pages.
type Tunnel struct {
	Entry   string   `json:"entry"`   // the ordinary off-topic page the chain starts from
	Chain   []string `json:"chain"`   // the off-topic chain pages, in link order (at least 2)
	Cluster []string `json:"cluster"` // the cluster's pages, hub first; all targets
}

// Duplicate is a pair of URLs serving the same bytes. Only Original can be a
// target.
type Duplicate struct {
	Original string `json:"original"`
	Copy     string `json:"copy"`
}

// File names at the root of a generated web.
const (
	ManifestFile = "manifest.json"
	LabelsFile   = "labels.txt"
	TopicFile    = "topic.yaml"
)

// manifestVersion changes when the manifest format does.
const manifestVersion = 1

type manifest struct {
	Version int `json:"version"`
	*Web
}

// Generate writes the web described by cfg into dir, which must not exist or
// be empty: dir/manifest.json, dir/labels.txt (one target URL per line,
// sorted), dir/topic.yaml (a focuscrawl topic file for the target topic) and
// one directory per host.
func Generate(cfg Config, dir string) (*Web, error) {
	cfg = withDefaults(cfg)
	if err := validate(cfg); err != nil {
		return nil, err
	}
	if err := ensureEmptyDir(dir); err != nil {
		return nil, err
	}
	g := newGenerator(cfg)
	g.plan()
	web, err := g.write(dir)
	if err != nil {
		return nil, err
	}
	web.Dir = dir
	return web, nil
}

// Load reads the manifest of a web generated into dir.
func Load(dir string) (*Web, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("synth: load web: %w", err)
	}
	m := manifest{Web: &Web{}}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("synth: parse %s: %w", path, err)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("synth: %s has manifest version %d, want %d", path, m.Version, manifestVersion)
	}
	m.Web.Dir = dir
	return m.Web, nil
}

// Site returns the facts about host, and whether host belongs to the web.
func (w *Web) Site(host string) (Site, bool) {
	for _, s := range w.Sites {
		if s.Host == host {
			return s, true
		}
	}
	return Site{}, false
}

func withDefaults(cfg Config) Config {
	d := DefaultConfig()
	if cfg.Hosts == 0 {
		cfg.Hosts = d.Hosts
	}
	if cfg.PagesPerHost == 0 {
		cfg.PagesPerHost = d.PagesPerHost
	}
	if cfg.Domain == "" {
		cfg.Domain = d.Domain
	}
	return cfg
}

// minPagesPerHost leaves room for a home page and two sections of two leaves.
const minPagesPerHost = 8

func validate(cfg Config) error {
	var errs []error
	if cfg.Hosts < 1 || cfg.Hosts > 999 {
		errs = append(errs, fmt.Errorf("synth config: Hosts %d must be between 1 and 999", cfg.Hosts))
	}
	if cfg.PagesPerHost < minPagesPerHost || cfg.PagesPerHost > 10000 {
		errs = append(errs, fmt.Errorf("synth config: PagesPerHost %d must be between %d and 10000", cfg.PagesPerHost, minPagesPerHost))
	}
	for _, s := range []struct {
		name string
		v    float64
	}{{"OnTopicHosts", cfg.OnTopicHosts}, {"ChineseShare", cfg.ChineseShare}, {"GBKShare", cfg.GBKShare}} {
		if !(s.v >= 0 && s.v <= 1) {
			errs = append(errs, fmt.Errorf("synth config: %s %v must be between 0 and 1", s.name, s.v))
		}
	}
	if cfg.Tunnels < 0 || cfg.Tunnels > 100 {
		errs = append(errs, fmt.Errorf("synth config: Tunnels %d must be between 0 and 100", cfg.Tunnels))
	}
	if !validDomain(cfg.Domain) {
		errs = append(errs, fmt.Errorf("synth config: Domain %q must be lower-case DNS labels (a-z, 0-9, '-', '.')", cfg.Domain))
	}
	if len(errs) == 0 && cfg.Tunnels > 0 && cfg.Hosts-onTopicCount(cfg) < 1 {
		errs = append(errs, fmt.Errorf("synth config: Tunnels %d need at least one off-topic host, but all %d hosts are on-topic", cfg.Tunnels, cfg.Hosts))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("synth: invalid config: %w", err)
	}
	return nil
}

func validDomain(d string) bool {
	if d == "" || d[0] == '.' || d[len(d)-1] == '.' || d[0] == '-' {
		return false
	}
	for _, c := range d {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func ensureEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("synth: create %s: %w", dir, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("synth: read output directory: %w", err)
	case len(entries) > 0:
		// Refusing beats mixing: files of an earlier web would be served as
		// part of this one and silently corrupt an evaluation.
		return fmt.Errorf("synth: output directory %s is not empty", dir)
	}
	return nil
}
