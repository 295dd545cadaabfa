package storetest

import (
	"testing"

	"focuscrawl/internal/store"
)

// testDuplicateOfText: the text signature (Page.TextHash) is the third
// probe — a near-duplicate candidate only when neither the final URL nor
// the content matches — stored by a group's parse write, an empty one
// matching nothing; a revisit that replaces the page clears it, and
// ReleaseCopies releases the pages judged copies by it.
func testDuplicateOfText(t *testing.T, s store.Store) {
	ctx := t.Context()
	mk := func(i int, content string) store.Page {
		p := page("go", "crawl-1", u("a.test", i))
		p.ContentHash = content
		return p
	}
	p1 := savePage(t, s, mk(1, "C1"), nil)
	p2 := savePage(t, s, mk(2, "C2"), nil)
	p3 := savePage(t, s, mk(3, "C3"), nil)
	p4 := savePage(t, s, mk(4, "C4"), nil)
	noSig := savePage(t, s, mk(5, "C5"), nil)
	// The signatures come with the parse writes, as in a crawl.
	parses := []store.ParseWrite{
		{URLHash: p1.URLHash, Parsed: []byte("p1"), Title: "One", Lang: "en", TextHash: "T1", Terms: []string{"go"}},
		{URLHash: p2.URLHash, Parsed: []byte("p2"), Title: "Two", Lang: "en", TextHash: "T1", Terms: []string{"go"}},
		{URLHash: p3.URLHash, Parsed: []byte("p3"), Title: "Three", Lang: "en", TextHash: "T3", Terms: []string{"go"}},
		{URLHash: p4.URLHash, Parsed: []byte("p4"), Title: "Four", Lang: "en", TextHash: "T1", Terms: []string{"go"}},
		{URLHash: noSig.URLHash, Parsed: []byte("p5"), Title: "Five", Lang: "en", Terms: []string{"go"}},
	}
	if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Parses: parses}); err != nil {
		t.Fatalf("WriteGroup(parses): %v", err)
	}
	// A retried parse write (its terms counted already) stores it too.
	retry := parses[2]
	retry.TextHash = "T3b"
	if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Parses: []store.ParseWrite{retry}}); err != nil {
		t.Fatalf("WriteGroup(retried parse): %v", err)
	}
	for _, tc := range []struct {
		p    store.Page
		want string
	}{{p1, "T1"}, {p2, "T1"}, {p3, "T3b"}, {noSig, ""}} {
		got, err := s.Page(ctx, "go", tc.p.URLHash)
		if err != nil || got.TextHash != tc.want {
			t.Errorf("Page(%s).TextHash = %q, %v; want %q", tc.p.URL, got.TextHash, err, tc.want)
		}
	}
	withText := func(p store.Page, text string) store.Page {
		p.TextHash = text
		return p
	}
	// p4 has p1's signature and p3's content: the exact match wins.
	p4.TextHash, p4.ContentHash = "T1", "C3"
	unsaved := withText(mk(9, "C9"), "T1")
	unsaved.Seq = 0
	for _, tc := range []struct {
		name string
		p    store.Page
		skip []string
		want string
	}{
		{"first page with the signature", withText(p1, "T1"), nil, ""},
		{"same signature", withText(p2, "T1"), nil, p1.URLHash},
		{"same content before the same signature", p4, nil, p3.URLHash},
		{"same signature, the first passed over", withText(p2, "T1"), []string{p1.URLHash}, ""},
		{"same signature, an unsaved page", unsaved, []string{p1.URLHash}, p2.URLHash},
		{"no signature", withText(noSig, ""), nil, ""},
		{"another signature", withText(mk(9, "C9"), "T9"), nil, ""},
	} {
		if got, err := s.DuplicateOf(ctx, tc.p, tc.skip...); err != nil || got != tc.want {
			t.Errorf("DuplicateOf(%s) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	// Another topic's page with the signature is no original, nor is one
	// of this topic for it.
	other := page("rust", "crawl-1", u("a.test", 1))
	other.TextHash = "T1"
	other = savePage(t, s, other, nil)
	if got, err := s.DuplicateOf(ctx, other); err != nil || got != "" {
		t.Errorf("DuplicateOf(another topic's page) = %q, %v; want none", got, err)
	}

	// p2 judged p1's near copy; p1 changes: the copy is released, and
	// the replaced page has no signature until it is parsed again.
	if err := s.SetDecision(ctx, "go", p2.URLHash, store.Decision{Decision: store.DecisionDuplicate}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ReleaseCopies(ctx, "go", p1.URLHash, "", "", "T1", t0); err != nil || n != 1 {
		t.Errorf("ReleaseCopies(by signature) = %d, %v; want 1", n, err)
	}
	if got, _ := s.Page(ctx, "go", p2.URLHash); got.Decision != store.DecisionPending {
		t.Errorf("near copy after ReleaseCopies: decision %q, want pending", got.Decision)
	}
	repl := p1
	repl.ContentHash, repl.BatchID = "C1b", "r1"
	if err := s.ReplacePage(ctx, repl, []byte("changed")); err != nil {
		t.Fatalf("ReplacePage: %v", err)
	}
	if got, err := s.Page(ctx, "go", p1.URLHash); err != nil || got.TextHash != "" {
		t.Errorf("replaced page: TextHash %q, %v; want none", got.TextHash, err)
	}
	if got, err := s.DuplicateOf(ctx, withText(p2, "T1")); err != nil || got != "" {
		t.Errorf("DuplicateOf(the replaced page's former signature) = %q, %v; want none (p4 is later)", got, err)
	}
}
