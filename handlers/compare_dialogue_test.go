package handlers_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
)

func TestCompare_DialogueTurns(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	doc := dlgDoc(t, a, "locomo.json", dlgFile(t, dlgLoCoMoPath))
	req := app.RunRequest{Extraction: "chat", Config: extract.DefaultConfig(), DocumentIDs: []int{doc.ID}}
	full, _, err := a.App.Runs.NewRun(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.App.Runs.Run(ctx, full, nil); err != nil {
		t.Fatal(err)
	}
	// The second version stops after ten turns.
	part, _, err := a.App.Runs.NewRun(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// Canceling the version stops its jobs (ending the caller's context
	// would leave the run to the workers).
	var once sync.Once
	err = a.App.Runs.Run(ctx, part, func(p extract.Progress) {
		if p.ChunksDone >= 10 {
			once.Do(func() { go a.App.Runs.CancelVersion(context.Background(), part) })
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("partial run: %v", err)
	}
	full, _ = a.App.Versions.Get(ctx, full.ID)
	// A job may take several turns: the run stops at the first job's end
	// past the tenth. A job in flight at the cancel may still record the
	// turns it ran: the turns reached are read once no job of the run
	// runs, from the chunk runs recorded, as the timeline reads them.
	waitJobsIdle(t, a, part.ID)
	part, _ = a.App.Versions.Get(ctx, part.ID)
	tl, err := a.App.Memory.Timeline(ctx, part.ID)
	if err != nil {
		t.Fatal(err)
	}
	reached := tl.Done
	if part.ChunksDone < 10 || len(reached) < part.ChunksDone || len(reached) >= full.ChunksTotal {
		t.Fatalf("partial run did %d of %d turns (%d reached)", part.ChunksDone, full.ChunksTotal, len(reached))
	}

	_, page := a.Get(t, fmt.Sprintf("/compare?a=%d&b=%d", full.ID, part.ID))
	rows := page.Find(`[data-testid="turn-counts"] tbody tr`)
	if rows.Length() != full.ChunksTotal {
		t.Fatalf("%d turn rows, want %d", rows.Length(), full.ChunksTotal)
	}
	differs := page.Find(`[data-testid="turn-counts"] tbody tr.differs`).Length()
	if differs != full.ChunksTotal-len(reached) {
		t.Fatalf("%d turns differ, want the %d turns the partial run did not reach", differs, full.ChunksTotal-len(reached))
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
