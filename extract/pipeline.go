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

// Run splits every document per cfg (ChunkSize, Overlap, Strict), skips the
// chunks sink reports as finished, extracts the others with at most
// cfg.Concurrency at a time (1 when unset) and writes each result through
// sink in chunk order, as soon as it and every chunk before it are ready. Documents need distinct IDs, since chunks are
// identified by (document ID, index).
//
// progress, when not nil, is called (never concurrently) once at the start
// and after every finished chunk; ChunksDone counts skipped chunks too, Nodes
// and Edges sum the chunk results of this run. Run stops at the first error
// of the extractor or the sink, or when ctx is done, and returns that error
// (ctx.Err() for a cancellation); chunks already written stay written.
func Run(parent context.Context, docs []Document, cfg Config, ex Extractor, sink Sink, progress func(Progress)) error {
	if ex == nil || sink == nil {
		return Errorf(KindInvalid, "run needs an extractor and a sink")
	}
	begin := time.Now()
	type job struct {
		doc   int
		chunk Chunk
	}
	finished, err := sink.Finished(parent)
	if err != nil {
		return fmt.Errorf("read finished chunks: %w", err)
	}
	var jobs []job
	total, done := 0, 0
	seenIDs := make(map[int]bool, len(docs))
	for i, d := range docs {
		if seenIDs[d.ID] {
			return Errorf(KindInvalid, "document %q: duplicate document id %d in one run", d.Name, d.ID)
		}
		seenIDs[d.ID] = true
		for _, c := range Split(d, cfg.ChunkSize, cfg.Overlap, cfg.Strict) {
			total++
			if finished[c.Ref()] {
				done++
				continue
			}
			jobs = append(jobs, job{i, c})
		}
	}

	var mu sync.Mutex // guards prog and calls to progress
	prog := Progress{ChunksDone: done, ChunksTotal: total}
	report := func(add *ChunkResult) {
		mu.Lock()
		defer mu.Unlock()
		if add != nil {
			prog.ChunksDone++
			prog.Nodes += len(add.Graph.Nodes)
			prog.Edges += len(add.Graph.Edges)
		}
		prog.Elapsed = time.Since(begin)
		if progress != nil {
			progress(prog)
		}
	}
	report(nil)

	n := cfg.Concurrency
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
	var (
		omu     sync.Mutex
		cond    = sync.NewCond(&omu)
		results = make([]*ChunkResult, len(jobs))
		next    int
	)
	window := 4 * n
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
			for next < len(jobs) && results[next] == nil && ctx.Err() == nil {
				cond.Wait()
			}
			if next >= len(jobs) || ctx.Err() != nil {
				omu.Unlock()
				return
			}
			res := results[next]
			results[next] = nil
			j := jobs[next]
			omu.Unlock()
			if err := sink.WriteChunk(ctx, *res); err != nil {
				fail(fmt.Errorf("write chunk %d of %q: %w", j.chunk.Index, docs[j.doc].Name, err))
				return
			}
			report(res)
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
			res, err := extractOne(ctx, ex, docs[j.doc], j.chunk)
			<-sem
			if err != nil {
				fail(err)
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
	return firstErr
}

// extractOne runs the extractor on one chunk, turning a panic into an error
// and stamping the chunk reference and elapsed time.
func extractOne(ctx context.Context, ex Extractor, doc Document, c Chunk) (res ChunkResult, err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			err = Errorf(KindInternal, "extract chunk %d of %q: panic: %v", c.Index, doc.Name, p)
		}
	}()
	res, err = ex.Extract(ctx, doc, c)
	if err != nil {
		if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return res, err
		}
		return res, fmt.Errorf("extract chunk %d of %q: %w", c.Index, doc.Name, err)
	}
	res.Chunk = c.Ref()
	if res.Elapsed == 0 {
		res.Elapsed = time.Since(start)
	}
	return res, nil
}
