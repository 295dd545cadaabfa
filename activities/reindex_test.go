package activities

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

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

// TestReindexPages: every accepted page is written into an emptied index
// again from its parse record — searchable, with the relevance the store
// holds — an accepted page whose index flag was lost is written and
// flagged again, and a second run changes nothing.
func TestReindexPages(t *testing.T) {
	a, pages := crawledRoses(t)
	ctx := context.Background()
	emptyIndex(t, a, pages)
	lost := pages[1]
	if err := a.Store.UnmarkIndexed(ctx, "roses", []string{lost.URLHash}); err != nil {
		t.Fatal(err)
	}
	in := crawlapi.ReindexPagesInput{ReindexID: "reindex/roses/1", Topic: "roses"}
	for run := 1; run <= 2; run++ {
		var res crawlapi.ReindexPagesResult
		if err := runActivity(a, crawlapi.ReindexPages.Name, in, &res); err != nil {
			t.Fatal(err)
		}
		want := crawlapi.ReindexPagesResult{Accepted: len(pages), Written: len(pages)}
		if run == 1 {
			want.Repaired = 1
		}
		if res != want {
			t.Errorf("run %d: result %+v; want %+v", run, res, want)
		}
		if n, err := a.Index.Count(ctx, "roses"); err != nil || n != len(pages) {
			t.Errorf("run %d: index holds %d documents (%v); want the %d accepted pages", run, n, err, len(pages))
		}
	}
	got, err := a.Store.Page(ctx, "roses", lost.URLHash)
	if err != nil || !got.Indexed {
		t.Errorf("page %s indexed = %v (%v); want flagged again", lost.URL, got.Indexed, err)
	}
	res, err := a.Index.Search(ctx, index.Query{Text: "pruning roses", Topic: "roses", Limit: 20})
	if err != nil || res.Total != len(pages) {
		t.Fatalf("search after the reindex: %d hits (%v); want all %d pages", res.Total, err, len(pages))
	}
	for _, h := range res.Hits {
		i := slices.IndexFunc(pages, func(p store.Page) bool { return p.FinalHash == h.ID })
		if i < 0 || h.Relevance != pages[i].Relevance || h.URL != pages[i].FinalURL {
			t.Errorf("hit %+v; want one of the accepted pages with its stored relevance", h)
		}
	}
}

// TestReindexPagesResumes: a retry goes on after the last chunk its
// heartbeat recorded, with the counts so far, and does not write the pages
// before it again.
func TestReindexPagesResumes(t *testing.T) {
	a, pages := crawledRoses(t)
	ctx := context.Background()
	emptyIndex(t, a, pages)
	env := activityEnv(a)
	k := 3
	env.SetHeartbeatDetails(reindexProgress{After: pages[k-1].URLHash,
		Result: crawlapi.ReindexPagesResult{Accepted: k, Written: k}})
	v, err := env.ExecuteActivity(crawlapi.ReindexPages.Name, crawlapi.ReindexPagesInput{Topic: "roses"})
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
	if n, err := a.Index.Count(ctx, "roses"); err != nil || n != len(pages)-k {
		t.Errorf("index holds %d documents (%v); want the %d pages after the checkpoint", n, err, len(pages)-k)
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
	if r.err != nil {
		return "", r.err
	}
	return "idx-" + topic + "-000002", nil
}

// TestRebuildIndex: a backend that fixes its analysis per index is asked to
// rebuild the topic's; one without an index for the topic is not an error
// (its pages go into a new one); SQLite's index needs nothing.
func TestRebuildIndex(t *testing.T) {
	a, _ := crawledRoses(t)
	in := crawlapi.RebuildIndexInput{Topic: "roses"}
	var res crawlapi.RebuildIndexResult
	if err := runActivity(a, crawlapi.RebuildIndex.Name, in, &res); err != nil || res.Index != "" || res.Note == "" {
		t.Errorf("SQLite: %+v, %v; want nothing rebuilt, with a note", res, err)
	}
	sqlite := a.Index
	for _, tc := range []struct {
		err       error
		wantIndex string
		wantErr   bool
	}{
		{nil, "idx-roses-000002", false},
		{index.ErrNoTopicIndex, "", false},
		{errors.New("cluster says no"), "", true},
	} {
		rb := &rebuilding{Index: sqlite, err: tc.err}
		a.Index = rb
		res = crawlapi.RebuildIndexResult{}
		err := runActivity(a, crawlapi.RebuildIndex.Name, in, &res)
		if (err != nil) != tc.wantErr || res.Index != tc.wantIndex || !slices.Equal(rb.asked, []string{"roses"}) {
			t.Errorf("rebuild answering %v: %+v, %v, asked %v; want index %q, error %v", tc.err, res, err, rb.asked, tc.wantIndex, tc.wantErr)
		}
	}
	a.Index = sqlite
}
