package sitemap

import (
	"strings"
	"testing"
)

// A text sitemap cut at MaxBytes (plain or gzipped) must not return the
// cut last line as if it were a URL of the file.
func TestTextCutAnywhere(t *testing.T) {
	doc := "https://a.test/first-page.html\nhttps://a.test/second-page.html\nhttps://a.test/third-page.html\n"
	full, err := Parse([]byte(doc), Limits{})
	if err != nil || len(full.URLs) != 3 {
		t.Fatalf("full parse: %+v, %v", full, err)
	}
	zipped := gz(t, doc)
	for cut := 1; cut < len(doc); cut++ {
		for _, mode := range []string{"MaxBytes", "gzip MaxBytes"} {
			body := []byte(doc)
			if mode == "gzip MaxBytes" {
				body = zipped
			}
			got, err := Parse(body, Limits{MaxBytes: int64(cut)})
			if err != nil {
				continue
			}
			for i, u := range got.URLs {
				if u != full.URLs[i] {
					t.Fatalf("%s cut %d: URLs[%d] = %q, want %q (truncated %v)", mode, cut, i, u.Loc, full.URLs[i].Loc, got.Truncated)
				}
			}
		}
	}
}

// TestLimitsAndEntities: exactly MaxEntries entries are not truncated (XML
// and text), and an entity in a loc is decoded.
func TestLimitsAndEntities(t *testing.T) {
	// Exactly MaxEntries entries: not truncated.
	r, err := Parse([]byte(urlsetOf(3)), Limits{MaxEntries: 3})
	if err != nil || len(r.URLs) != 3 || r.Truncated {
		t.Errorf("exact MaxEntries: %d %v %v", len(r.URLs), r.Truncated, err)
	}
	r, err = Parse([]byte("https://a.test/1\nhttps://a.test/2\n"), Limits{MaxEntries: 2})
	if err != nil || len(r.URLs) != 2 || r.Truncated {
		t.Errorf("exact MaxEntries text: %d %v %v", len(r.URLs), r.Truncated, err)
	}
	body := `<urlset ` + ns + `><url><loc>https://a.test/x?a=1&amp;b=2</loc><lastmod>2005-01-01T12:30:00+01:00</lastmod></url></urlset>`
	r, err = Parse([]byte(body), Limits{})
	if err != nil || len(r.URLs) != 1 || r.URLs[0].Loc != "https://a.test/x?a=1&b=2" || r.URLs[0].LastMod.IsZero() {
		t.Errorf("amp: %+v %v", r, err)
	}
}

// A gzip text sitemap whose download broke off: the line cut by the damage
// is not a URL of the file.
func TestTextGzipCut(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		b.WriteString("https://a.test/some/longer/path/page-number-")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(".html\n")
	}
	doc := b.String()
	full, _ := Parse([]byte(doc), Limits{})
	zipped := gz(t, doc)
	for cut := 1; cut < len(zipped); cut++ {
		got, err := Parse(zipped[:cut], Limits{})
		if err != nil {
			continue
		}
		for i, u := range got.URLs {
			if u != full.URLs[i] {
				t.Fatalf("gzip cut %d: URLs[%d] = %q, want %q (truncated %v)", cut, i, u.Loc, full.URLs[i].Loc, got.Truncated)
			}
		}
	}
}
