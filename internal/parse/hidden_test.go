package parse

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestHiddenContent: text no reader sees (the hidden attribute, inline
// display:none, a closed <dialog>) is not page text,
// while its links stay links with their anchor text; <html> and <body> are
// never hidden, hidden="until-found" and the last of two display
// declarations are honoured, and link spans keep pointing at link text.
func TestHiddenContent(t *testing.T) {
	const visible = "and a paragraph of visible words that outweighs the hidden ones"
	cases := []struct {
		name, body, text string
		other            string // Document.Other, when checked
	}{
		{"attribute", `<p>alpha <span hidden>stuffed keywords</span> omega</p>`, "alpha omega", "alpha omega"},
		{"style", `<p>alpha</p><div style="color:red; DISPLAY : none !important">gone</div><p>omega</p>`, "alpha omega", ""},
		// visibility is not read: a child can turn it back on.
		{"visibility", `<div style="visibility:hidden"><p style="visibility:visible">shown</p></div><p>alpha omega</p>`, "shown alpha omega", ""},
		{"space between touching", `<p>alpha<span hidden>x</span> <span hidden>y</span>omega</p>`, "alpha omega", "alpha omega"},
		{"display overridden", `<p>alpha <span style="display:none;display:inline">kept</span> omega</p>`, "alpha kept omega", ""},
		{"visible style", `<p>alpha <span style="display:block">kept</span> omega</p>`, "alpha kept omega", ""},
		{"until-found", `<p>alpha <span hidden="until-found">kept</span> omega</p>`, "alpha kept omega", ""},
		{"dialog closed", `<p>alpha</p><dialog><p>modal text</p></dialog><p>omega</p>`, "alpha omega", ""},
		{"dialog open", `<p>alpha</p><dialog open><p>modal</p></dialog><p>omega</p>`, "alpha modal omega", ""},
		{"nested", `<p>alpha <span hidden>one <span style="display:none">two</span> three</span> omega</p>`, "alpha omega", ""},
		{"start", `<div hidden>first</div><p>alpha omega</p>`, "alpha omega", ""},
		{"end", `<p>alpha omega</p><div hidden>last</div>`, "alpha omega", ""},
		{"glued", `<p>alpha <span hidden>x</span>omega</p>`, "alpha omega", "alpha omega"},
		{"inner space", `<p>alpha<span hidden> x</span>omega</p>`, "alphaomega", "alphaomega"},
		{"touching", `<p>alpha <span hidden>x</span><span hidden>y</span> omega</p>`, "alpha omega", "alpha omega"},
		{"no space", `<p>中文<span hidden>隐藏</span>内容</p>`, "中文内容", ""},
		{"body", `<body style="display:none"><p>alpha omega</p>`, "alpha omega", ""},
	}
	for _, c := range cases {
		// Enough visible text that the hidden is not most of the page.
		doc, err := Parse("http://example.com/", []byte(c.body+"<p>"+visible+"</p>"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Text != c.text+" "+visible {
			t.Errorf("%s: Text %q, want %q", c.name, doc.Text, c.text)
		}
		if c.other != "" && doc.Other != c.other+" "+visible {
			t.Errorf("%s: Other %q, want %q", c.name, doc.Other, c.other)
		}
		// A token stream hides nothing (it does not close <p> or <li> as
		// the tree builder does, and would hide the rest of the page).
		flat, _ := parse("http://example.com/", []byte(c.body+"<p>"+visible+"</p>"), Options{}, true)
		shown, _ := parse("http://example.com/", []byte(unhide(c.body)+"<p>"+visible+"</p>"), Options{}, true)
		if flat.Text != shown.Text {
			t.Errorf("%s: token stream Text %q, want %q as if nothing were hidden", c.name, flat.Text, shown.Text)
		}
	}
}

// TestHiddenLinks: a drop-down menu hidden until hovered keeps its links
// and their anchor text; its text is not page text, and the visible links'
// spans still cover their own text.
func TestHiddenLinks(t *testing.T) {
	body := `<p>Intro text here.</p>
<ul style="display:none"><li><a href="/menu/a">Menu entry</a></li></ul>
<p>See <a href="/guide">the guide</a> for more, and <span hidden>secret <a href="/h">hidden link</a></span> <a href="/faq">FAQ</a>.</p>`
	for _, flat := range []bool{false} {
		doc, err := parse("http://example.com/", []byte(body), Options{}, flat)
		if err != nil {
			t.Fatal(err)
		}
		if want := "Intro text here. See the guide for more, and FAQ ."; doc.Text != want {
			t.Errorf("flat %v: Text %q, want %q", flat, doc.Text, want)
		}
		anchors := map[string]string{}
		for _, l := range doc.Links {
			anchors[l.URL] = l.Anchor
		}
		for u, want := range map[string]string{
			"http://example.com/menu/a": "Menu entry",
			"http://example.com/guide":  "the guide",
			"http://example.com/h":      "hidden link",
			"http://example.com/faq":    "FAQ",
		} {
			if anchors[u] != want {
				t.Errorf("flat %v: link %s anchor %q, want %q (links %v)", flat, u, anchors[u], want, anchors)
			}
		}
		var spans []string
		for _, s := range doc.LinkSpans {
			spans = append(spans, strings.TrimSpace(doc.Text[s[0]:s[1]]))
		}
		if got := strings.Join(spans, "|"); got != "the guide|FAQ" {
			t.Errorf("flat %v: link spans %v = %q, want %q", flat, doc.LinkSpans, got, "the guide|FAQ")
		}
		if strings.Contains(doc.Anchor, "Menu") || strings.Contains(doc.Anchor, "hidden") {
			t.Errorf("flat %v: Anchor %q holds hidden link text", flat, doc.Anchor)
		}
	}
}

// TestHiddenMostOfPage: a page whose content is mostly hidden (an app
// shown by its script) is read as if nothing were hidden — every field as
// for the same page without the hiding style, within the text caps.
func TestHiddenMostOfPage(t *testing.T) {
	body := `<p>Loading</p><div id="app" style="display:none"><h1>Filesystem paths</h1><p>A path names a file.</p><ul><li><a href="/a">Home</a><li><a href="/b">News</a></ul></div>`
	doc, err := Parse("http://example.com/", []byte(body), Options{})
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := Parse("http://example.com/", []byte(unhide(body)), Options{})
	if !reflect.DeepEqual(doc, shown) {
		t.Errorf("mostly hidden page\n%+v\nwant it as shown\n%+v", doc, shown)
	}
	// Within MaxTextBytes, whatever the hidden share.
	big := "<p>" + strings.Repeat("seen ", 8) + "</p><div hidden>" + strings.Repeat("unseen ", 30) + "</div>"
	doc, _ = Parse("http://example.com/", []byte(big), Options{MaxTextBytes: 100})
	for name, f := range map[string]string{"Text": doc.Text, "Other": doc.Other, "Anchor": doc.Anchor, "Emphasis": doc.Emphasis} {
		if len(f) > 100 {
			t.Errorf("%s has %d bytes, MaxTextBytes 100", name, len(f))
		}
	}
}

// TestHiddenSpans: link spans after the hidden text is cut cover link
// text only, and neighbours with only punctuation left between them are
// one span again.
func TestHiddenSpans(t *testing.T) {
	const visible = " <p>and a paragraph of visible words that outweighs the hidden ones</p>"
	for body, want := range map[string]string{
		`<p>foo <span hidden><a href=/a>x</a>y</span>bar</p>`:                          "",
		`<p><a href=/a>Alpha</a> | <span hidden>secret</span> <a href=/b>Beta</a></p>`: "Alpha | Beta",
		`<p>x <a href=/a>Alpha <span hidden>stuffing</span>Beta</a> y</p>`:             "Alpha Beta",
	} {
		doc, err := Parse("http://example.com/", []byte(body+visible), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range doc.LinkSpans {
			got = append(got, strings.TrimSpace(doc.Text[s[0]:s[1]]))
		}
		if strings.Join(got, "|") != want {
			t.Errorf("%s: spans %v = %q of %q, want %q", body, doc.LinkSpans, got, doc.Text, want)
		}
	}
}

// unhide drops the hiding attributes of a test page.
func unhide(body string) string {
	for _, h := range []string{` hidden`, ` style="display:none"`, ` style="color:red; DISPLAY : none !important"`, ` style="visibility:hidden"`} {
		body = strings.ReplaceAll(body, h, "")
	}
	return strings.ReplaceAll(body, "<dialog>", "<dialog open>")
}

func TestStyleHides(t *testing.T) {
	for style, want := range map[string]bool{
		"display:none":                  true,
		" Display : None ; color: red":  true,
		"visibility: collapse":          false,
		"visibility: hidden":            false,
		"display:none!important":        true,
		"display:nonexistent":           false,
		"color:red":                     false,
		"":                              false,
		"display:none; display: flex":   false,
		"background:url(a;display:none": true, // not a CSS parser: a declaration's text is read as such
	} {
		if got := styleHides(style); got != want {
			t.Errorf("styleHides(%q) = %v, want %v", style, got, want)
		}
	}
}

// TestHiddenWordsAreNoContext: a visible link's context is read in the
// visible text, so hidden words beside it (keyword stuffing next to a
// "next" link) are not its context; a hidden link's context is read where
// its text is, among the hidden words around it.
func TestHiddenWordsAreNoContext(t *testing.T) {
	body := `<p>Read the whole story on the <span style="display:none">casino poker jackpot</span><a href="/next">next page</a> of this long article about gardens.</p>
<div hidden>Secret menu: <a href="/menu">roses</a> and tulips</div>
<p>` + strings.Repeat("Plenty of visible words about gardens and flowers. ", 4) + `</p>`
	doc, err := Parse("http://example.com/", []byte(body), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := map[string]string{}
	for _, l := range doc.Links {
		ctx[strings.TrimPrefix(l.URL, "http://example.com")] = l.Context
	}
	if c := ctx["/next"]; strings.Contains(c, "casino") || !strings.Contains(c, "story on the") || !strings.Contains(c, "of this long") {
		t.Errorf("visible link's context %q: want the visible words around it, no hidden ones", c)
	}
	if c := ctx["/menu"]; !strings.Contains(c, "Secret menu") {
		t.Errorf("hidden link's context %q: want the hidden words around it", c)
	}
}

// TestOffsetMap: offsetMap agrees with a byte-by-byte reference on random
// cuts, in any order of offsets.
func TestOffsetMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 1 + rng.IntN(40)
		var cut [][2]int
		for at := rng.IntN(4); at < n; {
			end := min(n, at+1+rng.IntN(5))
			cut = append(cut, [2]int{at, end})
			at = end + 1 + rng.IntN(6)
		}
		// Reference: where offset off lands once the cut bytes are gone.
		ref := func(off int) int {
			kept := 0
			for i := 0; i < off; i++ {
				in := false
				for _, c := range cut {
					if i >= c[0] && i < c[1] {
						in = true
					}
				}
				if !in {
					kept++
				}
			}
			return kept
		}
		removed := 0
		for _, c := range cut {
			removed += c[1] - c[0]
		}
		at := offsetMap(cut, 0, n-removed)
		for off := n; off >= 0; off-- {
			if got, want := at(off), ref(off); got != want {
				t.Fatalf("cuts %v, offset %d: %d, want %d", cut, off, got, want)
			}
		}
	}
}
