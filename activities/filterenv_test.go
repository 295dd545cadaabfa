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

// countingLearner counts a learning filter's Learn calls.
type countingLearner struct {
	relevance.Learner
	learned int
}

func (c *countingLearner) Learn(judged []relevance.Judged) ([]byte, error) {
	c.learned++
	return c.Learner.Learn(judged)
}

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
// the state over without learning or reading a parse record, and a
// re-judged training page or a new topic version makes the next round
// learn again, from the term counts the worker kept. Before, every round (every
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
	plain, err := a.pageFilter(ctx, lt, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := &countingLearner{Learner: plain.(relevance.Learner)}
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
		st, err := a.learnerState(ctx, "lrn", f.StateKind())
		if err != nil || st.Round != want || len(st.State) == 0 {
			t.Fatalf("state %+v, %v; want round %d with a state", st, err, want)
		}
		return st
	}
	first := round(4)
	if bc.blobs != 4 || f.learned != 1 {
		t.Errorf("the first round read %d parse records and learned %d times, want 4 and 1", bc.blobs, f.learned)
	}
	judge(4, store.DecisionAccepted) // past the training pages
	judge(5, store.DecisionRejected)
	bc.blobs = 0
	if st := round(6); bc.blobs != 0 || f.learned != 1 || string(st.State) != string(first.State) || st.Inputs != first.Inputs {
		t.Errorf("a round past the training pages read %d parse records and learned %d times (state carried over: %v); want none, 1 and the same state",
			bc.blobs, f.learned, string(st.State) == string(first.State))
	}
	// A training page re-judged: the next round learns again — from the
	// term counts the worker kept (learnTFs), not their parse records.
	if err := a.Store.SetDecision(ctx, "lrn", urlnorm.Hash("http://a.test/1"), store.Decision{Decision: store.DecisionAccepted, Filter: "vsm", Relevance: 0.3}); err != nil {
		t.Fatal(err)
	}
	judge(6, store.DecisionRejected)
	if st := round(7); f.learned != 2 || bc.blobs != 0 || st.Inputs == first.Inputs {
		t.Errorf("after a training page's re-judgement: learned %d times, %d parse records read, inputs changed %v; want 2, none, a new fingerprint",
			f.learned, bc.blobs, st.Inputs != first.Inputs)
	}
	// A new topic version (update-topic: the filter's parameters or its
	// sample pages may have changed) learns again, the pages unchanged.
	judge(7, store.DecisionRejected)
	in.TopicVersion++
	if round(8); f.learned != 3 {
		t.Errorf("a round under a new topic version learned %d times in all, want 3", f.learned)
	}
	kind := f.StateKind()
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

// TestLearnTFsKeepsRecentlyUsed: the worker's term counts of training
// pages are bounded, the least recently used dropped first, and a page
// with other content is another entry.
func TestLearnTFsKeepsRecentlyUsed(t *testing.T) {
	c := learnTFs{cap: 2}
	k := func(h, content string) learnTFKey { return learnTFKey{"t", h, content} }
	c.put(k("a", "1"), map[string]int{"rose": 1})
	c.put(k("b", "1"), nil)
	if _, ok := c.get(k("a", "1")); !ok { // a is now the most recently used
		t.Fatal("a lost below the cap")
	}
	c.put(k("c", "1"), map[string]int{"tea": 2})
	if _, ok := c.get(k("b", "1")); ok {
		t.Error("b, the least recently used, kept past the cap")
	}
	if tf, ok := c.get(k("a", "1")); !ok || tf["rose"] != 1 {
		t.Errorf("a = %v, %v; want kept", tf, ok)
	}
	if _, ok := c.get(k("a", "2")); ok {
		t.Error("a page's other content found under its old entry")
	}
}
