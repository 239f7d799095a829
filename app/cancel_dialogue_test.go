package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// A dialogue run canceled while its turns are written takes no more of
// them: the run stops at the next turn instead of going on to the end.
func TestDialogueRun_CancelStopsTurns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var b strings.Builder
	b.WriteString(`{"title": "long", "sessions": [`)
	const sessions = 1500
	for i := range sessions {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "s%d", "start": "2023-01-01", "turns": [{"role": "user", "text": "Session %d: I talked with Alice Moreau about the Lumen Bakery in Porto."}, {"role": "assistant", "text": "Nice."}]}`, i, i)
	}
	b.WriteString("]}")
	a, st, d := testApp(t, "long.json", b.String())
	cfg := extract.DefaultConfig()
	cfg.Strategy = extract.StrategyDialogue
	v, _, err := a.Runs.NewRun(ctx, RunRequest{Extraction: "long", Config: cfg, DocumentIDs: []int{d.ID}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Runs.Run(ctx, v, nil) }()
	testkit.Eventually(t, time.Minute, func() error {
		cur, err := st.Version(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.ChunksDone < 20 {
			return fmt.Errorf("the run wrote %d turns, want 20", cur.ChunksDone)
		}
		return nil
	})
	if _, err := a.Runs.CancelVersion(ctx, v); err != nil {
		t.Fatal(err)
	}
	at, _ := st.Version(ctx, v.ID)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the canceled run did not stop")
	}
	end, err := st.Version(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if end.Status != record.StatusCanceled || end.ChunksDone > at.ChunksDone+1 || end.ChunksDone >= sessions {
		t.Errorf("after the cancel: %s, %d turns written (%d when canceled, of %d)", end.Status, end.ChunksDone, at.ChunksDone, sessions)
	}
}
