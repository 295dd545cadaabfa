package sqlite

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/storetest"
	"focuscrawl/internal/urlnorm"
)

// BenchmarkEnqueue: storetest.BenchEnqueue.
func BenchmarkEnqueue(b *testing.B) { storetest.BenchEnqueue(b, openTemp(b)) }

// BenchmarkEnqueueKnown: storetest.BenchEnqueueKnown.
func BenchmarkEnqueueKnown(b *testing.B) { storetest.BenchEnqueueKnown(b, openTemp(b)) }

// BenchmarkClaimBatch: storetest.BenchClaimBatch.
func BenchmarkClaimBatch(b *testing.B) { storetest.BenchClaimBatch(b, openTemp(b)) }

// BenchmarkSavePage measures saving a page with a 30 KB HTML body.
func BenchmarkSavePage(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := s.SavePage(ctx, benchPage(i), body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSavePagesGrouped saves the pages of BenchmarkSavePage eight to a
// WriteGroup transaction, as the streaming path saves a processing group's
// fetched pages (activities parseAndSave); per op is per page.
func BenchmarkSavePagesGrouped(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		g := store.GroupWrite{Topic: "bench"}
		for ; i < b.N && len(g.Pages) < 8; i++ {
			g.Pages = append(g.Pages, store.PageBody{Page: benchPage(i), Body: body})
		}
		if _, err := s.WriteGroup(ctx, g); err != nil {
			b.Fatal(err)
		}
	}
}

// benchBody is a 30 kB HTML-like page body.
func benchBody() []byte {
	body := make([]byte, 0, 30_000)
	for len(body) < 30_000 {
		body = fmt.Appendf(body, "<p>paragraph %d about focused crawling and its frontier</p>\n", len(body))
	}
	return body
}

// benchPage is the i-th fetched page of the save benchmarks.
func benchPage(i int) store.Page {
	url := fmt.Sprintf("https://h%d.test/page/%d", i%97, i)
	return store.Page{Topic: "bench", URLHash: urlnorm.Hash(url), URL: url, CrawlID: "c", Status: 200,
		ContentType: "text/html", FetchedAt: time.Now()}
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

// benchGroup saves the pages of one processing group (as the fetch path
// does, untimed) and returns the writes their processing makes: per page a
// parse record with 300 terms, a decision, 8 links and 8 frontier entries,
// then index flags and entry completion.
func benchGroup(b *testing.B, s *Store, i, pages int) store.GroupWrite {
	b.Helper()
	terms := make([]string, 300)
	parsed := make([]byte, 8_000)
	g := store.GroupWrite{Topic: "bench", EnqueueOptions: store.EnqueueOptions{MaxPerHost: 1 << 20}}
	for j := range pages {
		n := i*pages + j
		p := savedBenchPage(b, s, n)
		for k := range terms {
			terms[k] = fmt.Sprintf("term%d", (n+k*7)%1000)
		}
		g.Parses = append(g.Parses, store.ParseWrite{URLHash: p.URLHash, Parsed: parsed, Title: "t", Lang: "en",
			Terms: append([]string(nil), terms...), DropBody: true})
		g.Decisions = append(g.Decisions, store.PageDecision{URLHash: p.URLHash,
			Decision: store.Decision{Relevance: 0.5, Filter: "vsm", Decision: store.DecisionAccepted}})
		for _, e := range storetest.BenchEntries("bench", 1_000_000+n*8, 8) {
			g.Links = append(g.Links, store.Link{Src: p.URLHash, Dst: e.URLHash, DstURL: e.URL, Anchor: "a", Score: 0.5})
			g.Entries = append(g.Entries, e)
		}
		g.Indexed = append(g.Indexed, p.URLHash)
		g.Complete = append(g.Complete, p.URLHash)
	}
	return g
}

// savedBenchPage saves page n of the benchmarks' topic (97 hosts), as the
// fetch path does before a group's writes, and returns it.
func savedBenchPage(b *testing.B, s *Store, n int) store.Page {
	b.Helper()
	url := fmt.Sprintf("https://h%d.test/page/%d", n%97, n)
	p := store.Page{Topic: "bench", URLHash: urlnorm.Hash(url), URL: url, CrawlID: "c", Status: 200,
		ContentType: "text/html", FetchedAt: time.Now()}
	if _, _, err := s.SavePage(context.Background(), p, nil); err != nil {
		b.Fatal(err)
	}
	return p
}

const benchGroupPages = 16

// BenchmarkWriteGroup measures the writes of a processing group of 16
// pages through WriteGroup, as the streaming path makes them: parse records
// and decisions in one transaction, index flags, links, frontier entries and
// completion in a second. Compare BenchmarkWriteGroupPerCall.
func BenchmarkWriteGroup(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		g := benchGroup(b, s, i, benchGroupPages)
		b.StartTimer()
		first := store.GroupWrite{Topic: g.Topic, Parses: g.Parses, Decisions: g.Decisions}
		if _, err := s.WriteGroup(ctx, first); err != nil {
			b.Fatal(err)
		}
		second := g
		second.Parses, second.Decisions = nil, nil
		if _, err := s.WriteGroup(ctx, second); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteGroupPerCall makes the same writes as BenchmarkWriteGroup
// with the single-purpose methods, as the path did before WriteGroup: a
// transaction per page for its parse record, body deletion and decision,
// one per call for the rest.
func BenchmarkWriteGroupPerCall(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		g := benchGroup(b, s, i, benchGroupPages)
		b.StartTimer()
		for j, w := range g.Parses {
			if err := s.SaveParse(ctx, g.Topic, w.URLHash, w.Parsed, w.Title, w.Lang, w.Terms); err != nil {
				b.Fatal(err)
			}
			if err := s.DeleteBlob(ctx, g.Topic, w.URLHash, store.BlobBody); err != nil {
				b.Fatal(err)
			}
			if err := s.SetDecision(ctx, g.Topic, w.URLHash, g.Decisions[j].Decision); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.MarkIndexed(ctx, g.Topic, g.Indexed); err != nil {
			b.Fatal(err)
		}
		if err := s.AddLinks(ctx, g.Topic, g.Links); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Enqueue(ctx, g.Entries, g.EnqueueOptions); err != nil {
			b.Fatal(err)
		}
		if err := s.CompleteEntries(ctx, g.Topic, g.Complete); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFrontierStats measures FrontierStats (a crawl slice's live
// frontier reading, CountQueued, every slice's end) on a topic of 200,000
// entries, a quarter of them done. It reads the counts the frontier's
// triggers keep (migration 6); before them SQLite counted the rows, 21.6 ms
// at this size.
func BenchmarkFrontierStats(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	const total, chunk = 200_000, 5_000
	for start := 0; start < total; start += chunk {
		es := storetest.BenchEntries("bench", start, chunk)
		if _, err := s.Enqueue(ctx, es, store.EnqueueOptions{}); err != nil {
			b.Fatal(err)
		}
		if start%(4*chunk) == 0 {
			hashes := make([]string, len(es))
			for i, e := range es {
				hashes[i] = e.URLHash
			}
			if err := s.CompleteEntries(ctx, "bench", hashes); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fs, err := s.FrontierStats(ctx, "bench")
		if err != nil || fs.Queued+fs.Done != total {
			b.Fatalf("FrontierStats = %+v, %v; want %d entries", fs, err, total)
		}
	}
}

// BenchmarkClaimRefresh measures one refresh claim of 32 pages on a topic of
// 200,000 accepted pages, every one revisited once already (a refresh_state
// row, next due later than the claim), 1,000 of them due now: the steady
// state of a scheduled refresh of a large topic.
func BenchmarkClaimRefresh(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	const total, due = 200_000, 1_000
	now := time.Now()
	err := s.write(ctx, "bench pages", func(tx *wtx) error {
		if _, err := tx.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO pages (topic, url_hash, url, crawl_id, seq, fetched_at, decision, relevance)
			SELECT 'bench', printf('%016x', i), printf('https://h%d.test/%d', i % 97, i), 'c', i, ?, 'accepted', (i % 100) / 100.0 FROM n`,
			total, toNanos(now.Add(-48*time.Hour))); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO refresh_state (topic, url_hash, next_at, interval_ns, checks)
			SELECT topic, url_hash, CASE WHEN seq <= ? THEN ? ELSE ? END, 86400000000000, 1 FROM pages WHERE topic = 'bench'`,
			due, toNanos(now.Add(-time.Hour)), toNanos(now.Add(24*time.Hour)))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	// A crawl's writer beside the claims: the longest any of its small
	// write transactions waited is reported (max-write-wait-ms), since the
	// claims' cost to the crawls on the same store is their hold on the
	// write lock.
	stop := make(chan struct{})
	waited := make(chan time.Duration)
	go func() {
		var longest time.Duration
		for {
			select {
			case <-stop:
				waited <- longest
				return
			default:
			}
			t0 := time.Now()
			if err := s.write(ctx, "bench writer", func(tx *wtx) error {
				_, err := tx.ExecContext(ctx, `UPDATE topics SET name = name WHERE name = 'none'`)
				return err
			}); err != nil {
				b.Error(err)
			}
			longest = max(longest, time.Since(t0))
			time.Sleep(time.Millisecond)
		}
	}()
	b.ResetTimer()
	storetest.BenchClaimRefresh(b, s, now)
	b.StopTimer()
	close(stop)
	b.ReportMetric(float64((<-waited).Microseconds())/1000, "max-write-wait-ms")
}

// BenchmarkMakeRefreshDue measures an operator's "revisit everything now"
// (starter refresh --all) on a topic of 200,000 accepted pages: half of
// them revisited once (a refresh_state row, due in a day), whose rows it
// moves, half never revisited and fetched an hour ago, which it gives
// their first row. Each write of a row also sets the page's copy of its
// due time (refresh_next_at, by trigger): what that costs a rare command
// that writes every row.
func BenchmarkMakeRefreshDue(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	const total = 200_000
	now := time.Now()
	err := s.write(ctx, "bench pages", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO pages (topic, url_hash, url, crawl_id, seq, fetched_at, decision, relevance)
			SELECT 'bench', printf('%016x', i), printf('https://h%d.test/%d', i % 97, i), 'c', i,
				CASE WHEN i <= ? THEN ? ELSE ? END, 'accepted', (i % 100) / 100.0 FROM n`,
			total, total/2, toNanos(now.Add(-48*time.Hour)), toNanos(now.Add(-time.Hour)))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	// reset leaves the rows as the benchmark starts from (untimed).
	reset := func() {
		err := s.write(ctx, "bench rows", func(tx *wtx) error {
			if _, err := tx.ExecContext(ctx, `DELETE FROM refresh_state WHERE topic = 'bench'`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO refresh_state (topic, url_hash, next_at, interval_ns, checks)
				SELECT topic, url_hash, ?, 86400000000000, 1 FROM pages WHERE topic = 'bench' AND seq <= ?`,
				toNanos(now.Add(24*time.Hour)), total/2)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		reset()
		b.StartTimer()
		n, err := s.MakeRefreshDue(ctx, store.RefreshClaim{Topic: "bench", Now: now, NewPageDelay: 24 * time.Hour})
		if err != nil || n != total {
			b.Fatalf("MakeRefreshDue = %d, %v; want %d", n, err, total)
		}
	}
}

// BenchmarkClaimSkewed: storetest.BenchClaimSkewed at three sizes of the
// big hosts' queues.
func BenchmarkClaimSkewed(b *testing.B) {
	for _, big := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(big), func(b *testing.B) { storetest.BenchClaimSkewed(b, openTemp(b), big) })
	}
}

// BenchmarkParseVocab measures a processing group's parse write — 12 pages'
// parse records and the term-count upsert — against a topic whose term
// statistics already hold a crawl-sized vocabulary (200,000 terms; each
// page's 300 distinct terms drawn from a Zipf law over it), where the
// upsert's rows are spread over the whole term_df B-tree. BenchmarkWriteGroup's
// 1,000-term vocabulary fits in a few pages and hides that cost. The
// sample-full case is the same write once the topic's term sample
// (store.GroupWrite.TermSample) is full.
func BenchmarkParseVocab(b *testing.B) {
	b.Run("counted", func(b *testing.B) { benchParseVocab(b, 0) })
	// The topic's term sample (crawl.term_sample) is full: the write
	// reads the document count and counts nothing.
	b.Run("sample-full", func(b *testing.B) { benchParseVocab(b, 1) })
}

func benchParseVocab(b *testing.B, sample int) {
	const vocab, pages, perPage = 200_000, 12, 300
	s := openTemp(b)
	ctx := context.Background()
	err := s.write(ctx, "fill term_df", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?)
			INSERT INTO term_df (topic, term, df) SELECT 'bench', 'w' || x, 1 + ? / x FROM c`, vocab, vocab)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO topic_docs (topic, docs) VALUES ('bench', ?)`, vocab)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, vocab-1)
	parsed := make([]byte, 2_000)
	b.ReportAllocs()
	b.ResetTimer() // the vocabulary's fill is no write of a group
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		var g store.GroupWrite
		g.Topic, g.TermSample = "bench", sample
		for j := range pages {
			p := savedBenchPage(b, s, i*pages+j)
			seen := map[string]bool{}
			for len(seen) < perPage {
				seen[fmt.Sprintf("w%d", zipf.Uint64()+1)] = true
			}
			g.Parses = append(g.Parses, store.ParseWrite{URLHash: p.URLHash, Parsed: parsed, Title: "t", Lang: "en",
				Terms: slices.Collect(maps.Keys(seen)), DropBody: true})
		}
		b.StartTimer()
		if _, err := s.WriteGroup(ctx, g); err != nil {
			b.Fatal(err)
		}
	}
}
