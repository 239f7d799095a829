package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/lru"
	"github.com/kgstudio/kgstudio/store"
	"github.com/riverqueue/river"
)

// newQueue builds a River client; with workers, it can run jobs.
func (jq *jobQueue) newQueue(work bool, o WorkerOptions) (store.Queue, error) {
	o = o.withDefaults()
	cfg := &river.Config{
		Logger:               slog.New(quietHandler{jq.log.Handler()}),
		MaxAttempts:          riverAttempts,
		RetryPolicy:          retryPolicy{},
		JobTimeout:           o.JobTimeout,
		RescueStuckJobsAfter: o.RescueAfter,
		FetchCooldown:        time.Millisecond,
		FetchPollInterval:    200 * time.Millisecond,
	}
	if work {
		workers := river.NewWorkers()
		holdFinal, holdFrom := holds(o.Failpoint)
		river.AddWorker(workers, &chunkWorker{p: jq.pipe, timeout: o.JobTimeout, holdFrom: holdFrom})
		river.AddWorker(workers, &finishWorker{p: jq.pipe, timeout: o.RescueAfter, hold: holdFinal})
		cfg.Workers = workers
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Concurrency}}
	}
	q, err := jq.store.NewQueue(cfg)
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	return q, nil
}

// inserter returns the client that inserts and lists jobs.
func (jq *jobQueue) inserter() (store.Queue, error) {
	jq.runs.qmu.Lock()
	defer jq.runs.qmu.Unlock()
	if jq.runs.queue == nil {
		q, err := jq.newQueue(false, WorkerOptions{})
		if err != nil {
			return nil, err
		}
		jq.runs.queue = q
	}
	return jq.runs.queue, nil
}

// Worker is a running set of job workers in this process.
type Worker struct {
	q store.Queue
	// gone, for a worker StartWorker started, tells the app it no longer
	// runs (once), so a later Wait starts workers of its own.
	gone func()
}

// stopGrace is how long Stop waits, once ctx has ended, for the canceled
// jobs to return: a job that does not heed its cancel is left behind (its
// process is going away; the rescuer hands it to another worker).
const stopGrace = 5 * time.Second

// Stop stops taking jobs and waits for the running ones to finish (or
// ctx to end, then cancels them, waiting stopGrace more: they run again
// elsewhere), so a process told to stop ends within ctx's time and the
// grace.
func (w *Worker) Stop(ctx context.Context) error {
	if w.gone != nil {
		w.gone()
	}
	err := w.q.Stop(ctx)
	if err != nil {
		gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopGrace)
		defer cancel()
		_ = w.q.StopAndCancel(gctx)
	}
	return err
}

// startQueue starts a River client with workers, having first taken over
// what a gone process of this machine left (store.TakeOverGone): its jobs
// run again at once instead of after River's lease and rescue delay.
func (jq *jobQueue) startQueue(ctx context.Context, o WorkerOptions) (store.Queue, error) {
	q, err := jq.newQueue(true, o)
	if err != nil {
		return nil, err
	}
	if n, err := jq.store.TakeOverGone(ctx); err != nil {
		jq.log.Warn("taking over a gone process's jobs", "err", err)
	} else if n > 0 {
		jq.log.Info("took over the jobs of a gone process", "jobs", n)
	}
	if err := q.Start(ctx); err != nil {
		return nil, fmt.Errorf("start workers: %w", err)
	}
	return q, nil
}

// runs is the state of the extraction runs of one workspace in this
// process: the job queue's client, the job workers it runs, the callers
// waiting for versions to end, and the documents and versions its chunk
// jobs read last. Runs, its jobQueue and its pipeline share it and read
// and change it under its locks.
type runs struct {
	// qmu guards queue (the client that inserts and lists jobs) and
	// workers (how many sets of job workers run in this process).
	qmu     sync.Mutex
	queue   store.Queue
	workers int
	// shared runs jobs for the callers of Wait while no workers of the
	// process's own run; sharedUsers counts them.
	shared      *Worker
	sharedUsers int
	// started are the workers StartWorker started (see Shutdown).
	started []*Worker
	// waitMu guards waiters: the callers of Wait, by version.
	waitMu  sync.Mutex
	waiters map[int][]*waiter
	// jobDocs and jobRuns are the documents and versions chunk jobs
	// read last.
	jobDocs *lru.Cache[docKey, *cachedDoc]
	jobRuns *lru.Cache[int, *jobRun]
}

// StartWorker starts job workers in this process until ctx ends or Stop.
func (rs *Runs) StartWorker(ctx context.Context, o WorkerOptions) (*Worker, error) {
	q, err := rs.queue.startQueue(ctx, o)
	if err != nil {
		return nil, err
	}
	w := &Worker{q: q}
	w.gone = sync.OnceFunc(func() {
		rs.runs.qmu.Lock()
		rs.runs.workers--
		rs.runs.qmu.Unlock()
	})
	rs.runs.qmu.Lock()
	rs.runs.workers++
	rs.runs.started = append(rs.runs.started, w)
	rs.runs.qmu.Unlock()
	context.AfterFunc(ctx, w.gone)
	if rs == rs.site.main.Runs {
		// Every workspace's jobs run where the main App's do.
		if err := rs.site.workersStarted(ctx, o); err != nil {
			rs.log.Error("start a workspace's workers", "error", err)
		}
	}
	return w, nil
}

// Shutdown stops the workers StartWorker started; jobs still running when
// ctx ends are canceled and run again elsewhere (or on the next start).
func (rs *Runs) Shutdown(ctx context.Context) {
	rs.runs.qmu.Lock()
	ws := rs.runs.started
	rs.runs.started = nil
	rs.runs.qmu.Unlock()
	for _, w := range ws {
		_ = w.Stop(ctx)
	}
}

// holdWorker makes sure job workers run in this process until release:
// the process's own (StartWorker) or one shared by every waiting caller,
// stopped when the last of them releases it.
func (jq *jobQueue) holdWorker(ctx context.Context, o WorkerOptions) (release func(), err error) {
	jq.runs.qmu.Lock()
	defer jq.runs.qmu.Unlock()
	if jq.runs.workers > 0 {
		return func() {}, nil
	}
	if jq.runs.shared == nil {
		q, err := jq.startQueue(context.WithoutCancel(ctx), o)
		if err != nil {
			return nil, err
		}
		jq.runs.shared = &Worker{q: q}
	}
	jq.runs.sharedUsers++
	return func() {
		jq.runs.qmu.Lock()
		jq.runs.sharedUsers--
		w := jq.runs.shared
		if jq.runs.sharedUsers > 0 {
			w = nil
		} else {
			jq.runs.shared = nil
		}
		jq.runs.qmu.Unlock()
		if w != nil {
			// Unlocked: a job finishing meanwhile may need the queue.
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = w.Stop(sctx)
			cancel()
		}
	}, nil
}

// waiter is a caller of Wait in this process: the jobs of its version that
// run here report progress to it and stop when its context ends, as a
// foreground run always did.
type waiter struct {
	ctx      context.Context
	mu       sync.Mutex // serialises calls to progress
	progress func(extract.Progress)
	last     extract.Progress
}

// report passes p on; within a phase the count never steps back (the
// final job's own reports and the store's count may cross).
func (w *waiter) report(p extract.Progress) {
	if w.progress == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if p.Phase == w.last.Phase && p.ChunksDone < w.last.ChunksDone {
		p.ChunksDone = w.last.ChunksDone
	}
	w.last = p
	w.progress(p)
}

// addWaiter registers a waiter of a version until the returned remove.
func (jq *jobQueue) addWaiter(id int, w *waiter) (remove func()) {
	jq.runs.waitMu.Lock()
	defer jq.runs.waitMu.Unlock()
	if jq.runs.waiters == nil {
		jq.runs.waiters = map[int][]*waiter{}
	}
	jq.runs.waiters[id] = append(jq.runs.waiters[id], w)
	return func() {
		jq.runs.waitMu.Lock()
		defer jq.runs.waitMu.Unlock()
		jq.runs.waiters[id] = slices.DeleteFunc(jq.runs.waiters[id], func(x *waiter) bool { return x == w })
		if len(jq.runs.waiters[id]) == 0 {
			delete(jq.runs.waiters, id)
		}
	}
}

// waitersOf returns the waiters of a version.
func (jq *jobQueue) waitersOf(id int) []*waiter {
	jq.runs.waitMu.Lock()
	defer jq.runs.waitMu.Unlock()
	return slices.Clone(jq.runs.waiters[id])
}

// errWaiterGone cancels a job whose local waiter stopped waiting.
var errWaiterGone = errors.New("the run was interrupted")

// jobProgress reports a job's progress to the version's local waiters; a
// waiter that stops waiting in its progress call stops the job before it
// takes another chunk (cancel is the job's).
func (jq *jobQueue) jobProgress(id int, cancel context.CancelCauseFunc) func(extract.Progress) {
	ws := jq.waitersOf(id)
	if len(ws) == 0 {
		return nil
	}
	return func(p extract.Progress) {
		p.Phase = extract.PhaseMerging // only the final job reports progress
		for _, w := range ws {
			w.report(p)
			if w.ctx.Err() != nil {
				cancel(errWaiterGone)
			}
		}
	}
}

// jobMeta tags a version's jobs, so they can be listed and canceled.
func jobMeta(versionID int) []byte {
	return []byte(`{"version_id":"` + strconv.Itoa(versionID) + `"}`)
}

// Enqueue queues a version's jobs: one per text chunk not yet done, or the
// final job at once when none is left. The version becomes queued; it is
// returned as it stood then, before any worker took a job.
func (rs *Runs) Enqueue(ctx context.Context, v record.Version) (record.Version, error) {
	queued, err := rs.queue.enqueue(ctx, v, priorityQueued)
	if err != nil {
		return v, err
	}
	return queued, nil
}

// Job priorities (River's: 1 is taken first). The chunk jobs of a run
// someone waits for in the foreground (Run: extract without --detach,
// retry) come before those of runs queued for the workers (Enqueue: the
// web form, extract --detach, Resume), so a foreground extract works its
// own run first, whatever was queued before it; when none of its jobs is
// left to take, its workers help the others, and every worker takes its
// jobs first. A final job comes first of all: it is one per run, and the
// run waits on it.
const (
	priorityFinish     = 1
	priorityForeground = 2
	priorityQueued     = 3
)

func (jq *jobQueue) enqueue(ctx context.Context, v record.Version, priority int) (queued record.Version, err error) {
	q, err := jq.inserter()
	if err != nil {
		return queued, err
	}
	docs, err := jq.store.Documents(ctx, v.DocumentIDs)
	if err != nil {
		return queued, err
	}
	tracks, err := jq.pipe.planTracks(ctx, v, docs)
	if err != nil {
		_ = jq.store.FinishVersion(context.WithoutCancel(ctx), v.ID, record.StatusFailed, 0, errText(err))
		return queued, err
	}
	// Merged chunks (a chunk run each) and those whose jobs are done
	// (merged or staged) are kept; the failed ones are asked again.
	finished, err := jq.store.Sink(v.ID, 0).Finished(ctx)
	if err != nil {
		return queued, err
	}
	staged, err := jq.store.ReopenChunks(ctx, v.ID)
	if err != nil {
		return queued, err
	}
	total, done := 0, 0
	var text []extract.Job
	for _, r := range tracks {
		total += len(r.jobs)
		if r.name == TrackText {
			text = r.jobs
		}
		for _, j := range r.jobs {
			if ref := j.Chunk.Ref(); finished[ref] || staged[ref] {
				done++
			}
		}
	}
	if len(staged) > 0 {
		refs := make([]extract.ChunkRef, len(text))
		for i, j := range text {
			refs[i] = j.Chunk.Ref()
		}
		if err := jq.store.NumberChunks(ctx, v.ID, refs); err != nil {
			return queued, err
		}
	}
	round := time.Now().UnixNano()
	var pending []chunkArgs
	expect := 0
	batch := jobChunks(v.Config, len(text))
	for seq, j := range text {
		ref := j.Chunk.Ref()
		if staged[ref] || finished[ref] {
			continue
		}
		expect++
		if n := len(pending); n > 0 && pending[n-1].Seq+len(pending[n-1].Then)+1 == seq && len(pending[n-1].Then)+1 < batch {
			pending[n-1].Then = append(pending[n-1].Then, ref)
			continue
		}
		pending = append(pending, chunkArgs{VersionID: v.ID, DocumentID: ref.DocumentID, ChunkIndex: ref.Index, Round: round, Seq: seq})
	}
	if err := jq.store.QueueVersion(ctx, v.ID, total, done); err != nil {
		return queued, err
	}
	if queued, err = jq.store.Version(ctx, v.ID); err != nil {
		return queued, err
	}
	meta := jobMeta(v.ID)
	if len(pending) == 0 {
		return queued, jq.enqueueFinish(ctx, q, v.ID, round)
	}
	params := make([]river.InsertManyParams, len(pending))
	for i := range pending {
		pending[i].Expect = expect
		params[i] = river.InsertManyParams{Args: pending[i], InsertOpts: &river.InsertOpts{Metadata: meta, Priority: priority, UniqueOpts: river.UniqueOpts{ByArgs: true}}}
	}
	for start := 0; start < len(params); start += 1000 {
		if _, err := q.InsertMany(ctx, params[start:min(start+1000, len(params))]); err != nil {
			return queued, fmt.Errorf("queue chunk jobs: %w", err)
		}
	}
	jq.log.Debug("extraction queued", "version_id", v.ID, "extraction", v.Extraction, "chunk_jobs", len(pending))
	return queued, nil
}

// jobChunks is how many consecutive chunks of a run of n text chunks
// one chunk job extracts: one for a model's strategies, whose calls take
// seconds and run side by side across jobs; up to 64 for the offline nlp
// strategy, whose chunk takes milliseconds (less than River spends on a
// job), keeping some 32 jobs for the workers to share. A job's chunks
// merge as one write, so a node named in several of them is written once
// (on the 2.7 MB corpus, 64 rather than 16 took a sixth off the CPU
// of a whole run on SQLite).
func jobChunks(cfg extract.Config, n int) int {
	if !offline(cfg) {
		return 1
	}
	return min(max(n/32, 1), 64)
}

// offline reports whether a run's strategy asks no model (nlp).
func offline(cfg extract.Config) bool {
	return cfg.Strategy == extract.StrategyNLP || cfg.Strategy == ""
}

// enqueueFinish queues a version's final job, once per round.
func (jq *jobQueue) enqueueFinish(ctx context.Context, q store.Queue, versionID int, round int64) error {
	_, err := q.Insert(ctx, finishArgs{VersionID: versionID, Round: round}, finishOpts(versionID))
	if err != nil {
		return fmt.Errorf("queue final job: %w", err)
	}
	return nil
}

// enqueueFinishTx queues a version's final job within tx, the transaction
// that settles its last chunk.
func (jq *jobQueue) enqueueFinishTx(ctx context.Context, tx *sql.Tx, versionID int, round int64) error {
	q, err := jq.inserter()
	if err != nil {
		return err
	}
	if _, err := q.InsertTx(ctx, tx, finishArgs{VersionID: versionID, Round: round}, finishOpts(versionID)); err != nil {
		return fmt.Errorf("queue final job: %w", err)
	}
	return nil
}

func finishOpts(versionID int) *river.InsertOpts {
	return &river.InsertOpts{Metadata: jobMeta(versionID), Priority: priorityFinish, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// watchVersion returns a context canceled when a local waiter of the
// version stops waiting (its foreground run was interrupted). A cancel
// from any instance reaches a running job through River (the job's
// context ends with rivertype.ErrJobCancelledRemotely) and through the
// version's status, which every settle checks under the version's lock.
func (jq *jobQueue) watchVersion(ctx context.Context, id int) (context.Context, context.CancelCauseFunc, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	var stops []func() bool
	for _, w := range jq.waitersOf(id) {
		stops = append(stops, context.AfterFunc(w.ctx, func() { cancel(errWaiterGone) }))
	}
	return ctx, cancel, func() {
		for _, s := range stops {
			s()
		}
		cancel(nil)
	}
}

// active loads a version and reports whether it still runs.
func (jq *jobQueue) activeVersion(ctx context.Context, id int) (record.Version, bool, error) {
	v, err := jq.store.Version(ctx, id)
	if err != nil {
		if extract.KindOf(err) == extract.KindNotFound {
			return v, false, nil
		}
		return v, false, err
	}
	return v, v.Active(), nil
}
