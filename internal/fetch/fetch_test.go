package fetch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

const testUA = "FocusCrawl-Test/1.0 (+http://example.invalid/bot)"

// testConfig is a fast configuration for loopback servers.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.UserAgent = testUA
	cfg.ConnectTimeout = 2 * time.Second
	cfg.ReadTimeout = 5 * time.Second
	cfg.AllowPrivateNetworks = true
	cfg.Retries = 0
	cfg.RetryBaseDelay = time.Millisecond
	cfg.RetryMaxDelay = 10 * time.Millisecond
	cfg.RespectRobots = false
	cfg.RobotsTTL = time.Hour
	return cfg
}

func newFetcher(t testing.TB, mutate func(*Config)) *Fetcher {
	t.Helper()
	cfg := testConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	f, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(f.CloseIdleConnections)
	return f
}

func newServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// wantClass asserts err is an *Error of class c and returns it.
func wantClass(t *testing.T, err error, c Class) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want class %s", c)
	}
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *fetch.Error", err, err)
	}
	if fe.Class != c {
		t.Fatalf("class = %s, want %s (error: %v)", fe.Class, c, err)
	}
	return fe
}

func mustEncode(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encoding fixture: %v", err)
	}
	return b
}

func TestFetchBasic(t *testing.T) {
	var gotUA, gotAccept atomic.Value
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUA.Store(r.UserAgent())
		gotAccept.Store(r.Header.Get("Accept"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		fmt.Fprint(w, "<html><body>你好，世界</body></html>")
	}))
	f := newFetcher(t, nil)
	resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/a/./b#frag"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.URL != srv.URL+"/a/b" || resp.FinalURL != resp.URL {
		t.Errorf("URL = %q, FinalURL = %q, want both %q", resp.URL, resp.FinalURL, srv.URL+"/a/b")
	}
	if resp.Status != 200 || resp.ContentType != "text/html" || resp.Charset != "utf-8" {
		t.Errorf("Status/ContentType/Charset = %d %q %q", resp.Status, resp.ContentType, resp.Charset)
	}
	if string(resp.Body) != "<html><body>你好，世界</body></html>" {
		t.Errorf("Body = %q", resp.Body)
	}
	if resp.ETag != `"v1"` || resp.LastModified != "Mon, 02 Jan 2006 15:04:05 GMT" {
		t.Errorf("ETag/LastModified = %q %q", resp.ETag, resp.LastModified)
	}
	if resp.Attempts != 1 || len(resp.Redirects) != 0 || resp.NotModified {
		t.Errorf("Attempts/Redirects/NotModified = %d %v %v", resp.Attempts, resp.Redirects, resp.NotModified)
	}
	if resp.FetchedAt.IsZero() || resp.Duration < 0 {
		t.Errorf("FetchedAt/Duration = %v %v", resp.FetchedAt, resp.Duration)
	}
	if gotUA.Load() != testUA {
		t.Errorf("server saw User-Agent %q, want %q", gotUA.Load(), testUA)
	}
	if a, _ := gotAccept.Load().(string); !strings.Contains(a, "text/html") {
		t.Errorf("server saw Accept %q", a)
	}
}

// gbkPunctuationProse is KiCad's "Assigning Footprints in Symbol
// Properties", untranslated in its Chinese manual: English with ’ → and …
const gbkPunctuationProse = `<p>Edit the symbol’s properties and choose its footprint. The footprint’s library nickname comes first; the symbol’s field shows it.</p><p>Preferences → Manage Footprint Libraries…</p>`

func TestCharsets(t *testing.T) {
	gbk := simplifiedchinese.GBK
	longHead := "<html><head><title>t</title><script>" + strings.Repeat("var x = 1;\n", 150) + "</script>"
	tests := []struct {
		name        string
		contentType string
		body        func(t *testing.T) []byte
		wantCharset string
		wantText    string
	}{
		{
			name:        "GBK declared only by meta charset",
			contentType: "text/html",
			body: func(t *testing.T) []byte {
				return mustEncode(t, gbk, `<html><head><meta charset="gb2312"><title>中文</title></head><body>简体中文网页内容</body></html>`)
			},
			wantCharset: "gbk",
			wantText:    "简体中文网页内容",
		},
		{
			name:        "GBK declared by http-equiv meta after a long head",
			contentType: "text/html",
			body: func(t *testing.T) []byte {
				return mustEncode(t, gbk, longHead+`<meta http-equiv="Content-Type" content="text/html; charset=GBK"></head><body>长页头之后的声明</body></html>`)
			},
			wantCharset: "gbk",
			wantText:    "长页头之后的声明",
		},
		{
			name:        "Big5 declared by meta after a long head",
			contentType: "text/html",
			body: func(t *testing.T) []byte {
				return mustEncode(t, traditionalchinese.Big5, longHead+`<meta charset="big5"></head><body>長頁頭之後的繁體聲明</body></html>`)
			},
			wantCharset: "big5",
			wantText:    "長頁頭之後的繁體聲明",
		},
		{
			name:        "GBK declared only by header",
			contentType: "text/html; charset=GBK",
			body: func(t *testing.T) []byte {
				return mustEncode(t, gbk, `<html><body>只在响应头里声明编码</body></html>`)
			},
			wantCharset: "gbk",
			wantText:    "只在响应头里声明编码",
		},
		{
			name:        "header wins over meta",
			contentType: "text/html; charset=gbk",
			body: func(t *testing.T) []byte {
				return mustEncode(t, gbk, `<html><head><meta charset="utf-8"></head><body>以响应头为准</body></html>`)
			},
			wantCharset: "gbk",
			wantText:    "以响应头为准",
		},
		{
			name:        "GB18030 with a four-byte character",
			contentType: "text/html; charset=gb18030",
			body: func(t *testing.T) []byte {
				return mustEncode(t, simplifiedchinese.GB18030, "<p>四字节字符\U00020000结束</p>")
			},
			wantCharset: "gb18030",
			wantText:    "四字节字符\U00020000结束",
		},
		{
			name:        "Big5 declared by header",
			contentType: "text/html; charset=big5",
			body: func(t *testing.T) []byte {
				return mustEncode(t, traditionalchinese.Big5, `<html><body>繁體中文網頁</body></html>`)
			},
			wantCharset: "big5",
			wantText:    "繁體中文網頁",
		},
		{
			name:        "Big5 declared by meta",
			contentType: "text/html",
			body: func(t *testing.T) []byte {
				return mustEncode(t, traditionalchinese.Big5, `<html><head><meta charset=big5></head><body>臺灣</body></html>`)
			},
			wantCharset: "big5",
			wantText:    "臺灣",
		},
		{
			name:        "UTF-8 with BOM and no declaration",
			contentType: "text/html",
			body: func(*testing.T) []byte {
				return []byte("\xEF\xBB\xBF<html><body>带字节顺序标记</body></html>")
			},
			wantCharset: "utf-8",
			wantText:    "<html><body>带字节顺序标记",
		},
		{
			name:        "BOM wins over a wrong header",
			contentType: "text/html; charset=iso-8859-1",
			body: func(*testing.T) []byte {
				return []byte("\xEF\xBB\xBF<p>字节顺序标记优先</p>")
			},
			wantCharset: "utf-8",
			wantText:    "字节顺序标记优先",
		},
		{
			name:        "undeclared UTF-8 after a long ASCII head",
			contentType: "text/html",
			body: func(*testing.T) []byte {
				return []byte(longHead + "</head><body>后面才出现的中文</body></html>")
			},
			wantCharset: "utf-8",
			wantText:    "后面才出现的中文",
		},
		{
			name:        "undeclared GBK",
			contentType: "text/html",
			body: func(t *testing.T) []byte {
				return mustEncode(t, gbk, "<html><body>没有任何编码声明的中文网页，内容足够长。</body></html>")
			},
			wantCharset: "gbk",
			wantText:    "没有任何编码声明的中文网页",
		},
		{
			name:        "undeclared Latin-1 falls back to windows-1252",
			contentType: "text/html",
			body: func(*testing.T) []byte {
				return []byte("<html><body>caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve \x93quotes\x94</body></html>")
			},
			wantCharset: "windows-1252",
			wantText:    "café crème brûlée, naïve \u201cquotes\u201d",
		},
		{
			name:        "text/plain in GBK converted too",
			contentType: "text/plain; charset=gb2312",
			body: func(t *testing.T) []byte {
				return mustEncode(t, gbk, "纯文本文件")
			},
			wantCharset: "gbk",
			wantText:    "纯文本文件",
		},
		{
			name:        "invalid bytes in declared UTF-8 replaced",
			contentType: "text/html; charset=utf-8",
			body: func(*testing.T) []byte {
				return []byte("<p>ok\xff\xfeend</p>")
			},
			wantCharset: "utf-8",
			wantText:    "ok\uFFFD\uFFFDend",
		},
		{
			name:        "invalid bytes in declared GBK replaced",
			contentType: "text/html; charset=gbk",
			body: func(t *testing.T) []byte {
				return append(mustEncode(t, gbk, "<p>前"), append([]byte{0x81, 0x20}, mustEncode(t, gbk, "后</p>")...)...)
			},
			wantCharset: "gbk",
			wantText:    "前\uFFFD",
		},
		// One bad byte (a title a CMS cut mid-character, a stray Latin-1
		// byte) used to rule out every reading but the wrong one.
		{
			name:        "GBK with a cut character, mislabelled utf-8, declared by meta",
			contentType: "text/html; charset=utf-8",
			body: func(t *testing.T) []byte {
				return cutGBK(t, `<html><head><meta charset="gb2312">`)
			},
			wantCharset: "gbk",
			wantText:    "我们的中文网页内容",
		},
		{
			name:        "undeclared GBK with a cut character",
			contentType: "text/html",
			body:        func(t *testing.T) []byte { return cutGBK(t, "<html><head>") },
			wantCharset: "gbk",
			wantText:    "我们的中文网页内容",
		},
		{
			name:        "undeclared UTF-8 with a stray byte",
			contentType: "text/html",
			body: func(*testing.T) []byte {
				return []byte("<html><body><p>" + strings.Repeat("我们的中文网页内容，", 5) + "\xa0 价格</p></body></html>")
			},
			wantCharset: "utf-8",
			wantText:    "我们的中文网页内容",
		},
		{
			name:        "undeclared English UTF-8 with a stray Latin-1 byte",
			contentType: "text/html",
			body: func(*testing.T) []byte {
				return []byte("<p>caf\xe9 \u201cone\u201d \u201ctwo\u201d \u201cthree\u201d \u201cfour\u201d \u2014 na\u00efve</p>")
			},
			wantCharset: "utf-8",
			wantText:    "\u201cfour\u201d \u2014 na\u00efve",
		},
		// A manual's half-translated pages: English prose whose only
		// non-ASCII characters are GBK's typographic punctuation (’ … →).
		// Read as Big5 they are full-width forms, which counted as text
		// while ’ and … did not: KiCad's Chinese manual lost its GBK label
		// on four such pages and ’ became ＊ (a user trial).
		{
			name:        "GBK-labelled English prose with typographic punctuation",
			contentType: "text/html",
			body: func(t *testing.T) []byte {
				return mustEncode(t, gbk, `<html><head><meta http-equiv="Content-Type" content="text/html; charset=gbk"></head><body>`+gbkPunctuationProse+`</body></html>`)
			},
			wantCharset: "gbk",
			wantText:    "the symbol’s properties",
		},
		{
			name:        "undeclared GBK English prose with typographic punctuation",
			contentType: "text/html",
			body: func(t *testing.T) []byte {
				return mustEncode(t, gbk, `<html><body>`+gbkPunctuationProse+`</body></html>`)
			},
			wantCharset: "gbk",
			wantText:    "the symbol’s properties",
		},
		{
			name:        "unknown charset label falls back to sniffing",
			contentType: "text/html; charset=x-no-such-charset",
			body: func(*testing.T) []byte {
				return []byte("<html><body>未知标签</body></html>")
			},
			wantCharset: "utf-8",
			wantText:    "未知标签",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body(t)
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.Write(body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Charset != tt.wantCharset {
				t.Errorf("Charset = %q, want %q", resp.Charset, tt.wantCharset)
			}
			if !bytes.Contains(resp.Body, []byte(tt.wantText)) {
				t.Errorf("Body %q does not contain %q", resp.Body, tt.wantText)
			}
			if bytes.HasPrefix(resp.Body, []byte("\uFEFF")) {
				t.Errorf("Body keeps its BOM")
			}
			if !utf8Valid(resp.Body) {
				t.Errorf("Body is not valid UTF-8: %q", resp.Body)
			}
		})
	}
}

// cutGBK is a GBK page that starts with head, whose title a CMS cut in
// the middle of a character (a lead byte without its trail), over a body
// of common Chinese text.
func cutGBK(t *testing.T, head string) []byte {
	t.Helper()
	b := mustEncode(t, simplifiedchinese.GBK, head+"<title>中文标")
	b = append(b, 0xD6) // the first byte of 准
	return append(b, mustEncode(t, simplifiedchinese.GBK, "</title></head><body><p>"+
		strings.Repeat("我们的中文网页内容，这是一个关于学习和工作的问题。", 8)+"</p></body></html>")...)
}

func utf8Valid(b []byte) bool { return bytes.Equal(bytes.ToValidUTF8(b, []byte("\uFFFD")), b) }

func TestUTF16WithBOM(t *testing.T) {
	// UTF-16 is full of NUL bytes; with a BOM it is text, not binary.
	body := []byte{0xFF, 0xFE}
	for _, r := range "<p>hi 你好</p>" {
		body = append(body, byte(r), byte(r>>8))
	}
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(body)
	}))
	resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Charset != "utf-16le" || string(resp.Body) != "<p>hi 你好</p>" {
		t.Fatalf("Charset %q, Body %q", resp.Charset, resp.Body)
	}
}

// redirectServer serves /r/<name> redirects described by hops, and "ok"
// everywhere else.
func redirectServer(t *testing.T, hops map[string]string) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if to, ok := hops[r.URL.Path]; ok {
			w.Header().Set("Location", to)
			w.WriteHeader(http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "landed on %s", r.URL.Path)
	}))
	return srv, &hits
}

func TestRedirectChain(t *testing.T) {
	srv, hits := redirectServer(t, map[string]string{
		"/start":    "/dir/next", // absolute path
		"/dir/next": "../final/", // relative
		"/final/":   "FINAL",     // relative, no slash
	})
	resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/start"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{srv.URL + "/dir/next", srv.URL + "/final/", srv.URL + "/final/FINAL"}
	if !slices.Equal(resp.Redirects, want) {
		t.Errorf("Redirects = %q, want %q", resp.Redirects, want)
	}
	if resp.URL != srv.URL+"/start" || resp.FinalURL != srv.URL+"/final/FINAL" {
		t.Errorf("URL %q FinalURL %q", resp.URL, resp.FinalURL)
	}
	if string(resp.Body) != "landed on /final/FINAL" {
		t.Errorf("Body = %q", resp.Body)
	}
	if resp.Attempts != 4 || hits.Load() != 4 {
		t.Errorf("Attempts = %d, server hits = %d, want 4 and 4", resp.Attempts, hits.Load())
	}
}

func TestRedirectStatuses(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/from" {
					http.Redirect(w, r, "/to", code)
					return
				}
				fmt.Fprint(w, "to")
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/from"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.FinalURL != srv.URL+"/to" {
				t.Fatalf("FinalURL = %q", resp.FinalURL)
			}
		})
	}
}

func TestRedirectLoop(t *testing.T) {
	srv, _ := redirectServer(t, map[string]string{"/a": "/b", "/b": "/c", "/c": "/a#again"})
	_, err := newFetcher(t, func(c *Config) { c.MaxRedirects = 10 }).Fetch(t.Context(), Request{URL: srv.URL + "/a"})
	fe := wantClass(t, err, ClassRedirectLoop)
	if !fe.Permanent {
		t.Errorf("redirect_loop not permanent")
	}
	// A redirect to the same page spelt differently is a loop as well.
	srv2, _ := redirectServer(t, map[string]string{"/x": "/./x?sid=f3a9c2e18b7d4a6f"})
	_, err = newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv2.URL + "/x"})
	wantClass(t, err, ClassRedirectLoop)
}

// TestRedirectToSessionURL: a server that redirects a URL to itself with
// a session ID the key drops (a cookieless session: "/a" to "/a?sid=…",
// Tomcat's ";jsessionid=…") is asked for the URL it named, and the page is
// keyed without the ID. Before, the key was asked for again and the fetch
// failed as a redirect loop.
func TestRedirectToSessionURL(t *testing.T) {
	for _, target := range []string{"/a?sid=f3a9c2e18b7d4a6f", "/a;jsessionid=ABC123"} {
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.RawQuery == "" && !strings.Contains(r.URL.Path, ";") {
				http.Redirect(w, r, target, http.StatusFound)
				return
			}
			fmt.Fprint(w, "the page, session "+r.URL.String())
		}))
		resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/a"})
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if resp.FinalURL != srv.URL+"/a" || string(resp.Body) != "the page, session "+target {
			t.Errorf("%s: FinalURL %q, body %q; want the page under %s/a", target, resp.FinalURL, resp.Body, srv.URL)
		}
	}
}

// TestRequestMaxBytes: a request with its own MaxBytes (a sitemap) takes a
// body longer than fetch.max_body_bytes, cut to its limit instead of
// refused; other requests still fail as too_large. Before, a 50,000-URL
// sitemap (7 MB) failed and nothing of it was read.
func TestRequestMaxBytes(t *testing.T) {
	body := strings.Repeat("http://a.test/page\n", 400) // 7,600 bytes
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	}))
	f := newFetcher(t, func(c *Config) { c.MaxBodyBytes = 2000 })
	_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/sitemap.txt"})
	wantClass(t, err, ClassTooLarge)
	resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/sitemap.txt", MaxBytes: 9000})
	if err != nil || string(resp.Body) != body {
		t.Fatalf("under its own limit: %v, %d bytes; want the whole body", err, len(resp.Body))
	}
	resp, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/sitemap.txt", MaxBytes: 3000})
	if err != nil || len(resp.Body) != 3000 || !strings.HasPrefix(body, string(resp.Body)) {
		t.Fatalf("over its own limit: %v, %d bytes; want the first 3000", err, len(resp.Body))
	}
}

// TestRedirectWithSpaceInQuery: a Location with a space in its query is
// asked for with the space escaped; sent raw, the request line was refused
// (400).
func TestRedirectWithSpaceInQuery(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			w.Header().Set("Location", "/b?q=x y")
			w.WriteHeader(http.StatusFound)
			return
		}
		fmt.Fprint(w, "query "+r.URL.RawQuery)
	}))
	resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/a"})
	if err != nil || string(resp.Body) != "query q=x%20y" {
		t.Fatalf("redirect to a query with a space: %v; want the page asked for with q=x%%20y", err)
	}
}

func TestTooManyRedirects(t *testing.T) {
	hops := map[string]string{}
	for i := range 10 {
		hops[fmt.Sprintf("/r%d", i)] = fmt.Sprintf("/r%d", i+1)
	}
	srv, _ := redirectServer(t, hops)
	f := newFetcher(t, func(c *Config) { c.MaxRedirects = 3 })

	// Exactly MaxRedirects redirects are fine: /r7 -> r8 -> r9 -> r10 (200).
	resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/r7"})
	if err != nil || len(resp.Redirects) != 3 {
		t.Fatalf("3 redirects with MaxRedirects=3: %v, %+v", err, resp)
	}
	// One more is not.
	_, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/r6"})
	fe := wantClass(t, err, ClassTooManyRedirects)
	if !fe.Permanent {
		t.Errorf("too_many_redirects not permanent")
	}
	_, err = newFetcher(t, func(c *Config) { c.MaxRedirects = 0 }).Fetch(t.Context(), Request{URL: srv.URL + "/r0"})
	wantClass(t, err, ClassTooManyRedirects)
}

func TestRedirectToBadURL(t *testing.T) {
	srv, _ := redirectServer(t, map[string]string{
		"/mail": "mailto:someone@example.com",
		"/ftp":  "ftp://example.com/file",
	})
	for _, p := range []string{"/mail", "/ftp"} {
		_, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + p})
		wantClass(t, err, ClassBadURL)
	}
}

func TestRedirectWithoutLocation(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusFound)
	}))
	_, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
	fe := wantClass(t, err, ClassHTTPClient)
	if fe.Status != 302 {
		t.Errorf("Status = %d", fe.Status)
	}
}

func TestBadURL(t *testing.T) {
	f := newFetcher(t, nil)
	for _, u := range []string{"mailto:a@example.com", "javascript:void(0)", "/relative", "http://", "http://exa mple.com/"} {
		_, err := f.Fetch(t.Context(), Request{URL: u})
		fe := wantClass(t, err, ClassBadURL)
		if !fe.Permanent || fe.URL != u {
			t.Errorf("%q: Permanent=%v URL=%q", u, fe.Permanent, fe.URL)
		}
	}
}

func TestBodyLimits(t *testing.T) {
	const limit = 64 << 10
	big := bytes.Repeat([]byte("<p>lots of text</p>\n"), 4*limit/20)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("a"), 100*limit)) // a small gzip bomb
	zw.Close()
	exact := bytes.Repeat([]byte("x"), limit)

	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/length": // Content-Length declared
			w.Write(big)
		case "/chunked": // no Content-Length
			for i := 0; i < len(big); i += 4096 {
				w.Write(big[i:min(i+4096, len(big))])
				w.(http.Flusher).Flush()
			}
		case "/gzip-bomb":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
		case "/exact":
			w.Write(exact)
		}
	}))
	f := newFetcher(t, func(c *Config) { c.MaxBodyBytes = limit })
	for _, p := range []string{"/length", "/chunked", "/gzip-bomb"} {
		t.Run(p, func(t *testing.T) {
			_, err := f.Fetch(t.Context(), Request{URL: srv.URL + p})
			fe := wantClass(t, err, ClassTooLarge)
			if !fe.Permanent {
				t.Errorf("too_large not permanent")
			}
		})
	}
	t.Run("/exact", func(t *testing.T) {
		resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/exact"})
		if err != nil || len(resp.Body) != limit {
			t.Fatalf("body of exactly MaxBodyBytes: %v", err)
		}
	})
}

func TestGzipDecoded(t *testing.T) {
	page := "<html><body>" + strings.Repeat("压缩的内容 ", 200) + "</body></html>"
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("request without Accept-Encoding: gzip")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, page)
		zw.Close()
	}))
	resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != page {
		t.Fatalf("gzip body not decoded: %q...", resp.Body[:min(40, len(resp.Body))])
	}
}

func TestBinaryGuard(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{1, 2, 3}, 100)...)
	tests := []struct {
		name  string
		ctype string
		body  []byte
		class Class // "" for success
	}{
		{"PNG labelled text/html", "text/html", png, ClassBinary},
		{"PDF labelled text/html", "text/html; charset=utf-8", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj"), ClassBinary},
		{"gzip data labelled text/plain", "text/plain", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03abc"), ClassBinary},
		{"NUL bytes in text/html", "text/html", []byte("<html>\x00\x00\x00<body>"), ClassBinary},
		{"random control bytes", "text/html", bytes.Repeat([]byte{0x01, 0x02, 0x03, 'a', 0x1b, 0x7f}, 50), ClassBinary},
		{"NUL past the first KiB is tolerated", "text/html", append(bytes.Repeat([]byte("<p>ok</p>"), 200), 0), ""},
		{"one stray control byte is tolerated", "text/html", []byte("<!-- \x1b --><html><body>fine</body></html>"), ""},
		{"empty body", "text/html", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				w.Write(tt.body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
			if tt.class == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			fe := wantClass(t, err, tt.class)
			if !fe.Permanent || resp != nil {
				t.Errorf("Permanent = %v, resp = %v", fe.Permanent, resp)
			}
		})
	}
}

func TestContentTypes(t *testing.T) {
	tests := []struct {
		name     string
		ctype    string // "" sends no Content-Type at all
		body     []byte
		class    Class
		wantType string
	}{
		{"PDF refused", "application/pdf", []byte("%PDF-1.4"), ClassContentType, ""},
		{"JSON refused", "application/json", []byte(`{}`), ClassContentType, ""},
		{"image refused", "image/png", []byte("\x89PNG\r\n\x1a\n"), ClassContentType, ""},
		{"xhtml allowed", "application/xhtml+xml; charset=utf-8", []byte(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"></html>`), "", "application/xhtml+xml"},
		{"upper-case header allowed", "TEXT/HTML; Charset=UTF-8", []byte("<html></html>"), "", "text/html"},
		{"missing type sniffed as html", "", []byte("<!DOCTYPE html><html><body>x</body></html>"), "", "text/html"},
		{"missing type sniffed as text", "", []byte("just words"), "", "text/plain"},
		{"missing type sniffed as image", "", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ClassContentType, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.ctype == "" {
					w.Header()["Content-Type"] = nil // stop net/http sniffing on our behalf
				} else {
					w.Header().Set("Content-Type", tt.ctype)
				}
				w.Write(tt.body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
			if tt.class != "" {
				fe := wantClass(t, err, tt.class)
				if !fe.Permanent {
					t.Errorf("content_type not permanent")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.ContentType != tt.wantType {
				t.Errorf("ContentType = %q, want %q", resp.ContentType, tt.wantType)
			}
		})
	}
}

// TestExtraTypes: a request's ExtraTypes are accepted for it alone and
// announced first in its Accept header; an XML body is decoded as text, a
// gzip body handed over as it came; other requests still refuse them.
func TestExtraTypes(t *testing.T) {
	gz := []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")
	var accept atomic.Value
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept.Store(r.Header.Get("Accept"))
		switch r.URL.Path {
		case "/map.xml":
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, `<?xml version="1.0"?><urlset></urlset>`)
		case "/map.xml.gz":
			w.Header().Set("Content-Type", "application/gzip")
			w.Write(gz)
		}
	}))
	f := newFetcher(t, nil)
	extra := []string{"application/xml", "application/gzip"}
	resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/map.xml", ExtraTypes: extra})
	if err != nil || resp.ContentType != "application/xml" || !strings.Contains(string(resp.Body), "<urlset>") {
		t.Fatalf("XML with ExtraTypes: %+v, %v", resp, err)
	}
	if a, _ := accept.Load().(string); !strings.HasPrefix(a, "application/xml, application/gzip, text/html") {
		t.Errorf("Accept %q; want the extra types first", a)
	}
	resp, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/map.xml.gz", ExtraTypes: extra})
	if err != nil || !bytes.Equal(resp.Body, gz) {
		t.Fatalf("gzip with ExtraTypes: %+v, %v; want the bytes as sent", resp, err)
	}
	for _, p := range []string{"/map.xml", "/map.xml.gz"} {
		_, err := f.Fetch(t.Context(), Request{URL: srv.URL + p})
		wantClass(t, err, ClassContentType)
	}
}

// stallServer answers after writing part of a response, then hangs until
// the client gives up.
func stallServer(t *testing.T) *httptest.Server {
	return newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/head" {
			select { // no headers at all
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>drip"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
}

func TestReadTimeout(t *testing.T) {
	srv := stallServer(t)
	f := newFetcher(t, func(c *Config) { c.ReadTimeout = 200 * time.Millisecond })
	for _, p := range []string{"/head", "/body"} {
		t.Run(p, func(t *testing.T) {
			_, err := f.Fetch(t.Context(), Request{URL: srv.URL + p})
			fe := wantClass(t, err, ClassTimeout)
			if fe.Permanent {
				t.Errorf("timeout marked permanent")
			}
		})
	}
}

func TestRetries(t *testing.T) {
	t.Run("503 then 200", func(t *testing.T) {
		var n atomic.Int32
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "ok")
		}))
		resp, err := newFetcher(t, func(c *Config) { c.Retries = 2 }).Fetch(t.Context(), Request{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Attempts != 2 || n.Load() != 2 || string(resp.Body) != "ok" {
			t.Fatalf("Attempts = %d, hits = %d, Body %q", resp.Attempts, n.Load(), resp.Body)
		}
	})
	t.Run("429 with Retry-After within RetryMaxDelay then 200", func(t *testing.T) {
		var n atomic.Int32
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			fmt.Fprint(w, "ok")
		}))
		f := newFetcher(t, func(c *Config) { c.Retries, c.RetryMaxDelay = 1, time.Second })
		start := time.Now()
		resp, err := f.Fetch(t.Context(), Request{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Attempts != 2 || time.Since(start) < time.Second {
			t.Fatalf("Attempts = %d after %v; want the retry after the server's second", resp.Attempts, time.Since(start))
		}
	})
	// A Retry-After longer than a fetch waits ends the fetch at once: no
	// retry before the server's time, which the error carries for the
	// caller to hold the host with.
	t.Run("429 with Retry-After over RetryMaxDelay", func(t *testing.T) {
		var n atomic.Int32
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		}))
		_, err := newFetcher(t, func(c *Config) { c.Retries = 2 }).Fetch(t.Context(), Request{URL: srv.URL})
		fe := wantClass(t, err, ClassHTTPServer)
		if n.Load() != 1 || fe.Status != 429 || fe.RetryAfter != time.Hour || !fe.Overloaded() || fe.Permanent {
			t.Fatalf("hits %d, error %+v (RetryAfter %v); want one request, 429, RetryAfter 1h, overloaded, transient", n.Load(), fe, fe.RetryAfter)
		}
	})
	for _, code := range []int{429, 500, 502, 503, 504} {
		t.Run(fmt.Sprintf("persistent %d", code), func(t *testing.T) {
			var n atomic.Int32
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				w.WriteHeader(code)
			}))
			_, err := newFetcher(t, func(c *Config) { c.Retries = 2 }).Fetch(t.Context(), Request{URL: srv.URL})
			fe := wantClass(t, err, ClassHTTPServer)
			if fe.Status != code || fe.Permanent || n.Load() != 3 {
				t.Fatalf("Status %d Permanent %v hits %d; want %d false 3", fe.Status, fe.Permanent, n.Load(), code)
			}
			if want := code == 429 || code == 503; fe.Overloaded() != want || fe.RetryAfter != 0 {
				t.Errorf("Overloaded() = %v, RetryAfter %v; want %v, 0 (no header)", fe.Overloaded(), fe.RetryAfter, want)
			}
		})
	}
	// A non-standard status (999: LinkedIn and others, to crawlers; 600)
	// refuses this client as 403 does: permanent http_client, no overload
	// (the host is not held). It was http_server, transient, for being ≥ 500.
	for _, code := range []int{400, 401, 403, 404, 410, 501, 600, 999} {
		t.Run(fmt.Sprintf("no retry on %d", code), func(t *testing.T) {
			var n atomic.Int32
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				w.WriteHeader(code)
			}))
			_, err := newFetcher(t, func(c *Config) { c.Retries = 2 }).Fetch(t.Context(), Request{URL: srv.URL})
			serverError := code >= 500 && code < 600
			class := ClassHTTPClient
			if serverError {
				class = ClassHTTPServer
			}
			fe := wantClass(t, err, class)
			if fe.Status != code || fe.Permanent == serverError || fe.Overloaded() || n.Load() != 1 {
				t.Fatalf("Status %d Permanent %v Overloaded %v hits %d", fe.Status, fe.Permanent, fe.Overloaded(), n.Load())
			}
		})
	}
	t.Run("transient network error retried", func(t *testing.T) {
		var n atomic.Int32
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				// Drop the connection without a response.
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			fmt.Fprint(w, "ok")
		}))
		resp, err := newFetcher(t, func(c *Config) { c.Retries = 1 }).Fetch(t.Context(), Request{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Attempts != 2 {
			t.Fatalf("Attempts = %d", resp.Attempts)
		}
	})
}

func TestNotFoundIsPermanent(t *testing.T) {
	srv := newServer(t, http.NotFoundHandler())
	_, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/missing"})
	fe := wantClass(t, err, ClassHTTPClient)
	if fe.Status != 404 || !fe.Permanent || fe.URL != srv.URL+"/missing" {
		t.Fatalf("Status %d Permanent %v URL %q", fe.Status, fe.Permanent, fe.URL)
	}
	if !strings.Contains(err.Error(), srv.URL+"/missing") || !strings.Contains(err.Error(), "http_client") ||
		!strings.Contains(err.Error(), "404") {
		t.Errorf("Error() = %q lacks URL, class or status", err.Error())
	}
}

func TestBackoff(t *testing.T) {
	f := newFetcher(t, func(c *Config) {
		c.RetryBaseDelay = 100 * time.Millisecond
		c.RetryMaxDelay = time.Second
	})
	for try, wantMax := range map[int]time.Duration{1: 100, 2: 200, 3: 400, 4: 800, 5: 1000, 40: 1000} {
		wantMax *= time.Millisecond
		for range 50 {
			d := f.backoff(try, 0)
			if d < wantMax/2 || d > wantMax {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", try, d, wantMax/2, wantMax)
			}
		}
	}
	if d := f.backoff(1, 300*time.Millisecond); d != 300*time.Millisecond {
		t.Errorf("Retry-After 300ms: backoff = %v", d)
	}
	if d := f.backoff(1, time.Hour); d != time.Second {
		t.Errorf("Retry-After 1h: backoff = %v, want capped to 1s", d)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"5", 5 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"0", 0},
		{"-3", 0},
		{"soon", 0},
		{"99999999999", 24 * time.Hour},
		{"99999999999999999999999", 24 * time.Hour}, // over an int64: was 0, no Retry-After at all
		{"-99999999999999999999999", 0},
		{"Fri, 31 Dec 9999 23:59:59 GMT", 24 * time.Hour}, // was 292 years
		{now.Add(25 * time.Hour).Format(http.TimeFormat), 24 * time.Hour},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestCancel(t *testing.T) {
	t.Run("before the fetch", func(t *testing.T) {
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := newFetcher(t, nil).Fetch(ctx, Request{URL: srv.URL})
		fe := wantClass(t, err, ClassCanceled)
		if fe.Permanent {
			t.Errorf("canceled marked permanent")
		}
	})
	t.Run("while backing off", func(t *testing.T) {
		hit := make(chan struct{}, 10)
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hit <- struct{}{}
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		f := newFetcher(t, func(c *Config) {
			c.Retries = 3
			c.RetryBaseDelay = time.Hour
			c.RetryMaxDelay = time.Hour
			// The pause must fit the fetch's budget, or the fetch ends with
			// the 503 at once (fits) and races the cancel: on a loaded
			// machine the 503 won.
			c.MaxFetchTime = 3 * time.Hour
		})
		ctx, cancel := context.WithCancel(t.Context())
		go func() { <-hit; cancel() }()
		_, err := f.Fetch(ctx, Request{URL: srv.URL})
		wantClass(t, err, ClassCanceled)
	})
	t.Run("while waiting for the server", func(t *testing.T) {
		srv := stallServer(t)
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := newFetcher(t, nil).Fetch(ctx, Request{URL: srv.URL + "/head"})
		wantClass(t, err, ClassCanceled)
	})
}

func TestConditionalGet(t *testing.T) {
	const etag, lastMod = `"abc123"`, "Tue, 07 May 2024 10:00:00 GMT"
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/etag" && r.Header.Get("If-None-Match") == etag:
			w.Header().Set("ETag", etag)
			w.WriteHeader(http.StatusNotModified)
		case r.URL.Path == "/date" && r.Header.Get("If-Modified-Since") == lastMod:
			w.WriteHeader(http.StatusNotModified) // validators omitted
		default:
			w.Header().Set("ETag", `"new"`)
			fmt.Fprint(w, "changed")
		}
	}))
	f := newFetcher(t, nil)

	resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/etag", ETag: etag})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.NotModified || resp.Status != 304 || resp.Body != nil || resp.ETag != etag {
		t.Errorf("ETag 304: %+v", resp)
	}

	resp, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/date", LastModified: lastMod})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.NotModified || resp.LastModified != lastMod {
		t.Errorf("If-Modified-Since 304: %+v", resp)
	}

	resp, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/etag", ETag: `"stale"`})
	if err != nil {
		t.Fatal(err)
	}
	if resp.NotModified || string(resp.Body) != "changed" || resp.ETag != `"new"` {
		t.Errorf("changed page: %+v", resp)
	}
}

func TestUnconditional304IsAnError(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotModified)
	}))
	_, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
	wantClass(t, err, ClassHTTPClient)
}

// robotsServer serves robots with the given status and body and counts
// robots.txt requests; other paths answer "page".
func robotsServer(t *testing.T, status int, body string) (*httptest.Server, *atomic.Int32) {
	var robotsHits atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsHits.Add(1)
			if r.UserAgent() != testUA {
				t.Errorf("robots.txt fetched with User-Agent %q", r.UserAgent())
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
		fmt.Fprint(w, "page")
	}))
	return srv, &robotsHits
}

func TestRobots(t *testing.T) {
	srv, hits := robotsServer(t, 200, "User-agent: *\nDisallow: /\n\n"+
		"User-agent: FocusCrawl-Test\nDisallow: /private\nCrawl-delay: 1.5\nSitemap: /sitemap.xml\n")
	f := newFetcher(t, func(c *Config) { c.RespectRobots = true })

	if _, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/public"}); err != nil {
		t.Fatalf("allowed page: %v", err)
	}
	_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/private/page"})
	fe := wantClass(t, err, ClassRobots)
	if !fe.Permanent || fe.URL != srv.URL+"/private/page" {
		t.Errorf("Permanent %v URL %q", fe.Permanent, fe.URL)
	}
	if d := f.CrawlDelay(t.Context(), srv.URL+"/anything", nil); d != 1500*time.Millisecond {
		t.Errorf("CrawlDelay = %v, want 1.5s", d)
	}
	rules, err := f.Robots(t.Context(), srv.URL+"/x")
	if err != nil || rules.Allowed("/private") {
		t.Errorf("Robots: %v, allowed(/private) = %v", err, rules.Allowed("/private"))
	}
	if hits.Load() != 1 {
		t.Errorf("robots.txt fetched %d times, want 1 (cached)", hits.Load())
	}
}

func TestRobotsRedirectHopChecked(t *testing.T) {
	srv, _ := robotsServer(t, 200, "User-agent: *\nDisallow: /secret\n")
	f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
	// The first host allows everything but redirects into a path the second
	// host's robots.txt disallows: the hop must be refused.
	redir := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.WriteHeader(404)
			return
		}
		http.Redirect(w, r, srv.URL+"/secret/doc", http.StatusFound)
	}))
	_, err := f.Fetch(t.Context(), Request{URL: redir.URL + "/go"})
	fe := wantClass(t, err, ClassRobots)
	if fe.URL != srv.URL+"/secret/doc" {
		t.Errorf("error URL %q, want the hop", fe.URL)
	}
}

// TestRobotsRedirectToPrivateIsUnreachable: a robots.txt that redirects
// into our own network is a file the guard does not let us read, which RFC
// 9309 calls unreachable (disallow all, briefly), not missing (allow all,
// for a day). With fetch.allow_private_networks the redirect is followed.
func TestRobotsRedirectToPrivateIsUnreachable(t *testing.T) {
	var privateHits atomic.Int32
	private := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		privateHits.Add(1)
		io.WriteString(w, "User-agent: *\nDisallow: /secret\n")
	}))
	privAddr := private.Listener.Addr().(*net.TCPAddr)
	var target atomic.Value
	var publicRobots atomic.Int32
	public := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			publicRobots.Add(1)
			http.Redirect(w, r, target.Load().(string), http.StatusMovedPermanently)
			return
		}
		fmt.Fprint(w, "page")
	}))
	pubAddr := public.Listener.Addr().String()
	pubPort := public.Listener.Addr().(*net.TCPAddr).Port
	page := fmt.Sprintf("http://public.test:%d/page", pubPort)
	resolve := map[string]string{"public.test": pubAddr, "internal.test": privAddr.String()}

	for _, tc := range []struct{ name, target string }{
		// Refused by the literal check before any connection.
		{"loopback literal", fmt.Sprintf("http://127.0.0.1:%d/robots.txt", privAddr.Port)},
		{"6to4 of loopback", fmt.Sprintf("http://[2002:7f00:1::1]:%d/robots.txt", privAddr.Port)},
		// A name: refused at dial time.
		{"name resolving to loopback", fmt.Sprintf("http://internal.test:%d/robots.txt", privAddr.Port)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target.Store(tc.target)
			publicRobots.Store(0)
			f := newFetcher(t, func(c *Config) {
				c.RespectRobots, c.AllowPrivateNetworks, c.Resolve = true, false, resolve
			})
			// public.test stands for a public site: its own address passes
			// the guard, every other one is judged as in production.
			f.dialer.Control = func(network, address string, c syscall.RawConn) error {
				if address == pubAddr {
					return nil
				}
				return dialControl(network, address, c)
			}
			now := time.Now()
			f.now = func() time.Time { return now }

			_, err := f.Fetch(t.Context(), Request{URL: page})
			fe := wantClass(t, err, ClassRobots)
			if fe.Permanent {
				t.Errorf("refusal for an unreachable robots.txt is permanent")
			}
			for _, want := range []string{"unreachable", "ssrf", "fetch.allow_private_networks", tc.target} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %q does not say %q", err, want)
				}
			}
			rules, err := f.Robots(t.Context(), page)
			if err != nil || rules.Allowed("/page") {
				t.Errorf("Robots: %v, allowed(/page) = %v; want disallow all", err, err == nil && rules.Allowed("/page"))
			}
			// Remembered as a failure is: briefly.
			now = now.Add(2 * time.Minute)
			f.Fetch(t.Context(), Request{URL: page})
			if n := publicRobots.Load(); n != 2 {
				t.Errorf("robots.txt asked for %d times over two minutes, want 2 (a failure expires after one)", n)
			}
			if n := privateHits.Load(); n != 0 {
				t.Errorf("the private server was reached %d times", n)
			}
		})
	}

	t.Run("allow_private_networks", func(t *testing.T) {
		target.Store(fmt.Sprintf("http://internal.test:%d/robots.txt", privAddr.Port))
		f := newFetcher(t, func(c *Config) { c.RespectRobots, c.Resolve = true, resolve })
		if _, err := f.Fetch(t.Context(), Request{URL: page}); err != nil {
			t.Fatalf("allowed page: %v", err)
		}
		_, err := f.Fetch(t.Context(), Request{URL: fmt.Sprintf("http://public.test:%d/secret", pubPort)})
		if fe := wantClass(t, err, ClassRobots); !fe.Permanent {
			t.Errorf("disallowed by the redirected robots.txt, but not permanently: %v", err)
		}
		if privateHits.Load() != 1 {
			t.Errorf("redirected robots.txt read %d times, want 1", privateHits.Load())
		}
	})
}

func TestRobotsMissingOrBroken(t *testing.T) {
	tests := []struct {
		status      int
		allowed     bool
		permanent   bool // of the robots error when not allowed
		ttlIsShort  bool
		description string
	}{
		{404, true, false, false, "missing robots.txt allows all"},
		{403, true, false, false, "forbidden robots.txt allows all (RFC 9309)"},
		{500, false, false, true, "server error disallows all, briefly"},
		{503, false, false, true, "unavailable disallows all, briefly"},
		{429, false, false, true, "rate limited disallows all, briefly"},
		// A status outside the standard's classes is not a server error:
		// no usable file, as a 4xx (it was "unreachable": every URL of
		// the host refused, robots.txt asked for again each minute).
		{999, true, false, false, "non-standard 999 allows all, as a 4xx does"},
		{600, true, false, false, "non-standard 600 allows all, as a 4xx does"},
	}
	for _, tt := range tests {
		t.Run(tt.description, func(t *testing.T) {
			srv, hits := robotsServer(t, tt.status, "User-agent: *\nDisallow: /\n")
			f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
			now := time.Now()
			f.now = func() time.Time { return now }

			_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
			if tt.allowed {
				if err != nil {
					t.Fatalf("fetch: %v", err)
				}
			} else {
				fe := wantClass(t, err, ClassRobots)
				if fe.Permanent != tt.permanent {
					t.Errorf("Permanent = %v", fe.Permanent)
				}
				// The refusal names the status robots.txt was answered with.
				if want := fmt.Sprintf("status %d", tt.status); !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %q does not say %q", err, want)
				}
			}
			// Two minutes later a failure has expired, a 4xx has not.
			now = now.Add(2 * time.Minute)
			f.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
			want := int32(1)
			if tt.ttlIsShort {
				want = 2
			}
			if hits.Load() != want {
				t.Errorf("robots.txt fetched %d times, want %d", hits.Load(), want)
			}
		})
	}
}

// TestRobotsRetryAfter: robots.txt answered 429 or 503 with a Retry-After
// makes every refusal of the host's URLs say how much of it is left
// (Error.RetryAfter, Overloaded), which is what holds the host after a
// page's 429 or 503 (activities: holdHost); read and capped as a page's.
func TestRobotsRetryAfter(t *testing.T) {
	start := time.Now().Truncate(time.Second) // HTTP dates have whole seconds
	tests := []struct {
		name       string
		status     int
		retryAfter func(now time.Time) string
		want       time.Duration // Error.RetryAfter of the first refusal
	}{
		{"503 seconds", 503, func(time.Time) string { return "120" }, 2 * time.Minute},
		{"429 date", 429, func(now time.Time) string { return now.Add(5 * time.Minute).UTC().Format(http.TimeFormat) }, 5 * time.Minute},
		{"500 seconds", 500, func(time.Time) string { return "90" }, 90 * time.Second},
		{"503 years", 503, func(time.Time) string { return "999999999" }, maxRetryAfter},
		{"503 without", 503, func(time.Time) string { return "" }, 0},
		{"503 past date", 503, func(now time.Time) string { return now.Add(-time.Hour).UTC().Format(http.TimeFormat) }, 0},
		{"503 garbage", 503, func(time.Time) string { return "soon" }, 0},
		{"501 not read", 501, func(time.Time) string { return "120" }, 0}, // a page's 501 is not retried and its Retry-After not read either
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := start
			var hits atomic.Int32
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					hits.Add(1)
				}
				if v := tt.retryAfter(now); v != "" {
					w.Header().Set("Retry-After", v)
				}
				w.WriteHeader(tt.status)
			}))
			f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
			f.now = func() time.Time { return now }

			_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
			fe := wantClass(t, err, ClassRobots)
			if fe.Permanent || fe.RetryAfter != tt.want {
				t.Fatalf("Permanent %v RetryAfter %v; want false and %v (%v)", fe.Permanent, fe.RetryAfter, tt.want, err)
			}
			// The page path reads the same header into the same field.
			pf := newFetcher(t, nil)
			pf.now = f.now
			_, perr := pf.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
			if pe := wantClass(t, perr, ClassHTTPServer); pe.RetryAfter != tt.want {
				t.Errorf("page path RetryAfter %v, robots path %v", pe.RetryAfter, tt.want)
			}
			// Without a time to come back, robots.txt is asked for again
			// after the minute; a 429 or 503 holds the host all the same
			// (for fetch.retry_max_delay, as a page's), a 500 or 501 does
			// not (nor would a page's).
			if want := tt.want > 0 || tt.status == 429 || tt.status == 503; fe.Overloaded() != want {
				t.Errorf("Overloaded() = %v, want %v", fe.Overloaded(), want)
			}
			// Every refusal says when robots.txt is asked for again: the
			// same instant, whenever the refusal is made.
			wantIn := robotsFailureTTL
			if tt.want > 0 {
				wantIn = min(robotsFailureTTL, tt.want)
			}
			if fe.RobotsRetryIn != wantIn {
				t.Errorf("RobotsRetryIn %v; want the failure's remembered time, %v", fe.RobotsRetryIn, wantIn)
			}
			if tt.want == 0 {
				now = now.Add(20 * time.Second)
				_, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/other"})
				if fe := wantClass(t, err, ClassRobots); fe.RobotsRetryIn != robotsFailureTTL-20*time.Second {
					t.Errorf("refusal 20s later: RobotsRetryIn %v; want %v (the same end)", fe.RobotsRetryIn, robotsFailureTTL-20*time.Second)
				}
				return
			}
			if !strings.Contains(err.Error(), "Retry-After") {
				t.Errorf("refusal %q does not name the Retry-After", err)
			}
			// Half a minute on, answered from the cache: what is left.
			now = now.Add(30 * time.Second)
			_, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/other"})
			if fe := wantClass(t, err, ClassRobots); fe.RetryAfter != tt.want-30*time.Second || !fe.Overloaded() {
				t.Errorf("cached refusal: RetryAfter %v Overloaded %v; want %v and true", fe.RetryAfter, fe.Overloaded(), tt.want-30*time.Second)
			}
			if hits.Load() != 1 {
				t.Errorf("robots.txt fetched %d times within its minute, want 1", hits.Load())
			}
			// After the failure's minute robots.txt is asked for again (a
			// hold longer than that keeps the crawl from asking sooner).
			now = now.Add(31 * time.Second)
			f.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
			if hits.Load() != 2 {
				t.Errorf("robots.txt fetched %d times after its minute, want 2", hits.Load())
			}
		})
	}

	// A Retry-After shorter than the failure's minute is when robots.txt
	// is asked for again: the host said when to come back.
	t.Run("shorter than the minute", func(t *testing.T) {
		now := start
		var hits atomic.Int32
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				if hits.Add(1) == 1 {
					w.Header().Set("Retry-After", "10")
					w.WriteHeader(503)
					return
				}
				io.WriteString(w, "User-agent: *\nDisallow: /private\n")
				return
			}
			fmt.Fprint(w, "page")
		}))
		f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
		f.now = func() time.Time { return now }
		_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
		if fe := wantClass(t, err, ClassRobots); fe.RetryAfter != 10*time.Second {
			t.Fatalf("RetryAfter %v, want 10s", fe.RetryAfter)
		}
		now = now.Add(9 * time.Second)
		_, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
		if fe := wantClass(t, err, ClassRobots); fe.RetryAfter != time.Second {
			t.Errorf("a second before it ends: RetryAfter %v, want 1s", fe.RetryAfter)
		}
		now = now.Add(time.Second)
		if _, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"}); err != nil {
			t.Errorf("once the Retry-After has passed: %v", err)
		}
		if hits.Load() != 2 {
			t.Errorf("robots.txt fetched %d times, want 2", hits.Load())
		}
	})
}

func TestRobotsTTL(t *testing.T) {
	srv, hits := robotsServer(t, 200, "User-agent: *\nDisallow: /x\n")
	f := newFetcher(t, func(c *Config) { c.RespectRobots = true; c.RobotsTTL = time.Hour })
	now := time.Now()
	f.now = func() time.Time { return now }
	for _, step := range []time.Duration{0, 30 * time.Minute, 29 * time.Minute, 2 * time.Minute} {
		now = now.Add(step)
		if _, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"}); err != nil {
			t.Fatal(err)
		}
	}
	if hits.Load() != 2 {
		t.Errorf("robots.txt fetched %d times over 61 minutes with a 1h TTL, want 2", hits.Load())
	}
}

func TestRobotsUnreachable(t *testing.T) {
	// A closed port: robots.txt cannot be fetched, so everything is
	// disallowed for now, and not permanently.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
	_, err = f.Fetch(t.Context(), Request{URL: "http://" + addr + "/page"})
	fe := wantClass(t, err, ClassRobots)
	if fe.Permanent {
		t.Errorf("robots refusal from an unreachable robots.txt marked permanent")
	}
	// The refusal names why robots.txt could not be read: a port nothing
	// listens on read as a robots.txt problem of the site.
	if !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("refusal %q does not say the connection was refused", err)
	}
	// A later URL of the host, answered from the cache, says the same.
	_, err = f.Fetch(t.Context(), Request{URL: "http://" + addr + "/other"})
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("cached refusal %v does not say the connection was refused", err)
	}
	// ... and that it is the remembered answer, until when: a server that
	// came up since looked down with no request sent (a new user's trial).
	if err == nil || !strings.Contains(err.Error(), "robots.txt asked at ") || !strings.Contains(err.Error(), "assuming complete disallow until ") {
		t.Errorf("cached refusal %v does not say when robots.txt was asked and until when its answer stands", err)
	}
	rules, err := f.Robots(t.Context(), "http://"+addr+"/")
	if err != nil || rules.Allowed("/page") {
		t.Errorf("Robots of an unreachable host: %v, allowed %v", err, rules.Allowed("/page"))
	}
	if d := f.CrawlDelay(t.Context(), "http://"+addr+"/", nil); d != 0 {
		t.Errorf("CrawlDelay = %v", d)
	}
}

func TestRobotsSharedByConcurrentFetches(t *testing.T) {
	release := make(chan struct{})
	var robotsHits atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsHits.Add(1)
			<-release
			io.WriteString(w, "User-agent: *\nDisallow: /no\n")
			return
		}
		fmt.Fprint(w, "page")
	}))
	f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.Fetch(t.Context(), Request{URL: fmt.Sprintf("%s/p%d", srv.URL, i)})
			errs <- err
		}()
	}
	for robotsHits.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if robotsHits.Load() != 1 {
		t.Errorf("robots.txt fetched %d times by 8 concurrent fetches, want 1", robotsHits.Load())
	}
}

func TestRobotsRedirected(t *testing.T) {
	var srvURL string
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.Redirect(w, r, srvURL+"/real-robots.txt", http.StatusMovedPermanently)
		case "/real-robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /blocked\n")
		default:
			fmt.Fprint(w, "page")
		}
	}))
	srvURL = srv.URL
	rules, err := newFetcher(t, nil).Robots(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if rules.Allowed("/blocked") || !rules.Allowed("/open") {
		t.Errorf("rules from a redirected robots.txt not applied")
	}
}

func TestRobotsDisabled(t *testing.T) {
	srv, hits := robotsServer(t, 200, "User-agent: *\nDisallow: /\nCrawl-delay: 9\n")
	f := newFetcher(t, nil) // RespectRobots false
	if _, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"}); err != nil {
		t.Fatal(err)
	}
	if d := f.CrawlDelay(t.Context(), srv.URL, nil); d != 0 || hits.Load() != 0 {
		t.Errorf("CrawlDelay %v, robots hits %d; want 0 and 0", d, hits.Load())
	}
}

func TestSSRF(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "secret")
	}))
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	guarded := func(c *Config) {
		c.AllowPrivateNetworks = false
		c.Resolve = map[string]string{
			"*.test": srv.Listener.Addr().String(),
			// Names whose address embeds 127.0.0.1 (6to4, NAT64): refused
			// at dial time as the address they embed would be.
			"*.six.test":   fmt.Sprintf("[2002:7f00:1::1]:%d", port),
			"*.nat64.test": fmt.Sprintf("[64:ff9b::7f00:1]:%d", port),
		}
	}
	for _, robotsOn := range []bool{false, true} {
		f := newFetcher(t, func(c *Config) { guarded(c); c.RespectRobots = robotsOn })
		for _, u := range []string{
			srv.URL + "/",                                       // IP literal, refused before dialling
			fmt.Sprintf("http://[::1]:%d/", port),               // IPv6 loopback literal
			fmt.Sprintf("http://www.site1.test:%d/", port),      // a name; refused at dial time
			fmt.Sprintf("http://[2002:7f00:1::1]:%d/", port),    // 6to4 of 127.0.0.1
			fmt.Sprintf("http://[2002:a00:1::]:%d/", port),      // 6to4 of 10.0.0.1
			fmt.Sprintf("http://[64:ff9b:1::7f00:1]:%d/", port), // local-use NAT64 of 127.0.0.1
			fmt.Sprintf("http://[fec0::1]:%d/", port),           // site-local
			fmt.Sprintf("http://www.six.test:%d/", port),
			fmt.Sprintf("http://www.nat64.test:%d/", port),
		} {
			_, err := f.Fetch(t.Context(), Request{URL: u})
			fe := wantClass(t, err, ClassSSRF)
			if !fe.Permanent {
				t.Errorf("%s: ssrf not permanent", u)
			}
			// Crawling a site on one's own machine is a common first
			// step; the refusal says which setting allows it.
			if !strings.Contains(err.Error(), "fetch.allow_private_networks") {
				t.Errorf("%s: ssrf error %q does not name fetch.allow_private_networks", u, err)
			}
		}
	}
	if hits.Load() != 0 {
		t.Errorf("guarded fetcher reached the loopback server %d times", hits.Load())
	}
}

func TestIsBlockedIP(t *testing.T) {
	tests := []struct {
		ip      string
		blocked bool
	}{
		{"127.0.0.1", true}, {"127.255.0.9", true}, {"::1", true},
		{"10.1.2.3", true}, {"172.16.0.1", true}, {"172.31.255.255", true}, {"192.168.1.1", true},
		{"fc00::1", true}, {"fd12:3456::1", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fe80::1%eth0", true},
		{"0.0.0.0", true}, {"::", true}, {"0.1.2.3", true},
		{"224.0.0.1", true}, {"239.1.1.1", true}, {"ff02::1", true}, {"255.255.255.255", true},
		{"100.64.0.1", true}, {"100.127.255.255", true},
		{"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true}, {"64:ff9b::a00:1", true},
		{"8.8.8.8", false}, {"1.1.1.1", false}, {"172.32.0.1", false}, {"100.128.0.1", false},
		{"2001:4860:4860::8888", false}, {"::ffff:8.8.8.8", false}, {"64:ff9b::808:808", false},
		// The well-known NAT64 prefix embeds an IPv4 address in its last
		// 32 bits, checked as that address.
		{"64:ff9b::7f00:1", true}, {"64:ff9b::a9fe:a9fe", true}, {"64:ff9b::c0a8:101", true},
		{"64:ff9b::6440:1", true},
		// Local-use NAT64 (RFC 8215), a site's own translator, read as /96
		// prefixes: judged by the IPv4 address in the last 32 bits (an
		// IPv6-only network's worker reaches IPv4-only sites through it).
		{"64:ff9b:1::808:808", false}, {"64:ff9b:1:ab::808:808", false}, {"64:ff9b:1::a00:1", true},
		{"64:ff9b:1:ffff::7f00:1", true}, {"64:ff9b:1:ffff::1", true},
		{"64:ff9b:2::808:808", false},
		// 6to4 embeds an IPv4 address in bits 16-47.
		{"2002:7f00:1::", true}, {"2002:7f00:1::1", true}, {"2002:a00:1::", true},
		{"2002:c0a8:101:1::1", true}, {"2002:a9fe:a9fe::", true}, {"2002::", true},
		{"2002:ac10:1::", true}, {"2002:6440:1::", true}, {"2002:e000:1::", true},
		{"2002:808:808::1", false}, {"2002:101:101:ffff::", false},
		// Deprecated site-local (RFC 3879), still private where it is used.
		{"fec0::1", true}, {"feff:ffff::1", true}, {"fec0::1%eth0", true},
		{"fbff::1", false}, {"2001:db9::1", false},
		// IPv4-compatible (deprecated): a sit tunnel sends it to the IPv4
		// address it ends with; no public host has one.
		{"::7f00:1", true}, {"::a00:1", true}, {"::808:808", true}, {"::1:0:0:1", false},
		// IPv4-translated (SIIT): judged by the IPv4 address it ends with.
		{"::ffff:0:7f00:1", true}, {"::ffff:0:a00:1", true}, {"::ffff:0:808:808", false},
		// Teredo relays to an IPv4 client; discard-only; documentation.
		{"2001::1", true}, {"2001:0:4136:e378:8000:63bf:3fff:fdd2", true},
		{"2001:1::1", false}, {"100::1", true}, {"100:0:0:1::1", false},
		{"2001:db8::1", true}, {"192.0.2.1", true}, {"198.51.100.7", true},
		{"203.0.113.9", true}, {"203.0.114.1", false},
		{"3fff::1", true}, {"3fff:fff:ffff::1", true}, {"3fff:1000::1", false},
		{"2001:2::1", true}, {"2001:2:0:ffff::1", true}, {"2001:3::1", false},
	}
	for _, tt := range tests {
		if got := isBlockedIP(netip.MustParseAddr(tt.ip)); got != tt.blocked {
			t.Errorf("isBlockedIP(%s) = %v, want %v", tt.ip, got, tt.blocked)
		}
	}
}

func TestResolveOverride(t *testing.T) {
	var hosts sync.Map
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if strings.HasPrefix(r.Host, "blocked.") {
				io.WriteString(w, "User-agent: *\nDisallow: /\n")
			} else {
				w.WriteHeader(404)
			}
			return
		}
		hosts.Store(r.Host, true)
		fmt.Fprintf(w, "<html><body>host %s</body></html>", r.Host)
	}))
	addr := srv.Listener.Addr().String()
	f := newFetcher(t, func(c *Config) {
		c.RespectRobots = true
		c.Resolve = map[string]string{"*.test": addr, "exact.example:8080": addr, "plain.example": addr}
	})
	for _, tc := range []struct{ url, host string }{
		{"http://www.site1.test/", "www.site1.test"},
		{"http://WWW.Site2.TEST/page", "www.site2.test"},
		{"http://exact.example:8080/", "exact.example:8080"},
		{"http://plain.example/", "plain.example"},
	} {
		resp, err := f.Fetch(t.Context(), Request{URL: tc.url})
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if want := "host " + tc.host; !strings.Contains(string(resp.Body), want) {
			t.Errorf("%s: body %q lacks %q", tc.url, resp.Body, want)
		}
	}
	// robots.txt is per virtual host.
	_, err := f.Fetch(t.Context(), Request{URL: "http://blocked.test/page"})
	wantClass(t, err, ClassRobots)
}

func TestResolverLookup(t *testing.T) {
	r, err := newResolver(map[string]string{
		"*.test": "127.0.0.1:1", "*.deep.test": "127.0.0.1:2", "host.example": "127.0.0.1:3",
		"host.example:8443": "[::1]:4",
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ addr, want string }{
		{"a.test:80", "127.0.0.1:1"},
		{"x.deep.test:80", "127.0.0.1:2"},
		{"deep.test:80", "127.0.0.1:1"},
		{"test:80", ""},
		{"host.example:80", "127.0.0.1:3"},
		{"HOST.example:8443", "[::1]:4"},
		{"other.example:80", ""},
		{"atest:80", ""},
	}
	for _, tt := range tests {
		got, _ := r.lookup(tt.addr)
		if got != tt.want {
			t.Errorf("lookup(%q) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

func TestTLSFailure(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	// The test server's certificate is self-signed: verification fails.
	_, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
	fe := wantClass(t, err, ClassTLS)
	if fe.Permanent {
		t.Errorf("tls marked permanent")
	}
}

func TestConnectFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = newFetcher(t, func(c *Config) { c.Retries = 1 }).Fetch(t.Context(), Request{URL: "http://" + addr + "/"})
	wantClass(t, err, ClassConnect)
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
		field  string // must appear in the error
	}{
		{"empty user agent", func(c *Config) { c.UserAgent = " " }, "UserAgent"},
		{"user agent with newline", func(c *Config) { c.UserAgent = "a\r\nX-Evil: 1" }, "UserAgent"},
		{"zero connect timeout", func(c *Config) { c.ConnectTimeout = 0 }, "ConnectTimeout"},
		{"negative read timeout", func(c *Config) { c.ReadTimeout = -time.Second }, "ReadTimeout"},
		{"negative redirects", func(c *Config) { c.MaxRedirects = -1 }, "MaxRedirects"},
		{"zero body limit", func(c *Config) { c.MaxBodyBytes = 0 }, "MaxBodyBytes"},
		{"no content types", func(c *Config) { c.ContentTypes = nil }, "ContentTypes"},
		{"content type with params", func(c *Config) { c.ContentTypes = []string{"text/html; charset=utf-8"} }, "ContentTypes"},
		{"content type without slash", func(c *Config) { c.ContentTypes = []string{"html"} }, "ContentTypes"},
		{"negative retries", func(c *Config) { c.Retries = -1 }, "Retries"},
		{"negative base delay", func(c *Config) { c.RetryBaseDelay = -1 }, "RetryBaseDelay"},
		{"max below base", func(c *Config) { c.RetryBaseDelay = time.Second; c.RetryMaxDelay = time.Millisecond }, "RetryMaxDelay"},
		{"no robots TTL", func(c *Config) { c.RespectRobots = true; c.RobotsTTL = 0 }, "RobotsTTL"},
		{"resolve target not ip:port", func(c *Config) { c.Resolve = map[string]string{"*.test": "localhost:80"} }, "Resolve"},
		{"resolve target without port", func(c *Config) { c.Resolve = map[string]string{"*.test": "127.0.0.1"} }, "Resolve"},
		{"resolve empty wildcard", func(c *Config) { c.Resolve = map[string]string{"*.": "127.0.0.1:80"} }, "Resolve"},
		{"resolve bad key", func(c *Config) { c.Resolve = map[string]string{"a*b": "127.0.0.1:80"} }, "Resolve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			tt.mutate(&cfg)
			f, err := New(cfg)
			if err == nil {
				t.Fatalf("New accepted a bad config: %+v", f.cfg)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("error %q does not name %s", err, tt.field)
			}
		})
	}
	t.Run("several problems reported at once", func(t *testing.T) {
		cfg := testConfig()
		cfg.ReadTimeout, cfg.MaxBodyBytes = 0, 0
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), "ReadTimeout") || !strings.Contains(err.Error(), "MaxBodyBytes") {
			t.Fatalf("error %v should name both fields", err)
		}
	})
	t.Run("defaults are valid", func(t *testing.T) {
		if _, err := New(DefaultConfig()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestClassOf(t *testing.T) {
	fe := newError("http://x/", ClassDNS, errors.New("no such host"))
	tests := []struct {
		err  error
		want Class
	}{
		{nil, ""},
		{errors.New("plain"), ClassOther},
		{fe, ClassDNS},
		{fmt.Errorf("activity: %w", fe), ClassDNS},
	}
	for _, tt := range tests {
		if got := ClassOf(tt.err); got != tt.want {
			t.Errorf("ClassOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	cause := errors.New("root cause")
	e := newError("http://x/y", ClassTimeout, cause)
	if !errors.Is(e, cause) {
		t.Errorf("Unwrap does not reach the cause")
	}
	if msg := e.Error(); !strings.Contains(msg, "http://x/y") || !strings.Contains(msg, "timeout") || !strings.Contains(msg, "root cause") {
		t.Errorf("Error() = %q", msg)
	}
}

func TestClassify(t *testing.T) {
	live := context.Background()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), -time.Second)
	defer cancel2()
	dialErr := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	tests := []struct {
		name        string
		ctx, actx   context.Context
		err         error
		readingBody bool
		want        Class
		retry       bool
	}{
		{"ssrf at dial", live, live, dialErr(&errSSRF{addr: "127.0.0.1:80"}), false, ClassSSRF, false},
		{"caller canceled", canceled, canceled, context.Canceled, false, ClassCanceled, false},
		{"attempt deadline", live, expired, context.DeadlineExceeded, true, ClassTimeout, true},
		{"no such host", live, live, &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, false, ClassDNS, false},
		{"temporary DNS failure", live, live, &net.DNSError{Err: "server misbehaving", Name: "x", IsTemporary: true}, false, ClassDNS, true},
		{"certificate", live, live, x509.UnknownAuthorityError{}, false, ClassTLS, false},
		{"connection refused", live, live, dialErr(syscall.ECONNREFUSED), false, ClassConnect, true},
		{"reset mid-body", live, live, syscall.ECONNRESET, true, ClassBodyRead, true},
		{"EOF before response", live, live, io.EOF, false, ClassConnect, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := classify(tt.ctx, tt.actx, "http://x/", tt.err, tt.readingBody)
			if e.Class != tt.want || retryable(e) != tt.retry {
				t.Fatalf("class %s retryable %v, want %s %v", e.Class, retryable(e), tt.want, tt.retry)
			}
			if !errors.Is(e, tt.err) {
				t.Fatalf("cause not wrapped")
			}
		})
	}
}

func TestPermanentClasses(t *testing.T) {
	perm := []Class{ClassRobots, ClassSSRF, ClassBadURL, ClassTooLarge, ClassContentType, ClassBinary,
		ClassRedirectLoop, ClassTooManyRedirects, ClassHTTPClient}
	transient := []Class{ClassDNS, ClassConnect, ClassTimeout, ClassTLS, ClassHTTPServer, ClassBodyRead, ClassCanceled}
	for _, c := range perm {
		if !newError("u", c, nil).Permanent {
			t.Errorf("%s should be permanent", c)
		}
	}
	for _, c := range transient {
		if newError("u", c, nil).Permanent {
			t.Errorf("%s should not be permanent", c)
		}
	}
}

func TestMetaCharset(t *testing.T) {
	tests := []struct{ head, want string }{
		{`<meta charset="GBK">`, "gbk"},
		{`<META CHARSET=big5>`, "big5"},
		{`<meta http-equiv="Content-Type" content="text/html; charset=gb2312">`, "gbk"},
		{`<meta content="text/html;charset=gb18030" http-equiv="content-type">`, "gb18030"},
		{`<meta http-equiv="content-type" content="text/html; charset=">`, ""},
		{`<meta content="text/html; charset=gbk">`, ""}, // no http-equiv: not a declaration
		{`<meta charset="utf-16">`, "utf-8"},
		{`<meta charset="no-such">`, ""},
		{`<meta http-equiv="Content-Type" content="text/html; charset='gbk'">`, "gbk"},
		{`<meta charset=" big5 ">`, "big5"},
		{`<p>no meta at all</p>`, ""},
	}
	for _, tt := range tests {
		_, got := metaCharset([]byte(tt.head))
		if got != tt.want {
			t.Errorf("metaCharset(%q) = %q, want %q", tt.head, got, tt.want)
		}
	}
}

func BenchmarkFetch(b *testing.B) {
	page := []byte("<html><head><meta charset=utf-8><title>bench</title></head><body>" +
		strings.Repeat("<p>基准测试的网页内容 benchmark page content</p>\n", 200) + "</body></html>")
	srv := newServer(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(page)
	}))
	f := newFetcher(b, nil)
	ctx := context.Background()
	b.SetBytes(int64(len(page)))
	b.ResetTimer()
	for b.Loop() {
		resp, err := f.Fetch(ctx, Request{URL: srv.URL + "/bench"})
		if err != nil || len(resp.Body) != len(page) {
			b.Fatalf("fetch: %v", err)
		}
	}
}

// TestPace: every request after a fetch's first — a retry, a redirect hop,
// the robots.txt of a hop's uncached host — is announced to Request.Pace
// before it is sent, in order; the first request is the caller's to space.
func TestPace(t *testing.T) {
	var log requestLog
	note := log.note
	var tries atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		note("sent " + r.Host + r.URL.Path)
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow:\n")
		case "/start":
			http.Redirect(w, r, "/flaky", http.StatusFound)
		case "/flaky":
			if tries.Add(1) == 1 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			http.Redirect(w, r, "http://other.test/end", http.StatusMovedPermanently)
		default:
			fmt.Fprint(w, "end")
		}
	}))
	f := newFetcher(t, func(c *Config) {
		c.Retries = 1
		c.RespectRobots = true
		c.Resolve = map[string]string{"*.test": srv.Listener.Addr().String()}
	})
	start := "http://first.test/start"
	if _, err := f.Robots(t.Context(), start); err != nil { // the caller's first request
		t.Fatal(err)
	}
	log.reset()
	resp, err := f.Fetch(t.Context(), Request{URL: start, Pace: func(_ context.Context, target string) error {
		u, _ := url.Parse(target)
		note("paced " + u.Host + u.Path)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinalURL != "http://other.test/end" {
		t.Fatalf("FinalURL = %s", resp.FinalURL)
	}
	want := []string{
		"sent first.test/start",
		"paced first.test/flaky", "sent first.test/flaky", // redirect hop, same host
		"paced first.test/flaky", "sent first.test/flaky", // its retry
		"paced other.test/robots.txt", "sent other.test/robots.txt", // a new host's robots.txt
		"paced other.test/end", "sent other.test/end",
	}
	if seen := log.lines(); !slices.Equal(seen, want) {
		t.Errorf("requests:\n got %q\nwant %q", seen, want)
	}

	// A Pace error ends the fetch as canceled, before the request is sent.
	tries.Store(0)
	_, err = f.Fetch(t.Context(), Request{URL: start, Pace: func(context.Context, string) error {
		return errors.New("slot refused")
	}})
	if fe := wantClass(t, err, ClassCanceled); !strings.Contains(fe.Error(), "slot refused") {
		t.Errorf("error = %v, want the Pace error in it", fe)
	}
	if tries.Load() != 0 {
		t.Errorf("the hop after a refused Pace was sent (%d tries)", tries.Load())
	}
}

// requestLog records "paced X" and "sent X" lines in order, from the test
// server's handler and the Pace hook alike.
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *requestLog) note(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, s)
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = nil
}

func (l *requestLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// TestPaceRobotsRedirects: robots.txt's own redirect hops are requests to
// the hosts they name, so they wait for Pace too — when CrawlDelay reads
// robots.txt and when a page's redirect leads to a host whose robots.txt
// redirects.
func TestPaceRobotsRedirects(t *testing.T) {
	var log requestLog
	note := log.note
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		note("sent " + r.Host + r.URL.Path)
		switch {
		case r.URL.Path == "/robots.txt" && r.Host != "cdn.test":
			http.Redirect(w, r, "http://cdn.test/robots.txt", http.StatusMovedPermanently)
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 2\n")
		case r.URL.Path == "/start":
			http.Redirect(w, r, "http://other.test/end", http.StatusFound)
		default:
			fmt.Fprint(w, "end")
		}
	}))
	f := newFetcher(t, func(c *Config) {
		c.RespectRobots = true
		c.Resolve = map[string]string{"*.test": srv.Listener.Addr().String()}
	})
	paced := func(_ context.Context, target string) error {
		u, _ := url.Parse(target)
		note("paced " + u.Host + u.Path)
		return nil
	}
	if d := f.CrawlDelay(t.Context(), "http://first.test/start", paced); d != 2*time.Second {
		t.Fatalf("CrawlDelay through a redirected robots.txt = %v, want 2s", d)
	}
	if _, err := f.Fetch(t.Context(), Request{URL: "http://first.test/start", Pace: paced}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"sent first.test/robots.txt",                            // the caller booked this one
		"paced cdn.test/robots.txt", "sent cdn.test/robots.txt", // robots.txt's redirect hop
		"sent first.test/start",
		"paced other.test/robots.txt", "sent other.test/robots.txt", // the page's hop's host
		"paced cdn.test/robots.txt", "sent cdn.test/robots.txt", // and its robots.txt's hop
		"paced other.test/end", "sent other.test/end",
	}
	if seen := log.lines(); !slices.Equal(seen, want) {
		t.Errorf("requests:\n got %q\nwant %q", seen, want)
	}
}

// TestCorruptGzip: a gzip body that does not decode (a bad header, corrupt
// data) fails as bad_encoding, permanent and not retried — the same bytes
// would fail again — while a gzip stream cut short stays body_read, which a
// later attempt may cure, and trailing garbage after a whole gzip member is
// ignored, as browsers do.
func TestCorruptGzip(t *testing.T) {
	var good bytes.Buffer
	zw := gzip.NewWriter(&good)
	io.WriteString(zw, "<html><body>"+strings.Repeat("roses ", 2000)+"</body></html>")
	zw.Close()
	corrupt := append([]byte(nil), good.Bytes()...)
	for i := 20; i < 60; i++ {
		corrupt[i] ^= 0xff
	}
	tests := []struct {
		name      string
		body      []byte
		class     Class
		permanent bool
	}{
		{"not gzip at all", []byte("plain text, not a gzip stream"), ClassEncoding, true},
		{"corrupt data", corrupt, ClassEncoding, true},
		{"cut short", good.Bytes()[:good.Len()/2], ClassBodyRead, false},
		{"trailing garbage after a whole member", append(append([]byte(nil), good.Bytes()...), "\r\n<!-- junk -->"...), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(tt.body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
			if tt.class == "" {
				if err != nil || !strings.HasSuffix(string(resp.Body), "</body></html>") {
					t.Fatalf("Fetch = %v; want the whole first member's page", err)
				}
				return
			}
			var fe *Error
			if !errors.As(err, &fe) || fe.Class != tt.class || fe.Permanent != tt.permanent {
				t.Fatalf("Fetch = %v; want class %s, permanent %v", err, tt.class, tt.permanent)
			}
			if n := requests.Load(); tt.permanent && n != 1 {
				t.Errorf("%d requests for a body that cannot decode; want 1 (no retry)", n)
			}
		})
	}
}

// TestBadResponse: a server whose response is not usable HTTP — headers
// over the transport's 1 MiB limit, bytes that are not an HTTP response, or
// framing net/http cannot follow (bad headers, lengths, chunks) — fails as
// bad_response, permanent and not retried; a connection closed before any
// response stays a (retried) connect error, and one cut short in the body a
// (retried) body_read.
func TestBadResponse(t *testing.T) {
	tests := []struct {
		name      string
		reply     func(c net.Conn)
		class     Class
		permanent bool
	}{
		{"headers over 1 MiB", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n")
			for range 1200 {
				io.WriteString(c, "X-Filler: "+strings.Repeat("x", 1000)+"\r\n")
			}
			io.WriteString(c, "\r\n<html></html>")
		}, ClassBadResponse, true},
		{"not HTTP", func(c net.Conn) { io.WriteString(c, "SSH-2.0-OpenSSH_9.2\r\nnot a web server\r\n\r\n") }, ClassBadResponse, true},
		// Framing net/http cannot follow: each was a connect or body_read
		// error, retried at once and kept as a transient failure.
		{"header line without a colon", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nGarbage line\r\nContent-Length: 5\r\n\r\nhello")
		}, ClassBadResponse, true},
		{"Content-Length not a number", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: abc\r\n\r\nhello")
		}, ClassBadResponse, true},
		{"two Content-Lengths that differ", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello")
		}, ClassBadResponse, true},
		{"unsupported Transfer-Encoding", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
		}, ClassBadResponse, true},
		{"chunk size not hex", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")
		}, ClassBadResponse, true},
		{"cut short after Content-Length promised more", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 500\r\n\r\nhello")
		}, ClassBodyRead, false},
		{"closed at once", func(c net.Conn) {}, ClassConnect, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			var conns atomic.Int32
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					conns.Add(1)
					go func() {
						defer c.Close()
						bufio.NewReader(c).ReadString('\n') // the request line
						tt.reply(c)
					}()
				}
			}()
			_, err = newFetcher(t, func(c *Config) { c.Retries = 1 }).Fetch(t.Context(), Request{URL: "http://" + ln.Addr().String() + "/"})
			fe := wantClass(t, err, tt.class)
			if fe.Permanent != tt.permanent {
				t.Errorf("permanent = %v; want %v (%v)", fe.Permanent, tt.permanent, err)
			}
			if n := conns.Load(); tt.permanent && n != 1 {
				t.Errorf("%d connections; want 1 (no retry)", n)
			}
		})
	}
}

// TestUnaskedContentEncoding: a body in an encoding the crawler does not ask
// for or decode (deflate here) fails as bad_encoding naming it, not as a
// binary body; a bogus Content-Encoding on a plain body is ignored.
func TestUnaskedContentEncoding(t *testing.T) {
	var deflated bytes.Buffer
	zw, _ := flate.NewWriter(&deflated, flate.BestSpeed)
	io.WriteString(zw, "<html><body>"+strings.Repeat("roses ", 500)+"</body></html>")
	zw.Close()
	for _, tt := range []struct {
		name, encoding string
		body           []byte
		class          Class
	}{
		{"deflate", "deflate", deflated.Bytes(), ClassEncoding},
		{"bogus value on a plain body", "utf-8", []byte("<html><body>plain roses</body></html>"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Encoding", tt.encoding)
				w.Write(tt.body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
			if tt.class == "" {
				if err != nil || !strings.Contains(string(resp.Body), "plain roses") {
					t.Fatalf("Fetch = %v; want the plain body", err)
				}
				return
			}
			if fe := wantClass(t, err, tt.class); !strings.Contains(fe.Error(), tt.encoding) {
				t.Errorf("error %v does not name the encoding %q", err, tt.encoding)
			}
		})
	}
}

// TestGzipTwice: a page gzipped twice (an application's gzip under a web
// server's), labelled "gzip, gzip" or with the header sent twice, is read
// as browsers read it; decoded once it failed as binary. A list with a
// coding the crawler does not decode still fails naming the whole list;
// an inner layer that is not gzip is the page, as before.
func TestGzipTwice(t *testing.T) {
	page := []byte("<html><body>twice compressed roses</body></html>")
	gzipped := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	for _, tt := range []struct {
		name     string
		encoding []string
		body     []byte
		class    Class
	}{
		{"one list", []string{"gzip, gzip"}, gzipped(gzipped(page)), ""},
		{"header twice", []string{"gzip", "x-gzip"}, gzipped(gzipped(page)), ""},
		{"identity in the list", []string{"gzip, identity"}, gzipped(page), ""},
		{"labelled twice, gzipped once", []string{"gzip", "gzip"}, gzipped(page), ""},
		{"labelled twice, not gzip", []string{"gzip", "gzip"}, page, ClassEncoding},
		{"another coding in the list", []string{"gzip", "br"}, gzipped(page), ClassEncoding},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Header()["Content-Encoding"] = tt.encoding
				w.Write(tt.body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
			if tt.class == "" {
				if err != nil || !strings.Contains(string(resp.Body), "twice compressed roses") {
					t.Fatalf("Fetch = %v; want the page", err)
				}
				return
			}
			if fe := wantClass(t, err, tt.class); !strings.Contains(fe.Error(), strings.Join(tt.encoding, ", ")) {
				t.Errorf("error %v does not name the codings %q", err, tt.encoding)
			}
		})
	}
}

// TestContentTypeCommaList: a Content-Type written with a comma
// where the semicolon belongs ("text/html, charset=utf-8"), or a value a
// proxy merged from two headers ("text/html, text/html"), is HTML to a
// browser (Fetch's "extract a MIME type" splits on commas). The crawler
// refuses the page for good as content_type.
func TestContentTypeCommaList(t *testing.T) {
	for _, ct := range []string{"text/html, charset=utf-8", "text/html, text/html", "text/html charset=utf-8"} {
		t.Run(ct, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", ct)
				w.Write([]byte("<!DOCTYPE html><html><body>hello world</body></html>"))
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
			if err != nil {
				t.Fatalf("Fetch with Content-Type %q: %v", ct, err)
			}
			if resp.ContentType != "text/html" {
				t.Errorf("ContentType = %q, want text/html", resp.ContentType)
			}
		})
	}
}
