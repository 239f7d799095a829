package extract

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Extractor turns one chunk of a document into a graph. Implementations
// must be safe for concurrent use. They return an *Error of kind
// KindInvalid for input they cannot handle and KindUnavailable when a
// backing service fails.
type Extractor interface {
	Extract(ctx context.Context, doc Document, chunk Chunk) (ChunkResult, error)
}

// Job is one chunk of a run with the document it belongs to.
type Job struct {
	Doc   *Document
	Chunk Chunk
}

// Plan splits every document per cfg (ChunkSize, Overlap, Strict) into the
// jobs of a run, in document and chunk order. Documents need distinct IDs,
// since chunks are identified by (document ID, index); a repeated ID is an
// invalid error.
func Plan(docs []Document, cfg Config) ([]Job, error) {
	var jobs []Job
	seenIDs := make(map[int]bool, len(docs))
	for i := range docs {
		d := &docs[i]
		if seenIDs[d.ID] {
			return nil, Errorf(KindInvalid, "document %q: duplicate document id %d in one run", d.Name, d.ID)
		}
		seenIDs[d.ID] = true
		for _, c := range Split(*d, cfg.ChunkSize, cfg.Overlap, cfg.Strict) {
			jobs = append(jobs, Job{Doc: d, Chunk: c})
		}
	}
	return jobs, nil
}

// RunJobs skips the jobs sink reports as finished, extracts the others with
// at most concurrency at a time (1 when unset) and writes each result
// through sink in job order, as soon as it and every job before it are
// ready. With concurrency 1 the extractor also sees the jobs one at a time
// and in order, each after the one before it is written, which stateful
// extractors (dialogue memory) rely on.
//
// progress, when not nil, is called (never concurrently) once at the start
// and after every finished chunk; ChunksDone counts skipped chunks too, Nodes
// and Edges count the distinct node and edge keys of the chunk results this
// call wrote. RunJobs stops at the first error of the extractor or the
// sink, or when ctx is done, and returns that error (ctx.Err() for a
// cancellation); chunks already written stay written. When sink is a
// FailureSink, a chunk whose extraction fails with an unavailable or
// invalid error (a provider's 429, 500 or timeout after retries) is
// recorded through it instead and the run goes on; RunJobs then returns an
// unavailable error that says how many chunks failed.
func RunJobs(parent context.Context, all []Job, concurrency int, ex Extractor, sink Sink, progress func(Progress)) error {
	if ex == nil || sink == nil {
		return Errorf(KindInvalid, "run needs an extractor and a sink")
	}
	begin := time.Now()
	finished, err := sink.Finished(parent)
	if err != nil {
		return fmt.Errorf("read finished chunks: %w", err)
	}
	jobs, done := pendingJobs(all, finished)
	tally := &runProgress{prog: Progress{ChunksDone: done, ChunksTotal: len(all)}, begin: begin, progress: progress,
		nodeKeys: map[string]bool{}, edgeKeys: map[string]bool{}}
	tally.report(nil)

	n := concurrency
	if n <= 0 {
		n = 1
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	r := newJobRun(ctx, cancel, jobs, n, ex, sink, tally)
	go r.wakeOnStop()
	committed := make(chan struct{})
	go func() {
		defer close(committed)
		r.commit()
	}()
	r.start()
	<-committed
	if err := parent.Err(); err != nil {
		return err
	}
	return r.err()
}

// pendingJobs returns the jobs whose chunks are not finished, in order,
// and how many are.
func pendingJobs(all []Job, finished map[ChunkRef]bool) (jobs []Job, done int) {
	for _, j := range all {
		if finished[j.Chunk.Ref()] {
			done++
			continue
		}
		jobs = append(jobs, j)
	}
	return jobs, done
}

// runProgress counts the chunks a run wrote, with their distinct node and
// edge keys, and reports the progress.
type runProgress struct {
	mu                 sync.Mutex // guards prog and calls to progress
	prog               Progress
	begin              time.Time
	progress           func(Progress)
	nodeKeys, edgeKeys map[string]bool
}

// report adds a written chunk's result, when add is not nil, and calls
// progress, when set.
func (p *runProgress) report(add *ChunkResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add != nil {
		p.prog.ChunksDone++
		for _, n := range add.Graph.Nodes {
			p.nodeKeys[n.Key] = true
		}
		for _, e := range add.Graph.Edges {
			p.edgeKeys[e.Key()] = true
		}
		p.prog.Nodes, p.prog.Edges = len(p.nodeKeys), len(p.edgeKeys)
	}
	p.prog.Elapsed = time.Since(p.begin)
	if p.progress != nil {
		p.progress(p.prog)
	}
}

// jobRun is one RunJobs run: chunks are extracted concurrently but
// written in chunk order, so the merged graph does not depend on which
// chunk finished first: the same inputs always give the same graph. A
// chunk may start only while it is within a window of the next one to
// write, which bounds the results held back.
type jobRun struct {
	ctx    context.Context
	cancel context.CancelFunc
	jobs   []Job
	window int
	sem    chan struct{} // holds a token per running extraction
	ex     Extractor
	sink   Sink
	fsink  FailureSink // sink as a FailureSink, nil when it is none
	tally  *runProgress

	errOnce  sync.Once
	firstErr error

	mu      sync.Mutex // guards results, failed and next
	cond    *sync.Cond
	results []*ChunkResult
	failed  []*ChunkError
	next    int // the job to write next
	// The failed chunks recorded, and the first with its document's
	// name; only the committer writes them.
	nfailed  int
	first    *ChunkError
	firstDoc string
}

// newJobRun prepares the run of jobs, n at a time.
func newJobRun(ctx context.Context, cancel context.CancelFunc, jobs []Job, n int, ex Extractor, sink Sink, tally *runProgress) *jobRun {
	r := &jobRun{ctx: ctx, cancel: cancel, jobs: jobs, window: 4 * n, sem: make(chan struct{}, n), ex: ex, sink: sink, tally: tally,
		results: make([]*ChunkResult, len(jobs)), failed: make([]*ChunkError, len(jobs))}
	r.fsink, _ = sink.(FailureSink)
	r.cond = sync.NewCond(&r.mu)
	if n == 1 {
		// One at a time means one at a time: a job starts once the one
		// before it is written, so a stateful extractor never runs ahead
		// of what is stored (nothing is extracted twice after a resume).
		r.window = 1
	}
	return r
}

// fail stops the run with err, unless it stopped already.
func (r *jobRun) fail(err error) {
	r.errOnce.Do(func() {
		r.firstErr = err
		r.cancel()
	})
}

// wakeOnStop wakes the waiters when the run stops.
func (r *jobRun) wakeOnStop() {
	<-r.ctx.Done()
	r.mu.Lock()
	r.cond.Broadcast()
	r.mu.Unlock()
}

// commit writes the jobs' results in job order as each is ready, until
// all are written or the run stops.
func (r *jobRun) commit() {
	for {
		res, ce, j, ok := r.nextReady()
		if !ok || !r.write(res, ce, j) {
			return
		}
		r.mu.Lock()
		r.next++
		r.cond.Broadcast()
		r.mu.Unlock()
	}
}

// nextReady waits for the result or failure of the next job to write and
// takes it; it reports false when all are written or the run stopped.
func (r *jobRun) nextReady() (*ChunkResult, *ChunkError, Job, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.next < len(r.jobs) && r.results[r.next] == nil && r.failed[r.next] == nil && r.ctx.Err() == nil {
		r.cond.Wait()
	}
	if r.next >= len(r.jobs) || r.ctx.Err() != nil {
		return nil, nil, Job{}, false
	}
	res, ce := r.results[r.next], r.failed[r.next]
	r.results[r.next], r.failed[r.next] = nil, nil
	return res, ce, r.jobs[r.next], true
}

// write stores job j's result through the sink, or records its failure
// ce; it reports false when the sink fails, which stops the run.
func (r *jobRun) write(res *ChunkResult, ce *ChunkError, j Job) bool {
	if ce != nil {
		if err := r.fsink.ChunkFailed(r.ctx, *ce); err != nil {
			r.fail(fmt.Errorf("record failed chunk %d of %q: %w", j.Chunk.Index, j.Doc.Name, err))
			return false
		}
		r.nfailed++
		if r.first == nil {
			r.first, r.firstDoc = ce, j.Doc.Name
		}
		r.tally.report(nil)
		return true
	}
	if err := r.sink.WriteChunk(r.ctx, *res); err != nil {
		r.fail(fmt.Errorf("write chunk %d of %q: %w", j.Chunk.Index, j.Doc.Name, err))
		return false
	}
	r.tally.report(res)
	return true
}

// start extracts the jobs in order, each in its own goroutine once the
// window and the concurrency allow, until all are started or the run
// stops, and waits for the extractions to end.
func (r *jobRun) start() {
	var wg sync.WaitGroup
	for i, j := range r.jobs {
		if !r.admit(i) {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.extract(i, j)
		}()
	}
	wg.Wait()
}

// admit waits until job i is within the window of the next job to write
// and a slot is free, and takes the slot; it reports false when the run
// stops first.
func (r *jobRun) admit(i int) bool {
	r.mu.Lock()
	for i >= r.next+r.window && r.ctx.Err() == nil {
		r.cond.Wait()
	}
	r.mu.Unlock()
	select {
	case r.sem <- struct{}{}:
	case <-r.ctx.Done():
		return false
	}
	if r.ctx.Err() != nil {
		<-r.sem
		return false
	}
	return true
}

// extract runs job i, frees its slot and hands its result, or its
// failure when the sink records failures, to the committer. Any other
// error stops the run.
func (r *jobRun) extract(i int, j Job) {
	res, err := ExtractChunk(r.ctx, r.ex, *j.Doc, j.Chunk)
	<-r.sem
	if err != nil {
		if r.fsink == nil || r.ctx.Err() != nil || (KindOf(err) != KindUnavailable && KindOf(err) != KindInvalid) {
			if r.ctx.Err() == nil || !(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
				err = fmt.Errorf("extract chunk %d of %q: %w", j.Chunk.Index, j.Doc.Name, err)
			}
			r.fail(err)
			return
		}
		// Recorded with its document and chunk: the error itself need
		// not name them.
		ce := ChunkErrorOf(j.Chunk.Ref(), err)
		r.mu.Lock()
		r.failed[i] = &ce
		r.cond.Broadcast()
		r.mu.Unlock()
		return
	}
	r.mu.Lock()
	r.results[i] = &res
	r.cond.Broadcast()
	r.mu.Unlock()
}

// err is the run's error once it ended: the first that stopped it, else
// an unavailable error saying how many chunks failed, if any did.
func (r *jobRun) err() error {
	if r.firstErr == nil && r.nfailed > 0 {
		return Errorf(KindUnavailable, "%d of %d chunks failed (chunk %d of %q: %s: %s); resume or retry to ask them again",
			r.nfailed, len(r.jobs), r.first.Index, r.firstDoc, r.first.Status, r.first.Message)
	}
	return r.firstErr
}

// ExtractChunk runs the extractor on one chunk, turning a panic into an
// error and stamping the chunk reference and elapsed time. Its error is
// the extractor's, not prefixed with the chunk: RunJobs names the chunk
// when the error stops a run, and a failed chunk is recorded with its
// reference (ChunkError).
func ExtractChunk(ctx context.Context, ex Extractor, doc Document, c Chunk) (res ChunkResult, err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			err = Errorf(KindInternal, "panic: %v", p)
		}
	}()
	res, err = ex.Extract(ctx, doc, c)
	if err != nil {
		return res, err
	}
	res.Chunk = c.Ref()
	if res.Elapsed == 0 {
		res.Elapsed = time.Since(start)
	}
	return res, nil
}
