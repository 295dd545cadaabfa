package crawlapi

import (
	"context"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// TestRetries: the pending activities past their first attempt, with the
// previous attempt's failure and, when it waits, its next attempt's time;
// first attempts are not retries.
func TestRetries(t *testing.T) {
	next := time.Date(2026, 11, 26, 17, 4, 31, 0, time.UTC)
	got := retries([]*workflowpb.PendingActivityInfo{
		{ActivityType: &commonpb.ActivityType{Name: "CrawlSlice"}, Attempt: 1, State: enumspb.PENDING_ACTIVITY_STATE_STARTED},
		{ActivityType: &commonpb.ActivityType{Name: "CrawlSlice"}, Attempt: 7, MaximumAttempts: 10,
			State: enumspb.PENDING_ACTIVITY_STATE_SCHEDULED, ScheduledTime: timestamppb.New(next),
			LastFailure: &failurepb.Failure{Message: "failed to connect"}},
		{ActivityType: &commonpb.ActivityType{Name: "RejudgeCrawl"}, Attempt: 2, MaximumAttempts: 5,
			State: enumspb.PENDING_ACTIVITY_STATE_STARTED, ScheduledTime: timestamppb.New(next),
			LastFailure: &failurepb.Failure{Message: "activity Heartbeat timeout"}},
	})
	want := []Retry{
		{Activity: "CrawlSlice", Attempt: 7, Maximum: 10, NextAttempt: next, LastFailure: "failed to connect"},
		{Activity: "RejudgeCrawl", Attempt: 2, Maximum: 5, LastFailure: "activity Heartbeat timeout"},
	}
	if len(got) != len(want) {
		t.Fatalf("retries = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("retry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestAddProgress: a running slice's heartbeat adds to every counter the
// status shows, indexed pages too (a running crawl read "indexed 0" beside
// 111 accepted pages), and the newest frontier reading wins.
func TestAddProgress(t *testing.T) {
	st := CrawlState{Fetched: 10, OK: 9, Failed: 1, Accepted: 5, Indexed: 5, Queued: 100}
	var queuedAt int64
	addProgress(&st, SliceProgress{Fetched: 4, OK: 3, Accepted: 2, Indexed: 2, Queued: 90, QueuedAt: 2}, &queuedAt)
	addProgress(&st, SliceProgress{Fetched: 1, OK: 1, Accepted: 1, Indexed: 1, Queued: 95, QueuedAt: 1}, &queuedAt)
	if st.Fetched != 15 || st.OK != 13 || st.Failed != 2 || st.Accepted != 8 || st.Indexed != 8 || st.Queued != 90 {
		t.Errorf("state after two heartbeats = %+v; want fetched 15, ok 13, failed 2, accepted 8, indexed 8, queued 90", st)
	}
}

// TestAddProgressSaysWhatIsNotSplitYet: a running slice's pages judged and
// not accepted, and fetched and not judged yet, are counted apart, so that
// a running crawl's page counts add up to its fetched pages (the workflow
// counts rejected, tunnel and duplicate pages only when a slice ends).
func TestAddProgressSaysWhatIsNotSplitYet(t *testing.T) {
	st := CrawlState{Fetched: 64, OK: 64, Accepted: 11, Rejected: 27, Tunnel: 26}
	var queuedAt int64
	addProgress(&st, SliceProgress{Fetched: 40, OK: 40, Processed: 30, Accepted: 2}, &queuedAt)
	addProgress(&st, SliceProgress{Fetched: 22, OK: 21, Processed: 20, Accepted: 0}, &queuedAt)
	if st.RunningNotAccepted != 48 || st.RunningUnjudged != 12 {
		t.Errorf("running slices' pages: %d judged not accepted, %d not judged; want 48, 12", st.RunningNotAccepted, st.RunningUnjudged)
	}
	if sum := st.Accepted + st.Rejected + st.Tunnel + st.RunningNotAccepted + st.RunningUnjudged; sum != st.Fetched {
		t.Errorf("counts add up to %d; want the %d fetched", sum, st.Fetched)
	}
}

// describeClient answers DescribeWorkflowExecution with pending activities;
// other methods of client.Client are not used (nil: they would panic).
type describeClient struct {
	client.Client
	pending []*workflowpb.PendingActivityInfo
}

func (c describeClient) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return &workflowservice.DescribeWorkflowExecutionResponse{PendingActivities: c.pending}, nil
}

// TestAddRefetchProgress: a refresh's status adds what its running Refetch
// heartbeated it has checked; a refresh whose batch took minutes read
// "checked 0" until the batch ended. A heartbeat of an older worker (a bare
// page count) and other activities' are left out.
func TestAddRefetchProgress(t *testing.T) {
	payload := func(v any) *commonpb.Payloads {
		p, err := converter.GetDefaultDataConverter().ToPayloads(v)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	c := describeClient{pending: []*workflowpb.PendingActivityInfo{
		{ActivityType: &commonpb.ActivityType{Name: Refetch.Name},
			HeartbeatDetails: payload(RefetchResult{Checked: 9, NotModified: 6, Unchanged: 1, Changed: 1, Failed: 1, Unreachable: 1})},
		{ActivityType: &commonpb.ActivityType{Name: Refetch.Name}, HeartbeatDetails: payload(int64(4))},
		{ActivityType: &commonpb.ActivityType{Name: CrawlSlice.Name}, HeartbeatDetails: payload(SliceProgress{Fetched: 3})},
	}}
	st := RefreshState{Checked: 32, NotModified: 30, Failed: 2}
	AddRefetchProgress(context.Background(), c, "refresh/t/1", &st)
	if st.Checked != 41 || st.NotModified != 36 || st.Unchanged != 1 || st.Changed != 1 || st.Failed != 3 || st.Unreachable != 1 {
		t.Errorf("status %+v; want the finished batches' counts plus the running Refetch's 9", st)
	}
}
