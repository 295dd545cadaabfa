package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

func benchEntries(start, n int) []store.FrontierEntry {
	es := make([]store.FrontierEntry, n)
	for i := range es {
		url := fmt.Sprintf("https://h%d.test/page/%d", (start+i)%97, start+i)
		es[i] = store.FrontierEntry{
			Topic: "bench", URL: url, URLHash: urlnorm.Hash(url), Host: urlnorm.Host(url),
			Priority: float64((start + i) % 13), Depth: 2, Strategy: "bench", CrawlID: "c",
		}
	}
	return es
}

// BenchmarkEnqueue measures one Enqueue of 100 new entries (with a
// MaxPerHost cap, as the crawler uses it).
func BenchmarkEnqueue(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Enqueue(ctx, benchEntries(i*100, 100), store.EnqueueOptions{MaxPerHost: 1 << 20}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClaimBatch measures claiming batches of 20 (at most 2 per host)
// from a frontier of 10,000 queued entries, refilled as it drains.
func BenchmarkClaimBatch(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	const size, fill = 20, 10_000
	next := 0
	refill := func() {
		for j := 0; j < fill/500; j++ {
			if _, err := s.Enqueue(ctx, benchEntries(next, 500), store.EnqueueOptions{}); err != nil {
				b.Fatal(err)
			}
			next += 500
		}
	}
	refill()
	now := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch, err := s.ClaimBatch(ctx, store.ClaimRequest{
			Topic: "bench", BatchID: fmt.Sprint("b", i), Max: size, MaxPerHost: 2, Lease: time.Hour, Now: now,
		})
		if err != nil {
			b.Fatal(err)
		}
		if batch.Size < size {
			b.StopTimer()
			refill()
			b.StartTimer()
		}
	}
}

// BenchmarkSavePage measures saving a page with a 30 KB HTML body.
func BenchmarkSavePage(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	body := make([]byte, 0, 30_000)
	for len(body) < 30_000 {
		body = fmt.Appendf(body, "<p>paragraph %d about focused crawling and its frontier</p>\n", len(body))
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		url := fmt.Sprintf("https://h%d.test/page/%d", i%97, i)
		p := store.Page{Topic: "bench", URLHash: urlnorm.Hash(url), URL: url, CrawlID: "c", Status: 200,
			ContentType: "text/html", FetchedAt: time.Now()}
		if _, _, err := s.SavePage(ctx, p, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSaveParse stores a parse record and counts 300 distinct terms
// (a typical page's) into the topic's document frequencies.
func BenchmarkSaveParse(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	terms := make([]string, 300)
	for i := range terms {
		terms[i] = fmt.Sprintf("term%d", i*7%1000)
	}
	parsed := make([]byte, 8_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		url := fmt.Sprintf("https://h%d.test/page/%d", i%97, i)
		p := store.Page{Topic: "bench", URLHash: urlnorm.Hash(url), URL: url, CrawlID: "c", Status: 200,
			ContentType: "text/html", FetchedAt: time.Now()}
		if _, _, err := s.SavePage(ctx, p, nil); err != nil {
			b.Fatal(err)
		}
		if err := s.SaveParse(ctx, "bench", p.URLHash, parsed, "t", "en", terms); err != nil {
			b.Fatal(err)
		}
	}
}
