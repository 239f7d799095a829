package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// Long edge descriptions are stored once per version and read back in
// full by every way edges are read: the whole graph, a node's edges, one
// edge, a merge of a second chunk into an edge, a rewrite of the graph.
func TestEdgeTexts_ReadBackEverywhere(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		v := mustVersion(t, s, "edgetexts")
		doc := v.DocumentIDs[0]
		sentence := "Ebenezer Scrooge, a covetous old sinner, kept the counting-house with Jacob Marley for many years."
		other := "Bob Cratchit warmed his hands at the candle in the tank, a dismal little cell, 北京 and all."
		long3 := strings.Repeat("A description long enough to be stored once. ", 3)
		nodes := []extract.Node{{Key: "scrooge", Name: "Scrooge"}, {Key: "marley", Name: "Marley"}, {Key: "bob", Name: "Bob"}, {Key: "house", Name: "House"}}
		edge := func(src, lbl, tgt, desc string) extract.Edge {
			return extract.Edge{Source: src, Label: lbl, Target: tgt, Description: desc, Weight: 1}
		}
		first := extract.Graph{Nodes: nodes, Edges: []extract.Edge{
			edge("scrooge", "partner", "marley", sentence),
			edge("scrooge", "keeps", "house", sentence),
			edge("marley", "keeps", "house", sentence),
			edge("bob", "works_at", "house", other),
			edge("bob", "short", "scrooge", "short text"),
		}}
		sink := s.Sink(v.ID, 8)
		if err := sink.WriteChunk(ctx, extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: doc, Index: 0}, Graph: first}); err != nil {
			t.Fatal(err)
		}
		second := extract.Graph{Nodes: nodes, Edges: []extract.Edge{edge("scrooge", "partner", "marley", long3)}}
		if err := sink.WriteChunk(ctx, extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: doc, Index: 1}, Graph: second}); err != nil {
			t.Fatal(err)
		}
		g, err := s.LoadGraph(ctx, v.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, e := range g.Edges {
			want[e.Key()] = e.Description
		}
		if d := want[first.Edges[1].Key()]; d != sentence {
			t.Fatalf("keeps: %q, want the sentence", d)
		}
		if d := want[first.Edges[3].Key()]; d != other {
			t.Fatalf("works_at: %q", d)
		}
		if d := want[first.Edges[4].Key()]; d != "short text" {
			t.Fatalf("short: %q", d)
		}
		// The merged edge holds both texts (how depends on the merge).
		if d := want[first.Edges[0].Key()]; !strings.Contains(d, "Ebenezer") || !strings.Contains(d, "stored once") {
			t.Fatalf("merged edge: %q, want both descriptions", d)
		}
		for _, n := range nodes {
			es, err := s.NodeEdges(ctx, v.ID, n.Key)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if e.Description != want[e.Key()] {
					t.Fatalf("NodeEdges(%s): %s: %q, want %q", n.Key, e.Key(), e.Description, want[e.Key()])
				}
			}
		}
		for _, e := range g.Edges {
			one, err := s.EdgeByKey(ctx, v.ID, e.Source, e.Label, e.Target)
			if err != nil {
				t.Fatal(err)
			}
			if one.Description != want[e.Key()] {
				t.Fatalf("EdgeByKey %s: %q, want %q", e.Key(), one.Description, want[e.Key()])
			}
		}
		// A rewrite of the graph (curation) with one description changed.
		g.Edges[1].Description = fmt.Sprintf("%s Edited.", sentence)
		want[g.Edges[1].Key()] = g.Edges[1].Description
		if err := s.ReplaceGraph(ctx, v.ID, g); err != nil {
			t.Fatal(err)
		}
		after, err := s.LoadGraph(ctx, v.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(after.Edges) != len(want) {
			t.Fatalf("%d edges after the rewrite, want %d", len(after.Edges), len(want))
		}
		for _, e := range after.Edges {
			if e.Description != want[e.Key()] {
				t.Fatalf("after the rewrite %s: %q, want %q", e.Key(), e.Description, want[e.Key()])
			}
		}
	})
}
