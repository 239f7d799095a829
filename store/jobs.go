package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"

	"entgo.io/ent/dialect"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/chunkjob"
	"github.com/kgstudio/kgstudio/ent/chunkrun"
	"github.com/kgstudio/kgstudio/ent/extractionversion"
	"github.com/kgstudio/kgstudio/extract"
)

// Runs are River jobs (github.com/riverqueue/river) kept in the same
// database as everything else: river_job and River's other tables are
// migrated at Open on PostgreSQL (driver riverpgxv5 over a pgx pool) and on
// SQLite (driver riversqlite over a second database/sql pool of one
// connection, as River's SQLite driver advises). The application layer
// declares the job kinds and workers; the store builds the client over the
// right driver and keeps what the jobs write: one chunk_jobs row per chunk
// (its result, or its last error).

// Queue is a River client over the store's database; *river.Client of
// either driver implements it.
type Queue interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
	JobCancel(ctx context.Context, jobID int64) (*rivertype.JobRow, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
}

// openRiver opens the pool River runs on and migrates River's tables.
func (s *Store) openRiver(ctx context.Context, dsn string) error {
	switch s.Dialect {
	case dialect.Postgres:
		pool, err := newPGPool(ctx, dsn)
		if err != nil {
			return extract.Wrap(extract.KindUnavailable, err, "open job queue pool")
		}
		s.pgPool = pool
	default:
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return extract.Wrap(extract.KindUnavailable, err, "open job queue database")
		}
		db.SetMaxOpenConns(1)
		s.riverDB = db
	}
	return s.migrateRiver(ctx)
}

// migrateRiver applies River's migrations. On PostgreSQL an advisory lock
// keeps processes that start together from migrating at once.
func (s *Store) migrateRiver(ctx context.Context) error {
	var err error
	if s.pgPool != nil {
		conn, cerr := s.pgPool.Acquire(ctx)
		if cerr != nil {
			return extract.Wrap(extract.KindUnavailable, cerr, "migrate job queue")
		}
		defer conn.Release()
		const lockKey = 0x6b677374 // "kgst"
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
			return extract.Wrap(extract.KindUnavailable, err, "migrate job queue")
		}
		defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey) }()
		var m *rivermigrate.Migrator[pgx.Tx]
		if m, err = rivermigrate.New(riverpgxv5.New(s.pgPool), nil); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
		if err == nil {
			// The provider limits shared by every process (limits.go).
			_, err = conn.Exec(ctx, rateLimitsTable)
		}
	} else {
		var m *rivermigrate.Migrator[*sql.Tx]
		if m, err = rivermigrate.New(riversqlite.New(s.riverDB), nil); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	}
	if err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "migrate job queue")
	}
	return nil
}

// NewQueue builds a River client over the store's database with cfg (its
// workers and queues; none to only insert and list jobs).
func (s *Store) NewQueue(cfg *river.Config) (Queue, error) {
	if s.pgPool != nil {
		return river.NewClient(riverpgxv5.New(s.pgPool), cfg)
	}
	return river.NewClient(riversqlite.New(s.riverDB), cfg)
}

// closeRiver releases River's pool.
func (s *Store) closeRiver() {
	if s.pgPool != nil {
		s.pgPool.Close()
	}
	if s.riverDB != nil {
		_ = s.riverDB.Close()
	}
}

// QueueVersion makes a version queued with its chunk total and the chunks
// already done (a resumed run keeps them), for workers to pick up; the
// earlier error is cleared.
func (s *Store) QueueVersion(ctx context.Context, id, chunksTotal, chunksDone int) error {
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.UpdateOneID(id).SetStatus(extractionversion.StatusQueued).
			SetChunksTotal(chunksTotal).SetChunksDone(chunksDone).SetHeartbeatAt(s.Now()).SetError("").SetChunkErrors("").ClearFinishedAt().Exec(ctx)
	}), "version")
}

// MarkRunning makes a queued version running, once a worker starts on it.
func (s *Store) MarkRunning(ctx context.Context, id int) error {
	now := s.Now()
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.Update().Where(extractionversion.ID(id), extractionversion.StatusEQ(extractionversion.StatusQueued)).
			SetStatus(extractionversion.StatusRunning).SetStartedAt(now).SetHeartbeatAt(now).Exec(ctx)
	}), "version")
}

// MarkQueued makes a running version queued again: its jobs wait in the
// queue with no worker on them (a foreground run was interrupted).
func (s *Store) MarkQueued(ctx context.Context, id int) error {
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.Update().Where(extractionversion.ID(id), extractionversion.StatusEQ(extractionversion.StatusRunning)).
			SetStatus(extractionversion.StatusQueued).Exec(ctx)
	}), "version")
}

// ResetChunksDone sets a version's finished-chunk count back to the
// chunks merged already, before its final job merges the others (which
// counts them again).
func (s *Store) ResetChunksDone(ctx context.Context, id int) error {
	return translate(s.write(ctx, func(c *ent.Client) error {
		n, err := c.ChunkRun.Query().Where(chunkrun.VersionID(id)).Count(ctx)
		if err != nil {
			return err
		}
		return c.ExtractionVersion.UpdateOneID(id).SetChunksDone(n).SetHeartbeatAt(s.Now()).Exec(ctx)
	}), "version")
}

// MergedChunks counts the chunks of a version its final job has merged.
func (s *Store) MergedChunks(ctx context.Context, id int) (int, error) {
	n, err := s.client.ChunkRun.Query().Where(chunkrun.VersionID(id)).Count(ctx)
	return n, translate(err, "chunk runs")
}

// VersionStatus returns a version's status.
func (s *Store) VersionStatus(ctx context.Context, id int) (string, error) {
	v, err := s.client.ExtractionVersion.Query().Where(extractionversion.ID(id)).Select(extractionversion.FieldStatus).Only(ctx)
	if err != nil {
		return "", translate(err, fmt.Sprintf("version %d", id))
	}
	return string(v.Status), nil
}

// ErrNotActive is returned by StageChunk and FailChunk when the version is
// no longer queued or running (canceled, or finished).
var ErrNotActive = extract.Errorf(extract.KindConflict, "the version is no longer running")

// Chunk job states.
const (
	ChunkJobRetrying = "retrying"
	ChunkJobDone     = "done"
	ChunkJobFailed   = "failed"
)

// StageChunk stores a chunk's result for its version's final job, in one
// transaction keyed by the chunk: storing a chunk again changes nothing.
// It reports whether every one of the version's expect chunks is now
// settled (done or failed). The version row is locked first, so of
// chunks stored at once the last one sees all the others.
func (s *Store) StageChunk(ctx context.Context, versionID int, res extract.ChunkResult, attempts, expect int) (bool, error) {
	data, err := json.Marshal(res)
	if err != nil {
		return false, fmt.Errorf("encode chunk result: %w", err)
	}
	return s.settle(ctx, versionID, res.Chunk, expect, func(c *ent.Client, row *ent.ChunkJob) error {
		if row != nil && row.State == chunkjob.StateDone {
			return nil
		}
		// The chunk counts as done for the version's progress; the final
		// job's merge counts it again from zero.
		if err := c.ExtractionVersion.UpdateOneID(versionID).AddChunksDone(1).Exec(ctx); err != nil {
			return err
		}
		if row == nil {
			return c.ChunkJob.Create().SetVersionID(versionID).SetDocumentID(res.Chunk.DocumentID).SetChunkIndex(res.Chunk.Index).
				SetState(chunkjob.StateDone).SetResult(string(data)).SetAttempts(attempts).Exec(ctx)
		}
		return c.ChunkJob.UpdateOne(row).SetState(chunkjob.StateDone).SetResult(string(data)).SetAttempts(attempts).Exec(ctx)
	})
}

// FailChunk keeps a chunk's last error; final means no attempt follows,
// and the chunk is settled as failed. It reports, as StageChunk does,
// whether every chunk is settled.
func (s *Store) FailChunk(ctx context.Context, versionID int, ref extract.ChunkRef, attempts, expect int, msg string, final bool) (bool, error) {
	state := chunkjob.StateRetrying
	if final {
		state = chunkjob.StateFailed
	}
	return s.settle(ctx, versionID, ref, expect, func(c *ent.Client, row *ent.ChunkJob) error {
		if row != nil && row.State == chunkjob.StateDone {
			return nil
		}
		if row == nil {
			return c.ChunkJob.Create().SetVersionID(versionID).SetDocumentID(ref.DocumentID).SetChunkIndex(ref.Index).
				SetState(state).SetError(msg).SetAttempts(attempts).Exec(ctx)
		}
		return c.ChunkJob.UpdateOne(row).SetState(state).SetError(msg).SetAttempts(attempts).Exec(ctx)
	})
}

// settle runs fn on a chunk's row (nil when there is none) with the
// version row locked, then counts the settled chunks.
func (s *Store) settle(ctx context.Context, versionID int, ref extract.ChunkRef, expect int, fn func(c *ent.Client, row *ent.ChunkJob) error) (bool, error) {
	all := false
	err := s.inTx(ctx, func(b *writeTx) error {
		// The update takes the version's row lock (PostgreSQL; SQLite
		// has one writer anyway) and says whether it still runs.
		res, err := b.ExecContext(ctx, b.rebind(`UPDATE extraction_versions SET heartbeat_at = ? WHERE id = ? AND status IN ('queued', 'running')`), s.Now(), versionID)
		if err != nil {
			return fmt.Errorf("lock version: %w", err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return ErrNotActive
		}
		c := b.Client()
		row, err := c.ChunkJob.Query().Where(chunkjob.VersionID(versionID), chunkjob.DocumentID(ref.DocumentID), chunkjob.ChunkIndex(ref.Index)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		if err := fn(c, row); err != nil {
			return err
		}
		n, err := c.ChunkJob.Query().Where(chunkjob.VersionID(versionID), chunkjob.StateIn(chunkjob.StateDone, chunkjob.StateFailed)).Count(ctx)
		if err != nil {
			return err
		}
		all = n >= expect
		return nil
	})
	if err == ErrNotActive {
		return false, err
	}
	return all, translate(err, "chunk job")
}

// StagedChunk is what a chunk job left for the final job: the result, or
// the error of a chunk that failed for good.
type StagedChunk struct {
	Result extract.ChunkResult
	Failed bool
	Error  string
}

// StagedChunks returns what the chunk jobs of a version stored, by chunk:
// results and final failures (chunks still being retried are left out).
func (s *Store) StagedChunks(ctx context.Context, versionID int) (map[extract.ChunkRef]StagedChunk, error) {
	rows, err := s.client.ChunkJob.Query().Where(chunkjob.VersionID(versionID), chunkjob.StateIn(chunkjob.StateDone, chunkjob.StateFailed)).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	out := make(map[extract.ChunkRef]StagedChunk, len(rows))
	for _, r := range rows {
		ref := extract.ChunkRef{DocumentID: r.DocumentID, Index: r.ChunkIndex}
		if r.State == chunkjob.StateFailed {
			out[ref] = StagedChunk{Failed: true, Error: r.Error}
			continue
		}
		var res extract.ChunkResult
		if r.Result != "" {
			if err := json.Unmarshal([]byte(r.Result), &res); err != nil {
				return nil, fmt.Errorf("decode chunk %d of document %d: %w", r.ChunkIndex, r.DocumentID, err)
			}
		}
		res.Chunk = ref
		out[ref] = StagedChunk{Result: res}
	}
	return out, nil
}

// ReopenChunks makes the failed chunks of a version pending again (a
// resumed run asks them anew) and returns the chunks that are done.
func (s *Store) ReopenChunks(ctx context.Context, versionID int) (map[extract.ChunkRef]bool, error) {
	err := s.write(ctx, func(c *ent.Client) error {
		return c.ChunkJob.Update().Where(chunkjob.VersionID(versionID), chunkjob.StateNEQ(chunkjob.StateDone)).
			SetState(chunkjob.StateRetrying).Exec(ctx)
	})
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	return s.DoneChunks(ctx, versionID)
}

// ChunkDone reports whether a chunk of a version has its result stored.
func (s *Store) ChunkDone(ctx context.Context, versionID int, ref extract.ChunkRef) (bool, error) {
	ok, err := s.client.ChunkJob.Query().Where(chunkjob.VersionID(versionID), chunkjob.DocumentID(ref.DocumentID),
		chunkjob.ChunkIndex(ref.Index), chunkjob.StateEQ(chunkjob.StateDone)).Exist(ctx)
	return ok, translate(err, "chunk job")
}

// DoneChunks returns the chunks of a version whose jobs are done.
func (s *Store) DoneChunks(ctx context.Context, versionID int) (map[extract.ChunkRef]bool, error) {
	rows, err := s.client.ChunkJob.Query().Where(chunkjob.VersionID(versionID), chunkjob.StateEQ(chunkjob.StateDone)).
		Select(chunkjob.FieldDocumentID, chunkjob.FieldChunkIndex).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	done := make(map[extract.ChunkRef]bool, len(rows))
	for _, r := range rows {
		done[extract.ChunkRef{DocumentID: r.DocumentID, Index: r.ChunkIndex}] = true
	}
	return done, nil
}

// CopyStagedChunks gives version to the results the chunk jobs of version
// from stored (done, result kept) except those of skip, as done chunks of
// its own: its run merges them without asking for them again. Their model
// calls count as cached for the new version, which did not pay for them.
// It returns the chunks copied.
func (s *Store) CopyStagedChunks(ctx context.Context, from, to int, skip map[extract.ChunkRef]bool) (map[extract.ChunkRef]bool, error) {
	rows, err := s.client.ChunkJob.Query().Where(chunkjob.VersionID(from), chunkjob.StateEQ(chunkjob.StateDone), chunkjob.ResultNEQ("")).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	copied := map[extract.ChunkRef]bool{}
	var bulk []*ent.ChunkJobCreate
	err = s.write(ctx, func(c *ent.Client) error {
		for _, r := range rows {
			ref := extract.ChunkRef{DocumentID: r.DocumentID, Index: r.ChunkIndex}
			if skip[ref] {
				continue
			}
			var res extract.ChunkResult
			if err := json.Unmarshal([]byte(r.Result), &res); err != nil {
				return fmt.Errorf("decode chunk %d of document %d: %w", r.ChunkIndex, r.DocumentID, err)
			}
			for i := range res.Calls {
				res.Calls[i].Cached = true
			}
			data, err := json.Marshal(res)
			if err != nil {
				return err
			}
			copied[ref] = true
			bulk = append(bulk, c.ChunkJob.Create().SetVersionID(to).SetDocumentID(r.DocumentID).SetChunkIndex(r.ChunkIndex).
				SetState(chunkjob.StateDone).SetResult(string(data)).SetAttempts(r.Attempts))
		}
		for start := 0; start < len(bulk); start += 500 {
			if err := c.ChunkJob.CreateBulk(bulk[start:min(start+500, len(bulk))]...).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	return copied, nil
}

// DropStagedResults frees the stored results of a version's merged
// chunks, keeping each row's state, attempts and last error.
func (s *Store) DropStagedResults(ctx context.Context, versionID int) error {
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ChunkJob.Update().Where(chunkjob.VersionID(versionID), chunkjob.StateEQ(chunkjob.StateDone), chunkjob.ResultNEQ("")).
			SetResult("").Exec(ctx)
	}), "chunk jobs")
}

// ChunkJobError is a chunk whose job failed at least once: its last error,
// the attempts it took and whether it is still being retried.
type ChunkJobError struct {
	DocumentID int
	ChunkIndex int
	State      string
	Attempts   int
	Error      string
}

// ChunkJobErrors lists a version's chunks with a last error, in chunk
// order.
func (s *Store) ChunkJobErrors(ctx context.Context, versionID int) ([]ChunkJobError, error) {
	rows, err := s.client.ChunkJob.Query().Where(chunkjob.VersionID(versionID), chunkjob.ErrorNEQ("")).
		Order(ent.Asc(chunkjob.FieldDocumentID), ent.Asc(chunkjob.FieldChunkIndex)).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	out := make([]ChunkJobError, len(rows))
	for i, r := range rows {
		out[i] = ChunkJobError{DocumentID: r.DocumentID, ChunkIndex: r.ChunkIndex, State: string(r.State), Attempts: r.Attempts, Error: r.Error}
	}
	return out, nil
}

// JobCounts counts a version's River jobs by what they are doing.
type JobCounts struct {
	Queued    int `json:"queued"`
	Running   int `json:"running"`
	Retried   int `json:"retried"`
	Failed    int `json:"failed"`
	Completed int `json:"completed"`
	Canceled  int `json:"canceled"`
}

// CountJobs counts the jobs rows of one version: a retried job is one
// that took more than one attempt (or waits for its next).
func CountJobs(rows []*rivertype.JobRow) JobCounts {
	var c JobCounts
	for _, r := range rows {
		switch r.State {
		case rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStatePending:
			c.Queued++
		case rivertype.JobStateRetryable:
			c.Queued++
		case rivertype.JobStateRunning:
			c.Running++
		case rivertype.JobStateCompleted:
			c.Completed++
		case rivertype.JobStateDiscarded:
			c.Failed++
		case rivertype.JobStateCancelled:
			c.Canceled++
		}
		if r.Attempt > 1 || r.State == rivertype.JobStateRetryable {
			c.Retried++
		}
	}
	return c
}

// ActiveJobStates are the River states of a job that has not ended.
var ActiveJobStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled}

// LockVersion takes a version's run lock, held until unlock: on
// PostgreSQL a session advisory lock (released by the server when the
// holder's connection dies, so a killed worker frees it), on SQLite a lock
// within the process (one process runs the jobs). ok is false when another
// holds it.
func (s *Store) LockVersion(ctx context.Context, id int) (unlock func(), ok bool, err error) {
	if s.pgPool == nil {
		v, _ := s.runLocks.LoadOrStore(id, &sync.Mutex{})
		mu := v.(*sync.Mutex)
		if !mu.TryLock() {
			return nil, false, nil
		}
		return mu.Unlock, true, nil
	}
	conn, err := s.pgPool.Acquire(ctx)
	if err != nil {
		return nil, false, extract.Wrap(extract.KindUnavailable, err, "lock version")
	}
	const class = 0x6b67 // "kg"
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", class, id).Scan(&ok); err != nil || !ok {
		conn.Release()
		if err != nil {
			return nil, false, extract.Wrap(extract.KindUnavailable, err, "lock version")
		}
		return nil, false, nil
	}
	return func() {
		_, _ = conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1, $2)", class, id)
		conn.Release()
	}, true, nil
}
