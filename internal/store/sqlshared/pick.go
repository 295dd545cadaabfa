package sqlshared

import "math"

// A Candidate is a queued frontier entry as the claim walk sees it: the
// columns url_hash, host, priority, seq, in that order (see ScanCandidate).
type Candidate struct {
	Hash, Host string
	Priority   float64
	Seq        int64
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
	var last *Candidate
	for len(picked) < limit {
		var cands []Candidate
		var err error
		if last == nil {
			cands, err = query(ChunkFirst, nil, skip, chunk)
		} else {
			cands, err = query(ChunkSamePriority, last, skip, chunk)
			if err == nil && len(cands) < chunk {
				var more []Candidate
				more, err = query(ChunkLowerPriority, last, skip, chunk-len(cands))
				cands = append(cands, more...)
			}
		}
		if err != nil {
			return nil, err
		}
		for i := range cands {
			c := &cands[i]
			last = c
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
