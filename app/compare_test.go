package app

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// A finished pair is compared once and answered from the cache after; a
// running side is compared afresh every time, so its new rows show.
func TestCompare_CachesFinishedPairsOnly(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ap := newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Providers{Embedder: extract.EmbedderOffline})
	ga, gb := randomGraph(50, 100, 1, false), randomGraph(50, 100, 1, true)
	va, vb := finishedVersion(t, st, "a", ga), finishedVersion(t, st, "b", gb)

	first, err := ap.Comparisons.Compare(ctx, va.ID, vb.ID, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := ap.Comparisons.Compare(ctx, va.ID, vb.ID, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Result.Nodes.Changed) == 0 || &first.Result.Nodes.Changed[0] != &again.Result.Nodes.Changed[0] {
		t.Fatal("the second comparison of a finished pair was not served from the cache")
	}
	if n := ap.Comparisons.cache.Len(); n != 1 {
		t.Fatalf("cache holds %d comparisons, want 1", n)
	}
	// The page's view is built once and shared with the cached pair: the
	// union holds every node of both sides, the tables list the
	// differences first.
	view := first.View()
	if view != again.View() {
		t.Fatal("the view of a cached pair was built again")
	}
	if len(view.Union.Nodes) != 50 || len(view.Nodes) != 50 || len(view.Edges) != len(view.Union.Edges) || len(view.EdgeNames) != len(view.Union.Edges) {
		t.Fatalf("view: %d union nodes, %d rows, %d edges, %d edge rows", len(view.Union.Nodes), len(view.Nodes), len(view.Union.Edges), len(view.Edges))
	}
	if st := view.Union.Nodes[view.Nodes[0]].Status; st == diff.StatusUnchanged {
		t.Fatalf("the first row is unchanged while %d nodes changed", len(first.Result.Nodes.Changed))
	}
	// Other options are another comparison.
	if _, err := ap.Comparisons.Compare(ctx, va.ID, vb.ID, diff.Options{IgnoreType: true}); err != nil {
		t.Fatal(err)
	}
	if n := ap.Comparisons.cache.Len(); n != 2 {
		t.Fatalf("cache holds %d comparisons, want 2", n)
	}

	// A running version: each comparison sees what is stored now.
	d, _, err := st.AddDocument(ctx, mustRead(t, "c.txt", "running"))
	if err != nil {
		t.Fatal(err)
	}
	vc, err := st.NewVersion(ctx, "c", extract.DefaultConfig(), []int{d.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.StartVersion(ctx, vc.ID, 0); err != nil {
		t.Fatal(err)
	}
	before, err := ap.Comparisons.Compare(ctx, va.ID, vc.ID, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WriteGraph(ctx, vc.ID, ga); err != nil {
		t.Fatal(err)
	}
	after, err := ap.Comparisons.Compare(ctx, va.ID, vc.ID, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Result.Nodes.Removed) != 50 || len(after.Result.Nodes.Removed) != 0 {
		t.Fatalf("running side: removed %d then %d, want 50 then 0", len(before.Result.Nodes.Removed), len(after.Result.Nodes.Removed))
	}
	if n := ap.Comparisons.cache.Len(); n != 2 {
		t.Fatalf("a running pair was cached: %d comparisons", n)
	}
	// Once finished, its pair is cached like any other.
	if err := st.FinishVersion(ctx, vc.ID, record.StatusDone, time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := ap.Comparisons.Compare(ctx, va.ID, vc.ID, diff.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := ap.Comparisons.cache.Len(); n != 3 {
		t.Fatalf("cache holds %d comparisons, want 3", n)
	}
}

// The cache keeps at most compareCacheEntries comparisons.
func TestCompare_CacheIsBounded(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ap := newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Providers{Embedder: extract.EmbedderOffline})
	va, vb := finishedVersion(t, st, "a", randomGraph(5, 5, 1, false)), finishedVersion(t, st, "b", randomGraph(5, 5, 2, false))
	for i := 0; i < 2*compareCacheEntries; i++ {
		// Sixteen option sets in all; with both orders, 32 pairs.
		o := diff.Options{IgnoreType: i&1 != 0, Undirected: i&2 != 0, IgnoreLabels: i&4 != 0, IgnoreDescriptions: i&8 != 0}
		x, y := va.ID, vb.ID
		if i&16 != 0 {
			x, y = y, x
		}
		if _, err := ap.Comparisons.Compare(ctx, x, y, o); err != nil {
			t.Fatal(err)
		}
	}
	if n := ap.Comparisons.cache.Len(); n != compareCacheEntries {
		t.Fatalf("cache holds %d comparisons, want %d", n, compareCacheEntries)
	}
}

func mustRead(t *testing.T, name, text string) extract.Document {
	t.Helper()
	d, err := extract.ReadDocument(name, []byte(text), extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
