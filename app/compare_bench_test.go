package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
	"github.com/kgstudio/kgstudio/store"
)

// randomGraph builds n nodes with random keys and m edges between them;
// seed fixes the graph. Every twentieth node of the second graph (seed+1
// changes) gets another description and every twentieth edge another label,
// so a comparison of the two finds differences throughout.
func randomGraph(n, m int, seed uint64, variant bool) extract.Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	g := extract.Graph{Nodes: make([]extract.Node, n), Edges: make([]extract.Edge, m)}
	for i := range g.Nodes {
		key := fmt.Sprintf("%016x", r.Uint64())
		desc := "A synthetic node of a large comparison."
		if variant && i%20 == 0 {
			desc = "Another description of this node."
		}
		g.Nodes[i] = extract.Node{Key: key, Name: "Entity " + key, Type: []string{"Person", "Place", "Org"}[i%3], Description: desc}
	}
	for i := range g.Edges {
		label := "knows"
		if variant && i%20 == 0 {
			label = "met"
		}
		g.Edges[i] = extract.Edge{Source: g.Nodes[r.IntN(n)].Key, Target: g.Nodes[r.IntN(n)].Key, Label: label, Weight: 1}
	}
	return g
}

// benchStore opens a store for a benchmark: SQLite in a temporary
// directory, or with "postgres" a fresh database on the test server.
func benchStore(b *testing.B, backend string) *store.Store {
	b.Helper()
	opts := store.Options{DataDir: b.TempDir()}
	if backend == "postgres" {
		opts = testPostgres(b)
	}
	st, err := store.Open(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// finishedVersion writes g into a new finished version.
func finishedVersion(b testing.TB, st *store.Store, name string, g extract.Graph) record.Version {
	b.Helper()
	ctx := context.Background()
	d, err := extract.ReadDocument(name+".txt", []byte("bench "+name), extract.DefaultMaxBytes)
	if err != nil {
		b.Fatal(err)
	}
	if d, _, err = st.AddDocument(ctx, d); err != nil {
		b.Fatal(err)
	}
	v, err := st.NewVersion(ctx, name, extract.DefaultConfig(), []int{d.ID}, "")
	if err != nil {
		b.Fatal(err)
	}
	if err := st.StartVersion(ctx, v.ID, 0); err != nil {
		b.Fatal(err)
	}
	if err := st.WriteGraph(ctx, v.ID, g); err != nil {
		b.Fatal(err)
	}
	if err := st.FinishVersion(ctx, v.ID, record.StatusDone, time.Second, ""); err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkCompare compares two stored versions of n nodes and 3n edges
// (random keys, built through the store's bulk write) as the compare page
// and CLI do: "cold" loads both graphs and diffs them every time (and
// detects their communities, which none of them has stored), "cached"
// asks again for a pair already compared. "diff" is the in-memory diff
// alone, for the ratio. peak-MB is the most heap in use during one cold
// compare (sampled), alloc-MB/op what it allocates.
func BenchmarkCompare(b *testing.B) {
	bes := []string{"sqlite"}
	if os.Getenv("KGSTUDIO_TEST_POSTGRES_URL") != "" {
		bes = append(bes, "postgres")
	}
	for _, n := range []int{10_000, 100_000} {
		ga, gb := randomGraph(n, 3*n, 1, false), randomGraph(n, 3*n, 1, true)
		b.Run(fmt.Sprintf("%dk/diff", n/1000), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				diff.Compare(ga, gb, diff.Options{})
			}
		})
		for _, be := range bes {
			st := benchStore(b, be)
			va, vb := finishedVersion(b, st, "a", ga), finishedVersion(b, st, "b", gb)
			ap := newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Providers{Embedder: extract.EmbedderOffline})
			ctx := context.Background()
			b.Run(fmt.Sprintf("%dk/%s/cold", n/1000, be), func(b *testing.B) {
				var peak uint64
				for i := 0; i < b.N; i++ {
					runtime.GC()
					stop := testkit.SampleHeap(&peak)
					c, err := ap.compareUncached(ctx, va.ID, vb.ID, diff.Options{})
					stop()
					if err != nil {
						b.Fatal(err)
					}
					if len(c.Result.Nodes.Changed) == 0 {
						b.Fatal("no changed nodes")
					}
				}
				b.ReportMetric(float64(peak)/1e6, "peak-MB")
			})
			// As a run, an import, an edit or a merge leaves them: with
			// their communities stored, which cold detects otherwise.
			b.Run(fmt.Sprintf("%dk/%s/cold-stored-communities", n/1000, be), func(b *testing.B) {
				ap.Communities.keepCommunities(ctx, va, &ga)
				ap.Communities.keepCommunities(ctx, vb, &gb)
				for i := 0; i < b.N; i++ {
					if _, err := ap.compareUncached(ctx, va.ID, vb.ID, diff.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
			// A compare page's view of a cached pair: the union, its
			// drawing and the tables' order come with the comparison.
			b.Run(fmt.Sprintf("%dk/%s/cached-view", n/1000, be), func(b *testing.B) {
				if c, err := ap.Comparisons.Compare(ctx, va.ID, vb.ID, diff.Options{}); err != nil || len(c.View().Nodes) == 0 {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c, err := ap.Comparisons.Compare(ctx, va.ID, vb.ID, diff.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if len(c.View().Drawn.Nodes) != CompareGraphLimit {
						b.Fatalf("%d nodes drawn", len(c.View().Drawn.Nodes))
					}
				}
			})
			b.Run(fmt.Sprintf("%dk/%s/cached", n/1000, be), func(b *testing.B) {
				if _, err := ap.Comparisons.Compare(ctx, va.ID, vb.ID, diff.Options{}); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := ap.Comparisons.Compare(ctx, va.ID, vb.ID, diff.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// testPostgres creates a database of its own on the test server and drops
// it at cleanup.
func testPostgres(tb testing.TB) store.Options {
	tb.Helper()
	return store.Options{URL: testkit.PostgresDB(tb, "app")}
}

// compareUncached loads both versions and compares them, bypassing the
// cache.
func (a *App) compareUncached(ctx context.Context, aID, bID int, opts diff.Options) (Comparison, error) {
	va, vb, err := a.Comparisons.versionPair(ctx, aID, bID)
	if err != nil {
		return Comparison{}, err
	}
	return a.Comparisons.compareVersions(ctx, va, vb, compareOptions(va, vb, opts))
}
