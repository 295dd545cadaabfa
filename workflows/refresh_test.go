package workflows

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/crawlapi"
)

// fakeRefresh is an in-memory stand-in for the refresh activities: a fixed
// number of due pages, a batch of which changes, one of which is gone.
type fakeRefresh struct {
	due      int
	claimed  int
	stages   map[string]int
	finished int
	// failFrom, when > 0, makes Refetch fail from that batch on (1-based).
	failFrom  int
	refetches int
	// outlook is StartRefresh's (nil: a worker that predates it), next
	// NextRefresh's, which nextCalls counts.
	outlook, next *crawlapi.RefreshOutlook
	nextCalls     int
	// storedAt is the topic version's stored time StartRefresh returns;
	// marks records the topic version and stored time each later activity
	// was given, by activity; wrongStoreClaims is how many claims fail
	// with WrongStore first.
	storedAt         time.Time
	marks            map[string][]storeMark
	wrongStoreClaims int
	// dueBy records each claim's DueBy; startDueAt StartRefresh's DueAt,
	// madeDue what StartRefresh answers it made due.
	dueBy      []time.Time
	startDueAt []time.Time
	madeDue    int
	// held is how many pages each batch holds in the fake store: from its
	// claim to its FinishRefresh or its release; released lists the
	// batches ReleaseRefresh was asked to release, in order.
	held     map[string]int
	released []string
}

// storeMark is what a refresh activity is given to check its crawl store by.
type storeMark struct {
	Version  int
	StoredAt time.Time
}

func (f *fakeRefresh) mark(activity string, version int, storedAt time.Time) {
	f.marks[activity] = append(f.marks[activity], storeMark{version, storedAt})
}

func (f *fakeRefresh) register(env *testsuite.TestWorkflowEnvironment, params crawlapi.RefreshParams) {
	f.stages = map[string]int{}
	f.marks = map[string][]storeMark{}
	f.held = map[string]int{}
	crawlapi.StartRefresh.Register(env, func(ctx context.Context, in crawlapi.StartRefreshInput) (crawlapi.StartRefreshResult, error) {
		f.startDueAt = append(f.startDueAt, in.DueAt)
		made := 0
		if !in.DueAt.IsZero() {
			made = f.madeDue
		}
		return crawlapi.StartRefreshResult{Topic: in.Topic, TopicVersion: 3, ModelVersion: 2, Due: f.due, Params: params,
			Outlook: f.outlook, TopicStoredAt: f.storedAt, MadeDue: made}, nil
	})
	crawlapi.NextRefresh.Register(env, func(ctx context.Context, in crawlapi.NextRefreshInput) (crawlapi.RefreshOutlook, error) {
		f.nextCalls++
		f.mark(crawlapi.NextRefresh.Name, in.TopicVersion, in.TopicStoredAt)
		if f.next == nil {
			return crawlapi.RefreshOutlook{}, temporal.NewNonRetryableApplicationError("store down", "Test", nil)
		}
		return *f.next, nil
	})
	crawlapi.ClaimRefresh.Register(env, f.claim)
	crawlapi.Refetch.Register(env, f.refetch)
	crawlapi.Parse.Register(env, func(ctx context.Context, ref crawlapi.BatchRef) (crawlapi.ParseResult, error) {
		f.stages[crawlapi.Parse.Name]++
		f.mark(crawlapi.Parse.Name, ref.TopicVersion, ref.TopicStoredAt)
		return crawlapi.ParseResult{}, nil
	})
	crawlapi.FilterPages.Register(env, func(ctx context.Context, ref crawlapi.BatchRef) (crawlapi.FilterResult, error) {
		f.stages[crawlapi.FilterPages.Name]++
		f.mark(crawlapi.FilterPages.Name, ref.TopicVersion, ref.TopicStoredAt)
		return crawlapi.FilterResult{}, nil
	})
	crawlapi.PredictLinks.Register(env, func(ctx context.Context, ref crawlapi.BatchRef) (crawlapi.PredictResult, error) {
		f.stages[crawlapi.PredictLinks.Name]++
		f.mark(crawlapi.PredictLinks.Name, ref.TopicVersion, ref.TopicStoredAt)
		return crawlapi.PredictResult{Links: 5, Enqueued: 2}, nil
	})
	crawlapi.FinishRefresh.Register(env, func(ctx context.Context, ref crawlapi.BatchRef) (crawlapi.FinishRefreshResult, error) {
		f.finished++
		f.mark(crawlapi.FinishRefresh.Name, ref.TopicVersion, ref.TopicStoredAt)
		delete(f.held, ref.BatchID)
		return crawlapi.FinishRefreshResult{Kept: 1, Removed: 1}, nil
	})
	crawlapi.ReleaseRefresh.Register(env, f.release)
}

// release is the fake ReleaseRefresh.
func (f *fakeRefresh) release(ctx context.Context, in crawlapi.ReleaseRefreshInput) (int, error) {
	f.mark(crawlapi.ReleaseRefresh.Name, in.TopicVersion, in.TopicStoredAt)
	f.released = append(f.released, in.BatchID)
	n := f.held[in.BatchID]
	delete(f.held, in.BatchID)
	return n, nil
}

// claim is the fake ClaimRefresh.
func (f *fakeRefresh) claim(ctx context.Context, in crawlapi.RefreshClaimInput) (int, error) {
	f.mark(crawlapi.ClaimRefresh.Name, in.TopicVersion, in.TopicStoredAt)
	f.dueBy = append(f.dueBy, in.DueBy)
	if f.wrongStoreClaims > 0 {
		f.wrongStoreClaims--
		return 0, temporal.NewApplicationError("not in this worker's crawl store", crawlapi.ErrWrongStore)
	}
	n := min(in.Max, f.due-f.claimed)
	f.claimed += n
	if n > 0 {
		f.held[in.BatchID] = n
	}
	return n, nil
}

// refetch is the fake Refetch.
func (f *fakeRefresh) refetch(ctx context.Context, ref crawlapi.BatchRef) (crawlapi.RefetchResult, error) {
	f.refetches++
	f.mark(crawlapi.Refetch.Name, ref.TopicVersion, ref.TopicStoredAt)
	if f.failFrom > 0 && f.refetches >= f.failFrom {
		return crawlapi.RefetchResult{}, temporal.NewNonRetryableApplicationError("index unreachable", "Test", nil)
	}
	// Every batch: one changed page, one gone, the rest 304.
	return crawlapi.RefetchResult{Checked: 4, NotModified: 2, Changed: 1, Gone: 1}, nil
}

func TestRefreshWorkflowCountsBatches(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	f := &fakeRefresh{due: 10}
	f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100})
	env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var st crawlapi.RefreshState
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	// 10 due pages in batches of 4: 3 batches, then an empty claim ends the run.
	if st.Claimed != 10 || st.Batches != 4 || st.Checked != 12 || st.Changed != 3 || st.Gone != 3 ||
		st.NotModified != 6 || st.Kept != 3 || st.Removed != 3 || st.Enqueued != 6 || st.Phase != crawlapi.PhaseCompleted {
		t.Errorf("state = %+v", st)
	}
	if f.stages[crawlapi.Parse.Name] != 3 || f.stages[crawlapi.FilterPages.Name] != 3 || f.finished != 3 {
		t.Errorf("stages = %v, finished %d; want every batch with changes through Parse, FilterPages, FinishRefresh", f.stages, f.finished)
	}
	if st.TopicVersion != 3 || st.ModelVersion != 2 {
		t.Errorf("versions = %d/%d; want 3/2", st.TopicVersion, st.ModelVersion)
	}
}

func TestRefreshWorkflowMaxPages(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	f := &fakeRefresh{due: 50}
	f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 6})
	env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses"})
	var st crawlapi.RefreshState
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if st.Claimed != 6 || st.Batches != 2 || st.Reason != "refresh.max_pages reached" {
		t.Errorf("claimed %d in %d batches (%s); want 6 in 2, budget reached", st.Claimed, st.Batches, st.Reason)
	}
}

// TestRefreshWorkflowContinuesAsNew: a refresh continues as new after its
// batches per run, carrying its state, and every claim of every run asks
// only for pages due at the refresh's start. Before DueBy, each claim took
// what was due when it ran, so a page the refresh had revisited early and
// that came due again before the refresh ended (a short
// refresh.min_interval) was claimed and fetched again.
func TestRefreshWorkflowContinuesAsNew(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	f := &fakeRefresh{due: 20}
	f.register(env, crawlapi.RefreshParams{BatchSize: 2, MaxPages: 100})
	env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses", BatchesPerRun: 3})
	// The next run's input carries only the state: IDs and counters.
	next := continuedInput[crawlapi.RefreshInput](t, env)
	if next.Continued == nil || next.Continued.Batches != 3 || next.Continued.Claimed != 6 || next.Continued.Runs != 1 ||
		next.Topic != "roses" || next.TopicYAML != "" {
		t.Errorf("continued input = %+v (state %+v)", next, next.Continued)
	}
	// Running the continuation finishes the remaining pages without a new StartRefresh.
	env2 := s.NewTestWorkflowEnvironment()
	f.register(env2, crawlapi.RefreshParams{})
	env2.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses", Continued: next.Continued})
	var st crawlapi.RefreshState
	if err := env2.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if st.Claimed != 20 || st.Runs != 2 {
		t.Errorf("after continuation: claimed %d, runs %d; want 20, 2", st.Claimed, st.Runs)
	}
	if len(f.dueBy) != 11 || st.StartedAt.IsZero() {
		t.Fatalf("%d claims, started %v; want 11 (the last empty)", len(f.dueBy), st.StartedAt)
	}
	for i, d := range f.dueBy {
		if !d.Equal(st.StartedAt) {
			t.Errorf("claim %d: due by %v; want the refresh's start, %v", i+1, d, st.StartedAt)
		}
	}
}

// continuedInput is the input of the run a workflow (a refresh, a crawl)
// continued as new with, having reached its batches or slices per run.
func continuedInput[In any](t *testing.T, env *testsuite.TestWorkflowEnvironment) In {
	t.Helper()
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("workflow error = %v; want continue-as-new after the run's batches or slices", err)
	}
	var next In
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	return next
}

func TestRefreshWorkflowBootstrapsFirstCrawl(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(TopicCrawlWorkflow)
	crawlapi.StartRefresh.Register(env, func(ctx context.Context, in crawlapi.StartRefreshInput) (crawlapi.StartRefreshResult, error) {
		return crawlapi.StartRefreshResult{}, temporal.NewNonRetryableApplicationError("never crawled", crawlapi.ErrNoTopic, nil,
			"sqlite var/focuscrawl.db")
	})
	var gotYAML string
	env.OnWorkflow(TopicCrawlWorkflow, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in crawlapi.CrawlInput) (*crawlapi.CrawlState, error) {
			gotYAML = in.TopicYAML
			return &crawlapi.CrawlState{Reason: "frontier exhausted"}, nil
		})
	env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses", TopicYAML: "name: roses"})
	var st crawlapi.RefreshState
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if gotYAML != "name: roses" || st.ChildCrawlID == "" || st.Phase != crawlapi.PhaseCompleted {
		t.Errorf("bootstrap: yaml %q, child %q, phase %s", gotYAML, st.ChildCrawlID, st.Phase)
	}
	// The store that did not know the topic is in the status: a worker
	// with another store takes a crawled topic for a new one.
	if st.Store != "sqlite var/focuscrawl.db" {
		t.Errorf("bootstrap: store %q; want the one StartRefresh named", st.Store)
	}
}

func TestRefreshWorkflowWithoutTopicFails(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	crawlapi.StartRefresh.Register(env, func(ctx context.Context, in crawlapi.StartRefreshInput) (crawlapi.StartRefreshResult, error) {
		return crawlapi.StartRefreshResult{}, temporal.NewNonRetryableApplicationError("never crawled", crawlapi.ErrNoTopic, nil)
	})
	env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "nope"})
	var appErr *temporal.ApplicationError
	if err := env.GetWorkflowError(); !errors.As(err, &appErr) || appErr.Type() != crawlapi.ErrNoTopic {
		t.Fatalf("error = %v; want the non-retryable %s", err, crawlapi.ErrNoTopic)
	}
}

// TestRefreshWorkflowStopsAfterFailedBatches: a refresh whose batches keep
// failing (the index or store down) stops, failed, after
// MaxFailedBatchesInRow of them in a row instead of refetching
// refresh.max_pages pages into the failure; a batch that succeeds resets
// the count. Runs recorded before replay going on.
func TestRefreshWorkflowStopsAfterFailedBatches(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version workflow.Version
		batches int
	}{
		{"current", 1, 2 + crawlapi.MaxFailedBatchesInRow},
		{"recorded before", workflow.DefaultVersion, 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			env.OnGetVersion("stop-after-failed-batches", workflow.DefaultVersion, 1).Return(tc.version)
			f := &fakeRefresh{due: 1000, failFrom: 3}
			f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100})
			env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses"})
			if f.refetches != tc.batches {
				t.Errorf("%d batches refetched; want %d", f.refetches, tc.batches)
			}
			err := env.GetWorkflowError()
			if tc.version == 1 && (err == nil || !strings.Contains(err.Error(), "3 batches in a row failed")) {
				t.Errorf("workflow error %v; want the refresh stopped after 3 failed batches", err)
			}
			if tc.version != 1 && err != nil {
				t.Errorf("workflow error %v; want the run recorded before to go on to max_pages", err)
			}
		})
	}
}

// TestRefreshWorkflowSaysWhenPagesAreDue: a refresh that found nothing (more)
// due ended with "no pages due" and nothing of when there would be; it now
// says when the next page is due, from StartRefresh's outlook when it took
// nothing and from NextRefresh's at its end when it rescheduled pages, or
// that the topic has nothing to refresh at all. An older worker's
// StartRefresh (no outlook), a NextRefresh that fails and a run recorded
// before NextRefresh existed keep the old reason.
func TestRefreshWorkflowSaysWhenPagesAreDue(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	soon := &crawlapi.RefreshOutlook{Refreshable: 40, NextDueAt: start.Add(6*time.Hour + 30*time.Minute)}
	later := &crawlapi.RefreshOutlook{Refreshable: 38, NextDueAt: start.Add(3 * 24 * time.Hour)}
	for _, tc := range []struct {
		name          string
		due           int
		outlook, next *crawlapi.RefreshOutlook
		version       workflow.Version
		want          string
		nextCalls     int
		wantOutlook   *crawlapi.RefreshOutlook
	}{
		{"nothing due", 0, soon, later, 1, "no pages due; the next page is due at 2026-01-02T09:30:00Z (6h30m after this refresh's end)", 0, soon},
		{"nothing to refresh", 0, &crawlapi.RefreshOutlook{}, later, 1, "no accepted pages to refresh", 0, &crawlapi.RefreshOutlook{}},
		{"an older worker's StartRefresh", 0, nil, later, 1, "no pages due", 0, nil},
		{"pages refreshed", 10, soon, later, 1, "no more pages due; the next page is due at 2026-01-05T03:00:00Z (3d after this refresh's end)", 1, later},
		{"pages refreshed, NextRefresh failed", 10, soon, nil, 1, "no more pages due", 1, nil},
		{"pages refreshed, recorded before", 10, soon, later, workflow.DefaultVersion, "no more pages due", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			env.SetStartTime(start)
			env.OnGetVersion("refresh-outlook-at-end", workflow.DefaultVersion, 1).Return(tc.version)
			f := &fakeRefresh{due: tc.due, outlook: tc.outlook, next: tc.next}
			f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100})
			env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses"})
			var st crawlapi.RefreshState
			if err := env.GetWorkflowResult(&st); err != nil {
				t.Fatal(err)
			}
			if st.Phase != crawlapi.PhaseCompleted || st.Reason != tc.want || st.Claimed != tc.due {
				t.Errorf("refresh %s (%s), %d claimed; want completed (%s), %d", st.Phase, st.Reason, st.Claimed, tc.want, tc.due)
			}
			if f.nextCalls != tc.nextCalls {
				t.Errorf("NextRefresh ran %d times; want %d", f.nextCalls, tc.nextCalls)
			}
			if (st.Outlook == nil) != (tc.wantOutlook == nil) || st.Outlook != nil &&
				(st.Outlook.Refreshable != tc.wantOutlook.Refreshable || !st.Outlook.NextDueAt.Equal(tc.wantOutlook.NextDueAt)) {
				t.Errorf("state's outlook = %+v; want %+v (a stale one dropped)", st.Outlook, tc.wantOutlook)
			}
		})
	}
}

// TestRefreshWorkflowCarriesItsStore: every activity after StartRefresh is
// given the topic version StartRefresh resolved and the time its crawl
// store recorded it, through continue-as-new too, so that a worker with
// another store refuses it (WrongStore, retryable: the claim is retried and
// the refresh goes on) instead of claiming nothing in its own store and
// ending "no pages due".
func TestRefreshWorkflowCarriesItsStore(t *testing.T) {
	storedAt := time.Date(2026, 1, 1, 12, 0, 0, 123456789, time.UTC)
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(TopicCrawlWorkflow)
	f := &fakeRefresh{due: 6, storedAt: storedAt, wrongStoreClaims: 2}
	f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100, ContinueMaxPages: 10})
	var yamlIn crawlapi.TopicYAMLInput
	crawlapi.TopicYAML.Register(env, func(ctx context.Context, in crawlapi.TopicYAMLInput) (string, error) {
		yamlIn = in
		return "name: roses", nil
	})
	env.OnWorkflow(TopicCrawlWorkflow, mock.Anything, mock.Anything).Return(&crawlapi.CrawlState{Reason: "page budget reached"}, nil)
	env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses", BatchesPerRun: 1})
	next := continuedInput[crawlapi.RefreshInput](t, env)
	if next.Continued == nil || !next.Continued.TopicStoredAt.Equal(storedAt) {
		t.Fatalf("continued state = %+v; want the topic's stored time", next.Continued)
	}
	env2 := s.NewTestWorkflowEnvironment()
	env2.RegisterWorkflow(TopicCrawlWorkflow)
	f.register(env2, crawlapi.RefreshParams{})
	crawlapi.TopicYAML.Register(env2, func(ctx context.Context, in crawlapi.TopicYAMLInput) (string, error) {
		yamlIn = in
		return "name: roses", nil
	})
	env2.OnWorkflow(TopicCrawlWorkflow, mock.Anything, mock.Anything).Return(&crawlapi.CrawlState{Reason: "page budget reached"}, nil)
	next.BatchesPerRun = 0 // the rest in this run
	env2.ExecuteWorkflow(RefreshWorkflow, next)
	var st crawlapi.RefreshState
	if err := env2.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if st.Claimed != 6 || st.FailedBatches != 0 {
		t.Errorf("refresh claimed %d pages, %d batches failed; want all 6, the WrongStore claims retried", st.Claimed, st.FailedBatches)
	}
	// The continuation crawl's own end stays in the reason, beside the
	// refresh's (it was overwritten).
	if !strings.Contains(st.Reason, "continuation crawl ") || !strings.Contains(st.Reason, "page budget reached") {
		t.Errorf("reason %q; want the continuation's end in it", st.Reason)
	}
	want := storeMark{3, storedAt}
	for _, name := range []string{crawlapi.ClaimRefresh.Name, crawlapi.Refetch.Name, crawlapi.Parse.Name, crawlapi.FilterPages.Name,
		crawlapi.PredictLinks.Name, crawlapi.FinishRefresh.Name, crawlapi.NextRefresh.Name} {
		if len(f.marks[name]) == 0 {
			t.Errorf("%s never ran", name)
		}
		for _, m := range f.marks[name] {
			if m.Version != want.Version || !m.StoredAt.Equal(want.StoredAt) {
				t.Errorf("%s was given topic v%d stored %v; want v%d stored %v", name, m.Version, m.StoredAt, want.Version, want.StoredAt)
			}
		}
	}
	if yamlIn.Version != 3 || !yamlIn.StoredAt.Equal(storedAt) {
		t.Errorf("TopicYAML was given %+v; want v3 stored %v", yamlIn, storedAt)
	}
}

// TestRefreshWorkflowAll: a refresh of everything (starter refresh --all)
// asks StartRefresh to make the topic's pages due at the refresh's start,
// which its claims then take (their DueBy); a schedule's run asks nothing.
func TestRefreshWorkflowAll(t *testing.T) {
	for _, all := range []bool{false, true} {
		var s testsuite.WorkflowTestSuite
		env := s.NewTestWorkflowEnvironment()
		f := &fakeRefresh{due: 6, madeDue: 5}
		f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100})
		env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses", All: all})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		var st crawlapi.RefreshState
		if err := env.GetWorkflowResult(&st); err != nil {
			t.Fatal(err)
		}
		if len(f.startDueAt) != 1 || len(f.dueBy) == 0 {
			t.Fatalf("all=%v: StartRefresh calls %v, claims %v", all, f.startDueAt, f.dueBy)
		}
		switch {
		case all && (!f.startDueAt[0].Equal(st.StartedAt) || st.StartedAt.IsZero() || st.MadeDue != 5):
			t.Errorf("all: StartRefresh DueAt %v, refresh started %v, made due %d; want the start, 5", f.startDueAt[0], st.StartedAt, st.MadeDue)
		case !all && (!f.startDueAt[0].IsZero() || st.MadeDue != 0):
			t.Errorf("scheduled: StartRefresh DueAt %v, made due %d; want none", f.startDueAt[0], st.MadeDue)
		}
		for _, d := range f.dueBy {
			if !d.Equal(st.StartedAt) {
				t.Errorf("all=%v: claim DueBy %v; want the refresh's start %v", all, d, st.StartedAt)
			}
		}
		if st.Claimed != 6 {
			t.Errorf("all=%v: claimed %d; want 6", all, st.Claimed)
		}
	}
}

// TestRefreshCancelReleasesBatch: a refresh cancelled while a batch runs
// releases the batch's claim at once (ReleaseRefresh, after the batch's
// activities), so its pages are claimable again now; before, they stayed
// held for crawl.lease and were then taken again only refresh.min_interval
// later. The batch's claim and stages are scheduled to wait for their
// cancellation (the test environment resolves a cancelled activity at once
// whatever the option says, so the option is what is checked here): a
// Refetch still running after the cancel would otherwise hold its page
// again after the release. A cancel that comes with a claim's result
// releases that claim's pages unvisited; one that comes with a batch's
// last result ends the refresh without another claim. Runs recorded before
// neither wait nor release.
func TestRefreshCancelReleasesBatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version workflow.Version
		// setup slows an activity down or has the cancel come with its
		// result; the cancel comes at cancelAt when it is > 0.
		setup    func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) []interceptor.WorkerInterceptor
		cancelAt time.Duration
		// released and held are the batches released and those left held
		// (by number); claims the claims made, claimed the pages counted.
		released, held  []int
		claims, claimed int
	}{
		// Refetch 0-1m (batch 1), 1m-2m (batch 2: cancelled at 1m30s).
		{"during refetch", 1, slowRefetch, 90 * time.Second, []int{2}, nil, 2, 8},
		{"during refetch, recorded before", workflow.DefaultVersion, slowRefetch, 90 * time.Second, nil, []int{2}, 2, 8},
		{"with a claim's result", 1, cancelWith(crawlapi.ClaimRefresh.Name, 2), 0, []int{2}, nil, 2, 4},
		// Recorded before, the claim's pages are counted and its Refetch,
		// on the cancelled context, fails at once.
		{"with a claim's result, recorded before", workflow.DefaultVersion, cancelWith(crawlapi.ClaimRefresh.Name, 2), 0, nil, []int{2}, 2, 8},
		{"with a batch's last result", 1, cancelWith(crawlapi.FinishRefresh.Name, 1), 0, nil, nil, 1, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := quietRefreshEnv()
			env.OnGetVersion("refresh-release-canceled-batch", workflow.DefaultVersion, 1).Return(tc.version)
			f := &fakeRefresh{due: 100}
			f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100})
			opts := &waitRecorder{waits: map[string][]bool{}}
			env.SetWorkerOptions(worker.Options{Interceptors: append(tc.setup(env, f), opts)})
			if tc.cancelAt > 0 {
				env.RegisterDelayedCallback(env.CancelWorkflow, tc.cancelAt)
			}
			st := canceledRefresh(t, env, crawlapi.RefreshInput{Topic: "roses"})
			var released, held []string
			for _, b := range tc.released {
				released = append(released, fmt.Sprintf("%s/r%06d", st.RefreshID, b))
			}
			for _, b := range tc.held {
				held = append(held, fmt.Sprintf("%s/r%06d", st.RefreshID, b))
			}
			if !slices.Equal(f.released, released) {
				t.Errorf("batches released %v; want %v", f.released, released)
			}
			if got := slices.Sorted(maps.Keys(f.held)); !slices.Equal(got, held) {
				t.Errorf("batches holding pages at the end %v; want %v", got, held)
			}
			if len(f.dueBy) != tc.claims || st.Claimed != tc.claimed || st.Phase != crawlapi.PhaseCanceled ||
				st.FailedBatches != 0 || st.LastError != "" {
				t.Errorf("%d claims; state %+v; want %d claims, %d pages claimed, canceled, no batch failed",
					len(f.dueBy), st, tc.claims, tc.claimed)
			}
			if len(released) > 0 && !strings.Contains(st.Reason, "the 4 pages it still held were released") {
				t.Errorf("reason %q; want it to say the batch's 4 pages were released", st.Reason)
			}
			if tc.version == 1 {
				if ms := f.marks[crawlapi.ReleaseRefresh.Name]; len(released) > 0 && (len(ms) != 1 || ms[0].Version != 3) {
					t.Errorf("release given %v; want the refresh's topic version 3", ms)
				}
			}
			for _, a := range []string{crawlapi.ClaimRefresh.Name, crawlapi.Refetch.Name, crawlapi.Parse.Name,
				crawlapi.FilterPages.Name, crawlapi.PredictLinks.Name, crawlapi.FinishRefresh.Name} {
				ws := opts.waits[a]
				if len(ws) == 0 {
					continue // not reached before the cancel
				}
				for _, w := range ws {
					if w != (tc.version == 1) {
						t.Errorf("%s scheduled with WaitForCancellation %v; want %v", a, ws, tc.version == 1)
						break
					}
				}
			}
			if len(opts.waits[crawlapi.Refetch.Name]) == 0 || len(opts.waits[crawlapi.ClaimRefresh.Name]) == 0 {
				t.Errorf("activities scheduled %v; want a claim and a Refetch at least", opts.waits)
			}
		})
	}
}

// slowRefetch makes each Refetch take a minute.
func slowRefetch(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) []interceptor.WorkerInterceptor {
	slowOn(env, crawlapi.Refetch, time.Minute, f.refetch)
	return nil
}

// cancelWith has the workflow cancelled as the nth result of activity
// reaches it (cancelWithResult).
func cancelWith(activity string, nth int) func(*testsuite.TestWorkflowEnvironment, *fakeRefresh) []interceptor.WorkerInterceptor {
	return func(*testsuite.TestWorkflowEnvironment, *fakeRefresh) []interceptor.WorkerInterceptor {
		return []interceptor.WorkerInterceptor{&cancelWithResult{activity: activity, nth: nth}}
	}
}

// waitRecorder is a worker interceptor that records, by activity type, the
// WaitForCancellation option of every activity the workflow schedules.
type waitRecorder struct {
	interceptor.WorkerInterceptorBase
	waits map[string][]bool
}

// InterceptWorkflow gives each workflow run an inbound interceptor that
// puts waitRecorderOutbound in its outbound chain.
func (r *waitRecorder) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &waitRecorderInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, r: r}
}

// waitRecorderInbound installs waitRecorderOutbound.
type waitRecorderInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	r *waitRecorder
}

// Init puts waitRecorderOutbound in the workflow's outbound chain.
func (i *waitRecorderInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&waitRecorderOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, r: i.r})
}

// waitRecorderOutbound records each scheduled activity's option.
type waitRecorderOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	r *waitRecorder
}

// ExecuteActivity records the option and schedules the activity.
func (o *waitRecorderOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	o.r.waits[activityType] = append(o.r.waits[activityType], workflow.GetActivityOptions(ctx).WaitForCancellation)
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}

// TestRefreshFailureEndsState: a refresh that fails outright — its
// StartRefresh, the first crawl it runs for a topic never crawled, a claim
// or the topic's load for its crawl continuation — ends with phase failed,
// an end time and the error as its last, in its own state (the status
// query, `starter status`), as a cancelled one ends canceled
// (refreshCanceled). Before, only three failed batches in a row did: the
// others kept "starting", "bootstrap" or "refreshing", never ended. The
// workflow's error is what it was.
func TestRefreshFailureEndsState(t *testing.T) {
	broken := func() error { return temporal.NewNonRetryableApplicationError("store down", "Test", nil) }
	for _, tc := range []struct {
		name string
		// setup makes one step fail; in is the refresh's input.
		setup    func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh)
		in       crawlapi.RefreshInput
		wantErr  string // in the workflow's error, as before
		wantLast string // in the state's last error
	}{
		{"StartRefresh", func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			crawlapi.StartRefresh.Register(env, func(context.Context, crawlapi.StartRefreshInput) (crawlapi.StartRefreshResult, error) {
				return crawlapi.StartRefreshResult{}, broken()
			})
		}, crawlapi.RefreshInput{Topic: "roses"}, "store down", "store down"},
		{"topic never crawled, no topic file", func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			crawlapi.StartRefresh.Register(env, func(context.Context, crawlapi.StartRefreshInput) (crawlapi.StartRefreshResult, error) {
				return crawlapi.StartRefreshResult{}, temporal.NewNonRetryableApplicationError("never crawled", crawlapi.ErrNoTopic, nil)
			})
		}, crawlapi.RefreshInput{Topic: "roses"}, "never crawled", "never crawled"},
		{"first crawl", func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			crawlapi.StartRefresh.Register(env, func(context.Context, crawlapi.StartRefreshInput) (crawlapi.StartRefreshResult, error) {
				return crawlapi.StartRefreshResult{}, temporal.NewNonRetryableApplicationError("never crawled", crawlapi.ErrNoTopic, nil)
			})
			env.RegisterWorkflow(TopicCrawlWorkflow)
			env.OnWorkflow(TopicCrawlWorkflow, mock.Anything, mock.Anything).Return(nil, broken())
		}, crawlapi.RefreshInput{Topic: "roses", TopicYAML: "name: roses"}, "store down", "store down"},
		{"claim", func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			crawlapi.ClaimRefresh.Register(env, func(context.Context, crawlapi.RefreshClaimInput) (int, error) { return 0, broken() })
		}, crawlapi.RefreshInput{Topic: "roses"}, "claim refresh batch", "store down"},
		{"loading the continuation's topic", func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) {
			crawlapi.TopicYAML.Register(env, func(context.Context, crawlapi.TopicYAMLInput) (string, error) { return "", broken() })
		}, crawlapi.RefreshInput{Topic: "roses"}, "load topic for the crawl continuation", "store down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := quietRefreshEnv()
			f := &fakeRefresh{due: 4}
			f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: 100, ContinueMaxPages: 10})
			tc.setup(env, f)
			env.ExecuteWorkflow(RefreshWorkflow, tc.in)
			err := env.GetWorkflowError()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("refresh ended with %v; want it failed with %q", err, tc.wantErr)
			}
			v, err := env.QueryWorkflow(crawlapi.QueryRefreshStatus)
			if err != nil {
				t.Fatal(err)
			}
			var st crawlapi.RefreshState
			if err := v.Get(&st); err != nil {
				t.Fatal(err)
			}
			if st.Phase != crawlapi.PhaseFailed || st.EndedAt.IsZero() || st.Reason == "" ||
				!strings.Contains(st.LastError, tc.wantLast) || st.LastErrorAt.IsZero() {
				t.Errorf("state: phase %s (%q), ended %v, last error %q; want failed, ended, with a reason and the error",
					st.Phase, st.Reason, st.EndedAt, st.LastError)
			}
		})
	}
}

// TestRefreshCancelAtEnd: a cancel that reaches a refresh as it ends —
// while its final NextRefresh runs, or with the last result of the batch
// that reached refresh.max_pages — ends it cancelled, as a crawl cancelled
// during its final steps ends cancelled (crawler.end). Before, NextRefresh
// failed at once on the cancelled context, was only logged, and the
// workflow completed "completed" (or just completed after its last
// batch): the cancel was ignored. A cancel with a claim that finds nothing
// ended it cancelled already (refresh-release-canceled-batch). Runs
// recorded before replay completing.
func TestRefreshCancelAtEnd(t *testing.T) {
	slowNext := func(env *testsuite.TestWorkflowEnvironment, _ *fakeRefresh) []interceptor.WorkerInterceptor {
		slowOn(env, crawlapi.NextRefresh, time.Minute, func(context.Context, crawlapi.NextRefreshInput) (crawlapi.RefreshOutlook, error) {
			return crawlapi.RefreshOutlook{Refreshable: 4, NextDueAt: testStart.Add(24 * time.Hour)}, nil
		})
		return nil
	}
	for _, tc := range []struct {
		name    string
		version workflow.Version
		setup   func(env *testsuite.TestWorkflowEnvironment, f *fakeRefresh) []interceptor.WorkerInterceptor
		// cancelAt, when > 0, is when the cancel comes; maxPages is
		// refresh.max_pages (4 pages due, batches of 4); reason is in the
		// cancelled refresh's reason.
		cancelAt time.Duration
		maxPages int
		reason   string
	}{
		// Batch 1 takes the 4 pages, claim 2 none; NextRefresh runs 0-1m.
		{"during NextRefresh", 1, slowNext, 30 * time.Second, 100, "while it asked when the next page is due, after its last batch (no more pages due)"},
		{"during NextRefresh, recorded before", workflow.DefaultVersion, slowNext, 30 * time.Second, 100, ""},
		{"with the last batch's result", 1, cancelWith(crawlapi.FinishRefresh.Name, 1), 0, 4, "as it ended, after its last batch (refresh.max_pages reached)"},
		{"with the last batch's result, recorded before", workflow.DefaultVersion, cancelWith(crawlapi.FinishRefresh.Name, 1), 0, 4, ""},
		{"with an empty claim", 1, cancelWith(crawlapi.ClaimRefresh.Name, 2), 0, 100, "while claiming batch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := quietRefreshEnv()
			env.OnGetVersion("refresh-canceled-at-end", workflow.DefaultVersion, 1).Return(tc.version)
			f := &fakeRefresh{due: 4, next: &crawlapi.RefreshOutlook{Refreshable: 4, NextDueAt: testStart.Add(24 * time.Hour)}}
			f.register(env, crawlapi.RefreshParams{BatchSize: 4, MaxPages: tc.maxPages})
			env.SetWorkerOptions(worker.Options{Interceptors: tc.setup(env, f)})
			if tc.cancelAt > 0 {
				env.RegisterDelayedCallback(env.CancelWorkflow, tc.cancelAt)
			}
			if tc.version == workflow.DefaultVersion {
				env.ExecuteWorkflow(RefreshWorkflow, crawlapi.RefreshInput{Topic: "roses"})
				if err := env.GetWorkflowError(); err != nil {
					t.Errorf("run recorded before: ended with %v; want it completed, as it ran", err)
				}
				return
			}
			st := canceledRefresh(t, env, crawlapi.RefreshInput{Topic: "roses"})
			if st.Phase != crawlapi.PhaseCanceled || st.EndedAt.IsZero() || st.Reason == "" || st.Claimed != 4 ||
				st.FailedBatches != 0 || st.LastError != "" {
				t.Errorf("state %+v; want canceled after its 4 pages, with a reason, nothing failed", st)
			}
			if tc.cancelAt > 0 && !st.EndedAt.Equal(testStart.Add(tc.cancelAt)) {
				t.Errorf("ended at %s; want at the cancel, %s", st.EndedAt.Sub(testStart), tc.cancelAt)
			}
			if !strings.Contains(st.Reason, tc.reason) {
				t.Errorf("reason %q; want it to say %q", st.Reason, tc.reason)
			}
		})
	}
}
