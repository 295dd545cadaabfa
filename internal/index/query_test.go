package index

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// spaceSegmenter lower-cases and keeps the text's own spaces: test documents
// and queries are written pre-segmented.
type spaceSegmenter struct{}

func (spaceSegmenter) Segment(text string) string {
	return strings.Join(strings.Fields(strings.ToLower(text)), " ")
}

func TestValidateQuery(t *testing.T) {
	tests := []struct {
		name string
		q    Query
		ok   bool
	}{
		{"plain", Query{Text: "image filter"}, true},
		{"chinese", Query{Text: "图像 滤镜"}, true},
		{"phrase", Query{Text: `"image filter" sharpen`}, true},
		{"curly phrase", Query{Text: "“图像 滤镜”"}, true},
		{"max length", Query{Text: strings.Repeat("a", MaxQueryRunes)}, true},
		{"max length in runes not bytes", Query{Text: strings.Repeat("图", MaxQueryRunes)}, true},
		{"limits at bounds", Query{Text: "x", Limit: MaxLimit, Offset: MaxOffset}, true},
		{"filters", Query{Text: "x", Topic: "photo", Host: "example.com"}, true},
		{"fts syntax is just text", Query{Text: "a OR b NEAR(c) title:x* ^y"}, true},

		{"empty", Query{Text: ""}, false},
		{"whitespace only", Query{Text: " \u3000 "}, false},
		{"too long", Query{Text: strings.Repeat("a", MaxQueryRunes+1)}, false},
		{"10 kB", Query{Text: strings.Repeat("word ", 2048)}, false},
		{"unbalanced quote", Query{Text: `"image filter`}, false},
		{"three quotes", Query{Text: `"a" "b`}, false},
		{"unbalanced curly quote", Query{Text: "“图像 滤镜"}, false},
		{"NUL", Query{Text: "a\x00b"}, false},
		{"newline", Query{Text: "a\nb"}, false}, // CleanQueryText turns it into a space
		{"tab", Query{Text: "a\tb"}, false},
		{"cleaned tab and newlines", Query{Text: CleanQueryText("image\tfilter\r\nblur")}, true},
		{"cleaned, other controls stay", Query{Text: CleanQueryText("a\t\x1bb")}, false},
		{"escape", Query{Text: "a\x1b[31m"}, false},
		{"C1 control", Query{Text: "a\u0085b"}, false},
		{"invalid UTF-8", Query{Text: "a\xffb"}, false},
		{"negative limit", Query{Text: "x", Limit: -1}, false},
		{"limit too big", Query{Text: "x", Limit: MaxLimit + 1}, false},
		{"negative offset", Query{Text: "x", Offset: -1}, false},
		{"offset too deep", Query{Text: "x", Offset: MaxOffset + 1}, false},
		{"control in topic", Query{Text: "x", Topic: "a\nb"}, false},
		{"host too long", Query{Text: "x", Host: strings.Repeat("h", 300)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateQuery(tt.q)
			if tt.ok && err != nil {
				t.Fatalf("ValidateQuery(%+v) = %v, want nil", tt.q, err)
			}
			if !tt.ok {
				if !errors.Is(err, ErrBadQuery) {
					t.Fatalf("ValidateQuery(%.40q) = %v, want ErrBadQuery", tt.q.Text, err)
				}
				if msg := err.Error(); len(msg) > 400 {
					t.Errorf("error message is %d bytes; it should not echo huge input", len(msg))
				}
			}
		})
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		text    string
		terms   []string
		phrases [][]string
	}{
		{"Image Filter", []string{"image", "filter"}, nil},
		{"图像 滤镜", []string{"图像", "滤镜"}, nil},
		{`"image filter" sharpen`, []string{"sharpen"}, [][]string{{"image", "filter"}}},
		{`sharpen "image filter"`, []string{"sharpen"}, [][]string{{"image", "filter"}}},
		{"“图像 滤镜” 教程", []string{"教程"}, [][]string{{"图像", "滤镜"}}},
		{`"single" word`, []string{"single", "word"}, nil},
		{`"" word`, []string{"word"}, nil},
		{"a a A", []string{"a"}, nil},
		{`"x y" "x y"`, nil, [][]string{{"x", "y"}}},
		// Punctuation-only tokens are dropped; syntax stays words.
		{"a OR b NEAR(c)", []string{"a", "or", "b", "near(c)"}, nil},
		{"title:x* - ^", []string{"title:x*"}, nil},
	}
	for _, tt := range tests {
		terms, phrases, err := ParseQuery(tt.text, spaceSegmenter{})
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", tt.text, err)
			continue
		}
		if !reflect.DeepEqual(terms, tt.terms) || !reflect.DeepEqual(phrases, tt.phrases) {
			t.Errorf("ParseQuery(%q) = %q, %q; want %q, %q", tt.text, terms, phrases, tt.terms, tt.phrases)
		}
	}
}

func TestParseQueryRejects(t *testing.T) {
	for _, text := range []string{"", "   ", `"a`, "- * ()", `""`, strings.Repeat("z", 10000)} {
		if _, _, err := ParseQuery(text, spaceSegmenter{}); !errors.Is(err, ErrBadQuery) {
			t.Errorf("ParseQuery(%.20q) error = %v, want ErrBadQuery", text, err)
		}
	}
	if _, _, err := ParseQuery("x", nil); err == nil || errors.Is(err, ErrBadQuery) {
		t.Errorf("ParseQuery with nil Segmenter: error = %v, want a non-ErrBadQuery error", err)
	}
}

func TestHighlightTerms(t *testing.T) {
	got := HighlightTerms([]string{"a", "b"}, [][]string{{"b", "c"}, {"d"}})
	want := []string{"a", "b", "c", "d"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HighlightTerms = %q, want %q", got, want)
	}
}

// TestHostPortPrefix: a host filter without a port matches the host on every
// port (a manual served at 127.0.0.1:28089 was not found with --host
// 127.0.0.1); one with a port, or an IPv6 literal with one, only itself.
func TestHostPortPrefix(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"127.0.0.1", "127.0.0.1:"},
		{"docs.example.cn", "docs.example.cn:"},
		{"127.0.0.1:28089", ""},
		{"[::1]", "[::1]:"},
		{"[::1]:8080", ""},
	} {
		if got := HostPortPrefix(tt.in); got != tt.want {
			t.Errorf("HostPortPrefix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// HostKey drops a default port: such a filter is the bare host.
	if k, err := HostKey("Example.COM:80"); err != nil || HostPortPrefix(k) != "example.com:" {
		t.Errorf("HostKey(Example.COM:80) = %q, %v; prefix %q", k, err, HostPortPrefix(k))
	}
	// https's default port too: an https page's document host has it
	// dropped, and a filter keeping it found none of them.
	if k, err := HostKey("example.com:443"); err != nil || k != "example.com" || HostPortPrefix(k) != "example.com:" {
		t.Errorf("HostKey(example.com:443) = %q, %v; prefix %q", k, err, HostPortPrefix(k))
	}
	if k, err := HostKey("[::1]:443"); err != nil || k != "[::1]" {
		t.Errorf("HostKey([::1]:443) = %q, %v", k, err)
	}
}

// stopSegmenter is spaceSegmenter dropping 的, as the tokenizer drops stop
// words.
type stopSegmenter struct{}

func (stopSegmenter) Segment(text string) string {
	return strings.ReplaceAll(spaceSegmenter{}.Segment(text), "的", "")
}

// TestHanPhrases: only quoted parts written in Han characters alone
// (spaces aside) that make a phrase are listed, keyed as the phrase's
// tokens joined, with their characters run together.
func TestHanPhrases(t *testing.T) {
	got := HanPhrases(`大学 读书 “大学 读书” "北京 GIMP" "单"  ＂高斯 模糊＂ "a b"`, spaceSegmenter{})
	want := map[string]HanPhrase{
		"大学 读书": {Chars: []string{"大学读书"}, Tokens: []string{"大学", "读书"}},
		"高斯 模糊": {Chars: []string{"高斯模糊"}, Tokens: []string{"高斯", "模糊"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HanPhrases = %v, want %v", got, want)
	}
	if got := HanPhrases("no quotes 大学", spaceSegmenter{}); got != nil {
		t.Errorf("HanPhrases without quoted parts = %v, want nil", got)
	}
	// Two quoted parts that make one phrase: each one's characters.
	if got := HanPhrases(`"大学 读书" "大学读书" "大学 的 读书"`, stopSegmenter{}); !slices.Equal(got["大学 读书"].Chars, []string{"大学读书", "大学的读书"}) {
		t.Errorf("HanPhrases of two parts making one phrase = %v", got)
	}
	// A long word's shorter words cover it: they are looked for, not it
	// (phraseTokens), within two positions per character.
	got = HanPhrases("“中华人民共和国”", searchMode)
	want = map[string]HanPhrase{"中华 华人 人民 共和 共和国 中华人民共和国": {
		Chars: []string{"中华人民共和国"}, Tokens: []string{"中华", "华人", "人民", "共和国"}}}
	if !reflect.DeepEqual(got, want) || got["中华 华人 人民 共和 共和国 中华人民共和国"].Distance() != 14 {
		t.Errorf("HanPhrases(“中华人民共和国”) = %v, want %v, distance 14", got, want)
	}
}

// TestOperatorNote: words another search engine reads as operators are
// named; an option (--no-ff), a lone minus, a hyphenated word, quoted text
// and lower-case "or" are not.
func TestOperatorNote(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"sasl -dovecot", "no search operators here: -dovecot is searched as a word; every word must match"},
		{"dovecot OR gsasl AND -x -x", "OR, AND and -x are searched as words"},
		{"git --no-ff", ""},
		{"a - b", ""},
		{"e-mail or not", ""},
		{`"-dovecot OR x" y`, ""},
	} {
		got := OperatorNote(tc.q)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("OperatorNote(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}
