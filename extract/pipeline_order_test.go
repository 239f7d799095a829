package extract

import (
	"context"
	"sync"
	"testing"
	"time"
)

// slowFirst takes longer on earlier chunks, so they finish last.
type slowFirst struct{ n int }

func (s slowFirst) Extract(ctx context.Context, doc Document, c Chunk) (ChunkResult, error) {
	time.Sleep(time.Duration(s.n-c.Index) * 2 * time.Millisecond)
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
	for run := 0; run < 3; run++ {
		sink := &orderSink{}
		if err := Run(context.Background(), []Document{doc}, cfg, slowFirst{n: len(chunks)}, sink, nil); err != nil {
			t.Fatal(err)
		}
		if len(sink.order) != len(chunks) {
			t.Fatalf("%d writes for %d chunks", len(sink.order), len(chunks))
		}
		for i, ref := range sink.order {
			if ref.Index != i {
				t.Fatalf("write %d was chunk %d", i, ref.Index)
			}
		}
		if run == 0 {
			first = sink.graph
			continue
		}
		if sink.graph.Nodes[0].Description != first.Nodes[0].Description || sink.graph.Nodes[0].Type != first.Nodes[0].Type {
			t.Fatal("the same inputs merged into a different graph")
		}
	}
}
