package activities

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// recordHookStore is a crawl store that runs afterRecord after each
// RecordRefresh (the moment one page of a refresh batch is done) and
// afterReplace, when set, after each ReplacePage (a page changed or gone).
type recordHookStore struct {
	store.Store
	afterRecord, afterReplace func()
}

func (s *recordHookStore) RecordRefresh(ctx context.Context, topic, urlHash string, r store.RefreshResult) error {
	err := s.Store.RecordRefresh(ctx, topic, urlHash, r)
	if s.afterRecord != nil {
		s.afterRecord()
	}
	return err
}

func (s *recordHookStore) ReplacePage(ctx context.Context, p store.Page, body []byte) error {
	err := s.Store.ReplacePage(ctx, p, body)
	if s.afterReplace != nil {
		s.afterReplace()
	}
	return err
}

// TestRefetchKeepsItsClaim: a Refetch that outlasts its claim's lease (a
// 32-page batch on a host with a 30 s Crawl-delay takes 16 minutes;
// crawl.lease is 15) renews the lease as it goes, so another refresh of the
// topic cannot claim — and fetch a second time — the pages it has not
// reached yet. Each page here takes 0.4 of the lease on the activities'
// clock; before, the lease ran out at the third page and a second refresh
// took the rest of the batch.
func TestRefetchKeepsItsClaim(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := context.Background()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	site.reset()
	a.CrawlCfg.FetchConcurrency = 1 // one page after another
	lease := a.CrawlCfg.Lease
	var mu sync.Mutex
	now := time.Now().Add(365 * 24 * time.Hour) // every page due
	a.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: "refresh/1", Max: 100})
	if err != nil || n < 4 {
		t.Fatalf("ClaimRefresh = %d, %v; want the site's accepted pages", n, err)
	}
	hs := &recordHookStore{Store: a.Store}
	a.Store = hs
	stolen, records := 0, 0
	hs.afterRecord = func() {
		mu.Lock()
		now = now.Add(lease * 2 / 5)
		mu.Unlock()
		records++
		m, err := hs.Store.ClaimRefresh(ctx, a.refreshClaim(r.Topic, fmt.Sprintf("refresh/2-%d", records), 100, 0))
		if err != nil {
			t.Error(err)
		}
		stolen += m
	}
	res, err := a.Refetch(ctx, crawlapi.BatchRef{CrawlID: "refresh/1", Topic: r.Topic, BatchID: "refresh/1",
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion})
	if err != nil {
		t.Fatal(err)
	}
	if stolen != 0 {
		t.Errorf("another refresh claimed %d pages of the running batch after its first lease ran out", stolen)
	}
	if res.Checked != n || records != n {
		t.Errorf("refetch %+v with %d pages recorded; want all %d checked and recorded by the batch", res, records, n)
	}
	for u, c := range site.pageRequests() {
		if c != 1 {
			t.Errorf("%s requested %d times; want once", u, c)
		}
	}
}

// TestStartRefreshUnloadableTopic: a refresh of a topic whose latest stored
// version does not load fails at StartRefresh with the non-retryable
// InvalidTopic. Before, it started: every batch refetched its pages,
// replaced the changed ones (pending, out of the index) and then failed at
// FilterPages, which cannot load the topic, up to refresh.max_pages pages.
func TestStartRefreshUnloadableTopic(t *testing.T) {
	_, a, r := siteCrawl(t)
	broken := "name: roses\nlanguage: en\nseeds: [http://a.test/]\nstrategy: {page_filter: no-such-filter}\n"
	if _, err := a.Store.PutTopic(context.Background(), r.Topic, []byte(broken)); err != nil {
		t.Fatal(err)
	}
	var res crawlapi.StartRefreshResult
	err := runActivity(a, crawlapi.StartRefresh.Name, crawlapi.StartRefreshInput{RefreshID: "refresh/1", Topic: r.Topic}, &res)
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrInvalidTopic || !appErr.NonRetryable() {
		t.Fatalf("StartRefresh with an unloadable latest version = %+v, %v; want the non-retryable %s", res, err, crawlapi.ErrInvalidTopic)
	}
}

// TestStartRefreshSaysWhenPagesAreDue: StartRefresh tells, besides the
// pages due, how many the topic has to revisit and when the next is due
// (a crawl's pages: at their fetch plus refresh.initial_interval), and
// which crawl store it read; before a page was accepted, nothing to
// refresh. A refresh with nothing due said "no pages due" and no more.
func TestStartRefreshSaysWhenPagesAreDue(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	start := func() crawlapi.StartRefreshResult {
		t.Helper()
		var res crawlapi.StartRefreshResult
		if err := runActivity(a, crawlapi.StartRefresh.Name, crawlapi.StartRefreshInput{RefreshID: "refresh/1", Topic: r.Topic}, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := start(); res.Due != 0 || res.Outlook == nil || res.Outlook.Refreshable != 0 || !res.Outlook.NextDueAt.IsZero() ||
		res.Store != a.StoreDesc || a.StoreDesc == "" {
		t.Errorf("StartRefresh before any page was accepted = %+v (outlook %+v); want nothing to refresh, store %q", res, res.Outlook, a.StoreDesc)
	}
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	var first time.Time
	accepted := 0
	if err := a.Store.CrawlLog(ctx, "c1", func(p store.Page) error {
		if p.Decision == store.DecisionAccepted {
			accepted++
			if first.IsZero() || p.FetchedAt.Before(first) {
				first = p.FetchedAt
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res := start()
	if want := first.Add(a.RefreshCfg.InitialInterval); accepted == 0 || res.Due != 0 || res.Outlook == nil ||
		res.Outlook.Refreshable != accepted || !res.Outlook.NextDueAt.Equal(want) {
		t.Errorf("StartRefresh after the crawl = %+v (outlook %+v); want 0 due, %d to revisit, the next at %v", res, res.Outlook, accepted, want)
	}
	// A refresh of everything (starter refresh --all) makes them due at
	// its start first; a retry of it finds them due already.
	for i, wantMade := range []int{accepted, 0} {
		var all crawlapi.StartRefreshResult
		if err := runActivity(a, crawlapi.StartRefresh.Name, crawlapi.StartRefreshInput{RefreshID: "refresh/2", Topic: r.Topic, DueAt: first}, &all); err != nil {
			t.Fatal(err)
		}
		if all.MadeDue != wantMade || all.Due != accepted {
			t.Errorf("StartRefresh with DueAt, call %d = %+v; want %d made due, %d due", i+1, all, wantMade, accepted)
		}
	}
}

// TestRefreshWithdrawsNoindexPage: a refresh that finds an indexed page now
// marked noindex takes its document out of the index and clears its flag,
// whether the directive came with a changed body or alone, in an
// X-Robots-Tag header on an unchanged one. Before, FilterPages left the
// page accepted and unindexed but FinishRefresh deleted only pages no
// longer accepted, so the old document stayed searchable; and a header
// alone did not even count as a change.
func TestRefreshWithdrawsNoindexPage(t *testing.T) {
	for _, tc := range []struct {
		name        string
		changedBody bool
	}{{"changed body", true}, {"header only", false}} {
		t.Run(tc.name, func(t *testing.T) {
			site, a, r := siteCrawl(t)
			ctx := t.Context()
			if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
				t.Fatal(err)
			}
			const u = "http://a.test/roses/1"
			hash := urlnorm.Hash(u)
			if p, err := a.Store.Page(ctx, r.Topic, hash); err != nil || !p.Indexed {
				t.Fatalf("%s after the crawl: indexed %v, %v; want indexed", u, p.Indexed, err)
			}
			before, err := a.Index.Count(ctx, r.Topic)
			if err != nil {
				t.Fatal(err)
			}
			site.robotsTag = map[string]string{u: "noindex"}
			if tc.changedBody {
				pg := site.pages[u]
				pg.text += " Rose hips in autumn."
				site.pages[u] = pg
			}
			if f := refreshAll(t, a, r); f.Changed != 1 {
				t.Errorf("refetch %+v; want the noindex page changed (and only it)", f)
			}
			if c, err := a.Index.Count(ctx, r.Topic); err != nil || c != before-1 {
				t.Errorf("index holds %d documents (%v) after the refresh; want %d, without the noindex page", c, err, before-1)
			}
			if p, err := a.Store.Page(ctx, r.Topic, hash); err != nil || p.Indexed || p.RobotsTag != "noindex" {
				t.Errorf("%s after the refresh: indexed %v, tag %q, %v; want not indexed, tag noindex", u, p.Indexed, p.RobotsTag, err)
			}
		})
	}
}

// TestRefreshBatchFailingAfterFilterDropsStaleDocuments: a refreshed page
// that is no longer indexable — now off the topic, or now noindex — leaves
// the index at FilterPages, so a batch that fails before FinishRefresh
// (its retries spent on an index outage) does not leave the old document
// searchable for good (a page no longer accepted is never claimed again).
func TestRefreshBatchFailingAfterFilterDropsStaleDocuments(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(site *loopBackSite, u string)
	}{
		{"off the topic", func(site *loopBackSite, u string) {
			site.pages[u] = sitePage{title: "Bicycle repair", text: "Chains, gears and brake pads of a road bicycle."}
		}},
		{"noindex", func(site *loopBackSite, u string) { site.robotsTag = map[string]string{u: "noindex"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, a, r := siteCrawl(t)
			ctx := t.Context()
			if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
				t.Fatal(err)
			}
			const u = "http://a.test/roses/2"
			if p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u)); err != nil || !p.Indexed {
				t.Fatalf("%s after the crawl: indexed %v, %v; want indexed", u, p.Indexed, err)
			}
			before, err := a.Index.Count(ctx, r.Topic)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(site, u)
			if f := refreshStages(t, a, r, "refresh/1", time.Now().Add(365*24*time.Hour), "filter"); f.Changed != 1 {
				t.Errorf("refetch %+v; want the page changed (and only it)", f)
			}
			if c, err := a.Index.Count(ctx, r.Topic); err != nil || c != before-1 {
				t.Errorf("index holds %d documents (%v) after FilterPages; want %d, without %s", c, err, before-1, u)
			}
		})
	}
}

// TestRefreshRechecksDroppedPage: a page a refresh finds gone leaves the
// index but is checked again (refresh.recheck_dropped times): when it comes
// back it is judged and indexed again; one gone at every check is given up
// after that many checks (never due again). Before, one 404 — a deploy's —
// took it out of the topic for good.
func TestRefreshRechecksDroppedPage(t *testing.T) {
	site, a, r, before := crawledSite(t)
	ctx := t.Context()
	const u = "http://a.test/roses/2"
	hash := urlnorm.Hash(u)
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
	year := 365 * 24 * time.Hour
	site.status = map[string]int{u: 404}
	if f := refreshStages(t, a, r, "refresh/1", time.Now().Add(year), "finish"); f.Gone != 1 {
		t.Fatalf("refetch %+v; want the page gone", f)
	}
	if c, ri := count(), info(); c != before-1 || ri.Dropped != 1 || ri.NextAt.IsZero() {
		t.Fatalf("after the 404: %d documents, %+v; want %d, dropped once, due again", c, ri, before-1)
	}
	// A dropped page failing transiently (a 500) counts as dropped once more (not
	// retried every refresh.min_interval for ever).
	site.status = map[string]int{u: 500}
	refreshStages(t, a, r, "refresh/1b", time.Now().Add(year+year/2), "refetch")
	if ri := info(); ri.Dropped != 2 || ri.NextAt.IsZero() || ri.NextAt.Before(time.Now().Add(year+year/2).Add(2*time.Hour)) {
		t.Fatalf("after a 500: %+v; want dropped twice, due on the unchanged schedule, not in refresh.min_interval", ri)
	}
	delete(site.status, u) // the deploy is over
	refreshStages(t, a, r, "refresh/2", time.Now().Add(2*year), "finish")
	if p, err := a.Store.Page(ctx, r.Topic, hash); err != nil || p.Decision != store.DecisionAccepted || !p.Indexed {
		t.Fatalf("after it came back: %+v, %v; want accepted and indexed again", p, err)
	}
	if c, ri := count(), info(); c != before || ri.Dropped != 0 {
		t.Errorf("after it came back: %d documents, %+v; want %d, dropped 0", c, ri, before)
	}
	// Gone at every check: given up after refresh.recheck_dropped of them.
	a.RefreshCfg.RecheckDropped = 1
	site.status = map[string]int{u: 404}
	refreshStages(t, a, r, "refresh/3", time.Now().Add(3*year), "finish")
	if ri := info(); ri.Dropped != 1 || ri.NextAt.IsZero() {
		t.Fatalf("first 404: %+v; want dropped once, due again", ri)
	}
	refreshStages(t, a, r, "refresh/4", time.Now().Add(4*year), "finish")
	if ri := info(); ri.Dropped != 2 || !ri.NextAt.IsZero() {
		t.Errorf("second 404 with recheck_dropped 1: %+v; want given up (never due)", ri)
	}
}

// TestRefreshCountsDropOfAFailedBatch: a page a refresh batch judged no
// longer accepted, in a batch that then failed before FinishRefresh, is
// taken again by a later refresh once that claim ran out, and its drop is
// counted then (checked again later). Before, it was left with no count and
// no claim that would take it: given up at once.
func TestRefreshCountsDropOfAFailedBatch(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := t.Context()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	const u = "http://a.test/roses/2"
	site.pages[u] = sitePage{title: "Bicycle repair", text: "Chains, gears and brake pads of a road bicycle."}
	year := 365 * 24 * time.Hour
	refreshStages(t, a, r, "refresh/1", time.Now().Add(year), "filter") // fails before FinishRefresh
	if p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u)); err != nil || p.Decision == store.DecisionAccepted {
		t.Fatalf("after the failed batch: %+v, %v; want judged not accepted", p, err)
	}
	refreshStages(t, a, r, "refresh/2", time.Now().Add(2*year), "finish")
	ri, err := a.Store.RefreshInfo(ctx, r.Topic, urlnorm.Hash(u))
	if err != nil || ri.Dropped != 1 || ri.NextAt.IsZero() || ri.BatchID != "" {
		t.Errorf("after the next refresh: %+v, %v; want dropped once, due again, not held", ri, err)
	}
}

// TestReleaseRefreshOfCancelledBatch: a refresh batch cancelled after
// FilterPages judged its changed page off the topic (before FinishRefresh
// recorded it) is released (ReleaseRefresh), and the next refresh a minute
// later — inside the batch's lease, which kept it before for crawl.lease
// and then refresh.min_interval — takes the page at once and counts its
// drop, as after a failed batch. A late attempt of the released batch no
// longer holds the page; a release made again answers the same.
func TestReleaseRefreshOfCancelledBatch(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := t.Context()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	const u = "http://a.test/roses/2"
	hash := urlnorm.Hash(u)
	site.pages[u] = sitePage{title: "Bicycle repair", text: "Chains, gears and brake pads of a road bicycle."}
	now := time.Now().Add(365 * 24 * time.Hour)
	refreshStages(t, a, r, "refresh/1", now, "filter") // cancelled before FinishRefresh
	in := crawlapi.ReleaseRefreshInput{Topic: r.Topic, BatchID: "refresh/1", TopicVersion: r.TopicVersion}
	for range 2 { // the second: a retry
		if n, err := a.ReleaseRefresh(ctx, in); err != nil || n != 1 {
			t.Fatalf("ReleaseRefresh = %d, %v; want the changed page, the one the batch still held", n, err)
		}
	}
	p, err := a.Store.Page(ctx, r.Topic, hash)
	if err != nil {
		t.Fatal(err)
	}
	if held, err := a.holdPage(ctx, crawlapi.BatchRef{Topic: r.Topic, BatchID: "refresh/1"}, p); err != nil || held {
		t.Errorf("a late attempt of the released batch holds the page: %v, %v; want not", held, err)
	}
	if f := refreshStages(t, a, r, "refresh/2", now.Add(time.Minute), "finish"); f.Checked != 1 {
		t.Errorf("the next refresh, a minute later: %+v; want the released page checked", f)
	}
	ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash)
	if err != nil || ri.Dropped != 1 || ri.NextAt.IsZero() || ri.BatchID != "" || ri.Failures != 0 {
		t.Errorf("after the next refresh: %+v, %v; want dropped once, due again, not held", ri, err)
	}
	_, err = a.ReleaseRefresh(ctx, crawlapi.ReleaseRefreshInput{Topic: r.Topic})
	if appErr := (*temporal.ApplicationError)(nil); !errors.As(err, &appErr) || !appErr.NonRetryable() || appErr.Type() != crawlapi.ErrBadInput {
		t.Errorf("ReleaseRefresh without a batch ID: %v; want a non-retryable %s", err, crawlapi.ErrBadInput)
	}
}

// TestRefreshGivesUpUnjudgedPageThatFails: a page a failed batch left
// unjudged (replaced, its old document possibly still indexed) that then
// fails at every check counts drops and is given up, taking its document
// with it; before, it was retried every refresh.min_interval for ever with
// its old document searchable.
func TestRefreshGivesUpUnjudgedPageThatFails(t *testing.T) {
	site, a, r, before := crawledSite(t)
	ctx := t.Context()
	const u = "http://a.test/roses/2"
	hash := urlnorm.Hash(u)
	pg := site.pages[u]
	pg.text += " Rose hips in autumn."
	site.pages[u] = pg
	year := 365 * 24 * time.Hour
	refreshStages(t, a, r, "refresh/1", time.Now().Add(year), "refetch") // fails after Refetch
	if p, err := a.Store.Page(ctx, r.Topic, hash); err != nil || p.Decision != store.DecisionPending {
		t.Fatalf("after the failed batch: %+v, %v; want unjudged", p, err)
	}
	a.RefreshCfg.RecheckDropped = 1
	site.status = map[string]int{u: 500}
	refreshStages(t, a, r, "refresh/2", time.Now().Add(2*year), "refetch")
	if ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash); err != nil || ri.Dropped != 1 || ri.NextAt.IsZero() {
		t.Fatalf("after one failure: %+v, %v; want dropped once, due again", ri, err)
	}
	refreshStages(t, a, r, "refresh/3", time.Now().Add(3*year), "refetch")
	if ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash); err != nil || ri.Dropped != 2 || !ri.NextAt.IsZero() {
		t.Errorf("after two failures: %+v, %v; want given up", ri, err)
	}
	if c, err := a.Index.Count(ctx, r.Topic); err != nil || c != before-1 {
		t.Errorf("index holds %d documents (%v); want %d, without the given-up page's", c, err, before-1)
	}
}

// TestRefreshTwoCrawlsPagesBecomeOne: two pages of two crawls of a topic
// that a refresh finds with the same content are one original and one
// copy: not both copies (each the other's, neither indexed), nor both
// accepted and indexed twice.
func TestRefreshTwoCrawlsPagesBecomeOne(t *testing.T) {
	t.Run("both indexable", func(t *testing.T) { testTwoCrawlsPagesBecomeOne(t, false) })
	// A copy turned down (here: noindex) is no original for the other.
	t.Run("first noindex", func(t *testing.T) { testTwoCrawlsPagesBecomeOne(t, true) })
}

func testTwoCrawlsPagesBecomeOne(t *testing.T, noindex bool) {
	site, a, r := siteCrawl(t)
	site.cOnce.Do(func() { close(site.cSeen) }) // b.test's root need not wait for c.test
	ctx := t.Context()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 3)); err != nil {
		t.Fatal(err)
	}
	r2, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c2", TopicYAML: siteTopicYAML})
	if err != nil {
		t.Fatal(err)
	}
	in2 := sliceInput(r2, "s000001", 100)
	in2.CrawlID, in2.SliceID = "c2", "c2/s000001"
	if _, err := a.CrawlSlice(ctx, in2); err != nil {
		t.Fatal(err)
	}
	accepted := func(crawl string) string {
		t.Helper()
		var u string
		if err := a.Store.CrawlLog(ctx, crawl, func(p store.Page) error {
			if u == "" && p.Decision == store.DecisionAccepted && p.Indexed {
				u = p.URL
			}
			return nil
		}); err != nil || u == "" {
			t.Fatalf("no accepted page in crawl %s (%v)", crawl, err)
		}
		return u
	}
	u1, u2 := accepted("c1"), accepted("c2")
	for _, u := range []string{u1, u2} {
		site.pages[u] = sitePage{title: "Rose twins", text: roseText(7), onTopic: true}
	}
	if noindex {
		site.robotsTag = map[string]string{u1: "noindex"}
	}
	refreshAll(t, a, r)
	var got []string
	for _, u := range []string{u1, u2} {
		p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s indexed=%v", p.Decision, p.Indexed))
	}
	if noindex {
		// u1 (noindex) is no original: u2 is judged on its own and indexed
		// (u1 then is its copy, or accepted unindexed, by batch order).
		if !strings.HasSuffix(got[1], "indexed=true") || strings.HasSuffix(got[0], "indexed=true") {
			t.Errorf("%s (noindex) and %s after the refresh: %v; want only %s indexed", u1, u2, got, u2)
		}
		return
	}
	slices.Sort(got)
	if want := []string{"accepted indexed=true", "duplicate indexed=false"}; !slices.Equal(got, want) {
		t.Errorf("%s and %s after the refresh: %v; want %v", u1, u2, got, want)
	}
}

// crawledSite is siteCrawl with its crawl run (one slice) and the number
// of documents its index then holds.
func crawledSite(t *testing.T) (*loopBackSite, *Activities, crawlapi.StartCrawlResult, int) {
	t.Helper()
	site, a, r := siteCrawl(t)
	if _, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	n, err := a.Index.Count(t.Context(), r.Topic)
	if err != nil {
		t.Fatal(err)
	}
	return site, a, r, n
}

// refreshAll runs one refresh batch of every page of crawl r's topic, a
// year later (all due), through Refetch, Parse, FilterPages and
// FinishRefresh, and returns what Refetch found.
func refreshAll(t *testing.T, a *Activities, r crawlapi.StartCrawlResult) crawlapi.RefetchResult {
	t.Helper()
	return refreshBatch(t, a, r, "refresh/1", time.Now().Add(365*24*time.Hour), true)
}

// refreshBatch runs refresh batch id of crawl r's topic at time now: a
// claim of up to 100 due pages and Refetch, and then, if finish, Parse,
// FilterPages and FinishRefresh (else the batch fails after Refetch). It
// returns what Refetch found.
func refreshBatch(t *testing.T, a *Activities, r crawlapi.StartCrawlResult, id string, now time.Time, finish bool) crawlapi.RefetchResult {
	t.Helper()
	upTo := "refetch"
	if finish {
		upTo = "finish"
	}
	return refreshStages(t, a, r, id, now, upTo)
}

// refreshStages is refreshBatch running the stages up to upTo: "refetch",
// "filter" (Parse and FilterPages: the batch fails before FinishRefresh)
// or "finish".
func refreshStages(t *testing.T, a *Activities, r crawlapi.StartCrawlResult, id string, now time.Time, upTo string) crawlapi.RefetchResult {
	t.Helper()
	ctx := t.Context()
	a.Now = func() time.Time { return now }
	ref := crawlapi.BatchRef{CrawlID: id, Topic: r.Topic, BatchID: id,
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: ref.BatchID, Max: 100}); err != nil || n == 0 {
		t.Fatalf("ClaimRefresh = %d, %v", n, err)
	}
	f, err := a.Refetch(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if upTo == "refetch" {
		return f
	}
	if _, err := a.Parse(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := a.FilterPages(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if upTo == "filter" {
		return f
	}
	if _, err := a.FinishRefresh(ctx, ref); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRefreshKeepsLinkScores: a page a refresh indexes again keeps the
// hub, authority and IPageRank the last link analysis stored for it, in
// the index as in the store. Before, FilterPages built its document
// without them, so a changed page ranked as if it had no authority until
// the next crawl's link analysis (a refresh runs none).
func TestRefreshKeepsLinkScores(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := t.Context()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RecomputeHubAuthority(ctx, crawlapi.HubAuthInput{CrawlID: "c1", Topic: r.Topic,
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}); err != nil {
		t.Fatal(err)
	}
	const u = "http://a.test/roses/1"
	p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u))
	if err != nil || p.Authority <= 0 || !p.Indexed {
		t.Fatalf("%s after the link analysis: authority %v, indexed %v, %v; want an indexed page with authority", u, p.Authority, p.Indexed, err)
	}
	pg := site.pages[u]
	pg.text += " Rose hips in autumn."
	site.pages[u] = pg
	if f := refreshAll(t, a, r); f.Changed != 1 {
		t.Fatalf("refetch %+v; want the page changed (and only it)", f)
	}
	res, err := a.Index.Search(ctx, index.Query{Topic: r.Topic, Text: "autumn"})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != p.FinalHash {
		t.Fatalf("search for the changed text = %+v, %v; want the refreshed page", res, err)
	}
	if got := res.Hits[0].Authority; got != p.Authority {
		t.Errorf("refreshed page's authority in the index = %v; want the stored %v", got, p.Authority)
	}
}

// TestRefetchRetryCountsEarlierAttempt: a Refetch retried after its worker
// died counts the pages its earlier attempt visited, from that attempt's
// last heartbeat. Those pages left the batch as each was recorded, so the
// retry neither requests nor counted them: an operator who killed the
// worker running a refresh's Refetch read "27 claimed", "checked 16", with
// every one of the 27 pages requested once in the site's log.
func TestRefetchRetryCountsEarlierAttempt(t *testing.T) {
	site, a, ref, n := siteRefreshBatch(t, nil)
	// The earlier attempt: two pages visited, then its worker died; what it
	// returns is what its last heartbeat carried.
	dying, die := context.WithCancel(t.Context())
	st := a.Store
	records := 0
	a.Store = &recordHookStore{Store: st, afterRecord: func() {
		if records++; records == 2 {
			die()
		}
	}}
	earlier, err := a.Refetch(dying, ref)
	if err == nil || earlier.Checked != 2 {
		t.Fatalf("the earlier attempt: %+v, %v; want 2 pages checked, then interrupted", earlier, err)
	}
	a.Store = st
	res := retryRefetch(t, a, ref, earlier)
	if res.Checked != n || res.NotModified+res.Unchanged+res.Changed+res.Gone+res.Failed != n {
		t.Errorf("retry: %+v; want all %d claimed pages checked, the earlier attempt's 2 included", res, n)
	}
	site.checkPolite(t)
}

// siteRefreshBatch crawls the loopback site, lets change alter it (nil:
// nothing changes), and claims refresh batch "refresh/1" of its accepted
// pages a year later (every page due), to be revisited one after another.
// It returns the site, the activities, the batch and its size.
func siteRefreshBatch(t *testing.T, change func(*loopBackSite)) (*loopBackSite, *Activities, crawlapi.BatchRef, int) {
	t.Helper()
	site, a, r := siteCrawl(t)
	ctx := t.Context()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	site.reset()
	if change != nil {
		change(site)
	}
	a.CrawlCfg.FetchConcurrency = 1
	later := time.Now().Add(365 * 24 * time.Hour)
	a.Now = func() time.Time { return later }
	n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: "refresh/1", Max: 100})
	if err != nil || n < 4 {
		t.Fatalf("ClaimRefresh = %d, %v; want the site's accepted pages", n, err)
	}
	return site, a, crawlapi.BatchRef{CrawlID: "refresh/1", Topic: r.Topic, BatchID: "refresh/1",
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}, n
}

// TestRefreshPostponesHeldHost: a refresh batch does not request the pages
// of a host held for longer than fetch.max_host_delay (a robots.txt
// Crawl-delay that long, a 429's Retry-After), here by another worker (the
// hold is in the store only): they are postponed — due when the hold
// ends, no check counted, released from the batch — while the other
// hosts' pages are refreshed. Before, the batch asked for them every
// max_host_delay (against the Crawl-delay) or failed them as held.
func TestRefreshPostponesHeldHost(t *testing.T) {
	site, a, ref, n := siteRefreshBatch(t, nil)
	ctx := t.Context()
	items, err := a.Store.RefreshBatch(ctx, ref.Topic, ref.BatchID)
	if err != nil {
		t.Fatal(err)
	}
	var held []store.RefreshItem
	for _, it := range items {
		if urlnorm.Host(it.Page.URL) == "a.test" {
			held = append(held, it)
		}
	}
	if len(held) == 0 || len(held) == n {
		t.Fatalf("%d of the batch's %d pages on a.test; the test needs some on it and some elsewhere", len(held), n)
	}
	until := a.now().Add(time.Hour)
	if err := a.Store.HoldHost(ctx, "a.test", until); err != nil {
		t.Fatal(err)
	}
	f, err := a.Refetch(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if f.Postponed != len(held) || f.Checked != n-len(held) {
		t.Errorf("refetch %+v; want %d postponed (a.test) and %d checked", f, len(held), n-len(held))
	}
	for u, c := range site.pageRequests() {
		if strings.HasPrefix(u, "http://a.test/") {
			t.Errorf("%s requested %d times while its host was held", u, c)
		}
	}
	for _, it := range held {
		ri, err := a.Store.RefreshInfo(ctx, ref.Topic, it.Page.URLHash)
		if err != nil {
			t.Fatal(err)
		}
		if !ri.NextAt.Equal(until.Truncate(0)) || ri.Checks != it.Refresh.Checks || ri.BatchID != "" ||
			ri.Interval != it.Refresh.Interval || ri.Dropped != it.Refresh.Dropped {
			t.Errorf("%s after the refetch: %+v; want due at the hold's end %v, released, nothing else changed (was %+v)",
				it.Page.URL, ri, until, it.Refresh)
		}
	}
	// Due again once the hold is over, for the next refresh.
	a.Now = func() time.Time { return until.Add(time.Minute) }
	if m, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: ref.Topic, BatchID: "refresh/2", Max: 100}); err != nil || m < len(held) {
		t.Errorf("claim after the hold = %d, %v; want at least the %d postponed pages", m, err, len(held))
	}
}

// TestPostponeKeepsDroppedPageRefreshable: a page a claim alone keeps
// refreshable (rejected, not a hub, no drop counted yet: judged by a batch
// that failed before FinishRefresh) stays refreshable when it is postponed:
// it keeps a count of drops, as a revisit of it would have added one. With
// its count left at 0 it dropped out of every later refresh, its stale
// index document with it (a reviewer's finding).
func TestPostponeKeepsDroppedPageRefreshable(t *testing.T) {
	_, a, ref, _ := siteRefreshBatch(t, nil)
	ctx := t.Context()
	items, err := a.Store.RefreshBatch(ctx, ref.Topic, ref.BatchID)
	if err != nil || len(items) == 0 {
		t.Fatalf("batch: %d items, %v", len(items), err)
	}
	it := items[0]
	if err := a.Store.SetDecision(ctx, ref.Topic, it.Page.URLHash, store.Decision{Decision: store.DecisionRejected}); err != nil {
		t.Fatal(err)
	}
	it.Page.Decision = store.DecisionRejected
	until := a.now().Add(time.Hour)
	if o, _, err := a.postpone(ctx, ref, it, until); err != nil || o != refetchPostponed {
		t.Fatalf("postpone = %v, %v", o, err)
	}
	ri, err := a.Store.RefreshInfo(ctx, ref.Topic, it.Page.URLHash)
	if err != nil || ri.Dropped != 1 || ri.Checks != it.Refresh.Checks {
		t.Fatalf("after postponing: %+v, %v; want one drop and no check counted", ri, err)
	}
	a.Now = func() time.Time { return until.Add(time.Minute) }
	rc := a.refreshClaim(ref.Topic, "", 0, 0)
	if n, err := a.Store.RefreshDue(ctx, rc); err != nil || n == 0 {
		t.Errorf("due after the hold = %d, %v; want the postponed page among them", n, err)
	}
}

// retryRefetch runs Refetch of ref as a retry whose attempt before sent
// beat as its last heartbeat (nil: none) and returns its result.
func retryRefetch(t *testing.T, a *Activities, ref crawlapi.BatchRef, beat any) crawlapi.RefetchResult {
	t.Helper()
	env := activityEnv(a)
	if beat != nil {
		env.SetHeartbeatDetails(beat)
	}
	v, err := env.ExecuteActivity(crawlapi.Refetch.Name, ref)
	if err != nil {
		t.Fatal(err)
	}
	var res crawlapi.RefetchResult
	if err := v.Get(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRefreshFetchesPageOncePerRun: a refresh revisits each page at most
// once. With revisit intervals of a minute, the pages its first batch
// found unchanged are due again two minutes on; its next claim, due by the
// refresh's start (RefreshClaimInput.DueBy), leaves them to the next
// refresh. Before, a refresh whose run outlasted refresh.min_interval
// claimed and fetched them again.
func TestRefreshFetchesPageOncePerRun(t *testing.T) {
	site, a, ref, n := siteRefreshBatch(t, nil) // batch 1 of refresh 1
	ctx := t.Context()
	a.RefreshCfg.MinInterval, a.RefreshCfg.InitialInterval, a.RefreshCfg.MaxInterval = time.Minute, time.Minute, time.Minute
	start := a.now() // the refresh's start: its first claim's time
	if f, err := a.Refetch(ctx, ref); err != nil || f.Unchanged != n {
		t.Fatalf("refetch %+v, %v; want all %d pages unchanged", f, err, n)
	}
	later := start.Add(2 * time.Minute)
	a.Now = func() time.Time { return later }
	claim := func(id string, dueBy time.Time) int {
		t.Helper()
		m, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: ref.Topic, BatchID: id, Max: 100, DueBy: dueBy})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := claim("refresh/1b", start); m != 0 {
		t.Errorf("the refresh's next claim, two minutes on = %d; want 0: its pages were revisited in this refresh", m)
	}
	if m := claim("refresh/2", time.Time{}); m != n {
		t.Errorf("the next refresh's claim = %d; want all %d pages, due again", m, n)
	}
	site.checkPolite(t)
}

// TestRefetchSendsNoValidatorsThroughARedirect: a page's validators are
// its final response's and go to its final URL only: its first URL may be
// an HTML meta refresh stub, a 200 page of its own that would answer a
// conditional request with 304 for ever. A page without a redirect is
// asked conditionally, and so is a redirected page's final URL.
func TestRefetchSendsNoValidatorsThroughARedirect(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := t.Context()
	site.lastModified = "Mon, 02 Jan 2006 15:04:05 GMT"
	site.redirect = map[string]string{"http://a.test/roses/3": "http://a.test/roses/three"}
	site.pages["http://a.test/roses/three"] = sitePage{"Rose 3", roseText(3), []string{"http://a.test/"}, true}
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash("http://a.test/roses/3"))
	if err != nil || p.FinalURL != "http://a.test/roses/three" || p.LastModified == "" {
		t.Fatalf("redirected page %+v, %v; want its final URL and the target's Last-Modified", p, err)
	}
	site.reset()
	a.CrawlCfg.FetchConcurrency = 1
	later := time.Now().Add(365 * 24 * time.Hour)
	a.Now = func() time.Time { return later }
	if _, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: "refresh/1", Max: 100}); err != nil {
		t.Fatal(err)
	}
	ref := crawlapi.BatchRef{CrawlID: "refresh/1", Topic: r.Topic, BatchID: "refresh/1", TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if _, err := a.Refetch(ctx, ref); err != nil {
		t.Fatal(err)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	if site.requests["http://a.test/roses/3"] == 0 || site.conditional["http://a.test/roses/3"] != 0 {
		t.Errorf("the redirected page: %d requests, %d with validators; want its first URL asked without them",
			site.requests["http://a.test/roses/3"], site.conditional["http://a.test/roses/3"])
	}
	if site.conditional["http://a.test/roses/three"] == 0 {
		t.Errorf("the redirected page's final URL was not asked conditionally (requests %v)", site.requests)
	}
	if site.conditional["http://a.test/roses/1"] == 0 {
		t.Errorf("a page without a redirect was not asked conditionally (requests %v)", site.requests)
	}
}

// TestRefreshPermanentFailureWaits: a page a refresh finds failing for
// good (a 400, about the request) is revisited at its unchanged interval, a
// transient failure (500) at refresh.min_interval; before, every failure
// came back at min_interval, so such a page was asked for again every
// min_interval for ever. A 403 or 999 counts as its host unreachable
// (TestRefreshHostRefusingEverything): back at min_interval, 1.5× longer
// after each further one.
func TestRefreshPermanentFailureWaits(t *testing.T) {
	refused := map[string]int{"http://a.test/roses/2": 400, "http://a.test/roses/3": 500}
	_, a, ref, _ := siteRefreshBatch(t, func(s *loopBackSite) { s.status = refused })
	ctx := t.Context()
	a.RefreshCfg.MinInterval, a.RefreshCfg.InitialInterval, a.RefreshCfg.MaxInterval = time.Minute, time.Hour, 24*time.Hour
	start := a.now()
	if f, err := a.Refetch(ctx, ref); err != nil || f.Failed != 2 {
		t.Fatalf("refetch %+v, %v; want the two refused pages failed", f, err)
	}
	a.Now = func() time.Time { return start.Add(2 * time.Minute) }
	if _, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: ref.Topic, BatchID: "refresh/2", Max: 100}); err != nil {
		t.Fatal(err)
	}
	items, err := a.Store.RefreshBatch(ctx, ref.Topic, "refresh/2")
	if err != nil {
		t.Fatal(err)
	}
	claimed := map[string]bool{}
	for _, it := range items {
		claimed[it.Page.URL] = true
	}
	for u, code := range refused {
		if again := claimed[u]; again != (code == 500) {
			t.Errorf("%s (status %d): claimed again two minutes on = %v; want %v", u, code, again, code == 500)
		}
	}
}

// TestRefreshClientErrorIsGone: an accepted page that answers a revisit
// with 401 or 451 leaves the index and is dropped once (checked again
// later), as a 404 does; a 429, 408, 400 or 414 (about the request, not the
// page) does not, nor does a 403, which counts as its host unreachable
// (TestRefreshHostRefusingEverything). Before, only 404 and 410 did: a
// page refusing every visitor stayed a search result for good.
func TestRefreshClientErrorIsGone(t *testing.T) {
	for _, tc := range []struct {
		code int
		gone bool
	}{{403, false}, {401, true}, {451, true}, {429, false}, {408, false}, {400, false}, {414, false}} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			site, a, r, before := crawledSite(t)
			ctx := t.Context()
			const u = "http://a.test/roses/2"
			site.status = map[string]int{u: tc.code}
			f := refreshStages(t, a, r, "refresh/1", time.Now().Add(24*time.Hour), "finish")
			c, err := a.Index.Count(ctx, r.Topic)
			if err != nil {
				t.Fatal(err)
			}
			ri, err := a.Store.RefreshInfo(ctx, r.Topic, urlnorm.Hash(u))
			if err != nil {
				t.Fatal(err)
			}
			if tc.gone && (f.Gone != 1 || c != before-1 || ri.Dropped != 1 || ri.NextAt.IsZero()) {
				t.Errorf("status %d: refetch %+v, %d documents (before %d), %+v; want the page gone, out of the index, dropped once, due again", tc.code, f, c, before, ri)
			}
			if !tc.gone && (f.Gone != 0 || c != before || ri.Dropped != 0) {
				t.Errorf("status %d: refetch %+v, %d documents (before %d), %+v; want the page kept", tc.code, f, c, before, ri)
			}
		})
	}
}

// TestRefreshKeepsNewValidators: a revisit that finds a page unchanged
// but answered with new validators (a 200 with the same content and a new
// ETag; a 304 that sends one) stores them, so the next revisit asks with
// them and gets a 304. Before, an unchanged page kept the validators of
// its first fetch for good: a server that changed its ETags sent the whole
// page at every revisit.
func TestRefreshKeepsNewValidators(t *testing.T) {
	site, a, r, _ := crawledSite(t)
	ctx := t.Context()
	const u = "http://a.test/roses/2"
	year := 365 * 24 * time.Hour
	etag := func() string {
		t.Helper()
		p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u))
		if err != nil {
			t.Fatal(err)
		}
		return p.ETag
	}
	sent304 := func() int {
		site.mu.Lock()
		defer site.mu.Unlock()
		return site.notModifiedSent[u]
	}
	for i, v := range []string{`"v1"`, `"v2"`} {
		site.mu.Lock()
		site.etag = v
		site.mu.Unlock()
		// The first revisit with the server's new ETag: 200, same content.
		if f := refreshStages(t, a, r, fmt.Sprintf("refresh/%da", i), time.Now().Add(time.Duration(2*i+1)*year), "finish"); f.Changed != 0 {
			t.Fatalf("ETag %s: refetch %+v; want nothing changed", v, f)
		}
		if got := etag(); got != v {
			t.Fatalf("after a 200 with ETag %s and the same content: stored ETag %q", v, got)
		}
		before := sent304()
		refreshStages(t, a, r, fmt.Sprintf("refresh/%db", i), time.Now().Add(time.Duration(2*i+2)*year), "finish")
		if sent304() != before+1 {
			t.Errorf("ETag %s: the next revisit got no 304 (sent %d, before %d): not asked with the new ETag", v, sent304(), before)
		}
	}
	// A 304 that sends a new ETag and no Last-Modified: the ETag is
	// stored, the Last-Modified kept.
	const lm = "Sat, 01 Jan 2028 00:00:00 GMT"
	site.mu.Lock()
	site.lastModified, site.etag = lm, `"v3"`
	site.mu.Unlock()
	refreshStages(t, a, r, "refresh/3a", time.Now().Add(5*year), "finish") // 200, same content: both stored
	site.mu.Lock()
	site.etag, site.notModified = `"v4"`, true
	site.mu.Unlock()
	refreshStages(t, a, r, "refresh/3b", time.Now().Add(6*year), "finish")
	p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u))
	if err != nil || p.ETag != `"v4"` || p.LastModified != lm {
		t.Errorf("after a 304 with ETag \"v4\" only: %q, %q, %v; want \"v4\" and %q kept", p.ETag, p.LastModified, err, lm)
	}
}

// TestRefetchRetryCountsEarlierChanges: a Refetch retried after its worker
// died counts the pages its earlier attempt found changed or gone — still
// in the batch, replaced — from the store, whatever the earlier attempt's
// last heartbeat got to carry, and each once. Before, the retry counted
// them only as skipped: a change or a 404 the earlier attempt saw after
// its last heartbeat (or before its first, 2 s in) was missing from the
// refresh's changed, gone and checked counts, and from the fetch error
// metrics.
func TestRefetchRetryCountsEarlierChanges(t *testing.T) {
	const changed, gone = "http://a.test/roses/1", "http://b.test/p1"
	for _, tc := range []struct {
		name string
		beat func(earlier crawlapi.RefetchResult) any // nil: no heartbeat
	}{
		{"no heartbeat", nil},
		{"heartbeat before the changes", func(e crawlapi.RefetchResult) any {
			e.Checked -= e.Changed + e.Gone
			e.Changed, e.Gone, e.ErrorsByClass = 0, 0, nil
			return e
		}},
		{"heartbeat after the changes", func(e crawlapi.RefetchResult) any {
			return refetchProgress{RefetchResult: e, FailedByClass: map[string]int{}}
		}},
		// A worker of the release before heartbeats a bare RefetchResult.
		{"older heartbeat after the changes", func(e crawlapi.RefetchResult) any { return e }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, a, ref, n := siteRefreshBatch(t, func(site *loopBackSite) {
				pg := site.pages[changed]
				pg.text += " Rose hips in autumn."
				site.pages[changed] = pg
				delete(site.pages, gone) // 404
			})
			// The earlier attempt dies right after replacing the second of
			// the two pages; the pages it recorded before left the batch.
			dying, die := context.WithCancel(t.Context())
			st := a.Store
			records, replaced := 0, 0
			a.Store = &recordHookStore{Store: st, afterRecord: func() { records++ }, afterReplace: func() {
				if replaced++; replaced == 2 {
					die()
				}
			}}
			earlier, err := a.Refetch(dying, ref)
			if err == nil || earlier.Changed != 1 || earlier.Gone != 1 || earlier.Failed != 0 || earlier.Checked != records+2 {
				t.Fatalf("the earlier attempt: %+v, %v; want %d pages recorded, 1 changed, 1 gone, then interrupted", earlier, err, records)
			}
			a.Store = st
			goneClass := ""
			for c := range earlier.ErrorsByClass {
				goneClass = c
			}
			want := n // every page the batch claimed
			var beat any
			if tc.beat != nil {
				beat = tc.beat(earlier)
			} else {
				want -= records // recorded and gone from the batch: nothing tells of them
			}
			res := retryRefetch(t, a, ref, beat)
			if res.Checked != want || res.Changed != 1 || res.Gone != 1 || res.Skipped != 2 ||
				res.NotModified+res.Unchanged+res.Changed+res.Gone+res.Failed != want {
				t.Errorf("retry: %+v; want %d checked, the earlier attempt's change and 404 counted once (and skipped)", res, want)
			}
			if len(res.ErrorsByClass) != 1 || res.ErrorsByClass[goneClass] != 1 {
				t.Errorf("retry's error classes %v; want the 404's %q once", res.ErrorsByClass, goneClass)
			}
			site.checkPolite(t)
		})
	}
}

// TestRefetchHeartbeatReadsAsResult: a Refetch's heartbeat, which carries
// the failed pages' error classes beside its counts, reads as the
// crawlapi.RefetchResult that 'starter status' decodes it into
// (crawlapi.AddRefetchProgress).
func TestRefetchHeartbeatReadsAsResult(t *testing.T) {
	p := newRefetchProgress()
	addRefetch(&p, refetchChanged, "")
	addRefetch(&p, refetchFailed, "timeout")
	addRefetch(&p, refetchGone, "http_client")
	dc := converter.GetDefaultDataConverter()
	payloads, err := dc.ToPayloads(p)
	if err != nil {
		t.Fatal(err)
	}
	var r crawlapi.RefetchResult
	if err := dc.FromPayloads(payloads, &r); err != nil {
		t.Fatal(err)
	}
	if r.Checked != 3 || r.Changed != 1 || r.Failed != 1 || r.Gone != 1 || len(r.ErrorsByClass) != 2 {
		t.Errorf("heartbeat read as a RefetchResult: %+v; want 3 checked: 1 changed, 1 failed, 1 gone, 2 error classes", r)
	}
	if len(p.FailedByClass) != 1 || p.FailedByClass["timeout"] != 1 {
		t.Errorf("failed pages' classes %v; want timeout only", p.FailedByClass)
	}
}

// failingUpsert is an index whose writes fail while fail is set.
type failingUpsert struct {
	index.Index
	fail bool
}

func (f *failingUpsert) Upsert(ctx context.Context, docs []index.Document) error {
	if f.fail {
		return errors.New("index unavailable")
	}
	return f.Index.Upsert(ctx, docs)
}

// TestRefreshIndexesAcceptedPageLeftUnindexed: a changed page a refresh
// batch accepted, in a batch whose index write then failed on every
// attempt, is accepted and unflagged with the old text in the index; the
// next refresh, finding it as it was (no validators sent), judges and
// indexes it again. Before, an unchanged answer left it so for as long as
// the page did not change.
func TestRefreshIndexesAcceptedPageLeftUnindexed(t *testing.T) {
	site, a, r, _ := crawledSite(t)
	ctx := t.Context()
	const u = "http://a.test/roses/2"
	hash := urlnorm.Hash(u)
	site.lastModified = "Mon, 02 Jan 2006 15:04:05 GMT"
	pg := site.pages[u]
	pg.text += " Rose hips ripen in autumn."
	site.pages[u] = pg
	failedFilterBatch(t, a, r, 1)
	year := 365 * 24 * time.Hour
	if p, err := a.Store.Page(ctx, r.Topic, hash); err != nil || p.Decision != store.DecisionAccepted || p.Indexed {
		t.Fatalf("after the failed batch: decision %q indexed %v, %v; want accepted, unflagged", p.Decision, p.Indexed, err)
	}
	site.mu.Lock()
	site.conditional = map[string]int{}
	site.mu.Unlock()
	refreshStages(t, a, r, "refresh/2", time.Now().Add(2*year), "finish")
	if p, err := a.Store.Page(ctx, r.Topic, hash); err != nil || p.Decision != store.DecisionAccepted || !p.Indexed {
		t.Errorf("after the next refresh: decision %q indexed %v, %v; want accepted and indexed", p.Decision, p.Indexed, err)
	}
	checkOneHit(t, a, r.Topic, "hips", u)
	site.mu.Lock()
	defer site.mu.Unlock()
	if n := site.conditional[u]; n != 0 {
		t.Errorf("the unflagged page was asked for with validators %d times; a 304 would leave it out", n)
	}
}

// TestRefreshLeavesNoindexPageAlone: an accepted page out of the index
// because it says noindex is asked for with its validators and, answering
// as before, not processed again (lacksDocument reads its parse).
func TestRefreshLeavesNoindexPageAlone(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := t.Context()
	const u = "http://a.test/roses/2"
	site.robotsTag = map[string]string{u: "noindex"}
	site.lastModified = "Mon, 02 Jan 2006 15:04:05 GMT"
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	if p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u)); err != nil || p.Decision != store.DecisionAccepted || p.Indexed {
		t.Fatalf("after the crawl: decision %q indexed %v, %v; want accepted, not indexed", p.Decision, p.Indexed, err)
	}
	if f := refreshAll(t, a, r); f.Changed != 0 {
		t.Errorf("refetch %+v; want nothing changed", f)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	if n := site.conditional[u]; n != 1 {
		t.Errorf("the noindex page was asked for with validators %d times; want once", n)
	}
}

// TestRefreshJudgesCopiesOfALeavingPage: a page and its copy (same
// content, another URL); the original goes away (404, or it changes) and
// the copy, never revisited as a copy, is judged again by the next
// refresh and takes its place in the index. Before, the content left the
// index with the original while the copy still served it.
func TestRefreshJudgesCopiesOfALeavingPage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave func(site *loopBackSite, u string)
	}{
		{"gone", func(site *loopBackSite, u string) { site.status = map[string]int{u: 404} }},
		{"changed", func(site *loopBackSite, u string) {
			pg := site.pages[u]
			pg.text = roseText(8)
			site.pages[u] = pg
		}},
		// The same body, now sent with X-Robots-Tag: noindex: the copy,
		// which has no such header, takes its place in the index.
		{"noindex header", func(site *loopBackSite, u string) { site.robotsTag = map[string]string{u: "noindex"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, a, r := siteCrawl(t)
			site.cOnce.Do(func() { close(site.cSeen) }) // b.test's root need not wait for c.test
			ctx := t.Context()
			const one, two = "http://b.test/p1", "http://b.test/p1-copy"
			site.pages[two] = site.pages[one]
			b := site.pages["http://b.test/"]
			b.links = append(append([]string(nil), b.links...), two)
			site.pages["http://b.test/"] = b
			if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
				t.Fatal(err)
			}
			orig, dup := one, two
			if p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(one)); err != nil {
				t.Fatal(err)
			} else if p.Decision == store.DecisionDuplicate {
				orig, dup = two, one
			}
			if p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(orig)); err != nil || p.Decision != store.DecisionAccepted || !p.Indexed {
				t.Fatalf("original %s after the crawl: %q indexed %v, %v; want accepted and indexed", orig, p.Decision, p.Indexed, err)
			}
			tc.leave(site, orig)
			year := 365 * 24 * time.Hour
			refreshStages(t, a, r, "refresh/1", time.Now().Add(year), "finish")
			if p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(dup)); err != nil || p.Decision != store.DecisionPending {
				t.Fatalf("copy %s after the original left: %q, %v; want pending (to be judged again)", dup, p.Decision, err)
			}
			refreshStages(t, a, r, "refresh/2", time.Now().Add(year+time.Minute), "finish")
			if p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(dup)); err != nil || p.Decision != store.DecisionAccepted || !p.Indexed {
				t.Errorf("copy %s after the next refresh: %q indexed %v, %v; want accepted and indexed", dup, p.Decision, p.Indexed, err)
			}
			checkOneHit(t, a, r.Topic, `"rose varieties number 5"`, dup)
		})
	}
}

// TestRefreshHubByRecordedScore: whether a page not accepted is revisited
// as a hub follows the refresh's recorded refresh.hub_min_score (the one
// its claim chose pages by), not the config of the worker that runs the
// batch; a ref without it (a refresh recorded before) uses the worker's.
func TestRefreshHubByRecordedScore(t *testing.T) {
	a := &Activities{}
	a.RefreshCfg.HubMinScore = 0.8
	hub := store.Page{Decision: store.DecisionTunnel, Hub: 0.5}
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		minHub *float64
		want   bool
	}{{f(0.3), true}, {f(0), false}, {f(0.6), false}, {nil, false}} {
		if got := a.refreshHub(hub, crawlapi.BatchRef{MinHub: tt.minHub}); got != tt.want {
			t.Errorf("MinHub %v, worker 0.8: refreshHub = %v, want %v", tt.minHub, got, tt.want)
		}
	}
	a.RefreshCfg.HubMinScore = 0.4
	if !a.refreshHub(hub, crawlapi.BatchRef{}) {
		t.Errorf("no recorded score, worker 0.4: a 0.5 hub not revisited")
	}
	if a.refreshHub(store.Page{Decision: store.DecisionAccepted, Hub: 0.9}, crawlapi.BatchRef{MinHub: f(0.3)}) {
		t.Errorf("an accepted page counted as a hub")
	}
}
