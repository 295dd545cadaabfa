package activities

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
)

// slowClaimStore is a crawl store whose ClaimRefresh stands still (the
// store's writer busy, another claim of the topic under way) until its
// context ends, which it reports by closing seen, or until giveUp closes.
// Entering it calls entered once.
type slowClaimStore struct {
	store.Store
	entered      func()
	seen, giveUp chan struct{}
}

func (s *slowClaimStore) ClaimRefresh(ctx context.Context, req store.RefreshClaim) (int, error) {
	if f := s.entered; f != nil {
		s.entered = nil
		f()
	}
	select {
	case <-ctx.Done():
		close(s.seen)
		return 0, ctx.Err()
	case <-s.giveUp:
		return 0, nil
	}
}

// TestClaimRefreshSeesCancel: a refresh is cancelled while its claim
// stands still in the store. The claim beats (beatThroughout), and its
// heartbeat brings the cancel to it: its context ends, and the store call
// with it. Before, ClaimRefresh sent no heartbeat, the only way a cancel
// reaches a running activity: the claim went on to its end, or to its
// start-to-close timeout, and the refresh, which waits for it before
// releasing the batch (WaitForCancellation), waited as long.
//
// Temporal's test environment resolves a cancelled activity at once for
// the workflow and then answers the activity's next heartbeat that it is
// gone, which the SDK takes for a cancel as it takes the server's answer
// that one was asked for: each beat is held back until the workflow has
// ended, so that the first reaches the environment after the cancel.
func TestClaimRefreshSeesCancel(t *testing.T) {
	a, _, tv, _ := topicFixture(t, "name: roses\nkeywords: {rose: 1}\nseeds: [http://a.test/]\n")
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	ended := make(chan struct{})
	st := &slowClaimStore{Store: a.Store, seen: make(chan struct{}), giveUp: make(chan struct{}),
		entered: env.CancelWorkflow}
	t.Cleanup(func() { close(st.giveUp) })
	a.Store = st
	oldBeat, oldRecord := stepBeat, recordHeartbeat
	stepBeat = time.Millisecond
	recordHeartbeat = func(ctx context.Context, details ...any) {
		<-ended
		oldRecord(ctx, details...)
	}
	t.Cleanup(func() { stepBeat, recordHeartbeat = oldBeat, oldRecord })
	env.RegisterActivityWithOptions(a.ClaimRefresh, activity.RegisterOptions{Name: crawlapi.ClaimRefresh.Name})
	// The refresh's claim: the short activities' options, waiting for
	// the claim's cancellation (RefreshWorkflow).
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, in crawlapi.RefreshClaimInput) (int, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute,
			WaitForCancellation: true, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
		return crawlapi.ClaimRefresh.Execute(ctx, in).Get(ctx)
	}, workflow.RegisterOptions{Name: "claim"})
	env.ExecuteWorkflow("claim", crawlapi.RefreshClaimInput{Topic: "roses", BatchID: "refresh/1", Max: 10, TopicVersion: tv})
	if err := env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("the refresh's claim ended %v; want cancelled", err)
	}
	close(ended)
	select {
	case <-st.seen:
	case <-time.After(beatWait):
		t.Fatalf("the claim did not see the cancel within %v (its beats every %v): it sent no heartbeat", beatWait, stepBeat)
	}
}
