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
	// A pair held or being compared is waited for without a slot; else a
	// slot first, and the cache again (another caller may have started
	// the pair while this one waited for the slot). The computation is
	// shared, so it does not stop when this caller goes away.
	if !a.comparisons.Has(key) {
		var release func()
		ctx, release, err = a.Heavy().Enter(ctx)
		if err != nil {
			return Comparison{}, err
		}
		defer release()
	}
	c, err := a.comparisons.Get(ctx, key, func() (Comparison, error) {
		return a.compareVersions(context.WithoutCancel(ctx), va, vb, opts)
	})
	if err != nil {
		return Comparison{}, err
	}
	c.A, c.B = va, vb
	return c, nil
}

// comparisonSize is what a comparison weighs in the cache: the nodes and
// edges of both sides.
func comparisonSize(c Comparison) int {
	return len(c.GA.Nodes) + len(c.GA.Edges) + len(c.GB.Nodes) + len(c.GB.Edges)
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
