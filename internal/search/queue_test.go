package search

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestMissesForUnknownTopicsAreNotRecorded is the regression test for
// "any topic= string is recorded": 3,000 made-up topics grew crawl.db.
func TestMissesForUnknownTopicsAreNotRecorded(t *testing.T) {
	svc, rec := newService(t, handBuiltDocs())
	h := svc.Handler()
	apiSearch(t, h, url.Values{"q": {"bezier"}, "topic": {"no-such-topic"}})
	apiSearch(t, h, url.Values{"q": {"bezier"}, "topic": {"gimp"}})
	if got, want := strings.Join(rec.got(), ";"), "gimp|bezier"; got != want {
		t.Errorf("recorded %q, want %q", got, want)
	}
}

// TestSearchesNeverWriteOnTheRequestPath: with the queue in front of the
// store, a miss reaches the store only when the queue is flushed.
func TestSearchesNeverWriteOnTheRequestPath(t *testing.T) {
	svc, rec := newService(t, handBuiltDocs())
	q := NewNoResultQueue(rec)
	svc.NoResults = q
	h := svc.Handler()
	apiSearch(t, h, url.Values{"q": {"bezier"}, "topic": {"gimp"}})
	apiSearch(t, h, url.Values{"q": {"bezier"}, "topic": {"gimp"}})
	apiSearch(t, h, url.Values{"q": {"色阶"}})
	if got := rec.got(); len(got) != 0 {
		t.Fatalf("the store was written during requests: %q", got)
	}
	if q.Pending() != 4 {
		t.Fatalf("Pending() = %d, want 4", q.Pending())
	}
	if err := q.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := "gimp|bezier;gimp|bezier;gimp|色阶;inkscape|色阶"
	if got := strings.Join(rec.got(), ";"); got != want {
		t.Errorf("flushed %q, want %q", got, want)
	}
	if q.Pending() != 0 {
		t.Errorf("Pending() = %d after Flush", q.Pending())
	}
}

// TestQueueIsBoundedAndRateLimited: a flood of misses is cut by the token
// bucket and by the bound on distinct pending queries; tokens come back with
// (fake) time.
func TestQueueIsBoundedAndRateLimited(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name                 string
		maxPending           int
		rate, burst          float64
		misses               int
		distinct             bool
		wantPending, wantDrp int
	}{
		{"burst", 1000, 60, 5, 20, false, 5, 15},
		{"distinct bound", 3, 600, 100, 10, true, 3, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			q := &NoResultQueue{store: rec, MaxPending: tc.maxPending, RatePerMinute: tc.rate, Burst: tc.burst,
				Now: func() time.Time { return now }}
			for i := range tc.misses {
				query := "same"
				if tc.distinct {
					query = fmt.Sprintf("q%d", i)
				}
				if err := q.RecordNoResultQuery(t.Context(), "gimp", query, now); err != nil {
					t.Fatal(err)
				}
			}
			if q.Pending() != tc.wantPending || q.Dropped() != tc.wantDrp {
				t.Fatalf("pending %d dropped %d, want %d and %d", q.Pending(), q.Dropped(), tc.wantPending, tc.wantDrp)
			}
		})
	}
	// Refill: one minute later, RatePerMinute more are accepted.
	rec := &recorder{}
	q := &NoResultQueue{store: rec, RatePerMinute: 2, Burst: 2, Now: func() time.Time { return now }}
	for range 3 {
		q.RecordNoResultQuery(t.Context(), "gimp", "x", now)
	}
	now = now.Add(time.Minute)
	for range 3 {
		q.RecordNoResultQuery(t.Context(), "gimp", "x", now)
	}
	if q.Pending() != 4 || q.Dropped() != 2 {
		t.Fatalf("after refill: pending %d dropped %d, want 4 and 2", q.Pending(), q.Dropped())
	}
}

// TestMissWithoutTopicTakesOneToken: a search without a topic filter that
// finds nothing is one miss for the rate, queued for every topic. Before,
// it took a token per topic: with more topics than the burst, one miss
// emptied the bucket and the topics after the burst never got one.
func TestMissWithoutTopicTakesOneToken(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	q := &NoResultQueue{store: &recorder{}, RatePerMinute: 60, Burst: 3, Now: func() time.Time { return now }}
	topics := make([]string, 10)
	for i := range topics {
		topics[i] = fmt.Sprintf("topic%02d", i)
	}
	for _, query := range []string{"a", "b", "c"} {
		if err := q.RecordNoResultQueries(t.Context(), topics, query, now); err != nil {
			t.Fatal(err)
		}
	}
	if q.Pending() != 30 || q.Dropped() != 0 {
		t.Fatalf("three misses in ten topics with a burst of 3: pending %d dropped %d, want 30 and 0", q.Pending(), q.Dropped())
	}
	q.RecordNoResultQueries(t.Context(), topics, "d", now)
	if q.Pending() != 30 || q.Dropped() != 10 {
		t.Fatalf("a fourth miss over the burst: pending %d dropped %d, want 30 and 10", q.Pending(), q.Dropped())
	}
}

// TestMissDroppedByTheBoundCostsNoToken: a miss the pending bound drops
// whole leaves the rate's tokens for the next one.
func TestMissDroppedByTheBoundCostsNoToken(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	q := &NoResultQueue{store: &recorder{}, MaxPending: 1, RatePerMinute: 60, Burst: 2, Now: func() time.Time { return now }}
	q.RecordNoResultQuery(t.Context(), "gimp", "a", now) // queued: one token
	q.RecordNoResultQuery(t.Context(), "gimp", "b", now) // no room: dropped, no token
	q.RecordNoResultQuery(t.Context(), "gimp", "a", now) // a repeat of a pending pair: the second token
	if q.Pending() != 2 || q.Dropped() != 1 {
		t.Fatalf("pending %d dropped %d, want 2 and 1 (the bound's drop cost a token)", q.Pending(), q.Dropped())
	}
}

// TestServiceMissWithoutTopicTakesOneToken: the service hands a miss
// without a topic filter to the queue once, for every known topic.
func TestServiceMissWithoutTopicTakesOneToken(t *testing.T) {
	svc, rec := newService(t, handBuiltDocs())
	q := NewNoResultQueue(rec)
	q.Burst, q.RatePerMinute = 1, 1
	svc.NoResults = q
	apiSearch(t, svc.Handler(), url.Values{"q": {"色阶"}})
	if err := q.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rec.got(), ";"), "gimp|色阶;inkscape|色阶"; got != want {
		t.Errorf("one miss with a burst of 1 flushed %q, want %q", got, want)
	}
}

// failingRecorder fails every write.
type failingRecorder struct{ calls int }

func (f *failingRecorder) RecordNoResultQuery(context.Context, string, string, time.Time) error {
	f.calls++
	return errors.New("database is locked")
}

// TestFlushDropsFailedWrites: a store that fails does not make the queue
// grow or retry without end.
func TestFlushDropsFailedWrites(t *testing.T) {
	f := &failingRecorder{}
	q := NewNoResultQueue(f)
	for range 3 {
		q.RecordNoResultQuery(t.Context(), "gimp", "x", time.Time{})
	}
	q.RecordNoResultQuery(t.Context(), "gimp", "y", time.Time{})
	if err := q.Flush(t.Context()); err == nil {
		t.Fatal("Flush hid the store's errors")
	}
	if f.calls != 2 || q.Pending() != 0 {
		t.Fatalf("calls %d pending %d: want one failing write per query and an empty queue", f.calls, q.Pending())
	}
}

// TestRunFlushesOnShutdown: misses queued before the context ends are
// written by Run's final flush.
func TestRunFlushesOnShutdown(t *testing.T) {
	rec := &recorder{}
	q := NewNoResultQueue(rec)
	q.RecordNoResultQuery(t.Context(), "gimp", "x", time.Time{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	q.Run(ctx, time.Hour, func(err error) { t.Error(err) })
	if got := rec.got(); len(got) != 1 {
		t.Fatalf("recorded %q after Run's final flush, want one", got)
	}
}

// TestQueueKeysAsTheStore: the store records a miss with its whitespace
// collapsed, so spellings that differ only there are one pending miss, not
// one slot of MaxPending each (a bound anyone could fill with "a b",
// "a  b", …); a query of whitespace alone is nothing to record.
func TestQueueKeysAsTheStore(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := &recorder{}
	q := &NoResultQueue{store: rec, MaxPending: 1, Now: func() time.Time { return now }}
	for _, query := range []string{"a b", " a  b", "a\tb ", "   "} {
		if err := q.RecordNoResultQuery(t.Context(), "gimp", query, now); err != nil {
			t.Fatal(err)
		}
	}
	if q.Pending() != 3 || q.Dropped() != 0 {
		t.Errorf("pending %d dropped %d; want the 3 spellings of \"a b\" pending as one miss, none dropped", q.Pending(), q.Dropped())
	}
}
