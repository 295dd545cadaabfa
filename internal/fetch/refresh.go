package fetch

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page whose <meta http-equiv="refresh"> sends the browser elsewhere
// within metaRefreshMaxDelay seconds is a redirect written in HTML: an old
// manual's root ("Redirecting to the documentation index..."), a moved
// page's stub. Fetch follows it like a 3xx hop — robots.txt, politeness,
// the loop check and MaxRedirects alike — so the crawl judges the page
// the browser would show, not the stub, which has neither text nor links
// of its own. A longer delay (a page that reloads itself every few
// minutes, a "you will be taken there in 30 seconds" page with content)
// is left alone. focuscrawl's choice, as crawlers such as Nutch make it
// (a refresh under a threshold is a redirect).
const metaRefreshMaxDelay = 5

// headerRefresh returns the URL reference of a Refresh response header
// when it is a redirect, as metaRefresh does for the element: the header
// is the element's original (PHP's header("Refresh: 0; url=…") writes
// it), browsers follow it, and a stub answered so — often with an empty
// body — was judged a page with no text and no links.
func headerRefresh(h http.Header) (ref string, ok bool) {
	if v := h.Get("Refresh"); v != "" {
		return refreshRedirect(v)
	}
	return "", false
}

// refreshRedirect returns the URL reference of a refresh's content when
// it is a redirect: a delay of at most metaRefreshMaxDelay seconds and a
// URL.
func refreshRedirect(content string) (ref string, ok bool) {
	delay, ref, ok := parseRefresh(content)
	if !ok || ref == "" || delay > metaRefreshMaxDelay {
		return "", false
	}
	return ref, true
}

// metaRefreshScan bounds how much of a body is searched for the element: a
// refresh stub is a few hundred bytes, and the element belongs in <head>.
const metaRefreshScan = 32 << 10

// metaRefresh returns the URL reference of body's meta refresh when it is
// a redirect (a delay of at most metaRefreshMaxDelay seconds and a URL);
// the first refresh element counts, as in browsers.
func metaRefresh(body []byte) (ref string, ok bool) {
	head := body[:min(len(body), metaRefreshScan)]
	if !containsFoldASCII(head, "refresh") {
		return "", false // most pages: no tokenizing
	}
	z := html.NewTokenizer(bytes.NewReader(head))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return "", false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, attrs := z.TagName()
			if atom.Lookup(name) != atom.Meta || !attrs {
				continue
			}
			var equiv, content string
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "http-equiv":
					equiv = string(v)
				case "content":
					content = string(v)
				}
			}
			if strings.EqualFold(strings.TrimSpace(equiv), "refresh") {
				return refreshRedirect(content)
			}
		}
	}
}

// baseHref returns the href of body's first <base> element with one (the
// document's base URL, wherever it stands in the head), or "".
func baseHref(body []byte) string {
	head := body[:min(len(body), metaRefreshScan)]
	if !containsFoldASCII(head, "<base") {
		return ""
	}
	z := html.NewTokenizer(bytes.NewReader(head))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, attrs := z.TagName()
			if atom.Lookup(name) != atom.Base || !attrs {
				continue
			}
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "href" {
					return strings.TrimSpace(string(v))
				}
			}
		}
	}
}

// parseRefresh reads a refresh content attribute as the HTML standard's
// shared declarative refresh steps do: a delay in whole seconds (digits;
// a fraction after them is ignored, ".5" is 0), then optionally ';' or ',', "url", '=' and the URL,
// quoted or not. ok is false when there is no delay, or when the delay is
// followed by anything but whitespace, ';' or ',' (no refresh at all).
func parseRefresh(s string) (delay float64, ref string, ok bool) {
	s = strings.TrimLeft(s, " \t\n\f\r")
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	i := digits
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++ // the fraction (and any further dots) is read and ignored
	}
	if i == 0 {
		return 0, "", false
	}
	d := 0.0
	if digits > 0 {
		var err error
		if d, err = strconv.ParseFloat(s[:digits], 64); err != nil {
			return 0, "", false
		}
	}
	if i < len(s) && !strings.ContainsRune(" \t\n\f\r;,", rune(s[i])) {
		return 0, "", false // "5abc", "1e3": the standard's step 10.1 aborts, browsers stay
	}
	s = strings.TrimLeft(s[i:], " \t\n\f\r")
	if s != "" && (s[0] == ';' || s[0] == ',') {
		s = strings.TrimLeft(s[1:], " \t\n\f\r")
	}
	if len(s) >= 3 && strings.EqualFold(s[:3], "url") {
		rest := strings.TrimLeft(s[3:], " \t\n\f\r")
		if rest != "" && rest[0] == '=' {
			s = strings.TrimLeft(rest[1:], " \t\n\f\r")
		}
	}
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		q := s[0]
		s = s[1:]
		if j := strings.IndexByte(s, q); j >= 0 {
			s = s[:j]
		}
	}
	return d, strings.TrimSpace(s), true
}

// containsFoldASCII reports whether b contains the lower-case ASCII word
// w in any letter case, without copying b.
func containsFoldASCII(b []byte, w string) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		j := 0
		for ; j < len(w); j++ {
			c := b[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
		}
		if j == len(w) {
			return true
		}
	}
	return false
}
