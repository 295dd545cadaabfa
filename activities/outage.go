package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// HeartbeatSender is the part of the Temporal client a crawl slice uses to
// heartbeat on its own while it outlasts a Temporal outage
// (outlastOutage): unlike activity.RecordHeartbeat it returns the server's
// answer.
type HeartbeatSender interface {
	RecordActivityHeartbeat(ctx context.Context, taskToken []byte, details ...any) error
}

// outageBeat is how often a slice that outlasts an outage heartbeats
// itself (the worker's heartbeat throttle, crawlworker.HeartbeatEvery).
var outageBeat = 2 * time.Second

// outlastOutage returns the context a crawl slice works under and a
// function that ends it. It ends with ctx — but for one cause: the SDK
// cancels an activity's context when one heartbeat cannot reach the
// Temporal server within the heartbeat throttle interval (2 s here), and
// every running slice then stopped, its work in flight dropped, and waited
// out its heartbeat timeout before a retry took over (an operator's chaos
// trial: a Temporal server restart stalled every crawl for ~20 s). The
// crawl needs nothing from the server while it fetches: its frontier and
// pages are in the crawl store. So on a transport error the slice goes on,
// heartbeating itself through a.Heartbeats with progress's details (the
// SDK's own heartbeats go to the cancelled context's handler and are
// lost), and ends when the server answers that the attempt is cancelled,
// paused, reset or gone (timed out: its retry has taken over, and the
// slice fence stops this one's writes anyway), or when no heartbeat has
// reached the server for the activity's heartbeat timeout. Once the server
// answers again the slice goes on heartbeating itself to its end, so a
// cancellation requested later still reaches it.
//
// Outside an activity, without a.Heartbeats or without a heartbeat
// timeout, ctx is returned as it is.
func (a *Activities) outlastOutage(ctx context.Context, progress func() any) (context.Context, func()) {
	if a.Heartbeats == nil || !activity.IsActivity(ctx) {
		return ctx, func() {}
	}
	info := activity.GetInfo(ctx)
	if info.HeartbeatTimeout <= 0 {
		return ctx, func() {}
	}
	send := func(c context.Context) error {
		return a.Heartbeats.RecordActivityHeartbeat(c, info.TaskToken, progress())
	}
	return outlast(ctx, info.HeartbeatTimeout, outageBeat, send, func(msg string, args ...any) { a.Log.Warn(msg, args...) })
}

// outlast is outlastOutage's mechanism: the work context, cancelled with
// ctx's cause unless that is a transport error (transportError); then send
// heartbeats every beat until it answers that the attempt is over, or has
// not answered for grace.
func outlast(ctx context.Context, grace, beat time.Duration, send func(context.Context) error,
	warn func(string, ...any)) (context.Context, func()) {
	work, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-work.Done():
			return
		case <-ctx.Done():
		}
		cause := context.Cause(ctx)
		if ctx.Err() != context.Canceled || !transportError(cause) {
			cancel(cause)
			return
		}
		warn("a heartbeat could not reach the Temporal server: the slice goes on while it is away, heartbeating itself",
			"error", cause, "for at most", grace)
		answered := time.Now() // the SDK gave up just now, after trying for its throttle interval
		away := true
		t := time.NewTicker(beat)
		defer t.Stop()
		for {
			select {
			case <-work.Done():
				return
			case <-t.C:
			}
			sctx, done := context.WithTimeout(work, max(beat, time.Second))
			err := send(sctx)
			done()
			switch {
			case err == nil:
				if away {
					warn("the Temporal server answers again: the slice goes on")
				}
				away, answered = false, time.Now()
			case transportError(err):
				if !away {
					warn("a heartbeat could not reach the Temporal server again", "error", err)
				}
				away = true
				if time.Since(answered) >= grace {
					cancel(fmt.Errorf("no heartbeat reached the Temporal server for %s: %w", grace, err))
					return
				}
			default:
				// Cancelled, paused, reset, or not found (timed out and
				// retried elsewhere): the attempt is over.
				cancel(err)
				return
			}
		}
	}()
	return work, func() { cancel(context.Canceled) }
}

// transportError reports whether err says only that the Temporal server
// could not be reached or did not answer in time: no answer about the
// activity itself.
func transportError(err error) bool {
	if err == nil {
		return false
	}
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	if errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return false
}
