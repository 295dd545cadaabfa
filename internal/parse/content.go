package parse

import "strings"

// Main content. A documentation page repeats its site's navigation — a
// manual's table of contents, "Previous | Up | Next", a sidebar of
// sections — on every page. Indexed, that text makes every page match
// every chapter title, drives a query word's document frequency to the
// whole collection (BM25 then scores it near 0) and fills snippets with
// menus. The walker therefore marks which runs of Text are the page's own
// content (Document.Content), by the rule boilerplate detectors use
// (Kohlschütter et al.'s link density): the text between two block
// boundaries is one block, and a block at least half of whose text is link
// text is navigation, as is everything inside <nav>. Headings always
// count as content (a heading that links to itself is still its
// section's title). This is focuscrawl's own rule, not a seed document's;
// docs/algorithms.md "Main content" says what it measured.

// maxLinkDensity is the share of a block's text that may be link text for
// the block to count as content: more than half links is a menu. An
// a-priori value (the boilerplate literature's 0.33–0.5 range), not tuned.
const maxLinkDensity = 0.5

// Span is a byte range [Start, End) of Document.Text.
type Span struct {
	Start, End int
}

// contentTracker is the walker's state for Document.Content.
type contentTracker struct {
	start    int // offset in Text where the open block starts
	anchor   int // link-text bytes written in the open block
	navDepth int // open <nav> elements
	heading  int // open h1–h6 elements
	spans    []Span
}

// closeBlock ends the block open at textLen and starts the next one there.
func (c *contentTracker) closeBlock(textLen int) {
	n := textLen - c.start
	if n > 0 && c.navDepth == 0 && (c.heading > 0 || float64(c.anchor) <= maxLinkDensity*float64(n)) {
		if k := len(c.spans); k > 0 && c.spans[k-1].End == c.start {
			c.spans[k-1].End = textLen // adjacent content blocks are one run
		} else {
			c.spans = append(c.spans, Span{c.start, textLen})
		}
	}
	c.start, c.anchor = textLen, 0
}

// result is the content spans, or nil when they cover no text at all (a
// page of nothing but links: ContentText then falls back to all of Text)
// or all of it.
func (c *contentTracker) result(textLen int) []Span {
	c.closeBlock(textLen)
	if len(c.spans) == 1 && c.spans[0] == (Span{0, textLen}) {
		return nil
	}
	return c.spans
}

// ContentText is the page's main content (Content's runs of Text, joined
// by spaces), or all of Text when Content is empty: a page that is all
// links, or a parse record written before Content existed.
func (d *Document) ContentText() string {
	if len(d.Content) == 0 {
		return d.Text
	}
	var b strings.Builder
	for _, s := range d.Content {
		if s.Start < 0 || s.End > len(d.Text) || s.Start >= s.End {
			return d.Text // not this Text's spans: a corrupt record reads as before
		}
		piece := strings.TrimSpace(d.Text[s.Start:s.End])
		if piece == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(piece)
	}
	return b.String()
}

// ContentRanges is Content as [start, end) pairs, for
// textproc.Tokenizer.TermFreqSegmentRanges (nil: all of Text).
func (d *Document) ContentRanges() [][2]int {
	if len(d.Content) == 0 {
		return nil
	}
	out := make([][2]int, len(d.Content))
	for i, s := range d.Content {
		out[i] = [2]int{s.Start, s.End}
	}
	return out
}
