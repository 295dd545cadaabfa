package sqlitefts

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"focuscrawl/internal/index"
	"focuscrawl/internal/textproc"
)

// TestRealChineseSegmentation runs the index with the project's tokenizer on
// unsegmented Chinese: the query and the documents are cut by gojieba, not
// by spaces written into the test.
func TestRealChineseSegmentation(t *testing.T) {
	x := openWithTokenizer(t)
	mustUpsert(t, x,
		doc("photo", "filters", "cn.example", "常用滤镜介绍", "这篇文章介绍如何给图像添加滤镜，让照片更好看。"),
		doc("photo", "coffee", "cn.example", "咖啡器具", "手冲咖啡需要一个滤镜和一壶热水。"),
		doc("photo", "resize", "cn.example", "图片处理", "如何调整图像的大小和分辨率。"),
	)
	res := mustSearch(t, x, index.Query{Text: "图像滤镜"})
	if got := sortedIDs(res); got != "filters" {
		t.Fatalf("Search(图像滤镜) = [%s], want [filters]", got)
	}
	s := res.Hits[0].Snippet
	if !strings.Contains(s, "<mark>图像</mark>") || !strings.Contains(s, "<mark>滤镜</mark>") {
		t.Errorf("snippet %q does not mark 图像 and 滤镜", s)
	}
	if res := mustSearch(t, x, index.Query{Text: "滤镜", Topic: "photo"}); sortedIDs(res) != "coffee,filters" {
		t.Errorf("Search(滤镜) = [%s], want [coffee,filters]", sortedIDs(res))
	}
}

// TestInvisibleCharactersInWords: a zero-width space (or another format
// character) inside a word of a page or of a query does not split the
// word: the page with "pa\u200bth" is found by "path", and the page with
// "path" by a query "pa\u200bth" (pasted from such a page).
func TestInvisibleCharactersInWords(t *testing.T) {
	x := openWithTokenizer(t)
	mustUpsert(t, x, filler("t", 4)...)
	mustUpsert(t, x,
		doc("t", "zwsp", "a.example", "Routing", "The shortest pa\u200bth between two nodes."),
		doc("t", "plain", "b.example", "Walking", "A garden path lined with roses."),
	)
	for _, q := range []string{"path", "pa\u200bth", "PA\u2060TH"} {
		if got := sortedIDs(mustSearch(t, x, index.Query{Text: q, Topic: "t"})); got != "plain,zwsp" {
			t.Errorf("Search(%q) = [%s]; want [plain,zwsp]", q, got)
		}
	}
}

// openWithTokenizer opens an index in a temporary directory, closed with the
// test, on the project's tokenizer (the test is skipped without gojieba's
// dictionaries).
func openWithTokenizer(t *testing.T) *Index {
	t.Helper()
	if err := textproc.Preload(); err != nil {
		t.Skipf("gojieba dictionaries unavailable: %v", err)
	}
	x, err := Open(t.TempDir()+"/index.db", textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// TestChinesePhraseInsideLongerWords: a quoted Chinese phrase that starts
// or ends inside one of the page's longer words is found (documents are cut
// in search mode, which writes a word's shorter words before it, so the
// phrase's tokens are not adjacent in the index: “大学读书” found nothing
// while 大学读书 unquoted found the page); the phrase still has to be in
// the text as written, not merely its words near each other.
func TestChinesePhraseInsideLongerWords(t *testing.T) {
	x := openWithTokenizer(t)
	mustUpsert(t, x, filler("t", 6)...)
	mustUpsert(t, x,
		doc("t", "pku", "a.example", "读书", "他在北京大学读书，学习计算机。"),
		doc("t", "cas", "b.example", "研究所", "中国科学院计算技术研究所成立于1956年。"),
		doc("t", "apart", "c.example", "读书与大学", "读书的人不一定上过大学。"),
		doc("t", "wrapped", "d.example", "换行", "他在北京大学\n读书。"),
		doc("t", "zw", "e.example", "NLP", "自然\u200b语言处理是人工智能的一个分支。"),
	)
	for q, want := range map[string]string{
		"大学读书":     "apart,pku,wrapped",
		"“大学读书”":   "pku,wrapped",
		`"大学 读书"`:  "pku,wrapped",
		"“技术研究所”":  "cas",
		"“研究所成立”":  "cas",
		"“在北京”":    "pku,wrapped",
		"“北京大学读书”": "pku,wrapped",
		"“读书大学”":   "",
		"“自然语言”":   "zw",
	} {
		res := mustSearch(t, x, index.Query{Text: q, Topic: "t"})
		if got := sortedIDs(res); got != want || res.Total != len(res.Hits) {
			t.Errorf("Search(%s) = [%s] (total %d); want [%s]", q, got, res.Total, want)
		}
	}
	// Without a topic filter the total is counted with the same check.
	if res := mustSearch(t, x, index.Query{Text: "“大学读书”"}); res.Total != 2 {
		t.Errorf("Search(“大学读书”) across topics: total %d, want 2", res.Total)
	}
}

// TestHanPhraseEdges: a quoted Chinese phrase pasted with an invisible
// format character in it finds what the phrase finds; a phrase of one
// word repeated looks for each token once near the others (FTS5's NEAR
// check grows with the square of the group: "经济" ×100 cost a second per
// query) and still needs its characters in a row; past index.MaxNear
// distinct tokens they are all required, without NEAR.
func TestHanPhraseEdges(t *testing.T) {
	x := openWithTokenizer(t)
	mustUpsert(t, x, filler("t", 6)...)
	mustUpsert(t, x, doc("t", "pku", "a.example", "读书", "他在北京大学读书，学习计算机。"),
		doc("t", "twice", "a.example", "经济", "经济经济，一个词写了两遍。"),
		doc("t", "once", "b.example", "经济", "经济发展，一个词写了一遍。"))
	for _, q := range []string{"“大学读书”", "“大学\u200b读书”", "“大学\u00ad读书”"} {
		if got := sortedIDs(mustSearch(t, x, index.Query{Text: q, Topic: "t"})); got != "pku" {
			t.Errorf("Search(%+q) = [%s], want [pku]", q, got)
		}
	}
	if got := sortedIDs(mustSearch(t, x, index.Query{Text: "“经济经济”", Topic: "t"})); got != "twice" {
		t.Errorf("“经济经济” = [%s], want [twice]: the characters in a row", got)
	}
	seg := textproc.Shared()
	long := "“" + strings.Repeat("经济", 100) + "”"
	terms, phrases, err := index.ParseQuery(long, seg)
	if err != nil {
		t.Fatal(err)
	}
	if expr := matchExpression(terms, nil, phrases, index.HanPhrases(long, seg)); strings.Count(expr, "经济") != 1 {
		t.Errorf("match expression %q: want the repeated token once", expr)
	}
	sentence := "“中国政府高度重视科技创新不断加大对科学研究的投入”"
	terms, phrases, _ = index.ParseQuery(sentence, seg)
	if expr := matchExpression(terms, nil, phrases, index.HanPhrases(sentence, seg)); strings.Contains(expr, "NEAR") {
		t.Errorf("match expression %q: over index.MaxNear distinct tokens, want no NEAR group", expr)
	}
}

// TestHanWordInsideLongerWord: a Chinese word of four characters or more
// is found, quoted or not, in a page that holds it inside a longer word,
// where the index has no token for it: 中华人民共和国 is indexed as 中华 华人
// 人民 共和 共和国 中华人民共和国 (no 人民共和国), and
// 中华人民共和国中央人民政府, one dictionary word, has no token
// 中华人民共和国. Both queries found nothing. A page with the word's parts
// near each other but not in a row, or far apart, is not found.
func TestHanWordInsideLongerWord(t *testing.T) {
	x := openWithTokenizer(t)
	mustUpsert(t, x, filler("t", 6)...)
	far := "，这是一段很长的说明文字，和前面的内容没有什么关系，只是为了让两个词相隔很远，再多写几句也无妨。"
	mustUpsert(t, x,
		doc("t", "prc", "a.example", "历史", "中华人民共和国成立于一九四九年。"),
		doc("t", "gov", "b.example", "政府", "中华人民共和国中央人民政府是最高国家行政机关。"),
		doc("t", "near", "c.example", "民族", "中华的华人和人民的共和国。"),
		doc("t", "far", "d.example", "民族", "中华的华人和人民"+far+far+"共和国。"),
	)
	for _, q := range []string{"人民共和国", "“人民共和国”", "中华人民共和国", "“中华人民共和国”", "人民共和国 成立", "“人民共和国成立”"} {
		want := "gov,prc"
		if strings.Contains(q, "成立") {
			want = "prc"
		}
		res := mustSearch(t, x, index.Query{Text: q, Topic: "t"})
		if got := sortedIDs(res); got != want || res.Total != len(res.Hits) {
			t.Errorf("Search(%s) = [%s] (total %d); want [%s]", q, got, res.Total, want)
		}
		// Without filters the count has the same checks.
		if res := mustSearch(t, x, index.Query{Text: q}); res.Total != strings.Count(want, ",")+1 {
			t.Errorf("Search(%s) without a topic: total %d, want %d", q, res.Total, strings.Count(want, ",")+1)
		}
	}
	// The parts alone find the pages that have them, near or not.
	if got := sortedIDs(mustSearch(t, x, index.Query{Text: "人民 共和国", Topic: "t"})); got != "far,gov,near,prc" {
		t.Errorf("Search(人民 共和国) = [%s], want [far,gov,near,prc]", got)
	}
}

// TestHanCharsIgnoreEveryFormatAndSpaceCharacter: a quoted Chinese phrase
// finds a page with any invisible format character (Unicode Cf, which the
// tokenizer drops inside a run of Han characters) or any whitespace
// between its characters, as the same words unquoted do: the check of the
// characters in a row passed over six format characters while the query
// was stripped of all of them, so “大学读书” missed 北京大学\u200e读书
// (a left-to-right mark) and 北京大学\u2063读书, and a line break written
// \r\n or a no-break space too.
func TestHanCharsIgnoreEveryFormatAndSpaceCharacter(t *testing.T) {
	x := openWithTokenizer(t)
	mustUpsert(t, x, filler("t", 6)...)
	var docs []index.Document
	want := map[string]bool{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			id := fmt.Sprintf("%U", r)
			want[id] = true
			docs = append(docs, doc("t", id, "a.example", "读书", "他在北京大学"+string(r)+"读书，学习计算机。"))
		}
	}
	mustUpsert(t, x, docs...)
	mustUpsert(t, x, doc("t", "comma", "b.example", "读书", "他在北京大学，读书，学习计算机。"))
	for _, q := range []string{"“大学读书”", "“大学\u200e读书”", "“大学\u2063读书”", "“大学\u3000读书”"} {
		got := map[string]bool{}
		res := mustSearch(t, x, index.Query{Text: q, Topic: "t", Limit: index.MaxLimit})
		for off := 0; off < res.Total; off += index.MaxLimit {
			page := mustSearch(t, x, index.Query{Text: q, Topic: "t", Limit: index.MaxLimit, Offset: off})
			for _, h := range page.Hits {
				got[h.ID] = true
			}
		}
		for id := range want {
			if !got[id] {
				t.Errorf("Search(%+q) misses the page with %s between 大学 and 读书", q, id)
			}
		}
		if got["comma"] || res.Total != len(want) {
			t.Errorf("Search(%+q): total %d (comma page found: %v), want %d", q, res.Total, got["comma"], len(want))
		}
	}
}

// protectedPages are pages about C++, C#, C and a c-section, for the
// protected-token tests.
func protectedPages() []index.Document {
	return []index.Document{
		doc("t", "cpp", "a.example", "Templates", "Templates in C++ are resolved at compile time."),
		doc("t", "c", "b.example", "Pointers", "Pointers in C, the language of Unix."),
		doc("t", "csharp", "c.example", "Generics", "Generics in C# are reified at run time."),
		doc("t", "section", "d.example", "Surgery", "A c-section is a surgical delivery."),
		doc("t", "cppzh", "e.example", "教程", "学习Ｃ＋＋编程的教程。"),
	}
}

// TestProtectedTokensSearch: a search for "C++" finds the pages with C++
// (full-width included) and not every page with a bare "c" — the page on
// C, the page on C#, the "c-section" — and "c#" likewise. Before, "C++"
// had no searchable word; with "c++" a term but FTS5's unicode61 splitting
// at "+", it was "c" and found the C# and c-section pages too.
func TestProtectedTokensSearch(t *testing.T) {
	x := openWithTokenizer(t)
	mustUpsert(t, x, filler("t", 6)...)
	mustUpsert(t, x, protectedPages()...)
	for q, want := range map[string]string{
		"C++":                "cpp,cppzh",
		"c++":                "cpp,cppzh",
		"Ｃ＋＋":                "cpp,cppzh",
		"c++ 编程":             "cppzh",
		"C++编程":              "cppzh",
		"c#":                 "csharp",
		"C# time":            "csharp",
		"\"C# are reified\"": "csharp",
		"c-section":          "section",
	} {
		res := mustSearch(t, x, index.Query{Text: q, Topic: "t"})
		if got := sortedIDs(res); got != want {
			t.Errorf("Search(%q) = [%s]; want [%s]", q, got, want)
		}
	}
	res := mustSearch(t, x, index.Query{Text: "C++", Topic: "t"})
	for _, h := range res.Hits {
		if h.ID == "cpp" && !strings.Contains(h.Snippet, "<mark>C++</mark>") {
			t.Errorf("snippet %q does not mark C++", h.Snippet)
		}
	}
}

// TestUpgradeResegments: an index written before the protected tokens
// (schema version 2: unicode61 without token characters, text segmented by
// a tokenizer that dropped "C++") is segmented again from the stored text
// when opened, so "C++" finds its page at once and "c" alone finds
// nothing spurious.
func TestUpgradeResegments(t *testing.T) {
	if err := textproc.Preload(); err != nil {
		t.Skipf("gojieba dictionaries unavailable: %v", err)
	}
	path := t.TempDir() + "/index.db"
	x, err := Open(path, textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	mustUpsert(t, x, filler("t", 6)...)
	mustUpsert(t, x, protectedPages()...)
	// Back to version 2's table, with the old segmentation: without "c++",
	// "c#", and with c-section's "c".
	old := map[string]string{
		"cpp": "templates resolved compile time", "c": "pointers language unix",
		"csharp": "generics reified run time", "section": "c-section surgical delivery", "cppzh": "学习 编程 教程",
	}
	for _, stmt := range []string{
		`DROP TABLE docs_fts`,
		`CREATE VIRTUAL TABLE docs_fts USING fts5(title, body, anchors, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`,
		`INSERT INTO docs_fts (rowid, title, body, anchors) SELECT docid, lower(title), 'nothing see here', '' FROM docs WHERE id LIKE 'filler%'`,
		`PRAGMA user_version = 2`,
	} {
		if _, err := x.db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for id, text := range old {
		if _, err := x.db.Exec(`INSERT INTO docs_fts (rowid, title, body, anchors) SELECT docid, lower(title), ?, '' FROM docs WHERE id = ?`, text, id); err != nil {
			t.Fatal(err)
		}
	}
	if got := sortedIDs(mustSearch(t, x, index.Query{Text: "c++", Topic: "t"})); got != "section" {
		t.Fatalf("the version 2 index: Search(c++) = [%s]; want the old behaviour, [section]", got)
	}
	x.Close()

	x = reopenUpgraded(t, path, textproc.Shared())
	for q, want := range map[string]string{"C++": "cpp,cppzh", "c#": "csharp", "unix": "c", "surgical": "section"} {
		if got := sortedIDs(mustSearch(t, x, index.Query{Text: q, Topic: "t"})); got != want {
			t.Errorf("after the upgrade: Search(%q) = [%s]; want [%s]", q, got, want)
		}
	}
	if n := mustCount(t, x, ""); n != 11 {
		t.Errorf("after the upgrade: %d documents, want 11", n)
	}
}
