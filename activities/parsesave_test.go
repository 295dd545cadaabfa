package activities

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
	"focuscrawl/internal/textproc"
)

// TestParseAndSave: the streaming path fetches a group's pages without
// saving them (fetchUnsaved), parses them and saves them together with their
// parse records and no bodies (parseAndSave), reading back each page's Seq.
// When one of them was saved meanwhile by someone else (a claim that
// outlived its lease), the group is saved page by page instead, with the
// bodies, that page taken as stored, and parsed from the stored bodies.
func TestParseAndSave(t *testing.T) {
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
			lt, err := a.loadTopic(ctx, in.Topic, r.TopicVersion, r.ModelVersion)
			if err != nil {
				t.Fatal(err)
			}
			g := newGroup(in.Topic, in.CrawlID)
			pages, err := a.parseAndSave(ctx, lt, in.Topic, items, g)
			if err != nil {
				t.Fatal(err)
			}
			if len(pages) != 2 {
				t.Fatalf("%d pages returned; want 2", len(pages))
			}
			// Together, the parse records went with the pages; one by one,
			// the pages were parsed afterwards and the records are pending.
			if pending := len(g.w.Parses); pending != map[bool]int{false: 0, true: 2}[savedMeanwhile] {
				t.Errorf("%d parse records pending", pending)
			}
			for i, it := range items {
				stored, err := a.Store.Page(ctx, in.Topic, it.entry.URLHash)
				if err != nil {
					t.Fatalf("page %s not saved: %v", it.entry.URL, err)
				}
				if it.unsaved || it.page.Seq == 0 || it.page.Seq != stored.Seq || pages[i] != stored {
					t.Errorf("item %d after parseAndSave: unsaved %v, page %+v; stored %+v", i, it.unsaved, it.page, stored)
				}
				_, berr := a.Store.Blob(ctx, in.Topic, it.entry.URLHash, store.BlobBody)
				_, perr := a.Store.Blob(ctx, in.Topic, it.entry.URLHash, store.BlobParse)
				if savedMeanwhile != (berr == nil) || savedMeanwhile != errors.Is(perr, store.ErrNotFound) {
					t.Errorf("item %d: body blob %v, parse blob %v", i, berr, perr)
				}
				theirs := savedMeanwhile && i == 1
				if theirs && it.page.BatchID != other.BatchID {
					t.Errorf("item %d: batch %q; want the stored page's %q", i, it.page.BatchID, other.BatchID)
				}
			}
		})
	}
}

// TestParsePageOnePass: a page's terms (title twice + text) and its index
// text come from one tokenizer pass and equal what the two separate calls
// give: TermFreq over title, title and text, and Segment over the text.
func TestParsePageOnePass(t *testing.T) {
	a := siteActivities(t, newLoopBackSite(t))
	body := []byte(`<html><head><title>GIMP 滤镜 Filters</title></head><body><p>中华人民共和国的高斯模糊滤镜 blurs images; 锐化滤镜 sharpens them.</p></body></html>`)
	rec, _, err := a.parsePage(store.Page{URL: "http://a.test/f", FinalURL: "http://a.test/f"}, body, false)
	if err != nil {
		t.Fatal(err)
	}
	want := a.Tok.TermFreq(rec.Doc.Title + "\n" + rec.Doc.Title + "\n" + rec.Doc.Text)
	if !maps.Equal(rec.TF, want) {
		t.Errorf("terms %v, want %v", rec.TF, want)
	}
	if seg := a.Tok.Segment(rec.Doc.Text); rec.segmented != seg || seg == "" {
		t.Errorf("index text %q, want %q", rec.segmented, seg)
	}
}

// TestParsePageLongTerm: no term the parse counts in the topic's document
// frequencies is longer than the stores take (store.MaxTermBytes): the
// tokenizer's cap (textproc.MaxWordBytes) is within it.
func TestParsePageLongTerm(t *testing.T) {
	if textproc.MaxWordBytes > store.MaxTermBytes {
		t.Fatalf("the tokenizer emits words of up to %d bytes, the stores count terms of up to %d", textproc.MaxWordBytes, store.MaxTermBytes)
	}
	a := siteActivities(t, newLoopBackSite(t))
	hex := strings.Repeat("0123456789abcdef", 200) // 3200 bytes
	body := []byte("<html><head><title>Bytecode</title></head><body><p>contract bytecode <code>" + hex + "</code></p></body></html>")
	_, terms, err := a.parsePage(store.Page{URL: "http://a.test/b", FinalURL: "http://a.test/b"}, body, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range terms {
		if len(term) > store.MaxTermBytes {
			t.Errorf("a %d-byte term among the counted terms", len(term))
		}
	}
	if !slices.Contains(terms, "bytecode") {
		t.Errorf("terms %v; want the page's words", terms)
	}
}
