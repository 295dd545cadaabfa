package parse

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDOMContext(t *testing.T) {
	// Distances from the link /t: its li 1, "lead"/"trail" 2; the ul 2, the
	// other li 3 and their text 4, span 4, em 5, "deep" 6; the inner div 3,
	// h3 4, "Heading nearby" 5; the outer div 4, its p 5, "far para" 6.
	list := `<body><div id="outer"><p>far para</p><div><h3>Heading nearby</h3><ul>
		<li>before item</li>
		<li>lead <a href="/t">Target <b>text</b></a> trail</li>
		<li><span><em>deep</em></span> shallow</li>
		<li><a href="/next">Next</a></li>
		</ul></div><p>also far</p></div><div>very far</div></body>`
	tests := []struct {
		name, body, url, want string
	}{
		{"list item", list, "/t", "Heading nearby before item lead trail shallow Next"},
		// From /next (li 1, ul 2, div 3, outer 4, body 5): the li
		// siblings' text at 4, the <b> inside /t's anchor at 6 is out, as
		// are "deep" (6) and the outer div's p text (6).
		{"sibling link", list, "/next", "Heading nearby before item lead Target trail shallow"},
		{"inline parents", `<div><p>Intro <span><i>see <a href="/t">here</a></i></span> end.</p><script>var x = "no";</script><style>p{}</style><p>Next para</p></div>`,
			"/t", "Intro see end."}, // the second p's text is at distance 6
		{"no text around", `<a href="/t">alone</a>`, "/t", ""},
		{"head excluded", `<html><head><title>Title</title></head><body><a href="/t">x</a> after</body></html>`, "/t", "after"},
		{"chinese", `<div><p>无关的远处段落</p><section><h2>相关链接</h2><ul><li><a href="/t">聚焦爬虫</a>：根据主题选择要抓取的链接</li><li><a href="/b">广度优先</a>遍历</li></ul></section></div>`,
			"/t", "相关链接 ：根据主题选择要抓取的链接 广度优先 遍历"},
		{"first occurrence", `<div><p>one <a href="/t">x</a></p></div><div><p>two <a href="/t">y</a></p></div>`, "/t", "one"},
	}
	for _, tt := range tests {
		doc := mustParse(t, tt.body)
		l := findLink(t, doc, "http://example.com"+tt.url)
		if l.DOMContext != tt.want {
			t.Errorf("%s: DOMContext = %q, want %q", tt.name, l.DOMContext, tt.want)
		}
	}
}

// Over 300 runes, the text nearest the link is kept: each side up to half,
// and a short side leaves its share to the other.
func TestDOMContextCap(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("w ", 400))
	doc := mustParse(t, `<p>`+long+` <a href="/t">x</a> tail</p>`)
	l := findLink(t, doc, "http://example.com/t")
	if n := utf8.RuneCountInString(l.DOMContext); n > domContextRunes || n < domContextRunes-1 {
		t.Errorf("DOMContext has %d runes, want about %d", n, domContextRunes)
	}
	if !strings.HasSuffix(l.DOMContext, "w w tail") {
		t.Errorf("DOMContext %q does not end with the text nearest the link", l.DOMContext)
	}
	// Both sides long: half each.
	doc = mustParse(t, `<p>`+long+` <a href="/t">x</a> `+strings.ReplaceAll(long, "w", "v")+`</p>`)
	l = findLink(t, doc, "http://example.com/t")
	before, after, _ := strings.Cut(l.DOMContext, " v")
	if nb, na := utf8.RuneCountInString(before), utf8.RuneCountInString(after)+2; nb > domContextRunes/2 || na > domContextRunes/2 || nb < domContextRunes/2-1 || na < domContextRunes/2-1 {
		t.Errorf("sides have %d and %d runes, want about %d each: %q", nb, na, domContextRunes/2, l.DOMContext)
	}
}

// A page of 5000 links in one list must not make each link scan the list.
func TestDOMContextWideList(t *testing.T) {
	var b strings.Builder
	b.WriteString("<ul>")
	for i := range 5000 {
		b.WriteString(`<li><a href="/p` + strings.Repeat("x", i%7) + `/` + string(rune('a'+i%26)) + `">item</a></li>`)
	}
	b.WriteString("</ul>")
	doc := mustParse(t, b.String())
	for _, l := range doc.Links {
		if utf8.RuneCountInString(l.DOMContext) > domContextRunes {
			t.Fatalf("DOMContext of %s has more than %d runes", l.URL, domContextRunes)
		}
	}
	if len(doc.Links) == 0 || doc.Links[0].DOMContext == "" {
		t.Errorf("wide list: no DOM context: %+v", doc.Links[:min(1, len(doc.Links))])
	}
}
