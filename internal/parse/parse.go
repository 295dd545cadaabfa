// Package parse analyses a fetched HTML page: its metadata (title, base URL,
// language, meta description/keywords/robots), its visible text split by
// position class for term weighting, and its outgoing links with the extended
// metadata the link predictors use (anchor text, title, image alt, the text
// around the anchor).
//
// The model: the page is parsed once with goquery (golang.org/x/net/html
// underneath, which accepts any byte soup), then the DOM is walked once in
// document order over its nodes directly (a goquery Selection per node would
// cost allocations on this hot path). Pages the tree builder rejects, those
// nested more than 512 elements deep, are walked as a flat token stream by
// the same handlers instead. The walk appends visible text to a flat,
// whitespace-collapsed buffer and remembers where each link's text starts and
// ends in it, so anchor text and surrounding text are slices of that one
// buffer. Links are resolved against the effective base URL only after the
// walk, because a <base> element counts wherever it appears. Each distinct
// link's DOM context (seed 002: text within tree distance δ = 5) is read
// then from the tree in a bounded pass outward from the link element (see
// domContext).
//
// Word boundaries follow rendering: block elements, line breaks and table
// cells separate words, inline elements do not ("foo<b>bar</b>" is one word),
// except link edges, which separate words because navigation bars place
// links side by side with only CSS spacing between them.
//
// Position classes follow seed document 001, which weights them 2 / 1.5 / 1:
// text inside a link is Anchor (even inside a heading: the higher weight
// wins), text inside title, h1, h2, strong or b is Emphasis, all other visible
// text is Other.
package parse

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"focuscrawl/internal/robots"
	"focuscrawl/internal/urlnorm"
)

// Link is one outgoing link of a page with its extended metadata.
type Link struct {
	URL     string // absolute, normalised with urlnorm.Resolve against the page's base
	Anchor  string // anchor text, whitespace-collapsed; for <area> its alt; for an image-only link the img alt; repeated links join distinct anchors with " | "
	Title   string // title attribute (the first non-empty one for a repeated link)
	Alt     string // alt texts of images inside the anchor
	Context string // up to 30 bytes of visible text before and 30 after the anchor (anchor excluded; cut on rune boundaries, so 10 Chinese characters), joined by a space
	// DOMContext is the visible text of the text nodes within tree distance
	// DOMContextDistance of the link element (its own text excluded), in
	// document order, whitespace-collapsed, at most 300 runes, nearest text
	// kept (seed 002's DOM context; see domContext). Pages read as a token
	// stream have no tree: there it equals Context.
	DOMContext string
	Tag        string // "a", "area", "frame" or "iframe"
	Nofollow   bool   // rel=nofollow (for a repeated link: on every occurrence)
	// HrefLang is the hreflang attribute, lower-cased (the first non-empty
	// one for a repeated link): the language of the page it links to, as a
	// site's language switcher declares it (internal/langalt).
	HrefLang string `json:",omitempty"`
}

// Document is the analysis of one page.
type Document struct {
	URL             string // the page URL given to Parse
	Base            string // effective base: first <base href> resolved against URL, else URL
	Title           string // text of the first <title>, whitespace-collapsed
	Lang            string // <html lang> lower-cased, may be ""
	MetaDescription string // <meta name=description content>, whitespace-collapsed
	MetaKeywords    string // <meta name=keywords content>, whitespace-collapsed
	NoIndex         bool   // <meta name=robots> (or name=Options.AgentToken) says noindex or none; see also ApplyRobotsTags
	NoFollow        bool   // as NoIndex, for nofollow; Links are still listed

	// Text by position class (seed document 001 weights these 2 / 1.5 / 1).
	Anchor   string // visible text inside links (image alts are in Link.Alt only)
	Emphasis string // text of title, h1, h2, strong, b
	Other    string // all other visible text

	Text string // all visible body text in document order, whitespace-collapsed (for the search index and snippets)
	// LinkSpans are where Text holds link text: byte ranges [start, end),
	// in order and disjoint, neighbours with only spaces and punctuation
	// between them joined. A snippet is cut from the text around them
	// where it can (index.Document.LinkSpans): a manual's table of
	// contents, in a sidebar on every page, matches a query's words more
	// densely than the prose does.
	LinkSpans [][2]int `json:",omitempty"`
	Links     []Link   // one per distinct URL in document order
	// Images are the page's image links — <img src> and <body
	// background>, which seed 000 lists among a page's links — with their
	// alt text as metadata. They are kept apart from Links on purpose:
	// Links are crawl targets, and an image is not a page to crawl (a
	// crawler that queued every image would spend its budget on them). They
	// are stored with the parse record (docs/algorithms.md "Page analysis").
	Images []Image
	// Cells are the page's innermost table cells (td, th) with their Other
	// text, in order, when Options.Cells asks for them: a table's header
	// row and its one-word values ("ditto", "yes") are Other text but not
	// prose, and a topic bootstrap leaves them out of a draft's words.
	Cells []Cell `json:",omitempty"`
	// Code is the Other text inside the page's example elements (pre,
	// listing, xmp, kbd, samp, var; the outermost of nested ones; not
	// inline <code>, which names what prose is about),
	// whitespace-collapsed, when Options.Code asks for it: an example's
	// identifiers and placeholders (foo, bar) are Other text but not
	// prose, and a topic bootstrap leaves out the words only examples have.
	Code string `json:",omitempty"`
}

// Cell is a table cell of a Document.
type Cell struct {
	Text   string // the cell's Other text (not its links' or emphasis'), whitespace-collapsed
	Header bool   // a th
}

// Image is an image link of a page.
type Image struct {
	URL   string // absolute, normalised like Link.URL
	Alt   string // alt text, whitespace-collapsed (seed 000's "image text")
	Title string // title attribute
	Tag   string // "img" or "background" (<body background>)
}

// Options bounds the work and memory spent on one page; giant pages are
// usually generated and are not worth more.
type Options struct {
	MaxLinks     int // distinct links kept; 0 means DefaultMaxLinks
	MaxTextBytes int // bytes kept of Text and of each position class; 0 means DefaultMaxTextBytes
	// AgentToken is the crawler's product token (robots.ProductToken of its
	// User-Agent): a <meta name="TOKEN"> tag addresses it as <meta
	// name="robots"> addresses every crawler. "" reads only the latter.
	AgentToken string
	// Charset is the WHATWG name of the encoding the page was decoded from
	// (fetch.Response.Charset). Links' queries are percent-encoded in it, as
	// browsers do: a GBK site expects "?t=错误" as GBK bytes. "" means UTF-8.
	Charset string
	// Cells asks for Document.Cells (topic bootstraps; a crawl has no use
	// for them).
	Cells bool
	// Code asks for Document.Code (topic bootstraps, as Cells).
	Code bool
}

// Defaults for a zero Options.
const (
	DefaultMaxLinks     = 5000
	DefaultMaxTextBytes = 2 << 20
)

// Bounds on single metadata strings, so that a trap page cannot make every
// link or title huge.
const (
	maxMetaBytes = 4096 // Title, MetaDescription, MetaKeywords, Link.Title, Link.Alt
	// maxHrefBytes bounds a link's raw href: 8 × urlnorm.MaxLength, far
	// beyond any that normalises to a URL the crawl keeps.
	maxHrefBytes   = 8 * urlnorm.MaxLength
	maxAnchorBytes = 1024 // Link.Anchor after joining repeated anchors
	contextBytes   = 30   // each side of an anchor, in bytes as seed document 001 says (10 Chinese characters in UTF-8)
)

// Parse analyses body, the UTF-8 HTML of the page at pageURL. Malformed HTML
// never fails; the only error is a pageURL that is not an absolute http(s)
// URL, since links could not be resolved against it.
func Parse(pageURL string, body []byte, opt Options) (*Document, error) {
	return parse(pageURL, body, opt, false)
}

// parse is Parse; flat forces the token-stream fallback (for tests).
func parse(pageURL string, body []byte, opt Options, flat bool) (*Document, error) {
	if opt.MaxLinks <= 0 {
		opt.MaxLinks = DefaultMaxLinks
	}
	if opt.MaxTextBytes <= 0 {
		opt.MaxTextBytes = DefaultMaxTextBytes
	}
	page, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil {
		return nil, fmt.Errorf("parse: page URL %q: %w", pageURL, err)
	}
	pageNorm, err := urlnorm.Normalize(pageURL)
	if err != nil {
		return nil, fmt.Errorf("parse: page URL %q: %w", pageURL, err)
	}
	var gq *goquery.Document
	if !flat {
		// The tree builder fails only on elements nested more than 512 deep
		// (unclosed <font> or <div> on old sites); such pages are read as a
		// flat token stream rather than lost.
		gq, _ = goquery.NewDocumentFromReader(bytes.NewReader(body))
	}
	w := newWalker(opt, len(body))
	if gq != nil {
		w.hide = true
		for _, n := range gq.Nodes {
			w.walk(n)
		}
		if w.mostlyHidden() {
			// The page, shown by a script: walked again as if nothing
			// were hidden (hidden.go).
			w = newWalker(opt, len(body))
			for _, n := range gq.Nodes {
				w.walk(n)
			}
		}
	} else {
		w.walkTokens(body)
	}

	doc := &Document{URL: pageURL, Base: pageURL}
	base := page
	if w.baseSeen {
		// Resolved as links are (urlnorm.Resolve: a backslash before the
		// query is a slash, as in browsers); a base that does not resolve
		// to an http(s) URL is ignored, as browsers ignore it.
		if b, err := urlnorm.ResolveEncoding(page, cleanHref(w.baseHref), w.queryEnc); err == nil {
			base = urlnorm.MustParse(b)
			doc.Base = b
		}
	}
	full := w.finish(doc)
	doc.Links = w.resolveLinks(full, doc.Text, base, pageNorm)
	doc.Images = w.resolveImages(base, pageNorm)
	return doc, nil
}

// ApplyRobotsTags adds to doc what the response's X-Robots-Tag header
// values (one per line of tags) say to the crawler whose product token is
// token: noindex, nofollow or none, for every crawler or for this one.
func ApplyRobotsTags(doc *Document, tags, token string) {
	for _, v := range strings.Split(tags, "\n") {
		ni, nf := robots.TagDirectives(v, token)
		doc.NoIndex, doc.NoFollow = doc.NoIndex || ni, doc.NoFollow || nf
	}
}
