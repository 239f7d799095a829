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
	type job struct {
		doc   *Document
		chunk Chunk
	}
	finished, err := sink.Finished(parent)
	if err != nil {
		return fmt.Errorf("read finished chunks: %w", err)
	}
	var jobs []job
	total, done := len(all), 0
	for _, j := range all {
		if finished[j.Chunk.Ref()] {
			done++
			continue
		}
		jobs = append(jobs, job{j.Doc, j.Chunk})
	}

	nodeKeys, edgeKeys := map[string]bool{}, map[string]bool{}
	var mu sync.Mutex // guards prog and calls to progress
	prog := Progress{ChunksDone: done, ChunksTotal: total}
	report := func(add *ChunkResult) {
		mu.Lock()
		defer mu.Unlock()
		if add != nil {
			prog.ChunksDone++
			for _, n := range add.Graph.Nodes {
				nodeKeys[n.Key] = true
			}
			for _, e := range add.Graph.Edges {
				edgeKeys[e.Key()] = true
			}
			prog.Nodes, prog.Edges = len(nodeKeys), len(edgeKeys)
		}
		prog.Elapsed = time.Since(begin)
		if progress != nil {
			progress(prog)
		}
	}
	report(nil)

	n := concurrency
	if n <= 0 {
		n = 1
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var (
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) {
		errOnce.Do(func() {
			firstErr = err
			cancel()
		})
	}

	// Chunks are extracted concurrently but written in chunk order, so the
	// merged graph does not depend on which chunk finished first: the same
	// inputs always give the same graph. A chunk may start only while it is
	// within a window of the next one to write, which bounds the results
	// held back.
	fsink, _ := sink.(FailureSink)
	var (
		omu      sync.Mutex
		cond     = sync.NewCond(&omu)
		results  = make([]*ChunkResult, len(jobs))
		failed   = make([]*ChunkError, len(jobs))
		nfailed  int
		first    *ChunkError
		firstDoc string
		next     int
	)
	window := 4 * n
	if n == 1 {
		// One at a time means one at a time: a job starts once the one
		// before it is written, so a stateful extractor never runs ahead
		// of what is stored (nothing is extracted twice after a resume).
		window = 1
	}
	go func() { // wake waiters when the run stops
		<-ctx.Done()
		omu.Lock()
		cond.Broadcast()
		omu.Unlock()
	}()
	committed := make(chan struct{})
	go func() {
		defer close(committed)
		for {
			omu.Lock()
			for next < len(jobs) && results[next] == nil && failed[next] == nil && ctx.Err() == nil {
				cond.Wait()
			}
			if next >= len(jobs) || ctx.Err() != nil {
				omu.Unlock()
				return
			}
			res, ce := results[next], failed[next]
			results[next], failed[next] = nil, nil
			j := jobs[next]
			omu.Unlock()
			if ce != nil {
				if err := fsink.ChunkFailed(ctx, *ce); err != nil {
					fail(fmt.Errorf("record failed chunk %d of %q: %w", j.chunk.Index, j.doc.Name, err))
					return
				}
				nfailed++
				if first == nil {
					first, firstDoc = ce, j.doc.Name
				}
				report(nil)
			} else {
				if err := sink.WriteChunk(ctx, *res); err != nil {
					fail(fmt.Errorf("write chunk %d of %q: %w", j.chunk.Index, j.doc.Name, err))
					return
				}
				report(res)
			}
			omu.Lock()
			next++
			cond.Broadcast()
			omu.Unlock()
		}
	}()

	var wg sync.WaitGroup
	sem := make(chan struct{}, n)
loop:
	for i, j := range jobs {
		omu.Lock()
		for i >= next+window && ctx.Err() == nil {
			cond.Wait()
		}
		omu.Unlock()
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		if ctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		go func(i int, j job) {
			defer wg.Done()
			res, err := ExtractChunk(ctx, ex, *j.doc, j.chunk)
			<-sem
			if err != nil {
				if fsink == nil || ctx.Err() != nil || (KindOf(err) != KindUnavailable && KindOf(err) != KindInvalid) {
					if ctx.Err() == nil || !(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
						err = fmt.Errorf("extract chunk %d of %q: %w", j.chunk.Index, j.doc.Name, err)
					}
					fail(err)
					return
				}
				// Recorded with its document and chunk: the error
				// itself need not name them.
				ce := ChunkErrorOf(j.chunk.Ref(), err)
				omu.Lock()
				failed[i] = &ce
				cond.Broadcast()
				omu.Unlock()
				return
			}
			omu.Lock()
			results[i] = &res
			cond.Broadcast()
			omu.Unlock()
		}(i, j)
	}
	wg.Wait()
	<-committed
	if err := parent.Err(); err != nil {
		return err
	}
	if firstErr == nil && nfailed > 0 {
		return Errorf(KindUnavailable, "%d of %d chunks failed (chunk %d of %q: %s: %s); resume or retry to ask them again",
			nfailed, len(jobs), first.Index, firstDoc, first.Status, first.Message)
	}
	return firstErr
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
