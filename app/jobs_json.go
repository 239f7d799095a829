package app

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// VersionJobsJSON is a version with what its jobs are doing: what
// `kgstudio version show --json`, GET /api/versions/ID and
// POST /api/versions/ID/cancel answer.
type VersionJobsJSON struct {
	VersionJSON
	Jobs JobsJSON `json:"jobs"`
}

// JobsJSON counts a version's jobs and lists its chunks' last errors.
type JobsJSON struct {
	store.JobCounts
	Errors []ChunkErrorJSON `json:"errors"`
}

// ChunkErrorJSON is a chunk whose job failed at least once.
type ChunkErrorJSON struct {
	DocumentID int    `json:"document_id"`
	Chunk      int    `json:"chunk"`
	State      string `json:"state"`
	Attempts   int    `json:"attempts"`
	Error      string `json:"error"`
}

// JobsJSONOf turns a jobs view into its JSON form.
func JobsJSONOf(v JobsView) JobsJSON {
	out := JobsJSON{JobCounts: v.Counts, Errors: []ChunkErrorJSON{}}
	for _, e := range v.Errors {
		out.Errors = append(out.Errors, ChunkErrorJSON{DocumentID: e.DocumentID, Chunk: e.ChunkIndex, State: e.State, Attempts: e.Attempts, Error: e.Error})
	}
	return out
}

// VersionJobs is VersionJSON with the version's jobs view.
func (a *App) VersionJobs(ctx context.Context, v store.Version) (VersionJobsJSON, error) {
	j, err := a.VersionJSON(ctx, v)
	if err != nil {
		return VersionJobsJSON{}, err
	}
	jobs, err := a.Jobs(ctx, v.ID)
	if err != nil {
		return VersionJobsJSON{}, err
	}
	return VersionJobsJSON{VersionJSON: j, Jobs: JobsJSONOf(jobs)}, nil
}

// CancelVersion cancels a queued or running version everywhere (Cancel)
// and returns it as it stands then; a version that has ended is a
// conflict.
func (a *App) CancelVersion(ctx context.Context, v store.Version) (store.Version, error) {
	if !v.Active() {
		return v, extract.Errorf(extract.KindConflict, "%s has already ended (%s): nothing to cancel", v.Label(), v.Status)
	}
	a.Cancel(v.ID)
	return a.store.Version(ctx, v.ID)
}
