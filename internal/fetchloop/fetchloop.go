// Package fetchloop is focuscrawl's streaming fetch path: a loop that keeps
// every host it serves busy without batch barriers.
//
// The model is a polite crawler's: throughput is bounded by politeness, one
// request per host per max(delay, response time), so the best a crawler can
// do is keep each host's slot taken. Run holds at most one frontier entry per
// host. Whenever a host is free it claims — from the store, at that moment —
// the best queued entries of hosts it is not serving (at most one each, in
// the frontier's priority order), fetches each as soon as the host's
// politeness slot opens, and hands the page to a processor that parses,
// judges and scores links behind the fetches. A host becomes free again only
// when its page has been processed, so the next entry it gets is chosen
// knowing the links that page added; slow hosts never hold back fast ones,
// because nothing waits for a batch to finish.
//
// Run is generic over what a fetch produces and knows nothing of HTTP or
// the store: the caller's hooks claim, fetch (politeness included) and
// process. It stops claiming when its budget is spent, its deadline passes,
// the Stop hook says so (pause or stop requested) or the context ends; it
// returns once everything it claimed has been processed.
package fetchloop

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"focuscrawl/internal/store"
)

// Config bounds one run of the loop.
type Config struct {
	// Hosts is how many hosts are served at once (one entry in flight
	// each); 1 makes the loop strictly sequential: claim, fetch, process,
	// claim — reproducible for a fixed seed.
	Hosts int
	// Budget is how many frontier entries the run may claim.
	Budget int
	// Until ends claiming at this instant (zero: no deadline).
	Until time.Time
	// Group is the most pages processed together (their store writes share
	// transactions).
	Group int
	// Linger is how long a processor holding fewer than Group pages waits
	// for more while fetches are still under way (0: never waits). Every
	// group pays a fixed cost in store transactions and an index write, so
	// groups of one page — what a processor gets when fetches complete one
	// at a time — cost several times more per page; a few milliseconds are
	// nothing next to a host's politeness delay. The wait ends at once when
	// no fetch is in flight, so a sequential loop (Hosts 1) never lingers.
	Linger time.Duration
	// Processors is how many groups are processed at once (parsing and
	// tokenising use a core each); default 1.
	Processors int
	// Poll is how long the loop waits before claiming again when the
	// frontier had nothing for its free hosts (other workers may enqueue
	// meanwhile), and at most how long it goes without asking Stop.
	Poll time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Hooks are the loop's stages. Errors they return are fatal to the run (a
// store failure, cancellation); a failed fetch is a result, not an error.
type Hooks[P any] struct {
	// Claim leases up to n entries, at most one per host and none of the
	// busy hosts, best first. ErrWait with no entries means "nothing now,
	// ask again": the frontier is not to be taken as exhausted.
	Claim func(ctx context.Context, n int, busy []string) ([]store.FrontierEntry, error)
	// Fetch waits for the entry's politeness slot, fetches and saves it.
	Fetch func(ctx context.Context, e store.FrontierEntry) (P, error)
	// Process handles fetched pages (parse, judge, index, predict links)
	// and completes their frontier entries.
	Process func(ctx context.Context, pages []P) error
	// Stop reports whether the run should stop claiming (pause or stop
	// requested, enough pages accepted); nil never stops. It is asked
	// before every claim, so it must be cheap (rate-limit any I/O).
	Stop func(ctx context.Context) (bool, error)
}

// ErrWait is what Claim returns when it holds entries back for now (they
// may be claimed later, e.g. once pages in flight elsewhere are processed):
// the loop then asks again at its next event — a processed page or a poll
// tick — instead of ending as exhausted when it has nothing in flight.
var ErrWait = errors.New("fetchloop: nothing to claim yet")

// Reasons a run ended (Result.Reason).
const (
	ReasonBudget    = "budget spent"
	ReasonDeadline  = "deadline"
	ReasonStopped   = "stop requested"
	ReasonExhausted = "frontier exhausted"
)

// Result says what a run did.
type Result struct {
	Claimed   int
	Processed int
	Reason    string
}

// PanicError is a stage's panic, recovered: the stages run in the loop's
// own goroutines, where a panic — a parser bug on one hostile page — would
// end the worker process, every other crawl on it included, and again
// each time a retry reached that page. Recovered, it fails the run like a
// store error (the caller's activity fails and is retried; the caller logs
// the stack).
type PanicError struct {
	Stage string // "Fetch" or "Process" in a loop; the caller's name for Guard
	Value any    // what was passed to panic
	Stack []byte
}

// Error is one line (it becomes a workflow's last error); the stack is
// in Stack, for the caller's log.
func (e *PanicError) Error() string {
	return fmt.Sprintf("fetchloop: %s panicked: %v", e.Stage, e.Value)
}

// Guard runs f, turning a panic into a *PanicError naming stage: for any
// goroutine of an activity that runs per-page work (the SDK recovers only
// the activity's own goroutine).
func Guard(stage string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Stage: stage, Value: r, Stack: debug.Stack()}
		}
	}()
	return f()
}

type fetched[P any] struct {
	host string
	page P
}

// Run runs the loop until it has nothing more to do (see the package
// documentation).
func Run[P any](ctx context.Context, cfg Config, h Hooks[P]) (Result, error) {
	if cfg.Hosts < 1 {
		cfg.Hosts = 1
	}
	if cfg.Group < 1 {
		cfg.Group = 1
	}
	if cfg.Processors < 1 {
		cfg.Processors = 1
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 200 * time.Millisecond
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		res       Result
		busy      = map[string]bool{}
		inFlight  int
		fetchers  sync.WaitGroup
		fetching  atomic.Int64                       // fetches started whose page no processor has received yet
		procIn    = make(chan fetched[P], cfg.Hosts) // never blocks a fetcher: at most Hosts in flight
		processed = make(chan []string)
		errc      = make(chan error, cfg.Hosts+1)
	)
	fail := func(err error) {
		select {
		case errc <- err:
		default:
		}
	}
	var processors sync.WaitGroup
	process := func() { // a processor: groups what has arrived, waiting at most Linger for more
		defer processors.Done()
		for first := range procIn {
			fetching.Add(-1)
			group := []fetched[P]{first}
			var linger *time.Timer
		fill:
			for len(group) < cfg.Group {
				select {
				case f, ok := <-procIn:
					if !ok {
						break fill
					}
					fetching.Add(-1)
					group = append(group, f)
					continue
				default:
				}
				if cfg.Linger <= 0 || fetching.Load() == 0 {
					break
				}
				if linger == nil {
					linger = time.NewTimer(cfg.Linger)
				}
				select {
				case f, ok := <-procIn:
					if !ok {
						break fill
					}
					fetching.Add(-1)
					group = append(group, f)
				case <-linger.C:
					break fill
				case <-ctx.Done():
					break fill
				}
			}
			if linger != nil {
				linger.Stop()
			}
			pages := make([]P, len(group))
			hosts := make([]string, len(group))
			for i, f := range group {
				pages[i], hosts[i] = f.page, f.host
			}
			if err := Guard("Process", func() error { return h.Process(ctx, pages) }); err != nil {
				fail(err)
				return
			}
			select {
			case processed <- hosts:
			case <-ctx.Done():
				return
			}
		}
	}
	for range cfg.Processors {
		processors.Add(1)
		go process()
	}
	shutdown := func() {
		cancel()
		fetchers.Wait()
		close(procIn)
		processors.Wait()
	}

	draining, reason := false, ""
	ticker := time.NewTicker(cfg.Poll)
	defer ticker.Stop()
	for {
		if !draining {
			switch {
			case res.Claimed >= cfg.Budget:
				draining, reason = true, ReasonBudget
			case !cfg.Until.IsZero() && !now().Before(cfg.Until):
				draining, reason = true, ReasonDeadline
			case h.Stop != nil:
				// Stop and Claim run in this goroutine; guarded as the other
				// hooks are, so that a panic in them still shuts the
				// processors down (unguarded, it unwound past shutdown and
				// left every processor blocked on procIn for good).
				var stop bool
				err := Guard("Stop", func() (err error) { stop, err = h.Stop(ctx); return err })
				if err != nil {
					shutdown()
					return res, err
				}
				if stop {
					draining, reason = true, ReasonStopped
				}
			}
		}
		// Every pass follows an event (start, a processed page, a poll
		// tick): the only moments the frontier can offer something new.
		if !draining && inFlight < cfg.Hosts {
			want := min(cfg.Hosts-inFlight, cfg.Budget-res.Claimed)
			busyHosts := make([]string, 0, len(busy))
			for host := range busy {
				busyHosts = append(busyHosts, host)
			}
			var entries []store.FrontierEntry
			err := Guard("Claim", func() (err error) { entries, err = h.Claim(ctx, want, busyHosts); return err })
			waiting := errors.Is(err, ErrWait)
			if err != nil && !waiting {
				shutdown()
				return res, err
			}
			res.Claimed += len(entries)
			// All of the claim counted before any fetch starts: a fetch
			// that finished at once while the next was not yet counted let
			// a processor see 0 on the way and close its group early.
			fetching.Add(int64(len(entries)))
			for _, e := range entries {
				busy[e.Host] = true
				inFlight++
				fetchers.Add(1)
				go func(e store.FrontierEntry) {
					defer fetchers.Done()
					var p P
					err := Guard("Fetch", func() (err error) {
						p, err = h.Fetch(ctx, e)
						return err
					})
					if err != nil {
						fetching.Add(-1)
						fail(err)
						return
					}
					// Counted down by the processor that receives it: a
					// processor seeing 0 knows no page is still on its way
					// (counting down here, before the send, let a processor
					// stop waiting while a page was about to arrive).
					procIn <- fetched[P]{host: e.Host, page: p}
				}(e)
			}
			if len(entries) == 0 && inFlight == 0 && !waiting {
				draining, reason = true, ReasonExhausted
			}
		}
		if draining && inFlight == 0 {
			shutdown()
			res.Reason = reason
			return res, nil
		}
		select {
		case hosts := <-processed:
			for _, host := range hosts {
				delete(busy, host)
			}
			inFlight -= len(hosts)
			res.Processed += len(hosts)
		case err := <-errc:
			shutdown()
			return res, err
		case <-ticker.C:
		case <-ctx.Done():
			// Cancelled (the activity is being stopped or retried): what is
			// claimed stays leased; a retry takes it over.
			shutdown()
			return res, ctx.Err()
		}
	}
}
