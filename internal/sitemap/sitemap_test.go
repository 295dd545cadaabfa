package sitemap

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`

func urlsetOf(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset ` + ns + `>`)
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>https://a.test/p%d.html</loc><lastmod>2026-01-02</lastmod></url>\n", i)
	}
	b.WriteString("</urlset>")
	return b.String()
}

func locs(r Result) string {
	var s []string
	for _, e := range r.URLs {
		s = append(s, e.Loc)
	}
	return strings.Join(s, " ")
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		lim        Limits
		urls       string // space-separated Locs
		sitemaps   string
		skipped    int
		truncated  bool
		err        string
	}{
		{name: "default namespace", body: `<?xml version="1.0"?><urlset ` + ns + `><url><loc>http://a.test/</loc></url><url><loc> https://a.test/b
			</loc><changefreq>daily</changefreq><priority>0.5</priority></url></urlset>`, urls: "http://a.test/ https://a.test/b"},
		{name: "prefixed namespace", body: `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://a.test/x</sm:loc></sm:url></sm:urlset>`, urls: "http://a.test/x"},
		{name: "no namespace", body: `<urlset><url><loc>http://a.test/x</loc></url></urlset>`, urls: "http://a.test/x"},
		{name: "sitemap index", body: `<sitemapindex ` + ns + `><sitemap><loc>http://a.test/s1.xml.gz</loc><lastmod>2026-01-01</lastmod></sitemap><sitemap><loc>http://a.test/s2.xml</loc></sitemap></sitemapindex>`,
			sitemaps: "http://a.test/s1.xml.gz http://a.test/s2.xml"},
		{name: "extensions ignored", body: `<urlset ` + ns + ` xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>http://a.test/p</loc><image:image><image:loc>http://a.test/i.png</image:loc></image:image><xhtml:link rel="alternate" hreflang="de" href="http://a.test/de/p"/></url></urlset>`, urls: "http://a.test/p"},
		{name: "entities and CDATA", body: `<urlset><url><loc>http://a.test/?a=1&amp;b=2</loc></url><url><loc><![CDATA[http://a.test/c?x=1&y=2]]></loc></url></urlset>`, urls: "http://a.test/?a=1&b=2 http://a.test/c?x=1&y=2"},
		{name: "bad locs skipped", body: `<urlset><url><loc>/relative</loc></url><url><loc>ftp://a.test/f</loc></url><url><loc>javascript:alert(1)</loc></url><url><lastmod>2026-01-01</lastmod></url><url><loc>http://a.test/` + strings.Repeat("x", 2100) + `</loc></url><url><loc>http://a.test/ok</loc></url></urlset>`,
			urls: "http://a.test/ok", skipped: 5},
		{name: "max entries", body: urlsetOf(5), lim: Limits{MaxEntries: 2}, urls: "https://a.test/p0.html https://a.test/p1.html", truncated: true},
		{name: "broken after entries", body: `<urlset><url><loc>http://a.test/1</loc></url><url><loc>http://a.test/2</loc></url><url><loc>http://a.te`, urls: "http://a.test/1 http://a.test/2", truncated: true},
		{name: "mismatched tags read leniently", body: `<urlset><url><loc>http://a.test/1</loc></url><url></loc></urlset>`, urls: "http://a.test/1", skipped: 1, truncated: true},
		{name: "invalid UTF-8 after entries", body: "<urlset><url><loc>http://a.test/1</loc></url><url><loc>http://a.test/\xff\xfe</loc></url></urlset>", urls: "http://a.test/1", truncated: true},
		{name: "broken before entries", body: `<urlset><url><loc>http://a.te`, err: "XML syntax error"},
		{name: "html page", body: `<!DOCTYPE html><html><body>Not found</body></html>`, err: "root element <html> is none of urlset, sitemapindex, rss"},
		{name: "empty", body: " \n\t", err: "empty body"},
		{name: "text sitemap", body: "\ufeffhttp://a.test/1\n\n  https://a.test/2  \r\nnot a url\nmailto:x@a.test\n", urls: "http://a.test/1 https://a.test/2", skipped: 2},
		{name: "BOM before XML", body: "\ufeff<?xml version=\"1.0\"?>\n<!-- generated --><urlset><url><loc>http://a.test/</loc></url></urlset>", urls: "http://a.test/"},
		// The fetcher has decoded a text body to UTF-8 already.
		{name: "declared non-UTF-8", body: `<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>http://a.test/é</loc></url></urlset>`, urls: "http://a.test/é"},
		{name: "DOCTYPE entities not expanded", body: `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><urlset><url><loc>http://a.test/&lol2;</loc></url></urlset>`, urls: "http://a.test/&lol2;"},
		{name: "bare ampersand and HTML entity", body: `<urlset><url><loc>http://a.test/?a=1&b=2</loc></url><url><loc>http://a.test/x&nbsp;</loc></url><url><loc>http://a.test/3</loc></url></urlset>`,
			urls: "http://a.test/?a=1&b=2 http://a.test/x http://a.test/3"}, // &nbsp; decoded, then trimmed as space
		{name: "first loc only, child text not loc's", body: `<urlset><url><loc>http://a.test/1</loc><loc>http://evil.test/</loc></url><url><loc>http://a.test/2<b>junk</b></loc></url></urlset>`,
			urls: "http://a.test/1 http://a.test/2"},
		{name: "nothing after the root", body: `<urlset><url><loc>http://a.test/1</loc></url></urlset><urlset><url><loc>http://a.test/2</loc></url></urlset>`, urls: "http://a.test/1", truncated: true},
		{name: "comments after the root", body: "<urlset><url><loc>http://a.test/1</loc></url></urlset>\n<!-- generated -->\n", urls: "http://a.test/1"},
		{name: "stray end tag", body: `<urlset><url><loc>http://a.test/1</loc></foo></url><url><loc>http://a.test/2</loc></url></urlset>`, urls: "http://a.test/1", truncated: true},
		{name: "loc with a child, then a second loc", body: `<urlset><url><loc>http://a.test/2<b>x</b></loc><loc>http://evil.test/</loc></url></urlset>`, urls: "http://a.test/2"},
		{name: "binary", body: "%PDF-1.4\n\x00\x01\x02 stream", err: "neither XML nor a text sitemap"},
		{name: "max bytes", body: urlsetOf(100), lim: Limits{MaxBytes: 300}, truncated: true, urls: "https://a.test/p0.html https://a.test/p1.html"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse([]byte(tc.body), tc.lim)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "sitemap: ") {
					t.Fatalf("error %v; want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := locs(r); got != tc.urls {
				t.Errorf("URLs %q; want %q", got, tc.urls)
			}
			if got := strings.Join(r.Sitemaps, " "); got != tc.sitemaps {
				t.Errorf("sitemaps %q; want %q", got, tc.sitemaps)
			}
			if r.Skipped != tc.skipped || r.Truncated != tc.truncated {
				t.Errorf("skipped %d truncated %v; want %d %v", r.Skipped, r.Truncated, tc.skipped, tc.truncated)
			}
		})
	}
}

func TestParseLastMod(t *testing.T) {
	body := `<urlset><url><loc>http://a.test/1</loc><lastmod>2026-03-04</lastmod></url>` +
		`<url><loc>http://a.test/2</loc><lastmod>2026-03-04T05:06:07.5+08:00</lastmod></url>` +
		`<url><loc>http://a.test/3</loc><lastmod>2026-03-04T05:06Z</lastmod></url>` +
		`<url><loc>http://a.test/4</loc><lastmod>2026-03</lastmod></url>` +
		`<url><loc>http://a.test/5</loc><lastmod>yesterday</lastmod></url></urlset>`
	r, err := Parse([]byte(body), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{
		time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 3, 21, 6, 7, 5e8, time.UTC),
		time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC),
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		{},
	}
	for i, e := range r.URLs {
		if !e.LastMod.Equal(want[i]) {
			t.Errorf("%s: lastmod %v; want %v", e.Loc, e.LastMod, want[i])
		}
	}
}

// TestGzipInOtherEncodings: a gzipped sitemap written in UTF-16 (with a
// BOM) or in the legacy encoding its XML declaration names is read as
// the fetcher reads the same file uncompressed; it was lost whole
// ("invalid UTF-8" at line 1). A cut at MaxBytes ends on a character.
func TestGzipInOtherEncodings(t *testing.T) {
	const doc = `<?xml version="1.0" encoding="%s"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://a.test/%s</loc></url><url><loc>http://a.test/second</loc></url></urlset>`
	utf16le := func(s string) string {
		b := []byte{0xFF, 0xFE}
		for _, u := range utf16.Encode([]rune(s)) {
			b = binary.LittleEndian.AppendUint16(b, u)
		}
		return string(b)
	}
	for _, tt := range []struct {
		name, file, first string
	}{
		{"ISO-8859-1", fmt.Sprintf(doc, "ISO-8859-1", "caf\xe9"), "http://a.test/café"},
		{"GBK", fmt.Sprintf(doc, "GBK", "\xd6\xd0\xce\xc4"), "http://a.test/中文"},
		{"UTF-16 with a BOM", utf16le(fmt.Sprintf(doc, "UTF-16", "café")), "http://a.test/café"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(gz(t, tt.file), Limits{})
			if err != nil || len(r.URLs) != 2 || r.URLs[0].Loc != tt.first || r.Truncated {
				t.Fatalf("%v, truncated %v, %v; want %s and /second, whole", r.URLs, r.Truncated, err, tt.first)
			}
		})
	}
	// Cut inside "中文": the entries before are kept, valid UTF-8.
	file := fmt.Sprintf(doc, "GBK", "x") + strings.Repeat("<url><loc>http://a.test/\xd6\xd0\xce\xc4</loc></url>", 50) + "</urlset>"
	for max := int64(400); max < 410; max++ {
		r, err := Parse(gz(t, file), Limits{MaxBytes: max})
		if err != nil || !r.Truncated || len(r.URLs) == 0 {
			t.Fatalf("MaxBytes %d: %d URLs, truncated %v, %v", max, len(r.URLs), r.Truncated, err)
		}
		for _, u := range r.URLs {
			if !utf8.ValidString(u.Loc) {
				t.Fatalf("MaxBytes %d: %q is not UTF-8", max, u.Loc)
			}
		}
	}
}

func TestParseGzip(t *testing.T) {
	r, err := Parse(gz(t, urlsetOf(3)), Limits{})
	if err != nil || len(r.URLs) != 3 || r.Truncated {
		t.Fatalf("gzip: %d URLs, truncated %v, %v", len(r.URLs), r.Truncated, err)
	}
	// Decompressed past MaxBytes: what came before is kept.
	r, err = Parse(gz(t, urlsetOf(1000)), Limits{MaxBytes: 1000})
	if err != nil || !r.Truncated || len(r.URLs) == 0 || len(r.URLs) > 20 {
		t.Errorf("gzip over MaxBytes: %d URLs, truncated %v, %v", len(r.URLs), r.Truncated, err)
	}
	// Corrupt at the start: an error.
	bad := append([]byte{0x1f, 0x8b}, []byte("not gzip at all")...)
	if _, err := Parse(bad, Limits{}); err == nil || !strings.HasPrefix(err.Error(), "sitemap: gzip") {
		t.Errorf("corrupt gzip: %v", err)
	}
	// Zero padding after the gzip member: whole, not truncated.
	r, err = Parse(append(gz(t, urlsetOf(2)), 0, 0, 0, 0), Limits{})
	if err != nil || len(r.URLs) != 2 || r.Truncated {
		t.Errorf("padded gzip: %d URLs, truncated %v, %v", len(r.URLs), r.Truncated, err)
	}
	// Two members (a text sitemap written in two parts): both are read.
	// Before, the second was dropped silently, not even marked truncated.
	two := append(gz(t, "http://a.test/1\nhttp://a.test/2\nhttp://a.test/3\n"), gz(t, "http://a.test/4\nhttp://a.test/5\nhttp://a.test/6\n")...)
	r, err = Parse(append(two, 0, 0), Limits{})
	if err != nil || len(r.URLs) != 6 || r.Truncated {
		t.Errorf("two gzip members: %d URLs, truncated %v, %v; want 6, whole", len(r.URLs), r.Truncated, err)
	}
	// Over MaxBytes before the first entry ends: says so.
	if _, err := Parse(gz(t, urlsetOf(3)), Limits{MaxBytes: 120}); err == nil || !strings.Contains(err.Error(), "no complete entry in its first 120 bytes") {
		t.Errorf("gzip cut before an entry: %v", err)
	}
	// Cut off after some entries: they are kept.
	whole := gz(t, urlsetOf(2000))
	r, err = Parse(whole[:len(whole)/2], Limits{})
	if err != nil || !r.Truncated || len(r.URLs) == 0 {
		t.Errorf("gzip cut in half: %d URLs, truncated %v, %v", len(r.URLs), r.Truncated, err)
	}
}

func BenchmarkParse(b *testing.B) {
	plain := []byte(urlsetOf(10000))
	zipped := gz(b, string(plain))
	for _, c := range []struct {
		name string
		body []byte
	}{{"plain", plain}, {"gzip", zipped}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			for b.Loop() {
				if r, err := Parse(c.body, Limits{}); err != nil || len(r.URLs) != 10000 {
					b.Fatal(len(r.URLs), err)
				}
			}
		})
	}
}

// TestCutAnywhere: a sitemap cut at any byte (a broken download, plain or
// gzipped, or Limits.MaxBytes) yields a prefix of the whole file's entries,
// and an error only when the cut comes before the first entry ends.
func TestCutAnywhere(t *testing.T) {
	doc := urlsetOf(4)
	full, err := Parse([]byte(doc), Limits{})
	if err != nil || len(full.URLs) != 4 {
		t.Fatalf("full parse: %+v, %v", full, err)
	}
	firstEnd := strings.Index(doc, "</url>") + len("</url>")
	zipped := gz(t, doc)
	for cut := 1; cut < len(doc); cut++ {
		for _, mode := range []string{"download", "MaxBytes", "gzip MaxBytes"} {
			body, lim := []byte(doc[:cut]), Limits{}
			switch mode {
			case "MaxBytes":
				body, lim = []byte(doc), Limits{MaxBytes: int64(cut)}
			case "gzip MaxBytes":
				body, lim = zipped, Limits{MaxBytes: int64(cut)}
			}
			got, err := Parse(body, lim)
			if err != nil {
				if cut >= firstEnd {
					t.Fatalf("%s cut %d: error %v after the first entry", mode, cut, err)
				}
				continue
			}
			if len(got.URLs) > len(full.URLs) {
				t.Fatalf("%s cut %d: %d URLs", mode, cut, len(got.URLs))
			}
			for i, u := range got.URLs {
				if u != full.URLs[i] {
					t.Fatalf("%s cut %d: URLs[%d] = %v, want %v", mode, cut, i, u, full.URLs[i])
				}
			}
		}
	}
	// A gzip download cut anywhere: never a panic, entries a prefix.
	for cut := 1; cut < len(zipped); cut++ {
		got, _ := Parse(zipped[:cut], Limits{})
		for i, u := range got.URLs {
			if u != full.URLs[i] {
				t.Fatalf("gzip cut %d: URLs[%d] = %v", cut, i, u)
			}
		}
	}
}

// TestXMLAmplification: a small gzip sitemap of deeply nested elements or
// of one tag with a flood of attributes is refused, allocating in
// proportion to its size; encoding/xml keeps a stack entry per open element
// and builds a tag's attributes at once, and such a 16 KB download cost
// 1–2 GB of heap (a review's finding).
func TestXMLAmplification(t *testing.T) {
	const size = 4 << 20
	for _, tc := range []struct{ name, head, unit, tail, says string }{
		{"deep nesting", `<urlset><url><loc>http://a.example/</loc></url>`, "<a>", "", "nested more than"},
		{"attribute flood", `<urlset><url><loc>http://a.example/</loc></url><url `, "a ", "/></urlset>", "a tag longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.head + strings.Repeat(tc.unit, (size-len(tc.head)-len(tc.tail))/len(tc.unit)) + tc.tail)
			var out bytes.Buffer
			w, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
			w.Write(body)
			w.Close()
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			res, err := Parse(out.Bytes(), Limits{MaxBytes: size})
			runtime.ReadMemStats(&m1)
			// The entry before the flood is kept, the file read in part;
			// the flood alone is refused with the reason.
			if err != nil || !res.Truncated || len(res.URLs) != 1 {
				t.Errorf("result %+v, %v; want its one entry, truncated", res, err)
			}
			if _, err := parseFlood(tc.unit, tc.tail); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("the flood alone: %v, want %q", err, tc.says)
			}
			if n := m1.TotalAlloc - m0.TotalAlloc; n > 4*size {
				t.Errorf("parsing a %d-byte download allocated %d MiB (more than 4x its %d MiB)", out.Len(), n>>20, size>>20)
			}
		})
	}
}

// parseFlood parses a urlset of nothing but a flood of unit.
func parseFlood(unit, tail string) (Result, error) {
	head := "<urlset><url "
	if unit == "<a>" {
		head = "<urlset>"
	}
	return Parse([]byte(head+strings.Repeat(unit, (maxTagBytes+maxDepth)/len(unit)+2)+tail), Limits{})
}

// TestTextLineEnds: a text sitemap's lines may end in "\r" alone (an old
// Mac file gave nothing), and a line longer than any URL is skipped, the
// URLs after it kept (the scanner's limit stopped the reading there).
func TestTextLineEnds(t *testing.T) {
	for name, body := range map[string]string{
		"CR":         "http://a.example/1\rhttp://a.example/2\r",
		"long line":  "http://a.example/1\n" + strings.Repeat("x", 64<<10) + "\nhttp://a.example/2\n",
		"CRLF mixed": "http://a.example/1\r\n\r\nhttp://a.example/2",
	} {
		res, err := Parse([]byte(body), Limits{})
		if err != nil || len(res.URLs) != 2 || res.URLs[1].Loc != "http://a.example/2" {
			t.Errorf("%s: %+v, %v; want both URLs", name, res, err)
		}
	}
}

// TestFeeds: RSS 2.0 and Atom feeds are sitemaps too (sitemaps.org: "Syndication feed"): an
// RSS item's <link> and <pubDate>, an Atom entry's alternate <link href>
// (not its edit or enclosure links) and <updated>; the channel's and the
// feed's own links are no entries; an entry without a usable link is
// skipped. They were refused ("root element <rss> is neither urlset nor
// sitemapindex").
func TestFeeds(t *testing.T) {
	rss := `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title><link>http://a.test/</link>
<item><title>One</title><link>http://a.test/one</link><pubDate>Mon, 02 Mar 2026 10:00:00 +0000</pubDate></item>
<item><title>Two</title><link> http://a.test/two </link><pubDate>Tue, 3 Mar 2026 11:30:00 GMT</pubDate></item>
<item><title>No link</title><description>text</description></item>
</channel></rss>`
	res, err := Parse([]byte(rss), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := locs(res); got != "http://a.test/one http://a.test/two" || res.Skipped != 1 || len(res.Sitemaps) != 0 {
		t.Errorf("RSS: %q, %d skipped, sitemaps %v; want the two items' links, one skipped", got, res.Skipped, res.Sitemaps)
	}
	if want := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC); len(res.URLs) > 0 && !res.URLs[0].LastMod.Equal(want) {
		t.Errorf("RSS pubDate: %v, want %v", res.URLs[0].LastMod, want)
	}
	if len(res.URLs) > 1 && res.URLs[1].LastMod.IsZero() {
		t.Errorf("RSS pubDate with a one-digit day and a zone name: not read")
	}
	atom := `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title>
<link href="http://a.test/"/><link rel="self" href="http://a.test/feed.atom"/><updated>2026-03-04T00:00:00Z</updated>
<entry><title>A</title><link rel="edit" href="http://a.test/edit/a"/><link rel="alternate" type="text/html" href="http://a.test/a"/><updated>2026-03-01T12:00:00Z</updated></entry>
<entry><title>B</title><link href="http://a.test/b"/><link rel="enclosure" href="http://a.test/b.mp3"/></entry>
<entry><title>C</title><link rel="self" href="http://a.test/c.atom"/></entry>
</feed>`
	res, err = Parse([]byte(atom), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := locs(res); got != "http://a.test/a http://a.test/b" || res.Skipped != 1 {
		t.Errorf("Atom: %q, %d skipped; want the entries' alternate links, one skipped", got, res.Skipped)
	}
	if want := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC); len(res.URLs) > 0 && !res.URLs[0].LastMod.Equal(want) {
		t.Errorf("Atom updated: %v, want %v", res.URLs[0].LastMod, want)
	}
	// An RSS file nested deeper than its items are is not read as entries.
	if res, err := Parse([]byte(`<rss><item><link>http://a.test/x</link></item></rss>`), Limits{}); err != nil || len(res.URLs) != 0 {
		t.Errorf("an <item> outside <channel>: %v, %v; want no entry", res, err)
	}
}

// TestGzipTextCutAtCharacter: a gzip file's text cut at Limits.MaxBytes
// inside a UTF-16 or GB18030 character loses that character, as the
// fetcher's text does (fetch.PartialChar); before, the decoder, told the
// data ended there, wrote a U+FFFD for it.
func TestGzipTextCutAtCharacter(t *testing.T) {
	head := strings.Repeat("http://a.test/p\n", 10)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"utf-16le odd byte", utf16leBOM(head + "页")[:2+2*len(head)+1]},
		{"utf-16le high surrogate", utf16leBOM(head + "𠀀")[:2+2*len(head)+2]},
		{"gb18030 four-byte", append([]byte(`<?xml version="1.0" encoding="GB18030"?>`+head), 0x95, 0x32, 0x82)},
	} {
		out, _ := gzipText(tc.data, true, 1<<20)
		if !strings.HasSuffix(string(out), head) {
			t.Errorf("%s: text ends %q; want it to end before the cut character", tc.name, out[max(0, len(out)-12):])
		}
	}
}

// utf16leBOM is s in UTF-16LE after a byte order mark.
func utf16leBOM(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return b
}
