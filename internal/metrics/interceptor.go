package metrics

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"

	"focuscrawl/internal/crawlapi"
)

// Interceptor returns a worker interceptor that times every activity and
// records the crawler metrics from the activities' inputs and results.
func (c *Crawler) Interceptor() interceptor.WorkerInterceptor {
	return &workerInterceptor{c: c}
}

type workerInterceptor struct {
	interceptor.WorkerInterceptorBase
	c *Crawler
}

func (w *workerInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &activityInterceptor{w: w}
	i.Next = next
	return i
}

type activityInterceptor struct {
	interceptor.ActivityInboundInterceptorBase
	w *workerInterceptor
}

var mu sync.Mutex // guards the harvest-rate sums

func (i *activityInterceptor) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	start := time.Now()
	res, err := i.Next.ExecuteActivity(ctx, in)
	name := activity.GetInfo(ctx).ActivityType.Name
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	i.w.c.ActivityLatency.WithLabelValues(name, outcome).Observe(time.Since(start).Seconds())
	if err == nil {
		i.w.c.record(in.Args, res)
	}
	return res, err
}

// record updates the crawler metrics from one successful activity: a crawl
// slice's counts (pages fetched, failed by class and accepted, the frontier
// left), a refresh
// batch's judgements and conditional re-fetches.
func (c *Crawler) record(args []any, res any) {
	var ref crawlapi.BatchRef
	if len(args) == 1 {
		switch in := args[0].(type) {
		case crawlapi.BatchRef:
			ref = in
		case crawlapi.SliceInput:
			ref = in.Ref()
		}
	}
	switch r := res.(type) {
	case crawlapi.SliceResult:
		c.PagesFetched.WithLabelValues(ref.Topic).Add(float64(r.Stats.OK))
		c.PagesAccepted.WithLabelValues(ref.Topic).Add(float64(r.Stats.Accepted))
		c.harvest(ref.Topic, float64(r.Stats.OK), float64(r.Stats.Accepted))
		c.FrontierSize.WithLabelValues(ref.Topic).Set(float64(r.Queued))
		for class, n := range r.FailedByClass {
			c.FetchErrors.WithLabelValues(ref.Topic, class).Add(float64(n))
		}
	case crawlapi.FilterResult:
		c.PagesAccepted.WithLabelValues(ref.Topic).Add(float64(r.Accepted))
		c.harvest(ref.Topic, 0, float64(r.Accepted))
	case crawlapi.RefetchResult:
		for outcome, n := range map[string]int{"not_modified": r.NotModified, "unchanged": r.Unchanged,
			"changed": r.Changed, "gone": r.Gone, "failed": r.Failed} {
			if n > 0 {
				c.RefreshChecks.WithLabelValues(ref.Topic, outcome).Add(float64(n))
			}
		}
		for class, n := range r.ErrorsByClass {
			c.FetchErrors.WithLabelValues(ref.Topic, class).Add(float64(n))
		}
	}
}

func (c *Crawler) harvest(topic string, fetched, accepted float64) {
	mu.Lock()
	defer mu.Unlock()
	c.fetched[topic] += fetched
	c.accepted[topic] += accepted
	if c.fetched[topic] > 0 {
		c.HarvestRate.WithLabelValues(topic).Set(c.accepted[topic] / c.fetched[topic])
	}
}
