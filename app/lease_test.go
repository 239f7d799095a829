package app

import (
	"context"
	"errors"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// Two apps on one database (two server instances): while one holds a
// version's lease, the other neither runs it nor resumes it; the holder
// then runs it to the end.
func TestApp_Lease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, st, d := testApp(t, "marley.txt", "Marley was dead: to begin with. Scrooge signed it. "+
		"Old Marley was as dead as a door-nail. Scrooge knew he was dead.")
	other := New(st, first.log, Providers{})
	cfg := extract.DefaultConfig()
	cfg.ChunkSize, cfg.Overlap = 60, 0
	if err := first.Prepare(ctx, &cfg, ""); err != nil {
		t.Fatal(err)
	}
	v, err := st.NewVersion(ctx, "lease", cfg, []int{d.ID}, "")
	if err != nil {
		t.Fatal(err)
	}

	stop, err := first.lease(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Run(ctx, v, nil); !errors.Is(err, ErrRunElsewhere) {
		t.Fatalf("second app: %v, want ErrRunElsewhere", err)
	}
	if err := other.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if other.Running(v.ID) {
		t.Fatal("the second app resumed a version a live process runs")
	}
	stop()

	if err := first.Run(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	cur, err := st.Version(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.ChunkRuns(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Status != store.StatusDone || cur.ChunksTotal < 2 || len(runs) != cur.ChunksTotal || cur.ChunksDone != cur.ChunksTotal {
		t.Fatalf("status %s, chunk runs %d, done %d, total %d", cur.Status, len(runs), cur.ChunksDone, cur.ChunksTotal)
	}
}
