// Package focus is the evaluation issue 12 asks for: real Debian
// documentation corpora the strategies were never tuned on, several topics
// per corpus with structurally labelled targets, off-topic seeds, budgets at
// most half the corpus, off-site links that cost budget as on the real web,
// a fixed tune / held-out split, ablations, two standalone baselines (BFS
// and a plain best-first crawler, package baseline), ≥ 3 runs per cell, and
// a report whose headline is the held-out half only.
//
// The registry (this file) is code, not configuration, on purpose: the
// split must not drift with whoever runs the evaluation.
package focus

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// Split names one half of the corpora.
type Split string

// The two halves, and a third set. Tune corpora may be looked at while
// changing the crawler; held-out corpora are only run, and the headline is
// theirs. Fresh corpora were added after the held-out half had been run many
// times (and once read, docs/evaluation.md): they are run, never read, and
// never used for a decision, so that they stay an estimate of how the final
// default does on sites nobody has seen.
const (
	Tune    Split = "tune"
	Heldout Split = "heldout"
	Fresh   Split = "fresh"
	// Script corpora are Chinese corpora of the other splits rewritten in
	// Traditional Chinese (CorpusSpec.Script), crawled with their topics
	// as written (Simplified): does the crawler find a topic across the
	// two scripts? Run only when asked for (--split script), not in "all",
	// whose reports stay comparable with earlier ones.
	Script Split = "script"
)

// CorpusSpec is one Debian documentation package served as one site.
type CorpusSpec struct {
	Name    string // short id
	Package string // Debian package (apt-get download)
	Lang    string // zh or en
	Root    string // directory inside the package that is served as the site root
	Host    string // virtual host name it is served as
	Split   Split
	// Pages counts the HTML pages that make up the corpus size (a glob
	// relative to Root); budgets must stay at or below half of it.
	Pages string
	Note  string // what the page count means, for the report
	// Topics are the topic files of this corpus (topics/eval/...).
	Topics []TopicSpec
	// Script "hant": the package's HTML pages are served converted to
	// Traditional Chinese with Taiwan phrases (OpenCC's s2twp, the
	// library's own converter, not focuscrawl's tokenizer), unpacked once
	// into the cache beside the package ("PACKAGE+hant"). "" serves the
	// package as it is.
	Script string
}

// TopicSpec is one topic on a corpus and the rule labelling its targets.
type TopicSpec struct {
	File string // topic file, relative to the repository root
	// UpChains: a page (in the directory of the first entry, or Root) is a
	// target iff its DocBook/Texinfo rel="up" chain reaches one of these
	// files (paths relative to Root).
	UpChains []string
	// Paths: a page is a target iff its path relative to Root has one of
	// these prefixes ("ssl/" for a directory, "mod/mod_ssl.html" for a file).
	Paths []string
}

// Registry is the fixed set of corpora and topics; the split is part of it.
// GIMP manuals were used to tune focuscrawl before this evaluation existed,
// so they can only be in the tuning half. Never add LibreOffice help, the
// PostgreSQL manual or the Python documentation: they are reserved for
// acceptance.
var Registry = []CorpusSpec{
	{Name: "gimp-zh", Package: "gimp-help-zh-cn", Lang: "zh", Root: "usr/share/gimp/2.0/help/zh_CN", Host: "gimp-zh.docs.test", Split: Tune,
		Pages: "*.html", Topics: []TopicSpec{
			{File: "topics/eval/gimp-zh-filters.yaml", UpChains: []string{"filters.html"}},
			{File: "topics/eval/gimp-zh-tools.yaml", UpChains: []string{"gimp-tools.html"}},
		}},
	// The GIMP-zh corpus in Traditional Chinese (2026-11-29), its topics
	// in Simplified as written: same host and seeds, so it is never served
	// beside gimp-zh (Select refuses that).
	{Name: "gimp-zh-tw", Package: "gimp-help-zh-cn", Script: "hant", Lang: "zh", Root: "usr/share/gimp/2.0/help/zh_CN", Host: "gimp-zh.docs.test", Split: Script,
		Pages: "*.html", Topics: []TopicSpec{
			{File: "topics/eval/gimp-zh-filters.yaml", UpChains: []string{"filters.html"}},
			{File: "topics/eval/gimp-zh-tools.yaml", UpChains: []string{"gimp-tools.html"}},
		}},
	{Name: "gimp-en", Package: "gimp-help-en", Lang: "en", Root: "usr/share/gimp/2.0/help/en", Host: "gimp-en.docs.test", Split: Tune,
		Pages: "*.html", Topics: []TopicSpec{
			{File: "topics/eval/gimp-en-filters.yaml", UpChains: []string{"filters.html"}},
			{File: "topics/eval/gimp-en-painting.yaml", UpChains: []string{"gimp-painting.html"}},
			// Two small topics added 2026-11-26 (the tuning half had one
			// topic under 8 targets; the held-out half's weakest cells are
			// small topics).
			{File: "topics/eval/gimp-en-scripting.yaml", UpChains: []string{"gimp-scripting.html"}},
			{File: "topics/eval/gimp-en-paths.yaml", UpChains: []string{"gimp-using-paths.html"}},
		}},
	{Name: "install-zh", Package: "installation-guide-amd64", Lang: "zh", Root: "usr/share/doc/installation-guide-amd64/zh_CN", Host: "install-zh.docs.test", Split: Tune,
		Pages: "*.html", Topics: []TopicSpec{
			{File: "topics/eval/install-zh-media.yaml", UpChains: []string{"ch04.html"}},
			{File: "topics/eval/install-zh-preseed.yaml", UpChains: []string{"apb.html"}},
			{File: "topics/eval/install-zh-partition.yaml", UpChains: []string{"apc.html"}},
		}},
	{Name: "handbook-zh", Package: "debian-handbook", Lang: "zh", Root: "usr/share/doc/debian-handbook/html/zh-CN", Host: "handbook-zh.docs.test", Split: Heldout,
		Pages: "*.html", Topics: []TopicSpec{
			{File: "topics/eval/handbook-zh-apt.yaml", UpChains: []string{"apt.html"}},
			{File: "topics/eval/handbook-zh-network.yaml", UpChains: []string{"network-infrastructure.html"}},
		}},
	{Name: "httpd-en", Package: "apache2-doc", Lang: "en", Root: "usr/share/doc/apache2-doc/manual", Host: "httpd.docs.test", Split: Heldout,
		Pages: "en/*.html,en/*/*.html", Note: "English pages; the site also serves the manual's other languages (2,685 HTML files in all)",
		Topics: []TopicSpec{
			{File: "topics/eval/httpd-en-ssl.yaml", Paths: []string{"en/ssl/", "en/mod/mod_ssl.html"}},
			{File: "topics/eval/httpd-en-rewrite.yaml", Paths: []string{"en/rewrite/", "en/mod/mod_rewrite.html"}},
		}},
	{Name: "octave-en", Package: "octave-doc", Lang: "en", Root: "usr/share/doc/octave/octave.html", Host: "octave.docs.test", Split: Heldout,
		Pages: "[A-WYZa-z]*.html", Note: "content pages; the directory also holds 2,357 XREF*.html redirect stubs that content pages do not link to",
		Topics: []TopicSpec{
			{File: "topics/eval/octave-en-plotting.yaml", UpChains: []string{"Plotting.html"}},
			{File: "topics/eval/octave-en-sparse.yaml", UpChains: []string{"Sparse-Matrices.html"}},
		}},
	// Fresh corpora (2026-11-26). English only: Debian carries no further
	// Chinese HTML manual large enough (debian-reference-zh-cn, the
	// maint-guide and the FAQ have 11–17 pages; lilypond-doc-html-zh is
	// mostly untranslated).
	{Name: "maxima-en", Package: "maxima-doc", Lang: "en", Root: "usr/share/doc/maxima-doc/html", Host: "maxima.docs.test", Split: Fresh,
		Pages: "*.html", Topics: []TopicSpec{
			{File: "topics/eval/maxima-en-special.yaml", UpChains: []string{"maxima_77.html"}},
			{File: "topics/eval/maxima-en-matrices.yaml", UpChains: []string{"maxima_113.html"}},
		}},
	{Name: "cmake-en", Package: "cmake-doc", Lang: "en", Root: "usr/share/doc/cmake-data/html", Host: "cmake.docs.test", Split: Fresh,
		Pages: "*.html,*/*.html", Topics: []TopicSpec{
			{File: "topics/eval/cmake-en-generators.yaml", Paths: []string{"generator/", "manual/cmake-generators.7.html"}},
			{File: "topics/eval/cmake-en-testprops.yaml", Paths: []string{"prop_test/"}},
		}},
	// Added 2026-11-27, run once: a reference site (every page carries
	// the library's navigation) rather than a manual; its one off-site
	// link per page goes to the live site.
	{Name: "cppref-en", Package: "cppreference-doc-en-html", Lang: "en", Root: "usr/share/cppreference/doc/html", Host: "cppref.docs.test", Split: Fresh,
		Pages: "en/*.html,en/*/*.html,en/*/*/*.html,en/*/*/*/*.html", Topics: []TopicSpec{
			{File: "topics/eval/cppref-en-thread.yaml", Paths: []string{"en/cpp/thread/", "en/cpp/thread.html"}},
			{File: "topics/eval/cppref-en-regex.yaml", Paths: []string{"en/cpp/regex/", "en/cpp/regex.html"}},
		}},
}

// BudgetRule is the page budget B of a topic with targets targets on a
// corpus of pages pages: twice the targets (so that at B/2 a crawler that
// fetched nothing but targets would have them all), at least 40 (seeds are
// a few links away), at most half the corpus, rounded to ten. The rule is
// fixed a priori for every topic alike: a budget picked per topic, after
// seeing crawls, would tune the evaluation. (The first run used budgets
// near half the corpus; plain best-first then reached recall@B/2 ≈ 1 on
// most held-out topics, which left no room for any crawler to beat it by
// 20%, so every budget was reset once by this rule, before any crawler
// change.)
func BudgetRule(pages, targets int) int {
	half := pages / 2
	b := min(max(40, 2*targets), half)
	r := (b + 5) / 10 * 10
	if r > half {
		r = b / 10 * 10
	}
	if r == 0 {
		r = b
	}
	return r
}

// Corpus is a registry corpus unpacked and labelled.
type Corpus struct {
	Spec     CorpusSpec
	Dir      string // served directory
	Pages    int
	Topics   []*Topic
	Offsite  int // off-site links' distinct hosts
	Endpoint []string
	// Deb is the package file the corpus was unpacked from
	// (name_version_arch.deb), "" when the cache does not say.
	Deb string
}

// Topic is one topic of a corpus, ready to crawl and score.
type Topic struct {
	Spec    TopicSpec
	Name    string
	YAML    []byte
	Topic   *topic.Topic
	Labels  metrics.Labels // targets, the topic's sample pages excluded
	Samples int            // sample pages that were targets (excluded from Labels)
	// Neutral are those sample pages: declared on topic by the topic file,
	// so accepting one is no false positive either (metrics.ComputeNeutral).
	Neutral metrics.Labels
	Budget  int
	// SeedLinksTarget: a seed page of the corpus links to a target, so a
	// crawler that knew the targets could reach one at its second fetch;
	// otherwise at its third at the earliest (the seed, a page between,
	// then a target): Check's perfect crawler.
	SeedLinksTarget bool
}

// seedLinksTarget reports whether one of seeds, served from dir as base,
// links to a target, or may (a seed it cannot read).
func seedLinksTarget(dir, base string, seeds []string, labels metrics.Labels) bool {
	for _, u := range seeds {
		// A seed that cannot be read counts as linking to a target: the
		// bound it feeds (the perfect crawler's recall) must stay an upper
		// bound, which the smaller k gives.
		n, err := urlnorm.Normalize(u)
		if err != nil || !strings.HasPrefix(n, base) {
			return true
		}
		rel := strings.TrimPrefix(n, base)
		if rel == "" || strings.HasSuffix(rel, "/") {
			rel += "index.html"
		}
		body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return true
		}
		doc, err := parse.Parse(n, body, parse.Options{})
		if err != nil {
			return true
		}
		for _, l := range doc.Links {
			if ln, err := urlnorm.Normalize(l.URL); err == nil {
				if _, ok := labels[ln]; ok {
					return true
				}
			}
		}
	}
	return false
}

// Select returns the registry corpora of split ("all" for both), or the
// named ones.
func Select(split string, names []string) ([]CorpusSpec, error) {
	var out []CorpusSpec
	for _, c := range Registry {
		if len(names) > 0 {
			for _, n := range names {
				if n == c.Name {
					out = append(out, c)
				}
			}
			continue
		}
		if (split == "all" && c.Split != Script) || Split(split) == c.Split {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no corpus matches split %q / names %v (splits: tune, heldout, fresh, all, script)", split, names)
	}
	hosts := map[string]string{}
	for _, c := range out {
		if other, ok := hosts[c.Host]; ok {
			return nil, fmt.Errorf("corpora %s and %s are served as the same host %s: run them separately", other, c.Name, c.Host)
		}
		hosts[c.Host] = c.Name
	}
	return out, nil
}

// Load unpacks the corpus into cache (apt-get download + dpkg -x when
// missing), reads its topic files from repo and labels every topic.
func Load(cache, repo string, s CorpusSpec) (*Corpus, error) {
	pkgRoot := filepath.Join(cache, s.Package)
	dir := filepath.Join(pkgRoot, s.Root)
	if _, err := os.Stat(dir); err != nil {
		if err := harness.AptUnpack(s.Package, pkgRoot); err != nil {
			return nil, err
		}
	}
	switch s.Script {
	case "":
	case "hant":
		conv := filepath.Join(cache, s.Package+"+hant", s.Root)
		if err := convertScript(dir, conv); err != nil {
			return nil, fmt.Errorf("corpus %s: %w", s.Name, err)
		}
		dir = conv
	default:
		return nil, fmt.Errorf("corpus %s: unknown script %q", s.Name, s.Script)
	}
	c, err := Open(dir, repo, s)
	if c != nil {
		c.Deb = harness.UnpackedPackage(pkgRoot)
	}
	return c, err
}

// Open labels an already unpacked corpus at dir.
func Open(dir, repo string, s CorpusSpec) (*Corpus, error) {
	pages := 0
	for _, g := range strings.Split(s.Pages, ",") {
		m, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil {
			return nil, err
		}
		pages += len(m)
	}
	if pages == 0 {
		return nil, fmt.Errorf("corpus %s: no pages match %s in %s", s.Name, s.Pages, dir)
	}
	c := &Corpus{Spec: s, Dir: dir, Pages: pages}
	base := "http://" + s.Host + "/"
	for _, ts := range s.Topics {
		yml, err := os.ReadFile(filepath.Join(repo, ts.File))
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %w", s.Name, err)
		}
		t, err := topic.Parse(yml)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %s: %w", s.Name, ts.File, err)
		}
		labels, err := Label(dir, base, ts)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %s: %w", s.Name, ts.File, err)
		}
		tp := &Topic{Spec: ts, Name: t.Name, YAML: yml, Topic: t, Labels: labels, Budget: t.Limits.MaxPages, Neutral: metrics.Labels{}}
		for _, u := range t.Samples {
			if n, err := urlnorm.Normalize(u); err == nil {
				if _, ok := labels[n]; ok {
					delete(labels, n)
					tp.Samples++
					tp.Neutral[n] = struct{}{}
				}
			}
		}
		if len(labels) == 0 {
			return nil, fmt.Errorf("corpus %s: topic %s has no targets", s.Name, t.Name)
		}
		if want := BudgetRule(pages, len(labels)); tp.Budget != want {
			return nil, fmt.Errorf("corpus %s: topic %s: budget (limits.max_pages) %d, but the budget rule gives %d for %d targets on %d pages", s.Name, t.Name, tp.Budget, want, len(labels), pages)
		}
		for _, u := range t.Seeds {
			if n, err := urlnorm.Normalize(u); err == nil {
				if _, ok := labels[n]; ok {
					return nil, fmt.Errorf("corpus %s: topic %s: seed %s is a target (seeds must be off-topic)", s.Name, t.Name, u)
				}
			}
		}
		tp.SeedLinksTarget = seedLinksTarget(dir, base, t.Seeds, labels)
		c.Topics = append(c.Topics, tp)
	}
	return c, nil
}

// Label applies a topic's target rule to the corpus at dir served as base.
func Label(dir, base string, ts TopicSpec) (metrics.Labels, error) {
	labels := metrics.Labels{}
	if len(ts.UpChains) > 0 {
		sub := filepath.Dir(ts.UpChains[0])
		chapters := make([]string, len(ts.UpChains))
		for i, u := range ts.UpChains {
			chapters[i] = filepath.Base(u)
		}
		prefix := base
		if sub != "." {
			prefix += filepath.ToSlash(sub) + "/"
		}
		l, _, err := harness.LabelByUpChains(filepath.Join(dir, sub), prefix, chapters...)
		if err != nil {
			return nil, err
		}
		for u := range l {
			labels[u] = struct{}{}
		}
	}
	if len(ts.Paths) > 0 {
		err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".html") {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			for _, pre := range ts.Paths {
				if strings.HasPrefix(rel, pre) {
					u, err := urlnorm.Normalize(base + rel)
					if err != nil {
						return err
					}
					labels[u] = struct{}{}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return labels, nil
}

// SortedLabels lists labels in order (for tests and label files).
func SortedLabels(l metrics.Labels) []string {
	out := make([]string, 0, len(l))
	for u := range l {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}
