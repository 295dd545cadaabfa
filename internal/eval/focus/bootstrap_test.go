package focus

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/topic"
)

func labelsOf(urls ...string) metrics.Labels {
	l := metrics.Labels{}
	for _, u := range urls {
		l[u] = struct{}{}
	}
	return l
}

// TestBootstrapExamples: the chapter page first when the targets are a
// chapter, then targets spread evenly over the rest in URL order; sample
// pages (neutral) are targets too.
func TestBootstrapExamples(t *testing.T) {
	yml := []byte("name: t\nkeywords: {a: 1}\nseeds: [http://s.test/off.html]\n")
	tp, err := topic.Parse(yml)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for i := range 10 {
		urls = append(urls, fmt.Sprintf("http://s.test/p%d.html", i))
	}
	tt := &Topic{YAML: yml, Topic: tp, Labels: labelsOf(urls[1:]...), Neutral: labelsOf(urls[0])}
	if got, want := BootstrapExamples(tt), []string{urls[1], urls[5], urls[8]}; !slices.Equal(got, want) {
		t.Errorf("no chapter: %v, want %v", got, want)
	}
	tt.Spec.UpChains = []string{"p7.html"}
	if got, want := BootstrapExamples(tt), []string{urls[7], urls[2], urls[6]}; !slices.Equal(got, want) {
		t.Errorf("chapter p7: %v, want %v", got, want)
	}
	tt.Labels, tt.Neutral, tt.Spec.UpChains = labelsOf(urls[3], urls[4]), metrics.Labels{}, nil
	if got, want := BootstrapExamples(tt), []string{urls[3], urls[4]}; !slices.Equal(got, want) {
		t.Errorf("two targets: %v, want %v", got, want)
	}
}

// TestBootstrapped: the draft's keywords, description, samples and
// language replace the topic's, its lexicon goes, seeds and budget stay;
// the examples become the neutral pages and the old samples targets.
func TestBootstrapped(t *testing.T) {
	yml := []byte("name: t\nlanguage: zh\nkeywords: {old: 1}\ndescription: old\nlexicon: x.txt\n" +
		"samples: [http://s.test/p0.html]\nseeds: [http://s.test/off.html]\nlimits: {max_pages: 40}\n")
	tp, err := topic.Parse(yml)
	if err != nil {
		t.Fatal(err)
	}
	tt := &Topic{Name: "t", YAML: yml, Topic: tp, Budget: 40,
		Labels:  labelsOf("http://s.test/p1.html", "http://s.test/p2.html", "http://s.test/p3.html", "http://s.test/p4.html"),
		Neutral: labelsOf("http://s.test/p0.html")}
	var asked []string
	r := &Runner{Progress: io.Discard, Bootstrap: func(_ context.Context, urls []string, name string) ([]byte, error) {
		asked = urls
		return []byte("name: " + name + "\nlanguage: en\ndescription: new\nkeywords: {new: 1, word: 0.5}\n" +
			"samples: [" + strings.Join(urls, ", ") + "]\nseeds: [http://s.test/]\n"), nil
	}}
	y, bt, err := r.bootstrapped(context.Background(), tt)
	if err != nil {
		t.Fatal(err)
	}
	p, err := topic.Parse(y)
	if err != nil {
		t.Fatal(err)
	}
	if p.Lexicon != "" || p.Description != "new" || p.Language != "en" || p.Keywords["new"] != 1 || p.Keywords["old"] != 0 ||
		!slices.Equal(p.Seeds, tp.Seeds) || p.Limits.MaxPages != 40 || !slices.Equal(p.Samples, asked) {
		t.Errorf("merged topic %+v", p)
	}
	if len(asked) != BootstrapCount {
		t.Fatalf("asked for %v", asked)
	}
	for _, u := range asked {
		if _, ok := bt.Neutral[u]; !ok {
			t.Errorf("example %s not neutral", u)
		}
		if _, ok := bt.Labels[u]; ok {
			t.Errorf("example %s still a target", u)
		}
	}
	if len(bt.Labels)+len(bt.Neutral) != 5 || len(tt.Labels) != 4 || len(tt.Neutral) != 1 {
		t.Errorf("labels %v, neutral %v (the topic's own: %v, %v)", bt.Labels, bt.Neutral, tt.Labels, tt.Neutral)
	}
	if _, _, err := (&Runner{}).bootstrapped(context.Background(), tt); err == nil {
		t.Error("no bootstrapper: no error")
	}
	// A draft whose samples are not the examples would be scored against
	// pages the crawl was not told about.
	r.Bootstrap = func(_ context.Context, urls []string, name string) ([]byte, error) {
		return []byte("name: " + name + "\nkeywords: {a: 1}\nsamples: [" + urls[0] + "]\nseeds: [http://s.test/]\n"), nil
	}
	if _, _, err := r.bootstrapped(context.Background(), tt); err == nil {
		t.Error("draft samples ≠ examples: no error")
	}
	if _, _, _, err := variant(tt, ConfBootstrapped+" + "+ConfFeedback); err == nil {
		t.Error("bootstrapped combined with another configuration: no error")
	}
}

// TestElsewhere: a topic is seeded elsewhere on the first corpus of
// another project (not its own manual in another language), scoped to
// that corpus's host.
func TestElsewhere(t *testing.T) {
	mk := func(name, pkg, host, seed string) *Corpus {
		tp, err := topic.Parse([]byte("name: " + name + "-t\nkeywords: {a: 1}\nseeds: [" + seed + "]\n"))
		if err != nil {
			t.Fatal(err)
		}
		return &Corpus{Spec: CorpusSpec{Name: name, Package: pkg, Host: host}, Topics: []*Topic{{Topic: tp}}}
	}
	zh := mk("gimp-zh", "gimp-help-zh-cn", "gimp-zh.test", "http://gimp-zh.test/a.html")
	en := mk("gimp-en", "gimp-help-en", "gimp-en.test", "http://gimp-en.test/a.html")
	inst := mk("install-zh", "installation-guide-amd64", "install.test", "http://install.test/ch02.html")
	all := []*Corpus{zh, en, inst}
	if o := Elsewhere(zh, all); o != inst {
		t.Errorf("elsewhere for gimp-zh: %v, want install-zh", o)
	}
	if o := Elsewhere(inst, all); o != zh {
		t.Errorf("elsewhere for install-zh: %v, want gimp-zh", o)
	}
	if o := Elsewhere(zh, []*Corpus{zh, en}); o != nil {
		t.Errorf("elsewhere with only GIMP manuals: %v, want none", o.Spec.Name)
	}
	y, err := elsewhere([]byte("name: t\nkeywords: {a: 1}\nseeds: [http://gimp-zh.test/x.html]\nscope: {other_languages: true}\n"), inst)
	if err != nil {
		t.Fatal(err)
	}
	p, err := topic.Parse(y)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Seeds, []string{"http://install.test/ch02.html"}) || !slices.Equal(p.Scope.Hosts, []string{"install.test"}) || !p.Scope.OtherLanguages {
		t.Errorf("seeds %v, scope %+v", p.Seeds, p.Scope)
	}
}

// TestMultiSite: a multi-site topic is seeded first at the front pages of
// two other corpora, other projects before its own project's other
// languages, in the served order (never a corpus on its own host), then at
// its own seeds; a corpus without a root index.html gives its first
// topic's seed; a scoped topic gains the other hosts; a topic with no
// other corpus served is skipped; elsewhere and baselines are refused.
func TestMultiSite(t *testing.T) {
	mk := func(name, pkg, host, seed string, front bool) *Corpus {
		tp, err := topic.Parse([]byte("name: " + name + "-t\nkeywords: {a: 1}\nseeds: [" + seed + "]\n"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if front {
			if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html></html>"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return &Corpus{Spec: CorpusSpec{Name: name, Package: pkg, Host: host}, Dir: dir, Topics: []*Topic{{Topic: tp}}}
	}
	zh := mk("gimp-zh", "gimp-help-zh-cn", "gimp-zh.test", "http://gimp-zh.test/a.html", true)
	tw := mk("gimp-zh-tw", "gimp-help-zh-cn", "gimp-zh.test", "http://gimp-zh.test/a.html", true)
	en := mk("gimp-en", "gimp-help-en", "gimp-en.test", "http://gimp-en.test/a.html", true)
	inst := mk("install-zh", "installation-guide-amd64", "install.test", "http://install.test/ch02.html", true)
	maxima := mk("maxima-en", "maxima-doc", "maxima.test", "http://maxima.test/maxima_68.html", false)
	names := func(cs []*Corpus) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Spec.Name)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		c       *Corpus
		corpora []*Corpus
		want    string
	}{
		{zh, []*Corpus{zh, en, inst}, "install-zh,gimp-en"},
		{en, []*Corpus{zh, en, inst}, "install-zh,gimp-zh"},
		{inst, []*Corpus{zh, en, inst}, "gimp-zh,gimp-en"},
		{inst, []*Corpus{zh, maxima, en, inst}, "gimp-zh,maxima-en"},
		{zh, []*Corpus{tw, zh, en}, "gimp-en"}, // the script variant shares gimp-zh's host
		{zh, []*Corpus{zh, tw}, ""},
	} {
		if got := names(MultiSite(tc.c, tc.corpora)); got != tc.want {
			t.Errorf("multi-site for %s among %s: %s, want %s", tc.c.Spec.Name, names(tc.corpora), got, tc.want)
		}
	}

	parse := func(y []byte, err error) *topic.Topic {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		p, err := topic.Parse(y)
		if err != nil {
			t.Fatalf("%v\n%s", err, y)
		}
		return p
	}
	p := parse(multiSite([]byte("name: t\nkeywords: {a: 1}\nseeds: [http://gimp-zh.test/x.html]\nlimits: {max_pages: 60}\n"), []*Corpus{inst, maxima}))
	if want := []string{"http://install.test/index.html", "http://maxima.test/maxima_68.html", "http://gimp-zh.test/x.html"}; !slices.Equal(p.Seeds, want) {
		t.Errorf("seeds %v, want %v", p.Seeds, want)
	}
	if len(p.Scope.Hosts) != 0 || p.Limits.MaxPages != 60 {
		t.Errorf("unscoped topic: scope %+v, budget %d", p.Scope, p.Limits.MaxPages)
	}
	p = parse(multiSite([]byte("name: t\nkeywords: {a: 1}\nseeds: [http://gimp-zh.test/x.html]\nscope: {hosts: [gimp-zh.test], other_languages: true}\n"), []*Corpus{inst, en}))
	if want := []string{"gimp-zh.test", "install.test", "gimp-en.test"}; !slices.Equal(p.Scope.Hosts, want) || !p.Scope.OtherLanguages {
		t.Errorf("scoped topic: scope %+v, want hosts %v", p.Scope, want)
	}

	tt := &Topic{Name: "t", YAML: []byte("name: t\nkeywords: {a: 1}\nseeds: [http://gimp-zh.test/x.html]\n"), Topic: zh.Topics[0].Topic}
	// No harness: a cell that tried to crawl would panic.
	r := &Runner{Runs: 3, Progress: io.Discard, Corpora: []*Corpus{zh, tw}, Configs: []string{ConfDefault + SufMultiSite}}
	if res, err := r.Run(context.Background(), zh, tt); err != nil || res.Cells[0].Skip == "" || len(res.Cells[0].Runs) != 0 {
		t.Errorf("no other corpus: %+v, %v; want the cell skipped", res.Cells[0], err)
	}
	r.Corpora = []*Corpus{zh, en, inst}
	for _, conf := range []string{ConfDefault + SufMultiSite + SufElsewhere, ConfDefault + SufElsewhere + SufMultiSite, ConfBFS + SufMultiSite} {
		r.Configs = []string{conf}
		if _, err := r.Run(context.Background(), zh, tt); err == nil {
			t.Errorf("%q: no error", conf)
		}
	}
}
