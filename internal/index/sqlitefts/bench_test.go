package sqlitefts

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"focuscrawl/internal/index"
	"focuscrawl/internal/textproc"
)

// benchVocabulary is a small Zipf-distributed vocabulary, so that some terms
// are common and some rare, as in real text.
var benchVocabulary = func() []string {
	words := make([]string, 2000)
	for i := range words {
		words[i] = fmt.Sprintf("w%04d", i)
	}
	return words
}()

func benchDocs(rng *rand.Rand, zipf *rand.Zipf, first, n int) []index.Document {
	docs := make([]index.Document, n)
	for i := range docs {
		var b strings.Builder
		for w := 0; w < 300; w++ {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(benchVocabulary[zipf.Uint64()])
		}
		id := fmt.Sprintf("doc%07d", first+i)
		docs[i] = index.Document{
			ID: id, Topic: "bench", Host: fmt.Sprintf("h%d.example", rng.Intn(50)),
			URL:   "https://example.com/" + id,
			Title: benchVocabulary[zipf.Uint64()] + " " + benchVocabulary[zipf.Uint64()],
			Text:  b.String(), Relevance: rng.Float64(), Authority: rng.Float64(),
		}
	}
	return docs
}

// BenchmarkUpsert measures one transaction of 50 new documents of 300 words.
func BenchmarkUpsert(b *testing.B) {
	x := openTemp(b)
	rng := rand.New(rand.NewSource(1))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(benchVocabulary)-1))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		docs := benchDocs(rng, zipf, i*50, 50)
		b.StartTimer()
		if err := x.Upsert(ctx, docs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch measures two-term queries over 5,000 documents, with
// counting, ranking and snippets for a page of 10. The terms are common (a
// large share of the documents match), the expensive case: FTS5 computes
// bm25 for every match.
func BenchmarkSearch(b *testing.B) {
	x := openTemp(b)
	rng := rand.New(rand.NewSource(1))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(benchVocabulary)-1))
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		if err := x.Upsert(ctx, benchDocs(rng, zipf, i*50, 50)); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([]string, 64)
	for i := range queries {
		// Common terms, yet not in every document.
		queries[i] = benchVocabulary[5+rng.Intn(50)] + " " + benchVocabulary[5+rng.Intn(50)]
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := x.Search(ctx, index.Query{Text: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchHanPhrase: a quoted Chinese phrase against the same words
// unquoted, over 200 pages of about 256 kB of Chinese text each, every page
// holding the phrase near its end: the phrase's characters are checked in
// each candidate's stored text (Search, index.HanPhrases). 北京大学, a word
// its parts cover (index.HanWords), is found by its token in every page, so
// no page's text is read. In 50 more pages (topic wrapped) a line break
// splits the phrase: each text is read in place, then passing over the
// line break (index.ContainsChars).
func BenchmarkSearchHanPhrase(b *testing.B) {
	if err := textproc.Preload(); err != nil {
		b.Skipf("gojieba dictionaries unavailable: %v", err)
	}
	x, err := Open(b.TempDir()+"/index.db", textproc.Shared())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	filler := strings.Repeat("这是一段关于图像处理和滤镜的说明文字，用于测试搜索的速度。", 3000)
	for i := range 250 {
		d := doc("bench", fmt.Sprintf("p%03d", i), "zh.example", "说明", filler+"他在北京大学读书。")
		if i >= 200 {
			d = doc("wrapped", fmt.Sprintf("p%03d", i), "zh.example", "说明", filler+"他在北京大学\n读书。")
		}
		if err := x.Upsert(context.Background(), []index.Document{d}); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		query, topic string
		want         int
	}{
		{"大学读书", "bench", 200},
		{"“大学读书”", "bench", 200},
		{"北京大学", "bench", 200},
		{"“大学读书”", "wrapped", 50},
	} {
		b.Run(c.query+"/"+c.topic, func(b *testing.B) {
			for b.Loop() {
				res, err := x.Search(context.Background(), index.Query{Text: c.query, Topic: c.topic})
				if err != nil || res.Total != c.want {
					b.Fatalf("Search(%s) in %s: total %d, %v; want %d", c.query, c.topic, res.Total, err, c.want)
				}
			}
		})
	}
}
