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
