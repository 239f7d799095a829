package app

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Grow makes a new version of v's extraction (parent v, v's settings)
// over v's documents and the new ones named, extracting only the new
// documents' chunks, as LightRAG inserts documents into a graph it has:
// v's graph, chunk runs and counters are taken as they are, the new
// chunks merge into them after v's, and the final job (summaries, rules,
// communities, vectors) runs again over the whole. The new version is
// queued; Start or Run executes it.
//
// Only a finished extraction of text documents grows, with text
// documents: a dialogue's memory and a table's mapping are built whole,
// so they are run anew. A version still running is a conflict; naming
// only documents v has is invalid.
func (rs *Runs) Grow(ctx context.Context, v record.Version, docIDs []int) (record.Version, error) {
	if err := finishedExtraction(v, "grows"); err != nil {
		return record.Version{}, err
	}
	var added []int
	for _, id := range docIDs {
		if !slices.Contains(v.DocumentIDs, id) && !slices.Contains(added, id) {
			added = append(added, id)
		}
	}
	if len(added) == 0 {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "%s already holds every document named: nothing to add", v.Label())
	}
	all := append(slices.Clone(v.DocumentIDs), added...)
	docs, err := rs.store.Documents(ctx, all)
	if err != nil {
		return record.Version{}, err
	}
	for _, d := range docs {
		if TrackOf(v.Config, d) == TrackText {
			continue
		}
		if slices.Contains(v.DocumentIDs, d.ID) {
			return record.Version{}, extract.Errorf(extract.KindInvalid, "%s holds %s, read as %s: a version with tables or conversations does not grow; make a new version with the documents instead", v.Label(), d.Name, TrackOf(v.Config, d))
		}
		return record.Version{}, extract.Errorf(extract.KindInvalid, "%s is read as %s, not text: a graph grows with text documents only (make a new version with it)", d.Name, TrackOf(v.Config, d))
	}
	note := fmt.Sprintf("grown from %s: %d new documents", v.Label(), len(added))
	nv, err := rs.store.NewChildVersion(ctx, v.Extraction, v.Config, all, note, v.ID)
	if err != nil {
		return record.Version{}, err
	}
	// v's chunks come first in the new run's order, so its graph is the
	// new version's graph as its chunk jobs merged it up to v's last
	// chunk; the new documents' chunks merge after it.
	copied, err := rs.store.CopyRunChunks(ctx, v.ID, nv.ID, true, nil)
	if err != nil {
		return record.Version{}, err
	}
	rs.log.Info("growing extraction", "version_id", v.ID, "new_version_id", nv.ID, "new_documents", len(added), "chunks_kept", len(copied))
	return nv, nil
}

// Without makes a new version of v's extraction (parent v, v's settings)
// over v's documents but those named (by id or by name): what only they
// contributed is gone, and what they shared with the others is merged
// again from the others' chunks alone, as LightRAG's delete by document
// rebuilds an entity's description from the chunks that remain. The
// remaining chunks are extracted again, their model calls answered from
// the call cache at no cost. The new version is queued; Start or Run
// executes it.
func (rs *Runs) Without(ctx context.Context, v record.Version, names []string) (record.Version, error) {
	if err := finishedExtraction(v, "has documents taken out"); err != nil {
		return record.Version{}, err
	}
	docs, err := rs.store.Documents(ctx, v.DocumentIDs)
	if err != nil {
		return record.Version{}, err
	}
	out := map[int]bool{}
	for _, name := range names {
		i := slices.IndexFunc(docs, func(d extract.Document) bool { return d.Name == name || strconv.Itoa(d.ID) == name })
		if i < 0 {
			return record.Version{}, extract.Errorf(extract.KindNotFound, "%s has no document %q", v.Label(), name)
		}
		out[docs[i].ID] = true
	}
	var keep []int
	for _, id := range v.DocumentIDs {
		if !out[id] {
			keep = append(keep, id)
		}
	}
	if len(out) == 0 || len(keep) == 0 {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "%s without %d of its %d documents would leave nothing to extract", v.Label(), len(out), len(v.DocumentIDs))
	}
	cfg := v.Config
	cfg.NoCache = false
	note := fmt.Sprintf("%s without %s", v.Label(), extract.Count(len(out), "document"))
	return rs.store.NewChildVersion(ctx, v.Extraction, cfg, keep, note, v.ID)
}

// finishedExtraction refuses to change the documents of a version that is
// not a finished extraction: one still running is a conflict; a failed or
// canceled run, an edit, a merge or an import is invalid.
func finishedExtraction(v record.Version, what string) error {
	if v.Active() {
		return extract.Errorf(extract.KindConflict, "%s is still running: wait for it to finish", v.Label())
	}
	if v.Status != record.StatusDone || v.ChunksTotal == 0 {
		return extract.Errorf(extract.KindInvalid, "%s is %s: only a finished extraction %s (not a failed or canceled run, an edit, a merge or an import)", v.Label(), v.Status, what)
	}
	return nil
}
