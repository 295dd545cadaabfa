package relevance

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

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
