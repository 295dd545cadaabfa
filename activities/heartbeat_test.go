package activities

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestBeatEveryQuietAfterStop: a beat stopped at once never beats (StartCrawl
// without sample pages), and once stop has returned no beat is under way or
// comes later: a heartbeat racing the activity's return made the SDK log
// "RecordActivityHeartbeat with error ... context canceled" at every crawl
// start.
func TestBeatEveryQuietAfterStop(t *testing.T) {
	var beats atomic.Int32
	stop := beatEvery(context.Background(), time.Hour, func() { beats.Add(1) })
	stop()
	if n := beats.Load(); n != 0 {
		t.Fatalf("stopped at once, beat %d times; want 0", n)
	}

	var inBeat, after atomic.Bool
	release := make(chan struct{})
	stop = beatEvery(context.Background(), time.Millisecond, func() {
		if after.Load() {
			t.Error("beat after stop returned")
		}
		inBeat.Store(true)
		<-release
	})
	deadline := time.Now().Add(10 * time.Second)
	for !inBeat.Load() {
		if time.Now().After(deadline) {
			t.Fatal("no beat within 10 s at a 1 ms interval")
		}
		time.Sleep(time.Millisecond)
	}
	returned := make(chan struct{})
	go func() { stop(); after.Store(true); close(returned) }()
	select {
	case <-returned:
		t.Fatal("stop returned while a beat was under way")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-returned
	time.Sleep(20 * time.Millisecond) // a stray tick would beat now
	stop()                            // a second stop is harmless
}
