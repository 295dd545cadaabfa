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
	return FactorWithPrior(accepted, judged, 0.5)
}

// Outward is the key, among the hosts of a topic's yields, under which the
// pages reached through a link from another host are counted as well as
// under their own host: the yield of leaving a site. No host name can
// contain "~".
const Outward = "~outward"

// Rate is the Laplace-smoothed acceptance rate (accepted+1)/(judged+2):
// 1/2 with no evidence.
func Rate(accepted, judged int) float64 {
	return float64(accepted+1) / float64(judged+2)
}

// FactorWithPrior is Factor with the prior rate r in place of 1/2 —
// min(1, 2·(accepted + 2r)/(judged + 2)), i.e. two pseudo-pages accepted
// at rate r: a host never judged gets min(1, 2r), and its own pages
// outweigh the prior as they come. A link to another host takes r = the
// topic's outward rate (Rate of the Outward counts): when the pages
// reached by leaving a site have been off topic, a host not seen yet
// starts low (after two such rejections 2r = 1/2, after ten 1/6) instead
// of at 1 — a site's bibliography, a tunnel page of a hundred links to as
// many project sites, no longer floods the frontier ahead of the site's
// own pages (focuscrawl's design; docs/algorithms.md, "Host yield").
func FactorWithPrior(accepted, judged int, r float64) float64 {
	return min(1, 2*(float64(accepted)+2*r)/float64(judged+2))
}
