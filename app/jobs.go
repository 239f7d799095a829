package app

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kgstudio/kgstudio/extract"
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

// JobKind is the kind of a River job of a run.
type JobKind string

// Job kinds.
const (
	KindChunkJob  JobKind = "kgstudio_chunk"
	KindFinishJob JobKind = "kgstudio_finish"
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
func (chunkArgs) Kind() string { return string(KindChunkJob) }

// finishArgs is the final job of a version.
type finishArgs struct {
	VersionID int   `json:"version_id"`
	Round     int64 `json:"round"`
}

// Kind implements river.JobArgs.
func (finishArgs) Kind() string { return string(KindFinishJob) }

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
	// Failpoint holds jobs, for tests that kill a process at a known
	// point of a run (the environment's KGSTUDIO_FAILPOINT when empty):
	// "final" holds every final job, "chunks:N" every chunk job from a
	// run's N-th chunk on (counted from 0), each until its process dies
	// (not even the job's timeout ends it, so River keeps it running for
	// the process that takes the dead one's jobs over). Empty holds
	// nothing.
	Failpoint string
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
	if o.Failpoint == "" {
		o.Failpoint = os.Getenv("KGSTUDIO_FAILPOINT")
	}
	return o
}

// holds reads a failpoint (WorkerOptions.Failpoint): whether final jobs
// are held, and the chunk from which chunk jobs are (-1 for none).
func holds(failpoint string) (final bool, fromChunk int) {
	if failpoint == "final" {
		return true, -1
	}
	if n, ok := strings.CutPrefix(failpoint, "chunks:"); ok {
		if from, err := strconv.Atoi(n); err == nil && from >= 0 {
			return false, from
		}
	}
	return false, -1
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
	// holdFrom holds the jobs of a run's chunks from this one on (-1:
	// none; see WorkerOptions.Failpoint).
	holdFrom int
}

// Work implements river.Worker.
func (w *chunkWorker) Work(ctx context.Context, job *river.Job[chunkArgs]) error {
	if w.holdFrom >= 0 && job.Args.Seq+len(job.Args.refs()) > w.holdFrom {
		select {} // until the process dies (WorkerOptions.Failpoint)
	}
	return w.p.workChunk(ctx, job)
}

// Timeout implements river.Worker.
func (w *chunkWorker) Timeout(*river.Job[chunkArgs]) time.Duration { return w.timeout }

// finishWorker runs final jobs.
type finishWorker struct {
	river.WorkerDefaults[finishArgs]
	p       *pipeline
	timeout time.Duration
	// hold holds every final job (see WorkerOptions.Failpoint).
	hold bool
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
	if w.hold {
		select {} // until the process dies (WorkerOptions.Failpoint)
	}
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
			final = at.Key == "kind" && at.Value.String() == string(KindFinishJob)
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

// errText is the message a failed version shows for err.
func errText(err error) string {
	if extract.KindOf(err) == extract.KindInternal {
		return err.Error()
	}
	return extract.MessageOf(err)
}
