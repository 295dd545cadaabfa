package sqlshared

import (
	"container/heap"
	"fmt"
	"math"

	"focuscrawl/internal/store"
)

// A Candidate is a queued frontier entry as the claim walk sees it: the
// columns url_hash, host, priority, seq, in that order (see ScanCandidate).
type Candidate struct {
	Hash, Host string
	Priority   float64
	Seq        int64
	// Bound marks a head that only bounds its host's entries from above
	// (PickByHostLocking): the walk reads the host's entry through first.
	Bound bool
}

// ScanCandidate reads one row of url_hash, host, priority, seq.
func ScanCandidate(sc Scanner) (Candidate, error) {
	var c Candidate
	return c, sc.Scan(&c.Hash, &c.Host, &c.Priority, &c.Seq)
}

// A ChunkPart names which slice of the claim index a ChunkQuery reads.
type ChunkPart int

const (
	// ChunkFirst: the best queued entries (priority DESC, seq ASC).
	ChunkFirst ChunkPart = iota
	// ChunkSamePriority: entries of last's priority after last's seq (seq ASC).
	ChunkSamePriority
	// ChunkLowerPriority: entries below last's priority (priority DESC, seq ASC).
	ChunkLowerPriority
)

// A ChunkQuery reads up to n queued candidates of one part of the claim
// index, leaving out the hosts in skip (excluded, or already full). last is
// nil for ChunkFirst.
type ChunkQuery func(part ChunkPart, last *Candidate, skip []string, n int) ([]Candidate, error)

// ClaimFloor is the lowest priority a claim may take given the floor its
// MinRatio sets (-Inf for none) and whether zero scores are held
// (ClaimRequest.HoldUnscored applied): if held, at least the smallest
// positive float64, so "priority >= floor" excludes zero.
func ClaimFloor(ratioFloor float64, held bool) float64 {
	if held {
		return max(ratioFloor, math.SmallestNonzeroFloat64)
	}
	return ratioFloor
}

// PickExploring returns a claim's picks for req.ExploreHosts — the best
// queued entry best finds for each host, in the hosts' order, leaving out
// excluded hosts and repeats, at most req.Max — and the hosts the rest of
// the claim then leaves out: the excluded ones and the hosts picked. best
// reads a host's best entry the claim may take at or above floor (the hold
// on zero scores; the ratio's floor does not bind these hosts), false when
// there is none. Nothing is explored without a MinRatio.
func PickExploring(req store.ClaimRequest, held bool, best func(host string, floor float64) (Candidate, bool, error)) (hashes, skip []string, err error) {
	if req.MinRatio <= 0 || len(req.ExploreHosts) == 0 {
		return nil, req.ExcludeHosts, nil
	}
	floor := ClaimFloor(math.Inf(-1), held)
	skip = append([]string{}, req.ExcludeHosts...)
	done := map[string]bool{}
	for _, h := range req.ExcludeHosts {
		done[h] = true
	}
	for _, h := range req.ExploreHosts {
		if len(hashes) >= req.Max {
			break
		}
		if done[h] {
			continue
		}
		done[h] = true
		c, ok, err := best(h, floor)
		if err != nil {
			return nil, nil, fmt.Errorf("scan queue: best entry of exploring host %s: %w", h, err)
		}
		if ok {
			hashes, skip = append(hashes, c.Hash), append(skip, c.Host)
		}
	}
	return hashes, skip, nil
}

// PickQueued returns the URL hashes of up to limit queued entries, best
// first (priority DESC, seq ASC), at most maxPerHost per host (0: no cap)
// and none of the excluded hosts.
//
// It walks the claim index in chunks through query rather than loading the
// queue: each chunk continues after the last candidate seen (keyset
// pagination), first through the rest of that candidate's priority, then
// through lower priorities. Two simple range queries instead of one OR keep
// both on the index without a sort. A host that fills up to maxPerHost joins
// the skipped hosts of the next queries, so a host with thousands of
// entries is not read past once it is full.
func PickQueued(limit, maxPerHost int, exclude []string, query ChunkQuery) ([]string, error) {
	chunk := max(4*limit, 64)
	skip := append([]string{}, exclude...) // never nil: an empty list excludes nothing
	var picked []string
	perHost := map[string]int{}
	// A chunk can hand back a row the walk saw already: PostgreSQL's row
	// locks (FOR UPDATE) return a row's newest version, so an entry whose
	// priority a concurrent raise committed mid-scan ends its chunk with
	// the new priority, and the next chunk, continuing below that, reads
	// again what this claim picked — its own locks do not make SKIP LOCKED
	// pass over them. Picked twice, the batch counted more entries than it
	// held (TestClaimChunkKeysetAfterConcurrentRaise).
	seen := map[string]bool{}
	var last *Candidate
	for len(picked) < limit {
		cands, err := nextChunk(query, last, skip, chunk)
		if err != nil {
			return nil, err
		}
		for i := range cands {
			c := &cands[i]
			last = c
			if seen[c.Hash] {
				continue
			}
			seen[c.Hash] = true
			if maxPerHost > 0 && perHost[c.Host] >= maxPerHost {
				continue
			}
			perHost[c.Host]++
			if maxPerHost > 0 && perHost[c.Host] == maxPerHost {
				skip = append(skip, c.Host)
			}
			picked = append(picked, c.Hash)
			if len(picked) == limit {
				break
			}
		}
		if len(cands) < chunk {
			break // queue exhausted (or, with row locks, the rest is held by others)
		}
	}
	return picked, nil
}

// nextChunk reads the n candidates after last (nil: the first n) through
// query: the rest of last's priority, then lower priorities.
func nextChunk(query ChunkQuery, last *Candidate, skip []string, n int) ([]Candidate, error) {
	if last == nil {
		return query(ChunkFirst, nil, skip, n)
	}
	cands, err := query(ChunkSamePriority, last, skip, n)
	if err != nil || len(cands) == n {
		return cands, err
	}
	more, err := query(ChunkLowerPriority, last, skip, n-len(cands))
	return append(cands, more...), err
}

// A NextQuery returns a host's best queued entry after last in claim order
// (priority DESC, seq ASC), and false when the host has none left.
type NextQuery func(host string, last Candidate) (Candidate, bool, error)

// PickByHost returns what PickQueued returns — the URL hashes of up to
// limit queued entries, best first (priority DESC, seq ASC), at most
// maxPerHost per host (0: no cap), none of the excluded hosts — from an
// index of each host's best queued entry instead of the queue itself.
//
// heads is a ChunkQuery over that host index (one candidate per host: its
// best entry), next reads a host's following entries. The picks are a
// merge of the hosts' queues: a host's head joins the merge once it is at
// least as good as the best candidate in it, and a host that gives up an
// entry offers its next one. An excluded host costs the walk one index
// row, however many entries it queues; PickQueued reads past every one of
// them, so a claim for the small hosts of a frontier that a few busy hosts
// fill grew with the frontier (docs/benchmarks.md, "Claims past busy
// hosts").
func PickByHost(limit, maxPerHost int, exclude []string, heads ChunkQuery, next NextQuery) ([]string, error) {
	return PickByHostLocking(limit, maxPerHost, exclude, heads, nil, next)
}

// PickByHostLocking is PickByHost for a store whose claimers run at once
// and lock what they take (PostgreSQL, FOR UPDATE SKIP LOCKED): a head
// whose entry the heads query could not lock as the index names it comes
// back with Bound set, and first then reads the host's best entry at or
// after it (inclusive, unlike next) that the claim can lock. A bound head
// ranks at least as well as the host's best lockable entry (the index
// held the best queued entry when it was read; locked entries are passed
// over), so the merge stays in claim order: it takes the bound in, and
// when the bound comes out on top, puts the entry first finds in its
// place. With first nil, no head may be Bound.
//
// Under concurrent writers a locked row comes back as its newest version
// (FOR UPDATE under READ COMMITTED), so the walk may meet a row twice or a
// host's head twice; it takes each entry and each host's head once.
func PickByHostLocking(limit, maxPerHost int, exclude []string, heads ChunkQuery, first, next NextQuery) ([]string, error) {
	// Heads come best first, so each pick takes at most one into the
	// merge: limit+1 heads (the last only compared) are all a claim can
	// need, one host-index query, unless bound heads resolve to nothing.
	// The paging in peek keeps the walk right for any chunk size.
	chunk := limit + 1
	skip := append([]string{}, exclude...) // never nil: an empty list excludes nothing
	var (
		buf     []Candidate // heads read from the host index, not merged yet
		last    *Candidate  // the last head read
		drained bool        // the host index has no more heads
	)
	peek := func() (*Candidate, error) {
		if len(buf) == 0 && !drained {
			cands, err := nextChunk(heads, last, skip, chunk)
			if err != nil {
				return nil, err
			}
			drained = len(cands) < chunk
			if len(cands) > 0 {
				c := cands[len(cands)-1]
				last = &c
			}
			buf = cands
		}
		if len(buf) == 0 {
			return nil, nil
		}
		return &buf[0], nil
	}
	var merge candidateHeap
	perHost := map[string]int{}
	merged := map[string]bool{} // hosts whose head joined the merge
	seen := map[string]bool{}   // entries picked
	var picked []string
	// offer pushes host's entry after c (or, bound, at or after it).
	offer := func(c Candidate, q NextQuery) error {
		for {
			n, ok, err := q(c.Host, c)
			if err != nil || !ok {
				return err
			}
			n.Bound = false
			if !seen[n.Hash] {
				heap.Push(&merge, n)
				return nil
			}
			c, q = n, next // a row this claim picked, read again: go on past it
		}
	}
	for len(picked) < limit {
		head, err := peek()
		if err != nil {
			return nil, err
		}
		for head != nil && (len(merge) == 0 || claimsBefore(*head, merge[0])) {
			if !merged[head.Host] {
				merged[head.Host] = true
				heap.Push(&merge, *head)
			}
			buf = buf[1:]
			if head, err = peek(); err != nil {
				return nil, err
			}
		}
		if len(merge) == 0 {
			break
		}
		c := heap.Pop(&merge).(Candidate)
		if c.Bound {
			if first == nil {
				return nil, fmt.Errorf("pick by host: head %s of %s is bound, and no first query", c.Hash, c.Host)
			}
			if err := offer(c, first); err != nil {
				return nil, err
			}
			continue
		}
		if seen[c.Hash] {
			continue
		}
		seen[c.Hash] = true
		picked = append(picked, c.Hash)
		perHost[c.Host]++
		if maxPerHost > 0 && perHost[c.Host] >= maxPerHost {
			continue
		}
		if err := offer(c, next); err != nil {
			return nil, err
		}
	}
	return picked, nil
}

// claimsBefore reports whether a comes before b in claim order.
func claimsBefore(a, b Candidate) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	return a.Seq < b.Seq
}

// candidateHeap is a heap of candidates, the first in claim order on top.
type candidateHeap []Candidate

func (h candidateHeap) Len() int           { return len(h) }
func (h candidateHeap) Less(i, j int) bool { return claimsBefore(h[i], h[j]) }
func (h candidateHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *candidateHeap) Push(x any)        { *h = append(*h, x.(Candidate)) }
func (h *candidateHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
