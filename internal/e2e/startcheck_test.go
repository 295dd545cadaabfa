package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/crawlctl"
)

// TestStartCheckReportsUnknownTopic: 'starter refresh' and 'starter
// reindex' of a topic the worker's crawl store has never crawled printed
// "started" and exited 0 (an operator trial); the workflow failed a moment
// later, seen only by a later 'starter status'. Without --wait they now
// watch the workflow for a moment and return its error.
func TestStartCheckReportsUnknownTopic(t *testing.T) {
	e := newEnv(t, newTestSite(t, 0))
	e.startWorker("worker")
	// The check is for a worker that is up: a cold one takes its first
	// seconds to start polling, more on a loaded machine.
	for _, tq := range []enums.TaskQueueType{enums.TASK_QUEUE_TYPE_WORKFLOW, enums.TASK_QUEUE_TYPE_ACTIVITY} {
		eventually(t, 60*time.Second, "the worker polling "+tq.String(), func() bool {
			resp, err := e.client.DescribeTaskQueue(context.Background(), e.taskQueue, tq)
			return err == nil && len(resp.GetPollers()) > 0
		})
	}
	for _, cmd := range []string{"refresh", "reindex"} {
		t.Run(cmd, func(t *testing.T) {
			var err error
			out := capture(t, &os.Stdout, func() {
				err = cli.Run(context.Background(), "starter", "", crawlctl.Commands(), []string{cmd, "nevercrawled",
					"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.task_queue=" + e.taskQueue})
			})
			if !strings.Contains(out, cmd+" ") || !strings.Contains(out, "started") {
				t.Errorf("%s printed %q; want its start", cmd, out)
			}
			if err == nil || !strings.Contains(err.Error(), "nevercrawled") || !strings.Contains(err.Error(), "never") {
				t.Errorf("%s of a topic never crawled = %v; want the workflow's error naming the topic", cmd, err)
			}
		})
	}
}
