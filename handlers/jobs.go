package handlers

import (
	"context"

	"github.com/kgstudio/kgstudio/web"
)

// jobsView is what a version's jobs are doing, for its page; nil when the
// version had no jobs.
func (h *Handler) jobsView(ctx context.Context, versionID int) (*web.JobsView, error) {
	j, err := h.app.Jobs(ctx, versionID)
	if err != nil {
		return nil, err
	}
	c := j.Counts
	if c.Queued+c.Running+c.Failed+c.Completed+c.Canceled == 0 && len(j.Errors) == 0 {
		return nil, nil
	}
	out := &web.JobsView{Queued: c.Queued, Running: c.Running, Retried: c.Retried, Failed: c.Failed, Completed: c.Completed, Canceled: c.Canceled}
	for _, e := range j.Errors {
		out.Errors = append(out.Errors, web.JobErrorView{DocumentID: e.DocumentID, Index: e.ChunkIndex, State: e.State, Attempts: e.Attempts, Error: joinStatus(e.Status, e.Error)})
	}
	return out, nil
}

// joinStatus writes an error with its kind first ("unavailable: ...").
func joinStatus(status, msg string) string {
	if status == "" {
		return msg
	}
	return status + ": " + msg
}
