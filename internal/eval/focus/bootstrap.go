package focus

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// ConfBootstrapped is the topic as `search topic bootstrap` drafts it from
// BootstrapCount of its targets (BootstrapExamples): the draft's keywords,
// description, samples and language replace the topic file's (and its
// lexicon and negative samples, which a draft has none of); seeds, budget
// and the rest stay, so
// the cell differs from the default in the topic's text only. Scored with
// the examples as neutral pages (they are the draft's samples) and the
// topic file's own samples as targets again.
const ConfBootstrapped = "bootstrapped"

// BootstrapCount is how many example pages a bootstrapped topic is drafted
// from: "a handful of example URLs" (issue 12), the fewest a user would give.
const BootstrapCount = 3

// Bootstrapper drafts a topic file named name from example page URLs, as
// `search topic bootstrap` does (topicboot.Bootstrap with the evaluation
// web's fetcher).
type Bootstrapper func(ctx context.Context, urls []string, name string) ([]byte, error)

// BootstrapExamples chooses a topic's example pages, deterministically and
// as a user who knows the topic might: its chapter page when the targets
// are a chapter (UpChains), then targets spread evenly over the others in
// URL order (the middle of each of equal parts), BootstrapCount in all.
func BootstrapExamples(t *Topic) []string {
	var all []string
	for u := range t.Labels {
		all = append(all, u)
	}
	for u := range t.Neutral {
		all = append(all, u)
	}
	slices.Sort(all)
	var out []string
	if len(t.Spec.UpChains) > 0 && len(t.Topic.Seeds) > 0 {
		if u, err := url.Parse(t.Topic.Seeds[0]); err == nil {
			u.Path, u.RawQuery, u.Fragment = "/"+t.Spec.UpChains[0], "", ""
			if n, err := urlnorm.Normalize(u.String()); err == nil && slices.Contains(all, n) {
				out = append(out, n)
			}
		}
	}
	rest := slices.DeleteFunc(slices.Clone(all), func(u string) bool { return slices.Contains(out, u) })
	need := min(BootstrapCount-len(out), len(rest))
	for i := range need {
		out = append(out, rest[(2*i+1)*len(rest)/(2*need)])
	}
	return out
}

// bootstrapped returns the ConfBootstrapped variant of t: its topic YAML
// and the topic to score it with (labels and neutral pages moved).
func (r *Runner) bootstrapped(ctx context.Context, t *Topic) ([]byte, *Topic, error) {
	if r.Bootstrap == nil {
		return nil, nil, fmt.Errorf("configuration %q: the runner has no bootstrapper", ConfBootstrapped)
	}
	examples := BootstrapExamples(t)
	draft, err := r.Bootstrap(ctx, examples, t.Name)
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap %s from %v: %w", t.Name, examples, err)
	}
	var d map[string]any
	if err := yaml.Unmarshal(draft, &d); err != nil {
		return nil, nil, fmt.Errorf("bootstrap %s: %w", t.Name, err)
	}
	yml, err := edit(t.YAML, func(m map[string]any) {
		delete(m, "lexicon")
		delete(m, "negative_samples")
		for _, k := range []string{"keywords", "description", "samples", "language"} {
			if v, ok := d[k]; ok {
				m[k] = v
			} else {
				delete(m, k)
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	tp, err := topic.Parse(yml)
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap %s: the merged topic: %w", t.Name, err)
	}
	bt := *t
	bt.YAML, bt.Topic = yml, tp
	bt.Labels, bt.Neutral = metrics.Labels{}, metrics.Labels{}
	for u := range t.Labels {
		bt.Labels[u] = struct{}{}
	}
	for u := range t.Neutral {
		bt.Labels[u] = struct{}{}
	}
	// The pages the crawl is told are samples are the neutral ones, as
	// Open makes them for a topic file's samples.
	for _, u := range tp.Samples {
		n, err := urlnorm.Normalize(u)
		if err != nil {
			return nil, nil, fmt.Errorf("bootstrap %s: sample %q: %w", t.Name, u, err)
		}
		delete(bt.Labels, n)
		bt.Neutral[n] = struct{}{}
	}
	if len(bt.Neutral) != len(examples) {
		return nil, nil, fmt.Errorf("bootstrap %s: the draft's samples %v are not the examples %v", t.Name, tp.Samples, examples)
	}
	bt.Samples = len(examples)
	return yml, &bt, nil
}

// draftSummary is the draft's keywords for the progress output, strongest
// first, so a report reader can see what the crawl was given.
func draftSummary(t *topic.Topic) string {
	type kw struct {
		k string
		w float64
	}
	var ks []kw
	for k, w := range t.Keywords {
		ks = append(ks, kw{k, w})
	}
	slices.SortFunc(ks, func(a, b kw) int {
		if a.w != b.w {
			if a.w > b.w {
				return -1
			}
			return 1
		}
		return strings.Compare(a.k, b.k)
	})
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %.2f", k.k, k.w))
	}
	return strings.Join(parts, ", ")
}

// SufElsewhere, after a configuration's name ("default elsewhere",
// "bootstrapped elsewhere"), seeds that topic on another corpus and keeps
// the crawl there (scope: that corpus's host): a negative control. No
// target can be reached, so every page it accepts is a false positive —
// what a crawl that never finds its topic puts in the index.
const SufElsewhere = " elsewhere"

// Elsewhere is the corpus a topic of corpus c is seeded on by
// SufElsewhere: the first of corpora that is another project's manual (its
// package name's first word differs: the GIMP manual in Chinese is not
// elsewhere for the GIMP manual in English).
func Elsewhere(c *Corpus, corpora []*Corpus) *Corpus {
	for _, o := range corpora {
		if project(o) != project(c) {
			return o
		}
	}
	return nil
}

// project names the project whose manual c is: its package name's first
// word ("gimp" for gimp-help-en and gimp-help-zh-cn).
func project(c *Corpus) string {
	p, _, _ := strings.Cut(c.Spec.Package, "-")
	return p
}

// elsewhere moves yml's crawl to corpus o: its seeds become o's first
// topic's seeds, and its scope o's host.
func elsewhere(yml []byte, o *Corpus) ([]byte, error) {
	if len(o.Topics) == 0 || len(o.Topics[0].Topic.Seeds) == 0 {
		return nil, fmt.Errorf("corpus %s has no topic seed to start elsewhere from", o.Spec.Name)
	}
	return edit(yml, func(m map[string]any) {
		m["seeds"] = []any{o.Topics[0].Topic.Seeds[0]}
		s, _ := m["scope"].(map[string]any)
		if s == nil {
			s = map[string]any{}
		}
		s["hosts"] = []any{o.Spec.Host}
		m["scope"] = s
	})
}

// SufMultiSite, after a configuration's name ("default multi-site",
// "breadth=specific multi-site"), seeds that topic at the front pages of
// MultiSiteOthers other served corpora (MultiSite, FrontPage) before its
// own seeds: a user who lists several sites, in no particular order, one
// of which holds the topic. Targets, budget and scoring stay the topic's,
// so the fetches spent on the other sites count as off-site. It measures
// whether the crawl still explores the topic's site when other sites'
// links score higher from the start (crawl.claim_ratio; docs/evaluation.md,
// the three-site trial).
const SufMultiSite = " multi-site"

// MultiSiteOthers is how many other corpora a SufMultiSite topic is
// seeded on: the trial that asked for the configuration had three sites.
const MultiSiteOthers = 2

// MultiSite returns the corpora whose front pages a topic of corpus c is
// seeded with by SufMultiSite: up to MultiSiteOthers of corpora on another
// host than c's, other projects' first (as for Elsewhere), then c's own
// project in other languages (gimp-zh for gimp-en), each group in the
// order of corpora, so the choice is deterministic.
func MultiSite(c *Corpus, corpora []*Corpus) []*Corpus {
	var other, same []*Corpus
	for _, o := range corpora {
		if strings.EqualFold(o.Spec.Host, c.Spec.Host) {
			continue // c itself, or its script variant (gimp-zh-tw)
		}
		if project(o) != project(c) {
			other = append(other, o)
		} else {
			same = append(same, o)
		}
	}
	out := append(other, same...)
	return out[:min(len(out), MultiSiteOthers)]
}

// FrontPage is the URL a user would give for corpus c's site: its root
// index.html when the served directory has one, else its first topic's
// first seed. Of the registry's corpora, maxima-en (a texinfo manual whose
// top page is maxima.html) and cppref-en (its pages are under en/) have no
// root index.html and fall back; httpd-en's root index.html is the
// manual's language chooser, which a user would reach at the site's root.
func FrontPage(c *Corpus) (string, error) {
	if fi, err := os.Stat(filepath.Join(c.Dir, "index.html")); err == nil && fi.Mode().IsRegular() {
		return "http://" + c.Spec.Host + "/index.html", nil
	}
	if len(c.Topics) == 0 || len(c.Topics[0].Topic.Seeds) == 0 {
		return "", fmt.Errorf("corpus %s has no root index.html and no topic seed to use as its front page", c.Spec.Name)
	}
	return c.Topics[0].Topic.Seeds[0], nil
}

// multiSite puts the front pages of others before yml's own seeds and,
// when yml restricts its scope to hosts, adds theirs (a seed out of scope
// is refused by topic.Parse). The evaluation's topic files set no scope;
// the rule is for one that would.
func multiSite(yml []byte, others []*Corpus) ([]byte, error) {
	var seeds, hosts []any
	for _, o := range others {
		u, err := FrontPage(o)
		if err != nil {
			return nil, err
		}
		seeds, hosts = append(seeds, u), append(hosts, o.Spec.Host)
	}
	return edit(yml, func(m map[string]any) {
		own, _ := m["seeds"].([]any)
		m["seeds"] = append(seeds, own...)
		if s, _ := m["scope"].(map[string]any); s != nil {
			if h, _ := s["hosts"].([]any); len(h) > 0 {
				s["hosts"] = append(h, hosts...)
			}
		}
	})
}
