package crawlapi

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// TestTypedActivities runs a workflow that calls activities through the
// contract against implementations registered through it: inputs arrive and
// results come back typed, and an activity's application error type survives
// the round trip (the workflows match on ErrNoTopic and friends).
func TestTypedActivities(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var gotState SetCrawlStateInput
	CountQueued.Register(env, func(_ context.Context, topic string) (int, error) { return len(topic), nil })
	SetCrawlState.Register(env, func(_ context.Context, in SetCrawlStateInput) (struct{}, error) {
		gotState = in
		return struct{}{}, nil
	})
	StartRefresh.Register(env, func(context.Context, StartRefreshInput) (StartRefreshResult, error) {
		return StartRefreshResult{}, temporal.NewNonRetryableApplicationError("never crawled", ErrNoTopic, nil)
	})
	type result struct {
		Queued  int
		NoTopic bool
	}
	wf := func(ctx workflow.Context, topic string) (result, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
		var r result
		var err error
		if r.Queued, err = CountQueued.Run(ctx, topic); err != nil {
			return r, err
		}
		if _, err := SetCrawlState.Execute(ctx, SetCrawlStateInput{CrawlID: "c1", State: "paused"}).Get(ctx); err != nil {
			return r, err
		}
		_, err = StartRefresh.Run(ctx, StartRefreshInput{Topic: topic})
		var appErr *temporal.ApplicationError
		r.NoTopic = errors.As(err, &appErr) && appErr.Type() == ErrNoTopic
		return r, nil
	}
	env.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: "typed"})
	env.ExecuteWorkflow("typed", "roses")
	var r result
	if err := env.GetWorkflowResult(&r); err != nil {
		t.Fatal(err)
	}
	if r.Queued != len("roses") || !r.NoTopic || gotState != (SetCrawlStateInput{CrawlID: "c1", State: "paused"}) {
		t.Errorf("result %+v, SetCrawlState got %+v; want 5 queued, the NoTopic error type, c1 paused", r, gotState)
	}
}

// TestTypedChildWorkflow starts a workflow declared in the contract as a
// child and gets its typed result.
func TestTypedChildWorkflow(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	TopicCrawlWorkflow.Register(env, func(ctx workflow.Context, in CrawlInput) (*CrawlState, error) {
		return &CrawlState{Topic: in.TopicYAML, Accepted: 3, OK: 4}, nil
	})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) (float64, error) {
		st, err := TopicCrawlWorkflow.ExecuteChild(ctx, CrawlInput{TopicYAML: "name: roses"}).Get(ctx)
		if err != nil {
			return 0, err
		}
		return st.HarvestRate(), nil
	}, workflow.RegisterOptions{Name: "parent"})
	env.ExecuteWorkflow("parent")
	var rate float64
	if err := env.GetWorkflowResult(&rate); err != nil {
		t.Fatal(err)
	}
	if rate != 0.75 {
		t.Errorf("harvest rate from the child's state = %v, want 0.75", rate)
	}
}

// TestUntil: the waits a refresh's reason and status give are as precise
// as an operator planning around them needs ("in 3d", not "in 72h0m0s").
func TestUntil(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		45 * time.Second:                              "in 45s",
		6*time.Hour + 30*time.Minute + 20:             "in 6h30m",
		6 * time.Hour:                                 "in 6h",
		12 * time.Minute:                              "in 12m",
		47*time.Hour + 59*time.Minute:                 "in 47h59m",
		3 * 24 * time.Hour:                            "in 3d",
		3*24*time.Hour + 4*time.Hour + 29*time.Minute: "in 3d4h",
		300 * time.Millisecond:                        "in 1s",
		59*time.Second + 500*time.Millisecond:         "in 1m",
		0:                                             "now",
		-500 * time.Millisecond:                       "now",
		-2*time.Hour - time.Minute:                    "2h1m ago",
	} {
		if got := Until(now.Add(d), now); got != want {
			t.Errorf("Until(now%+v) = %q, want %q", d, got, want)
		}
	}
}

// TestNoPagesDueReason: a refresh's end says when the next page is due, and
// that a page due again while it ran waits for the next refresh (claims
// take only the pages due at its start).
func TestNoPagesDueReason(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		o       *RefreshOutlook
		claimed int
		want    string
	}{
		{nil, 0, "no pages due"},
		{nil, 5, "no more pages due"},
		{&RefreshOutlook{Refreshable: 0}, 0, "no accepted pages to refresh"},
		{&RefreshOutlook{Refreshable: 3, NextDueAt: now.Add(time.Hour)}, 0, "no pages due; the next page is due at 2026-01-02T04:00:00Z (1h after this refresh's end)"},
		// A refresh that revisited pages: not "no pages due" (a trial's
		// refresh --all checked 59 and said so).
		{&RefreshOutlook{Refreshable: 3, NextDueAt: now.Add(time.Hour)}, 59, "no more pages due; the next page is due at 2026-01-02T04:00:00Z (1h after this refresh's end)"},
		{&RefreshOutlook{Refreshable: 3, NextDueAt: now.Add(-time.Minute)}, 0,
			"no pages due; the next page is due at 2026-01-02T02:59:00Z, after this refresh's start: left to the next refresh"},
	} {
		if got := NoPagesDueReason(tt.o, tt.claimed, now); got != tt.want {
			t.Errorf("NoPagesDueReason(%+v) = %q, want %q", tt.o, got, tt.want)
		}
	}
}
