package activities

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// stallStore runs stall once, right after a Refetch of batch has read its
// pages: what happens meanwhile to an attempt that then stands still (its
// worker paused, a request hung) past its claim's lease and retry delay.
type stallStore struct {
	store.Store
	batch string
	stall func()
}

func (s *stallStore) RefreshBatch(ctx context.Context, topic, batchID string) ([]store.RefreshItem, error) {
	items, err := s.Store.RefreshBatch(ctx, topic, batchID)
	if f := s.stall; f != nil && batchID == s.batch {
		s.stall = nil
		f()
	}
	return items, err
}

// finishStages runs the stages of refresh batch ref after Refetch: Parse,
// FilterPages, PredictLinks and FinishRefresh.
func finishStages(t *testing.T, a *Activities, ref crawlapi.BatchRef) {
	t.Helper()
	ctx := t.Context()
	if _, err := a.Parse(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := a.FilterPages(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := a.PredictLinks(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := a.FinishRefresh(ctx, ref); err != nil {
		t.Fatal(err)
	}
}

// TestStaleRefetchLeavesAnsweringPagesIndexed: a.test has failed two
// revisits in a row. The Refetch attempt of the third reads its batch and
// stands still past its claim; meanwhile another refresh claims a.test's
// pages and finds them answering. The stale attempt then fails to reach
// a.test — a third failure in a row, past refresh.drop_unreachable_after
// by its stale count — but the pages are no longer its batch's: they stay
// in the index, with the other refresh's outcome. Before, it deleted their
// documents and unflagged them (only RecordRefresh, after that, was
// fenced by the claim), though their host had just answered.
func TestStaleRefetchLeavesAnsweringPagesIndexed(t *testing.T) {
	s, now := failedTwice(t)
	site, a, r, before := s.site, s.a, s.r, s.before
	ss := &stallStore{Store: a.Store, batch: "refresh/3"}
	a.Store = ss
	ss.stall = func() {
		// Past refresh/3's lease and the retry delay of a first claim
		// that ran out (refresh.min_interval).
		later := now.Add(a.CrawlCfg.Lease + a.RefreshCfg.MinInterval + time.Minute)
		site.setDown("a.test", false)
		if f := refreshStages(t, a, r, "refresh/other", later, "finish"); f.Unchanged != s.onA {
			t.Fatalf("the other refresh: %+v; want a.test's %d pages unchanged", f, s.onA)
		}
		site.setDown("a.test", true)
	}
	f := refreshStages(t, a, r, "refresh/3", now, "refetch")
	if f.Checked != 0 || f.Unreachable != 0 {
		t.Errorf("the stale attempt: %+v; want nothing counted, its pages being another refresh's", f)
	}
	if c, p := s.count(), s.page(); c != before || !p.Indexed {
		t.Errorf("after the stale attempt: %d documents, %s indexed %v; want all %d, indexed", c, s.u, p.Indexed, before)
	}
	if ri := s.info(); ri.Unreachable != 0 || ri.BatchID != "" {
		t.Errorf("bookkeeping after the stale attempt: %+v; want the other refresh's (answered, released)", ri)
	}
	checkOneHit(t, a, r.Topic, "number 2", s.u)
}

// TestStaleRefetchPutsNoDocumentBack: a.test's pages are out of the index
// as unreachable. The Refetch attempt of the batch that revisits them once
// a.test is back reads its batch and stands still past its claim;
// meanwhile another refresh claims the pages, finds roses/2 changed — now
// about bicycles — and judges it out of the topic. The stale attempt then
// gets a 304 for its conditional request, but the page is no longer its
// batch's: nothing is put back. Before, it wrote the page's document again
// from the stored parse (now the other refresh's, of the bicycle page)
// and flagged the rejected page indexed, searchable for good.
func TestStaleRefetchPutsNoDocumentBack(t *testing.T) {
	s := lastModifiedSite(t)
	site, a, r := s.site, s.a, s.r
	s.downUntilUnreachable(time.Now().Add(365*24*time.Hour), "refresh/down")
	if p := s.page(); p.Indexed {
		t.Fatalf("%s after the limit: indexed; want out of the index", s.u)
	}
	site.setDown("a.test", false)
	now := s.info().NextAt
	ss := &stallStore{Store: a.Store, batch: "refresh/back"}
	a.Store = ss
	ss.stall = func() {
		later := now.Add(a.CrawlCfg.Lease + a.RefreshCfg.MinInterval + time.Minute)
		site.pages[s.u] = sitePage{title: "Bicycle repair", text: "Chains, gears and brake pads of a road bicycle."}
		refreshStages(t, a, r, "refresh/other", later, "finish")
		if p := s.page(); p.Decision != store.DecisionRejected || p.Indexed {
			t.Fatalf("%s after the other refresh: %q, indexed %v; want rejected, out of the index", s.u, p.Decision, p.Indexed)
		}
		site.mu.Lock()
		site.notModified = true
		site.mu.Unlock()
	}
	asked := s.conditional()
	refreshStages(t, a, r, "refresh/back", now, "refetch")
	if s.conditional() <= asked+1 {
		t.Fatalf("%d conditional requests for %s; want the other refresh's and the stale attempt's", s.conditional()-asked, s.u)
	}
	if p := s.page(); p.Decision != store.DecisionRejected || p.Indexed {
		t.Errorf("%s after the stale attempt: %q, indexed %v; want rejected, out of the index", s.u, p.Decision, p.Indexed)
	}
	if finds(t, a, r.Topic, "bicycle", s.u) {
		t.Errorf("search finds %s (rejected) after the stale attempt's 304", s.u)
	}
}

// staleAfterRetry crawls loopBackSite and runs the Refetch of refresh
// batch refresh/1 a year on as an attempt that reads its pages and stands
// still while a retry of the batch revisits them, finds roses/1 changed
// and replaces it; then meanwhile runs (at the batch's time), and the stale
// attempt goes on. It returns the stale attempt's result.
func staleAfterRetry(t *testing.T, meanwhile func(site *loopBackSite, a *Activities, now time.Time)) (
	*loopBackSite, *Activities, crawlapi.BatchRef, crawlapi.RefetchResult) {
	t.Helper()
	site, a, r, _ := crawledSite(t)
	ctx := t.Context()
	now := time.Now().Add(365 * 24 * time.Hour)
	ref := crawlapi.BatchRef{CrawlID: "refresh/1", Topic: r.Topic, BatchID: "refresh/1",
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	ss := &stallStore{Store: a.Store, batch: ref.BatchID}
	a.Store = ss
	ss.stall = func() {
		pg := site.pages[roses1]
		pg.text += " Rose hips ripen in autumn."
		site.pages[roses1] = pg
		if f, err := a.Refetch(ctx, ref); err != nil || f.Changed != 1 {
			t.Fatalf("the retry: %+v, %v; want roses/1 changed", f, err)
		}
		meanwhile(site, a, now)
	}
	return site, a, ref, refreshStages(t, a, r, ref.BatchID, now, "refetch")
}

// checkRetryRecorded runs ref's stages after Refetch and checks that
// roses/1's revisit by the retry (staleAfterRetry) is recorded: one check,
// one change, released, its new text searchable.
func checkRetryRecorded(t *testing.T, a *Activities, ref crawlapi.BatchRef) {
	t.Helper()
	finishStages(t, a, ref)
	ri, err := a.Store.RefreshInfo(t.Context(), ref.Topic, urlnorm.Hash(roses1))
	if err != nil {
		t.Fatal(err)
	}
	if ri.Checks != 1 || ri.Changes != 1 || ri.Unreachable != 0 || ri.BatchID != "" {
		t.Errorf("roses/1 after the batch: %+v; want one check, one change, no failure, released", ri)
	}
	if !finds(t, a, ref.Topic, "autumn", roses1) {
		t.Errorf("search does not find %s's new text", roses1)
	}
}

// TestStaleRefetchLeavesPageItsRetryReplaced: the Refetch attempt of a
// batch reads its pages and stands still; a retry of the same batch (the
// first attempt's heartbeat timed out) revisits them, finds roses/1
// changed and replaces it. The stale attempt then fails to reach a.test.
// roses/1 is still the batch's claim, but its revisit was made: the stale
// attempt records nothing over it, and the batch's FinishRefresh records
// the change. Before, the stale attempt's failure was recorded for the
// batch (the claim matched): roses/1 was released as failed, its change
// never counted and its next revisit due at refresh.min_interval.
func TestStaleRefetchLeavesPageItsRetryReplaced(t *testing.T) {
	site, a, ref, f := staleAfterRetry(t, func(site *loopBackSite, _ *Activities, _ time.Time) {
		site.setDown("a.test", true)
	})
	if f.Checked != 0 || f.Failed != 0 {
		t.Errorf("the stale attempt: %+v; want nothing counted, every page revisited by the retry", f)
	}
	site.setDown("a.test", false)
	checkRetryRecorded(t, a, ref)
}

// TestStaleRefetchDoesNotPostponePageItsRetryReplaced: as
// TestStaleRefetchLeavesPageItsRetryReplaced, but a.test is held (a 429's
// Retry-After seen by another worker) when the stale attempt reaches
// roses/1: it postpones none of the pages its batch's retry revisited.
// Before, postponing skipped the fence: roses/1, still the batch's claim,
// was released and pushed back to the hold's end, and the batch's
// FinishRefresh, no longer seeing it, recorded neither its check nor its
// change.
func TestStaleRefetchDoesNotPostponePageItsRetryReplaced(t *testing.T) {
	_, a, ref, f := staleAfterRetry(t, func(_ *loopBackSite, a *Activities, now time.Time) {
		if err := a.Store.HoldHost(t.Context(), "a.test", now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	})
	if f.Checked != 0 || f.Postponed != 0 {
		t.Errorf("the stale attempt: %+v; want nothing counted, every page revisited by the retry", f)
	}
	checkRetryRecorded(t, a, ref)
}

// stageClock is a refresh test's clock for stages that run while the test
// moves it.
type stageClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stageClock) get() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stageClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// changedBatch crawls loopBackSite, changes roses/1 and runs the claim and
// Refetch of refresh batch refresh/1 a year on, on a clock the test moves:
// roses/1 is replaced, held by the batch for its stages.
func changedBatch(t *testing.T) (*loopBackSite, *Activities, crawlapi.BatchRef, *stageClock) {
	t.Helper()
	site, a, r, _ := crawledSite(t)
	pg := site.pages[roses1]
	pg.text += " Rose hips ripen in autumn."
	site.pages[roses1] = pg
	site.reset()
	clock := &stageClock{now: time.Now().Add(365 * 24 * time.Hour)}
	ref := crawlapi.BatchRef{CrawlID: "refresh/1", Topic: r.Topic, BatchID: "refresh/1",
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if f := refreshStages(t, a, r, ref.BatchID, clock.get(), "refetch"); f.Changed != 1 {
		t.Fatalf("refetch: %+v; want roses/1 changed", f)
	}
	a.Now = clock.get
	return site, a, ref, clock
}

const roses1 = "http://a.test/roses/1"

// stolen is how many pages a claim by another refresh of ref's topic, at
// the activities' time, takes.
func stolen(t *testing.T, a *Activities, ref crawlapi.BatchRef, id string) int {
	t.Helper()
	n, err := a.ClaimRefresh(t.Context(), crawlapi.RefreshClaimInput{Topic: ref.Topic, BatchID: id, Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkChangeRecorded checks that the batch recorded roses/1's change,
// once, and that roses/1 was fetched once.
func checkChangeRecorded(t *testing.T, site *loopBackSite, a *Activities, ref crawlapi.BatchRef) {
	t.Helper()
	ri, err := a.Store.RefreshInfo(t.Context(), ref.Topic, urlnorm.Hash(roses1))
	if err != nil {
		t.Fatal(err)
	}
	if ri.Checks != 1 || ri.Changes != 1 || ri.BatchID != "" {
		t.Errorf("roses/1 after the batch: %+v; want its change recorded by the batch, released", ri)
	}
	if n := site.pageRequests()[roses1]; n != 1 {
		t.Errorf("roses/1 requested %d times; want once", n)
	}
}

// TestRefreshStagesKeepTheClaim: each stage after Refetch starts after the
// lease of the last renewal ran out (retries, a slow index, no worker
// free), before its retry delay did. Each renews the batch's claim, so
// another refresh of the topic claiming between two stages takes none of
// its pages, and FinishRefresh records roses/1's change. Before, the pages
// kept what was left of Refetch's lease: the claim before FilterPages
// took roses/1, which the other refresh would fetch and replace again
// while this batch judged it, and this batch's FinishRefresh, no longer
// holding it, recorded nothing of its change.
func TestRefreshStagesKeepTheClaim(t *testing.T) {
	site, a, ref, clock := changedBatch(t)
	ctx := t.Context()
	step := a.CrawlCfg.Lease + a.RefreshCfg.MinInterval/2 // a first claim's retry delay is refresh.min_interval
	for i, stage := range []func() error{
		func() error { _, err := a.Parse(ctx, ref); return err },
		func() error { _, err := a.FilterPages(ctx, ref); return err },
		func() error { _, err := a.PredictLinks(ctx, ref); return err },
		func() error { _, err := a.FinishRefresh(ctx, ref); return err },
	} {
		clock.set(clock.get().Add(step))
		if n := stolen(t, a, ref, fmt.Sprintf("refresh/2-%d", i)); n != 0 {
			t.Fatalf("another refresh claimed %d pages of the batch before its stage %d", n, i+1)
		}
		if err := stage(); err != nil {
			t.Fatal(err)
		}
	}
	checkChangeRecorded(t, site, a, ref)
}

// blockingUpsert holds the first index write until release is closed,
// having closed entered.
type blockingUpsert struct {
	index.Index
	entered, release chan struct{}
	once             sync.Once
}

func (b *blockingUpsert) Upsert(ctx context.Context, docs []index.Document) error {
	b.once.Do(func() {
		close(b.entered)
		<-b.release
	})
	return b.Index.Upsert(ctx, docs)
}

// renewHookStore sends each lease RenewRefresh gave while renewed has room.
type renewHookStore struct {
	store.Store
	renewed chan time.Time
}

func (s *renewHookStore) RenewRefresh(ctx context.Context, topic, batchID string, until time.Time) error {
	err := s.Store.RenewRefresh(ctx, topic, batchID, until)
	select {
	case s.renewed <- until:
	default:
	}
	return err
}

// TestRefreshStageKeepsTheClaimWhileItRuns: FilterPages' index write
// lasts past the lease its start renewed and the retry delay (a slow
// index): the claim is renewed while the stage runs, so another refresh
// claiming then takes none of the batch's pages.
func TestRefreshStageKeepsTheClaimWhileItRuns(t *testing.T) {
	site, a, ref, clock := changedBatch(t)
	ctx := t.Context()
	a.renewEvery = time.Millisecond
	if _, err := a.Parse(ctx, ref); err != nil {
		t.Fatal(err)
	}
	idx := &blockingUpsert{Index: a.Index, entered: make(chan struct{}), release: make(chan struct{})}
	hs := &renewHookStore{Store: a.Store, renewed: make(chan time.Time, 8)}
	a.Index, a.Store = idx, hs
	done := make(chan error, 1)
	go func() {
		_, err := a.FilterPages(ctx, ref)
		done <- err
	}()
	<-idx.entered
	later := clock.get().Add(a.CrawlCfg.Lease + a.RefreshCfg.MinInterval + time.Minute)
	clock.set(later)
	deadline := time.After(10 * time.Second)
	for renewed := false; !renewed; {
		select {
		case until := <-hs.renewed:
			renewed = !until.Before(later.Add(a.CrawlCfg.Lease))
		case <-deadline:
			close(idx.release)
			t.Fatal("FilterPages did not renew its claim within 10 s while its index write lasted (looked at every 1 ms)")
		}
	}
	n := stolen(t, a, ref, "refresh/2")
	close(idx.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("another refresh claimed %d pages of the batch while FilterPages ran", n)
	}
	a.Store = hs.Store
	if _, err := a.PredictLinks(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := a.FinishRefresh(ctx, ref); err != nil {
		t.Fatal(err)
	}
	checkChangeRecorded(t, site, a, ref)
}

// TestLateStagesLeaveLostPages: refresh/1 replaced roses/1 (Refetch) and
// lost it before one of its next stages — its refresh was cancelled and
// the batch released (ReleaseRefresh), and another refresh claimed the
// page or not yet; or the batch's lease and retry delay ran out and
// another refresh claimed it. A late attempt of that stage and of those
// after it must leave roses/1 as its holder has it: not parsed, judged,
// expanded or recorded by refresh/1. The holder's revisit then records
// it. Before, the late Parse and FilterPages read the batch's replaced
// pages (BatchPages) whoever held them, and parsed and judged roses/1
// under the other refresh's claim; a late FinishRefresh recorded a
// released page's outcome.
func TestLateStagesLeaveLostPages(t *testing.T) {
	release := func(t *testing.T, a *Activities, ref crawlapi.BatchRef, _ *stageClock) {
		t.Helper()
		in := crawlapi.ReleaseRefreshInput{Topic: ref.Topic, BatchID: ref.BatchID}
		if n, err := a.ReleaseRefresh(t.Context(), in); err != nil || n != 1 {
			t.Fatalf("ReleaseRefresh = %d, %v; want roses/1", n, err)
		}
	}
	runOut := func(t *testing.T, a *Activities, _ crawlapi.BatchRef, clock *stageClock) {
		// Past the lease and a first claim's retry delay (refresh.min_interval).
		clock.set(clock.get().Add(a.CrawlCfg.Lease + a.RefreshCfg.MinInterval + time.Minute))
	}
	claim := func(t *testing.T, a *Activities, ref crawlapi.BatchRef, _ *stageClock) {
		t.Helper()
		if n := stolen(t, a, ref, "refresh/2"); n != 1 {
			t.Fatalf("refresh/2 claimed %d pages; want roses/1", n)
		}
	}
	type lose func(*testing.T, *Activities, crawlapi.BatchRef, *stageClock)
	for _, tc := range []struct {
		name    string
		ran     int // stages after Refetch the batch ran before it lost roses/1
		lose    []lose
		claimed bool // refresh/2 claimed roses/1 before the late stages
	}{
		{"released and claimed again before Parse", 0, []lose{release, claim}, true},
		{"released before Parse", 0, []lose{release}, false},
		{"ran out and claimed again before Parse", 0, []lose{runOut, claim}, true},
		{"released and claimed again before FilterPages", 1, []lose{release, claim}, true},
		{"released before FinishRefresh", 3, []lose{release}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, a, ref, clock := changedBatch(t)
			ctx := t.Context()
			h := urlnorm.Hash(roses1)
			// Each stage answers how many pages it acted on.
			stages := []struct {
				name string
				run  func() (int, error)
			}{
				{"Parse", func() (int, error) { r, err := a.Parse(ctx, ref); return r.Parsed + r.Failed, err }},
				{"FilterPages", func() (int, error) {
					r, err := a.FilterPages(ctx, ref)
					return r.Accepted + r.Rejected + r.Duplicates + r.Errors + r.Indexed, err
				}},
				{"PredictLinks", func() (int, error) { r, err := a.PredictLinks(ctx, ref); return r.Links, err }},
				{"FinishRefresh", func() (int, error) { r, err := a.FinishRefresh(ctx, ref); return r.Kept + r.Removed, err }},
			}
			for _, s := range stages[:tc.ran] {
				if n, err := s.run(); err != nil || n == 0 {
					t.Fatalf("%s before the batch lost roses/1 = %d, %v; want it to act on roses/1", s.name, n, err)
				}
			}
			before, err := a.Store.Page(ctx, ref.Topic, h)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range tc.lose {
				l(t, a, ref, clock)
			}
			for _, s := range stages[tc.ran:] {
				if n, err := s.run(); err != nil || n != 0 {
					t.Errorf("late %s = %d, %v; want it to act on no page: refresh/1 holds none", s.name, n, err)
				}
			}
			p, err := a.Store.Page(ctx, ref.Topic, h)
			if err != nil {
				t.Fatal(err)
			}
			if p.Decision != before.Decision || p.Indexed != before.Indexed || p.Relevance != before.Relevance {
				t.Errorf("roses/1 after the late stages: %q, indexed %v; want %q, indexed %v, as the batch lost it",
					p.Decision, p.Indexed, before.Decision, before.Indexed)
			}
			if tc.ran == 0 {
				if _, err := a.Store.Blob(ctx, ref.Topic, h, store.BlobParse); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("roses/1's parse after a late Parse: %v; want none (not parsed by a batch that lost it)", err)
				}
			}
			ri, err := a.Store.RefreshInfo(ctx, ref.Topic, h)
			if err != nil {
				t.Fatal(err)
			}
			want := "refresh/1" // released, kept for the next claim
			if tc.claimed {
				want = "refresh/2"
			}
			if ri.Checks != 0 || ri.BatchID != want {
				t.Errorf("roses/1's bookkeeping after the late stages: %+v; want no check recorded, held by %s", ri, want)
			}
			if !tc.claimed {
				claim(t, a, ref, clock)
			}
			// The holder revisits roses/1 and records it.
			ref2 := ref
			ref2.CrawlID, ref2.BatchID = "refresh/2", "refresh/2"
			if _, err := a.Refetch(ctx, ref2); err != nil {
				t.Fatal(err)
			}
			finishStages(t, a, ref2)
			if ri, err := a.Store.RefreshInfo(ctx, ref.Topic, h); err != nil || ri.Checks != 1 || ri.BatchID != "" {
				t.Errorf("roses/1 after refresh/2: %+v, %v; want its revisit recorded once", ri, err)
			}
			if p, err := a.Store.Page(ctx, ref.Topic, h); err != nil || p.Decision != store.DecisionAccepted || !p.Indexed {
				t.Errorf("roses/1 after refresh/2: %s, indexed %v, %v; want accepted and indexed", p.Decision, p.Indexed, err)
			}
		})
	}
}

// TestHeldPagesCrawlExemption: the exemption for a crawl's own batch run
// through the refresh stages keeps only pages of that crawl; a page with no
// crawl ID that the batch does not hold is left (judgingCrawl takes the
// batch's crawl for a page without one, which kept it).
func TestHeldPagesCrawlExemption(t *testing.T) {
	a := siteActivities(t, newLoopBackSite(t))
	in := crawlapi.BatchRef{CrawlID: "refresh/r1", Topic: "roses", BatchID: "refresh/r1/b1"}
	pages := []store.Page{
		{Topic: "roses", URLHash: "own", CrawlID: "refresh/r1"},
		{Topic: "roses", URLHash: "none"},
		{Topic: "roses", URLHash: "other", CrawlID: "c1"},
	}
	got, err := a.heldPages(t.Context(), in, pages)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].URLHash != "own" {
		t.Errorf("kept %+v; want only the page of the batch's own crawl", got)
	}
}
