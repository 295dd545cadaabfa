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
	ctx := context.Background()
	_, a, r := siteCrawl(t)
	u := "http://a.test/docs/docs/"
	ref := acceptedPage(t, a, r, "c1/trap", u, `<html><title>Rose garden</title><body><p>`+roseText(3)+` `+u+
		`</p><a href="docs/">rose docs</a> <a href="pruning.html">pruning roses</a></body></html>`)
	res, err := a.PredictLinks(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if res.Links != 2 || res.Enqueued != 1 || res.Dropped != 1 {
		t.Errorf("PredictLinks = %+v; want 2 links, http://a.test/docs/docs/docs/ dropped, pruning.html enqueued", res)
	}
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
