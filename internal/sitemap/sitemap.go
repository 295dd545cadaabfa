// Package sitemap parses sitemaps (sitemaps.org protocol 0.9): XML
// <urlset> and <sitemapindex> files, gzip-compressed or not, plain-text
// sitemaps (one URL per line), and the two feed formats the protocol also
// accepts as sitemaps: RSS 2.0 (<item><link>, <pubDate>) and Atom 0.3/1.0
// (<entry><link href>, <updated> or <modified>).
//
// The XML is read as a token stream (the body, and a gzip body's
// decompressed copy, are held whole; the entries are built as they come);
// elements are matched by local name, since real sitemaps use the
// protocol's namespace, a prefix for it, or none, and extension elements
// (images, alternates, news) are skipped. The reading is lenient as
// browsers are: a bare "&" or an HTML entity (&nbsp;) in a URL does not end
// it. A file cut off or broken after some complete entries still yields
// them (Result.Truncated): sitemaps are hints, and half a large sitemap is
// worth more than an error.
package sitemap

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"focuscrawl/internal/fetch"
)

// Limits bound what one sitemap file may cost.
type Limits struct {
	// MaxBytes is the most uncompressed bytes read (a gzip file is
	// decompressed up to this); 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxEntries is the most <url> or <sitemap> entries (or text lines)
	// returned; 0 means DefaultMaxEntries.
	MaxEntries int
}

const (
	// DefaultMaxBytes is the protocol's limit for one file, uncompressed.
	DefaultMaxBytes = 50 << 20
	// DefaultMaxEntries is the protocol's limit of URLs per file.
	DefaultMaxEntries = 50000
	// maxLocBytes is the protocol's longest URL.
	maxLocBytes = 2048
)

// Entry is one <url> of a urlset, or one line of a text sitemap.
type Entry struct {
	// Loc is the absolute URL as written (whitespace trimmed, XML entities
	// decoded); not normalised.
	Loc string
	// LastMod is the entry's <lastmod>; zero when absent or unparseable.
	LastMod time.Time
}

// Result is what one sitemap file holds: a urlset's URLs or a sitemap
// index's child sitemaps.
type Result struct {
	URLs     []Entry  // <urlset><url><loc> entries, or text-sitemap lines
	Sitemaps []string // <sitemapindex><sitemap><loc> entries
	// Skipped counts entries dropped: no <loc>, not an absolute http(s)
	// URL, or longer than 2048 bytes.
	Skipped int
	// Truncated: MaxEntries or MaxBytes was reached, or the file broke off
	// after some entries; the entries before that are returned.
	Truncated bool
}

func (r *Result) entries() int { return len(r.URLs) + len(r.Sitemaps) }

// Parse reads one sitemap file's body. gzip is recognised by its magic
// bytes, not by name or Content-Type. A file that is cut off or broken
// after some complete entries returns them with Truncated set and no
// error; one that yields nothing is an error saying what is wrong with it.
func Parse(body []byte, lim Limits) (Result, error) {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultMaxBytes
	}
	if lim.MaxEntries <= 0 {
		lim.MaxEntries = DefaultMaxEntries
	}
	var res Result
	data, cut, gzErr := decompress(body, lim.MaxBytes)
	if isGzip(body) {
		var cutText bool
		data, cutText = gzipText(data, cut, lim.MaxBytes)
		cut = cut || cutText
	}
	if cut {
		res.Truncated = true
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		if gzErr != nil {
			return Result{}, gzErr
		}
		return Result{}, errors.New("sitemap: empty body")
	}
	var err error
	if trimmed[0] == '<' {
		err = parseXML(trimmed, lim, &res)
	} else if parseText(completeLines(trimmed, cut || gzErr != nil), lim, &res); len(res.URLs) == 0 {
		err = errors.New("sitemap: neither XML nor a text sitemap (no line is an http(s) URL)")
	}
	if gzErr != nil {
		if res.entries() == 0 {
			return Result{}, gzErr
		}
		res.Truncated = true
	}
	if err != nil {
		if res.entries() == 0 {
			if cut {
				return Result{}, fmt.Errorf("sitemap: no complete entry in its first %d bytes (Limits.MaxBytes)", lim.MaxBytes)
			}
			return Result{}, err
		}
		res.Truncated = true // broke off after good entries: keep them
	}
	return res, nil
}

// isGzip reports whether body starts with gzip's magic bytes.
func isGzip(body []byte) bool { return len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b }

// xmlEncoding finds the encoding an XML declaration names.
var xmlEncoding = regexp.MustCompile(`^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]{1,40})["']`)

// gzipText returns a gzip file's decompressed data as UTF-8, cut at max
// bytes on a character's end (cut then true). The fetcher converts what
// it serves as text from the encoding it declares, but a compressed
// file's bytes come as they were written: a sitemap.xml.gz in UTF-16
// (with a BOM), or in ISO-8859-1 or GBK as its XML declaration says, was
// lost whole ("invalid UTF-8" at line 1), where the same file uncompressed
// was read. Valid UTF-8, and data that is neither that nor declares an
// encoding, come back as they are. Data decompress cut at its limit
// (wasCut) loses the character the cut fell in, as the fetcher's text
// does (fetch.PartialChar), rather than ending in a U+FFFD for it.
func gzipText(data []byte, wasCut bool, max int64) ([]byte, bool) {
	var enc encoding.Encoding
	name := ""
	whole := func(name string) []byte {
		if !wasCut {
			return data
		}
		return data[:len(data)-fetch.PartialChar(enc, name, data)]
	}
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		// The byte order mark decides the order, and is dropped.
		enc, name = xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM), "utf-16be"
		if data[0] == 0xFF {
			name = "utf-16le"
		}
	case utf8.Valid(whole("utf-8")):
		return whole("utf-8"), false
	default:
		m := xmlEncoding.FindSubmatch(data[:min(len(data), 256)])
		if m == nil {
			return data, false
		}
		if enc, name = charset.Lookup(string(m[1])); enc == nil {
			return data, false
		}
	}
	data = whole(name)
	out, _ := io.ReadAll(io.LimitReader(transform.NewReader(bytes.NewReader(data), enc.NewDecoder()), max+1))
	if int64(len(out)) <= max {
		return out, false
	}
	out = out[:max]
	i := len(out) - 1
	for i > 0 && !utf8.RuneStart(out[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRune(out[i:]) {
		out = out[:i] // the last character, cut
	}
	return out, true
}

// decompress returns body, gunzipped when it starts with gzip's magic
// bytes, cut at max bytes (cut then true). A corrupt gzip stream returns
// what decoded before the damage and the error.
func decompress(body []byte, max int64) (data []byte, cut bool, err error) {
	if !isGzip(body) {
		if int64(len(body)) > max {
			return body[:max], true, nil
		}
		return body, false, nil
	}
	br := bytes.NewReader(body)
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, false, fmt.Errorf("sitemap: gzip: %w", err)
	}
	// Member by member: gzip files may be concatenated (a text sitemap lost
	// its second half when only the first member was read), and what
	// follows the last one that is no member — zero padding, trailing
	// garbage — is not the sitemap's. bytes.Reader is an io.ByteReader, so
	// the gzip reader stops exactly at a member's end.
	var out bytes.Buffer
	for {
		zr.Multistream(false)
		_, err := io.Copy(&out, io.LimitReader(zr, max+1-int64(out.Len())))
		if int64(out.Len()) > max {
			return out.Bytes()[:max], true, nil
		}
		if err != nil {
			return out.Bytes(), false, fmt.Errorf("sitemap: gzip: %w", err)
		}
		if rest := body[len(body)-br.Len():]; len(rest) < 2 || rest[0] != 0x1f || rest[1] != 0x8b {
			return out.Bytes(), false, nil
		}
		if err := zr.Reset(br); err != nil {
			return out.Bytes(), false, nil // a damaged header after whole members: not the sitemap's
		}
	}
}

// completeLines is a text sitemap's data without its last, unfinished line
// when the data was cut (at Limits.MaxBytes, or a gzip stream that broke
// off): "https://a.test/first-page.html" cut after nine bytes is
// "https://a", a valid URL that is not in the file.
func completeLines(data []byte, cut bool) []byte {
	if !cut {
		return data
	}
	return data[:bytes.LastIndexAny(data, "\r\n")+1]
}

// parseText reads a text sitemap: one URL per line. Binary data (a PDF, a
// doubly compressed file) has no such line.
func parseText(data []byte, lim Limits, res *Result) {
	// Lines end at "\n", "\r\n" or a lone "\r" (old Mac files: read as one
	// line, they gave nothing); a line no URL can be (over maxLocBytes) is
	// skipped, where a scanner's buffer limit stopped the reading there.
	for len(data) > 0 {
		line := data
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if res.entries() >= lim.MaxEntries {
			res.Truncated = true
			return
		}
		if l := bytes.TrimSpace(line); len(l) <= maxLocBytes && validLoc(string(l)) {
			res.URLs = append(res.URLs, Entry{Loc: string(l)})
		} else {
			res.Skipped++
		}
	}
}

// Bounds on markup no sitemap has (a urlset is three elements deep, its
// tags a few attributes long): encoding/xml keeps a stack entry per open
// element and builds every attribute of a tag at once, so a 16 KB gzip of
// nested elements or of one tag with millions of attributes cost 1–2 GB of
// heap (a review's finding).
const (
	maxDepth    = 16
	maxTagBytes = 64 << 10
)

// longTag returns where data's first tag (from "<" to the next ">") of
// more than maxTagBytes starts, or -1; in one pass.
func longTag(data []byte) int {
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '<')
		if j < 0 {
			return -1
		}
		start := i + j
		i = start + 1
		k := bytes.IndexByte(data[i:], '>')
		if k < 0 && len(data)-i > maxTagBytes || k > maxTagBytes {
			return start
		}
		if k < 0 {
			return -1
		}
		i += k + 1
	}
	return -1
}

// parseXML reads a urlset or a sitemap index. A tag longer than
// maxTagBytes ends the reading: the entries before it are kept, the file
// read in part.
func parseXML(data []byte, lim Limits, res *Result) error {
	if at := longTag(data); at >= 0 {
		err := parseXMLPart(data[:at], lim, res)
		if res.entries() == 0 {
			return fmt.Errorf("sitemap: a tag longer than %d bytes", maxTagBytes)
		}
		res.Truncated = true
		return err
	}
	return parseXMLPart(data, lim, res)
}

// parseXMLPart is parseXML without the tag-length bound.
func parseXMLPart(data []byte, lim Limits, res *Result) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.CharsetReader = charsetReader
	// Lenient: bare "&" and HTML entities are common in real sitemaps'
	// URLs, and a strict decoder stops at the first.
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	root := ""
	// Inside an entry (<url>, <sitemap>, an RSS <item>, an Atom <entry>):
	// its loc and lastmod so far.
	var (
		inEntry        bool
		loc, lastmod   string
		haveLoc        bool   // a <loc> of this entry ended: later ones are ignored
		field          string // "loc" or "lastmod" while directly inside one
		depth, entryAt int
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if root == "" {
				return errors.New("sitemap: no root element")
			}
			return nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return fmt.Errorf("sitemap: XML syntax error at line %d: %s", se.Line, se.Msg)
			}
			return fmt.Errorf("sitemap: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth++; depth > maxDepth {
				return fmt.Errorf("sitemap: elements nested more than %d deep", maxDepth)
			}
			name := t.Name.Local
			switch {
			case root == "":
				if entryOf(name) == "" {
					return fmt.Errorf("sitemap: root element <%s> is none of urlset, sitemapindex, rss (RSS 2.0) and feed (Atom)", name)
				}
				root = name
			case !inEntry && name == entryOf(root) && depth == entryDepth(root):
				inEntry, loc, lastmod, haveLoc, entryAt = true, "", "", false, depth
			case inEntry && depth == entryAt+1 && root == "feed" && name == "link":
				// Atom: the page is the link's href, the one with no rel or
				// rel="alternate" (not its edit, enclosure or via links).
				field = ""
				if rel := attr(t, "rel"); !haveLoc && (rel == "" || rel == "alternate") {
					loc, haveLoc = attr(t, "href"), true
				}
			case inEntry && depth == entryAt+1 && locField(root, name) && !haveLoc:
				field = "loc"
				haveLoc = true
			case inEntry && depth == entryAt+1 && lastModField(root, name) && lastmod == "":
				field = "lastmod"
			default:
				field = "" // text of a child element is not its parent's
			}
		case xml.CharData:
			switch field {
			case "loc":
				if len(loc) <= maxLocBytes {
					loc += string(t)
				}
			case "lastmod":
				if len(lastmod) < 64 {
					lastmod += string(t)
				}
			}
		case xml.EndElement:
			if inEntry && depth == entryAt+1 {
				field = ""
			}
			if inEntry && depth == entryAt {
				inEntry = false
				if res.entries() >= lim.MaxEntries {
					res.Truncated = true
					return nil
				}
				l := strings.TrimSpace(loc)
				switch {
				case !validLoc(l):
					res.Skipped++
				case root != "sitemapindex":
					res.URLs = append(res.URLs, Entry{Loc: l, LastMod: parseLastMod(strings.TrimSpace(lastmod))})
				default:
					res.Sitemaps = append(res.Sitemaps, l)
				}
			}
			if depth--; depth == 0 {
				// The root ended. After it comes nothing but comments and
				// whitespace — unless a stray end tag closed it early (the
				// lenient decoder closes every open element up to the one
				// it names): then entries follow, lost, and the file was
				// read in part.
				res.Truncated = res.Truncated || afterRoot(dec)
				return nil
			}
		}
	}
}

// entryOf is the element that holds one entry under root element root, ""
// for a root that is no sitemap's.
func entryOf(root string) string {
	switch root {
	case "urlset":
		return "url"
	case "sitemapindex":
		return "sitemap"
	case "rss":
		return "item"
	case "feed":
		return "entry"
	}
	return ""
}

// entryDepth is the depth of root's entries: RSS has its items in a
// <channel>.
func entryDepth(root string) int {
	if root == "rss" {
		return 3
	}
	return 2
}

// locField reports whether element name holds an entry's URL as text.
func locField(root, name string) bool {
	if root == "rss" {
		return name == "link"
	}
	return name == "loc"
}

// lastModField reports whether element name holds an entry's date.
func lastModField(root, name string) bool {
	switch root {
	case "rss":
		return name == "pubDate"
	case "feed":
		return name == "updated" || name == "modified"
	}
	return name == "lastmod"
}

// attr is the value of t's attribute named local (any namespace).
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// afterRoot reports whether the tokens after the root element hold an
// element or a syntax error.
func afterRoot(dec *xml.Decoder) bool {
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			return true
		}
		if _, ok := tok.(xml.StartElement); ok {
			return true
		}
	}
}

// charsetReader reads the body as it is whatever encoding it declares:
// sitemaps must be UTF-8, and one served as text the fetcher has already
// converted to UTF-8 from the encoding it declared (a gzip file, Parse
// itself: gzipText), so refusing the stale
// declaration would lose a readable file. Bytes that are not UTF-8 still
// end the reading (encoding/xml checks).
func charsetReader(_ string, input io.Reader) (io.Reader, error) { return input, nil }

// validLoc reports whether s is an absolute http(s) URL with a host, at
// most maxLocBytes long.
func validLoc(s string) bool {
	if s == "" || len(s) > maxLocBytes {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	sc := strings.ToLower(u.Scheme)
	return sc == "http" || sc == "https"
}

// lastModLayouts are the W3C Datetime forms the protocol allows.
var lastModLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
	"2006-01",
	"2006",
	// RSS 2.0's pubDate (RFC 822 dates, four-digit years as RSS writes them).
	time.RFC1123Z,
	time.RFC1123,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700",
}

// parseLastMod parses a W3C Datetime; zero when it does not parse.
func parseLastMod(s string) time.Time {
	for _, l := range lastModLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t
		}
	}
	return time.Time{}
}
