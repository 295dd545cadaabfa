package relevance

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"focuscrawl/internal/decision"
	"focuscrawl/internal/topic"
)

// LoopPolicyOf reads a topic's loop policy: strategy.prune (default true),
// strategy.tunnel (default topic.DefaultTunnel), strategy.seed and
// strategy.detail_page.
//
// topic.DefaultTunnel = 0.2 is focuscrawl's choice: seed 000 only asks for
// p above the estimated probability that an off-topic page lies on a path
// to on-topic pages. With the 20-50 links of a typical page a rejected
// region keeps a branching factor above 1 (a tunnel can still be crossed),
// while 80% of rejected pages add nothing to the frontier.
func LoopPolicyOf(t *topic.Topic) LoopPolicy {
	s := t.Strategy
	return LoopPolicy{Prune: s.Pruning(), Tunnel: s.TunnelP(), Seed: s.Seed, DetailPage: s.DetailPage, Hub: s.HubT()}
}

// Words counts the words of text as the project tokenizer finds them (the
// terms of tc.TermFreq, with repetitions): the unit of PageShape, in Latin
// and Chinese text alike.
func Words(tc topic.TermCounter, text string) int {
	n := 0
	for _, c := range tc.TermFreq(text) {
		n += c
	}
	return n
}

// ShapeOf measures a page for IsDetailPage from the words (Words) of its
// visible text and of its links' text, and its number of out-links.
func ShapeOf(textWords, anchorWords, links int) PageShape {
	return PageShape{PlainWords: max(textWords-anchorWords, 0), TotalWords: textWords, Links: links}
}

// LoopPolicy decides which judged pages have their out-links followed
// (docs/algorithms.md "Loop policy"): seed 000's pruning of below-threshold
// pages with tunnelling, and seed 002's split of target (detail) pages from
// link (hub) pages. The zero value expands every judged page.
type LoopPolicy struct {
	// Prune: a rejected page is not expanded unless the tunnel draw keeps
	// it (seed 000). false expands every judged page (the ablation).
	Prune bool
	// Tunnel is the probability p of keeping a rejected page (decision
	// "tunnel"); the draw is seeded per URL by Seed (TunnelDraw).
	Tunnel float64
	Seed   int64
	// DetailPage turns on seed 002's policy: a relevant target page is
	// stored but not expanded, a relevant hub page is expanded, an
	// irrelevant page is not expanded (it implies Prune).
	DetailPage bool
	// Hub (focuscrawl's design): a below-threshold page whose best
	// out-link text scores at least Hub against the topic
	// (PageShape.BestLink) is a topical hub — a table of contents, an
	// index — and is expanded like a tunnel, whatever the draw. 0
	// disables it. It only matters when pages are pruned.
	Hub float64
}

// NeedsBestLink reports whether Decide reads PageShape.BestLink for a
// below-threshold page (so the caller computes it only then).
func (lp LoopPolicy) NeedsBestLink() bool { return lp.Hub > 0 && lp.prunes() }

// Decide turns a filter verdict into the page's decision and the reason
// recorded in the crawl log: accepted, tunnel (below threshold but kept by
// the tunnel draw) or rejected.
func (lp LoopPolicy) Decide(v Verdict, urlHash string, shape PageShape) (string, string) {
	reason := v.Reason
	if !v.Relevant {
		if lp.NeedsBestLink() && shape.BestLink >= lp.Hub {
			return decision.Tunnel, reason + fmt.Sprintf("; topical hub (best out-link text %.3f ≥ %.2f): expanded", shape.BestLink, lp.Hub)
		}
		if KeepAsTunnel(lp.Tunnel, lp.Seed, urlHash) {
			return decision.Tunnel, reason + fmt.Sprintf("; kept as tunnel (p %.2f)", lp.Tunnel)
		}
		if lp.prunes() {
			reason += "; irrelevant: not expanded"
		}
		return decision.Rejected, reason
	}
	if lp.DetailPage {
		detail, why := IsDetailPage(shape)
		if detail {
			return decision.Accepted, reason + "; " + why + DetailStoredMark
		}
		return decision.Accepted, reason + "; " + why + ": expanded"
	}
	return decision.Accepted, reason
}

// DetailStoredMark is in the reason of an accepted target page under
// DetailPage: stored, its out-links not followed (Decide). A crawl whose
// frontier ran dry looks for it (activities.ExpandPruned).
const DetailStoredMark = ": stored, not expanded"

func (lp LoopPolicy) prunes() bool { return lp.Prune || lp.DetailPage }

// NeedsShape reports whether Decide and Expand look at a page's shape.
func (lp LoopPolicy) NeedsShape() bool { return lp.DetailPage }

// MayExpand reports whether a page with decision d can have its
// out-links followed at all, before its shape is known (the shape decides
// only for an accepted page under DetailPage). depth is the page's link
// distance from a seed: a seed page (depth 0) is always expanded, even when
// rejected — focuscrawl's choice, so that a crawl started from an off-topic
// page (a site's home, a portal) does not end after one fetch. Duplicates
// and failed fetches are never expanded.
func (lp LoopPolicy) MayExpand(d string, depth int) bool {
	switch d {
	case decision.Tunnel, decision.Accepted:
		return true
	case decision.Rejected:
		return depth == 0 || !lp.prunes()
	}
	return false
}

// Expand reports whether a page with decision d and the given shape has its
// out-links followed: MayExpand, and under DetailPage an accepted page only
// when it is a hub rather than a target page.
func (lp LoopPolicy) Expand(d string, depth int, shape PageShape) bool {
	if !lp.MayExpand(d, depth) {
		return false
	}
	if d == decision.Accepted && lp.DetailPage {
		detail, _ := IsDetailPage(shape)
		return !detail
	}
	return true
}

// TunnelDraw is the reproducible uniform draw in [0,1) of seed 000's
// tunnelling decision for one page: a hash of the topic's strategy.seed and
// the page's URL hash, so the same crawl keeps the same pages whatever the
// batch timing or the worker that judges them.
func TunnelDraw(seed int64, urlHash string) float64 {
	h := sha256.Sum256([]byte(strconv.FormatInt(seed, 10) + "\x00" + urlHash))
	return float64(binary.BigEndian.Uint64(h[:8])>>11) / (1 << 53)
}

// KeepAsTunnel reports whether a below-threshold page is kept for
// expansion: TunnelDraw < p.
func KeepAsTunnel(p float64, seed int64, urlHash string) bool {
	return p > 0 && TunnelDraw(seed, urlHash) < p
}

// Detail-page heuristic parameters (focuscrawl's choice; seed 002 trains an
// RBF-SVM on <TextDegree, LinkDegree, Aggregation> and leaves k and
// Aggregation open).
const (
	DetailMinPlainWords  = 100  // k: words of non-link text a target page has at least
	DetailMaxLinkDensity = 0.12 // links per word above which a page is a hub
)

// PageShape is what the detail-page heuristic looks at.
type PageShape struct {
	PlainWords int `json:"plain_words"` // words outside links
	TotalWords int `json:"total_words"` // all words
	Links      int `json:"links"`       // distinct out-links
	// BestLink is the highest cosine between an out-link's text and the
	// topic (LoopPolicy.Hub); 0 when not computed. It depends on the IDF of
	// the moment, so it is measured when the page is judged, never stored.
	BestLink float64 `json:"-"`
}

// TextDegree is seed 002's log2(plainWords/k) with k = DetailMinPlainWords.
func (s PageShape) TextDegree() float64 {
	return math.Log2(float64(max(s.PlainWords, 1)) / DetailMinPlainWords)
}

// LinkDegree is seed 002's log2(links/totalWords).
func (s PageShape) LinkDegree() float64 {
	return math.Log2(float64(max(s.Links, 1)) / float64(max(s.TotalWords, 1)))
}

// IsDetailPage classifies a page as a target (detail) page — much text, few
// links — as opposed to a link (hub) page, by thresholds on seed 002's two
// features instead of its SVM: TextDegree ≥ 0 and LinkDegree ≤
// log2(DetailMaxLinkDensity). The string explains the call for the log.
func IsDetailPage(s PageShape) (bool, string) {
	td, ld := s.TextDegree(), s.LinkDegree()
	detail := td >= 0 && ld <= math.Log2(DetailMaxLinkDensity)
	kind := "hub page"
	if detail {
		kind = "target page"
	}
	return detail, fmt.Sprintf("%s (TextDegree %.2f, LinkDegree %.2f)", kind, td, ld)
}
