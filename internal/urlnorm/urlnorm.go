// Package urlnorm is focuscrawl's one URL normaliser. Every URL that enters the
// frontier, the page table, the link graph or the index goes through Normalize
// (or Resolve, for references found in a page), so that two spellings of the
// same resource share one key and one hash.
//
// Normalisation: scheme lower-cased; the host mapped and converted to ASCII
// by UTS #46 (IDNA) processing, as browsers and resolvers do, so that every
// spelling that dials the same name ("ＥＸＡＭＰＬＥ.com", "example。com",
// "ⓔⓧⓐⓜⓟⓛⓔ.com", "bücher.example" and its punycode) gives one host key —
// the key of politeness, robots.txt and per-host caps; default ports (:80
// for http, :443 for https) removed and ports outside 1–65535 refused; empty
// path becomes "/"; dot segments resolved; runs of slashes in the path
// collapsed; percent-encoding made canonical (unreserved characters decoded,
// hex digits upper-cased, bytes that are illegal in a query such as spaces
// and non-ASCII escaped); fragment dropped; session identifiers removed
// wherever servers put them (well-known query parameters, ";jsessionid=…"
// path parameters, ASP.NET "(S(…))" cookieless segments) along with "utm_*"
// and click-ID tracking parameters — all classic spider traps that give one
// page endless URLs; a trailing "?" removed. Query parameter order is
// preserved: some sites give it meaning. A reference found in a page that
// was not UTF-8 has its query's non-ASCII characters percent-encoded in the
// page's encoding (ResolveEncoding), as browsers send them.
package urlnorm

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/encoding"
)

// MaxLength is the longest normalised URL accepted. Longer URLs are nearly
// always generated (spider traps, tracking blobs) and are refused.
const MaxLength = 2048

// ErrUnsupportedScheme is returned for URLs that are not http or https
// (mailto:, javascript:, ftp:, data: ...).
var ErrUnsupportedScheme = errors.New("urlnorm: unsupported scheme")

// sessionParams are query parameters that carry a session identifier. Dropping
// them keeps one page from appearing under endless URLs.
// "sessid" (PHP applications' own name) and "xtcsid" (xt:Commerce shops,
// their forks) are added to every link for a visitor without cookies, as
// a crawler is: each answer then links to URLs no earlier one had.
var sessionParams = map[string]bool{
	"jsessionid": true, "phpsessid": true, "sid": true, "sessionid": true,
	"session_id": true, "aspsessionid": true, "cfid": true, "cftoken": true,
	"zenid": true, "oscsid": true, "sessid": true, "xtcsid": true,
}

// trackingParams are click and campaign identifiers that, like utm_*
// parameters, say where a visitor came from and never change the page:
// ad networks' click IDs (Google, Facebook, Microsoft, Yandex, TikTok,
// X/Twitter, LinkedIn, Instagram), Google Analytics' cross-domain linker
// (_ga, _gl), mail campaigns (Mailchimp, HubSpot, Marketo) and Google's
// search-result ID (srsltid). Each one differs per visit, so a page linked
// from a mail or an ad would otherwise be crawled once per link.
var trackingParams = map[string]bool{
	"gclid": true, "fbclid": true, "msclkid": true, "dclid": true, "yclid": true,
	"gbraid": true, "wbraid": true, "ttclid": true, "twclid": true, "li_fat_id": true,
	"igshid": true, "_ga": true, "_gl": true, "mc_cid": true, "mc_eid": true,
	"_hsenc": true, "_hsmi": true, "mkt_tok": true, "srsltid": true,
}

// aspNetSession matches an ASP.NET cookieless-session path segment such as
// "(S(lit3py55t21z5v55vlm25s55))" or "(A(x)S(y)F(z))".
var aspNetSession = regexp.MustCompile(`^\((?:[A-Za-z]\([A-Za-z0-9_-]*\))+\)$`)

// hostProfile is UTS #46 processing for lookup, the mapping browsers apply
// before they resolve a name. Hyphen placement and STD3 rules are not
// enforced (real hosts use "_" and leading hyphens), but labels must still
// be valid: bad punycode is refused.
var hostProfile = idna.New(idna.MapForLookup(), idna.Transitional(false),
	idna.StrictDomainName(false), idna.CheckHyphens(false), idna.BidiRule())

// CanonicalHost maps a host name (no port) to its host key: UTS #46 mapped
// and converted to lower-case ASCII (punycode), trailing dots removed. IPv6
// literals come back in their RFC 5952 form, lower-cased. Topic scope
// patterns go through it too, so they compare equal to the hosts of
// normalised URLs.
func CanonicalHost(host string) (string, error) {
	host = strings.TrimRight(host, ".")
	if strings.Contains(host, ":") { // IPv6 literal: no IDNA
		// One address has many spellings ("0:0:0:0:0:0:0:1", "::0001",
		// "::ffff:0102:0304"); each would get its own politeness slot and
		// robots.txt. The RFC 5952 form is the key. What does not parse is
		// left for validHost to refuse.
		if a, err := netip.ParseAddr(host); err == nil {
			host = a.String()
		}
		return strings.ToLower(host), nil
	}
	if plainASCIIHost(host) {
		// UTS #46 maps such a name to itself lower-cased; skipping it saves
		// most of Normalize's time on the common case.
		return strings.ToLower(host), nil
	}
	if !utf8.ValidString(host) {
		return "", errors.New("urlnorm: host is not valid UTF-8")
	}
	a, err := hostProfile.ToASCII(host)
	if err != nil {
		return "", err
	}
	// Mapping can produce trailing dots ("example.com。"): trim again, or
	// the result would not be idempotent.
	a = strings.TrimRight(strings.ToLower(a), ".")
	// A key must be its own key: mapping can yield labels (from U+FFFD,
	// say) whose punycode does not decode back.
	if again, err := hostProfile.ToASCII(a); err != nil || again != a {
		return "", fmt.Errorf("urlnorm: host %q does not map to a stable name", truncate(host))
	}
	return a, nil
}

// Normalize parses raw as an absolute http(s) URL and returns its canonical
// form. An error for an address written without its scheme, as an address
// bar shows it ("127.0.0.1:8089/", "www.example.com/docs"), says which URL
// was probably meant: a user trial's seed "127.0.0.1:28089/" was refused
// with net/url's "first path segment in URL cannot contain colon", twice.
func Normalize(raw string) (string, error) {
	n, err := normalize(raw)
	if err != nil {
		if meant := withScheme(raw); meant != "" {
			err = fmt.Errorf("%w; without a scheme: did you mean %q?", err, meant)
		}
	}
	return n, err
}

func normalize(raw string) (string, error) {
	u, err := url.Parse(escapeStrayPercents(strings.TrimSpace(raw)))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats `parse "raw":`
		}
		return "", fmt.Errorf("urlnorm: parse %q: %w", truncate(raw), err)
	}
	if !u.IsAbs() {
		return "", fmt.Errorf("urlnorm: %q is not an absolute URL", truncate(raw))
	}
	return normalizeURL(u, raw)
}

// withScheme returns the normalised "http://" + raw when that is a URL and
// raw has no "://" and is not a path: raw was a URL without its scheme. It
// returns "" otherwise (mailto:, javascript: and the like stay unsuggested:
// what follows their colon is no port, and an '@' would make "mailto:x@host"
// user info). Its first segment must look like a host — a dot, a port or
// localhost — so that a relative path ("docs/index.html") gets no
// "http://docs/index.html".
func withScheme(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.Contains(raw, "://") || strings.HasPrefix(raw, "/") || strings.Contains(raw, "@") {
		return ""
	}
	host, _, _ := strings.Cut(raw, "/")
	if !strings.ContainsAny(host, ".:") && !strings.EqualFold(host, "localhost") {
		return ""
	}
	n, err := normalize("http://" + raw)
	if err != nil {
		return ""
	}
	return n
}

// Resolve resolves ref (an href found in a page, or a redirect's Location)
// against base and normalises the result. base is the page's effective base
// URL (its <base href>, or its final URL after redirects). As in browsers,
// ASCII tabs and newlines are removed and a '\' before the query or
// fragment is read as '/' in http(s) URLs.
func Resolve(base *url.URL, ref string) (string, error) {
	return ResolveEncoding(base, ref, nil)
}

// ResolveEncoding is Resolve for a reference found in a page written in
// enc (nil: UTF-8): the non-ASCII characters of its query are
// percent-encoded in enc, as the WHATWG URL parser does with a document's
// encoding, because a site serving GBK pages decodes its query strings as
// GBK ("?t=错误" is "?t=%B4%ED%CE%F3" there, and its UTF-8 escapes name
// nothing). A character enc cannot encode becomes a numeric character
// reference ("&#128512;"), as in browsers. The path and the fragment are
// always UTF-8, and a redirect's Location is not a document's: Resolve.
func ResolveEncoding(base *url.URL, ref string, enc encoding.Encoding) (string, error) {
	u, ref, err := resolveRef(base, ref, enc)
	if err != nil {
		return "", err
	}
	return normalizeURL(u, ref)
}

// resolveRef resolves ref against base as browsers do (see ResolveEncoding)
// and returns the result, not normalised yet, and ref as cleaned.
func resolveRef(base *url.URL, ref string, enc encoding.Encoding) (*url.URL, string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, "", errors.New("urlnorm: empty reference")
	}
	// Browsers remove ASCII tabs and newlines anywhere in a URL (WHATWG
	// URL): an href or Location wrapped over lines still works in them.
	if strings.ContainsAny(ref, "\t\n\r") {
		ref = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(ref)
	}
	ref = browserSlashes(ref)
	// "http:x" against an http base is "x" (WHATWG URL: a special scheme
	// like the base's, without "//", is relative); url.Parse would make it
	// an opaque URL, refused below.
	if i := len(base.Scheme); i > 0 && len(ref) > i && ref[i] == ':' && strings.EqualFold(ref[:i], base.Scheme) &&
		!strings.HasPrefix(ref[i+1:], "//") && (base.Scheme == "http" || base.Scheme == "https") {
		ref = ref[i+1:]
	}
	if enc != nil {
		ref = encodeQuery(ref, enc)
	}
	r, err := url.Parse(escapeStrayPercents(ref))
	if err != nil {
		return nil, ref, fmt.Errorf("urlnorm: parse reference %q: %w", truncate(ref), err)
	}
	return base.ResolveReference(r), ref, nil
}

// ResolveRequest is Resolve that also returns the URL to ask for: the
// reference resolved with the key's scheme and host (canonical, no default
// port) but its own path and query, as the server wrote them — with what
// the key drops (a session ID, a tracking parameter) or spells otherwise.
// A redirect's target is asked for so: a server that adds a session ID to
// a URL (Tomcat's cookieless sessions, "/a" to "/a;jsessionid=…") answers
// a request for the key, without it, with the same redirect again.
func ResolveRequest(base *url.URL, ref string) (key, request string, err error) {
	u, ref, err := resolveRef(base, ref, nil)
	if err != nil {
		return "", "", err
	}
	raw := *u // normalizeURL changes u
	if key, err = normalizeURL(u, ref); err != nil {
		return "", "", err
	}
	raw.Scheme, raw.Host, raw.User = u.Scheme, u.Host, nil
	raw.Fragment, raw.RawFragment = "", ""
	// url.URL escapes the path but sends RawQuery as it is: "?q=x y" went
	// out as a request line servers refuse (400). Escaped as browsers do,
	// nothing decoded.
	raw.RawQuery = escapeUnsafe(raw.RawQuery)
	if request = raw.String(); len(request) > MaxLength {
		request = key
	}
	return key, request, nil
}

// escapeUnsafe percent-encodes the bytes that may not appear in a request
// line's URL — controls, space, non-ASCII and "<>\^`{|} — and leaves every
// other byte, escapes included, as it is.
func escapeUnsafe(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			if b.Len() == 0 {
				b.Grow(len(s) + 8)
				b.WriteString(s[:i])
			}
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return s
	}
	return b.String()
}

// escapeStrayPercents escapes each '%' of ref that starts no escape
// ("/50%off") as "%25", which url.Parse would refuse — in the path and the
// fragment; the query, whose stray '%'s CanonicalEscapes keeps as they
// are, is left alone.
func escapeStrayPercents(ref string) string {
	if !strings.Contains(ref, "%") {
		return ref
	}
	q := strings.IndexAny(ref, "?#")
	var b strings.Builder
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		if i == q && c == '?' {
			// The query runs to the fragment, if any.
			end := strings.IndexByte(ref[i:], '#')
			if end < 0 {
				b.WriteString(ref[i:])
				break
			}
			b.WriteString(ref[i : i+end])
			i += end - 1
			continue
		}
		if c == '%' && !(i+2 < len(ref) && isHex(ref[i+1]) && isHex(ref[i+2])) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// encodeQuery percent-encodes the non-ASCII characters of ref's query (from
// its first '?' to its fragment) in enc. ASCII is the same in every
// encoding a page can be decoded from here, so it is left to url.Parse and
// CanonicalEscapes like the rest of the reference.
func encodeQuery(ref string, enc encoding.Encoding) string {
	end := len(ref)
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		end = i
	}
	start := strings.IndexByte(ref[:end], '?')
	if start < 0 {
		return ref
	}
	query := ref[start:end]
	i := strings.IndexFunc(query, func(r rune) bool { return r >= utf8.RuneSelf })
	if i < 0 {
		return ref
	}
	e := encoding.HTMLEscapeUnsupported(enc.NewEncoder())
	var b strings.Builder
	b.WriteString(ref[:start])
	for query != "" {
		j := strings.IndexFunc(query[i:], func(r rune) bool { return r < utf8.RuneSelf })
		if j < 0 {
			j = len(query)
		} else {
			j += i
		}
		b.WriteString(query[:i])
		raw, err := e.String(query[i:j])
		if err != nil { // invalid UTF-8 cannot come from a decoded page; keep it for url.Parse
			raw = query[i:j]
		}
		for k := 0; k < len(raw); k++ {
			fmt.Fprintf(&b, "%%%02X", raw[k])
		}
		query = query[j:]
		i = strings.IndexFunc(query, func(r rune) bool { return r >= utf8.RuneSelf })
		if i < 0 {
			i = len(query)
		}
	}
	b.WriteString(ref[end:])
	return b.String()
}

// browserSlashes turns the backslashes of ref before its query or fragment
// into slashes. The WHATWG URL standard, which browsers follow, treats them
// alike in http(s) URLs, so a page written on Windows ("..\img\a.html",
// "\\host\x") works in a browser; kept, they were escaped as %5C into
// paths that name nothing. The query keeps them, as in browsers. Other
// schemes are refused after resolution anyway.
func browserSlashes(ref string) string {
	end := len(ref)
	if i := strings.IndexAny(ref, "?#"); i >= 0 {
		end = i
	}
	if !strings.Contains(ref[:end], "\\") {
		return ref
	}
	return strings.ReplaceAll(ref[:end], "\\", "/") + ref[end:]
}

// MustParse parses an already-normalised URL. It is meant for URLs read back
// from the store, which were normalised on the way in.
func MustParse(normalized string) *url.URL {
	u, err := url.Parse(normalized)
	if err != nil {
		panic(fmt.Sprintf("urlnorm: stored URL %q does not parse: %v", normalized, err))
	}
	return u
}

// Hash returns the stable key of a normalised URL: the first 16 bytes of its
// SHA-256, hex-encoded. Store rows and index documents are keyed by it, which
// is what makes activities idempotent.
func Hash(normalized string) string {
	sum := sha256.Sum256([]byte(normalized))
	return hex.EncodeToString(sum[:16])
}

// Host returns the lower-cased host[:port] of a normalised URL, the unit of
// politeness and robots.txt.
func Host(normalized string) string {
	u, err := url.Parse(normalized)
	if err != nil {
		return ""
	}
	return u.Host
}

// SameSite reports whether two hosts as Host returns them (host[:port]) are
// one site for the crawler's evidence and its host-yield classes: the same
// host, or the same but for a leading "www." label (www.x.org and x.org
// serve one site far more often than two). "" is no host and never the
// same. Politeness and robots.txt stay per host: this is only about which
// links leave a site.
func SameSite(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return a == b || stripWWW(a) == stripWWW(b)
}

func stripWWW(host string) string {
	if rest, ok := strings.CutPrefix(host, "www."); ok && rest != "" && !strings.HasPrefix(rest, ":") {
		return rest
	}
	return host
}

func normalizeURL(u *url.URL, raw string) (string, error) {
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%w %q in %q", ErrUnsupportedScheme, u.Scheme, truncate(raw))
	}
	if u.Opaque != "" {
		return "", fmt.Errorf("urlnorm: opaque URL %q", truncate(raw))
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("urlnorm: %q has no host", truncate(raw))
	}
	host, err := CanonicalHost(u.Hostname())
	if err != nil || host == "" || !validHost(host) {
		return "", fmt.Errorf("urlnorm: %q has an invalid host %q", truncate(raw), truncate(u.Hostname()))
	}
	port := u.Port()
	if port != "" {
		// url.Parse accepts any run of digits; a port the dialer cannot use
		// (0, 65536 and up) names no server, and "0080" is ":80".
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("urlnorm: %q has an invalid port %q", truncate(raw), truncate(port))
		}
		port = strconv.Itoa(n)
	}
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") { // IPv6 literal
		host = "[" + host + "]"
	}
	if port != "" {
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	u.Host = host
	u.User = nil
	u.Fragment = ""
	u.RawFragment = ""

	p := u.EscapedPath()
	p = CanonicalEscapes(p)
	p = stripPathSessions(p)
	p = cleanPath(p)
	u.RawPath = ""
	dec, err := url.PathUnescape(p)
	if err != nil {
		return "", fmt.Errorf("urlnorm: bad path escape in %q: %w", truncate(raw), err)
	}
	u.Path = dec
	u.RawPath = p

	u.RawQuery = cleanQuery(u.RawQuery)
	u.ForceQuery = false
	out := u.String()
	if len(out) > MaxLength {
		return "", fmt.Errorf("urlnorm: URL longer than %d bytes (%d)", MaxLength, len(out))
	}
	return out, nil
}

// cleanPath resolves dot segments and collapses duplicate slashes while
// keeping a trailing slash, which is significant for relative links.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	trailing := strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..")
	c := path.Clean("/" + p)
	if trailing && c != "/" {
		c += "/"
	}
	return c
}

// stripPathSessions removes session identifiers that servers write into the
// path: ";jsessionid=…"-style parameters of a segment (only session names:
// other matrix parameters may select content) and ASP.NET cookieless
// segments such as "/(S(abc))/".
func stripPathSessions(p string) string {
	if !strings.ContainsAny(p, ";(") {
		return p
	}
	segs := strings.Split(p, "/")
	kept := segs[:0]
	for i, seg := range segs {
		if i > 0 && aspNetSession.MatchString(seg) {
			continue
		}
		if strings.Contains(seg, ";") {
			parts := strings.Split(seg, ";")
			out := parts[:1]
			for _, param := range parts[1:] {
				name, _, _ := strings.Cut(param, "=")
				if !sessionParams[strings.ToLower(name)] {
					out = append(out, param)
				}
			}
			seg = strings.Join(out, ";")
		}
		kept = append(kept, seg)
	}
	return strings.Join(kept, "/")
}

// cleanQuery canonicalises escapes and removes session-ID parameters. The
// names are compared after the escapes are made canonical: "%73id" is "sid"
// once decoded, and kept it would come out as "sid", which a second
// Normalize drops (two keys for one page).
func cleanQuery(q string) string {
	if q == "" {
		return ""
	}
	parts := strings.Split(q, "&")
	kept := parts[:0]
	for _, part := range parts {
		if part == "" {
			continue
		}
		part = CanonicalEscapes(part)
		name := part
		if i := strings.IndexByte(part, '='); i >= 0 {
			name = part[:i]
		}
		lower := strings.ToLower(name)
		switch {
		case lower == "sid" && !sessionToken(part[len(name):]):
			// "sid" is also an article's ID (PHP-Nuke's "article&sid=123",
			// Slashdot's "sid=02/09/09/…"): dropping it merged every article
			// into one page.
		case lower == "s" && md5Hex(part[len(name):]):
			// vBulletin's session hash, on every link of a forum for a
			// visitor without cookies, new at each visit: the classic forum
			// trap. "s" is otherwise WordPress's search, kept.
			continue
		case sessionParams[lower] || trackingParams[lower] || strings.HasPrefix(lower, "utm_"):
			continue
		}
		kept = append(kept, part)
	}
	return strings.Join(kept, "&")
}

// md5Hex reports whether a query parameter's "=value" is 32 hexadecimal
// digits, as vBulletin's session hash is: no search a person types.
func md5Hex(eqValue string) bool {
	v, ok := strings.CutPrefix(eqValue, "=")
	if !ok || len(v) != 32 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// sessionToken reports whether a query parameter's "=value" looks like a
// session identifier: at least 16 characters of letters, digits, '-' and
// '_' (hex or base64 tokens), not all digits, so an article number or a
// date path is no session.
func sessionToken(eqValue string) bool {
	v := strings.TrimPrefix(eqValue, "=")
	if len(v) < 16 {
		return false
	}
	digits := true
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-', c == '_':
			digits = false
		default:
			return false
		}
	}
	return !digits
}

// CanonicalEscapes makes percent-encoding canonical (RFC 3986 §6.2.2):
// escapes of unreserved characters are decoded (unless that would complete
// a stray '%' into an escape), other escapes get upper-case hex, and bytes that are not legal in a URL (controls, space, non-ASCII,
// '"', '<', ...) are escaped. '+', '*' and '$' are left alone. Without the
// escaping "?q x" would come out with a space that a second Normalize could
// trim away, and "?q=é" and "?q=%C3%A9" would be two keys for one resource.
// robots.txt matching uses the same function, so rules and URLs agree.
func CanonicalEscapes(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) && !completesStray(b.String(), v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(hexDigits[v>>4])
				b.WriteByte(hexDigits[v&15])
			}
			i += 2
		case c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// completesStray reports whether writing the decoded byte v after out would
// turn a stray '%' at out's end (one that starts no escape, kept as it is)
// into an escape: "%7%41" must not become "%7A", which a second pass would
// decode to "z". Such a v stays escaped.
func completesStray(out string, v byte) bool {
	if !isHex(v) {
		return false
	}
	n := len(out)
	return n >= 1 && out[n-1] == '%' || n >= 2 && out[n-2] == '%' && isHex(out[n-1])
}

// plainASCIIHost reports whether host is letters, digits, '-', '_' and '.'
// only, with no punycode label (which UTS #46 must validate).
func plainASCIIHost(host string) bool {
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	l := strings.ToLower(host)
	return !strings.HasPrefix(l, "xn--") && !strings.Contains(l, ".xn--")
}

// validHost accepts an IPv6 literal (with an optional zone) or a name made of
// letters, digits, '-', '_' and '.' (CanonicalHost has already turned
// Unicode names into punycode). net/url lets through hosts such as "]" or
// "a<b"; those would not survive a second Normalize and name nothing
// reachable.
func validHost(host string) bool {
	if strings.Contains(host, ":") {
		if _, err := netip.ParseAddr(host); err != nil {
			return false
		}
		// A zone (RFC 6874: "%25" then unreserved characters) is kept only
		// when every character of it is unreserved: netip accepts any bytes
		// there, but the URL written back with them escaped would not parse
		// (Go's parser refuses most escapes in a zone; FuzzNormalize).
		if _, zone, ok := strings.Cut(host, "%"); ok {
			for i := 0; i < len(zone); i++ {
				if !isUnreserved(zone[i]) {
					return false
				}
			}
		}
		return true
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' {
			continue
		}
		return false
	}
	return true
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func truncate(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// Date-like URL components, the mark of calendar pages ("next month" links
// lead on for ever — a spider trap): a year followed by a month, with a
// separator (/2024/05/, 2024-05-01, 2024_5), a compact YYYYMMDD token, or a
// year as the value of a calendar-ish query parameter (?year=2024).
var (
	yearMonthRE = regexp.MustCompile(`(?:^|[^0-9])([12][0-9]{3})[-/_.](?:0?[1-9]|1[0-2])(?:[^0-9]|$)`)
	compactRE   = regexp.MustCompile(`(?:^|[^0-9])([12][0-9]{3})(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])(?:[^0-9]|$)`)
	yearParamRE = regexp.MustCompile(`(?i)(?:^|[?&])(?:year|yr|y|date|month|day|cal|calendar|archive)=([12][0-9]{3})(?:[^0-9]|$)`)
)

// CalendarYears returns the years of the date-like components of a
// normalised URL's path and query (see yearMonthRE and friends), distinct
// and ascending, or nil when it has none. The crawl bounds how far from the present such
// URLs may lie (crawl.calendar_past_years, crawl.calendar_future_years).
func CalendarYears(normalized string) []int {
	u, err := url.Parse(normalized)
	if err != nil {
		return nil
	}
	s := u.EscapedPath()
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	var years []int
	for _, re := range []*regexp.Regexp{yearMonthRE, compactRE, yearParamRE} {
		// Not FindAll: each match takes the separator after its month,
		// which may be the one before the next date's year
		// (/2024/05/2199/01/, 20240501-21991231), and matches do not
		// overlap, so the next date went unseen.
		for pos := 0; pos < len(s); {
			m := re.FindStringSubmatchIndex(s[pos:])
			if m == nil {
				break
			}
			y, _ := strconv.Atoi(s[pos+m[2] : pos+m[3]])
			years = append(years, y)
			end := pos + m[1]
			if c := s[end-1]; c < '0' || c > '9' {
				end-- // the separator that ended this date may begin the next
			}
			pos = end
		}
	}
	slices.Sort(years)
	return slices.Compact(years)
}

// maxTrapCycle is the longest run of path segments RepeatedSegments looks
// for. Longer cycles reach MaxLength within a few rounds anyway, and the
// bound keeps the check linear in the path.
const maxTrapCycle = 8

// RepeatedSegments reports whether the path of a normalised URL holds the
// same run of segments three times in a row ("/docs/docs/docs/",
// "/a/b/a/b/a/b/x"): the mark of a relative link that re-enters its own
// directory on a page served for every path, a spider trap whose URLs grow
// for ever. Such pages (a soft 404 that names the URL, a template with the
// path in it) differ from each other, so duplicate detection does not end
// the chain. Runs of up to maxTrapCycle segments are found.
//
// The query's parameters count as its segments: a facet or sort link
// that appends its parameter to the URL it is on
// ("?color=red&size=m&color=red&size=m&color=red") grows the query the same
// way, each page listing the filters it was given. The same name=value
// three times anywhere in the query is that trap; a name repeated with
// other values (an array, "?tag=a&tag=b&tag=c") and a pair given twice are
// not.
func RepeatedSegments(normalized string) bool {
	u, err := url.Parse(normalized)
	if err != nil {
		return false
	}
	if u.RawQuery != "" {
		seen := map[string]int{}
		for p := range strings.SplitSeq(u.RawQuery, "&") {
			if seen[p]++; seen[p] >= 3 {
				return true
			}
		}
	}
	segs := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	for k := 1; k <= maxTrapCycle && 3*k <= len(segs); k++ {
		// Three copies of a k-segment run in a row are 2k positions in a
		// row whose segment equals the one k further on.
		same := 0
		for i := 0; i+k < len(segs); i++ {
			if segs[i] != segs[i+k] {
				same = 0
				continue
			}
			if same++; same >= 2*k {
				return true
			}
		}
	}
	return false
}

// Words turns a URL's path and query into space-separated words
// ("http://x/docs/gimp-filter_blur.html?q=a" → " docs gimp filter blur html
// q a"): the URL's part of a link's text, which the project tokenizer then
// counts like any other text. Link learning (internal/linkmodel) and link
// scoring (internal/linkpred) both read URLs through it, so a URL means the
// same terms to both. The separators are split here because the tokenizer
// keeps '-' and '_' inside words.
//
// Percent-escapes are decoded ("?t=%E9%94%99" is the word 错), so they do not
// become hex tokens ("E9 94 99"); bytes that are not UTF-8 — a query a GBK
// page encoded in GBK (ResolveEncoding) — cannot be read without the page's
// charset and are left out.
func Words(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	query, err := url.QueryUnescape(u.RawQuery)
	if err != nil || !utf8.ValidString(query) {
		query = escapeRE.ReplaceAllString(u.RawQuery, " ")
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '-', '_', '.', '=', '&', '+', '%', '?':
			return ' '
		}
		return r
	}, strings.ToValidUTF8(u.Path, " ")+" "+query)
}

// escapeRE matches one percent-escape.
var escapeRE = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)
