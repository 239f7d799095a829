package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/chunkjob"
	"github.com/kgstudio/kgstudio/ent/chunkrun"
	"github.com/kgstudio/kgstudio/ent/extractionversion"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Runs are River jobs (github.com/riverqueue/river) kept in the same
// database as everything else, on the store's own pool: River's tables
// are migrated at Open, and the client runs over the store's database/sql
// handle (driver riverdatabasesql on PostgreSQL, riversqlite on SQLite),
// so a job's write and its completion commit together (SettleChunk). The
// application layer declares the job kinds and workers; the store builds
// the client and keeps what the jobs write: one chunk_jobs row per chunk
// (its state, a result waiting to be merged, or its last error).

// Queue is a River client over the store's database; *river.Client of
// either driver implements it.
type Queue interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
	JobCancel(ctx context.Context, jobID int64) (*rivertype.JobRow, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
}

// openRiver migrates River's tables; on PostgreSQL it also opens the pool
// the provider limits and run locks hold their connections on.
func (s *Store) openRiver(ctx context.Context, dsn string) error {
	if s.Dialect == dialect.Postgres {
		pool, err := newPGPool(ctx, dsn)
		if err != nil {
			return extract.Wrap(extract.KindUnavailable, err, "open provider limits pool")
		}
		s.pgPool = pool
	}
	return s.migrateRiver(ctx)
}

// riverDriver is River's driver over the store's database.
func (s *Store) riverDriver() riverdriver.Driver[*sql.Tx] {
	if s.Dialect == dialect.Postgres {
		return riverdatabasesql.New(s.db)
	}
	return riversqlite.New(s.db)
}

// migrateRiver applies River's migrations. On PostgreSQL an advisory lock
// keeps processes that start together from migrating at once; on SQLite
// Open's file lock does (and a migration that lost a race to another
// process anyway is tried again).
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
		var m *rivermigrate.Migrator[*sql.Tx]
		if m, err = rivermigrate.New(s.riverDriver(), nil); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
		if err == nil {
			// The provider limits shared by every process (limits.go).
			_, err = conn.Exec(ctx, rateLimitsTable)
		}
	} else {
		err = raceRetry(ctx, func() error {
			m, err := rivermigrate.New(s.riverDriver(), nil)
			if err == nil {
				_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
			}
			return err
		})
	}
	if err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "migrate job queue")
	}
	return nil
}

// NewQueue builds a River client over the store's database with cfg (its
// workers and queues; none to only insert and list jobs). The client is
// named after this process (see TakeOverGone) unless cfg names it.
func (s *Store) NewQueue(cfg *river.Config) (Queue, error) {
	if cfg.ID == "" {
		cfg.ID = newClientID()
	}
	return river.NewClient(s.riverDriver(), cfg)
}

// CompleteJob marks a running River job completed within tx, the
// transaction of the job's own write (see SettleChunk's hook): the write
// and the completion commit together. ctx is the job's.
func CompleteJob[A river.JobArgs](ctx context.Context, tx *sql.Tx, job *river.Job[A]) error {
	// Both drivers' transactions are *sql.Tx; the client in ctx does the
	// work, whichever driver it runs.
	_, err := river.JobCompleteTx[*riversqlite.Driver](ctx, tx, job)
	if err != nil {
		return fmt.Errorf("complete job: %w", err)
	}
	return nil
}

// closeRiver releases the provider limits' pool.
func (s *Store) closeRiver() {
	if s.pgPool != nil {
		s.pgPool.Close()
	}
}

// QueueVersion makes a version queued with its chunk total and the chunks
// already done (a resumed run keeps them), for workers to pick up; the
// earlier error is cleared, and the count of settled chunks starts again.
func (s *Store) QueueVersion(ctx context.Context, id, chunksTotal, chunksDone int) error {
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.UpdateOneID(id).SetStatus(record.StatusQueued).
			SetChunksTotal(chunksTotal).SetChunksDone(chunksDone).SetChunksSettled(0).SetHeartbeatAt(s.Now()).
			SetError("").SetChunkErrors("").ClearFinishedAt().Exec(ctx)
	}), "version")
}

// MarkRunning makes a queued version running, once a worker starts on it.
func (s *Store) MarkRunning(ctx context.Context, id int) error {
	now := s.Now()
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.Update().Where(extractionversion.ID(id), extractionversion.StatusEQ(record.StatusQueued)).
			SetStatus(record.StatusRunning).SetStartedAt(now).SetHeartbeatAt(now).Exec(ctx)
	}), "version")
}

// MarkQueued makes a running version queued again: its jobs wait in the
// queue with no worker on them (a foreground run was interrupted).
func (s *Store) MarkQueued(ctx context.Context, id int) error {
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.Update().Where(extractionversion.ID(id), extractionversion.StatusEQ(record.StatusRunning)).
			SetStatus(record.StatusQueued).Exec(ctx)
	}), "version")
}

// MergedChunks counts the chunks of a version merged into its graph.
func (s *Store) MergedChunks(ctx context.Context, id int) (int, error) {
	n, err := s.client.ChunkRun.Query().Where(chunkrun.VersionID(id)).Count(ctx)
	return n, translate(err, "chunk runs")
}

// VersionStatus returns a version's status.
func (s *Store) VersionStatus(ctx context.Context, id int) (record.Status, error) {
	v, err := s.client.ExtractionVersion.Query().Where(extractionversion.ID(id)).Select(extractionversion.FieldStatus).Only(ctx)
	if err != nil {
		return "", translate(err, fmt.Sprintf("version %d", id))
	}
	return v.Status, nil
}

// ErrNotActive is returned by SettleChunk and DrainChunks when the version
// is no longer queued or running (canceled, or finished).
var ErrNotActive = extract.Errorf(extract.KindConflict, "the version is no longer running")

// ChunkOutcome is what one attempt of a chunk job came to: the chunk's
// result, or its error ("status: message") and whether no attempt follows.
type ChunkOutcome struct {
	Ref extract.ChunkRef
	// Seq is the chunk's place in the run's order of text chunks.
	Seq      int
	Attempts int
	Result   *extract.ChunkResult
	// Error is the attempt's error, when it failed (Status and Message
	// set; its chunk reference is Ref's).
	Error extract.ChunkError
	Final bool
}

// TxHook runs last inside the transaction that settles a chunk: it
// completes the chunk's River job and, once every chunk the run waits for
// is settled (all), queues the final job, so the chunk's write, the job's
// completion and the next job commit together.
type TxHook func(ctx context.Context, tx *sql.Tx, all bool) error

// Settled is what SettleChunk did.
type Settled struct {
	// All says every chunk the run waits for is settled.
	All bool
	// Drain says the chunk to merge next waits staged (DrainChunks).
	Drain bool
}

// SettleChunks records one attempt of a chunk job at its chunks (one or
// a few consecutive ones, in the run's order) in one transaction keyed by
// the chunks, so a job that runs again stores nothing twice; the
// transaction locks the version's row first, so settles of one version
// take turns. A result is merged into the version when every chunk before
// it in the run's order is merged (the version's merge_next is its seq),
// else staged for DrainChunks; either way the chunk counts as done. An
// error is kept as the chunk's last; a final one settles the chunk failed,
// which stops the merge there: the chunks after it stay staged, and a
// resume or retry that asks it again merges every chunk in order. expect
// is how many chunks the run was queued with; hook, when not nil, runs
// last in the transaction. A version no longer queued or running is
// ErrNotActive.
func (s *Store) SettleChunks(ctx context.Context, versionID, maxFragments, expect int, outs []ChunkOutcome, hook TxHook) (Settled, error) {
	results := make([]extract.ChunkResult, len(outs))
	rows := 0
	for i, o := range outs {
		if o.Result != nil {
			results[i] = *o.Result
			results[i].Chunk = o.Ref
			results[i].Graph = boundGraph(results[i].Graph)
			rows += chunkRows(results[i].Graph)
		}
	}
	var out Settled
	err := s.inTxBulk(ctx, sqliteCacheKiB(rows), versionID, func(b *writeTx) error {
		out = Settled{}
		st, err := lockActive(ctx, b, versionID)
		if err != nil {
			return err
		}
		for i, o := range outs {
			if err := s.settleOne(ctx, b, versionID, &st, o, results[i]); err != nil {
				return err
			}
		}
		if err := st.flush(ctx, b, versionID, maxFragments, s.Now()); err != nil {
			return err
		}
		out.All = st.settled >= expect
		if out.Drain, err = nextStaged(ctx, b, versionID); err != nil {
			return err
		}
		if hook != nil {
			return hook(ctx, b.Tx, out.All)
		}
		return nil
	})
	if err == ErrNotActive {
		return out, err
	}
	if err == nil {
		s.reclaim(ctx, rows)
	}
	return out, translate(err, "chunk job")
}

// settleOne settles one chunk within SettleChunks's transaction; st is the
// version as the transaction has made it so far.
func (s *Store) settleOne(ctx context.Context, b *writeTx, versionID int, st *versionState, o ChunkOutcome, res extract.ChunkResult) error {
	var id int
	var state record.ChunkJobState
	switch err := b.queryRowCached(ctx, b.rebind(`SELECT id, state FROM chunk_jobs WHERE version_id = ? AND document_id = ? AND chunk_index = ?`),
		versionID, o.Ref.DocumentID, o.Ref.Index).Scan(&id, &state); {
	case errors.Is(err, sql.ErrNoRows):
		id = 0
	case err != nil:
		return fmt.Errorf("read chunk job: %w", err)
	}
	if state == record.ChunkJobDone {
		return nil // settled before: the job ran again
	}
	wasSettled := state == record.ChunkJobFailed
	newState, result := record.ChunkJobRetrying, ""
	switch {
	case o.Result != nil:
		newState = record.ChunkJobDone
		var err error
		if result, err = mergeOrStage(st, o.Seq, res); err != nil {
			return err
		}
	case o.Final:
		newState = record.ChunkJobFailed
	}
	now := s.Now()
	var err error
	if id == 0 {
		_, err = b.execCached(ctx, b.rebind(`INSERT INTO chunk_jobs (created_at, version_id, document_id, chunk_index, seq, state, result, error, error_status, attempts) `+
			`VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), now, versionID, o.Ref.DocumentID, o.Ref.Index, o.Seq, newState, result, o.Error.Message, o.Error.Status, o.Attempts)
	} else {
		// A success keeps the last error (and its status) on the row.
		_, err = b.execCached(ctx, b.rebind(`UPDATE chunk_jobs SET seq = ?, state = ?, result = ?, `+
			`error = CASE WHEN ? = '' THEN error ELSE ? END, error_status = CASE WHEN ? = '' THEN error_status ELSE ? END, attempts = ? WHERE id = ?`),
			o.Seq, newState, result, o.Error.Message, o.Error.Message, o.Error.Status, o.Error.Status, o.Attempts, id)
	}
	if err != nil {
		return fmt.Errorf("record chunk job: %w", err)
	}
	if newState != record.ChunkJobRetrying && !wasSettled {
		st.settled++
		st.newlySettled++
	}
	return nil
}

// mergeOrStage takes a chunk's result to merge into the version when it
// is the chunk to merge next (or one before it, asked again on a resume):
// the settle's transaction merges those of its chunks as one write at its
// end (writeChunks). It returns what the chunk's row keeps: nothing, or
// the result as JSON while it waits staged, or after its merge when a
// retry will need it (an earlier chunk's answer did not parse: a retry
// asks that one again and takes this one's result as stored).
func mergeOrStage(st *versionState, seq int, res extract.ChunkResult) (string, error) {
	if seq > st.mergeNext {
		data, err := json.Marshal(res)
		if err != nil {
			return "", fmt.Errorf("encode chunk result: %w", err)
		}
		st.staged++
		return string(data), nil
	}
	st.merge = append(st.merge, res)
	st.parseFailures += len(res.Failures)
	if seq == st.mergeNext {
		st.mergeNext++
		st.advanced++
	}
	if st.parseFailures == 0 {
		return "", nil
	}
	data, err := json.Marshal(res)
	if err != nil {
		return "", fmt.Errorf("encode chunk result: %w", err)
	}
	return string(data), nil
}

// versionState is what a settle reads of its version under the lock,
// and what it has settled so far.
type versionState struct {
	mergeNext, settled, parseFailures int
	// merge are the results to merge, in order; advanced is how far they
	// move merge_next, staged how many chunks wait staged, newlySettled
	// how many chunks the settle settled.
	merge                          []extract.ChunkResult
	advanced, staged, newlySettled int
}

// flush merges what a settle took to merge and writes its counters.
func (st *versionState) flush(ctx context.Context, b *writeTx, versionID, maxFragments int, now time.Time) error {
	if len(st.merge) > 0 {
		if _, err := writeChunks(ctx, b, versionID, st.merge, maxFragments, true, now); err != nil {
			return err
		}
	}
	if st.advanced == 0 && st.staged == 0 && st.newlySettled == 0 {
		return nil
	}
	if _, err := b.execCached(ctx, b.rebind(`UPDATE extraction_versions SET merge_next = merge_next + ?, chunks_done = chunks_done + ?, `+
		`chunks_settled = chunks_settled + ? WHERE id = ?`), st.advanced, st.staged, st.newlySettled, versionID); err != nil {
		return fmt.Errorf("count settled chunks: %w", err)
	}
	return nil
}

// lockActive locks a version's row (PostgreSQL; SQLite's transaction
// holds the write lock already) and reads what a settle needs; a version
// no longer queued or running is ErrNotActive.
func lockActive(ctx context.Context, b *writeTx, versionID int) (versionState, error) {
	var st versionState
	var status record.Status
	q := `SELECT status, merge_next, chunks_settled, parse_failures FROM extraction_versions WHERE id = ?`
	if b.dialect == dialect.Postgres {
		q += ` FOR UPDATE`
	}
	switch err := b.queryRowCached(ctx, b.rebind(q), versionID).Scan(&status, &st.mergeNext, &st.settled, &st.parseFailures); {
	case errors.Is(err, sql.ErrNoRows):
		return st, ErrNotActive
	case err != nil:
		return st, fmt.Errorf("lock version: %w", err)
	}
	if status != record.StatusQueued && status != record.StatusRunning {
		return st, ErrNotActive
	}
	return st, nil
}

// nextStaged reports whether the chunk a version merges next waits staged.
func nextStaged(ctx context.Context, b *writeTx, versionID int) (bool, error) {
	var one int
	switch err := b.queryRowCached(ctx, b.rebind(`SELECT 1 FROM chunk_jobs j JOIN extraction_versions v ON v.id = j.version_id `+
		`WHERE j.version_id = ? AND j.seq = v.merge_next AND j.state = ? AND j.result <> ''`), versionID, chunkjob.StateDone.String()).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("find staged chunk: %w", err)
	}
	return true, nil
}

// drainChunks is the most staged chunks DrainChunks merges in one
// transaction.
const drainChunks = 16

// DrainChunks merges, in order, the staged chunks a version merges next,
// up to drainChunks in a transaction (so a long backlog yields the write
// lock between them), until the next chunk is not staged; it returns how
// many it merged. Any job may drain: each transaction reads merge_next
// under the version's lock. A version no longer running is left as it is.
func (s *Store) DrainChunks(ctx context.Context, versionID, maxFragments int) (int, error) {
	merged := 0
	for {
		// Read and decode outside the write lock; the transaction then
		// checks nobody merged them meanwhile.
		staged, err := s.stagedNext(ctx, versionID)
		if err != nil || len(staged) == 0 {
			return merged, err
		}
		rows := 0
		for i := range staged {
			staged[i].res.Graph = boundGraph(staged[i].res.Graph)
			rows += chunkRows(staged[i].res.Graph)
		}
		moved := false
		err = s.inTxBulk(ctx, sqliteCacheKiB(rows), versionID, func(b *writeTx) error {
			moved = false
			st, err := lockActive(ctx, b, versionID)
			if err != nil {
				return err
			}
			if st.mergeNext != staged[0].seq {
				moved = true // another job merged them meanwhile: look again
				return nil
			}
			results := make([]extract.ChunkResult, len(staged))
			for i, c := range staged {
				results[i] = c.res
			}
			if _, err := writeChunks(ctx, b, versionID, results, maxFragments, false, s.Now()); err != nil {
				return err
			}
			for _, c := range staged {
				if st.parseFailures == 0 {
					if _, err := b.execCached(ctx, b.rebind(`UPDATE chunk_jobs SET result = '' WHERE id = ?`), c.id); err != nil {
						return fmt.Errorf("clear staged chunk: %w", err)
					}
				}
				st.parseFailures += len(c.res.Failures)
			}
			if _, err := b.execCached(ctx, b.rebind(`UPDATE extraction_versions SET merge_next = merge_next + ? WHERE id = ?`), len(staged), versionID); err != nil {
				return fmt.Errorf("advance merge: %w", err)
			}
			moved = true
			return nil
		})
		if err == ErrNotActive {
			return merged, nil
		}
		if err != nil {
			return merged, translate(err, "chunk job")
		}
		if !moved {
			return merged, nil
		}
		merged += len(staged)
	}
}

// stagedChunk is a staged chunk's row and result.
type stagedChunk struct {
	id, seq int
	res     extract.ChunkResult
}

// stagedNext reads the staged chunks a version merges next, in order, up
// to drainChunks: the run of staged chunks from its merge_next on.
func (s *Store) stagedNext(ctx context.Context, versionID int) ([]stagedChunk, error) {
	rows, err := s.db.QueryContext(ctx, rebind(s.Dialect, `SELECT v.merge_next, j.id, j.seq, j.document_id, j.chunk_index, j.result `+
		`FROM chunk_jobs j JOIN extraction_versions v ON v.id = j.version_id `+
		`WHERE j.version_id = ? AND j.seq >= v.merge_next AND j.seq < v.merge_next + ? AND j.state = ? AND j.result <> '' ORDER BY j.seq`),
		versionID, drainChunks, chunkjob.StateDone.String())
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	defer rows.Close()
	var out []stagedChunk
	next := -1
	for rows.Next() {
		var c stagedChunk
		var data string
		var mergeNext int
		if err := rows.Scan(&mergeNext, &c.id, &c.seq, &c.res.Chunk.DocumentID, &c.res.Chunk.Index, &data); err != nil {
			return nil, translate(err, "chunk jobs")
		}
		if next < 0 {
			next = mergeNext
		}
		if c.seq != next {
			break // a gap: the chunks after it wait for it
		}
		ref := c.res.Chunk
		if err := json.Unmarshal([]byte(data), &c.res); err != nil {
			return nil, fmt.Errorf("decode staged chunk %d of version %d: %w", c.seq, versionID, err)
		}
		c.res.Chunk = ref
		out = append(out, c)
		next = c.seq + 1
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "chunk jobs")
	}
	return out, nil
}

// FailedChunks lists the chunks of a version whose jobs failed for good,
// in the run's order, with their last errors.
func (s *Store) FailedChunks(ctx context.Context, versionID int) ([]extract.ChunkError, error) {
	rows, err := s.client.ChunkJob.Query().Where(chunkjob.VersionID(versionID), chunkjob.StateEQ(chunkjob.StateFailed)).
		Order(ent.Asc(chunkjob.FieldSeq)).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	out := make([]extract.ChunkError, len(rows))
	for i, r := range rows {
		status, msg := jobError(r)
		out[i] = extract.ChunkError{DocumentID: r.DocumentID, Index: r.ChunkIndex, Status: status, Message: msg}
	}
	return out, nil
}

// jobError is a chunk job's last error: its status and message. A row
// written before the status was kept apart holds "status: message".
func jobError(r *ent.ChunkJob) (status, message string) {
	if r.ErrorStatus != "" || r.Error == "" {
		return r.ErrorStatus, r.Error
	}
	if status, msg, ok := strings.Cut(r.Error, ": "); ok && !strings.Contains(status, " ") {
		return status, msg
	}
	return "unavailable", r.Error
}

// SetChunkErrors records the chunks whose extraction failed on a version.
func (s *Store) SetChunkErrors(ctx context.Context, versionID int, list []extract.ChunkError) error {
	data := ""
	if len(list) > 0 {
		b, err := json.Marshal(list)
		if err != nil {
			return err
		}
		data = string(b)
	}
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.UpdateOneID(versionID).SetChunkErrors(data).Exec(ctx)
	}), "version")
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

// NumberChunks gives the chunk rows of a version their place (seq) in the
// run's order, refs; rows stored before chunks had one (a run queued by an
// earlier release and resumed) are merged in order like the others.
func (s *Store) NumberChunks(ctx context.Context, versionID int, refs []extract.ChunkRef) error {
	return translate(s.inTx(ctx, func(b *writeTx) error {
		for seq, r := range refs {
			if _, err := b.execCached(ctx, b.rebind(`UPDATE chunk_jobs SET seq = ? WHERE version_id = ? AND document_id = ? AND chunk_index = ? AND seq <> ?`),
				seq, versionID, r.DocumentID, r.Index, seq); err != nil {
				return fmt.Errorf("number chunks: %w", err)
			}
		}
		return nil
	}), "chunk jobs")
}

// DoneAmong returns which of the given chunks of a version are done, in
// one query.
func (s *Store) DoneAmong(ctx context.Context, versionID int, refs []extract.ChunkRef) (map[extract.ChunkRef]bool, error) {
	done := map[extract.ChunkRef]bool{}
	if len(refs) == 0 {
		return done, nil
	}
	docs := map[int]bool{}
	lo, hi := refs[0].Index, refs[0].Index
	for _, r := range refs {
		docs[r.DocumentID] = true
		lo, hi = min(lo, r.Index), max(hi, r.Index)
	}
	rows, err := s.client.ChunkJob.Query().Where(chunkjob.VersionID(versionID), chunkjob.StateEQ(chunkjob.StateDone),
		chunkjob.DocumentIDIn(slices.Collect(maps.Keys(docs))...), chunkjob.ChunkIndexGTE(lo), chunkjob.ChunkIndexLTE(hi)).
		Select(chunkjob.FieldDocumentID, chunkjob.FieldChunkIndex).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	for _, r := range rows {
		done[extract.ChunkRef{DocumentID: r.DocumentID, Index: r.ChunkIndex}] = true
	}
	return done, nil
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

// CopyRunChunks gives version to what the chunk jobs of version from
// left that a run of the same settings takes as it is, but for the
// chunks of skip (asked again): with prefix, from's graph as its chunk
// jobs merged it (every chunk before its merge_next and nothing else; the
// caller knows no final job wrote to it), with its chunk runs, counters
// and merge_next; and the results its rows keep (staged, or kept after a
// merge) as done chunks of its own, waiting to be merged. The model calls
// of what is copied count as cached for the new version, which did not
// pay for them. It returns the chunks copied.
func (s *Store) CopyRunChunks(ctx context.Context, from, to int, prefix bool, skip map[extract.ChunkRef]bool) (map[extract.ChunkRef]bool, error) {
	rows, err := s.client.ChunkJob.Query().Where(chunkjob.VersionID(from), chunkjob.StateEQ(chunkjob.StateDone)).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	src, err := s.client.ExtractionVersion.Get(ctx, from)
	if err != nil {
		return nil, translate(err, "version")
	}
	copied := map[extract.ChunkRef]bool{}
	err = s.inTx(ctx, func(b *writeTx) error {
		c := b.Client()
		var bulk []*ent.ChunkJobCreate
		for _, r := range rows {
			ref := extract.ChunkRef{DocumentID: r.DocumentID, Index: r.ChunkIndex}
			merged := prefix && r.Seq < src.MergeNext
			if skip[ref] || (!merged && r.Result == "") {
				continue
			}
			result := ""
			if !merged {
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
				result = string(data)
			}
			copied[ref] = true
			bulk = append(bulk, c.ChunkJob.Create().SetVersionID(to).SetDocumentID(r.DocumentID).SetChunkIndex(r.ChunkIndex).
				SetSeq(r.Seq).SetState(chunkjob.StateDone).SetResult(result).SetAttempts(r.Attempts))
		}
		for start := 0; start < len(bulk); start += 500 {
			if err := c.ChunkJob.CreateBulk(bulk[start:min(start+500, len(bulk))]...).Exec(ctx); err != nil {
				return err
			}
		}
		if !prefix {
			return nil
		}
		return copyMerged(ctx, b, src, to)
	})
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	return copied, nil
}

// copyMerged copies a version's graph, chunk runs and counters into
// another (empty) one; their model calls count as cached there.
func copyMerged(ctx context.Context, b *writeTx, src *ent.ExtractionVersion, to int) error {
	for _, q := range []string{
		`INSERT INTO nodes ("key", name, "type", description, properties, degree, mentions, version_id) ` +
			`SELECT "key", name, "type", description, properties, degree, mentions, ? FROM nodes WHERE version_id = ?`,
		`INSERT INTO edges (source, target, label, keywords, description, description_ref, weight, properties, mentions, version_id) ` +
			`SELECT source, target, label, keywords, description, description_ref, weight, properties, mentions, ? FROM edges WHERE version_id = ?`,
		`INSERT INTO edge_texts (hash, text, version_id) SELECT hash, text, ? FROM edge_texts WHERE version_id = ?`,
		`INSERT INTO operations (turn, seq, op, node_id, source_id, target_id, label, description, "timestamp", status, reason, version_id) ` +
			`SELECT turn, seq, op, node_id, source_id, target_id, label, description, "timestamp", status, reason, ? FROM operations WHERE version_id = ?`,
	} {
		if _, err := b.ExecContext(ctx, b.rebind(q), to, src.ID); err != nil {
			return fmt.Errorf("copy merged chunks: %w", err)
		}
	}
	c := b.Client()
	runs, err := c.ChunkRun.Query().Where(chunkrun.VersionID(src.ID)).All(ctx)
	if err != nil {
		return err
	}
	var bulk []*ent.ChunkRunCreate
	for _, r := range runs {
		var d chunkDetail
		detail := r.Detail
		if json.Unmarshal([]byte(r.Detail), &d) == nil && len(d.Calls) > 0 {
			for i := range d.Calls {
				d.Calls[i].Cached = true
			}
			data, _ := json.Marshal(d)
			detail = string(data)
		}
		bulk = append(bulk, c.ChunkRun.Create().SetVersionID(to).SetDocumentID(r.DocumentID).SetChunkIndex(r.ChunkIndex).
			SetDetail(detail).SetNodeCount(r.NodeCount).SetEdgeCount(r.EdgeCount).SetPromptTokens(r.PromptTokens).
			SetOutputTokens(r.OutputTokens).SetOffSchema(r.OffSchema).SetFailures(r.Failures).SetElapsedMs(r.ElapsedMs))
	}
	for start := 0; start < len(bulk); start += 500 {
		if err := c.ChunkRun.CreateBulk(bulk[start:min(start+500, len(bulk))]...).Exec(ctx); err != nil {
			return err
		}
	}
	return c.ExtractionVersion.UpdateOneID(to).SetMergeNext(src.MergeNext).SetNodeCount(src.NodeCount).SetEdgeCount(src.EdgeCount).
		SetPromptTokens(src.PromptTokens).SetOutputTokens(src.OutputTokens).SetCalls(src.Calls).SetCachedCalls(src.Calls).
		SetCachedPromptTokens(src.PromptTokens).SetCachedOutputTokens(src.OutputTokens).SetOffSchema(src.OffSchema).
		SetParseFailures(src.ParseFailures).SetRepairs(src.Repairs).SetViolations(src.Violations).Exec(ctx)
}

// DropStagedResults frees the stored results of a version's merged
// chunks, keeping each row's state, attempts and last error.
func (s *Store) DropStagedResults(ctx context.Context, versionID int) error {
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.ChunkJob.Update().Where(chunkjob.VersionID(versionID), chunkjob.StateEQ(chunkjob.StateDone), chunkjob.ResultNEQ("")).
			SetResult("").Exec(ctx)
	}), "chunk jobs")
}

// ChunkJobErrors lists a version's chunks with a last error, in chunk
// order.
func (s *Store) ChunkJobErrors(ctx context.Context, versionID int) ([]record.ChunkJobError, error) {
	rows, err := s.client.ChunkJob.Query().Where(chunkjob.VersionID(versionID), chunkjob.ErrorNEQ("")).
		Order(ent.Asc(chunkjob.FieldDocumentID), ent.Asc(chunkjob.FieldChunkIndex)).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk jobs")
	}
	out := make([]record.ChunkJobError, len(rows))
	for i, r := range rows {
		status, msg := jobError(r)
		out[i] = record.ChunkJobError{DocumentID: r.DocumentID, ChunkIndex: r.ChunkIndex, State: record.ChunkJobState(r.State), Attempts: r.Attempts, Status: status, Error: msg}
	}
	return out, nil
}

// CountJobs counts the jobs rows of one version: a retried job is one
// that took more than one attempt (or waits for its next).
func CountJobs(rows []*rivertype.JobRow) record.JobCounts {
	var c record.JobCounts
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
	class := s.lockClass
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
