// Package revisit is focuscrawl's revisit policy: when a page that a
// refresh checked is visited next (docs/operations.md "Adaptive revisit
// interval"). The refresh activities record what Next, Dropped and
// AfterFailure decide; nothing else schedules revisits.
package revisit

import (
	"math"
	"time"

	"focuscrawl/internal/config"
)

// Next is the adaptive revisit interval (focuscrawl's own design; the seed
// papers do not treat revisiting). base is the page's current base interval
// (0: refresh.initial_interval). A change halves it, no change multiplies it
// by 1.5 — an additive-increase-like backoff towards the page's real change
// rate — clamped to [min_interval, max_interval]. The wait until the next
// visit scales the new base by importance
//
//	w = 1.25 − 0.5 × clamp(max(relevance, hub), 0, 1)      ∈ [0.75, 1.25]
//
// so the most relevant pages and best hubs come back up to 25 % sooner and
// marginal ones 25 % later, again clamped to the bounds.
func Next(c config.Refresh, base time.Duration, changed bool, relevance, hub float64) (newBase, wait time.Duration) {
	if base <= 0 {
		base = c.InitialInterval
	}
	f := 1.5
	if changed {
		f = 0.5
	}
	newBase = clampDur(time.Duration(float64(base)*f), c.MinInterval, c.MaxInterval)
	imp := math.Max(relevance, hub)
	if math.IsNaN(imp) {
		imp = 0
	}
	imp = math.Min(math.Max(imp, 0), 1)
	wait = clampDur(time.Duration(float64(newBase)*(1.25-0.5*imp)), c.MinInterval, c.MaxInterval)
	return newBase, wait
}

// Dropped is the revisit of a page found dropped — gone, unparsable or no
// longer accepted — for the times-th time in a row (focuscrawl's design):
// checked again on the unchanged schedule (its base grows 1.5× per check,
// at a marginal page's wait) while times <= refresh.recheck_dropped, so a
// deploy's 404s or a maintenance page do not take it out of the topic for
// good; ok false when it is given up.
func Dropped(c config.Refresh, base time.Duration, times int) (newBase, wait time.Duration, ok bool) {
	if times > c.RecheckDropped {
		return base, 0, false
	}
	newBase, wait = Next(c, base, false, 0, 0)
	return newBase, wait, true
}

// AfterFailure is the revisit of a page whose check failed transiently,
// the times-th failure in a row that said its host is down (timeout,
// connection refused, DNS, 5xx; the refresh activities count them)
// (focuscrawl's design): refresh.min_interval after the first, 1.5× longer
// after each further one — the growth of an unchanged page's interval —
// up to refresh.max_interval, so a host that stays down is asked less and
// less often rather than every min_interval for ever (times 0, a failure
// that counted none: min_interval). The base interval
// is kept: a failure says nothing about how often the page changes, and a
// page whose host comes back goes on at its own rate.
func AfterFailure(c config.Refresh, base time.Duration, times int) (newBase, wait time.Duration) {
	wait = c.MinInterval
	for i := 1; i < times && (c.MaxInterval <= 0 || wait < c.MaxInterval); i++ {
		wait = time.Duration(float64(wait) * 1.5)
	}
	return base, clampDur(wait, c.MinInterval, c.MaxInterval)
}

// MinUnreachableChecks is the fewest failed checks in a row that make a
// page unreachable (Unreachable), however long they span: with a refresh
// schedule of a week, two failures a week apart may be one host's two
// maintenance windows.
const MinUnreachableChecks = 3

// Unreachable reports whether a page whose checks have failed times times
// in a row for its host being down, the first at since, is unreachable at
// now (focuscrawl's design): at least MinUnreachableChecks failures
// spanning refresh.drop_unreachable_after (0: never). Such a page's index
// document is taken out — a search result that times out is worse than
// none — and nothing else: the page is kept and revisited at
// AfterFailure's waits, and its host's next answer indexes it again.
func Unreachable(c config.Refresh, times int, since, now time.Time) bool {
	return c.DropUnreachableAfter > 0 && times >= MinUnreachableChecks && !since.IsZero() &&
		now.Sub(since) >= c.DropUnreachableAfter
}

func clampDur(d, lo, hi time.Duration) time.Duration {
	if d < lo {
		return lo
	}
	if hi > 0 && d > hi {
		return hi
	}
	return d
}
