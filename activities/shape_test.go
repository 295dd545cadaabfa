package activities

import (
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
