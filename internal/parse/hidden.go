package parse

import (
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Hidden content. An element a browser does not render — the `hidden`
// attribute, an inline style with display:none, a <dialog> that is not
// open — holds text no reader sees: modal templates,
// "no results" messages kept for a script, and the classic keyword
// stuffing aimed at search engines. Its text is left out of the page text
// (Text, Anchor, Emphasis, Other), so it neither scores the page nor shows
// in a snippet; its links are still links, with their anchor text and
// context (a drop-down menu is display:none until hovered, and its links
// are as good as the visible ones).
//
// Two exceptions keep a page from losing its content to a script the
// crawler does not run: <html> and <body> are never hidden (a page hidden
// until its script shows it), and when hidden text is most of a page's
// text (hiddenShareKept) the page keeps all of it, as it was before — a
// single-page app's container hidden until it loads is the page.
// `hidden="until-found"` is content the browser finds and shows on a
// search in the page: it counts as visible. Stylesheets are not read: an
// element hidden by a class is text like any other.

// hiddenShareKept is the share of a page's text above which hidden text is
// kept: more than half the page hidden is the page, not an aside.
const hiddenShareKept = 0.5

// hiddenRange is a range of the text buffer written inside a hidden
// element; space says a separator was due before the element, so a space
// the range starts with is the visible gap before it.
type hiddenRange struct {
	start, end int
	space      bool
}

// hiddenElement reports whether n hides its content from a reader.
func hiddenElement(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Html, atom.Body:
		return false
	case atom.Dialog:
		if _, open := attr(n, "open"); !open {
			return true
		}
	}
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "hidden":
			if !strings.EqualFold(strings.TrimSpace(a.Val), "until-found") {
				return true
			}
		case "style":
			if styleHides(a.Val) {
				return true
			}
		}
	}
	return false
}

// styleHides reports whether an inline style's declarations hide the
// element and everything in it: display none, the last display
// declaration winning as in CSS (!important aside). visibility: hidden is
// not read: a child can turn it back on (visibility: visible), so it does
// not hide a subtree.
func styleHides(style string) bool {
	if !strings.Contains(style, ":") {
		return false
	}
	display := ""
	for decl := range strings.SplitSeq(style, ";") {
		prop, val, ok := strings.Cut(decl, ":")
		if !ok || strings.ToLower(strings.TrimSpace(prop)) != "display" {
			continue
		}
		val = strings.ToLower(strings.TrimSpace(val))
		display = strings.TrimSpace(strings.TrimSuffix(val, "!important"))
	}
	return display == "none"
}

// enterHidden and exitHidden track the hidden elements being walked; the
// outermost one's text is one hidden range of the text buffer.
func (w *walker) enterHidden(n *html.Node) {
	if !w.hide || !hiddenElement(n) {
		return
	}
	if w.hiddenDepth == 0 {
		w.hiddenStart, w.hiddenSpace = len(w.text.b), w.text.space
	}
	w.hiddenDepth++
}

func (w *walker) exitHidden(n *html.Node) {
	if w.hiddenDepth == 0 || !hiddenElement(n) {
		return
	}
	if w.hiddenDepth--; w.hiddenDepth == 0 {
		w.endHidden()
	}
}

// endHidden records the hidden range ending here.
func (w *walker) endHidden() {
	if end := len(w.text.b); end > w.hiddenStart {
		w.hiddenSpans = append(w.hiddenSpans, hiddenRange{w.hiddenStart, end, w.hiddenSpace})
		w.hiddenBytes += end - w.hiddenStart
	}
}

// closeHidden ends a hidden range left open at the end of the walk.
func (w *walker) closeHidden() {
	if w.hiddenDepth > 0 {
		w.hiddenDepth = 0
		w.endHidden()
	}
}

// mostlyHidden closes the walk's hidden ranges and reports whether they
// are more than hiddenShareKept of its text.
func (w *walker) mostlyHidden() bool {
	w.closeHidden()
	return float64(w.hiddenBytes) > hiddenShareKept*float64(len(w.text.b))
}

// cutHidden returns text without its hidden ranges (in order, disjoint),
// and spans — link spans, byte ranges of text in order and disjoint —
// moved to match: a span inside a hidden range goes, one crossing its edge
// is cut at it, one left with spaces only goes, and neighbours left with
// only spaces and punctuation between them are joined again (linkSpan's
// rule). A range's first byte is the separator due before its element
// when there was one: it stays when the text after the range does not
// start with one ("foo <span hidden>x</span>bar" reads "foo bar"); a space
// from inside the element goes ("foo<span hidden> x</span>bar" reads
// "foobar", as a browser shows it). It returns too the map of text's
// offsets into the result (offsetMap; nil when nothing is hidden). Time
// O(ranges + spans × log ranges).
func cutHidden(text string, hidden []hiddenRange, spans [][2]int) (string, [][2]int, func(int) int) {
	if len(hidden) == 0 {
		return text, spans, nil
	}
	// Ranges that touch are cut as one (the byte after the first is cut
	// too); the first visible separator among them (a range's space that
	// was due before its element) stays when the text on both sides of
	// the group does not already have one ("foo <span hidden>x</span>bar"
	// reads "foo bar"; so does "foo<span hidden>x</span> <span
	// hidden>y</span>bar"); a space from inside an element goes
	// ("foo<span hidden> x</span>bar" reads "foobar", as a browser shows).
	type group struct{ start, end, space int } // space: -1 for none
	var groups []group
	for _, h := range hidden {
		sp := -1
		if h.space && text[h.start] == ' ' {
			sp = h.start
		}
		if k := len(groups); k > 0 && h.start <= groups[k-1].end {
			g := &groups[k-1]
			g.end = max(g.end, h.end)
			if g.space < 0 {
				g.space = sp
			}
			continue
		}
		groups = append(groups, group{h.start, h.end, sp})
	}
	cut := make([][2]int, 0, len(groups)+1)
	for _, g := range groups {
		if g.space >= 0 && g.start > 0 && text[g.start-1] != ' ' && g.end < len(text) && text[g.end] != ' ' {
			if g.space > g.start {
				cut = append(cut, [2]int{g.start, g.space})
			}
			if g.end > g.space+1 {
				cut = append(cut, [2]int{g.space + 1, g.end})
			}
			continue
		}
		cut = append(cut, [2]int{g.start, g.end})
	}
	var b strings.Builder
	b.Grow(len(text))
	prev := 0
	for _, h := range cut {
		b.WriteString(text[prev:h[0]])
		prev = h[1]
	}
	b.WriteString(text[prev:])
	out := b.String()
	// A text that starts hidden leaves the space before its first visible
	// word at the start.
	lead := len(out) - len(strings.TrimLeft(out, " "))
	out = strings.TrimSpace(out)
	at := offsetMap(cut, lead, len(out))
	var moved [][2]int
	for _, s := range spans {
		st, en := at(s[0]), at(s[1])
		if strings.TrimSpace(out[st:max(st, en)]) == "" {
			continue
		}
		if k := len(moved); k > 0 && st >= moved[k-1][1] && !strings.ContainsFunc(out[moved[k-1][1]:st], isWordRune) {
			moved[k-1][1] = en
			continue
		}
		moved = append(moved, [2]int{st, en})
	}
	return out, moved, at
}

// offsetMap maps an offset of a text into the text with the byte ranges
// cut (in order, disjoint) taken out and lead bytes trimmed at its start,
// n bytes long: back by the bytes cut before it, to the start of a range
// it falls in. O(log ranges) a call, in any order.
func offsetMap(cut [][2]int, lead, n int) func(int) int {
	before := make([]int, len(cut)+1) // bytes cut before range i
	for i, c := range cut {
		before[i+1] = before[i] + c[1] - c[0]
	}
	return func(off int) int {
		i := sort.Search(len(cut), func(i int) bool { return cut[i][0] >= off }) // ranges starting before off: [0, i)
		removed := before[i]
		if i > 0 && off < cut[i-1][1] { // inside range i-1
			off, removed = cut[i-1][0], before[i-1]
		}
		return max(0, min(off-removed-lead, n))
	}
}
