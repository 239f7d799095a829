package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/store"
)

// Duplicates lists the likely duplicate node pairs of a version, best
// first (see curate.Candidates); the version's node vectors are used where
// a model embedded them.
func (a *App) Duplicates(ctx context.Context, v store.Version) ([]curate.Candidate, error) {
	g, err := a.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return nil, err
	}
	var opts curate.Options
	if st, ok, err := a.store.VectorStatsOf(ctx, v.ID); err != nil {
		return nil, err
	} else if ok && st.Embedder != "offline" {
		// The offline embedder hashes character n-grams: its vectors
		// measure spelling, which the name signals already cover, and
		// templated descriptions make unrelated nodes look close.
		vecs, err := a.loadVectors(ctx, st, v.ID)
		if err != nil {
			return nil, err
		}
		opts.Vectors = vecs.Nodes
	}
	return curate.Candidates(g, opts), nil
}

// Merge makes a new version of v's extraction (parent v) in which the
// drop nodes are folded into keep (see curate.Merge); keep and drop are
// names or keys. v itself is not changed. A version still running is a
// conflict.
func (a *App) Merge(ctx context.Context, v store.Version, keep string, drop []string) (store.Version, error) {
	if v.Active() {
		return store.Version{}, extract.Errorf(extract.KindConflict, "%s is still running: wait for it or cancel it first", v.Label())
	}
	g, err := a.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return store.Version{}, err
	}
	k, err := curate.Resolve(g, keep)
	if err != nil {
		return store.Version{}, err
	}
	var keys, names []string
	for _, d := range drop {
		n, err := curate.Resolve(g, d)
		if err != nil {
			return store.Version{}, err
		}
		keys = append(keys, n.Key)
		names = append(names, fmt.Sprintf("%q", n.Name))
	}
	merged, err := curate.Merge(g, k.Key, keys, curate.MergeOptions{
		MaxFragments: v.Config.WithDefaults().MaxFragments, Undirected: v.Config.Strategy == extract.StrategyTuple})
	if err != nil {
		return store.Version{}, err
	}
	note := fmt.Sprintf("merge of %s: %s into %q", v.Label(), strings.Join(names, ", "), k.Name)
	nv, err := a.store.SaveGraphVersion(ctx, v.Extraction, v.Config, v.DocumentIDs, note, v.ID, merged)
	if err != nil {
		return store.Version{}, err
	}
	a.log.Info("merged nodes", "version_id", v.ID, "new_version_id", nv.ID, "keep", k.Key, "dropped", len(keys))
	return nv, nil
}
