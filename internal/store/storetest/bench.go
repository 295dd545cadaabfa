package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// The frontier's write paths measured the same way on every store: each
// store's bench_test.go runs these on a store of its own (one call per
// iteration), so the two stores' numbers compare.

// BenchEntries returns n frontier entries of topic, numbered from start,
// spread over 97 hosts.
func BenchEntries(topic string, start, n int) []store.FrontierEntry {
	es := make([]store.FrontierEntry, n)
	for i := range es {
		url := fmt.Sprintf("https://h%d.test/page/%d", (start+i)%97, start+i)
		es[i] = store.FrontierEntry{
			Topic: topic, URL: url, URLHash: urlnorm.Hash(url), Host: urlnorm.Host(url),
			Priority: float64((start + i) % 13), Depth: 2, Strategy: "bench", CrawlID: "c",
		}
	}
	return es
}

// BenchEnqueue measures one Enqueue of 100 new entries (with a MaxPerHost
// cap, as the crawler uses it).
func BenchEnqueue(b *testing.B, s store.Store) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Enqueue(ctx, BenchEntries("bench", i*100, 100), store.EnqueueOptions{MaxPerHost: 1 << 20}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchEnqueueKnown measures one Enqueue of 100 entries the frontier has
// already, a tenth of them with a higher priority than before: the links a
// crawl finds again and again.
func BenchEnqueueKnown(b *testing.B, s store.Store) {
	ctx := context.Background()
	const n = 100
	if _, err := s.Enqueue(ctx, BenchEntries("bench", 0, 100*n), store.EnqueueOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		es := BenchEntries("bench", (i%100)*n, n)
		for j := range es {
			if j%10 == 0 {
				es[j].Priority = float64(100 + i)
			}
		}
		if _, err := s.Enqueue(ctx, es, store.EnqueueOptions{MaxPerHost: 1 << 20}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchClaimBatch measures claiming batches of 20 (at most 2 per host)
// from a frontier of 10,000 queued entries, refilled as it drains.
func BenchClaimBatch(b *testing.B, s store.Store) {
	ctx := context.Background()
	const size, fill = 20, 10_000
	next := 0
	refill := func() {
		for range fill / 500 {
			if _, err := s.Enqueue(ctx, BenchEntries("bench", next, 500), store.EnqueueOptions{}); err != nil {
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

// BenchClaimRefresh makes b.N refresh claims of 32 pages of topic "bench"
// at now (new pages due an hour after their fetch), each of which must
// take 32: the timed part of the stores' BenchmarkClaimRefresh, whose
// topics (200,000 pages, 1,000 due) each store fills in its own SQL.
func BenchClaimRefresh(b *testing.B, s store.Store, now time.Time) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		n, err := s.ClaimRefresh(ctx, store.RefreshClaim{Topic: "bench", BatchID: fmt.Sprint("r", i), Max: 32,
			Lease: time.Hour, Now: now, NewPageDelay: time.Hour})
		if err != nil || n != 32 {
			b.Fatalf("ClaimRefresh = %d, %v; want 32", n, err)
		}
	}
}
