package relevance

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"focuscrawl/internal/store"
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

// ShapeOf measures a page for IsDetailPage from its text, the text of its
// links and its number of out-links. Words are approximated without the
// tokenizer (the policy needs counts, not terms): whitespace fields for
// Latin text, Han runes / 2 (a typical Chinese word length) for Chinese.
func ShapeOf(text, anchorText string, links int) PageShape {
	words := func(s string) int {
		f := len(strings.Fields(s))
		cjk := 0
		for _, r := range s {
			if r >= 0x4e00 && r <= 0x9fff {
				cjk++
			}
		}
		return max(f, cjk/2)
	}
	all := words(text)
	plain := all - words(anchorText)
	return PageShape{PlainWords: max(plain, 0), TotalWords: all, Links: links}
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
			return store.DecisionTunnel, reason + fmt.Sprintf("; topical hub (best out-link text %.3f ≥ %.2f): expanded", shape.BestLink, lp.Hub)
		}
		if KeepAsTunnel(lp.Tunnel, lp.Seed, urlHash) {
			return store.DecisionTunnel, reason + fmt.Sprintf("; kept as tunnel (p %.2f)", lp.Tunnel)
		}
		if lp.prunes() {
			reason += "; irrelevant: not expanded"
		}
		return store.DecisionRejected, reason
	}
	if lp.DetailPage {
		detail, why := IsDetailPage(shape)
		if detail {
			return store.DecisionAccepted, reason + "; " + why + ": stored, not expanded"
		}
		return store.DecisionAccepted, reason + "; " + why + ": expanded"
	}
	return store.DecisionAccepted, reason
}

func (lp LoopPolicy) prunes() bool { return lp.Prune || lp.DetailPage }

// Expand reports whether a page with the given decision has its out-links
// followed. depth is the page's link distance from a seed: a seed page
// (depth 0) is always expanded, even when rejected — focuscrawl's choice, so
// that a crawl started from an off-topic page (a site's home, a portal) does
// not end after one fetch. Duplicates and failed fetches are never expanded.
func (lp LoopPolicy) Expand(decision string, depth int, shape PageShape) bool {
	switch decision {
	case store.DecisionTunnel:
		return true
	case store.DecisionRejected:
		return depth == 0 || !lp.prunes()
	case store.DecisionAccepted:
		if !lp.DetailPage {
			return true
		}
		detail, _ := IsDetailPage(shape)
		return !detail
	}
	return false
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
	PlainWords int // words outside links
	TotalWords int // all words
	Links      int // distinct out-links
	// BestLink is the highest cosine between an out-link's text and the
	// topic (LoopPolicy.Hub); 0 when not computed.
	BestLink float64
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
