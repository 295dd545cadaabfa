package fetch

import (
	"testing"
	"unicode/utf8"
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
		out := decode(enc, body)
		if !utf8.Valid(out) {
			t.Fatalf("decoded %s body is not UTF-8: %q", name, out)
		}
		if len(out) >= 3 && string(out[:3]) == "\uFEFF" {
			t.Fatalf("BOM kept: %q", out)
		}
	})
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
