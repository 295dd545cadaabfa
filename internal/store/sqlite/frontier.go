package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
	"focuscrawl/internal/urlnorm"
)

func frontierSeqName(topic string) string { return "frontier/" + topic }

// Enqueue inserts entries as queued (see store.Frontier). Entries may belong
// to different topics. A missing URLHash or Host is derived from URL.
func (s *Store) Enqueue(ctx context.Context, entries []store.FrontierEntry, opt store.EnqueueOptions) (int, error) {
	if len(entries) == 0 {
		return 0, nil
	}
	if err := checkEntries(entries); err != nil {
		return 0, err
	}
	inserted := 0
	err := s.write(ctx, fmt.Sprintf("enqueue %d entries of topic %q", len(entries), entries[0].Topic), func(tx *wtx) error {
		var err error
		inserted, err = enqueueTx(ctx, tx, entries, opt)
		return err
	})
	if err != nil {
		return 0, err
	}
	return inserted, nil
}

// checkEntries refuses entries Enqueue cannot store.
func checkEntries(entries []store.FrontierEntry) error {
	for _, e := range entries {
		if err := sqlshared.CheckEntry(e); err != nil {
			return fmt.Errorf("store/sqlite: %w", err)
		}
	}
	return nil
}

// enqueueTx is Enqueue in tx; it returns how many entries it inserted.
func enqueueTx(ctx context.Context, tx *wtx, entries []store.FrontierEntry, opt store.EnqueueOptions) (int, error) {
	inserted := 0
	err := func() error {
		known, err := knownEntries(ctx, tx, entries)
		if err != nil {
			return err
		}
		raise, err := tx.PrepareContext(ctx, `UPDATE frontier SET priority = ?, link_score = ?, strategy = ?
			WHERE topic = ? AND url_hash = ?`)
		if err != nil {
			return err
		}
		defer raise.Close()
		ins, err := tx.PrepareContext(ctx, `INSERT INTO frontier (topic, url_hash, url, host, priority, depth,
			parent_hash, parent_url, anchor, anchor_path, link_score, strategy, state, crawl_id, seq, sink)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		count, err := tx.PrepareContext(ctx, `SELECT COUNT(*) FROM frontier WHERE topic = ? AND host = ?`)
		if err != nil {
			return err
		}
		defer count.Close()

		type hostKey struct{ topic, host string }
		hostCount := map[hostKey]int{} // entries per host, loaded on first use
		seqs := map[string]int64{}     // next-to-use frontier seq per topic, loaded on first use

		for _, e := range entries {
			hash, host := e.URLHash, e.Host
			if hash == "" {
				hash = urlnorm.Hash(e.URL)
			}
			if host == "" {
				host = urlnorm.Host(e.URL)
			}
			key := entryKey{e.Topic, hash}
			if k, ok := known[key]; ok {
				if p := e.Priority * min(k.sink, sqlshared.EntrySink(e)); k.state == store.StateQueued && p > k.priority {
					if _, err := raise.ExecContext(ctx, p, e.LinkScore, e.Strategy, e.Topic, hash); err != nil {
						return fmt.Errorf("raise priority of %q: %w", e.URL, err)
					}
					known[key] = knownEntry{store.StateQueued, p, k.sink}
				}
				continue
			}
			if opt.MaxPerHost > 0 {
				k := hostKey{e.Topic, host}
				n, ok := hostCount[k]
				if !ok {
					if err := count.QueryRowContext(ctx, e.Topic, host).Scan(&n); err != nil {
						return fmt.Errorf("count entries of host %q: %w", host, err)
					}
				}
				if n >= opt.MaxPerHost {
					hostCount[k] = n
					continue
				}
				hostCount[k] = n + 1
			}
			seq, ok := seqs[e.Topic]
			if !ok {
				if seq, err = loadSeq(ctx, tx, frontierSeqName(e.Topic)); err != nil {
					return err
				}
			}
			seqs[e.Topic] = seq + 1
			if _, err := ins.ExecContext(ctx, e.Topic, hash, e.URL, host, e.Priority*sqlshared.EntrySink(e), e.Depth,
				e.ParentHash, e.ParentURL, e.Anchor, e.AnchorPath, e.LinkScore, e.Strategy,
				store.StateQueued, e.CrawlID, seq, sqlshared.EntrySink(e)); err != nil {
				return fmt.Errorf("insert %q: %w", e.URL, err)
			}
			known[key] = knownEntry{store.StateQueued, e.Priority * sqlshared.EntrySink(e), sqlshared.EntrySink(e)} // the same URL again in this call
			inserted++
		}
		for topic, next := range seqs {
			if err := storeSeq(ctx, tx, frontierSeqName(topic), next); err != nil {
				return err
			}
		}
		return nil
	}()
	return inserted, err
}

// loadSeq returns the next value of a named sequence (1 for a new one).
func loadSeq(ctx context.Context, tx *wtx, name string) (int64, error) {
	var v int64
	err := tx.QueryRowContext(ctx, `SELECT value FROM sequences WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read sequence %q: %w", name, err)
	}
	return v, nil
}

type entryKey struct{ topic, urlHash string }

// knownEntry is the state and priority of a frontier entry (knownEntries).
type knownEntry struct {
	state    string
	priority float64
	sink     float64 // store.Frontier.DemoteQueued
}

// knownEntries reads the state and priority of the entries among entries
// that their topics have already: one statement per topic (the hashes as
// one JSON array, each looked up on the primary key), not one per entry —
// most of a processing group's links point to URLs the frontier knows.
func knownEntries(ctx context.Context, tx *wtx, entries []store.FrontierEntry) (map[entryKey]knownEntry, error) {
	byTopic := map[string][]string{}
	for _, e := range entries {
		hash := e.URLHash
		if hash == "" {
			hash = urlnorm.Hash(e.URL)
		}
		byTopic[e.Topic] = append(byTopic[e.Topic], hash)
	}
	known := make(map[entryKey]knownEntry, len(entries))
	for topic, hashes := range byTopic {
		list, err := json.Marshal(hashes)
		if err != nil {
			return nil, err
		}
		rows, err := tx.QueryContext(ctx, `SELECT url_hash, state, priority, sink FROM frontier
			WHERE topic = ? AND url_hash IN (SELECT value FROM json_each(?))`, topic, string(list))
		if err != nil {
			return nil, fmt.Errorf("look up %d entries: %w", len(hashes), err)
		}
		err = sqlshared.EachRow(rows, func(sc sqlshared.Scanner) error {
			var hash string
			var k knownEntry
			if err := sc.Scan(&hash, &k.state, &k.priority, &k.sink); err != nil {
				return err
			}
			known[entryKey{topic, hash}] = k
			return nil
		})
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("look up %d entries: %w", len(hashes), err)
		}
	}
	return known, nil
}

// storeSeq records next as the next value of a named sequence.
func storeSeq(ctx context.Context, tx *wtx, name string, next int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO sequences (name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, next)
	if err != nil {
		return fmt.Errorf("write sequence %q: %w", name, err)
	}
	return nil
}

// ClaimBatch leases up to req.Max queued entries to req.BatchID (see
// store.Frontier). All of it is one write transaction, so two claimers —
// goroutines or processes — never receive the same entry.
func (s *Store) ClaimBatch(ctx context.Context, req store.ClaimRequest) (store.Batch, error) {
	now, lease, err := sqlshared.ClaimDefaults(req)
	if err != nil {
		return store.Batch{}, fmt.Errorf("store/sqlite: %w", err)
	}
	b := store.Batch{ID: req.BatchID}
	err = s.write(ctx, fmt.Sprintf("claim batch %q of topic %q", req.BatchID, req.Topic), func(tx *wtx) error {
		if err := checkFence(ctx, tx, req.Topic, req.Fence); err != nil {
			return err
		}
		// Idempotence: a batch that was already claimed is returned as is.
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM frontier WHERE topic = ? AND batch_id = ?`,
			req.Topic, req.BatchID).Scan(&b.Size); err != nil {
			return err
		}
		if b.Size > 0 {
			return nil
		}
		if err := expireLeases(ctx, tx, req.Topic, toNanos(now)); err != nil {
			return err
		}
		if req.Max <= 0 {
			return nil
		}
		if req.HoldUnscored {
			if err := tx.QueryRowContext(ctx, sqlshared.HoldQuery, req.Topic,
				toNanos(sqlshared.HoldBound(req, now, lease)), req.Topic).Scan(&b.Held); err != nil {
				return fmt.Errorf("entries in flight: %w", err)
			}
		}
		picked, exclude, err := pickExplore(ctx, tx, req, b.Held)
		if err != nil {
			return err
		}
		if rest := req.Max - len(picked); rest > 0 {
			more, err := pickQueued(ctx, tx, req.Topic, rest, req.MaxPerHost, exclude, req.MinRatio, b.Held)
			if err != nil {
				return err
			}
			picked = append(picked, more...)
		}
		upd, err := tx.PrepareContext(ctx, `UPDATE frontier SET state = ?, batch_id = ?, lease_until = ?,
			attempts = attempts + 1, claim_pos = ? WHERE topic = ? AND url_hash = ?`)
		if err != nil {
			return err
		}
		defer upd.Close()
		leaseUntil := toNanos(now.Add(lease))
		for i, hash := range picked {
			if _, err := upd.ExecContext(ctx, store.StateClaimed, req.BatchID, leaseUntil, i+1, req.Topic, hash); err != nil {
				return fmt.Errorf("claim %s: %w", hash, err)
			}
		}
		b.Size = len(picked)
		return nil
	})
	if err != nil {
		return store.Batch{}, err
	}
	return b, nil
}

// fenceToken reads a fence's newest token (0 if it was never raised).
func fenceToken(ctx context.Context, tx *wtx, topic, name string) (int64, error) {
	var tok int64
	err := tx.QueryRowContext(ctx, `SELECT token FROM fences WHERE topic = ? AND name = ?`, topic, name).Scan(&tok)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read fence %q: %w", name, err)
	}
	return tok, nil
}

// checkFence fails with store.ErrFenced when f is named and a newer token
// was raised for it. Claims and raises are write transactions, which SQLite
// runs one at a time, so a claim after a raise always sees it.
func checkFence(ctx context.Context, tx *wtx, topic string, f store.Fence) error {
	if f.Name == "" {
		return nil
	}
	tok, err := fenceToken(ctx, tx, topic, f.Name)
	if err != nil {
		return err
	}
	if tok > f.Token {
		return fmt.Errorf("fence %q: token %d, newest %d: %w", f.Name, f.Token, tok, store.ErrFenced)
	}
	return nil
}

// RaiseFence records f.Token as the fence's newest token (see store.Fence).
func (s *Store) RaiseFence(ctx context.Context, topic string, f store.Fence) error {
	if topic == "" || f.Name == "" {
		return fmt.Errorf("store/sqlite: raise fence %q of topic %q: topic and name are required", f.Name, topic)
	}
	return s.write(ctx, fmt.Sprintf("raise fence %q of topic %q", f.Name, topic), func(tx *wtx) error {
		if err := checkFence(ctx, tx, topic, f); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO fences (topic, name, token, raised_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (topic, name) DO UPDATE SET token = excluded.token, raised_at = excluded.raised_at`,
			topic, f.Name, f.Token, time.Now().UnixNano())
		return err
	})
}

// PruneFences deletes the topic's fences raised before raisedBefore (see
// store.Frontier).
func (s *Store) PruneFences(ctx context.Context, topic string, raisedBefore time.Time) (int, error) {
	var n int64
	err := s.write(ctx, fmt.Sprintf("prune fences of topic %q", topic), func(tx *wtx) error {
		r, err := tx.ExecContext(ctx, `DELETE FROM fences WHERE topic = ? AND raised_at > 0 AND raised_at < ?`, topic, raisedBefore.UnixNano())
		if err != nil {
			return err
		}
		n, err = r.RowsAffected()
		return err
	})
	return int(n), err
}

// expireLeases ends the claims of topic whose lease ran out before now. An
// entry whose page was never saved goes back to the queue (keeping its
// priority and seq, so its place in line); one whose page was saved has been
// fetched and is marked done, keeping its batch.
func expireLeases(ctx context.Context, tx *wtx, topic string, now int64) error {
	// state = 'claimed' is spelled literally so that SQLite uses the partial
	// index frontier_lease.
	_, err := tx.ExecContext(ctx, `UPDATE frontier SET state = ?, batch_id = '', lease_until = 0, claim_pos = 0
		WHERE topic = ? AND state = 'claimed' AND lease_until < ?
		AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.topic = frontier.topic AND p.url_hash = frontier.url_hash)`,
		store.StateQueued, topic, now)
	if err != nil {
		return fmt.Errorf("requeue expired claims: %w", err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE frontier SET state = ?
		WHERE topic = ? AND state = 'claimed' AND lease_until < ?`,
		store.StateDone, topic, now)
	if err != nil {
		return fmt.Errorf("finish expired claims with pages: %w", err)
	}
	return nil
}

// pickExplore is sqlshared.PickExploring, each host's best queued entry
// read from frontier_hosts, which the row triggers keep exact inside the
// transaction.
func pickExplore(ctx context.Context, tx *wtx, req store.ClaimRequest, held bool) ([]string, []string, error) {
	return sqlshared.PickExploring(req, held, func(host string, floor float64) (sqlshared.Candidate, bool, error) {
		rows, err := tx.QueryContext(ctx, `SELECT url_hash, host, priority, seq FROM frontier_hosts
			WHERE topic = ? AND host = ?`, req.Topic, host)
		cands, err := collect(rows, err, sqlshared.ScanCandidate)
		if err != nil || len(cands) == 0 || cands[0].Priority < floor {
			return sqlshared.Candidate{}, false, err
		}
		return cands[0], true, nil
	})
}

// pickQueued returns the URL hashes of up to limit queued entries of topic,
// best first (priority DESC, seq ASC), with at most maxPerHost per host,
// none of the excluded hosts, (minRatio > 0) none below minRatio times the
// best queued priority and (held: ClaimRequest.HoldUnscored applies) none
// at zero or below. The walk is sqlshared.PickByHost over frontier_hosts
// (migration 18); excluded hosts and the floor are conditions of its
// queries, so SQLite skips those rows itself.
func pickQueued(ctx context.Context, tx *wtx, topic string, limit, maxPerHost int, exclude []string, minRatio float64, held bool) ([]string, error) {
	// The extra conditions every chunk query carries: the floor, and the
	// skipped hosts.
	var floorCond string
	var floorArgs []any
	if held {
		floorCond, floorArgs = ` AND priority >= ?`, []any{sqlshared.ClaimFloor(math.Inf(-1), true)}
	}
	if minRatio > 0 {
		var best float64
		err := tx.QueryRowContext(ctx, `SELECT priority FROM frontier WHERE topic = ? AND state = ?
			ORDER BY priority DESC, seq ASC LIMIT 1`, topic, store.StateQueued).Scan(&best)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("best queued priority: %w", err)
		}
		floorCond, floorArgs = ` AND priority >= ?`, []any{sqlshared.ClaimFloor(minRatio*best, held)}
	}
	// The host walk reads frontier_hosts (each host's best queued entry) in
	// claim order; a host's further entries come from frontier_host_state.
	const sel = `SELECT url_hash, host, priority, seq FROM frontier_hosts WHERE topic = ?`
	heads := func(part sqlshared.ChunkPart, last *sqlshared.Candidate, skip []string, n int) ([]sqlshared.Candidate, error) {
		cond, args := floorCond, append([]any(nil), floorArgs...)
		// The hosts go in as one JSON array (json_each), not an IN list of
		// their number: the queries keep a few fixed shapes, prepared once.
		if len(skip) > 0 {
			list, err := json.Marshal(skip)
			if err != nil {
				return nil, err
			}
			cond += ` AND host NOT IN (SELECT value FROM json_each(?))`
			args = append(args, string(list))
		}
		var q string
		var head []any
		switch part {
		case sqlshared.ChunkFirst:
			q, head = sel+cond+` ORDER BY priority DESC, seq ASC LIMIT ?`, []any{topic}
		case sqlshared.ChunkSamePriority:
			q, head = sel+` AND priority = ? AND seq > ?`+cond+` ORDER BY seq ASC LIMIT ?`,
				[]any{topic, last.Priority, last.Seq}
		default:
			q, head = sel+` AND priority < ?`+cond+` ORDER BY priority DESC, seq ASC LIMIT ?`,
				[]any{topic, last.Priority}
		}
		rows, err := tx.QueryContext(ctx, q, append(append(head, args...), n)...)
		return collect(rows, err, sqlshared.ScanCandidate)
	}
	next := func(host string, last sqlshared.Candidate) (sqlshared.Candidate, bool, error) {
		rows, err := tx.QueryContext(ctx, `SELECT url_hash, host, priority, seq FROM frontier
			WHERE topic = ? AND host = ? AND state = 'queued'
			AND (priority < ? OR (priority = ? AND seq > ?))`+floorCond+`
			ORDER BY priority DESC, seq ASC LIMIT 1`,
			append([]any{topic, host, last.Priority, last.Priority, last.Seq}, floorArgs...)...)
		cands, err := collect(rows, err, sqlshared.ScanCandidate)
		if err != nil || len(cands) == 0 {
			return sqlshared.Candidate{}, false, err
		}
		return cands[0], true, nil
	}
	picked, err := sqlshared.PickByHost(limit, maxPerHost, exclude, heads, next)
	if err != nil {
		return nil, fmt.Errorf("scan queue: %w", err)
	}
	return picked, nil
}

// CompleteBatch marks a batch's entries done (idempotent).
func (s *Store) CompleteBatch(ctx context.Context, topic, batchID string) error {
	return s.write(ctx, fmt.Sprintf("complete batch %q of topic %q", batchID, topic), func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `UPDATE frontier SET state = ? WHERE topic = ? AND batch_id = ? AND batch_id <> '' AND state <> ?`,
			store.StateDone, topic, batchID, store.StateDone)
		return err
	})
}

// FrontierStats counts a topic's frontier entries by state.
func (s *Store) FrontierStats(ctx context.Context, topic string) (store.FrontierStats, error) {
	// The counts the frontier's triggers keep (migration 6), not the rows:
	// constant time however large the frontier.
	var st store.FrontierStats
	err := s.rdb.QueryRowContext(ctx, `SELECT queued, claimed, done FROM frontier_counts WHERE topic = ?`, topic).
		Scan(&st.Queued, &st.Claimed, &st.Done)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return store.FrontierStats{}, fmt.Errorf("store/sqlite: frontier stats of topic %q: %w", topic, err)
	}
	return st, nil
}

// FrontierBusy reports whether the topic has entries queued or claimed
// (see store.Frontier); the states are spelled literally so that SQLite
// answers from the frontier_claim index.
func (s *Store) FrontierBusy(ctx context.Context, topic string) (bool, error) {
	var busy bool
	err := s.rdb.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM frontier WHERE topic = ? AND state = 'queued')
		OR EXISTS (SELECT 1 FROM frontier WHERE topic = ? AND state = 'claimed')`, topic, topic).Scan(&busy)
	if err != nil {
		return false, fmt.Errorf("store/sqlite: frontier of topic %q: %w", topic, err)
	}
	return busy, nil
}

// Reprioritize sets new priorities for queued entries, each times its
// entry's sink; entries that are not queued (or unknown) are left alone.
func (s *Store) Reprioritize(ctx context.Context, topic string, priorities map[string]float64) error {
	if len(priorities) == 0 {
		return nil
	}
	return s.write(ctx, fmt.Sprintf("reprioritize %d entries of topic %q", len(priorities), topic), func(tx *wtx) error {
		upd, err := tx.PrepareContext(ctx, `UPDATE frontier SET priority = ? * sink WHERE topic = ? AND url_hash = ? AND state = ?`)
		if err != nil {
			return err
		}
		defer upd.Close()
		for hash, p := range priorities {
			if !sqlshared.Finite(p) {
				return fmt.Errorf("priority %v for %s: want a finite number", p, hash)
			}
			if _, err := upd.ExecContext(ctx, p, topic, hash, store.StateQueued); err != nil {
				return fmt.Errorf("set priority of %s: %w", hash, err)
			}
		}
		return nil
	})
}

// CompleteEntries marks entries done by URL hash (idempotent).
func (s *Store) CompleteEntries(ctx context.Context, topic string, urlHashes []string) error {
	if len(urlHashes) == 0 {
		return nil
	}
	return s.write(ctx, fmt.Sprintf("complete %d entries of topic %q", len(urlHashes), topic), func(tx *wtx) error {
		return completeEntriesTx(ctx, tx, topic, urlHashes)
	})
}

func completeEntriesTx(ctx context.Context, tx *wtx, topic string, urlHashes []string) error {
	upd, err := tx.PrepareContext(ctx, `UPDATE frontier SET `+sqlshared.CompleteSet+` WHERE topic = ? AND url_hash = ? AND state <> ?`)
	if err != nil {
		return err
	}
	defer upd.Close()
	for _, h := range urlHashes {
		if _, err := upd.ExecContext(ctx, topic, h, store.StateDone); err != nil {
			return fmt.Errorf("complete %s: %w", h, err)
		}
	}
	return nil
}

// ReleaseBatches ends the claims of the batches whose IDs start with prefix
// (see store.Frontier): unsaved entries are requeued, saved ones returned,
// and so are entries an expired lease closed before their page was judged.
func (s *Store) ReleaseBatches(ctx context.Context, topic, prefix string) ([]store.FrontierEntry, error) {
	if topic == "" || prefix == "" {
		return nil, fmt.Errorf("store/sqlite: release batches %q of topic %q: topic and prefix are required", prefix, topic)
	}
	lo, hi := sqlshared.PrefixRange(prefix)
	err := s.write(ctx, fmt.Sprintf("release batches %q of topic %q", prefix, topic), func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `UPDATE frontier SET state = ?, batch_id = '', lease_until = 0, claim_pos = 0
			WHERE topic = ? AND batch_id >= ? AND batch_id < ? AND state = 'claimed'
			AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.topic = frontier.topic AND p.url_hash = frontier.url_hash)`,
			store.StateQueued, topic, lo, hi)
		return err
	})
	if err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+sqlshared.FrontierColumns+` FROM frontier
		WHERE topic = ? AND batch_id >= ? AND batch_id < ? AND (state = 'claimed' OR (state = 'done'
			AND EXISTS (SELECT 1 FROM pages p WHERE p.topic = frontier.topic AND p.url_hash = frontier.url_hash
				AND p.batch_id = frontier.batch_id AND p.decision = ?)))
		ORDER BY batch_id, claim_pos`, topic, lo, hi, store.DecisionPending)
	out, err := collect(rows, err, sqlshared.ScanEntry)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: released entries %q of topic %q: %w", prefix, topic, err)
	}
	return out, nil
}

// BatchStats counts the work of the batches whose IDs start with prefix.
func (s *Store) BatchStats(ctx context.Context, topic, prefix string) (store.BatchStats, error) {
	lo, hi := sqlshared.PrefixRange(prefix)
	var st store.BatchStats
	if err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM frontier WHERE topic = ? AND batch_id >= ? AND batch_id < ? AND batch_id <> ''`,
		topic, lo, hi).Scan(&st.Claimed); err != nil {
		return st, fmt.Errorf("store/sqlite: claims of batches %q of topic %q: %w", prefix, topic, err)
	}
	err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(*),
		COALESCE(SUM(CASE WHEN error_class = '' AND status >= 200 AND status < 300 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN error_class <> '' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(terms_counted), 0),
		COALESCE(SUM(CASE WHEN decision = 'accepted' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN decision = 'rejected' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN decision = 'tunnel' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN decision = 'duplicate' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN decision = 'error' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(is_indexed), 0)
		FROM pages WHERE topic = ? AND batch_id >= ? AND batch_id < ?`, topic, lo, hi).Scan(
		&st.Fetched, &st.OK, &st.Failed, &st.Parsed, &st.Accepted, &st.Rejected, &st.Tunnel,
		&st.Duplicates, &st.Errors, &st.Indexed)
	if err != nil {
		return st, fmt.Errorf("store/sqlite: pages of batches %q of topic %q: %w", prefix, topic, err)
	}
	return st, nil
}

// FailedByClass counts the failed pages of the batches whose IDs start with
// prefix by error class (store.Frontier).
func (s *Store) FailedByClass(ctx context.Context, topic, prefix string) (map[string]int, error) {
	lo, hi := sqlshared.PrefixRange(prefix)
	rows, err := s.rdb.QueryContext(ctx, `SELECT error_class, COUNT(*) FROM pages
		WHERE topic = ? AND batch_id >= ? AND batch_id < ? AND error_class <> '' GROUP BY error_class`, topic, lo, hi)
	counts, err := collect(rows, err, sqlshared.ScanClassCount)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: failed pages of batches %q of topic %q: %w", prefix, topic, err)
	}
	return sqlshared.ClassCounts(counts), nil
}
