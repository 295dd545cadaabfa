package fetchloop

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"focuscrawl/internal/store"
)

// TestClaimPanicLeaksNoProcessor: Claim and Stop run in the caller's
// goroutine (the activity's, which the Temporal SDK recovers). A panic
// there unwound Run through its deferred cancel only: procIn was never
// closed, so every processor goroutine blocked in `range procIn` for ever —
// a leak per panicking slice attempt on a long-running worker. Now the
// panic is Run's error (a *PanicError), and nothing is left behind.
func TestClaimPanicLeaksNoProcessor(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 5 {
		func() {
			defer func() { _ = recover() }() // as the SDK recovers an activity's panic
			_, err := Run(t.Context(), Config{Hosts: 2, Budget: 5, Processors: 4}, Hooks[store.FrontierEntry]{
				Claim:   func(context.Context, int, []string) ([]store.FrontierEntry, error) { panic("claim bug") },
				Fetch:   func(_ context.Context, e store.FrontierEntry) (store.FrontierEntry, error) { return e, nil },
				Process: func(context.Context, []store.FrontierEntry) error { return nil },
			})
			if pe := (*PanicError)(nil); !errors.As(err, &pe) || pe.Stage != "Claim" {
				t.Errorf("Run = %v, want the Claim hook's panic as a *PanicError", err)
			}
		}()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left behind by 5 runs whose Claim panicked (before: %d, after: %d)", n-before, before, n)
	}
}
