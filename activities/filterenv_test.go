package activities

import (
	"context"
	"fmt"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// blobCounter counts the parse records read through it.
type blobCounter struct {
	store.Store
	blobs int
}

func (c *blobCounter) Blob(ctx context.Context, topic, urlHash, kind string) ([]byte, error) {
	c.blobs++
	return c.Store.Blob(ctx, topic, urlHash, kind)
}

// TestLearnerRoundsPastItsPages: a learning filter learns from the crawl's
// first maxLearnPages judged pages; once the crawl has judged more, a
// round whose training pages are unchanged records its round and carries
// the state over without reading a parse record, and a re-judged training
// page or a new topic version makes the next round learn again. Before, every round (every
// Every() judged pages, for the rest of the crawl) read the crawl's whole
// log and the training pages' parse records, and learned the same state.
func TestLearnerRoundsPastItsPages(t *testing.T) {
	old := maxLearnPages
	maxLearnPages = 4
	t.Cleanup(func() { maxLearnPages = old })
	ctx := context.Background()
	a, _, tv, mv := topicFixture(t, "name: lrn\nkeywords: {rose: 1}\nseeds: [http://a.test/]\n"+
		"strategy:\n  page_filter: {name: bayes, every: 1, min_negatives: 1, vsm_threshold: 0.12}\n")
	in := crawlapi.BatchRef{CrawlID: "c1", Topic: "lrn", TopicVersion: tv, ModelVersion: mv}
	lt, err := a.loadTopic(ctx, "lrn", tv, mv)
	if err != nil {
		t.Fatal(err)
	}
	f, err := a.pageFilter(ctx, lt, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	judge := func(i int, d string) {
		judgePage(t, a.Store, "lrn", fmt.Sprintf("http://a.test/%d", i), d, 0.3)
	}
	for i := range 4 {
		judge(i, []string{store.DecisionAccepted, store.DecisionRejected}[i%2])
	}
	bc := &blobCounter{Store: a.Store}
	a.Store = bc
	round := func(want int) learnerState {
		t.Helper()
		if err := a.learn(ctx, f, in); err != nil {
			t.Fatal(err)
		}
		st, err := a.learnerState(ctx, "lrn", f.(relevance.Learner).StateKind())
		if err != nil || st.Round != want || len(st.State) == 0 {
			t.Fatalf("state %+v, %v; want round %d with a state", st, err, want)
		}
		return st
	}
	first := round(4)
	if bc.blobs != 4 {
		t.Errorf("the first round read %d parse records, want 4", bc.blobs)
	}
	judge(4, store.DecisionAccepted) // past the training pages
	judge(5, store.DecisionRejected)
	bc.blobs = 0
	if st := round(6); bc.blobs != 0 || string(st.State) != string(first.State) || st.Inputs != first.Inputs {
		t.Errorf("a round past the training pages read %d parse records (state carried over: %v); want none and the same state",
			bc.blobs, string(st.State) == string(first.State))
	}
	// A training page re-judged: the next round learns again.
	if err := a.Store.SetDecision(ctx, "lrn", urlnorm.Hash("http://a.test/1"), store.Decision{Decision: store.DecisionAccepted, Filter: "vsm", Relevance: 0.3}); err != nil {
		t.Fatal(err)
	}
	judge(6, store.DecisionRejected)
	bc.blobs = 0
	if st := round(7); bc.blobs != 4 || st.Inputs == first.Inputs {
		t.Errorf("after a training page's re-judgement: %d parse records read, inputs changed %v; want 4 and a new fingerprint",
			bc.blobs, st.Inputs != first.Inputs)
	}
	// A new topic version (update-topic: the filter's parameters or its
	// sample pages may have changed) learns again, the pages unchanged.
	judge(7, store.DecisionRejected)
	in.TopicVersion++
	bc.blobs = 0
	if round(8); bc.blobs != 4 {
		t.Errorf("a round under a new topic version read %d parse records, want 4 (a new state learned)", bc.blobs)
	}
	kind := f.(relevance.Learner).StateKind()
	_, latest, err := a.Store.Model(ctx, "lrn", kind, 0)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for v := 1; v <= latest; v++ {
		if _, _, err := a.Store.Model(ctx, "lrn", kind, v); err == nil {
			kept++
		}
	}
	if latest < 3 || kept != min(latest, keepLearnedVersions) {
		t.Errorf("%d of %d state versions kept, want the newest %d", kept, latest, keepLearnedVersions)
	}
}
