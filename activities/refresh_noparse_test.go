package activities

import (
	"context"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// noParseStore hides the parse record of one page, as a page accepted
// without one (lacksDocument's "no stored parse to tell") has none.
type noParseStore struct {
	store.Store
	hash string
}

func (s *noParseStore) Blob(ctx context.Context, topic, urlHash, kind string) ([]byte, error) {
	if urlHash == s.hash && kind == store.BlobParse {
		return nil, store.ErrNotFound
	}
	return s.Store.Blob(ctx, topic, urlHash, kind)
}

// TestRestoreWithoutParseJudgesAgain: an accepted page taken out of the
// index as unreachable that has no stored parse record, answering 304 once
// its host is back, is judged again (lacksDocument's answer for a page
// without a parse); the restore of its document from the parse it lacks
// failed the whole Refetch, on every attempt. No path of today's code
// saves an accepted page without one; older data may hold such pages.
func TestRestoreWithoutParseJudgesAgain(t *testing.T) {
	s := lastModifiedSite(t)
	site, a, r := s.site, s.a, s.r
	site.notModified = true
	now := a.now().AddDate(1, 0, 0)
	refreshStages(t, a, r, "refresh/up", now, "finish")
	s.downUntilUnreachable(now.Add(a.RefreshCfg.MaxInterval+a.RefreshCfg.MinInterval), "refresh/down")
	if p := s.page(); p.Indexed {
		t.Fatalf("page still indexed after the limit")
	}
	site.setDown("a.test", false)
	a.Store = &noParseStore{Store: a.Store, hash: s.hash}
	at := s.info().NextAt
	a.Now = func() time.Time { return at }
	ref := crawlapi.BatchRef{CrawlID: "refresh/back", Topic: r.Topic, BatchID: "refresh/back",
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if n, err := a.ClaimRefresh(t.Context(), crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: ref.BatchID, Max: 100}); err != nil || n == 0 {
		t.Fatalf("claim = %d, %v", n, err)
	}
	if f, err := a.Refetch(t.Context(), ref); err != nil {
		t.Errorf("Refetch with the host back = %+v, %v; want the batch to go on (the page refetched and judged)", f, err)
	}
}
