package sqlshared

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// queue is an in-memory claim index: the ChunkQuery of PickQueued over a
// sorted slice, recording each query's skip list.
type queue struct {
	cands []Candidate // priority DESC, seq ASC
	skips [][]string
}

func newQueue(cs ...Candidate) *queue {
	slices.SortFunc(cs, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.Seq, b.Seq))
	})
	return &queue{cands: cs}
}

func (q *queue) query(part ChunkPart, last *Candidate, skip []string, n int) ([]Candidate, error) {
	q.skips = append(q.skips, slices.Clone(skip))
	var out []Candidate
	for _, c := range q.cands {
		if slices.Contains(skip, c.Host) {
			continue
		}
		switch part {
		case ChunkSamePriority:
			if c.Priority != last.Priority || c.Seq <= last.Seq {
				continue
			}
		case ChunkLowerPriority:
			if c.Priority >= last.Priority {
				continue
			}
		}
		if len(out) == n {
			break
		}
		out = append(out, c)
	}
	return out, nil
}

func TestPickQueuedOrderAndHostCap(t *testing.T) {
	// 100 entries of host a at the top, then b and c: with a cap of 2 per
	// host the walk must go past a's entries, in several chunks.
	var cs []Candidate
	for i := range 100 {
		cs = append(cs, Candidate{Hash: fmt.Sprintf("a%03d", i), Host: "a", Priority: 9, Seq: int64(i)})
	}
	cs = append(cs,
		Candidate{Hash: "b1", Host: "b", Priority: 5, Seq: 200},
		Candidate{Hash: "c1", Host: "c", Priority: 5, Seq: 201},
		Candidate{Hash: "b2", Host: "b", Priority: 4, Seq: 202},
		Candidate{Hash: "b3", Host: "b", Priority: 3, Seq: 203},
		Candidate{Hash: "x1", Host: "x", Priority: 8, Seq: 204},
	)
	q := newQueue(cs...)
	got, err := PickQueued(5, 2, []string{"x"}, q.query)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a000", "a001", "b1", "c1", "b2"}
	if !slices.Equal(got, want) {
		t.Fatalf("picked %v, want %v", got, want)
	}
	// Once a is full it is skipped by the queries themselves.
	if last := q.skips[len(q.skips)-1]; !slices.Contains(last, "a") || !slices.Contains(last, "x") {
		t.Errorf("last query skipped %v, want a and x among them", last)
	}
}

// TestPickQueuedTakesAnEntryOnce: a chunk whose last row comes back with a
// priority raised since the walk began (PostgreSQL's locking read returns
// a row's newest version) makes the next chunk continue below the new
// priority and read again entries the walk picked: they are not picked
// twice.
func TestPickQueuedTakesAnEntryOnce(t *testing.T) {
	// y, then 70 entries of host a (capped at 2: the walk needs a second
	// chunk), then b and c below.
	cs := []Candidate{{Hash: "y", Host: "y", Priority: 200, Seq: 1}}
	for i := range 70 {
		cs = append(cs, Candidate{Hash: fmt.Sprintf("a%02d", i), Host: "a", Priority: 150, Seq: int64(10 + i)})
	}
	cs = append(cs, Candidate{Hash: "b1", Host: "b", Priority: 10, Seq: 100}, Candidate{Hash: "c1", Host: "c", Priority: 10, Seq: 101})
	q := newQueue(cs...)
	first := true
	query := func(part ChunkPart, last *Candidate, skip []string, n int) ([]Candidate, error) {
		cands, err := q.query(part, last, skip, n)
		if first && len(cands) == n {
			// The first chunk's last row is z, read with the priority a
			// concurrent raise (50 → 1000) committed during the scan.
			first = false
			cands[n-1] = Candidate{Hash: "z", Host: "z", Priority: 1000, Seq: 5}
		}
		return cands, err
	}
	got, err := PickQueued(6, 2, nil, query)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"y", "a00", "a01", "z", "b1", "c1"}; !slices.Equal(got, want) {
		t.Fatalf("picked %v, want %v (each entry once)", got, want)
	}
}

func TestPickQueuedNoCapAndExhaustedQueue(t *testing.T) {
	q := newQueue(
		Candidate{Hash: "h1", Host: "a", Priority: 1, Seq: 2},
		Candidate{Hash: "h2", Host: "a", Priority: 1, Seq: 1},
		Candidate{Hash: "h3", Host: "a", Priority: 2, Seq: 3},
	)
	got, err := PickQueued(10, 0, nil, q.query)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"h3", "h2", "h1"}; !slices.Equal(got, want) {
		t.Fatalf("picked %v, want %v", got, want)
	}
	if len(q.skips) != 1 {
		t.Errorf("%d queries for a queue shorter than one chunk, want 1", len(q.skips))
	}
}

// heads is the host index of q: each host's best candidate, in claim order.
func (q *queue) heads() *queue {
	seen := map[string]bool{}
	h := &queue{}
	for _, c := range q.cands { // already in claim order: the first of a host is its best
		if !seen[c.Host] {
			seen[c.Host] = true
			h.cands = append(h.cands, c)
		}
	}
	return h
}

// next is the NextQuery of q.
func (q *queue) next(host string, last Candidate) (Candidate, bool, error) {
	for _, c := range q.cands {
		if c.Host == host && claimsBefore(last, c) {
			return c, true, nil
		}
	}
	return Candidate{}, false, nil
}

// TestPickByHostIsPickQueued: on random queues (few priorities, so many
// ties; hosts of very different sizes), PickByHost picks exactly what
// PickQueued does, for every limit, cap and exclusion tried.
func TestPickByHostIsPickQueued(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		var cs []Candidate
		hosts := 1 + rng.IntN(12)
		for i := range rng.IntN(200) {
			h := fmt.Sprintf("h%d", min(rng.IntN(hosts), rng.IntN(hosts))) // skewed: low numbers hold more
			cs = append(cs, Candidate{Hash: fmt.Sprint("e", i), Host: h, Priority: float64(rng.IntN(4)), Seq: int64(rng.IntN(1000)*1000 + i)})
		}
		q := newQueue(cs...)
		var exclude []string
		for h := range hosts {
			if rng.IntN(3) == 0 {
				exclude = append(exclude, fmt.Sprintf("h%d", h))
			}
		}
		limit, maxPerHost := 1+rng.IntN(40), rng.IntN(4)
		want, err := PickQueued(limit, maxPerHost, exclude, q.query)
		if err != nil {
			t.Fatal(err)
		}
		got, err := PickByHost(limit, maxPerHost, exclude, q.heads().query, q.next)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (limit %d, cap %d, excluding %v): PickByHost %v, PickQueued %v", round, limit, maxPerHost, exclude, got, want)
		}
	}
}

// TestPickByHostSkipsBusyHostsUnread: a host with thousands of
// queued entries above everyone else's, excluded, costs the host walk no
// rows at all (the query skips it) and the picks no look-ups of it.
func TestPickByHostSkipsBusyHostsUnread(t *testing.T) {
	var cs []Candidate
	for i := range 5000 {
		cs = append(cs, Candidate{Hash: fmt.Sprint("big", i), Host: "big", Priority: 9, Seq: int64(i)})
	}
	cs = append(cs, Candidate{Hash: "s1", Host: "small", Priority: 1, Seq: 9000}, Candidate{Hash: "t1", Host: "tiny", Priority: 2, Seq: 9001})
	q := newQueue(cs...)
	heads := q.heads()
	var looked []string
	next := func(host string, last Candidate) (Candidate, bool, error) {
		looked = append(looked, host)
		return q.next(host, last)
	}
	got, err := PickByHost(8, 1, []string{"big"}, heads.query, next)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"t1", "s1"}; !slices.Equal(got, want) {
		t.Fatalf("picked %v, want %v", got, want)
	}
	if len(looked) != 0 {
		t.Errorf("looked up the next entries of %v with one per host allowed", looked)
	}
	if len(heads.skips) != 1 || !slices.Equal(heads.skips[0], []string{"big"}) {
		t.Errorf("host walk queries skipped %v, want one query skipping big", heads.skips)
	}
}

// TestPickByHostLockingPassesLockedEntries: with entries other claimers
// hold locked and heads that only bound their hosts from above (an index
// row read before a concurrent commit, or whose entry is locked), the
// locking walk picks exactly what PickQueued picks from the entries it
// can lock.
func TestPickByHostLockingPassesLockedEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		var cs []Candidate
		hosts := 1 + rng.IntN(12)
		for i := range rng.IntN(200) {
			h := fmt.Sprintf("h%d", min(rng.IntN(hosts), rng.IntN(hosts)))
			cs = append(cs, Candidate{Hash: fmt.Sprint("e", i), Host: h, Priority: float64(rng.IntN(4)), Seq: int64(rng.IntN(1000)*1000 + i)})
		}
		all := newQueue(cs...)
		locked := map[string]bool{}
		var free []Candidate
		for _, c := range all.cands {
			if rng.IntN(4) == 0 {
				locked[c.Hash] = true
			} else {
				free = append(free, c)
			}
		}
		lockable := newQueue(free...)
		// The host index: each host's best entry, locked or not; some
		// raised above it (stale bounds). Bound unless lockable as named.
		heads := all.heads()
		for i := range heads.cands {
			h := &heads.cands[i]
			if rng.IntN(5) == 0 {
				h.Priority += float64(1 + rng.IntN(3))
			}
			h.Bound = locked[h.Hash] || h.Priority != all.heads().cands[i].Priority
		}
		heads = newQueue(heads.cands...)
		first := func(host string, at Candidate) (Candidate, bool, error) {
			for _, c := range lockable.cands {
				if c.Host == host && !claimsBefore(c, at) {
					return c, true, nil
				}
			}
			return Candidate{}, false, nil
		}
		var exclude []string
		for h := range hosts {
			if rng.IntN(3) == 0 {
				exclude = append(exclude, fmt.Sprintf("h%d", h))
			}
		}
		limit, maxPerHost := 1+rng.IntN(40), rng.IntN(4)
		want, err := PickQueued(limit, maxPerHost, exclude, lockable.query)
		if err != nil {
			t.Fatal(err)
		}
		got, err := PickByHostLocking(limit, maxPerHost, exclude, heads.query, first, lockable.next)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (limit %d, cap %d, excluding %v): PickByHostLocking %v, PickQueued %v", round, limit, maxPerHost, exclude, got, want)
		}
	}
}
