package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/storetest"
	"focuscrawl/internal/urlnorm"
)

// The write paths' costs on PostgreSQL, as store/sqlite's bench_test.go
// measures SQLite's: one call each, on a schema of its own. They need the
// test server (pgtest) and skip without it.

// BenchmarkEnqueue: storetest.BenchEnqueue.
func BenchmarkEnqueue(b *testing.B) { storetest.BenchEnqueue(b, openTemp(b)) }

// BenchmarkEnqueueKnown: storetest.BenchEnqueueKnown.
func BenchmarkEnqueueKnown(b *testing.B) { storetest.BenchEnqueueKnown(b, openTemp(b)) }

// BenchmarkSavePage measures saving a page with a 30 kB body.
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

// benchGroup saves the pages of one processing group of topic (untimed)
// and returns the writes their processing makes: per page a parse record
// with 300 terms, a decision, 8 links and 8 frontier entries, then index
// flags and entry completion.
func benchGroup(b *testing.B, s *Store, topic string, i, pages int) store.GroupWrite {
	b.Helper()
	ctx := context.Background()
	terms := make([]string, 300)
	parsed := make([]byte, 8_000)
	g := store.GroupWrite{Topic: topic, EnqueueOptions: store.EnqueueOptions{MaxPerHost: 1 << 20}}
	for j := range pages {
		n := i*pages + j
		url := fmt.Sprintf("https://h%d.test/page/%d", n%97, n)
		p := store.Page{Topic: topic, URLHash: urlnorm.Hash(url), URL: url, CrawlID: "c-" + topic, Status: 200,
			ContentType: "text/html", FetchedAt: time.Now()}
		if _, _, err := s.SavePage(ctx, p, nil); err != nil {
			b.Fatal(err)
		}
		for k := range terms {
			terms[k] = fmt.Sprintf("term%d", (n+k*7)%1000)
		}
		g.Parses = append(g.Parses, store.ParseWrite{URLHash: p.URLHash, Parsed: parsed, Title: "t", Lang: "en",
			Terms: append([]string(nil), terms...), DropBody: true})
		g.Decisions = append(g.Decisions, store.PageDecision{URLHash: p.URLHash,
			Decision: store.Decision{Relevance: 0.5, Filter: "vsm", Decision: store.DecisionAccepted}})
		for _, e := range storetest.BenchEntries(topic, 1_000_000+n*8, 8) {
			g.Links = append(g.Links, store.Link{Src: p.URLHash, Dst: e.URLHash, DstURL: e.URL, Anchor: "a", Score: 0.5})
			g.Entries = append(g.Entries, e)
		}
		g.Indexed = append(g.Indexed, p.URLHash)
		g.Complete = append(g.Complete, p.URLHash)
	}
	return g
}

// writeGroupTwice makes g's writes as the streaming path does: parse
// records and decisions in one WriteGroup, the rest in a second.
func writeGroupTwice(ctx context.Context, s *Store, g store.GroupWrite) error {
	if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: g.Topic, Parses: g.Parses, Decisions: g.Decisions}); err != nil {
		return err
	}
	g.Parses, g.Decisions = nil, nil
	_, err := s.WriteGroup(ctx, g)
	return err
}

// BenchmarkWriteGroup measures the writes of a processing group of 16
// pages through WriteGroup (writeGroupTwice).
func BenchmarkWriteGroup(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		g := benchGroup(b, s, "bench", i, 16)
		b.StartTimer()
		if err := writeGroupTwice(ctx, s, g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteGroupConcurrent is BenchmarkWriteGroup with four writers
// at once on one topic, as four workers of a crawl write: per op is one
// group of each.
func BenchmarkWriteGroupConcurrent(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	const writers = 4
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		gs := make([]store.GroupWrite, writers)
		for w := range gs {
			gs[w] = benchGroup(b, s, "bench", i*writers+w, 16)
		}
		b.StartTimer()
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w, g := range gs {
			wg.Go(func() { errs[w] = writeGroupTwice(ctx, s, g) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkClaimBatch: storetest.BenchClaimBatch.
func BenchmarkClaimBatch(b *testing.B) { storetest.BenchClaimBatch(b, openTemp(b)) }

// BenchmarkClaimRefresh measures one refresh claim of 32 pages on a topic
// of 200,000 accepted pages, every one revisited once already (a
// refresh_state row, next due later than the claim), 1,000 of them due
// now: store/sqlite's BenchmarkClaimRefresh on PostgreSQL (its rows made
// server-side with generate_series, then VACUUM ANALYZE, as a store that
// has run a while has statistics).
func BenchmarkClaimRefresh(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	const total, due = 200_000, 1_000
	now := time.Now()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO pages (topic, url_hash, url, crawl_id, seq, fetched_at, decision, relevance)
			SELECT 'bench', lpad(to_hex(i), 16, '0'), format('https://h%s.test/%s', i % 97, i), 'c', i, $2::bigint, 'accepted', (i % 100) / 100.0
			FROM generate_series(1, $1::int) AS i`, []any{total, toNanos(now.Add(-48 * time.Hour))}},
		{`INSERT INTO refresh_state (topic, url_hash, next_at, interval_ns, checks)
			SELECT topic, url_hash, CASE WHEN seq <= $1 THEN $2::bigint ELSE $3::bigint END, 86400000000000, 1 FROM pages WHERE topic = 'bench'`,
			[]any{due, toNanos(now.Add(-time.Hour)), toNanos(now.Add(24 * time.Hour))}},
		{`VACUUM ANALYZE pages`, nil},
		{`VACUUM ANALYZE refresh_state`, nil},
	} {
		if _, err := s.pool.Exec(ctx, q.sql, q.args...); err != nil {
			b.Fatalf("%s: %v", q.sql, err)
		}
	}
	b.ResetTimer()
	storetest.BenchClaimRefresh(b, s, now)
}

// BenchmarkClaimSkewed: storetest.BenchClaimSkewed at three sizes of the
// big hosts' queues: a claim should cost the same at each, as it walks the
// hosts' heads (migration 19; docs/benchmarks.md, "Claims past busy hosts").
func BenchmarkClaimSkewed(b *testing.B) {
	for _, big := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(big), func(b *testing.B) { storetest.BenchClaimSkewed(b, openTemp(b), big) })
	}
}

// benchFrontier enqueues n entries of topic "bench" (storetest.BenchEntries,
// 97 hosts) for the frontier's multi-row updates to work on, in chunks of
// 1,000, and analyses the table, as autovacuum would on a crawl's.
func benchFrontier(b *testing.B, s *Store, n int) []store.FrontierEntry {
	b.Helper()
	ctx := context.Background()
	es := storetest.BenchEntries("bench", 0, n)
	for i := 0; i < n; i += 1000 {
		if _, err := s.Enqueue(ctx, es[i:min(i+1000, n)], store.EnqueueOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE frontier`); err != nil {
		b.Fatal(err)
	}
	return es
}

// BenchmarkReprioritize measures one Reprioritize of 100 queued entries of
// 10,000 (a learned model's new scores for a crawl's next entries).
func BenchmarkReprioritize(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	es := benchFrontier(b, s, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		prios := make(map[string]float64, 100)
		for j := range 100 {
			prios[es[(i*100+j)%len(es)].URLHash] = float64((i + j) % 17)
		}
		if err := s.Reprioritize(ctx, "bench", prios); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDemoteQueued measures one DemoteQueued of a host's entries,
// about 100 of the 10,000 queued.
func BenchmarkDemoteQueued(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	benchFrontier(b, s, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		host := fmt.Sprintf("h%d.test", i%97)
		if n, err := s.DemoteQueued(ctx, "bench", host, "https://"+host+"/page/", 0.99); err != nil || n < 100 {
			b.Fatalf("DemoteQueued = %d, %v; want about 103 entries", n, err)
		}
	}
}

// BenchmarkReleaseBatches measures one ReleaseBatches of a batch of 32
// claimed entries, none of them fetched, of 10,000 entries.
func BenchmarkReleaseBatches(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	benchFrontier(b, s, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := fmt.Sprintf("r%08d/1", i)
		if bt, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "bench", BatchID: id, Max: 32, Lease: time.Hour}); err != nil || bt.Size != 32 {
			b.Fatalf("ClaimBatch = %+v, %v", bt, err)
		}
		b.StartTimer()
		if _, err := s.ReleaseBatches(ctx, "bench", id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompleteBatch measures one CompleteBatch of 32 claimed entries
// (and BenchmarkCompleteEntries one CompleteEntries of them), on a frontier
// of at least 10,000.
func BenchmarkCompleteBatch(b *testing.B) { benchComplete(b, false) }

// BenchmarkCompleteEntries: see BenchmarkCompleteBatch.
func BenchmarkCompleteEntries(b *testing.B) { benchComplete(b, true) }

func benchComplete(b *testing.B, entries bool) {
	s := openTemp(b)
	ctx := context.Background()
	benchFrontier(b, s, max(10000, 32*b.N))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := fmt.Sprintf("c%08d", i)
		if bt, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "bench", BatchID: id, Max: 32, Lease: time.Hour}); err != nil || bt.Size != 32 {
			b.Fatalf("ClaimBatch = %+v, %v", bt, err)
		}
		var hashes []string
		if entries {
			got, err := s.BatchEntries(ctx, "bench", id)
			if err != nil {
				b.Fatal(err)
			}
			for _, e := range got {
				hashes = append(hashes, e.URLHash)
			}
		}
		b.StartTimer()
		var err error
		if entries {
			err = s.CompleteEntries(ctx, "bench", hashes)
		} else {
			err = s.CompleteBatch(ctx, "bench", id)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
