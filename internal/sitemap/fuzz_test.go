package sitemap

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzParse: no input panics, the entry limit holds, and every URL returned
// is an absolute http(s) URL.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		urlsetOf(3),
		`<sitemapindex><sitemap><loc>http://a.test/s.xml</loc></sitemap></sitemapindex>`,
		"http://a.test/1\nhttps://a.test/2\n",
		`<urlset><url><loc>http://a.te`,
		`<?xml version="1.0" encoding="latin1"?><urlset/>`,
		"\ufeff<urlset><url><loc><![CDATA[http://a.test/?a&b]]></loc></url></urlset>",
	} {
		f.Add([]byte(s))
	}
	f.Add(gz(f, urlsetOf(5)))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Parse(body, Limits{MaxEntries: 50, MaxBytes: 1 << 16})
		if err != nil {
			if len(r.URLs)+len(r.Sitemaps) != 0 {
				t.Fatalf("error %v with entries", err)
			}
			return
		}
		if n := len(r.URLs) + len(r.Sitemaps); n > 50 {
			t.Fatalf("%d entries over the limit of 50", n)
		}
		locs := append([]string(nil), r.Sitemaps...)
		for _, e := range r.URLs {
			locs = append(locs, e.Loc)
		}
		for _, l := range locs {
			u, err := url.Parse(l)
			if err != nil || u.Host == "" || (strings.ToLower(u.Scheme) != "http" && strings.ToLower(u.Scheme) != "https") {
				t.Fatalf("returned %q, not an absolute http(s) URL", l)
			}
		}
	})
}
