// Package hostyield turns how often the pages a topic's crawls fetched from
// a host turned out relevant into a factor on the priority of links into
// the host: a host that yields only rejections or errors sinks in the
// frontier, a host that yields relevant pages keeps its links' scores.
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
// The counts live in the crawl store (store.Hosts.HostYields), written with
// each page's decision in the same transaction: every worker of a topic
// learns from all the others' pages, a restarted worker keeps what was
// learned, and a retried processing group counts its pages once.
package hostyield

// Factor is the formula: min(1, 2·(accepted+1)/(judged+2)).
func Factor(accepted, judged int) float64 {
	return min(1, 2*float64(accepted+1)/float64(judged+2))
}
