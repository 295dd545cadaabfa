// Package decision names the verdicts a crawl records on a fetched page
// (store.Page.Decision) and says which of them are a page filter's
// judgement. It is the one owner of these strings: the crawl store keeps
// them, the page filters and the loop policy (internal/relevance) produce
// and read them, and neither needs the other to do so.
package decision

// Page decisions.
const (
	Pending   = ""          // fetched, not yet judged
	Accepted  = "accepted"  // relevant: indexed and expanded
	Rejected  = "rejected"  // irrelevant: not indexed
	Tunnel    = "tunnel"    // irrelevant but kept for expansion (seed 000 tunnelling, docs/algorithms.md "Loop policy")
	Duplicate = "duplicate" // same final URL or content as an earlier page
	Error     = "error"     // fetch or parse failed
)

// Judged reports whether d is a page filter's judgement — accepted,
// rejected or tunnel — rather than pending, a duplicate or a failure. Only
// judged pages are expanded, learned from and counted by the precision
// signal of the dynamic threshold.
func Judged(d string) bool {
	switch d {
	case Accepted, Rejected, Tunnel:
		return true
	}
	return false
}
