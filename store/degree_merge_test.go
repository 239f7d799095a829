package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// Chunks that name nodes stored before, with new edges at them, raise
// those nodes' degrees in the same write as their merged descriptions:
// the stored degrees equal a count over the whole graph after every
// chunk, on both databases.
func TestSink_DegreesOfNodesNamedAgain(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		v := mustVersion(t, s, "degrees")
		sink := s.Sink(v.ID, 8)
		node := func(k, d string) extract.Node { return extract.Node{Key: k, Name: k, Type: "T", Description: d} }
		edge := func(a, l, b string) extract.Edge { return extract.Edge{Source: a, Label: l, Target: b, Weight: 1} }
		chunks := []extract.Graph{
			{Nodes: []extract.Node{node("a", "one"), node("b", "one")}, Edges: []extract.Edge{edge("a", "x", "b")}},
			{Nodes: []extract.Node{node("a", "two"), node("c", "two")}, Edges: []extract.Edge{edge("a", "y", "c")}},
			{Nodes: []extract.Node{node("a", "three"), node("b", "three")}, Edges: []extract.Edge{edge("b", "z", "a"), edge("a", "x", "b")}},
			{Nodes: []extract.Node{node("c", "four"), node("d", "four")}, Edges: []extract.Edge{edge("c", "w", "d"), edge("d", "w", "a"), edge("a", "self", "a")}},
		}
		for i, g := range chunks {
			if err := sink.WriteChunk(ctx, extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: v.DocumentIDs[0], Index: i}, Graph: g}); err != nil {
				t.Fatal(err)
			}
			whole, err := s.LoadGraph(ctx, v.ID, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := extract.SelectSubgraph(whole, extract.SubgraphQuery{})
			if err != nil {
				t.Fatal(err)
			}
			var got []extract.SubgraphNode
			if _, _, err := s.StreamSubgraph(ctx, v.ID, extract.SubgraphQuery{}, record.SubgraphRows{
				Node: func(n extract.SubgraphNode) error { got = append(got, n); return nil },
				Edge: func(extract.SubgraphEdge) error { return nil },
			}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want.Nodes) {
				t.Fatalf("after chunk %d: stored %+v\ncounted %+v", i, got, want.Nodes)
			}
		}
		// a: x, y, z, w (from d) and its self-loop.
		n, err := s.NodeByKey(ctx, v.ID, "a")
		if err != nil {
			t.Fatal(err)
		}
		if len(n.Description) == 0 {
			t.Fatal("a lost its description")
		}
	})
}
