package activities

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// failedFilterBatch runs a refresh batch, a year after the crawl, whose
// changed pages are judged but whose index write fails on every attempt of
// FilterPages (an index outage): their decisions are stored, the index
// keeps their old documents. The index is back when it returns.
func failedFilterBatch(t *testing.T, a *Activities, r crawlapi.StartCrawlResult, changed int) {
	t.Helper()
	ctx := t.Context()
	idx := &failingUpsert{Index: a.Index, fail: true}
	a.Index = idx
	year := 365 * 24 * time.Hour
	a.Now = func() time.Time { return time.Now().Add(year) }
	ref := crawlapi.BatchRef{CrawlID: "refresh/1", Topic: r.Topic, BatchID: "refresh/1",
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: ref.BatchID, Max: 100}); err != nil || n == 0 {
		t.Fatalf("ClaimRefresh = %d, %v", n, err)
	}
	if f, err := a.Refetch(ctx, ref); err != nil || f.Changed != changed {
		t.Fatalf("Refetch = %+v, %v; want %d pages changed", f, err, changed)
	}
	if _, err := a.Parse(ctx, ref); err != nil {
		t.Fatal(err)
	}
	for range 3 { // every attempt fails
		if _, err := a.FilterPages(ctx, ref); err == nil {
			t.Fatal("FilterPages with the index down succeeded")
		}
	}
	idx.fail = false
}

// finds reports whether a search of the topic for q finds u.
func finds(t *testing.T, a *Activities, topic, q, u string) bool {
	t.Helper()
	res, err := a.Index.Search(context.Background(), index.Query{Topic: topic, Text: q, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(res.Hits, func(h index.Hit) bool { return h.URL == u })
}

// TestRefreshDropsStaleDocumentOfRejectedPage: a refresh batch holds two
// changed pages, roses/1 (still on topic) and roses/2 (now off topic), and
// fails at FilterPages' index write after storing roses/2's rejection. The
// next refreshes find roses/2 unchanged and count it dropped; its old
// document, which stayed searchable for good (also once it was given up: a
// review's finding), goes at the first of them.
func TestRefreshDropsStaleDocumentOfRejectedPage(t *testing.T) {
	site, a, r, _ := crawledSite(t)
	ctx := t.Context()
	const u1, u2 = "http://a.test/roses/1", "http://a.test/roses/2"
	pg := site.pages[u1]
	pg.text += " Rose hips ripen in autumn."
	site.pages[u1] = pg
	site.pages[u2] = sitePage{title: "Bicycle repair", text: "Chains, gears and brake pads of a road bicycle."}
	failedFilterBatch(t, a, r, 2)
	if p, _ := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u2)); p.Decision != store.DecisionRejected {
		t.Fatalf("%s after the failed batch: %q; want rejected", u2, p.Decision)
	}
	if !finds(t, a, r.Topic, "rose", u2) {
		t.Fatalf("the failed batch's stale document of %s is not there to begin with", u2)
	}
	refreshStages(t, a, r, "refresh/2", time.Now().Add(2*365*24*time.Hour), "finish")
	if finds(t, a, r.Topic, "rose", u2) {
		t.Errorf("search finds %s (rejected) with its old rose text after the next refresh", u2)
	}
}

// TestRefreshDropsStaleDocumentOfNoindexPage: the same with roses/2 turned
// noindex (X-Robots-Tag): accepted, unflagged, its parse says noindex; its
// old document stayed searchable at every later refresh, and goes at the
// next.
func TestRefreshDropsStaleDocumentOfNoindexPage(t *testing.T) {
	site, a, r, _ := crawledSite(t)
	const u1, u2 = "http://a.test/roses/1", "http://a.test/roses/2"
	pg := site.pages[u1]
	pg.text += " Rose hips ripen in autumn."
	site.pages[u1] = pg
	site.robotsTag = map[string]string{u2: "noindex"}
	failedFilterBatch(t, a, r, 2)
	if !finds(t, a, r.Topic, "rose", u2) {
		t.Fatalf("the failed batch's stale document of %s is not there to begin with", u2)
	}
	refreshStages(t, a, r, "refresh/2", time.Now().Add(2*365*24*time.Hour), "finish")
	if finds(t, a, r.Topic, "rose", u2) {
		p, _ := a.Store.Page(t.Context(), r.Topic, urlnorm.Hash(u2))
		t.Errorf("search finds %s (decision %q, indexed %v, X-Robots-Tag %q) after the next refresh", u2, p.Decision, p.Indexed, p.RobotsTag)
	}
}

// deleteCounter counts an index's deletes and can fail them.
type deleteCounter struct {
	index.Index
	deletes int
	down    bool
}

func (c *deleteCounter) Delete(ctx context.Context, topic string, ids []string) error {
	c.deletes++
	if c.down {
		return errors.New("index unavailable")
	}
	return c.Index.Delete(ctx, topic, ids)
}

// TestRefreshNoindexPageNeedsNoIndex: an accepted page a crawl found
// noindex never had a document, and its revisits do not touch the index;
// with the index down they still succeed (the first version of the stale
// document drop deleted its absent document at every revisit and failed
// Refetch in an index outage: a review's finding).
func TestRefreshNoindexPageNeedsNoIndex(t *testing.T) {
	site, a, r := siteCrawl(t)
	const u2 = "http://a.test/roses/2"
	site.robotsTag = map[string]string{u2: "noindex"}
	if _, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	if p, err := a.Store.Page(t.Context(), r.Topic, urlnorm.Hash(u2)); err != nil || p.Decision != store.DecisionAccepted || p.Indexed {
		t.Fatalf("%s after the crawl: %+v, %v; want accepted, unindexed", u2, p, err)
	}
	c := &deleteCounter{Index: a.Index, down: true}
	a.Index = c
	now := time.Now().Add(365 * 24 * time.Hour)
	a.Now = func() time.Time { return now }
	ref := crawlapi.BatchRef{CrawlID: "refresh/1", Topic: r.Topic, BatchID: "refresh/1",
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if n, err := a.ClaimRefresh(t.Context(), crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: ref.BatchID, Max: 100}); err != nil || n == 0 {
		t.Fatalf("ClaimRefresh = %d, %v", n, err)
	}
	if _, err := a.Refetch(t.Context(), ref); err != nil || c.deletes != 0 {
		t.Errorf("Refetch with the index down: %v, %d index deletes; want none", err, c.deletes)
	}
}
