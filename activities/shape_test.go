package activities

import (
	"strings"
	"testing"

	"focuscrawl/internal/store"
	"focuscrawl/internal/textproc"
)

// TestStoredShapeIsTheMeasuredOne: the shape Parse stores, derived from the
// page's term counts, is what measuring the parsed page's text gives, for
// Latin and Chinese text.
func TestStoredShapeIsTheMeasuredOne(t *testing.T) {
	a := &Activities{Tok: textproc.Shared()}
	body := []byte(`<html><head><title>Blur filters 模糊滤镜</title></head><body>
<h1>Gaussian blur</h1><p>The Gaussian blur filter softens an image by averaging each pixel with its
neighbours. 高斯模糊滤镜通过对每个像素与其周围像素取平均值来柔化图像。</p>
<p><a href="/motion.html">Motion blur 动感模糊</a> and <a href="/pixelize.html">pixelize</a>.</p>
</body></html>`)
	rec, _, err := a.parsePage(store.Page{FinalURL: "http://docs.test/blur.html"}, body, true)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Shape == nil {
		t.Fatal("no shape stored")
	}
	measured := a.shapeOf(&parseRecord{Doc: rec.Doc})
	if *rec.Shape != measured || measured.TotalWords == 0 || measured.PlainWords >= measured.TotalWords || measured.Links != 2 {
		t.Fatalf("stored shape %+v, measured %+v", *rec.Shape, measured)
	}
	if rec, _, _ := a.parsePage(store.Page{FinalURL: "http://docs.test/blur.html"}, body, false); rec.Shape != nil {
		t.Fatal("shape stored for a topic that does not use it")
	}
}

// TestParsedLinksUseThePageCharset: a page fetched from GBK has its links'
// queries percent-encoded in GBK, as a browser requests them (GBK trial: the
// crawler asked a GBK site for "?t=%E9%94%99..." and got 404s).
func TestParsedLinksUseThePageCharset(t *testing.T) {
	a := &Activities{Tok: textproc.Shared()}
	body := []byte(`<html><body><a href="tag.php?t=错误">错误</a></body></html>`)
	rec, _, err := a.parsePage(store.Page{FinalURL: "http://gbk.test/tags.html", Charset: "gbk"}, body, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Doc.Links) != 1 || rec.Doc.Links[0].URL != "http://gbk.test/tag.php?t=%B4%ED%CE%F3" {
		t.Fatalf("links %+v, want one to http://gbk.test/tag.php?t=%%B4%%ED%%CE%%F3", rec.Doc.Links)
	}
}

// TestPageLanguageReadsProse: a page's language is that of its prose (title,
// headings, text outside links), not of its navigation. GBK trial on
// LilyPond's Chinese manual: 126 of 130 pages were "en", the translated
// chapters included, because each carries the manual's whole table of
// contents in English links; and Chinese menus over an English body must not
// make it "zh".
func TestPageLanguageReadsProse(t *testing.T) {
	toc := strings.Repeat(`<li><a href="x.html">Properties of layout objects and their interfaces</a></li>`, 40)
	tests := []struct{ name, body, want string }{
		{"Chinese prose, English table of contents", `<title>LilyPond 学习手册: 2.3.2 常见的错误</title><ul>` + toc +
			`</ul><h1>2.3.2 常见的错误</h1><p>有一些常见错误，仅靠显示的简单报错信息也很难解决。这些在 <a href="c.html">Common errors</a> 中有具体说明。</p>`, "zh"},
		{"English prose, Chinese menus", `<title>LilyPond: 背景</title>` + strings.Repeat(`<a href="a.html">首页</a> <a href="b.html">简介</a> <a href="c.html">下载</a> <a href="d.html">手册</a> `, 30) +
			`<h1>背景</h1><p>We have an extensive essay describing computational aesthetics: the art of creating beauty with a computer.</p>`, "en"},
		{"only links: all the text decides", `<a href="a.html">首页</a> <a href="b.html">简介</a> <a href="c.html">下载</a>`, "zh"},
		{"<html lang> wins", `<html lang="en-US"><title>中文标题</title><p>中文正文</p></html>`, "en"},
	}
	a := &Activities{Tok: textproc.Shared()}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, _, err := a.parsePage(store.Page{FinalURL: "http://docs.test/p.html"}, []byte(tt.body), false)
			if err != nil {
				t.Fatal(err)
			}
			if got := pageLanguage(rec.Doc); got != tt.want {
				t.Errorf("pageLanguage = %q, want %q", got, tt.want)
			}
		})
	}
}
