package topicboot

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"focuscrawl/internal/config"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/textproc/hant"
	"focuscrawl/internal/topic"
)

// referencePage is a chapter of a DocBook manual as the Debian Reference
// publishes it (its Traditional-Chinese translation, shortened): the
// chapter number in the title, a navigation header and footer, prose, and
// tables of packages whose description cells repeat 同上 ("ditto") and
// whose headers (套件, 流行度, 大小, 說明) are in every table.
func referencePage(lang string, n int, title, prose string, rows [][2]string) string {
	chapter, table, ditto, caption := "第 %d 章 %s", "表格", "同上", "套件 流行度 大小 說明"
	if lang == "en" {
		chapter, table, ditto, caption = "Chapter %d. %s", "Table", "ditto", "package popcon size description"
	}
	full := fmt.Sprintf(chapter, n, title)
	var b strings.Builder
	fmt.Fprintf(&b, `<html lang="%s"><head><title>%s</title></head><body>`, lang, full)
	fmt.Fprintf(&b, `<div class="navheader"><a href="/ch%02d.html">&lt;</a> <a href="/index.html">^</a> <a href="/ch%02d.html">&gt;</a></div>`, n-1, n+1)
	fmt.Fprintf(&b, `<div class="chapter"><h1>%s</h1>`, full)
	for i, p := range strings.Split(prose, "\n") {
		fmt.Fprintf(&b, `<h2>%d.%d. </h2><p>%s</p>`, n, i+1, p)
		if i == 0 && len(rows) > 0 {
			fmt.Fprintf(&b, `<p class="title">%s %d.%d</p><table><tr>`, table, n, i+1)
			for _, h := range strings.Fields(caption) {
				fmt.Fprintf(&b, "<th>%s</th>", h)
			}
			b.WriteString("</tr>")
			for j, r := range rows {
				desc := r[1]
				if desc == "" {
					desc = ditto
				}
				fmt.Fprintf(&b, `<tr><td><a href="https://packages.debian.org/%s">%s</a></td><td>V:%d, I:%d</td><td>%d</td><td>%s</td></tr>`,
					r[0], r[0], 3*j+n, 17*j+2*n, 100*j+37, desc)
			}
			b.WriteString("</table>")
		}
	}
	fmt.Fprintf(&b, `</div><div class="navfooter"><a href="/ch%02d.html">&lt;</a> <a href="/index.html">^</a> <a href="/ch%02d.html">&gt;</a></div></body></html>`, n-1, n+1)
	return b.String()
}

// referenceSite is a loopback copy of such a manual: chapters 1 and 9 (the
// examples, about the shell and the console), their neighbours and the
// index (the background).
func referenceSite(lang string) map[string]string {
	zh := lang != "en"
	pick := func(z, e string) string {
		if zh {
			return z
		}
		return e
	}
	ch := map[int]string{
		1: referencePage(lang, 1, pick("GNU/Linux 教學", "GNU/Linux tutorials"),
			pick("在主控臺登入後，殼層會等待指令。終端機裡輸入的指令由殼層解釋，殼層提示符號表示可以輸入新的指令。\n"+
				"檔案系統從根目錄開始，殼層的工作目錄可以用指令切換。終端機的文字編輯器和殼層腳本是主控臺工作的基礎。\n"+
				"殼層的管線把一個指令的輸出接到另一個指令，主控臺裡的文字處理就靠殼層管線和正規表示式。",
				"After you log in at the console the shell waits for a command. The shell interprets the commands typed in the terminal, and its prompt says a new command can be typed.\n"+
					"The filesystem starts at the root directory; a shell command changes the working directory. Text editors in the terminal and shell scripts are the basics of console work.\n"+
					"A shell pipeline joins one command's output to another command; text processing at the console is shell pipelines and regular expressions."),
			[][2]string{{"mc", pick("主控臺檔案管理器", "console file manager")}, {"mc-data", ""}, {"vim", pick("終端機文字編輯器", "text editor in the terminal")},
				{"vim-tiny", ""}, {"vim-runtime", ""}, {"vim-gtk3", ""}, {"vim-doc", ""},
				{"nano", pick("簡單的文字編輯器", "simple text editor")}, {"nano-doc", ""}, {"emacs", pick("可擴充的文字編輯器", "extensible text editor")}, {"emacs-nox", ""}, {"emacs-common", ""}}),
		2: referencePage(lang, 2, pick("Debian 套件管理", "Debian package management"),
			pick("套件管理工具從軟體庫下載套件並安裝。套件的相依關係由套件管理工具自動處理。\n軟體庫的設定檔列出下載套件的位置。",
				"Package management tools download packages from the archive and install them. Dependencies are resolved by the tools.\nThe sources list names where packages are downloaded from."),
			[][2]string{{"apt", pick("套件管理工具", "package manager")}, {"apt-utils", ""}, {"aptitude", pick("互動式套件管理工具", "interactive package manager")}}),
		8: referencePage(lang, 8, pick("國際化和本地化", "I18N and L10N"),
			pick("語系設定決定程式顯示的語言和字元編碼。輸入法讓使用者輸入中文字元。\n字型套件提供顯示各種語言所需的字型。",
				"The locale decides the language and the character encoding programs show. An input method lets users type Chinese characters.\nFont packages provide the fonts every language needs."),
			[][2]string{{"locales", pick("語系資料", "locale data")}, {"fcitx5", pick("輸入法框架", "input method framework")}}),
		9: referencePage(lang, 9, pick("系統技巧", "System tips"),
			pick("主控臺技巧：在終端機裡用 screen 保持殼層工作階段，離線後再連回同一個殼層。\n"+
				"殼層的歷史紀錄和別名讓主控臺的指令更快。終端機多工器可以在一個主控臺裡開多個殼層視窗。\n"+
				"記錄殼層活動：script 指令把終端機的輸出存到檔案。",
				"Console tips: keep a shell session with screen in the terminal, detach and reattach to the same shell later.\n"+
					"The shell's history and aliases make console commands faster. A terminal multiplexer opens several shell windows in one console.\n"+
					"Recording shell activity: the script command saves the terminal's output to a file."),
			[][2]string{{"screen", pick("終端機多工器", "terminal multiplexer")}, {"tmux", ""}, {"byobu", ""}, {"dtach", ""}, {"abduco", ""},
				{"script", pick("記錄終端機工作階段", "records a terminal session")}, {"bsdutils", ""}, {"ttyrec", ""}, {"asciinema", ""}}),
		10: referencePage(lang, 10, pick("資料管理", "Data management"),
			pick("備份和還原資料需要壓縮工具和歸檔工具。資料的加密保護隱私。\n版本控制系統記錄檔案的修改。",
				"Backup and recovery need compression and archive tools. Encrypting data protects privacy.\nVersion control systems record the changes to files."),
			[][2]string{{"tar", pick("歸檔工具", "archiver")}, {"cpio", pick("歸檔工具", "archiver")}, {"gzip", pick("壓縮工具", "compression utility")}}),
	}
	site := map[string]string{
		"/robots.txt": "User-agent: *\nDisallow:\n",
		"/":           `<html><body><a href="/index.html">Debian</a></body></html>`,
		"/index.html": `<html><head><title>` + pick("Debian 參考手冊", "Debian Reference") + `</title></head><body>` +
			`<a href="/ch01.html">1</a> <a href="/ch02.html">2</a> <a href="/ch09.html">9</a><p>` +
			pick("本手冊概述 Debian 系統的管理。", "This book gives an overview of system administration on Debian.") + `</p></body></html>`,
	}
	for n, p := range ch {
		site[fmt.Sprintf("/ch%02d.html", n)] = strings.ReplaceAll(p, `"/ch00.html"`, `"/index.html"`)
	}
	return site
}

// TestBootstrapLeavesOutNumberingAndTableFiller: a draft from two chapters
// of a manual is about their subject, not the manual's layout: not the
// words that number its chapters in every title (章 and 第, "chapter"),
// nor a table's header row and one-word values (同上, "ditto": a trial on
// the Debian Reference's Traditional-Chinese translation drafted 同上 and
// 章 among its keywords). The chapters' subject words still are.
func TestBootstrapLeavesOutNumberingAndTableFiller(t *testing.T) {
	for _, tc := range []struct {
		lang        string
		noise, kept []string
	}{
		// Traditional text is cut as Simplified (package hant) and the
		// draft shows its keywords as the pages write them: 主控臺 is one
		// word now (it was cut to 主控 / 臺), 說明 noise in either script.
		{"zh-TW", []string{"同上", "章", "第", "套件", "说明", "說明"}, []string{"指令", "終端機", "主控臺", "技巧"}},
		{"en", []string{"ditto", "chapter", "package", "popcon", "description"}, []string{"shell", "terminal", "console", "command", "multiplexer"}},
	} {
		srv := serveMap(t, referenceSite(tc.lang), nil)
		tp := draft(t, []string{srv.URL + "/ch01.html", srv.URL + "/ch09.html"}, 20)
		checkKeywords(t, tc.lang, tp, tc.noise, tc.kept)
	}
}

// checkKeywords reports each word of noise that is among tp's keywords
// and each word of kept that is not (label names the case).
func checkKeywords(t *testing.T, label string, tp *topic.Topic, noise, kept []string) {
	t.Helper()
	for _, w := range noise {
		if tp.Keywords[w] != 0 {
			t.Errorf("%s: %q became a keyword: %v", label, w, tp.Keywords)
		}
	}
	for _, w := range kept {
		if tp.Keywords[w] == 0 {
			t.Errorf("%s: keywords %v lack %q", label, tp.Keywords, w)
		}
	}
}

// draft bootstraps a topic from urls with n keywords and parses it.
func draft(t *testing.T, urls []string, n int) *topic.Topic {
	t.Helper()
	out, _, err := Bootstrap(context.Background(), fetcher(t), urls, "draft", "auto", n, textproc.Shared(), config.Fetch{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topic.Parse(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return tp
}

// TestBootstrapLeavesOutNumeralNumbering: the same manual numbering its
// chapters in Chinese numerals (第一章, 第九章, 第十章) or Roman ones
// (Part I., Part IX.): those words number pages as 第 1 章 does, and are
// left out likewise; the tokenizer keeps 第九章 as one word, and ix is a
// two-letter word to it. The chapters' subject words stay.
func TestBootstrapLeavesOutNumeralNumbering(t *testing.T) {
	han := []string{"", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十"}
	roman := []string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"}
	for _, tc := range []struct {
		lang        string
		number      func(n int) (digits, numeral string)
		noise, kept []string
	}{
		{"zh-TW", func(n int) (string, string) { return fmt.Sprintf("第 %d 章 ", n), "第" + han[n] + "章 " },
			[]string{"第一章", "第九章", "第二章", "第", "章"}, []string{"指令", "終端機", "主控臺", "技巧"}},
		{"en", func(n int) (string, string) { return fmt.Sprintf("Chapter %d. ", n), "Part " + roman[n] + ". " },
			[]string{"part", "ix", "ii", "chapter"}, []string{"shell", "terminal", "console", "command", "multiplexer"}},
	} {
		site := referenceSite(tc.lang)
		for path, page := range site {
			for n := 1; n <= 10; n++ {
				digits, numeral := tc.number(n)
				page = strings.ReplaceAll(page, digits, numeral)
			}
			site[path] = page
		}
		if _, nine := tc.number(9); !strings.Contains(site["/ch09.html"], "<title>"+nine) {
			t.Fatalf("%s: the fixture's titles are not renumbered:\n%s", tc.lang, site["/ch09.html"])
		}
		srv := serveMap(t, site, nil)
		tp := draft(t, []string{srv.URL + "/ch01.html", srv.URL + "/ch09.html"}, 20)
		checkKeywords(t, tc.lang, tp, tc.noise, tc.kept)
	}
}

// TestBootstrapTraditionalKeywords: a draft of Traditional Chinese pages
// writes its keywords as the pages do (終端機, 系統, not the tokenizer's
// Simplified 终端机, 系统), each one a form the tokenizer reads back as a
// single term, so the topic scores as it would with the Simplified ones.
func TestBootstrapTraditionalKeywords(t *testing.T) {
	srv := serveMap(t, referenceSite("zh-TW"), nil)
	tp := draft(t, []string{srv.URL + "/ch01.html", srv.URL + "/ch09.html"}, 20)
	tc := textproc.Shared()
	pages := strings.Join(slices.Collect(maps.Values(referenceSite("zh-TW"))), "")
	for k := range tp.Keywords {
		if tf := tc.TermFreq(k); len(tf) != 1 {
			t.Errorf("keyword %q reads as %v, want one term", k, tf)
		}
		if !hant.MostlyTraditional(k) && hant.Traditional(k) != k && strings.Contains(pages, hant.Traditional(k)) {
			t.Errorf("keyword %q is in Simplified where the pages write %q", k, hant.Traditional(k))
		}
	}
	for _, simplified := range []string{"终端机", "系统", "编辑器"} {
		if tp.Keywords[simplified] != 0 {
			t.Errorf("keyword %q in Simplified: %v", simplified, tp.Keywords)
		}
	}
}
