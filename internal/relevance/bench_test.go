package relevance

import (
	"fmt"
	"strings"
	"testing"

	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

// benchPage is a page of about 600 words, mixed Chinese and English, about
// half of them on the benchmark topic, tokenised once like Parse does.
func benchPage(b *testing.B) (*Page, *topic.Model, vsm.IDF) {
	b.Helper()
	tok := textproc.Shared()
	var sb strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&sb, "Gaussian blur filter %d smooths the image; 高斯模糊滤镜 减少 噪声 和 细节. ", i)
		fmt.Fprintf(&sb, "The layer dialog lists layers, masks and channels of document %d. ", i)
	}
	t := &topic.Topic{Name: "bench", Keywords: map[string]float64{"blur": 1, "filter": 1, "滤镜": 1, "模糊": 0.8, "noise": 0.6}}
	m := topic.BuildModel(t, 1, tok, nil)
	docs, df := 1000, map[string]int{}
	for term := range tok.TermFreq(sb.String()) {
		df[term] = 50 + len(term)%200
	}
	return &Page{URL: "http://docs.test/filters-blur.html", Title: "Blur filters", TF: tok.TermFreq(sb.String())}, m, vsm.SmoothIDF(docs, df)
}

// BenchmarkVSMJudge measures scoring one page against the topic (the
// FilterPages hot path per page, without store access).
func BenchmarkVSMJudge(b *testing.B) {
	p, m, idf := benchPage(b)
	f, err := New(topic.Spec{Name: "vsm"}, Env{Model: m, IDF: idf})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if v := f.Judge(p); v.Score <= 0 {
			b.Fatal("page not scored")
		}
	}
}
