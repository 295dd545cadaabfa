package activities

import (
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/revisit"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// TestRefreshDropsUnreachablePage: the accepted pages of a host that goes
// away (every connection closed unanswered) are revisited after waits that
// grow 1.5× per failure from refresh.min_interval, stay searchable while
// the host may come back, and once their revisits have failed for
// refresh.drop_unreachable_after (three times at least) leave the index as
// dropped pages — the failure and its start on the page for an operator —
// counted once by a FinishRefresh run twice; when the host is back, the
// next check judges and indexes them again. Before, they were retried
// every refresh.min_interval, and searchable, for ever.
func TestRefreshDropsUnreachablePage(t *testing.T) {
	site, a, r, before := crawledSite(t)
	ctx := t.Context()
	a.RefreshCfg.MinInterval, a.RefreshCfg.MaxInterval = time.Hour, 720*time.Hour
	a.RefreshCfg.DropUnreachableAfter, a.RefreshCfg.RecheckDropped = 72*time.Hour, 3
	const u = "http://a.test/roses/2"
	hash := urlnorm.Hash(u)
	onA := 0 // a.test's accepted pages, all of them unreachable with it
	for pu, p := range site.pages {
		if p.onTopic && strings.HasPrefix(pu, "http://a.test/") {
			onA++
		}
	}
	count := func() int {
		t.Helper()
		c, err := a.Index.Count(ctx, r.Topic)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	info := func() store.RefreshInfo {
		t.Helper()
		ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash)
		if err != nil {
			t.Fatal(err)
		}
		return ri
	}
	page := func() store.Page {
		t.Helper()
		p, err := a.Store.Page(ctx, r.Topic, hash)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	site.setDown("a.test", true)
	start := time.Now().Add(365 * 24 * time.Hour) // every page due
	now, failures, batch := start, 0, 0
	var dropped crawlapi.RefetchResult
	for {
		batch++
		id := "refresh/" + string(rune('a'+batch))
		f := refreshStages(t, a, r, id, now, "finish")
		failures++
		if f.Unreachable > 0 {
			dropped = f
			// A retried FinishRefresh finds the pages released: nothing
			// counted twice.
			ri := info()
			ref := crawlapi.BatchRef{CrawlID: id, Topic: r.Topic, BatchID: id, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
			if _, err := a.FinishRefresh(ctx, ref); err != nil {
				t.Fatal(err)
			}
			if again := info(); again != ri {
				t.Errorf("a FinishRefresh run again changed the page's bookkeeping: %+v, was %+v", again, ri)
			}
			break
		}
		ri := info()
		if ri.Unreachable != failures || !ri.UnreachableSince.Equal(start) {
			t.Fatalf("after failure %d: %+v; want %d in a row since %v", failures, ri, failures, start)
		}
		if _, want := revisit.AfterFailure(a.RefreshCfg, 0, failures); ri.NextAt.Sub(now) != want {
			t.Errorf("failure %d: due again in %s; want %s (1.5× longer per failure)", failures, ri.NextAt.Sub(now), want)
		}
		if c := count(); c != before {
			t.Fatalf("failure %d, %s after the first: %d documents; want all %d kept while the host may come back", failures, now.Sub(start), c, before)
		}
		if failures > 20 {
			t.Fatalf("still not dropped after %d failures over %s: %+v", failures, now.Sub(start), ri)
		}
		now = ri.NextAt
	}
	t.Logf("dropped at failure %d, %s after the first", failures, now.Sub(start))
	if span := now.Sub(start); failures < revisit.MinUnreachableChecks || span < a.RefreshCfg.DropUnreachableAfter || failures > 12 {
		t.Errorf("dropped at failure %d, %s after the first; want at least %d failures spanning %s, about ten",
			failures, span, revisit.MinUnreachableChecks, a.RefreshCfg.DropUnreachableAfter)
	}
	if dropped.Unreachable != onA || dropped.Gone != onA {
		t.Errorf("refetch of the drop: %+v; want a.test's %d accepted pages gone as unreachable", dropped, onA)
	}
	if c := count(); c != before-onA {
		t.Errorf("after the drop: %d documents; want %d, without a.test's", c, before-onA)
	}
	p, ri := page(), info()
	if p.Decision != store.DecisionError || p.Indexed || !strings.Contains(p.Error, "unreachable since") {
		t.Errorf("page after the drop: decision %q, indexed %v, error %q; want an error out of the index that says since when", p.Decision, p.Indexed, p.Error)
	}
	if ri.Dropped != 1 || ri.Unreachable != failures || !ri.UnreachableSince.Equal(start) || ri.NextAt.IsZero() {
		t.Errorf("bookkeeping after the drop: %+v; want dropped once, %d failures since %v, due again", ri, failures, start)
	}

	// Still down at the first recheck: one more drop, rechecked later.
	now = ri.NextAt
	refreshStages(t, a, r, "refresh/still-down", now, "finish")
	if ri := info(); ri.Dropped != 2 || ri.NextAt.IsZero() || ri.Unreachable != failures+1 {
		t.Fatalf("a recheck that failed: %+v; want dropped twice, due again, %d failures", ri, failures+1)
	}

	// The host is back: the next check judges and indexes the pages again.
	site.setDown("a.test", false)
	refreshStages(t, a, r, "refresh/back", info().NextAt, "finish")
	if p := page(); p.Decision != store.DecisionAccepted || !p.Indexed {
		t.Errorf("after the host came back: decision %q, indexed %v; want accepted and indexed", p.Decision, p.Indexed)
	}
	if ri := info(); ri.Dropped != 0 || ri.Unreachable != 0 || !ri.UnreachableSince.IsZero() {
		t.Errorf("bookkeeping after the host came back: %+v; want no drops, no failures", ri)
	}
	if c := count(); c != before {
		t.Errorf("after the host came back: %d documents; want all %d", c, before)
	}
}

// TestRefetchRetryCountsUnreachable: a Refetch retried after its first
// attempt gave pages up as unreachable (replaced them with their failure)
// counts them from the store, as gone and unreachable, without asking
// their host again, and FinishRefresh then counts the failure once.
func TestRefetchRetryCountsUnreachable(t *testing.T) {
	site, a, r, before := crawledSite(t)
	ctx := t.Context()
	// Three failures an hour and an hour and a half apart span 2.5h: the
	// third gives the pages up.
	a.RefreshCfg.MinInterval, a.RefreshCfg.DropUnreachableAfter = time.Hour, 2*time.Hour
	hash := urlnorm.Hash("http://a.test/roses/2")
	site.setDown("a.test", true)
	now := time.Now().Add(365 * 24 * time.Hour)
	for _, id := range []string{"refresh/1", "refresh/2"} {
		if f := refreshStages(t, a, r, id, now, "finish"); f.Failed == 0 || f.Unreachable != 0 {
			t.Fatalf("%s: %+v; want a.test's pages failed, kept", id, f)
		}
		ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash)
		if err != nil {
			t.Fatal(err)
		}
		now = ri.NextAt
	}
	first := refreshStages(t, a, r, "refresh/3", now, "refetch")
	if first.Unreachable == 0 || first.Gone != first.Unreachable {
		t.Fatalf("third failure: %+v; want a.test's pages given up as unreachable", first)
	}
	site.reset()
	ref := crawlapi.BatchRef{CrawlID: "refresh/3", Topic: r.Topic, BatchID: "refresh/3", TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	retry := retryRefetch(t, a, ref, nil)
	if retry.Unreachable != first.Unreachable || retry.Gone != first.Unreachable || retry.Skipped != first.Unreachable {
		t.Errorf("retried Refetch: %+v; want the %d unreachable pages counted from the store, skipped", retry, first.Unreachable)
	}
	if n := len(site.pageRequests()); n != 0 {
		t.Errorf("the retry asked for %d pages again", n)
	}
	if _, err := a.Parse(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := a.FilterPages(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := a.FinishRefresh(ctx, ref); err != nil {
		t.Fatal(err)
	}
	ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash)
	if err != nil || ri.Unreachable != 3 || ri.Dropped != 1 {
		t.Errorf("after the batch: %+v, %v; want 3 failures in a row, dropped once", ri, err)
	}
	if c, err := a.Index.Count(ctx, r.Topic); err != nil || c != before-first.Unreachable {
		t.Errorf("index holds %d documents (%v); want %d, without a.test's", c, err, before-first.Unreachable)
	}
}

// TestRefreshDropsUnreachableHub: a hub (a page not accepted that a
// refresh revisits for its links, refresh.hub_min_score) whose host goes
// away backs off and is given up as unreachable as an accepted page is —
// an error, checked again as a dropped page — and is a hub on its own
// schedule again once its host is back.
func TestRefreshDropsUnreachableHub(t *testing.T) {
	site, a, r, _ := crawledSite(t)
	ctx := t.Context()
	a.RefreshCfg.MinInterval, a.RefreshCfg.DropUnreachableAfter = time.Hour, 2*time.Hour
	const u = "http://c.test/x"
	hash := urlnorm.Hash(u)
	if err := a.Store.SetScores(ctx, r.Topic, map[string][3]float64{hash: {0.5, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	minHub := 0.3
	stages := func(id string, now time.Time) crawlapi.RefetchResult {
		t.Helper()
		a.Now = func() time.Time { return now }
		ref := crawlapi.BatchRef{CrawlID: id, Topic: r.Topic, BatchID: id, TopicVersion: r.TopicVersion,
			ModelVersion: r.ModelVersion, MinHub: &minHub}
		if n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: id, Max: 100, MinHub: minHub}); err != nil || n == 0 {
			t.Fatalf("ClaimRefresh = %d, %v", n, err)
		}
		f, err := a.Refetch(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Parse(ctx, ref); err != nil {
			t.Fatal(err)
		}
		if _, err := a.FilterPages(ctx, ref); err != nil {
			t.Fatal(err)
		}
		if _, err := a.FinishRefresh(ctx, ref); err != nil {
			t.Fatal(err)
		}
		return f
	}
	info := func() store.RefreshInfo {
		t.Helper()
		ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash)
		if err != nil {
			t.Fatal(err)
		}
		return ri
	}
	site.setDown("c.test", true)
	now := time.Now().Add(365 * 24 * time.Hour)
	for k := 1; ; k++ {
		f := stages("refresh/hub-"+string(rune('0'+k)), now)
		if f.Unreachable > 0 {
			if k != revisit.MinUnreachableChecks {
				t.Errorf("given up at failure %d; want %d (an hour and an hour and a half apart: past 2h)", k, revisit.MinUnreachableChecks)
			}
			break
		}
		ri := info()
		if ri.Unreachable != k {
			t.Fatalf("hub after failure %d: %+v; want %d in a row", k, ri, k)
		}
		if _, want := revisit.AfterFailure(a.RefreshCfg, 0, k); ri.NextAt.Sub(now) != want {
			t.Errorf("hub failure %d: due again in %s; want %s", k, ri.NextAt.Sub(now), want)
		}
		if k > 5 {
			t.Fatalf("hub not given up after %d failures: %+v", k, ri)
		}
		now = ri.NextAt
	}
	p, err := a.Store.Page(ctx, r.Topic, hash)
	if ri := info(); err != nil || p.Decision != store.DecisionError || ri.Dropped != 1 || ri.NextAt.IsZero() {
		t.Fatalf("hub after the drop: %q, %+v, %v; want an error, dropped once, due again", p.Decision, ri, err)
	}
	site.setDown("c.test", false)
	now = info().NextAt
	stages("refresh/hub-back", now)
	p, err = a.Store.Page(ctx, r.Topic, hash)
	ri := info()
	if err != nil || p.Decision != store.DecisionRejected || ri.Dropped != 0 || ri.Unreachable != 0 || ri.NextAt.IsZero() {
		t.Errorf("hub after its host came back: %q, %+v, %v; want rejected (a hub again), no drops, no failures, due again", p.Decision, ri, err)
	}
}
