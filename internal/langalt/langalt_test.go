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
		"Delaware": "", "Installation": "", "": "", "home": "",
	} {
		if got := Named(text); got != want {
			t.Errorf("Named(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestOf: a switcher's links are recognised by hreflang, or by a language
// name in their text or title together with its code in the URL; a name or
// a code alone is not enough.
func TestOf(t *testing.T) {
	cases := []struct {
		name string
		link parse.Link
		want string
	}{
		{"LilyPond: endonym and .fr. in the file name", parse.Link{URL: "http://h/web/development.fr.html", Anchor: "Français"}, "fr"},
		{"Apache: bare code, title, /de/", parse.Link{URL: "http://h/manual/de/ssl/index.html", Anchor: "de", Title: "Deutsch"}, "de"},
		{"hreflang alone decides", parse.Link{URL: "http://h/a", Anchor: "read more", HrefLang: "ja"}, "ja"},
		{"hreflang x-default", parse.Link{URL: "http://h/a", HrefLang: "x-default"}, ""},
		{"query parameter", parse.Link{URL: "http://h/page?id=4&lang=zh_CN", Anchor: "中文"}, "zh"},
		{"name without the code in the URL", parse.Link{URL: "http://h/courses/grammar.html", Anchor: "English"}, ""},
		{"code in the URL, other text", parse.Link{URL: "http://h/states/de.html", Anchor: "Delaware"}, ""},
		{"code only inside a word", parse.Link{URL: "http://h/french-cooking.html", Anchor: "French"}, ""},
	}
	for _, c := range cases {
		if got := Of(c.link); got != c.want {
			t.Errorf("%s: Of = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestForeign(t *testing.T) {
	fr := parse.Link{URL: "http://h/x.fr.html", Anchor: "Français"}
	zh := parse.Link{URL: "http://h/x.zh.html", Anchor: "中文"}
	plain := parse.Link{URL: "http://h/y.html", Anchor: "Next"}
	allowed := []string{"zh", "en"}
	if !Foreign(fr, allowed) || Foreign(zh, allowed) || Foreign(plain, allowed) {
		t.Errorf("with %v: fr %v, zh %v, plain %v; want only fr foreign", allowed, Foreign(fr, allowed), Foreign(zh, allowed), Foreign(plain, allowed))
	}
	if Foreign(fr, nil) {
		t.Error("nothing is foreign when the allowed languages are unknown")
	}
}
