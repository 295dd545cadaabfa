package activities

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// Index documents are keyed by final URL hash, so two pages of a topic that
// end at one final URL name one document. These tests check that such a
// pair never leaves the index without the document the accepted page of
// the pair needs, and that search shows the URL once.

// TestRefreshOntoAnotherPagesFinalURL: a refresh finds an accepted page
// now redirecting to another accepted page of the crawl. The moved page
// becomes a duplicate of the page it ends at, whichever was fetched first,
// and the other page keeps its document. Before, a later page moving onto
// an earlier one was judged a duplicate and FinishRefresh then deleted the
// document under its new final URL — the earlier page's; an earlier page
// moving onto a later one was accepted (DuplicateOf looked only at earlier
// pages) and overwrote the later page's document, and withdrawing either
// would delete the document of both. When both pages changed, one batch
// judges both: one of them holds the document, the other is its duplicate.
func TestRefreshOntoAnotherPagesFinalURL(t *testing.T) {
	for _, tc := range []struct {
		name      string
		moveLater bool // the later fetched page moves (else the earlier)
		bothMoved bool // the kept page's text changes too
	}{
		{"later page onto the earlier", true, false},
		{"earlier page onto the later", false, false},
		{"earlier page onto the later, both changed", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, a, r := siteCrawl(t)
			ctx := t.Context()
			if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
				t.Fatal(err)
			}
			early := indexedPage(t, a, r.Topic, "http://a.test/roses/1")
			late := indexedPage(t, a, r.Topic, "http://a.test/roses/2")
			if early.Seq > late.Seq {
				early, late = late, early
			}
			moved, kept := early, late
			if tc.moveLater {
				moved, kept = late, early
			}
			before, err := a.Index.Count(ctx, r.Topic)
			if err != nil {
				t.Fatal(err)
			}
			site.redirect = map[string]string{moved.URL: kept.URL}
			if tc.bothMoved {
				pg := site.pages[kept.URL]
				pg.text += " Rose hips in autumn."
				site.pages[kept.URL] = pg
			}
			refreshAll(t, a, r)

			mp, kp := storedPage(t, a, moved), storedPage(t, a, kept)
			if mp.FinalHash != kept.FinalHash {
				t.Fatalf("%s after the refresh ends at %s; want %s", moved.URL, mp.FinalURL, kept.FinalURL)
			}
			holder, dup := kp, mp
			if tc.bothMoved && kp.Decision == store.DecisionDuplicate {
				holder, dup = mp, kp // one batch judged both: either may hold the document
			}
			if dup.Decision != store.DecisionDuplicate || dup.Indexed {
				t.Errorf("%s after the refresh: %s, indexed %v; want a duplicate of %s, not indexed",
					dup.URL, dup.Decision, dup.Indexed, holder.URL)
			}
			if holder.Decision != store.DecisionAccepted || !holder.Indexed {
				t.Errorf("%s after the refresh: %s, indexed %v; want accepted and indexed", holder.URL, holder.Decision, holder.Indexed)
			}
			if n, err := a.Index.Count(ctx, r.Topic); err != nil || n != before-1 {
				t.Errorf("index holds %d documents (%v); want %d: the moved page's old one gone, the shared one kept", n, err, before-1)
			}
			checkOneHit(t, a, r.Topic, kept.Title, kept.FinalURL)
		})
	}
}

// sharedDocument sets up TestRejudgeKeepsSharedDocument's store: the
// crawl's poorest page moved onto its best page's final URL, accepted and
// indexed, having written the shared document last. It returns the index's
// document count then.
func sharedDocument(t *testing.T) (*Activities, crawlapi.StartCrawlResult, store.Page, store.Page, int) {
	t.Helper()
	a, r, judged := rejudgeFixture(t, "accept: split")
	ctx := context.Background()
	best, poor := judged[0], judged[len(judged)-1]
	if best.Decision != store.DecisionAccepted || !best.Indexed || poor.Decision == store.DecisionAccepted {
		t.Fatalf("the crawl judged its best page %s %s and its poorest %s %s; want accepted and indexed, and not accepted",
			best.URL, best.Decision, poor.URL, poor.Decision)
	}
	// The poor page ends at the best page's URL, accepted, and wrote the
	// shared document last.
	rec, err := a.loadParse(ctx, poor)
	if err != nil {
		t.Fatal(err)
	}
	moved := poor
	moved.FinalURL, moved.FinalHash, moved.BatchID = best.FinalURL, best.FinalHash, "legacy"
	if err := a.Store.ReplacePage(ctx, moved, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.SetDecision(ctx, r.Topic, poor.URLHash, store.Decision{Relevance: poor.Relevance, Filter: poor.Filter,
		Decision: store.DecisionAccepted, Reason: "unsettled split"}); err != nil {
		t.Fatal(err)
	}
	doc, err := a.indexDocument(ctx, moved, rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Index.Upsert(ctx, []index.Document{doc}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.MarkIndexed(ctx, r.Topic, []string{poor.URLHash}); err != nil {
		t.Fatal(err)
	}
	before, err := a.Index.Count(ctx, r.Topic)
	if err != nil {
		t.Fatal(err)
	}

	return a, r, best, poor, before
}

// TestWithdrawSparesAKeptHolder: a chunk of pages to withdraw can hold a
// page a refresh judged again meanwhile, which stays accepted and indexed
// (withdraw's keep). When it shares a final URL with a page leaving, it
// holds the document: before, the whole chunk was excepted from the
// holders and the document was deleted under it (review).
func TestWithdrawSparesAKeptHolder(t *testing.T) {
	a, r, best, poor, before := sharedDocument(t)
	ctx := context.Background()
	keep := func(p store.Page) bool { return p.URLHash == best.URLHash }
	var res crawlapi.RejudgeResult
	if err := a.withdraw(ctx, r.Topic, []string{poor.URLHash, best.URLHash}, keep, nil, 1, &res); err != nil {
		t.Fatal(err)
	}
	if got := storedPage(t, a, best); got.Decision != store.DecisionAccepted || !got.Indexed {
		t.Errorf("kept page after the withdrawal: %s, indexed %v; want accepted and indexed", got.Decision, got.Indexed)
	}
	if n, err := a.Index.Count(ctx, r.Topic); err != nil || n != before {
		t.Errorf("index holds %d documents (%v); want %d: the kept page's document stays", n, err, before)
	}
	checkOneHit(t, a, r.Topic, best.Title, best.FinalURL)
}

// TestRejudgeKeepsSharedDocument: two accepted, indexed pages with one
// final URL — what a crawl store written before duplicates were judged
// against accepted pages in any order can hold, or two slices judging
// the pair at once — and the re-judgement withdraws the poorer one. The
// other keeps the document, rewritten from its own text. Before, the
// withdrawal deleted it: the page stayed accepted and flagged indexed
// with nothing in the index.
func TestRejudgeKeepsSharedDocument(t *testing.T) {
	a, r, best, poor, before := sharedDocument(t)
	ctx := context.Background()
	res := finalRejudgeWithdrawsOne(t, a, r, "the poor page")
	if got := storedPage(t, a, poor); got.Decision != store.DecisionTunnel || got.Indexed {
		t.Errorf("poor page after re-judging: %s, indexed %v; want tunnel, not indexed", got.Decision, got.Indexed)
	}
	if got := storedPage(t, a, best); got.Decision != store.DecisionAccepted || !got.Indexed {
		t.Errorf("best page after re-judging: %s, indexed %v; want accepted and indexed", got.Decision, got.Indexed)
	}
	if n, err := a.Index.Count(ctx, r.Topic); err != nil || n != before || res.Indexed != n {
		t.Errorf("index holds %d documents (%v), %d reported; want %d: the shared one kept", n, err, res.Indexed, before)
	}
	checkOneHit(t, a, r.Topic, best.Title, best.FinalURL)
	// The document is the best page's again: the poor page's title, which
	// it carried, no longer finds it.
	hits, err := a.Index.Search(ctx, index.Query{Topic: r.Topic, Text: `"` + poor.Title + `"`, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits.Hits {
		if h.ID == best.FinalHash && h.Title != best.Title {
			t.Errorf("the shared document still carries the withdrawn page's title %q", h.Title)
		}
	}
}

// indexedPage is the stored page of url, which the crawl must have
// accepted and indexed.
func indexedPage(t *testing.T, a *Activities, topicName, url string) store.Page {
	t.Helper()
	p, err := a.Store.Page(t.Context(), topicName, urlnorm.Hash(url))
	if err != nil || p.Decision != store.DecisionAccepted || !p.Indexed {
		t.Fatalf("%s after the crawl: %s, indexed %v, %v; want accepted and indexed", url, p.Decision, p.Indexed, err)
	}
	return p
}

// storedPage is p as the store holds it now.
func storedPage(t *testing.T, a *Activities, p store.Page) store.Page {
	t.Helper()
	got, err := a.Store.Page(context.Background(), p.Topic, p.URLHash)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkOneHit checks that a search for text finds url exactly once.
func checkOneHit(t *testing.T, a *Activities, topicName, text, url string) {
	t.Helper()
	res, err := a.Index.Search(context.Background(), index.Query{Topic: topicName, Text: text, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range res.Hits {
		if h.URL == url {
			n++
		}
	}
	if n != 1 {
		t.Errorf("search for %q finds %s %d times; want once", text, url, n)
	}
}

// TestRefreshDropsDocumentBothHoldersLeft: two accepted, indexed pages on
// two hosts share one final URL (one index document) and both move to
// URLs of their own in one refresh batch. Refetch serves the hosts side by
// side, and each page, updating the index before its replacement, found
// the other still holding the document and wrote it again from it; then
// both were replaced and FinishRefresh, which sees only their new final
// URLs, left the document in the index with no page holding it (review).
// The store here makes that interleaving certain. FinishRefresh now checks
// the final URLs the batch's pages gave up, and deletes the document — also
// when the batch that moved them failed after Refetch and a later batch
// judges them; a retried FinishRefresh changes nothing.
func TestRefreshDropsDocumentBothHoldersLeft(t *testing.T) {
	for _, tc := range []struct {
		name        string
		failedFirst bool // the batch that moves the pages fails after Refetch
	}{{"one batch", false}, {"after a failed batch", true}} {
		t.Run(tc.name, func(t *testing.T) {
			site, a, r := siteCrawl(t)
			ctx := t.Context()
			if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
				t.Fatal(err)
			}
			x := indexedPage(t, a, r.Topic, "http://a.test/roses/1")
			y := shareFinalURL(t, a, indexedPage(t, a, r.Topic, "http://b.test/p1"), x)
			before, err := a.Index.Count(ctx, r.Topic)
			if err != nil {
				t.Fatal(err)
			}
			site.redirect = map[string]string{}
			for i, p := range []store.Page{x, y} {
				to := p.URL + "/moved"
				site.pages[to] = sitePage{fmt.Sprintf("Moved rose %d", i), roseText(10 + i), nil, true}
				site.redirect[p.URL] = to
			}
			ms := &meetingStore{Store: a.Store, meet: map[string]bool{x.URLHash: true, y.URLHash: true}, all: make(chan struct{})}
			a.Store = ms
			batch, now := "refresh/1", time.Now().Add(365*24*time.Hour)
			if tc.failedFirst {
				refreshBatch(t, a, r, batch, now, false)
				// The pages, replaced and never judged, are claimed again
				// once the failed batch's lease and retry delay are over.
				batch, now = "refresh/2", now.Add(a.CrawlCfg.Lease+a.RefreshCfg.MaxInterval+time.Hour)
			}
			refreshBatch(t, a, r, batch, now, true)
			if ms.timedOut.Load() {
				t.Fatal("the two pages' replacements did not meet: their hosts were not refetched side by side")
			}
			check := func(when string) {
				t.Helper()
				for _, p := range []store.Page{x, y} {
					got := storedPage(t, a, p)
					if got.FinalURL != p.URL+"/moved" || got.Decision != store.DecisionAccepted || !got.Indexed {
						t.Errorf("%s %s: final URL %s, %s, indexed %v; want %s/moved, accepted and indexed",
							when, p.URL, got.FinalURL, got.Decision, got.Indexed, p.URL)
					}
				}
				res, err := a.Index.Search(ctx, index.Query{Topic: r.Topic, Text: "roses", Limit: 50})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range res.Hits {
					if h.ID == x.FinalHash {
						t.Errorf("%s the index still holds the document of %s (%q), which no page holds any more", when, h.URL, h.Title)
					}
				}
				if n, err := a.Index.Count(ctx, r.Topic); err != nil || n != before+1 {
					t.Errorf("%s index holds %d documents (%v); want %d: the shared one gone, the two moved pages' new ones added",
						when, n, err, before+1)
				}
			}
			check("after the refresh:")
			// A retried FinishRefresh (its pages already released) changes nothing.
			ref := crawlapi.BatchRef{CrawlID: batch, Topic: r.Topic, BatchID: batch,
				TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
			if _, err := a.FinishRefresh(ctx, ref); err != nil {
				t.Fatal(err)
			}
			check("after FinishRefresh again:")
		})
	}
}

// shareFinalURL makes accepted, indexed page p end at page to's final URL,
// accepted and indexed there, its parse record kept and the shared document
// written from it last (p's own document gone), as a store written before
// duplicates were judged against accepted pages in any order can hold. It
// returns p as stored then.
func shareFinalURL(t *testing.T, a *Activities, p, to store.Page) store.Page {
	t.Helper()
	ctx := t.Context()
	parsed, err := a.Store.Blob(ctx, p.Topic, p.URLHash, store.BlobParse)
	if err != nil {
		t.Fatal(err)
	}
	moved := p
	moved.FinalURL, moved.FinalHash, moved.BatchID = to.FinalURL, to.FinalHash, "legacy"
	if err := a.Store.ReplacePage(ctx, moved, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.SaveParse(ctx, p.Topic, p.URLHash, parsed, p.Title, p.Lang, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.SetDecision(ctx, p.Topic, p.URLHash, store.Decision{Relevance: p.Relevance, Filter: p.Filter,
		Decision: store.DecisionAccepted, Reason: "legacy"}); err != nil {
		t.Fatal(err)
	}
	got := storedPage(t, a, p)
	rec, err := a.loadParse(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := a.indexDocument(ctx, got, rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Index.Upsert(ctx, []index.Document{doc}); err != nil {
		t.Fatal(err)
	}
	if err := a.Index.Delete(ctx, p.Topic, []string{p.FinalHash}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.MarkIndexed(ctx, p.Topic, []string{p.URLHash}); err != nil {
		t.Fatal(err)
	}
	return storedPage(t, a, p)
}

// meetingStore is a crawl store whose ReplacePage of a page in meet waits
// until every page in meet has come to its ReplacePage (at most 10 s; then
// timedOut is set): pages of a refresh batch on different hosts, each past
// its index update and none replaced yet, as Refetch serving their hosts
// side by side may leave them.
type meetingStore struct {
	store.Store
	meet     map[string]bool // URL hashes
	all      chan struct{}   // closed when the last of meet arrives
	mu       sync.Mutex
	arrived  int
	timedOut atomic.Bool
}

func (s *meetingStore) ReplacePage(ctx context.Context, p store.Page, body []byte) error {
	if s.meet[p.URLHash] {
		s.mu.Lock()
		s.arrived++
		if s.arrived == len(s.meet) {
			close(s.all)
		}
		s.mu.Unlock()
		select {
		case <-s.all:
		case <-time.After(10 * time.Second):
			s.timedOut.Store(true)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.Store.ReplacePage(ctx, p, body)
}
