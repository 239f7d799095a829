package app

import (
	"context"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Comparison is two versions, their graphs and the diff between them. A
// comparison may be shared with other callers (see Compare): treat its
// graphs and result as read-only.
type Comparison struct {
	A, B    record.Version
	GA, GB  extract.Graph
	Options diff.Options
	Result  diff.Result
}

// Bounds of the comparison cache: at most compareCacheEntries pairs and
// compareCacheElements nodes and edges (both sides of every pair) in all.
// A pair larger than the element bound is never cached.
const (
	compareCacheEntries  = 16
	compareCacheElements = 1_000_000
)

// compareKey names a comparison: the two versions as they are (a version
// is immutable once finished, and a later resume changes its status,
// counts or finish time) and the options it ran with.
type compareKey struct {
	a, b versionStamp
	opts diff.Options
}

// versionStamp is what identifies a version's content.
type versionStamp struct {
	id, nodes, edges int
	status           record.Status
	created          time.Time
	finished         time.Time
}

func stampOf(v record.Version) versionStamp {
	s := versionStamp{id: v.ID, nodes: v.Nodes, edges: v.Edges, status: v.Status, created: v.CreatedAt}
	if v.FinishedAt != nil {
		s.finished = *v.FinishedAt
	}
	return s
}

// compareCall is one comparison in flight or done; done is closed when c
// and err are set.
type compareCall struct {
	done chan struct{}
	c    Comparison
	err  error
	size int
}

// Compare loads two versions' graphs and compares them with the
// matching options of opts. When one side is marked as the reference (a
// first when both are), the result is scored against it; opts.Reference
// is ignored.
//
// The comparison of two versions that are not running is cached (bounded,
// least recently used first out), and concurrent requests for the same pair
// share one computation; a side that is queued or running is compared
// afresh every time. A computation is a heavy request (see Gate): when
// the gate stays full, Compare returns an error for which IsBusy is true.
func (a *App) Compare(ctx context.Context, aID, bID int, opts diff.Options) (Comparison, error) {
	va, vb, err := a.versionPair(ctx, aID, bID)
	if err != nil {
		return Comparison{}, err
	}
	opts = compareOptions(va, vb, opts)
	if va.Active() || vb.Active() {
		ctx, release, err := a.Heavy().Enter(ctx)
		if err != nil {
			return Comparison{}, err
		}
		defer release()
		return a.compareVersions(ctx, va, vb, opts)
	}
	key := compareKey{a: stampOf(va), b: stampOf(vb), opts: opts}
	if call, _ := a.comparisonCall(key, false); call != nil {
		return call.wait(ctx, va, vb)
	}
	// A slot first, then the cache again: another caller may have
	// started this pair while this one waited.
	ctx, release, err := a.Heavy().Enter(ctx)
	if err != nil {
		return Comparison{}, err
	}
	defer release()
	call, started := a.comparisonCall(key, true)
	if !started {
		release()
		return call.wait(ctx, va, vb)
	}

	// The computation is shared, so it does not stop when this caller
	// goes away.
	call.c, call.err = a.compareVersions(context.WithoutCancel(ctx), va, vb, opts)
	call.size = len(call.c.GA.Nodes) + len(call.c.GA.Edges) + len(call.c.GB.Nodes) + len(call.c.GB.Edges)
	close(call.done)

	a.cmpMu.Lock()
	if call.err != nil || call.size > compareCacheElements {
		delete(a.cmpCache, key)
		delete(a.cmpUsed, key)
	}
	a.evictComparisons()
	a.cmpMu.Unlock()
	return call.c, call.err
}

// comparisonCall returns the cached call of key (done or in flight),
// marking it used; without one, it starts a call when start is set
// (started is then true) and returns nil otherwise.
func (a *App) comparisonCall(key compareKey, start bool) (call *compareCall, started bool) {
	a.cmpMu.Lock()
	defer a.cmpMu.Unlock()
	call, ok := a.cmpCache[key]
	if !ok && !start {
		return nil, false
	}
	if !ok {
		call = &compareCall{done: make(chan struct{})}
		if a.cmpCache == nil {
			a.cmpCache, a.cmpUsed = map[compareKey]*compareCall{}, map[compareKey]uint64{}
		}
		a.cmpCache[key] = call
	}
	a.cmpUse++
	a.cmpUsed[key] = a.cmpUse
	return call, !ok
}

// wait waits for the call to end and returns its comparison with the
// versions as the caller loaded them.
func (call *compareCall) wait(ctx context.Context, va, vb record.Version) (Comparison, error) {
	select {
	case <-call.done:
	case <-ctx.Done():
		return Comparison{}, ctx.Err()
	}
	if call.err != nil {
		return Comparison{}, call.err
	}
	c := call.c
	c.A, c.B = va, vb
	return c, nil
}

// evictComparisons drops the least recently used finished comparisons
// until the cache is within its bounds. a.cmpMu must be held.
func (a *App) evictComparisons() {
	for {
		total, n := 0, 0
		var oldest compareKey
		var oldestUse uint64
		found := false
		for k, c := range a.cmpCache {
			select {
			case <-c.done:
			default:
				continue // in flight: not counted, not evicted
			}
			total += c.size
			n++
			if u := a.cmpUsed[k]; !found || u < oldestUse {
				oldest, oldestUse, found = k, u, true
			}
		}
		if !found || (n <= compareCacheEntries && total <= compareCacheElements) {
			return
		}
		delete(a.cmpCache, oldest)
		delete(a.cmpUsed, oldest)
	}
}

// compareOptions sets the reference side of opts from the versions: a
// when it is the reference, else b when it is, else none.
func compareOptions(va, vb record.Version, opts diff.Options) diff.Options {
	opts.Reference = diff.RefNone
	switch {
	case va.Reference:
		opts.Reference = diff.RefA
	case vb.Reference:
		opts.Reference = diff.RefB
	}
	return opts
}

// versionPair loads the two versions of a comparison.
func (a *App) versionPair(ctx context.Context, aID, bID int) (record.Version, record.Version, error) {
	va, err := a.store.Version(ctx, aID)
	if err != nil {
		return record.Version{}, record.Version{}, err
	}
	vb, err := a.store.Version(ctx, bID)
	return va, vb, err
}

// compareVersions loads the graphs of two versions and diffs them with
// opts as given.
func (a *App) compareVersions(ctx context.Context, va, vb record.Version, opts diff.Options) (Comparison, error) {
	c := Comparison{A: va, B: vb, Options: opts}
	var err error
	if c.GA, err = a.store.LoadGraph(ctx, va.ID, false); err != nil {
		return c, err
	}
	if c.GB, err = a.store.LoadGraph(ctx, vb.ID, false); err != nil {
		return c, err
	}
	c.Result = diff.Compare(c.GA, c.GB, c.Options)
	return c, nil
}
