package langalt

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"focuscrawl/internal/parse"
)

func TestPrimary(t *testing.T) {
	for tag, want := range map[string]string{
		"fr": "fr", "pt-BR": "pt", "zh_cn": "zh", "zh-Hans": "zh", "EN": "en", "x-default": "",
		"de-": "", "html": "", "index": "", "zh-cn-extra-long": "", "ca": "ca", "": "",
	} {
		if got := Primary(tag); got != want {
			t.Errorf("Primary(%q) = %q, want %q", tag, got, want)
		}
	}
}

func TestNamed(t *testing.T) {
	for text, want := range map[string]string{
		"Français": "fr", " Deutsch ": "de", "日本語": "ja", "中文(简体)": "zh", "简体中文": "zh",
		"[de]": "de", "pt-br": "pt", "English": "en", "Back | Català": "ca",
		"Delaware": "", "Installation": "", "": "", "home": "", "Indonesia": "",
		// As typeset: full-width parentheses, a space before them.
		"中文（简体）": "zh", "中文 (繁體)": "zh", "English (UK)": "en", "Installation (Linux)": "",
	} {
		if got := Named(text); got != want {
			t.Errorf("Named(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestOf: a switcher's links are recognised by hreflang, or by a language
// name in their text or title together with the page's own URL with that
// language's code swapped in; a name alone, or a code in the URL alone, is
// not enough (a reviewer's cases from real sites).
func TestOf(t *testing.T) {
	cases := []struct {
		name, page string
		link       parse.Link
		want       string
	}{
		{"LilyPond: endonym, .zh. → .fr.", "http://h/web/development.zh.html", parse.Link{URL: "http://h/web/development.fr.html", Anchor: "Français"}, "fr"},
		{"LilyPond: a name without its diacritics", "http://h/web/development.zh.html", parse.Link{URL: "http://h/web/development.cs.html", Anchor: "Cesky"}, "cs"},
		{"LilyPond: the page's code removed, English", "http://h/web/development.zh.html", parse.Link{URL: "http://h/web/development.html", Anchor: "English"}, "en"},
		{"a code removed, but named as the page's own", "http://h/web/development.zh.html", parse.Link{URL: "http://h/web/development.html", Anchor: "中文"}, ""},
		{"a token removed that is no code", "http://h/web/development.old.html", parse.Link{URL: "http://h/web/development.html", Anchor: "English"}, ""},
		{"code inserted before the extension", "http://h/web/development.html", parse.Link{URL: "http://h/web/development.ja.html", Anchor: "日本語"}, "ja"},
		{"Apache: bare code and title, /en/ → /de/", "http://h/docs/2.4/en/ssl/index.html", parse.Link{URL: "http://h/docs/2.4/de/ssl/index.html", Anchor: "de", Title: "Deutsch"}, "de"},
		{"host label", "https://en.wikipedia.org/wiki/Rose", parse.Link{URL: "https://fr.wikipedia.org/wiki/Rose", Anchor: "Français"}, "fr"},
		{"lang query value", "http://h/page?id=4&lang=en", parse.Link{URL: "http://h/page?id=4&lang=zh_CN", Anchor: "中文"}, "zh"},
		{"hreflang alone decides", "http://h/b", parse.Link{URL: "http://h/a", Anchor: "read more", HrefLang: "ja"}, "ja"},
		{"hreflang x-default", "http://h/b", parse.Link{URL: "http://h/a", HrefLang: "x-default"}, ""},
		{"name, no code in the URL", "http://h/index.html", parse.Link{URL: "http://h/courses/grammar.html", Anchor: "English"}, ""},
		{"code in the URL, other text", "http://h/states/ny.html", parse.Link{URL: "http://h/states/de.html", Anchor: "Delaware"}, ""},
		{"bare code, but the page's token is no language", "https://en.wikipedia.org/wiki/Foo", parse.Link{URL: "https://en.wikipedia.org/wiki/Vi", Anchor: "vi"}, ""},
		{"a manual page named like a code", "https://manpages.debian.org/bookworm/coreutils/ls.1.en.html", parse.Link{URL: "https://manpages.debian.org/bookworm/coreutils/tr.1.en.html", Anchor: "tr"}, ""},
		{"query key, not a language", "http://h/users", parse.Link{URL: "http://h/users?sort=id", Anchor: "ID"}, ""},
		{"a course under a code", "http://h/courses/index.html", parse.Link{URL: "http://h/courses/fr/grammar", Anchor: "French"}, ""},
		{"two tokens differ", "http://h/en/a.html", parse.Link{URL: "http://h/de/b.html", Anchor: "Deutsch"}, ""},
	}
	for _, c := range cases {
		if got := Of(c.link, c.page); got != c.want {
			t.Errorf("%s: Of = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestForeign(t *testing.T) {
	const page = "http://h/x.en.html"
	fr := parse.Link{URL: "http://h/x.fr.html", Anchor: "Français"}
	zh := parse.Link{URL: "http://h/x.zh.html", Anchor: "中文"}
	plain := parse.Link{URL: "http://h/y.html", Anchor: "Next"}
	allowed := []string{"zh", "en"}
	if !Foreign(fr, page, allowed) || Foreign(zh, page, allowed) || Foreign(plain, page, allowed) {
		t.Errorf("with %v: fr %v, zh %v, plain %v; want only fr foreign", allowed,
			Foreign(fr, page, allowed), Foreign(zh, page, allowed), Foreign(plain, page, allowed))
	}
	if Foreign(fr, page, nil) {
		t.Error("nothing is foreign when the allowed languages are unknown")
	}
}

// TestOwn: a page's language as its switcher shows it (a user trial: the
// Chinese LilyPond manual's untranslated pages read as English and have no
// <html lang>, but are x.zh.html among x.de.html, x.fr.html…).
func TestOwn(t *testing.T) {
	lily := "http://h/web/manuals.zh.html"
	switcher := []parse.Link{
		{URL: "http://h/web/text-input.zh.html", Anchor: "文本输入"},
		{URL: "http://h/web/manuals.html", Anchor: "English"}, // the page's code removed
		{URL: "http://h/web/manuals.de.html", Anchor: "Deutsch"},
		{URL: "http://h/web/manuals.fr.html", Anchor: "Francais"},
	}
	apache := "http://h/docs/2.4/en/ssl/index.html"
	for _, c := range []struct {
		name, page string
		links      []parse.Link
		want       string
	}{
		{"LilyPond switcher", lily, switcher, "zh"},
		{"one alternate is no switcher", lily, switcher[:2], ""},
		{"hreflang and a bare code", apache, []parse.Link{
			{URL: "http://h/docs/2.4/de/ssl/index.html", HrefLang: "de"},
			{URL: "http://h/docs/2.4/fr/ssl/index.html", Anchor: "fr"}}, "en"},
		{"alternates disagree on the page's code", "http://h/en/x.zh.html", []parse.Link{
			{URL: "http://h/de/x.zh.html", Anchor: "Deutsch"},
			{URL: "http://h/en/x.fr.html", Anchor: "Français"}}, ""},
		{"no code in the page's URL", "http://h/x.html", []parse.Link{
			{URL: "http://h/x.de.html", Anchor: "Deutsch"},
			{URL: "http://h/x.fr.html", Anchor: "Français"}}, ""},
		{"names without swapped URLs", "http://h/index.html", []parse.Link{
			{URL: "http://h/courses/grammar.html", Anchor: "English"},
			{URL: "http://h/courses/fr.html", Anchor: "French"}}, ""},
	} {
		if got := Own(c.page, c.links); got != c.want {
			t.Errorf("%s: Own = %q, want %q", c.name, got, c.want)
		}
	}
}

// BenchmarkOwn: a page's language from its links, once per page in link
// prediction — 500 links, a switcher of 12 among them.
func BenchmarkOwn(b *testing.B) {
	page := "http://h/web/manuals.zh.html"
	var links []parse.Link
	for i := range 488 {
		links = append(links, parse.Link{URL: fmt.Sprintf("http://h/web/page-%d.zh.html", i), Anchor: fmt.Sprintf("Section %d: templates", i)})
	}
	for _, l := range []string{"ca", "cs", "de", "es", "fr", "hu", "it", "ja", "nl", "pt", "en", "ko"} {
		links = append(links, parse.Link{URL: "http://h/web/manuals." + l + ".html", Anchor: languages[l][0]})
	}
	b.ReportAllocs()
	for b.Loop() {
		if Own(page, links) != "zh" {
			b.Fatal("wrong language")
		}
	}
}

// namedReference is Named without its ASCII fast path: every part
// lower-cased and run through every rule.
func namedReference(text string) string {
	for _, part := range strings.Split(text, " | ") {
		p := strings.ToLower(strings.TrimSpace(part))
		if code, ok := byName[p]; ok {
			return code
		}
		if i := strings.IndexAny(p, "(（"); i > 0 {
			if code, ok := byName[strings.TrimSpace(p[:i])]; ok {
				return code
			}
		}
		p = strings.TrimFunc(p, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) })
		if p == "" {
			continue
		}
		if code, ok := byName[p]; ok {
			return code
		}
		if len(p) <= 7 {
			if code := Primary(p); code != "" {
				return code
			}
		}
	}
	return ""
}

// TestNamedFastPath: the ASCII fast path decides as every rule would
// (parts longer than any name aside).
func TestNamedFastPath(t *testing.T) {
	for _, s := range []string{"Deutsch", "DEUTSCH", " english ", "[de]", "de", "pt-BR", "zh_CN", "English (US)",
		"English(US)", "Section 12", "Next", "français", "Francais", "中文（简体）", "中文 (简体)", "Cesky", "x(y)", "(de)",
		"de:", "« français »", "Home | Deutsch", "Next | Prev", "Magyar", "Bahasa Indonesia", "bahasa-indonesia",
		"Português do Brasil", "read more", "de-DE-1996", "en-us", "ES", "Español", "日本語", "日本語 | English", "",
		"a", "templates", "Tiếng Việt", "srpski", "Norsk bokmål"} {
		if got, want := Named(s), namedReference(s); got != want {
			t.Errorf("Named(%q) = %q, every rule says %q", s, got, want)
		}
	}
}

func FuzzNamed(f *testing.F) {
	for _, s := range []string{"Deutsch", "[de]", "pt-BR", "English (US)", "Section 12", "中文（简体）", "« français »"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > maxNamed {
			return // skipped by design, whatever it says
		}
		if got, want := Named(s), namedReference(s); got != want {
			t.Errorf("Named(%q) = %q, every rule says %q", s, got, want)
		}
	})
}
