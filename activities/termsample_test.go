package activities

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
	"focuscrawl/internal/vsm"
)

// termReads is a store that counts the reads of term statistics: of
// terms (stats), of the sample's state alone (TermStats of no term:
// samples) and whole (all).
type termReads struct {
	store.Store
	stats, samples, all atomic.Int32
}

func (s *termReads) TermStats(ctx context.Context, topic string, terms []string) (store.TermTotals, error) {
	if len(terms) == 0 {
		s.samples.Add(1)
	} else {
		s.stats.Add(1)
	}
	return s.Store.TermStats(ctx, topic, terms)
}

func (s *termReads) AllTermStats(ctx context.Context, topic string) (store.TermTotals, error) {
	s.all.Add(1)
	return s.Store.AllTermStats(ctx, topic)
}

// TestTermSampleFreezesIDF: with crawl.term_sample the topic's term
// statistics count its first pages only; once a write finds the sample
// full, the worker reads the frozen statistics once and builds every later
// IDF of that crawl from memory — no term read per group (a group no write
// of its own told the sample's state reads that row once), and the group's
// own unwritten pages (which will not be counted) add nothing.
func TestTermSampleFreezesIDF(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	a.CrawlCfg.TermSample = 2
	reads := &termReads{Store: a.Store}
	a.Store = reads
	ctx := t.Context()
	parse := func(g *group, i int, terms ...string) {
		u := fmt.Sprintf("http://a.test/p%d", i)
		p := store.Page{Topic: "roses", CrawlID: "c1", URL: u, URLHash: urlnorm.Hash(u), FinalURL: u, FinalHash: urlnorm.Hash(u),
			Status: 200, ContentType: "text/html", BatchID: "c1/s1/a1/b1"}
		g.w.Pages = append(g.w.Pages, store.PageBody{Page: p, Body: []byte("<p>x</p>")})
		g.w.Parses = append(g.w.Parses, store.ParseWrite{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: terms})
	}
	for i, terms := range [][]string{{"rose", "garden"}, {"rose", "prune"}, {"rose", "soil"}} {
		g := newGroup("roses", "c1")
		parse(g, i, terms...)
		if err := a.flush(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	// Frozen at the first two pages; the third was written uncounted.
	g := newGroup("roses", "c1")
	parse(g, 9, "rose", "soil")
	terms := map[string]struct{}{"rose": {}, "prune": {}, "soil": {}}
	stats, samples := reads.stats.Load(), reads.samples.Load()
	for range 3 {
		idf, err := a.idf(ctx, "roses", terms, g)
		if err != nil {
			t.Fatal(err)
		}
		checkIDF(t, idf, terms, "the first two pages' statistics")
	}
	if n := reads.stats.Load() - stats; n != 0 {
		t.Errorf("%d TermStats reads after the sample was full; want none", n)
	}
	if n := reads.samples.Load() - samples; n != 1 {
		t.Errorf("%d reads of the sample's state for one group; want one", n)
	}
	if n := reads.all.Load(); n != 1 {
		t.Errorf("AllTermStats read %d times; want once", n)
	}
	// Another crawl of the topic (after a fresh start, say) keeps nothing.
	other := newGroup("roses", "c2")
	if _, ok, err := a.sampledIDF(ctx, other); ok || err != nil {
		t.Errorf("crawl c2 uses crawl c1's sample (%v, %v)", ok, err)
	}
}

// TestCrawlSliceTermSample: a crawl of the loopback site with a sample of
// two pages judges every page as the full statistics do, and the topic's
// statistics stop at the pages the sample took.
func TestCrawlSliceTermSample(t *testing.T) {
	site, a, r := siteCrawl(t)
	a.CrawlCfg.TermSample = 2
	in := sliceInput(r, "s000001", 100)
	in.Group = 1
	if _, err := a.CrawlSlice(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	checkDecisions(t, site, a.Store)
	tt, err := a.Store.AllTermStats(t.Context(), r.Topic)
	if docs := tt.Docs; err != nil || docs < 2 || docs >= len(site.pages) {
		t.Errorf("term statistics count %d documents (%v); want the sample (2, or one group more), not all %d pages", docs, err, len(site.pages))
	}
}

// TestTermSampleAfterReset: a topic reset under the same crawl ID (a
// Temporal reset of a --fresh crawl's workflow) samples again; the frozen
// statistics kept before are not used for it — dropped by the reset on
// this worker, or by the next write that counts terms when another worker
// reset the topic.
func TestTermSampleAfterReset(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	a.CrawlCfg.TermSample = 1
	ctx := t.Context()
	write := func(i int, terms ...string) {
		t.Helper()
		u := fmt.Sprintf("http://a.test/p%d", i)
		p := store.Page{Topic: "roses", CrawlID: "c1", URL: u, URLHash: urlnorm.Hash(u), FinalURL: u, FinalHash: urlnorm.Hash(u),
			Status: 200, ContentType: "text/html", BatchID: "c1/s1/a1/b1"}
		g := newGroup("roses", "c1")
		g.w.Pages = []store.PageBody{{Page: p, Body: []byte("<p>x</p>")}}
		g.w.Parses = []store.ParseWrite{{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: terms}}
		if err := a.flush(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	frozen := func() bool {
		_, ok, err := a.sampledIDF(ctx, newGroup("roses", "c1"))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for _, viaActivity := range []bool{true, false} {
		write(1, "rose")
		write(2, "rose") // finds the sample full
		if !frozen() {
			t.Fatal("sample of one page not frozen after a second write")
		}
		if viaActivity {
			if err := a.resetTopic(ctx, "roses"); err != nil {
				t.Fatal(err)
			}
		} else { // another worker's reset
			if err := a.Store.ResetTopic(ctx, "roses"); err != nil {
				t.Fatal(err)
			}
			write(1, "soil") // counted: the sample starts over
		}
		if frozen() {
			t.Errorf("reset (by this worker: %v): the frozen statistics of before are still used", viaActivity)
		}
		if err := a.Store.ResetTopic(ctx, "roses"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTermSampleFullIgnoresPendingPages: a worker that has not yet seen a
// write find the topic's sample full (restarted, say, and taking over a
// slice whose pages were saved but not parsed) reads the term statistics
// from the store; the group's unwritten parse records, which its write will
// not count, must not be added to them either.
func TestTermSampleFullIgnoresPendingPages(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	a.CrawlCfg.TermSample = 2
	ctx := t.Context()
	for i, terms := range [][]string{{"rose", "garden"}, {"rose", "prune"}, {"rose", "soil"}} {
		u := fmt.Sprintf("http://a.test/p%d", i)
		p := store.Page{Topic: "roses", CrawlID: "c1", URL: u, URLHash: urlnorm.Hash(u), FinalURL: u, FinalHash: urlnorm.Hash(u),
			Status: 200, ContentType: "text/html", BatchID: "c1/s1/a1/b1"}
		g := newGroup("roses", "c1")
		g.w.Pages = []store.PageBody{{Page: p, Body: []byte("<p>x</p>")}}
		if i < 2 { // the third page's parse record is the pending one below
			g.w.Parses = []store.ParseWrite{{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: terms}}
		}
		if err := a.flush(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	a.termSamples.forget("roses") // a worker that kept nothing of the topic
	u := "http://a.test/p2"
	g := newGroup("roses", "c1")
	g.w.Parses = []store.ParseWrite{{URLHash: urlnorm.Hash(u), Parsed: []byte("{}"), Terms: []string{"rose", "soil"}}}
	terms := map[string]struct{}{"rose": {}, "prune": {}, "soil": {}}
	idf, err := a.idf(ctx, "roses", terms, g)
	if err != nil {
		t.Fatal(err)
	}
	checkIDF(t, idf, terms, "the full sample's statistics, without the pending page")
	if err := a.flush(ctx, g); err != nil {
		t.Fatal(err)
	}
	if tt, err := a.Store.AllTermStats(ctx, "roses"); err != nil || tt.Docs != 2 {
		t.Errorf("the pending page's write: %d documents (%v); want 2, it was not counted", tt.Docs, err)
	}
}

// checkIDF checks idf on terms against the statistics of the tests' first
// two pages (rose garden, rose prune).
func checkIDF(t *testing.T, idf vsm.IDF, terms map[string]struct{}, what string) {
	t.Helper()
	want := vsm.SmoothIDF(2, map[string]int{"rose": 2, "prune": 1, "garden": 1})
	for term := range terms {
		if math.Abs(idf(term)-want(term)) > 1e-12 {
			t.Errorf("idf(%s) = %v, want %v (%s)", term, idf(term), want(term), what)
		}
	}
}

// TestTermSampleRefilledSameSize: another worker resets the topic under the
// same crawl ID and fills a new sample of exactly as many documents as the
// one this worker kept, while this worker writes nothing (so no write of
// its own counts terms and drops what it kept). Its next write finds the
// sample full at the same document count; the statistics it kept are of
// the old sample all the same and must not be used.
func TestTermSampleRefilledSameSize(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	a.CrawlCfg.TermSample = 1
	ctx := t.Context()
	pageWrite := func(i int, terms ...string) store.GroupWrite {
		u := fmt.Sprintf("http://a.test/p%d", i)
		p := store.Page{Topic: "roses", CrawlID: "c1", URL: u, URLHash: urlnorm.Hash(u), FinalURL: u, FinalHash: urlnorm.Hash(u),
			Status: 200, ContentType: "text/html", BatchID: "c1/s1/a1/b1"}
		return store.GroupWrite{Topic: "roses", TermSample: a.CrawlCfg.TermSample,
			Pages:  []store.PageBody{{Page: p, Body: []byte("<p>x</p>")}},
			Parses: []store.ParseWrite{{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: terms}}}
	}
	write := func(i int, terms ...string) { // this worker's
		t.Helper()
		g := newGroup("roses", "c1")
		g.w = pageWrite(i, terms...)
		if err := a.flush(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	otherWrite := func(i int, terms ...string) { // another worker's
		t.Helper()
		if _, err := a.Store.WriteGroup(ctx, pageWrite(i, terms...)); err != nil {
			t.Fatal(err)
		}
	}
	idf := func() vsm.IDF {
		t.Helper()
		idf, ok, err := a.sampledIDF(ctx, newGroup("roses", "c1"))
		if err != nil || !ok {
			t.Fatalf("sampledIDF: ok %v, %v; want the frozen statistics", ok, err)
		}
		return idf
	}
	write(1, "rose")
	write(2, "rose") // finds the sample full at one document
	old := vsm.SmoothIDF(1, map[string]int{"rose": 1})
	if got := idf()("rose"); got != old("rose") {
		t.Fatalf("idf(rose) = %v, want the first sample's %v", got, old("rose"))
	}
	// Another worker resets the topic and fills a new one-document sample.
	if err := a.Store.ResetTopic(ctx, "roses"); err != nil {
		t.Fatal(err)
	}
	otherWrite(1, "soil")
	otherWrite(2, "soil") // full again, at one document
	write(3, "rose")      // this worker finds it full, at one document
	want := vsm.SmoothIDF(1, map[string]int{"soil": 1})
	got := idf()
	for _, term := range []string{"rose", "soil"} {
		if got(term) != want(term) {
			t.Errorf("idf(%s) = %v, want the refilled sample's %v (the old sample's: %v)", term, got(term), want(term), old(term))
		}
	}
}

// fullSamples is a store whose every topic's term sample is full (one
// document), counting the reads of each topic's whole statistics.
type fullSamples struct {
	store.Store
	mu    sync.Mutex
	reads map[string]int
}

func (s *fullSamples) WriteGroup(ctx context.Context, w store.GroupWrite) (store.GroupResult, error) {
	return store.GroupResult{TermSampleFull: true, TermDocs: 1}, nil
}

func (s *fullSamples) TermStats(ctx context.Context, topic string, terms []string) (store.TermTotals, error) {
	return store.TermTotals{Docs: 1, Sample: 1}, nil
}

func (s *fullSamples) AllTermStats(ctx context.Context, topic string) (store.TermTotals, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reads == nil {
		s.reads = map[string]int{}
	}
	s.reads[topic]++
	return store.TermTotals{Docs: 1, DF: map[string]int{topic: 1}}, nil
}

func (s *fullSamples) readsOf(topic string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[topic]
}

// TestTermSampleEvictsLeastRecentlyUsed: a worker keeping as many topics'
// frozen statistics as it may, and finding one more topic's sample full,
// drops the least recently used topic's only — not every topic's, which
// each would then read whole again.
func TestTermSampleEvictsLeastRecentlyUsed(t *testing.T) {
	fs := &fullSamples{}
	a := &Activities{Store: fs}
	a.CrawlCfg.TermSample = 1
	ctx := t.Context()
	topic := func(i int) string { return fmt.Sprintf("t%02d", i) }
	sampled := func(name string) bool {
		t.Helper()
		_, ok, err := a.sampledIDF(ctx, newGroup(name, "c1"))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	use := func(name string) { // a write finds the sample full; an IDF of it
		t.Helper()
		g := newGroup(name, "c1")
		g.w.Parses = []store.ParseWrite{{URLHash: "h", Parsed: []byte("{}"), Terms: []string{"x"}}}
		if err := a.flush(ctx, g); err != nil {
			t.Fatal(err)
		}
		if !sampled(name) {
			t.Fatalf("%s: no frozen statistics after a write found its sample full", name)
		}
	}
	for i := range maxSampledTopics {
		use(topic(i))
	}
	use(topic(0)) // the least recently used is now topic 1
	use(topic(maxSampledTopics))
	for i := range maxSampledTopics + 1 {
		if got, want := sampled(topic(i)), i != 1; got != want {
			t.Errorf("%s kept: %v, want %v", topic(i), got, want)
		}
		if n := fs.readsOf(topic(i)); n != 1 {
			t.Errorf("%s read %d times, want once", topic(i), n)
		}
	}
}

// blockingSamples is a store whose every topic's term sample is full and
// whose reads of a topic's whole statistics wait for release; the first
// fails once with failFirst.
type blockingSamples struct {
	store.Store
	release   chan struct{}
	reads     atomic.Int32
	failFirst bool
}

func (s *blockingSamples) WriteGroup(ctx context.Context, w store.GroupWrite) (store.GroupResult, error) {
	return store.GroupResult{TermSampleFull: true, TermDocs: 1}, nil
}

func (s *blockingSamples) TermStats(ctx context.Context, topic string, terms []string) (store.TermTotals, error) {
	return store.TermTotals{Docs: 1, Sample: 1}, nil
}

func (s *blockingSamples) AllTermStats(ctx context.Context, topic string) (store.TermTotals, error) {
	n := s.reads.Add(1)
	<-s.release
	if s.failFirst && n == 1 {
		return store.TermTotals{}, errors.New("the store is away")
	}
	return store.TermTotals{Docs: 1, DF: map[string]int{"rose": 1}}, nil
}

// TestTermSampleReadOnce: the first IDFs of a full sample, asked for at
// once by several of a worker's groups, read the topic's whole statistics
// once between them, not once each; a read that fails fails its own
// caller only, and another waiting reads instead. synctest.Wait stands for
// "every reader has arrived": each is then blocked in the store's read or
// waiting for another's.
func TestTermSampleReadOnce(t *testing.T) {
	const readers = 4
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fs := &blockingSamples{release: make(chan struct{}), failFirst: fail}
				a := &Activities{Store: fs}
				a.CrawlCfg.TermSample = 1
				ctx := t.Context()
				g := newGroup("roses", "c1")
				g.w.Parses = []store.ParseWrite{{URLHash: "h", Parsed: []byte("{}"), Terms: []string{"rose"}}}
				if err := a.flush(ctx, g); err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				var failed, served atomic.Int32
				for range readers {
					wg.Go(func() {
						idf, ok, err := a.sampledIDF(ctx, newGroup("roses", "c1"))
						switch {
						case err != nil:
							failed.Add(1)
						case !ok:
							t.Error("sampledIDF: sample not known full")
						case idf("rose") != vsm.SmoothIDF(1, map[string]int{"rose": 1})("rose"):
							t.Errorf("idf(rose) = %v, not the sample's", idf("rose"))
						default:
							served.Add(1)
						}
					})
				}
				synctest.Wait()
				close(fs.release)
				wg.Wait()
				wantReads, wantFailed := int32(1), int32(0)
				if fail {
					wantReads, wantFailed = 2, 1
				}
				if n := fs.reads.Load(); n != wantReads {
					t.Errorf("%d readers read the statistics %d times, want %d", readers, n, wantReads)
				}
				if n := failed.Load(); n != wantFailed || served.Load() != readers-wantFailed {
					t.Errorf("%d readers failed, %d served; want %d failed", n, served.Load(), wantFailed)
				}
			})
		})
	}
}

// TestTermSampleReadFindsAnotherSample: between the write that found the
// sample full and this worker's first read of it, another worker reset the
// topic and refilled it; the read, of another generation, is not kept nor
// used (the ordinary read serves the group), and the next write that finds
// the new sample full makes it the one kept.
func TestTermSampleReadFindsAnotherSample(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	a.CrawlCfg.TermSample = 1
	ctx := t.Context()
	write := func(viaWorker bool, i int, terms ...string) {
		t.Helper()
		u := fmt.Sprintf("http://a.test/p%d", i)
		p := store.Page{Topic: "roses", CrawlID: "c1", URL: u, URLHash: urlnorm.Hash(u), FinalURL: u, FinalHash: urlnorm.Hash(u),
			Status: 200, ContentType: "text/html", BatchID: "c1/s1/a1/b1"}
		g := newGroup("roses", "c1")
		g.w.Pages = []store.PageBody{{Page: p, Body: []byte("<p>x</p>")}}
		g.w.Parses = []store.ParseWrite{{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: terms}}
		var err error
		if viaWorker {
			err = a.flush(ctx, g)
		} else {
			g.w.TermSample = a.CrawlCfg.TermSample
			_, err = a.Store.WriteGroup(ctx, g.w)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	sampled := func() (vsm.IDF, bool) {
		t.Helper()
		// A group whose own write told it the sample's state (the full
		// sample of before): it reads no more than the statistics.
		g := newGroup("roses", "c1")
		g.sampleSeen = true
		idf, ok, err := a.sampledIDF(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		return idf, ok
	}
	write(true, 1, "rose")
	write(true, 2, "rose") // full, not read yet
	if err := a.Store.ResetTopic(ctx, "roses"); err != nil {
		t.Fatal(err)
	}
	write(false, 1, "soil")
	write(false, 2, "soil")
	if _, ok := sampled(); ok {
		t.Error("the refilled sample's statistics used on the strength of the old one's write")
	}
	if _, ok := sampled(); ok {
		t.Error("the sample still known full after a read found another")
	}
	write(true, 3, "soil")
	idf, ok := sampled()
	want := vsm.SmoothIDF(1, map[string]int{"soil": 1})
	if !ok || idf("soil") != want("soil") || idf("rose") != want("rose") {
		t.Errorf("after a write found the new sample full: ok %v; want its statistics", ok)
	}
}

// TestTermSampleSizeIsTheSamples: the topic's sample was started by a
// worker configured with another size (crawl.term_sample), which the store
// fixed for it. This worker's group IDF goes by that size, not its own: a
// sample full at the fixed size is one its write will not count the
// group's pending pages into (so they add nothing), and one not full yet
// is one it will (so they do).
func TestTermSampleSizeIsTheSamples(t *testing.T) {
	for _, c := range []struct {
		own, fixed     int
		pendingCounted bool
	}{{own: 5, fixed: 2}, {own: 2, fixed: 5, pendingCounted: true}} {
		t.Run(fmt.Sprintf("own=%d,fixed=%d", c.own, c.fixed), func(t *testing.T) {
			site := newLoopBackSite(t)
			a := siteActivities(t, site)
			a.CrawlCfg.TermSample = c.own
			ctx := t.Context()
			pageOf := func(i int) store.Page {
				u := fmt.Sprintf("http://a.test/p%d", i)
				return store.Page{Topic: "roses", CrawlID: "c1", URL: u, URLHash: urlnorm.Hash(u), FinalURL: u, FinalHash: urlnorm.Hash(u),
					Status: 200, ContentType: "text/html", BatchID: "c1/s1/a1/b1"}
			}
			// Another worker's write starts the sample: two pages.
			w := store.GroupWrite{Topic: "roses", TermSample: c.fixed}
			for i, terms := range [][]string{{"rose", "garden"}, {"rose", "prune"}} {
				p := pageOf(i)
				w.Pages = append(w.Pages, store.PageBody{Page: p, Body: []byte("<p>x</p>")})
				w.Parses = append(w.Parses, store.ParseWrite{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: terms})
			}
			if _, err := a.Store.WriteGroup(ctx, w); err != nil {
				t.Fatal(err)
			}
			// This worker's group, its one page saved, its parse pending.
			p := pageOf(2)
			if _, err := a.Store.WriteGroup(ctx, store.GroupWrite{Topic: "roses", Pages: []store.PageBody{{Page: p, Body: []byte("<p>x</p>")}}}); err != nil {
				t.Fatal(err)
			}
			g := newGroup("roses", "c1")
			g.w.Parses = []store.ParseWrite{{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: []string{"rose", "soil"}}}
			terms := map[string]struct{}{"rose": {}, "prune": {}, "soil": {}}
			idf, err := a.idf(ctx, "roses", terms, g)
			if err != nil {
				t.Fatal(err)
			}
			if !c.pendingCounted {
				checkIDF(t, idf, terms, "the full sample's statistics, without the pending page")
			} else {
				want := vsm.SmoothIDF(3, map[string]int{"rose": 3, "prune": 1, "soil": 1})
				for term := range terms {
					if math.Abs(idf(term)-want(term)) > 1e-12 {
						t.Errorf("idf(%s) = %v, want %v (the pending page counted, as its write will)", term, idf(term), want(term))
					}
				}
			}
			if err := a.flush(ctx, g); err != nil {
				t.Fatal(err)
			}
			wantDocs := 2
			if c.pendingCounted {
				wantDocs = 3
			}
			if tt, err := a.Store.AllTermStats(ctx, "roses"); err != nil || tt.Docs != wantDocs || tt.Sample != c.fixed {
				t.Errorf("after this worker's write: %+v, %v; want %d documents, the sample's size %d", tt, err, wantDocs, c.fixed)
			}
		})
	}
}

// TestTermSampleCheckedBeforeUse: this worker kept a topic's full sample;
// another worker reset the topic under the same crawl ID and counts a new
// sample, while this worker writes nothing. A group of this worker that
// judges before any write of its own tells it the new state (pages whose
// parse records are stored already, as a refresh batch's FilterPages, or
// pending, as a taken-over slice whose pages the attempt before saved)
// must not be judged with the old sample's statistics.
func TestTermSampleCheckedBeforeUse(t *testing.T) {
	site := newLoopBackSite(t)
	a := siteActivities(t, site)
	a.CrawlCfg.TermSample = 2
	reads := &termReads{Store: a.Store}
	a.Store = reads
	ctx := t.Context()
	pageWrite := func(i int, terms ...string) store.GroupWrite {
		u := fmt.Sprintf("http://a.test/p%d", i)
		p := store.Page{Topic: "roses", CrawlID: "c1", URL: u, URLHash: urlnorm.Hash(u), FinalURL: u, FinalHash: urlnorm.Hash(u),
			Status: 200, ContentType: "text/html", BatchID: "c1/s1/a1/b1"}
		return store.GroupWrite{Topic: "roses", TermSample: a.CrawlCfg.TermSample,
			Pages:  []store.PageBody{{Page: p, Body: []byte("<p>x</p>")}},
			Parses: []store.ParseWrite{{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: terms}}}
	}
	for i, terms := range [][]string{{"rose", "garden"}, {"rose", "prune"}, {"rose", "soil"}} {
		g := newGroup("roses", "c1")
		g.w = pageWrite(i, terms...)
		if err := a.flush(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	terms := map[string]struct{}{"rose": {}, "prune": {}, "soil": {}}
	judge := func() vsm.IDF { // a group with a parse record pending
		t.Helper()
		g := newGroup("roses", "c1")
		g.w.Parses = []store.ParseWrite{{URLHash: urlnorm.Hash("http://a.test/p9"), Parsed: []byte("{}"), Terms: []string{"soil"}}}
		idf, err := a.idf(ctx, "roses", terms, g)
		if err != nil {
			t.Fatal(err)
		}
		return idf
	}
	checkIDF(t, judge(), terms, "the frozen sample's statistics")
	if n := reads.all.Load(); n != 1 {
		t.Fatalf("AllTermStats read %d times; want once (the sample kept)", n)
	}
	// Another worker's reset, and its write of the new sample's first page.
	if err := a.Store.ResetTopic(ctx, "roses"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Store.WriteGroup(ctx, pageWrite(1, "soil")); err != nil {
		t.Fatal(err)
	}
	// One document counted, soil in it, and the group's pending page,
	// which its write will count too.
	want := vsm.SmoothIDF(2, map[string]int{"soil": 2})
	got := judge()
	for term := range terms {
		if math.Abs(got(term)-want(term)) > 1e-12 {
			t.Errorf("idf(%s) = %v after another worker's reset, want the new sample's %v", term, got(term), want(term))
		}
	}
}
