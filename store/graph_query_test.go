package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// focusQueries answers every focus query from the neighbourhood the store
// reads and from the whole graph, on both databases: the answers must be
// the same (SelectSubgraph's semantics, degrees included).
func TestLoadNeighbourhood_MatchesWholeGraph(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(3, 4))
		const n = 300
		g := extract.Graph{}
		for i := 0; i < n; i++ {
			g.Nodes = append(g.Nodes, extract.Node{Key: fmt.Sprintf("k%03d", r.IntN(100000)*1000+i), Name: fmt.Sprintf("Name %d", i),
				Type: []string{"Person", "Place", "person", ""}[i%4]})
		}
		for i := 0; i < 2*n; i++ {
			src, tgt := g.Nodes[r.IntN(n)].Key, g.Nodes[r.IntN(n)].Key
			if i%50 == 0 {
				tgt = "missing-node" // an endpoint that names no node counts for no degree
			}
			if i%97 == 0 {
				tgt = src // a self-loop
			}
			g.Edges = append(g.Edges, extract.Edge{Source: src, Target: tgt, Label: []string{"knows", "met"}[i%2], Weight: float64(i)})
		}
		v := mustVersion(t, s, "neighbourhood")
		if err := s.WriteGraph(ctx, v.ID, g); err != nil {
			t.Fatal(err)
		}
		whole, err := s.LoadOutline(ctx, v.ID)
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
