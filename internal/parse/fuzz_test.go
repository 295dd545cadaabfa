package parse

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"focuscrawl/internal/urlnorm"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		`<a href="/x">x</a>`,
		`<base href="//other.org/"><a href="y">y</a><area href="z" alt="z"><iframe src="f"></iframe>`,
		`<p>a</p><p>b <a href="javascript:x">j</a> <a href="mailto:m">m</a></p>`,
		`<frameset><frame src="a"></frameset>`,
		"<title>t</title>\xff\xfe<a href=\"\xc3\x28\">bad</a>",
		strings.Repeat("<div>", 600) + `<a href="/deep">d</a>`,
		`<svg><a href="/s">s</a></svg><template><a href="/t">t</a></template>`,
		`<p>x</p><noscript><a href="/n">n</a><noscript><a href="/nn">nn</a></noscript><img src="/px.gif"></noscript>&amp;`,
		`<a href="http://[::1]:80/x">v6</a><a href="HTTPS://EXAMPLE.com:443/%7e">e</a>`,
		string(benchPage(4 << 10)),
		`a <span hidden>h <a href="/m">menu</a></span>b<div style="display:none"><p>x</div><dialog><a href="/d">d</a></dialog> <a href="/v">v</a>`,
		`<div hidden>` + strings.Repeat("hidden words ", 20) + `<a href="/x">x</a></div> seen <a href="/y">y</a>`,
	} {
		f.Add("http://example.com/dir/page.html", []byte(s))
	}
	f.Add("https://例子.测试/路径", []byte(`<a href="相对">x</a>`))
	f.Add("http://example.com/", []byte(`<a href="t.php?q=错误&r=😀#片段?x">t</a>`))
	f.Fuzz(func(t *testing.T, page string, body []byte) {
		// Half the inputs are read as a page decoded from GBK, whose links'
		// queries are percent-encoded in GBK (urlnorm.ResolveEncoding).
		charset := ""
		if len(body)%2 == 1 {
			charset = "gbk"
		}
		doc, err := Parse(page, body, Options{MaxLinks: 50, MaxTextBytes: 4096, Charset: charset})
		if err != nil {
			return // an unusable page URL is the only error
		}
		for _, s := range []string{doc.Text, doc.Anchor, doc.Emphasis, doc.Other, doc.Title} {
			if !utf8.ValidString(s) || len(s) > 4096 {
				t.Fatalf("text field %q: invalid UTF-8 or over the limit", s)
			}
		}
		for i, sp := range doc.LinkSpans {
			if sp[0] >= sp[1] || sp[1] > len(doc.Text) || i > 0 && sp[0] < doc.LinkSpans[i-1][1] {
				t.Fatalf("link spans %v not ordered, disjoint and inside the text (%d bytes)", doc.LinkSpans, len(doc.Text))
			}
		}
		if len(doc.Links) > 50 {
			t.Fatalf("%d links, MaxLinks 50", len(doc.Links))
		}
		seen := map[string]bool{}
		for _, l := range doc.Links {
			u, err := url.Parse(l.URL)
			if err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				t.Fatalf("link %q is not an absolute http(s) URL", l.URL)
			}
			if again, err := urlnorm.Normalize(l.URL); err != nil || again != l.URL {
				t.Fatalf("link %q normalises to %q (%v): a second key for it", l.URL, again, err)
			}
			if seen[l.URL] {
				t.Fatalf("link %q listed twice", l.URL)
			}
			seen[l.URL] = true
			if n := len(l.Context); n > 2*contextBytes+1 {
				t.Fatalf("context %q has %d bytes", l.Context, n)
			}
			if n := utf8.RuneCountInString(l.DOMContext); n > domContextRunes || !utf8.ValidString(l.DOMContext) {
				t.Fatalf("DOM context %q has %d runes", l.DOMContext, n)
			}
		}
	})
}
