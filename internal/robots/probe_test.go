package robots

import "testing"

// TestRFCExamplesAndColonValues: RFC 9309's examples, and a line whose
// colon is missing after its key while its value holds one ("Disallow
// /a:b", "Sitemap https://…"): split at the value's colon, it named no
// directive and was dropped.
func TestRFCExamplesAndColonValues(t *testing.T) {
	body := "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\nUser-Agent: foobot\nDisallow:/\nAllow:/example/page.html\nAllow:/example/allowed.gif\n\nUser-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\nUser-Agent: quxbot\n\nEOF\n"
	type pr struct {
		agent, path string
		want        bool
	}
	for _, p := range []pr{
		{"foobot", "/example/page.html", true},
		{"foobot", "/example/allowed.gif", true},
		{"foobot", "/example/other.gif", false},
		{"foobot", "/", false},
		{"barbot", "/example/page.html", false},
		{"bazbot", "/example/page.html", false},
		{"barbot", "/example/x", true},
		{"quxbot", "/example/x", true},
		{"other", "/a.gif", false},
		{"other", "/example/", false},
		{"other", "/publications/", true},
	} {
		if got := Parse([]byte(body), p.agent).Allowed(p.path); got != p.want {
			t.Errorf("%s %s = %v want %v", p.agent, p.path, got, p.want)
		}
	}
	type pr2 struct {
		body, path string
		want       bool
	}
	for _, p := range []pr2{
		{"User-agent: *\nDisallow: /foo/bar?baz=quz\n", "/foo/bar?baz=quz", false},
		{"User-agent: *\nDisallow: /foo/bar/ツ\n", "/foo/bar/%E3%83%84", false},
		{"User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "/foo/bar/%E3%83%84", false},
		{"User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "/foo/bar/baz", false},
		{"User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "/path/file-with-a-*.html", false},
		{"User-agent: *\nDisallow: /path/foo-%24\n", "/path/foo-$", false},
		{"User-agent: *\nDisallow /a:b\n", "/a:b", false},
		{"User-agent: *\nAllow: /$\nDisallow: /\n", "/", true},
		{"User-agent: *\nAllow: /$\nDisallow: /\n", "/a", false},
		{"User-agent: *\nDisallow: /*a*a$\n", "/aa", false},
		{"User-agent: *\nDisallow: /*a*a$\n", "/a", true},
		{"User-agent: *\nDisallow: /fish*.php\n", "/fishheads/catfish.php?parameters", false},
		{"User-agent: *\nDisallow: /*.php$\n", "/filename.php?parameters", true},
		{"User-agent: *\nDisallow: /*.php$\n", "/folder/filename.php", false},
		{"User-agent: *\nAllow: /p\nDisallow: /\n", "/page", true},
		{"User-agent: *\nAllow: /folder\nDisallow: /folder\n", "/folder/page", true},
		{"User-agent: *\nAllow: /page\nDisallow: /*.html\n", "/page.html", false},
		{"User-agent: *\nAllow: /$\nDisallow: /\n", "/page.htm", false},
		{"User-agent: *\nDisallow: /*.PDF$\n", "/x.pdf", true},
		{"User-agent: *\nDisallow: /a%2fb\n", "/a%2Fb", false},
		{"User-agent: *\nDisallow: /a%2fb\n", "/a/b", true},
		{"User-agent: *\nDisallow: /~joe\n", "/%7ejoe/x", false},
	} {
		if got := Parse([]byte(p.body), "FocusCrawl/1").Allowed(p.path); got != p.want {
			t.Errorf("%q %s = %v want %v", p.body, p.path, got, p.want)
		}
	}
	if s := Parse([]byte("Sitemap https://example.com/s.xml\n"), "x").Sitemaps(); len(s) != 1 {
		t.Errorf("sitemap without colon: %v", s)
	}
}
