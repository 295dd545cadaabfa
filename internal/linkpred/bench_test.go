package linkpred

import (
	"fmt"
	"testing"

	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
)

// benchLinks are the out-links of a typical documentation page: 60 links
// with anchors, titles and context in English and Chinese.
func benchLinks() []Link {
	ls := make([]Link, 60)
	for i := range ls {
		ls[i] = Link{
			URL:     fmt.Sprintf("http://docs.test/gimp-filter-%d.html", i),
			Anchor:  fmt.Sprintf("Gaussian blur %d 高斯模糊", i),
			Title:   "filter reference",
			Context: "see also the noise reduction filters and 锐化 滤镜 in chapter 17",
		}
	}
	return ls
}

// BenchmarkScoreLinks measures scoring one page's 60 out-links with each
// registered predictor (the PredictLinks hot path, without store access).
func BenchmarkScoreLinks(b *testing.B) {
	tok := textproc.Shared()
	t := &topic.Topic{Name: "bench", Keywords: map[string]float64{"blur": 1, "filter": 1, "滤镜": 1, "模糊": 0.8, "noise": 0.6}}
	env := Env{Model: topic.BuildModel(t, 1, tok, nil), Terms: tok}
	links := benchLinks()
	parent := Parent{URL: "http://docs.test/filters.html", Relevance: 0.4, Relevant: true, Depth: 2}
	for _, name := range Names() {
		p, err := New(topic.Spec{Name: name}, env)
		if err != nil {
			b.Logf("%s: %v (skipped)", name, err)
			continue
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, l := range links {
					p.Score(parent, l)
				}
			}
		})
	}
}
