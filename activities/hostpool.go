package activities

import (
	"context"
	"sync"

	"focuscrawl/internal/fetchloop"
)

// perHost calls fn for every item, grouped by host: up to concurrency hosts
// in parallel, the items of one host one after another in their given order
// (so this activity never has two requests in flight to one host; the
// store's politeness slots space them out). The first error fn returns
// cancels the rest and is returned; otherwise perHost returns when every
// item is done or ctx ends.
func perHost[T any](ctx context.Context, items []T, hostOf func(T) string, concurrency int,
	fn func(ctx context.Context, host string, item T) error) error {
	var hosts []string
	byHost := map[string][]T{}
	for _, it := range items {
		h := hostOf(it)
		if _, ok := byHost[h]; !ok {
			hosts = append(hosts, h)
		}
		byHost[h] = append(byHost[h], it)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		work     = make(chan string)
	)
	for range min(max(concurrency, 1), len(hosts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range work {
				for _, it := range byHost[h] {
					if ctx.Err() != nil {
						return
					}
					// Guarded: a panic in this goroutine would end the worker.
					if err := fetchloop.Guard("host pool", func() error { return fn(ctx, h, it) }); err != nil {
						errOnce.Do(func() { firstErr = err; cancel() })
						return
					}
				}
			}
		}()
	}
feed:
	for _, h := range hosts {
		select {
		case work <- h:
		case <-ctx.Done(): // cancelled by the caller or by an error: no worker may be left to receive
			break feed
		}
	}
	close(work)
	wg.Wait()
	return firstErr
}
