package activities

import (
	"testing"
	"time"

	"focuscrawl/internal/revisit"
	"focuscrawl/internal/urlnorm"
)

// TestRefreshFailuresBackOff: an accepted page whose host has gone away
// (every connection closed unanswered) is revisited refresh.min_interval
// after the first failure and 1.5× longer after each further one, its
// count and the first failure's time kept in the crawl store and its
// document searchable meanwhile; when the host answers again the count is
// gone and the page is back on its own schedule. Before, every failure
// came back at min_interval, for ever.
func TestRefreshFailuresBackOff(t *testing.T) {
	site, a, r, before := crawledSite(t)
	ctx := t.Context()
	a.RefreshCfg.MinInterval, a.RefreshCfg.MaxInterval = time.Hour, 720*time.Hour
	hash := urlnorm.Hash("http://a.test/roses/2")
	site.setDown("a.test", true)
	start := time.Now().Add(365 * 24 * time.Hour) // every page due
	now := start
	var waits []time.Duration
	for k := 1; k <= 4; k++ {
		refreshStages(t, a, r, "refresh/down-"+string(rune('0'+k)), now, "finish")
		ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash)
		if err != nil {
			t.Fatal(err)
		}
		if ri.Unreachable != k || !ri.UnreachableSince.Equal(start) {
			t.Fatalf("after failure %d: %+v; want %d in a row since %v", k, ri, k, start)
		}
		if _, want := revisit.AfterFailure(a.RefreshCfg, 0, k); ri.NextAt.Sub(now) != want {
			t.Errorf("failure %d: due again in %s; want %s", k, ri.NextAt.Sub(now), want)
		}
		waits = append(waits, ri.NextAt.Sub(now))
		now = ri.NextAt
	}
	if waits[0] != time.Hour || waits[3] <= waits[2] || waits[2] <= waits[1] {
		t.Errorf("waits %v; want an hour, then growing", waits)
	}
	if c, err := a.Index.Count(ctx, r.Topic); err != nil || c != before {
		t.Errorf("index holds %d documents (%v) while the host is down; want all %d", c, err, before)
	}
	site.setDown("a.test", false)
	refreshStages(t, a, r, "refresh/back", now, "finish")
	ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash)
	if err != nil || ri.Unreachable != 0 || !ri.UnreachableSince.IsZero() || ri.NextAt.Sub(now) < a.RefreshCfg.InitialInterval {
		t.Errorf("after the host answered: %+v, %v; want no failures, due on its own (unchanged) schedule", ri, err)
	}
}
