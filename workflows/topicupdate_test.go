package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"focuscrawl/internal/crawlapi"
)

// TestCrawlMemoFollowsTopicUpdate: the memo's topic_version (the Temporal
// UI shows it) follows an update-topic; it kept the first run's version.
func TestCrawlMemoFollowsTopicUpdate(t *testing.T) {
	p := baseParams()
	p.MaxPages = 12
	f, env := newFakeCrawl(t, p, 1000)
	f.perSlice = 2
	var memos []any
	env.OnUpsertMemo(mock.Anything).Run(func(args mock.Arguments) {
		memos = append(memos, args.Get(0).(map[string]any)[crawlapi.MemoTopicVersion])
	}).Return(nil)
	signalAt(env, 90*time.Second, crawlapi.SignalUpdateTopic, "name: roses\n")
	st := f.result(crawlapi.CrawlInput{TopicYAML: "name: roses"})
	if st.TopicVersion != 2 {
		t.Fatalf("topic version %d; want 2 after the update", st.TopicVersion)
	}
	if len(memos) == 0 || memos[len(memos)-1] != 2 {
		t.Errorf("memo topic_version upserts %v; want the last to be 2 (the version the crawl runs)", memos)
	}
}

// TestCrawlStopDuringFinalStepsWithRaisedBudget: budget reached, the final
// steps run (a 10-minute ranking); an update-topic raising the budget comes,
// then a stop. The stop is handled at once and the update after the steps
// (takeLate): the crawl, stopped by its operator with budget left, ended
// "completed: page budget reached" and its row "completed".
func TestCrawlStopDuringFinalStepsWithRaisedBudget(t *testing.T) {
	p := baseParams()
	p.Pipelines, p.MaxPages = 1, 8
	f, env := newFakeCrawl(t, p, 1000)
	slow(f, crawlapi.RecomputeHubAuthority, 10*time.Minute, f.rank)
	env.OnActivity(crawlapi.UpdateTopic.Name, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in crawlapi.UpdateTopicInput) (crawlapi.UpdateTopicResult, error) {
			return crawlapi.UpdateTopicResult{TopicVersion: 2, ModelVersion: 2, MaxPages: 20}, nil
		})
	signalAt(env, 2*time.Minute, crawlapi.SignalUpdateTopic, "name: roses\n")
	signalAt(env, 3*time.Minute, crawlapi.SignalStop, nil)
	st := f.result(crawlapi.CrawlInput{TopicYAML: "name: roses"})
	t.Logf("phase %s, reason %q, claimed %d of %d, stop requested %v, states %v", st.Phase, st.Reason, st.Claimed, st.Params.MaxPages, st.StopRequested, f.states)
	if st.StopRequested && st.Phase != crawlapi.PhaseStopped {
		t.Errorf("stopped by its operator with %d of %d pages claimed, the crawl ended %s (%q); want stopped", st.Claimed, st.Params.MaxPages, st.Phase, st.Reason)
	}
}

// TestCrawlStopDuringFinalStepsWithNewSeeds: the frontier ran dry, the
// final steps run (a minute's re-judgement); add-seeds brings new entries,
// then a stop comes. The stop is handled at once, the seeds after the steps
// (takeLate): the crawl, stopped by its operator with entries queued, ended
// "completed: frontier exhausted" and wrote its row "completed" over the
// stop's "stopped". The budget's twin of this was fixed alike
// (TestCrawlStopDuringFinalStepsWithRaisedBudget).
func TestCrawlStopDuringFinalStepsWithNewSeeds(t *testing.T) {
	p := baseParams()
	p.Pipelines = 1
	f, env := newFakeCrawl(t, p, 3)
	slow(f, crawlapi.RejudgeCrawl, time.Minute, f.rejudge) // s1 ends at 1m, dry; the final steps run to 2m
	signalAt(env, 90*time.Second, crawlapi.SignalAddSeeds, []string{"http://a.test/1"})
	signalAt(env, 100*time.Second, crawlapi.SignalStop, nil)
	st := f.result(crawlapi.CrawlInput{TopicYAML: "name: roses"})
	if st.Claimed != 3 || st.SeedsAdded != 1 {
		t.Fatalf("claimed %d, seeds added %d; want the 3 seeds claimed and the late one added, not crawled", st.Claimed, st.SeedsAdded)
	}
	if st.Phase != crawlapi.PhaseStopped || st.Reason != "stopped by operator" {
		t.Errorf("stopped with a new seed queued, the crawl ended %s (%q); want stopped by operator", st.Phase, st.Reason)
	}
	if n := len(f.states); n == 0 || f.states[n-1] != "stopped" {
		t.Errorf("crawl states recorded %v; want the last to be stopped", f.states)
	}
}
