package activities

import (
	"context"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// TestRepeatedPathTrap: a page served for every path (a soft 404 that
// names the URL, so no two are duplicates) with a relative link into its
// own directory makes /docs/docs/docs/… for ever. A link whose path repeats
// a run of segments three times in a row is not admitted; its sibling is.
func TestRepeatedPathTrap(t *testing.T) {
	u := "http://a.test/docs/docs/"
	trapLinkDropped(t, u, `<html><title>Rose garden</title><body><p>`+roseText(3)+` `+u+
		`</p><a href="docs/">rose docs</a> <a href="pruning.html">pruning roses</a></body></html>`)
}

// trapLinkDropped has the page at u, body, accepted and its links
// predicted, and fails the test unless of its two links the first (the
// trap's next URL) is dropped and the second enqueued.
func trapLinkDropped(t *testing.T, u, body string) {
	t.Helper()
	_, a, r := siteCrawl(t)
	res, err := a.PredictLinks(context.Background(), acceptedPage(t, a, r, "c1/trap", u, body))
	if err != nil {
		t.Fatal(err)
	}
	if res.Links != 2 || res.Enqueued != 1 || res.Dropped != 1 {
		t.Errorf("PredictLinks = %+v; want 2 links, the trap's next URL dropped, pruning.html enqueued", res)
	}
}

// TestRepeatedQueryTrap: a shop page that lists the filters its URL gives
// it (no two pages alike) with facet links appending to its own query
// makes ?color=red&size=m&color=red&… for ever. A link whose query holds
// the same parameter three times is not admitted; its sibling is.
func TestRepeatedQueryTrap(t *testing.T) {
	trapLinkDropped(t, "http://a.test/roses?color=red&size=m&color=red&size=m", `<html><title>Rose garden</title><body><p>`+
		roseText(3)+` filters: red, m, red, m</p><a href="?color=red&amp;size=m&amp;color=red&amp;size=m&amp;color=red">red roses</a>`+
		` <a href="pruning.html">pruning roses</a></body></html>`)
}

// acceptedPage saves body as the page at u in a batch of its own of crawl
// c1, parses and judges it, and fails the test unless it is accepted; the
// batch is ready for PredictLinks.
func acceptedPage(t *testing.T, a *Activities, r crawlapi.StartCrawlResult, batchID, u, body string) crawlapi.BatchRef {
	t.Helper()
	ctx := context.Background()
	if _, _, err := a.Store.SavePage(ctx, store.Page{Topic: r.Topic, URLHash: urlnorm.Hash(u), URL: u, FinalURL: u,
		FinalHash: urlnorm.Hash(u), CrawlID: "c1", BatchID: batchID, Status: 200, ContentType: "text/html",
		FetchedAt: time.Now()}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	ref := crawlapi.BatchRef{CrawlID: "c1", Topic: r.Topic, BatchID: batchID, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if _, err := a.Parse(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if res, err := a.FilterPages(ctx, ref); err != nil || res.Accepted != 1 {
		t.Fatalf("FilterPages = %+v, %v; want the page accepted", res, err)
	}
	return ref
}
