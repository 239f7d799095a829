package app

import (
	"context"
	"errors"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/extract"
)

// Heavy requests are those that hold one or two whole graphs in memory
// while they work: comparisons (both graphs, the diff and the union the
// page draws), exports and imports. Comparing two versions of 20,000
// nodes and 60,000 edges takes about 240 MiB at its peak, so six at once
// took 1.6 GB. A Gate admits a few of them at once. A request beyond the
// bound waits in a short line for a slot, so a burst of clicks gets
// through one after the other; when the line is full, or no slot frees
// within HeavyWait, it is refused as busy with a time to retry. An
// endless line would hold its requests' connections and callers for as
// long as a flood lasts; a caller told to come back can.
const (
	// heavyBudget is the memory one heavy request is counted to take.
	heavyBudget = 256 << 20
	// HeavyWait is how long a heavy request waits in line for a slot.
	HeavyWait = 10 * time.Second
	// heavyLine is how many requests per slot may wait in line.
	heavyLine = 4
	// BusyRetryAfter is when a refused heavy request may try again (the
	// HTTP answer's Retry-After).
	BusyRetryAfter = 5 * time.Second
)

// Gate admits a bounded number of heavy requests at once, with a bounded
// line of waiting ones.
type Gate struct {
	slots chan struct{}
	line  chan struct{}
	wait  time.Duration
}

// NewGate returns a gate of n slots (at least one) and a line of up to
// line waiting requests, each of which waits up to wait for a slot.
func NewGate(n, line int, wait time.Duration) *Gate {
	return &Gate{slots: make(chan struct{}, max(n, 1)), line: make(chan struct{}, max(line, 0)), wait: wait}
}

// Slots is how many heavy requests the gate admits at once.
func (g *Gate) Slots() int { return cap(g.slots) }

// gateKey marks a context whose request holds a slot of the gate it
// names.
type gateKey struct{}

// errBusy is the cause of a refusal by a full gate.
var errBusy = errors.New("heavy requests: every slot taken")

// Enter takes a slot for the request of ctx and returns a context that
// says it holds one, and the function that gives it back (call it once,
// when the request's memory is let go). A context that already holds a
// slot of g enters at once without taking another, so a handler that
// admits its whole request and the app methods it calls count once.
// When the line is full or no slot frees within the gate's wait, Enter
// returns an unavailable error for which IsBusy is true; when ctx ends
// first, its error.
func (g *Gate) Enter(ctx context.Context) (context.Context, func(), error) {
	if held, _ := ctx.Value(gateKey{}).(*Gate); held == g {
		return ctx, func() {}, nil
	}
	select {
	case g.slots <- struct{}{}:
	default:
		if err := g.waitInLine(ctx); err != nil {
			return ctx, nil, err
		}
	}
	var once sync.Once
	release := func() { once.Do(func() { <-g.slots }) }
	return context.WithValue(ctx, gateKey{}, g), release, nil
}

// waitInLine waits for a slot in the gate's line.
func (g *Gate) waitInLine(ctx context.Context) error {
	select {
	case g.line <- struct{}{}:
		defer func() { <-g.line }()
	default:
		return busyErr()
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-t.C:
		return busyErr()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Line is how many requests may wait in the gate's line, and Waiting how
// many do.
func (g *Gate) Line() int { return cap(g.line) }

// Waiting is how many requests wait in the gate's line.
func (g *Gate) Waiting() int { return len(g.line) }

func busyErr() error {
	return extract.Wrap(extract.KindUnavailable, errBusy,
		"the server is busy with other comparisons, exports and imports: try again in %d seconds", int(BusyRetryAfter/time.Second))
}

// IsBusy reports whether err is a Gate's refusal: the request may be
// tried again after BusyRetryAfter.
func IsBusy(err error) bool { return errors.Is(err, errBusy) }

// HeavySlots is how many heavy requests a process admits at once: one
// per core, at least two and at most eight, and no more than the memory
// limit (GOMEMLIMIT, when set) holds at heavyBudget each.
func HeavySlots() int {
	n := min(max(runtime.GOMAXPROCS(0), 2), 8)
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		n = min(n, max(1, int(limit/heavyBudget)))
	}
	return n
}

// Heavy is the gate that admits the application's heavy requests:
// Comparisons.Compare, ImportGraph and ImportGraphDir enter it themselves; a handler
// that holds a graph of its own (an export) or builds more from a
// comparison (the compare page) enters it for the whole request. Each
// App has its own (tests run several in one process).
func (a *App) Heavy() *Gate { return a.heavy }

// newHeavyGate is the gate an App's heavy requests pass (see Gate):
// HeavySlots slots, a line of heavyLine a slot.
func newHeavyGate() *Gate {
	n := HeavySlots()
	return NewGate(n, heavyLine*n, HeavyWait)
}
