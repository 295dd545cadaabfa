package parse

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Hidden content. An element a browser does not render — the `hidden`
// attribute, an inline style with display:none or visibility:hidden, a
// <dialog> that is not open — holds text no reader sees: modal templates,
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
// element: display none, or visibility hidden or collapse, the last
// declaration of each property winning as in CSS (!important aside).
func styleHides(style string) bool {
	if !strings.Contains(style, ":") {
		return false
	}
	display, visibility := "", ""
	for decl := range strings.SplitSeq(style, ";") {
		prop, val, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		prop = strings.ToLower(strings.TrimSpace(prop))
		if prop != "display" && prop != "visibility" {
			continue
		}
		val = strings.ToLower(strings.TrimSpace(val))
		val = strings.TrimSpace(strings.TrimSuffix(val, "!important"))
		if prop == "display" {
			display = val
		} else {
			visibility = val
		}
	}
	return display == "none" || visibility == "hidden" || visibility == "collapse"
}

// enterHidden and exitHidden track the hidden elements being walked; the
// outermost one's text is one hidden range of the text buffer.
func (w *walker) enterHidden(n *html.Node) {
	if !hiddenElement(n) {
		return
	}
	if w.hiddenDepth == 0 {
		w.hiddenStart = len(w.text.b)
	}
	w.hiddenDepth++
}

func (w *walker) exitHidden(n *html.Node) {
	if w.hiddenDepth == 0 || !hiddenElement(n) {
		return
	}
	if w.hiddenDepth--; w.hiddenDepth > 0 {
		return
	}
	if end := len(w.text.b); end > w.hiddenStart {
		w.hiddenSpans = append(w.hiddenSpans, [2]int{w.hiddenStart, end})
		w.hiddenBytes += end - w.hiddenStart
	}
}

// closeHidden ends a hidden range left open at the end of the walk (a token
// stream whose hidden element is never closed hides the rest, as a
// browser would).
func (w *walker) closeHidden() {
	if w.hiddenDepth == 0 {
		return
	}
	w.hiddenDepth = 1
	if end := len(w.text.b); end > w.hiddenStart {
		w.hiddenSpans = append(w.hiddenSpans, [2]int{w.hiddenStart, end})
		w.hiddenBytes += end - w.hiddenStart
	}
	w.hiddenDepth = 0
}

// cutHidden returns text without its hidden ranges, and spans (byte ranges
// of text, in order and disjoint) moved to match: a span inside a hidden
// range goes, one crossing its edge is cut at it. A range holds the space
// due before its first word; it is kept when the text after the range
// does not start with one ("foo <span hidden>x</span>bar" reads "foo bar").
func cutHidden(text string, hidden, spans [][2]int) (string, [][2]int) {
	if len(hidden) == 0 {
		return text, spans
	}
	cut := make([][2]int, 0, len(hidden))
	for _, h := range hidden {
		if text[h[0]] == ' ' && h[1] < len(text) && text[h[1]] != ' ' {
			h[0]++
		}
		if h[1] > h[0] {
			cut = append(cut, h)
		}
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
	// at maps an offset of text into the result: back by the hidden bytes
	// before it, to the start of a range it falls in.
	at := func(off int) int {
		removed := 0
		for _, h := range cut {
			if off <= h[0] {
				break
			}
			if off < h[1] {
				off = h[0]
				break
			}
			removed += h[1] - h[0]
		}
		return max(0, min(off-removed-lead, len(out)))
	}
	var moved [][2]int
	for _, s := range spans {
		st, en := at(s[0]), at(s[1])
		if en <= st {
			continue
		}
		if k := len(moved); k > 0 && st <= moved[k-1][1] {
			moved[k-1][1] = max(moved[k-1][1], en)
			continue
		}
		moved = append(moved, [2]int{st, en})
	}
	return out, moved
}
