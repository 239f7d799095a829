package extract

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/internal/testkit"
)

// memSink is an in-memory Sink that merges chunk graphs like the database
// writer does.
type memSink struct {
	mu       sync.Mutex
	finished map[ChunkRef]bool
	writes   map[ChunkRef]int
	graph    Graph
	failOn   int // fail the n-th write (1-based) when > 0
	n        int
}

func newMemSink() *memSink {
	return &memSink{finished: map[ChunkRef]bool{}, writes: map[ChunkRef]int{}}
}

func (s *memSink) Finished(ctx context.Context) (map[ChunkRef]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[ChunkRef]bool, len(s.finished))
	for k, v := range s.finished {
		out[k] = v
	}
	return out, nil
}

func (s *memSink) WriteChunk(ctx context.Context, res ChunkResult) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.failOn > 0 && s.n == s.failOn {
		return Errorf(KindUnavailable, "disk full")
	}
	s.writes[res.Chunk]++
	s.finished[res.Chunk] = true
	MergeGraph(&s.graph, res.Graph, 8)
	return nil
}

// wordExtractor makes one node per capitalised word, with a mention at its
// document offset.
type wordExtractor struct {
	calls   atomic.Int64
	running atomic.Int64
	peak    atomic.Int64
	delay   time.Duration
	failAt  int // chunk index that fails, -1 for none
}

func (w *wordExtractor) Extract(ctx context.Context, doc Document, c Chunk) (ChunkResult, error) {
	w.calls.Add(1)
	n := w.running.Add(1)
	defer w.running.Add(-1)
	for {
		p := w.peak.Load()
		if n <= p || w.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if w.delay > 0 {
		select {
		case <-time.After(w.delay):
		case <-ctx.Done():
			return ChunkResult{}, ctx.Err()
		}
	}
	if c.Index == w.failAt {
		return ChunkResult{}, Errorf(KindInvalid, "cannot read chunk")
	}
	var g Graph
	off := 0
	for _, f := range strings.Fields(c.Text) {
		i := strings.Index(c.Text[off:], f) + off
		off = i + len(f)
		if f[0] >= 'A' && f[0] <= 'Z' {
			g.Nodes = append(g.Nodes, Node{Key: NodeKey(f), Name: f, Type: "Thing",
				Mentions: []Mention{{DocumentID: doc.ID, ChunkIndex: c.Index, Start: c.Start + i, End: c.Start + i + len(f)}}})
		}
	}
	return ChunkResult{Graph: g}, nil
}

func testDocs() []Document {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString("Alice met Bob in Paris. ")
	}
	return []Document{{ID: 1, Name: "a", Content: b.String()}, {ID: 2, Name: "b", Content: b.String()}}
}

func testConfig() Config {
	cfg := DefaultConfig()
	cfg.ChunkSize = 60
	cfg.Overlap = 0
	cfg.Concurrency = 3
	return cfg
}

func TestRun(t *testing.T) {
	t.Run("AllChunksOnceWithProgress", func(t *testing.T) {
		docs, cfg := testDocs(), testConfig()
		sink, ex := newMemSink(), &wordExtractor{failAt: -1, delay: time.Millisecond}
		var last Progress
		calls := 0
		err := run(context.Background(), docs, cfg, ex, sink, func(p Progress) { calls++; last = p })
		if err != nil {
			t.Fatal(err)
		}
		total := len(Split(docs[0], cfg.ChunkSize, 0, false)) * 2
		if last.ChunksDone != total || last.ChunksTotal != total || calls != total+1 {
			t.Errorf("progress = %+v after %d calls, want %d chunks", last, calls, total)
		}
		if last.Nodes == 0 || last.Elapsed <= 0 {
			t.Errorf("progress lacks counts: %+v", last)
		}
		for ref, n := range sink.writes {
			if n != 1 {
				t.Errorf("chunk %v written %d times", ref, n)
			}
		}
		if p := ex.peak.Load(); p > int64(cfg.Concurrency) {
			t.Errorf("peak concurrency %d > %d", p, cfg.Concurrency)
		}
		if len(sink.graph.Nodes) != 3 {
			t.Errorf("nodes = %d, want 3 (alice, bob, paris)", len(sink.graph.Nodes))
		}
	})
	t.Run("ResumeSkipsFinished", func(t *testing.T) {
		docs, cfg := testDocs(), testConfig()
		sink := newMemSink()
		first := &wordExtractor{failAt: 5}
		cfg.Concurrency = 1
		if err := run(context.Background(), docs, cfg, first, sink, nil); err == nil {
			t.Fatal("want the failing chunk's error")
		}
		doneBefore := len(sink.finished)
		mentionsBefore := 0
		for _, n := range sink.graph.Nodes {
			mentionsBefore += len(n.Mentions)
		}
		second := &wordExtractor{failAt: -1}
		var last Progress
		if err := run(context.Background(), docs, cfg, second, sink, func(p Progress) { last = p }); err != nil {
			t.Fatal(err)
		}
		total := last.ChunksTotal
		if int(second.calls.Load()) != total-doneBefore {
			t.Errorf("second run extracted %d chunks, want %d", second.calls.Load(), total-doneBefore)
		}
		for ref, n := range sink.writes {
			if n != 1 {
				t.Errorf("chunk %v written %d times", ref, n)
			}
		}
		// Every capitalised word occurrence has exactly one mention.
		want := 0
		for _, d := range docs {
			want += strings.Count(d.Content, "Alice") * 3
		}
		got := 0
		for _, n := range sink.graph.Nodes {
			got += len(n.Mentions)
		}
		if got != want {
			t.Errorf("mentions = %d, want %d", got, want)
		}
	})
	t.Run("ErrorPropagates", func(t *testing.T) {
		ex := &wordExtractor{failAt: 2}
		err := run(context.Background(), testDocs(), testConfig(), ex, newMemSink(), nil)
		if err == nil || KindOf(err) != KindInvalid || !strings.Contains(err.Error(), "chunk 2") {
			t.Fatalf("err = %v, want the invalid chunk error", err)
		}
	})
	t.Run("SinkErrorPropagates", func(t *testing.T) {
		sink := newMemSink()
		sink.failOn = 3
		err := run(context.Background(), testDocs(), testConfig(), &wordExtractor{failAt: -1}, sink, nil)
		if KindOf(err) != KindUnavailable {
			t.Fatalf("err = %v, want unavailable", err)
		}
	})
	t.Run("CancelStopsPromptly", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		ex := &wordExtractor{failAt: -1, delay: 50 * time.Millisecond}
		sink := newMemSink()
		done := make(chan error, 1)
		go func() { done <- run(ctx, testDocs(), testConfig(), ex, sink, nil) }()
		testkit.Eventually(t, 5*time.Second, func() error {
			if ex.running.Load() == 0 {
				return errors.New("no chunk in flight")
			}
			return nil
		})
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Run did not return after cancel")
		}
		if c := ex.calls.Load(); c > 6 {
			t.Errorf("%d chunks started after cancel, want at most the first wave", c)
		}
	})
	t.Run("DuplicateDocumentID", func(t *testing.T) {
		docs := testDocs()
		docs[1].ID = docs[0].ID
		err := run(context.Background(), docs, testConfig(), &wordExtractor{failAt: -1}, newMemSink(), nil)
		if KindOf(err) != KindInvalid {
			t.Fatalf("err = %v, want invalid", err)
		}
	})
}

// run is RunJobs over the jobs Plan makes of docs, cfg.Concurrency chunks
// at a time.
func run(ctx context.Context, docs []Document, cfg Config, ex Extractor, sink Sink, progress func(Progress)) error {
	jobs, err := Plan(docs, cfg)
	if err != nil {
		return err
	}
	return RunJobs(ctx, jobs, cfg.Concurrency, ex, sink, progress)
}
