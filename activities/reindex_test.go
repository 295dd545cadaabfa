package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/store"
)

// crawledRoses crawls the loopback site into a's store and index and
// returns the accepted pages in URL hash order, the order ReindexPages
// walks.
func crawledRoses(t *testing.T) (*Activities, []store.Page) {
	t.Helper()
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	var pages []store.Page
	if err := a.Store.AcceptedPages(ctx, "roses", func(p store.Page) error {
		pages = append(pages, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(pages) < 4 || !slices.IsSortedFunc(pages, func(x, y store.Page) int { return strings.Compare(x.URLHash, y.URLHash) }) {
		t.Fatalf("accepted pages %d, in hash order %v; want several, sorted", len(pages), pages)
	}
	return a, pages
}

// emptyIndex deletes the documents of pages from the topic's index, as an
// index lost or made anew would be.
func emptyIndex(t *testing.T, a *Activities, pages []store.Page) {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for _, p := range pages {
		ids = append(ids, p.FinalHash)
	}
	if err := a.Index.Delete(ctx, "roses", ids); err != nil {
		t.Fatal(err)
	}
	if n, err := a.Index.Count(ctx, "roses"); err != nil || n != 0 {
		t.Fatalf("index holds %d documents (%v) after the delete; want 0", n, err)
	}
}

// TestReindexPages: every accepted, indexed page is written into an
// emptied index again from its parse record — searchable, with the
// relevance the store holds — and a second run changes nothing. An
// accepted page not flagged indexed (the refresh takes a page out so while
// its host is down) is left out of the index and counted: before, the
// reindex put such pages back and flagged them.
func TestReindexPages(t *testing.T) {
	a, pages := crawledRoses(t)
	ctx := context.Background()
	emptyIndex(t, a, pages)
	out := pages[1]
	if err := a.Store.UnmarkIndexed(ctx, "roses", []string{out.URLHash}); err != nil {
		t.Fatal(err)
	}
	in := crawlapi.ReindexPagesInput{ReindexID: "reindex/roses/1", Topic: "roses"}
	for run := 1; run <= 2; run++ {
		var res crawlapi.ReindexPagesResult
		if err := runActivity(a, crawlapi.ReindexPages.Name, in, &res); err != nil {
			t.Fatal(err)
		}
		if want := (crawlapi.ReindexPagesResult{Accepted: len(pages), Written: len(pages) - 1, NotIndexed: 1}); res != want {
			t.Errorf("run %d: result %+v; want %+v", run, res, want)
		}
		if n, err := a.Index.Count(ctx, "roses"); err != nil || n != len(pages)-1 {
			t.Errorf("run %d: index holds %d documents (%v); want the %d indexed pages", run, n, err, len(pages)-1)
		}
	}
	if got, err := a.Store.Page(ctx, "roses", out.URLHash); err != nil || got.Indexed {
		t.Errorf("page %s indexed = %v (%v); want it left unflagged", out.URL, got.Indexed, err)
	}
	res, err := a.Index.Search(ctx, index.Query{Text: "pruning roses", Topic: "roses", Limit: 20})
	if err != nil || res.Total != len(pages)-1 {
		t.Fatalf("search after the reindex: %d hits (%v); want the %d indexed pages", res.Total, err, len(pages)-1)
	}
	for _, h := range res.Hits {
		i := slices.IndexFunc(pages, func(p store.Page) bool { return p.FinalHash == h.ID })
		if i < 0 || i == 1 || h.Relevance != pages[i].Relevance || h.URL != pages[i].FinalURL {
			t.Errorf("hit %+v; want one of the indexed pages with its stored relevance", h)
		}
	}
}

// TestReindexSharedDocument: two accepted, indexed pages with one final URL
// have one document, written once, from the page a refresh would write it
// from (the earliest fetched), not from whichever comes last in hash order.
func TestReindexSharedDocument(t *testing.T) {
	a, r, best, poor, before := sharedDocument(t)
	holder := best
	if poor.FetchedAt.Before(best.FetchedAt) || poor.FetchedAt.Equal(best.FetchedAt) && poor.Seq < best.Seq {
		holder = poor
	}
	var res crawlapi.ReindexPagesResult
	if err := runActivity(a, crawlapi.ReindexPages.Name, crawlapi.ReindexPagesInput{Topic: r.Topic}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Shared != 1 || res.Written != res.Accepted-1 {
		t.Errorf("result %+v; want the shared document written once", res)
	}
	if n, err := a.Index.Count(t.Context(), r.Topic); err != nil || n != before {
		t.Errorf("index holds %d documents (%v); want %d", n, err, before)
	}
	hits, err := a.Index.Search(t.Context(), index.Query{Topic: r.Topic, Text: `"` + holder.Title + `"`, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range hits.Hits {
		if h.ID == best.FinalHash {
			found = h.Title == holder.Title
		}
	}
	if !found {
		t.Errorf("the shared document is not %s's (%q): hits %+v", holder.URL, holder.Title, hits.Hits)
	}
}

// recordStore answers for the parse records of some pages (by URL hash)
// with the bytes given, nil for none.
type recordStore struct {
	store.Store
	parses map[string][]byte
}

func (s recordStore) Blob(ctx context.Context, topic, urlHash, kind string) ([]byte, error) {
	if d, ok := s.parses[urlHash]; ok && kind == store.BlobParse {
		if d == nil {
			return nil, store.ErrNotFound
		}
		return d, nil
	}
	return s.Store.Blob(ctx, topic, urlHash, kind)
}

// TestReindexSharedDocumentNextHolder: when the page a shared document is
// written from (the earliest fetched) has no parse record, an unreadable
// one or one that says noindex, the document is written from the next page
// holding it that has a usable record. Before, the holder's sharers were
// skipped and the document kept its old terms (here, emptied first: it
// stayed missing). When no holder has a usable record and one says
// noindex, the document goes; before, it stayed.
func TestReindexSharedDocumentNextHolder(t *testing.T) {
	const nextTitle = "Written from the next holder"
	// The records answered for the pages, made from the holder's.
	encode := func(t *testing.T, rec parseRecord, edit func(*parseRecord)) []byte {
		doc := *rec.Doc
		rec.Doc = &doc
		edit(&rec)
		data, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	none := func(*testing.T, parseRecord) []byte { return nil }
	unreadable := func(*testing.T, parseRecord) []byte { return []byte("{") }
	noindex := func(t *testing.T, rec parseRecord) []byte {
		return encode(t, rec, func(r *parseRecord) { r.Doc.NoIndex = true })
	}
	retitled := func(t *testing.T, rec parseRecord) []byte {
		return encode(t, rec, func(r *parseRecord) { r.Doc.Title = nextTitle })
	}
	for _, tc := range []struct {
		name         string
		holder, next func(*testing.T, parseRecord) []byte
		want         crawlapi.ReindexPagesResult // all but Accepted and Written
		unwritten    int                         // pages neither written nor counted Shared
		dropped      bool                        // the document deleted, not written
	}{
		{"no record", none, retitled, crawlapi.ReindexPagesResult{Shared: 1}, 0, false},
		{"unreadable record", unreadable, retitled, crawlapi.ReindexPagesResult{Shared: 1}, 0, false},
		{"noindex", noindex, retitled, crawlapi.ReindexPagesResult{Shared: 1}, 0, false},
		{"none usable, one noindex", none, noindex, crawlapi.ReindexPagesResult{NoRecord: 1, NoIndex: 1}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, r, best, poor, before := sharedDocument(t)
			ctx := t.Context()
			holder, next := best, poor
			if poor.FetchedAt.Before(best.FetchedAt) || poor.FetchedAt.Equal(best.FetchedAt) && poor.Seq < best.Seq {
				holder, next = poor, best
			}
			rec, err := a.loadParse(ctx, holder)
			if err != nil {
				t.Fatal(err)
			}
			a.Store = recordStore{Store: a.Store, parses: map[string][]byte{
				holder.URLHash: tc.holder(t, *rec), next.URLHash: tc.next(t, *rec)}}
			if !tc.dropped {
				// Emptied, so that only a write brings it back.
				if err := a.Index.Delete(ctx, r.Topic, []string{best.FinalHash}); err != nil {
					t.Fatal(err)
				}
			}
			var res crawlapi.ReindexPagesResult
			if err := runActivity(a, crawlapi.ReindexPages.Name, crawlapi.ReindexPagesInput{Topic: r.Topic}, &res); err != nil {
				t.Fatal(err)
			}
			want := tc.want
			want.Accepted = res.Accepted
			want.Written = res.Accepted - tc.want.Shared - tc.unwritten
			if res != want {
				t.Errorf("result %+v; want %+v", res, want)
			}
			wantCount := before
			if tc.dropped {
				wantCount--
			}
			if n, err := a.Index.Count(ctx, r.Topic); err != nil || n != wantCount {
				t.Errorf("index holds %d documents (%v); want %d", n, err, wantCount)
			}
			if tc.dropped {
				return
			}
			hits, err := a.Index.Search(ctx, index.Query{Topic: r.Topic, Text: `"` + nextTitle + `"`, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			if i := slices.IndexFunc(hits.Hits, func(h index.Hit) bool { return h.ID == best.FinalHash }); i < 0 || hits.Hits[i].Title != nextTitle {
				t.Errorf("the shared document is not written from %s: hits %+v", next.URL, hits.Hits)
			}
		})
	}
}

// failingIndex fails the upserts from the nth on.
type failingIndex struct {
	index.Index
	n, calls int
}

func (f *failingIndex) Upsert(ctx context.Context, docs []index.Document) error {
	f.calls++
	if f.calls >= f.n {
		return errors.New("index unavailable")
	}
	return f.Index.Upsert(ctx, docs)
}

// countingStore counts the accepted pages read through it.
type countingStore struct {
	store.Store
	read int
}

func (c *countingStore) AcceptedPages(ctx context.Context, topic string, fn func(store.Page) error) error {
	return c.AcceptedPagesAfter(ctx, topic, "", fn)
}

func (c *countingStore) AcceptedPagesAfter(ctx context.Context, topic, after string, fn func(store.Page) error) error {
	return c.Store.AcceptedPagesAfter(ctx, topic, after, func(p store.Page) error {
		c.read++
		return fn(p)
	})
}

// TestReindexPagesResumes: an attempt that fails in its third chunk has
// recorded, after each chunk written, how far it got; a retry from that
// record writes only the pages after it, and the counts come out exact.
func TestReindexPagesResumes(t *testing.T) {
	a, pages := crawledRoses(t)
	emptyIndex(t, a, pages)
	defer func(n int) { reindexChunk = n }(reindexChunk)
	reindexChunk = 2
	sqlite := a.Index
	fail := &failingIndex{Index: sqlite, n: 3}
	a.Index = fail
	env := activityEnv(a)
	var beats []crawlapi.ReindexProgress
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var p crawlapi.ReindexProgress
		if details.Get(&p) == nil {
			beats = append(beats, p)
		}
	})
	in := crawlapi.ReindexPagesInput{Topic: "roses"}
	if _, err := env.ExecuteActivity(crawlapi.ReindexPages.Name, in); err == nil {
		t.Fatal("the attempt whose third write fails succeeded")
	}
	if len(beats) == 0 {
		t.Fatal("no heartbeat recorded by the failed attempt")
	}
	last := beats[len(beats)-1]
	if last.Result.Written != 4 || last.After != pages[3].URLHash {
		t.Fatalf("last heartbeat %+v; want 4 written, after the fourth page", last)
	}
	a.Index = sqlite
	counted := &countingStore{Store: a.Store}
	a.Store = counted
	env = activityEnv(a)
	env.SetHeartbeatDetails(last)
	v, err := env.ExecuteActivity(crawlapi.ReindexPages.Name, in)
	if err != nil {
		t.Fatal(err)
	}
	var res crawlapi.ReindexPagesResult
	if err := v.Get(&res); err != nil {
		t.Fatal(err)
	}
	if want := (crawlapi.ReindexPagesResult{Accepted: len(pages), Written: len(pages)}); res != want {
		t.Errorf("result %+v; want %+v (the counts carried over)", res, want)
	}
	if n, err := a.Index.Count(t.Context(), "roses"); err != nil || n != len(pages) {
		t.Errorf("index holds %d documents (%v); want all %d", n, err, len(pages))
	}
	// The retry reads the pages after its checkpoint, once: before, it
	// first walked all the topic's pages again to map their documents.
	if want := len(pages) - 4; counted.read != want {
		t.Errorf("the retry read %d accepted pages; want the %d after its checkpoint", counted.read, want)
	}
	// Two chunks written, the third refused whole and then one document
	// at a time (upsertEach): none written, so the attempt failed.
	if fail.calls != 3+reindexChunk {
		t.Errorf("%d writes by the failed attempt; want %d", fail.calls, 3+reindexChunk)
	}
}

// TestReindexUnknownTopic: a topic the crawl store has never seen fails
// with the non-retryable ErrNoTopic, naming the store, instead of writing
// nothing and reporting success.
func TestReindexUnknownTopic(t *testing.T) {
	a, _ := crawledRoses(t)
	for _, name := range []string{crawlapi.ReindexPages.Name, crawlapi.RebuildIndex.Name} {
		err := runActivity(a, name, crawlapi.ReindexPagesInput{Topic: "tulips"}, new(any))
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrNoTopic || !appErr.NonRetryable() {
			t.Errorf("%s of an unknown topic: %v; want a non-retryable %s", name, err, crawlapi.ErrNoTopic)
		}
	}
}

// rebuilding is an index that rebuilds (as Elasticsearch's does), recording
// the topics asked for and answering err.
type rebuilding struct {
	index.Index
	asked []string
	err   error
}

func (r *rebuilding) Rebuild(_ context.Context, topic string) (string, error) {
	r.asked = append(r.asked, topic)
	if errors.Is(r.err, index.ErrRebuildOldIndexLeft) {
		return "idx-" + topic + "-000002", r.err // the swap is done
	}
	if r.err != nil {
		return "", r.err
	}
	return "idx-" + topic + "-000002", nil
}

// TestRebuildIndex: a backend that fixes its analysis per index is asked to
// rebuild the topic's; one without an index for the topic is not an error;
// a next index left by an earlier rebuild fails for good; an old index left
// after the swap is reported, not retried (a retry made another copy);
// SQLite's index needs nothing.
func TestRebuildIndex(t *testing.T) {
	a, _ := crawledRoses(t)
	in := crawlapi.RebuildIndexInput{Topic: "roses"}
	var res crawlapi.RebuildIndexResult
	if err := runActivity(a, crawlapi.RebuildIndex.Name, in, &res); err != nil || res.Index != "" || res.Note == "" {
		t.Errorf("SQLite: %+v, %v; want nothing rebuilt, with a note", res, err)
	}
	sqlite := a.Index
	for _, tc := range []struct {
		err          error
		wantIndex    string
		wantErr      bool
		nonRetryable bool
	}{
		{nil, "idx-roses-000002", false, false},
		{index.ErrNoTopicIndex, "", false, false},
		{fmt.Errorf("delete old index: forbidden: %w", index.ErrRebuildOldIndexLeft), "idx-roses-000002", false, false},
		{fmt.Errorf("index idx-roses-000002 exists: %w", index.ErrRebuildLeftover), "", true, true},
		{errors.New("cluster says no"), "", true, false},
	} {
		rb := &rebuilding{Index: sqlite, err: tc.err}
		a.Index = rb
		res = crawlapi.RebuildIndexResult{}
		err := runActivity(a, crawlapi.RebuildIndex.Name, in, &res)
		var appErr *temporal.ApplicationError
		nonRetryable := errors.As(err, &appErr) && appErr.NonRetryable()
		if (err != nil) != tc.wantErr || nonRetryable != tc.nonRetryable || res.Index != tc.wantIndex || !slices.Equal(rb.asked, []string{"roses"}) {
			t.Errorf("rebuild answering %v: %+v, %v, asked %v; want index %q, error %v (non-retryable %v)",
				tc.err, res, err, rb.asked, tc.wantIndex, tc.wantErr, tc.nonRetryable)
		}
	}
	a.Index = sqlite
}

// TestReindexDropsNoindexLeftover: a page that turned noindex (its header
// stored by a refresh whose batch failed before dropping its document,
// the page unflagged) has its old document deleted by the reindex, not
// left for the rebuild's copy to carry over.
func TestReindexDropsNoindexLeftover(t *testing.T) {
	a, pages := crawledRoses(t)
	ctx := context.Background()
	p := pages[2]
	p.RobotsTag, p.BatchID = "noindex", "refresh/failed"
	if err := a.Store.ReplacePage(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	// Judged again (accepted, never indexed: noindex), the batch then
	// failed before dropping the old document.
	if err := a.Store.SetDecision(ctx, "roses", p.URLHash, store.Decision{Relevance: p.Relevance, Filter: p.Filter,
		Decision: store.DecisionAccepted, Reason: "noindex"}); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Store.Page(ctx, "roses", p.URLHash); err != nil || got.Indexed || got.RobotsTag != "noindex" || got.Decision != store.DecisionAccepted {
		t.Fatalf("page after the replacement: %+v, %v; want unflagged, noindex", got, err)
	}
	var res crawlapi.ReindexPagesResult
	if err := runActivity(a, crawlapi.ReindexPages.Name, crawlapi.ReindexPagesInput{Topic: "roses"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.NoIndex != 1 || res.Written != len(pages)-1 {
		t.Errorf("result %+v; want the noindex page left out, the others written", res)
	}
	hits, err := a.Index.Search(ctx, index.Query{Text: "pruning roses", Topic: "roses", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits.Hits {
		if h.ID == p.FinalHash {
			t.Errorf("the noindex page %s is still searchable", p.URL)
		}
	}
	if hits.Total != len(pages)-1 {
		t.Errorf("%d hits; want %d", hits.Total, len(pages)-1)
	}
}

// refusingIndex refuses every write that holds the document id, as an
// index refuses a document its mapping rejects.
type refusingIndex struct {
	index.Index
	id string
}

func (r *refusingIndex) Upsert(ctx context.Context, docs []index.Document) error {
	for _, d := range docs {
		if d.ID == r.id {
			return errors.New("mapper_parsing_exception")
		}
	}
	return r.Index.Upsert(ctx, docs)
}

// TestReindexSkipsRefusedDocument: a document the index refuses for good
// costs that page (counted, logged), not the topic's reindex, which
// before retried its chunk for hours.
func TestReindexSkipsRefusedDocument(t *testing.T) {
	a, pages := crawledRoses(t)
	emptyIndex(t, a, pages)
	a.Index = &refusingIndex{Index: a.Index, id: pages[1].FinalHash}
	var res crawlapi.ReindexPagesResult
	if err := runActivity(a, crawlapi.ReindexPages.Name, crawlapi.ReindexPagesInput{Topic: "roses"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Failed != 1 || res.Written != len(pages)-1 {
		t.Errorf("result %+v; want one page failed, the others written", res)
	}
	if n, err := a.Index.Count(t.Context(), "roses"); err != nil || n != len(pages)-1 {
		t.Errorf("index holds %d documents (%v); want %d", n, err, len(pages)-1)
	}
}
