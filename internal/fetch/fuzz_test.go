package fetch

import (
	"bytes"
	"math"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
)

// FuzzCharset runs charset detection and decoding on arbitrary bodies and
// Content-Type headers: never a panic, always a named charset, always valid
// UTF-8 out and no BOM left at the start.
func FuzzCharset(f *testing.F) {
	for _, s := range []struct{ body, ct string }{
		{"<html><body>hello</body></html>", "text/html"},
		{"\xEF\xBB\xBF<p>bom</p>", "text/html; charset=iso-8859-1"},
		{"<meta charset=gb2312><p>\xc4\xe3\xba\xc3\x95\x32\x82\x36</p>", "text/html"},
		{"\xa7\x41\xa6\x6e\xa1\x41\xb3\x6f\xac\x4f\xa4\x40\xad\xd3", "text/html"},
		{"\x82\xb1\x82\xea\x82\xcd\x93\xfa\x96\x7b\x8c\xea", ""},
		{"<meta http-equiv=content-type content='text/html; charset=utf-16'>", "text/html"},
		{"\xff\xfeh\x00i\x00", "text/plain; charset=utf-16le"},
		{"<meta charset=utf-8><p>\xb3\xa3\xbc\xfb\xb5\xc4\xb4\xed\xce\xf3</p>", "text/html; charset=utf-8"},
	} {
		f.Add([]byte(s.body), s.ct)
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		enc, name, note := detectCharset(body, contentType)
		if enc == nil || name == "" {
			t.Fatalf("no charset for %q (%q)", body, contentType)
		}
		if note != "" && hasBOM(body) {
			t.Fatalf("a BOM was overridden (%s): %q", note, body)
		}
		out := decodeAll(enc, body)
		if !utf8.Valid(out) {
			t.Fatalf("decoded %s body is not UTF-8: %q", name, out)
		}
		if len(out) >= 3 && string(out[:3]) == "\uFEFF" {
			t.Fatalf("BOM kept: %q", out)
		}
		// With a limit: the unlimited result's longest prefix within it
		// that ends on a character boundary, and over when that is not all.
		want := decodeReference(enc, body)
		if !bytes.Equal(out, want) {
			t.Fatalf("decode(%s) = %q, reference %q", name, out, want)
		}
		for _, limit := range []int64{0, 1, 2, int64(len(want)) / 3, int64(len(want)) / 2, int64(len(want)) - 1, int64(len(want)), int64(len(body))} {
			if limit < 0 {
				continue
			}
			got, over := decode(enc, body, limit)
			cut := want
			if int64(len(cut)) > limit {
				cut = cut[:limit]
				for len(cut) > 0 && !utf8.Valid(cut) {
					cut = cut[:len(cut)-1]
				}
			}
			if !bytes.Equal(got, cut) || over != (int64(len(want)) > limit) {
				t.Fatalf("decode(%s, limit %d) = %q, %v; want %q, %v", name, limit, got, over, cut, int64(len(want)) > limit)
			}
		}
	})
}

// decodeAll is decode without a limit.
func decodeAll(enc encoding.Encoding, body []byte) []byte {
	out, _ := decode(enc, body, math.MaxInt64)
	return out
}

// decodeReference is decode as it was before it streamed: the whole body
// converted, then cleaned up, no limit.
func decodeReference(enc encoding.Encoding, body []byte) []byte {
	out := body
	if enc != encoding.Nop {
		if b, err := enc.NewDecoder().Bytes(body); err == nil {
			out = b
		}
	}
	out = bytes.ToValidUTF8(out, []byte("\uFFFD"))
	for bytes.HasPrefix(out, []byte("\uFEFF")) {
		out = out[len("\uFEFF"):]
	}
	return out
}

// FuzzMetaRefresh reads arbitrary bodies for a meta refresh: never a panic;
// a redirect found has a reference, and one inside the scanned head is
// found whatever follows it.
func FuzzMetaRefresh(f *testing.F) {
	for _, s := range []string{
		`<META HTTP-EQUIV="refresh" content="0;URL=Documentation/web/index.html">`,
		`<meta http-equiv=refresh content="5; url='a b'">`,
		`<meta http-equiv="refresh" content="1.5.5,URL=x">`,
		`<meta http-equiv="refresh" content="99999999999999999999999; url=/x">`,
		`<meta http-equiv="REFRESH"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ref, ok := metaRefresh(body)
		if ok && ref == "" {
			t.Fatalf("a redirect without a reference in %q", body)
		}
		stub := []byte(`<meta http-equiv="refresh" content="0; url=/next">`)
		if ref, ok := metaRefresh(append(stub, body...)); !ok || ref != "/next" {
			t.Fatalf("a leading refresh element not found before %q: %q %v", body, ref, ok)
		}
	})
}
