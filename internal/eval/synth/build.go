package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path"
	"strings"
	"time"
)

// kind is the role of a page in its site.
type kind int

const (
	kindHome kind = iota
	kindHub
	kindLeaf
	kindPrivate
	kindChain
	kindClusterHub
	kindClusterLeaf
)

// site is a host being planned.
type site struct {
	idx      int
	host     string
	name     string
	lang     int
	gbk      bool
	theme    int
	onTopic  bool
	portal   bool
	traps    bool
	private  bool
	robots   bool
	home     *page
	hubs     []*page // section hubs, in section order
	pages    []*page // every page, in write order
	leafList []*page // ordinary leaves (kindLeaf), in write order
}

// page is one HTML file being planned. Text is generated when it is rendered;
// everything other pages need to link to it (title, summary) is fixed here.
type page struct {
	site    *site
	path    string // URL path: "/", "/models/", "/models/p03.html"
	kind    kind
	theme   int
	title   string // headline; also the anchor text of links to the page
	summary string // one sentence; the text around links to the page
	purity  float64
	mix     float64
	second  int // the other theme mixed into the text
	mtime   time.Time

	nav    []link
	groups []linkGroup
	inline []link // links woven into the paragraphs

	copyPath string // non-empty: the same bytes are also written here
	special  bool   // tunnel entry or chain/cluster page: never duplicated
}

// link is an <a> element. Either to is set (a generated page) or href is (a
// trap URL).
type link struct {
	to     *page
	href   string
	anchor string
	note   string // text after the anchor
}

// linkGroup is a titled list of links.
type linkGroup struct {
	heading string
	links   []link
}

// generator holds the one random source and everything planned so far.
type generator struct {
	cfg     Config
	rng     *rand.Rand
	sites   []*site
	on, off []*site // on-topic and off-topic sites, in index order
	tunnels []tunnelPlan
	dups    []*page
	seeds   []*page
}

type tunnelPlan struct {
	entry   *page
	chain   []*page
	cluster []*page
}

// borderlineShare is the share of pages whose text is nearly as much about
// a second theme as about their own, so that no classifier is perfect.
const borderlineShare = 0.08

// epoch anchors modification times; pages are dated up to a year before it.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newGenerator(cfg Config) *generator {
	// One PCG source for everything: determinism then only requires a fixed
	// order of calls, which plain slices (never maps) guarantee.
	seed := uint64(cfg.Seed)
	return &generator{cfg: cfg, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// onTopicCount is the number of on-topic hosts for cfg.
func onTopicCount(cfg Config) int {
	n := int(math.Round(float64(cfg.Hosts) * cfg.OnTopicHosts))
	if n == 0 && cfg.OnTopicHosts > 0 {
		n = 1
	}
	return min(n, cfg.Hosts)
}

// pick returns round(len(list)*frac) elements of list, chosen at random.
func (g *generator) pick(list []*site, frac float64) []*site {
	n := int(math.Round(float64(len(list)) * frac))
	perm := g.rng.Perm(len(list))
	out := make([]*site, 0, n)
	for _, i := range perm[:n] {
		out = append(out, list[i])
	}
	return out
}

// plan decides everything but the running text of the pages. The order of
// the steps is part of the output: each consumes random numbers.
func (g *generator) plan() {
	g.planSites()
	for _, s := range g.sites {
		g.planSitePages(s)
	}
	g.planTunnels()
	g.planLinks()
	g.planDuplicates()
	g.planSeeds()
}

// planSites decides each host's theme, language, encoding and roles.
// Languages and encodings are drawn separately among on-topic and off-topic
// sites so that both kinds exist in every language whenever the shares allow.
func (g *generator) planSites() {
	cfg := g.cfg
	width := max(2, len(fmt.Sprint(cfg.Hosts)))
	for i := range cfg.Hosts {
		g.sites = append(g.sites, &site{idx: i, host: fmt.Sprintf("www.site%0*d.%s", width, i+1, cfg.Domain)})
	}
	nOn := onTopicCount(cfg)
	perm := g.rng.Perm(cfg.Hosts)
	isOn := make([]bool, cfg.Hosts)
	for _, i := range perm[:nOn] {
		isOn[i] = true
	}
	offThemes := g.rng.Perm(len(themes) - 1)
	for _, s := range g.sites {
		if isOn[s.idx] {
			s.onTopic = true
			g.on = append(g.on, s)
		} else {
			s.theme = 1 + offThemes[len(g.off)%len(offThemes)]
			g.off = append(g.off, s)
		}
	}
	for _, group := range [][]*site{g.on, g.off} {
		zh := g.pick(group, cfg.ChineseShare)
		for _, s := range zh {
			s.lang = langZH
		}
		for _, s := range g.pick(zh, cfg.GBKShare) {
			s.gbk = true
		}
	}
	for _, s := range g.sites {
		s.name = g.siteName(s)
	}
	for i, s := range g.off {
		if i < 2 {
			s.portal = true
		}
	}
	if cfg.Traps {
		for _, i := range g.rng.Perm(cfg.Hosts)[:max(1, cfg.Hosts/10)] {
			g.sites[i].traps = true
		}
	}
	for _, i := range g.rng.Perm(cfg.Hosts)[:min(2, cfg.Hosts)] {
		g.sites[i].private = true
		g.sites[i].robots = true
	}
	for _, s := range g.sites {
		if !s.robots && g.rng.Float64() < 0.4 {
			s.robots = true // allow-all robots.txt
		}
	}
}

func (g *generator) siteName(s *site) string {
	w := g.word(s.lang, s.theme)
	suffix := siteSuffixes[s.lang][g.rng.IntN(len(siteSuffixes[s.lang]))]
	if s.lang == langZH {
		return w + suffix
	}
	words := strings.Fields(w)
	for i := range words {
		words[i] = capitalize(words[i])
	}
	return strings.Join(words, " ") + " " + suffix
}

// newPage creates a page of s with its title and summary.
func (g *generator) newPage(s *site, urlPath string, k kind, th int) *page {
	p := &page{
		site:   s,
		path:   urlPath,
		kind:   k,
		theme:  th,
		purity: 0.40 + 0.35*g.rng.Float64(),
		mix:    0.04 + 0.16*g.rng.Float64(),
		second: g.otherTheme(th),
		mtime:  epoch.Add(-time.Duration(g.rng.IntN(365*24)) * time.Hour),
	}
	if g.rng.Float64() < borderlineShare {
		// A borderline page: its own theme barely dominates, and for an
		// off-topic page the runner-up is the target ("AI in finance").
		p.purity = 0.25 + 0.10*g.rng.Float64()
		p.mix = 0.22 + 0.10*g.rng.Float64()
		if th != 0 {
			p.second = 0
		}
	}
	p.title = g.title(s.lang, th)
	p.summary = g.sentence(s.lang, th, p.second, 0.7, 0.05)
	s.pages = append(s.pages, p)
	return p
}

// planSitePages creates the home page, sections, leaves and private pages of
// s (tunnels come later).
func (g *generator) planSitePages(s *site) {
	cfg := g.cfg
	home := g.newPage(s, "/", kindHome, s.theme)
	home.title = s.name
	s.home = home

	nSec := min(max(2, cfg.PagesPerHost/15), 5)
	perSec := max(2, (cfg.PagesPerHost-1-nSec)/nSec)

	type secPlan struct {
		sec   section
		theme int
		blog  bool
	}
	var secs []secPlan
	own := themes[s.theme].sections
	order := g.rng.Perm(len(own))
	for i := range nSec - 1 {
		secs = append(secs, secPlan{sec: own[order[i%len(own)]], theme: s.theme})
	}
	if s.onTopic {
		// On-topic sites carry one off-topic section.
		th := 1 + g.rng.IntN(len(themes)-1)
		ts := themes[th].sections
		secs = append(secs, secPlan{sec: ts[g.rng.IntN(len(ts))], theme: th})
	} else {
		secs = append(secs, secPlan{sec: section{"blog", ui[langEN]["blog"], ui[langZH]["blog"]}, theme: s.theme, blog: true})
	}

	for _, sp := range secs {
		hub := g.newPage(s, "/"+sp.sec.slug+"/", kindHub, sp.theme)
		hub.title = sp.sec.name(s.lang)
		s.hubs = append(s.hubs, hub)
		n := max(2, perSec+g.rng.IntN(3)-1)
		mlPosts := map[int]bool{}
		if sp.blog {
			// Off-topic sites write a few machine-learning posts.
			for _, i := range g.rng.Perm(n)[:min(n, 2+g.rng.IntN(2))] {
				mlPosts[i] = true
			}
		}
		for i := range n {
			th := sp.theme
			switch {
			case mlPosts[i]:
				th = 0
			case sp.theme == 0 && g.rng.Float64() < 0.08:
				th = 1 + g.rng.IntN(len(themes)-1) // an off-topic page on an on-topic site
			}
			leaf := g.newPage(s, fmt.Sprintf("/%s/p%02d.html", sp.sec.slug, i+1), kindLeaf, th)
			s.leafList = append(s.leafList, leaf)
			hub.groups = appendLink(hub.groups, ui[s.lang]["articles"], leaf.linkFrom(hub))
		}
	}

	if s.private {
		ph := g.newPage(s, "/private/", kindPrivate, s.theme)
		ph.title = ui[s.lang]["members"]
		for i := range 2 {
			pl := g.newPage(s, fmt.Sprintf("/private/p%02d.html", i+1), kindPrivate, s.theme)
			ph.groups = appendLink(ph.groups, ui[s.lang]["articles"], pl.linkFrom(ph))
			pl.nav = []link{home.navLink(), {to: ph, anchor: ph.title}}
		}
		ph.nav = []link{home.navLink()}
		home.groups = appendLink(home.groups, ui[s.lang]["members"], link{to: ph, anchor: ph.title})
	}
}

func (sec section) name(lang int) string {
	if lang == langZH {
		return sec.zh
	}
	return sec.en
}

// linkFrom is a link to p as seen from a page of from's site: anchor text is
// p's title, and its summary follows when the languages match.
func (p *page) linkFrom(from *page) link {
	l := link{to: p, anchor: p.title}
	if from.site.lang == p.site.lang {
		l.note = p.summary
	}
	return l
}

func (p *page) navLink() link {
	if p.kind == kindHome {
		return link{to: p, anchor: ui[p.site.lang]["home"]}
	}
	return link{to: p, anchor: p.title}
}

func appendLink(groups []linkGroup, heading string, l link) []linkGroup {
	for i := range groups {
		if groups[i].heading == heading {
			groups[i].links = append(groups[i].links, l)
			return groups
		}
	}
	return append(groups, linkGroup{heading: heading, links: []link{l}})
}

// planTunnels hides cfg.Tunnels on-topic clusters behind chains of off-topic
// pages. Chain and cluster pages get no other in-links, which is what makes
// them reachable only by tunnelling.
func (g *generator) planTunnels() {
	if g.cfg.Tunnels == 0 || len(g.off) == 0 {
		return
	}
	order := g.rng.Perm(len(g.off))
	for k := range g.cfg.Tunnels {
		s := g.off[order[k%len(order)]]
		var candidates []*page
		for _, p := range s.leafList {
			if p.theme != 0 && !p.special {
				candidates = append(candidates, p)
			}
		}
		if len(candidates) == 0 {
			candidates = []*page{s.home}
		}
		entry := candidates[g.rng.IntN(len(candidates))]
		entry.special = true
		tp := tunnelPlan{entry: entry}

		prev := entry
		chainLen := 2 + g.rng.IntN(2)
		for j := range chainLen {
			c := g.newPage(s, fmt.Sprintf("/archive/%d-%d.html", k+1, j+1), kindChain, s.theme)
			c.special = true
			c.nav = []link{s.home.navLink()}
			anchor := ui[s.lang]["older"]
			if prev == entry {
				anchor = ui[s.lang]["archive"]
			}
			prev.groups = appendLink(prev.groups, ui[s.lang]["more"], link{to: c, anchor: anchor})
			tp.chain = append(tp.chain, c)
			prev = c
		}

		dir := fmt.Sprintf("/collection-%d/", k+1)
		hub := g.newPage(s, dir, kindClusterHub, 0)
		hub.special = true
		hub.nav = []link{s.home.navLink()}
		prev.groups = appendLink(prev.groups, ui[s.lang]["related"], hub.linkFrom(prev))
		tp.cluster = append(tp.cluster, hub)
		n := 4 + g.rng.IntN(3)
		for i := range n {
			leaf := g.newPage(s, fmt.Sprintf("%sp%02d.html", dir, i+1), kindClusterLeaf, 0)
			leaf.special = true
			leaf.nav = []link{s.home.navLink(), hub.navLink()}
			hub.groups = appendLink(hub.groups, ui[s.lang]["articles"], leaf.linkFrom(hub))
			tp.cluster = append(tp.cluster, leaf)
		}
		for i, leaf := range tp.cluster[1:] {
			for _, j := range []int{(i + 1) % n, (i + 2) % n} {
				if j != i {
					sib := tp.cluster[1+j]
					leaf.groups = appendLink(leaf.groups, ui[s.lang]["related"], sib.linkFrom(leaf))
				}
			}
		}
		g.tunnels = append(g.tunnels, tp)
	}
}

// planLinks wires the ordinary pages: navigation inside each site, cross-site
// links between home pages and hubs, portals and trap links.
func (g *generator) planLinks() {
	for _, s := range g.sites {
		g.planSiteLinks(s)
	}
	// Rings keep every home page reachable from any seed; the extra links
	// make on-topic sites a dense neighbourhood and off-topic ones a sparse
	// link to it.
	for i, s := range g.on {
		if len(g.on) > 1 {
			next := g.on[(i+1)%len(g.on)]
			s.home.groups = appendLink(s.home.groups, ui[s.lang]["elsewhere"], next.home.linkFrom(s.home))
		}
		for _, o := range g.others(g.on, s, 2) {
			if hub := mlHub(o); hub != nil {
				s.home.groups = appendLink(s.home.groups, ui[s.lang]["elsewhere"], crossHubLink(s.home, hub))
			}
		}
		if len(g.off) > 0 {
			o := g.off[g.rng.IntN(len(g.off))]
			s.home.groups = appendLink(s.home.groups, ui[s.lang]["elsewhere"], o.home.linkFrom(s.home))
		}
		for _, hub := range s.hubs {
			if hub.theme == 0 && g.rng.Float64() < 0.7 {
				for _, o := range g.others(g.on, s, 1) {
					if oh := mlHub(o); oh != nil {
						hub.groups = appendLink(hub.groups, ui[s.lang]["see"], crossHubLink(hub, oh))
					}
				}
			}
		}
		for _, leaf := range s.leafList {
			if leaf.theme == 0 && g.rng.Float64() < 0.15 {
				for _, o := range g.others(g.on, s, 1) {
					if t := mlLeaf(g, o); t != nil {
						leaf.groups = appendLink(leaf.groups, ui[s.lang]["see"], t.linkFrom(leaf))
					}
				}
			}
		}
	}
	for i, s := range g.off {
		if len(g.off) > 1 {
			next := g.off[(i+1)%len(g.off)]
			s.home.groups = appendLink(s.home.groups, ui[s.lang]["elsewhere"], next.home.linkFrom(s.home))
			for _, o := range g.others(g.off, s, 1) {
				s.home.groups = appendLink(s.home.groups, ui[s.lang]["elsewhere"], o.home.linkFrom(s.home))
			}
		}
		if len(g.on) > 0 && g.rng.Float64() < 0.25 {
			o := g.on[g.rng.IntN(len(g.on))]
			s.home.groups = appendLink(s.home.groups, ui[s.lang]["elsewhere"], o.home.linkFrom(s.home))
		}
		for _, hub := range s.hubs {
			if g.rng.Float64() < 0.3 {
				for _, o := range g.others(g.off, s, 1) {
					oh := o.hubs[g.rng.IntN(len(o.hubs))]
					hub.groups = appendLink(hub.groups, ui[s.lang]["see"], crossHubLink(hub, oh))
				}
			}
		}
		if s.portal {
			for _, o := range g.sites {
				if o != s {
					s.home.groups = appendLink(s.home.groups, ui[s.lang]["directory"], o.home.linkFrom(s.home))
				}
			}
		}
	}
	for _, s := range g.sites {
		if s.traps {
			s.home.groups = appendLink(s.home.groups, ui[s.lang]["more"],
				link{href: "/trap/calendar/2026/01/", anchor: ui[s.lang]["calendar"]})
			first := s.leafList[0]
			first.groups = appendLink(first.groups, ui[s.lang]["more"],
				link{href: "/trap/session/1?sid=abc", anchor: ui[s.lang]["session"]})
		}
	}
}

// planSiteLinks wires home, hubs and leaves of one site.
func (g *generator) planSiteLinks(s *site) {
	home := s.home
	for _, hub := range s.hubs {
		home.groups = appendLink(home.groups, ui[s.lang]["sections"], hub.linkFrom(home))
	}
	if n := len(s.leafList); n > 0 {
		for _, i := range g.rng.Perm(n)[:min(3, n)] {
			home.groups = appendLink(home.groups, ui[s.lang]["featured"], s.leafList[i].linkFrom(home))
		}
	}
	for _, hub := range s.hubs {
		hub.nav = []link{home.navLink()}
		for _, other := range s.hubs {
			if other != hub {
				hub.groups = appendLink(hub.groups, ui[s.lang]["sections"], link{to: other, anchor: other.title})
			}
		}
	}
	for _, hub := range s.hubs {
		leaves := hubLeaves(hub)
		for i, leaf := range leaves {
			leaf.nav = []link{home.navLink(), hub.navLink()}
			// Two or three siblings, one of them woven into the text.
			nSib := min(len(leaves)-1, 2+g.rng.IntN(2))
			for j, k := range g.rng.Perm(len(leaves)) {
				if j >= nSib+1 {
					break
				}
				if k == i {
					continue
				}
				if len(leaf.inline) == 0 {
					leaf.inline = append(leaf.inline, leaves[k].linkFrom(leaf))
				} else {
					leaf.groups = appendLink(leaf.groups, ui[s.lang]["related"], leaves[k].linkFrom(leaf))
				}
			}
			if g.rng.Float64() < 0.2 && len(s.leafList) > len(leaves) {
				t := s.leafList[g.rng.IntN(len(s.leafList))]
				if t.path[:strings.LastIndexByte(t.path, '/')] != leaf.path[:strings.LastIndexByte(leaf.path, '/')] {
					leaf.groups = appendLink(leaf.groups, ui[s.lang]["related"], t.linkFrom(leaf))
				}
			}
		}
	}
}

// hubLeaves returns the leaves a hub lists.
func hubLeaves(hub *page) []*page {
	var out []*page
	for _, gr := range hub.groups {
		for _, l := range gr.links {
			if l.to != nil && l.to.kind == kindLeaf && l.to.site == hub.site {
				out = append(out, l.to)
			}
		}
	}
	return out
}

// others picks up to n distinct sites of list other than s.
func (g *generator) others(list []*site, s *site, n int) []*site {
	var out []*site
	for _, i := range g.rng.Perm(len(list)) {
		if len(out) == n {
			break
		}
		if list[i] != s {
			out = append(out, list[i])
		}
	}
	return out
}

func mlHub(s *site) *page {
	for _, h := range s.hubs {
		if h.theme == 0 {
			return h
		}
	}
	return nil
}

func mlLeaf(g *generator, s *site) *page {
	var ml []*page
	for _, p := range s.leafList {
		if p.theme == 0 {
			ml = append(ml, p)
		}
	}
	if len(ml) == 0 {
		return nil
	}
	return ml[g.rng.IntN(len(ml))]
}

// crossHubLink links to a hub of another site, naming the site too.
func crossHubLink(from, hub *page) link {
	l := hub.linkFrom(from)
	l.anchor = fmt.Sprintf(ui[from.site.lang]["at"], hub.title, hub.site.name)
	return l
}

// planDuplicates gives some ordinary leaves a printer-friendly copy.
func (g *generator) planDuplicates() {
	if !g.cfg.Duplicates {
		return
	}
	var eligible []*page
	for _, s := range g.sites {
		for _, p := range s.leafList {
			if !p.special {
				eligible = append(eligible, p)
			}
		}
	}
	if len(eligible) == 0 {
		return
	}
	n := max(1, len(eligible)/40)
	for _, i := range g.rng.Perm(len(eligible))[:n] {
		p := eligible[i]
		p.copyPath = strings.TrimSuffix(p.path, ".html") + "-print.html"
		// The link is part of the page, so the copy links to itself: the
		// two files stay byte-identical.
		p.groups = appendLink(p.groups, ui[p.site.lang]["more"], link{href: path.Base(p.copyPath), anchor: ui[p.site.lang]["print"]})
		g.dups = append(g.dups, p)
	}
}

// planSeeds picks start URLs: an on-topic home page and an on-topic section
// hub, then the portals.
func (g *generator) planSeeds() {
	if len(g.on) > 0 {
		g.seeds = append(g.seeds, g.on[0].home)
	}
	if len(g.on) > 1 {
		if h := mlHub(g.on[1]); h != nil {
			g.seeds = append(g.seeds, h)
		} else {
			g.seeds = append(g.seeds, g.on[1].home)
		}
	}
	for _, s := range g.off {
		if s.portal {
			g.seeds = append(g.seeds, s.home)
		}
	}
}

// isTarget reports whether p is labelled on-topic.
func (p *page) isTarget() bool {
	return p.theme == 0 && p.kind != kindPrivate
}

// url is p's absolute URL.
func (p *page) url() string { return "http://" + p.site.host + p.path }
