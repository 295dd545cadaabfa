package index

import (
	"html"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSnippetWholeText(t *testing.T) {
	tests := []struct {
		name, text string
		terms      []string
		want       string
	}{
		{"marks a word", "The quick brown fox", []string{"fox"}, "The quick brown <mark>fox</mark>"},
		{"case-insensitive, keeps original case", "Quick QUICK quick", []string{"quick"},
			"<mark>Quick</mark> <mark>QUICK</mark> <mark>quick</mark>"},
		{"escapes HTML", `a <b> & "fox"`, []string{"fox", "<b>"},
			"a <mark>&lt;b&gt;</mark> &amp; &#34;<mark>fox</mark>&#34;"},
		{"whole words only", "start art artist", []string{"art"}, "start <mark>art</mark> artist"},
		{"chinese substrings", "我们介绍图像滤镜的用法", []string{"图像", "滤镜"},
			"我们介绍<mark>图像滤镜</mark>的用法"},
		{"longest term wins", "图像滤镜", []string{"图像", "图像滤镜"}, "<mark>图像滤镜</mark>"},
		{"mixed scripts", "用Photoshop做图像", []string{"photoshop", "图像"},
			"用<mark>Photoshop</mark>做<mark>图像</mark>"},
		{"full-width folded", "ＦＯＸ news", []string{"fox"}, "<mark>ＦＯＸ</mark> news"},
		{"whitespace collapsed", "  a\n\n\tfox \t ", []string{"fox"}, "a <mark>fox</mark>"},
		{"invisible format characters passed over, kept", "the pa\u200bth\u00ad tool", []string{"path"}, "the <mark>pa\u200bth</mark>\u00ad tool"},
		{"joiners kept in words and emoji", "می\u200cخواهم family 👨\u200d👩\u200d👧", nil, "می\u200cخواهم family 👨\u200d👩\u200d👧"},
		{"Latin diacritics folded as the index does", "We love the café downtown.", []string{"cafe"}, "We love the <mark>café</mark> downtown."},
		{"combining diacritics marked with their letter", "the cafe\u0301 downtown", []string{"café"}, "the <mark>cafe\u0301</mark> downtown"},
		{"diacritics in the term folded too", "Ångström units", []string{"angstrom"}, "<mark>Ångström</mark> units"},
		{"stroke letters folded as asciifolding does", "Muzeum w Łódź, København", []string{"lodz", "kobenhavn"}, "Muzeum w <mark>Łódź</mark>, <mark>København</mark>"},
		{"half-width kana folded", "新しいｶﾒﾗを買いました", []string{"カメラ"}, "新しい<mark>ｶﾒﾗ</mark>を買いました"},
		{"Han untouched by diacritic folding", "高斯模糊滤镜", []string{"模糊"}, "高斯<mark>模糊</mark>滤镜"},
		{"no terms", "plain text", nil, "plain text"},
		{"no match", "plain <text>", []string{"zebra"}, "plain &lt;text&gt;"},
		{"empty text", "", []string{"x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Snippet(tt.text, tt.terms, 200); got != tt.want {
				t.Errorf("Snippet(%q, %q) = %q, want %q", tt.text, tt.terms, got, tt.want)
			}
		})
	}
}

// visible strips the markup Snippet adds and unescapes the rest.
func visible(s string) string {
	s = strings.ReplaceAll(s, "<mark>", "")
	s = strings.ReplaceAll(s, "</mark>", "")
	return html.UnescapeString(s)
}

func TestSnippetCutsAroundDensestWindow(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	text := "alpha appears alone here. " + filler + "then alpha and beta appear together. " + filler
	const max = 80
	got := Snippet(text, []string{"alpha", "beta"}, max)
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("snippet cut on both sides should start and end with …: %q", got)
	}
	if !strings.Contains(got, "<mark>alpha</mark> and <mark>beta</mark>") {
		t.Errorf("snippet should show the window holding both terms: %q", got)
	}
	if n := utf8.RuneCountInString(strings.Trim(visible(got), "…")); n > max {
		t.Errorf("snippet shows %d characters, more than %d: %q", n, max, got)
	}
	if v := strings.Trim(visible(got), "…"); !strings.Contains(text, v) {
		t.Errorf("snippet %q is not an excerpt of the text", v)
	}
}

func TestSnippetFallsBackToStart(t *testing.T) {
	text := strings.Repeat("word ", 100)
	got := Snippet(text, []string{"absent"}, 50)
	if strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("fallback should be the cut start of the text: %q", got)
	}
	if strings.Contains(got, "<mark>") {
		t.Errorf("fallback has marks: %q", got)
	}
	body := strings.TrimSuffix(got, "…")
	if n := utf8.RuneCountInString(body); n > 50 || !strings.HasPrefix(text, body) {
		t.Errorf("fallback %q (%d characters) is not the text's start within 50 characters", body, n)
	}
	if strings.HasSuffix(body, "wor") || strings.HasSuffix(body, " ") {
		t.Errorf("fallback should end on a whole word: %q", body)
	}
}

func TestSnippetDefaultLength(t *testing.T) {
	text := strings.Repeat("x ", 1000)
	got := Snippet(text, nil, 0)
	if n := utf8.RuneCountInString(strings.TrimSuffix(got, "…")); n > DefaultSnippetRunes || n < DefaultSnippetRunes/2 {
		t.Errorf("maxRunes 0 gave %d characters, want about DefaultSnippetRunes (%d)", n, DefaultSnippetRunes)
	}
}

func TestSnippetChineseCut(t *testing.T) {
	text := strings.Repeat("无关的内容。", 50) + "本文介绍图像滤镜。" + strings.Repeat("其他的话。", 50)
	got := Snippet(text, []string{"图像", "滤镜"}, 30)
	if !strings.Contains(got, "<mark>图像滤镜</mark>") {
		t.Errorf("Chinese snippet misses the terms: %q", got)
	}
	if n := utf8.RuneCountInString(strings.Trim(visible(got), "…")); n > 30 {
		t.Errorf("Chinese snippet shows %d characters, more than 30: %q", n, got)
	}
}

func TestSnippetMergesAdjacentMatches(t *testing.T) {
	got := Snippet("应用高斯模糊滤镜", []string{"高斯", "模糊"}, 100)
	if want := "应用<mark>高斯模糊</mark>滤镜"; got != want {
		t.Fatalf("Snippet = %q, want %q", got, want)
	}
}

// TestSnippetTypographicApostrophe: the tokenizer folds "’" to "'" and "‐"
// to "-", so a query "GIMP's" matches a page's "GIMP’s"; the snippet marks
// it too (it showed the match unmarked).
func TestSnippetTypographicApostrophe(t *testing.T) {
	got := Snippet("The GIMP’s filters are well‐known.", []string{"gimp's", "well-known"}, 0)
	want := "The <mark>GIMP’s</mark> filters are <mark>well‐known</mark>."
	if got != want {
		t.Errorf("Snippet = %q, want %q", got, want)
	}
}

// BenchmarkSnippet: one snippet of a 30 kB page of mixed Chinese and
// accented Latin text, as a search result page cuts ten of.
func BenchmarkSnippet(b *testing.B) {
	text := strings.Repeat("在 GIMP 中使用高斯模糊滤镜可以柔化图像。The café’s Gaussian blur filter softens an image. ", 200)
	terms := []string{"模糊", "blur", "cafe"}
	for b.Loop() {
		Snippet(text, terms, 0)
	}
}

// BenchmarkSnippetOutside: BenchmarkSnippet's page with every fourth
// sentence link text (a sidebar's worth of spans).
func BenchmarkSnippetOutside(b *testing.B) {
	sentence := "在 GIMP 中使用高斯模糊滤镜可以柔化图像。The café’s Gaussian blur filter softens an image. "
	text := strings.Repeat(sentence, 200)
	var spans [][2]int
	for i := 0; i < 200; i += 4 {
		spans = append(spans, [2]int{i * len(sentence), (i + 1) * len(sentence)})
	}
	terms := []string{"模糊", "blur", "cafe"}
	for b.Loop() {
		SnippetOutside(text, spans, terms, 0)
	}
}

// TestSnippetOutsideLinkText: a table of contents that names the query's
// words more densely than the prose does is passed over for the prose; a
// text whose only matches are link text still gets a snippet around them.
// The ranges are byte offsets of the original text, whose whitespace runs
// and multi-byte runes the snippet collapses and counts in runes.
func TestSnippetOutsideLinkText(t *testing.T) {
	toc := "Contents:  Query Planner  ·  The Query Planner Checklist  ·  Query  Planner Stability "
	prose := strings.Repeat("filler words here ", 20) + "— café — the query planner picks an index for each loop of the join. " + strings.Repeat("more filler ", 20)
	text := toc + prose
	spans := [][2]int{{len("Contents:  "), len(toc)}}
	terms := []string{"query", "planner"}
	got := SnippetOutside(text, spans, terms, 80)
	if !strings.Contains(got, "<mark>query</mark> <mark>planner</mark> picks") {
		t.Errorf("snippet %q: want the prose's match", got)
	}
	if plain := Snippet(text, terms, 80); !strings.Contains(plain, "Checklist") {
		t.Errorf("without link spans the snippet should be the denser contents: %q", plain)
	}
	onlyLinks := SnippetOutside(toc, spans, terms, 80)
	if !strings.Contains(onlyLinks, "<mark>Query</mark> <mark>Planner</mark>") {
		t.Errorf("all matches in link text: snippet %q, want them marked", onlyLinks)
	}
	// A prose window may hold link text; its matches are marked too.
	mixed := "See <a>query planner</a>: the query planner decides."
	mspans := [][2]int{{len("See <a>"), len("See <a>query planner")}}
	if got := SnippetOutside(mixed, mspans, terms, 240); strings.Count(got, "<mark>") != 4 {
		t.Errorf("mixed: %q, want all four matches marked", got)
	}
}

func TestSpansRoundTrip(t *testing.T) {
	spans := [][2]int{{0, 5}, {7, 19}, {19, 30}}
	enc := EncodeSpans(spans, 30)
	if enc != "30;0-5,7-19,19-30" {
		t.Errorf("encoded %q", enc)
	}
	if got := DecodeSpans(enc, 30); !slices.Equal(got, spans) {
		t.Errorf("decoded %v, want %v", got, spans)
	}
	if got := DecodeSpans(enc, 31); got != nil {
		t.Errorf("spans of a 30-byte text read for a 31-byte one: %v", got)
	}
	if EncodeSpans(nil, 10) != "" || DecodeSpans("", 10) != nil {
		t.Error("no spans must encode to \"\" and back to nil")
	}
	// Out of order, overlapping, empty and out-of-text ranges are cleaned
	// before they are written.
	if got := EncodeSpans([][2]int{{10, 20}, {0, 4}, {12, 25}, {6, 6}, {28, 40}, {-3, 2}}, 30); got != "30;0-4,10-25,28-30" {
		t.Errorf("cleaned encoding %q", got)
	}
	for _, bad := range []string{"30;5", "30;5-3", "30;1-4,2-6", "30;0-31", "30;a-b", "30;-1-4", "30;0-5,", "0-5", "x;0-5", "30;"} {
		if got := DecodeSpans(bad, 30); got != nil {
			t.Errorf("DecodeSpans(%q) = %v, want nil", bad, got)
		}
	}
}

// TestCollapseSpaceAtSpans: byte ranges become ranges of the collapsed
// runes, across whitespace runs, multi-byte runes and the text's ends.
func TestCollapseSpaceAtSpans(t *testing.T) {
	text := "  ab  café\t\tgh  "
	// bytes: 2 a, 3 b, 4-5 spaces, 6 c, 7 a, 8 f, 9-10 é, 11-12 tabs, 13 g, 14 h, 15-16 spaces
	runes, spans := collapseSpaceAt(text, [][2]int{{0, 3}, {4, 11}, {12, 15}, {15, 17}})
	if string(runes) != "ab café gh" {
		t.Fatalf("runes %q", string(runes))
	}
	// "ab café gh": a0 b1 ' '2 c3 a4 f5 é6 ' '7 g8 h9
	want := [][2]int{{0, 1}, {2, 7}, {8, 10}, {10, 10}}
	if !slices.Equal(spans, want) {
		t.Errorf("rune spans %v, want %v", spans, want)
	}
}

// TestSnippetNFC: matching compares text and terms in NFC, as the
// tokenizer's terms are (textproc.NFC): a query typed decomposed (Hangul
// jamo, kana with a combining voiced mark, Greek with a combining accent)
// or with a CJK compatibility ideograph marks the page's precomposed or
// unified text that it found, and a decomposed page is marked for a
// precomposed query; the snippet shows the page's text as it is, each
// match covering whole characters (a syllable's every jamo).
func TestSnippetNFC(t *testing.T) {
	for _, tc := range []struct{ text, term, want string }{
		{"한국어 웹 페이지", "\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165", "<mark>한국어</mark> 웹 페이지"},
		{"\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165 웹 페이지", "한국어", "<mark>\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165</mark> 웹 페이지"},
		{"ゲームのページ", "\u30b1\u3099\u30fc\u30e0", "<mark>ゲーム</mark>のページ"},
		{"η καλή μέρα", "καλη\u0301", "η <mark>καλή</mark> μέρα"},
		{"这不同于那", "这\uf967同", "<mark>这不同</mark>于那"},
	} {
		if got := Snippet(tc.text, []string{tc.term}, 0); got != tc.want {
			t.Errorf("Snippet(%q, %q) = %q, want %q", tc.text, tc.term, got, tc.want)
		}
	}
	// "링크" is link text (bytes 0-15 decomposed: 5 jamo of 3 bytes): the
	// prose's "한국어" is chosen and marked, and the link's own match too.
	text := "\u1105\u1175\u11bc\u110f\u1173 한국어 링크"
	got := SnippetOutside(text, [][2]int{{0, 15}}, []string{"링크", "한국어"}, 0)
	if want := "<mark>\u1105\u1175\u11bc\u110f\u1173</mark> <mark>한국어</mark> <mark>링크</mark>"; got != want {
		t.Errorf("SnippetOutside = %q, want %q", got, want)
	}
}

// TestSnippetTraditional: a page in Traditional Chinese has its query terms
// marked whichever script the query was written in, as the index finds
// them (both compared in Simplified, package hant); the snippet shows the
// page's own characters. A phrase whose Simplified form has another length
// (記憶體 → 内存) is compared character by character.
func TestSnippetTraditional(t *testing.T) {
	text := "本章說明如何設定網路介面。記憶體不足時，請關閉防火牆。"
	for _, tt := range []struct {
		terms []string
		want  []string
	}{
		{[]string{"网络"}, []string{"<mark>網路</mark>"}},
		{[]string{"網路"}, []string{"<mark>網路</mark>"}},
		{[]string{"防火墙", "设置"}, []string{"<mark>防火牆</mark>", "<mark>設定</mark>"}},
		{[]string{"记忆体"}, []string{"<mark>記憶體</mark>"}},
	} {
		got := Snippet(text, tt.terms, 0)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("Snippet(%v) = %q; want it to hold %q", tt.terms, got, w)
			}
		}
	}
	if got, want := Snippet("简体中文的网络设置", []string{"网络"}, 0), "简体中文的<mark>网络</mark>设置"; got != want {
		t.Errorf("Simplified text: %q; want %q", got, want)
	}
}

// TestSnippetTraditionalCompatibilityIdeograph: a compatibility ideograph
// whose unified form is traditional-only (樂 U+F914) is compared as that
// form in Simplified, as the tokenizer reads it: the query 音乐, which
// finds the page, marks it.
func TestSnippetTraditionalCompatibilityIdeograph(t *testing.T) {
	text := "古典音\uF914的歷史"
	for _, q := range []string{"音乐", "音樂"} {
		if got, want := Snippet(text, []string{q}, 0), "古典<mark>音\uF914</mark>的歷史"; got != want {
			t.Errorf("Snippet(%q) = %q; want %q", q, got, want)
		}
	}
}
