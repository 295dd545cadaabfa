package storetest

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"focuscrawl/internal/store"
)

// testClaimMatchesModel checks every claim of a long random sequence of
// frontier writes — new and known links (raised priorities), claims with
// and without host caps, excluded hosts and a floor, completions,
// released batches, requeued entries, new priorities, demoted hosts (whose
// entries stay sunk under later priorities) and a topic reset — against an in-memory model of the queue: each claim must
// take exactly the model's entries, in its order. A store that keeps
// derived claim state (each host's best queued entry, kept by triggers)
// must keep it right through every one of those writes; two topics share
// the hosts, so neither may see the other's.
func testClaimMatchesModel(t *testing.T, s store.Store) {
	type mEntry struct {
		topic, url, host, batch, state string
		prio                           float64
		sink                           float64 // DemoteQueued's factors so far
		seq                            int64
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var (
		model   = map[string]*mEntry{} // by topic + URL
		seq     int64
		batches int
	)
	key := func(topic, url string) string { return topic + " " + url }
	// entries is the model in key order: ranging over the map itself would
	// draw the random numbers in a different order each run, so a failure
	// would not come back under the same seed.
	entries := func() []*mEntry {
		out := make([]*mEntry, 0, len(model))
		for _, k := range slices.Sorted(maps.Keys(model)) {
			out = append(out, model[k])
		}
		return out
	}
	hosts := []string{"big0.test", "big1.test", "big2.test"}
	for i := range 9 {
		hosts = append(hosts, fmt.Sprintf("small%d.test", i))
	}
	randHost := func() string { // the big hosts get most of the links
		if rng.IntN(3) > 0 {
			return hosts[rng.IntN(3)]
		}
		return hosts[rng.IntN(len(hosts))]
	}
	prios := []float64{0, 0.1, 0.2, 0.25, 0.5, 0.9}
	topics := []string{"go", "rust"}
	queued := func(topic string) []*mEntry {
		var q []*mEntry
		for _, e := range entries() {
			if e.topic == topic && e.state == store.StateQueued {
				q = append(q, e)
			}
		}
		slices.SortFunc(q, func(a, b *mEntry) int {
			return cmp.Or(cmp.Compare(b.prio, a.prio), cmp.Compare(a.seq, b.seq))
		})
		return q
	}
	for step := range 600 {
		topic := topics[rng.IntN(2)]
		switch op := rng.IntN(10); {
		case op < 3: // links: new ones, known ones (raised only if queued and higher)
			var es []store.FrontierEntry
			for range 1 + rng.IntN(30) {
				host := randHost()
				url := u(host, rng.IntN(60))
				prio := prios[rng.IntN(len(prios))]
				e := entry(topic, url, prio)
				sink := 1.0
				if rng.IntN(5) == 0 { // a link into a directory known gone
					e.Sink, sink = 0.5, 0.5
				}
				es = append(es, e)
				if m, ok := model[key(topic, url)]; ok {
					if p := prio * min(m.sink, sink); m.state == store.StateQueued && p > m.prio {
						m.prio = p
					}
					continue
				}
				seq++
				model[key(topic, url)] = &mEntry{topic: topic, url: url, host: host, state: store.StateQueued, prio: prio * sink, sink: sink, seq: seq}
			}
			enqueue(t, s, store.EnqueueOptions{}, es...)
		case op < 6: // a claim
			batches++
			req := store.ClaimRequest{Topic: topic, BatchID: fmt.Sprintf("m%d/c%d", batches/4, batches),
				Max: 1 + rng.IntN(8), MaxPerHost: rng.IntN(3)}
			for _, h := range hosts {
				if rng.IntN(4) == 0 {
					req.ExcludeHosts = append(req.ExcludeHosts, h)
				}
			}
			if rng.IntN(3) == 0 {
				req.MinRatio = 0.5
			}
			q := queued(topic)
			floor := math.Inf(-1)
			if req.MinRatio > 0 && len(q) > 0 {
				floor = req.MinRatio * q[0].prio
			}
			var want []string
			perHost := map[string]int{}
			for _, e := range q {
				if len(want) == req.Max {
					break
				}
				if slices.Contains(req.ExcludeHosts, e.host) || e.prio < floor ||
					(req.MaxPerHost > 0 && perHost[e.host] >= req.MaxPerHost) {
					continue
				}
				perHost[e.host]++
				want = append(want, e.url)
				e.state, e.batch = store.StateClaimed, req.BatchID
			}
			got := urls(claim(t, s, req))
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: claim %+v took %v; the model takes %v", step, req, got, want)
			}
		case op == 6: // completions
			var done []string
			for _, e := range entries() {
				if e.topic == topic && e.state == store.StateClaimed && rng.IntN(2) == 0 {
					done = append(done, hash(e.url))
					e.state = store.StateDone
				}
			}
			if err := s.CompleteEntries(t.Context(), topic, done); err != nil {
				t.Fatalf("CompleteEntries: %v", err)
			}
		case op == 7: // a dead attempt's batches go back, or one entry does
			if rng.IntN(2) == 0 {
				prefix := fmt.Sprintf("m%d/", rng.IntN(batches/4+1))
				if _, err := s.ReleaseBatches(t.Context(), topic, prefix); err != nil {
					t.Fatalf("ReleaseBatches: %v", err)
				}
				for _, e := range entries() {
					if e.topic == topic && e.state == store.StateClaimed && strings.HasPrefix(e.batch, prefix) {
						e.state, e.batch = store.StateQueued, ""
					}
				}
				break
			}
			for _, e := range entries() {
				if e.topic == topic && e.state == store.StateClaimed {
					if ok, err := s.RequeueEntry(t.Context(), topic, hash(e.url), e.batch, true); err != nil || !ok {
						t.Fatalf("RequeueEntry(%s) = %v, %v", e.url, ok, err)
					}
					e.state, e.batch = store.StateQueued, ""
					break
				}
			}
		case op == 8: // new priorities (queued entries only change, and keep their sink)
			prio := map[string]float64{}
			for _, e := range entries() {
				if e.topic == topic && rng.IntN(4) == 0 {
					p := prios[rng.IntN(len(prios))]
					prio[hash(e.url)] = p
					if e.state == store.StateQueued {
						e.prio = p * e.sink
					}
				}
			}
			if err := s.Reprioritize(t.Context(), topic, prio); err != nil {
				t.Fatalf("Reprioritize: %v", err)
			}
		default: // a host's path sinks (a whole host, or its pages 1 and 10–19)
			host := randHost()
			prefix := fmt.Sprintf("https://%s/page/", host)
			if rng.IntN(2) == 0 {
				prefix += "1"
			}
			if _, err := s.DemoteQueued(t.Context(), topic, host, prefix, 0.5); err != nil {
				t.Fatalf("DemoteQueued: %v", err)
			}
			for _, e := range entries() {
				if e.topic == topic && e.host == host && e.state != store.StateDone && strings.HasPrefix(e.url, prefix) {
					e.prio *= 0.5 // claimed ones too: they come back sunk
					e.sink *= 0.5
				}
			}
		}
		if step == 400 { // a reset empties one topic's frontier, not the other's
			if err := s.ResetTopic(t.Context(), "rust"); err != nil {
				t.Fatalf("ResetTopic: %v", err)
			}
			for k, e := range model {
				if e.topic == "rust" {
					delete(model, k)
				}
			}
		}
	}
	// Everything still queued comes out in the model's order.
	for _, topic := range topics {
		var want []string
		for _, e := range queued(topic) {
			want = append(want, e.url)
		}
		got := urls(claim(t, s, store.ClaimRequest{Topic: topic, BatchID: "last", Max: len(want) + 1}))
		if !slices.Equal(got, want) {
			t.Errorf("%s: the last claim took %v; the model's queue is %v", topic, got, want)
		}
	}
}
