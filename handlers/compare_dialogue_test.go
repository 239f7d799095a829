package handlers_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestCompare_DialogueTurns(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	doc := dlgDoc(t, a, "locomo.json", dlgFile(t, dlgLoCoMoPath))
	cfg := extract.DefaultConfig()
	if err := a.App.Prepare(ctx, &cfg, ""); err != nil {
		t.Fatal(err)
	}
	full, err := a.Store.NewVersion(ctx, "chat", cfg, []int{doc.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.App.Run(ctx, full, nil); err != nil {
		t.Fatal(err)
	}
	// The second version stops after ten turns.
	part, err := a.Store.NewVersion(ctx, "chat", cfg, []int{doc.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	err = a.App.Run(runCtx, part, func(p extract.Progress) {
		if p.ChunksDone == 10 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("partial run: %v", err)
	}
	full, _ = a.Store.Version(ctx, full.ID)
	// A job may take several turns: the run stops at the first job's end
	// past the tenth.
	part, _ = a.Store.Version(ctx, part.ID)
	if part.ChunksDone < 10 || part.ChunksDone >= full.ChunksTotal {
		t.Fatalf("partial run did %d of %d turns", part.ChunksDone, full.ChunksTotal)
	}

	_, page := a.Get(t, fmt.Sprintf("/compare?a=%d&b=%d", full.ID, part.ID))
	rows := page.Find(`[data-testid="turn-counts"] tbody tr`)
	if rows.Length() != full.ChunksTotal {
		t.Fatalf("%d turn rows, want %d", rows.Length(), full.ChunksTotal)
	}
	differs := page.Find(`[data-testid="turn-counts"] tbody tr.differs`).Length()
	if differs != full.ChunksTotal-part.ChunksDone {
		t.Fatalf("%d turns differ, want the %d turns the partial run did not reach", differs, full.ChunksTotal-part.ChunksDone)
	}
	first := rows.First()
	if cells := first.Find("td"); cells.Eq(2).Text() != cells.Eq(3).Text() {
		t.Fatalf("turn 0 should match: %q vs %q", cells.Eq(2).Text(), cells.Eq(3).Text())
	}

	// Two text extractions show no turn table.
	va := a.MustExtract(t, "text", "t.txt", lincoln, extract.DefaultConfig())
	_, page = a.Get(t, fmt.Sprintf("/compare?a=%d&b=%d", va.ID, va.ID))
	if page.Find(`[data-testid="turn-counts"]`).Length() != 0 {
		t.Fatal("turn table shown for text runs")
	}
}
