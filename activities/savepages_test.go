package activities

import (
	"context"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// TestSavePages: the streaming path fetches a group's pages without saving
// them (fetchUnsaved) and saves them together (savePages), reading back
// each page's Seq. When one of them was saved meanwhile by someone else (a
// claim that outlived its lease), the group is saved page by page instead
// and that page is taken as stored, without the body of this fetch.
func TestSavePages(t *testing.T) {
	for _, savedMeanwhile := range []bool{false, true} {
		name := map[bool]string{false: "together", true: "one saved meanwhile"}[savedMeanwhile]
		t.Run(name, func(t *testing.T) {
			site := newLoopBackSite(t)
			a := siteActivities(t, site)
			ctx := context.Background()
			// Not b.test/, which answers only after c.test has seen a request.
			yaml := strings.Replace(siteTopicYAML, "seeds: [http://a.test/]", "seeds: [http://a.test/, http://c.test/]", 1)
			r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yaml})
			if err != nil {
				t.Fatal(err)
			}
			in := sliceInput(r, "s000001", 100)
			ref := in.Ref()
			ref.BatchID = in.SliceID + "/a1/c000001"
			if _, err := a.Store.ClaimBatch(ctx, store.ClaimRequest{Topic: in.Topic, CrawlID: in.CrawlID, BatchID: ref.BatchID,
				Max: 2, MaxPerHost: 1, Lease: time.Hour, Now: time.Now()}); err != nil {
				t.Fatal(err)
			}
			entries, err := a.Store.BatchEntries(ctx, in.Topic, ref.BatchID)
			if err != nil || len(entries) != 2 {
				t.Fatalf("claimed %d entries (%v); want the 2 seeds", len(entries), err)
			}
			items := make([]streamed, len(entries))
			for i, e := range entries {
				out, p, body, err := a.fetchUnsaved(ctx, ref, e)
				if err != nil || out != outcomeOK || len(body) == 0 {
					t.Fatalf("fetch %s: outcome %v, %d bytes, %v", e.URL, out, len(body), err)
				}
				if _, err := a.Store.Page(ctx, e.Topic, e.URLHash); err == nil {
					t.Fatalf("fetchUnsaved saved %s", e.URL)
				}
				items[i] = streamed{entry: e, page: p, body: body, unsaved: true}
			}
			var other store.Page
			if savedMeanwhile {
				p := items[1].page
				p.BatchID = "another/worker"
				if other, _, err = a.Store.SavePage(ctx, p, []byte("<html>another fetch</html>")); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.savePages(ctx, in.Topic, items); err != nil {
				t.Fatal(err)
			}
			for i, it := range items {
				stored, err := a.Store.Page(ctx, in.Topic, it.entry.URLHash)
				if err != nil {
					t.Fatalf("page %s not saved: %v", it.entry.URL, err)
				}
				if it.unsaved || it.page.Seq == 0 || it.page.Seq != stored.Seq || it.page.BatchID != stored.BatchID {
					t.Errorf("item %d after savePages: unsaved %v, seq %d, batch %q; stored seq %d, batch %q",
						i, it.unsaved, it.page.Seq, it.page.BatchID, stored.Seq, stored.BatchID)
				}
				theirs := savedMeanwhile && i == 1
				if theirs != (it.body == nil) {
					t.Errorf("item %d: body of %d bytes; want it only for a page this fetch saved", i, len(it.body))
				}
				if theirs && it.page.BatchID != other.BatchID {
					t.Errorf("item %d: batch %q; want the stored page's %q", i, it.page.BatchID, other.BatchID)
				}
			}
		})
	}
}
