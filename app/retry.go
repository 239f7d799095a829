package app

import (
	"context"
	"fmt"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Retry makes a new version of v's extraction (parent v, same settings and
// documents) that asks the model again only for the chunks of v that failed
// or whose answers did not parse. Those answers stay stored but are marked
// bad, so the call cache no longer serves them; every other chunk is
// answered from the cache at no cost. The new version is queued; Start or
// Run executes it. A version still running is a conflict; one with
// nothing to retry is invalid.
func (rs *Runs) Retry(ctx context.Context, v record.Version) (record.Version, error) {
	if v.Active() {
		return record.Version{}, extract.Errorf(extract.KindConflict, "%s is still running: wait for it or cancel it first", v.Label())
	}
	if v.ChunksTotal == 0 && v.Status == record.StatusDone {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "%s was made from a graph (an edit, a merge or an import), not extracted: there is nothing to retry", v.Label())
	}
	runs, err := rs.store.ChunkRuns(ctx, v.ID)
	if err != nil {
		return record.Version{}, err
	}
	var bad []string
	unparsed := 0
	// merged are the chunks the version's final job merged; unparsedRefs
	// those of them whose answers did not parse.
	merged, unparsedRefs := map[extract.ChunkRef]bool{}, map[extract.ChunkRef]bool{}
	for _, r := range runs {
		ref := extract.ChunkRef{DocumentID: r.DocumentID, Index: r.ChunkIndex}
		merged[ref] = true
		if len(r.ParseErrors) == 0 {
			continue
		}
		unparsed++
		unparsedRefs[ref] = true
		bad = append(bad, badCalls(r)...)
	}
	// A run canceled or failed before its final job merged everything has
	// chunks whose jobs stored a result: they count as done and the new
	// version takes their results as they are (copied below).
	staged, err := rs.store.DoneChunks(ctx, v.ID)
	if err != nil {
		return record.Version{}, err
	}
	done := len(merged)
	for ref := range staged {
		if !merged[ref] {
			done++
		}
	}
	failed := v.ChunksTotal - done
	if v.ChunksTotal == 0 && v.Status != record.StatusDone {
		failed = 1 // never planned: everything runs again
	}
	if failed <= 0 && unparsed == 0 {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "nothing to retry: every chunk of %s finished and parsed", v.Label())
	}
	if err := rs.store.MarkCallsBad(ctx, bad); err != nil {
		return record.Version{}, err
	}
	note := fmt.Sprintf("retry of %s: %d failed, %d unparsed chunks asked again", v.Label(), max(failed, 0), unparsed)
	cfg := v.Config
	cfg.NoCache = false
	// A retry changes only what failed: the duplicate decisions taken
	// since v was made are not applied to it when v applied none.
	cfg.NoDecisions = v.Config.NoDecisions || v.MergesApplied == 0 && v.NotSameApplied == 0
	nv, err := rs.store.NewChildVersion(ctx, v.Extraction, cfg, v.DocumentIDs, note, v.ID)
	if err != nil {
		return record.Version{}, err
	}
	// Same settings, same chunks: what v's chunk jobs merged and staged
	// is the new version's, but for the unparsed chunks, which are asked
	// again. v's graph is taken whole when it is what its chunk jobs
	// merged in order and nothing else: no answer of it is asked again
	// (none of its merged chunks failed to parse) and its final job never
	// got past the text (not every text chunk is merged). Otherwise the
	// chunks it merged without keeping their results run again, answered
	// from the call cache.
	text, err := rs.pipe.textChunks(ctx, v)
	if err != nil {
		return record.Version{}, err
	}
	prefix := unparsed == 0 && v.MergeNext < text
	copied, err := rs.store.CopyRunChunks(ctx, v.ID, nv.ID, prefix, unparsedRefs)
	if err != nil {
		return record.Version{}, err
	}
	rs.log.Info("retrying extraction", "version_id", v.ID, "new_version_id", nv.ID, "failed_chunks", max(failed, 0),
		"unparsed_chunks", unparsed, "chunks_kept", len(copied))
	return nv, nil
}

// badCalls are the cache keys of the answers a chunk could not parse: the
// calls its parse failures point at, or all its calls when they point at
// none.
func badCalls(r record.ChunkRun) []string {
	var keys []string
	seen := map[int]bool{}
	for _, f := range r.ParseErrors {
		if f.Round >= 0 && f.Round < len(r.Calls) && !seen[f.Round] {
			seen[f.Round] = true
			keys = append(keys, r.Calls[f.Round].Key)
		}
	}
	if len(keys) == 0 {
		for _, c := range r.Calls {
			keys = append(keys, c.Key)
		}
	}
	return keys
}

// ResumeFailed runs a failed or canceled version again in the background:
// its finished chunks are kept and skipped, the others (those that failed)
// are asked again.
func (rs *Runs) ResumeFailed(ctx context.Context, v record.Version) error {
	if err := rs.store.RequeueVersion(ctx, v.ID); err != nil {
		return err
	}
	v.Status = record.StatusQueued
	rs.Start(v)
	return nil
}

// textChunks counts the chunks of a version's text documents.
func (pl *pipeline) textChunks(ctx context.Context, v record.Version) (int, error) {
	docs, err := docKinds(ctx, pl.store, v)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range docs {
		if TrackOf(v.Config, d) != TrackText {
			continue
		}
		chunks, err := pl.versions.Chunks(ctx, v, d.ID)
		if err != nil {
			return 0, err
		}
		n += len(chunks)
	}
	return n, nil
}
