package topic

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// ExamplePage is one example page a topic is bootstrapped from: its URL
// and what the parser found in it.
type ExamplePage struct {
	URL      string
	Title    string
	Headings string // h1/h2/strong text (parse.Document.Emphasis)
	Text     string // the page's prose: its visible text outside links (topicboot.Prose)
}

// Bootstrap defaults (focuscrawl's choices; docs/topic-file.md
// "Bootstrapping a topic").
const (
	DefaultBootstrapKeywords = 20   // keywords kept
	bootstrapMinWeight       = 0.05 // library weights below this are dropped
	bootstrapMaxDescription  = 400  // bytes of description
)

// Bootstrap writes a topic file for example pages: keywords = seed 003's
// TopicLib (KeywordLibrary: the mean TF-IDF weight W_ij over the pages,
// max-normalised, with SampleIDF over the pages themselves) keeping the
// strongest n; description = the pages' distinct titles (or first heading
// when a page has no title); samples = the page URLs; seeds = the URLs'
// site roots, with a commented-out scope of their hosts. A root in
// deadRoots (root → why it could not be fetched) is replaced by the
// examples of its host, and a comment says why. The result is validated
// with Parse, so it is a topic file `starter crawl` accepts. tc must be the
// project's tokenizer (textproc).
func Bootstrap(name, language string, pages []ExamplePage, tc TermCounter, n int, deadRoots map[string]string) ([]byte, error) {
	if len(pages) == 0 {
		return nil, fmt.Errorf("bootstrap: no example page")
	}
	if n <= 0 {
		n = DefaultBootstrapKeywords
	}
	tfs := make([]map[string]int, len(pages))
	for i, p := range pages {
		// Title and headings count twice: they name what the page is about.
		tfs[i] = tc.TermFreq(p.Title + " " + p.Headings + " " + p.Title + " " + p.Headings + " " + p.Text)
		for t := range tfs[i] {
			if !wordLike(t) {
				delete(tfs[i], t)
			}
		}
	}
	lib := KeywordLibrary(tfs, SampleIDF(tfs), 0)
	keywords := map[string]float64{}
	for _, k := range sortedByWeight(lib) {
		if len(keywords) == n || lib[k] < bootstrapMinWeight {
			break
		}
		w, _ := strconv.ParseFloat(strconv.FormatFloat(lib[k], 'f', 2, 64), 64)
		keywords[k] = w
	}
	var desc []string
	seenDesc := map[string]bool{}
	var samples, seeds, hosts []string
	seenSeed, seenHost := map[string]bool{}, map[string]bool{}
	for _, p := range pages {
		d := strings.TrimSpace(p.Title)
		if d == "" {
			d = firstField(p.Headings)
		}
		if d != "" && !seenDesc[d] {
			seenDesc[d] = true
			desc = append(desc, d)
		}
		samples = append(samples, p.URL)
		if u, err := url.Parse(p.URL); err == nil && u.Host != "" {
			seed := u.Scheme + "://" + u.Host + "/"
			if _, dead := deadRoots[seed]; dead {
				// A documentation site often has no page at its root (a
				// manual under a path, a mirror of files): the root as the
				// only seed made a crawl of one 404. The examples were
				// just fetched, and are on the topic.
				seed = p.URL
			}
			if !seenSeed[seed] {
				seenSeed[seed] = true
				seeds = append(seeds, seed)
			}
			// Scope hosts match every port and refuse one.
			if h := strings.ToLower(u.Hostname()); h != "" && !seenHost[h] {
				seenHost[h] = true
				if strings.Contains(h, ":") { // an IPv6 literal is no plain YAML scalar
					h = strconv.Quote(h)
				}
				hosts = append(hosts, h)
			}
		}
	}
	description := strings.Join(desc, "; ")
	if len(description) > bootstrapMaxDescription {
		description = cutRunes(description, bootstrapMaxDescription)
	}
	doc := bootstrapFile{Name: name, Language: language, Description: description,
		Keywords: keywordNodes(keywords), Samples: samples, Seeds: seeds}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	out := []byte("# Bootstrapped from example pages (search topic bootstrap): review the keywords,\n" +
		"# description and seeds before crawling (docs/topic-file.md).\n")
	for _, root := range slices.Sorted(maps.Keys(deadRoots)) {
		out = append(out, "# "+DeadRootNote(root, deadRoots[root])+"\n"...)
	}
	out = append(out, buf.Bytes()...)
	if len(hosts) > 0 {
		// Offered, not set: a topic crawl may follow links to other sites,
		// and that is the default. But a crawl of one documentation site
		// without a scope spent 18% of its budget on its links elsewhere
		// (a trial on the SQLite manual), and the user may not think of it.
		out = fmt.Appendf(out, "# scope: {hosts: [%s]}   # uncomment to keep the crawl on the examples' sites\n",
			strings.Join(hosts, ", "))
	}
	if _, err := Parse(out); err != nil {
		return nil, fmt.Errorf("bootstrap: the generated topic is invalid: %w", err)
	}
	return out, nil
}

// DeadRootNote says, on one line, that a site root could not be fetched
// and the examples on its host are the seeds instead (the draft's comment
// and the command's message).
func DeadRootNote(root, why string) string {
	return fmt.Sprintf("%s could not be fetched (%s): the examples on its host are the seeds instead",
		root, strings.Join(strings.Fields(why), " "))
}

// bootstrapFile is the written topic file, fields in the documented order.
type bootstrapFile struct {
	Name        string    `yaml:"name"`
	Language    string    `yaml:"language"`
	Description string    `yaml:"description,omitempty"`
	Keywords    yaml.Node `yaml:"keywords,omitempty"`
	Samples     []string  `yaml:"samples,omitempty"`
	Seeds       []string  `yaml:"seeds"`
}

// keywordNodes writes the keywords as a mapping by descending weight, so
// the file reads strongest first.
func keywordNodes(kw map[string]float64) yaml.Node {
	n := yaml.Node{Kind: yaml.MappingNode}
	for _, k := range sortedByWeight(kw) {
		v := strconv.FormatFloat(kw[k], 'f', -1, 64)
		if !strings.Contains(v, ".") {
			v += ".0"
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Value: v})
	}
	return n
}

func sortedByWeight(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// wordLike drops terms no one would write as a keyword: numbers and
// one-letter Latin tokens (a single Han character can be a word and stays).
func wordLike(t string) bool {
	letters, han := 0, false
	for _, r := range t {
		if unicode.Is(unicode.Han, r) {
			han = true
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return han || letters >= 2
}

func firstField(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, " | "); i >= 0 {
		s = s[:i]
	}
	return cutRunes(s, 120)
}

// cutRunes cuts s to at most n bytes on a rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}
