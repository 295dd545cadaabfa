package search

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
)

// Defaults of a NoResultQueue. A public search endpoint is unauthenticated:
// these bound what anyone can make it write to the crawl store, whatever
// they send.
const (
	// DefaultMaxPending is how many distinct (topic, query) pairs wait for
	// the next flush; more distinct misses are dropped until then.
	DefaultMaxPending = 1000
	// DefaultRatePerMinute is how many misses per minute are accepted on
	// average (repeats of a pending pair included).
	DefaultRatePerMinute = 60
	// DefaultBurst is how many misses are accepted at once after a quiet
	// spell (the token bucket's size).
	DefaultBurst = 60
	// DefaultFlushEvery is how often Run writes the queue to the store.
	DefaultFlushEvery = 30 * time.Second
)

// NoResultQueue takes no-result searches off the request path: the service
// hands each miss to RecordNoResultQuery, which only updates an in-memory,
// bounded and rate-limited queue and never blocks on the store; Run (or
// Flush) writes the queue to the crawl store in the background. Before, every
// unauthenticated miss was a write transaction on crawl.db, competing with
// the crawl's own writes. Misses beyond the bounds are dropped and counted
// (Dropped): losing a few of them costs seed 003's keyword expansion little.
// Safe for concurrent use.
type NoResultQueue struct {
	store NoResultRecorder
	// MaxPending, RatePerMinute and Burst default to the constants above
	// when zero; set them before the first use.
	MaxPending    int
	RatePerMinute float64
	Burst         float64
	Now           func() time.Time

	mu      sync.Mutex
	pending map[pendingKey]*pendingMiss
	order   []pendingKey
	tokens  float64
	last    time.Time // of the last token refill
	dropped int
}

type pendingKey struct{ topic, query string }

type pendingMiss struct {
	count int
	at    time.Time // latest
}

// NewNoResultQueue returns a queue that flushes into store.
func NewNoResultQueue(store NoResultRecorder) *NoResultQueue {
	return &NoResultQueue{store: store}
}

// RecordNoResultQuery queues one miss and returns at once. It never touches
// the store; a miss over the rate or the pending bound is dropped (and
// counted), not an error, so the searcher gets their answer either way.
func (q *NoResultQueue) RecordNoResultQuery(ctx context.Context, topic, query string, at time.Time) error {
	return q.RecordNoResultQueries(ctx, []string{topic}, query, at)
}

// RecordNoResultQueries queues one miss for every topic it was searched in
// (a search without a topic filter misses in all of them) and takes one
// token for it: the rate bounds searches, not topics. Before, such a miss
// took a token per topic, so with more topics than the burst one miss
// emptied the bucket and the topics after the burst never saw one.
func (q *NoResultQueue) RecordNoResultQueries(_ context.Context, topics []string, query string, at time.Time) error {
	// Keyed as the store keys them (whitespace collapsed): "a  b" and
	// " a b" are one pending miss, not two slots of MaxPending.
	query = strings.Join(strings.Fields(query), " ")
	if query == "" {
		return nil // nothing the store would take
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.refillLocked()
	if q.tokens < 1 {
		q.dropped += len(topics)
		return nil
	}
	// A miss the pending bound drops whole (every topic new and no room)
	// costs no token.
	room := len(q.pending) < q.maxPending()
	for _, topic := range topics {
		if room {
			break
		}
		if q.pending[pendingKey{topic, query}] != nil {
			room = true
		}
	}
	if !room || len(topics) == 0 {
		q.dropped += len(topics)
		return nil
	}
	q.tokens--
	for _, topic := range topics {
		k := pendingKey{topic, query}
		m := q.pending[k]
		if m == nil {
			if len(q.pending) >= q.maxPending() {
				q.dropped++
				continue
			}
			if q.pending == nil {
				q.pending = map[pendingKey]*pendingMiss{}
			}
			m = &pendingMiss{}
			q.pending[k] = m
			q.order = append(q.order, k)
		}
		m.count++
		if at.After(m.at) {
			m.at = at
		}
	}
	return nil
}

// refillLocked adds the tokens earned since the last call (token bucket).
func (q *NoResultQueue) refillLocked() {
	now := q.now()
	burst := q.Burst
	if burst <= 0 {
		burst = DefaultBurst
	}
	rate := q.RatePerMinute
	if rate <= 0 {
		rate = DefaultRatePerMinute
	}
	if q.last.IsZero() {
		q.tokens, q.last = burst, now
		return
	}
	if d := now.Sub(q.last); d > 0 {
		q.tokens = min(burst, q.tokens+d.Minutes()*rate)
		q.last = now
	}
}

// Pending is the number of queued misses (repeats included).
func (q *NoResultQueue) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, m := range q.pending {
		n += m.count
	}
	return n
}

// Dropped is the number of misses refused by the rate or the pending bound.
func (q *NoResultQueue) Dropped() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}

// Flush writes every queued miss to the store, in arrival order, and empties
// the queue. It returns the errors of the writes that failed; those misses
// are dropped, not requeued, so a broken store cannot grow the queue.
func (q *NoResultQueue) Flush(ctx context.Context) error {
	q.mu.Lock()
	order, pending := q.order, q.pending
	q.order, q.pending = nil, nil
	q.mu.Unlock()
	var errs []error
	for _, k := range order {
		m := pending[k]
		for range m.count {
			if err := q.store.RecordNoResultQuery(ctx, k.topic, k.query, m.at); err != nil {
				errs = append(errs, err)
				break
			}
		}
	}
	return errors.Join(errs...)
}

// Run flushes every interval (DefaultFlushEvery when zero) until ctx ends,
// then flushes once more with a short deadline of its own so that misses
// queued just before shutdown are kept. Write errors go to onErr (if set).
func (q *NoResultQueue) Run(ctx context.Context, every time.Duration, onErr func(error)) {
	if every <= 0 {
		every = DefaultFlushEvery
	}
	report := func(err error) {
		if err != nil && onErr != nil {
			onErr(err)
		}
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			report(q.Flush(ctx))
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			report(q.Flush(fctx))
			cancel()
			return
		}
	}
}

func (q *NoResultQueue) maxPending() int {
	if q.MaxPending > 0 {
		return q.MaxPending
	}
	return DefaultMaxPending
}

func (q *NoResultQueue) now() time.Time {
	if q.Now != nil {
		return q.Now()
	}
	return time.Now()
}
