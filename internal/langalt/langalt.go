// Package langalt recognises a site's language switcher: the links from a
// page to its own translations ("Français", "Deutsch", "日本語", or "de |
// en | fr"). On a multilingual site every page carries one, and a crawl that
// follows them spends its budget on the same pages in languages its topic
// is not written in: a user trial on the LilyPond manual (Chinese topic,
// every page linking its 13 translations) spent 48% of its fetches there.
//
// A link is a language alternate when it says so (hreflang), or when its
// text or title names a language and its URL is the linking page's own URL
// with that language's code swapped in: one host label, path segment or
// file-name part replaced by it where the page's URL has another language's
// code (/en/ssl/ → /de/ssl/, x.zh.html → x.fr.html, en.wikipedia.org →
// fr.wikipedia.org), inserted (x.html → x.fr.html), or the value of a
// lang-like query parameter (?lang=ja). A name alone is not enough — a link
// named "English" may lead to a grammar course — nor a code in a URL alone:
// /wiki/Vi, tr.1.en.html, ?sort=id. focuscrawl's design; no seed document
// covers it (docs/algorithms.md, "Language alternates").
package langalt

import (
	"bytes"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"focuscrawl/internal/parse"
)

// languages maps each ISO 639-1 code recognised to the names a language
// switcher labels it with: its endonyms and its English name, lower-cased.
var languages = map[string][]string{
	"af": {"afrikaans"}, "ar": {"العربية", "عربي", "arabic"}, "bg": {"български", "bulgarian"},
	"bn": {"বাংলা", "bengali"}, "ca": {"català", "catala", "catalan"}, "cs": {"čeština", "česky", "cestina", "cesky", "czech"},
	"da": {"dansk", "danish"}, "de": {"deutsch", "german"}, "el": {"ελληνικά", "greek"},
	"en": {"english"}, "eo": {"esperanto"}, "es": {"español", "espanol", "castellano", "spanish"},
	"et": {"eesti", "estonian"}, "eu": {"euskara", "basque"}, "fa": {"فارسی", "persian", "farsi"},
	"fi": {"suomi", "finnish"}, "fr": {"français", "francais", "french"}, "ga": {"gaeilge", "irish"},
	"gl": {"galego", "galician"}, "he": {"עברית", "hebrew"}, "hi": {"हिन्दी", "हिंदी", "hindi"},
	"hr": {"hrvatski", "croatian"}, "hu": {"magyar", "hungarian"}, "hy": {"հայերեն", "armenian"},
	"id": {"bahasa indonesia", "indonesian"}, "is": {"íslenska", "icelandic"},
	"it": {"italiano", "italian"}, "ja": {"日本語", "japanese"}, "ka": {"ქართული", "georgian"},
	"kk": {"қазақ тілі", "қазақша", "kazakh"}, "ko": {"한국어", "korean"}, "lt": {"lietuvių", "lithuanian"},
	"lv": {"latviešu", "latvian"}, "mk": {"македонски", "macedonian"}, "ml": {"മലയാളം", "malayalam"},
	"mr": {"मराठी", "marathi"}, "ms": {"bahasa melayu", "malay"}, "nb": {"norsk bokmål", "bokmål"},
	"nl": {"nederlands", "dutch"}, "nn": {"nynorsk"}, "no": {"norsk", "norwegian"},
	"pa": {"ਪੰਜਾਬੀ", "punjabi"}, "pl": {"polski", "polish"},
	"pt": {"português", "portugues", "português do brasil", "português brasileiro", "portuguese"},
	"ro": {"română", "romana", "romanian"}, "ru": {"русский", "russian"}, "sk": {"slovenčina", "slovensky", "slovak"},
	"sl": {"slovenščina", "slovenian"}, "sq": {"shqip", "albanian"}, "sr": {"српски", "srpski", "serbian"},
	"sv": {"svenska", "swedish"}, "ta": {"தமிழ்", "tamil"}, "te": {"తెలుగు", "telugu"},
	"th": {"ไทย", "thai"}, "tr": {"türkçe", "turkce", "turkish"}, "uk": {"українська", "ukrainian"},
	"ur": {"اردو", "urdu"}, "vi": {"tiếng việt", "vietnamese"},
	"zh": {"中文", "简体中文", "繁體中文", "繁体中文", "中文(简体)", "中文(繁體)", "汉语", "漢語", "chinese",
		"simplified chinese", "traditional chinese"},
}

// asciiLower appends s lower-cased to dst when s is ASCII and fits dst's
// capacity; ok is false otherwise.
func asciiLower(s string, dst []byte) (out []byte, ok bool) {
	if len(s) > cap(dst) {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return nil, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst, true
}

func asciiAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// parenAt is the index of p's first opening parenthesis, ASCII or
// full-width, or -1 (strings.IndexAny walks runes: a third of Named's time).
func parenAt(p string) int {
	i := strings.IndexByte(p, '(')
	if j := strings.Index(p, "（"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	return i
}

// maxNamed is the longest link text part (bytes) Named reads: the longest
// name in languages with room for the decoration it strips ("« … »",
// "[ … ]", a region in parentheses).
var maxNamed = func() int {
	n := 0
	for _, names := range languages {
		for _, name := range names {
			n = max(n, len(name))
		}
	}
	return n + 32
}()

// byName maps every name in languages to its code.
var byName = func() map[string]string {
	m := map[string]string{}
	for code, names := range languages {
		for _, n := range names {
			m[n] = code
		}
	}
	return m
}()

// Primary returns the primary language subtag of a language tag or URL
// token ("pt-BR", "zh_cn", "fr") when it is a code this package knows and
// the rest looks like a region or script subtag, else "".
func Primary(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	head, rest, found := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	if _, ok := languages[head]; !ok {
		return ""
	}
	if !found {
		return head
	}
	subs := strings.Split(rest, "-")
	if len(subs) > 2 {
		return ""
	}
	for _, sub := range subs {
		if len(sub) < 2 || len(sub) > 4 || !alnum(sub) {
			return ""
		}
	}
	return head
}

// Named returns the code of the language a link text names — an endonym,
// an English name or a bare tag ("de", "pt-br") — or "". A repeated link's
// texts (" | "-joined by the parser) are read one by one.
func Named(text string) string {
	var buf [64]byte
	for part := range strings.SplitSeq(text, " | ") {
		if len(part) > maxNamed {
			continue // no language name is this long: most link texts end here
		}
		part = strings.TrimSpace(part)
		// Plain ASCII text is looked up lower-cased in a stack buffer, and
		// when none of the rules below can apply to it — no parenthesis,
		// nothing to trim at its edges, longer than a bare tag — it is no
		// name: the common case (a link text), without an allocation.
		if lw, ok := asciiLower(part, buf[:0]); ok {
			if code, ok := byName[string(lw)]; ok {
				return code
			}
			if len(lw) > 7 && bytes.IndexByte(lw, '(') < 0 && asciiAlnum(lw[0]) && asciiAlnum(lw[len(lw)-1]) {
				continue
			}
		}
		p := strings.ToLower(part)
		if code, ok := byName[p]; ok { // "中文(简体)" keeps its parentheses
			return code
		}
		// As typeset: full-width parentheses, a space before them
		// ("中文（简体）", "中文 (简体)"); the name before them is the
		// language's.
		if i := parenAt(p); i > 0 {
			if code, ok := byName[strings.TrimSpace(p[:i])]; ok {
				return code
			}
		}
		// "[de]", "Deutsch:", "« français »"
		p = strings.TrimFunc(p, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) })
		if p == "" {
			continue
		}
		if code, ok := byName[p]; ok {
			return code
		}
		if len(p) <= 7 { // a bare tag: "de", "pt-br", "zh-hans"
			if code := Primary(p); code != "" {
				return code
			}
		}
	}
	return ""
}

// Of returns the language of the page a link found on page leads to when
// the link is a language alternate (see the package comment), else "".
func Of(l parse.Link, page string) string {
	if l.HrefLang != "" {
		return Primary(l.HrefLang)
	}
	code := Named(l.Anchor)
	if code == "" {
		code = Named(l.Title)
	}
	if code == "" || !swapped(page, l.URL, code) {
		return ""
	}
	return code
}

// langKeys are the query parameters that name a page's language.
var langKeys = map[string]bool{"lang": true, "hl": true, "locale": true, "language": true, "lng": true, "lc": true, "uselang": true}

// tokens splits a URL into its host labels, its path's segments and
// file-name parts, and its query parameters ("key=value", or the value
// alone for a lang-like key), in order.
func tokens(u string) []string {
	pu, err := url.Parse(u)
	if err != nil {
		return nil
	}
	out := strings.Split(strings.ToLower(pu.Hostname()), ".")
	out = append(out, strings.FieldsFunc(strings.ToLower(pu.EscapedPath()), func(r rune) bool { return r == '/' || r == '.' })...)
	q := pu.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range q[k] {
			if langKeys[strings.ToLower(k)] {
				out = append(out, strings.ToLower(v))
			} else {
				out = append(out, k+"="+v)
			}
		}
	}
	return out
}

// swapped reports whether link is page's URL with code swapped in: one
// token replaced, where page has another language's code, or inserted; or
// page's code removed (the site's default language has none).
func swapped(page, link, code string) bool {
	ok, _ := swap(page, link, code)
	return ok
}

// swap is swapped, and the language code page's URL has where link's has
// code, or had before it was removed ("" when code is inserted).
func swap(page, link, code string) (ok bool, own string) {
	a, b := tokens(page), tokens(link)
	if len(a) == 0 || len(b) == 0 {
		return false, ""
	}
	switch len(b) - len(a) {
	case 0:
		diff := -1
		for i := range a {
			if a[i] != b[i] {
				if diff >= 0 {
					return false, ""
				}
				diff = i
			}
		}
		if diff >= 0 && Primary(b[diff]) == code && Primary(a[diff]) != "" {
			return true, Primary(a[diff])
		}
	case 1:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return Primary(b[i]) == code && slices.Equal(a[i:], b[i+1:]), ""
	case -1: // removed: a site's default language has no code (x.zh.html → x.html, "English")
		i := 0
		for i < len(b) && a[i] == b[i] {
			i++
		}
		if own := Primary(a[i]); own != "" && own != code && slices.Equal(a[i+1:], b[i:]) {
			return true, own
		}
	}
	return false, ""
}

// Own returns the language page is in as its language switcher shows it:
// the code its URL carries where the switcher's links carry theirs
// (x.zh.html among x.de.html, x.fr.html…), when at least two of links are
// such alternates and they agree; else "". A page's URL says what its
// translators named it, which its <html lang> (often missing on static
// manuals) and the language of its text (an untranslated chapter of a
// Chinese manual reads as English) do not.
func Own(page string, links []parse.Link) string {
	own, n := "", 0
	for _, l := range links {
		code := Primary(l.HrefLang)
		if code == "" {
			code = Named(l.Anchor)
		}
		if code == "" {
			code = Named(l.Title)
		}
		if code == "" {
			continue
		}
		ok, c := swap(page, l.URL, code)
		if !ok || c == "" {
			continue
		}
		if own != "" && c != own {
			return ""
		}
		own, n = c, n+1
	}
	if n < 2 {
		return ""
	}
	return own
}

// Foreign reports whether l, found on page, leads to a translation of it into a
// language not in allowed (codes as Primary returns them). With allowed
// empty nothing is foreign: a crawl that cannot tell its topic's language
// follows every link.
func Foreign(l parse.Link, page string, allowed []string) bool {
	if len(allowed) == 0 {
		return false
	}
	lang := Of(l, page)
	if lang == "" {
		return false
	}
	for _, a := range allowed {
		if a == lang {
			return false
		}
	}
	return true
}

func alnum(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}
