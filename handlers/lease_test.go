package handlers_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/handlers"
)

// Two runners on one database (two server instances): the one running a
// version keeps it; the other neither runs it nor resumes it.
func TestRunner_Lease(t *testing.T) {
	a := MustApp(t)
	ctx := context.Background()
	text, err := os.ReadFile("../../shared/data/corpora/a_christmas_carol_gutenberg24022.txt")
	if err != nil {
		t.Fatal(err)
	}
	d, err := extract.ReadDocument("carol.txt", text, extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	d, _, _ = a.Store.AddDocument(ctx, d)
	cfg := extract.DefaultConfig()
	cfg.ChunkSize, cfg.Overlap, cfg.Concurrency = 100, 0, 1
	if err := a.Runner.Prepare(ctx, &cfg, ""); err != nil {
		t.Fatal(err)
	}
	v, err := a.Store.NewVersion(ctx, "lease", cfg, []int{d.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	a.Runner.Start(v)
	// Wait until the first runner has started.
	deadline := time.Now().Add(30 * time.Second)
	for {
		cur, _ := a.Store.Version(ctx, v.ID)
		if cur.ChunksDone > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	other := handlers.NewRunner(a.Store, slog.New(slog.NewTextHandler(io.Discard, nil)), handlers.Providers{})
	if err := other.Run(ctx, v, nil); !errors.Is(err, handlers.ErrRunElsewhere) {
		t.Fatalf("second runner: %v, want ErrRunElsewhere", err)
	}
	if err := other.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if other.Running(v.ID) {
		t.Fatal("the second runner resumed a version a live process runs")
	}
	for {
		cur, _ := a.Store.Version(ctx, v.ID)
		if cur.Status == "done" {
			runs, _ := a.Store.ChunkRuns(ctx, v.ID)
			if len(runs) != cur.ChunksTotal || cur.ChunksDone != cur.ChunksTotal {
				t.Fatalf("chunk runs %d, done %d, total %d", len(runs), cur.ChunksDone, cur.ChunksTotal)
			}
			return
		}
		if time.Now().After(deadline.Add(60 * time.Second)) {
			t.Fatalf("run did not finish: %+v", cur)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
