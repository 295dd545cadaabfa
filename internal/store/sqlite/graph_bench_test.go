package sqlite

import (
	"context"
	"fmt"
	"testing"

	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// graphLinks returns one page's 60 out-links into a site of 5,000 pages.
func graphLinks(page int) []store.Link {
	src := urlnorm.Hash(fmt.Sprintf("https://g.test/p%d", page))
	ls := make([]store.Link, 60)
	for i := range ls {
		u := fmt.Sprintf("https://g.test/p%d", (page*7+i*13)%5000)
		ls[i] = store.Link{Src: src, Dst: urlnorm.Hash(u), DstURL: u, Anchor: "anchor text", Context: "context", Score: 0.5}
	}
	return ls
}

// BenchmarkAddLinks measures storing one page's 60 out-links (PredictLinks
// does this once per page).
func BenchmarkAddLinks(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.AddLinks(ctx, "bench", graphLinks(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEdgesScan measures reading a 60,000-edge crawl graph (1,000
// pages × 60 links) with Edges, every column of every link.
func BenchmarkEdgesScan(b *testing.B) {
	benchEdgeRead(b, (*Store).Edges)
}

// BenchmarkGraphEdgesScan is BenchmarkEdgesScan through GraphEdges (source,
// target and score only): the input of every graph recomputation.
func BenchmarkGraphEdgesScan(b *testing.B) {
	benchEdgeRead(b, (*Store).GraphEdges)
}

func benchEdgeRead(b *testing.B, read func(*Store, context.Context, string, func(store.Link) error) error) {
	s := openTemp(b)
	ctx := context.Background()
	for p := 0; p < 1000; p++ {
		if err := s.AddLinks(ctx, "bench", graphLinks(p)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := read(s, ctx, "bench", func(store.Link) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no edges")
		}
	}
}
