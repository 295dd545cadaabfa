package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// HeartbeatSender is the part of the Temporal client a crawl slice uses
// while it outlasts a Temporal outage (outlastOutage): its heartbeats,
// which unlike activity.RecordHeartbeat return the server's answer, and
// its cancellation's report (reportCanceled).
type HeartbeatSender interface {
	RecordActivityHeartbeatWithOptions(ctx context.Context, opts client.RecordActivityHeartbeatOptions) error
	CompleteActivity(ctx context.Context, taskToken []byte, result any, err error) error
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
	// With the activity's identity, as the SDK's own heartbeats carry it
	// (a codec that reads its serialization context needs it).
	opts := client.RecordActivityHeartbeatOptions{TaskToken: info.TaskToken, Namespace: info.Namespace,
		WorkflowID: info.WorkflowExecution.ID, ActivityType: info.ActivityType.Name, TaskQueue: info.TaskQueue}
	if info.WorkflowType != nil {
		opts.WorkflowType = info.WorkflowType.Name
	}
	send := func(c context.Context) error {
		o := opts
		o.Details = []any{progress()}
		return a.Heartbeats.RecordActivityHeartbeatWithOptions(c, o)
	}
	// Within the heartbeat timeout even when it is short: a beat every
	// quarter of it, as heartbeatEvery does.
	beat := min(outageBeat, info.HeartbeatTimeout/4)
	stop := outageStop{ch: activity.GetWorkerStopChannel(ctx), after: a.CrawlCfg.StopTimeout}
	return outlast(ctx, info.HeartbeatTimeout, beat, stop, send, func(msg string, args ...any) { a.Log.Warn(msg, args...) })
}

// outageStop is the worker's stop as outlast watches it: the SDK cuts an
// activity's context off crawl.stop_timeout after the worker was told to
// stop, but a work context that outlasts an outage no longer hears it, and
// the worker closes the crawl store after that timeout.
type outageStop struct {
	ch    <-chan struct{} // closed when the worker is told to stop (nil: never)
	after time.Duration   // then the work ends this much later (0: at once)
}

// errWorkerStopped ends a work context that outlasted an outage when the
// worker stopped (outageStop).
var errWorkerStopped = errors.New("the worker stopped during a Temporal outage")

// outlast is outlastOutage's mechanism: the work context, cancelled with
// ctx's cause unless that is a transport error (transportError); then send
// heartbeats every beat until it answers that the attempt is over
// (attemptOver), or has not answered for grace, or the worker stopped
// stop.after ago. The work context keeps ctx's deadline (the activity's
// start-to-close timeout): the slice fence relies on no attempt outliving
// it.
func outlast(ctx context.Context, grace, beat time.Duration, stop outageStop, send func(context.Context) error,
	warn func(string, ...any)) (context.Context, func()) {
	work, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	endDeadline := func() {}
	if dl, ok := ctx.Deadline(); ok {
		work, endDeadline = context.WithDeadline(work, dl)
	}
	go func() {
		// The worker's stop is watched from the start: told to stop before
		// an outage, the work still ends stop.after from that moment.
		stopCh := stop.ch
		var stopTimer <-chan time.Time
	wait:
		for {
			select {
			case <-work.Done():
				return
			case <-stopCh:
				stopCh, stopTimer = nil, time.After(stop.after)
			case <-ctx.Done():
				break wait
			}
		}
		cause := context.Cause(ctx)
		if ctx.Err() != context.Canceled || !transportError(cause) {
			cancel(cause)
			return
		}
		warn("a heartbeat could not reach the Temporal server: the slice goes on while it is away, heartbeating itself",
			"error", cause, "for at most", grace)
		// The SDK gave up just now, after trying for its throttle interval
		// (a beat): the server last heard of the slice up to two beats ago.
		answered := time.Now().Add(-2 * beat)
		away := true
		t := time.NewTicker(beat)
		defer t.Stop()
		for {
			select {
			case <-work.Done():
				return
			case <-stopCh:
				stopCh, stopTimer = nil, time.After(stop.after) // closed: read once
				continue
			case <-stopTimer:
				cancel(errWorkerStopped)
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
			case attemptOver(err):
				// Cancelled, paused, reset, or not found (timed out and
				// retried elsewhere): the attempt is over.
				cancel(err)
				return
			default:
				// No answer about the attempt: the server is away, busy
				// or failing (the errors the SDK itself retries), or the
				// heartbeat could not be sent; bounded by the grace.
				if !away {
					warn("a heartbeat could not reach the Temporal server again", "error", err)
				}
				away = true
				if time.Since(answered) >= grace {
					cancel(fmt.Errorf("no heartbeat reached the Temporal server for %s: %w", grace, err))
					return
				}
			}
		}
	}()
	return work, func() { cancel(context.Canceled); endDeadline() }
}

// attemptOver reports whether err is the server's answer that the
// activity attempt is over: cancelled, paused, reset, or unknown to it
// (timed out and retried elsewhere, or its namespace gone) — the answers
// on which the SDK cancels an activity for good.
func attemptOver(err error) bool {
	var nf *serviceerror.NotFound
	var nsInactive *serviceerror.NamespaceNotActive
	var nsGone *serviceerror.NamespaceNotFound
	return temporal.IsCanceledError(err) || errors.Is(err, activity.ErrActivityPaused) ||
		errors.Is(err, activity.ErrActivityReset) ||
		errors.As(err, &nf) || errors.As(err, &nsInactive) || errors.As(err, &nsGone)
}

// transportError reports whether err says only that the Temporal server
// could not be reached, did not answer in time, or answered with one of
// the transient errors the SDK retries (busy, aborted, internal, unknown):
// no answer about the activity itself. On exactly these the SDK cancels a
// heartbeating activity that has not been told its attempt is over.
func transportError(err error) bool {
	if err == nil || attemptOver(err) {
		return false
	}
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	var busy *serviceerror.ResourceExhausted
	var internal *serviceerror.Internal
	var aborted *serviceerror.Aborted
	var nsUnavailable *serviceerror.NamespaceUnavailable
	if errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.As(err, &busy) ||
		errors.As(err, &internal) || errors.As(err, &aborted) || errors.As(err, &nsUnavailable) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	// Only an error that carries a gRPC status: status.Code calls every
	// other error Unknown (the worker's own shutdown, say).
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted, codes.Internal, codes.Unknown:
		return true
	}
	return false
}

// reportCanceled reports a crawl slice that ended with err to Temporal as
// cancelled when the server cancelled it after an outage, and then returns
// activity.ErrResultPending (the SDK sends nothing more); otherwise it
// returns err. The SDK would report such a slice as failed: it tells a
// cancellation from a failure by the cause of the activity's own context,
// which here is the outage's transport error, not the cancellation that
// reached the slice through its own heartbeats (work's cause).
func (a *Activities) reportCanceled(ctx, work context.Context, err error) error {
	if err == nil || a.Heartbeats == nil || !activity.IsActivity(ctx) ||
		!temporal.IsCanceledError(context.Cause(work)) || !transportError(context.Cause(ctx)) {
		return err
	}
	rctx, done := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer done()
	if rerr := a.Heartbeats.CompleteActivity(rctx, activity.GetInfo(ctx).TaskToken, nil, temporal.NewCanceledError()); rerr != nil {
		a.Log.Warn("could not report the crawl slice's cancellation; the SDK reports it as failed", "error", rerr)
		return err
	}
	return activity.ErrResultPending
}
