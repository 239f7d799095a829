package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
	"github.com/kgstudio/kgstudio/store"
)

// A version run in the foreground has no stored layout; its first whole
// graph view lays it out in the background, once, and stores a place
// for every node, which reads back as written. A layout stored for other
// counts of the graph is not read; a broken one is made again.
func TestLayouts_LaterAndStored(t *testing.T) {
	a, st, d := testApp(t, "curie.txt", "Marie Curie was born in Warsaw. She married Pierre Curie in Paris. "+
		"Pierre Curie worked at the Sorbonne. Irène Joliot-Curie was their daughter.")
	ctx := context.Background()
	v, g := mustRun(t, a, RunRequest{Extraction: "curie", Config: extract.DefaultConfig(), DocumentIDs: []int{d.ID}})
	v, err := st.Version(ctx, v.ID)
	if err != nil || v.Nodes == 0 {
		t.Fatalf("version %+v %v", v, err)
	}
	if _, ok, err := a.Layouts.Stored(ctx, v); err != nil || ok {
		t.Fatalf("a foreground run stored a layout: %v %v", ok, err)
	}
	a.Layouts.Later(v)
	a.Layouts.Later(v) // a second call while the first runs adds nothing
	var pos Positions
	testkit.Eventually(t, time.Minute, func() error {
		p, ok, err := a.Layouts.Stored(ctx, v)
		if err != nil {
			return err
		}
		if !ok {
			return errors.New("no layout yet")
		}
		pos = p
		return nil
	})
	if len(pos) != len(g.Nodes) {
		t.Fatalf("%d places for %d nodes", len(pos), len(g.Nodes))
	}
	for _, n := range g.Nodes {
		if _, ok := pos[n.Key]; !ok {
			t.Errorf("no place for %q", n.Key)
		}
	}
	// The graph's counts are part of the stamp.
	other := v
	other.Edges++
	if _, ok, err := a.Layouts.Stored(ctx, other); err != nil || ok {
		t.Fatalf("a layout read for another graph: %v %v", ok, err)
	}
	// A layout that cannot be read is none (and made again).
	if err := st.SaveVersionIndex(ctx, v.ID, store.IndexLayout, layoutStamp(v), []byte{0xff, 0xff, 0xff}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.Layouts.Stored(ctx, v); err != nil || ok {
		t.Fatalf("a broken layout read: %v %v", ok, err)
	}
	if err := a.Layouts.Make(ctx, v); err != nil {
		t.Fatal(err)
	}
	if p, ok, err := a.Layouts.Stored(ctx, v); err != nil || !ok || len(p) != len(pos) {
		t.Fatalf("made again: %d places, %v %v", len(p), ok, err)
	}
	// A version with no nodes, or not finished, is not laid out.
	a.Layouts.Later(record.Version{ID: v.ID, Status: record.StatusRunning, Nodes: 3})
	a.Layouts.mu.Lock()
	busy := len(a.Layouts.busy)
	a.Layouts.mu.Unlock()
	if busy != 0 {
		t.Fatal("a running version is being laid out")
	}
}

// Positions written and read back are the same, and every truncation of
// the bytes is an error, never a panic.
func TestLayouts_Encoding(t *testing.T) {
	keys := []string{"a", "Marie Curie", "北京", ""}
	x, y := []float32{0, -1.5, 3e6, 7}, []float32{1, 2, -3, 0.25}
	b := encodeLayout(keys, x, y)
	pos, err := decodeLayout(b)
	if err != nil || len(pos) != len(keys) {
		t.Fatal(pos, err)
	}
	for i, k := range keys {
		if pos[k] != [2]float32{x[i], y[i]} {
			t.Errorf("%q at %v, want %v, %v", k, pos[k], x[i], y[i])
		}
	}
	for n := range len(b) {
		if _, err := decodeLayout(b[:n]); err == nil {
			t.Errorf("%d of %d bytes read as a layout", n, len(b))
		}
	}
}

// BenchmarkLayouts_Make lays out and stores a version's layout as a
// serving worker does when its run finishes (the graph read, its
// communities detected, the layout run and written), on random graphs of
// 3 edges a node.
func BenchmarkLayouts_Make(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			st := benchStore(b, "sqlite")
			a := newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Providers{Embedder: extract.EmbedderOffline})
			v := finishedVersion(b, st, "layout", randomGraph(n, 3*n, 1, false))
			for b.Loop() {
				b.StopTimer()
				if err := st.SaveVersionIndex(b.Context(), v.ID, store.IndexLayout, "none", []byte{0}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := a.Layouts.Make(b.Context(), v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A version made without a run (an import, an edit, a merge) in a process
// that serves is laid out and indexed in the background at once, so its
// first graph view and first question build nothing; a command run once
// leaves them to those.
func TestLayouts_MadeSoonWhenServing(t *testing.T) {
	a, st, _ := testApp(t, "x.txt", "x")
	ctx := context.Background()
	v, err := a.Curation.ImportGraph(ctx, "u", "carol.graphml", []byte(undirectedGraphML), "")
	if err != nil {
		t.Fatal(err)
	}
	if v, err = st.Version(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	a.Layouts.mu.Lock()
	started := len(a.Layouts.busy)
	a.Layouts.mu.Unlock()
	if _, ok, err := a.Layouts.Stored(ctx, v); err != nil || ok || started != 0 {
		t.Fatalf("no workers: a layout stored (%v, %v) or started (%d)", ok, err, started)
	}
	if _, ok, err := st.VersionIndex(ctx, v.ID, store.IndexLexical, lexicalStamp(v)); err != nil || ok {
		t.Fatalf("no workers: query indexes stored (%v, %v)", ok, err)
	}
	w, err := a.Runs.StartWorker(ctx, WorkerOptions{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop(ctx)
	v2, err := a.Curation.ImportGraph(ctx, "u2", "carol.graphml", []byte(undirectedGraphML), "")
	if err != nil {
		t.Fatal(err)
	}
	if v2, err = st.Version(ctx, v2.ID); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, time.Minute, func() error {
		if _, ok, err := a.Layouts.Stored(ctx, v2); err != nil || !ok {
			return fmt.Errorf("no layout yet (%v)", err)
		}
		if _, ok, err := st.VersionIndex(ctx, v2.ID, store.IndexLexical, lexicalStamp(v2)); err != nil || !ok {
			return fmt.Errorf("no query indexes yet (%v)", err)
		}
		return nil
	})
}
