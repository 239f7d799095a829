package app

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/lru"
	"github.com/kgstudio/kgstudio/store"
)

// Runs are River jobs
//
// A run is queued as jobs in the store's database (River, see
// store/jobs.go) that any process running workers picks up: `kgstudio
// worker`, `kgstudio serve` (unless --no-worker) and a foreground
// `kgstudio extract`.
//
//   - Each chunk of a text document is one chunk job: it extracts the chunk
//     and settles it in the transaction that completes the job
//     (store.SettleChunk with River's JobCompleteTx on the store's own
//     database handle): the chunk is merged into the version when every
//     chunk before it in the run's order is, else staged until they are
//     (the job that merges the chunk before it merges it next, one
//     transaction each: store.DrainChunks). So the graph is merged in
//     chunk order, the one a single process makes, whichever worker
//     extracted which chunk; a job that runs again stores nothing twice.
//     A failed attempt keeps its error and is retried with backoff; after
//     the last attempt the chunk is settled as failed, which stops the
//     merge there (resume and retry ask it again and merge on in order).
//   - The transaction that settles the last chunk also queues the
//     version's final job (unique per version and round), which does what
//     needs every chunk: it merges any chunk still staged, runs CSV tables
//     and dialogues (stateful: one turn after the other) track after track
//     as before, then summaries, injection, merge decisions, the schema's
//     rules (over the whole graph) and vectors, and records the version's
//     final status.
//   - Cancel marks the version canceled and cancels its River jobs (River
//     tells a running job so, on any instance); a chunk's settle also
//     checks the version is still running, under its lock.
//   - A worker that dies leaves its jobs running in river_job; River's
//     rescuer hands them to another worker once they have run longer than
//     the rescue delay (WorkerOptions.RescueAfter). A worker starting on
//     the same machine takes them over at once (store.TakeOverGone). A final job runs under
//     a per-version lock, so a rescued one waits for a live one.

// Job kinds.
const (
	KindChunkJob  = "kgstudio_chunk"
	KindFinishJob = "kgstudio_finish"
)

// chunkArgs is one chunk of a version to extract.
type chunkArgs struct {
	VersionID  int `json:"version_id" river:"unique"`
	DocumentID int `json:"document_id" river:"unique"`
	ChunkIndex int `json:"chunk_index" river:"unique"`
	// Expect is how many chunks the final job waits for.
	Expect int `json:"expect"`
	// Round names the queuing the job belongs to.
	Round int64 `json:"round"`
	// Seq is the chunk's place in the run's order of text chunks, the
	// order the chunks are merged in.
	Seq int `json:"seq"`
	// Then are the chunks after it in the run's order that the job
	// extracts too (seq Seq+1, Seq+2 ...): an offline run's chunk takes
	// milliseconds, less than a job costs River, so its jobs take a few.
	Then []extract.ChunkRef `json:"then,omitempty"`
}

// refs are the job's chunks in the run's order.
func (c chunkArgs) refs() []extract.ChunkRef {
	return append([]extract.ChunkRef{{DocumentID: c.DocumentID, Index: c.ChunkIndex}}, c.Then...)
}

// Kind implements river.JobArgs.
func (chunkArgs) Kind() string { return KindChunkJob }

// finishArgs is the final job of a version.
type finishArgs struct {
	VersionID int   `json:"version_id"`
	Round     int64 `json:"round"`
}

// Kind implements river.JobArgs.
func (finishArgs) Kind() string { return KindFinishJob }

// WorkerOptions configure the job workers of a process.
type WorkerOptions struct {
	// Concurrency is how many jobs the process runs at once (default 4).
	Concurrency int
	// JobTimeout bounds one chunk job (default DefaultJobTimeout).
	JobTimeout time.Duration
	// RescueAfter is how long a job may run before River's rescuer hands
	// it to another worker (default 25 s; raised to JobTimeout + 5 s when
	// shorter): a killed worker's jobs run again within it plus River's
	// rescue interval (30 s).
	RescueAfter time.Duration
}

// DefaultJobTimeout and DefaultRescueAfter are the defaults of
// WorkerOptions: a chunk job gets 20 s and a dead worker's jobs go to
// another after 25 s (River's rescuer looks every 30 s, so within a minute).
const (
	DefaultJobTimeout  = 20 * time.Second
	DefaultRescueAfter = 25 * time.Second
)

func (o WorkerOptions) withDefaults() WorkerOptions {
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.JobTimeout <= 0 {
		o.JobTimeout = DefaultJobTimeout
	}
	if o.RescueAfter <= 0 {
		o.RescueAfter = DefaultRescueAfter
	}
	if o.RescueAfter < o.JobTimeout {
		o.RescueAfter = o.JobTimeout + 5*time.Second
	}
	return o
}

// maxAttempts is how often a chunk is tried before it is settled failed.
// River's own limit is higher (riverAttempts): a job River gave up on
// would leave its chunk unsettled and its run waiting, so River retries
// and rescues a job until the job itself settles its chunk failed.
const (
	maxAttempts   = 4
	riverAttempts = 25
)

// retryPolicy backs off exponentially: 1 s, 2 s, 4 s ... at most a minute.
type retryPolicy struct{}

// NextRetry implements river.ClientRetryPolicy.
func (retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	d := time.Duration(math.Min(60, math.Pow(2, float64(max(len(job.Errors), 1)-1)))) * time.Second
	return time.Now().Add(d)
}

// chunkWorker runs chunk jobs.
type chunkWorker struct {
	river.WorkerDefaults[chunkArgs]
	p       *pipeline
	timeout time.Duration
}

// Work implements river.Worker.
func (w *chunkWorker) Work(ctx context.Context, job *river.Job[chunkArgs]) error {
	return w.p.workChunk(ctx, job)
}

// Timeout implements river.Worker.
func (w *chunkWorker) Timeout(*river.Job[chunkArgs]) time.Duration { return w.timeout }

// finishWorker runs final jobs.
type finishWorker struct {
	river.WorkerDefaults[finishArgs]
	p       *pipeline
	timeout time.Duration
}

// Work implements river.Worker. A final job (summaries, vectors,
// dialogues) may take longer than its timeout, which exists for River's
// rescuer: a job with none (-1) is never rescued, so a final job killed
// mid-way left its version running for ever. The job runs on past the
// timeout (only a cancel or a shutdown stops it); the rescuer then hands
// a copy to a worker, which waits while the version's lock is held (or,
// on SQLite, while its heartbeat is fresh, see workFinish) and finishes
// the version when the first one is dead.
func (w *finishWorker) Work(ctx context.Context, job *river.Job[finishArgs]) error {
	wctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel(context.Cause(ctx))
		}
	})
	defer stop()
	return w.p.workFinish(wctx, job)
}

// Timeout implements river.Worker: see Work.
func (w *finishWorker) Timeout(*river.Job[finishArgs]) time.Duration { return w.timeout }

// quietHandler passes on River's warnings and errors only: its info lines
// (client started, stopped) say nothing a user needs. River's "job
// cancelled remotely" warning is dropped too: it comes for every job a
// cancel stops, again at every poll until the job has ended (thousands of
// lines for one cancel), and Cancel logs the cancel once. So is its "job
// appears to be stuck" for a final job, which runs past its timeout by
// design (see finishWorker.Work): a long run's last step is not stuck.
type quietHandler struct{ slog.Handler }

// Enabled implements slog.Handler.
func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if strings.HasSuffix(r.Message, "job cancelled remotely") {
		return nil
	}
	if strings.HasSuffix(r.Message, "Job appears to be stuck") {
		final := false
		r.Attrs(func(at slog.Attr) bool {
			final = at.Key == "kind" && at.Value.String() == KindFinishJob
			return !final
		})
		if final {
			return nil
		}
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(as)}
}

// WithGroup implements slog.Handler.
func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name)}
}

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
		river.AddWorker(workers, &chunkWorker{p: jq.pipe, timeout: o.JobTimeout})
		river.AddWorker(workers, &finishWorker{p: jq.pipe, timeout: o.RescueAfter})
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
	var outs []store.ChunkOutcome
	var retry, failed error // the first error tried again, and settled failed
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
			return river.JobCancel(store.ErrNotActive)
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
			return river.JobSnooze(0)
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
	fragments := sinkFragments(v.Config)
	// The final job is queued once every chunk is settled, and the job
	// completed when all its chunks are, both in the settle's transaction.
	complete := retry == nil && failed == nil
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
	if len(outs) == 0 {
		return nil
	}
	if wait {
		run.waitTurn(wctx, args.Seq)
	}
	settled, err := pl.store.SettleChunks(context.WithoutCancel(ctx), v.ID, fragments, args.Expect, outs, hook)
	switch {
	case errors.Is(err, store.ErrNotActive):
		return river.JobCancel(err)
	case err != nil:
		return errors.Join(retry, err)
	}
	if settled.Drain {
		// The chunks staged after these merge now, in order; what is
		// left (a stop, a cancel) the next settle or the final job
		// merges.
		if _, err := pl.store.DrainChunks(context.WithoutCancel(ctx), v.ID, fragments); err != nil {
			pl.log.Warn("merge staged chunks", "version_id", v.ID, "error", err)
		}
	}
	switch {
	case retry != nil:
		return retry
	case failed != nil:
		return river.JobCancel(failed)
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

// errText is the message a failed version shows for err.
func errText(err error) string {
	if extract.KindOf(err) == extract.KindInternal {
		return err.Error()
	}
	return extract.MessageOf(err)
}
