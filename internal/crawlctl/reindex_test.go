package crawlctl

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
)

// visibilityClient lists running (workflow IDs) for every visibility
// query, or fails it with err, and records the queries and the starts.
// Other methods of client.Client are not used (nil: they would panic).
type visibilityClient struct {
	client.Client
	running []string
	err     error
	queries []string
	started []string
}

func (c *visibilityClient) ListWorkflow(_ context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	c.queries = append(c.queries, req.GetQuery())
	if c.err != nil {
		return nil, c.err
	}
	resp := &workflowservice.ListWorkflowExecutionsResponse{}
	for _, id := range c.running {
		resp.Executions = append(resp.Executions, &workflow.WorkflowExecutionInfo{
			Execution: &common.WorkflowExecution{WorkflowId: id}, Type: &common.WorkflowType{Name: crawlapi.ReindexWorkflow.Name}})
	}
	return resp, nil
}

func (c *visibilityClient) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
	c.started = append(c.started, o.ID)
	return nil, nil
}

// TestReindexRefusedWhileOneRuns: a second 'starter reindex' of a topic
// started while the first ran (IDs differ in their time) and its rebuild
// collided with the first's on the topic's next index. It is refused,
// naming the running reindex and how to watch or cancel it, found by the
// search attributes (kind and topic) the start sets; with none running it
// starts, and on a server without the search attributes it says it cannot
// check and starts.
func TestReindexRefusedWhileOneRuns(t *testing.T) {
	cfg, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	const running, next = "reindex/roses/20261128T120000Z", "reindex/roses/20261128T130000Z"
	in := crawlapi.ReindexInput{Topic: "roses"}
	for _, tc := range []struct {
		name     string
		c        *visibilityClient
		refused  bool
		warnings []string
	}{
		{"one running", &visibilityClient{running: []string{running}}, true, nil},
		{"none running", &visibilityClient{}, false, nil},
		{"no search attributes", &visibilityClient{err: errors.New("invalid query: invalid expression: column name 'FocuscrawlKind' is not a valid search attribute")},
			false, []string{"cannot check for a reindex of topic roses running already", "lacks focuscrawl's search attributes", "starting anyway"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			_, err := startReindex(t.Context(), tc.c, cfg, &stderr, next, in)
			if tc.refused {
				if err == nil || len(tc.c.started) != 0 {
					t.Fatalf("started %v (%v); want the start refused", tc.c.started, err)
				}
				for _, want := range []string{"reindex " + running + " of topic roses is still running, nothing was started",
					"starter status " + running, "temporal workflow cancel --workflow-id " + running} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("refusal %q lacks %q", err, want)
					}
				}
			} else if err != nil || len(tc.c.started) != 1 || tc.c.started[0] != next {
				t.Errorf("started %v (%v); want %s", tc.c.started, err, next)
			}
			if len(tc.c.queries) != 1 || !strings.Contains(tc.c.queries[0], "FocuscrawlKind = 'reindex'") ||
				!strings.Contains(tc.c.queries[0], "FocuscrawlTopic = 'roses'") || !strings.Contains(tc.c.queries[0], "ExecutionStatus = 'Running'") {
				t.Errorf("visibility queries %q; want one for a running reindex of roses", tc.c.queries)
			}
			for _, want := range tc.warnings {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr %q lacks %q", stderr.String(), want)
				}
			}
			if tc.warnings == nil && stderr.Len() > 0 {
				t.Errorf("stderr %q; want nothing", stderr.String())
			}
		})
	}
}
