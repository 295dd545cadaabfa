package topic

import (
	"strings"
	"testing"
)

func TestSitemaps(t *testing.T) {
	base := "name: x\nkeywords: {rose: 1}\nseeds: [http://a.test/]\n"
	for _, tc := range []struct {
		yaml, wantErr string
		want          Sitemaps
	}{
		{"", "", Sitemaps{}},
		{"sitemaps: true\n", "", Sitemaps{Enabled: true}},
		{"sitemaps: false\n", "", Sitemaps{}},
		{"sitemaps: {enabled: true, max_files: 3, max_urls: 200}\n", "", Sitemaps{Enabled: true, MaxFiles: 3, MaxURLs: 200}},
		{"sitemaps: yes please\n", "sitemaps", Sitemaps{}},
		{"sitemaps: {enabled: true, max_file: 3}\n", "sitemaps.max_file: unknown field", Sitemaps{}},
		{"sitemaps: {max_files: 5000}\n", "sitemaps.max_files", Sitemaps{}},
		{"sitemaps: {max_urls: -1}\n", "sitemaps.max_urls", Sitemaps{}},
		{"sitemaps: [true]\n", "sitemaps", Sitemaps{}},
		// yaml.v3 truncated these: 0.5 became the default 10, 2.5 became 2.
		{"sitemaps: {enabled: true, max_files: 0.5}\n", "sitemaps.max_files: 0.5 is not a whole number", Sitemaps{}},
		{"sitemaps: {enabled: true, max_urls: 2.5}\n", "sitemaps.max_urls: 2.5 is not a whole number", Sitemaps{}},
		{"sitemaps: {enabled: true, max_urls: 20.0}\n", "", Sitemaps{Enabled: true, MaxURLs: 20}},
	} {
		tp, err := Parse([]byte(base + tc.yaml))
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one naming %s", tc.yaml, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.yaml, err)
		case tp.Sitemaps != tc.want:
			t.Errorf("%q: parsed %+v, want %+v", tc.yaml, tp.Sitemaps, tc.want)
		}
	}
	s := Sitemaps{Enabled: true}
	if s.Files() != DefaultSitemapFiles || s.URLs() != DefaultSitemapURLs {
		t.Errorf("defaults %d files, %d URLs", s.Files(), s.URLs())
	}
}
