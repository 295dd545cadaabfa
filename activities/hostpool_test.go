package activities

import (
	"context"
	"errors"
	"sync"
	"testing"

	"focuscrawl/internal/fetchloop"
)

type hostItem struct{ host, name string }

func TestPerHostKeepsOrderWithinHost(t *testing.T) {
	var items []hostItem
	for i := range 30 {
		items = append(items, hostItem{host: string(rune('a' + i%3)), name: string(rune('A' + i))})
	}
	var mu sync.Mutex
	seen := map[string][]string{}
	inFlight := map[string]int{}
	err := perHost(context.Background(), items, func(it hostItem) string { return it.host }, 3,
		func(_ context.Context, h string, it hostItem) error {
			mu.Lock()
			inFlight[h]++
			if inFlight[h] > 1 {
				t.Errorf("two items of host %s in flight at once", h)
			}
			seen[h] = append(seen[h], it.name)
			mu.Unlock()
			mu.Lock()
			inFlight[h]--
			mu.Unlock()
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"a", "b", "c"} {
		var want []string
		for _, it := range items {
			if it.host == h {
				want = append(want, it.name)
			}
		}
		if len(seen[h]) != len(want) {
			t.Fatalf("host %s: %v, want %v", h, seen[h], want)
		}
		for i := range want {
			if seen[h][i] != want[i] {
				t.Fatalf("host %s out of order: %v, want %v", h, seen[h], want)
			}
		}
	}
}

func TestPerHostStopsAtFirstErrorWithoutDeadlock(t *testing.T) {
	// More hosts than workers, and every call fails: the feeder must not
	// block once all workers have stopped.
	var items []hostItem
	for i := range 20 {
		items = append(items, hostItem{host: string(rune('a' + i)), name: "x"})
	}
	boom := errors.New("store down")
	err := perHost(context.Background(), items, func(it hostItem) string { return it.host }, 2,
		func(context.Context, string, hostItem) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
}

// TestPerHostPanicIsAnError: a panic in fn (its own goroutine, which
// Temporal's recovery does not reach: it ended the worker) is returned as
// a *fetchloop.PanicError.
func TestPerHostPanicIsAnError(t *testing.T) {
	items := []hostItem{{host: "a", name: "x"}, {host: "b", name: "y"}}
	err := perHost(context.Background(), items, func(it hostItem) string { return it.host }, 2,
		func(_ context.Context, h string, _ hostItem) error {
			if h == "b" {
				panic("nil map")
			}
			return nil
		})
	var pe *fetchloop.PanicError
	if !errors.As(err, &pe) || pe.Value != "nil map" {
		t.Fatalf("err = %v; want the panic as a *fetchloop.PanicError", err)
	}
}
