package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// VersionJobsJSON is a version with what its jobs are doing: what
// `kgstudio version show --json`, GET /api/versions/ID and
// POST /api/versions/ID/cancel answer.
type VersionJobsJSON struct {
	VersionJSON
	// Phase is what a queued or running version is doing: "queued",
	// "extracting" (its chunk jobs, which merge the chunks in order as
	// they settle; chunks_done counts the chunks extracted) or "merging"
	// (its final job: what needs every chunk; chunks_merged counts the
	// chunks merged, and chunks_done stays at the chunks extracted); empty
	// once it has ended.
	Phase        extract.Phase `json:"phase"`
	ChunksMerged int           `json:"chunks_merged"`
	Jobs         JobsJSON      `json:"jobs"`
}

// RunPhase is the step a queued or running version is at, with counts
// that never step back: ChunksDone the chunks extracted, ChunksMerged
// those of them the final job has merged.
type RunPhase struct {
	Name         extract.Phase
	ChunksDone   int
	ChunksMerged int
}

// Phase returns the step a version is at. While its final job runs,
// ChunksDone is the chunks the chunk jobs extracted and ChunksMerged the
// chunks merged.
func (rs *Runs) Phase(ctx context.Context, v record.Version) (RunPhase, error) {
	p := RunPhase{ChunksDone: v.ChunksDone}
	if !v.Active() {
		return p, nil
	}
	p.Name = extract.PhaseExtracting
	if v.Status == record.StatusQueued {
		p.Name = extract.PhaseQueued
	}
	rows, err := rs.queue.versionJobs(ctx, v.ID, []rivertype.JobState{rivertype.JobStateRunning})
	if err != nil {
		return p, err
	}
	if !slices.ContainsFunc(rows, func(r *rivertype.JobRow) bool { return r.Kind == string(KindFinishJob) }) {
		return p, nil
	}
	done, err := rs.store.DoneChunks(ctx, v.ID)
	if err != nil {
		return p, err
	}
	merged, err := rs.store.MergedChunks(ctx, v.ID)
	if err != nil {
		return p, err
	}
	p.Name, p.ChunksMerged, p.ChunksDone = extract.PhaseMerging, merged, max(v.ChunksDone, len(done))
	return p, nil
}

// JobsJSON counts a version's jobs and lists its chunks' last errors.
type JobsJSON struct {
	record.JobCounts
	Errors []ChunkErrorJSON `json:"errors"`
}

// ChunkErrorJSON is a chunk whose job failed at least once.
type ChunkErrorJSON struct {
	DocumentID int                  `json:"document_id"`
	Chunk      int                  `json:"chunk"`
	State      record.ChunkJobState `json:"state"`
	Attempts   int                  `json:"attempts"`
	Error      string               `json:"error"`
}

// JobsJSONOf turns a jobs view into its JSON form.
func JobsJSONOf(v JobsView) JobsJSON {
	out := JobsJSON{JobCounts: v.Counts, Errors: []ChunkErrorJSON{}}
	for _, e := range v.Errors {
		out.Errors = append(out.Errors, ChunkErrorJSON{DocumentID: e.DocumentID, Chunk: e.ChunkIndex, State: e.State, Attempts: e.Attempts, Error: e.Error})
	}
	return out
}

// WithJobs is JSON with the version's jobs view.
func (s *Versions) WithJobs(ctx context.Context, v record.Version) (VersionJobsJSON, error) {

	j, err := s.JSON(ctx, v)
	if err != nil {
		return VersionJobsJSON{}, err
	}
	jobs, err := s.runs.Jobs(ctx, v.ID)
	if err != nil {
		return VersionJobsJSON{}, err
	}
	p, err := s.runs.Phase(ctx, v)
	if err != nil {
		return VersionJobsJSON{}, err
	}
	j.ChunksDone = p.ChunksDone
	return VersionJobsJSON{VersionJSON: j, Phase: p.Name, ChunksMerged: p.ChunksMerged, Jobs: JobsJSONOf(jobs)}, nil
}

// CancelVersion cancels a queued or running version everywhere: it is
// marked canceled, which every job of it watches, and its River jobs are
// canceled. The web page, the API and the command line all cancel here.
// It returns the version as it stands then; a version that has ended is a
// conflict.
func (rs *Runs) CancelVersion(ctx context.Context, v record.Version) (record.Version, error) {
	if !v.Active() {
		return v, extract.Errorf(extract.KindConflict, "%s has already ended (%s): nothing to cancel", v.Label(), v.Status)
	}
	if _, err := rs.queue.cancel(ctx, v.ID); err != nil {
		return v, err
	}
	return rs.store.Version(ctx, v.ID)
}

// JobsView is what the jobs of a version are doing: River's counts and the
// chunks whose attempts failed, with their last errors.
type JobsView struct {
	Counts record.JobCounts
	Errors []record.ChunkJobError
}

// Jobs returns the jobs view of a version. A chunk job that merged or
// staged its chunk was completed in the same transaction, so River's row
// says completed as soon as the chunk is stored.
func (rs *Runs) Jobs(ctx context.Context, versionID int) (JobsView, error) {
	var out JobsView
	rows, err := rs.queue.versionJobs(ctx, versionID, nil)
	if err != nil {
		return out, err
	}
	if out.Errors, err = rs.store.ChunkJobErrors(ctx, versionID); err != nil {
		return out, err
	}
	out.Counts = store.CountJobs(rows)
	// A chunk that failed for good ends its job as canceled (River retries
	// any error it is given otherwise): count it as failed.
	for _, e := range out.Errors {
		if e.State == record.ChunkJobFailed && out.Counts.Canceled > 0 {
			out.Counts.Canceled--
			out.Counts.Failed++
		}
	}
	return out, nil
}

// versionJobs lists a version's River jobs in the given states (all when
// none).
func (jq *jobQueue) versionJobs(ctx context.Context, versionID int, states []rivertype.JobState) ([]*rivertype.JobRow, error) {
	q, err := jq.inserter()
	if err != nil {
		return nil, err
	}
	var out []*rivertype.JobRow
	// The metadata filter as SQL both PostgreSQL and SQLite read (River's
	// Metadata filter is PostgreSQL's only).
	params := river.NewJobListParams().Where("metadata ->> 'version_id' = @version_id",
		river.NamedArgs{"version_id": strconv.Itoa(versionID)}).First(10000)
	if len(states) > 0 {
		params = params.States(states...)
	}
	for {
		res, err := q.JobList(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		out = append(out, res.Jobs...)
		if len(res.Jobs) < 10000 || res.LastCursor == nil {
			return out, nil
		}
		params = params.After(res.LastCursor)
	}
}

// cancelJobs cancels a version's jobs that have not ended; a running one
// is told to stop (and sees the version's status in any case).
func (jq *jobQueue) cancelJobs(ctx context.Context, versionID int) (int, error) {
	rows, err := jq.versionJobs(ctx, versionID, store.ActiveJobStates)
	if err != nil {
		return 0, err
	}
	q, err := jq.inserter()
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, r := range rows {
		if _, err := q.JobCancel(ctx, r.ID); err != nil && !errors.Is(err, river.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	return len(rows), errors.Join(errs...)
}
