package textproc

import (
	"golang.org/x/text/unicode/norm"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/yanyiwu/gojieba"
)

func TestTokensChinese(t *testing.T) {
	tests := []struct {
		text    string
		want    []string // must be present
		stopped []string // stop words in text that must be absent
	}{
		{
			text:    "我们在北京大学学习自然语言处理和机器学习，这是一个很有意思的领域。",
			want:    []string{"北京大学", "学习", "处理", "机器", "领域"},
			stopped: []string{"我们", "在", "和", "这", "是", "一个", "很", "的"},
		},
		{
			text:    "聚焦爬虫根据主题相关性选择要抓取的链接，而不是广度优先地遍历整个网络。",
			want:    []string{"聚焦", "爬虫", "主题", "相关性", "抓取", "链接", "遍历", "网络"},
			stopped: []string{"根据", "要", "的", "而", "不是", "地"},
		},
	}
	tk := Shared()
	for _, tt := range tests {
		got := tk.Tokens(tt.text)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Tokens(%q) = %q, missing %q", tt.text, got, w)
			}
		}
		for _, w := range tt.stopped {
			if slices.Contains(got, w) {
				t.Errorf("Tokens(%q) = %q, contains stop word %q", tt.text, got, w)
			}
		}
		for _, w := range got {
			if strings.ContainsAny(w, "，。 ") {
				t.Errorf("Tokens(%q) has punctuation token %q", tt.text, w)
			}
		}
	}
}

func TestTokensEnglish(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"The Quick brown FOX jumps over the lazy dog.", []string{"quick", "brown", "fox", "jumps", "lazy", "dog"}},
		{"Hello, world!!! (Crawling) -- \"focused\" [crawler]; done?", []string{"hello", "world", "crawling", "focused", "crawler"}},
		{"Don't stop: it's the crawler's e-mail, isn't it?", []string{"stop", "crawler", "e-mail"}},
		{"O’Reilly’s book on real‑time systems", []string{"o'reilly", "book", "real-time", "systems"}},
		{"Python 3.14 ships in 2025; call 5551234567 or see RFC 9110 section 7", []string{"python", "3.14", "ships", "2025", "call", "see", "rfc", "9110", "section"}},
		{"covid-19 and utf-8 via snake_case names, not node.js", []string{"covid-19", "utf-8", "snake_case", "names", "node", "js"}},
		{"a b c x y z I", nil},
		{"Ünïcode CAFÉ naïve Straße", []string{"ünïcode", "café", "naïve", "straße"}},
		{"trailing-hyphen- 'quoted' it''s __init__", []string{"trailing-hyphen", "quoted", "init"}},
	}
	tk := Shared()
	for _, tt := range tests {
		if got := tk.Tokens(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q)\n got %q\nwant %q", tt.text, got, tt.want)
		}
	}
}

func TestTokensMixed(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Go语言的goroutine调度", []string{"go", "语言", "goroutine", "调度"}},
		{"使用Elasticsearch和SQLite建立索引", []string{"使用", "elasticsearch", "sqlite", "建立", "索引"}},
	}
	tk := Shared()
	for _, tt := range tests {
		if got := tk.Tokens(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q)\n got %q\nwant %q", tt.text, got, tt.want)
		}
	}
}

func TestFullWidth(t *testing.T) {
	tk := Shared()
	got := tk.Tokens("ＧｏｏｇｌｅＭａｐｓ　２０２４，ＴＨＥ　ｅ－ｍａｉｌ：ｄｏｎ＇ｔ")
	want := []string{"googlemaps", "2024", "e-mail"}
	if !slices.Equal(got, want) {
		t.Errorf("Tokens(full-width) = %q, want %q", got, want)
	}
	// Full-width and half-width spellings must give the same terms.
	if a, b := tk.Segment("Ｗｅｂ爬虫ＡＰＩ"), tk.Segment("Web爬虫API"); a != b {
		t.Errorf("Segment full-width %q != half-width %q", a, b)
	}
}

func TestEmpty(t *testing.T) {
	tk := Shared()
	for _, s := range []string{"", " ", "\t\n\r  ", "，。！？ ... --- !!!", "的了和是", "the of and"} {
		if got := tk.Tokens(s); len(got) != 0 {
			t.Errorf("Tokens(%q) = %q, want none", s, got)
		}
		if got := tk.Segment(s); got != "" {
			t.Errorf("Segment(%q) = %q, want empty", s, got)
		}
		if got := tk.TermFreq(s); len(got) != 0 {
			t.Errorf("TermFreq(%q) = %v, want empty", s, got)
		}
	}
}

func TestSegment(t *testing.T) {
	tk := Shared()
	got := tk.Segment("中华人民共和国成立于1949年，首都是北京。")
	words := strings.Split(got, " ")
	// CutForSearch adds sub-words of long words, so a query for a part of a
	// word matches documents containing the whole.
	for _, w := range []string{"中华人民共和国", "人民", "共和国", "成立", "1949", "首都", "北京"} {
		if !slices.Contains(words, w) {
			t.Errorf("Segment = %q, missing %q", got, w)
		}
	}
	for _, w := range []string{"于", "是", "，", ""} {
		if slices.Contains(words, w) {
			t.Errorf("Segment = %q, contains %q", got, w)
		}
	}
	if strings.Contains(got, "  ") || strings.TrimSpace(got) != got {
		t.Errorf("Segment = %q, want single spaces between terms", got)
	}
}

// Index and query both use Segment while scoring uses Tokens; for non-Han
// text the two must produce exactly the same terms.
func TestSegmentAgreesWithTokensOnEnglish(t *testing.T) {
	tk := Shared()
	for _, s := range []string{
		"The Crawler's E-Mail didn't arrive; Python 3.14, ＡＰＩ and O’Reilly books.",
		englishSample,
	} {
		tokens := strings.Join(tk.Tokens(s), " ")
		if seg := tk.Segment(s); seg != tokens {
			t.Errorf("Segment(%q)\n = %q\nTokens joined = %q", s, seg, tokens)
		}
	}
}

func TestTermFreq(t *testing.T) {
	tk := Shared()
	text := "Crawler crawler CRAWLER 爬虫 and 爬虫 Web web 的"
	got := tk.TermFreq(text)
	want := map[string]int{}
	for _, w := range tk.Tokens(text) {
		want[w]++
	}
	if !maps.Equal(got, want) {
		t.Errorf("TermFreq = %v, want %v (counts of Tokens)", got, want)
	}
	if got["crawler"] != 3 || got["爬虫"] != 2 || got["web"] != 2 {
		t.Errorf("TermFreq = %v, want crawler:3 爬虫:2 web:2", got)
	}
}

func TestIsStopWord(t *testing.T) {
	tests := []struct {
		term string
		want bool
	}{
		{"the", true}, {"The", true}, {"ＴＨＥ", true}, {"it's", true}, {"don't", true},
		{"的", true}, {"我们", true}, {"没有", true},
		{"crawler", false}, {"爬虫", false}, {"go", false}, {"", false},
	}
	for _, tt := range tests {
		if got := IsStopWord(tt.term); got != tt.want {
			t.Errorf("IsStopWord(%q) = %v, want %v", tt.term, got, tt.want)
		}
	}
}

func TestStopWordLists(t *testing.T) {
	zh, en := 0, 0
	for w := range stopWords {
		if DetectLanguage(w) == "zh" {
			zh++
		} else {
			en++
		}
		if w != strings.ToLower(strings.TrimSpace(w)) {
			t.Errorf("stop word %q is not in term form", w)
		}
	}
	if zh < 150 || en < 150 {
		t.Errorf("stop-word lists have %d Chinese and %d English entries, want >= 150 each", zh, en)
	}
}

func TestDetectLanguage(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"", ""},
		{"1234 !!! ，。", ""},
		{"The quick brown fox", "en"},
		{"聚焦爬虫", "zh"},
		{"Go语言的goroutine调度", "zh"},       // 5 Han of 16 letters
		{"Using Elasticsearch 中文", "en"}, // 2 Han of 21 letters
		{"Ünïcode café", "en"},
	}
	for _, tt := range tests {
		if got := DetectLanguage(tt.text); got != tt.want {
			t.Errorf("DetectLanguage(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestConcurrentShared(t *testing.T) {
	texts := []string{chineseSample, englishSample, "Go语言的goroutine调度", "ＡＰＩ和SDK"}
	want := make([][]string, len(texts))
	wantSeg := make([]string, len(texts))
	for i, s := range texts {
		want[i] = Shared().Tokens(s)
		wantSeg[i] = Shared().Segment(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 16 {
		wg.Go(func() {
			for k := range 20 {
				i := (g + k) % len(texts)
				tk := Shared()
				if got := tk.Tokens(texts[i]); !slices.Equal(got, want[i]) {
					errs <- "Tokens differ under concurrency for text " + texts[i][:12]
					return
				}
				if got := tk.Segment(texts[i]); got != wantSeg[i] {
					errs <- "Segment differs under concurrency"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestCloseAndReload(t *testing.T) {
	tk := Shared()
	before := tk.Tokens("聚焦爬虫")
	Close()
	Close() // idempotent
	// A handle obtained before Close reloads the dictionaries on use.
	if got := tk.Tokens("聚焦爬虫"); !slices.Equal(got, before) {
		t.Errorf("Tokens after Close = %q, want %q", got, before)
	}
	if Shared() != tk {
		t.Error("Shared after Close returned a different instance")
	}
}

func TestDictDirOverride(t *testing.T) {
	t.Setenv(DictDirEnv, t.TempDir())
	if _, err := dictPaths(); err == nil || !strings.Contains(err.Error(), DictDirEnv) {
		t.Errorf("dictPaths with an empty %s: err = %v, want an error naming the variable", DictDirEnv, err)
	}
	t.Setenv(DictDirEnv, gojieba.DICT_DIR)
	paths, err := dictPaths()
	if err != nil {
		t.Fatalf("dictPaths with %s=%s: %v", DictDirEnv, gojieba.DICT_DIR, err)
	}
	if len(paths) != len(dictFiles) || !strings.HasPrefix(paths[0], gojieba.DICT_DIR) {
		t.Errorf("dictPaths = %q, want files under %s", paths, gojieba.DICT_DIR)
	}
}

const chineseSample = `聚焦爬虫是一种根据预先设定的主题有选择地抓取网页的程序。与通用爬虫不同，它并不追求覆盖整个互联网，
而是尽可能多地下载与主题相关的页面，同时尽量少地浪费带宽在无关页面上。为了判断一个链接是否值得跟进，
聚焦爬虫通常会分析锚文本、链接周围的文字以及父页面的相关度，并使用向量空间模型或者朴素贝叶斯分类器计算相似度。
在中文网站上，由于词与词之间没有空格，必须先进行分词，例如使用结巴分词把句子切分成词语，再去掉停用词。`

const englishSample = `A focused crawler is a program that downloads web pages relevant to a predefined topic.
Unlike a general-purpose crawler, it doesn't try to cover the whole Web; instead it prioritises links whose
anchor text, surrounding text and parent page look relevant, using vector-space similarity or a Naive Bayes
classifier. Its frontier is ordered by predicted relevance, and pages below the threshold (θ = 0.3) are dropped.`

func repeatTo(s string, n int) string {
	return strings.Repeat(s, n/len(s)+1)[:n]
}

func BenchmarkTokensChinese(b *testing.B) {
	text := strings.ToValidUTF8(repeatTo(chineseSample, 4096), "")
	tk := Shared()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tk.Tokens(text)
	}
}

// BenchmarkTokensTraditional: the Chinese sample in Traditional
// characters, converted to Simplified run by run (package hant) before it is
// cut.
func BenchmarkTokensTraditional(b *testing.B) {
	text := strings.ToValidUTF8(repeatTo(traditionalSample, 4096), "")
	tk := Shared()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tk.Tokens(text)
	}
}

// traditionalSample is a Traditional Chinese paragraph on the crawler's
// subject (Taiwan usage).
const traditionalSample = `主題爬蟲是一種只下載與預先定義的主題相關的網頁的程式。與通用爬蟲不同，它不會嘗試涵蓋整個網路，
而是根據連結的錨點文字、周圍文字與父網頁的相關性為連結排序，使用向量空間模型或單純貝氏分類器。
它的待抓取佇列按預測的相關性排序，低於門檻的網頁會被捨棄；軟體套件與伺服器設定的說明文件也是常見的目標。`

func BenchmarkTokensEnglish(b *testing.B) {
	text := repeatTo(englishSample, 4096)
	tk := Shared()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tk.Tokens(text)
	}
}

func BenchmarkSegment(b *testing.B) {
	text := strings.ToValidUTF8(repeatTo(chineseSample+englishSample, 4096), "")
	tk := Shared()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tk.Segment(text)
	}
}

func BenchmarkTermFreqEnglish(b *testing.B) {
	text := repeatTo(englishSample, 4096)
	tk := Shared()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tk.TermFreq(text)
	}
}

// TestTermFreqSegment: one pass gives TermFreq's terms and Segment's text,
// on Chinese with long words (whose search-mode sub-words must reach only
// the index text), repeated long words, stop words, mixed scripts and the
// package's samples.
func TestTermFreqSegment(t *testing.T) {
	tk := Shared()
	for _, text := range []string{
		"", "中华人民共和国成立了。中华人民共和国万岁", "我来到北京清华大学，小明硕士毕业于中国科学院计算所，后在日本京都大学深造",
		"南京市长江大桥的 GIMP 滤镜：高斯模糊、锐化（反锐化遮罩）和噪声", "的了和是 the of and", "Go语言的goroutine调度 API ＡＰＩ",
		"研究生命起源研究生命起源", chineseSample, englishSample, chineseSample + "\n" + englishSample,
	} {
		checkTermFreqSegment(t, tk, text)
	}
	// The sub-words are there: the index text has more words than the terms.
	tf, seg := tk.TermFreqSegment("中华人民共和国")
	n := 0
	for _, c := range tf {
		n += c
	}
	if words := len(strings.Fields(seg)); words <= n {
		t.Errorf("TermFreqSegment(中华人民共和国): index text %q has %d words, terms %v %d; want the search sub-words too", seg, words, tf, n)
	}
}

// BenchmarkPageTerms is a page's tokenizer work: its terms (TermFreq) and
// its index text (Segment), by two calls ("separate", what the crawler did
// until 2026-11-26) or by TermFreqSegment's one pass ("one pass"), over the
// mixed Chinese and English sample and over English alone.
func BenchmarkPageTerms(b *testing.B) {
	tk := Shared()
	for _, lang := range []struct{ name, text string }{
		{"mixed", strings.ToValidUTF8(repeatTo(chineseSample+englishSample, 4096), "")},
		{"english", repeatTo(englishSample, 4096)},
	} {
		b.Run(lang.name+"/separate", func(b *testing.B) {
			b.SetBytes(int64(len(lang.text)))
			b.ReportAllocs()
			for b.Loop() {
				tk.TermFreq(lang.text)
				tk.Segment(lang.text)
			}
		})
		b.Run(lang.name+"/one pass", func(b *testing.B) {
			b.SetBytes(int64(len(lang.text)))
			b.ReportAllocs()
			for b.Loop() {
				tk.TermFreqSegment(lang.text)
			}
		})
	}
}

// TestInvisibleFormatCharacters: format characters (Unicode category Cf:
// zero-width space, joiners, word joiner, BOM, soft hyphen, direction
// marks) inside a word are dropped, not taken for word boundaries, so
// "pa\u200bth" is the term "path" in a page and in a query alike. They used
// to split the word ("pa th"), and a search for "path" missed the page.
func TestInvisibleFormatCharacters(t *testing.T) {
	tk := Shared()
	for _, tt := range []struct{ text, plain string }{
		{"pa\u200bth", "path"},
		{"Pa\u200cth pa\u200dth pa\u2060th pa\ufeffth", "Path path path path"},
		{"hyphen\u00adation", "hyphenation"},
		{"\u200bleading trailing\u200b \u200e\u200fmarks\u200e", "leading trailing marks"},
		{"e\u200b-mail covid-\u200b19 don\u200b't", "e-mail covid-19 don't"},
		{"ＡＰ\u200bＩ", "ＡＰＩ"},
		{"自然\u200b语言\u200d处理", "自然语言处理"},
		{"Go\u200b语言", "Go语言"},
	} {
		if got, want := tk.Segment(tt.text), tk.Segment(tt.plain); got != want {
			t.Errorf("Segment(%q) = %q; want %q, as for %q", tt.text, got, want, tt.plain)
		}
		if got, want := tk.Tokens(tt.text), tk.Tokens(tt.plain); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q; want %q, as for %q", tt.text, got, want, tt.plain)
		}
		checkTermFreqSegment(t, tk, tt.text)
	}
	// Nothing but format characters is nothing.
	if got := tk.Segment("\u200b\u200c\ufeff"); got != "" {
		t.Errorf("Segment(format characters only) = %q; want empty", got)
	}
}

// TestNoOverlongWords: a run of letters and digits longer than MaxWordBytes
// is no word, in every output; a SHA-512 digest (128 bytes) and the words
// around a long run stay.
func TestNoOverlongWords(t *testing.T) {
	tk := Shared()
	digest := strings.Repeat("cf83e135", 16)
	hex := strings.Repeat("0123456789abcdef", 40) // 640 bytes
	text := "contract bytecode " + hex + " " + strings.Repeat("龘靐齉", 400) + " sha512 " + digest + " end"
	tf := tk.TermFreq(text)
	for term := range tf {
		if len(term) > MaxWordBytes {
			t.Errorf("TermFreq has a %d-byte term", len(term))
		}
	}
	for _, w := range strings.Fields(tk.Segment(text)) {
		if len(w) > MaxWordBytes {
			t.Errorf("Segment has a %d-byte word", len(w))
		}
	}
	for _, want := range []string{"contract", "bytecode", "end", digest} {
		if tf[want] != 1 {
			t.Errorf("TermFreq[%.20q] = %d, want 1", want, tf[want])
		}
	}
}

// TestDecomposedIsPrecomposed: a word written with combining marks (NFD,
// as macOS file names and some editors write it) is the same term as its
// precomposed form, in pages and queries alike.
func TestDecomposedIsPrecomposed(t *testing.T) {
	tk := Shared()
	for nfd, nfc := range map[string]string{"cafe\u0301 au lait": "café au lait", "nai\u0308ve Ångstro\u0308m": "naïve Ångström",
		"CAFE\u0301": "café", "Ｃａｆｅ\u0301": "café"} {
		got, want := tk.TermFreq(nfd), tk.TermFreq(nfc)
		if !maps.Equal(got, want) {
			t.Errorf("TermFreq(%q) = %q; want %q, the terms of %q", nfd, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)), nfc)
		}
		if seg, want := tk.Segment(nfd), tk.Segment(nfc); seg != want {
			t.Errorf("Segment(%q) = %q; want %q", nfd, seg, want)
		}
	}
}

// TestCompatibilityIdeographIsUnified: a CJK compatibility ideograph
// (U+F900–U+FAFF, U+2F800–; EUC-KR's duplicate Hanja decode to them) is in
// NFC its unified ideograph, so a Han run's terms are the unified form's,
// as every other term is in NFC.
func TestCompatibilityIdeographIsUnified(t *testing.T) {
	tk := Shared()
	for compat, unified := range map[string]string{"我\uF967知道": "我不知道", "\uF9E0经": "易经", "\U0002F800": "\u4E3D"} {
		if got, want := tk.TermFreq(compat), tk.TermFreq(unified); !maps.Equal(got, want) {
			t.Errorf("TermFreq(%q) = %q; want %q, the terms of %q", compat, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)), unified)
		}
		if got, want := tk.Segment(compat), tk.Segment(unified); got != want {
			t.Errorf("Segment(%q) = %q; want %q", compat, got, want)
		}
		if got, want := tk.Tokens(compat), tk.Tokens(unified); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q; want %q", compat, got, want)
		}
		checkTermFreqSegment(t, tk, compat)
	}
}

// TestHasCompatIdeograph: the byte scan finds exactly the runes NFC
// changes among Han characters (the compatibility ideographs), so the Han
// path asks NFC only of runs that hold one.
func TestHasCompatIdeograph(t *testing.T) {
	for r := rune(0x2E80); r <= 0x3134F; r++ {
		if !isHan(r) {
			continue
		}
		s := "中" + string(r) + "文"
		changes := !norm.NFC.IsNormalString(s)
		if changes && !hasCompatIdeograph(s) {
			t.Fatalf("U+%04X: NFC changes it, the scan misses it", r)
		}
		if hasCompatIdeograph(s) != (r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F) {
			t.Fatalf("U+%04X: scan %v", r, hasCompatIdeograph(s))
		}
	}
}

// TestTraditionalIsSimplified: a Traditional Chinese sentence gives the
// terms of its Simplified counterpart — cut with gojieba's Simplified
// dictionary, its stop words dropped, the Taiwan words turned into the
// mainland's (軟體 → 软件, 網路 → 网络) — so one topic finds both.
func TestTraditionalIsSimplified(t *testing.T) {
	tk := Shared()
	for trad, simp := range map[string]string{
		"網頁爬蟲的連結預測與軟體套件管理系統": "网页爬虫的链接预测与软件套件管理系统",
		// 介面 and 伺服器 are written alike in both scripts and stay
		// (TestTraditionalWordInContext): Taiwan words, as a Taiwan query
		// types them.
		"設定網路介面與防火牆規則，然後重新啟動伺服器。":      "设置网络介面与防火墙规则，然后重新启动伺服器。",
		"Debian 套件維護者指南（第 2 版）說明了這個流程": "Debian 套件维护者指南（第 2 版）说明了这个流程",
	} {
		if got, want := tk.Tokens(trad), tk.Tokens(simp); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q; want %q, the terms of %q", trad, got, want, simp)
		}
		if got, want := tk.Segment(trad), tk.Segment(simp); got != want {
			t.Errorf("Segment(%q) = %q; want %q", trad, got, want)
		}
		checkTermFreqSegment(t, tk, trad)
	}
	// Before, the Traditional run was cut apart and kept its stop word.
	if got := tk.Tokens("管理系統與"); !slices.Equal(got, []string{"管理系统"}) {
		t.Errorf("Tokens(管理系統與) = %q; want [管理系统]", got)
	}
}

// TestTraditionalCompatibilityIdeograph: a CJK compatibility ideograph whose
// unified form is traditional-only (樂 U+F914 is 樂 U+6A02) makes its run
// Traditional, as the unified character does: the run is converted after
// NFC, not judged by its compatibility code point. Before, "音\uF914" gave
// the term 音樂 where "音樂" gave 音乐.
func TestTraditionalCompatibilityIdeograph(t *testing.T) {
	tk := Shared()
	compat, unified := "音\uF914", "音樂"
	if got, want := tk.Tokens(compat), tk.Tokens(unified); !slices.Equal(got, want) || !slices.Equal(want, []string{"音乐"}) {
		t.Errorf("Tokens(%q) = %q, Tokens(%q) = %q; want both [音乐]", compat, got, unified, want)
	}
	if got, want := tk.Segment(compat), tk.Segment(unified); got != want {
		t.Errorf("Segment(%q) = %q; want %q", compat, got, want)
	}
	checkTermFreqSegment(t, tk, compat)
}

// TestTraditionalConvertedToLatin: a Taiwan word whose mainland word holds
// Latin letters (隨身碟 → U盘) gives the terms the mainland word gives,
// its letters read as the tokenizer reads any (a lone "U" is no term, and
// no term is upper-case). Before, gojieba was handed "U盘" and "U" was a
// term.
func TestTraditionalConvertedToLatin(t *testing.T) {
	tk := Shared()
	for trad, simp := range map[string]string{"隨身碟": "U盘", "插入隨身碟後": "插入U盘后"} {
		if got, want := tk.Tokens(trad), tk.Tokens(simp); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q; want %q, the terms of %q", trad, got, want, simp)
		}
		if got, want := tk.Segment(trad), tk.Segment(simp); got != want {
			t.Errorf("Segment(%q) = %q; want %q", trad, got, want)
		}
		checkTermFreqSegment(t, tk, trad)
	}
}

// TestSimplifiedAsTokenized: Simplified converts the runs the tokenizer
// converts, as it converts them, so that text and its Simplified form give
// the same terms; text without a traditional-only character is returned
// as it is.
func TestSimplifiedAsTokenized(t *testing.T) {
	tk := Shared()
	for _, text := range []string{
		traditionalSample, "網路 設定", "記憶\u200b體不足", "音\uF914", "插入隨身碟後", "乾隆年間與乾隆皇帝", "Go 語言的 goroutine",
	} {
		s := Simplified(text)
		if s == text {
			t.Errorf("Simplified(%q) converted nothing", text)
		}
		if got, want := tk.Segment(s), tk.Segment(text); got != want {
			t.Errorf("Segment(Simplified(%q)) = %q; want %q", text, got, want)
		}
	}
	for _, text := range []string{"", "网页爬虫的链接预测", "乾隆皇帝", "plain English"} {
		if got := Simplified(text); got != text {
			t.Errorf("Simplified(%q) = %q; want it unchanged", text, got)
		}
	}
}

// TestTraditionalWordInContext: a word written with characters Traditional
// and Simplified share (使用者, 建立, 向量, 伺服器) gives the same terms
// in a Traditional sentence as alone — the query a Taiwan user types, or a
// mainland user's, which the tokenizer does not convert. Before, OpenCC's
// Taiwan phrases rewrote such words where a traditional-only character
// stood in the same run (使用者設定 → 用户设置, 建立網路 → 创建网络,
// 向量空間 → 矢量空间) and left them alone elsewhere, so the query 使用者
// or 向量 missed Taiwan pages it found before the conversion.
func TestTraditionalWordInContext(t *testing.T) {
	tk := Shared()
	for word, sentence := range map[string]string{
		"使用者": "使用者設定儲存在伺服器上",
		"建立":  "建立網路連線",
		"向量":  "向量空間模型與單純貝氏分類器",
		"伺服器": "然後重新啟動伺服器。",
		"程式":  "電腦程式的錯誤",
		"文件":  "軟體套件的說明文件",
	} {
		seg := strings.Fields(tk.Segment(sentence))
		for _, term := range tk.Tokens(word) {
			if !slices.Contains(seg, term) {
				t.Errorf("Segment(%q) = %q has no %q, the term of %q", sentence, seg, term, word)
			}
		}
	}
}

// TestLazyLoadsAtFirstHanText: Lazy hands out the shared tokenizer without
// loading gojieba's dictionaries; Latin text is cut without them, and the
// first Han text loads them. `search topics` and a search in Latin script
// paid a second of dictionary loading for nothing.
func TestLazyLoadsAtFirstHanText(t *testing.T) {
	Close()
	loaded := func() bool {
		shared.mu.RLock()
		defer shared.mu.RUnlock()
		return shared.jb != nil
	}
	tok := Lazy()
	if got := tok.Segment("Gradient descent, step by step"); got == "" || loaded() {
		t.Fatalf("Latin text: %q, dictionaries loaded %v; want terms without them", got, loaded())
	}
	if got := tok.Segment("高斯模糊滤镜"); got == "" || !loaded() {
		t.Fatalf("Han text: %q, dictionaries loaded %v; want them loaded", got, loaded())
	}
}
