package parse

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// DOMContextDistance is δ, the tree distance within which a text node counts
// as a link's DOM context (seed 002 uses 5; docs/algorithms.md "jlse").
const DOMContextDistance = 5

// Bounds on the DOM-context work per link, so that a page of 5000 links in
// one wide list stays linear in practice. The limits are focuscrawl's own.
const (
	domContextRunes = 300  // Link.DOMContext is at most this many runes
	domContextNodes = 128  // nodes examined on each side of the link
	domContextBytes = 4096 // bytes scanned of any one text node (from its end nearest the link)
)

// domContext returns the DOM context of the link element l: the visible text
// of the text nodes whose tree distance to l (steps up to the common
// ancestor plus steps down) is at most DOMContextDistance, text inside l
// excluded, in document order and whitespace-collapsed.
//
// It walks outward from l in both directions: backwards over the nodes that
// precede l in document order and forwards over those that follow it, each
// restricted to distance ≤ δ and stopped after domContextNodes nodes or once
// it has as much text as the cap below can keep of it. When the two sides together exceed
// domContextRunes runes the text nearest the link in document order is kept:
// each side keeps up to half, and a side with less leaves its unused share
// to the other. Block elements separate words as in Document.Text; the link
// itself separates the text before it from the text after it.
func domContext(l *html.Node, sc *domScratch) string {
	// The after side first; the before side then needs only what the cap
	// below can keep of it.
	sc.after.hide, sc.before.hide = sc.hide, sc.hide
	sc.after.collect(l, true, domContextRunes)
	sc.before.collect(l, false, max(domContextRunes/2, domContextRunes-sc.after.runes))
	b, a := sc.before.String(&sc.buf), sc.after.String(&sc.buf)
	nb, na := utf8.RuneCountInString(b), utf8.RuneCountInString(a)
	if budget := domContextRunes - 1; nb+na > budget { // 1 for the joining space
		half := budget / 2
		kb, ka := min(nb, half), min(na, budget-half)
		if kb < half {
			ka = min(na, budget-kb)
		} else if ka < budget-half {
			kb = min(nb, budget-ka)
		}
		b = strings.TrimLeft(lastRunes(b, kb), " ")
		a = strings.TrimRight(firstRunes(a, ka), " ")
	}
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return b + " " + a
}

// domScratch is reused across the links of a page, so that computing DOM
// contexts allocates little beyond the results.
type domScratch struct {
	before, after side
	buf           textBuf
	hide          bool // the walk cut hidden content (walker.hide): leave it out here too
}

// side collects the text of one side of a link. Pieces are text strings or
// "" for a word separator; the before side collects them in reverse.
type side struct {
	pieces  []string
	runes   int // non-space runes collected: a lower bound of the collapsed length
	limit   int // runes wanted
	nodes   int
	forward bool
	hide    bool // skip hidden elements (hiddenElement)
}

func (s *side) full() bool {
	return s.runes >= s.limit || s.nodes >= domContextNodes
}

// sep appends a word separator unless one is already last.
func (s *side) sep() {
	if k := len(s.pieces); k > 0 && s.pieces[k-1] != "" {
		s.pieces = append(s.pieces, "")
	}
}

// text adds a text node: only as much of its end nearest the link as the
// side still needs (domContextRunes non-space runes in all, and at most
// domContextBytes scanned), so that long paragraphs cost no more than short
// ones.
func (s *side) text(t string) {
	need, n := s.limit-s.runes, 0
	if s.forward {
		i := 0
		for i < len(t) && i < domContextBytes && n < need {
			r, size := rune(t[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(t[i:])
			}
			if !isSpace(r) {
				n++
			}
			i += size
		}
		t = t[:i]
	} else {
		i := len(t)
		for i > 0 && len(t)-i < domContextBytes && n < need {
			r, size := rune(t[i-1]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeLastRuneInString(t[:i])
			}
			if !isSpace(r) {
				n++
			}
			i -= size
		}
		t = t[i:]
	}
	if n == 0 {
		s.sep() // white space between elements: a separator at most
		return
	}
	s.runes += n
	s.pieces = append(s.pieces, t)
}

// String returns the collapsed text in document order, built in t.
func (s *side) String(t *textBuf) string {
	if !s.forward {
		slices.Reverse(s.pieces)
	}
	t.b, t.space, t.full, t.max = t.b[:0], false, false, len(s.pieces)*domContextBytes
	for _, p := range s.pieces {
		if p == "" {
			t.separate()
		} else {
			t.addText(p)
		}
	}
	return t.String()
}

// collect walks the nodes on one side of l: for each ancestor A_k at k
// steps up, the siblings of the path child after (forward) or before it,
// each at distance k+1 ≤ δ, and their subtrees down to distance δ. (A_δ's
// other children are at δ+1, so the climb stops one level earlier.)
func (s *side) collect(l *html.Node, forward bool, limit int) {
	s.pieces, s.runes, s.nodes, s.forward, s.limit = s.pieces[:0], 0, 0, forward, limit
	c := l
	for k := 1; k < DOMContextDistance && c.Parent != nil && !s.full(); k++ {
		if c.Parent.Type != html.ElementNode || c.Parent.DataAtom == atom.Head {
			break // the document node has no visible text of its own
		}
		if forward {
			for n := c.NextSibling; n != nil && !s.full(); n = n.NextSibling {
				s.subtree(n, k+1)
			}
		} else {
			for n := c.PrevSibling; n != nil && !s.full(); n = n.PrevSibling {
				s.subtree(n, k+1)
			}
		}
		c = c.Parent
	}
}

// subtree collects the visible text of n, which is at distance d from the
// link, and of its descendants within distance δ, in the side's order.
func (s *side) subtree(n *html.Node, d int) {
	if d > DOMContextDistance || s.full() {
		return
	}
	s.nodes++
	switch n.Type {
	case html.TextNode:
		s.text(n.Data)
		return
	case html.ElementNode:
	default:
		return
	}
	if hiddenContent(n) || (s.hide && hiddenElement(n)) {
		return
	}
	block := isBlock(n.DataAtom) || n.DataAtom == atom.A
	if block {
		s.sep()
	}
	if d < DOMContextDistance && n.DataAtom != atom.Iframe { // iframe children are raw fallback markup
		if s.forward {
			for ch := n.FirstChild; ch != nil && !s.full(); ch = ch.NextSibling {
				s.subtree(ch, d+1)
			}
		} else {
			for ch := n.LastChild; ch != nil && !s.full(); ch = ch.PrevSibling {
				s.subtree(ch, d+1)
			}
		}
	}
	if block {
		s.sep()
	}
}

// hiddenContent reports elements whose content is not page text; it mirrors
// what walker.enter does not descend into. A <noscript>'s content is page
// text, but the tree holds it as one raw text node (walker.enterNoscript
// parses it apart), so it stays out of other links' DOM contexts, and a
// link inside it has the context of its own fragment only.
func hiddenContent(n *html.Node) bool {
	if n.Namespace != "" {
		return true
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg,
		atom.Noembed, atom.Noframes, atom.Math, atom.Head, atom.Title:
		return true
	}
	return false
}

// firstRunes returns the first n runes of s.
func firstRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// lastRunes returns the last n runes of s.
func lastRunes(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}
