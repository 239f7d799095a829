package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/chunkrun"
	"github.com/kgstudio/kgstudio/ent/document"
	"github.com/kgstudio/kgstudio/ent/extraction"
	"github.com/kgstudio/kgstudio/ent/extractionversion"
	"github.com/kgstudio/kgstudio/ent/schema"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

func versionFromEnt(v *ent.ExtractionVersion, name string) record.Version {
	return record.Version{
		ID: v.ID, ExtractionID: v.ExtractionID, Extraction: name, Number: v.Number, Status: v.Status,
		Config: extract.Config(v.Config), DocumentIDs: v.DocumentIds, Reference: v.Reference, Note: v.Note,
		ChunksTotal: v.ChunksTotal, ChunksDone: v.ChunksDone, Nodes: v.NodeCount, Edges: v.EdgeCount,
		PromptTokens: v.PromptTokens, OutputTokens: v.OutputTokens, Calls: v.Calls, CachedCalls: v.CachedCalls,
		CachedPromptTokens: v.CachedPromptTokens, CachedOutputTokens: v.CachedOutputTokens,
		OffSchema: v.OffSchema, ParseFailures: v.ParseFailures, Elapsed: time.Duration(v.ElapsedMs) * time.Millisecond,
		Error: v.Error, CreatedAt: v.CreatedAt, StartedAt: v.StartedAt, FinishedAt: v.FinishedAt, HeartbeatAt: v.HeartbeatAt,
		ParentID: parentOf(v), Repairs: v.Repairs, Violations: v.Violations, ChunkErrors: decodeChunkErrors(v.ChunkErrors),
		Edits: decodeEdits(v.Edits), Injected: v.Injected, MergesApplied: v.MergesApplied, NotSameApplied: v.NotSameApplied,
		Written: v.Written, MergeNext: v.MergeNext,
	}
}

func parentOf(v *ent.ExtractionVersion) int {
	if v.ParentID == nil {
		return 0
	}
	return *v.ParentID
}

// NewVersion creates the next version of the named extraction (creating the
// extraction if needed), queued, with the config snapshot.
func (s *Store) NewVersion(ctx context.Context, name string, cfg extract.Config, docIDs []int, note string) (record.Version, error) {
	return s.NewChildVersion(ctx, name, cfg, docIDs, note, 0)
}

// NewChildVersion is NewVersion for a version made from another one (a
// retry): parentID names it; 0 means none. A run's version needs
// documents; one whose config has no strategy (an imported graph) may
// have none.
func (s *Store) NewChildVersion(ctx context.Context, name string, cfg extract.Config, docIDs []int, note string, parentID int) (record.Version, error) {
	if name == "" {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "an extraction needs a name")
	}
	if err := extract.CheckName("extraction name", name); err != nil {
		return record.Version{}, err
	}
	if strings.ContainsAny(name, "@/") {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "extraction name %q: @ and / are not allowed (NAME@V names a version)", name)
	}
	// A version without a strategy holds a graph no run made (an import,
	// and the merges and edits of one): it has no documents to name.
	if len(docIDs) == 0 && cfg.Strategy != "" {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "pick at least one document")
	}
	if err := s.checkDocuments(ctx, docIDs); err != nil {
		return record.Version{}, err
	}
	var out record.Version
	err := s.inTx(ctx, func(w *writeTx) error {
		tx := w.Client()
		ex, err := tx.Extraction.Query().Where(extraction.Name(name)).Only(ctx)
		if ent.IsNotFound(err) {
			ex, err = tx.Extraction.Create().SetName(name).Save(ctx)
		}
		if err != nil {
			return translate(err, "extraction")
		}
		last, err := tx.ExtractionVersion.Query().Where(extractionversion.ExtractionID(ex.ID)).
			Order(ent.Desc(extractionversion.FieldNumber)).First(ctx)
		num := 1
		if err == nil {
			num = last.Number + 1
		} else if !ent.IsNotFound(err) {
			return translate(err, "version")
		}
		create := tx.ExtractionVersion.Create().SetExtractionID(ex.ID).SetNumber(num).SetConfig(schema.StoredConfig(cfg)).
			SetDocumentIds(docIDs).SetNote(note).SetHeartbeatAt(s.Now())
		if parentID > 0 {
			create.SetParentID(parentID)
		}
		v, err := create.Save(ctx)
		if err != nil {
			return translate(err, "version")
		}
		out = versionFromEnt(v, name)
		return nil
	})
	return out, err
}

// Version loads one version.
func (s *Store) Version(ctx context.Context, id int) (record.Version, error) {
	v, err := s.client.ExtractionVersion.Query().Where(extractionversion.ID(id)).WithExtraction().Only(ctx)
	if err != nil {
		return record.Version{}, translate(err, fmt.Sprintf("version %d", id))
	}
	return versionFromEnt(v, v.Edges.Extraction.Name), nil
}

// VersionByLabel finds "name@number"; number 0 means the latest.
func (s *Store) VersionByLabel(ctx context.Context, name string, number int) (record.Version, error) {
	q := s.client.ExtractionVersion.Query().Where(extractionversion.HasExtractionWith(extraction.Name(name)))
	if number > 0 {
		q = q.Where(extractionversion.Number(number))
	}
	v, err := q.Order(ent.Desc(extractionversion.FieldNumber)).First(ctx)
	if err != nil {
		if number == 0 && ent.IsNotFound(err) {
			return record.Version{}, extract.Errorf(extract.KindNotFound, "no extraction named %q", name)
		}
		return record.Version{}, translate(err, fmt.Sprintf("version %s@%d", name, number))
	}
	return versionFromEnt(v, name), nil
}

// LatestDone returns the newest finished version of the extraction name;
// a not-found error names the extraction and says none is finished.
func (s *Store) LatestDone(ctx context.Context, name string) (record.Version, error) {
	v, err := s.client.ExtractionVersion.Query().
		Where(extractionversion.HasExtractionWith(extraction.Name(name)), extractionversion.StatusEQ(record.StatusDone)).
		Order(ent.Desc(extractionversion.FieldNumber)).First(ctx)
	if ent.IsNotFound(err) {
		if _, err := s.VersionByLabel(ctx, name, 0); err != nil {
			return record.Version{}, err
		}
		return record.Version{}, extract.Errorf(extract.KindConflict, "%s has no finished version yet: only a finished version answers", name)
	}
	if err != nil {
		return record.Version{}, translate(err, "version "+name)
	}
	return versionFromEnt(v, name), nil
}

// ListExtractions lists extractions, newest first, with their versions
// (newest first).
func (s *Store) ListExtractions(ctx context.Context, limit int) ([]record.ExtractionInfo, error) {
	q := s.client.Extraction.Query().Order(ent.Desc(extraction.FieldID)).
		WithVersions(func(q *ent.ExtractionVersionQuery) { q.Order(ent.Desc(extractionversion.FieldNumber)) })
	if limit > 0 {
		q = q.Limit(limit)
	}
	rows, err := q.All(ctx)
	if err != nil {
		return nil, translate(err, "extractions")
	}
	out := make([]record.ExtractionInfo, len(rows))
	for i, r := range rows {
		out[i] = record.ExtractionInfo{ID: r.ID, Name: r.Name}
		for _, v := range r.Edges.Versions {
			out[i].Versions = append(out[i].Versions, versionFromEnt(v, r.Name))
		}
	}
	return out, nil
}

// RecentVersions lists the latest versions across extractions.
func (s *Store) RecentVersions(ctx context.Context, limit int) ([]record.Version, error) {
	rows, err := s.client.ExtractionVersion.Query().WithExtraction().Order(ent.Desc(extractionversion.FieldID)).Limit(limit).All(ctx)
	if err != nil {
		return nil, translate(err, "versions")
	}
	out := make([]record.Version, len(rows))
	for i, r := range rows {
		out[i] = versionFromEnt(r, r.Edges.Extraction.Name)
	}
	return out, nil
}

// StartVersion marks a version running with its chunk total.
func (s *Store) StartVersion(ctx context.Context, id, chunksTotal int) error {
	now := s.Now()
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.UpdateOneID(id).SetStatus(record.StatusRunning).
			SetChunksTotal(chunksTotal).SetStartedAt(now).SetHeartbeatAt(now).SetError("").SetChunkErrors("").Exec(ctx)
	}), "version")
}

// ErrInterruptedWrite is the error of a written version (an import, a
// merge, an edit) left running by a process that died while it wrote it.
const ErrInterruptedWrite = "interrupted while written; import again"

// FailInterruptedWrites marks failed the written versions left running
// (see Version.Written) whose writer's heartbeat (every writeBeat) is
// older than writeStale, or whose writer is a process of this machine
// that is gone: a process died while it wrote them, and nothing can
// finish them. It returns how many it marked.
func (s *Store) FailInterruptedWrites(ctx context.Context) (int, error) {
	n := 0
	err := s.write(ctx, func(c *ent.Client) error {
		var err error
		n, err = c.ExtractionVersion.Update().Where(extractionversion.Written(true),
			extractionversion.StatusIn(record.StatusQueued, record.StatusRunning),
			extractionversion.HeartbeatAtLT(s.Now().Add(-writeStale))).
			SetStatus(record.StatusFailed).SetError(ErrInterruptedWrite).SetFinishedAt(s.Now()).Save(ctx)
		if err != nil {
			return err
		}
		// Those whose writer is a gone process of this machine fail at
		// once, whatever their heartbeat's age.
		running, err := c.ExtractionVersion.Query().Where(extractionversion.Written(true),
			extractionversion.StatusIn(record.StatusQueued, record.StatusRunning), extractionversion.WriterNEQ("")).
			Select(extractionversion.FieldID, extractionversion.FieldWriter).All(ctx)
		if err != nil {
			return err
		}
		var gone []int
		for _, v := range running {
			if clientGone(v.Writer) {
				gone = append(gone, v.ID)
			}
		}
		if len(gone) == 0 {
			return nil
		}
		m, err := c.ExtractionVersion.Update().Where(extractionversion.IDIn(gone...),
			extractionversion.StatusIn(record.StatusQueued, record.StatusRunning)).
			SetStatus(record.StatusFailed).SetError(ErrInterruptedWrite).SetFinishedAt(s.Now()).Save(ctx)
		n += m
		return err
	})
	return n, translate(err, "versions")
}

// Heartbeat records that a version's run is alive.
func (s *Store) Heartbeat(ctx context.Context, id int) error {
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.UpdateOneID(id).SetHeartbeatAt(s.Now()).Exec(ctx)
	}), "version")
}

// FinishVersion records the final status, elapsed time and error text.
func (s *Store) FinishVersion(ctx context.Context, id int, status record.Status, elapsed time.Duration, errText string) error {
	now := s.Now()
	err := s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.UpdateOneID(id).SetStatus(status).
			SetFinishedAt(now).SetHeartbeatAt(now).SetError(errText).AddElapsedMs(elapsed.Milliseconds()).Exec(ctx)
	})
	if err != nil {
		return translate(err, "version")
	}
	if status == record.StatusDone {
		return s.refreshCounts(ctx, id)
	}
	return nil
}

// FinishRun records a run's outcome as FinishVersion does, unless the
// version is no longer queued or running (a cancel came first): that
// status stays, and the answer is false.
func (s *Store) FinishRun(ctx context.Context, id int, status record.Status, elapsed time.Duration, errText string) (bool, error) {
	now := s.Now()
	n := 0
	err := s.write(ctx, func(c *ent.Client) error {
		var err error
		n, err = c.ExtractionVersion.Update().Where(extractionversion.ID(id),
			extractionversion.StatusIn(record.StatusQueued, record.StatusRunning)).
			SetStatus(status).SetFinishedAt(now).SetHeartbeatAt(now).SetError(errText).
			AddElapsedMs(elapsed.Milliseconds()).Save(ctx)
		return err
	})
	if err != nil || n == 0 {
		return false, translate(err, "version")
	}
	if status == record.StatusDone {
		return true, s.refreshCounts(ctx, id)
	}
	return true, nil
}

// UnfinishedVersions lists versions left queued or running, e.g. by a
// process that was killed; the server resumes them on start.
func (s *Store) UnfinishedVersions(ctx context.Context) ([]record.Version, error) {
	rows, err := s.client.ExtractionVersion.Query().WithExtraction().
		Where(extractionversion.StatusIn(record.StatusQueued, record.StatusRunning)).
		Order(ent.Asc(extractionversion.FieldID)).All(ctx)
	if err != nil {
		return nil, translate(err, "versions")
	}
	out := make([]record.Version, len(rows))
	for i, r := range rows {
		out[i] = versionFromEnt(r, r.Edges.Extraction.Name)
	}
	return out, nil
}

// SetReference marks (or unmarks) a version as the reference of its
// extraction; at most one version of an extraction is the reference.
func (s *Store) SetReference(ctx context.Context, id int, ref bool) error {
	return s.inTx(ctx, func(w *writeTx) error {
		tx := w.Client()
		v, err := tx.ExtractionVersion.Get(ctx, id)
		if err != nil {
			return translate(err, "version")
		}
		if ref {
			if err := tx.ExtractionVersion.Update().Where(extractionversion.ExtractionID(v.ExtractionID)).
				SetReference(false).Exec(ctx); err != nil {
				return err
			}
		}
		return tx.ExtractionVersion.UpdateOneID(id).SetReference(ref).Exec(ctx)
	})
}

// RequeueVersion makes a failed or canceled version queued again, so it
// can be resumed: its finished chunks are kept and skipped. A version in
// another state is a conflict.
func (s *Store) RequeueVersion(ctx context.Context, id int) error {
	var n int
	err := s.write(ctx, func(c *ent.Client) error {
		var err error
		n, err = c.ExtractionVersion.Update().Where(extractionversion.ID(id),
			extractionversion.StatusIn(record.StatusFailed, record.StatusCanceled)).
			SetStatus(record.StatusQueued).SetError("").ClearFinishedAt().Save(ctx)
		return err
	})
	if err != nil {
		return translate(err, "version")
	}
	if n == 0 {
		return extract.Errorf(extract.KindConflict, "only a failed or canceled version can be resumed")
	}
	return nil
}

// ChunkRuns lists the finished chunks of a version in document order.
func (s *Store) ChunkRuns(ctx context.Context, versionID int) ([]record.ChunkRun, error) {
	rows, err := s.client.ChunkRun.Query().Where(chunkrun.VersionID(versionID)).
		Order(chunkrun.ByDocumentID(), chunkrun.ByChunkIndex()).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk runs")
	}
	out := make([]record.ChunkRun, len(rows))
	for i, r := range rows {
		out[i] = chunkRunFromEnt(r)
	}
	return out, nil
}

// ChunkRunSummaries lists the finished chunks of a version like ChunkRuns,
// without the model calls and parse failures (which can be large).
func (s *Store) ChunkRunSummaries(ctx context.Context, versionID int) ([]record.ChunkRun, error) {
	rows, err := s.client.ChunkRun.Query().Where(chunkrun.VersionID(versionID)).
		Order(chunkrun.ByDocumentID(), chunkrun.ByChunkIndex()).
		Select(chunkrun.FieldDocumentID, chunkrun.FieldChunkIndex, chunkrun.FieldNodeCount, chunkrun.FieldEdgeCount,
			chunkrun.FieldPromptTokens, chunkrun.FieldOutputTokens, chunkrun.FieldOffSchema, chunkrun.FieldFailures,
			chunkrun.FieldElapsedMs).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk runs")
	}
	out := make([]record.ChunkRun, len(rows))
	for i, r := range rows {
		out[i] = chunkRunFromEnt(r)
	}
	return out, nil
}

// ChunkRunAt returns one finished chunk of a version with its calls and
// parse failures; ok is false when the chunk has not run.
func (s *Store) ChunkRunAt(ctx context.Context, versionID, documentID, chunkIndex int) (record.ChunkRun, bool, error) {
	r, err := s.client.ChunkRun.Query().Where(chunkrun.VersionID(versionID), chunkrun.DocumentID(documentID),
		chunkrun.ChunkIndex(chunkIndex)).Only(ctx)
	if ent.IsNotFound(err) {
		return record.ChunkRun{}, false, nil
	}
	if err != nil {
		return record.ChunkRun{}, false, translate(err, "chunk run")
	}
	return chunkRunFromEnt(r), true, nil
}

func chunkRunFromEnt(r *ent.ChunkRun) record.ChunkRun {
	var d chunkDetail
	if r.Detail != "" {
		_ = json.Unmarshal([]byte(r.Detail), &d)
	}
	return record.ChunkRun{DocumentID: r.DocumentID, ChunkIndex: r.ChunkIndex, Nodes: r.NodeCount, Edges: r.EdgeCount,
		PromptTokens: r.PromptTokens, OutputTokens: r.OutputTokens, OffSchema: r.OffSchema, Failures: r.Failures,
		Elapsed: time.Duration(r.ElapsedMs) * time.Millisecond, Calls: d.Calls, ParseErrors: d.Failures, Repairs: d.Repairs, Violations: d.Violations}
}

// Counts returns the dashboard totals.
func (s *Store) Counts(ctx context.Context) (record.Counts, error) {
	var c record.Counts
	var err error
	if c.Schemas, err = s.client.KGSchema.Query().Count(ctx); err != nil {
		return c, translate(err, "schemas")
	}
	if c.Documents, err = s.client.Document.Query().Count(ctx); err != nil {
		return c, translate(err, "documents")
	}
	if c.Extractions, err = s.client.Extraction.Query().Count(ctx); err != nil {
		return c, translate(err, "extractions")
	}
	if c.Versions, err = s.client.ExtractionVersion.Query().Count(ctx); err != nil {
		return c, translate(err, "versions")
	}
	return c, nil
}

// AddUsage adds the token and call counts of model calls made outside the
// per-chunk results (e.g. description summaries) to a version.
func (s *Store) AddUsage(ctx context.Context, id int, calls []extract.CallRecord) error {
	u := usageOf(calls)
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.UpdateOneID(id).AddPromptTokens(u.promptTokens).
			AddOutputTokens(u.outputTokens).AddCalls(u.calls).AddCachedCalls(u.cachedCalls).
			AddCachedPromptTokens(u.cachedPromptTokens).AddCachedOutputTokens(u.cachedOutputTokens).Exec(ctx)
	}), "version")
}

// checkDocuments refuses document ids that name no stored document, so a
// run is refused when submitted rather than failing once it starts.
func (s *Store) checkDocuments(ctx context.Context, ids []int) error {
	have := make(map[int]bool, len(ids))
	// In batches: a database takes only so many values in one query
	// (SQLite 32,766).
	for start := 0; start < len(ids); start += BatchSize {
		found, err := s.client.Document.Query().Where(document.IDIn(ids[start:min(start+BatchSize, len(ids))]...)).IDs(ctx)
		if err != nil {
			return translate(err, "documents")
		}
		for _, id := range found {
			have[id] = true
		}
	}
	for _, id := range ids {
		if !have[id] {
			return extract.Errorf(extract.KindInvalid, "document %d does not exist; pick documents from the list", id)
		}
	}
	return nil
}

// ChildWithNote finds the first version made from parentID whose note is
// note (a curation of parentID made before: a merge's or an edit's note
// names what it did); ok is false when there is none.
func (s *Store) ChildWithNote(ctx context.Context, parentID int, note string) (v record.Version, ok bool, err error) {
	row, err := s.client.ExtractionVersion.Query().Where(extractionversion.ParentID(parentID), extractionversion.Note(note)).
		WithExtraction().Order(ent.Asc(extractionversion.FieldNumber)).First(ctx)
	if ent.IsNotFound(err) {
		return record.Version{}, false, nil
	}
	if err != nil {
		return record.Version{}, false, translate(err, "versions")
	}
	return versionFromEnt(row, row.Edges.Extraction.Name), true, nil
}

// ExtractionVersions lists the named extraction's versions, oldest first;
// an unknown name is not found.
func (s *Store) ExtractionVersions(ctx context.Context, name string) ([]record.Version, error) {
	vs, err := s.client.ExtractionVersion.Query().Where(extractionversion.HasExtractionWith(extraction.Name(name))).
		Order(ent.Asc(extractionversion.FieldNumber)).All(ctx)
	if err != nil {
		return nil, translate(err, "extraction")
	}
	if len(vs) == 0 {
		return nil, extract.Errorf(extract.KindNotFound, "no extraction named %q", name)
	}
	out := make([]record.Version, len(vs))
	for i, v := range vs {
		out[i] = versionFromEnt(v, name)
	}
	return out, nil
}
