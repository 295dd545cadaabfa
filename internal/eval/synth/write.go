package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/text/encoding/simplifiedchinese"
	"gopkg.in/yaml.v3"

	"focuscrawl/internal/urlnorm"
)

// write renders every page into dir and writes the manifest, labels and
// topic file.
func (g *generator) write(dir string) (*Web, error) {
	web := &Web{Config: g.cfg}
	for _, s := range g.sites {
		for _, p := range s.pages {
			data, err := g.render(p)
			if err != nil {
				return nil, err
			}
			if err := writeFile(dir, s.host, p.path, data, p); err != nil {
				return nil, err
			}
			web.Pages++
			if p.copyPath != "" {
				if err := writeFile(dir, s.host, p.copyPath, data, p); err != nil {
					return nil, err
				}
				web.Pages++
			}
			if p.isTarget() {
				u, err := normURL(p.url())
				if err != nil {
					return nil, err
				}
				web.Targets = append(web.Targets, u)
			}
		}
		if robots := robotsTxt(s); robots != "" {
			if err := writeFile(dir, s.host, "/robots.txt", []byte(robots), nil); err != nil {
				return nil, err
			}
		}
		web.Hosts = append(web.Hosts, s.host)
		web.Sites = append(web.Sites, siteInfo(s))
	}
	slices.Sort(web.Targets)
	var err error
	if web.Seeds, err = normURLs(g.seeds); err != nil {
		return nil, err
	}
	for _, tp := range g.tunnels {
		t := Tunnel{}
		if t.Entry, err = normURL(tp.entry.url()); err != nil {
			return nil, err
		}
		if t.Chain, err = normURLs(tp.chain); err != nil {
			return nil, err
		}
		if t.Cluster, err = normURLs(tp.cluster); err != nil {
			return nil, err
		}
		web.Tunnels = append(web.Tunnels, t)
	}
	for _, p := range g.dups {
		d := Duplicate{}
		if d.Original, err = normURL(p.url()); err != nil {
			return nil, err
		}
		if d.Copy, err = normURL("http://" + p.site.host + p.copyPath); err != nil {
			return nil, err
		}
		web.Duplicates = append(web.Duplicates, d)
	}

	var mb bytes.Buffer
	enc := json.NewEncoder(&mb)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(manifest{Version: manifestVersion, Web: web}); err != nil {
		return nil, fmt.Errorf("synth: encode manifest: %w", err)
	}
	topic, err := topicYAML(web)
	if err != nil {
		return nil, err
	}
	labels := strings.Join(web.Targets, "\n")
	if labels != "" {
		labels += "\n"
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{ManifestFile, mb.Bytes()}, {LabelsFile, []byte(labels)}, {TopicFile, topic}} {
		name := filepath.Join(dir, f.name)
		if err := os.WriteFile(name, f.data, 0o644); err != nil {
			return nil, fmt.Errorf("synth: write %s: %w", f.name, err)
		}
		if err := os.Chtimes(name, epoch, epoch); err != nil {
			return nil, fmt.Errorf("synth: date %s: %w", f.name, err)
		}
	}
	return web, nil
}

// writeFile writes data as host's urlPath ("/x/" becomes x/index.html) and
// dates it with p's modification time (the epoch for non-pages).
func writeFile(dir, host, urlPath string, data []byte, p *page) error {
	rel := strings.TrimPrefix(urlPath, "/")
	if rel == "" || strings.HasSuffix(rel, "/") {
		rel += "index.html"
	}
	name := filepath.Join(dir, host, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("synth: create directory for %s%s: %w", host, urlPath, err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		return fmt.Errorf("synth: write %s%s: %w", host, urlPath, err)
	}
	mtime := epoch
	if p != nil {
		mtime = p.mtime
	}
	if err := os.Chtimes(name, mtime, mtime); err != nil {
		return fmt.Errorf("synth: date %s%s: %w", host, urlPath, err)
	}
	return nil
}

func robotsTxt(s *site) string {
	switch {
	case s.private:
		return "User-agent: *\nDisallow: /private/\n"
	case s.robots:
		return "User-agent: *\nDisallow:\n"
	}
	return ""
}

func siteInfo(s *site) Site {
	info := Site{
		Host:    s.host,
		Name:    s.name,
		Lang:    "en",
		Charset: "utf-8",
		Theme:   themes[s.theme].id,
		OnTopic: s.onTopic,
		Portal:  s.portal,
		Traps:   s.traps,
		Robots:  s.robots,
	}
	if s.lang == langZH {
		info.Lang = "zh"
	}
	if s.gbk {
		info.Charset = "gbk"
	}
	if s.private {
		info.Disallow = []string{"/private/"}
	}
	return info
}

func normURL(raw string) (string, error) {
	u, err := urlnorm.Normalize(raw)
	if err != nil {
		return "", fmt.Errorf("synth: %w", err)
	}
	return u, nil
}

func normURLs(ps []*page) ([]string, error) {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		u, err := normURL(p.url())
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// render produces p's bytes in its site's encoding.
func (g *generator) render(p *page) ([]byte, error) {
	s := p.site
	var b strings.Builder
	langAttr, sep := "en", " - "
	if s.lang == langZH {
		langAttr, sep = "zh-CN", "："
	}
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n", langAttr)
	if s.gbk {
		// The only declaration of the encoding: replay sends a bare
		// text/html, so crawlers have to sniff this.
		b.WriteString(`<meta http-equiv="Content-Type" content="text/html; charset=gbk">` + "\n")
	} else {
		b.WriteString(`<meta charset="utf-8">` + "\n")
	}
	title := p.title
	if p.kind != kindHome {
		title += " - " + s.name
	}
	fmt.Fprintf(&b, "<title>%s</title>\n</head>\n<body>\n", esc(title))
	if len(p.nav) > 0 {
		b.WriteString("<nav>")
		for i, l := range p.nav {
			if i > 0 {
				b.WriteString(" | ")
			}
			g.anchor(&b, p, l)
		}
		b.WriteString("</nav>\n")
	}
	fmt.Fprintf(&b, "<h1>%s</h1>\n", esc(p.title))

	nPara := 1 + g.rng.IntN(2)
	if p.kind == kindLeaf || p.kind == kindClusterLeaf {
		nPara = 3 + g.rng.IntN(3)
	}
	for i := range nPara {
		b.WriteString("<p>")
		b.WriteString(esc(g.paragraph(p, 2+g.rng.IntN(3))))
		if i == 1 || (i == 0 && nPara == 1) {
			for _, l := range p.inline {
				if s.lang == langEN {
					b.WriteString(" ")
				}
				b.WriteString(esc(g.sentence(s.lang, l.to.theme, p.theme, 0.6, 0.1)))
				if s.lang == langEN {
					b.WriteString(" ")
				}
				g.anchor(&b, p, l)
				if l.note != "" {
					b.WriteString(sep + esc(l.note))
				}
			}
		}
		b.WriteString("</p>\n")
	}
	for _, gr := range p.groups {
		fmt.Fprintf(&b, "<h2>%s</h2>\n<ul>\n", esc(gr.heading))
		for _, l := range gr.links {
			b.WriteString("<li>")
			g.anchor(&b, p, l)
			if l.note != "" {
				b.WriteString(sep + esc(l.note))
			}
			b.WriteString("</li>\n")
		}
		b.WriteString("</ul>\n")
	}
	fmt.Fprintf(&b, "<footer><p>%s</p></footer>\n</body>\n</html>\n", esc(s.name))

	if !s.gbk {
		return []byte(b.String()), nil
	}
	out, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("synth: encode %s%s as GBK: %w", s.host, p.path, err)
	}
	return out, nil
}

// anchor writes an <a> element for l on page p: relative hrefs within a
// site, absolute URLs across sites.
func (g *generator) anchor(b *strings.Builder, p *page, l link) {
	href := l.href
	if l.to != nil {
		if l.to.site == p.site {
			href = relHref(p.path, l.to.path)
		} else {
			href = l.to.url()
		}
	}
	fmt.Fprintf(b, `<a href="%s">%s</a>`, esc(href), esc(l.anchor))
}

func esc(s string) string { return html.EscapeString(s) }

// relHref is the relative reference from the page at URL path from to the
// URL path to, e.g. "/a/p1.html" -> "/b/" gives "../b/".
func relHref(from, to string) string {
	fromDir := strings.Split(strings.Trim(from[:strings.LastIndexByte(from, '/')+1], "/"), "/")
	cut := strings.LastIndexByte(to, '/') + 1
	toDir, file := strings.Split(strings.Trim(to[:cut], "/"), "/"), to[cut:]
	if fromDir[0] == "" {
		fromDir = nil
	}
	if toDir[0] == "" {
		toDir = nil
	}
	common := 0
	for common < len(fromDir) && common < len(toDir) && fromDir[common] == toDir[common] {
		common++
	}
	var b strings.Builder
	for range len(fromDir) - common {
		b.WriteString("../")
	}
	for _, d := range toDir[common:] {
		b.WriteString(d + "/")
	}
	b.WriteString(file)
	if b.Len() == 0 {
		return "./"
	}
	return b.String()
}

// topicFile is the shape of focuscrawl's topic file (internal/topic).
type topicFile struct {
	Name        string             `yaml:"name"`
	Language    string             `yaml:"language"`
	Description string             `yaml:"description"`
	Keywords    map[string]float64 `yaml:"keywords"`
	Seeds       []string           `yaml:"seeds"`
	Limits      struct {
		MaxPages int `yaml:"max_pages"`
		MaxDepth int `yaml:"max_depth"`
	} `yaml:"limits"`
}

// topicKeywords are the target topic's keywords in both languages: the core
// names of the field weigh most, frequent but ambiguous words ("training",
// "model") least.
var topicKeywords = map[string]float64{
	"machine learning": 1.0, "neural network": 1.0, "deep learning": 1.0,
	"机器学习": 1.0, "神经网络": 1.0, "深度学习": 1.0,
	"gradient descent": 0.8, "backpropagation": 0.8, "dataset": 0.8,
	"梯度下降": 0.8, "反向传播": 0.8, "数据集": 0.8,
	"classification": 0.7, "overfitting": 0.7, "learning rate": 0.7, "classifier": 0.7,
	"分类": 0.7, "过拟合": 0.7, "学习率": 0.7, "分类器": 0.7,
	"training": 0.5, "model": 0.5, "训练": 0.5, "模型": 0.5,
}

// maxPages is the crawl budget written to topic.yaml: enough to find most
// targets with a good strategy, not enough to fetch the whole web.
const maxPages = 500

func topicYAML(web *Web) ([]byte, error) {
	t := topicFile{
		Name:     "synth-ml",
		Language: "auto",
		Description: "Machine learning: neural networks, deep learning, training models on datasets, " +
			"gradient descent, classification and regression. 机器学习：神经网络、深度学习、在数据集上训练模型、梯度下降、分类与回归。",
		Keywords: topicKeywords,
		Seeds:    web.Seeds,
	}
	t.Limits.MaxPages = min(maxPages, web.Pages)
	out, err := yaml.Marshal(&t)
	if err != nil {
		return nil, fmt.Errorf("synth: encode topic file: %w", err)
	}
	return out, nil
}
