package topic

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"focuscrawl/internal/langalt"
	pageparse "focuscrawl/internal/parse"
	"focuscrawl/internal/textproc/hant"
)

// ExamplePage is one example page a topic is bootstrapped from: its URL
// and what the parser found in it.
type ExamplePage struct {
	URL      string
	Title    string
	Headings string // h1/h2/strong text (parse.Document.Emphasis)
	Text     string // the page's prose: its visible text outside links (topicboot.Prose)
	// Cells are the page's table cells (parse.Document.Cells): their
	// header cells and one-word values are in Text but are not prose
	// (exampleTerms).
	Cells []pageparse.Cell
	// Code is the page's text inside example elements — pre, kbd, samp,
	// var (parse.Document.Code): in Text, but an example's identifiers,
	// not prose (exampleTerms).
	Code string
	// Lang is the page's language as the page says it (its URL's code
	// among its language switcher's, else its <html lang>; a primary
	// subtag), or "".
	Lang string
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
// site roots, with a commented-out scope of their hosts. contrast (may be
// empty) are other pages of the examples' sites, their background: a
// library weight is scaled by the share of contrast pages without the
// term, so a word every page of the site has drops out (SiteWords), and a
// title prefix or suffix the examples share with a contrast page (a
// manual's name, "– Debian Wiki") is left out of the description
// (siteAffixes). Both are focuscrawl's additions to seed 003's library. A root in
// deadRoots (root → why it could not be fetched) is replaced by the
// examples of its host, and a comment says why. The result is validated
// with Parse, so it is a topic file `starter crawl` accepts. tc must be the
// project's tokenizer (textproc).
func Bootstrap(name, language string, pages, contrast []ExamplePage, tc TermCounter, n int, deadRoots map[string]string) ([]byte, error) {
	if len(pages) == 0 {
		return nil, fmt.Errorf("bootstrap: no example page")
	}
	if n <= 0 {
		n = DefaultBootstrapKeywords
	}
	var desc []string
	seenDesc := map[string]bool{}
	var samples, seeds, hosts []string
	seenSeed, seenHost := map[string]bool{}, map[string]bool{}
	prefix, suffix := siteAffixes(pages, contrast)
	for _, p := range pages {
		d := strings.TrimSpace(p.Title)
		// A prefix and suffix that overlap cut nothing, and a cut leaves
		// at least two characters ("SSH - Debian Wiki" → "SSH").
		if len(prefix)+len(suffix) < len(d) {
			if cut := strings.TrimFunc(strings.TrimSuffix(strings.TrimPrefix(d, prefix), suffix), trimmable); utf8.RuneCountInString(cut) >= 2 {
				d = cut
			}
		}
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
	// A word of an example's own title (the site's affixes cut) names what
	// the page is about, whatever other pages of the site say.
	// Not the words of the site's affix, though, when a title has them
	// outside it too ("Apache SSL/TLS Encryption - Apache HTTP Server
	// Version 2.4"): there they are the site's name, and kept at full
	// weight `apache` led the draft of the Apache manual's SSL pages.
	tfs := exampleTerms(pages, tc)
	own := tc.TermFreq(strings.Join(desc, " "))
	for t := range tc.TermFreq(prefix + " " + suffix) {
		delete(own, t)
	}
	lib := SiteWords(KeywordLibrary(tfs, SampleIDF(tfs), 0), exampleTerms(contrast, tc), own)
	// The words that number the site's pages in their titles (第 3 章,
	// Chapter 3.) label a page and say nothing of its subject; as title
	// words SiteWords kept them at full weight, and 章 and 第 were two of
	// a Debian Reference draft's first three keywords.
	for t := range tc.TermFreq(numberingText(titleNumbering(pages, contrast), pages, contrast)) {
		delete(lib, t)
	}
	// The names manuals give the things of their examples (foo, bar) say
	// nothing of their subject, and a page preformatted throughout (vim's
	// help) has its examples in its prose: bla, foo, xxx led a draft of
	// vim's pages on changing text. A title's word (The menu bar) stays.
	for t := range lib {
		if metasyntactic[t] && own[t] == 0 {
			delete(lib, t)
		}
	}
	keywords := map[string]float64{}
	for _, k := range sortedByWeight(lib) {
		if len(keywords) == n || lib[k] < bootstrapMinWeight {
			break
		}
		w, _ := strconv.ParseFloat(strconv.FormatFloat(lib[k], 'f', 2, 64), 64)
		keywords[k] = w
	}
	keywords = inExamplesScript(keywords, pages, tc)
	description := strings.Join(desc, "; ")
	if len(description) > bootstrapMaxDescription {
		description = cutRunes(description, bootstrapMaxDescription)
	}
	if language == "" || language == "auto" {
		language = examplesLanguage(pages)
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

// inExamplesScript writes the keywords as the examples write them when the
// examples are in Traditional Chinese. The tokenizer's terms are
// Simplified (package hant), so a draft of Taiwan pages listed 终端机 for
// the pages' 終端機: right for matching, foreign to its reader. A keyword
// is shown as a run of the examples' text whose characters are its own in
// Simplified (主控台, as the page has it), else in Taiwan standard
// characters (hant.Traditional), and only in a form the tokenizer reads
// back as exactly that term, so the topic scores as with the Simplified
// keyword.
func inExamplesScript(keywords map[string]float64, pages []ExamplePage, tc TermCounter) map[string]float64 {
	var text strings.Builder
	for _, p := range pages {
		text.WriteString(p.Title)
		text.WriteString(" ")
		text.WriteString(p.Headings)
		text.WriteString(" ")
		text.WriteString(p.Text)
		text.WriteString(" ")
	}
	if !hant.MostlyTraditional(text.String()) {
		return keywords
	}
	runes := []rune(text.String())
	simp := make([]rune, len(runes)) // each character in Simplified, where it is one character
	for i, r := range runes {
		simp[i] = r
		if hant.IsTraditional(r) {
			if c := []rune(hant.Simplified(string(r))); len(c) == 1 {
				simp[i] = c[0]
			}
		}
	}
	readsAs := func(shown, term string) bool {
		tf := tc.TermFreq(shown)
		return len(tf) == 1 && tf[term] == 1
	}
	out := make(map[string]float64, len(keywords))
	for _, k := range sortedByWeight(keywords) {
		shown := k
		if t := hant.Traditional(k); t != k {
			if form := formIn(runes, simp, []rune(k)); form != "" && form != k && readsAs(form, k) {
				shown = form
			} else if readsAs(t, k) {
				shown = t
			}
		}
		if _, dup := out[shown]; dup {
			shown = k // two terms cannot share one shown form
		}
		out[shown] = keywords[k]
	}
	return out
}

// formIn returns the first run of runes whose characters in Simplified
// (simp) are term's, or "".
func formIn(runes, simp, term []rune) string {
	for i := 0; i+len(term) <= len(simp); i++ {
		if simp[i] == term[0] && slices.Equal(simp[i:i+len(term)], term) {
			return string(runes[i : i+len(term)])
		}
	}
	return ""
}

// examplesLanguage is the language every example page says it is in, when
// that is one a topic file can name (zh or en), else auto. The language:
// field decides which language switcher links a crawl follows; left auto,
// it is read from the keywords, which a draft of a half-translated
// manual's pages (the Chinese LilyPond manual: English prose, Chinese
// navigation) has in English with too few function words to tell — and
// that crawl spent 17 of 60 fetches on the pages' 11 other translations.
//
// A page that does not say (no <html lang>, no language in its URL) is in
// the language its prose clearly is (langalt.ClearLanguage: Chinese
// characters without kana or Hangul, or English with its function words):
// Debian's manuals mostly carry no lang attribute, and a draft of English
// pages left auto read its keywords alone — names and commands, too few
// function words to tell — so its crawl followed every translation.
func examplesLanguage(pages []ExamplePage) string {
	lang := ""
	for i, p := range pages {
		l := p.Lang
		if l == "" {
			l = langalt.ClearLanguage(p.Title + " " + p.Headings + " " + p.Text)
		}
		if l != "zh" && l != "en" || i > 0 && l != lang {
			return "auto"
		}
		lang = l
	}
	return lang
}

// exampleTerms are the pages' term frequencies as a draft counts them:
// title and headings twice (they name what a page is about), then the
// prose; only word-like terms. A table's labels and values are not prose
// and are left out (dataCell): a manual's package tables repeated 同上
// ("ditto") down their description column and 套件 (package) in every
// header row, and 同上 was a draft's fourth keyword. So are the words of
// its examples' code (pre, kbd, samp, var: the identifiers and
// placeholders of its examples, foo and bar; not inline <code>, which
// names what the prose is about) unless the page is preformatted (codeIsProse),
// and an argument's placeholder in the notation of manuals ({num},
// [count], <file>: placeholderTerms). A word in the page's sentences too
// keeps those occurrences.
func exampleTerms(pages []ExamplePage, tc TermCounter) []map[string]int {
	tfs := make([]map[string]int, len(pages))
	for i, p := range pages {
		text := p.Title + " " + p.Headings + " " + p.Title + " " + p.Headings + " " + p.Text
		tfs[i] = tc.TermFreq(text)
		for _, c := range p.Cells {
			cell := tc.TermFreq(c.Text)
			if !dataCell(c, cell) {
				continue
			}
			subtractTerms(tfs[i], cell)
		}
		placeholders := placeholderTerms(text, tc)
		addresses := matchTerms(addressRE, text, tc)
		if code := tc.TermFreq(p.Code); !codeIsProse(code, tc.TermFreq(p.Text)) {
			subtractTerms(tfs[i], code)
			// A placeholder or an address in code went with it.
			subtractTerms(placeholders, placeholderTerms(p.Code, tc))
			subtractTerms(addresses, matchTerms(addressRE, p.Code, tc))
		}
		subtractTerms(tfs[i], placeholders)
		subtractTerms(tfs[i], addresses)
		for t, n := range tfs[i] {
			if !wordLike(t) || n <= 0 {
				delete(tfs[i], t)
			}
		}
	}
	return tfs
}

// subtractTerms takes the counts of sub from tf's.
func subtractTerms(tf, sub map[string]int) {
	for t, n := range sub {
		tf[t] -= n
	}
}

// codeIsProse reports whether a page's code, whose terms are code, is its
// prose: half of its prose's terms (prose) or more, as on a page
// preformatted throughout — vim's help pages, an RFC, a man page as HTML,
// one <pre> each — where leaving code out would leave nothing. Such a
// page's example placeholders are left out by name (metasyntactic).
func codeIsProse(code, prose map[string]int) bool {
	total := func(tf map[string]int) (n int) {
		for _, k := range tf {
			n += k
		}
		return n
	}
	return 2*total(code) >= total(prose)
}

// placeholderRE is an argument's placeholder as manuals write it, a word
// in braces, brackets or angle brackets — vim's {num} and [count], a man
// page's <file> — a sign or $ before it allowed ([+num]).
var placeholderRE = regexp.MustCompile(`[{\[<][+\-$]?([\p{L}\p{N}_-]+)[}\]>]`)

// placeholderTerms are the terms of text's placeholders (placeholderRE):
// words the user of the manual writes something else for. vim's help
// says {num} and [num] where a number goes, and num led its drafts.
func placeholderTerms(text string, tc TermCounter) map[string]int {
	out := map[string]int{}
	for _, m := range placeholderRE.FindAllStringSubmatch(text, -1) {
		for t, n := range tc.TermFreq(m[1]) {
			out[t] += n
		}
	}
	return out
}

// addressRE is a URL, a mail address or a host name with a common
// top-level domain, as manuals write them in their prose and examples
// ("ping yahoo.com", "see www.debian.org", "mail user@example.org").
//
// A name of one label is an address only under com, net, org, edu or gov
// ("yahoo.com"); under a country code, io or info it needs two labels or
// www ("www.debian.de", "mirrors.ustc.edu.cn"): "java.io", "config.de" and
// "setup.cn" are a package and file names. A mail address needs a
// top-level domain of letters ("react@18.2.0" is a package's version).
var addressRE = regexp.MustCompile(`(?i)\b(?:https?|ftp)://[^\s<>"'()]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b|\b(?:www\.)?[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|net|org|edu|gov)\b|\b(?:www\.[a-z0-9][a-z0-9-]*|[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9-]*)(?:\.[a-z0-9-]+)*\.(?:io|cn|uk|de|jp|fr|info)\b`)

// matchTerms are the terms of text's matches of re. For addressRE: a
// host name's words are no subject of the page — a Debian networking
// chapter's "ping yahoo.com" made com and yahoo keywords of its draft.
func matchTerms(re *regexp.Regexp, text string, tc TermCounter) map[string]int {
	out := map[string]int{}
	for _, m := range re.FindAllString(text, -1) {
		for t, n := range tc.TermFreq(m) {
			out[t] += n
		}
	}
	return out
}

// metasyntactic are the conventional names of the things of an example —
// RFC 3092's ("Etymology of Foo") and the Jargon File's metasyntactic
// variables, the filler words bla, blah, xxx, yyy, zzz, and the Japanese
// (hoge, fuga, piyo) and French (toto, titi, tata, tutu) ones — which a
// manual uses for any subject.
var metasyntactic = map[string]bool{
	"foo": true, "bar": true, "baz": true, "qux": true, "quux": true, "foobar": true,
	"corge": true, "grault": true, "garply": true, "waldo": true, "fred": true,
	"plugh": true, "xyzzy": true, "thud": true,
	"bla": true, "blah": true, "xxx": true, "yyy": true, "zzz": true,
	"hoge": true, "fuga": true, "piyo": true, "toto": true, "titi": true, "tata": true, "tutu": true,
}

// dataCell reports whether a table cell, whose terms are tf, is a label or
// a value rather than prose: a header cell, or a cell of one term (a name,
// "ditto", "yes"). A cell of two words or more ("terminal multiplexer")
// describes something, in words a topic may have.
func dataCell(c pageparse.Cell, tf map[string]int) bool {
	n := 0
	for _, k := range tf {
		n += k
	}
	return c.Header || n <= 1
}

// titleNumbering is the start the examples' titles share with at least
// half of the contrast pages' titles (and two of them, when there are two
// or more), numbers masked as "#" (numberSpans), when a number in it
// differs between those titles: the site's numbering of its pages ("第 #
// 章 " of "第 1 章 GNU/Linux 教學" and "第 2 章 Debian 套件管理",
// "Chapter #. ", "第#章 " of "第一章 安装", "Part #. " of "Part II.
// Setup"), cut after its last space or full-width separator (after the
// measure word of "第#章" in titles without either: "第一章安装"). ""
// when there is none: "Python 3 tutorial" and "Python 3 modules" share a
// number but number nothing.
func titleNumbering(pages, contrast []ExamplePage) string {
	titles, need := backgroundTitles(pages, contrast)
	best := ""
	for _, c := range titles {
		p := maskNumbers(c)
		for _, pg := range pages {
			p = commonPrefix(p, maskNumbers(pg.Title))
		}
		if p = p[:numberingEnd(p)]; len(p) <= len(best) || !strings.Contains(p, "#") {
			continue
		}
		// The titles that share it, and the numbers they have in it.
		numbers := map[string]bool{}
		shared := 0
		for _, t := range titles {
			if strings.HasPrefix(maskNumbers(t), p) {
				shared++
				numbers[leadingNumbers(t, strings.Count(p, "#"))] = true
			}
		}
		for _, pg := range pages {
			numbers[leadingNumbers(pg.Title, strings.Count(p, "#"))] = true
		}
		if shared >= need && len(numbers) > 1 {
			best = p
		}
	}
	return best
}

// numberingText is the text of the titles' numbering, numbering as
// titleNumbering returns it: the start of each example and contrast title
// that has it, unmasked ("第一章 第十二章 Part II. "). Its terms are
// the words to leave out, numbers and all: the tokenizer keeps 第一章 as
// one word, and a Roman numeral (ii) is two letters, a word to it.
func numberingText(numbering string, pages, contrast []ExamplePage) string {
	if numbering == "" {
		return ""
	}
	var b strings.Builder
	for _, pg := range slices.Concat(pages, contrast) {
		if masked, at, _ := maskTitle(pg.Title); strings.HasPrefix(masked, numbering) {
			b.WriteString(pg.Title[:at[len(numbering)]])
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// numberingEnd is where a shared, masked title start p ends as
// numbering: after its last space or full-width separator (：, ｜, 、 —
// a Chinese title has no space after "第#章："); in a title without
// either, after the measure word of its last "第#" (章 of "第#章安");
// 0 when there is no such place.
func numberingEnd(p string) int {
	end := 0
	for i, r := range p {
		if unicode.IsSpace(r) || fullWidthSeparator(r) || r == '、' {
			end = i + utf8.RuneLen(r)
		}
	}
	if i := strings.LastIndex(p, "第#"); end == 0 && i >= 0 && i+len("第#") < len(p) {
		_, n := utf8.DecodeRuneInString(p[i+len("第#"):])
		end = i + len("第#") + n
	}
	return end
}

// maskNumbers replaces each number of s (numberSpans) by "#".
func maskNumbers(s string) string {
	masked, _, _ := maskTitle(s)
	return masked
}

// leadingNumbers is s's first n numbers (numberSpans), joined by spaces.
func leadingNumbers(s string, n int) string {
	_, _, numbers := maskTitle(s)
	return strings.Join(numbers[:min(n, len(numbers))], " ")
}

// maskTitle is s with each number (numberSpans) replaced by "#", where
// each byte of that begins in s (at[i]; at[len(masked)] is len(s)), and
// the numbers.
func maskTitle(s string) (masked string, at []int, numbers []string) {
	var b strings.Builder
	from := 0
	for _, sp := range numberSpans(s) {
		for i := from; i < sp[0]; i++ {
			at = append(at, i)
		}
		b.WriteString(s[from:sp[0]])
		at = append(at, sp[0])
		b.WriteByte('#')
		numbers = append(numbers, s[sp[0]:sp[1]])
		from = sp[1]
	}
	for i := from; i <= len(s); i++ {
		at = append(at, i)
	}
	b.WriteString(s[from:])
	return b.String(), at, numbers
}

// numberSpans are the byte ranges of the numbers in a title, in order:
//   - each run of ASCII digits;
//   - a run of Chinese numerals (一二三…十百千, 〇, 零, 两) after 第, the
//     ordinal prefix (第一章, 第十二节), or before 、, the enumeration comma
//     (一、概述): elsewhere they are words' parts (一般, 统一, 十分);
//   - an upper-case Roman numeral as the title's second word, after the
//     label that it numbers ("Part II.", "Chapter IV"), or as its first
//     word followed by "." or ")" ("IV. Methods"). Elsewhere a Roman
//     numeral is the title's content, a name's part (World War II,
//     Henry VIII, Type II errors are third or later); and a single letter
//     is a numeral only when it is I, V or X (Vitamin C and D are no
//     third and fourth). Letters that number appendices ("Appendix A")
//     are not numbers: a letter after a word is a name (Vitamin A,
//     Type B) as often.
func numberSpans(s string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		j := i + n
		switch {
		case r >= '0' && r <= '9':
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			spans = append(spans, [2]int{i, j})
		case hanNumeral(r):
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if !hanNumeral(r) {
					break
				}
				j += n
			}
			if strings.HasSuffix(s[:i], "第") || strings.HasPrefix(s[j:], "、") {
				spans = append(spans, [2]int{i, j})
			}
		}
		i = j
	}
	if r := romanSpan(s); r[1] > 0 {
		spans = append(spans, r)
		slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	}
	return spans
}

// romanSpan is the byte range of the Roman numeral that numbers title s
// (numberSpans), or {0, 0}.
func romanSpan(s string) [2]int {
	word := func(i int) int { // the end of the run of letters at s[i:]
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsLetter(r) {
				break
			}
			i += n
		}
		return i
	}
	first := word(0)
	if first > 0 && romanNumeral(s[:first]) && first < len(s) && (s[first] == '.' || s[first] == ')') {
		return [2]int{0, first}
	}
	i := first
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if first == 0 || i == first {
		return [2]int{}
	}
	if second := word(i); romanNumeral(s[i:second]) && (second == len(s) || !unicode.IsDigit(rune(s[second]))) {
		return [2]int{i, second}
	}
	return [2]int{}
}

// romanRE is a well-formed upper-case Roman numeral, 1 to 3999.
var romanRE = regexp.MustCompile(`^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$`)

// romanNumeral reports whether w is a Roman numeral that may number a
// page: well formed, and as a single letter I, V or X.
func romanNumeral(w string) bool {
	return w != "" && romanRE.MatchString(w) && (len(w) > 1 || strings.ContainsAny(w, "IVX"))
}

// hanNumeral reports whether r is a Chinese numeral.
func hanNumeral(r rune) bool {
	return strings.ContainsRune("〇零一二三四五六七八九十百千两", r)
}

// SiteWords scales each library weight by the share of the contrast
// pages (the examples' site's background) that lack the term, and
// max-normalises again: a term on every contrast page weighs 0 and is
// dropped, one on none keeps its weight. Terms in keep (the examples'
// own title words) keep their weight: on a site all about the topic
// every page has its words. With no contrast page the library is
// returned unchanged.
func SiteWords(lib map[string]float64, contrast []map[string]int, keep map[string]int) map[string]float64 {
	if len(contrast) == 0 {
		return lib
	}
	n, df := docFreq(contrast)
	out := map[string]float64{}
	maxW := 0.0
	for t, w := range lib {
		if keep[t] == 0 {
			w *= 1 - float64(df[t])/n
		}
		if w > 0 {
			out[t] = w
			maxW = math.Max(maxW, w)
		}
	}
	for t := range out {
		out[t] /= maxW
	}
	return out
}

// siteAffixes is the longest title prefix and suffix every example shares
// with at least half of the contrast pages (and two of them, when there
// are two or more): the site's part of its titles
// ("LilyPond 学习手册: ", " – Debian Wiki"). An affix ends (begins) at a
// separator set off by a space (": ", " - ", " | ") or a full-width one
// ("："): titles "… 2.1 Compiling" and "… 2.3 Errors" share "2." too, which
// is the page's part; "Jean-Paul Sartre" and "Jean-Paul Belmondo" share no
// affix, nor do "Pruning roses" and "Climbing roses" (a space is no
// separator). A contrast page titled as an example (a print view) counts
// for nothing. Empty without such contrast pages.
func siteAffixes(pages, contrast []ExamplePage) (prefix, suffix string) {
	titles, need := backgroundTitles(pages, contrast)
	shared := func(affix string, has func(string, string) bool) bool {
		n := 0
		for _, t := range titles {
			if has(t, affix) {
				n++
			}
		}
		return affix != "" && n >= need
	}
	for _, c := range titles {
		p, s := c, c
		for _, pg := range pages {
			p = commonPrefix(p, pg.Title)
			s = commonSuffix(s, pg.Title)
		}
		if p = prefixAtSeparator(p); len(p) > len(prefix) && shared(p, strings.HasPrefix) {
			prefix = p
		}
		if s = suffixAtSeparator(s); len(s) > len(suffix) && shared(s, strings.HasSuffix) {
			suffix = s
		}
	}
	return prefix, suffix
}

// backgroundTitles are the contrast pages' titles that are not an
// example's (a print view titled as its page counts for nothing), and how
// many of them a part of the examples' titles must be in to be the site's:
// half of them, and two when there are two or more (the title it was
// taken from always has it).
func backgroundTitles(pages, contrast []ExamplePage) (titles []string, need int) {
	own := map[string]bool{}
	for _, pg := range pages {
		own[pg.Title] = true
	}
	for _, c := range contrast {
		if c.Title != "" && !own[c.Title] {
			titles = append(titles, c.Title)
		}
	}
	return titles, max(min(2, len(titles)), (len(titles)+1)/2)
}

// prefixAtSeparator cuts p after its last separator set off by a space (or
// a full-width separator) and the spaces after it; "" without one.
func prefixAtSeparator(p string) string {
	for i := len(p); i > 0; {
		r, n := utf8.DecodeLastRuneInString(p[:i])
		i -= n
		end := i + n
		if fullWidthSeparator(r) || separator(r) && end < len(p) && p[end] == ' ' {
			for end < len(p) && p[end] == ' ' {
				end++
			}
			return p[:end]
		}
	}
	return ""
}

// suffixAtSeparator cuts s before its first separator set off by a space
// (or a full-width separator) and the spaces before it; "" without one. An
// opening bracket after a space starts a suffix too when s ends with its
// closing one: Texinfo's HTML titles a page "Plotting (GNU Octave (version
// 7.3.0))", so every GNU manual's name ended in its drafts' descriptions
// and keywords (gnu, octave, version).
func suffixAtSeparator(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if fullWidthSeparator(r) || separator(r) && i > 0 && s[i-1] == ' ' || bracketSuffix(s, i, r) {
			for i > 0 && s[i-1] == ' ' {
				i--
			}
			return s[i:]
		}
		i += n
	}
	return ""
}

// separator is a rune sites put between a page's title and their own.
func separator(r rune) bool { return strings.ContainsRune(":：-–—|｜·•/»«", r) }

// bracketSuffix reports whether the rune r at s[i:] opens a bracket that
// closes at s's end — its match is s's last rune, brackets nested inside
// it balanced — after a space, or a full-width one (（) anywhere: " (C))"
// of "A (B (C))" is no suffix, " (B (C))" is.
func bracketSuffix(s string, i int, r rune) bool {
	var open, close rune
	switch {
	case r == '(' && i > 0 && s[i-1] == ' ':
		open, close = '(', ')'
	case r == '（':
		open, close = '（', '）'
	default:
		return false
	}
	depth := 0
	for j, c := range s[i:] {
		switch c {
		case open:
			depth++
		case close:
			depth--
		}
		if depth == 0 {
			return i+j+utf8.RuneLen(c) == len(s)
		}
	}
	return false
}

// fullWidthSeparator is a separator that needs no space around it.
func fullWidthSeparator(r rune) bool { return r == '：' || r == '｜' }

// commonPrefix is the longest common prefix of a and b, whole runes.
func commonPrefix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) {
		ra, n := utf8.DecodeRuneInString(a[i:])
		rb, _ := utf8.DecodeRuneInString(b[i:])
		if ra != rb {
			break
		}
		i += n
	}
	return a[:i]
}

// commonSuffix is the longest common suffix of a and b, whole runes.
func commonSuffix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) {
		ra, n := utf8.DecodeLastRuneInString(a[:len(a)-i])
		rb, _ := utf8.DecodeLastRuneInString(b[:len(b)-i])
		if ra != rb {
			break
		}
		i += n
	}
	return a[len(a)-i:]
}

// trimmable is what is left at a title's cut edge: spaces and separators.
func trimmable(r rune) bool { return unicode.IsSpace(r) || separator(r) }

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
