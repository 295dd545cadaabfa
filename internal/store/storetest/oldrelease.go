package storetest

import (
	"reflect"
	"testing"

	"focuscrawl/internal/store"
)

// testOldReleaseReset: in a rolling upgrade, workers of the release before
// the term sample's generation (SQLite migration 20, PostgreSQL 18) share
// the store with this release's. Such a worker resets a topic by deleting
// its topic_docs row, and its next counting write creates the row again
// without naming the generation. The refilled sample must still be told
// from the one before it when both hold as many documents: a worker of
// this release that kept the old sample's statistics knows them by
// document count and generation only (GroupResult.TermSampleGen). The old
// release's statements are run as it ran them, in SQL. The sample it
// refilled has no size (GroupWrite.TermSample) until a write of this
// release fixes one.
func testOldReleaseReset(t *testing.T, b UpgradeBackend) {
	db := b.Create(t, b.Current)
	s := db.Open(t)
	ctx := t.Context()
	exec := func(q string, args ...any) {
		t.Helper()
		if err := db.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The old release's reset, as far as the term statistics go, and its
	// counting write of two pages refilling the sample.
	oldReset := func() {
		exec(`DELETE FROM term_df WHERE topic = ?`, "go")
		exec(`DELETE FROM topic_docs WHERE topic = ?`, "go")
	}
	oldRefill := func(terms ...string) {
		for _, term := range terms {
			exec(`INSERT INTO term_df (topic, term, df) VALUES (?, ?, ?)
				ON CONFLICT (topic, term) DO UPDATE SET df = term_df.df + excluded.df`, "go", term, 2)
		}
		exec(`INSERT INTO topic_docs (topic, docs) VALUES (?, ?)
			ON CONFLICT (topic) DO UPDATE SET docs = topic_docs.docs + excluded.docs`, "go", 2)
	}
	next := 0 // pages get new URLs: the old reset above leaves the pages be
	write := func(n int, terms ...string) store.GroupResult {
		t.Helper()
		g := store.GroupWrite{Topic: "go", TermSample: 2}
		for range n {
			next++
			p := page("go", "crawl-1", u("a.test", next))
			p.BatchID = "s/a1/c1"
			g.Pages = append(g.Pages, store.PageBody{Page: p, Body: []byte("<p>x</p>")})
			g.Parses = append(g.Parses, store.ParseWrite{URLHash: p.URLHash, Parsed: []byte("parse"), Title: "t", Lang: "en", Terms: terms})
		}
		res, err := s.WriteGroup(ctx, g)
		if err != nil {
			t.Fatalf("WriteGroup: %v", err)
		}
		return res
	}
	// fullAt checks that a write finds a two-document sample full in a
	// generation none of the samples before had, holding df.
	seen := map[int64]string{}
	fullAt := func(what string, df map[string]int) {
		t.Helper()
		res := write(1, "zig")
		if !res.TermSampleFull || res.TermDocs != 2 {
			t.Fatalf("%s: write = %+v; want the sample full at 2 documents", what, res)
		}
		if before, ok := seen[res.TermSampleGen]; ok {
			t.Errorf("%s: the sample's generation is %d, as it was %s: a worker keeping that sample's statistics takes this one for it",
				what, res.TermSampleGen, before)
		}
		seen[res.TermSampleGen] = what
		// A sample the old release filled has no size; this release's
		// first write to it fixes its own.
		tt, err := s.AllTermStats(ctx, "go")
		if err != nil || tt.Docs != 2 || tt.Gen != res.TermSampleGen || tt.Sample != 2 || !reflect.DeepEqual(tt.DF, df) {
			t.Errorf("%s: AllTermStats = %+v, %v; want 2 documents, %v, generation %d, sample size 2", what, tt, err, df, res.TermSampleGen)
		}
	}
	write(2, "go")
	fullAt("the first sample", map[string]int{"go": 2})
	oldReset()
	oldRefill("rust")
	fullAt("refilled by the old release after its reset", map[string]int{"rust": 2})
	oldReset()
	write(2, "wasm")
	fullAt("refilled by this release after the old release's reset", map[string]int{"wasm": 2})
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	write(2, "go")
	fullAt("refilled after this release's reset", map[string]int{"go": 2})
	oldReset()
	oldRefill("go")
	fullAt("refilled by the old release after its second reset", map[string]int{"go": 2})
}
