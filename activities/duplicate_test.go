package activities

import (
	"context"
	"testing"

	"focuscrawl/internal/store"
)

// TestDuplicateReasonNamesTheOriginal: a duplicate's reason in the crawl
// log named the original by its URL hash ("duplicate of 8c214d7e…", a
// trial's git.html, the same page as the site's root), which a user cannot
// look up; it names the original's URL.
func TestDuplicateReasonNamesTheOriginal(t *testing.T) {
	site, a, r := siteCrawl(t)
	const orig, copyURL = "http://b.test/p1", "http://b.test/p1-copy"
	site.pages[copyURL] = site.pages[orig]
	b := site.pages["http://b.test/"]
	b.links = append(append([]string(nil), b.links...), copyURL)
	site.pages["http://b.test/"] = b
	if _, err := a.CrawlSlice(context.Background(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	var dups []store.Page
	if err := a.Store.CrawlLog(context.Background(), "c1", func(p store.Page) error {
		if p.Decision == store.DecisionDuplicate {
			dups = append(dups, p)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(dups) != 1 {
		t.Fatalf("%d duplicates; want one of %s and %s", len(dups), orig, copyURL)
	}
	other := orig
	if dups[0].URL == orig {
		other = copyURL
	}
	if want := "duplicate of " + other; dups[0].Reason != want {
		t.Errorf("reason %q; want %q", dups[0].Reason, want)
	}
}
