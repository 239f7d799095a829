package handlers

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// jobsView is what a version's jobs are doing, for its page (nil when the
// version had no jobs), and the chunks whose jobs failed an attempt.
func (h *Handler) jobsView(ctx context.Context, versionID int) (*web.JobsView, []record.ChunkJobError, error) {
	j, err := h.appIn(ctx).Runs.Jobs(ctx, versionID)
	if err != nil {
		return nil, nil, err
	}
	c := j.Counts
	if c.Queued+c.Running+c.Failed+c.Completed+c.Canceled == 0 && len(j.Errors) == 0 {
		return nil, nil, nil
	}
	return &web.JobsView{Queued: c.Queued, Running: c.Running, Retried: c.Retried, Failed: c.Failed, Completed: c.Completed, Canceled: c.Canceled}, j.Errors, nil
}

// failureRows is the version page's one table of failures: a row per
// chunk, its job's state, attempts and last error when the run had jobs,
// else the error the run recorded on the version, with the document's
// file name.
func failureRows(v record.Version, jobErrs []record.ChunkJobError, docs []extract.Document) []web.ChunkErrorView {
	names := make(map[int]string, len(docs))
	for _, d := range docs {
		names[d.ID] = d.Name
	}
	var rows []web.ChunkErrorView
	seen := map[extract.ChunkRef]bool{}
	for _, e := range jobErrs {
		seen[extract.ChunkRef{DocumentID: e.DocumentID, Index: e.ChunkIndex}] = true
		rows = append(rows, web.ChunkErrorView{Document: names[e.DocumentID], DocumentID: e.DocumentID, Index: e.ChunkIndex,
			State: string(e.State), Attempts: e.Attempts, Status: e.Status, Message: e.Error})
	}
	for _, ce := range v.ChunkErrors {
		if seen[extract.ChunkRef{DocumentID: ce.DocumentID, Index: ce.Index}] {
			continue
		}
		rows = append(rows, web.ChunkErrorView{Document: names[ce.DocumentID], DocumentID: ce.DocumentID, Index: ce.Index,
			State: "failed", Status: ce.Status, Message: ce.Message})
	}
	return rows
}
