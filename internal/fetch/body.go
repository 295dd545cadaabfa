package fetch

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
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
// "" when the header is empty. A header that does not parse still yields its
// part before ';', as browsers do.
func mediaType(contentType string) string {
	if strings.TrimSpace(contentType) == "" {
		return ""
	}
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return strings.ToLower(mt)
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// isTextual reports whether a media type is one this package decodes to
// UTF-8 and guards against binary content.
func isTextual(mt string) bool {
	return strings.HasPrefix(mt, "text/") || mt == "application/xml" ||
		strings.HasSuffix(mt, "+xml") || mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// processBody applies the content-type allowlist, the binary guard and the
// charset conversion to a successful response body. It fills ContentType,
// Charset and Body of resp.
func (f *Fetcher) processBody(resp *Response, header http.Header, body []byte) *Error {
	ctHeader := header.Get("Content-Type")
	declared := mediaType(ctHeader)
	sniffed := mediaType(http.DetectContentType(body))
	mt := declared
	if mt == "" {
		mt = sniffed
		if !f.types[mt] {
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

	enc, name := detectCharset(body, ctHeader)
	// UTF-16 text is full of NUL bytes; only a BOM makes it believable.
	utf16 := strings.HasPrefix(name, "utf-16") &&
		(bytes.HasPrefix(body, []byte{0xFE, 0xFF}) || bytes.HasPrefix(body, []byte{0xFF, 0xFE}))
	if !utf16 {
		probe := body[:min(len(body), binaryProbeBytes)]
		if bytes.IndexByte(probe, 0) >= 0 {
			return newError(resp.FinalURL, ClassBinary,
				fmt.Errorf("NUL byte in the first %d bytes of a %s body", binaryProbeBytes, mt))
		}
		if sniffsBinary(sniffed, probe) {
			return newError(resp.FinalURL, ClassBinary,
				fmt.Errorf("body labelled %s sniffs as %s", mt, sniffed))
		}
	}
	resp.Charset = name
	resp.Body = decode(enc, body)
	return nil
}

// sniffsBinary reports whether http.DetectContentType's verdict says the
// body is not text. Its catch-all "application/octet-stream" also fires on a
// text page with one stray control byte, so for that verdict the share of
// control bytes must look like real binary data too.
func sniffsBinary(sniffed string, probe []byte) bool {
	if strings.HasPrefix(sniffed, "text/") {
		return false
	}
	if sniffed != "application/octet-stream" {
		return true // a recognised binary signature: image, PDF, archive...
	}
	ctl := 0
	for _, c := range probe {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			ctl++
		}
	}
	return ctl*100 > len(probe)*3
}

// detectCharset picks the encoding of a text body: a BOM, then the charset
// parameter of Content-Type, then a <meta charset> or http-equiv declaration
// in the first metaScanBytes, then UTF-8 if the whole body is valid UTF-8,
// then GBK if the body reads as Chinese, else windows-1252 (the WHATWG
// default). It returns the encoding and its canonical WHATWG name.
func detectCharset(body []byte, contentType string) (encoding.Encoding, string) {
	// DetermineEncoding is certain when a BOM or the header decided.
	if e, name, certain := charset.DetermineEncoding(body, contentType); certain {
		return e, name
	}
	if e, name := metaCharset(body[:min(len(body), metaScanBytes)]); e != nil {
		return e, name
	}
	if utf8.Valid(body) {
		return encoding.Nop, "utf-8"
	}
	if looksGBK(body) {
		return charset.Lookup("gbk")
	}
	return charset.Lookup("windows-1252")
}

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
		if cs == "" {
			continue
		}
		if e, name := charset.Lookup(cs); e != nil {
			// A document cannot declare itself UTF-16 in ASCII-compatible
			// bytes; WHATWG reads such a declaration as UTF-8.
			if strings.HasPrefix(name, "utf-16") {
				return encoding.Nop, "utf-8"
			}
			return e, name
		}
	}
}

// looksGBK reports whether an undeclared, non-UTF-8 body decodes cleanly as
// GB18030 into mostly CJK text. Latin-1 text rarely does: its accented
// letters are usually followed by ASCII bytes that are not valid GBK trail
// bytes, and when they do pair up they seldom land on CJK ideographs.
func looksGBK(body []byte) bool {
	out, err := simplifiedchinese.GB18030.NewDecoder().Bytes(body)
	if err != nil || bytes.ContainsRune(out, utf8.RuneError) {
		return false
	}
	cjk, other := 0, 0
	for _, r := range string(out) {
		switch {
		case r < 0x80:
		case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3000 && r <= 0x303F, r >= 0xFF00 && r <= 0xFFEF:
			cjk++
		default:
			other++
		}
	}
	return cjk >= 4 && cjk >= 9*other
}

// decode converts body to UTF-8. Invalid sequences become U+FFFD; it never
// fails. A leading BOM is dropped.
func decode(enc encoding.Encoding, body []byte) []byte {
	out := body
	if enc != encoding.Nop {
		// x/text decoders substitute U+FFFD for bad input rather than fail;
		// should one fail anyway, the raw bytes are cleaned up below.
		if b, err := enc.NewDecoder().Bytes(body); err == nil {
			out = b
		}
	}
	out = bytes.ToValidUTF8(out, []byte("\uFFFD"))
	return bytes.TrimPrefix(out, []byte("\uFEFF"))
}
