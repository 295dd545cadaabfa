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

// BenchClaimSkewed measures the streaming fetch path's claim (8 entries, at
// most one per host, the hosts being served excluded) on a skewed frontier,
// as a site-focused crawl has it: big hosts, every one being served, hold
// the best entries by far, and 200 small hosts queue a few entries each
// below them. The claim has to find the small hosts' best entries past
// the big hosts' queues.
func BenchClaimSkewed(b *testing.B, s store.Store, big int) {
	ctx := context.Background()
	const bigHosts, small, perSmall = 4, 200, 5
	var es []store.FrontierEntry
	add := func(host string, i int, prio float64) {
		url := fmt.Sprintf("https://%s/page/%d", host, i)
		es = append(es, store.FrontierEntry{Topic: "bench", URL: url, URLHash: urlnorm.Hash(url), Host: urlnorm.Host(url),
			Priority: prio, Depth: 2, Strategy: "bench", CrawlID: "c"})
	}
	var exclude []string
	for h := range bigHosts {
		host := fmt.Sprintf("big%d.test", h)
		exclude = append(exclude, host)
		for i := range big / bigHosts {
			add(host, i, 0.5+float64(i%1000)/2000)
		}
	}
	for h := range small {
		for i := range perSmall {
			add(fmt.Sprintf("small%d.test", h), i, 0.1+float64(i)/100)
		}
	}
	for len(es) > 0 {
		n := min(len(es), 1000)
		if _, err := s.Enqueue(ctx, es[:n], store.EnqueueOptions{}); err != nil {
			b.Fatal(err)
		}
		es = es[n:]
	}
	now := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "bench", BatchID: fmt.Sprintf("s%08d", i), Max: 8,
			MaxPerHost: 1, ExcludeHosts: exclude, Lease: time.Hour, Now: now})
		if err != nil {
			b.Fatal(err)
		}
		if batch.Size != 8 {
			b.Fatalf("claimed %d; want 8", batch.Size)
		}
		if i%20 == 19 { // give the small hosts' entries back, so the queue never drains
			b.StopTimer()
			if _, err := s.ReleaseBatches(ctx, "bench", "s"); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
}
