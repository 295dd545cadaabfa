// Package robots parses robots.txt files (RFC 9309) and answers whether a
// crawler may fetch a path.
//
// Besides the RFC it understands the common extensions: Crawl-delay
// (fractional seconds allowed), Sitemap, and the usual misspellings of the
// directive names that real sites use ("useragent", "dissallow", ...). Parsing
// never fails: unknown or malformed lines are skipped, as the RFC asks, so a
// broken file restricts as little as possible.
package robots

import (
	"bytes"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	xunicode "golang.org/x/text/encoding/unicode"

	"focuscrawl/internal/urlnorm"
)

// MaxBodyBytes is how much of a robots.txt file is parsed. RFC 9309 §2.5 lets
// crawlers stop at 500 KiB; the rest is ignored.
const MaxBodyBytes = 500 << 10

// maxCrawlDelay caps Crawl-delay so a hostile value cannot park a host for
// ever or overflow time.Duration.
const maxCrawlDelay = 24 * time.Hour

// Rules is the outcome of parsing one robots.txt for one user agent: the rules
// of the group that applies to it, plus the file's sitemaps. The zero value
// and a nil *Rules allow everything. A Rules is immutable and safe for
// concurrent use.
type Rules struct {
	rules      []rule
	crawlDelay time.Duration
	sitemaps   []string
}

// rule is one Allow or Disallow line with its pattern in canonical form.
type rule struct {
	allow    bool
	pattern  string   // canonical encoding; '*' is a wildcard
	pieces   []string // pattern split at its '*'s (see compile)
	anchored bool     // pattern ended in '$': must match the whole path
	length   int      // specificity: octets of the pattern as written (canonical)
}

// AllowAll returns rules that allow every path, used when robots.txt is
// missing (4xx).
func AllowAll() *Rules { return &Rules{} }

// DisallowAll returns rules that forbid every path except /robots.txt itself,
// used when robots.txt is unreachable (5xx, network failure).
func DisallowAll() *Rules {
	return &Rules{rules: []rule{{allow: false, pattern: "/", pieces: []string{"/"}, length: 1}}}
}

// group is one user-agent group being collected during parsing.
type group struct {
	agents     []string // lower-cased product tokens from user-agent lines
	rules      []rule
	crawlDelay time.Duration
	hasDelay   bool
}

// Parse parses a robots.txt body and keeps the group that applies to
// userAgent. The group is chosen by the product token of userAgent (the part
// before the first '/' or space, e.g. "focuscrawl" in
// "FocusCrawl/1.0 (+https://...)"), compared case-insensitively: an exact
// match wins, else the longest user-agent token that ours continues after a
// '-' or '_' ("focuscrawl" for "FocusCrawl-Test"),
// else the "*" group; all groups naming the winning token are merged
// (RFC 9309 §2.2.1). With no applicable group everything is allowed.
//
// Parse is tolerant: a UTF-8 BOM, UTF-16 with a BOM (decoded), CRLF or CR
// line ends, a missing final newline, comments and junk lines are all
// accepted, and bodies over
// MaxBodyBytes are truncated: the line cut there is dropped, since
// "Disallow: /private" cut after "Disallow: /" would forbid the whole site.
// A body of exactly MaxBodyBytes (the fetcher reads no more) counts as cut.
func Parse(body []byte, userAgent string) *Rules {
	cut := len(body) >= MaxBodyBytes
	if cut {
		body = body[:MaxBodyBytes]
	}
	// The cut line is found in the text: in UTF-16 a line feed's byte is
	// half a character.
	body = toUTF8(body)
	if cut {
		body = body[:bytes.LastIndexAny(body, "\r\n")+1]
	}
	me := productToken(userAgent)

	var (
		groups   []*group
		cur      *group
		inAgents bool // the previous directive was a user-agent line
		sitemaps []string
		seenMap  = map[string]bool{}
	)
	for _, line := range splitLines(body) {
		key, value, ok := parseLine(line)
		if !ok {
			continue
		}
		switch key {
		case keyUserAgent:
			if !inAgents {
				cur = &group{}
				groups = append(groups, cur)
				inAgents = true
			}
			if tok := agentToken(value); tok != "" {
				cur.agents = append(cur.agents, tok)
			}
		case keyAllow, keyDisallow:
			inAgents = false
			if cur == nil || value == "" {
				// Rules before any user-agent line belong to no group;
				// an empty Disallow means "nothing is disallowed".
				continue
			}
			cur.rules = append(cur.rules, newRule(key == keyAllow, value))
		case keyCrawlDelay:
			inAgents = false
			if cur == nil || cur.hasDelay {
				continue
			}
			if d, ok := parseDelay(value); ok {
				cur.crawlDelay, cur.hasDelay = d, true
			}
		case keySitemap:
			// Sitemap lines stand outside groups and do not end one.
			if value != "" && !seenMap[value] {
				seenMap[value] = true
				sitemaps = append(sitemaps, value)
			}
		}
	}

	r := &Rules{sitemaps: sitemaps}
	chosen := chooseAgent(groups, me)
	if chosen == "" {
		return r
	}
	delaySet := false
	for _, g := range groups {
		if !g.names(chosen) {
			continue
		}
		r.rules = append(r.rules, g.rules...)
		if g.hasDelay && !delaySet {
			r.crawlDelay, delaySet = g.crawlDelay, true
		}
	}
	r.rules = orderRules(r.rules)
	return r
}

// toUTF8 returns b without its byte order mark (trimBOM), decoded when the
// mark says UTF-16: Windows editors save "Unicode" text so, and read as
// bytes such a file had no line the parser knows, so every rule of the
// site was ignored and everything allowed.
func toUTF8(b []byte) []byte {
	if !bytes.HasPrefix(b, []byte{0xFF, 0xFE}) && !bytes.HasPrefix(b, []byte{0xFE, 0xFF}) {
		return trimBOM(b)
	}
	// The mark decides the byte order. The decoder never fails: bad units
	// (an odd last byte) become U+FFFD.
	out, _ := xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM).NewDecoder().Bytes(b)
	return out
}

// trimBOM drops a UTF-8 byte order mark, and also a truncated one (the first
// one or two of its bytes): a file that starts with a stray "\xEF\xBB" would
// otherwise lose its first line, typically its "User-agent: *".
func trimBOM(b []byte) []byte {
	const bom = "\xEF\xBB\xBF"
	for n := len(bom); n > 0; n-- {
		if bytes.HasPrefix(b, []byte(bom[:n])) {
			return b[n:]
		}
	}
	return b
}

// orderRules drops repeated rules and sorts the rest so that the first rule
// that matches a path decides it: longest pattern first, Allow before
// Disallow among equally long ones (RFC 9309 §2.2.2 lets the least
// restrictive rule win a tie). Allowed can then stop at the first match.
func orderRules(rules []rule) []rule {
	type key struct {
		allow, anchored bool
		pattern         string
	}
	seen := make(map[key]bool, len(rules))
	out := rules[:0]
	for _, ru := range rules {
		k := key{ru.allow, ru.anchored, ru.pattern}
		if !seen[k] {
			seen[k] = true
			out = append(out, ru)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].length != out[j].length {
			return out[i].length > out[j].length
		}
		return out[i].allow && !out[j].allow
	})
	return out
}

// chooseAgent returns the user-agent token whose groups apply to the product
// token me: me itself if some group names it, else the longest named token
// that is a prefix of me ending at a '-' or '_' of me (a group for
// "focuscrawl" applies to "focuscrawl-test", as Googlebot's groups to
// Googlebot-Image; one for "focus" does not apply to "focuscrawl": RFC 9309
// §2.2.1 matches product tokens, not their prefixes), else "*" if present,
// else "".
func chooseAgent(groups []*group, me string) string {
	best, star := "", false
	for _, g := range groups {
		for _, a := range g.agents {
			switch {
			case a == "*":
				star = true
			case a == me:
				return me
			case strings.HasPrefix(me, a) && len(me) > len(a) && (me[len(a)] == '-' || me[len(a)] == '_') && len(a) > len(best):
				best = a
			}
		}
	}
	if best != "" {
		return best
	}
	if star {
		return "*"
	}
	return ""
}

func (g *group) names(token string) bool {
	for _, a := range g.agents {
		if a == token {
			return true
		}
	}
	return false
}

// productToken extracts the lower-cased product token from a User-Agent
// header value: "FocusCrawl/1.0 (+https://x)" gives "focuscrawl".
func productToken(ua string) string {
	ua = strings.TrimSpace(ua)
	if i := strings.IndexAny(ua, "/ \t;("); i >= 0 {
		ua = ua[:i]
	}
	return strings.ToLower(ua)
}

// agentToken reads the value of a user-agent line. Sites often write a full
// "Name/1.2" there; only the product token is compared.
func agentToken(v string) string {
	if strings.HasPrefix(v, "*") {
		return "*"
	}
	return productToken(v)
}

type directive int

const (
	keyUnknown directive = iota
	keyUserAgent
	keyAllow
	keyDisallow
	keyCrawlDelay
	keySitemap
)

// directives maps lower-cased directive names, including misspellings seen
// in the wild, to their meaning.
var directives = map[string]directive{
	"user-agent": keyUserAgent, "useragent": keyUserAgent, "user agent": keyUserAgent, "user_agent": keyUserAgent,
	"allow":    keyAllow,
	"disallow": keyDisallow, "dissallow": keyDisallow, "dissalow": keyDisallow, "disalow": keyDisallow,
	"diasllow": keyDisallow, "disallaw": keyDisallow, "dis-allow": keyDisallow,
	"crawl-delay": keyCrawlDelay, "crawldelay": keyCrawlDelay, "crawl_delay": keyCrawlDelay, "crawl delay": keyCrawlDelay,
	"sitemap": keySitemap, "site-map": keySitemap, "site map": keySitemap,
}

// splitLines splits on LF, CRLF and lone CR.
func splitLines(b []byte) []string {
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}

// parseLine splits "Key: value # comment" into a known directive and its
// value. A missing colon is tolerated when the key is a known directive
// followed by whitespace ("Disallow /tmp") — also when the value holds a
// colon ("Disallow /a:b", "Sitemap https://…"), whose first colon is then
// no key's end: split there, the line named no directive and a Disallow the
// site wrote was ignored.
func parseLine(line string) (directive, string, bool) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return keyUnknown, "", false
	}
	lookup := func(key string) (directive, bool) {
		d, ok := directives[strings.ToLower(strings.Join(strings.Fields(key), " "))]
		return d, ok
	}
	if i := strings.IndexByte(line, ':'); i >= 0 {
		if d, ok := lookup(line[:i]); ok {
			return d, strings.TrimSpace(line[i+1:]), true
		}
	}
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		if d, ok := lookup(line[:i]); ok {
			return d, strings.TrimSpace(line[i+1:]), true
		}
	}
	return keyUnknown, "", false
}

// delayUnits are the units a Crawl-delay value is sometimes written with
// ("5 seconds", "10s", "1 minute", "500ms"): the site means a delay, and
// ignoring it would crawl it at the configured pace instead. Seconds are
// the default, and what a number with a unit not listed here is read as
// ("10 sekunden"): the standard's unit, and never less polite than
// ignoring the line.
var delayUnits = map[string]float64{
	"ms": 0.001, "msec": 0.001, "millisecond": 0.001, "milliseconds": 0.001,
	"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
	"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
	"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
}

// parseDelay reads a Crawl-delay value in seconds, fractions allowed (with
// a decimal point or a decimal comma), with an optional unit (delayUnits).
func parseDelay(v string) (time.Duration, bool) {
	v = decimalPoint(v)
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		// A trailing unit word: the letters at the end.
		num := strings.TrimRightFunc(v, unicode.IsLetter)
		unit, ok := delayUnits[strings.ToLower(v[len(num):])]
		if !ok {
			unit = 1
		}
		if num == "" {
			return 0, false
		}
		if f, err = strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil {
			f *= unit
		}
	}
	if errors.Is(err, strconv.ErrRange) && f > 0 {
		err = nil // too large for a float64 (1e400): +Inf, capped below, not ignored
	}
	if err != nil || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	if f >= maxCrawlDelay.Seconds() {
		return maxCrawlDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}

// decimalPoint writes a decimal comma ("1,5", as much of Europe writes
// 1.5) as a point: the site asks for a delay of a second and a half, and
// ignoring the line would crawl it at the configured pace. Only one comma
// with digits on both sides, and not three digits after it ("1,000" may
// be a thousands separator: left unreadable, as before).
func decimalPoint(v string) string {
	i := strings.IndexByte(v, ',')
	if i < 0 || strings.Count(v, ",") > 1 {
		return v
	}
	frac := v[i+1:]
	digits := len(frac) - len(strings.TrimLeftFunc(frac, isDigit))
	if i == 0 || !isDigit(rune(v[i-1])) || digits == 0 || digits == 3 {
		return v
	}
	return v[:i] + "." + frac
}

// isDigit reports whether r is an ASCII digit.
func isDigit(r rune) bool { return '0' <= r && r <= '9' }

func newRule(allow bool, value string) rule {
	// A '$' only anchors at the end of a pattern; elsewhere it is literal.
	anchored := strings.HasSuffix(value, "$")
	if anchored {
		value = value[:len(value)-1]
	}
	p := canonical(value)
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "*") {
		p = "/" + p
	}
	length := len(p)
	if anchored {
		length++
	}
	return rule{allow: allow, pattern: p, pieces: compile(p), anchored: anchored, length: length}
}

// Allowed reports whether pathAndQuery (such as "/a/b?c=d", the request URI
// of a URL) may be fetched. The most specific matching rule (the longest
// pattern) decides, Allow winning a tie; with no match the path is allowed.
// Patterns may use '*' for any run of characters and a final '$' to anchor at
// the end. Percent-encoding is made canonical on both sides before matching,
// so "/%7Ejoe" and "/~joe" compare equal. "/robots.txt" is always allowed.
func (r *Rules) Allowed(pathAndQuery string) bool {
	if r == nil || len(r.rules) == 0 {
		return true
	}
	p := literalOperators(canonical(pathAndQuery))
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if p == "/robots.txt" || strings.HasPrefix(p, "/robots.txt?") {
		return true
	}
	for _, ru := range r.rules { // ordered: the first match is the most specific
		if match(ru.pieces, ru.anchored, p) {
			return ru.allow
		}
	}
	return true
}

// CrawlDelay returns the Crawl-delay of the chosen group, 0 if it has none.
func (r *Rules) CrawlDelay() time.Duration {
	if r == nil {
		return 0
	}
	return r.crawlDelay
}

// Sitemaps returns the Sitemap URLs listed anywhere in the file, in order,
// without duplicates. The caller must not modify the slice.
func (r *Rules) Sitemaps() []string {
	if r == nil {
		return nil
	}
	return r.sitemaps
}

// compile splits a canonical pattern into its literal pieces around '*'
// (runs of stars count as one) for match.
func compile(pattern string) []string {
	pieces := strings.Split(pattern, "*")
	for i, p := range pieces {
		pieces[i] = literalOperators(p)
	}
	if len(pieces) == 1 {
		return pieces
	}
	out := pieces[:1]
	for _, p := range pieces[1 : len(pieces)-1] {
		if p != "" {
			out = append(out, p)
		}
	}
	return append(out, pieces[len(pieces)-1])
}

// indexFunc finds a literal piece in the path; a variable so that the tests
// can count the bytes each match examines.
var indexFunc = strings.Index

// match reports whether the compiled pattern (pieces: the literal text
// between the '*'s, see compile) matches a prefix of path, or the whole path
// when anchored. It runs in O(len(path) + len(pattern)): the first piece must
// be a prefix of path, every middle piece is matched at its leftmost
// occurrence after the previous one (taking the leftmost occurrence never
// loses a match, because a later '*' can swallow whatever lies between), and
// the last piece is either matched leftmost too (unanchored: the rest of the
// path is free) or must end the path (anchored). No position of the path is
// examined twice for the same piece, so a hostile robots.txt cannot make a
// check quadratic the way backtracking over '*' can.
func match(pieces []string, anchored bool, path string) bool {
	first := pieces[0]
	if !strings.HasPrefix(path, first) {
		return false
	}
	if len(pieces) == 1 {
		return !anchored || len(path) == len(first)
	}
	rest := path[len(first):]
	last := pieces[len(pieces)-1]
	for _, p := range pieces[1 : len(pieces)-1] {
		i := indexFunc(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	if anchored {
		return len(rest) >= len(last) && strings.HasSuffix(rest, last)
	}
	return last == "" || indexFunc(rest, last) >= 0
}

// literalOperators decodes "%2A" and "%24" in a canonical path, or in a
// pattern's literal text between its operators: RFC 9309 §2.2.3 has a
// pattern write a literal '*' or '$' encoded ("/file-with-a-%2A.html"
// matches "/file-with-a-*.html"), and a URL may carry either form.
func literalOperators(s string) string {
	if !strings.Contains(s, "%2A") && !strings.Contains(s, "%24") {
		return s
	}
	return strings.NewReplacer("%2A", "*", "%24", "$").Replace(s)
}

// canonical makes percent-encoding canonical (RFC 9309 §2.2.2) with the URL
// normaliser's rules, so patterns and URLs compare alike. '*' and '$' are
// left alone: in patterns they are operators.
func canonical(s string) string { return urlnorm.CanonicalEscapes(s) }
