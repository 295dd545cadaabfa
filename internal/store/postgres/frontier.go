package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
	"focuscrawl/internal/urlnorm"
)

// Enqueue inserts entries as queued (see store.Frontier). Entries may belong
// to different topics. A missing URLHash or Host is derived from URL.
//
// One transaction of up to four statements per call: the entries already
// known are looked up, the per-host counts read (with MaxPerHost), the new
// ones inserted in one statement in key order, with sequence numbers in
// the caller's order (so the FIFO order of equal priorities is the call's
// order), and the queued ones among the rest whose priority rises updated
// in another (raiseQueued), which locks only the rows it changes. A URL
// given twice in one call is treated the way one-by-one inserts would: its
// first entry is inserted (or raises), the later ones raise the entry it
// became (mergedEntries).
func (s *Store) Enqueue(ctx context.Context, entries []store.FrontierEntry, opt store.EnqueueOptions) (int, error) {
	if len(entries) == 0 {
		return 0, nil
	}
	m, err := mergeEntries(entries)
	if err != nil {
		return 0, err
	}
	inserted := 0
	topics := make([]string, len(m.first))
	for i, e := range m.first {
		topics[i] = e.Topic
	}
	err = s.tx(ctx, fmt.Sprintf("enqueue %d entries of topic %q", len(m.first), m.first[0].Topic), func(tx pgx.Tx) error {
		if err := lockTopics(ctx, tx, topics...); err != nil {
			return err
		}
		var err error
		inserted, err = enqueueTx(ctx, tx, m, opt, entryKeys{})
		return err
	})
	if err != nil {
		return 0, err
	}
	return inserted, nil
}

// mergedEntries are Enqueue's entries: first holds each URL's first
// entry, later the entries that repeat a URL given before in the call, in
// the call's order. A later entry raises the entry its URL's first became
// (or the stored one) as in a call of its own (raiseQueued picks each
// URL's best candidate, the earliest of equals, as one-by-one raises do).
type mergedEntries struct {
	first []store.FrontierEntry
	later []store.FrontierEntry
}

// mergeEntries checks entries, fills in missing URL hashes and hosts, and
// merges a URL given twice (see Enqueue).
func mergeEntries(entries []store.FrontierEntry) (mergedEntries, error) {
	var m mergedEntries
	seen := map[string]bool{} // topic + "\x00" + URL hash
	for _, e := range entries {
		if err := sqlshared.CheckEntry(e); err != nil {
			return mergedEntries{}, fmt.Errorf("store/postgres: %w", err)
		}
		if e.URLHash == "" {
			e.URLHash = urlnorm.Hash(e.URL)
		}
		if e.Host == "" {
			e.Host = urlnorm.Host(e.URL)
		}
		key := e.Topic + "\x00" + e.URLHash
		if seen[key] {
			m.later = append(m.later, e)
			continue
		}
		seen[key] = true
		m.first = append(m.first, e)
	}
	return m, nil
}

// entryKeys are frontier entries of one topic, by URL hash.
type entryKeys struct {
	topic  string
	hashes []string
}

// enqueueTx is Enqueue of merged entries in tx, which holds their topics'
// lockTopics; it returns how many it inserted. done are entries the
// caller marks done next in tx (WriteGroup's completed entries): the raise
// locks those not done yet with the entries it raises, in one run in key
// order (raiseQueued).
func enqueueTx(ctx context.Context, tx pgx.Tx, m mergedEntries, opt store.EnqueueOptions, done entryKeys) (int, error) {
	es := m.first
	if len(es) == 0 {
		return 0, nil
	}
	known, hostCount, err := enqueueState(ctx, tx, es, opt.MaxPerHost > 0)
	if err != nil {
		return 0, err
	}
	var cols, raise frontierColumnsIn
	for _, e := range es {
		if _, ok := known[e.Topic+"\x00"+e.URLHash]; ok {
			raise.add(e)
			continue
		}
		if opt.MaxPerHost > 0 {
			k := e.Topic + "\x00" + e.Host
			if hostCount[k] >= opt.MaxPerHost {
				continue
			}
			hostCount[k]++
		}
		cols.add(e)
	}
	// New entries are inserted in key order, the order in which every
	// writer takes frontier rows: an insert waits for a row of the same
	// key that a concurrent caller inserted and has not committed, so two
	// callers inserting the same new URLs in their own orders (two groups
	// whose pages link to the same pages) each waited for the other's.
	// Their sequence numbers (the FIFO order of equal priorities) still
	// follow the caller's order: the call's values of frontier_seq, which
	// rise within a session, go to its entries in order (the i-th smallest
	// to the i-th entry, whatever order nextval ran in). DO NOTHING neither
	// locks nor waits for a row committed already; one a concurrent caller
	// inserted meanwhile is waited for and then left to the raise below,
	// as a known one.
	inserted := 0
	if len(cols.topic) > 0 {
		rows, err := tx.Query(ctx, `WITH e AS (
				SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::int[], $7::text[],
					$8::text[], $9::text[], $10::text[], $11::float8[], $12::text[], $13::text[], $14::float8[])
					WITH ORDINALITY AS e(topic, url_hash, url, host, priority, depth, parent_hash, parent_url,
						anchor, anchor_path, link_score, strategy, crawl_id, sink, ord)),
			s AS (
				SELECT v, row_number() OVER (ORDER BY v) AS ord
				FROM (SELECT nextval('frontier_seq') AS v FROM generate_series(1, cardinality($1::text[]))) AS n)
			INSERT INTO frontier AS f (topic, url_hash, url, host, priority, depth,
				parent_hash, parent_url, anchor, anchor_path, link_score, strategy, state, crawl_id, sink, seq)
			SELECT e.topic, e.url_hash, e.url, e.host, e.priority * e.sink, e.depth, e.parent_hash, e.parent_url,
				e.anchor, e.anchor_path, e.link_score, e.strategy, 'queued', e.crawl_id, e.sink, s.v
			FROM e JOIN s ON s.ord = e.ord
			ORDER BY e.topic COLLATE "C", e.url_hash COLLATE "C"
			ON CONFLICT (topic, url_hash) DO NOTHING
			RETURNING topic, url_hash`,
			cols.topic, cols.urlHash, cols.url, cols.host, cols.priority, cols.depth, cols.parentHash,
			cols.parentURL, cols.anchor, cols.anchorPath, cols.linkScore, cols.strategy, cols.crawlID, cols.sink)
		keys, err := collect(rows, err, func(sc scanner) (string, error) {
			var topic, hash string
			err := sc.Scan(&topic, &hash)
			return topic + "\x00" + hash, err
		})
		if err != nil {
			return 0, fmt.Errorf("insert %d entries: %w", len(cols.topic), err)
		}
		inserted = len(keys)
		if inserted < len(cols.topic) {
			fresh := make(map[string]bool, len(keys))
			for _, k := range keys {
				fresh[k] = true
			}
			for i := range cols.topic {
				if !fresh[cols.topic[i]+"\x00"+cols.urlHash[i]] {
					raise.addFrom(&cols, i)
				}
			}
		}
	}
	// A URL's later entries raise after its first is inserted or raised:
	// of its candidates, the best one counts (the earliest of equals, as
	// one-by-one raises have it), one row per URL for raiseQueued. The
	// sinks they are ranked by are those read above, or a new entry's
	// own; raiseQueued scales the chosen one by the row's sink once
	// locked.
	if len(m.later) > 0 {
		for i := range cols.topic {
			if _, ok := known[cols.topic[i]+"\x00"+cols.urlHash[i]]; !ok {
				known[cols.topic[i]+"\x00"+cols.urlHash[i]] = cols.sink[i]
			}
		}
		raise = bestRaises(&raise, m.later, known)
	}
	if err := raiseQueued(ctx, tx, &raise, done); err != nil {
		return 0, err
	}
	return inserted, nil
}

// bestRaises returns c's rows and later's entries with one row per URL:
// the best candidate of each (priority × the lower of the URL's sink —
// from sinks, 1 when unknown — and the entry's own), the earliest of
// equals, in the order URLs first appear.
func bestRaises(c *frontierColumnsIn, later []store.FrontierEntry, sinks map[string]float64) frontierColumnsIn {
	var all frontierColumnsIn
	for i := range c.topic {
		all.addFrom(c, i)
	}
	for _, l := range later {
		all.add(l)
	}
	var out frontierColumnsIn
	at := map[string]int{}
	for i := range all.topic {
		k := all.topic[i] + "\x00" + all.urlHash[i]
		sink, ok := sinks[k]
		if !ok {
			sink = 1
		}
		cand := all.priority[i] * min(sink, all.sink[i])
		j, seen := at[k]
		if !seen {
			at[k] = len(out.topic)
			out.addFrom(&all, i)
			continue
		}
		if cand > out.priority[j]*min(sink, out.sink[j]) {
			out.priority[j], out.sink[j] = all.priority[i], all.sink[i]
			out.linkScore[j], out.strategy[j] = all.linkScore[i], all.strategy[i]
		}
	}
	return out
}

// raiseQueued raises the priority (with link score and strategy) of those
// of c's entries that are queued with a lower priority than the new one
// times the lower of their sink (store.Frontier.DemoteQueued) and the
// entry's Sink, to that; c holds each URL once (bestRaises). The rows are locked
// in key order, in collation "C" (the one order of every multi-row writer
// of frontier rows, updateInKeyOrder: they cannot deadlock), their
// condition checked again on their newest version once locked (FOR UPDATE
// under READ COMMITTED), so the update by key alone changes just those; and
// only rows it changes are locked: an UPDATE or FOR UPDATE locks just the rows its WHERE
// matches, where the upsert's DO UPDATE ... WHERE locked every row in
// conflict until the transaction ended, so a group that merely linked to a
// known entry kept claims (SKIP LOCKED) from it and could deadlock with a
// group linking back.
//
// done's entries that are not done yet are locked in the same run, not
// raised: the caller marks them done next (WriteGroup's completed
// entries). Locked by a statement of their own after the raise, they were
// a second run in key order, and a writer that took one of them (a
// directory's claimed entries, DemoteQueued) before a raised entry waited
// for the group while the group waited for it.
func raiseQueued(ctx context.Context, tx pgx.Tx, c *frontierColumnsIn, done entryKeys) error {
	if len(c.topic) == 0 {
		return nil // done's entries are the caller's one run
	}
	_, err := tx.Exec(ctx, `WITH e AS (
			SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[], $5::text[], $6::float8[])
				AS e(topic, url_hash, priority, link_score, strategy, sink)),
		k AS (
			SELECT topic, url_hash, priority, link_score, strategy, sink FROM e
			UNION ALL
			SELECT $7::text, h, NULL, NULL, NULL, NULL FROM unnest($8::text[]) AS h),
		locked AS (
			SELECT f.topic, f.url_hash, k.priority * LEAST(f.sink, k.sink) AS priority, k.link_score, k.strategy
			FROM frontier f JOIN k ON f.topic = k.topic AND f.url_hash = k.url_hash
			WHERE (k.priority IS NOT NULL AND f.state = 'queued' AND f.priority < k.priority * LEAST(f.sink, k.sink))
				OR (k.priority IS NULL AND f.state <> 'done')
			ORDER BY f.topic COLLATE "C", f.url_hash COLLATE "C"
			FOR UPDATE OF f)
		UPDATE frontier f SET priority = r.priority, link_score = r.link_score, strategy = r.strategy
		FROM locked r
		WHERE r.priority IS NOT NULL AND f.topic = r.topic AND f.url_hash = r.url_hash`,
		c.topic, c.urlHash, c.priority, c.linkScore, c.strategy, c.sink, done.topic, done.hashes)
	if err != nil {
		return fmt.Errorf("raise priorities of %d known entries: %w", len(c.topic), err)
	}
	return nil
}

// frontierColumnsIn holds entries column by column, as arrays for unnest.
type frontierColumnsIn struct {
	topic, urlHash, url, host, parentHash, parentURL, anchor, anchorPath, strategy, crawlID []string
	priority, linkScore, sink                                                               []float64
	depth                                                                                   []int32
}

// addFrom appends the i-th entry of o.
func (c *frontierColumnsIn) addFrom(o *frontierColumnsIn, i int) {
	c.add(store.FrontierEntry{Topic: o.topic[i], URLHash: o.urlHash[i], URL: o.url[i], Host: o.host[i],
		ParentHash: o.parentHash[i], ParentURL: o.parentURL[i], Anchor: o.anchor[i], AnchorPath: o.anchorPath[i],
		Strategy: o.strategy[i], CrawlID: o.crawlID[i], Priority: o.priority[i], LinkScore: o.linkScore[i], Depth: int(o.depth[i]),
		Sink: o.sink[i]})
}

func (c *frontierColumnsIn) add(e store.FrontierEntry) {
	c.topic, c.urlHash, c.url, c.host = append(c.topic, e.Topic), append(c.urlHash, e.URLHash), append(c.url, e.URL), append(c.host, e.Host)
	c.parentHash, c.parentURL = append(c.parentHash, e.ParentHash), append(c.parentURL, e.ParentURL)
	c.anchor, c.anchorPath = append(c.anchor, e.Anchor), append(c.anchorPath, e.AnchorPath)
	c.strategy, c.crawlID = append(c.strategy, e.Strategy), append(c.crawlID, e.CrawlID)
	c.priority, c.linkScore = append(c.priority, e.Priority), append(c.linkScore, e.LinkScore)
	c.sink = append(c.sink, sqlshared.EntrySink(e))
	c.depth = append(c.depth, int32(e.Depth))
}

// enqueueState returns the sinks of the (topic, URL hash) keys of es the frontier
// knows and, when withHosts, how many entries each of their (topic, host)
// pairs has, keyed by topic + "\x00" + hash or host.
func enqueueState(ctx context.Context, tx pgx.Tx, es []store.FrontierEntry, withHosts bool) (known map[string]float64, hostCount map[string]int, err error) {
	type lists struct{ hashes, hosts []string }
	byTopic := map[string]*lists{}
	for _, e := range es {
		l := byTopic[e.Topic]
		if l == nil {
			l = &lists{}
			byTopic[e.Topic] = l
		}
		l.hashes = append(l.hashes, e.URLHash)
		if withHosts && !slices.Contains(l.hosts, e.Host) {
			l.hosts = append(l.hosts, e.Host)
		}
	}
	known, hostCount = map[string]float64{}, map[string]int{}
	for topic, l := range byTopic {
		type hashSink struct {
			hash string
			sink float64
		}
		rows, err := tx.Query(ctx, `SELECT url_hash, sink FROM frontier WHERE topic = $1 AND url_hash = ANY($2)`, topic, l.hashes)
		found, err := collect(rows, err, func(sc scanner) (hashSink, error) {
			var h hashSink
			return h, sc.Scan(&h.hash, &h.sink)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("look up known entries: %w", err)
		}
		for _, h := range found {
			known[topic+"\x00"+h.hash] = h.sink
		}
		if !withHosts {
			continue
		}
		type hostN struct {
			host string
			n    int
		}
		rows, err = tx.Query(ctx, `SELECT host, COUNT(*) FROM frontier WHERE topic = $1 AND host = ANY($2) GROUP BY host`, topic, l.hosts)
		counts, err := collect(rows, err, func(sc scanner) (hostN, error) {
			var h hostN
			return h, sc.Scan(&h.host, &h.n)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("count entries per host: %w", err)
		}
		for _, c := range counts {
			hostCount[topic+"\x00"+c.host] = c.n
		}
	}
	return known, hostCount, nil
}

// claimWait and claimTries bound how long ClaimBatch waits for entries that
// concurrent claimers hold locked (they either claim them or roll back).
const (
	claimWait  = 20 * time.Millisecond
	claimTries = 100
)

// checkFence fails with store.ErrFenced when f is named and a newer token
// was raised for it. It first takes the fence's advisory lock with take:
// shared for claims, exclusive for a raise, so a raise waits for the claims
// already running and every claim after it reads the new token (read
// committed).
func checkFence(ctx context.Context, tx pgx.Tx, topic string, f store.Fence, take func(context.Context, pgx.Tx, string) error) error {
	if f.Name == "" {
		return nil
	}
	if err := take(ctx, tx, "fence/"+topic+"/"+f.Name); err != nil {
		return err
	}
	var tok int64
	err := tx.QueryRow(ctx, `SELECT token FROM fences WHERE topic = $1 AND name = $2`, topic, f.Name).Scan(&tok)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read fence %q: %w", f.Name, err)
	}
	if tok > f.Token {
		return fmt.Errorf("fence %q: token %d, newest %d: %w", f.Name, f.Token, tok, store.ErrFenced)
	}
	return nil
}

// RaiseFence records f.Token as the fence's newest token (see store.Fence).
func (s *Store) RaiseFence(ctx context.Context, topic string, f store.Fence) error {
	if topic == "" || f.Name == "" {
		return fmt.Errorf("store/postgres: raise fence %q of topic %q: topic and name are required", f.Name, topic)
	}
	return s.tx(ctx, fmt.Sprintf("raise fence %q of topic %q", f.Name, topic), func(tx pgx.Tx) error {
		if err := lockTopics(ctx, tx, topic); err != nil {
			return err
		}
		if err := checkFence(ctx, tx, topic, f, lock); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO fences (topic, name, token, raised_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (topic, name) DO UPDATE SET token = excluded.token, raised_at = excluded.raised_at`,
			topic, f.Name, f.Token, time.Now().UnixNano())
		return err
	})
}

// PruneFences deletes the topic's fences raised before raisedBefore (see
// store.Frontier). No advisory lock: a pruned fence holds back no live
// attempt, and a raise that meets the delete waits on the row.
func (s *Store) PruneFences(ctx context.Context, topic string, raisedBefore time.Time) (int, error) {
	var n int64
	err := s.tx(ctx, fmt.Sprintf("prune fences of topic %q", topic), func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM fences WHERE topic = $1 AND raised_at > 0 AND raised_at < $2`, topic, raisedBefore.UnixNano())
		n = tag.RowsAffected()
		return err
	})
	return int(n), err
}

// ClaimBatch leases up to req.Max queued entries to req.BatchID (see
// store.Frontier and the package comment). Concurrent claimers lock the
// entries they pick (FOR UPDATE SKIP LOCKED) and so never receive the same
// entry; claims of one batch ID are serialised by an advisory lock.
func (s *Store) ClaimBatch(ctx context.Context, req store.ClaimRequest) (store.Batch, error) {
	now, lease, err := sqlshared.ClaimDefaults(req)
	if err != nil {
		return store.Batch{}, fmt.Errorf("store/postgres: %w", err)
	}
	what := fmt.Sprintf("claim batch %q of topic %q", req.BatchID, req.Topic)
	for try := 0; ; try++ {
		b := store.Batch{ID: req.BatchID}
		contended, requeued := false, false
		err := s.tx(ctx, what, func(tx pgx.Tx) error {
			contended, requeued = false, false // a rerun transaction starts over
			if err := lock(ctx, tx, "batch/"+req.Topic+"/"+req.BatchID); err != nil {
				return err
			}
			if err := checkFence(ctx, tx, req.Topic, req.Fence, lockShared); err != nil {
				return err
			}
			// Idempotence: a batch that was already claimed is returned as is.
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM frontier
				WHERE topic = $1 AND batch_id = $2 AND batch_id <> ''`, req.Topic, req.BatchID).Scan(&b.Size); err != nil {
				return err
			}
			if b.Size > 0 {
				return nil
			}
			// Entries an expired lease put back in the queue reach
			// frontier_hosts only when this transaction commits (migration
			// 18 keeps the heads at commit): commit them first, and claim
			// in a transaction of its own that sees them.
			n, err := expireLeases(ctx, tx, req.Topic, toNanos(now))
			if err != nil || n > 0 {
				requeued = n > 0
				return err
			}
			if req.Max <= 0 {
				return nil
			}
			floor, queued, err := claimFloor(ctx, tx, req.Topic, req.MinRatio)
			if err != nil || !queued {
				return err
			}
			if req.HoldUnscored {
				if err := tx.QueryRow(ctx, rebind(sqlshared.HoldQuery), req.Topic,
					toNanos(sqlshared.HoldBound(req, now, lease)), req.Topic).Scan(&b.Held); err != nil {
					return fmt.Errorf("entries in flight: %w", err)
				}
			}
			picked, exclude, err := pickExplore(ctx, tx, req, b.Held)
			if err != nil {
				return err
			}
			floor = sqlshared.ClaimFloor(floor, b.Held)
			if rest := req.Max - len(picked); rest > 0 {
				more, err := pickQueued(ctx, tx, req.Topic, rest, req.MaxPerHost, exclude, floor)
				if err != nil {
					return err
				}
				picked = append(picked, more...)
			}
			if len(picked) == 0 {
				// Nothing unlocked; if claimable entries are queued, other
				// claimers hold them. Asked of the hosts' heads: the queue
				// would be read past every entry of the excluded hosts.
				return tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM frontier_hosts WHERE topic = $1
					AND host <> ALL($2) AND priority >= $3)`, req.Topic, append([]string{}, req.ExcludeHosts...), floor).Scan(&contended)
			}
			_, err = tx.Exec(ctx, `UPDATE frontier f SET state = 'claimed', batch_id = $2, lease_until = $3,
				attempts = f.attempts + 1, claim_pos = p.pos
				FROM unnest($4::text[]) WITH ORDINALITY AS p(url_hash, pos)
				WHERE f.topic = $1 AND f.url_hash = p.url_hash`,
				req.Topic, req.BatchID, toNanos(now.Add(lease)), picked)
			if err != nil {
				return fmt.Errorf("claim %d entries: %w", len(picked), err)
			}
			b.Size = len(picked)
			return nil
		})
		if err != nil {
			return store.Batch{}, err
		}
		if requeued {
			continue // claim again, the requeued entries' heads committed
		}
		if !contended || try >= claimTries {
			return b, nil
		}
		select {
		case <-ctx.Done():
			return store.Batch{}, fmt.Errorf("store/postgres: %s: %w", what, ctx.Err())
		case <-time.After(claimWait):
		}
	}
}

// expireLeases ends the claims of topic whose lease ran out before now. An
// entry whose page was never saved goes back to the queue (keeping its
// priority and seq, so its place in line); one whose page was saved has been
// fetched and is marked done, keeping its batch. Entries another
// transaction is expiring right now are skipped, not waited for. It
// returns how many entries went back to the queue.
func expireLeases(ctx context.Context, tx pgx.Tx, topic string, now int64) (int, error) {
	var requeued int
	err := tx.QueryRow(ctx, `WITH expired AS (
			SELECT f.url_hash, EXISTS (SELECT 1 FROM pages p WHERE p.topic = f.topic AND p.url_hash = f.url_hash) AS fetched
			FROM frontier f WHERE f.topic = $1 AND f.state = 'claimed' AND f.lease_until < $2
			FOR UPDATE SKIP LOCKED),
		ended AS (
			UPDATE frontier f SET
				state = CASE WHEN e.fetched THEN 'done' ELSE 'queued' END,
				batch_id = CASE WHEN e.fetched THEN f.batch_id ELSE '' END,
				lease_until = CASE WHEN e.fetched THEN f.lease_until ELSE 0 END,
				claim_pos = CASE WHEN e.fetched THEN f.claim_pos ELSE 0 END
			FROM expired e WHERE f.topic = $1 AND f.url_hash = e.url_hash
			RETURNING f.state)
		SELECT COUNT(*) FILTER (WHERE state = 'queued') FROM ended`, topic, now).Scan(&requeued)
	if err != nil {
		return 0, fmt.Errorf("expire leases: %w", err)
	}
	return requeued, nil
}

// headsQuery is a query of pickQueued's host walk: up to $n heads of
// frontier_hosts in claim order (frontier_hosts_claim) that meet cond, each
// with its entry locked if it is still queued as the row names it, and
// whether it is not (the head is then a bound: sqlshared.PickByHostLocking).
// $1 is the topic, $2 the skipped hosts, $3 the floor. The heads are
// limited before the join, so that no plan locks the entries of heads past
// the limit; order repeats for the join's output.
func headsQuery(cond, order, n string) string {
	return `SELECT h.url_hash, h.host, h.priority, h.seq, e.url_hash IS NULL FROM (
		SELECT topic, host, priority, seq, url_hash FROM frontier_hosts
		WHERE topic = $1 AND host <> ALL($2) AND priority >= $3 AND ` + cond + `
		ORDER BY ` + order + ` LIMIT ` + n + `) AS h
	LEFT JOIN LATERAL (SELECT f.url_hash FROM frontier f
		WHERE f.topic = h.topic AND f.url_hash = h.url_hash AND f.state = 'queued'
		AND f.priority = h.priority AND f.seq = h.seq
		FOR UPDATE SKIP LOCKED) AS e ON TRUE
	ORDER BY ` + order
}

// The queries of the host walk's parts (sqlshared.ChunkPart).
var (
	headsFirst         = headsQuery(`TRUE`, `priority DESC, seq ASC`, `$4`)
	headsSamePriority  = headsQuery(`priority = $4 AND seq > $5`, `seq ASC`, `$6`)
	headsLowerPriority = headsQuery(`priority < $4`, `priority DESC, seq ASC`, `$5`)
)

// hostSelect reads a host's first entry the claim can lock at (%s is >=)
// or after (>) a candidate's place, through frontier_host_state: $1 topic,
// $2 host, $3 the floor, $4 and $5 the candidate's priority and seq.
// priority <= $4 bounds the index scan; the rest of the condition passes
// over the entries of that priority before the seq, mostly this claim's
// own picks (locked by it, so not skipped) or entries other claims hold.
// state = (SELECT 'queued') keeps the planner off frontier_queue, whose
// predicate it cannot prove so: on a table without statistics it walked
// the topic's queue filtering the host, past every busy host's entries.
const hostSelect = `SELECT url_hash, host, priority, seq FROM frontier
		WHERE topic = $1 AND host = $2 AND state = (SELECT 'queued'::text) AND priority >= $3 AND priority <= $4
		AND (priority < $4 OR seq %s $5)
		ORDER BY priority DESC, seq ASC LIMIT 1 FOR UPDATE SKIP LOCKED`

// pickQueued locks and returns the URL hashes of up to limit queued entries
// of topic, best first (priority DESC, seq ASC), at most maxPerHost per host,
// none of the excluded hosts and none below floor, skipping entries other
// transactions hold.
//
// The walk is sqlshared.PickByHostLocking over frontier_hosts (migration
// 19), each host's best queued entry, so an excluded host costs one row
// however many entries it queues. The heads query locks each head's entry
// as it reads it (FOR UPDATE SKIP LOCKED in a lateral subquery, its
// priority and seq checked again on the newest version); a head whose
// entry is held by another transaction, or changed since the index row
// was read, comes back bound and the host's first entry the claim can
// lock is read through frontier_host_state, as its next entries are. A
// head read but not taken stays locked until the transaction ends, which
// only makes concurrent claimers pass over it for that moment.
func pickQueued(ctx context.Context, tx pgx.Tx, topic string, limit, maxPerHost int, exclude []string, floor float64) ([]string, error) {
	heads := func(part sqlshared.ChunkPart, last *sqlshared.Candidate, skip []string, n int) ([]sqlshared.Candidate, error) {
		var rows pgx.Rows
		var err error
		switch part {
		case sqlshared.ChunkFirst:
			rows, err = tx.Query(ctx, headsFirst, topic, skip, floor, n)
		case sqlshared.ChunkSamePriority:
			rows, err = tx.Query(ctx, headsSamePriority, topic, skip, floor, last.Priority, last.Seq, n)
		default:
			rows, err = tx.Query(ctx, headsLowerPriority, topic, skip, floor, last.Priority, n)
		}
		return collect(rows, err, func(sc scanner) (sqlshared.Candidate, error) {
			var c sqlshared.Candidate
			return c, sc.Scan(&c.Hash, &c.Host, &c.Priority, &c.Seq, &c.Bound)
		})
	}
	atSel, pastSel := fmt.Sprintf(hostSelect, ">="), fmt.Sprintf(hostSelect, ">")
	hostQuery := func(q string) sqlshared.NextQuery {
		return func(host string, c sqlshared.Candidate) (sqlshared.Candidate, bool, error) {
			rows, err := tx.Query(ctx, q, topic, host, floor, c.Priority, c.Seq)
			cands, err := collect(rows, err, sqlshared.ScanCandidate)
			if err != nil || len(cands) == 0 {
				return sqlshared.Candidate{}, false, err
			}
			return cands[0], true, nil
		}
	}
	picked, err := sqlshared.PickByHostLocking(limit, maxPerHost, exclude, heads, hostQuery(atSel), hostQuery(pastSel))
	if err != nil {
		return nil, fmt.Errorf("scan queue: %w", err)
	}
	return picked, nil
}

// exploreSelect reads a host's best queued entry the claim can lock, at or
// above the floor: $1 topic, $2 host, $3 the floor. Read from the queue,
// not frontier_hosts, whose rows follow a transaction's writes only at
// commit.
const exploreSelect = `SELECT url_hash, host, priority, seq FROM frontier
		WHERE topic = $1 AND host = $2 AND state = (SELECT 'queued'::text) AND priority >= $3
		ORDER BY priority DESC, seq ASC LIMIT 1 FOR UPDATE SKIP LOCKED`

// pickExplore is sqlshared.PickExploring, each host's best entry the
// claim can lock read and locked by exploreSelect (an entry another
// claimer holds is passed over for the host's next).
func pickExplore(ctx context.Context, tx pgx.Tx, req store.ClaimRequest, held bool) ([]string, []string, error) {
	return sqlshared.PickExploring(req, held, func(host string, floor float64) (sqlshared.Candidate, bool, error) {
		rows, err := tx.Query(ctx, exploreSelect, req.Topic, host, floor)
		cands, err := collect(rows, err, sqlshared.ScanCandidate)
		if err != nil || len(cands) == 0 {
			return sqlshared.Candidate{}, false, err
		}
		return cands[0], true, nil
	})
}

// claimFloor returns the lowest priority a claim with minRatio may take:
// minRatio times the best queued priority of the topic (-Inf without a
// ratio), and whether anything is queued at all.
func claimFloor(ctx context.Context, tx pgx.Tx, topic string, minRatio float64) (float64, bool, error) {
	if minRatio <= 0 {
		return math.Inf(-1), true, nil
	}
	var best float64
	err := tx.QueryRow(ctx, `SELECT priority FROM frontier WHERE topic = $1 AND state = 'queued'
		ORDER BY priority DESC, seq ASC LIMIT 1`, topic).Scan(&best)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("best queued priority: %w", err)
	}
	return minRatio * best, true, nil
}

// completeBatchSQL is CompleteBatch's statement: $1 topic, $2 batch ID.
var completeBatchSQL = updateInKeyOrder(`frontier`, `state = 'done'`,
	`frontier.batch_id = $2 AND frontier.batch_id <> '' AND frontier.state <> 'done'`, ``, ``)

// CompleteBatch marks a batch's entries done (idempotent), their rows
// locked first in key order (updateInKeyOrder), not in the batch index's.
func (s *Store) CompleteBatch(ctx context.Context, topic, batchID string) error {
	_, err := s.execRetry(ctx, completeBatchSQL, topic, batchID)
	if err != nil {
		return fmt.Errorf("store/postgres: complete batch %q of topic %q: %w", batchID, topic, err)
	}
	return nil
}

// FrontierBusy reports whether the topic has entries queued or claimed
// (see store.Frontier): two index lookups, read-only, where FrontierStats
// folds the count deltas under a lock.
func (s *Store) FrontierBusy(ctx context.Context, topic string) (bool, error) {
	var busy bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM frontier WHERE topic = $1 AND state = 'queued')
		OR EXISTS (SELECT 1 FROM frontier WHERE topic = $1 AND state = 'claimed')`, topic).Scan(&busy)
	if err != nil {
		return false, fmt.Errorf("store/postgres: frontier of topic %q: %w", topic, err)
	}
	return busy, nil
}

// FrontierStats returns a topic's frontier counts by state. It sums the
// count deltas the triggers of migration 2 appended since the last call and
// folds them into one row, so its cost depends on the writes since the last
// call, not on the frontier's size. Calls for one topic are serialised by an
// advisory lock taken before the statement, so each one's snapshot includes
// the previous one's fold; rows that writers commit meanwhile stay for the
// next call.
func (s *Store) FrontierStats(ctx context.Context, topic string) (store.FrontierStats, error) {
	var st store.FrontierStats
	err := s.tx(ctx, fmt.Sprintf("frontier stats of topic %q", topic), func(tx pgx.Tx) error {
		if err := lock(ctx, tx, "counts/"+topic); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `WITH gone AS (
			DELETE FROM frontier_counts WHERE topic = $1 RETURNING queued, claimed, done),
		total AS (
			SELECT COALESCE(SUM(queued), 0) AS queued, COALESCE(SUM(claimed), 0) AS claimed, COALESCE(SUM(done), 0) AS done FROM gone),
		folded AS (
			INSERT INTO frontier_counts (topic, queued, claimed, done)
			SELECT $1, queued, claimed, done FROM total WHERE queued <> 0 OR claimed <> 0 OR done <> 0)
		SELECT queued, claimed, done FROM total`, topic).Scan(&st.Queued, &st.Claimed, &st.Done)
	})
	if err != nil {
		return store.FrontierStats{}, err
	}
	return st, nil
}

// reprioritizeSQL is Reprioritize's statement: $1 topic, $2 URL hashes,
// $3 their priorities.
var reprioritizeSQL = updateInKeyOrder(`frontier`, `priority = p.priority * frontier.sink`,
	`frontier.url_hash = ANY($2) AND frontier.state = 'queued'`,
	`unnest($2::text[], $3::float8[]) AS p(url_hash, priority)`, `p.url_hash = frontier.url_hash`)

// Reprioritize sets new priorities for queued entries in one statement,
// each times its entry's sink; entries that are not queued (or unknown) are
// left alone. The rows are locked first, in key order (updateInKeyOrder):
// sorting the array fixed no order, as the planner joins it to the frontier
// as it likes (for a few entries: a walk of the topic's queue, by priority).
func (s *Store) Reprioritize(ctx context.Context, topic string, priorities map[string]float64) error {
	if len(priorities) == 0 {
		return nil
	}
	hashes := make([]string, 0, len(priorities))
	prios := make([]float64, 0, len(priorities))
	for h, p := range priorities {
		if !sqlshared.Finite(p) {
			return fmt.Errorf("store/postgres: reprioritize entries of topic %q: priority %v for %s: want a finite number", topic, p, h)
		}
		hashes, prios = append(hashes, h), append(prios, p)
	}
	_, err := s.execRetry(ctx, reprioritizeSQL, topic, hashes, prios)
	if err != nil {
		return fmt.Errorf("store/postgres: reprioritize %d entries of topic %q: %w", len(hashes), topic, err)
	}
	return nil
}

// demoteSQL is DemoteQueued's statement: $1 topic, $2 host, $3 and $4 the
// prefix's length in characters and the prefix, $5 the factor.
var demoteSQL = updateInKeyOrder(`frontier`, `priority = frontier.priority * $5, sink = frontier.sink * $5`,
	`frontier.host = $2 AND frontier.state IN ('queued', 'claimed') AND substr(frontier.url, 1, $3) = $4`, ``, ``)

// DemoteQueued multiplies by factor the priority and the sink of the
// topic's queued and claimed entries of host whose URL starts with prefix,
// and returns how many it changed (store.Frontier). It is
// sqlshared.Methods.DemoteQueued with the rows locked first in key order
// (updateInKeyOrder): the UPDATE alone took them in the order of its scan
// of frontier_host_state, by priority, which the demotions and new
// priorities of other workers keep changing.
func (s *Store) DemoteQueued(ctx context.Context, topic, host, prefix string, factor float64) (int, error) {
	if err := sqlshared.CheckDemote(prefix, factor); err != nil {
		return 0, fmt.Errorf("store/postgres: demote queued entries: %w", err)
	}
	// substr counts characters, as RuneCountInString does.
	tag, err := s.execRetry(ctx, demoteSQL, topic, host, utf8.RuneCountInString(prefix), prefix, factor)
	if err != nil {
		return 0, fmt.Errorf("store/postgres: demote queued entries %s of topic %q: %w", prefix, topic, err)
	}
	return int(tag.RowsAffected()), nil
}
