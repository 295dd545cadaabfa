package fetchloop

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"focuscrawl/internal/store"
)

// memFrontier is an in-memory frontier with the store's claim rule: best
// priority first, insertion order on ties, at most one per host, none of
// the busy hosts.
type memFrontier struct {
	mu      sync.Mutex
	queued  []store.FrontierEntry
	seq     map[string]int
	known   map[string]bool
	next    int
	claimed []string // claim order
}

func newFrontier() *memFrontier {
	return &memFrontier{seq: map[string]int{}, known: map[string]bool{}}
}

func (f *memFrontier) add(host, path string, prio float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := "http://" + host + path
	if f.known[u] {
		return
	}
	f.known[u] = true
	f.next++
	f.seq[u] = f.next
	f.queued = append(f.queued, store.FrontierEntry{URL: u, Host: host, Priority: prio})
}

func (f *memFrontier) claim(_ context.Context, n int, busy []string) ([]store.FrontierEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sort.SliceStable(f.queued, func(i, j int) bool {
		a, b := f.queued[i], f.queued[j]
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		return f.seq[a.URL] < f.seq[b.URL]
	})
	taken := map[string]bool{}
	for _, h := range busy {
		taken[h] = true
	}
	var out []store.FrontierEntry
	rest := f.queued[:0:0]
	for _, e := range f.queued {
		if len(out) < n && !taken[e.Host] {
			taken[e.Host] = true
			out = append(out, e)
			f.claimed = append(f.claimed, e.URL)
			continue
		}
		rest = append(rest, e)
	}
	f.queued = rest
	return out, nil
}

// hostMonitor records the most requests one host ever had in flight.
type hostMonitor struct {
	mu       sync.Mutex
	inFlight map[string]int
	maxSeen  int
}

func (m *hostMonitor) enter(host string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.inFlight == nil {
		m.inFlight = map[string]int{}
	}
	m.inFlight[host]++
	m.maxSeen = max(m.maxSeen, m.inFlight[host])
}

func (m *hostMonitor) leave(host string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inFlight[host]--
}

func TestOneEntryPerHostAndExactBudget(t *testing.T) {
	f := newFrontier()
	for h := range 5 {
		for i := range 20 {
			f.add(fmt.Sprintf("h%d.test", h), fmt.Sprintf("/%d", i), float64(i%7))
		}
	}
	var mon hostMonitor
	var mu sync.Mutex
	processed := 0
	res, err := Run(t.Context(), Config{Hosts: 4, Budget: 37, Group: 3}, Hooks[store.FrontierEntry]{
		Claim: f.claim,
		Fetch: func(_ context.Context, e store.FrontierEntry) (store.FrontierEntry, error) {
			mon.enter(e.Host)
			defer mon.leave(e.Host)
			return e, nil
		},
		Process: func(_ context.Context, ps []store.FrontierEntry) error {
			mu.Lock()
			processed += len(ps)
			mu.Unlock()
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Claimed != 37 || res.Processed != 37 || processed != 37 || res.Reason != ReasonBudget {
		t.Errorf("Run = %+v (processed %d), want 37 claimed and processed, reason %q", res, processed, ReasonBudget)
	}
	if mon.maxSeen != 1 {
		t.Errorf("a host had %d requests in flight at once, want 1", mon.maxSeen)
	}
}

// With one host slot the loop is sequential: every claim sees the links the
// previous page added, so the order is exactly best-first over the graph.
func TestSequentialLoopIsBestFirst(t *testing.T) {
	// A tiny web: each page links to children with the priorities given.
	links := map[string][]struct {
		path string
		prio float64
	}{
		"/":  {{"/a", 0.2}, {"/b", 0.9}},
		"/b": {{"/b1", 0.5}, {"/b2", 0.1}},
		"/a": {{"/a1", 0.95}},
	}
	run := func() []string {
		f := newFrontier()
		f.add("x.test", "/", 1)
		// Linger is an hour: with one host no other fetch is ever under way
		// when a page reaches its processor, so a loop that lingered would
		// hang here instead of finishing.
		_, err := Run(t.Context(), Config{Hosts: 1, Budget: 100, Group: 8, Linger: time.Hour}, Hooks[store.FrontierEntry]{
			Claim: f.claim,
			Fetch: func(_ context.Context, e store.FrontierEntry) (store.FrontierEntry, error) { return e, nil },
			Process: func(_ context.Context, ps []store.FrontierEntry) error {
				for _, p := range ps {
					for _, l := range links[p.URL[len("http://x.test"):]] {
						f.add("x.test", l.path, l.prio)
					}
				}
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return f.claimed
	}
	want := []string{"/", "/b", "/b1", "/a", "/a1", "/b2"}
	for i := range want {
		want[i] = "http://x.test" + want[i]
	}
	for range 3 {
		if got := run(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("fetch order = %v, want %v", got, want)
		}
	}
}

// A host whose fetch hangs holds only its own slot: the other host's pages,
// each discovered by processing the one before, are all fetched meanwhile.
func TestSlowHostDoesNotHoldBackOthers(t *testing.T) {
	f := newFrontier()
	f.add("slow.test", "/", 1)
	f.add("fast.test", "/0", 0.5)
	release := make(chan struct{})
	fastDone := make(chan struct{})
	var mu sync.Mutex
	fast := 0
	done := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), Config{Hosts: 2, Budget: 11}, Hooks[store.FrontierEntry]{
			Claim: f.claim,
			Fetch: func(ctx context.Context, e store.FrontierEntry) (store.FrontierEntry, error) {
				if e.Host == "slow.test" {
					select {
					case <-release:
					case <-ctx.Done():
						return e, ctx.Err()
					}
				}
				return e, nil
			},
			Process: func(_ context.Context, ps []store.FrontierEntry) error {
				mu.Lock()
				defer mu.Unlock()
				for _, p := range ps {
					if p.Host == "fast.test" {
						fast++
						if fast == 10 {
							close(fastDone)
						} else {
							f.add("fast.test", fmt.Sprintf("/%d", fast), 0.5)
						}
					}
				}
				return nil
			},
		})
		done <- err
	}()
	select {
	case <-fastDone: // ten fast pages while the slow host is still hanging
	case err := <-done:
		t.Fatalf("Run ended before the fast host was crawled: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestStopExhaustedAndErrors(t *testing.T) {
	noop := func(_ context.Context, e store.FrontierEntry) (store.FrontierEntry, error) { return e, nil }
	t.Run("exhausted", func(t *testing.T) {
		f := newFrontier()
		f.add("a.test", "/", 1)
		res, err := Run(t.Context(), Config{Hosts: 3, Budget: 10}, Hooks[store.FrontierEntry]{
			Claim: f.claim, Fetch: noop, Process: func(context.Context, []store.FrontierEntry) error { return nil }})
		if err != nil || res.Reason != ReasonExhausted || res.Claimed != 1 {
			t.Errorf("Run = %+v, %v; want 1 claimed, frontier exhausted", res, err)
		}
	})
	t.Run("stop", func(t *testing.T) {
		f := newFrontier()
		for i := range 50 {
			f.add("a.test", fmt.Sprintf("/%d", i), 1)
		}
		var n atomic.Int64
		res, err := Run(t.Context(), Config{Hosts: 1, Budget: 50, Poll: time.Nanosecond}, Hooks[store.FrontierEntry]{
			Claim: f.claim, Fetch: noop,
			Process: func(context.Context, []store.FrontierEntry) error { n.Add(1); return nil },
			Stop:    func(context.Context) (bool, error) { return n.Load() >= 5, nil },
		})
		if err != nil || res.Reason != ReasonStopped || res.Claimed != res.Processed || res.Claimed >= 50 {
			t.Errorf("Run = %+v, %v; want a stop before the budget with everything claimed processed", res, err)
		}
	})
	t.Run("process error", func(t *testing.T) {
		f := newFrontier()
		f.add("a.test", "/", 1)
		boom := errors.New("boom")
		_, err := Run(t.Context(), Config{Hosts: 2, Budget: 5}, Hooks[store.FrontierEntry]{
			Claim: f.claim, Fetch: noop, Process: func(context.Context, []store.FrontierEntry) error { return boom }})
		if !errors.Is(err, boom) {
			t.Errorf("Run error = %v, want %v", err, boom)
		}
	})
	// A panic in a stage (its own goroutine: unrecovered, it ended the
	// worker process) fails the run with a *PanicError.
	for _, stage := range []string{"Fetch", "Process"} {
		t.Run(stage+" panics", func(t *testing.T) {
			f := newFrontier()
			f.add("a.test", "/", 1)
			h := Hooks[store.FrontierEntry]{Claim: f.claim, Fetch: noop,
				Process: func(context.Context, []store.FrontierEntry) error { return nil }}
			if stage == "Fetch" {
				h.Fetch = func(context.Context, store.FrontierEntry) (store.FrontierEntry, error) { panic("index out of range") }
			} else {
				h.Process = func(context.Context, []store.FrontierEntry) error { panic("index out of range") }
			}
			_, err := Run(t.Context(), Config{Hosts: 2, Budget: 5}, h)
			var pe *PanicError
			if !errors.As(err, &pe) || pe.Stage != stage || pe.Value != "index out of range" || len(pe.Stack) == 0 {
				t.Errorf("Run error = %v; want the %s panic as a *PanicError with its stack", err, stage)
			}
		})
	}
	t.Run("deadline", func(t *testing.T) {
		f := newFrontier()
		f.add("a.test", "/", 1)
		res, err := Run(t.Context(), Config{Hosts: 2, Budget: 5, Until: time.Unix(1, 0)}, Hooks[store.FrontierEntry]{
			Claim: f.claim, Fetch: noop, Process: func(context.Context, []store.FrontierEntry) error { return nil }})
		if err != nil || res.Reason != ReasonDeadline || res.Claimed != 0 {
			t.Errorf("Run = %+v, %v; want nothing claimed after the deadline", res, err)
		}
	})
}

// A processor that gets a page while other fetches are under way waits for
// them (up to Linger) and processes the pages as one group; it stops
// waiting as soon as no fetch is in flight.
func TestLingerFillsGroups(t *testing.T) {
	f := newFrontier()
	hosts := []string{"a.test", "b.test", "c.test", "d.test"}
	gates := map[string]chan struct{}{}
	for _, h := range hosts {
		f.add(h, "/", 1)
		gates[h] = make(chan struct{})
	}
	var mu sync.Mutex
	var groups [][]string
	go func() { // the fetches complete one at a time, in order
		for _, h := range hosts {
			gates[h] <- struct{}{}
		}
	}()
	res, err := Run(t.Context(), Config{Hosts: 4, Budget: 4, Group: 8, Linger: time.Hour}, Hooks[store.FrontierEntry]{
		Claim: f.claim,
		Fetch: func(ctx context.Context, e store.FrontierEntry) (store.FrontierEntry, error) {
			select {
			case <-gates[e.Host]:
				return e, nil
			case <-ctx.Done():
				return e, ctx.Err()
			}
		},
		Process: func(_ context.Context, ps []store.FrontierEntry) error {
			mu.Lock()
			defer mu.Unlock()
			var g []string
			for _, p := range ps {
				g = append(g, p.Host)
			}
			groups = append(groups, g)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Processed != 4 || len(groups) != 1 || len(groups[0]) != 4 {
		t.Fatalf("processed %d pages in groups %v; want the 4 pages in one group", res.Processed, groups)
	}
}

// TestClaimWait: a Claim that answers ErrWait with nothing in flight does
// not end the run as exhausted; the loop asks again at its poll tick and
// claims what is released then.
func TestClaimWait(t *testing.T) {
	f := newFrontier()
	f.add("a.test", "/", 1)
	var asks atomic.Int64
	claim := func(ctx context.Context, n int, busy []string) ([]store.FrontierEntry, error) {
		if asks.Add(1) <= 3 {
			return nil, ErrWait // held back: e.g. pages in flight in another slice
		}
		return f.claim(ctx, n, busy)
	}
	res, err := Run(t.Context(), Config{Hosts: 2, Budget: 5, Poll: time.Millisecond}, Hooks[store.FrontierEntry]{
		Claim:   claim,
		Fetch:   func(_ context.Context, e store.FrontierEntry) (store.FrontierEntry, error) { return e, nil },
		Process: func(context.Context, []store.FrontierEntry) error { return nil }})
	if err != nil || res.Claimed != 1 || res.Reason != ReasonExhausted || asks.Load() < 5 {
		t.Errorf("Run = %+v, %v after %d claims; want the entry claimed after three waits, then exhausted", res, err, asks.Load())
	}
}
