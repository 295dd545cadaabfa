package sqlshared

import (
	"cmp"
	"fmt"
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
