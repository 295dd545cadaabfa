package activities

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"
)

// fakeBeats answers outlast's heartbeats from a script, one answer a beat
// (the last repeated), and counts them.
type fakeBeats struct {
	mu      sync.Mutex
	answers []error
	sent    int
}

func (f *fakeBeats) send(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent++
	a := f.answers[min(f.sent, len(f.answers))-1]
	return a
}

func (f *fakeBeats) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent
}

// sdkCancelled is an activity context the SDK cancelled with cause.
func sdkCancelled(t *testing.T, cause error) (context.Context, func()) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	return ctx, func() { cancel(cause) }
}

func waitDone(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the work context did not end", what)
	}
}

// TestOutlastOutage: the slice's work context ends at once with the SDK's
// cancellation when it is anything but a transport error; through a
// transport error it goes on, heartbeating itself, and ends when the
// server answers that the attempt is over, or when nothing reached the
// server for the grace period — and not while the server answers.
func TestOutlastOutage(t *testing.T) {
	quiet := func(string, ...any) {}
	unavailable := serviceerror.NewUnavailable("connection refused")

	t.Run("cancelled by the server", func(t *testing.T) {
		ctx, cancel := sdkCancelled(t, temporal.NewCanceledError())
		f := &fakeBeats{answers: []error{nil}}
		work, end := outlast(ctx, time.Hour, time.Millisecond, f.send, quiet)
		defer end()
		cancel()
		waitDone(t, work, "server cancellation")
		var ce *temporal.CanceledError
		if !errors.As(context.Cause(work), &ce) || f.count() != 0 {
			t.Errorf("cause %v, %d beats; want the server's cancellation at once, no beat", context.Cause(work), f.count())
		}
	})

	t.Run("worker stopping", func(t *testing.T) {
		ctx, cancel := sdkCancelled(t, context.Canceled)
		f := &fakeBeats{answers: []error{nil}}
		work, end := outlast(ctx, time.Hour, time.Millisecond, f.send, quiet)
		defer end()
		cancel()
		waitDone(t, work, "worker stop")
	})

	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		f := &fakeBeats{answers: []error{nil}}
		work, end := outlast(ctx, time.Hour, time.Millisecond, f.send, quiet)
		defer end()
		waitDone(t, work, "start-to-close deadline")
	})

	t.Run("outage, then the attempt is gone", func(t *testing.T) {
		ctx, cancel := sdkCancelled(t, unavailable)
		// Down for three beats, back for three, then the server says the
		// attempt is unknown (timed out, retried elsewhere).
		f := &fakeBeats{answers: []error{unavailable, unavailable, unavailable, nil, nil, nil,
			serviceerror.NewNotFound("activity not found")}}
		work, end := outlast(ctx, time.Hour, time.Millisecond, f.send, quiet)
		defer end()
		cancel()
		waitDone(t, work, "attempt gone")
		var nf *serviceerror.NotFound
		if !errors.As(context.Cause(work), &nf) || f.count() != 7 {
			t.Errorf("cause %v after %d beats; want NotFound after 7", context.Cause(work), f.count())
		}
	})

	t.Run("outage longer than the grace", func(t *testing.T) {
		ctx, cancel := sdkCancelled(t, unavailable)
		f := &fakeBeats{answers: []error{context.DeadlineExceeded}}
		work, end := outlast(ctx, 50*time.Millisecond, time.Millisecond, f.send, quiet)
		defer end()
		cancel()
		waitDone(t, work, "grace over")
		if !errors.Is(context.Cause(work), context.DeadlineExceeded) || f.count() < 2 {
			t.Errorf("cause %v after %d beats; want the last transport error after several beats", context.Cause(work), f.count())
		}
	})

	t.Run("server back: goes on", func(t *testing.T) {
		ctx, cancel := sdkCancelled(t, unavailable)
		f := &fakeBeats{answers: []error{unavailable, nil}}
		work, end := outlast(ctx, 20*time.Millisecond, time.Millisecond, f.send, quiet)
		cancel()
		// Well past the grace, heartbeats answered: the work goes on.
		deadline := time.Now().Add(10 * time.Second)
		for f.count() < 100 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if work.Err() != nil || f.count() < 100 {
			t.Fatalf("after %d answered beats: work %v; want it going on", f.count(), context.Cause(work))
		}
		end()
		waitDone(t, work, "slice's end")
	})
}
