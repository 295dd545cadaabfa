package robots

import "strings"

// ProductToken is the lower-cased product token of a User-Agent header
// value ("FocusCrawl/1.0 (+https://x)" gives "focuscrawl"): the name
// robots.txt groups, X-Robots-Tag headers and robots <meta> tags address a
// crawler by.
func ProductToken(userAgent string) string { return productToken(userAgent) }

// colonDirectives are the X-Robots-Tag directives that carry a value after
// a colon; any other name before a value's first colon is a user agent.
var colonDirectives = map[string]bool{
	"unavailable_after": true, "max-snippet": true, "max-image-preview": true, "max-video-preview": true,
}

// TagDirectives reads what a robots directive list says to the crawler
// whose product token is token: the content of a <meta name="robots"> (or
// <meta name="TOKEN">) tag, or one X-Robots-Tag header value, which may
// address one crawler ("otherbot: noindex, nofollow": not us). Directives
// are comma- or space-separated and case-insensitive; "none" is both.
func TagDirectives(value, token string) (noindex, nofollow bool) {
	value = strings.TrimSpace(value)
	if name, rest, ok := strings.Cut(value, ":"); ok {
		name = strings.ToLower(strings.TrimSpace(name))
		if !colonDirectives[name] && !strings.ContainsAny(name, " ,") {
			if name != token {
				return false, false // addressed to another crawler
			}
			value = rest
		}
	}
	for _, tok := range strings.FieldsFunc(value, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	}) {
		switch strings.ToLower(tok) {
		case "noindex":
			noindex = true
		case "nofollow":
			nofollow = true
		case "none":
			noindex, nofollow = true, true
		}
	}
	return noindex, nofollow
}
