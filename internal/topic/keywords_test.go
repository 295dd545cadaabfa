package topic

import (
	"math"
	"strings"
	"testing"
	"unicode"

	pageparse "focuscrawl/internal/parse"
)

func TestTFIDFNormalizedSeed003(t *testing.T) {
	docs := []map[string]int{{"a": 2, "b": 1}, {"a": 1, "c": 3}, {"c": 1, "d": 1}}
	idf := PaperIDF(docs) // idf = log(N/n): a, c → log 1.5; b, d → log 3
	l15, l3 := math.Log(1.5), math.Log(3)
	norm := math.Sqrt(4*l15*l15 + l3*l3)
	got := TFIDFNormalized(docs[0], idf)
	for term, want := range map[string]float64{"a": 2 * l15 / norm, "b": l3 / norm} {
		if math.Abs(got[term]-want) > 1e-12 {
			t.Errorf("W(%s, d1) = %v, want %v", term, got[term], want)
		}
	}
	// Hand-checked decimals: W_a1 = 0.5939, W_b1 = 0.8045; unit length.
	if math.Abs(got["a"]-0.5939) > 1e-4 || math.Abs(got["b"]-0.8045) > 1e-4 {
		t.Errorf("decimals %v", got)
	}
	if s := got["a"]*got["a"] + got["b"]*got["b"]; math.Abs(s-1) > 1e-12 {
		t.Errorf("not unit length: %v", s)
	}
	// A term in every document has idf log(N/N) = 0 and drops out.
	two := []map[string]int{{"x": 3, "y": 1}, {"x": 1}}
	if w := TFIDFNormalized(two[0], PaperIDF(two)); len(w) != 1 || math.Abs(w["y"]-1) > 1e-12 {
		t.Errorf("W(d1) = %v, want only y = 1", w)
	}
	if w := TFIDFNormalized(map[string]int{"x": 1}, PaperIDF(two[1:])); len(w) != 0 {
		t.Errorf("all-zero document = %v, want empty", w)
	}
}

func TestKeywordLibrary(t *testing.T) {
	docs := []map[string]int{{"crawler": 4, "focus": 2, "the": 1}, {"crawler": 2, "topic": 2}}
	lib := KeywordLibrary(docs, SampleIDF(docs), 0)
	if lib["crawler"] != 1 {
		t.Fatalf("strongest term should weigh 1: %v", lib)
	}
	for _, k := range []string{"focus", "topic", "the"} {
		if lib[k] <= 0 || lib[k] >= 1 {
			t.Errorf("%s weight %v not in (0,1)", k, lib[k])
		}
	}
	if lib["the"] >= lib["focus"] {
		t.Errorf("rarer-in-document term outweighs: %v", lib)
	}
	if small := KeywordLibrary(docs, SampleIDF(docs), 2); len(small) != 2 || small["crawler"] != 1 {
		t.Errorf("size 2 = %v", small)
	}
	if len(KeywordLibrary(nil, SampleIDF(nil), 5)) != 0 {
		t.Error("empty samples give terms")
	}
}

func TestHandKeywordsWinOverLibrary(t *testing.T) {
	tp, err := Parse([]byte("name: t\nkeywords: {crawler: 2}\nbreadth: broad\nseeds: [http://x/]"))
	if err != nil {
		t.Fatal(err)
	}
	m := BuildModel(tp, 1, spaceCounter{}, []string{"crawler crawler spider", "spider web"})
	if m.Terms["crawler"] < 2 || m.Terms["spider"] <= 0 || m.Terms["spider"] > 0.5 {
		t.Fatalf("merge: %v", m.Terms)
	}
	if tp.ThresholdFactor() >= 1 {
		t.Fatal("broad topic should lower thresholds")
	}
	if _, err := Parse([]byte("name: t\nkeywords: {a: 1}\nbreadth: wide\nseeds: [http://x/]")); err == nil {
		t.Fatal("bad breadth accepted")
	}
	if _, err := Parse([]byte("name: t\nkeywords: {a: 1}\nstrategy: {tunnel: 1.5}\nseeds: [http://x/]")); err == nil {
		t.Fatal("tunnel 1.5 accepted")
	}
}

// TestTFIDFNormalizedIsDeterministic is the regression test for a norm
// summed in map order: equal inputs gave weights differing in the last bits,
// so a retried StartCrawl (or UpdateTopic) found the topic model "changed"
// and stored a new version of it.
func TestTFIDFNormalizedIsDeterministic(t *testing.T) {
	tf := map[string]int{}
	for i := range 200 {
		tf[string(rune('a'+i%26))+string(rune('a'+i/26))] = 1 + i%7
	}
	idf := func(term string) float64 { return 0.1 + float64(len(term)+int(term[0]))/37 }
	first := TFIDFNormalized(tf, idf)
	for range 50 {
		for term, w := range TFIDFNormalized(tf, idf) {
			if w != first[term] {
				t.Fatalf("%s weighs %v, then %v", term, first[term], w)
			}
		}
	}
}

// TestSiteWords: a library term on every contrast page (the site's) drops
// out, one on half of them keeps half its weight, one on none keeps it,
// and the weights are max-normalised again; a term of the examples' own
// titles keeps its weight whatever the contrast pages say.
func TestSiteWords(t *testing.T) {
	lib := map[string]float64{"manual": 1, "errors": 0.8, "compile": 0.5}
	contrast := []map[string]int{{"manual": 3, "compile": 1}, {"manual": 1, "index": 2}}
	got := SiteWords(lib, contrast, nil)
	want := map[string]float64{"errors": 1, "compile": 0.25 / 0.8}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-12 {
			t.Errorf("%s: %v, want %v (all: %v)", k, got[k], w, got)
		}
	}
	if kept := SiteWords(lib, contrast, map[string]int{"manual": 1}); kept["manual"] != 1 {
		t.Errorf("a title word of the examples was scaled: %v", kept)
	}
	if same := SiteWords(lib, nil, nil); len(same) != 3 || same["compile"] != 0.5 {
		t.Errorf("no contrast page changed the library: %v", same)
	}
}

// titledPages are pages with these titles and nothing else.
func titledPages(titles ...string) []ExamplePage {
	var ps []ExamplePage
	for _, s := range titles {
		ps = append(ps, ExamplePage{Title: s})
	}
	return ps
}

// TestSiteAffixes: the title prefix and suffix the examples share with a
// contrast page, cut at a separator, and nothing without one.
func TestSiteAffixes(t *testing.T) {
	pages := titledPages
	for _, c := range []struct {
		examples, contrast []ExamplePage
		prefix, suffix     string
	}{
		{pages("LilyPond 学习手册: 2.1 编译文件", "LilyPond 学习手册: 2.3 处理报错"), pages("LilyPond 学习手册: 2. 教程", "Other", "LilyPond 学习手册: 目录"),
			"LilyPond 学习手册: ", ""},
		// Two background titles: both must share it (the one it was taken
		// from always does).
		{pages("Error messages - Common errors"), pages("Error messages - Warnings", "Index"), "", ""},
		{pages("Pruning - Garden Wiki", "Soil - Garden Wiki"), pages("Home - Garden Wiki"), "", " - Garden Wiki"},
		{pages("Pruning roses", "Soil for roses"), pages("Climbing roses"), "", ""},
		{pages("Pruning roses"), nil, "", ""},
		// A prefix one contrast page of three shares is not the site's.
		{pages("Error messages - Common errors - Foo Manual"),
			pages("Error messages - Warnings - Foo Manual", "Index - Foo Manual", "Contents - Foo Manual"), "", " - Foo Manual"},
		// "::" is no separator set off by a space; " - " is, but only one of
		// two background titles shares "C++ - ".
		{pages("C++ - std::vector - cppreference.com"), pages("C++ - std::map - cppreference.com", "C++ reference - cppreference.com"),
			"", " - cppreference.com"},
		{pages("Jean-Paul Sartre"), pages("Jean-Paul Belmondo"), "", ""},
		// A contrast page titled as the example (a print view) counts for nothing.
		{pages("Roses – pruning – Gardening Wiki"), pages("Roses – pruning – Gardening Wiki", "Home – Gardening Wiki"), "", " – Gardening Wiki"},
		{pages("手册：编译文件"), pages("手册：目录"), "手册：", ""},
		// Texinfo's HTML: "Node (Manual)"; a bracket that does not close
		// the title, or is not set off by a space, starts no suffix.
		{pages("Plotting (GNU Octave (version 7.3.0))", "Sparse Matrices (GNU Octave (version 7.3.0))"),
			pages("Top (GNU Octave (version 7.3.0))", "Index (GNU Octave (version 7.3.0))"), "", " (GNU Octave (version 7.3.0))"},
		{pages("Sartre (philosopher)"), pages("Belmondo (actor)"), "", ""},
		{pages("f(x) (Calc)"), pages("g(x) (Calc)"), "", " (Calc)"},
		{pages("Roses (climbing) today"), pages("Home (climbing) today"), "", ""},
		{pages("玫瑰（花园百科）"), pages("首页（花园百科）"), "", "（花园百科）"},
		// Only a bracket that closes the title: not the inner one of two.
		{pages("A (B (C))", "D (E (C))"), pages("F (G (C))", "H (I (C))"), "", ""},
		// A background title that is the bracket alone does not share it
		// (no space before), so one of two is too few.
		{pages("Plotting (GNU Octave (version 7.3.0))"), pages("(GNU Octave (version 7.3.0))", "Top (GNU Octave (version 7.3.0))"), "", ""},
		{pages("x (old) list (Wiki)"), pages("y (new) list (Wiki)"), "", " (Wiki)"},
	} {
		p, s := siteAffixes(c.examples, c.contrast)
		if p != c.prefix || s != c.suffix {
			t.Errorf("examples %v, contrast %v: prefix %q suffix %q, want %q %q", c.examples, c.contrast, p, s, c.prefix, c.suffix)
		}
	}
}

// TestBootstrapDescriptionCutsTheSiteName: the description a draft gets
// from titles that end in the site's name, short page names included, and
// the site's words out of the keywords (its name is on every background
// page), the page's own title words kept.
func TestBootstrapDescriptionCutsTheSiteName(t *testing.T) {
	pages := []ExamplePage{
		{URL: "http://wiki.test/ssh", Title: "SSH - Debian Wiki", Text: "ssh keys agent ssh config debian wiki"},
		{URL: "http://wiki.test/gpg", Title: "GnuPG - Debian Wiki", Text: "gnupg keys signing debian wiki"},
	}
	contrast := []ExamplePage{
		{Title: "FrontPage - Debian Wiki", Text: "debian wiki welcome"},
		{Title: "RecentChanges - Debian Wiki", Text: "debian wiki edits"},
	}
	tp := draftFrom(t, "keys", pages, contrast, 10)
	if tp.Description != "SSH; GnuPG" {
		t.Errorf("description %q, want %q", tp.Description, "SSH; GnuPG")
	}
	for _, site := range []string{"debian", "wiki"} {
		if _, ok := tp.Keywords[site]; ok {
			t.Errorf("the site's word %q is a keyword: %v", site, tp.Keywords)
		}
	}
	if tp.Keywords["keys"] == 0 {
		t.Errorf("keywords %v lack the examples' shared word", tp.Keywords)
	}
}

// TestBootstrapSiteNameInTitle: a word of the site's title affix is the
// site's even where an example's own title has it too ("Apache SSL/TLS
// Encryption - Apache HTTP Server"): SiteWords may drop it; the title's
// other words keep their weight.
func TestBootstrapSiteNameInTitle(t *testing.T) {
	pages := []ExamplePage{
		{URL: "http://httpd.test/ssl/", Title: "Apache SSL Encryption - Apache HTTP Server", Text: "apache ssl certificate apache tls apache"},
		{URL: "http://httpd.test/ssl/faq", Title: "SSL FAQ - Apache HTTP Server", Text: "apache ssl certificate key apache"},
	}
	contrast := []ExamplePage{
		{Title: "Documentation - Apache HTTP Server", Text: "apache http server documentation"},
		{Title: "Modules - Apache HTTP Server", Text: "apache modules server"},
	}
	tp := draftFrom(t, "ssl", pages, contrast, 10)
	if tp.Description != "Apache SSL Encryption; SSL FAQ" {
		t.Errorf("description %q", tp.Description)
	}
	if _, ok := tp.Keywords["apache"]; ok {
		t.Errorf("the site's name is a keyword: %v", tp.Keywords)
	}
	if tp.Keywords["ssl"] != 1 || tp.Keywords["encryption"] == 0 {
		t.Errorf("keywords %v: want ssl strongest and the title's encryption kept", tp.Keywords)
	}
}

// TestTitleNumbering: the start of titles that numbers a site's pages is
// found when the examples and the background share it and its number
// varies; a shared number that numbers nothing, a shared word and a site
// without such titles give none.
func TestTitleNumbering(t *testing.T) {
	titled := titledPages
	for _, c := range []struct {
		examples, contrast []ExamplePage
		want               string
	}{
		{titled("第 1 章 GNU/Linux 教學", "第 9 章 系統技巧"), titled("Debian 參考手冊", "第 2 章 Debian 套件管理", "第 10 章 資料管理"), "第 # 章 "},
		{titled("Chapter 1. GNU/Linux tutorials"), titled("Chapter 2. Debian package management", "Chapter 10. Data management"), "Chapter #. "},
		// One background title of three shares it: not the site's.
		{titled("Chapter 1. Tutorials"), titled("Index", "Preface", "Chapter 2. Packages"), ""},
		{titled("Python 3 tutorial"), titled("Python 3 modules", "Python 3 index"), ""},
		// Chinese numerals after 第, the ordinal prefix, with a space, a
		// full-width separator or neither after the measure word.
		{titled("第一章 安装", "第十二章 配置文件"), titled("目录", "第二章 基础", "第三章 语法"), "第#章 "},
		{titled("第三节 语法"), titled("第一节 词法", "第二节 语义"), "第#节 "},
		{titled("第一章：概述"), titled("第二章：安装", "第十章：配置"), "第#章："},
		{titled("第一章概述", "第九章安全"), titled("第二章安装", "第三章配置"), "第#章"},
		{titled("一、概述"), titled("二、安装", "三、配置"), "#、"},
		// Roman numerals after the label they number, or first before ".".
		{titled("Part II. Installation"), titled("Part I. Overview", "Part III. Reference"), "Part #. "},
		{titled("Chapter IV Shells", "Chapter IX Tips"), titled("Chapter V Packages", "Chapter X Data"), "Chapter # "},
		{titled("IV. Methods"), titled("II. Background", "V. Results"), "#. "},
		// A Roman numeral later in a title, a letter that is a name, and
		// Chinese numerals inside words are the title's content.
		{titled("World War II: The Pacific"), titled("World War I: The trenches", "World War II: Europe"), ""},
		{titled("Vitamin C: sources"), titled("Vitamin D: sources", "Vitamin C: doses"), ""},
		{titled("一般设置 网络"), titled("一般设置 显示", "统一设置 声音"), ""},
		{titled("Pruning roses", "Climbing roses"), titled("Rose soil", "Roses in pots"), ""},
	} {
		if got := titleNumbering(c.examples, c.contrast); got != c.want {
			t.Errorf("examples %v, contrast %v: %q, want %q", c.examples, c.contrast, got, c.want)
		}
	}
}

// TestNumberingText: the words of a numbering are taken from the titles
// as written, where the tokenizer sees them: 第一章 is one term, and so
// is a Roman numeral (ii) after its label.
func TestNumberingText(t *testing.T) {
	pages := titledPages("第一章 安装", "第十二章 配置")
	contrast := titledPages("第二章 基础", "目录")
	if got := numberingText("第#章 ", pages, contrast); got != "第一章  第十二章  第二章  " {
		t.Errorf("numbering text %q", got)
	}
	if got := numberingText("Part #. ", titledPages("Part II. Setup"), titledPages("Part IV. Use", "Partial")); got != "Part II.  Part IV.  " {
		t.Errorf("numbering text %q", got)
	}
}

// TestBootstrapLeavesOutTableLabels: a table's header cells and one-word
// values are left out of a draft's words; a cell of two words or more is
// prose like the rest, and a word in the sentences too keeps those.
func TestBootstrapLeavesOutTableLabels(t *testing.T) {
	cells := []pageparse.Cell{{Text: "package", Header: true}, {Text: "description", Header: true},
		{Text: "terminal multiplexer"}, {Text: "ditto"}, {Text: "ditto"}, {Text: "ditto"}, {Text: "tmux"}}
	pages := []ExamplePage{
		{URL: "http://ref.test/ch09", Title: "Console tips", Text: "keep a shell session in the terminal with tmux " +
			"package description terminal multiplexer ditto ditto ditto tmux", Cells: cells},
		{URL: "http://ref.test/ch01", Title: "Shell tutorial", Text: "the shell waits for a command in the terminal"},
	}
	tp := draftFrom(t, "shell", pages, nil, 20)
	for _, w := range []string{"ditto", "package", "description"} {
		if _, ok := tp.Keywords[w]; ok {
			t.Errorf("table label %q is a keyword: %v", w, tp.Keywords)
		}
	}
	for _, w := range []string{"multiplexer", "tmux", "shell", "terminal"} {
		if tp.Keywords[w] == 0 {
			t.Errorf("keywords %v lack %q", tp.Keywords, w)
		}
	}
}

// TestBootstrapKeepsAFillerNameInTitles: a conventional filler name of
// examples (bar) is left out of a draft unless an example's title has it:
// a page about the menu bar is about a bar.
func TestBootstrapKeepsAFillerNameInTitles(t *testing.T) {
	for _, c := range []struct {
		title string
		want  bool
	}{{"The menu bar", true}, {"Menus", false}} {
		pages := []ExamplePage{
			{URL: "http://ui.test/menubar", Title: c.title, Text: "the menu bar shows the menus of the bar"},
			{URL: "http://ui.test/menus", Title: "Menu entries", Text: "a menu of the bar has entries"},
		}
		tp := draftFrom(t, "menus", pages, nil, 20)
		if _, ok := tp.Keywords["bar"]; ok != c.want || tp.Keywords["menu"] == 0 {
			t.Errorf("title %q: keywords %v; want bar %v, and menu", c.title, tp.Keywords, c.want)
		}
	}
}

// draftFrom bootstraps the topic name from pages and contrast with n
// keywords, tokenized at spaces, and parses it.
func draftFrom(t *testing.T, name string, pages, contrast []ExamplePage, n int) *Topic {
	t.Helper()
	out, err := Bootstrap(name, "en", pages, contrast, spaceCounter{}, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := Parse(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return tp
}

// TestExamplesLanguageFromProse: example pages that do not say their
// language (no <html lang>, as most of Debian's manuals) are in the
// language their prose clearly is; pages that disagree, or whose text does
// not tell, leave the draft at auto.
func TestExamplesLanguageFromProse(t *testing.T) {
	en := ExamplePage{Title: "Network setup", Text: "How to configure the interfaces of the system with ifupdown."}
	zh := ExamplePage{Title: "网络设置", Text: "使用 ifupdown 配置系统的网络接口。"}
	names := ExamplePage{Title: "iptables", Text: "iptables nftables conntrack"}
	for _, c := range []struct {
		name  string
		pages []ExamplePage
		want  string
	}{
		{"English prose without lang", []ExamplePage{en, en}, "en"},
		{"Chinese prose without lang", []ExamplePage{zh}, "zh"},
		{"declared lang wins", []ExamplePage{{Title: en.Title, Text: en.Text, Lang: "zh"}}, "zh"},
		{"languages disagree", []ExamplePage{en, zh}, "auto"},
		{"text does not tell", []ExamplePage{en, names}, "auto"},
		{"declared other language", []ExamplePage{{Title: en.Title, Text: en.Text, Lang: "de"}}, "auto"},
	} {
		if got := examplesLanguage(c.pages); got != c.want {
			t.Errorf("%s: examplesLanguage = %q, want %q", c.name, got, c.want)
		}
	}
}

// wordCounter tokenizes at every character that is not a letter or a
// digit, as the real tokenizer splits "yahoo.com" into yahoo and com.
type wordCounter struct{}

func (wordCounter) TermFreq(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		m[w]++
	}
	return m
}

// TestBootstrapLeavesOutAddresses: the words of host names, URLs and mail
// addresses in a page's prose are no keywords of its draft (a Debian
// networking chapter's "ping yahoo.com" made com and yahoo keywords),
// while the same word in a sentence keeps its occurrences there.
func TestBootstrapLeavesOutAddresses(t *testing.T) {
	pages := []ExamplePage{
		{URL: "http://net.test/ping", Title: "Network checks", Text: "Check the network with ping yahoo.com and ping www.debian.org; " +
			"report to admin@example.org or see https://wiki.debian.org/NetworkConfiguration for the network interfaces. The debian network tools."},
		{URL: "http://net.test/if", Title: "Network interfaces", Text: "ping yahoo.com tests the network interfaces; ping 192.168.0.1 tests the router."},
	}
	out, err := Bootstrap("net", "en", pages, nil, wordCounter{}, 20, nil)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := Parse(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, w := range []string{"yahoo", "com", "www", "org", "admin", "example", "https", "wiki", "networkconfiguration"} {
		if _, ok := tp.Keywords[w]; ok {
			t.Errorf("keyword %q from an address; keywords %v", w, tp.Keywords)
		}
	}
	for _, w := range []string{"network", "ping", "interfaces", "debian"} {
		if _, ok := tp.Keywords[w]; !ok {
			t.Errorf("keyword %q missing; keywords %v", w, tp.Keywords)
		}
	}
}

// TestAddressRE: host names, URLs and mail addresses match; package and
// file names with a country-code-like suffix, and versions after an @, do
// not (a review's finding: java.io, config.de, react@18.2.0).
func TestAddressRE(t *testing.T) {
	for text, want := range map[string]bool{
		"yahoo.com": true, "www.debian.de": true, "mirrors.ustc.edu.cn": true, "https://x.test/a": true,
		"admin@example.org": true, "java.io": false, "config.de": false, "setup.cn": false,
		"react@18.2.0": false, "e.g. this": false,
	} {
		if got := addressRE.MatchString(text); got != want {
			t.Errorf("addressRE on %q = %v, want %v", text, got, want)
		}
	}
}
