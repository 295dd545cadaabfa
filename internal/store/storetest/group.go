package storetest

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"focuscrawl/internal/store"
)

// The contract of WriteGroup: a processing group's writes land together,
// with each part's single-purpose semantics (Seq order of new pages, terms
// counted once per page, idempotent retries), and a failing part leaves
// nothing behind.

func testWriteGroup(t *testing.T, s store.Store) {
	ctx := t.Context()
	enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 1), 1), entry("go", u("b.test", 1), 1),
		entry("go", u("c.test", 1), 1))
	claimed := claim(t, s, store.ClaimRequest{Topic: "go", CrawlID: "crawl-1", BatchID: "s/a1/c1", Max: 3})
	if len(claimed) != 3 {
		t.Fatalf("claimed %d entries, want 3", len(claimed))
	}
	// c.test/1 was saved before (by the fetch path of another caller): the
	// group parses it but does not save it again.
	old := page("go", "crawl-1", u("c.test", 1))
	old.BatchID = "s/a1/c1"
	savePage(t, s, old, []byte("<p>old</p>"))

	p1, p2 := page("go", "crawl-1", u("a.test", 1)), page("go", "crawl-1", u("b.test", 1))
	p1.BatchID, p2.BatchID = "s/a1/c1", "s/a1/c1"
	p2.Status, p2.ErrorClass = 0, "timeout"
	parsed := []store.ParseWrite{
		{URLHash: p1.URLHash, Parsed: []byte("parse-1"), Title: "One", Lang: "en", Terms: []string{"go", "gopher", "go"}, DropBody: true},
		{URLHash: old.URLHash, Parsed: []byte("parse-3"), Title: "Three", Lang: "de", Terms: []string{"go", "rust"}, DropBody: true},
	}
	g := store.GroupWrite{
		Topic:  "go",
		Pages:  []store.PageBody{{Page: p1, Body: []byte("<p>one</p>")}, {Page: p2}},
		Parses: parsed,
		Decisions: []store.PageDecision{
			{URLHash: p1.URLHash, Decision: store.Decision{Relevance: 0.9, Filter: "vsm", Decision: store.DecisionAccepted, Reason: "on topic"}},
			{URLHash: p2.URLHash, Decision: store.Decision{Decision: store.DecisionError, Reason: "timeout"}},
			{URLHash: old.URLHash, Decision: store.Decision{Relevance: 0.1, Filter: "vsm", Decision: store.DecisionRejected}},
		},
		Links:   []store.Link{{Src: p1.URLHash, Dst: hash(u("a.test", 2)), DstURL: u("a.test", 2), Anchor: "two", Score: 0.5}},
		Entries: []store.FrontierEntry{entry("go", u("a.test", 2), 0.5), entry("go", u("c.test", 1), 2)},
	}
	res, err := s.WriteGroup(ctx, g)
	if err != nil {
		t.Fatalf("WriteGroup: %v", err)
	}
	if res.Enqueued != 1 {
		t.Errorf("WriteGroup enqueued %d entries, want 1 (c.test/1 is known)", res.Enqueued)
	}
	// New pages get the next Seq of their crawl, in the group's order.
	for i, want := range []struct {
		p   store.Page
		seq int64
	}{{p1, 2}, {p2, 3}} {
		got, err := s.Page(ctx, "go", want.p.URLHash)
		if err != nil {
			t.Fatalf("page %d after WriteGroup: %v", i, err)
		}
		if got.Seq != want.seq || got.BatchID != "s/a1/c1" {
			t.Errorf("page %s: seq %d, batch %q; want seq %d in batch s/a1/c1", got.URL, got.Seq, got.BatchID, want.seq)
		}
		if res.Seqs[want.p.URLHash] != want.seq {
			t.Errorf("page %s: WriteGroup reported seq %d, want %d", got.URL, res.Seqs[want.p.URLHash], want.seq)
		}
	}
	got1, _ := s.Page(ctx, "go", p1.URLHash)
	if got1.Decision != store.DecisionAccepted || got1.Title != "One" || got1.Lang != "en" || got1.Relevance != 0.9 {
		t.Errorf("page 1 after WriteGroup = %+v; want accepted at 0.9, title One, lang en", got1)
	}
	if b, err := s.Blob(ctx, "go", p1.URLHash, store.BlobParse); err != nil || string(b) != "parse-1" {
		t.Errorf("parse blob of page 1 = %q, %v; want parse-1", b, err)
	}
	for _, h := range []string{p1.URLHash, old.URLHash} { // DropBody
		_, err := s.Blob(ctx, "go", h, store.BlobBody)
		wantNotFound(t, "body blob after WriteGroup with DropBody", err)
	}
	docs, df, err := termStats(ctx, s, "go", []string{"go", "gopher", "rust"})
	if want := map[string]int{"go": 2, "gopher": 1, "rust": 1}; err != nil || docs != 2 || !reflect.DeepEqual(df, want) {
		t.Errorf("TermStats after WriteGroup = %d, %v, %v; want 2, %v", docs, df, err, want)
	}
	// The write reports the statistics it left for the terms it counted.
	if res.TermDocs != docs || !reflect.DeepEqual(res.TermDF, df) {
		t.Errorf("WriteGroup reported term statistics %d, %v; TermStats has %d, %v", res.TermDocs, res.TermDF, docs, df)
	}
	if a, err := s.InAnchors(ctx, "go", hash(u("a.test", 2)), 0); err != nil || !slices.Equal(a, []string{"two"}) {
		t.Errorf("InAnchors after WriteGroup = %v, %v; want [two]", a, err)
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Queued: 1, Claimed: 3}) {
		t.Errorf("FrontierStats after WriteGroup = %+v, want 1 queued, 3 claimed", st)
	}
	st, err := s.BatchStats(ctx, "go", "s/")
	if want := (store.BatchStats{Claimed: 3, Fetched: 3, OK: 2, Failed: 1, Parsed: 2, Accepted: 1, Rejected: 1, Errors: 1}); err != nil || st != want {
		t.Errorf("BatchStats after WriteGroup = %+v, %v; want %+v", st, err, want)
	}

	// The second write of the same group, after the index: flags and
	// completion. Its parts are idempotent: running it twice changes nothing.
	for range 2 {
		if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Indexed: []string{p1.URLHash},
			Complete: []string{p1.URLHash, p2.URLHash, old.URLHash}}); err != nil {
			t.Fatalf("WriteGroup (index flags, completion): %v", err)
		}
	}
	if got, _ := s.Page(ctx, "go", p1.URLHash); !got.Indexed {
		t.Error("page 1 not flagged indexed")
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Queued: 1, Done: 3}) {
		t.Errorf("FrontierStats after completion = %+v, want 1 queued, 3 done", st)
	}

	// Parses of a retry count no term twice, and report none counted.
	if res, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Parses: parsed[:1]}); err != nil || res.TermDF != nil {
		t.Fatalf("WriteGroup (retried parse) = %+v, %v; want no terms counted", res, err)
	}
	if docs, df, _ := termStats(ctx, s, "go", []string{"go"}); docs != 2 || df["go"] != 2 {
		t.Errorf("TermStats after a retried parse = %d, %v; want 2 docs, go: 2", docs, df)
	}
}

func testWriteGroupAtomic(t *testing.T, s store.Store) {
	ctx := t.Context()
	saved := page("go", "crawl-1", u("a.test", 1))
	savePage(t, s, saved, nil)
	fresh := page("go", "crawl-1", u("b.test", 1))
	// A page of the group that exists already fails the whole write.
	_, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go",
		Pages:   []store.PageBody{{Page: fresh, Body: []byte("x")}, {Page: saved}},
		Entries: []store.FrontierEntry{entry("go", u("c.test", 1), 1)}})
	if err == nil {
		t.Fatal("WriteGroup saving an existing page succeeded")
	}
	// So does a parse of a page that does not exist.
	_, err = s.WriteGroup(ctx, store.GroupWrite{Topic: "go",
		Pages:  []store.PageBody{{Page: fresh, Body: []byte("x")}},
		Parses: []store.ParseWrite{{URLHash: hash(u("z.test", 1)), Parsed: []byte("p"), Terms: []string{"go"}}},
		Links:  []store.Link{{Src: fresh.URLHash, Dst: hash(u("c.test", 1)), DstURL: u("c.test", 1)}}})
	wantNotFound(t, "WriteGroup parsing a missing page", err)
	// Nothing of either write is left.
	_, err = s.Page(ctx, "go", fresh.URLHash)
	wantNotFound(t, "page of a failed WriteGroup", err)
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{}) {
		t.Errorf("FrontierStats after failed WriteGroups = %+v, want empty", st)
	}
	if docs, _, _ := termStats(ctx, s, "go", []string{"go"}); docs != 0 {
		t.Errorf("documents counted by failed WriteGroups: %d", docs)
	}
	if a, _ := s.InAnchors(ctx, "go", hash(u("c.test", 1)), 0); len(a) != 0 {
		t.Errorf("links of a failed WriteGroup: %v", a)
	}
	var edges int
	if err := s.Edges(ctx, "go", func(store.Link) error { edges++; return nil }); err != nil || edges != 0 {
		t.Errorf("Edges after failed WriteGroups: %d, %v; want none", edges, err)
	}
	// An empty group is a no-op; a group needs its topic.
	if r, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go"}); err != nil || r.Enqueued != 0 || len(r.Seqs) != 0 {
		t.Errorf("empty WriteGroup = %+v, %v", r, err)
	}
	if _, err := s.WriteGroup(context.Background(), store.GroupWrite{}); err == nil {
		t.Error("WriteGroup without a topic succeeded")
	}
}

// testWriteGroupKnownLink: a group whose entries link to a known queued
// entry with a lower priority leaves that entry as it was and inserts
// nothing: the best entry is still claimed first. (On PostgreSQL the
// group's upsert locked the unchanged row until it committed, and claims
// meanwhile passed over it.)
func testWriteGroupKnownLink(t *testing.T, s store.Store) {
	ctx := t.Context()
	best, worse := entry("go", u("a.test", 1), 9), entry("go", u("b.test", 1), 1)
	enqueue(t, s, store.EnqueueOptions{}, best, worse)
	link := best
	link.Priority, link.Strategy = 0.5, "link"
	res, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Entries: []store.FrontierEntry{link}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Enqueued != 0 {
		t.Errorf("WriteGroup linking a known URL enqueued %d; want 0", res.Enqueued)
	}
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 1})
	if len(got) != 1 || got[0].URL != best.URL || got[0].Priority != 9 || got[0].Strategy != best.Strategy {
		t.Errorf("claim after the group = %+v; want %s unchanged (priority 9)", got, best.URL)
	}
}

// testTermSample: with GroupWrite.TermSample a topic's term statistics
// count its pages only while fewer than that many were counted when a
// write begins; later pages are parsed (their records stored, counted as
// parsed in BatchStats) but add nothing, the write says the sample is
// full, and AllTermStats returns the whole frozen statistics. Another
// topic counts on. A reset starts a new sample in a new generation
// (GroupResult.TermSampleGen, TermTotals.Gen), which tells it from the one
// before even when both hold as many documents.
func testTermSample(t *testing.T, s store.Store) {
	ctx := t.Context()
	write := func(topic string, n, from int, terms ...string) store.GroupResult {
		t.Helper()
		var g store.GroupWrite
		g.Topic, g.TermSample = topic, 3
		for i := range n {
			p := page(topic, "crawl-1", u("a.test", from+i))
			p.BatchID = "s/a1/c1"
			g.Pages = append(g.Pages, store.PageBody{Page: p, Body: []byte("<p>x</p>")})
			g.Parses = append(g.Parses, store.ParseWrite{URLHash: p.URLHash, Parsed: []byte("parse"), Title: "t", Lang: "en", Terms: terms})
		}
		res, err := s.WriteGroup(ctx, g)
		if err != nil {
			t.Fatalf("WriteGroup of %d pages from %d: %v", n, from, err)
		}
		return res
	}
	if res := write("go", 2, 1, "go", "gopher"); res.TermSampleFull || res.TermDocs != 2 || res.TermDF["go"] != 2 {
		t.Fatalf("first write = %+v; want 2 documents counted, sample not full", res)
	}
	// 2 < 3 when it begins: the whole group counts, past the sample.
	if res := write("go", 2, 3, "go", "rust"); res.TermSampleFull || res.TermDocs != 4 || res.TermDF["rust"] != 2 {
		t.Fatalf("second write = %+v; want it counted (4 documents)", res)
	}
	res := write("go", 2, 5, "go", "zig")
	if !res.TermSampleFull || res.TermDF != nil || res.TermDocs != 4 {
		t.Fatalf("third write = %+v; want the sample full at 4 documents and nothing counted", res)
	}
	tt, err := s.AllTermStats(ctx, "go")
	if want := map[string]int{"go": 4, "gopher": 2, "rust": 2}; err != nil || tt.Docs != 4 || !reflect.DeepEqual(tt.DF, want) {
		t.Errorf("AllTermStats = %+v, %v; want 4 documents, %v", tt, err, want)
	}
	if tt.Gen != res.TermSampleGen {
		t.Errorf("AllTermStats generation %d, the full write's %d; want the same", tt.Gen, res.TermSampleGen)
	}
	gen := res.TermSampleGen
	if docs, df, _ := termStats(ctx, s, "go", []string{"zig"}); docs != 4 || df["zig"] != 0 {
		t.Errorf("TermStats(zig) = %d, %v; want 4 documents, zig never counted", docs, df)
	}
	if st, err := s.BatchStats(ctx, "go", "s/"); err != nil || st.Parsed != 6 {
		t.Errorf("BatchStats = %+v, %v; want all 6 pages parsed", st, err)
	}
	// A retried write of an uncounted page still counts nothing.
	p := page("go", "crawl-1", u("a.test", 5))
	if res, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Parses: []store.ParseWrite{{URLHash: p.URLHash, Parsed: []byte("parse"),
		Terms: []string{"zig"}}}}); err != nil || res.TermDF != nil {
		t.Errorf("retried parse without a sample = %+v, %v; want nothing counted", res, err)
	}
	if _, df, _ := termStats(ctx, s, "go", []string{"zig"}); df["zig"] != 0 {
		t.Errorf("zig counted %d times after a retried parse; want 0", df["zig"])
	}
	if res := write("rust", 1, 1, "rust"); res.TermSampleFull || res.TermDocs != 1 {
		t.Errorf("another topic's write = %+v; want it counted", res)
	}
	if tt, err := s.AllTermStats(ctx, "nothing"); err != nil || tt.Docs != 0 || len(tt.DF) != 0 {
		t.Errorf("AllTermStats of an unknown topic = %+v, %v; want 0, empty", tt, err)
	}
	// A reset topic samples again, in a new generation: a sample refilled
	// to the very document count of the one before is told from it.
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	if res := write("go", 1, 1, "go"); res.TermSampleFull || res.TermDocs != 1 {
		t.Errorf("write after a reset = %+v; want it counted", res)
	}
	if res := write("go", 3, 2, "go", "wasm"); res.TermSampleFull || res.TermDocs != 4 {
		t.Errorf("second write after a reset = %+v; want it counted (4 documents)", res)
	}
	res = write("go", 1, 5, "go")
	if !res.TermSampleFull || res.TermDocs != 4 || res.TermSampleGen == gen {
		t.Errorf("write after the refill = %+v; want the sample full at 4 documents, generation other than %d", res, gen)
	}
	tt, err = s.AllTermStats(ctx, "go")
	if want := map[string]int{"go": 4, "wasm": 3}; err != nil || tt.Docs != 4 || tt.Gen != res.TermSampleGen || !reflect.DeepEqual(tt.DF, want) {
		t.Errorf("AllTermStats after the refill = %+v, %v; want 4 documents, %v, generation %d", tt, err, want, res.TermSampleGen)
	}
	// The other topic's sample is no reset's business.
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	if tt, err := s.AllTermStats(ctx, "rust"); err != nil || tt.Docs != 1 || tt.Gen != 0 {
		t.Errorf("AllTermStats(rust) after resetting go = %+v, %v; want 1 document, generation 0", tt, err)
	}
}

// testTermSampleSize: workers configured with different sample sizes
// (GroupWrite.TermSample) share a topic. The size is the sample's: fixed
// by the write that starts it, and every later write — whatever its own
// TermSample — finds the sample full when that size is reached, and not
// before. Otherwise one worker froze its statistics (and kept them) while
// another counted on. A reset frees the size for the next sample's first
// write; a TermSample of 0 fixes no bound.
func testTermSampleSize(t *testing.T, s store.Store) {
	ctx := t.Context()
	next := 0
	write := func(sample, n int) store.GroupResult {
		t.Helper()
		g := store.GroupWrite{Topic: "go", TermSample: sample}
		for range n {
			next++
			p := page("go", "crawl-1", u("a.test", next))
			p.BatchID = "s/a1/c1"
			g.Pages = append(g.Pages, store.PageBody{Page: p, Body: []byte("<p>x</p>")})
			g.Parses = append(g.Parses, store.ParseWrite{URLHash: p.URLHash, Parsed: []byte("parse"), Terms: []string{"go"}})
		}
		res, err := s.WriteGroup(ctx, g)
		if err != nil {
			t.Fatalf("WriteGroup: %v", err)
		}
		return res
	}
	check := func(what string, res store.GroupResult, full bool, docs, size int) {
		t.Helper()
		if res.TermSampleFull != full || res.TermDocs != docs {
			t.Errorf("%s: write = %+v; want sample full %v at %d documents", what, res, full, docs)
		}
		tt, err := s.TermStats(ctx, "go", nil)
		if err != nil || tt.Docs != docs || tt.Sample != size {
			t.Errorf("%s: TermStats = %+v, %v; want %d documents, sample size %d", what, tt, err, docs, size)
		}
		// Any worker reading the statistics sees the sample full as the
		// next write will find it, whatever its own size.
		for _, own := range []int{0, 2, 5} {
			if got, want := tt.Full(own), size > 0 && docs >= size; got != want {
				t.Errorf("%s: TermStats %+v full for a worker with a sample of %d: %v, want %v", what, tt, own, got, want)
			}
		}
	}
	check("a worker with a sample of 2 starts it", write(2, 2), false, 2, 2)
	check("a worker with a sample of 5", write(5, 1), true, 2, 2)
	check("a worker with no sample", write(0, 1), true, 2, 2)
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	if tt, err := s.TermStats(ctx, "go", nil); err != nil || tt.Sample != 0 {
		t.Errorf("TermStats after a reset = %+v, %v; want no size fixed", tt, err)
	}
	check("after a reset, a worker with a sample of 5 starts it", write(5, 2), false, 2, 5)
	check("a worker with a sample of 2", write(2, 2), false, 4, 5)
	check("a worker with a sample of 2 again", write(2, 1), false, 5, 5)
	check("a worker with a sample of 2, at 5", write(2, 1), true, 5, 5)
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	check("after a reset, a worker with no sample starts it", write(0, 2), false, 2, -1)
	check("a worker with a sample of 2", write(2, 1), false, 3, -1)
}
