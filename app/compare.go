package app

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/store"
)

// Comparison is two versions, their graphs and the diff between them.
type Comparison struct {
	A, B    store.Version
	GA, GB  extract.Graph
	Options diff.Options
	Result  diff.Result
}

// Compare loads two versions' graphs and compares them with the
// matching options of opts. When one side is marked as the reference (a
// first when both are), the result is scored against it; opts.Reference
// is ignored.
func (a *App) Compare(ctx context.Context, aID, bID int, opts diff.Options) (Comparison, error) {
	var c Comparison
	var err error
	if c.A, err = a.store.Version(ctx, aID); err != nil {
		return c, err
	}
	if c.B, err = a.store.Version(ctx, bID); err != nil {
		return c, err
	}
	if c.GA, err = a.store.LoadGraph(ctx, aID, false); err != nil {
		return c, err
	}
	if c.GB, err = a.store.LoadGraph(ctx, bID, false); err != nil {
		return c, err
	}
	c.Options = opts
	c.Options.Reference = diff.RefNone
	switch {
	case c.A.Reference:
		c.Options.Reference = diff.RefA
	case c.B.Reference:
		c.Options.Reference = diff.RefB
	}
	c.Result = diff.Compare(c.GA, c.GB, c.Options)
	return c, nil
}
