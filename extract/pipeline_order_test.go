package extract

import (
	"context"
	"sync"
	"testing"
)

// lastFirst makes each chunk wait until the next one is extracted, except
// the last of every run of n: jobs start in chunk order, n at a time, so
// within each run of n the chunks finish in reverse order.
type lastFirst struct {
	n        int
	done     []chan struct{}
	mu       sync.Mutex
	finished []int // chunk indexes in the order they finished
}

func newLastFirst(n, chunks int) *lastFirst {
	s := &lastFirst{n: n, done: make([]chan struct{}, chunks)}
	for i := range s.done {
		s.done[i] = make(chan struct{})
	}
	return s
}

func (s *lastFirst) Extract(ctx context.Context, doc Document, c Chunk) (ChunkResult, error) {
	if c.Index%s.n != s.n-1 && c.Index+1 < len(s.done) {
		select {
		case <-s.done[c.Index+1]:
		case <-ctx.Done():
			return ChunkResult{}, ctx.Err()
		}
	}
	s.mu.Lock()
	s.finished = append(s.finished, c.Index)
	s.mu.Unlock()
	close(s.done[c.Index])
	return ChunkResult{Graph: Graph{Nodes: []Node{{Key: "x", Name: "X", Type: []string{"A", "B"}[c.Index%2], Description: c.Text}}}}, nil
}

type orderSink struct {
	mu    sync.Mutex
	order []ChunkRef
	graph Graph
}

func (o *orderSink) Finished(context.Context) (map[ChunkRef]bool, error) { return nil, nil }

func (o *orderSink) WriteChunk(_ context.Context, res ChunkResult) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.order = append(o.order, res.Chunk)
	MergeGraph(&o.graph, res.Graph, 1000)
	return nil
}

// Results are written in chunk order whatever order they finish in, so the
// merged graph is the same on every run.
func TestRun_WritesInChunkOrder(t *testing.T) {
	doc := testDocs()[0]
	cfg := testConfig()
	cfg.Concurrency = 6
	chunks := Split(doc, cfg.ChunkSize, cfg.Overlap, cfg.Strict)
	var first Graph
	for round := 0; round < 3; round++ {
		sink := &orderSink{}
		ex := newLastFirst(cfg.Concurrency, len(chunks))
		if err := run(context.Background(), []Document{doc}, cfg, ex, sink, nil); err != nil {
			t.Fatal(err)
		}
		if len(chunks) < 2 || ex.finished[0] == 0 {
			t.Fatalf("chunks finished in order %v: the test needs them out of order", ex.finished)
		}
		if len(sink.order) != len(chunks) {
			t.Fatalf("%d writes for %d chunks", len(sink.order), len(chunks))
		}
		for i, ref := range sink.order {
			if ref.Index != i {
				t.Fatalf("write %d was chunk %d", i, ref.Index)
			}
		}
		if round == 0 {
			first = sink.graph
			continue
		}
		if sink.graph.Nodes[0].Description != first.Nodes[0].Description || sink.graph.Nodes[0].Type != first.Nodes[0].Type {
			t.Fatal("the same inputs merged into a different graph")
		}
	}
}

// seqExtractor records, for each chunk it extracts, how many chunks the
// sink had written by then.
type seqExtractor struct {
	sink *memSink
	seen []int // written count at each call, in call order
	refs []ChunkRef
}

func (s *seqExtractor) Extract(_ context.Context, doc Document, c Chunk) (ChunkResult, error) {
	s.sink.mu.Lock()
	s.seen = append(s.seen, s.sink.n)
	s.sink.mu.Unlock()
	s.refs = append(s.refs, c.Ref())
	return ChunkResult{Graph: Graph{Nodes: []Node{{Key: "alice", Name: "Alice"}, {Key: NodeKey(doc.Name), Name: doc.Name}}}}, nil
}

// With concurrency 1 every job is extracted in order and only after the one
// before it is written; Progress counts distinct keys.
func TestRunJobs_OneAtATime(t *testing.T) {
	docs := testDocs()
	jobs, err := Plan(docs, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	sink := newMemSink()
	ex := &seqExtractor{sink: sink}
	var last Progress
	if err := RunJobs(context.Background(), jobs, 1, ex, sink, func(p Progress) { last = p }); err != nil {
		t.Fatal(err)
	}
	for i, n := range ex.seen {
		if n != i {
			t.Fatalf("call %d saw %d chunks written, want %d", i, n, i)
		}
		if ex.refs[i] != jobs[i].Chunk.Ref() {
			t.Fatalf("call %d extracted %v, want %v", i, ex.refs[i], jobs[i].Chunk.Ref())
		}
	}
	if len(ex.seen) != len(jobs) || last.ChunksDone != len(jobs) {
		t.Fatalf("%d calls, %d done for %d jobs", len(ex.seen), last.ChunksDone, len(jobs))
	}
	// Every chunk names Alice and its document: three distinct keys.
	if last.Nodes != 3 {
		t.Fatalf("progress counts %d nodes, want 3 distinct keys", last.Nodes)
	}
}

func TestPlan_DuplicateDocument(t *testing.T) {
	d := testDocs()[0]
	if _, err := Plan([]Document{d, d}, testConfig()); KindOf(err) != KindInvalid {
		t.Fatalf("duplicate document ids: %v, want invalid", err)
	}
}
