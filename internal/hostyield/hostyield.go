// Package hostyield learns, per topic and host, how often the pages a crawl
// fetches from a host turn out relevant, and turns that into a factor on
// the priority of links into the host: a host that yields only rejections
// or errors sinks in the frontier, a host that yields relevant pages keeps
// its links' scores.
//
// This is focuscrawl's own heuristic (docs/algorithms.md, "Host yield"), not
// a seed document's. The factor is
//
//	f(h) = min(1, 2 · (accepted_h + 1) / (judged_h + 2))
//
// — twice the Laplace-smoothed acceptance rate, capped at 1: a host not seen
// yet, or one whose pages are relevant at least half the time, keeps f = 1;
// after ten rejections and nothing accepted f = 2/12 ≈ 0.17. Only the
// ordering across hosts changes: every link into one host is scaled alike.
//
// A Table lives in one worker process and learns from the pages that worker
// judges (several workers each learn their own view; a restarted worker
// starts again from f = 1). That keeps the crawl store out of the hot path
// for a heuristic that only needs to be roughly right.
package hostyield

import "sync"

// maxHosts bounds the hosts a Table remembers; when full it forgets
// everything and starts again (every host back to f = 1), which a crawl
// of that many hosts tolerates better than unbounded memory.
const maxHosts = 200000

// Table holds per-(topic, host) counts. The zero value is ready to use and
// safe for concurrent use.
type Table struct {
	mu sync.Mutex
	m  map[key]*stat
}

type key struct{ topic, host string }

type stat struct{ judged, accepted int }

// Record counts one judged page of host: relevant or not (fetch failures
// count as not relevant).
func (t *Table) Record(topic, host string, relevant bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil || len(t.m) >= maxHosts {
		t.m = map[key]*stat{}
	}
	s := t.m[key{topic, host}]
	if s == nil {
		s = &stat{}
		t.m[key{topic, host}] = s
	}
	s.judged++
	if relevant {
		s.accepted++
	}
}

// Factor returns the priority factor of links into host (see the package
// documentation).
func (t *Table) Factor(topic, host string) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.m[key{topic, host}]
	if s == nil {
		return 1
	}
	return Factor(s.accepted, s.judged)
}

// Factor is the formula: min(1, 2·(accepted+1)/(judged+2)).
func Factor(accepted, judged int) float64 {
	return min(1, 2*float64(accepted+1)/float64(judged+2))
}
