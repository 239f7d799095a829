package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// queryTestGraph builds n nodes with random keys, named by the format
// name and typed in turn from types, and m edges between ends chosen by
// end, labelled in turn from labels; every 50th edge ends at a node that
// does not exist (it counts for no degree) and every 97th is a self-loop.
func queryTestGraph(r *rand.Rand, n, m int, name string, types, labels []string, end func(*extract.Graph) string) extract.Graph {
	g := extract.Graph{}
	for i := 0; i < n; i++ {
		g.Nodes = append(g.Nodes, extract.Node{Key: fmt.Sprintf("k%03d", r.IntN(100000)*1000+i), Name: fmt.Sprintf(name, i),
			Type: types[i%len(types)]})
	}
	for i := 0; i < m; i++ {
		src, tgt := end(&g), end(&g)
		if i%50 == 0 {
			tgt = "missing-node"
		}
		if i%97 == 0 {
			tgt = src
		}
		g.Edges = append(g.Edges, extract.Edge{Source: src, Target: tgt, Label: labels[i%len(labels)], Weight: float64(i)})
	}
	return g
}

// focusQueries answers every focus query from the neighbourhood the store
// reads and from the whole graph, on both databases: the answers must be
// the same (SelectSubgraph's semantics, degrees included).
func TestLoadNeighbourhood_MatchesWholeGraph(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(3, 4))
		const n = 300
		g := queryTestGraph(r, n, 2*n, "Name %d", []string{"Person", "Place", "person", ""}, []string{"knows", "met"},
			func(g *extract.Graph) string { return g.Nodes[r.IntN(n)].Key })
		v := mustVersion(t, s, "neighbourhood")
		if err := s.WriteGraph(ctx, v.ID, g); err != nil {
			t.Fatal(err)
		}
		// The whole graph in insertion order, as the neighbourhood comes
		// (LoadOutline's order is the database's).
		whole, err := s.LoadGraph(ctx, v.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		queries := []extract.SubgraphQuery{}
		for i := 0; i < 12; i++ {
			f := g.Nodes[r.IntN(n)].Key
			queries = append(queries,
				extract.SubgraphQuery{Focus: f, Depth: 1},
				extract.SubgraphQuery{Focus: f, Depth: 0},
				extract.SubgraphQuery{Focus: f, Depth: 2, Limit: 15},
				extract.SubgraphQuery{Focus: f, Depth: 3, MinDegree: 4, Types: []string{"PERSON"}},
				extract.SubgraphQuery{Focus: f, Depth: 2, Q: "name 1"},
				extract.SubgraphQuery{Focus: f, Depth: 9})
		}
		queries = append(queries, extract.SubgraphQuery{Focus: "no-such-node", Depth: 1})
		for _, q := range queries {
			want, wantErr := extract.SelectSubgraph(whole, q)
			part, err := s.LoadNeighbourhood(ctx, v.ID, q.Focus, min(q.Depth, extract.MaxSubgraphDepth))
			if err != nil {
				t.Fatal(err)
			}
			if len(part.Nodes) >= n && q.Depth < 3 {
				t.Errorf("%+v: the neighbourhood read every node", q)
			}
			got, gotErr := extract.SelectSubgraph(part, q)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("%+v: error %v, want %v", q, gotErr, wantErr)
			}
			if wantErr != nil {
				continue
			}
			got.TotalNodes, got.TotalEdges, got.Types, err = s.GraphTotals(ctx, v.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v:\n got %+v\nwant %+v", q, got, want)
			}
		}
	})
}

// TestStreamSubgraph_MatchesWholeGraph answers every query without focus
// from the store's indexes and from the whole graph, on both databases:
// the answers must be the same, whether the degrees were counted with a
// graph written into an empty version or recounted after later writes
// (nodes arriving after the edges that name them, as a run writes them).
func TestStreamSubgraph_MatchesWholeGraph(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(5, 6))
		const n = 400
		// Hubs: a few nodes take most edges.
		g := queryTestGraph(r, n, 3*n, "Name %d É", []string{"Person", "Place", "person", "", "Événement"}, []string{"knows", "met", "near"},
			func(g *extract.Graph) string {
				if r.IntN(3) == 0 {
					return g.Nodes[r.IntN(8)].Key
				}
				return g.Nodes[r.IntN(n)].Key
			})
		whole := mustVersion(t, s, "stream-whole")
		if err := s.WriteGraph(ctx, whole.ID, g); err != nil {
			t.Fatal(err)
		}
		// The same graph in three writes: half the nodes with every edge,
		// then the other half, then one edge again.
		parts := mustVersion(t, s, "stream-parts")
		for _, part := range []extract.Graph{{Nodes: g.Nodes[:n/2], Edges: g.Edges}, {Nodes: g.Nodes[n/2:]}, {Edges: g.Edges[:1]}} {
			if err := s.WriteGraph(ctx, parts.ID, part); err != nil {
				t.Fatal(err)
			}
		}
		// Through a run's sink: the first chunk, into the empty version,
		// has its degrees counted in memory; the later ones (a node twice,
		// an edge again) recount them.
		sunk := mustVersion(t, s, "stream-sink")
		sink := s.Sink(sunk.ID, 0)
		twice := append(append([]extract.Node{}, g.Nodes[n/2:]...), g.Nodes[n/2])
		for i, part := range []extract.Graph{{Nodes: g.Nodes[:n/2], Edges: g.Edges}, {Nodes: twice}, {Edges: g.Edges[:1]}} {
			if err := sink.WriteChunk(ctx, extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: sunk.DocumentIDs[0], Index: i}, Graph: part}); err != nil {
				t.Fatal(err)
			}
		}
		queries := []extract.SubgraphQuery{{}}
		for _, limit := range []int{0, 1, 7, 40, 399, 400, 1000} {
			for _, types := range [][]string{nil, {"PERSON"}, {"événement", "place"}} {
				for _, minDeg := range []int{0, 1, 3, 30} {
					for _, q := range []string{"", "name 1", "é", "k0"} {
						queries = append(queries, extract.SubgraphQuery{Limit: limit, Types: types, MinDegree: minDeg, Q: q})
					}
				}
			}
		}
		for _, v := range []int{whole.ID, parts.ID, sunk.ID} {
			ref, err := s.LoadGraph(ctx, v, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range queries {
				want, err := extract.SelectSubgraph(ref, q)
				if err != nil {
					t.Fatal(err)
				}
				got := extract.Subgraph{Nodes: []extract.SubgraphNode{}, Edges: []extract.SubgraphEdge{}}
				got.Matched, got.Truncated, err = s.StreamSubgraph(ctx, v, q, record.SubgraphRows{
					Node: func(n extract.SubgraphNode) error { got.Nodes = append(got.Nodes, n); return nil },
					Edge: func(e extract.SubgraphEdge) error { got.Edges = append(got.Edges, e); return nil },
				})
				if err != nil {
					t.Fatal(err)
				}
				got.TotalNodes, got.TotalEdges, got.Types, err = s.GraphTotals(ctx, v)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("version %d %+v:\n got %d nodes %d edges matched %d %v\nwant %d nodes %d edges matched %d %v\n got %+v\nwant %+v",
						v, q, len(got.Nodes), len(got.Edges), got.Matched, got.Truncated,
						len(want.Nodes), len(want.Edges), want.Matched, want.Truncated, got.Nodes, want.Nodes)
				}
			}
		}
	})
}

// TestMigrate_BackfillsDegrees: a version written before nodes kept their
// degree (all 0) gets them counted when the store migrates.
func TestMigrate_BackfillsDegrees(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "A"}, {Key: "b", Name: "B"}, {Key: "c", Name: "C"}},
			Edges: []extract.Edge{{Source: "a", Target: "b", Label: "x"}, {Source: "a", Target: "c", Label: "x"}, {Source: "a", Target: "gone", Label: "x"}}}
		v := mustVersion(t, s, "backfill")
		if err := s.WriteGraph(ctx, v.ID, g); err != nil {
			t.Fatal(err)
		}
		if _, err := store.EntClient(s).Node.Update().SetDegree(0).Save(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		var got []extract.SubgraphNode
		if _, _, err := s.StreamSubgraph(ctx, v.ID, extract.SubgraphQuery{}, record.SubgraphRows{
			Node: func(n extract.SubgraphNode) error { got = append(got, n); return nil },
			Edge: func(extract.SubgraphEdge) error { return nil },
		}); err != nil {
			t.Fatal(err)
		}
		want := []extract.SubgraphNode{{ID: "a", Name: "A", Degree: 2}, {ID: "b", Name: "B", Degree: 1}, {ID: "c", Name: "C", Degree: 1}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	})
}
