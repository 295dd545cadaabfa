package robots

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

const ua = "FocusCrawl/1.0 (+https://example.org/bot)"

func TestAllowed(t *testing.T) {
	type probe struct {
		path string
		want bool
	}
	tests := []struct {
		name   string
		body   string
		agent  string // defaults to ua
		probes []probe
	}{
		{
			name:   "empty file allows all",
			body:   "",
			probes: []probe{{"/", true}, {"/private", true}},
		},
		{
			name: "star group disallow prefix",
			body: "User-agent: *\nDisallow: /private\n",
			probes: []probe{
				{"/private", false}, {"/private/x", false}, {"/privateer", false},
				{"/public", true}, {"/", true}, {"/Private", true},
			},
		},
		{
			name:   "empty disallow allows all",
			body:   "User-agent: *\nDisallow:\n",
			probes: []probe{{"/", true}, {"/anything", true}},
		},
		{
			name:   "disallow root",
			body:   "User-agent: *\nDisallow: /\n",
			probes: []probe{{"/", false}, {"/a", false}, {"/robots.txt", true}, {"/robots.txt?x=1", true}},
		},
		{
			name: "longest match wins",
			body: "User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b/c\n",
			probes: []probe{
				{"/a", false}, {"/a/x", false}, {"/a/b", true}, {"/a/b/x", true}, {"/a/b/c", false}, {"/a/b/cd", false},
			},
		},
		{
			name: "order of lines does not matter",
			body: "User-agent: *\nAllow: /folder/page\nDisallow: /folder/\n",
			probes: []probe{
				{"/folder/page", true}, {"/folder/other", false},
			},
		},
		{
			name:   "allow wins a tie",
			body:   "User-agent: *\nDisallow: /page\nAllow: /page\n",
			probes: []probe{{"/page", true}},
		},
		{
			name:   "allow wins a tie whatever the order",
			body:   "User-agent: *\nAllow: /page\nDisallow: /page\n",
			probes: []probe{{"/page", true}},
		},
		{
			name: "wildcard in the middle",
			body: "User-agent: *\nDisallow: /*.php\nDisallow: /fish*salmon\n",
			probes: []probe{
				{"/index.php", false}, {"/dir/file.php?x=1", false}, {"/index.html", true},
				{"/fish/and/salmon", false}, {"/fishsalmon", false}, {"/fish", true}, {"/salmon/fish", true},
			},
		},
		{
			name: "dollar anchors the end",
			body: "User-agent: *\nDisallow: /*.php$\nDisallow: /exact$\n",
			probes: []probe{
				{"/index.php", false}, {"/index.php?x=1", true}, {"/index.phps", true},
				{"/exact", false}, {"/exact/", true}, {"/exactly", true},
			},
		},
		{
			name:   "dollar in the middle is literal",
			body:   "User-agent: *\nDisallow: /a$b\n",
			probes: []probe{{"/a$b", false}, {"/a$bc", false}, {"/a", true}},
		},
		{
			name:   "allow with wildcard beats shorter disallow",
			body:   "User-agent: *\nDisallow: /\nAllow: /*.html$\n",
			probes: []probe{{"/a/b.html", true}, {"/a/b.htm", false}, {"/", false}},
		},
		{
			name:   "trailing star is the same as prefix",
			body:   "User-agent: *\nDisallow: /tmp*\n",
			probes: []probe{{"/tmp", false}, {"/tmpfile", false}, {"/tm", true}},
		},
		{
			name:   "lone star disallows all",
			body:   "User-agent: *\nDisallow: *\n",
			probes: []probe{{"/", false}, {"/x", false}},
		},
		{
			name:   "query string is matched",
			body:   "User-agent: *\nDisallow: /*?\nAllow: /search?q=ok\n",
			probes: []probe{{"/page", true}, {"/page?x=1", false}, {"/search?q=ok", true}, {"/search?q=no", false}},
		},
		{
			name:   "pattern without leading slash",
			body:   "User-agent: *\nDisallow: private\n",
			probes: []probe{{"/private", false}, {"/public", true}},
		},
		{
			name: "percent-encoding compared canonically",
			body: "User-agent: *\nDisallow: /%7ejoe\nDisallow: /caf\u00e9\nDisallow: /a%2fb\nDisallow: /%e4%b8%ad\n",
			probes: []probe{
				{"/~joe/x", false}, {"/%7Ejoe", false},
				{"/caf%C3%A9", false}, {"/caf%c3%a9/menu", false}, {"/caf\u00e9", false}, {"/cafe", true},
				{"/a%2Fb", false}, {"/a/b", true},
				{"/\u4e2d", false}, {"/%E4%B8%AD", false},
			},
		},
		{
			name:   "unreserved escapes in the path match plain rules",
			body:   "User-agent: *\nDisallow: /foo/bar/baz\n",
			probes: []probe{{"/foo/bar/%62%61%7A", false}, {"/foo/bar/ba", true}},
		},
		{
			name: "specific group beats star",
			body: "User-agent: *\nDisallow: /\n\nUser-agent: FocusCrawl\nDisallow: /private\n",
			probes: []probe{
				{"/", true}, {"/public", true}, {"/private", false},
			},
		},
		{
			name:   "star group applies to other agents",
			body:   "User-agent: *\nDisallow: /\n\nUser-agent: FocusCrawl\nDisallow: /private\n",
			agent:  "OtherBot/2.0",
			probes: []probe{{"/", false}, {"/public", false}},
		},
		{
			name:   "user-agent match is case-insensitive",
			body:   "User-agent: fOcUsCrAwL\nDisallow: /x\n",
			probes: []probe{{"/x", false}, {"/y", true}},
		},
		{
			name:   "user-agent line with a version",
			body:   "User-agent: FocusCrawl/2.3\nDisallow: /x\n",
			probes: []probe{{"/x", false}},
		},
		{
			name:   "no matching group and no star allows all",
			body:   "User-agent: Googlebot\nDisallow: /\n",
			probes: []probe{{"/", true}, {"/x", true}},
		},
		{
			name:   "other agent with our name as prefix does not match",
			body:   "User-agent: FocusCrawlExtra\nDisallow: /\n",
			probes: []probe{{"/", true}},
		},
		{
			name:   "shorter token that prefixes ours is another agent's (RFC 9309 §2.2.1)",
			body:   "User-agent: *\nDisallow: /star\n\nUser-agent: Focus\nAllow: /\nDisallow: /focus\n",
			probes: []probe{{"/focus", true}, {"/star", false}},
		},
		{
			name:   "exact token beats prefix token",
			body:   "User-agent: focus\nDisallow: /a\n\nUser-agent: focuscrawl\nDisallow: /b\n",
			probes: []probe{{"/a", true}, {"/b", false}},
		},
		{
			name: "groups for the same agent are merged",
			body: "User-agent: focuscrawl\nDisallow: /a\n\nUser-agent: *\nDisallow: /c\n\nUser-agent: FocusCrawl\nDisallow: /b\n",
			probes: []probe{
				{"/a", false}, {"/b", false}, {"/c", true},
			},
		},
		{
			name: "several user-agent lines share a group",
			body: "User-agent: Googlebot\nUser-agent: FocusCrawl\nDisallow: /shared\n\nUser-agent: *\nDisallow: /\n",
			probes: []probe{
				{"/shared", false}, {"/other", true},
			},
		},
		{
			name: "user-agent after rules starts a new group",
			body: "User-agent: FocusCrawl\nDisallow: /a\nUser-agent: Googlebot\nDisallow: /b\n",
			probes: []probe{
				{"/a", false}, {"/b", true},
			},
		},
		{
			name:   "rules before any user-agent are ignored",
			body:   "Disallow: /\nUser-agent: *\nDisallow: /x\n",
			probes: []probe{{"/", true}, {"/x", false}},
		},
		{
			name:   "junk and unknown lines do not end a group",
			body:   "User-agent: *\nthis is junk\nHost: example.com\nClean-param: ref\nDisallow: /x\n:::\n<html>\nDisallow: /y\n",
			probes: []probe{{"/x", false}, {"/y", false}, {"/z", true}},
		},
		{
			name:   "sitemap lines do not end a group",
			body:   "User-agent: FocusCrawl\nSitemap: https://example.com/s.xml\nUser-agent: Otherbot\nDisallow: /x\n",
			probes: []probe{{"/x", false}},
		},
		{
			name:   "comments stripped",
			body:   "# robots for example.com\nUser-agent: * # everyone\nDisallow: /x # not /y\n#Disallow: /y\n",
			probes: []probe{{"/x", false}, {"/y", true}},
		},
		{
			name:   "BOM, CRLF and no final newline",
			body:   "\xEF\xBB\xBFUser-agent: *\r\nDisallow: /a\r\nDisallow: /b",
			probes: []probe{{"/a", false}, {"/b", false}, {"/c", true}},
		},
		{
			name:   "lone CR line ends",
			body:   "User-agent: *\rDisallow: /a\rAllow: /a/b",
			probes: []probe{{"/a", false}, {"/a/b", true}},
		},
		{
			name:   "case-insensitive keys, odd spacing",
			body:   "USER-AGENT :*\n  disallow   :   /a   \nALLOW:/a/b\n",
			probes: []probe{{"/a", false}, {"/a/b", true}},
		},
		{
			name:   "common misspellings and missing colon",
			body:   "useragent: *\ndissallow: /a\nDisallow /b\nuser agent: x\n",
			probes: []probe{{"/a", false}, {"/b", false}, {"/c", true}},
		},
		{
			name:   "empty path probe means root",
			body:   "User-agent: *\nDisallow: /$\n",
			probes: []probe{{"", false}, {"/", false}, {"/a", true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := tt.agent
			if agent == "" {
				agent = ua
			}
			r := Parse([]byte(tt.body), agent)
			for _, p := range tt.probes {
				if got := r.Allowed(p.path); got != p.want {
					t.Errorf("Allowed(%q) = %v, want %v\nrobots.txt:\n%s", p.path, got, p.want, tt.body)
				}
			}
		})
	}
}

func TestAllowAllDisallowAll(t *testing.T) {
	all := AllowAll()
	none := DisallowAll()
	var nilRules *Rules
	for _, p := range []string{"/", "/a", "/a?b=c"} {
		if !all.Allowed(p) {
			t.Errorf("AllowAll().Allowed(%q) = false", p)
		}
		if none.Allowed(p) {
			t.Errorf("DisallowAll().Allowed(%q) = true", p)
		}
		if !nilRules.Allowed(p) {
			t.Errorf("nil Rules Allowed(%q) = false", p)
		}
	}
	if !none.Allowed("/robots.txt") {
		t.Errorf("DisallowAll must still allow /robots.txt")
	}
	if all.CrawlDelay() != 0 || none.CrawlDelay() != 0 || nilRules.CrawlDelay() != 0 {
		t.Errorf("AllowAll/DisallowAll/nil have a crawl-delay")
	}
	if len(all.Sitemaps())+len(none.Sitemaps())+len(nilRules.Sitemaps()) != 0 {
		t.Errorf("AllowAll/DisallowAll/nil have sitemaps")
	}
}

func TestCrawlDelay(t *testing.T) {
	tests := []struct {
		name string
		body string
		want time.Duration
	}{
		{"none", "User-agent: *\nDisallow: /x\n", 0},
		{"integer seconds", "User-agent: *\nCrawl-delay: 10\n", 10 * time.Second},
		{"fractional seconds", "User-agent: *\nCrawl-delay: 0.5\n", 500 * time.Millisecond},
		{"leading dot", "User-agent: *\nCrawl-delay: .25\n", 250 * time.Millisecond},
		{"misspelt key", "User-agent: *\ncrawldelay: 2\n", 2 * time.Second},
		{"our group's delay", "User-agent: *\nCrawl-delay: 30\n\nUser-agent: FocusCrawl\nCrawl-delay: 3\n", 3 * time.Second},
		{"star delay not inherited by our group", "User-agent: *\nCrawl-delay: 30\n\nUser-agent: FocusCrawl\nDisallow: /x\n", 0},
		{"other group's delay ignored", "User-agent: Googlebot\nCrawl-delay: 30\n", 0},
		{"first delay in merged groups", "User-agent: focuscrawl\nCrawl-delay: 4\n\nUser-agent: focuscrawl\nCrawl-delay: 9\n", 4 * time.Second},
		{"first delay in one group", "User-agent: *\nCrawl-delay: 4\nCrawl-delay: 9\n", 4 * time.Second},
		{"invalid value ignored", "User-agent: *\nCrawl-delay: soon\n", 0},
		{"unit seconds", "User-agent: *\nCrawl-delay: 5 seconds\n", 5 * time.Second},
		{"unit s", "User-agent: *\nCrawl-delay: 2.5s\n", 2500 * time.Millisecond},
		{"unit minute", "User-agent: *\nCrawl-delay: 1 Minute\n", time.Minute},
		{"unknown unit read as seconds", "User-agent: *\nCrawl-delay: 5 parsecs\n", 5 * time.Second},
		{"unknown unit, not Latin", "User-agent: *\nCrawl-delay: 3 秒\n", 3 * time.Second},
		{"unit ms", "User-agent: *\nCrawl-delay: 500ms\n", 500 * time.Millisecond},
		{"unit hours", "User-agent: *\nCrawl-delay: 2 hours\n", 2 * time.Hour},
		{"unit alone ignored", "User-agent: *\nCrawl-delay: seconds\n", 0},
		{"infinity with a unit capped", "User-agent: *\nCrawl-delay: 1e300 seconds\n", maxCrawlDelay},
		{"negative value ignored", "User-agent: *\nCrawl-delay: -5\n", 0},
		{"NaN ignored", "User-agent: *\nCrawl-delay: NaN\n", 0},
		{"invalid then valid", "User-agent: *\nCrawl-delay: x\nCrawl-delay: 7\n", 7 * time.Second},
		{"huge value capped", "User-agent: *\nCrawl-delay: 1e300\n", maxCrawlDelay},
		{"value beyond float64 capped, not ignored", "User-agent: *\nCrawl-delay: 1e400\n", maxCrawlDelay},
		{"value beyond float64 with a unit capped", "User-agent: *\nCrawl-delay: 1e400 seconds\n", maxCrawlDelay},
		{"infinity capped", "User-agent: *\nCrawl-delay: +Inf\n", maxCrawlDelay},
		{"delay before any group ignored", "Crawl-delay: 5\nUser-agent: *\nDisallow: /x\n", 0},
		{"decimal comma", "User-agent: *\nCrawl-delay: 1,5\n", 1500 * time.Millisecond},
		{"decimal comma with a unit", "User-agent: *\nCrawl-delay: 2,25 s\n", 2250 * time.Millisecond},
		{"comma and three digits ambiguous, ignored", "User-agent: *\nCrawl-delay: 1,000\n", 0},
		{"two commas ignored", "User-agent: *\nCrawl-delay: 1,5,5\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse([]byte(tt.body), ua).CrawlDelay(); got != tt.want {
				t.Fatalf("CrawlDelay() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCrawlDelayEndsAgentList(t *testing.T) {
	// A crawl-delay line is a group member like a rule: a user-agent line
	// after it opens a new group.
	r := Parse([]byte("User-agent: focuscrawl\nCrawl-delay: 2\nUser-agent: other\nDisallow: /\n"), ua)
	if !r.Allowed("/") || r.CrawlDelay() != 2*time.Second {
		t.Fatalf("Allowed(/) = %v, CrawlDelay = %v; want true, 2s", r.Allowed("/"), r.CrawlDelay())
	}
}

func TestSitemaps(t *testing.T) {
	body := "Sitemap: https://example.com/a.xml\n" +
		"User-agent: Googlebot\nSitemap: https://example.com/b.xml\nDisallow: /\n" +
		"sitemap:https://example.com/c.xml # comment\n" +
		"SITEMAP: https://example.com/a.xml\n" +
		"Sitemap:\n"
	got := Parse([]byte(body), ua).Sitemaps()
	want := []string{"https://example.com/a.xml", "https://example.com/b.xml", "https://example.com/c.xml"}
	if !slices.Equal(got, want) {
		t.Fatalf("Sitemaps() = %q, want %q", got, want)
	}
	if got := Parse([]byte("User-agent: *\nDisallow: /\n"), ua).Sitemaps(); len(got) != 0 {
		t.Fatalf("Sitemaps() = %q, want none", got)
	}
}

func TestTruncation(t *testing.T) {
	// A rule that starts past MaxBodyBytes is not seen.
	head := "User-agent: *\nDisallow: /early\n"
	pad := strings.Repeat("# padding\n", (MaxBodyBytes-len(head))/10+1)
	body := head + pad + "Disallow: /late\n"
	if len(head+pad) <= MaxBodyBytes {
		t.Fatalf("test setup: padding too short")
	}
	r := Parse([]byte(body), ua)
	if r.Allowed("/early") {
		t.Errorf("rule before the limit was lost")
	}
	if !r.Allowed("/late") {
		t.Errorf("rule past the %d-byte limit was applied", MaxBodyBytes)
	}
	// Under the limit the same rule applies.
	if Parse([]byte(head+"Disallow: /late\n"), ua).Allowed("/late") {
		t.Errorf("rule under the limit was not applied")
	}
}

// TestTruncatedLastLine: a line cut at the 500 KiB limit is not read as a
// shorter rule. "Disallow: /private" cut after "Disallow: /" disallowed the
// whole site. The fetcher hands Parse at most MaxBodyBytes, so a body of
// exactly that length may have been cut too.
func TestTruncatedLastLine(t *testing.T) {
	head := "User-agent: *\nDisallow: /early\n"
	cut := "Disallow: /" // what is left of the last line at the limit
	n := MaxBodyBytes - len(head) - len(cut)
	pad := "#" + strings.Repeat("x", n-2) + "\n" // one long comment
	body := head + pad + cut + "private\n"
	if len(head+pad+cut) != MaxBodyBytes {
		t.Fatalf("test setup: the cut is at %d, want %d", len(head+pad+cut), MaxBodyBytes)
	}
	for _, in := range []string{body, body[:MaxBodyBytes]} {
		r := Parse([]byte(in), ua)
		if !r.Allowed("/public") {
			t.Errorf("%d-byte body: the rule cut at the limit was applied as %q", len(in), cut)
		}
		if r.Allowed("/early") {
			t.Errorf("%d-byte body: rule before the limit was lost", len(in))
		}
	}
}

func TestProductToken(t *testing.T) {
	tests := []struct{ in, want string }{
		{"FocusCrawl/1.0 (+https://example.org)", "focuscrawl"},
		{"FocusCrawl", "focuscrawl"},
		{"  focus-crawl/2", "focus-crawl"},
		{"Bot (compatible)", "bot"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := productToken(tt.in); got != tt.want {
			t.Errorf("productToken(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern  string
		anchored bool
		path     string
		want     bool
	}{
		{"/", false, "/", true},
		{"/a", false, "/", false},
		{"/a*b*c", false, "/a-b-c-d", true},
		{"/a*b*c", true, "/a-b-c-d", false},
		{"/a*b*c", true, "/a-b-c-c", true},
		{"/a*c", true, "/abcbc", true},
		{"/**", false, "/", true},
		{"*", true, "", true},
		{"/a*a*a*a*a*a*b", false, "/" + strings.Repeat("a", 5000), false},
		{"/a*b", true, "/ab/b", true},
		{"/a*b", true, "/ab/c", false},
		{"/*b*", true, "/abc", true},
		{"/x**y", false, "/x-y", true},
		{"/a", true, "/a", true},
		{"/a", true, "/ab", false},
	}
	for _, tt := range tests {
		if got := match(compile(tt.pattern), tt.anchored, tt.path); got != tt.want {
			t.Errorf("match(%q, anchored=%v, %q) = %v, want %v", tt.pattern, tt.anchored, tt.path, got, tt.want)
		}
	}
}

// slowMatch is the textbook dynamic-programming wildcard matcher, quadratic
// but obviously right: the reference match is checked against.
func slowMatch(pattern string, anchored bool, path string) bool {
	// ok[j]: pattern[:i] matches path[:j].
	ok := make([]bool, len(path)+1)
	ok[0] = true
	for i := 0; i < len(pattern); i++ {
		next := make([]bool, len(path)+1)
		for j := 0; j <= len(path); j++ {
			if pattern[i] == '*' {
				next[j] = ok[j] || (j > 0 && next[j-1])
			} else if j > 0 {
				next[j] = ok[j-1] && pattern[i] == path[j-1]
			}
		}
		ok = next
	}
	if anchored {
		return ok[len(path)]
	}
	for _, v := range ok {
		if v {
			return true
		}
	}
	return false
}

// TestMatchIsLinear is the regression test for the O(path × pattern)
// matcher: a rule like "/*aaa…ab" against "/aaa…a" made the old greedy
// matcher re-scan the pattern from every position of the path. The bytes
// the new one hands to its substring search are counted (no clock): they
// must stay within a small multiple of len(path) + len(pattern).
func TestMatchIsLinear(t *testing.T) {
	defer func(f func(string, string) int) { indexFunc = f }(indexFunc)
	work := 0
	indexFunc = func(s, sub string) int {
		i := strings.Index(s, sub)
		if i < 0 {
			work += len(s)
		} else {
			work += i + len(sub)
		}
		return i
	}
	for _, tc := range []struct{ pattern, path string }{
		{"/*" + strings.Repeat("a", 1000) + "b", "/" + strings.Repeat("a", 2000)},
		{"/*a*a*a*a*a*a*a*a*b", "/" + strings.Repeat("a", 2000)},
		{"/" + strings.Repeat("*ab", 300) + "c", "/" + strings.Repeat("ab", 1000)},
	} {
		work = 0
		got := match(compile(tc.pattern), false, tc.path)
		if want := slowMatch(tc.pattern, false, tc.path); got != want {
			t.Errorf("match(%.20q…) = %v, want %v", tc.pattern, got, want)
		}
		if limit := 2 * (len(tc.pattern) + len(tc.path)); work > limit {
			t.Errorf("match(%.20q…) examined %d bytes, more than %d: not linear", tc.pattern, work, limit)
		}
	}
}

// TestPartialBOM: the first one or two bytes of a BOM must not swallow the
// first line (it used to, and with it the "User-agent: *" of the file).
func TestPartialBOM(t *testing.T) {
	for _, prefix := range []string{"", "\xEF\xBB\xBF", "\xEF\xBB", "\xEF"} {
		r := Parse([]byte(prefix+"User-agent: *\nDisallow: /private\n"), ua)
		if r.Allowed("/private") {
			t.Errorf("prefix %q: first line lost, /private allowed", prefix)
		}
	}
}

// TestUTF16WithBOM: a robots.txt saved as UTF-16 ("Unicode" in Windows
// editors) is read: its rules were ignored, everything allowed. A file cut
// at MaxBodyBytes still loses only its last, cut line.
func TestUTF16WithBOM(t *testing.T) {
	text := "User-agent: *\r\nDisallow: /private\r\nCrawl-delay: 2\r\n"
	for _, enc := range []struct {
		name  string
		bom   []byte
		order binary.AppendByteOrder
	}{{"LE", []byte{0xFF, 0xFE}, binary.LittleEndian}, {"BE", []byte{0xFE, 0xFF}, binary.BigEndian}} {
		t.Run(enc.name, func(t *testing.T) {
			encode := func(s string) []byte {
				var b []byte
				for _, u := range utf16.Encode([]rune(s)) {
					b = enc.order.AppendUint16(b, u)
				}
				return b
			}
			r := Parse(append(slices.Clone(enc.bom), encode(text)...), ua)
			if r.Allowed("/private") || r.CrawlDelay() != 2*time.Second {
				t.Errorf("Allowed(/private) = %v, CrawlDelay = %v; want false, 2s", r.Allowed("/private"), r.CrawlDelay())
			}
			// Cut inside "Disallow: /secret-area": the cut line is dropped,
			// not read as "Disallow: /" or a pattern ending in U+FFFD.
			body := append(slices.Clone(enc.bom), encode(text)...)
			for len(body) < MaxBodyBytes-40 {
				body = append(body, encode("Allow: /x\n")...)
			}
			const last = "/secret-area-of-the-site-here"
			body = append(body, encode("Disallow: "+last+"\n")...)
			r = Parse(body[:MaxBodyBytes], ua)
			if r.Allowed("/private") || !r.Allowed(last) {
				t.Errorf("cut file: Allowed(/private, %s) = %v, %v; want false, true", last, r.Allowed("/private"), r.Allowed(last))
			}
		})
	}
}

// hostileRobots is the probe's file: 500 KiB of long wildcard rules that all
// nearly match a long path.
func hostileRobots() ([]byte, string) {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; b.Len() < MaxBodyBytes-300; i++ {
		fmt.Fprintf(&b, "Disallow: /*%s%d\n", strings.Repeat("a", 200), i)
	}
	return []byte(b.String()), "/" + strings.Repeat("a", 2000)
}

// BenchmarkHostileRobots measures one Allowed check against the 500 KiB
// pathological file (it took about a second per check with the old
// backtracking matcher; now it is a few milliseconds at most).
func BenchmarkHostileRobots(b *testing.B) {
	body, path := hostileRobots()
	r := Parse(body, ua)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !r.Allowed(path) {
			b.Fatal("path should be allowed")
		}
	}
}

// FuzzMatch checks match against the quadratic reference on random patterns.
func FuzzMatch(f *testing.F) {
	f.Add("/a*b*c", "/a-b-c-d", false)
	f.Add("/*b$", "/abb", true)
	f.Add("**", "", true)
	f.Fuzz(func(t *testing.T, pattern, path string, anchored bool) {
		if len(pattern) > 64 || len(path) > 256 {
			return
		}
		if got, want := match(compile(pattern), anchored, path), slowMatch(pattern, anchored, path); got != want {
			t.Fatalf("match(%q, %v, %q) = %v, reference says %v", pattern, anchored, path, got, want)
		}
	})
}

// FuzzParse checks that arbitrary files never panic and that the invariants
// hold: /robots.txt is always allowed and the delay is never negative.
func FuzzParse(f *testing.F) {
	f.Add("User-agent: *\nDisallow: /\n", "/x")
	f.Add("User-agent: focuscrawl\nAllow: /*.html$\nDisallow: /%zz\nCrawl-delay: 1.5\n", "/a.html")
	f.Add("\xEF\xBB\xBFuseragent *\rdisallow *$\r", "/%7e")
	f.Fuzz(func(t *testing.T, body, path string) {
		r := Parse([]byte(body), ua)
		r.Allowed(path)
		if !r.Allowed("/robots.txt") {
			t.Fatalf("/robots.txt disallowed")
		}
		if r.CrawlDelay() < 0 {
			t.Fatalf("negative crawl-delay %v", r.CrawlDelay())
		}
	})
}

// TestAgentFamily: a group for a token applies to ours when ours continues
// it after a '-' or '_' (a "focuscrawl" group to "FocusCrawl-Test", the
// longest such token winning), never when ours merely starts with it.
func TestAgentFamily(t *testing.T) {
	body := "User-agent: *\nDisallow: /star\n\nUser-agent: focus\nDisallow: /focus\n\n" +
		"User-agent: focuscrawl\nDisallow: /family\n\nUser-agent: focuscrawl-test\nDisallow: /test\n"
	for _, tt := range []struct {
		agent   string
		blocked string
	}{
		{"FocusCrawl-Test/1.0", "/test"},
		{"FocusCrawl-Test-Nightly/1.0", "/test"},
		{"FocusCrawl-Other/1.0", "/family"},
		{"focuscrawl_ci", "/family"},
		{"FocusCrawler/1.0", "/star"},
		{"FocusBot/1.0", "/star"},
	} {
		r := Parse([]byte(body), tt.agent)
		for _, p := range []string{"/star", "/focus", "/family", "/test"} {
			if got, want := r.Allowed(p), p != tt.blocked; got != want {
				t.Errorf("%s: Allowed(%s) = %v, want %v", tt.agent, p, got, want)
			}
		}
	}
}

// TestEncodedOperators: "%2A" and "%24" in a pattern are a literal '*' and
// '$' (RFC 9309 §2.2.3), matching a URL that carries either form; an
// unencoded '*' stays a wildcard.
func TestEncodedOperators(t *testing.T) {
	r := Parse([]byte("User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\nDisallow: /w/*.pdf\n"), ua)
	for _, tt := range []struct {
		path    string
		allowed bool
	}{
		{"/path/file-with-a-*.html", false},
		{"/path/file-with-a-%2A.html", false},
		{"/path/file-with-a-%2a.html", false},
		{"/path/file-with-a-x.html", true},
		{"/path/foo-$", false},
		{"/path/foo-%24/more", false},
		{"/path/foo-", true},
		{"/w/a/b.pdf", false},
		{"/path/file-with-a-%252A.html", true},
	} {
		if got := r.Allowed(tt.path); got != tt.allowed {
			t.Errorf("Allowed(%s) = %v, want %v", tt.path, got, tt.allowed)
		}
	}
}
