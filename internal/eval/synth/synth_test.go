package synth

import (
	"bytes"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/simplifiedchinese"
	"gopkg.in/yaml.v3"

	"focuscrawl/internal/urlnorm"
)

// testConfigs are the shapes every structural invariant is checked on.
func testConfigs() map[string]Config {
	small := DefaultConfig()
	small.Seed, small.Hosts, small.PagesPerHost, small.Tunnels = 7, 5, 12, 2

	plain := DefaultConfig()
	plain.Seed, plain.Hosts, plain.PagesPerHost = 3, 8, 20
	plain.Traps, plain.Duplicates, plain.Tunnels, plain.ChineseShare = false, false, 0, 0

	allGBK := DefaultConfig()
	allGBK.Seed, allGBK.Hosts, allGBK.PagesPerHost = 11, 6, 16
	allGBK.ChineseShare, allGBK.GBKShare, allGBK.OnTopicHosts = 1, 1, 0.5

	one := DefaultConfig()
	one.Seed, one.Hosts, one.PagesPerHost, one.Tunnels = 2, 1, minPagesPerHost, 0

	return map[string]Config{"default": DefaultConfig(), "small": small, "plain": plain, "all-gbk": allGBK, "one-host": one}
}

// shared holds the webs of testConfigs, generated once: several tests read
// them and none writes.
var shared struct {
	once sync.Once
	dir  string
	webs map[string]*Web
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// generate returns the web of cfg, generating it once per test binary.
func generate(t *testing.T, cfg Config) *Web {
	t.Helper()
	shared.once.Do(func() {
		shared.webs = map[string]*Web{}
		if shared.dir, shared.err = os.MkdirTemp("", "synth-test-"); shared.err != nil {
			return
		}
		for name, c := range testConfigs() {
			if shared.webs[name], shared.err = Generate(c, filepath.Join(shared.dir, name)); shared.err != nil {
				return
			}
		}
	})
	if shared.err != nil {
		t.Fatalf("generate test webs: %v", shared.err)
	}
	for _, web := range shared.webs {
		if web.Config == withDefaults(cfg) {
			return web
		}
	}
	web, err := Generate(cfg, t.TempDir())
	if err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	return web
}

// readTree returns every regular file under dir, keyed by slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return files
}

func TestGenerateIsDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	a, b := generate(t, cfg).Dir, t.TempDir()
	if _, err := Generate(cfg, b); err != nil {
		t.Fatal(err)
	}
	fa, fb := readTree(t, a), readTree(t, b)
	if len(fa) != len(fb) {
		t.Fatalf("first run wrote %d files, second %d", len(fa), len(fb))
	}
	for name, data := range fa {
		other, ok := fb[name]
		if !ok {
			t.Errorf("%s written only by the first run", name)
			continue
		}
		if !bytes.Equal(data, other) {
			t.Errorf("%s differs between runs", name)
		}
		sa, _ := os.Stat(filepath.Join(a, name))
		sb, _ := os.Stat(filepath.Join(b, name))
		if !sa.ModTime().Equal(sb.ModTime()) {
			t.Errorf("%s: modification time %v vs %v", name, sa.ModTime(), sb.ModTime())
		}
	}

	cfg.Seed++
	c := t.TempDir()
	if _, err := Generate(cfg, c); err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(fa, readTree(t, c)) {
		t.Error("a different seed produced the same web")
	}
}

func TestLabelsAndManifest(t *testing.T) {
	for name, cfg := range testConfigs() {
		t.Run(name, func(t *testing.T) {
			web := generate(t, cfg)
			data, err := os.ReadFile(filepath.Join(web.Dir, LabelsFile))
			if err != nil {
				t.Fatal(err)
			}
			labels := strings.Fields(string(data))
			if !slices.IsSorted(labels) {
				t.Error("labels.txt is not sorted")
			}
			if !slices.Equal(labels, web.Targets) {
				t.Errorf("labels.txt has %d URLs, manifest %d targets, or they differ", len(labels), len(web.Targets))
			}
			if len(web.Targets) == 0 {
				t.Error("no targets")
			}
			for _, u := range web.Targets {
				if n, err := urlnorm.Normalize(u); err != nil || n != u {
					t.Errorf("target %q is not normalised (%q, %v)", u, n, err)
				}
			}
			loaded, err := Load(web.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(loaded, web) {
				t.Errorf("Load returned\n%+v\nGenerate returned\n%+v", loaded, web)
			}
			if len(web.Sites) != cfg.Hosts || len(web.Hosts) != cfg.Hosts {
				t.Errorf("%d sites, %d hosts for Hosts=%d", len(web.Sites), len(web.Hosts), cfg.Hosts)
			}
			if len(web.Tunnels) != cfg.Tunnels {
				t.Errorf("%d tunnels, want %d", len(web.Tunnels), cfg.Tunnels)
			}
			if cfg.Duplicates != (len(web.Duplicates) > 0) {
				t.Errorf("Duplicates=%v but %d duplicates", cfg.Duplicates, len(web.Duplicates))
			}
		})
	}
}

func TestTopicFile(t *testing.T) {
	web := generate(t, DefaultConfig())
	data, err := os.ReadFile(filepath.Join(web.Dir, TopicFile))
	if err != nil {
		t.Fatal(err)
	}
	var tf topicFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&tf); err != nil {
		t.Fatalf("topic.yaml: %v", err)
	}
	if !slices.Equal(tf.Seeds, web.Seeds) {
		t.Errorf("topic seeds %v, manifest seeds %v", tf.Seeds, web.Seeds)
	}
	for _, kw := range []string{"machine learning", "机器学习", "neural network", "神经网络"} {
		if tf.Keywords[kw] <= 0 {
			t.Errorf("keyword %q missing", kw)
		}
	}
	if tf.Limits.MaxPages <= 0 || tf.Limits.MaxPages > web.Pages {
		t.Errorf("max_pages %d for a web of %d pages", tf.Limits.MaxPages, web.Pages)
	}
}

// graph is the link structure read back from the generated files.
type graph struct {
	files map[string][]byte   // URL -> bytes
	links map[string][]string // URL -> normalised out-links
	trap  map[string]bool     // trap URLs linked from somewhere
}

// loadGraph parses every HTML file of web, the way a crawler would see it.
func loadGraph(t *testing.T, web *Web) *graph {
	t.Helper()
	g := &graph{files: map[string][]byte{}, links: map[string][]string{}, trap: map[string]bool{}}
	for _, host := range web.Hosts {
		for rel, data := range readTree(t, filepath.Join(web.Dir, host)) {
			if !strings.HasSuffix(rel, ".html") {
				continue
			}
			p := "/" + rel
			if strings.HasSuffix(p, "/index.html") {
				p = strings.TrimSuffix(p, "index.html")
			}
			u := "http://" + host + p
			g.files[u] = data
			base, _ := url.Parse(u)
			for _, href := range hrefs(t, data) {
				n, err := urlnorm.Resolve(base, href)
				if err != nil {
					t.Errorf("%s: bad href %q: %v", u, href, err)
					continue
				}
				g.links[u] = append(g.links[u], n)
			}
		}
	}
	return g
}

func hrefs(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	z := html.NewTokenizer(bytes.NewReader(data))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken:
			name, hasAttr := z.TagName()
			for hasAttr && string(name) == "a" {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "href" {
					out = append(out, string(v))
				}
			}
		}
	}
}

func isTrap(u string) bool { return strings.Contains(u, "/trap/") }

// reach walks the graph from the seeds. A page's links are followed only
// while the run of consecutive non-target pages ending at it is at most
// tolerance: tolerance 1 is a focused crawler that tunnels through one
// off-topic page. Trap URLs are leaves.
func (g *graph) reach(t *testing.T, seeds []string, targets map[string]bool, tolerance int) map[string]bool {
	t.Helper()
	best := map[string]int{} // shortest off-topic run a URL was reached with
	type item struct {
		url string
		run int
	}
	var queue []item
	visit := func(u string, parentRun int) {
		run := 0
		if !targets[u] {
			run = parentRun + 1
		}
		if r, ok := best[u]; ok && r <= run {
			return
		}
		best[u] = run
		queue = append(queue, item{u, run})
	}
	for _, s := range seeds {
		visit(s, 0)
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if isTrap(it.url) {
			g.trap[it.url] = true
			continue
		}
		if _, ok := g.files[it.url]; !ok {
			t.Errorf("broken link to %s", it.url)
			continue
		}
		if it.run > tolerance || it.run > best[it.url] {
			continue
		}
		for _, l := range g.links[it.url] {
			visit(l, it.run)
		}
	}
	seen := make(map[string]bool, len(best))
	for u := range best {
		seen[u] = true
	}
	return seen
}

func TestEveryTargetIsReachable(t *testing.T) {
	for name, cfg := range testConfigs() {
		t.Run(name, func(t *testing.T) {
			web := generate(t, cfg)
			g := loadGraph(t, web)
			seen := g.reach(t, web.Seeds, set(web.Targets), len(g.files))
			for _, u := range web.Targets {
				if !seen[u] {
					t.Errorf("target %s is not reachable from the seeds", u)
				}
				if _, ok := g.files[u]; !ok {
					t.Errorf("target %s has no file", u)
				}
			}
			for u := range g.files {
				if !seen[u] {
					t.Errorf("page %s is not linked from anywhere reachable", u)
				}
			}
			if len(g.files) != web.Pages {
				t.Errorf("%d HTML files, manifest says %d pages", len(g.files), web.Pages)
			}
			trapHosts := map[string]bool{}
			for _, s := range web.Sites {
				if s.Traps {
					trapHosts[s.Host] = true
				}
			}
			if cfg.Traps != (len(trapHosts) > 0) {
				t.Errorf("Traps=%v but %d trap hosts", cfg.Traps, len(trapHosts))
			}
			linked := map[string]bool{}
			for u := range g.trap {
				h := urlnorm.Host(u)
				linked[h] = true
				if !trapHosts[h] {
					t.Errorf("trap link %s on a host without traps", u)
				}
			}
			for h := range trapHosts {
				if !linked[h] {
					t.Errorf("trap host %s links to no trap", h)
				}
			}
		})
	}
}

func TestTunnelsNeedTwoOffTopicPages(t *testing.T) {
	for name, cfg := range testConfigs() {
		if cfg.Tunnels == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			web := generate(t, cfg)
			g := loadGraph(t, web)
			targets := set(web.Targets)
			in := map[string][]string{}
			for from, tos := range g.links {
				for _, to := range tos {
					in[to] = append(in[to], from)
				}
			}
			focused := g.reach(t, web.Seeds, targets, 1)
			found := 0
			for _, u := range web.Targets {
				if focused[u] {
					found++
				}
			}
			t.Logf("tolerance 1 reaches %d of %d targets", found, len(web.Targets))
			if found == 0 {
				t.Error("the focused walk finds no target at all, so it proves nothing")
			}
			for i, tun := range web.Tunnels {
				if len(tun.Chain) < 2 {
					t.Errorf("tunnel %d: chain of %d pages", i, len(tun.Chain))
				}
				if targets[tun.Entry] {
					t.Errorf("tunnel %d: entry %s is a target", i, tun.Entry)
				}
				for _, c := range tun.Chain {
					if targets[c] {
						t.Errorf("tunnel %d: chain page %s is a target", i, c)
					}
				}
				cluster := set(tun.Cluster)
				for _, c := range tun.Cluster {
					if !targets[c] {
						t.Errorf("tunnel %d: cluster page %s is not a target", i, c)
					}
					if focused[c] {
						t.Errorf("tunnel %d: %s reachable tunnelling through only one off-topic page", i, c)
					}
					// Every way in comes from an off-topic page whose own
					// in-links all come from off-topic pages.
					for _, u := range in[c] {
						if cluster[u] {
							continue
						}
						if targets[u] {
							t.Errorf("tunnel %d: on-topic page %s links into the cluster", i, u)
						}
						for _, v := range in[u] {
							if targets[v] {
								t.Errorf("tunnel %d: %s -> %s -> cluster passes one off-topic page only", i, v, u)
							}
						}
					}
				}
			}
		})
	}
}

func TestEncodings(t *testing.T) {
	web := generate(t, testConfigs()["all-gbk"])
	dec := simplifiedchinese.GBK.NewDecoder()
	for _, s := range web.Sites {
		raw, err := os.ReadFile(filepath.Join(web.Dir, s.Host, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		text := raw
		switch s.Charset {
		case "gbk":
			if utf8.Valid(raw) {
				t.Errorf("%s: GBK page is valid UTF-8, so it was not encoded", s.Host)
			}
			head := raw[:min(1024, len(raw))]
			if !bytes.Contains(head, []byte(`<meta http-equiv="Content-Type" content="text/html; charset=gbk">`)) {
				t.Errorf("%s: no GBK meta declaration in the first 1024 bytes", s.Host)
			}
			if text, err = dec.Bytes(raw); err != nil {
				t.Fatalf("%s: decode GBK: %v", s.Host, err)
			}
		case "utf-8":
			if !utf8.Valid(raw) || !bytes.Contains(raw, []byte(`<meta charset="utf-8">`)) {
				t.Errorf("%s: not declared, valid UTF-8", s.Host)
			}
		default:
			t.Errorf("%s: charset %q", s.Host, s.Charset)
		}
		if s.Lang != "zh" {
			t.Errorf("%s: language %q with ChineseShare=1", s.Host, s.Lang)
		}
		want := "<title>" + s.Name + "</title>"
		if !bytes.Contains(text, []byte(want)) || !bytes.Contains(text, []byte(`lang="zh-CN"`)) {
			t.Errorf("%s: decoded page lacks %q:\n%s", s.Host, want, text)
		}
	}
}

// TestThemesSeparate checks that the text of target pages is dominated by
// the target vocabulary and that of other pages is not.
func TestThemesSeparate(t *testing.T) {
	web := generate(t, DefaultConfig())
	g := loadGraph(t, web)
	targets := set(web.Targets)
	copies := map[string]bool{}
	for _, d := range web.Duplicates {
		copies[d.Copy] = true
	}
	dec := simplifiedchinese.GBK.NewDecoder()
	gbk := map[string]bool{}
	for _, s := range web.Sites {
		gbk[s.Host] = s.Charset == "gbk"
	}
	var sum [2]float64
	var n [2]int
	for u, data := range g.files {
		if copies[u] || strings.Contains(u, "/private/") {
			continue
		}
		if gbk[urlnorm.Host(u)] {
			data, _ = dec.Bytes(data)
		}
		text := string(data)
		var ml, all int
		for i, th := range themes {
			for _, words := range th.words {
				for _, w := range words {
					c := strings.Count(text, w)
					all += c
					if i == 0 {
						ml += c
					}
				}
			}
		}
		if all == 0 {
			t.Errorf("%s has no theme words", u)
			continue
		}
		k := 0
		if targets[u] {
			k = 1
		}
		sum[k] += float64(ml) / float64(all)
		n[k]++
	}
	off, on := sum[0]/float64(n[0]), sum[1]/float64(n[1])
	t.Logf("mean share of target vocabulary: targets %.2f, other pages %.2f", on, off)
	if on < 0.6 || off > 0.3 {
		t.Errorf("themes do not separate: targets %.2f, other pages %.2f", on, off)
	}
}

func TestRobotsAndDuplicates(t *testing.T) {
	web := generate(t, DefaultConfig())
	private := 0
	for _, s := range web.Sites {
		data, err := os.ReadFile(filepath.Join(web.Dir, s.Host, "robots.txt"))
		if s.Robots != (err == nil) {
			t.Errorf("%s: Robots=%v, robots.txt read error %v", s.Host, s.Robots, err)
		}
		for _, d := range s.Disallow {
			private++
			if !strings.Contains(string(data), "Disallow: "+d+"\n") {
				t.Errorf("%s: robots.txt %q does not disallow %s", s.Host, data, d)
			}
			if _, err := os.Stat(filepath.Join(web.Dir, s.Host, d, "index.html")); err != nil {
				t.Errorf("%s: disallowed %s has no pages: %v", s.Host, d, err)
			}
		}
	}
	if private == 0 {
		t.Error("no host disallows anything")
	}
	for _, u := range web.Targets {
		if strings.Contains(u, "/private/") {
			t.Errorf("disallowed page %s is a target", u)
		}
	}
	targets := set(web.Targets)
	for _, d := range web.Duplicates {
		a, errA := os.ReadFile(urlFile(web, d.Original))
		b, errB := os.ReadFile(urlFile(web, d.Copy))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s and %s differ (%v, %v)", d.Original, d.Copy, errA, errB)
		}
		if targets[d.Copy] {
			t.Errorf("copy %s is a target", d.Copy)
		}
	}
}

func urlFile(web *Web, u string) string {
	pu, _ := url.Parse(u)
	p := pu.Path
	if strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	return filepath.Join(web.Dir, pu.Host, filepath.FromSlash(p))
}

func TestInvalidConfigs(t *testing.T) {
	tests := map[string]func(*Config){
		"negative hosts":        func(c *Config) { c.Hosts = -1 },
		"too few pages":         func(c *Config) { c.PagesPerHost = 3 },
		"share above one":       func(c *Config) { c.ChineseShare = 1.5 },
		"negative share":        func(c *Config) { c.OnTopicHosts = -0.1 },
		"negative tunnels":      func(c *Config) { c.Tunnels = -2 },
		"bad domain":            func(c *Config) { c.Domain = "Ex ample" },
		"tunnels, no off-topic": func(c *Config) { c.OnTopicHosts = 1 },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig()
			mutate(&cfg)
			dir := t.TempDir()
			if _, err := Generate(cfg, dir); err == nil {
				t.Errorf("Generate(%+v) succeeded", cfg)
			}
		})
	}
}

func TestGenerateRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(DefaultConfig(), dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("Generate into a non-empty directory: %v", err)
	}
}

func TestRelHref(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"/", "/models/", "models/"},
		{"/", "/", "./"},
		{"/models/", "/models/p01.html", "p01.html"},
		{"/models/p01.html", "/models/", "./"},
		{"/models/p01.html", "/", "../"},
		{"/models/p01.html", "/training/p02.html", "../training/p02.html"},
		{"/archive/1-1.html", "/collection-1/", "../collection-1/"},
		{"/a/b/c.html", "/a/d/", "../d/"},
	}
	for _, tt := range tests {
		got := relHref(tt.from, tt.to)
		if got != tt.want {
			t.Errorf("relHref(%q, %q) = %q, want %q", tt.from, tt.to, got, tt.want)
		}
		base, _ := url.Parse("http://h" + tt.from)
		if r := base.ResolveReference(&url.URL{Path: got}); r.Path != tt.to {
			t.Errorf("relHref(%q, %q) = %q resolves to %q", tt.from, tt.to, got, r.Path)
		}
	}
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

func BenchmarkGenerateDefault(b *testing.B) {
	for b.Loop() {
		if _, err := Generate(DefaultConfig(), b.TempDir()); err != nil {
			b.Fatal(err)
		}
	}
}
