package urlnorm

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"lower-cases scheme and host", "HTTP://Example.COM/Path", "http://example.com/Path"},
		{"path case is kept", "http://example.com/A/b/C", "http://example.com/A/b/C"},
		{"empty path becomes slash", "http://example.com", "http://example.com/"},
		{"default http port dropped", "http://example.com:80/x", "http://example.com/x"},
		{"default https port dropped", "https://example.com:443/x", "https://example.com/x"},
		{"https on port 80 keeps it", "https://example.com:80/x", "https://example.com:80/x"},
		{"non-default port kept", "http://example.com:8080/x", "http://example.com:8080/x"},
		{"empty port dropped", "http://example.com:/x", "http://example.com/x"},
		{"trailing dot of host dropped", "http://example.com./x", "http://example.com/x"},
		{"several trailing dots dropped", "http://example.com../x", "http://example.com/x"},
		{"userinfo dropped", "http://user:pw@example.com/x", "http://example.com/x"},
		{"single dot segments", "http://example.com/a/./b/./c", "http://example.com/a/b/c"},
		{"double dot segments", "http://example.com/a/b/../c", "http://example.com/a/c"},
		{"double dot above root", "http://example.com/../../a", "http://example.com/a"},
		{"encoded dot segments", "http://example.com/a/%2e%2E/b", "http://example.com/b"},
		{"trailing dot dot keeps slash", "http://example.com/a/b/..", "http://example.com/a/"},
		{"trailing dot keeps slash", "http://example.com/a/b/.", "http://example.com/a/b/"},
		{"duplicate slashes collapsed", "http://example.com//a///b//", "http://example.com/a/b/"},
		{"trailing slash kept", "http://example.com/dir/", "http://example.com/dir/"},
		{"no trailing slash not added", "http://example.com/dir", "http://example.com/dir"},
		{"fragment dropped", "http://example.com/a#section-2", "http://example.com/a"},
		{"empty fragment dropped", "http://example.com/a#", "http://example.com/a"},
		{"empty query dropped", "http://example.com/a?", "http://example.com/a"},
		{"query order kept", "http://example.com/a?b=2&a=1", "http://example.com/a?b=2&a=1"},
		{"empty query parts dropped", "http://example.com/a?&a=1&&b=2&", "http://example.com/a?a=1&b=2"},
		{"jsessionid dropped", "http://example.com/a?jsessionid=ABC&x=1", "http://example.com/a?x=1"},
		{"session params case-insensitive", "http://example.com/a?x=1&PHPSESSID=abc&SID=0a1b2c3d4e5f6a7b8c", "http://example.com/a?x=1"},
		{"only session params leaves no query", "http://example.com/a?sessionid=1&session_id=2", "http://example.com/a"},
		{"vBulletin session hash dropped", "http://example.com/showthread.php?s=0123456789abcdef0123456789ABCDEF&t=42", "http://example.com/showthread.php?t=42"},
		{"search parameter s kept", "http://example.com/?s=0123456789abcdef0123456789abcdeg&x=1", "http://example.com/?s=0123456789abcdef0123456789abcdeg&x=1"},
		{"short s kept", "http://example.com/?s=roses", "http://example.com/?s=roses"},
		{"PHP and xt:Commerce session names dropped", "http://example.com/p.php?sessid=9f86d081884c7d65&x=1&XTCsid=e3b0c44298fc1c14", "http://example.com/p.php?x=1"},
		{"session-like names kept", "http://example.com/a?sidebar=1&side=2", "http://example.com/a?sidebar=1&side=2"},
		{"valueless session param dropped", "http://example.com/a?cfid&cftoken=2&q=go", "http://example.com/a?q=go"},
		{"unreserved escapes decoded", "http://example.com/%7Euser/%41%62%2D%5F%2E", "http://example.com/~user/Ab-_."},
		{"reserved escapes kept upper-case", "http://example.com/a%2fb%3fc", "http://example.com/a%2Fb%3Fc"},
		{"escape of space upper-cased", "http://example.com/a%20b", "http://example.com/a%20b"},
		{"non-ASCII path escaped", "http://example.com/caf\u00e9", "http://example.com/caf%C3%A9"},
		{"lower-case non-ASCII escapes upper-cased", "http://example.com/%e4%b8%ad", "http://example.com/%E4%B8%AD"},
		{"query escapes canonical", "http://example.com/s?q=%7e%2b%e4%b8%ad", "http://example.com/s?q=~%2B%E4%B8%AD"},
		{"plus in query kept", "http://example.com/s?q=a+b", "http://example.com/s?q=a+b"},
		{"space in query escaped", "http://example.com/s?q=a b #x", "http://example.com/s?q=a%20b%20"},
		{"non-ASCII query escaped", "http://example.com/s?q=\u00e9&\u4e2d", "http://example.com/s?q=%C3%A9&%E4%B8%AD"},
		{"illegal query bytes escaped", "http://example.com/s?a=\"<x>\"&b={|}", "http://example.com/s?a=%22%3Cx%3E%22&b=%7B%7C%7D"},
		{"stray percent in query kept", "http://example.com/s?a=100%&b=%zz", "http://example.com/s?a=100%&b=%zz"},
		{"decoded escape never completes a stray percent", "http://example.com/s?a=%7%41&b=%%41%42", "http://example.com/s?a=%7%41&b=%%41B"},
		{"surrounding whitespace trimmed", "  http://example.com/a \n", "http://example.com/a"},
		{"IPv4 host", "http://192.168.0.1:8080/", "http://192.168.0.1:8080/"},
		{"IPv6 host", "http://[2001:DB8::1]/a", "http://[2001:db8::1]/a"},
		{"IPv6 host with port", "http://[::1]:8080/x", "http://[::1]:8080/x"},
		{"IPv6 host default port dropped", "https://[::1]:443/x", "https://[::1]/x"},
		{"IPv6 zone kept", "http://[FE80::1%25en0]/", "http://[fe80::1%25en0]/"},
		{"Unicode IDN host to punycode", "http://bücher.example/", "http://xn--bcher-kva.example/"},
		{"punycode host kept", "http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/"},
		{"port with leading zeros", "http://example.com:0080/x", "http://example.com/x"},
		{"jsessionid path parameter dropped", "http://example.com/shop/cart.do;jsessionid=0A1B2C?x=1", "http://example.com/shop/cart.do?x=1"},
		{"other matrix parameters kept", "http://example.com/a;v=2;JSESSIONID=9/b", "http://example.com/a;v=2/b"},
		{"ASP.NET cookieless session segment dropped", "http://example.com/(S(lit3py55t21z5v55vlm25s55))/default.aspx", "http://example.com/default.aspx"},
		{"ASP.NET multi-part session segment dropped", "http://example.com/app/(A(x1)S(y2)F(z3))/p.aspx", "http://example.com/app/p.aspx"},
		{"parenthesised words kept", "http://example.com/wiki/Go_(language)", "http://example.com/wiki/Go_(language)"},
		{"utm and click IDs dropped", "http://example.com/a?utm_source=x&id=3&UTM_Medium=y&gclid=z&fbclid=w", "http://example.com/a?id=3"},
		{"analytics linker, Yandex click and mail campaign IDs dropped", "http://example.com/a?_ga=2.1.2.3&id=3&yclid=55&mc_eid=ab12&_hsenc=p2A&srsltid=AfmB", "http://example.com/a?id=3"},
		{"a parameter merely starting like a tracking one kept", "http://example.com/a?_gallery=2&yclidx=1", "http://example.com/a?_gallery=2&yclidx=1"},
		{"escaped session and tracking names dropped", "http://example.com/a?%73id=0a1b2c3d4e5f6a7b8c&x=1&utm%5Fsource=y&%67clid=z", "http://example.com/a?x=1"},
		{"underscore in host", "http://my_host.example/", "http://my_host.example/"},
		{"punycode host kept", "http://XN--BCHER-KVA.example/", "http://xn--bcher-kva.example/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err != nil {
				t.Fatalf("Normalize(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			again, err := Normalize(got)
			if err != nil || again != got {
				t.Fatalf("Normalize not idempotent on %q: %q, %v", got, again, err)
			}
		})
	}
}

func TestNormalizeErrors(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		unsupported bool // want errors.Is(err, ErrUnsupportedScheme)
	}{
		{"mailto", "mailto:someone@example.com", true},
		{"javascript", "javascript:alert(1)", true},
		{"javascript upper-case", "JavaScript:void(0)", true},
		{"ftp", "ftp://example.com/file", true},
		{"data", "data:text/plain,hello", true},
		{"tel", "tel:+123456", true},
		{"relative path", "/just/a/path", false},
		{"scheme-relative", "//example.com/a", false},
		{"empty", "", false},
		{"no host", "http:///path", false},
		{"bad port", "http://example.com:port/", false},
		{"control character", "http://example.com/a\x00b", false},
		{"junk host", "http://]:0", false},
		{"host with illegal characters", "http://a<b>/", false},
		{"bad IPv6 literal", "http://[::g]/", false},
		{"IPv6 zone with a non-ASCII byte", "http://[::%25\xfd]", false}, // found by FuzzNormalize in CI
		{"IPv6 zone with a reserved character", "http://[fe80::1%25a%2Fb]/", false},
		{"too long", "http://example.com/" + strings.Repeat("a", MaxLength), false},
		{"port 0", "http://example.com:0/", false},
		{"port 65536", "http://example.com:65536/", false},
		{"port far too large", "http://example.com:99999999999999999999/", false},
		{"bad punycode", "http://xn--zz.example/", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err == nil {
				t.Fatalf("Normalize(%q) = %q, want an error", tt.in, got)
			}
			if errors.Is(err, ErrUnsupportedScheme) != tt.unsupported {
				t.Fatalf("Normalize(%q) error %v: errors.Is(ErrUnsupportedScheme) = %v, want %v",
					tt.in, err, !tt.unsupported, tt.unsupported)
			}
		})
	}
}

func TestNormalizeLengthLimit(t *testing.T) {
	prefix := "http://example.com/"
	exact := prefix + strings.Repeat("a", MaxLength-len(prefix))
	if got, err := Normalize(exact); err != nil || got != exact {
		t.Fatalf("URL of exactly MaxLength bytes: got %q, %v", got, err)
	}
	if _, err := Normalize(exact + "a"); err == nil {
		t.Fatalf("URL of MaxLength+1 bytes accepted")
	}
	// The limit applies to the normalised form: a long raw URL that shrinks
	// under MaxLength is fine.
	shrinks := prefix + strings.Repeat("./", MaxLength) + "a"
	if got, err := Normalize(shrinks); err != nil || got != prefix+"a" {
		t.Fatalf("long URL that normalises short: got %q, %v", got, err)
	}
}

// TestOneHostKeyPerDialledName is the regression test for hosts that the
// resolver treats as one name but that used to get one key each, and with it
// their own politeness slot, robots.txt fetch and per-host cap.
func TestOneHostKeyPerDialledName(t *testing.T) {
	for _, raw := range []string{
		"http://example.com/a",
		"http://EXAMPLE.com/a",
		"http://ｅｘａｍｐｌｅ.com/a", // fullwidth letters
		"http://ＥＸＡＭＰＬＥ．ｃｏｍ/a", // fullwidth letters and full stop
		"http://example。com/a", // ideographic full stop
		"http://example｡com/a", // halfwidth ideographic full stop
		"http://ⓔⓧⓐⓜⓟⓛⓔ.com/a", // circled letters
		"http://example.com./a",
	} {
		n, err := Normalize(raw)
		if err != nil {
			t.Errorf("Normalize(%q): %v", raw, err)
			continue
		}
		if h := Host(n); h != "example.com" {
			t.Errorf("Host(Normalize(%q)) = %q, want example.com", raw, h)
		}
	}
	// An IPv6 address has many spellings (RFC 5952 names one canonical
	// form): zero runs written out or compressed, leading zeros, an IPv4
	// tail written in hex.
	for _, tc := range []struct{ raw, want string }{
		{"http://[0:0:0:0:0:0:0:1]/a", "[::1]"},
		{"http://[0000::0001]/a", "[::1]"},
		{"http://[2001:DB8:0:0:0:0:0:1]:8080/a", "[2001:db8::1]:8080"},
		{"http://[::ffff:0102:0304]/a", "[::ffff:1.2.3.4]"},
		{"http://[FE80:0::1%25en0]/a", "[fe80::1%en0]"},
	} {
		n, err := Normalize(tc.raw)
		if err != nil {
			t.Errorf("Normalize(%q): %v", tc.raw, err)
			continue
		}
		if h := Host(n); h != tc.want {
			t.Errorf("Host(Normalize(%q)) = %q, want %q", tc.raw, h, tc.want)
		}
	}
	a, _ := Normalize("http://bücher.example/")
	b, _ := Normalize("http://BÜCHER.example/")
	c, _ := Normalize("http://xn--bcher-kva.example/")
	if a != b || a != c {
		t.Errorf("IDN spellings differ: %q %q %q", a, b, c)
	}
}

func TestCalendarYears(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want []int
	}{
		{"http://a.test/cal/2024/05/", []int{2024}},
		{"http://a.test/events?date=2031-11-02", []int{2031}},
		{"http://a.test/archive/20991231.html", []int{2099}},
		{"http://a.test/calendar?year=1850&month=3", []int{1850}},
		{"http://a.test/blog/2019_7_intro", []int{2019}},
		{"http://a.test/item/12345678", nil}, // not a date: month 56
		{"http://a.test/products/2048", nil}, // a number, no month
		{"http://a.test/v1.2/docs", nil},     // not a year
		{"http://a.test/page?id=2024", nil},  // not a calendar parameter
		{"http://a.test/img/3000x2000.png", nil},
	} {
		if got := CalendarYears(tc.url); !slices.Equal(got, tc.want) {
			t.Errorf("CalendarYears(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}

func TestRepeatedSegments(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"http://a.test/docs/docs/docs/", true},
		{"http://a.test/x/docs/docs/docs", true},
		{"http://a.test/a/b/a/b/a/b/index.html", true},
		{"http://a.test/a/b/c/a/b/c/a/b/c/", true},
		{"http://a.test/docs/docs/", false}, // twice happens (/docs/docs/ of a product called docs)
		{"http://a.test/a/b/a/b/", false},
		{"http://a.test/2024/01/2024/01/", false},
		{"http://a.test/1/1/2/2/3/3/", false},
		{"http://a.test/", false},
		{"http://a.test/s?p=a/a/a/a", false}, // the query is not the path
		// A facet link appending its parameter to the URL it is on.
		{"http://a.test/shop?color=red&size=m&color=red&size=m&color=red", true},
		{"http://a.test/shop?color=red&color=red", false},
		{"http://a.test/shop?tag=a&tag=b&tag=c&tag=d", false},
	} {
		if got := RepeatedSegments(tc.url); got != tc.want {
			t.Errorf("RepeatedSegments(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	base, err := url.Parse("http://Example.com/dir/page.html?x=1#top")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref  string
		want string
	}{
		{"other.html", "http://example.com/dir/other.html"},
		{"./other.html", "http://example.com/dir/other.html"},
		{"../up.html", "http://example.com/up.html"},
		{"../../../up.html", "http://example.com/up.html"},
		{"/abs/path", "http://example.com/abs/path"},
		{"sub/", "http://example.com/dir/sub/"},
		{"?y=2", "http://example.com/dir/page.html?y=2"},
		{"#frag", "http://example.com/dir/page.html?x=1"},
		{"//other.org/x", "http://other.org/x"},
		{"https://Other.org:443/x#f", "https://other.org/x"},
		{"  spaced.html  ", "http://example.com/dir/spaced.html"},
		{"a//b/./c", "http://example.com/dir/a/b/c"},
		{"page.html;jsessionid=1?sid=f3a9c2e18b7d4a6f&q=1", "http://example.com/dir/page.html?q=1"},
		// "sid" that is no session token is an article ID (PHP-Nuke).
		{"modules.php?name=News&file=article&sid=123", "http://example.com/dir/modules.php?name=News&file=article&sid=123"},
		{"%E4%B8%AD%e6%96%87.html", "http://example.com/dir/%E4%B8%AD%E6%96%87.html"},
		// Browsers read '\' as '/' before the query in http(s) URLs
		// (WHATWG URL), so pages written on Windows work in them.
		{`..\up.html`, "http://example.com/up.html"},
		{`sub\page.html?q=a\b#x\y`, "http://example.com/dir/sub/page.html?q=a%5Cb"},
		{`\\other.org\x`, "http://other.org/x"},
		{`https:\\other.org\x`, "https://other.org/x"},
		// Browsers remove ASCII tabs and newlines anywhere (WHATWG URL):
		// an href or Location wrapped over lines still works in them.
		{"sub/pa\tge.html?q=\na", "http://example.com/dir/sub/page.html?q=a"},
		{"https://other.\r\norg/x", "https://other.org/x"},
		// A scheme like the base's, without "//", is a relative reference
		// in http(s) (WHATWG URL).
		{"http:other.html", "http://example.com/dir/other.html"},
		{"HTTP:/abs", "http://example.com/abs"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := Resolve(base, tt.ref)
			if err != nil {
				t.Fatalf("Resolve(%q) error: %v", tt.ref, err)
			}
			if got != tt.want {
				t.Fatalf("Resolve(%q) = %q, want %q", tt.ref, got, tt.want)
			}
		})
	}
}

// TestResolveEncodingQuery: a link's query is percent-encoded in its page's
// encoding, as the WHATWG URL parser does with a document's encoding; its
// path and fragment stay UTF-8. GBK trial: a GBK page's "tag.php?t=错误报告"
// was requested as %E9%94%99..., which the site (decoding its queries as
// GBK) answered with 404; browsers send %B4%ED....
func TestResolveEncodingQuery(t *testing.T) {
	base := MustParse("http://example.com/dir/page.html")
	gbk := simplifiedchinese.GBK
	tests := []struct {
		name string
		ref  string
		enc  encoding.Encoding
		want string
	}{
		{"GBK query", "tag.php?t=错误报告", gbk, "http://example.com/dir/tag.php?t=%B4%ED%CE%F3%B1%A8%B8%E6"},
		{"path stays UTF-8", "/中文/x?q=中#中", gbk, "http://example.com/%E4%B8%AD%E6%96%87/x?q=%D6%D0"},
		{"escapes already there are kept", "x?q=%D6%D0&r=文", gbk, "http://example.com/dir/x?q=%D6%D0&r=%CE%C4"},
		{"ASCII untouched", "x?q=a+b&c=d", gbk, "http://example.com/dir/x?q=a+b&c=d"},
		{"a character GBK lacks becomes a numeric reference", "x?q=😀", gbk, "http://example.com/dir/x?q=%26%23128512%3B"},
		{"a '?' in the fragment is no query", "x#a?中", gbk, "http://example.com/dir/x"},
		{"Big5", "x?q=臺灣", traditionalchinese.Big5, "http://example.com/dir/x?q=%BBO%C6W"},
		{"nil is UTF-8", "tag.php?t=错误", nil, "http://example.com/dir/tag.php?t=%E9%94%99%E8%AF%AF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveEncoding(base, tt.ref, tt.enc)
			if err != nil {
				t.Fatalf("ResolveEncoding(%q) error: %v", tt.ref, err)
			}
			if got != tt.want {
				t.Fatalf("ResolveEncoding(%q) = %q, want %q", tt.ref, got, tt.want)
			}
			if again, err := Normalize(got); err != nil || again != got {
				t.Fatalf("Normalize(%q) = %q, %v: not idempotent", got, again, err)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	base := MustParse("http://example.com/dir/")
	tests := []struct {
		ref         string
		unsupported bool
	}{
		{"", false},
		{"   ", false},
		{"mailto:a@example.com", true},
		{"javascript:void(0)", true},
		{"ftp://example.com/", true},
		{"http://[::1", false},
		{"/" + strings.Repeat("x", MaxLength), false},
	}
	for _, tt := range tests {
		got, err := Resolve(base, tt.ref)
		if err == nil {
			t.Errorf("Resolve(%q) = %q, want an error", tt.ref, got)
			continue
		}
		if errors.Is(err, ErrUnsupportedScheme) != tt.unsupported {
			t.Errorf("Resolve(%q) error %v: unsupported = %v, want %v", tt.ref, err, !tt.unsupported, tt.unsupported)
		}
	}
}

func TestHash(t *testing.T) {
	a := Hash("http://example.com/")
	if len(a) != 32 {
		t.Fatalf("Hash length = %d, want 32 hex characters", len(a))
	}
	if strings.Trim(a, "0123456789abcdef") != "" {
		t.Fatalf("Hash %q is not lower-case hex", a)
	}
	if Hash("http://example.com/") != a {
		t.Fatalf("Hash is not deterministic")
	}
	if Hash("http://example.com/a") == a {
		t.Fatalf("different URLs share a hash")
	}
	// Two spellings of one URL share a hash once normalised.
	n1, _ := Normalize("HTTP://EXAMPLE.com:80/./")
	n2, _ := Normalize("http://example.com#x")
	if Hash(n1) != Hash(n2) {
		t.Fatalf("Hash(%q) != Hash(%q)", n1, n2)
	}
}

func TestHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://example.com/a", "example.com"},
		{"http://example.com:8080/a", "example.com:8080"},
		{"https://[::1]:8443/", "[::1]:8443"},
		{"http://[2001:db8::1]/", "[2001:db8::1]"},
		{"::not a url", ""},
	}
	for _, tt := range tests {
		if got := Host(tt.in); got != tt.want {
			t.Errorf("Host(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMustParse(t *testing.T) {
	u := MustParse("http://example.com/a?b=1")
	if u.Host != "example.com" || u.Path != "/a" || u.RawQuery != "b=1" {
		t.Fatalf("MustParse gave %#v", u)
	}
	defer func() {
		if recover() == nil {
			t.Fatalf("MustParse of an unparsable URL did not panic")
		}
	}()
	MustParse("http://example.com/%zz")
}

// FuzzNormalize checks that normalisation is idempotent: a normalised URL is
// its own normal form. Without that, one page could be stored under two keys.
func FuzzNormalize(f *testing.F) {
	seeds := []string{
		"http://example.com/",
		"HTTP://Example.COM:80/a/./b/../c//d/?b=2&jsessionid=x&a=1#frag",
		"https://example.com:443",
		"http://example.com../x",
		"http://[::1]:8080/x",
		"http://[fe80::1%25en0]/",
		"http://example.com/%7e%2f%41?q=%e4%b8%ad+x",
		"http://example.com/caf\u00e9?\u00e9=1",
		"http://example.com/a?q ",
		"http://example.com/a?q #x",
		"http://]:0",
		"http://a<b/",
		"http://a/b/..",
		"http://a/%2e%2e/%2E",
		"mailto:x@example.com",
		"http://user:pw@example.com/",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		once, err := Normalize(raw)
		if err != nil {
			return
		}
		twice, err := Normalize(once)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which then fails: %v", raw, once, err)
		}
		if twice != once {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, once, twice)
		}
		if len(once) > MaxLength {
			t.Fatalf("Normalize(%q) returned %d bytes, over MaxLength", raw, len(once))
		}
	})
}

// FuzzCanonicalHostFastPath checks the ASCII fast path of CanonicalHost
// against full UTS #46 processing.
func FuzzCanonicalHostFastPath(f *testing.F) {
	for _, s := range []string{"www.Example.com", "a..b", "-a.com", "a_b.test", "xn--bcher-kva.example", "WWW.XN--ZZ.COM", "1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if !plainASCIIHost(host) {
			return
		}
		want, err := hostProfile.ToASCII(strings.TrimRight(host, "."))
		got, gerr := CanonicalHost(host)
		if err != nil || gerr != nil {
			if (err == nil) != (gerr == nil) {
				t.Fatalf("CanonicalHost(%q) = %q, %v; UTS #46 gives %q, %v", host, got, gerr, want, err)
			}
			return
		}
		if got != strings.TrimRight(strings.ToLower(want), ".") {
			t.Fatalf("CanonicalHost(%q) = %q, UTS #46 gives %q", host, got, want)
		}
	})
}

func TestWords(t *testing.T) {
	for raw, want := range map[string]string{
		"http://x/docs/gimp-filter_blur.html?q=a": " docs gimp filter blur html q a",
		"http://x/a?b=c?d&e+f%20g":                " a b c d e f g",
		"://bad":                                  "",
		// Escapes are words, not hex: UTF-8 decoded, GBK (unreadable here) left out.
		"http://x/tag.php?t=%E9%94%99%E8%AF%AF": " tag php t 错误",
		"http://x/tag.php?t=%B4%ED%CE%F3&p=2":   " tag php t    p 2",
		"http://x/%E6%96%87%E6%A1%A3/a.html":    " 文档 a html",
	} {
		if got := Words(raw); strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") {
			t.Errorf("Words(%q) = %q, want the words %q", raw, got, want)
		}
	}
}

// TestNormalizeSuggestsScheme: an address written without its scheme (a
// user trial's seed "127.0.0.1:28089/") is refused with the URL probably
// meant; other refusals suggest nothing, and net/url's text is not repeated.
func TestNormalizeSuggestsScheme(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:28089/":     `did you mean "http://127.0.0.1:28089/"?`,
		"www.example.com/docs": `did you mean "http://www.example.com/docs"?`,
		" localhost:8080 ":     `did you mean "http://localhost:8080/"?`,
	} {
		_, err := Normalize(in)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("Normalize(%q) error %v, want it to end %s", in, err, want)
		}
		if err != nil && strings.Count(err.Error(), "parse") > 1 {
			t.Errorf("Normalize(%q) error %q repeats itself", in, err)
		}
	}
	for _, in := range []string{"mailto:someone@example.com", "javascript:alert(1)", "tel:+123456",
		"/just/a/path", "docs/index.html", "//example.com/a", "ftp://example.com/file", "", "http://example.com:port/"} {
		if _, err := Normalize(in); err == nil || strings.Contains(err.Error(), "did you mean") {
			t.Errorf("Normalize(%q) error %v; want one without a suggestion", in, err)
		}
	}
}

// TestStrayPercentInPath: a '%' that starts no escape in a path ("50%off",
// which browsers send as it is) is the character itself, "%25"; url.Parse
// refused it, so such a link could not be followed. In a query a stray
// '%' stays as it is (CanonicalEscapes), as before.
func TestStrayPercentInPath(t *testing.T) {
	base := MustParse("http://example.com/dir/")
	for ref, want := range map[string]string{
		"50%off":          "http://example.com/dir/50%25off",
		"/50%off?q=%zz":   "http://example.com/50%25off?q=%zz",
		"%zz":             "http://example.com/dir/%25zz",
		"a%2":             "http://example.com/dir/a%252",
		"/ok%41":          "http://example.com/okA",
		"http://x.org/1%": "http://x.org/1%25",
		"/p%#frag%":       "http://example.com/p%25",
	} {
		got, err := Resolve(base, ref)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", ref, got, err, want)
			continue
		}
		if again, err := Normalize(got); err != nil || again != got {
			t.Errorf("Normalize(%q) = %q, %v; want it unchanged", got, again, err)
		}
	}
	if got, err := Normalize("http://example.com/50%off"); err != nil || got != "http://example.com/50%25off" {
		t.Errorf("Normalize(50%%off) = %q, %v", got, err)
	}
}

// TestResolveRequest: a redirect's target is asked for as the server wrote
// it — with the session ID its key drops — on the key's canonical host.
func TestResolveRequest(t *testing.T) {
	base := MustParse("http://example.com/dir/a")
	for _, tc := range []struct{ ref, key, request string }{
		{"/a?sid=f3a9c2e18b7d4a6f", "http://example.com/a", "http://example.com/a?sid=f3a9c2e18b7d4a6f"},
		{"/a;jsessionid=ABC", "http://example.com/a", "http://example.com/a;jsessionid=ABC"},
		{"HTTP://Example.COM:80/b?utm_source=x#top", "http://example.com/b", "http://example.com/b?utm_source=x"},
		{"c", "http://example.com/dir/c", "http://example.com/dir/c"},
		// What may not go out in a request line is escaped, nothing decoded:
		// "?q=x y" was sent raw and refused (400).
		{"/b?q=x y&r=é&s=%2f<", "http://example.com/b?q=x%20y&r=%C3%A9&s=%2F%3C", "http://example.com/b?q=x%20y&r=%C3%A9&s=%2f%3C"},
	} {
		key, req, err := ResolveRequest(base, tc.ref)
		if err != nil || key != tc.key || req != tc.request {
			t.Errorf("ResolveRequest(%q) = %q, %q, %v; want %q, %q", tc.ref, key, req, err, tc.key, tc.request)
		}
	}
	if _, _, err := ResolveRequest(base, "mailto:x@example.com"); err == nil {
		t.Error("ResolveRequest(mailto:) succeeded")
	}
}

func TestSameSite(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"docs.test", "docs.test", true},
		{"www.docs.test", "docs.test", true},
		{"docs.test", "www.docs.test", true},
		{"www.docs.test:8080", "docs.test:8080", true},
		{"www.docs.test:8080", "docs.test", false}, // a port makes another site
		{"wwwdocs.test", "docs.test", false},
		{"www2.docs.test", "docs.test", false},
		{"cdn.docs.test", "docs.test", false},
		{"www", "www", true},
		{"www.", "", false},
		{"", "", false},
		{"docs.test", "", false},
	} {
		if got := SameSite(c.a, c.b); got != c.want {
			t.Errorf("SameSite(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestCalendarYearsAdjacent: two date components in a row, where
// the separator after the first one's month is also the one before the
// second's year. The regexps consume that separator, so FindAll never sees
// the second date.
func TestCalendarYearsAdjacent(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want []int
	}{
		{"http://a.test/cal/2024/05/2199/01/", []int{2024, 2199}},
		{"http://a.test/range/20240501-21991231/", []int{2024, 2199}},
		{"http://a.test/cal?year=2024&year=2199", []int{2024, 2199}},
	} {
		if got := CalendarYears(tc.url); !slices.Equal(got, tc.want) {
			t.Errorf("CalendarYears(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}
