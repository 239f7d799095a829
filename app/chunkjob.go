package app

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// workChunk extracts a job's chunks and settles them (store.SettleChunks):
// merged or staged, and the job completed, in one transaction.
func (pl *pipeline) workChunk(ctx context.Context, job *river.Job[chunkArgs]) error {
	args := job.Args
	st, err := pl.store.VersionStatus(ctx, args.VersionID)
	if err != nil && extract.KindOf(err) != extract.KindNotFound {
		return err
	}
	if st != record.StatusQueued && st != record.StatusRunning {
		return river.JobCancel(store.ErrNotActive)
	}
	run, err := pl.jobRun(ctx, args.VersionID)
	if err != nil {
		return err
	}
	v := run.v
	if st == record.StatusQueued {
		if err := pl.store.MarkRunning(ctx, v.ID); err != nil {
			return err
		}
	}
	wctx, _, stop := pl.queue.watchVersion(ctx, v.ID)
	defer stop()
	// Each chunk not settled yet is asked; a job River runs again (a
	// killed worker's, rescued, or one retried after an error) asks only
	// the chunks its earlier attempts did not settle.
	refs := args.refs()
	done, err := pl.store.DoneAmong(ctx, v.ID, refs)
	if err != nil {
		return err
	}
	// A job of several offline chunks that finishes before the job of the
	// chunks just before it waits for that one when it runs here (a
	// matter of milliseconds), rather than stage its chunks; a model's
	// chunk job never waits (its neighbour's calls may take seconds).
	wait := offline(v.Config)
	if wait {
		defer run.begin(args.Seq + len(refs) - 1)()
	}
	outs, retry, failed, end := pl.extractChunks(ctx, wctx, job, run, done)
	if end != nil {
		return end
	}
	if len(outs) == 0 {
		return nil
	}
	if wait {
		run.waitTurn(wctx, args.Seq)
	}
	switch err := pl.settleChunks(ctx, job, v, outs, retry == nil && failed == nil); {
	case errors.Is(err, store.ErrNotActive):
		return river.JobCancel(err)
	case err != nil:
		return errors.Join(retry, err)
	}
	switch {
	case retry != nil:
		return retry
	case failed != nil:
		return river.JobCancel(failed)
	}
	return nil
}

// extractChunks extracts the chunks of a chunk job not settled yet
// (done) and returns their outcomes, the first error to try again, the
// first error settled as a failure, and stop when the job is to end at
// once (canceled, or snoozed because our own process stopped it).
func (pl *pipeline) extractChunks(ctx, wctx context.Context, job *river.Job[chunkArgs], run *jobRun, done map[extract.ChunkRef]bool) (outs []store.ChunkOutcome, retry, failed, stop error) {
	args := job.Args
	refs := args.refs()
	for i, ref := range refs {
		if done[ref] {
			continue
		}
		o := store.ChunkOutcome{Ref: ref, Seq: args.Seq + i, Attempts: job.Attempt}
		res, err := pl.extractChunk(wctx, run, ref)
		if err == nil {
			o.Result = &res
			outs = append(outs, o)
			continue
		}
		if errors.Is(err, store.ErrNotActive) || errors.Is(context.Cause(ctx), rivertype.ErrJobCancelledRemotely) {
			return outs, nil, nil, river.JobCancel(store.ErrNotActive)
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// Past the job timeout: kept as the chunk's last error, and
			// River tries again, up to the last attempt.
			o.Error = extract.ChunkError{DocumentID: ref.DocumentID, Index: ref.Index, Status: "timeout", Message: "the chunk job ran past its time limit (--job-timeout)"}
			o.Final = job.Attempt >= maxAttempts
		} else if stopped(ctx, wctx) {
			// Our own process stopped the job (its foreground run was
			// interrupted, or its workers shut down): not a failure of
			// the chunk. The job goes back to the queue, its attempt
			// not counted, for any worker to take.
			return outs, nil, nil, river.JobSnooze(0)
		} else {
			// A provider's answer (a 429 or 500 after the client's own
			// backed-off retries), a chunk it refuses or a server that
			// refuses the connection settles the chunk failed at once,
			// as a run always did: retry or resume asks it again.
			// Anything else (a database error) is tried again with
			// backoff, up to the last attempt.
			o.Error = extract.ChunkErrorOf(ref, err)
			o.Final = job.Attempt >= maxAttempts || isProviderErr(err) || llm.Refused(err) || extract.KindOf(err) == extract.KindInvalid
		}
		outs = append(outs, o)
		if o.Final {
			failed = cmp.Or(failed, err)
			if ctx.Err() == nil {
				continue
			}
		} else {
			retry = err
		}
		break // the job's time is up, or it is tried again
	}
	return outs, retry, failed, nil
}

// settleChunks settles a chunk job's outcomes in one transaction, which
// queues the final job once every chunk of the version is settled and
// completes the job when all its chunks are (complete), then merges the
// chunks staged after these. A version no longer active is
// store.ErrNotActive.
func (pl *pipeline) settleChunks(ctx context.Context, job *river.Job[chunkArgs], v record.Version, outs []store.ChunkOutcome, complete bool) error {
	args := job.Args
	fragments := sinkFragments(v.Config)
	// The final job is queued once every chunk is settled, and the job
	// completed when all its chunks are, both in the settle's transaction.
	hook := func(ctx context.Context, tx *sql.Tx, all bool) error {
		if all {
			if err := pl.queue.enqueueFinishTx(ctx, tx, v.ID, args.Round); err != nil {
				return err
			}
		}
		if complete {
			return store.CompleteJob(ctx, tx, job)
		}
		return nil
	}
	settled, err := pl.store.SettleChunks(context.WithoutCancel(ctx), v.ID, fragments, args.Expect, outs, hook)
	if err != nil {
		return err
	}
	if settled.Drain {
		// The chunks staged after these merge now, in order; what is
		// left (a stop, a cancel) the next settle or the final job
		// merges.
		if _, err := pl.store.DrainChunks(context.WithoutCancel(ctx), v.ID, fragments); err != nil {
			pl.log.Warn("merge staged chunks", "version_id", v.ID, "error", err)
		}
	}
	return nil
}

// isProviderErr reports whether an error came from a model provider.
func isProviderErr(err error) bool {
	var hs interface{ HTTPStatus() int }
	return errors.As(err, &hs)
}

// extractChunk runs the version's extractor on one chunk.
func (pl *pipeline) extractChunk(ctx context.Context, run *jobRun, ref extract.ChunkRef) (extract.ChunkResult, error) {
	doc, chunk, err := pl.jobChunk(ctx, run.v, ref)
	if err != nil {
		return extract.ChunkResult{}, err
	}
	// The error is the extractor's: the chunk's row names the document
	// and the chunk.
	return extract.ExtractChunk(ctx, run.ex, doc, chunk)
}

// jobRun is what the chunk jobs of one version share in a process: the
// version (its settings never change), its extractor, and the jobs
// extracting its chunks here (see waitTurn).
type jobRun struct {
	v  record.Version
	ex extract.Extractor

	mu sync.Mutex
	// extracting holds the last chunk (seq) of each job of the version
	// this process is extracting and has not settled; settled is closed
	// (and replaced) whenever one settles.
	extracting map[int]bool
	settled    chan struct{}
}

// begin records a job extracting chunks up to last; the returned end
// records it settled.
func (r *jobRun) begin(last int) (end func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.extracting == nil {
		r.extracting, r.settled = map[int]bool{}, make(chan struct{})
	}
	r.extracting[last] = true
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.extracting, last)
		close(r.settled)
		r.settled = make(chan struct{})
	}
}

// waitTurn waits while the job of the chunks just before first is still
// extracting in this process: once it has settled, the chunks from first
// on merge at once instead of being staged, written and read back. A
// job whose chunks before it run elsewhere, or wait for a retry, does not
// wait (its chunks are staged).
func (r *jobRun) waitTurn(ctx context.Context, first int) {
	for {
		r.mu.Lock()
		if !r.extracting[first-1] {
			r.mu.Unlock()
			return
		}
		ch := r.settled
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// jobRun returns the version's jobRun, built once per process (the last
// few versions are kept), however many of its jobs ask at the same time.
func (pl *pipeline) jobRun(ctx context.Context, id int) (*jobRun, error) {
	return pl.runs.jobRuns.Get(ctx, id, func() (*jobRun, error) {
		v, err := pl.store.Version(ctx, id)
		if err != nil {
			return nil, err
		}
		ex, err := pl.models.Extractor(ctx, v.Config)
		if err != nil {
			return nil, err
		}
		return &jobRun{v: v, ex: ex}, nil
	})
}

// docCacheSize is how many documents (and versions) a process keeps for
// chunk jobs.
const docCacheSize = 8

// docKey names a document split as a run's settings split it.
type docKey struct {
	id       int
	settings string
}

type cachedDoc struct {
	doc    extract.Document
	chunks map[int]extract.Chunk
}

// jobChunk loads a chunk and its document, keeping the last few documents
// so the chunk jobs of one document do not read it again each.
func (pl *pipeline) jobChunk(ctx context.Context, v record.Version, ref extract.ChunkRef) (extract.Document, extract.Chunk, error) {
	settings := chunkSettings(v.Config)
	c, err := pl.runs.jobDocs.Get(ctx, docKey{ref.DocumentID, settings}, func() (*cachedDoc, error) {
		d, err := pl.store.Document(ctx, ref.DocumentID)
		if err != nil {
			return nil, err
		}
		chunks, err := pl.store.Chunks(ctx, d.ID, settings)
		if err != nil {
			return nil, err
		}
		c := &cachedDoc{doc: d, chunks: make(map[int]extract.Chunk, len(chunks))}
		for _, ch := range chunks {
			c.chunks[ch.Index] = ch
		}
		return c, nil
	})
	if err != nil {
		return extract.Document{}, extract.Chunk{}, err
	}
	ch, ok := c.chunks[ref.Index]
	if !ok {
		return c.doc, ch, extract.Errorf(extract.KindNotFound, "chunk %d of %q not found", ref.Index, c.doc.Name)
	}
	return c.doc, ch, nil
}

// workFinish merges a version's chunks and finishes it.
func (pl *pipeline) workFinish(ctx context.Context, job *river.Job[finishArgs]) error {
	v, ok, err := pl.queue.activeVersion(ctx, job.Args.VersionID)
	if err != nil {
		return err
	}
	if !ok {
		return nil // finished already (a copy of this job ran) or canceled
	}
	// A copy of a final job (River's rescuer hands one out once the job
	// has run past its timeout) waits while the version's heartbeat is
	// fresh: the first one still works, maybe in another process, whose
	// lock (on SQLite, within the process) this one cannot see. It need
	// not wait when that process is known to be gone.
	if job.Attempt > 1 && pl.store.Now().Sub(v.HeartbeatAt) < finishStale && !store.PreviousAttemptGone(job.AttemptedBy) {
		return river.JobSnooze(finishBeat)
	}
	unlock, locked, err := pl.store.LockVersion(ctx, v.ID)
	if err != nil {
		return err
	}
	if !locked {
		// Another live worker finishes it; look again later in case it dies.
		return river.JobSnooze(10 * time.Second)
	}
	defer unlock()
	// Read again under the lock: the holder before may have finished it.
	if v, ok, err = pl.queue.activeVersion(ctx, v.ID); err != nil || !ok {
		return err
	}
	if err := pl.store.MarkRunning(ctx, v.ID); err != nil {
		return err
	}
	wctx, cancel, stop := pl.queue.watchVersion(ctx, v.ID)
	defer stop()
	// The heartbeat says the final job is alive (see above).
	beat := time.NewTicker(finishBeat)
	defer beat.Stop()
	go func() {
		for {
			select {
			case <-wctx.Done():
				return
			case <-beat.C:
				_ = pl.store.Heartbeat(wctx, v.ID)
			}
		}
	}()
	err = pl.finish(wctx, v, pl.queue.jobProgress(v.ID, cancel))
	if errors.Is(context.Cause(wctx), rivertype.ErrJobCancelledRemotely) {
		return river.JobCancel(store.ErrNotActive)
	}
	if err != nil && stopped(ctx, wctx) {
		return river.JobSnooze(0) // as a chunk job's (workChunk)
	}
	return err
}

// A working final job beats every finishBeat; a copy takes over once the
// beat is older than finishStale.
const (
	finishBeat  = 5 * time.Second
	finishStale = 20 * time.Second
)

// stopped reports whether a job was stopped by its own process: the local
// waiter of its run went away (wctx's cause), or the process's workers
// shut down (ctx, the job's, canceled but neither past its timeout nor
// canceled remotely).
func stopped(ctx, wctx context.Context) bool {
	if errors.Is(context.Cause(wctx), errWaiterGone) {
		return true
	}
	cause := context.Cause(ctx)
	return ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(cause, rivertype.ErrJobCancelledRemotely)
}
