package parse

import (
	"reflect"
	"strings"
	"testing"
)

// The token-stream fallback must read ordinary pages as the tree walk does.
func TestTokenFallbackAgrees(t *testing.T) {
	bodies := []string{
		`<html lang="en"><head><title>T  one</title><base href="/b/"><meta name="robots" content="noindex">
		 <meta name="description" content="d"></head><body><h1>Head</h1>
		 <p>Para <a href="x" title="tt" rel="nofollow">link <img alt="pic"> text</a> more <strong>s</strong>.</p>
		 <script>no()</script><svg><title>no</title><a href="/svg">no</a></svg><template>no</template>
		 <ul><li>one</li><li><a href="/y">two</a></li></ul><map><area href="/area" alt="A"></map>
		 <iframe src="/if">fallback</iframe><!-- c --></body></html>`,
		`<frameset><frame src="a.html"><frame src="b.html"></frameset>`,
		`<p>x</p><svg><a xlink:href="/x" href="/y">t</a><foreignObject><a href="/f">f</a></foreignObject></svg>`,
		`<p>聚焦爬虫根据主题相关性选择要抓取的<a href="/zh">链接</a>，而不是广度优先。</p>`,
		string(benchPage(8 << 10)),
	}
	for _, body := range bodies {
		tree, err := parse(pageURL, []byte(body), Options{}, false)
		if err != nil {
			t.Fatal(err)
		}
		flat, err := parse(pageURL, []byte(body), Options{}, true)
		if err != nil {
			t.Fatal(err)
		}
		// The fallback has no tree: its DOMContext is the ±30-rune Context.
		for i := range flat.Links {
			if l := flat.Links[i]; l.DOMContext != l.Context {
				t.Errorf("fallback DOMContext %q, want Context %q", l.DOMContext, l.Context)
			}
		}
		for i := range tree.Links {
			tree.Links[i].DOMContext = tree.Links[i].Context
		}
		if !reflect.DeepEqual(tree, flat) {
			t.Errorf("fallback differs for %.60q\ntree: %+v\nflat: %+v", body, tree, flat)
		}
	}
}

func TestDeepNesting(t *testing.T) {
	body := `<html><head><title>Old site</title><base href="/base/"></head><body>` +
		strings.Repeat(`<font color="red"><div>`, 600) +
		`<h1>Heading</h1><p>Some <a href="page.html">link text</a> here</p><p>after</p>`
	doc := mustParse(t, body)
	if doc.Title != "Old site" || doc.Emphasis != "Old site Heading" || doc.Anchor != "link text" {
		t.Errorf("Title, Emphasis, Anchor = %q, %q, %q", doc.Title, doc.Emphasis, doc.Anchor)
	}
	if doc.Text != "Heading Some link text here after" || doc.Other != "Some here after" {
		t.Errorf("Text, Other = %q, %q", doc.Text, doc.Other)
	}
	if len(doc.Links) != 1 || doc.Links[0].URL != "http://example.com/base/page.html" || doc.Links[0].Context != "Heading Some here after" {
		t.Errorf("Links = %+v", doc.Links)
	}
	// An unclosed link in a too-deep page must not swallow the rest as anchor text.
	doc = mustParse(t, strings.Repeat("<div>", 600)+`<a href="/a">first<a href="/b">second</a> plain`)
	if doc.Anchor != "first second" || doc.Other != "plain" {
		t.Errorf("Anchor, Other = %q, %q", doc.Anchor, doc.Other)
	}
	// Stray end tags and links in a deep page: each is handled without
	// scanning the whole open-element stack (this input would take minutes
	// if it were).
	n := 20000
	doc = mustParse(t, strings.Repeat("<div>", n)+"start"+strings.Repeat("</span><a href=/x>x</a>", n)+"end")
	if !strings.HasPrefix(doc.Text, "start x x") || !strings.HasSuffix(doc.Text, "x end") || len(doc.Links) != 1 {
		t.Errorf("Text = %.40q...%q, %d links", doc.Text, doc.Text[max(0, len(doc.Text)-10):], len(doc.Links))
	}
}
