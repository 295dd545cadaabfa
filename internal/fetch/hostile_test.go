package fetch

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// TestUndeclaredLegacyCharsets: pages that declare nothing are detected as
// the WHATWG standard allows a user agent to (guessing from the bytes), not
// taken for GBK whenever the bytes happen to be valid GBK. GBK decodes with
// the gb18030 decoder, so four-byte sequences survive.
func TestUndeclaredLegacyCharsets(t *testing.T) {
	cases := []struct {
		name        string
		body        func(t *testing.T) []byte
		wantCharset string
		wantText    string
	}{
		{"Big5", func(t *testing.T) []byte {
			return mustEncode(t, traditionalchinese.Big5, "<html><body><p>這是一個沒有宣告編碼的繁體中文網頁，我們在臺灣寫的，內容說明了網站的服務與會員資訊。</p></body></html>")
		}, "big5", "這是一個沒有宣告編碼的繁體中文網頁"},
		{"Shift_JIS", func(t *testing.T) []byte {
			return mustEncode(t, japanese.ShiftJIS, "<html><body><p>これは文字コードを宣言していない日本語のページです。ひらがなとカタカナがたくさんあります。</p></body></html>")
		}, "shift_jis", "これは文字コードを宣言していない日本語のページです"},
		{"EUC-KR", func(t *testing.T) []byte {
			return mustEncode(t, korean.EUCKR, "<html><body><p>이것은 인코딩을 선언하지 않은 한국어 웹 페이지입니다. 내용이 충분히 깁니다.</p></body></html>")
		}, "euc-kr", "이것은 인코딩을 선언하지 않은 한국어 웹 페이지입니다"},
		{"GBK", func(t *testing.T) []byte {
			return mustEncode(t, simplifiedchinese.GBK, "<html><body><p>这是一个没有声明编码的简体中文网页，我们的内容足够长。</p></body></html>")
		}, "gbk", "这是一个没有声明编码的简体中文网页"},
		{"GBK, short, few of the most common characters", func(t *testing.T) []byte {
			// Its characters' bytes are valid EUC-KR Hangul: read as any
			// syllable being plausible Korean, it came out as Korean.
			return mustEncode(t, simplifiedchinese.GBK, "<html><body><p>春天修剪玫瑰，玫瑰喜欢肥沃的土壤。修剪玫瑰的方法。</p></body></html>")
		}, "gbk", "春天修剪玫瑰"},
		{"GBK, short, image filters", func(t *testing.T) []byte {
			return mustEncode(t, simplifiedchinese.GBK, "<html><body><p>高斯模糊滤镜使图像变得柔和，锐化滤镜使边缘清晰。</p></body></html>")
		}, "gbk", "高斯模糊滤镜"},
		{"EUC-KR, short", func(t *testing.T) []byte {
			return mustEncode(t, korean.EUCKR, "<html><body><p>서울의 날씨는 오늘 맑고 따뜻합니다.</p></body></html>")
		}, "euc-kr", "서울의 날씨는"},
		{"EUC-KR, loanwords", func(t *testing.T) []byte {
			return mustEncode(t, korean.EUCKR, "<html><head><title>디지털 카메라</title></head><body>렌즈 | 키보드 | 헤드폰 | 스피커 | 메모리 카드</body></html>")
		}, "euc-kr", "디지털 카메라"},
		{"GB18030 four-byte sequence", func(t *testing.T) []byte {
			return mustEncode(t, simplifiedchinese.GB18030, "<html><body><p>这个页面有一个四字节字符\U00020000和表情\U0001F600，它们不能变成替换字符。</p></body></html>")
		}, "gbk", "四字节字符\U00020000和表情\U0001F600"},
		{"GB18030 bytes in a page that says gb2312", func(t *testing.T) []byte {
			return mustEncode(t, simplifiedchinese.GB18030, "<html><head><meta charset=\"gb2312\"></head><body>声明为国标的页面里有\U00020000字符</body></html>")
		}, "gbk", "有\U00020000字符"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body(t)
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Write(body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Charset != tc.wantCharset || !strings.Contains(string(resp.Body), tc.wantText) {
				t.Errorf("Charset %q, body %q; want %q containing %q", resp.Charset, resp.Body, tc.wantCharset, tc.wantText)
			}
		})
	}
}

// TestMislabelledCharsets: a label that the bytes contradict is not obeyed
// (trial on a GBK copy of LilyPond's Chinese manual: a page whose <meta> or
// header said utf-8 over GBK bytes was indexed as mojibake, titles included),
// and the response says which label was overridden and why. A UTF-8 page
// with a few bad bytes keeps its label: only a decoding that reads as text
// replaces it.
func TestMislabelledCharsets(t *testing.T) {
	const text = "LilyPond 学习手册: 2.3.2 常见的错误。有一些常见的错误，仅仅是错误信息也很难解决这些问题。"
	page := func(meta string) string {
		return "<html><head>" + meta + "<title>常见的错误</title></head><body><p>" + text + "</p></body></html>"
	}
	gbk := func(t *testing.T, s string) []byte { return mustEncode(t, simplifiedchinese.GBK, s) }
	cases := []struct {
		name        string
		contentType string
		body        func(t *testing.T) []byte
		wantCharset string
		wantText    string
		wantNote    string // a part of CharsetNote; "" = no note
	}{
		{"meta says utf-8 over GBK bytes", "text/html",
			func(t *testing.T) []byte { return gbk(t, page(`<meta charset="utf-8">`)) },
			"gbk", text, "<meta> declares utf-8"},
		{"header says utf-8 over GBK bytes", "text/html; charset=utf-8",
			func(t *testing.T) []byte { return gbk(t, page("")) },
			"gbk", text, "Content-Type declares utf-8"},
		{"header says utf-8, meta says gbk", "text/html; charset=utf-8",
			func(t *testing.T) []byte { return gbk(t, page(`<meta charset="gbk">`)) },
			"gbk", text, "Content-Type declares utf-8"},
		{"header and meta say utf-8 over GBK bytes", "text/html; charset=UTF-8",
			func(t *testing.T) []byte {
				return gbk(t, page(`<meta http-equiv="Content-Type" content="text/html; charset=utf-8">`))
			},
			"gbk", text, "Content-Type declares utf-8"},
		{"header says gbk over UTF-8 bytes", "text/html; charset=gbk",
			func(*testing.T) []byte { return []byte(page("")) },
			"utf-8", text, "Content-Type declares gbk"},
		{"meta says gb2312 over UTF-8 bytes", "text/html",
			func(*testing.T) []byte { return []byte(page(`<meta charset="gb2312">`)) },
			"utf-8", text, "<meta> declares gbk"},
		{"UTF-8 with a stray byte keeps its label", "text/html; charset=utf-8",
			func(*testing.T) []byte { return []byte(page("") + "\xff") },
			"utf-8", text, ""},
		{"UTF-8 cut inside its last character keeps its label", "text/html; charset=utf-8",
			func(*testing.T) []byte { b := []byte(page("") + "末尾"); return b[:len(b)-1] },
			"utf-8", text, ""},
		{"GBK label over ASCII-only bytes is no contradiction", "text/html; charset=gbk",
			func(*testing.T) []byte { return []byte("<html><body>plain ASCII page</body></html>") },
			"gbk", "plain ASCII page", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body(t)
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.Write(body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Charset != tc.wantCharset || !strings.Contains(string(resp.Body), tc.wantText) {
				t.Errorf("Charset %q, body %q; want %q containing %q", resp.Charset, resp.Body, tc.wantCharset, tc.wantText)
			}
			if tc.wantNote == "" && resp.CharsetNote != "" || !strings.Contains(resp.CharsetNote, tc.wantNote) {
				t.Errorf("CharsetNote %q, want one containing %q", resp.CharsetNote, tc.wantNote)
			}
		})
	}
}

// TestUnparsableLocationIsBadURL: a Location the URL parser refuses used to
// fail inside net/http's client and come back as a connect error, which is
// retried; it is a permanent bad_url after one request.
func TestUnparsableLocationIsBadURL(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Location", "http://[::1%zz/x")
		w.WriteHeader(http.StatusFound)
	}))
	f := newFetcher(t, func(c *Config) { c.Retries = 2 })
	_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/"})
	fe := wantClass(t, err, ClassBadURL)
	if !fe.Permanent || hits.Load() != 1 {
		t.Errorf("Permanent = %v after %d requests, want permanent after 1", fe.Permanent, hits.Load())
	}
}

// TestHugeMaxBodyBytes: MaxBodyBytes = MaxInt64 made the read limit wrap
// negative and every body came back empty.
func TestHugeMaxBodyBytes(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("the whole body"))
	}))
	for _, limit := range []int64{math.MaxInt64, math.MaxInt64 - 1} {
		resp, err := newFetcher(t, func(c *Config) { c.MaxBodyBytes = limit }).Fetch(t.Context(), Request{URL: srv.URL + "/"})
		if err != nil {
			t.Fatal(err)
		}
		if string(resp.Body) != "the whole body" {
			t.Errorf("MaxBodyBytes %d: body %q", limit, resp.Body)
		}
	}
}

// TestMaxFetchTimeCapsRedirectChains: every hop of a redirect chain is slow
// but each stays inside ReadTimeout, so only a cap on the whole fetch stops
// it. The last hop never answers; the fetch must end as a timeout naming
// MaxFetchTime, long before ReadTimeout could fire.
func TestMaxFetchTimeCapsRedirectChains(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hang":
			<-r.Context().Done() // until the client gives up
		default:
			http.Redirect(w, r, "/hang", http.StatusFound)
		}
	}))
	f := newFetcher(t, func(c *Config) {
		c.ReadTimeout = time.Hour
		c.MaxFetchTime = 50 * time.Millisecond
	})
	_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/start"})
	fe := wantClass(t, err, ClassTimeout)
	if !strings.Contains(fe.Error(), "MaxFetchTime") || fe.Permanent {
		t.Errorf("error %v: want a non-permanent timeout naming MaxFetchTime", fe)
	}
}

// TestMaxFetchTimeExcludesPaceWaits: the time a fetch waits for a hop's
// politeness slot (Request.Pace) does not count against MaxFetchTime — a
// redirect to a host with a long Crawl-delay must not time out for being
// polite — while the fetch's own time still does (the hanging hop times
// out, pace or not).
func TestMaxFetchTimeExcludesPaceWaits(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/start":
			http.Redirect(w, r, "/end", http.StatusFound)
		case "/slow-start":
			http.Redirect(w, r, "/hang", http.StatusFound)
		case "/hang":
			<-r.Context().Done()
		default:
			fmt.Fprint(w, "end")
		}
	}))
	f := newFetcher(t, func(c *Config) {
		c.ReadTimeout = time.Hour
		c.MaxFetchTime = 500 * time.Millisecond
	})
	slowSlot := func(ctx context.Context, _ string) error {
		select { // a slot booked 800 ms ahead: longer than the whole budget
		case <-time.After(800 * time.Millisecond):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/start", Pace: slowSlot})
	if err != nil {
		t.Fatalf("fetch whose redirect waited 800 ms for its slot (MaxFetchTime 500 ms): %v", err)
	}
	if string(resp.Body) != "end" {
		t.Errorf("body %q, want end", resp.Body)
	}
	_, err = f.Fetch(t.Context(), Request{URL: srv.URL + "/slow-start", Pace: slowSlot})
	if fe := wantClass(t, err, ClassTimeout); !strings.Contains(fe.Error(), "MaxFetchTime") {
		t.Errorf("error %v: want the hanging hop to time out on MaxFetchTime after its slot", fe)
	}
}

// TestGuessSampleNeverSplitsACharacter: a long undeclared page is judged on
// its first 64 KiB, cut where no multi-byte character can be split.
func TestGuessSampleNeverSplitsACharacter(t *testing.T) {
	text := strings.Repeat("這是繁體中文的網頁內容，說明玫瑰的種植。\n", 4000) // > 64 KiB in Big5
	body := mustEncode(t, traditionalchinese.Big5, text)
	if len(body) <= guessSampleBytes {
		t.Fatalf("test page only %d bytes", len(body))
	}
	s := guessSample(body)
	if len(s) > guessSampleBytes || s[len(s)-1] != '\n' {
		t.Fatalf("sample of %d bytes ends in %q", len(s), s[len(s)-1])
	}
	if got := guessLegacy(body); got != "big5" {
		t.Fatalf("guessLegacy = %q, want big5", got)
	}
}

// utf16Bytes encodes s as UTF-16 without a BOM.
func utf16Bytes(s string, bigEndian bool) []byte {
	var b []byte
	for _, r := range s { // BMP only
		if bigEndian {
			b = append(b, byte(r>>8), byte(r))
		} else {
			b = append(b, byte(r), byte(r>>8))
		}
	}
	return b
}

// TestCharsetLabelsThatWouldLoseTheText: a charset label that cannot
// describe the bytes used to be obeyed, and the page's text was lost while
// the fetch reported success: "charset=utf-16" on ASCII-compatible bytes
// decoded them as CJK gibberish, and a label WHATWG maps to its
// "replacement" encoding (ISO-2022-KR, ISO-2022-CN, HZ) turned the whole
// body into one U+FFFD. Such a label is now ignored like an unknown one and
// the bytes are sniffed. Genuine BOM-less UTF-16 named by the header, which
// the NUL-byte guard used to refuse as binary, is decoded; binary data is
// still refused whatever its label says.
func TestCharsetLabelsThatWouldLoseTheText(t *testing.T) {
	const page = "<html><body><p>玫瑰的种植 rose growing</p></body></html>"
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{1, 2, 3}, 100)...)
	cases := []struct {
		name, contentType string
		body              []byte
		wantCharset       string // "" expects ClassBinary
	}{
		{"utf-16 header on UTF-8 bytes", "text/html; charset=utf-16", []byte(page), "utf-8"},
		{"utf-16be header on UTF-8 bytes", "text/html; charset=UTF-16BE", []byte(page), "utf-8"},
		{"replacement label in the header", "text/html; charset=iso-2022-kr", []byte(page), "utf-8"},
		{"replacement label in a meta element", "text/html", []byte(`<meta charset="hz-gb-2312">` + page), "utf-8"},
		{"BOM-less UTF-16LE named by the header", "text/html; charset=utf-16le", utf16Bytes(page, false), "utf-16le"},
		{"BOM-less UTF-16BE named by the header", "text/html; charset=utf-16be", utf16Bytes(page, true), "utf-16be"},
		{"PNG labelled UTF-16BE", "text/html; charset=utf-16be", png, ""},
		{"PNG labelled UTF-16LE", "text/html; charset=utf-16le", png, ""},
		{"NUL characters in UTF-16 with a BOM", "text/html", append([]byte{0xFF, 0xFE}, utf16Bytes("<p>\x00\x00\x00\x00</p>", false)...), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.Write(tc.body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
			if tc.wantCharset == "" {
				wantClass(t, err, ClassBinary)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Charset != tc.wantCharset || !strings.Contains(string(resp.Body), "玫瑰的种植 rose growing") {
				t.Errorf("Charset %q, body %q; want %q and the page's text", resp.Charset, resp.Body, tc.wantCharset)
			}
		})
	}
}

// TestRobotsGzipLabelOnPlainText: a robots.txt sent with Content-Encoding:
// gzip over a body that is not gzip (a server that labels every response,
// a cache that stored the decoded file with the old header) is read as the
// plain text it is, cached as any robots.txt, and the fault is logged. It
// used to fail as bad_encoding and count as unreachable: every URL of the
// host refused, robots.txt asked for again each minute, for ever. A real
// gzip body is still decoded.
func TestRobotsGzipLabelOnPlainText(t *testing.T) {
	const rules = "User-agent: *\nDisallow: /private\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, rules)
	zw.Close()
	for _, tt := range []struct {
		name   string
		body   []byte
		logged bool
	}{
		{"plain body labelled gzip", []byte(rules), true},
		{"gzip body", gz.Bytes(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var robotsHits atomic.Int32
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					robotsHits.Add(1)
					w.Header().Set("Content-Type", "text/plain")
					w.Header().Set("Content-Encoding", "gzip")
					w.Write(tt.body)
					return
				}
				fmt.Fprint(w, "page")
			}))
			f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
			var logs bytes.Buffer
			f.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
			if _, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"}); err != nil {
				t.Fatalf("allowed page: %v", err)
			}
			_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/private/x"})
			if fe := wantClass(t, err, ClassRobots); !fe.Permanent || !strings.Contains(err.Error(), "disallowed by robots.txt") {
				t.Errorf("refusal %v (permanent %v); want robots.txt's own Disallow, permanent", err, fe.Permanent)
			}
			if n := robotsHits.Load(); n != 1 {
				t.Errorf("robots.txt fetched %d times; want 1 (cached for RobotsTTL)", n)
			}
			if logged := strings.Contains(logs.String(), srv.URL+"/robots.txt") && strings.Contains(logs.String(), "not gzip"); logged != tt.logged {
				t.Errorf("log %q; want the mislabelled encoding logged: %v", logs.String(), tt.logged)
			}
		})
	}
}

// TestRobotsGzipLabelOnBinary: a body labelled gzip that is neither gzip
// nor text (zlib, brotli, junk) is not read as plain text — it would parse
// to no rules and allow everything — but leaves robots.txt unreachable, as
// a body that does not decode did before.
func TestRobotsGzipLabelOnBinary(t *testing.T) {
	var zl bytes.Buffer
	zw := zlib.NewWriter(&zl)
	io.WriteString(zw, "User-agent: *\nDisallow: /\n")
	zw.Close()
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zl.Bytes())
			return
		}
		fmt.Fprint(w, "page")
	}))
	f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
	_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
	if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), "neither gzip nor text") {
		t.Fatalf("page under a zlib robots.txt labelled gzip: %v; want refused, robots.txt unreachable (neither gzip nor text)", err)
	}
	for _, tt := range []struct {
		b    string
		text bool
	}{
		{"User-agent: *\r\n\tDisallow: /x\f", true}, {"Disallow: /caf\xc3", true}, {"Disallow: /caf\xc3\xa9", true},
		{"\x78\x9c\xcb", false}, {"abc\x00", false}, {"Disallow: \xff\xfe", false}, {"\x1b[0m", false},
	} {
		if got := looksLikeText([]byte(tt.b)); got != tt.text {
			t.Errorf("looksLikeText(%q) = %v, want %v", tt.b, got, tt.text)
		}
	}
}

// TestRobotsOtherContentEncodings: a robots.txt sent with a compression the
// fetcher neither asks for nor decodes (deflate, br) is unreachable, not an
// empty file that allows everything; x-gzip is gzip (RFC 9110 §8.4.1.3);
// a plain text body under such a label, or under a label that names no
// compression at all, is read as the text it is.
func TestRobotsOtherContentEncodings(t *testing.T) {
	const rules = "User-agent: *\nDisallow: /\n"
	var zl, gz bytes.Buffer
	zw := zlib.NewWriter(&zl)
	io.WriteString(zw, rules)
	zw.Close()
	gw := gzip.NewWriter(&gz)
	io.WriteString(gw, rules)
	gw.Close()
	for _, tt := range []struct {
		coding string
		body   []byte
		want   string // in the refusal
	}{
		{"deflate", zl.Bytes(), "unreachable"},
		{"br", zl.Bytes(), "unreachable"},
		{" X-Gzip ", gz.Bytes(), "disallowed"},
		{"br", []byte(rules), "disallowed"},
		// A label that names no compression is a server's mistake,
		// ignored as on a page: the text is read, Latin-1 and all.
		{"none", []byte("# caf\xe9\n" + rules), "disallowed"},
		{"UTF-8", []byte("# caf\xe9\n" + rules), "disallowed"},
		// A list of gzip codings is undone layer by layer (one that
		// proves not to be gzip is the text); a list with another coding,
		// or one not listed: compressed bytes are not read as text.
		{"gzip, gzip", gz.Bytes(), "disallowed"},
		{"deflate, gzip", gz.Bytes(), "unreachable"},
		{"bzip2", zl.Bytes(), "unreachable"},
	} {
		t.Run(tt.coding, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					w.Header().Set("Content-Type", "text/plain")
					w.Header().Set("Content-Encoding", tt.coding)
					w.Write(tt.body)
					return
				}
				fmt.Fprint(w, "page")
			}))
			f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
			_, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
			if ClassOf(err) != ClassRobots || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Content-Encoding %q: %v; want a robots refusal (%s)", tt.coding, err, tt.want)
			}
		})
	}
}

// TestPageXGzip: a page sent gzip-compressed as Content-Encoding: x-gzip
// (gzip's old name, RFC 9110 §8.4.1.3, which the transport does not decode)
// is decoded; one so labelled that is not gzip is bad_encoding.
func TestPageXGzip(t *testing.T) {
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	io.WriteString(gw, "<html><title>t</title><p>compressed page</p></html>")
	gw.Close()
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "x-gzip")
		switch r.URL.Path {
		case "/plain":
			io.WriteString(w, "<p>not gzip</p>")
			return
		case "/empty":
			return
		}
		w.Write(gz.Bytes())
	}))
	f := newFetcher(t, nil)
	res, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/page"})
	if err != nil {
		t.Fatalf("x-gzip page: %v; want it decoded", err)
	}
	if !strings.Contains(string(res.Body), "compressed page") {
		t.Fatalf("x-gzip page body %q; want it decoded", res.Body)
	}
	if _, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/plain"}); ClassOf(err) != ClassEncoding {
		t.Errorf("x-gzip label on a plain body: %v; want bad_encoding", err)
	}
	if res, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/empty"}); err != nil || len(res.Body) != 0 {
		t.Errorf("empty x-gzip page: %v; want an empty page, as under gzip", err)
	}
}

// TestLatin1HeaderOverCJK: ISO-8859-1 (windows-1252), the default many
// servers send for every page, over GBK or Big5 bytes is contradicted by
// them — the page's <meta> or a clean CJK reading wins, with a note —
// while Western Latin-1 text keeps its label.
func TestLatin1HeaderOverCJK(t *testing.T) {
	const zh = "玫瑰的种植方法和土壤要求，以及修剪和施肥的时间。"
	gbk, err := simplifiedchinese.GBK.NewEncoder().String(`<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head><body><p>` + zh + `</p></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	gbkNoMeta, _ := simplifiedchinese.GBK.NewEncoder().String("<html><body><p>" + zh + zh + "</p></body></html>")
	latin, _ := charmap.Windows1252.NewEncoder().String("<html><body><p>Les rosiers préfèrent un sol riche, arrosé régulièrement, à l'abri du vent. Élagage en février.</p></body></html>")
	for _, tc := range []struct {
		name, body, want, text string
	}{
		{"GBK with a gb2312 meta", gbk, "gbk", zh},
		{"GBK without a meta", gbkNoMeta, "gbk", zh},
		{"French Latin-1", latin, "windows-1252", "préfèrent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, name, note := detectCharset([]byte(tc.body), "text/html; charset=ISO-8859-1")
			if name != tc.want || !strings.Contains(string(decodeAll(e, []byte(tc.body))), tc.text) {
				t.Errorf("charset %q (note %q); want %q and the page's text", name, note, tc.want)
			}
			if (tc.want != "windows-1252") != strings.Contains(note, "Content-Type declares windows-1252") {
				t.Errorf("note %q; want the overridden header named only when overridden", note)
			}
		})
	}
}

// TestBodyLimitAfterConversion: fetch.max_body_bytes holds for the text a
// page is stored and parsed as, not only for the bytes it was sent in: GBK,
// Big5 and Shift_JIS grow by half in UTF-8, UTF-16 too, windows-1252 up to
// three times. Over the limit once converted, a page fails as too_large as
// one over it as sent does; a request with its own limit (Request.MaxBytes)
// gets the text cut to it, on a character boundary, as it gets bytes cut.
func TestBodyLimitAfterConversion(t *testing.T) {
	const limit = 4096
	runes := func(s string, n int) string { // the first n characters of s repeated
		r := []rune(strings.Repeat(s, n/len([]rune(s))+1))
		return string(r[:n])
	}
	enc := func(e interface{ NewEncoder() *encoding.Encoder }, s string) []byte {
		b, err := e.NewEncoder().String(s)
		if err != nil {
			t.Fatal(err)
		}
		return []byte(b)
	}
	zh := runes("园艺是种植花草树木的技术。", 2000)
	zhTW := runes("園藝是種植花草樹木的技術。", 2000)
	ja := runes("庭の手入れはとても楽しいです。", 2000)
	euro := strings.Repeat("€€€ ", 1000)
	fits := "a" + runes("园艺是种植花草树木的技术。", (limit-1)/3) // exactly limit bytes in UTF-8
	pages := map[string]struct {
		ct, charset, text string
		body              []byte
	}{
		"/gbk":    {"text/plain; charset=gbk", "gbk", zh, enc(simplifiedchinese.GBK, zh)},
		"/big5":   {"text/plain; charset=big5", "big5", zhTW, enc(traditionalchinese.Big5, zhTW)},
		"/sjis":   {"text/plain; charset=shift_jis", "shift_jis", ja, enc(japanese.ShiftJIS, ja)},
		"/utf16":  {"text/plain", "utf-16le", zh, append([]byte{0xFF, 0xFE}, utf16Bytes(zh, false)...)},
		"/latin1": {"text/plain; charset=windows-1252", "windows-1252", euro, enc(charmap.Windows1252, euro)},
		"/fits":   {"text/plain; charset=gbk", "gbk", fits, enc(simplifiedchinese.GBK, fits)},
	}
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := pages[r.URL.Path]
		w.Header().Set("Content-Type", p.ct)
		w.Write(p.body)
	}))
	f := newFetcher(t, func(c *Config) { c.MaxBodyBytes = limit })
	for path, p := range pages {
		t.Run(path, func(t *testing.T) {
			if len(p.body) > limit {
				t.Fatalf("fixture: %d bytes as sent, over the limit already", len(p.body))
			}
			resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + path})
			if len(p.text) <= limit {
				if err != nil || string(resp.Body) != p.text || resp.Charset != p.charset {
					t.Fatalf("within the limit once converted: %v", err)
				}
				return
			}
			fe := wantClass(t, err, ClassTooLarge)
			if !fe.Permanent || !strings.Contains(err.Error(), "converted to UTF-8 from "+p.charset) {
				t.Errorf("Permanent %v, error %q; want permanent, naming the conversion", fe.Permanent, err)
			}
			// Cut to the request's own limit, as the bytes read would be.
			for _, max := range []int64{limit, limit - 1, limit - 2, 1500} {
				resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + path, MaxBytes: max})
				if err != nil {
					t.Fatalf("MaxBytes %d: %v", max, err)
				}
				b := resp.Body
				if int64(len(b)) > max || !utf8.Valid(b) || !strings.HasPrefix(p.text, string(b)) {
					t.Fatalf("MaxBytes %d: %d bytes, valid %v, a prefix of the text %v", max, len(b), utf8.Valid(b), strings.HasPrefix(p.text, string(b)))
				}
				if _, size := utf8.DecodeRuneInString(p.text[len(b):]); int64(len(b)+size) <= max {
					t.Errorf("MaxBytes %d: cut at %d bytes, but the next character (%d bytes) fits", max, len(b), size)
				}
			}
		})
	}
}

// TestDecodeHoldsNoMoreThanTheLimit: the conversion stops at the limit; a
// body several times the limit once converted is not converted whole first
// (counted in bytes allocated, not time).
func TestDecodeHoldsNoMoreThanTheLimit(t *testing.T) {
	body := bytes.Repeat([]byte{0x80}, 4<<20) // 4 MiB of € in windows-1252: 12 MiB of UTF-8
	const limit = 64 << 10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, over := decode(charmap.Windows1252, body, limit)
	runtime.ReadMemStats(&after)
	if !over || len(out) != limit-limit%3 || !utf8.Valid(out) {
		t.Fatalf("decode: %d bytes, over %v; want %d and over", len(out), over, limit-limit%3)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("decoding up to %d bytes allocated %d bytes", limit, got)
	}
	// Invalid UTF-8, where every bad byte becomes three: the same.
	bad := bytes.Repeat([]byte{0xFF, 'a'}, 2<<20)
	runtime.ReadMemStats(&before)
	out, over = decode(encoding.Nop, bad, limit)
	runtime.ReadMemStats(&after)
	if !over || len(out) > limit || !utf8.Valid(out) {
		t.Fatalf("decode of invalid UTF-8: %d bytes, over %v", len(out), over)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("cleaning up to %d bytes allocated %d bytes", limit, got)
	}
}
