package fetch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// gzipped returns s as one complete gzip member.
func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGzipShortTrailingBytes: a complete, checksum-verified gzip member
// followed by a few stray bytes (a newline a script prints after its
// gzipped output, CRLF, zero padding) is a whole page: browsers show it, and
// attempt already keeps it when the trailing garbage is 10 bytes or more
// (gzip.ErrHeader after decoded bytes). Fewer than 10 bytes make the gzip
// reader's next-header read fail with io.ErrUnexpectedEOF instead, which
// classify calls body_read: a transient failure, retried, and the page is
// lost every time.
func TestGzipShortTrailingBytes(t *testing.T) {
	const page = "<html><body>complete gzipped page</body></html>"
	member := gzipped(t, page)
	for _, trail := range []string{"\n", "\r\n", "\x00\x00\x00\x00", "0123456789"} {
		for _, ce := range []string{"gzip", "x-gzip"} {
			body := append(append([]byte{}, member...), trail...)
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Encoding", ce)
				w.Write(body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
			if err != nil {
				t.Errorf("Content-Encoding %s, %d trailing bytes %q: %v; want the page", ce, len(trail), trail, err)
				continue
			}
			if string(resp.Body) != page {
				t.Errorf("Content-Encoding %s, trailing %q: body %q, want %q", ce, trail, resp.Body, page)
			}
		}
	}
}

// TestRobotsGzipShortTrailingBytes: the same robots.txt, gzip plus a
// trailing newline, makes robots.txt "unreachable" and refuses every URL of
// the host (disallow all), asking again each minute, for as long as the
// server sends it so — although its rules are right there and allow the page.
func TestRobotsGzipShortTrailingBytes(t *testing.T) {
	robotsBody := append(gzipped(t, "User-agent: *\nDisallow: /private\n"), '\n')
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(robotsBody)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>public page</p>"))
	}))
	f := newFetcher(t, func(c *Config) { c.RespectRobots = true })
	if _, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/public"}); err != nil {
		t.Fatalf("public page refused: %v; robots.txt (gzip + one trailing newline) allows it", err)
	}
}

// TestGzipMembers: a body of two gzip members is read whole (RFC 1952),
// trailing garbage after them ends it, and a member cut short is still a
// read error that is retried (body_read), not a page cut short.
func TestGzipMembers(t *testing.T) {
	one, two := gzipped(t, "<html><body>first half, "), gzipped(t, "second half</body></html>")
	both := append(append([]byte{}, one...), two...)
	for _, tc := range []struct {
		name      string
		body      []byte
		want      string
		wantClass Class
	}{
		{"two members", both, "<html><body>first half, second half</body></html>", ""},
		{"two members and a newline", append(append([]byte{}, both...), '\n'), "<html><body>first half, second half</body></html>", ""},
		{"second member cut short", append(append([]byte{}, one...), two[:len(two)-6]...), "", ClassBodyRead},
		{"only member cut short", one[:len(one)-3], "", ClassBodyRead},
		{"not gzip at all", []byte("<html><body>plain</body></html>"), "", ClassEncoding},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Accept-Encoding") != "gzip" {
					t.Errorf("Accept-Encoding %q; want gzip", r.Header.Get("Accept-Encoding"))
				}
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(tc.body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
			if tc.wantClass != "" {
				var fe *Error
				if !errors.As(err, &fe) || fe.Class != tc.wantClass {
					t.Fatalf("error %v; want class %s", err, tc.wantClass)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Body) != tc.want {
				t.Errorf("body %q; want %q", resp.Body, tc.want)
			}
		})
	}
}

// TestStrayNULInTextPage: one NUL in a page that is text is U+FFFD, not
// a reason to refuse the page as binary for good.
func TestStrayNULInTextPage(t *testing.T) {
	page := "<html><head><title>Annual report</title></head><body><p>Revenue grew\x00 by ten percent this year.</p>" +
		strings.Repeat("<p>More ordinary text of the report.</p>", 20) + "</body></html>"
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
	if err != nil {
		t.Fatalf("HTML page with one stray NUL refused: %v", err)
	}
	if !strings.Contains(string(resp.Body), "Revenue grew\uFFFD by ten percent") {
		t.Fatalf("body %q; want the text, its NUL as U+FFFD", resp.Body)
	}
}

// TestReviewLegacyLabelOverOtherCJK: a GBK page labelled big5 (or any
// other legacy single- or double-byte label but windows-1252) is decoded
// with the label and stored as clean-looking mojibake — no U+FFFD, no
// CharsetNote — although guessLegacy reads it as GBK with certainty.
// contradiction overrides only utf-8 and windows-1252 labels.

// TestLegacyLabelOverOtherLegacyBytes: a Chinese page under another legacy
// label — a GBK page labelled big5, windows-1251 or iso-8859-2 (a
// template's default), a Big5 page labelled gb2312 — is read as what its
// bytes are, with a note, where it was stored as mojibake; pages whose
// label is right keep it, whatever their script.
func TestLegacyLabelOverOtherLegacyBytes(t *testing.T) {
	zh := "这是一个中文网页，我们的内容足够长，用来测试编码。"
	tw := "這是一個繁體中文網頁，我們在臺灣寫的，內容說明了網站的服務與會員資訊。"
	enc := func(e encoding.Encoding, s string) []byte {
		b, err := e.NewEncoder().Bytes([]byte("<html><body><p>" + s + "</p></body></html>"))
		if err != nil {
			t.Fatalf("encode %q: %v", s, err)
		}
		return b
	}
	for _, tc := range []struct {
		name, label string
		body        []byte
		text        string
		wantCharset string
		wantNote    bool
	}{
		{"GBK labelled big5", "big5", enc(simplifiedchinese.GBK, zh), zh, "gbk", true},
		{"GBK labelled windows-1251", "windows-1251", enc(simplifiedchinese.GBK, zh), zh, "gbk", true},
		{"GBK labelled iso-8859-2", "iso-8859-2", enc(simplifiedchinese.GBK, zh), zh, "gbk", true},
		{"Big5 labelled gb2312", "gb2312", enc(traditionalchinese.Big5, tw), tw, "big5", true},
		// Labels that are right stay.
		{"GBK labelled gb2312", "gb2312", enc(simplifiedchinese.GBK, zh), zh, "gbk", false},
		{"GB18030 labelled gb18030", "gb18030", enc(simplifiedchinese.GB18030, zh), zh, "gb18030", false},
		{"Big5 labelled big5", "big5", enc(traditionalchinese.Big5, tw), tw, "big5", false},
		{"Shift_JIS labelled shift_jis", "shift_jis", enc(japanese.ShiftJIS, "これは日本語のページです。東京の天気は晴れ、気温は二十度です。"),
			"これは日本語のページです。東京の天気は晴れ、気温は二十度です。", "shift_jis", false},
		{"EUC-KR labelled euc-kr", "euc-kr", enc(korean.EUCKR, "이것은 한국어 웹 페이지입니다. 서울의 날씨는 맑고 기온은 이십 도입니다."),
			"이것은 한국어 웹 페이지입니다. 서울의 날씨는 맑고 기온은 이십 도입니다.", "euc-kr", false},
		{"Russian labelled windows-1251", "windows-1251", enc(charmap.Windows1251, "Москва — столица России, крупнейший по численности населения город страны."),
			"Москва — столица России, крупнейший по численности населения город страны.", "windows-1251", false},
		{"Russian labelled koi8-r", "koi8-r", enc(charmap.KOI8R, "Москва - столица России, крупнейший по численности населения город страны."),
			"Москва - столица России, крупнейший по численности населения город страны.", "koi8-r", false},
		{"Greek labelled windows-1253", "windows-1253", enc(charmap.Windows1253, "Η Αθήνα είναι η πρωτεύουσα και μεγαλύτερη πόλη της Ελλάδας."),
			"Η Αθήνα είναι η πρωτεύουσα και μεγαλύτερη πόλη της Ελλάδας.", "windows-1253", false},
		{"Polish labelled iso-8859-2", "iso-8859-2", enc(charmap.ISO8859_2, "Zażółć gęślą jaźń. Łódź i Kraków są pięknymi miastami w Polsce."),
			"Zażółć gęślą jaźń. Łódź i Kraków są pięknymi miastami w Polsce.", "iso-8859-2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset="+tc.label)
				w.Write(tc.body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(resp.Body), tc.text) || resp.Charset != tc.wantCharset || (resp.CharsetNote != "") != tc.wantNote {
				t.Errorf("stored %q as %s (note %q); want the text as %s, a note: %v",
					resp.Body, resp.Charset, resp.CharsetNote, tc.wantCharset, tc.wantNote)
			}
		})
	}
}

// TestGzipCutAtMemberBoundary: a body of several gzip members cut after a
// complete one — the connection dropped before its Content-Length, or the
// next member's header cut short — is a read error that is retried
// (body_read), not a page of its first member only (a review of the
// member-by-member reader; the transport's decoder had it right).
func TestGzipCutAtMemberBoundary(t *testing.T) {
	one, two := gzipped(t, "<html><body>first half, "), gzipped(t, "second half</body></html>")
	for _, tc := range []struct {
		name string
		sent []byte
		cl   int // announced Content-Length; 0: body complete as sent
	}{
		{"connection cut after member 1", one, len(one) + len(two)},
		{"connection cut in member 2 header", append(append([]byte{}, one...), two[:5]...), len(one) + len(two)},
		{"member 2 header cut short", append(append([]byte{}, one...), two[:5]...), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.cl == 0 {
					w.Header().Set("Content-Type", "text/html")
					w.Header().Set("Content-Encoding", "gzip")
					w.Write(tc.sent)
					return
				}
				conn, buf, _ := w.(http.Hijacker).Hijack()
				defer conn.Close()
				buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: " +
					strconv.Itoa(tc.cl) + "\r\n\r\n")
				buf.Write(tc.sent)
				buf.Flush()
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
			if err == nil {
				t.Fatalf("page accepted, body %q; want body_read (cut short)", resp.Body)
			}
			wantClass(t, err, ClassBodyRead)
		})
	}
}

// TestShortPlainUnderGzipLabels: a body shorter than a gzip header that
// is not gzip is bad_encoding under either label, not a stream cut short
// (body_read, retried).
func TestShortPlainUnderGzipLabels(t *testing.T) {
	for _, ce := range []string{"gzip", "x-gzip"} {
		for _, body := range []string{"OK", "<p>hi</p>"} {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Encoding", ce)
				w.Write([]byte(body))
			}))
			_, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/"})
			var fe *Error
			if !errors.As(err, &fe) || fe.Class != ClassEncoding {
				t.Errorf("%s, body %q: %v; want bad_encoding", ce, body, err)
			}
		}
	}
}

// TestNULReplacementKeepsTheLimit: NUL characters become U+FFFD (three
// bytes each) within the body limit: a page at the limit with NULs past
// its first KiB is too large, not three times the limit.
func TestNULReplacementKeepsTheLimit(t *testing.T) {
	const limit = 64 << 10
	page := "<html><body><p>" + strings.Repeat("text ", 400) + "</p>"
	page += strings.Repeat("\x00", limit-len(page)-len("</body></html>")) + "</body></html>"
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	f := newFetcher(t, func(c *Config) { c.MaxBodyBytes = limit })
	resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/"})
	if err == nil {
		t.Fatalf("body of %d bytes accepted; MaxBodyBytes is %d", len(resp.Body), limit)
	}
	wantClass(t, err, ClassTooLarge)
	cut, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/", MaxBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	if len(cut.Body) > limit || !utf8.Valid(cut.Body) {
		t.Errorf("cut body %d bytes (valid UTF-8: %v); want at most %d, cut on a character", len(cut.Body), utf8.Valid(cut.Body), limit)
	}
}

// TestCorrectCJKLabelKept: Japanese and Korean pages keep their right
// labels however little kana or how few common syllables they hold (a
// review found kanbun and a title page in EUC-JP read as GBK).
func TestCorrectCJKLabelKept(t *testing.T) {
	eucjp, euckr := japanese.EUCJP.NewEncoder().String, korean.EUCKR.NewEncoder().String
	for _, tc := range []struct {
		name, label, text string
		enc               func(string) (string, error)
	}{
		{"kanbun page", "euc-jp", `<!DOCTYPE html><html><head><title>t</title></head><body><p>論語 学而第一
子曰、学而時習之、不亦説乎。有朋自遠方来、不亦楽乎。人不知而不慍、不亦君子乎。
有子曰、其為人也孝弟、而好犯上者、鮮矣。不好犯上、而好作乱者、未之有也。君子務本、本立而道生。孝弟也者、其為仁之本与。
子曰、巧言令色、鮮矣仁。
曾子曰、吾日三省吾身。為人謀而不忠乎。与朋友交而不信乎。伝不習乎。
子曰、道千乗之国、敬事而信、節用而愛人、使民以時。
子曰、弟子入則孝、出則弟、謹而信、汎愛衆、而親仁。行有余力、則以学文。
（読み下し）子曰はく、学びて時に之を習ふ、亦説ばしからずや。
</p></body></html>`, eucjp},
		{"title page", "euc-jp", "<html><head><title>Page</title></head><body><p>-----\n羅生門\n\n芥川龍之介\n\n\u3000或</p></body></html>", eucjp},
		{"korean dialogue", "euc-kr", "<html><head><title>Page</title></head><body><p>\n“…”\n\n“으응.</p></body></html>", euckr},
	} {
		s, err := tc.enc(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if _, name, note := detectCharset([]byte(s), "text/html; charset="+tc.label); name != tc.label {
			t.Errorf("%s, correctly labelled %s: read as %s (%s)", tc.name, tc.label, name, note)
		}
	}
}

// BenchmarkDetectCharsetLabelled: what a correctly labelled legacy page
// costs the contradiction checks (legacyContradiction), per page of about
// 40-60 kB, one of them with a long script in its head: go test ./internal/fetch -run '^$' -bench DetectCharsetLabelled.
func BenchmarkDetectCharsetLabelled(b *testing.B) {
	ru := strings.Repeat("Москва — столица России, крупнейший по численности населения город страны. ", 450)
	const sentence = "这是一个中文网页，我们的内容足够长，用来测试编码。" // 50 bytes in GBK
	zh := strings.Repeat(sentence, 800)
	for _, tc := range []struct {
		label, head string
		e           encoding.Encoding
		text        string
	}{
		{"windows-1251", "<html><body>", charmap.Windows1251, ru},
		{"gbk", "<html><body>", simplifiedchinese.GBK, zh},
		{"gbk", longScriptHead, simplifiedchinese.GBK, strings.Repeat(sentence, 800-len(longScriptHead)/50)}, // as long, its first 10 kB ASCII
	} {
		body, err := tc.e.NewEncoder().Bytes([]byte(tc.head + "<p>" + tc.text + "</p></body></html>"))
		if err != nil {
			b.Fatal(err)
		}
		name := tc.label
		if tc.head == longScriptHead {
			name += "/script-head"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, name, _ := detectCharset(body, "text/html; charset="+tc.label); name != tc.label {
					b.Fatalf("read as %s", name)
				}
			}
		})
	}
}

// longScriptHead is a page head whose script makes the first 10 kB of the
// page pure ASCII, as analytics and inline style sheets do.
var longScriptHead = "<html><head><title>t</title><script>\n" +
	strings.Repeat("window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);}\n", 120) +
	"</script></head><body>"

// TestLegacyLabelPastLongASCIIHead: a mislabelled Chinese page whose first
// 8 kB are ASCII (a long script in the head) is read as what its bytes
// are; the contradiction check sampled only those 8 kB and kept the wrong
// label. Right labels stay. The text is one paragraph of more than 8 kB
// with no ASCII in it, so no cut within the sample is safe.
func TestLegacyLabelPastLongASCIIHead(t *testing.T) {
	zh := strings.Repeat("这是一个中文网页，我们的内容足够长，用来测试编码。", 200)
	tw := strings.Repeat("這是一個繁體中文網頁，我們在臺灣寫的，內容說明了網站的服務與會員資訊。", 200)
	page := func(e encoding.Encoding, s string) []byte {
		b, err := e.NewEncoder().Bytes([]byte(longScriptHead + "<p>" + s + "</p></body></html>"))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexFunc(b[:contradictionSampleBytes], func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
			t.Fatal("test page has non-ASCII bytes in its first 8 kB")
		}
		return b
	}
	for _, tc := range []struct {
		name, label, wantCharset string
		body                     []byte
	}{
		{"GBK labelled big5", "big5", "gbk", page(simplifiedchinese.GBK, zh)},
		{"GBK labelled windows-1251", "windows-1251", "gbk", page(simplifiedchinese.GBK, zh)},
		{"Big5 labelled gb2312", "gb2312", "big5", page(traditionalchinese.Big5, tw)},
		{"GBK labelled gbk", "gbk", "gbk", page(simplifiedchinese.GBK, zh)},
		{"Big5 labelled big5", "big5", "big5", page(traditionalchinese.Big5, tw)},
		{"Russian labelled windows-1251", "windows-1251", "windows-1251",
			page(charmap.Windows1251, strings.Repeat("Москва — столица России, крупнейший город страны. ", 20))},
	} {
		_, name, note := detectCharset(tc.body, "text/html; charset="+tc.label)
		if name != tc.wantCharset || (note != "") != (tc.label != tc.wantCharset) {
			t.Errorf("%s: read as %s (note %q); want %s", tc.name, name, note, tc.wantCharset)
		}
	}
}

// TestGuessSampleKeepsCharacters: the sample of a page whose long ASCII
// runs are cut out decodes to the page's own characters, whatever the
// runs' lengths, and though they begin with the ASCII last byte of a
// character (GB18030's four-byte ones, Big5 and Shift_JIS trail bytes);
// and it carries the text from past the runs.
func TestGuessSampleKeepsCharacters(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    encoding.Encoding
		text string // ends in a character whose last byte is ASCII
	}{
		{"gb18030", simplifiedchinese.GB18030, "中文网页𠀀内容𠀁"},
		{"big5", traditionalchinese.Big5, "繁體中文網頁內容功"},
		{"shift_jis", japanese.ShiftJIS, "日本語のﾍﾟｰｼﾞですソ"},
		{"euc-kr", korean.EUCKR, "한국어 웹 페이지"},
	} {
		for _, run := range []int{asciiRunMax - 1, asciiRunMax, asciiRunMax + 1, asciiRunMax + 7, 3000} {
			var page strings.Builder
			for range 300 { // past the sample even with the runs cut
				page.WriteString(tc.text + strings.Repeat("x", run) + "1" + tc.text + "\n")
			}
			body, err := tc.e.NewEncoder().Bytes([]byte(page.String()))
			if err != nil {
				t.Fatal(err)
			}
			s := guessSampleN(body, contradictionSampleBytes)
			out, err := tc.e.NewDecoder().String(string(s))
			text := strings.NewReplacer("x", "", "1", "", "\n", "").Replace(out)
			if len(s) > contradictionSampleBytes || err != nil || !strings.HasPrefix(strings.Repeat(tc.text, 1000), text) {
				t.Errorf("%s, runs of %d: sample of %d bytes does not decode to the page's text (%v): %q", tc.name, run, len(s), err, text)
			}
			if run == 3000 && strings.Count(out, tc.text) < 20 {
				t.Errorf("%s, runs of %d: sample holds %d copies of the text; the runs were not skipped", tc.name, run, strings.Count(out, tc.text))
			}
		}
	}
}

// TestCutUTF8KeepsUTF8: a body cut at a request's own limit (a sitemap)
// in the middle of a UTF-8 character is still UTF-8: the cut character is
// no evidence against it. Before, an unlabelled UTF-8 sitemap with a few
// accented letters, cut so, failed the UTF-8 check and was decoded as
// windows-1252 ("CafÃ©").
func TestCutUTF8KeepsUTF8(t *testing.T) {
	body := strings.Repeat("<url><loc>http://a.test/page</loc></url>\n", 20) +
		"<url><loc>http://a.test/café</loc><image:title>Crème brûlée à la carte</image:title></url>\n" +
		strings.Repeat("<url><loc>http://a.test/p</loc></url>\n", 20) + "<title>Ωmega</title>"
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(body))
	}))
	f := newFetcher(t, nil)
	limit := int64(strings.Index(body, "Ωmega") + 1) // inside the Ω
	resp, err := f.Fetch(t.Context(), Request{URL: srv.URL + "/sitemap.txt", MaxBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	want := body[:limit-1]
	if resp.Charset != "utf-8" || string(resp.Body) != want {
		t.Errorf("cut inside a character: charset %q, body ends %q; want utf-8 and the text before the cut character",
			resp.Charset, resp.Body[max(0, len(resp.Body)-120):])
	}
}

// TestCutLegacyAtCharacter: a body cut at a request's own limit (a
// sitemap) inside a GBK, GB18030 four-byte or UTF-16 character (an odd
// byte, a high surrogate without its low one) loses the cut character, as
// a UTF-8 body does (TestCutUTF8KeepsUTF8). Before, the decoder was told
// the input ended there, and where the decoded text fits the limit (UTF-16
// shrinks ASCII; a sitemap's URLs are ASCII) it ended in a U+FFFD the
// sitemap never had.
func TestCutLegacyAtCharacter(t *testing.T) {
	utf16le := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	for _, head := range []string{
		strings.Repeat("<url><loc>http://a.test/p</loc></url>\n", 20) + "<title>",
		strings.Repeat("<url><loc>http://a.test/中文页面</loc></url>\n", 20) + "<title>",
	} {
		for _, tc := range []struct {
			name, charset string
			e             encoding.Encoding
			last          string // the character the cut falls in
			keep          int    // bytes of it left before the limit
		}{
			{"gbk", "gbk", simplifiedchinese.GBK, "页", 1},
			{"gb18030 four-byte", "gb18030", simplifiedchinese.GB18030, "𠀀", 1},
			{"gb18030 four-byte", "gb18030", simplifiedchinese.GB18030, "𠀀", 2},
			{"gb18030 four-byte", "gb18030", simplifiedchinese.GB18030, "𠀀", 3},
			{"utf-16le odd byte", "utf-16le", utf16le, "页", 1},
			{"utf-16be odd byte", "utf-16be", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "页", 1},
			{"utf-16le high surrogate", "utf-16le", utf16le, "𠀀", 2},
			{"utf-16le high surrogate and a byte", "utf-16le", utf16le, "𠀀", 3},
		} {
			before, err := tc.e.NewEncoder().Bytes([]byte(head))
			if err != nil {
				t.Fatal(err)
			}
			rest, err := tc.e.NewEncoder().Bytes([]byte(tc.last + "</title>"))
			if err != nil {
				t.Fatal(err)
			}
			body := append(before, rest...)
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/xml; charset="+tc.charset)
				w.Write(body)
			}))
			resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL + "/sitemap.xml",
				MaxBytes: int64(len(before) + tc.keep), ExtraTypes: []string{"text/xml"}})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			// The limit holds for the decoded text too, so a CJK head is
			// cut before the character; an ASCII one ends right before it.
			if !strings.HasPrefix(head, string(resp.Body)) || (!strings.Contains(head, "中") && string(resp.Body) != head) {
				t.Errorf("%s, %d byte(s) of %q kept after %d bytes: body ends %q (charset %q); want the text before the cut character",
					tc.name, tc.keep, tc.last, len(before), resp.Body[max(0, len(resp.Body)-20):], resp.Charset)
			}
		}
	}
}

// TestMergedContentTypeKeepsCharset: a Content-Type a proxy merged from
// two headers ("text/html; charset=windows-1251, text/html") keeps the
// charset of the value it comes with, as Fetch's "extract a MIME type"
// keeps it: the last value of the same type without one inherits it.
// Before, the whole header failed to parse, its charset was lost and a
// Russian page was decoded as windows-1252.
func TestMergedContentTypeKeepsCharset(t *testing.T) {
	ru := "Москва — столица России, крупнейший по численности населения город страны."
	body, err := charmap.Windows1251.NewEncoder().String("<!DOCTYPE html><html><body><p>" + ru + "</p></body></html>")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ct, charset string }{
		{"text/html; charset=windows-1251, text/html", "windows-1251"},
		{"text/html;charset=windows-1251, text/html;charset=windows-1251", "windows-1251"},
		{"text/plain; charset=utf-8, text/html; charset=windows-1251", "windows-1251"},
		// Another type resets the charset: the last one's has none.
		{"text/plain; charset=windows-1251, text/html", "windows-1252"},
		// A parameter that does not parse leaves the others standing.
		{"text/html; charset=windows-1251; foo", "windows-1251"},
		{`text/html; foo; charset="windows-1251"`, "windows-1251"},
	} {
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.ct)
			w.Write([]byte(body))
		}))
		resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
		if err != nil {
			t.Fatalf("%q: %v", tc.ct, err)
		}
		if resp.Charset != tc.charset || (tc.charset == "windows-1251" && !strings.Contains(string(resp.Body), ru)) {
			t.Errorf("%q: charset %q, body %q; want %s", tc.ct, resp.Charset, resp.Body, tc.charset)
		}
	}
}

// TestQuotedParamsKeepCharset: a comma or semicolon inside a quoted
// parameter value splits neither the header nor its parameter list, as
// Fetch's "extract a MIME type" reads quoted strings: the charset after
// such a value counts when the header does not parse as a whole.
func TestQuotedParamsKeepCharset(t *testing.T) {
	ru := "Москва — столица России, крупнейший по численности населения город страны."
	body, err := charmap.Windows1251.NewEncoder().String("<!DOCTYPE html><html><body><p>" + ru + "</p></body></html>")
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range []string{
		`text/html; title="a, text/plain"; charset=windows-1251; foo`,
		`text/html; title="a;charset=koi8-r"; charset=windows-1251; foo`,
		`text/html; title="a\";charset=koi8-r"; charset=windows-1251; foo`,
		`text/html; title="a, b"; charset=windows-1251, text/html`,
	} {
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Write([]byte(body))
		}))
		resp, err := newFetcher(t, nil).Fetch(t.Context(), Request{URL: srv.URL})
		if err != nil {
			t.Fatalf("%q: %v", ct, err)
		}
		if resp.Charset != "windows-1251" || !strings.Contains(string(resp.Body), ru) {
			t.Errorf("%q: charset %q, body %q; want windows-1251", ct, resp.Charset, resp.Body)
		}
	}
}

// TestMergedContentTypeInheritsFirstCharset: in Fetch's extract-a-MIME-type
// a value of the same type without a charset takes the charset the run of
// that type began with (the charset variable is set only when the type
// changes), not that of the value just before it.
func TestMergedContentTypeInheritsFirstCharset(t *testing.T) {
	for ct, want := range map[string]string{
		"text/html; charset=windows-1251, text/html; charset=koi8-r, text/html": "text/html; charset=windows-1251",
		"text/html; charset=windows-1251, text/html; charset=koi8-r":            "text/html; charset=koi8-r",
		"text/html, text/html; charset=koi8-r, text/html":                       "text/html",
	} {
		if got := charsetContentType(ct); got != want {
			t.Errorf("charsetContentType(%q) = %q; want %q", ct, got, want)
		}
	}
}
