package parse

import (
	"net/url"
	"strings"
	"unicode/utf8"

	htmlcharset "golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"

	"focuscrawl/internal/urlnorm"
)

// queryEncoding returns the encoding links' queries are percent-encoded in
// for a page decoded from the named charset: nil (UTF-8) for UTF-8, for an
// empty or unknown name, and for UTF-16 and the replacement encoding, which
// the WHATWG URL standard replaces with UTF-8 for this. GBK is the GBK
// encoder, not GB18030's: a browser encodes a GBK page's queries in GBK.
func queryEncoding(charset string) encoding.Encoding {
	if charset == "" {
		return nil
	}
	e, name := htmlcharset.Lookup(charset)
	if e == nil || name == "utf-8" || name == "replacement" || strings.HasPrefix(name, "utf-16") {
		return nil
	}
	return e
}

// resolveLinks turns the raw links into Links: resolved against base,
// normalised, without unwanted schemes or self-links, one per distinct URL.
// text is the text the anchor offsets point into (hidden content
// included, hidden.go), visible Document.Text.
func (w *walker) resolveLinks(text, visible string, base *url.URL, pageNorm string) []Link {
	if len(w.links) == 0 {
		return nil
	}
	out := make([]Link, 0, min(len(w.links), w.maxLinks))
	seen := make(map[string]int, cap(out))
	// Pages repeat hrefs (a headline and its "more" link, menus in header
	// and footer); resolve each raw href once. "" marks a dropped one.
	resolved := make(map[string]string, cap(out))
	w.dom.hide = w.hide && w.hiddenBytes > 0
	for i := range w.links {
		r := &w.links[i]
		abs, ok := resolved[r.href]
		if !ok {
			abs = resolveHref(base, r.href, pageNorm, w.queryEnc)
			resolved[r.href] = abs
		}
		if abs == "" {
			continue
		}
		anchor := r.alt.String() // <area>: its alt
		alt := ""
		if r.tag == "a" {
			alt = anchor
			anchor = strings.TrimSpace(text[min(r.start, len(text)):min(r.end, len(text))])
			if anchor == "" {
				anchor = alt // image-only link
			}
		}
		if k, ok := seen[abs]; ok {
			mergeLink(&out[k], anchor, r.title, alt, r.nofollow)
			if out[k].HrefLang == "" {
				out[k].HrefLang = r.hreflang
			}
			continue
		}
		if len(out) >= w.maxLinks {
			continue
		}
		seen[abs] = len(out)
		ctx := w.linkContext(text, visible, r.start, r.end)
		// The token-stream fallback builds no tree, so there is no tree
		// distance: DOMContext is the ±30-rune Context there.
		domCtx := ctx
		if r.node != nil {
			domCtx = domContext(r.node, &w.dom)
		}
		out = append(out, Link{
			URL:        abs,
			Anchor:     truncate(anchor, maxAnchorBytes),
			Title:      r.title,
			Alt:        alt,
			Context:    ctx,
			DOMContext: domCtx,
			Tag:        r.tag,
			Nofollow:   r.nofollow,
			HrefLang:   r.hreflang,
		})
	}
	return out
}

// resolveImages resolves the image links like resolveLinks does hrefs: one
// per distinct URL, the first alt and title kept, at most maxLinks.
func (w *walker) resolveImages(base *url.URL, pageNorm string) []Image {
	var out []Image
	seen := map[string]int{}
	for _, im := range w.images {
		abs := resolveHref(base, im.URL, pageNorm, w.queryEnc)
		if abs == "" {
			continue
		}
		if k, ok := seen[abs]; ok {
			if out[k].Alt == "" {
				out[k].Alt = im.Alt
			}
			continue
		}
		if len(out) >= w.maxLinks {
			break
		}
		seen[abs] = len(out)
		im.URL = abs
		out = append(out, im)
	}
	return out
}

// resolveHref returns the normalised absolute URL of href, or "" when the
// link is dropped: unparsable, not http(s), or the page itself. Its query is
// percent-encoded in queryEnc (nil: UTF-8), the page's encoding.
func resolveHref(base *url.URL, href, pageNorm string, queryEnc encoding.Encoding) string {
	href = cleanHref(href)
	if href == "" || unwantedScheme(href) {
		return ""
	}
	abs, err := urlnorm.ResolveEncoding(base, href, queryEnc)
	if err != nil || abs == pageNorm {
		return "" // dropped silently by design
	}
	return abs
}

// mergeLink folds a repeated occurrence into the first one: the first context
// stays, new anchor and alt texts are appended, and the link stays nofollow
// only if every occurrence is (one followable link is enough to follow it).
func mergeLink(l *Link, anchor, title, alt string, nofollow bool) {
	l.Anchor = appendDistinct(l.Anchor, anchor, maxAnchorBytes)
	l.Alt = appendDistinct(l.Alt, alt, maxMetaBytes)
	if l.Title == "" {
		l.Title = title
	}
	l.Nofollow = l.Nofollow && nofollow
}

const partSep = " | "

// appendDistinct appends part to the " | "-separated list unless it is empty,
// already listed, or would make the list longer than limit bytes.
func appendDistinct(list, part string, limit int) string {
	if part == "" {
		return list
	}
	if list == "" {
		return truncate(part, limit)
	}
	for rest := list; ; {
		p, tail, found := strings.Cut(rest, partSep)
		if p == part {
			return list
		}
		if !found {
			break
		}
		rest = tail
	}
	if len(list)+len(partSep)+len(part) > limit {
		return list
	}
	return list + partSep + part
}

// context returns up to contextBytes bytes of text before start and after
// end (seed 001's "30 bytes either side"), cut on rune boundaries so that no
// character is split — in UTF-8 Chinese that is 10 characters a side —,
// skipping the space that borders the anchor, joined by one space.
func context(text string, start, end int) string {
	start, end = min(start, len(text)), min(end, len(text))
	before := strings.TrimRight(text[:start], " ")
	i := max(len(before)-contextBytes, 0)
	for i < len(before) && !utf8.RuneStart(before[i]) {
		i++
	}
	before = strings.TrimLeft(before[i:], " ")

	after := strings.TrimLeft(text[end:], " ")
	after = strings.TrimRight(truncate(after, contextBytes), " ")

	switch {
	case before == "":
		return after
	case after == "":
		return before
	}
	return before + " " + after
}

// linkContext is the context of the link whose text is text[start:end]:
// read in the visible text when the link is visible, so that hidden words
// beside it (keyword stuffing next to a "next" link) are not its context;
// a hidden link's (its text was cut) is read where its text is.
func (w *walker) linkContext(text, visible string, start, end int) string {
	if w.visibleAt != nil {
		if s, e := w.visibleAt(start), w.visibleAt(end); e > s || end <= start {
			return context(visible, s, e)
		}
	}
	return context(text, start, end)
}

// cleanHref trims an href and removes the tabs and newlines that browsers
// ignore inside URLs (markup often wraps long hrefs).
func cleanHref(href string) string {
	href = strings.TrimSpace(href)
	if strings.ContainsAny(href, "\t\n\r") {
		href = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, href)
	}
	return href
}

// unwantedScheme spots the common non-web schemes without parsing; urlnorm
// rejects any other non-http(s) scheme anyway.
func unwantedScheme(href string) bool {
	for _, s := range [...]string{"javascript:", "mailto:", "tel:", "data:"} {
		if len(href) >= len(s) && strings.EqualFold(href[:len(s)], s) {
			return true
		}
	}
	return false
}

// truncate cuts s to at most limit bytes at a rune boundary.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	i := limit
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.TrimRight(s[:i], " ")
}
