package metrics

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"

	"focuscrawl/activities"
	"focuscrawl/internal/store"
)

// Interceptor returns a worker interceptor that times every activity and
// records the crawler metrics from the activities' inputs and results.
// st (may be nil) is read after a Fetch with failures to count the batch's
// error classes.
func (c *Crawler) Interceptor(st store.Store) interceptor.WorkerInterceptor {
	return &workerInterceptor{c: c, st: st}
}

type workerInterceptor struct {
	interceptor.WorkerInterceptorBase
	c  *Crawler
	st store.Store
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
		i.w.c.record(ctx, i.w.st, in.Args, res)
	}
	return res, err
}

// record updates the crawler metrics from one successful activity.
func (c *Crawler) record(ctx context.Context, st store.Store, args []any, res any) {
	var ref activities.BatchRef
	if len(args) == 1 {
		if r, ok := args[0].(activities.BatchRef); ok {
			ref = r
		}
	}
	switch r := res.(type) {
	case activities.FetchResult:
		c.PagesFetched.WithLabelValues(ref.Topic).Add(float64(r.OK))
		c.harvest(ref.Topic, float64(r.OK), 0)
		if r.Failed > 0 && st != nil {
			if pages, err := st.BatchPages(ctx, ref.Topic, ref.BatchID); err == nil {
				for _, p := range pages {
					if p.ErrorClass != "" {
						c.FetchErrors.WithLabelValues(ref.Topic, p.ErrorClass).Inc()
					}
				}
			}
		}
	case activities.FilterResult:
		c.PagesAccepted.WithLabelValues(ref.Topic).Add(float64(r.Accepted))
		c.harvest(ref.Topic, 0, float64(r.Accepted))
	case activities.ClaimResult:
		if len(args) == 1 {
			if in, ok := args[0].(activities.ClaimInput); ok {
				c.FrontierSize.WithLabelValues(in.Topic).Set(float64(r.Queued))
			}
		}
	case activities.RefetchResult:
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
