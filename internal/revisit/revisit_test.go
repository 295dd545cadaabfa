package revisit

import (
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"focuscrawl/internal/config"
)

func TestNext(t *testing.T) {
	c := config.Refresh{MinInterval: time.Hour, MaxInterval: 100 * time.Hour, InitialInterval: 10 * time.Hour}
	tests := []struct {
		name            string
		base            time.Duration
		changed         bool
		rel, hub        float64
		wantBase, wantW time.Duration
	}{
		{"new page unchanged, middling", 0, false, 0.5, 0, 15 * time.Hour, 15 * time.Hour},
		{"new page changed, middling", 0, true, 0.5, 0, 5 * time.Hour, 5 * time.Hour},
		{"relevant page comes back sooner", 10 * time.Hour, false, 1, 0, 15 * time.Hour, 11*time.Hour + 15*time.Minute},
		{"irrelevant page later", 10 * time.Hour, false, 0, 0, 15 * time.Hour, 18*time.Hour + 45*time.Minute},
		{"hub score counts like relevance", 10 * time.Hour, false, 0, 1, 15 * time.Hour, 11*time.Hour + 15*time.Minute},
		{"clamped at max", 90 * time.Hour, false, 0, 0, 100 * time.Hour, 100 * time.Hour},
		{"clamped at min", time.Hour, true, 1, 0, time.Hour, time.Hour},
		{"NaN relevance is no importance", 10 * time.Hour, false, nan(), 0, 15 * time.Hour, 18*time.Hour + 45*time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, w := Next(c, tt.base, tt.changed, tt.rel, tt.hub)
			if b != tt.wantBase || w != tt.wantW {
				t.Errorf("Next = %s, %s; want %s, %s", b, w, tt.wantBase, tt.wantW)
			}
		})
	}
}

func nan() float64 { z := 0.0; return z / z }

// TestDropped: a dropped page is checked again on the unchanged schedule of
// a marginal page, recheck_dropped times, then given up; 0 gives up at once.
func TestDropped(t *testing.T) {
	c := config.Refresh{MinInterval: time.Hour, MaxInterval: 100 * time.Hour, InitialInterval: 10 * time.Hour, RecheckDropped: 2}
	for _, tc := range []struct {
		times           int
		wantBase, wantW time.Duration
		wantOK          bool
	}{
		{1, 15 * time.Hour, 18*time.Hour + 45*time.Minute, true},
		{2, 15 * time.Hour, 18*time.Hour + 45*time.Minute, true},
		{3, 10 * time.Hour, 0, false},
	} {
		b, w, ok := Dropped(c, 10*time.Hour, tc.times)
		if b != tc.wantBase || w != tc.wantW || ok != tc.wantOK {
			t.Errorf("Dropped(%d) = %s, %s, %v; want %s, %s, %v", tc.times, b, w, ok, tc.wantBase, tc.wantW, tc.wantOK)
		}
	}
	c.RecheckDropped = 0
	if _, _, ok := Dropped(c, 10*time.Hour, 1); ok {
		t.Error("recheck_dropped 0: a dropped page is checked again")
	}
}

// TestScheduledIntervalsWithTimeSkipping drives a refresh loop at a fixed
// interval on the test environment's skipped clock: the adaptive interval's
// effect is that a page unchanged at every visit is checked less and less
// often. A workflow sleeps until each next visit computed by Next.
func TestScheduledIntervalsWithTimeSkipping(t *testing.T) {
	cfg := config.Refresh{MinInterval: time.Hour, MaxInterval: 10 * 24 * time.Hour, InitialInterval: 24 * time.Hour}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	visits := []time.Duration{}
	wf := func(ctx workflow.Context) (int, error) {
		start := workflow.Now(ctx)
		base := time.Duration(0)
		for workflow.Now(ctx).Sub(start) < 30*24*time.Hour {
			var wait time.Duration
			base, wait = Next(cfg, base, false, 0.5, 0)
			if err := workflow.Sleep(ctx, wait); err != nil {
				return 0, err
			}
			visits = append(visits, workflow.Now(ctx).Sub(start))
		}
		return len(visits), nil
	}
	env.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: "intervals"})
	env.ExecuteWorkflow("intervals")
	var n int
	if err := env.GetWorkflowResult(&n); err != nil {
		t.Fatal(err)
	}
	for i := 2; i < len(visits); i++ {
		if visits[i]-visits[i-1] < visits[i-1]-visits[i-2] {
			t.Errorf("gap %d (%s) shorter than gap %d: an unchanged page must be visited less often", i, visits[i]-visits[i-1], i-1)
		}
	}
	if n < 3 || n > 10 {
		t.Errorf("%d visits in 30 simulated days (%v); want a handful", n, visits)
	}
}

// TestAfterFailure: a page whose checks keep failing transiently waits
// refresh.min_interval after the first failure, 1.5× longer after each
// further one, up to refresh.max_interval; its base interval is kept.
func TestAfterFailure(t *testing.T) {
	c := config.Refresh{MinInterval: time.Hour, MaxInterval: 10 * time.Hour, InitialInterval: 24 * time.Hour}
	want := []time.Duration{time.Hour, time.Hour, 90 * time.Minute, 135 * time.Minute, 202*time.Minute + 30*time.Second,
		303*time.Minute + 45*time.Second, 455*time.Minute + 37*time.Second + 500*time.Millisecond, 10 * time.Hour, 10 * time.Hour}
	for times, w := range want { // times 0 (an old row without a count) reads as the first failure
		b, got := AfterFailure(c, 7*time.Hour, times)
		if got != w || b != 7*time.Hour {
			t.Errorf("AfterFailure(times %d) = %s, %s; want base 7h kept, wait %s", times, b, got, w)
		}
	}
	// Far past the cap it stays there (no overflow into a negative wait).
	if _, got := AfterFailure(c, 0, 1_000_000); got != 10*time.Hour {
		t.Errorf("AfterFailure(a million) = %s; want max_interval", got)
	}
	// The waits of the default settings: a host down for three days
	// (refresh.drop_unreachable_after) is asked about ten times, not 72.
	d := config.Refresh{MinInterval: time.Hour, MaxInterval: 720 * time.Hour, DropUnreachableAfter: 72 * time.Hour}
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now, checks := since, 1
	for !Unreachable(d, checks, since, now) {
		_, w := AfterFailure(d, 0, checks)
		now, checks = now.Add(w), checks+1
	}
	if checks < 8 || checks > 12 {
		t.Errorf("a host down from the start is given up at check %d, %s on; want about ten checks", checks, now.Sub(since))
	}
}

// TestUnreachable: a page is unreachable after at least
// MinUnreachableChecks failed checks in a row spanning
// refresh.drop_unreachable_after; 0 turns it off.
func TestUnreachable(t *testing.T) {
	c := config.Refresh{DropUnreachableAfter: 72 * time.Hour}
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		times int
		after time.Duration
		want  bool
	}{
		{3, 72 * time.Hour, true},
		{10, 100 * time.Hour, true},
		{3, 71 * time.Hour, false},                             // too short a span
		{MinUnreachableChecks - 1, 30 * 24 * time.Hour, false}, // a weekly schedule's two failures a week apart
		{0, 100 * time.Hour, false},
	} {
		if got := Unreachable(c, tc.times, since, since.Add(tc.after)); got != tc.want {
			t.Errorf("Unreachable(%d failures over %s) = %v; want %v", tc.times, tc.after, got, tc.want)
		}
	}
	if Unreachable(c, 5, time.Time{}, since) {
		t.Error("a count without the time of its first failure (an old row) is unreachable")
	}
	c.DropUnreachableAfter = 0
	if Unreachable(c, 100, since, since.Add(1000*time.Hour)) {
		t.Error("drop_unreachable_after 0: a page is given up as unreachable")
	}
}
