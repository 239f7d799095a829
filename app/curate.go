package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Curation finds a version's duplicate nodes and merges them, edits
// versions, and imports graphs and gold sets, each change a new version.
type Curation struct{ a *App }

// Duplicates lists the likely duplicate node pairs of a version, best
// first (see curate.Candidates), leaving out the pairs judged "not the
// same" on its extraction; the version's node vectors are used where a
// model embedded them.
func (c *Curation) Duplicates(ctx context.Context, v record.Version) ([]curate.Candidate, error) {
	a := c.a
	g, err := a.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return nil, err
	}
	d, err := a.store.Decisions(ctx, v.ExtractionID)
	if err != nil {
		return nil, err
	}
	opts := curate.Options{Skip: d.IsDistinct}
	if st, ok, err := a.store.VectorStatsOf(ctx, v.ID); err != nil {
		return nil, err
	} else if ok && st.Embedder != extract.EmbedderOffline && st.Embedder != extract.EmbedderUSELite && st.Embedder != "" {
		// The offline embedder hashes character n-grams: its vectors
		// measure spelling, which the name signals already cover, and
		// templated descriptions make unrelated nodes look close. The
		// sentence encoder puts related names (two Christmas spirits)
		// as close as one entity's two names, so only a provider's
		// embeddings add a signal.
		vecs, err := a.loadVectors(ctx, st, v, versionRead{})
		if err != nil {
			return nil, err
		}
		opts.Vectors = vecs.Nodes
	}
	return curate.Candidates(g, opts), nil
}

// Merge makes a new version of v's extraction (parent v) in which the
// drop nodes are folded into keep (see curate.Merge); keep and drop are
// names or keys. v itself is not changed; the merge is recorded on the
// extraction, so its next runs apply it. A version still running is a
// conflict.
func (c *Curation) Merge(ctx context.Context, v record.Version, keep string, drop []string) (record.Version, error) {
	a := c.a
	if v.Active() {
		return record.Version{}, extract.Errorf(extract.KindConflict, "%s is still running: wait for it or cancel it first", v.Label())
	}
	g, err := a.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return record.Version{}, err
	}
	k, err := curate.Resolve(g, keep)
	if err != nil {
		return record.Version{}, err
	}
	var keys, names []string
	for _, d := range drop {
		n, err := curate.Resolve(g, d)
		if err != nil {
			return record.Version{}, err
		}
		keys = append(keys, n.Key)
		names = append(names, fmt.Sprintf("%q", n.Name))
	}
	merged, err := curate.Merge(g, k.Key, keys, mergeOptions(v))
	if err != nil {
		return record.Version{}, err
	}
	note := fmt.Sprintf("merge of %s: %s into %q", v.Label(), strings.Join(names, ", "), k.Name)
	nv, err := a.store.SaveGraphVersion(ctx, v.Extraction, v.Config, v.DocumentIDs, note, v.ID, merged)
	if err != nil {
		return record.Version{}, err
	}
	a.keepCommunities(ctx, nv, &merged)
	if err := a.store.UpdateDecisions(ctx, v.ExtractionID, func(d *curate.Decisions) { d.AddMerge(k.Key, keys) }); err != nil {
		return record.Version{}, err
	}
	a.log.Info("merged nodes", "version_id", v.ID, "new_version_id", nv.ID, "keep", k.Key, "dropped", len(keys))
	a.vectorizeChild(ctx, v, nv)
	return nv, nil
}

// Decide records a "not the same" answer for two nodes of v (names or
// keys) on v's extraction; its next runs leave the pair out of their
// duplicate candidates.
func (c *Curation) Decide(ctx context.Context, v record.Version, x, y string) error {
	a := c.a
	g, err := a.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return err
	}
	nx, err := curate.Resolve(g, x)
	if err != nil {
		return err
	}
	ny, err := curate.Resolve(g, y)
	if err != nil {
		return err
	}
	return a.store.UpdateDecisions(ctx, v.ExtractionID, func(d *curate.Decisions) { d.AddDistinct(nx.Key, ny.Key) })
}

// applyDecisions folds the merges accepted on v's extraction into the graph
// v's run produced and records what was applied: counts in its stats
// (merges_applied, not_same_applied) and a line in its note.
func (a *App) applyDecisions(ctx context.Context, v record.Version) error {
	d, err := a.store.Decisions(ctx, v.ExtractionID)
	if err != nil || (len(d.Merges) == 0 && len(d.Distinct) == 0) {
		return err
	}
	g, err := a.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return err
	}
	g, applied, err := curate.Apply(g, d, mergeOptions(v))
	if err != nil {
		return err
	}
	if applied.Merges > 0 {
		if err := a.store.ReplaceGraph(ctx, v.ID, g); err != nil {
			return err
		}
	}
	if applied == (curate.Applied{}) {
		return nil
	}
	a.log.Info("curation applied", "version_id", v.ID, "merges", applied.Merges, "dropped", applied.Dropped, "distinct", applied.Distinct)
	if err := a.store.SetDecisionsApplied(ctx, v.ID, applied.Merges, applied.Distinct); err != nil {
		return err
	}
	return a.store.AppendNote(ctx, v.ID, applied.String())
}

// mergeOptions are the merge settings of v's graphs.
func mergeOptions(v record.Version) curate.MergeOptions {
	return curate.MergeOptions{MaxFragments: v.Config.WithDefaults().MaxFragments, Undirected: v.Config.Strategy == extract.StrategyTuple}
}

// Edit makes a new version of v's extraction (parent v) with the edits
// applied in order (see curate.ApplyEdits) and stores them, as applied, as
// its edit log, so comparing v with it shows exactly what they changed. v itself
// is not changed. A version still running is a conflict; a bad edit is
// invalid and saves nothing.
func (c *Curation) Edit(ctx context.Context, v record.Version, edits []curate.Edit) (record.Version, error) {
	a := c.a
	if v.Active() {
		return record.Version{}, extract.Errorf(extract.KindConflict, "%s is still running: wait for it or cancel it first", v.Label())
	}
	g, err := a.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return record.Version{}, err
	}
	edited, edits, err := curate.ApplyEdits(g, edits)
	if err != nil {
		return record.Version{}, err
	}
	ops := make([]string, len(edits))
	for i, e := range edits {
		ops[i] = e.String()
	}
	note := fmt.Sprintf("edit of %s: %s", v.Label(), strings.Join(ops, "; "))
	nv, err := a.store.SaveGraphVersion(ctx, v.Extraction, v.Config, v.DocumentIDs, note, v.ID, edited)
	if err != nil {
		return record.Version{}, err
	}
	a.keepCommunities(ctx, nv, &edited)
	if err := a.store.SetEdits(ctx, nv.ID, edits); err != nil {
		_ = a.store.FinishVersion(context.WithoutCancel(ctx), nv.ID, record.StatusFailed, nv.Elapsed, "edit log not saved: "+extract.MessageOf(err))
		return record.Version{}, err
	}
	a.log.Info("graph edited", "version_id", v.ID, "new_version_id", nv.ID, "edits", len(edits))
	a.vectorizeChild(ctx, v, nv)
	return a.store.Version(ctx, nv.ID)
}
