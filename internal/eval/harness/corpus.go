package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/eval/synth"
	"focuscrawl/internal/urlnorm"
)

// Corpus is one evaluation web: a directory served on loopback, the topic
// crawled on it and its labelled target pages.
type Corpus struct {
	Name      string // short id used in crawl IDs and file names
	Title     string // one line for the report
	Dir       string // directory replay serves
	Resolve   string // fetch.resolve host pattern pointing at the corpus's server
	TopicYAML []byte
	Labels    metrics.Labels
	Pages     int    // HTML pages in the corpus
	LabelRule string // how the labels were made, for the report
}

// SynthCorpus generates the synthetic web cfg describes (start from
// synth.DefaultConfig) into dir/<name>-<seed>, replacing an earlier copy:
// generation is deterministic and takes well under a second. name must
// start with "synth" (the report holds synthetic webs to the target).
func SynthCorpus(dir, name string, cfg synth.Config) (*Corpus, error) {
	seed := cfg.Seed
	out := filepath.Join(dir, fmt.Sprintf("%s-%d", name, seed))
	if err := os.RemoveAll(out); err != nil {
		return nil, err
	}
	web, err := synth.Generate(cfg, out)
	if err != nil {
		return nil, err
	}
	topicYAML, err := os.ReadFile(filepath.Join(out, "topic.yaml"))
	if err != nil {
		return nil, err
	}
	labels, err := metrics.LoadLabels(filepath.Join(out, "labels.txt"))
	if err != nil {
		return nil, err
	}
	if cfg.Domain == "" {
		cfg.Domain = web.Config.Domain
	}
	return &Corpus{
		Name: name, Title: fmt.Sprintf("%s, synthetic web (seed %d): %d pages on %d hosts (%.0f%% of them on topic), %d targets (%.0f%% of pages), traps, tunnels, duplicates, GBK",
			name, seed, web.Pages, len(web.Hosts), 100*cfg.OnTopicHosts, len(web.Targets), 100*float64(len(web.Targets))/float64(web.Pages)),
		Dir: out, Resolve: "*." + cfg.Domain, TopicYAML: topicYAML, Labels: labels, Pages: web.Pages,
		LabelRule: "labels.txt written by the generator: every page written with the target theme (machine learning)",
	}, nil
}

// GIMPManual describes one language edition of the GIMP manual as packaged
// by Debian.
type GIMPManual struct {
	Package string // Debian package, e.g. gimp-help-en
	Lang    string // directory under usr/share/gimp/2.0/help
	Host    string // virtual host it is served as
	Topic   string // topic file (its seeds and scope must use Host)
}

// The two real corpora of the comparison.
var (
	GIMPZh = GIMPManual{Package: "gimp-help-zh-cn", Lang: "zh_CN", Host: "docs.gimp.test", Topic: "topics/demo-gimp-filters-zh.yaml"}
	GIMPEn = GIMPManual{Package: "gimp-help-en", Lang: "en", Host: "docs-en.gimp.test", Topic: "topics/eval-gimp-filters-en.yaml"}
)

// FiltersChapter is the page the label rule starts from.
const FiltersChapter = "filters.html"

// LabelRule documents how GIMPCorpus labels targets.
const LabelRule = `a page is a target iff it is filters.html (the manual's "Filters" chapter) or its chain of ` +
	`DocBook <link rel="up"> parents reaches filters.html, i.e. it is a section of that chapter ` +
	`(filters-blur.html, gimp-filter-gaussian-blur.html, plug-in-*.html, script-fu-*.html under it, ...)`

// GIMPCorpus returns the manual unpacked under cache/<package>, fetching it
// first with apt-get download and dpkg -x when it is missing (the same
// layout scripts/demo.sh uses, so the demo's copy is reused).
func GIMPCorpus(cache string, m GIMPManual) (*Corpus, error) {
	root := filepath.Join(cache, m.Package)
	dir := filepath.Join(root, "usr/share/gimp/2.0/help", m.Lang)
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		if err := AptUnpack(m.Package, root); err != nil {
			return nil, err
		}
	}
	topicYAML, err := os.ReadFile(m.Topic)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: topic file: %w", m.Package, err)
	}
	labels, pages, err := LabelByUpChain(dir, "http://"+m.Host+"/", FiltersChapter)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", m.Package, err)
	}
	return &Corpus{
		Name:  m.Package,
		Title: fmt.Sprintf("GIMP manual, Debian package %s (%s): %d pages, %d targets (the Filters chapter)", m.Package, m.Lang, pages, len(labels)),
		Dir:   dir, Resolve: m.Host, TopicYAML: topicYAML, Labels: labels, Pages: pages, LabelRule: LabelRule,
	}, nil
}

// AptUnpack downloads a Debian package and unpacks it into dest.
func AptUnpack(pkg, dest string) error {
	tmp, err := os.MkdirTemp("", "focuscrawl-apt-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	download := func() error {
		cmd := exec.Command("apt-get", "download", pkg)
		cmd.Dir = tmp
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get download %s: %v: %s", pkg, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := download(); err != nil {
		if os.Geteuid() != 0 {
			return fmt.Errorf("corpus %s is missing and cannot be fetched: %w", pkg, err)
		}
		if out, uerr := exec.Command("apt-get", "update", "-qq").CombinedOutput(); uerr != nil {
			return fmt.Errorf("apt-get update: %v: %s", uerr, out)
		}
		if err := download(); err != nil {
			return err
		}
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, "*.deb"))
	if len(debs) != 1 {
		return fmt.Errorf("apt-get download %s: expected one .deb, found %d", pkg, len(debs))
	}
	// dpkg -x creates dest but not its parents (a fresh --corpus-cache).
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	if out, err := exec.Command("dpkg", "-x", debs[0], dest).CombinedOutput(); err != nil {
		return fmt.Errorf("dpkg -x %s: %v: %s", debs[0], err, out)
	}
	// The package's file name (name_version_arch.deb) is kept beside it,
	// so a report can say which version it measured: a security update
	// changes a corpus between machines (PackageFile).
	return os.WriteFile(filepath.Join(dest, PackageFile), []byte(filepath.Base(debs[0])+"\n"), 0o644)
}

// PackageFile is the file in an unpacked package's directory that names
// the .deb it came from (AptUnpack); unpacked before it was written, a
// corpus has none.
const PackageFile = "DEBIAN-PACKAGE"

// UnpackedPackage returns the .deb file name AptUnpack recorded in root, or
// "" when it recorded none.
func UnpackedPackage(root string) string {
	b, err := os.ReadFile(filepath.Join(root, PackageFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// upRE matches a DocBook or Texinfo "up" link in either attribute order.
var upRE = regexp.MustCompile(`<link\s+(?:rel="up"\s+href="([^"#]+)|href="([^"#]+)[^"]*"\s+rel="up")`)

// LabelByUpChain labels the HTML files of a DocBook HTML tree: a file is a
// target iff it is chapter or its chain of <link rel="up"> parents reaches
// chapter. Target URLs are base + file name. It also returns how many HTML
// files the tree holds.
func LabelByUpChain(dir, base, chapter string) (metrics.Labels, int, error) {
	return LabelByUpChains(dir, base, chapter)
}

// LabelByUpChains is LabelByUpChain for several chapters: a file is a
// target iff its up chain reaches any of them.
func LabelByUpChains(dir, base string, chapters ...string) (metrics.Labels, int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil {
		return nil, 0, err
	}
	if len(files) == 0 {
		return nil, 0, fmt.Errorf("no HTML files in %s", dir)
	}
	up := make(map[string]string, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, err
		}
		if m := upRE.FindSubmatch(b); m != nil {
			up[filepath.Base(f)] = string(m[1]) + string(m[2])
		} else {
			up[filepath.Base(f)] = ""
		}
	}
	isChapter := map[string]bool{}
	for _, chapter := range chapters {
		if _, ok := up[chapter]; !ok {
			return nil, 0, fmt.Errorf("%s has no %s", dir, chapter)
		}
		isChapter[chapter] = true
	}
	names := make([]string, 0, len(up))
	for n := range up {
		names = append(names, n)
	}
	sort.Strings(names)
	labels := metrics.Labels{}
	for _, n := range names {
		seen := map[string]bool{}
		for f := n; f != "" && !seen[f]; f = up[f] {
			seen[f] = true
			if isChapter[f] {
				u, err := urlnorm.Normalize(base + n)
				if err != nil {
					return nil, 0, err
				}
				labels[u] = struct{}{}
				break
			}
		}
	}
	return labels, len(files), nil
}

// WithStrategy returns topicYAML with the topic renamed, the page budget
// set, and the given link predictor and page filter (name and parameters).
func WithStrategy(topicYAML []byte, name string, maxPages int, predictor, filter Spec) ([]byte, error) {
	var m map[string]any
	if err := yaml.Unmarshal(topicYAML, &m); err != nil {
		return nil, fmt.Errorf("topic file: %w", err)
	}
	m["name"] = name
	limits, _ := m["limits"].(map[string]any)
	if limits == nil {
		limits = map[string]any{}
	}
	limits["max_pages"] = maxPages
	m["limits"] = limits
	strat, _ := m["strategy"].(map[string]any)
	if strat == nil {
		strat = map[string]any{}
	}
	strat["link_predictor"] = predictor.yaml()
	strat["page_filter"] = filter.yaml()
	m["strategy"] = strat
	return yaml.Marshal(m)
}

// WithAccept returns topicYAML with strategy.accept set to mode
// (topic.AcceptThreshold or topic.AcceptSplit). The benchmarks that accept
// every page (vsm threshold 0) set threshold: the vsm default, split, would
// still turn down the lower of two well-separated score groups.
func WithAccept(topicYAML []byte, mode string) ([]byte, error) {
	var m map[string]any
	if err := yaml.Unmarshal(topicYAML, &m); err != nil {
		return nil, fmt.Errorf("topic file: %w", err)
	}
	strat, _ := m["strategy"].(map[string]any)
	if strat == nil {
		strat = map[string]any{}
	}
	strat["accept"] = mode
	m["strategy"] = strat
	return yaml.Marshal(m)
}

// TopicStrategies returns the page filter and link predictor a topic file
// names, with their parameters (empty names when the file has none).
func TopicStrategies(topicYAML []byte) (predictor, filter Spec, err error) {
	var t struct {
		Strategy struct {
			PageFilter    yaml.Node `yaml:"page_filter"`
			LinkPredictor yaml.Node `yaml:"link_predictor"`
		} `yaml:"strategy"`
	}
	if err := yaml.Unmarshal(topicYAML, &t); err != nil {
		return Spec{}, Spec{}, fmt.Errorf("topic file: %w", err)
	}
	decode := func(n *yaml.Node) (Spec, error) {
		switch n.Kind {
		case 0:
			return Spec{}, nil
		case yaml.ScalarNode:
			return Spec{Name: n.Value}, nil
		}
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return Spec{}, err
		}
		s := Spec{Params: map[string]any{}}
		for k, v := range m {
			if k == "name" {
				s.Name, _ = v.(string)
			} else {
				s.Params[k] = v
			}
		}
		return s, nil
	}
	if predictor, err = decode(&t.Strategy.LinkPredictor); err != nil {
		return
	}
	filter, err = decode(&t.Strategy.PageFilter)
	return
}

// Spec is a strategy name with parameters.
type Spec struct {
	Name   string
	Params map[string]any
}

func (s Spec) yaml() any {
	if len(s.Params) == 0 {
		return s.Name
	}
	m := map[string]any{"name": s.Name}
	for k, v := range s.Params {
		m[k] = v
	}
	return m
}

// String is name{k=v,...} with sorted keys.
func (s Spec) String() string {
	if len(s.Params) == 0 {
		return s.Name
	}
	keys := make([]string, 0, len(s.Params))
	for k := range s.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, s.Params[k])
	}
	return s.Name + "{" + strings.Join(parts, ",") + "}"
}
