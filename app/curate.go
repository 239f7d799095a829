package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// Curation finds a version's duplicate nodes and merges them, edits
// versions, and imports graphs and gold sets, each change a new version.
type Curation struct {
	store       *store.Store
	log         *slog.Logger
	heavy       *Gate
	vectors     *vectorizer
	communities *Communities
	// A version curation makes is laid out and indexed for questions at
	// once when this process runs workers (see written).
	runs    *Runs
	layouts *Layouts
	queries *Queries
}

// Duplicates lists the likely duplicate node pairs of a version, best
// first (see curate.Candidates), leaving out the pairs judged "not the
// same" on its extraction; the version's node vectors are used where a
// model embedded them.
func (c *Curation) Duplicates(ctx context.Context, v record.Version) ([]curate.Candidate, error) {
	g, err := c.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return nil, err
	}
	d, err := c.store.Decisions(ctx, v.ExtractionID)
	if err != nil {
		return nil, err
	}
	opts := curate.Options{Skip: d.IsDistinct}
	if st, ok, err := c.store.VectorStatsOf(ctx, v.ID); err != nil {
		return nil, err
	} else if ok && st.Embedder != extract.EmbedderOffline && st.Embedder != extract.EmbedderUSELite && st.Embedder != "" {
		// The offline embedder hashes character n-grams: its vectors
		// measure spelling, which the name signals already cover, and
		// templated descriptions make unrelated nodes look close. The
		// sentence encoder puts related names (two Christmas spirits)
		// as close as one entity's two names, so only a provider's
		// embeddings add a signal.
		vecs, err := c.vectors.loadVectors(ctx, st, v)
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
// conflict, and so is a merge v already has a version for (the same merge
// twice is a no-op, refused).
func (c *Curation) Merge(ctx context.Context, v record.Version, keep string, drop []string) (record.Version, error) {
	nv, _, err := c.Apply(ctx, v, Decisions{Merges: []MergeRequest{{Keep: keep, Drop: drop}}})
	return nv, err
}

// MergeRequest folds the Drop nodes into Keep (names or keys).
type MergeRequest struct {
	Keep string   `json:"keep" form:"keep"`
	Drop []string `json:"drop" form:"drop"`
}

// Decisions are review answers applied together: merges, made as one new
// version, and pairs of nodes (names or keys) that are not the same.
type Decisions struct {
	Merges   []MergeRequest `json:"merges"`
	Distinct [][2]string    `json:"distinct"`
}

// Apply applies review decisions to v at once: its merges make one new
// version (parent v), in order, a later merge following the nodes an
// earlier one folded away; its "not the same" pairs are remembered on the
// extraction. Every decision is recorded for the extraction's next runs.
// made is false when there were no merges to make (only answers to
// remember). Nothing is saved when any reference is unknown, when nothing
// would change, or when v already has a version made by the same merges.
func (c *Curation) Apply(ctx context.Context, v record.Version, d Decisions) (nv record.Version, made bool, err error) {
	defer func() { c.written(nv, err) }()
	if len(d.Merges) == 0 && len(d.Distinct) == 0 {
		return record.Version{}, false, extract.Errorf(extract.KindInvalid, "no decisions to apply")
	}
	if len(d.Merges) > 0 && v.Active() {
		return record.Version{}, false, extract.Errorf(extract.KindConflict, "%s is still running: wait for it or cancel it first", v.Label())
	}
	g, err := c.store.LoadGraph(ctx, v.ID, len(d.Merges) > 0)
	if err != nil {
		return record.Version{}, false, err
	}
	resolve := func(ref string) (extract.Node, error) { return curate.Resolve(g, ref) }
	var distinct [][2]string
	for _, p := range d.Distinct {
		x, err := resolve(p[0])
		if err != nil {
			return record.Version{}, false, err
		}
		y, err := resolve(p[1])
		if err != nil {
			return record.Version{}, false, err
		}
		if x.Key == y.Key {
			return record.Version{}, false, extract.Errorf(extract.KindInvalid, "%q and %q are one node", p[0], p[1])
		}
		distinct = append(distinct, [2]string{x.Key, y.Key})
	}
	merged, merges, notes, err := mergeAll(g, d.Merges, resolve, mergeOptions(v))
	if err != nil {
		return record.Version{}, false, err
	}
	if len(d.Merges) > 0 {
		note := fmt.Sprintf("merge of %s: %s", v.Label(), strings.Join(notes, "; "))
		if prev, ok, err := c.store.ChildWithNote(ctx, v.ID, note); err != nil {
			return record.Version{}, false, err
		} else if ok {
			return record.Version{}, false, extract.Errorf(extract.KindConflict, "%s already has this merge: %s (%s)", v.Label(), prev.Label(), note)
		}
		if nv, err = c.store.SaveGraphVersion(ctx, v.Extraction, v.Config, v.DocumentIDs, note, v.ID, merged); err != nil {
			return record.Version{}, false, err
		}
		c.communities.keepCommunities(ctx, nv, &merged)
		made = true
	}
	err = c.store.UpdateDecisions(ctx, v.ExtractionID, func(rec *curate.Decisions) {
		for _, m := range merges {
			rec.AddMerge(m.Keep, m.Drop)
		}
		for _, p := range distinct {
			rec.AddDistinct(p[0], p[1])
		}
	})
	if err != nil {
		return record.Version{}, false, err
	}
	if !made {
		return v, false, nil
	}
	c.log.Info("merged nodes", "version_id", v.ID, "new_version_id", nv.ID, "merges", len(merges), "distinct", len(distinct))
	c.vectors.vectorizeChild(ctx, v, nv)
	return nv, true, nil
}

// mergeAll folds each request's drop nodes into its keep node, in order,
// on g (references resolved on g; a node an earlier request folded away
// stands for the node it went into). It returns the merged graph, the
// merges as keys, and a phrase per merge for the version's note. A
// request whose nodes are all one node already is a no-op, refused.
func mergeAll(g extract.Graph, reqs []MergeRequest, resolve func(string) (extract.Node, error), opts curate.MergeOptions) (extract.Graph, []curate.MergeDecision, []string, error) {
	into := map[string]string{} // a folded key -> the key it went into
	follow := func(k string) string {
		for into[k] != "" {
			k = into[k]
		}
		return k
	}
	names := map[string]string{}
	for _, n := range g.Nodes {
		names[n.Key] = n.Name
	}
	var merges []curate.MergeDecision
	var notes []string
	for _, r := range reqs {
		k, err := resolve(r.Keep)
		if err != nil {
			return extract.Graph{}, nil, nil, err
		}
		keep := follow(k.Key)
		var keys, dropped []string
		for _, ref := range r.Drop {
			n, err := resolve(ref)
			if err != nil {
				return extract.Graph{}, nil, nil, err
			}
			if key := follow(n.Key); key != keep && !slices.Contains(keys, key) {
				keys = append(keys, key)
				dropped = append(dropped, fmt.Sprintf("%q", names[key]))
			}
		}
		if len(keys) == 0 {
			if len(r.Drop) == 0 {
				return extract.Graph{}, nil, nil, extract.Errorf(extract.KindInvalid, "name at least one node to merge into %q", r.Keep)
			}
			return extract.Graph{}, nil, nil, extract.Errorf(extract.KindInvalid, "%s: already one node with %q, nothing to merge", strings.Join(r.Drop, ", "), names[keep])
		}
		var err2 error
		if g, err2 = curate.Merge(g, keep, keys, opts); err2 != nil {
			return extract.Graph{}, nil, nil, err2
		}
		for _, key := range keys {
			into[key] = keep
		}
		merges = append(merges, curate.MergeDecision{Keep: keep, Drop: keys})
		notes = append(notes, fmt.Sprintf("%s into %q", strings.Join(dropped, ", "), names[keep]))
	}
	return g, merges, notes, nil
}

// Decide records a "not the same" answer for two nodes of v (names or
// keys) on v's extraction; its next runs leave the pair out of their
// duplicate candidates.
func (c *Curation) Decide(ctx context.Context, v record.Version, x, y string) error {
	_, _, err := c.Apply(ctx, v, Decisions{Distinct: [][2]string{{x, y}}})
	return err
}

// applyDecisions folds the merges accepted on v's extraction into the graph
// v's run produced and records what was applied: counts in its stats
// (merges_applied, not_same_applied) and a line in its note.
func (pl *pipeline) applyDecisions(ctx context.Context, v record.Version) error {
	if v.Config.NoDecisions {
		return nil
	}
	d, err := pl.store.Decisions(ctx, v.ExtractionID)
	if err != nil || (len(d.Merges) == 0 && len(d.Distinct) == 0) {
		return err
	}
	g, err := pl.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return err
	}
	g, applied, err := curate.Apply(g, d, mergeOptions(v))
	if err != nil {
		return err
	}
	if applied.Merges > 0 {
		if err := pl.store.ReplaceGraph(ctx, v.ID, g); err != nil {
			return err
		}
	}
	if applied == (curate.Applied{}) {
		return nil
	}
	pl.log.Info("curation applied", "version_id", v.ID, "merges", applied.Merges, "dropped", applied.Dropped, "distinct", applied.Distinct)
	if err := pl.store.SetDecisionsApplied(ctx, v.ID, applied.Merges, applied.Distinct); err != nil {
		return err
	}
	return pl.store.AppendNote(ctx, v.ID, applied.String())
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
func (c *Curation) Edit(ctx context.Context, v record.Version, edits []curate.Edit) (nv record.Version, err error) {
	defer func() { c.written(nv, err) }()
	if v.Active() {
		return record.Version{}, extract.Errorf(extract.KindConflict, "%s is still running: wait for it or cancel it first", v.Label())
	}
	g, err := c.store.LoadGraph(ctx, v.ID, true)
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
	nv, err = c.store.SaveGraphVersion(ctx, v.Extraction, v.Config, v.DocumentIDs, note, v.ID, edited)
	if err != nil {
		return record.Version{}, err
	}
	c.communities.keepCommunities(ctx, nv, &edited)
	if err := c.store.SetEdits(ctx, nv.ID, edits); err != nil {
		_ = c.store.FinishVersion(context.WithoutCancel(ctx), nv.ID, record.StatusFailed, nv.Elapsed, "edit log not saved: "+extract.MessageOf(err))
		return record.Version{}, err
	}
	c.log.Info("graph edited", "version_id", v.ID, "new_version_id", nv.ID, "edits", len(edits))
	c.vectors.vectorizeChild(ctx, v, nv)
	return c.store.Version(ctx, nv.ID)
}
