package crawlapi

import (
	"context"

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
	for _, pa := range desc.GetPendingActivities() {
		if pa.GetActivityType().GetName() != CrawlSlice.Name || pa.GetHeartbeatDetails() == nil {
			continue
		}
		var p SliceProgress
		if dc.FromPayloads(pa.GetHeartbeatDetails(), &p) != nil {
			continue
		}
		st.Fetched += int(p.Fetched)
		st.OK += int(p.OK)
		st.Failed += int(p.Fetched - p.OK)
		st.Accepted += int(p.Accepted)
		st.Links += int(p.Links)
		st.Enqueued += int(p.Enqueued)
		// The frontier is the topic's, shared by the slices: the newest
		// reading wins over the workflow's count from the last slice end.
		if p.QueuedAt > queuedAt {
			st.Queued, queuedAt = int(p.Queued), p.QueuedAt
		}
	}
	return &st, nil
}
