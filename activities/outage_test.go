package activities

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
		work, end := outlast(ctx, time.Hour, time.Millisecond, outageStop{}, f.send, quiet)
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
		work, end := outlast(ctx, time.Hour, time.Millisecond, outageStop{}, f.send, quiet)
		defer end()
		cancel()
		waitDone(t, work, "worker stop")
	})

	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		f := &fakeBeats{answers: []error{nil}}
		work, end := outlast(ctx, time.Hour, time.Millisecond, outageStop{}, f.send, quiet)
		defer end()
		waitDone(t, work, "start-to-close deadline")
	})

	t.Run("outage, then the attempt is gone", func(t *testing.T) {
		ctx, cancel := sdkCancelled(t, unavailable)
		// Down for three beats, back for three, then the server says the
		// attempt is unknown (timed out, retried elsewhere).
		f := &fakeBeats{answers: []error{unavailable, unavailable, unavailable, nil, nil, nil,
			serviceerror.NewNotFound("activity not found")}}
		work, end := outlast(ctx, time.Hour, time.Millisecond, outageStop{}, f.send, quiet)
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
		work, end := outlast(ctx, 50*time.Millisecond, time.Millisecond, outageStop{}, f.send, quiet)
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
		work, end := outlast(ctx, 20*time.Millisecond, time.Millisecond, outageStop{}, f.send, quiet)
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

	t.Run("busy server: no answer", func(t *testing.T) {
		busy := serviceerror.NewResourceExhausted(0, "service busy")
		ctx, cancel := sdkCancelled(t, busy)
		f := &fakeBeats{answers: []error{status.Error(codes.Aborted, "aborted"), nil}}
		work, end := outlast(ctx, time.Hour, time.Millisecond, outageStop{}, f.send, quiet)
		cancel()
		deadline := time.Now().Add(10 * time.Second)
		for f.count() < 20 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if work.Err() != nil || f.count() < 20 {
			t.Fatalf("after %d beats: work %v; want a busy server outlasted like an absent one", f.count(), context.Cause(work))
		}
		end()
	})

	t.Run("worker stops during the outage", func(t *testing.T) {
		ctx, cancel := sdkCancelled(t, unavailable)
		stop := make(chan struct{})
		f := &fakeBeats{answers: []error{unavailable}}
		work, end := outlast(ctx, time.Hour, time.Millisecond, outageStop{ch: stop, after: 20 * time.Millisecond}, f.send, quiet)
		defer end()
		cancel()
		for f.count() < 3 {
			time.Sleep(time.Millisecond)
		}
		if work.Err() != nil {
			t.Fatalf("work ended before the worker stopped: %v", context.Cause(work))
		}
		close(stop)
		waitDone(t, work, "worker stop timeout")
		if !errors.Is(context.Cause(work), errWorkerStopped) {
			t.Errorf("cause %v; want errWorkerStopped", context.Cause(work))
		}
	})

	t.Run("worker told to stop before the outage", func(t *testing.T) {
		ctx, cancel := sdkCancelled(t, unavailable)
		stop := make(chan struct{})
		f := &fakeBeats{answers: []error{nil}}
		work, end := outlast(ctx, time.Hour, 10*time.Millisecond, outageStop{ch: stop, after: 200 * time.Millisecond}, f.send, quiet)
		defer end()
		close(stop)
		time.Sleep(300 * time.Millisecond) // the stop timeout passes before the outage
		cancel()
		waitDone(t, work, "a stop timeout that had passed")
		// Ended at the outage, not stop.after later (about 20 beats).
		if !errors.Is(context.Cause(work), errWorkerStopped) || f.count() > 5 {
			t.Errorf("cause %v after %d beats; want errWorkerStopped at once", context.Cause(work), f.count())
		}
	})

	t.Run("keeps the start-to-close deadline", func(t *testing.T) {
		parent, stopParent := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer stopParent()
		ctx, cancel := context.WithCancelCause(parent)
		f := &fakeBeats{answers: []error{nil}}
		work, end := outlast(ctx, time.Hour, time.Millisecond, outageStop{}, f.send, quiet)
		defer end()
		cancel(unavailable) // the outage begins; the server answers again at once
		waitDone(t, work, "deadline during an outage")
		if !errors.Is(work.Err(), context.DeadlineExceeded) {
			t.Errorf("work ended with %v; want the activity's deadline", work.Err())
		}
	})
}

// TestTransportError: the errors the SDK cancels a heartbeating activity
// on without an answer about it are outages; the server's answers that
// the attempt is over, and errors of the worker's own, are not.
func TestTransportError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{serviceerror.NewUnavailable("connection refused"), true},
		{serviceerror.NewDeadlineExceeded("deadline"), true},
		{serviceerror.NewResourceExhausted(0, "busy"), true},
		{serviceerror.NewInternal("internal"), true},
		{status.Error(codes.Aborted, "aborted"), true},
		{status.Error(codes.Unknown, "unknown"), true},
		// As the client hands them over: converted by serviceerror.
		{serviceerror.FromStatus(status.New(codes.Aborted, "aborted")), true},
		{serviceerror.FromStatus(status.New(codes.Unavailable, "down")), true},
		{serviceerror.NewNamespaceUnavailable("default"), true},
		{serviceerror.FromStatus(status.New(codes.ResourceExhausted, "busy")), true},
		{context.DeadlineExceeded, true},
		{temporal.NewCanceledError(), false},
		{serviceerror.NewNotFound("gone"), false},
		{activity.ErrActivityPaused, false},
		{activity.ErrActivityReset, false},
		{errors.New("worker is now shutdown"), false},
		{context.Canceled, false},
		{nil, false},
	} {
		if got := transportError(c.err); got != c.want {
			t.Errorf("transportError(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
