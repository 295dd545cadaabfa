package langalt

import (
	"testing"

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
