package fetch

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/transform"
)

const (
	// binaryProbeBytes is how much of a body is searched for NUL bytes.
	binaryProbeBytes = 1024
	// metaScanBytes is how far into a document <meta charset> is looked for.
	// charset.DetermineEncoding stops at 1024 bytes, but many Chinese pages
	// carry long heads (scripts, styles, keywords) before their declaration.
	metaScanBytes = 8192
)

// mediaType returns the lower-cased media type of a Content-Type header, or
// "" when the header is empty or names no type. A header that does not
// parse is read as browsers read it (the Fetch standard's "extract a MIME
// type"): a comma-separated list whose last valid type/subtype counts —
// "text/html, charset=utf-8" (a comma for the semicolon) and "text/html,
// text/html" (two headers a proxy merged) are HTML; with none, the body is
// sniffed as for a missing header. Taking the part before ';' as it was
// refused such pages for good as content_type.
func mediaType(contentType string) string {
	if strings.TrimSpace(contentType) == "" {
		return ""
	}
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return strings.ToLower(mt)
	}
	vals := strings.Split(contentType, ",")
	for i := len(vals) - 1; i >= 0; i-- {
		v, _, _ := strings.Cut(vals[i], ";")
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(v)); err == nil && strings.Contains(mt, "/") {
			return strings.ToLower(mt)
		}
	}
	return ""
}

// charsetContentType returns contentType as detectCharset reads it: as
// it is when it parses, else, for a comma-separated list mediaType reads,
// its last valid type with the charset Fetch's "extract a MIME type" gives
// it — its own, or, when it has none, that of the first value of the run
// of values of its type it ends; another type in between forgets it. A
// value a proxy merged from two headers ("text/html; charset=windows-1251,
// text/html") did not parse at all, and its charset was lost with it.
func charsetContentType(contentType string) string {
	if _, _, err := mime.ParseMediaType(contentType); err == nil || strings.TrimSpace(contentType) == "" {
		return contentType
	}
	essence, runCharset, cs := "", "", ""
	for _, v := range splitValues(contentType) {
		v = strings.TrimSpace(v)
		mt, params, err := mime.ParseMediaType(v)
		if err != nil {
			// Parameters that do not parse: the type as mediaType reads
			// it, and of the parameters those that do parse, as a browser
			// takes them ('text/html; charset=gbk; foo' is GBK).
			t, rest, _ := strings.Cut(v, ";")
			if mt, _, err = mime.ParseMediaType(strings.TrimSpace(t)); err != nil {
				continue
			}
			params = lenientParams(rest)
		}
		mt = strings.ToLower(mt)
		if !strings.Contains(mt, "/") || mt == "*/*" {
			continue
		}
		// Fetch's charset variable is set only where the type changes; a
		// value without its own charset takes it.
		own, ok := params["charset"]
		if mt != essence {
			essence, runCharset = mt, own
		}
		if cs = runCharset; ok {
			cs = own
		}
	}
	if essence == "" || cs == "" {
		return essence
	}
	return mime.FormatMediaType(essence, map[string]string{"charset": cs})
}

// splitValues splits a header value at its commas outside quoted strings,
// as Fetch's "getting, decoding, and splitting" does: a comma inside a
// quoted parameter value ('title="a, b"') separates no values.
func splitValues(s string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++ // the escaped character, a quote included
		case c == '"':
			quoted = !quoted
		case !quoted && c == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// lenientParams reads the name=value parameters of a Content-Type's
// parameter list (after its first ';') one by one, as Fetch's "parse a
// MIME type" does: those that do not parse (a bare 'foo', an empty name or
// value) are skipped, names lower-cased, a quoted value read as a quoted
// string (a ';' inside it ends no parameter, '\\' escapes), anything after
// its closing quote up to the next ';' ignored; the first of a name counts.
// Unlike Fetch, white space around the '=' is allowed, as mime.ParseMediaType
// allows it.
func lenientParams(list string) map[string]string {
	params := map[string]string{}
	for i := 0; i < len(list); {
		if list[i] == ';' {
			i++
		}
		j := i
		for j < len(list) && list[j] != ';' && list[j] != '=' {
			j++
		}
		name := strings.ToLower(strings.TrimSpace(list[i:j]))
		if i = j; i >= len(list) || list[i] == ';' {
			continue
		}
		i++ // the '='
		for i < len(list) && (list[i] == ' ' || list[i] == '\t') {
			i++
		}
		var val string
		if i < len(list) && list[i] == '"' {
			val, i = quotedString(list, i)
			for i < len(list) && list[i] != ';' {
				i++
			}
		} else {
			j := i
			for j < len(list) && list[j] != ';' {
				j++
			}
			val, i = strings.TrimRight(list[i:j], " \t\r\n"), j
			if val == "" {
				continue
			}
		}
		if _, seen := params[name]; !seen && name != "" {
			params[name] = val
		}
	}
	return params
}

// quotedString reads the quoted string that starts at s[i] (a '"'): its
// value, backslash escapes resolved, and the offset after its closing quote
// (len(s) when it has none).
func quotedString(s string, i int) (string, int) {
	var b strings.Builder
	for i++; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
			}
			b.WriteByte(s[i])
		case '"':
			return b.String(), i + 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), i
}

// isTextual reports whether a media type is one this package decodes to
// UTF-8 and guards against binary content.
func isTextual(mt string) bool {
	return strings.HasPrefix(mt, "text/") || mt == "application/xml" ||
		strings.HasSuffix(mt, "+xml") || mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// processBody applies the content-type allowlist, the binary guard and the
// charset conversion to a successful response body. It fills ContentType,
// Charset and Body of resp. The body limit applies to the converted text as
// it did to the bytes read (bodyLimit): a legacy or UTF-16 body grows in
// UTF-8, up to three times for windows-1252, and a page within the limit
// as sent would otherwise be stored and parsed at up to three times it.
func (f *Fetcher) processBody(resp *Response, req Request, header http.Header, body []byte) *Error {
	ctHeader := header.Get("Content-Type")
	declared := mediaType(ctHeader)
	sniffed := mediaType(http.DetectContentType(body))
	mt := declared
	if mt == "" {
		mt = sniffed
		if !f.allows(req, mt) {
			return newError(resp.FinalURL, ClassContentType,
				fmt.Errorf("no Content-Type and the body sniffs as %q, not in the allowlist", mt))
		}
	}
	resp.ContentType = mt
	if !isTextual(mt) {
		// An allowlisted non-text type: hand the bytes over untouched.
		resp.Body = body
		return nil
	}

	limit, truncate := f.bodyLimit(req)
	// A body cut at the request's own limit (attempt) may end inside a
	// character. Judged with it, UTF-8 failed the validity check — an
	// unlabelled sitemap with a few accented letters was decoded as
	// windows-1252 — so the cut character is left out of the judging, and
	// out of UTF-8 text, where it would be a U+FFFD the page never had.
	// In any other encoding the decoder, told the input ends there, makes
	// the cut character a U+FFFD too (a UTF-16 sitemap's odd last byte, a
	// GB18030 four-byte character's first three): it is left out as well
	// (PartialChar).
	judged, cut := body, truncate && int64(len(body)) == limit
	if cut {
		judged = body[:len(body)-partialRune(body)]
	}
	enc, name, note := detectCharset(judged, charsetContentType(ctHeader))
	if name == "utf-8" {
		body = judged
	} else if cut {
		body = body[:len(body)-PartialChar(enc, name, body)]
	}
	probe := body[:min(len(body), binaryProbeBytes)]
	if strings.HasPrefix(name, "utf-16") {
		// UTF-16 text is full of NUL bytes, so the guard reads its
		// characters instead of its bytes; a binary signature in the raw
		// bytes still gives binary data away.
		if !strings.HasPrefix(sniffed, "text/") && sniffed != "application/octet-stream" {
			return newError(resp.FinalURL, ClassBinary,
				fmt.Errorf("body labelled %s (%s) sniffs as %s", mt, name, sniffed))
		}
		probe, _ = decode(enc, probe[:len(probe)&^1], math.MaxInt64)
		sniffed = mediaType(http.DetectContentType(probe))
	}
	if sniffsBinary(sniffed, probe) {
		// A Content-Encoding the transport left in place (it decodes gzip,
		// the only one asked for, and removes the header then): br, deflate
		// or zstd bytes look binary. Said so, rather than "NUL byte". A bogus
		// value on a plain body ("Content-Encoding: utf-8") passes the guard
		// and is ignored.
		if ce := contentCoding(header); ce != "" && ce != "identity" {
			return newError(resp.FinalURL, ClassEncoding,
				fmt.Errorf("body sent with Content-Encoding %q, which the crawler neither asks for nor decodes", ce))
		}
		return newError(resp.FinalURL, ClassBinary,
			fmt.Errorf("body labelled %s sniffs as %s", mt, sniffed))
	}
	resp.Charset, resp.CharsetNote = name, note
	out, over := decode(enc, body, limit)
	if over && !truncate {
		return newError(resp.FinalURL, ClassTooLarge,
			fmt.Errorf("body exceeds the %d-byte limit once converted to UTF-8 from %s (%d bytes as sent)", limit, name, len(body)))
	}
	// A stray NUL in text (one in a page that browsers show) is U+FFFD,
	// as HTML's parser makes it: no later step — a PostgreSQL text
	// column, a C string in the tokenizer — sees a NUL.
	// The limit holds for the replaced text too (a NUL is one byte, U+FFFD
	// three).
	if bytes.IndexByte(out, 0) >= 0 {
		out = bytes.ReplaceAll(out, []byte{0}, []byte("\uFFFD"))
		if int64(len(out)) > limit {
			if !truncate {
				return newError(resp.FinalURL, ClassTooLarge,
					fmt.Errorf("body exceeds the %d-byte limit once its NUL characters are U+FFFD (%d bytes as sent)", limit, len(body)))
			}
			out = out[:runeCut(out, int(limit))]
		}
	}
	resp.Body = out
	return nil
}

// sniffsBinary reports whether http.DetectContentType's verdict says the
// body is not text. Its catch-all "application/octet-stream" also fires on a
// text page with one stray control byte (a NUL included: a page with one
// was refused for good), so for that verdict the share of control bytes
// must look like real binary data too.
func sniffsBinary(sniffed string, probe []byte) bool {
	text := strings.HasPrefix(sniffed, "text/")
	if text && bytes.IndexByte(probe, 0) < 0 {
		return false
	}
	if !text && sniffed != "application/octet-stream" {
		return true // a recognised binary signature: image, PDF, archive...
	}
	// An HTML signature ("<html") followed by NULs still gets the ratio.
	ctl := 0
	for _, c := range probe {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			ctl++
		}
	}
	return ctl*100 > len(probe)*3
}

// detectCharset picks the encoding of a text body the way the WHATWG
// encoding standard and HTML's encoding sniffing algorithm do: a BOM, then the
// charset parameter of Content-Type, then a <meta charset> or http-equiv
// declaration (looked for in the first metaScanBytes, not 1024: many Chinese
// pages carry long heads). When the page is silent the standard lets the
// user agent guess from the bytes: UTF-8 if the whole body is valid UTF-8,
// else the CJK legacy encoding whose decoding reads most like real text
// (guessLegacy), else windows-1252, the standard's default. It returns the
// encoding, its canonical WHATWG name and a note saying which declarations
// were overridden and why ("" when none was); GBK decodes as GB18030, as the
// standard specifies, so four-byte sequences survive.
//
// Where a crawler parts from a browser: a label that cannot describe the
// bytes (labelFits) is ignored like an unknown label, and so is one the
// bytes contradict (contradiction), since obeying it would index gibberish
// or nothing at all in place of the page's text. A BOM is never overridden.
func detectCharset(body []byte, contentType string) (encoding.Encoding, string, string) {
	var notes []string
	// DetermineEncoding is certain when a BOM or the header decided.
	if e, name, certain := charset.DetermineEncoding(body, contentType); certain && labelFits(name, body) {
		if hasBOM(body) {
			return withNote(e, name, nil)
		}
		why := contradiction(name, body)
		if why == "" {
			return withNote(e, name, notes)
		}
		notes = append(notes, "Content-Type declares "+name+why)
	}
	if e, name := metaCharset(body[:min(len(body), metaScanBytes)]); e != nil {
		why := contradiction(name, body)
		if why == "" {
			return withNote(e, name, notes)
		}
		notes = append(notes, "<meta> declares "+name+why)
	}
	if utf8.Valid(body) || nearlyUTF8(body) {
		return withNote(encoding.Nop, "utf-8", notes)
	}
	if name := guessLegacy(body); name != "" {
		e, _ := charset.Lookup(name)
		return withNote(e, name, notes)
	}
	e, name := charset.Lookup("windows-1252")
	return withNote(e, name, notes)
}

// withNote is whatwgDecoder with detectCharset's notes joined into one.
func withNote(e encoding.Encoding, name string, notes []string) (encoding.Encoding, string, string) {
	e, name = whatwgDecoder(e, name)
	return e, name, strings.Join(notes, "; ")
}

// hasBOM reports whether body starts with a UTF-8 or UTF-16 byte-order mark.
func hasBOM(body []byte) bool {
	return bytes.HasPrefix(body, []byte{0xEF, 0xBB, 0xBF}) ||
		bytes.HasPrefix(body, []byte{0xFE, 0xFF}) || bytes.HasPrefix(body, []byte{0xFF, 0xFE})
}

// minUTF8Evidence is how many multi-byte UTF-8 characters a body labelled
// with a legacy encoding must hold before its being valid UTF-8 outweighs
// the label. Legacy text is valid UTF-8 by chance only in short runs (GBK's
// 学习 happens to be the UTF-8 of ѧϰ); eight characters in a row by chance
// is below one in a million.
const minUTF8Evidence = 8

// contradiction returns why the bytes contradict an ASCII-compatible label
// (", but ..."), or "" when they do not: a utf-8 label over a body that is
// not UTF-8 and decodes cleanly as a CJK legacy encoding (guessLegacy), a
// windows-1252 (ISO-8859-1) label over such a body, or a
// legacy label over a body that is valid UTF-8 with at least
// minUTF8Evidence multi-byte characters. Servers and templates that default
// to one charset mislabel pages written in the other; a body with a few bad
// bytes and no better reading keeps its label, its bad bytes replaced.
func contradiction(name string, body []byte) string {
	switch {
	case strings.HasPrefix(name, "utf-16"), name == "replacement":
		return ""
	case name == "utf-8":
		if utf8.Valid(body) || nearlyUTF8(body) {
			return ""
		}
		if guess := guessLegacy(body); guess != "" {
			return ", but the body is not UTF-8 and reads as " + guess
		}
		return ""
	}
	if !utf8.Valid(body) {
		if nearlyUTF8(body) {
			return ", but the body is UTF-8 with multi-byte characters (and a few bad bytes)"
		}
		return legacyContradiction(name, body)
	}
	multi := 0
	for i := 0; i < len(body) && multi < minUTF8Evidence; i++ {
		if utf8.RuneStart(body[i]) && body[i] >= utf8.RuneSelf {
			multi++
		}
	}
	if multi < minUTF8Evidence {
		return ""
	}
	return ", but the body is valid UTF-8 with multi-byte characters"
}

// legacyContradiction is contradiction for a legacy label over a body
// that is not UTF-8. ISO-8859-1 (windows-1252) is the default many servers
// send for every page: over GBK or Big5 bytes it turned a Chinese page
// into Latin mojibake, as other single-byte labels (windows-1251,
// ISO-8859-2: a template's default) turned it into Cyrillic or Latin-2.
// Only a CJK reading that decodes cleanly overrides such a label; Western
// and Cyrillic text does not read as one (guessLegacy). A CJK label is
// overridden by another CJK reading only when its own reading has less
// than half the guess's share of plausible characters, or does not fit at
// all (legacyScore): a GBK page labelled big5, a Big5 page labelled gb2312
// were stored as rare-ideograph gibberish, though the bytes read cleanly.
func legacyContradiction(name string, body []byte) string {
	cjk := name == "gb18030" || slices.Contains(legacyCandidates, name)
	chinese := name == "gbk" || name == "gb18030" || name == "big5"
	sample := guessSampleN(body, contradictionSampleBytes)
	own, fits := 0.0, false
	if cjk {
		if own, fits = legacyScore(name, sample); fits && (own >= 0.3 || !chinese) {
			// A label that reads as text is kept without trying the
			// others (one decoding, not six, for every correctly labelled
			// page). A Japanese or Korean label is kept whenever its
			// bytes decode cleanly: plausibility is a poor judge there —
			// kanbun or a title page has too little kana for legacyScore,
			// a line of dialogue too few common syllables — and it lost
			// such pages to a GBK reading.
			return ""
		}
		if !fits && !chinese && cleanDecode(name, sample) {
			return ""
		}
	}
	guess := guessLegacy(sample)
	if guess == "" || guess == name || (guess == "gbk" && name == "gb18030") {
		return ""
	}
	if !cjk {
		return ", but the body is not " + name + " text and reads as " + guess
	}
	best, _ := legacyScore(guess, sample)
	if fits && own*2 >= best {
		return ""
	}
	return fmt.Sprintf(", but the body reads as %s (%.0f%% of its characters common ones, as %s %.0f%%)",
		guess, 100*best, name, 100*own)
}

// nearlyUTF8 reports whether a body that is not valid UTF-8 is UTF-8 text
// with a few bad bytes — a title a CMS cut mid-character, one stray
// Latin-1 byte: at least minUTF8Evidence multi-byte characters and at most
// one bad byte per ten of them. Legacy text forms valid multi-byte UTF-8
// characters only by chance and has bad bytes everywhere: the GIMP
// manual's 685 Chinese pages encoded as GBK have at least 1.7 bad bytes
// per chance UTF-8 character, as Big5 5.2, as Shift_JIS 7.4; Latin-1 text
// has next to none. One bad byte made such a page windows-1252 mojibake.
func nearlyUTF8(body []byte) bool {
	multi, bad := 0, 0
	for i := 0; i < len(body); {
		if body[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && size <= 1 {
			bad++
		} else {
			multi++
		}
		i += size
	}
	return multi >= minUTF8Evidence && bad*10 <= multi
}

// labelFits reports whether the encoding a BOM or a header named can be the
// body's. Not WHATWG's "replacement" encoding, which ISO-2022-KR,
// ISO-2022-CN and HZ labels map to and which decodes any body to a single
// U+FFFD: obeyed, the page would be stored with no text. And UTF-16 only
// with a BOM, or when the bytes look like it (utf16Shaped): ASCII-compatible
// bytes read as UTF-16 become CJK gibberish.
func labelFits(name string, body []byte) bool {
	switch name {
	case "replacement":
		return false
	case "utf-16le", "utf-16be":
		return bytes.HasPrefix(body, []byte{0xFE, 0xFF}) || bytes.HasPrefix(body, []byte{0xFF, 0xFE}) ||
			utf16Shaped(body, name == "utf-16be")
	}
	return true
}

// utf16Shaped reports whether the start of a BOM-less body is laid out like
// UTF-16 in the given byte order. HTML and plain text always carry ASCII
// characters (markup, spaces, digits), whose high byte is zero: in UTF-16LE
// the NUL bytes fall mostly on odd offsets, in UTF-16BE on even ones. Bytes
// written in an ASCII-compatible encoding have no NUL at all.
func utf16Shaped(body []byte, bigEndian bool) bool {
	probe := body[:min(len(body), binaryProbeBytes)]
	var even, odd int
	for i, c := range probe {
		if c == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	if bigEndian {
		return even > odd
	}
	return odd > even
}

// whatwgDecoder applies the one place where x/text's decoders and the WHATWG
// standard differ for us: the standard's GBK decoder is the gb18030 decoder
// (it accepts four-byte sequences), while x/text's GBK rejects them.
func whatwgDecoder(e encoding.Encoding, name string) (encoding.Encoding, string) {
	if name == "gbk" {
		return simplifiedchinese.GB18030, name
	}
	return e, name
}

// legacyCandidates are the multi-byte encodings guessLegacy tries for a
// page that declares nothing, in order of preference on a tie. GBK stands
// for GBK and GB18030 (one decoder).
var legacyCandidates = []string{"gbk", "big5", "shift_jis", "euc-jp", "euc-kr"}

// guessLegacy returns the WHATWG name of the CJK legacy encoding an
// undeclared, non-UTF-8 body is most likely written in, or "" when none
// fits. Each candidate must decode the body with at most one bad byte per
// hundred characters; the survivors
// are scored by how much of their non-ASCII output is text a person writes
// (plausible): kana for Japanese, Hangul syllables for Korean, the most
// frequent Han characters for Chinese. Misdecoded bytes land on rare
// ideographs, half-width katakana or symbols and score low, which is how
// Big5 and Shift_JIS pages (valid GBK byte sequences, mostly) are told from
// GBK ones.
func guessLegacy(body []byte) string {
	body = guessSample(body)
	best, bestScore := "", 0.0
	for _, name := range legacyCandidates {
		if score, ok := legacyScore(name, body); ok && score > bestScore+1e-9 {
			best, bestScore = name, score
		}
	}
	if bestScore < 0.3 {
		return ""
	}
	return best
}

// legacyScore decodes sample as the legacy candidate name (legacyCandidates;
// gb18030 is gbk) and scores it for guessLegacy: the share of its non-ASCII
// characters that are plausible text. ok is false when the encoding does
// not fit at all: the decoder refuses the bytes, fewer than four non-ASCII
// characters, more than one undecodable byte per hundred characters, or a
// Japanese reading without kana.
func legacyScore(name string, sample []byte) (score float64, ok bool) {
	if name == "gb18030" {
		name = "gbk"
	}
	e, _ := charset.Lookup(name)
	if e == nil {
		return 0, false
	}
	e, _ = whatwgDecoder(e, name)
	out, err := e.NewDecoder().Bytes(sample)
	if err != nil {
		return 0, false
	}
	good, total, kana, bad := 0, 0, 0, 0
	for _, r := range string(out) {
		if r == utf8.RuneError {
			bad++
			continue
		}
		if r < 0x80 {
			continue
		}
		total++
		if plausible(name, r) {
			good++
		}
		if r >= 0x3040 && r <= 0x30FF {
			kana++
		}
	}
	// A few undecodable bytes (a title a CMS cut mid-character) do not
	// rule an encoding out; more than one per hundred characters do.
	// Before, one such byte left a mislabelled page to its wrong label.
	if total < 4 || bad*100 > total {
		return 0, false
	}
	if (name == "shift_jis" || name == "euc-jp") && kana*10 < total {
		// Japanese is written with kana between its kanji; EUC-KR
		// Hangul read as EUC-JP is common kanji and no kana ("디지털
		// 카메라 | 렌즈 | 키보드" came out as euc-jp).
		return 0, false
	}
	return float64(good) / float64(total), true
}

// guessSampleBytes is how much of a body guessLegacy decodes: enough text to
// judge, without decoding a 5 MiB page five times.
const guessSampleBytes = 64 << 10

// contradictionSampleBytes is how much of a labelled body legacyContradiction
// reads: every page with a legacy label pays for it (a windows-1251 page
// is decoded as each CJK candidate), and a mislabelled Chinese page shows
// in its first kilobytes of text (guessSampleN skips long ASCII runs).
const contradictionSampleBytes = 8 << 10

// asciiRunMax and asciiRunEdge: guessSampleN shortens a pure-ASCII run
// longer than asciiRunMax bytes (a script, a style sheet, navigation
// markup) to its first and last asciiRunEdge bytes. Such runs carry no
// evidence about a legacy encoding, and a Chinese page whose head holds
// 8 kB of script kept a wrong label because its sample had no Chinese in it.
const (
	asciiRunMax  = 256
	asciiRunEdge = 32
)

// cleanDecode reports whether sample decodes as the legacy encoding name
// with at most one undecodable byte per hundred characters.
func cleanDecode(name string, sample []byte) bool {
	e, _ := charset.Lookup(name)
	if e == nil {
		return false
	}
	out, err := e.NewDecoder().Bytes(sample)
	if err != nil {
		return false
	}
	bad, total := 0, 0
	for _, r := range string(out) {
		total++
		if r == utf8.RuneError {
			bad++
		}
	}
	return bad*100 <= total
}

// guessSample returns about the first guessSampleBytes of body's text
// (guessSampleN).
func guessSample(body []byte) []byte { return guessSampleN(body, guessSampleBytes) }

// guessSampleN returns about n bytes from the start of body with its long
// ASCII runs shortened (compactASCII), cut where no multi-byte character
// can be split (safeCut), which would make every candidate fail: at the
// last such place in the second half of the first n bytes, else (a long
// paragraph of CJK text, nothing ASCII in it) at the first one after
// them, else at the end. Looking no further back than n/2 keeps the text
// past a long script, which the cut used to drop again.
func guessSampleN(body []byte, n int) []byte {
	if len(body) <= n {
		return body
	}
	// More than n bytes, or the whole compacted body: either way its end
	// is a character boundary or lies past the cut below.
	head := compactASCII(body, n+1)
	if len(head) <= n {
		return head
	}
	for i := n - 1; i >= n/2; i-- {
		if safeCut(head, i) {
			return head[:i+1]
		}
	}
	all := compactASCII(body, len(body))
	for i := n; i < len(all); i++ {
		if safeCut(all, i) {
			return all[:i+1]
		}
	}
	return all
}

// safeCut reports whether b may be cut after b[i] without splitting a
// character in any candidate encoding: after a byte below 0x30 (space,
// newline, '"', '/', ...), which is never part of a multi-byte character
// (GB18030's four-byte sequences use 0x30-0x39), or after an ASCII byte
// that follows another (a trail byte ends its character, and only a byte
// at 0x81 or above follows GB18030's ASCII second byte).
func safeCut(b []byte, i int) bool {
	return b[i] < 0x30 || (b[i] < utf8.RuneSelf && i > 0 && b[i-1] < utf8.RuneSelf)
}

// compactASCII returns the start of body with every pure-ASCII run longer
// than asciiRunMax cut to its first and last asciiRunEdge bytes: at least
// n bytes of it when there are, else all of it, and body itself (no copy)
// when no run within reach needed cutting. Inside an ASCII run of two or
// more bytes every byte but the first starts a character in every
// candidate encoding (the first may be a trail byte, and an ASCII byte
// after an ASCII byte cannot be), so both cuts fall between characters
// and the joined bytes decode as the page's own.
func compactASCII(body []byte, n int) []byte {
	var out []byte
	from := 0 // body[from:] is not yet in out
	for i := 0; i < len(body) && len(out)+i-from < n; {
		if body[i] >= utf8.RuneSelf {
			i++
			continue
		}
		j := i + 1
		for j < len(body) && body[j] < utf8.RuneSelf {
			j++
		}
		if j-i > asciiRunMax {
			if out == nil {
				out = make([]byte, 0, n+asciiRunEdge)
			}
			out = append(out, body[from:i+asciiRunEdge]...)
			from = j - asciiRunEdge
		}
		i = j
	}
	if out == nil {
		return body[:min(len(body), n)]
	}
	return append(out, body[from:min(len(body), from+max(0, n-len(out)))]...)
}

// plausible reports whether r, decoded as encoding name, is the kind of
// character text in that encoding's language is mostly made of.
func plausible(name string, r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x303F, r >= 0xFF01 && r <= 0xFF5E:
		return true // CJK punctuation, full-width forms: every CJK language
	case r == '\u2014', r == '\u2018', r == '\u2019', r == '\u201C', r == '\u201D', r == '\u2026':
		// — ‘ ’ “ ” …: simplified Chinese's own dash, quotation marks
		// and ellipsis, in every CJK legacy encoding. Not counting them
		// made a GBK page of English prose (a half-translated manual's)
		// read as Big5, whose reading of the same bytes is full-width
		// forms, and ’ was indexed as ＊.
		return true
	case r >= 0x3040 && r <= 0x30FF: // hiragana and katakana (not half-width)
		return name == "shift_jis" || name == "euc-jp"
	case r >= 0xAC00 && r <= 0xD7A3: // Hangul syllables
		return name == "euc-kr" && commonHangul[r]
	case r >= 0x4E00 && r <= 0x9FFF:
		return commonHan[r]
	}
	return false
}

// commonHanText lists frequent Chinese characters in simplified and
// traditional forms (the first few hundred of a frequency list cover about
// half of running text; misdecoded bytes hit them rarely).
const commonHanText = "的一是不了在人有我他这個个们們中来來上大为為和国國地到以说說时時要就出会會可也你对對生能而子那得于於着著下自之年过過发發后後作里裡用道行所然家种種事成方多经經么麼去法学學如都同现現当當没沒动動面起看定天分还還进進好小部其些主样樣理心她本前开開但因只从從想实實日军軍者意无無力它与與长長把机機十民第公此已工使情明性知全三又关關点點正业業外将將两兩高间間由问問很最重并並物手应應战戰向头頭文体體政美相见見被利什二等产產或新己制身果加西斯月话話合回特代内內信表化老给給世位次度门門任常先海通教儿兒原东東声聲提立及比员員解水名真论論处處走义義各入几幾口认認条條平系气氣题題活尔爾更别別打女变變四神总總何电電数數安少报報才结結反受目太量再感建务務做接必场場件计計管期市直德资資命山金指克许許统統区區保至队隊形社便空决決治展马馬科司五基眼书書非则則听聽白却界达達光放强強即像难難且权權思王象完设設式色路记記南品住告类類求据據程北边邊死张張该該交规規万萬取拉格望觉覺术術领領共确確传傳师師观觀清今切院让讓识識候带帶导導争爭运運笑飞飛风風步改收根干造言联聯持组組每济濟车車亲親极極林服快办辦议議往元英士证證近失转轉夫令准布始怎呢存未远遠叫台单單影具罗羅字爱愛击擊流备備兵连連调調深商算质質团團集百需价價花党黨华華城石级級整府离離况況亚亞请請技际際约約示复復病息究线線似官火断斷精满滿支视視消越器容照须須九增研写寫称稱企八功吗嗎包片史委乎查轻輕易早曾除农農找装裝广廣显顯吧阿李标標谈談吃图圖念六引历歷首医醫局突专專费費号號尽盡另周较較注语語仅僅考落青随隨选選列武红紅响響虽雖推势勢参參希古众眾构構房半节節土投某案黑维維革划劃敌敵致陈陳律足态態护護七兴興派孩验驗责責营營星够夠章音跟志底站严嚴巴例防族供效续續施留讲講型料终終答紧緊黄黃绝絕奇察母京段依批群项項故按河米围圍江织織害斗双雙境客纪紀采举舉杀殺攻父苏蘇密低朝友诉訴止细細愿值仍男钱錢破网網热熱助倒育属屬坐帝限船脸臉职職速刻乐樂否刚剛威毛状狀率甚独獨球般普怕弹彈校苦创創假久错錯承印晚兰蘭试試股拿脑腦预預谁誰益阳陽若哪微尼继繼送急血惊驚伤傷素药藥适適波夜省初喜卫衛源食险險待述陆陸习習置居劳勞财財环環排福纳納欢歡雷警获獲模充负負云雲停木游龙龍树樹疑层層冷洲冲射略范竟句室异異激汉漢村哈策演简簡卡罪判担擔州静靜退既衣您宗积積余痛检檢差富灵靈协協角占配征修皮挥揮胜勝降阶階审審沉坚堅善妈媽刘劉读讀啊超免压壓银銀买買皇养養伊怀懷执執副乱亂抗犯追帮幫宣佛岁歲航优優怪香著田铁鐵控税稅左右份穿艺藝背阵陣草脚腳概恶惡块塊顿頓敢守酒岛島托央户戶烈洋哥索胡款靠评評版宝寶座释釋景顾顧弟登货貨互付伯慢欧歐换換闻聞危忙核暗姐介坏壞讨討丽麗良序升监監临臨亮露永呼味野架域沙掉括舰艦鱼魚杂雜误誤湖钟鐘奔跑驾駕缺圣聖網頁繁體臺灣灣資訊網站首頁搜尋會員服務"

// commonHangulText lists frequent Hangul syllables. EUC-KR's Hangul rows
// share their bytes with GBK's most common Chinese characters (lead bytes
// 0xB0-0xC8), so a GBK page decodes as EUC-KR into valid syllables — any
// syllable counted as plausible made a short Chinese page read as Korean
// (a GBK page mislabelled utf-8 with 30 characters of gardening text). Real
// Korean is mostly these few hundred of the 2,350 syllables; misdecoded
// Chinese hits them about one time in eight.
const commonHangulText = "이다는의에고하을가지를서한기로사리자도수대일어인아나들해시요구정게내보여전부제적상것주면소우동있그라화성과국만장경위무문원행생실안계공중모마비신오거야때까미연세진물말르날분관개회저음유현없방선조발데단식용집영체러학결통된금운니되치은던었았했습입간심명트스터드프크할합함히후점품표교차질감각강건검곳광군권귀근글급남냐너네년노논놓누눈늘능달담당더덕돌두둘뒤든듯등따또락란람래략량려력련렬령례록론료루류률른름릅린림립막많맞매며몇목몸못민밀바반받밖배백번범법변별병복본봉불빠산살삼새색석설섭속손송순술쉬식씨악않알앞애약양얻업엔역열염였예옛왜외욕월웹윗으읽임잘잠재쟁져절접젊좀종좋죽준줄즉증직짜참창책처천철첫청초총최추출충취측층친카컴케코콘타태택테토투특파판팔패퍼페편평포피필항향허험혁협형호혹홍확환활황효휴흐희힘딩깁"

// commonHangul is commonHangulText as a set.
var commonHangul = func() map[rune]bool {
	m := make(map[rune]bool, len(commonHangulText)/3)
	for _, r := range commonHangulText {
		m[r] = true
	}
	return m
}()

// commonHan is commonHanText as a set.
var commonHan = func() map[rune]bool {
	m := make(map[rune]bool, len(commonHanText)/3)
	for _, r := range commonHanText {
		m[r] = true
	}
	return m
}()

// metaCharset finds a charset declared by <meta charset=...> or by
// <meta http-equiv="content-type" content="...; charset=..."> in head.
func metaCharset(head []byte) (encoding.Encoding, string) {
	z := html.NewTokenizer(bytes.NewReader(head))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return nil, ""
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tag, hasAttr := z.TagName()
		if string(tag) != "meta" {
			continue
		}
		var cs, content string
		pragma := false
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			switch string(k) {
			case "charset":
				cs = string(v)
			case "content":
				content = string(v)
			case "http-equiv":
				pragma = strings.EqualFold(strings.TrimSpace(string(v)), "content-type")
			}
		}
		if cs == "" && pragma {
			if _, params, err := mime.ParseMediaType(content); err == nil {
				cs = params["charset"]
			} else if _, rest, ok := strings.Cut(strings.ToLower(content), "charset="); ok {
				rest, _, _ = strings.Cut(rest, ";")
				cs = strings.Trim(strings.TrimSpace(rest), `"'`)
			}
		}
		// HTML's algorithm for extracting a charset from a content
		// attribute takes a value in single quotes too (mime does not).
		if cs = strings.Trim(strings.TrimSpace(cs), `"'`); cs == "" {
			continue
		}
		if e, name := charset.Lookup(cs); e != nil {
			// A document cannot declare itself UTF-16 in ASCII-compatible
			// bytes; WHATWG reads such a declaration as UTF-8.
			if strings.HasPrefix(name, "utf-16") {
				return encoding.Nop, "utf-8"
			}
			// The replacement encoding would decode the page to one
			// U+FFFD (see labelFits): the declaration is ignored.
			if name == "replacement" {
				continue
			}
			return e, name
		}
	}
}

// decode converts body to UTF-8, keeping at most limit bytes of the result,
// cut at a character boundary; over reports whether it was cut. Invalid
// sequences become U+FFFD; it never fails. Leading BOMs are dropped. The
// conversion streams and stops at the limit: the whole result, up to three
// times the body, is never held.
func decode(enc encoding.Encoding, body []byte, limit int64) (out []byte, over bool) {
	if enc != encoding.Nop {
		r := bufio.NewReader(transform.NewReader(bytes.NewReader(body), enc.NewDecoder()))
		// Every leading U+FEFF goes: a byte-order mark the decoder left, and
		// any repeated after it (as a zero-width no-break space it carries
		// nothing at the start of a document, and it would start the page's
		// text). Dropped before the limit counts, as the result never
		// holds them.
		for {
			c, _, err := r.ReadRune()
			if err != nil {
				break
			}
			if c != '\uFEFF' {
				_ = r.UnreadRune()
				break
			}
		}
		// One byte past the limit tells "at" from "over" (not past
		// MaxInt64, as in attempt). CJK text grows by half.
		var buf bytes.Buffer
		buf.Grow(int(min(limit, int64(len(body))+int64(len(body))/2) + bytes.MinRead))
		_, err := buf.ReadFrom(io.LimitReader(r, limit+min(1, math.MaxInt64-limit)))
		b := buf.Bytes()
		// x/text decoders substitute U+FFFD for bad input rather than fail;
		// should one fail anyway, the raw bytes are cleaned up below.
		if err == nil {
			if int64(len(b)) > limit {
				// The read may have stopped inside a character.
				b, over = b[:runeCut(b, int(limit))], true
			}
			b, cut := validUTF8(b, limit)
			return b, over || cut
		}
	}
	for bytes.HasPrefix(body, utf8BOM) {
		body = body[len(utf8BOM):]
	}
	return validUTF8(body, limit)
}

// utf8BOM and utf8Replacement are U+FEFF and U+FFFD in UTF-8.
var utf8BOM, utf8Replacement = []byte("\uFEFF"), []byte("\uFFFD")

// validUTF8 is bytes.ToValidUTF8(b, "\uFFFD") — each run of invalid bytes
// becomes one U+FFFD — cut at a character boundary to at most limit bytes
// (cut: it was). Each bad byte may grow to three, so b within the limit
// does not make the result so.
func validUTF8(b []byte, limit int64) ([]byte, bool) {
	if utf8.Valid(b) {
		if int64(len(b)) <= limit {
			return b, false
		}
		return b[:runeCut(b, int(limit))], true
	}
	out := make([]byte, 0, min(int64(len(b)), limit))
	invalid := false // the byte before was a bad one
	for i := 0; i < len(b); {
		n := 1
		piece := b[i : i+1]
		if b[i] >= utf8.RuneSelf {
			if _, w := utf8.DecodeRune(b[i:]); w > 1 {
				n, piece = w, b[i:i+w]
			} else if invalid {
				i++
				continue
			} else {
				piece = utf8Replacement
			}
		}
		if int64(len(out)+len(piece)) > limit {
			return out, true
		}
		out = append(out, piece...)
		invalid = n == 1 && b[i] >= utf8.RuneSelf
		i += n
	}
	return out, false
}

// partialRune returns how many bytes at the end of b are the start of a
// UTF-8 character that b cuts off (0 when none is).
func partialRune(b []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// PartialChar is partialRune for the encoding enc (WHATWG name name): how
// many bytes at the end of b are the start of a character of enc that b
// cuts off (0 when none is). Text cut at a byte limit loses that
// character, as a UTF-8 body does, instead of ending in the U+FFFD a
// decoder told the input ends there writes for it (a UTF-16 sitemap's odd
// last byte, a GB18030 four-byte character's first three). The sitemap
// parser cuts a gzip file's text with it too.
//
// UTF-16 is read directly: an odd byte, and a high surrogate without its
// low one. Other encodings ask their decoder, which answers ErrShortSrc
// for a cut character when not told the input ends; it reads from the
// last byte that ends a character in every legacy multi-byte encoding
// (safeCut), so a sitemap's ASCII URLs keep that to a few bytes, and only
// text with no such byte is read whole.
func PartialChar(enc encoding.Encoding, name string, b []byte) int {
	if name == "utf-8" {
		return partialRune(b)
	}
	if strings.HasPrefix(name, "utf-16") {
		n := len(b) & 1
		if u := len(b) - n; u >= 2 {
			unit := uint16(b[u-2])<<8 | uint16(b[u-1])
			if name == "utf-16le" {
				unit = uint16(b[u-1])<<8 | uint16(b[u-2])
			}
			if unit >= 0xD800 && unit < 0xDC00 {
				n += 2
			}
		}
		return n
	}
	from := 0
	for i := len(b) - 2; i >= 0; i-- {
		if safeCut(b, i) {
			from = i + 1
			break
		}
	}
	dec, tail := enc.NewDecoder(), b[from:]
	var dst [512]byte // more than any one character decodes to
	for len(tail) > 0 {
		_, n, err := dec.Transform(dst[:], tail, false)
		tail = tail[n:]
		switch {
		case err == transform.ErrShortSrc && len(tail) < utf8.UTFMax:
			return len(tail)
		case err != transform.ErrShortDst:
			return 0
		}
	}
	return 0
}

// runeCut returns the largest n ≤ at at which b can be cut without
// splitting a character (at < len(b)).
func runeCut(b []byte, at int) int {
	n := at
	for n > 0 && !utf8.RuneStart(b[n]) && at-n < utf8.UTFMax-1 {
		n--
	}
	if !utf8.RuneStart(b[n]) {
		return at // not UTF-8 there: no character to keep whole
	}
	return n
}
