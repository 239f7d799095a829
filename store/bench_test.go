package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// synthGraph builds n nodes and n edges (a ring with chords).
func synthGraph(n int) extract.Graph {
	g := extract.Graph{Nodes: make([]extract.Node, n), Edges: make([]extract.Edge, n)}
	for i := 0; i < n; i++ {
		g.Nodes[i] = extract.Node{Key: fmt.Sprintf("n%d", i), Name: fmt.Sprintf("Node %d", i), Type: "Person",
			Description: "A synthetic node used to measure bulk writes."}
		g.Edges[i] = extract.Edge{Source: fmt.Sprintf("n%d", i), Target: fmt.Sprintf("n%d", (i*7+1)%n), Label: "knows", Weight: 1}
	}
	return g
}

// BenchmarkWriteGraph writes 25,000 nodes + 25,000 edges (50,000 elements)
// in batched multi-row upserts, and the same graph row at a time, on each
// database. The elements/s metric is what to compare.
func BenchmarkWriteGraph(b *testing.B) {
	const n = 25000
	g := synthGraph(n)
	for _, be := range backends(b) {
		b.Run(be.name+"/batched", func(b *testing.B) {
			s := be.open(b)
			for i := 0; i < b.N; i++ {
				v := mustVersion(b, s, fmt.Sprintf("bench-%d", i))
				if err := s.WriteGraph(context.Background(), v.ID, g); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(2*n*b.N)/b.Elapsed().Seconds(), "elements/s")
		})
		b.Run(be.name+"/row-at-a-time", func(b *testing.B) {
			s := be.open(b)
			ctx := context.Background()
			for i := 0; i < b.N; i++ {
				v := mustVersion(b, s, fmt.Sprintf("rows-%d", i))
				for _, nd := range g.Nodes {
					if err := s.Client.Node.Create().SetVersionID(v.ID).SetKey(nd.Key).SetName(nd.Name).
						SetType(nd.Type).SetDescription(nd.Description).Exec(ctx); err != nil {
						b.Fatal(err)
					}
				}
				for _, e := range g.Edges {
					if err := s.Client.Edge.Create().SetVersionID(v.ID).SetSource(e.Source).SetTarget(e.Target).
						SetLabel(e.Label).SetWeight(e.Weight).Exec(ctx); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(2*n*b.N)/b.Elapsed().Seconds(), "elements/s")
		})
	}
}

func mustVersion(tb testing.TB, s *store.Store, name string) store.Version {
	tb.Helper()
	ctx := context.Background()
	d, err := extract.ReadDocument(name+".txt", []byte("bench "+name), extract.DefaultMaxBytes)
	if err != nil {
		tb.Fatal(err)
	}
	d, _, err = s.AddDocument(ctx, d)
	if err != nil {
		tb.Fatal(err)
	}
	v, err := s.NewVersion(ctx, name, extract.DefaultConfig(), []int{d.ID}, "")
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
