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
