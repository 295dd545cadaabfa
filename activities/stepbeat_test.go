package activities

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// beatWait bounds how long a watched call waits for a heartbeat before it
// counts as unbeaten. With stepBeat at a millisecond a beating activity
// beats at once; the bound only ends the wait of one that does not.
const beatWait = 10 * time.Second

// beatWatch counts an activity's heartbeats and checks, in each watched
// store or index call, that one arrives while the call runs: a call
// longer than the heartbeat timeout on a big crawl times the attempt out
// unless something beats through it.
type beatWatch struct {
	beats  atomic.Int64
	mu     sync.Mutex
	calls  []string // watched calls made
	missed []string // watched calls no heartbeat came during
}

// during waits, inside call what, for a heartbeat sent after it began.
// After one miss the others are only recorded: the test fails anyway.
func (w *beatWatch) during(what string) {
	w.mu.Lock()
	w.calls = append(w.calls, what)
	missedBefore := len(w.missed) > 0
	w.mu.Unlock()
	if missedBefore {
		return
	}
	n := w.beats.Load()
	deadline := time.Now().Add(beatWait)
	for w.beats.Load() == n {
		if time.Now().After(deadline) {
			w.mu.Lock()
			w.missed = append(w.missed, what)
			w.mu.Unlock()
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// check fails t when a watched call went unbeaten or one of want was not
// made (the test would prove nothing about it).
func (w *beatWatch) check(t *testing.T, want ...string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.missed) > 0 {
		t.Errorf("no heartbeat during %v (watched calls made: %v)", w.missed, w.calls)
	}
	for _, c := range want {
		if !slices.Contains(w.calls, c) {
			t.Errorf("watched call %s not made (made: %v)", c, w.calls)
		}
	}
}

// beatStore is a crawl store whose long calls wait for a heartbeat.
type beatStore struct {
	store.Store
	w *beatWatch
}

func (s beatStore) ResetTopic(ctx context.Context, topic string) error {
	s.w.during("ResetTopic")
	return s.Store.ResetTopic(ctx, topic)
}

func (s beatStore) AcceptedPages(ctx context.Context, topic string, fn func(store.Page) error) error {
	s.w.during("AcceptedPages")
	return s.Store.AcceptedPages(ctx, topic, fn)
}

func (s beatStore) PutTopic(ctx context.Context, name string, yaml []byte) (int, error) {
	s.w.during("PutTopic")
	return s.Store.PutTopic(ctx, name, yaml)
}

func (s beatStore) CreateCrawl(ctx context.Context, c store.Crawl) error {
	s.w.during("CreateCrawl")
	return s.Store.CreateCrawl(ctx, c)
}

func (s beatStore) Enqueue(ctx context.Context, entries []store.FrontierEntry, opt store.EnqueueOptions) (int, error) {
	s.w.during("Enqueue")
	return s.Store.Enqueue(ctx, entries, opt)
}

func (s beatStore) GraphEdges(ctx context.Context, topic string, fn func(store.Link) error) error {
	s.w.during("GraphEdges")
	return s.Store.GraphEdges(ctx, topic, fn)
}

func (s beatStore) Edges(ctx context.Context, topic string, fn func(store.Link) error) error {
	s.w.during("Edges")
	return s.Store.Edges(ctx, topic, fn)
}

func (s beatStore) OutLinks(ctx context.Context, topic string, srcs []string) (map[string][]store.OutLink, error) {
	s.w.during("OutLinks")
	return s.Store.OutLinks(ctx, topic, srcs)
}

func (s beatStore) SetScores(ctx context.Context, topic string, scores map[string][3]float64) error {
	s.w.during("SetScores")
	return s.Store.SetScores(ctx, topic, scores)
}

func (s beatStore) Reprioritize(ctx context.Context, topic string, priorities map[string]float64) error {
	s.w.during("Reprioritize")
	return s.Store.Reprioritize(ctx, topic, priorities)
}

// beatIndex is a search index whose long calls wait for a heartbeat.
type beatIndex struct {
	index.Index
	w *beatWatch
}

func (x beatIndex) Delete(ctx context.Context, topic string, ids []string) error {
	x.w.during("Index.Delete")
	return x.Index.Delete(ctx, topic, ids)
}

func (x beatIndex) UpdateScores(ctx context.Context, topic string, scores map[string]index.Scores) error {
	x.w.during("Index.UpdateScores")
	return x.Index.UpdateScores(ctx, topic, scores)
}

// watchBeats wraps a's store and index in beat-watching ones and returns
// an activity environment for a, with stepBeat at a millisecond and
// heartbeatEvery's beats counted for the test (as the activity sends them:
// the SDK passes one on to the server, and to the environment's listener,
// at most every 30 s).
func watchBeats(t *testing.T, a *Activities) (*testsuite.TestActivityEnvironment, *beatWatch) {
	t.Helper()
	w := &beatWatch{}
	oldBeat, oldRecord := stepBeat, recordHeartbeat
	stepBeat = time.Millisecond
	recordHeartbeat = func(ctx context.Context, details ...any) {
		w.beats.Add(1)
		oldRecord(ctx, details...)
	}
	t.Cleanup(func() { stepBeat, recordHeartbeat = oldBeat, oldRecord })
	a.Store = beatStore{a.Store, w}
	if a.Index != nil {
		a.Index = beatIndex{a.Index, w}
	}
	return activityEnv(a), w
}

// TestStartCrawlFreshBeats: StartCrawl --fresh beats through the topic's
// reset (its index documents deleted, its rows wiped, one call each), the
// topic's and the crawl's rows and the seeds; before, nothing beat after
// the sample pages, and a reset longer than the heartbeat timeout (a
// minute) timed the attempt out while it ran, its retry resetting again
// beside it.
func TestStartCrawlFreshBeats(t *testing.T) {
	site, a, r := siteCrawl(t)
	// Pages of the first crawl, in the index, for the reset to delete.
	if err := runActivity(a, crawlapi.CrawlSlice.Name, sliceInput(r, "s000001", 100), &crawlapi.SliceResult{}); err != nil {
		t.Fatal(err)
	}
	site.reset()
	env, w := watchBeats(t, a)
	v, err := env.ExecuteActivity(crawlapi.StartCrawl.Name, crawlapi.StartCrawlInput{CrawlID: "c2", TopicYAML: siteTopicYAML, Fresh: true})
	if err != nil {
		t.Fatal(err)
	}
	var res crawlapi.StartCrawlResult
	if err := v.Get(&res); err != nil || res.Seeded != 1 {
		t.Fatalf("fresh start: %+v, %v; want its seed queued again", res, err)
	}
	w.check(t, "AcceptedPages", "Index.Delete", "ResetTopic", "PutTopic", "CreateCrawl", "Enqueue")
}

// TestRecomputeHubAuthorityBeats: RecomputeHubAuthority beats through
// reading the graph, writing every page's scores, the index's and
// re-prioritising the frontier, each one call; before, it beat between its
// ranks only, and on a big crawl one such step outlasted the heartbeat
// timeout.
func TestRecomputeHubAuthorityBeats(t *testing.T) {
	_, a, r := siteCrawl(t)
	if err := runActivity(a, crawlapi.CrawlSlice.Name, sliceInput(r, "s000001", 100), &crawlapi.SliceResult{}); err != nil {
		t.Fatal(err)
	}
	// A queued link of the accepted seed, for re-prioritising.
	ctx, src, u := context.Background(), urlnorm.Hash("http://a.test/"), "http://a.test/roses/new"
	if err := a.Store.AddLinks(ctx, r.Topic, []store.Link{{Src: src, Dst: urlnorm.Hash(u), DstURL: u, Score: 0.3}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Store.Enqueue(ctx, []store.FrontierEntry{{Topic: r.Topic, URL: u, Priority: 0.3, LinkScore: 0.3,
		Strategy: "best-first", CrawlID: "c1"}}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	env, w := watchBeats(t, a)
	v, err := env.ExecuteActivity(crawlapi.RecomputeHubAuthority.Name, crawlapi.HubAuthInput{
		CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion})
	if err != nil {
		t.Fatal(err)
	}
	var res crawlapi.HubAuthResult
	if err := v.Get(&res); err != nil || res.Pages == 0 {
		t.Fatalf("recompute: %+v, %v; want the crawl's pages scored", res, err)
	}
	w.check(t, "GraphEdges", "SetScores", "Index.UpdateScores", "Reprioritize")
}

// TestExpandSeedsBeats: ExpandSeeds beats through reading the seeds'
// out-links (friend links) and queuing what it found; before, it never
// beat.
func TestExpandSeedsBeats(t *testing.T) {
	a, in := expandFixture(t)
	env, w := watchBeats(t, a)
	v, err := env.ExecuteActivity(crawlapi.ExpandSeeds.Name, in)
	if err != nil {
		t.Fatal(err)
	}
	var res crawlapi.ExpandResult
	if err := v.Get(&res); err != nil || res.Enqueued == 0 {
		t.Fatalf("expand: %+v, %v; want new entries", res, err)
	}
	w.check(t, "OutLinks", "Enqueue")
}

// TestUpdateTopicBeats: UpdateTopic beats through storing the new version
// and its model, as StartCrawl does; before, nothing beat after the sample
// pages.
func TestUpdateTopicBeats(t *testing.T) {
	_, a, _ := siteCrawl(t)
	env, w := watchBeats(t, a)
	yaml := strings.Replace(siteTopicYAML, "pruning: 0.8", "pruning: 0.8, climbing: 0.6", 1)
	v, err := env.ExecuteActivity(crawlapi.UpdateTopic.Name, crawlapi.UpdateTopicInput{CrawlID: "c1", Topic: "roses", TopicYAML: yaml})
	if err != nil {
		t.Fatal(err)
	}
	var res crawlapi.UpdateTopicResult
	if err := v.Get(&res); err != nil || res.TopicVersion != 2 {
		t.Fatalf("update: %+v, %v; want topic v2", res, err)
	}
	w.check(t, "PutTopic")
}

// TestLearnLinkModelBeats: LearnLinkModel beats through its read of the
// topic's edges (anchors and contexts) and its learning; the edge loop beat
// only every so many edges and the learning not at all, so a big topic's
// attempt could outlast the heartbeat timeout.
func TestLearnLinkModelBeats(t *testing.T) {
	_, a, r := siteCrawl(t)
	if err := runActivity(a, crawlapi.CrawlSlice.Name, sliceInput(r, "s000001", 100), &crawlapi.SliceResult{}); err != nil {
		t.Fatal(err)
	}
	env, w := watchBeats(t, a)
	v, err := env.ExecuteActivity(crawlapi.LearnLinkModel.Name, crawlapi.LearnInput{CrawlID: "c1", Topic: r.Topic})
	if err != nil {
		t.Fatal(err)
	}
	var res crawlapi.LearnResult
	if err := v.Get(&res); err != nil || res.Version == 0 {
		t.Fatalf("learn: %+v, %v; want a stored model", res, err)
	}
	w.check(t, "Edges")
}

// edgesFail is a store whose crawl graph fails to read after its first
// edge.
type edgesFail struct{ store.Store }

func (s edgesFail) Edges(ctx context.Context, topic string, fn func(store.Link) error) error {
	first := true
	err := s.Store.Edges(ctx, topic, func(l store.Link) error {
		if !first {
			return errors.New("disk I/O error")
		}
		first = false
		return fn(l)
	})
	return err
}

// TestLearnLinkModelGraphReadFails: the crawl graph is streamed into
// learning; a read that fails part-way fails the activity (retried) and
// stores no model learned from part of the graph.
func TestLearnLinkModelGraphReadFails(t *testing.T) {
	_, a, r := siteCrawl(t)
	if err := runActivity(a, crawlapi.CrawlSlice.Name, sliceInput(r, "s000001", 100), &crawlapi.SliceResult{}); err != nil {
		t.Fatal(err)
	}
	a.Store = edgesFail{a.Store}
	var res crawlapi.LearnResult
	err := runActivity(a, crawlapi.LearnLinkModel.Name, crawlapi.LearnInput{CrawlID: "c1", Topic: r.Topic}, &res)
	if err == nil || !strings.Contains(err.Error(), "disk I/O error") {
		t.Fatalf("learn over a failing graph read: %+v, %v; want the read's error", res, err)
	}
	if _, _, err := a.Store.Model(t.Context(), r.Topic, linkmodel.ModelKind, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a link model was stored (%v)", err)
	}
}
