package relevance

import (
	"math"
	"slices"

	"focuscrawl/internal/decision"
	"focuscrawl/internal/topic"
)

// Dynamic threshold (docs/algorithms.md "Dynamic threshold": seed 000 lets
// the threshold follow the crawl's running precision). The seed gives the idea only; the
// precision signal, the update rule, its step and bounds below are
// focuscrawl's own design.
//
// Precision signal — "link-confirmed precision": an accepted page counts as
// confirmed when at least one of the pages it links to, already judged by
// the crawl, is relevant; it is evaluable when at least one of them is
// judged at all. Precision = confirmed / evaluable over the last Window
// evaluable accepted pages (crawl order). It rests on topical locality
// (relevant pages link to relevant pages, the premise of focused crawling).
// A child counts as relevant when it was accepted AND — if the main filter
// judged it — its score reached the filter's UNSCALED threshold, so lowering
// the threshold cannot confirm itself by accepting more children.

// DynamicStateKind is the crawl-store model kind of the controller's state.
const DynamicStateKind = "dynamic-threshold"

// DynamicState is the controller's stored state: the crawl it belongs to,
// the round (judged pages / Every) it was computed for, the factor applied
// to the page filter's threshold and the precision measurement behind it.
type DynamicState struct {
	CrawlID   string  `json:"crawl_id"`
	Round     int     `json:"round"`
	Factor    float64 `json:"factor"`
	Precision float64 `json:"precision"`
	Evaluated int     `json:"evaluated"`
	Threshold float64 `json:"threshold"` // base threshold × Factor, for operators
}

// NextFactor is the controller's update rule: with at least Window/2
// evaluable pages, precision ≥ High lowers the factor by Step (accept more),
// precision < Low raises it by Step (accept less), otherwise it is kept;
// the result stays in [Min, Max] and is rounded to 1e-6 so stored states
// are byte-stable. factor 0 means "not set yet" (1).
func NextFactor(cfg topic.DynamicThreshold, factor, precision float64, evaluated int) float64 {
	if factor == 0 {
		factor = 1
	}
	if evaluated*2 >= cfg.Window {
		switch {
		case precision >= cfg.High:
			factor -= cfg.Step
		case precision < cfg.LowT():
			factor += cfg.Step
		}
	}
	factor = math.Min(math.Max(factor, cfg.Min), cfg.Max)
	return math.Round(factor*1e6) / 1e6
}

// PrecisionPage is a judged page as the precision signal sees it.
type PrecisionPage struct {
	Hash      string // URL hash (the link graph's node)
	Decision  string
	Filter    string
	Relevance float64
}

// LinkPrecision measures link-confirmed precision (see above) over pages in
// crawl order. children maps a page's URL hash to the URL hashes it links
// to; main is the page filter's name and base its unscaled threshold. It
// is the whole-crawl form of the signal: crawls compute it with
// LinkPrecisionOf from their last pages, and the tests check the two agree.
func LinkPrecision(pages []PrecisionPage, children map[string][]string, window int, main string, base float64) (precision float64, evaluated int) {
	byHash := make(map[string]PrecisionPage, len(pages))
	for _, p := range pages {
		byHash[p.Hash] = p
	}
	var accepted []string
	judged := map[string][]PrecisionPage{}
	for i := len(pages) - 1; i >= 0; i-- {
		p := pages[i]
		if p.Decision != decision.Accepted {
			continue
		}
		accepted = append(accepted, p.Hash)
		for _, h := range children[p.Hash] {
			if c, ok := byHash[h]; ok && h != p.Hash && decision.Judged(c.Decision) {
				judged[p.Hash] = append(judged[p.Hash], c)
			}
		}
	}
	return LinkPrecisionOf(accepted, judged, window, main, base)
}

// LinkPrecisionOf is LinkPrecision from what it reads: the crawl's
// accepted pages newest first (accepted, URL hashes) and, for each, the
// pages it links to that the crawl judged (judged; the page itself left
// out). It reads accepted only until window of them are evaluable, so a
// caller can hand it the crawl's last pages rather than all of them
// (activities.adjustThreshold).
func LinkPrecisionOf(accepted []string, judged map[string][]PrecisionPage, window int, main string, base float64) (precision float64, evaluated int) {
	relevant := func(p PrecisionPage) bool {
		return p.Decision == decision.Accepted && (p.Filter != main || p.Relevance >= base)
	}
	confirmed := 0
	for _, h := range accepted {
		if evaluated >= window {
			break
		}
		cs := judged[h]
		if len(cs) == 0 {
			continue
		}
		evaluated++
		if slices.ContainsFunc(cs, relevant) {
			confirmed++
		}
	}
	if evaluated == 0 {
		return 0, 0
	}
	return float64(confirmed) / float64(evaluated), evaluated
}
