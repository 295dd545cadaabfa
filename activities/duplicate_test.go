package activities

import (
	"context"
	"testing"

	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
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

// TestNoindexHeaderOriginalIsNoOriginal: a page sent with X-Robots-Tag:
// noindex is no original for its content: a copy of it at another URL
// without the header is accepted and indexed. Before, the copy was judged a
// duplicate of the noindex page and the content was in the index nowhere.
func TestNoindexHeaderOriginalIsNoOriginal(t *testing.T) {
	site, a, r := siteCrawl(t)
	site.cOnce.Do(func() { close(site.cSeen) }) // b.test's root need not wait for c.test
	ctx := t.Context()
	// The copy is linked from the original only, so the original is
	// fetched first.
	const orig, copyURL = "http://b.test/p1", "http://b.test/p1-copy"
	p := site.pages[orig]
	p.links = append(append([]string(nil), p.links...), copyURL)
	site.pages[orig], site.pages[copyURL] = p, p
	site.robotsTag = map[string]string{orig: "noindex"}
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	for u, want := range map[string]bool{orig: false, copyURL: true} {
		pg, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u))
		if err != nil || pg.Decision != store.DecisionAccepted || pg.Indexed != want {
			t.Errorf("%s: %q indexed %v (%s), %v; want accepted, indexed %v", u, pg.Decision, pg.Indexed, pg.Reason, err, want)
		}
	}
	checkOneHit(t, a, r.Topic, `"rose varieties number 5"`, copyURL)
}
