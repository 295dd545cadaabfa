package parse

import (
	"bytes"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/encoding"

	"focuscrawl/internal/robots"
)

// rawLink is a link as found during the walk, before resolution.
type rawLink struct {
	href       string
	tag        string
	title      string
	alt        textBuf // image alts inside an <a>; the alt of an <area>
	start, end int     // byte offsets of the anchor text in the Text buffer
	nofollow   bool
	hreflang   string
	node       *html.Node // the link element, for its DOM context (nil when walking tokens)
}

// openLink is an <a href> whose subtree is being walked.
type openLink struct {
	node  *html.Node
	idx   int // index in walker.links, or -1 when over the raw-link cap
	start int // byte offset in the Text buffer where its text begins
}

// openCell is a table cell whose subtree is being walked (Options.Cells).
type openCell struct {
	node   *html.Node
	start  int  // byte offset in the Other buffer where its text begins
	nested bool // a cell inside it: its text is theirs too, and not kept
}

// walker collects everything Parse needs in one pass over the DOM.
type walker struct {
	text, anchor, emph, other textBuf
	linkSpans                 [][2]int // Document.LinkSpans
	last                      *textBuf // position-class buffer written last
	title                     textBuf
	titleDone                 bool // the first <title> has been read

	headDepth, titleDepth, emphDepth int
	preDepth                         int // inside <pre> (or <textarea>, <listing>): line breaks are shown
	open                             []openLink

	links    []rawLink
	images   []Image // <img src> and <body background>, unresolved URLs
	maxRaw   int
	maxLinks int

	baseHref string
	baseSeen bool
	lang     string
	langSeen bool
	flat     bool // walking tokens, not a tree: see walkTokens
	noscript bool // walking a <noscript>'s content: see enterNoscript
	// noscriptParses and noscriptBytes count the <noscript> elements
	// parsed as markup, against noscriptMaxParses and noscriptMaxBytes.
	noscriptParses, noscriptBytes int
	dom                           domScratch // reused by resolveLinks for DOM contexts

	// Hidden content (hidden.go): whether it is told apart at all (not in
	// a token stream, nor on a second walk of a page mostly hidden), the
	// depth of hidden elements being walked, where the outermost began in
	// text and whether a separator was due there, the hidden ranges of
	// text and their size.
	hide                                  bool
	hiddenDepth, hiddenStart, hiddenBytes int
	hiddenSpace                           bool
	hiddenSpans                           []hiddenRange
	// visibleAt maps an offset of the text with hidden content into
	// Document.Text (nil when nothing was cut): a visible link's context
	// is read there, so hidden words beside it are not its context.
	visibleAt func(int) int

	// Options.Cells: the cells being walked (where each began in other,
	// whether a cell is inside it) and those collected, up to maxRaw.
	cells    bool
	cellOpen []openCell
	cellsOut []Cell

	// Options.Code: the depth of code elements being walked, where the
	// outermost began in other, and their text collected.
	code      bool
	codeDepth int
	codeStart int
	codeOut   textBuf

	desc, keywords    textBuf
	descSeen, kwSeen  bool
	noIndex, noFollow bool
	agent             string            // Options.AgentToken, lower-cased; "robots" when unset
	queryEnc          encoding.Encoding // links' query encoding, from Options.Charset (nil: UTF-8)
}

func newWalker(opt Options, bodyLen int) *walker {
	w := &walker{
		text:     textBuf{max: opt.MaxTextBytes},
		anchor:   textBuf{max: opt.MaxTextBytes},
		emph:     textBuf{max: opt.MaxTextBytes},
		other:    textBuf{max: opt.MaxTextBytes},
		title:    textBuf{max: maxMetaBytes},
		desc:     textBuf{max: maxMetaBytes},
		keywords: textBuf{max: maxMetaBytes},
		// Repeated hrefs are merged only after resolution, so allow some
		// slack over MaxLinks before dropping raw links.
		maxRaw:   4 * opt.MaxLinks,
		maxLinks: opt.MaxLinks,
		agent:    "robots",
		queryEnc: queryEncoding(opt.Charset),
		cells:    opt.Cells,
		code:     opt.Code,
		codeOut:  textBuf{max: opt.MaxTextBytes},
	}
	if t := strings.ToLower(strings.TrimSpace(opt.AgentToken)); t != "" {
		w.agent = t
	}
	// Visible text is typically a fifth to a third of the markup.
	w.text.b = make([]byte, 0, min(bodyLen/4, opt.MaxTextBytes))
	return w
}

// walk visits the subtree at root in document order without recursion:
// broken markup can nest elements arbitrarily deep.
func (w *walker) walk(root *html.Node) {
	n := root
	for n != nil {
		if w.enter(n) && n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		for n != nil {
			w.exit(n)
			if n == root {
				return
			}
			if n.NextSibling != nil {
				n = n.NextSibling
				break
			}
			n = n.Parent
		}
	}
}

// enter handles a node on the way down and reports whether to descend.
func (w *walker) enter(n *html.Node) bool {
	switch n.Type {
	case html.TextNode:
		w.addText(n.Data)
		return false
	case html.ElementNode:
	case html.DocumentNode:
		return true
	default: // comments, doctypes
		return false
	}
	if n.Namespace != "" { // <svg> and <math> content is not page text
		if n.Namespace == "svg" && n.Data == "svg" {
			w.svgLinks(n) // but an SVG's links are links
		}
		return false
	}
	w.enterHidden(n)
	if isBlock(n.DataAtom) {
		w.separate()
	}
	if w.noscript && (n.DataAtom == atom.Img || n.DataAtom == atom.Iframe) {
		// The tracking pixels and tag-manager frames most <noscript>
		// elements hold are not the page's images or links.
		return false
	}
	if w.code && codeElement(n.DataAtom) {
		if w.codeDepth == 0 {
			w.codeStart = len(w.other.b)
		}
		w.codeDepth++
	}
	switch n.DataAtom {
	case atom.Noscript:
		w.enterNoscript(n)
		return false
	case atom.Script, atom.Style, atom.Template, atom.Svg,
		atom.Noembed, atom.Noframes, atom.Math:
		return false
	case atom.Html:
		if !w.langSeen {
			w.langSeen = true
			lang, _ := attr(n, "lang")
			w.lang = strings.ToLower(strings.TrimSpace(lang))
		}
	case atom.Head:
		if !w.flat { // a token stream may never close <head>
			w.headDepth++
		}
	case atom.Base:
		if href, ok := attr(n, "href"); ok && !w.baseSeen {
			w.baseHref, w.baseSeen = href, true
		}
	case atom.Pre, atom.Textarea, atom.Listing, atom.Plaintext:
		w.preDepth++
	case atom.Title:
		w.titleDepth++
	case atom.H1, atom.H2, atom.Strong, atom.B:
		w.emphDepth++
	case atom.Td, atom.Th:
		if w.cells {
			if k := len(w.cellOpen); k > 0 {
				w.cellOpen[k-1].nested = true
			}
			w.cellOpen = append(w.cellOpen, openCell{node: n, start: len(w.other.b)})
		}
	case atom.Meta:
		w.meta(n)
	case atom.A:
		if href, ok := attr(n, "href"); ok {
			// Link edges separate words even though browsers do not break
			// there: navigation bars put links side by side with only CSS
			// spacing, and "HomeNews" helps nobody.
			w.separate()
			idx := w.addLink(n, href, "a")
			w.open = append(w.open, openLink{node: n, idx: idx, start: len(w.text.b)})
		}
	case atom.Area:
		if href, ok := attr(n, "href"); ok {
			if idx := w.addLink(n, href, "area"); idx >= 0 {
				alt, _ := attr(n, "alt")
				w.links[idx].alt.addText(alt)
			}
		}
	case atom.Frame:
		if src, ok := attr(n, "src"); ok {
			w.addLink(n, src, "frame")
		}
	case atom.Iframe:
		if src, ok := attr(n, "src"); ok {
			w.addLink(n, src, "iframe")
		}
		return false // its children are fallback markup, parsed as raw text
	case atom.Body:
		if bg, ok := attr(n, "background"); ok {
			w.addImage(bg, "", "", "background")
		}
	case atom.Img:
		src, _ := attr(n, "src")
		alt, _ := attr(n, "alt")
		title, _ := attr(n, "title")
		w.addImage(src, alt, title, "img")
		if k := len(w.open); k > 0 && w.open[k-1].idx >= 0 {
			if alt, ok := attr(n, "alt"); ok {
				l := &w.links[w.open[k-1].idx]
				l.alt.separate()
				l.alt.addText(alt)
			}
		}
	}
	return true
}

// exit handles an element on the way up; it undoes what enter did.
func (w *walker) exit(n *html.Node) {
	if n.Type != html.ElementNode || n.Namespace != "" {
		return
	}
	if isBlock(n.DataAtom) {
		w.separate()
	}
	if w.code && codeElement(n.DataAtom) && w.codeDepth > 0 {
		if w.codeDepth--; w.codeDepth == 0 {
			w.codeOut.separate()
			w.codeOut.addText(string(w.other.b[min(w.codeStart, len(w.other.b)):]))
		}
	}
	switch n.DataAtom {
	case atom.Head:
		if !w.flat {
			w.headDepth--
		}
	case atom.Pre, atom.Textarea, atom.Listing, atom.Plaintext:
		w.preDepth--
	case atom.Title:
		w.titleDepth--
		w.titleDone = true
	case atom.H1, atom.H2, atom.Strong, atom.B:
		w.emphDepth--
	case atom.Td, atom.Th:
		if k := len(w.cellOpen); k > 0 && w.cellOpen[k-1].node == n {
			c := w.cellOpen[k-1]
			w.cellOpen = w.cellOpen[:k-1]
			if text := strings.TrimSpace(string(w.other.b[min(c.start, len(w.other.b)):])); !c.nested && text != "" && len(w.cellsOut) < w.maxRaw {
				w.cellsOut = append(w.cellsOut, Cell{Text: text, Header: n.DataAtom == atom.Th})
			}
		}
	case atom.A:
		if k := len(w.open); k > 0 && w.open[k-1].node == n {
			if idx := w.open[k-1].idx; idx >= 0 {
				w.links[idx].end = len(w.text.b)
			}
			w.linkSpan(w.open[k-1].start, len(w.text.b))
			w.open = w.open[:k-1]
			w.separate()
		}
	}
	w.exitHidden(n)
}

// enterNoscript reads a <noscript> in the body as a browser without
// scripts shows it: its text and links are the page's. The crawler runs no
// scripts, and sites whose menus are built by script often put the same
// links in a <noscript> for such clients. The tree builder keeps the
// element's content as raw text (it parses as a scripting browser does), so
// that text is parsed here as a fragment of the body. Not in <head>, where
// a <noscript> holds styles and metadata, and not nested; its images and
// frames are left out (see enter).
func (w *walker) enterNoscript(n *html.Node) {
	if w.noscript || w.headDepth > 0 || w.flat {
		return
	}
	var raw strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			raw.WriteString(c.Data)
		}
	}
	src := raw.String()
	if strings.TrimSpace(src) == "" || (w.text.full && len(w.links) >= w.maxRaw) {
		return // nothing to read, or nothing more that would be kept
	}
	if !strings.Contains(src, "<") {
		// Text alone ("enable JavaScript"): no parser needed.
		w.addText(html.UnescapeString(src))
		return
	}
	// A parse costs a parser's buffers each time: a hostile page of many
	// <noscript> elements parses its first noscriptMaxParses, its first
	// noscriptMaxBytes of them.
	if w.noscriptParses >= noscriptMaxParses || w.noscriptBytes+len(src) > noscriptMaxBytes {
		return
	}
	w.noscriptParses++
	w.noscriptBytes += len(src)
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(src), body)
	if err != nil {
		return
	}
	w.noscript = true
	for _, f := range nodes {
		w.walk(f)
	}
	w.noscript = false
}

// The most <noscript> elements, and bytes of them, a page has parsed as
// markup (enterNoscript). Menus repeated for script-less clients are one or
// two such elements of a few kilobytes; beyond these a page's noscript
// markup is skipped as it was before it was read at all.
const (
	noscriptMaxParses = 64
	noscriptMaxBytes  = 256 << 10
)

// addText routes a text node to the buffers of its position.
func (w *walker) addText(s string) {
	switch {
	case w.titleDepth > 0:
		// Title text weighs as emphasis but is not body text.
		if !w.titleDone {
			w.title.addText(s)
		}
		w.class(&w.emph).addText(s)
	case w.headDepth > 0:
		// Nothing else in <head> is visible.
	case w.hiddenDepth > 0:
		// Page text for links' anchors and contexts only (hidden.go).
		w.text.keepBreaks = w.preDepth > 0
		addText2(s, &w.text, nil)
	default:
		cls := &w.other
		if len(w.open) > 0 {
			cls = &w.anchor
		} else if w.emphDepth > 0 {
			cls = &w.emph
		}
		c := w.class(cls)
		w.text.keepBreaks, c.keepBreaks = w.preDepth > 0, w.preDepth > 0
		addText2(s, &w.text, c)
	}
}

// class returns cls after separating it from its previous content if another
// class was written in between: "a <b>b</b> c" must give Other "a c".
func (w *walker) class(cls *textBuf) *textBuf {
	if w.last != cls {
		cls.separate()
		w.last = cls
	}
	return cls
}

// separate marks a word boundary in every text buffer (block elements).
func (w *walker) separate() {
	w.text.separate()
	w.anchor.separate()
	w.emph.separate()
	w.other.separate()
}

// addLink records a link found at n and returns its index, or -1 once the
// raw-link cap is reached.
func (w *walker) addLink(n *html.Node, href, tag string) int {
	if len(w.links) >= w.maxRaw {
		return -1
	}
	if len(href) > maxHrefBytes {
		return -1 // no such URL normalises (urlnorm.MaxLength); hashing it on every copy cost time
	}
	l := rawLink{href: href, tag: tag, start: len(w.text.b), end: len(w.text.b)}
	if !w.flat {
		l.node = n
	}
	l.alt.max = maxMetaBytes
	if title, ok := attr(n, "title"); ok {
		l.title = collapse(title, maxMetaBytes)
	}
	if rel, ok := attr(n, "rel"); ok {
		for _, tok := range strings.Fields(capInput(rel, maxMetaBytes)) {
			if strings.EqualFold(tok, "nofollow") {
				l.nofollow = true
			}
		}
	}
	if hl, ok := attr(n, "hreflang"); ok {
		l.hreflang = strings.ToLower(collapse(hl, 35)) // BCP 47 tags are short; 35 is RFC 5646's practical bound
	}
	w.links = append(w.links, l)
	return len(w.links) - 1
}

// addImage records an image link (seed 000 lists img and body background
// among a page's links), up to the raw-link cap.
func (w *walker) addImage(src, alt, title, tag string) {
	if strings.TrimSpace(src) == "" || len(w.images) >= w.maxRaw {
		return
	}
	w.images = append(w.images, Image{URL: src, Alt: collapse(alt, maxMetaBytes), Title: collapse(title, maxMetaBytes), Tag: tag})
}

// meta reads <meta name=description|keywords|robots>; the first of each wins.
func (w *walker) meta(n *html.Node) {
	name, ok := attr(n, "name")
	if !ok {
		return
	}
	content, _ := attr(n, "content")
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "description":
		if !w.descSeen {
			w.descSeen = true
			w.desc.addText(content)
		}
	case "keywords":
		if !w.kwSeen {
			w.kwSeen = true
			w.keywords.addText(content)
		}
	case "robots", w.agent:
		ni, nf := robots.TagDirectives(content, w.agent)
		w.noIndex, w.noFollow = w.noIndex || ni, w.noFollow || nf
	}
}

// finish copies the collected text and metadata into doc, and returns the
// text links' offsets point into: Text with its hidden content (hidden.go).
func (w *walker) finish(doc *Document) string {
	doc.Lang = w.lang
	doc.Title = w.title.String()
	doc.MetaDescription = w.desc.String()
	doc.MetaKeywords = w.keywords.String()
	doc.NoIndex, doc.NoFollow = w.noIndex, w.noFollow
	doc.Anchor = w.anchor.String()
	doc.Emphasis = w.emph.String()
	doc.Other = w.other.String()
	doc.Cells = w.cellsOut
	doc.Code = w.codeOut.String()
	full := w.text.String()
	doc.Text, doc.LinkSpans = full, w.linkSpans
	w.closeHidden()
	if w.hiddenBytes > 0 {
		doc.Text, doc.LinkSpans, w.visibleAt = cutHidden(full, w.hiddenSpans, w.linkSpans)
	}
	return full
}

// linkSpan records that Text[start:end] is a link's text, joined to the
// span before it when only spaces and punctuation stand between them (a
// navigation bar's "Home | News | About" is one span). Links over the
// raw-link cap count too: their text is navigation all the same.
func (w *walker) linkSpan(start, end int) {
	if end <= start {
		return
	}
	// A link closing around links that closed before it (a link inside a
	// link: across a table cell, or in a <noscript> parsed apart) covers
	// their spans.
	for k := len(w.linkSpans); k > 0 && w.linkSpans[k-1][0] >= start; k-- {
		w.linkSpans = w.linkSpans[:k-1]
	}
	if k := len(w.linkSpans); k > 0 && start >= w.linkSpans[k-1][1] {
		gap := w.text.b[w.linkSpans[k-1][1]:start]
		if !bytes.ContainsFunc(gap, isWordRune) {
			w.linkSpans[k-1][1] = end
			return
		}
	}
	w.linkSpans = append(w.linkSpans, [2]int{start, end})
}

// isWordRune reports letters and digits: link spans with none between them
// are one (linkSpan, cutHidden).
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// svgLinks records the links of an <svg> element's <a> elements (href, or
// SVG 1.1's xlink:href; HTML ones in a <foreignObject> too), which
// browsers follow; their text stays out of the
// page text, as all SVG content does.
func (w *walker) svgLinks(svg *html.Node) {
	for c := range svg.Descendants() {
		// An HTML <a> inside a <foreignObject> is a link too.
		if c.Type != html.ElementNode || (c.Namespace != "svg" && c.Namespace != "") || c.Data != "a" {
			continue
		}
		href, ok := attr(c, "href")
		if !ok {
			for _, a := range c.Attr {
				if a.Namespace == "xlink" && a.Key == "href" {
					href, ok = a.Val, true
				}
			}
		}
		if ok {
			w.addLink(c, href, "a")
		}
	}
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}

// codeElement reports whether elements of type a hold an example rather
// than prose (Options.Code): a listing (pre, listing, xmp, plaintext),
// keys or input (kbd), sample output (samp) or a placeholder (var). Not
// inline code (code, tt): in prose it names the identifiers the prose is
// about (a manual's directives and functions: RewriteRule, airy_ai).
func codeElement(a atom.Atom) bool {
	switch a {
	case atom.Pre, atom.Listing, atom.Xmp, atom.Plaintext,
		atom.Kbd, atom.Samp, atom.Var:
		return true
	}
	return false
}

// isBlock reports whether an element separates words when rendered: block
// and table-cell boxes, line breaks, list items and replaced elements.
func isBlock(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Br,
		atom.Button, atom.Caption, atom.Center, atom.Dd, atom.Details, atom.Dialog,
		atom.Dir, atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption,
		atom.Figure, atom.Footer, atom.Form, atom.Frame, atom.Frameset, atom.H1,
		atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Head, atom.Header,
		atom.Hgroup, atom.Hr, atom.Html, atom.Iframe, atom.Img, atom.Input,
		atom.Legend, atom.Li, atom.Main, atom.Menu, atom.Nav, atom.Ol,
		atom.Optgroup, atom.Option, atom.P, atom.Pre, atom.Section, atom.Select,
		atom.Summary, atom.Table, atom.Tbody, atom.Td, atom.Textarea, atom.Tfoot,
		atom.Th, atom.Thead, atom.Title, atom.Tr, atom.Ul, atom.Video, atom.Audio,
		atom.Canvas, atom.Object, atom.Embed:
		return true
	}
	return false
}
