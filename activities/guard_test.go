package activities

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlite"
)

// registry records what Register registers, by activity name.
type registry map[string]any

func (r registry) RegisterActivityWithOptions(a any, o activity.RegisterOptions) { r[o.Name] = a }

// A worker whose crawl store does not hold a crawl (started with another
// store configuration) refuses the crawl's activities with a retryable
// WrongStore error naming its store, instead of re-judging, ranking or
// adding seeds in the wrong store; a worker whose store holds the crawl runs
// them as before.
func TestActivitiesRefuseACrawlOfAnotherStore(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := &Activities{Store: st, Log: slog.New(slog.DiscardHandler), Now: time.Now, StoreDesc: "sqlite /elsewhere/crawl.db"}
	reg := registry{}
	a.Register(reg)
	ctx := context.Background()

	rejudge := reg[crawlapi.RejudgeCrawl.Name].(func(context.Context, crawlapi.RejudgeInput) (crawlapi.RejudgeResult, error))
	_, err = rejudge(ctx, crawlapi.RejudgeInput{CrawlID: "crawl/t/1", Topic: "t", TopicVersion: 1, ModelVersion: 1})
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrWrongStore || appErr.NonRetryable() ||
		!strings.Contains(err.Error(), "sqlite /elsewhere/crawl.db") || !strings.Contains(err.Error(), "store.dsn") {
		t.Fatalf("re-judging a crawl this store does not hold: %v; want a retryable %s error naming the store", err, crawlapi.ErrWrongStore)
	}
	stats := reg[crawlapi.SliceStats.Name].(func(context.Context, crawlapi.ReleaseSliceInput) (store.BatchStats, error))
	if _, err := stats(ctx, crawlapi.ReleaseSliceInput{Topic: "t", SliceID: "crawl/t/1/s000001"}); !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrWrongStore {
		t.Fatalf("counting a slice of a crawl this store does not hold: %v; want %s", err, crawlapi.ErrWrongStore)
	}

	setModels := reg[crawlapi.SetCrawlModels.Name].(func(context.Context, crawlapi.SetCrawlModelsInput) (struct{}, error))
	if _, err := setModels(ctx, crawlapi.SetCrawlModelsInput{CrawlID: "crawl/t/1", LinkModelVersion: 2}); !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrWrongStore {
		t.Fatalf("recording the models of a crawl this store does not hold: %v; want %s", err, crawlapi.ErrWrongStore)
	}

	if err := st.CreateCrawl(ctx, store.Crawl{ID: "crawl/t/1", Topic: "t", TopicVersion: 1, State: store.CrawlRunning,
		StartedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	setState := reg[crawlapi.SetCrawlState.Name].(func(context.Context, crawlapi.SetCrawlStateInput) (struct{}, error))
	if _, err := setState(ctx, crawlapi.SetCrawlStateInput{CrawlID: "crawl/t/1", State: store.CrawlPaused}); err != nil {
		t.Fatalf("setting the state of a crawl this store holds: %v", err)
	}
	if c, err := st.Crawl(ctx, "crawl/t/1"); err != nil || c.State != store.CrawlPaused {
		t.Fatalf("crawl after SetCrawlState = %+v, %v; want paused", c, err)
	}
	if _, err := stats(ctx, crawlapi.ReleaseSliceInput{Topic: "t", SliceID: "crawl/t/1/s000001"}); err != nil {
		t.Fatalf("counting a slice of a crawl this store holds: %v", err)
	}
	if _, err := setModels(ctx, crawlapi.SetCrawlModelsInput{CrawlID: "crawl/t/1", LinkModelVersion: 2, RankVersion: 3}); err != nil {
		t.Fatalf("recording the models of a crawl this store holds: %v", err)
	}
	if c, err := st.Crawl(ctx, "crawl/t/1"); err != nil || c.LinkModelVersion != 2 || c.RankVersion != 3 {
		t.Fatalf("crawl after SetCrawlModels = %+v, %v; want link model 2, ranks 3", c, err)
	}
}

func TestSliceCrawl(t *testing.T) {
	for in, want := range map[string]string{"crawl/t/20261126T164521Z/s000001": "crawl/t/20261126T164521Z", "s1": "", "": ""} {
		if got := sliceCrawl(in); got != want {
			t.Errorf("sliceCrawl(%q) = %q, want %q", in, got, want)
		}
	}
}

// A worker whose fetch settings differ from the crawl's refuses its slices
// with a retryable WrongConfig error naming the setting, before it claims
// anything: a worker without fetch.allow_private_networks took a loopback
// crawl's first slice, failed its seed as "ssrf" for good, and the crawl
// completed after a second with nothing fetched (operator trial). A crawl
// started before the policy was recorded (empty) runs anywhere.
func TestCrawlSliceRefusesOtherFetchSettings(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := &Activities{Store: st, Log: slog.New(slog.DiscardHandler), Now: time.Now}
	a.FetchCfg.RespectRobots = true
	crawlPolicy := "fetch.allow_private_networks=true fetch.respect_robots=true"
	_, err = a.CrawlSlice(context.Background(), crawlapi.SliceInput{CrawlID: "crawl/t/1", Topic: "t", SliceID: "crawl/t/1/s000001",
		Budget: 10, FetchPolicy: crawlPolicy})
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrWrongConfig || appErr.NonRetryable() ||
		!strings.Contains(err.Error(), "fetch.allow_private_networks is false here, true for the crawl") ||
		strings.Contains(err.Error(), "respect_robots is") {
		t.Fatalf("a slice on a worker refusing private networks: %v; want a retryable %s error naming that one setting", err, crawlapi.ErrWrongConfig)
	}
	if err := a.checkFetchPolicy("crawl/t/1", ""); err != nil {
		t.Errorf("a crawl without a recorded policy: %v", err)
	}
	a.FetchCfg.AllowPrivateNetworks = true
	if got := a.fetchPolicy(); got != crawlPolicy {
		t.Errorf("fetchPolicy() = %q, want %q", got, crawlPolicy)
	}
	if err := a.checkFetchPolicy("crawl/t/1", crawlPolicy+" fetch.newer_setting=x"); err != nil {
		t.Errorf("the same settings (and one this worker does not know): %v", err)
	}
}

// otherStoreWorker is a worker started with another crawl store than the
// test's site crawl: an empty one, or (with topicYAML) one where the same
// topic file was stored too, as by a trial crawl on that machine.
func otherStoreWorker(t *testing.T, desc, topicName string, topicYAML []byte) *Activities {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if topicYAML != nil {
		if _, err := st.PutTopic(context.Background(), topicName, topicYAML); err != nil {
			t.Fatal(err)
		}
	}
	return &Activities{Store: st, Log: slog.New(slog.DiscardHandler), Now: time.Now, StoreDesc: desc}
}

// A refresh's activities refuse a worker whose crawl store is not the one
// StartRefresh read — one without the topic version the refresh judges
// with, or holding it as recorded at another time — with the retryable
// WrongStore error crawl activities give, naming the store: a worker
// started with a forgotten FOCUSCRAWL_STORE_DRIVER claimed no pages in its
// empty store and the refresh completed with "no pages due" (operator
// trial). The worker whose store StartRefresh read runs them all; inputs
// recorded before the refresh carried its store's mark are not checked,
// or (a version without its time) checked for the version alone.
func TestRefreshActivitiesRefuseAnotherStore(t *testing.T) {
	_, a, r := siteCrawl(t)
	ctx := context.Background()
	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(365 * 24 * time.Hour) // every page due
	a.Now = func() time.Time { return later }
	var start crawlapi.StartRefreshResult
	if err := runActivity(a, crawlapi.StartRefresh.Name, crawlapi.StartRefreshInput{RefreshID: "refresh/1", Topic: r.Topic}, &start); err != nil {
		t.Fatal(err)
	}
	rec, err := a.Store.Topic(ctx, r.Topic, start.TopicVersion)
	if err != nil || start.TopicVersion != r.TopicVersion || !start.TopicStoredAt.Equal(rec.CreatedAt) || start.Due == 0 {
		t.Fatalf("StartRefresh = %+v (topic %+v, %v); want the crawl's topic version, its stored time, pages due", start, rec, err)
	}
	empty := otherStoreWorker(t, "sqlite /empty/crawl.db", r.Topic, nil)
	twin := otherStoreWorker(t, "sqlite /twin/crawl.db", r.Topic, rec.YAML)
	if v, err := twin.Store.Topic(ctx, r.Topic, 0); err != nil || v.Version != start.TopicVersion {
		t.Fatalf("the twin store's topic = v%d, %v; want v%d, the refresh's", v.Version, err, start.TopicVersion)
	}
	claim := crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: "refresh/1/r000001", Max: 100,
		TopicVersion: start.TopicVersion, TopicStoredAt: start.TopicStoredAt}
	ref := crawlapi.BatchRef{CrawlID: "refresh/1", Topic: r.Topic, BatchID: claim.BatchID,
		TopicVersion: start.TopicVersion, ModelVersion: start.ModelVersion, TopicStoredAt: start.TopicStoredAt}
	steps := []struct {
		name string
		in   any
	}{
		{crawlapi.ClaimRefresh.Name, claim},
		{crawlapi.Refetch.Name, ref},
		{crawlapi.Parse.Name, ref},
		{crawlapi.FilterPages.Name, ref},
		{crawlapi.PredictLinks.Name, ref},
		{crawlapi.FinishRefresh.Name, ref},
		{crawlapi.TopicYAML.Name, crawlapi.TopicYAMLInput{Topic: r.Topic, Version: start.TopicVersion, StoredAt: start.TopicStoredAt}},
		{crawlapi.NextRefresh.Name, crawlapi.NextRefreshInput{Topic: r.Topic, TopicVersion: start.TopicVersion, TopicStoredAt: start.TopicStoredAt}},
	}
	wantWrongStore := func(w *Activities, name string, in any) {
		t.Helper()
		var out any
		err := runActivity(w, name, in, &out)
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrWrongStore || appErr.NonRetryable() ||
			!strings.Contains(err.Error(), w.StoreDesc) || !strings.Contains(err.Error(), "store.dsn") {
			t.Errorf("%s on a worker with store %s: %v; want a retryable %s error naming the store", name, w.StoreDesc, err, crawlapi.ErrWrongStore)
		}
	}
	for _, w := range []*Activities{empty, twin} {
		for _, s := range steps {
			wantWrongStore(w, s.name, s.in)
		}
	}
	for _, s := range steps {
		var out any
		if err := runActivity(a, s.name, s.in, &out); err != nil {
			t.Errorf("%s on the worker whose store StartRefresh read: %v", s.name, err)
		}
		if s.name == crawlapi.ClaimRefresh.Name && out != float64(start.Due) {
			t.Errorf("ClaimRefresh = %v; want the %d pages due", out, start.Due)
		}
	}

	// Recorded before: a claim without the version runs anywhere; a batch
	// with the version but not its time is refused by a store without it.
	old := claim
	old.BatchID, old.TopicVersion, old.TopicStoredAt = "refresh/2/r000001", 0, time.Time{}
	var n int
	if err := runActivity(empty, crawlapi.ClaimRefresh.Name, old, &n); err != nil || n != 0 {
		t.Errorf("a claim recorded before the check, on the empty store = %d, %v; want 0, unchecked", n, err)
	}
	versionOnly := ref
	versionOnly.TopicStoredAt = time.Time{}
	wantWrongStore(empty, crawlapi.FinishRefresh.Name, versionOnly)
	var fin crawlapi.FinishRefreshResult
	if err := runActivity(twin, crawlapi.FinishRefresh.Name, versionOnly, &fin); err != nil {
		t.Errorf("a batch without its topic's stored time, on a store with the version: %v; want it run", err)
	}

	// Where StartRefresh itself runs decides: an empty store cannot be told
	// from a topic never crawled, so it names itself, for the status.
	var res crawlapi.StartRefreshResult
	err = runActivity(empty, crawlapi.StartRefresh.Name, crawlapi.StartRefreshInput{RefreshID: "refresh/3", Topic: r.Topic}, &res)
	var appErr *temporal.ApplicationError
	var named string
	if !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrNoTopic || !appErr.NonRetryable() ||
		appErr.Details(&named) != nil || named != empty.StoreDesc || !strings.Contains(err.Error(), empty.StoreDesc) {
		t.Errorf("StartRefresh on the empty store: %v (details %q); want the non-retryable %s naming the store", err, named, crawlapi.ErrNoTopic)
	}
}
