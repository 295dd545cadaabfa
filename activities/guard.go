package activities

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// requireCrawl fails with a retryable crawlapi.ErrWrongStore error when this
// worker's crawl store has no row for the crawl. Every worker polling a task
// queue receives every crawl's activities, so a worker started with another
// store.driver, store.dsn or store.path (a forgotten FOCUSCRAWL_STORE_DRIVER
// on a new machine) ran them against a store that knows nothing of the
// crawl: its slices failed with a bare "store: not found", but re-judgement,
// ranking, learning, seed expansion and add-seeds succeeded there, writing
// into the wrong store without a word, and the crawl completed as if nothing
// happened. Retryable, so Temporal retries the activity on another worker;
// logged at error level, so the misconfigured worker's log says what to fix.
func (a *Activities) requireCrawl(ctx context.Context, crawlID string) error {
	if crawlID == "" {
		return nil // nothing to check against; the activity validates its input
	}
	_, err := a.Store.Crawl(ctx, crawlID)
	if errors.Is(err, store.ErrNotFound) {
		msg := fmt.Sprintf("crawl %q is not in this worker's crawl store (%s): it was started by a worker with another store; "+
			"every worker of the task queue needs the same store.driver and store.dsn (or store.path)", crawlID, a.StoreDesc)
		a.activityLog(ctx).Error("activity for a crawl of another crawl store refused", "crawl", crawlID, "store", a.StoreDesc)
		return temporal.NewApplicationError(msg, crawlapi.ErrWrongStore)
	}
	if err != nil {
		return fmt.Errorf("look up crawl %q: %w", crawlID, err)
	}
	return nil
}

// guarded wraps a crawl activity so that it runs only when this worker's
// store holds the crawl that crawlID names in its input (requireCrawl).
// The wrapper keeps fn's input and output types, so registering it under
// the contract still fails to compile when fn drifts from it.
func guarded[I, O any](a *Activities, crawlID func(I) string, fn func(context.Context, I) (O, error)) func(context.Context, I) (O, error) {
	return func(ctx context.Context, in I) (O, error) {
		if err := a.requireCrawl(ctx, crawlID(in)); err != nil {
			var zero O
			return zero, err
		}
		return fn(ctx, in)
	}
}

// requireTopic fails with a retryable crawlapi.ErrWrongStore error when this
// worker's crawl store is not the one a refresh's StartRefresh read: it
// lacks the topic version StartRefresh resolved, or recorded it at another
// time than storedAt. A refresh has no crawl row, so the topic version
// stands in for one; its time tells apart a store where the same topic
// file was stored too (a trial crawl on the machine of a worker started
// without FOCUSCRAWL_STORE_DRIVER), whose version numbers start at 1 as
// well. Such a worker claimed no pages in its own store, and the refresh
// completed with "no pages due". A version of 0 (an input recorded before
// the check) is not checked; a zero storedAt checks the version alone.
func (a *Activities) requireTopic(ctx context.Context, topicName string, version int, storedAt time.Time) error {
	if topicName == "" || version <= 0 {
		return nil
	}
	rec, err := a.Store.Topic(ctx, topicName, version)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("look up topic %q v%d: %w", topicName, version, err)
	}
	if err == nil && (storedAt.IsZero() || rec.CreatedAt.Equal(storedAt)) {
		return nil
	}
	what := "does not hold it"
	if err == nil {
		what = fmt.Sprintf("holds a v%d stored at %s, not the refresh's stored at %s", version,
			rec.CreatedAt.UTC().Format(time.RFC3339Nano), storedAt.UTC().Format(time.RFC3339Nano))
	}
	msg := fmt.Sprintf("refresh of topic %q v%d: this worker's crawl store (%s) %s: the refresh started on a worker with another store; "+
		"every worker of the task queue needs the same store.driver and store.dsn (or store.path)", topicName, version, a.StoreDesc, what)
	a.activityLog(ctx).Error("refresh activity for another crawl store refused", "topic", topicName, "topic_version", version, "store", a.StoreDesc)
	return temporal.NewApplicationError(msg, crawlapi.ErrWrongStore)
}

// activityLog is the worker's logger, naming the activity when ctx is an
// activity's (unit tests call activities directly too).
func (a *Activities) activityLog(ctx context.Context) *slog.Logger {
	if activity.IsActivity(ctx) {
		return a.Log.With("activity", activity.GetInfo(ctx).ActivityType.Name)
	}
	return a.Log
}

// topicGuarded wraps a refresh activity so that it runs only on a worker
// whose crawl store is the one the refresh started on (requireTopic), as
// guarded does for a crawl's activities.
func topicGuarded[I, O any](a *Activities, mark func(I) (topicName string, version int, storedAt time.Time),
	fn func(context.Context, I) (O, error)) func(context.Context, I) (O, error) {
	return func(ctx context.Context, in I) (O, error) {
		topicName, version, storedAt := mark(in)
		if err := a.requireTopic(ctx, topicName, version, storedAt); err != nil {
			var zero O
			return zero, err
		}
		return fn(ctx, in)
	}
}

// sliceCrawl is the crawl a slice ID belongs to: the workflow names slices
// "<crawl ID>/s<number>" (workflows.TopicCrawlWorkflow), and ReleaseSlice's
// and SliceStats' input carries only the slice ID.
func sliceCrawl(sliceID string) string {
	i := strings.LastIndex(sliceID, "/")
	if i <= 0 {
		return ""
	}
	return sliceID[:i]
}

// fetchPolicy is this worker's fetch settings that every worker fetching
// for one crawl must share (crawlapi.CrawlParams.FetchPolicy): those that
// decide whether a page may be fetched at all. A fetch one worker refuses
// is recorded as the page's failure, and failures are final for a crawl.
// fetch.resolve is left out: dial overrides may rightly differ between
// machines.
func (a *Activities) fetchPolicy() string {
	return fmt.Sprintf("fetch.allow_private_networks=%t fetch.respect_robots=%t",
		a.FetchCfg.AllowPrivateNetworks, a.FetchCfg.RespectRobots)
}

// checkFetchPolicy fails with a retryable crawlapi.ErrWrongConfig error
// naming each setting in which this worker differs from the crawl's policy
// (want); an empty want (a crawl started before policies were recorded)
// passes, and so does a key this worker does not know (an older worker).
func (a *Activities) checkFetchPolicy(crawlID, want string) error {
	mine := map[string]string{}
	for _, kv := range strings.Fields(a.fetchPolicy()) {
		k, v, _ := strings.Cut(kv, "=")
		mine[k] = v
	}
	var diffs []string
	for _, kv := range strings.Fields(want) {
		k, v, _ := strings.Cut(kv, "=")
		if have, ok := mine[k]; ok && have != v {
			diffs = append(diffs, fmt.Sprintf("%s is %s here, %s for the crawl", k, have, v))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	msg := fmt.Sprintf("crawl %q: this worker's fetch settings differ from those of the worker that started it (%s); "+
		"every worker of the task queue needs the same", crawlID, strings.Join(diffs, "; "))
	a.Log.Error("crawl slice refused: fetch settings differ from the crawl's", "crawl", crawlID, "differences", strings.Join(diffs, "; "))
	return temporal.NewApplicationError(msg, crawlapi.ErrWrongConfig)
}
