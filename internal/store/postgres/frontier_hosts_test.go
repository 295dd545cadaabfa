package postgres

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres/pgtest"
	"focuscrawl/internal/urlnorm"
)

// staleHeads compares frontier_hosts with each host's best queued entry,
// in one statement and so one snapshot: a writer commits its entries and
// its hosts' heads together, so they agree in every snapshot, not only
// once the writers are done. It returns the rows that differ.
func staleHeads(ctx context.Context, s *Store) ([]string, error) {
	rows, err := s.pool.Query(ctx, `WITH best AS (
			SELECT DISTINCT ON (topic, host) topic, host, priority, seq, url_hash
			FROM frontier WHERE state = 'queued' ORDER BY topic, host, priority DESC, seq ASC)
		SELECT COALESCE(h.topic, b.topic), COALESCE(h.host, b.host),
			COALESCE(h.priority::text || ' ' || h.seq || ' ' || h.url_hash, 'none'),
			COALESCE(b.priority::text || ' ' || b.seq || ' ' || b.url_hash, 'none')
		FROM frontier_hosts h FULL JOIN best b ON b.topic = h.topic AND b.host = h.host
		WHERE (h.priority, h.seq, h.url_hash) IS DISTINCT FROM (b.priority, b.seq, b.url_hash)`)
	got, err := collect(rows, err, func(sc scanner) (string, error) {
		var topic, host, head, best string
		err := sc.Scan(&topic, &host, &head, &best)
		return fmt.Sprintf("%s/%s: head %s, best queued %s", topic, host, head, best), err
	})
	return got, err
}

// TestFrontierHostsUnderConcurrentWriters: workers enqueue, raise, claim
// (with leases that run out), complete, requeue, release, re-prioritise
// and demote the entries of the same three hosts at once, each in its own
// READ COMMITTED transactions. Every head row must be its host's best
// queued entry, checked while they run and after. A head recomputed from
// what one transaction saw, without the row lock that orders the
// recomputations (migration 19), goes stale here within a few hundred
// operations: a claim of a host's first entry and another's of its second
// each leave the other's entry as the head, and an entry enqueued while a
// claim recomputed its host is missed.
func TestFrontierHostsUnderConcurrentWriters(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	const topic, workers, steps = "heads", 6, 120
	hosts := []string{"a.test", "b.test", "c.test"}
	url := func(rng *rand.Rand) string {
		return fmt.Sprintf("https://%s/p%d", hosts[rng.IntN(len(hosts))], rng.IntN(80))
	}
	stop := make(chan struct{})
	var checks sync.WaitGroup
	var midRun []string
	var checkErr error
	checks.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			bad, err := staleHeads(ctx, s)
			if err != nil {
				checkErr = err
				return
			}
			if len(bad) > 0 && midRun == nil {
				midRun = bad
			}
		}
	})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			var batches []string
			for step := range steps {
				var err error
				switch op := rng.IntN(10); {
				case op < 3: // new and known links, hosts in random order
					var es []store.FrontierEntry
					for range 1 + rng.IntN(6) {
						es = append(es, store.FrontierEntry{Topic: topic, URL: url(rng), Priority: float64(rng.IntN(20)), CrawlID: "c"})
					}
					_, err = s.Enqueue(ctx, es, store.EnqueueOptions{})
				case op < 6: // claims; some leases run out at once
					id := fmt.Sprintf("w%d-%d", w, step)
					lease := time.Hour
					if rng.IntN(3) == 0 {
						lease = time.Millisecond
					}
					req := store.ClaimRequest{Topic: topic, BatchID: id, Max: 1 + rng.IntN(3), MaxPerHost: rng.IntN(3), Lease: lease}
					if rng.IntN(3) == 0 {
						req.ExcludeHosts = []string{hosts[rng.IntN(len(hosts))]}
					}
					var b store.Batch
					if b, err = s.ClaimBatch(ctx, req); err == nil && b.Size > 0 {
						batches = append(batches, id)
					}
				case op < 8 && len(batches) > 0: // finish or give back a batch
					i := rng.IntN(len(batches))
					id := batches[i]
					batches = append(batches[:i], batches[i+1:]...)
					switch rng.IntN(3) {
					case 0:
						err = s.CompleteBatch(ctx, topic, id)
					case 1:
						_, err = s.ReleaseBatches(ctx, topic, id)
					default:
						var es []store.FrontierEntry
						if es, err = s.BatchEntries(ctx, topic, id); err == nil && len(es) > 0 {
							_, err = s.RequeueEntry(ctx, topic, es[0].URLHash, id, true)
						}
					}
				case op == 8: // new priorities, up and down
					prios := map[string]float64{}
					for range 1 + rng.IntN(8) {
						prios[urlnorm.Hash(url(rng))] = float64(rng.IntN(20))
					}
					err = s.Reprioritize(ctx, topic, prios)
				default: // a gone directory: every entry of a host sinks
					host := hosts[rng.IntN(len(hosts))]
					_, err = s.DemoteQueued(ctx, topic, host, "https://"+host+"/p", 0.5)
				}
				if err != nil {
					errs <- fmt.Errorf("worker %d step %d: %w", w, step, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	checks.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if checkErr != nil {
		t.Error(checkErr)
	}
	if midRun != nil {
		t.Errorf("heads stale in a snapshot while the workers ran:\n%s", strings.Join(midRun, "\n"))
	}
	if bad, err := staleHeads(ctx, s); err != nil {
		t.Error(err)
	} else if len(bad) > 0 {
		t.Errorf("heads stale after the workers committed:\n%s", strings.Join(bad, "\n"))
	}
	var heads, queued int
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM frontier_hosts), (SELECT COUNT(*) FROM frontier WHERE state = 'queued')`).Scan(&heads, &queued); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d heads over %d queued entries at the end", heads, queued)
}

// TestClaimLocksFewHeads: a claim locks the entries of the heads it reads
// — its limit and one more — not of every host: the heads are limited
// before the join that locks their entries, whatever plan is chosen, so
// concurrent claimers still find the other hosts' entries free.
func TestClaimLocksFewHeads(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	const hosts, limit = 200, 5
	var es []store.FrontierEntry
	for h := range hosts {
		es = append(es, store.FrontierEntry{Topic: "few", URL: fmt.Sprintf("https://h%d.test/", h), Priority: float64(h % 7), CrawlID: "c"})
	}
	if _, err := s.Enqueue(ctx, es, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck
	picked, err := pickQueued(ctx, tx, "few", limit, 1, nil, math.Inf(-1))
	if err != nil || len(picked) != limit {
		t.Fatalf("pickQueued = %v, %v; want %d entries", picked, err, limit)
	}
	var free int
	if err := s.pool.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM frontier WHERE topic = 'few' FOR UPDATE SKIP LOCKED) AS f`).Scan(&free); err != nil {
		t.Fatal(err)
	}
	if locked := hosts - free; locked < limit || locked > limit+1 {
		t.Errorf("a claim of %d locked %d of %d entries, want %d or %d", limit, locked, hosts, limit, limit+1)
	}
}

// TestFrontierHostsExactPriorities: a head's priority must be its entry's
// exactly (a claim locks the head's entry by priority and seq, and the
// check above compares them), also where the commit takes a new entry's
// priority from the statement trigger's JSON: float8out writes the
// shortest exact text only while extra_float_digits is above 0, and a
// session with 0 (15 significant digits) notes its hosts to be read again.
func TestFrontierHostsExactPriorities(t *testing.T) {
	for _, digits := range []string{"", "0", "3"} {
		t.Run("extra_float_digits="+digits, func(t *testing.T) {
			dsn, _ := pgtest.Schema(t)
			if digits != "" {
				sep := "?"
				if strings.Contains(dsn, "?") {
					sep = "&"
				}
				dsn += sep + "extra_float_digits=" + digits
			}
			s := openDSN(t, dsn)
			ctx := t.Context()
			prios := []float64{0.1 + 0.2, math.Pi / 3, 7e-300, 1 - 1e-16, 123456.78901234567}
			var es []store.FrontierEntry
			for i, p := range prios {
				es = append(es, store.FrontierEntry{Topic: "exact", URL: fmt.Sprintf("https://h%d.test/a", i), Priority: p, CrawlID: "c"},
					store.FrontierEntry{Topic: "exact", URL: fmt.Sprintf("https://h%d.test/b", i), Priority: p / 3, CrawlID: "c"})
			}
			if _, err := s.Enqueue(ctx, es, store.EnqueueOptions{}); err != nil {
				t.Fatal(err)
			}
			raise := map[string]float64{}
			for i, p := range prios {
				raise[urlnorm.Hash(fmt.Sprintf("https://h%d.test/b", i))] = p * 1.0000000000000002
			}
			if err := s.Reprioritize(ctx, "exact", raise); err != nil {
				t.Fatal(err)
			}
			if bad, err := staleHeads(ctx, s); err != nil || len(bad) > 0 {
				t.Fatalf("heads = %v, %v; want each host's best queued entry exactly", bad, err)
			}
			b, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "exact", BatchID: "b", Max: len(prios), MaxPerHost: 1})
			if err != nil || b.Size != len(prios) {
				t.Fatalf("claim = %+v, %v; want %d", b, err, len(prios))
			}
			got, err := s.BatchEntries(ctx, "exact", "b")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range got {
				if !strings.HasSuffix(e.URL, "/b") {
					t.Errorf("claimed %s (%v); want each host's raised entry", e.URL, e.Priority)
				}
			}
			if bad, err := staleHeads(ctx, s); err != nil || len(bad) > 0 {
				t.Fatalf("after the claim: heads = %v, %v", bad, err)
			}
		})
	}
}
