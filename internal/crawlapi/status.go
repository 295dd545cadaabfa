package crawlapi

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// Status asks a crawl for its state (the status query) and adds the
// progress its running slices have reported in their heartbeats — which
// the workflow itself only counts when a slice ends — so that progress
// lines and 'starter status' move while slices run. Running slices'
// progress is best effort: without it the workflow's counters are returned.
func Status(ctx context.Context, c client.Client, id string) (*CrawlState, error) {
	v, err := c.QueryWorkflow(ctx, id, "", QueryStatus)
	if err != nil {
		return nil, err
	}
	var st CrawlState
	if err := v.Get(&st); err != nil {
		return nil, err
	}
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return &st, nil
	}
	dc := converter.GetDefaultDataConverter()
	var queuedAt int64
	st.Retrying = retries(desc.GetPendingActivities())
	for _, pa := range desc.GetPendingActivities() {
		if pa.GetActivityType().GetName() != CrawlSlice.Name || pa.GetHeartbeatDetails() == nil {
			continue
		}
		var p SliceProgress
		if dc.FromPayloads(pa.GetHeartbeatDetails(), &p) != nil {
			continue
		}
		addProgress(&st, p, &queuedAt)
	}
	return &st, nil
}

// AddRefetchProgress adds to a refresh's counters (its status query's
// answer) what its running Refetch has checked so far, from the activity's
// heartbeat: the workflow counts a batch's pages only when its Refetch ends,
// and a batch on hosts with a long delay takes minutes, during which
// 'starter status' read "checked 0". Best effort, like Status: st stays as
// it is when the workflow cannot be described.
func AddRefetchProgress(ctx context.Context, c client.Client, id string, st *RefreshState) {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return
	}
	dc := converter.GetDefaultDataConverter()
	for _, pa := range desc.GetPendingActivities() {
		if pa.GetActivityType().GetName() != Refetch.Name || pa.GetHeartbeatDetails() == nil {
			continue
		}
		var r RefetchResult
		if dc.FromPayloads(pa.GetHeartbeatDetails(), &r) != nil {
			continue // a worker of another release heartbeats a bare page count
		}
		st.AddRefetch(r)
	}
}

// AddRefetch adds a Refetch's page counts to the refresh's: what the
// workflow does when a batch's Refetch ends, and 'starter status' with a
// running one's heartbeat.
func (st *RefreshState) AddRefetch(r RefetchResult) {
	st.Checked += r.Checked
	st.NotModified += r.NotModified
	st.Unchanged += r.Unchanged
	st.Changed += r.Changed
	st.Gone += r.Gone
	st.Failed += r.Failed
	st.Postponed += r.Postponed
	st.Unreachable += r.Unreachable
}

// addProgress adds a running slice's heartbeat to the workflow's counters;
// queuedAt is the time of the newest frontier reading taken so far.
func addProgress(st *CrawlState, p SliceProgress, queuedAt *int64) {
	st.Fetched += int(p.Fetched)
	st.OK += int(p.OK)
	st.Failed += int(p.Fetched - p.OK)
	st.Accepted += int(p.Accepted)
	st.Indexed += int(p.Indexed)
	// Processed counts every judged page, failed ones too; a worker older
	// than it heartbeats 0, which leaves these at 0.
	if p.Processed > 0 {
		st.RunningNotAccepted += int(max(p.Processed-p.Accepted, 0))
		st.RunningUnjudged += int(max(p.Fetched-p.Processed, 0))
	}
	st.Links += int(p.Links)
	st.Enqueued += int(p.Enqueued)
	// The frontier is the topic's, shared by the slices: the newest
	// reading wins over the workflow's count from the last slice end.
	if p.QueuedAt > *queuedAt {
		st.Queued, *queuedAt = int(p.Queued), p.QueuedAt
	}
}

// retries are the pending activities past their first attempt, with the
// failure that ended the previous one (a heartbeat timeout when a worker
// died, the error otherwise).
func retries(pending []*workflowpb.PendingActivityInfo) []Retry {
	var out []Retry
	for _, pa := range pending {
		if pa.GetAttempt() <= 1 {
			continue
		}
		r := Retry{Activity: pa.GetActivityType().GetName(), Attempt: pa.GetAttempt(),
			Maximum: pa.GetMaximumAttempts(), LastFailure: pa.GetLastFailure().GetMessage()}
		if pa.GetState() == enumspb.PENDING_ACTIVITY_STATE_SCHEDULED && pa.GetScheduledTime() != nil {
			r.NextAttempt = pa.GetScheduledTime().AsTime()
		}
		out = append(out, r)
	}
	return out
}
