package store

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// startWritten makes a version as SaveGraphVersion starts it: written and
// running.
func startWritten(t *testing.T, s *Store, name string) record.Version {
	t.Helper()
	ctx := context.Background()
	v, err := s.NewChildVersion(ctx, name, extract.Config{}, nil, "imported", 0)
	if err != nil {
		t.Fatal(err)
	}
	err = s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.UpdateOneID(v.ID).SetStatus("running").SetWritten(true).SetHeartbeatAt(s.Now()).Exec(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestWrittenVersions(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "A"}, {Key: "b", Name: "B"}},
		Edges: []extract.Edge{{Source: "a", Label: "knows", Target: "b", Weight: 1}}}

	t.Run("CanceledStopsTheWrite", func(t *testing.T) {
		v := startWritten(t, s, "canceled")
		if err := s.FinishVersion(ctx, v.ID, record.StatusCanceled, 0, "canceled by the user"); err != nil {
			t.Fatal(err)
		}
		if err := s.writeGraph(ctx, v.ID, g, true); !errors.Is(err, ErrNotActive) {
			t.Fatalf("write into a canceled import: %v, want ErrNotActive", err)
		}
		if got, _ := s.LoadGraph(ctx, v.ID, false); len(got.Nodes) != 0 {
			t.Fatalf("%d nodes written after the cancel", len(got.Nodes))
		}
		if err := s.finishWritten(ctx, v.ID, record.StatusDone, 0, ""); !errors.Is(err, ErrNotActive) {
			t.Fatalf("finishing a canceled import: %v", err)
		}
		if got, _ := s.Version(ctx, v.ID); got.Status != record.StatusCanceled {
			t.Fatalf("status %s, want canceled", got.Status)
		}
	})

	t.Run("KilledWriteFails", func(t *testing.T) {
		dead := startWritten(t, s, "dead")
		live := startWritten(t, s, "live")
		// The dead writer's last beat was two minutes ago.
		now := s.Now
		s.Now = func() time.Time { return now().Add(-2 * time.Minute) }
		if err := s.Heartbeat(ctx, dead.ID); err != nil {
			t.Fatal(err)
		}
		s.Now = now
		n, err := s.FailInterruptedWrites(ctx)
		if err != nil || n != 1 {
			t.Fatalf("marked %d (%v), want 1", n, err)
		}
		if v, _ := s.Version(ctx, dead.ID); v.Status != record.StatusFailed || v.Error != ErrInterruptedWrite {
			t.Fatalf("dead import %s %q", v.Status, v.Error)
		}
		if v, _ := s.Version(ctx, live.ID); v.Status != record.StatusRunning {
			t.Fatalf("live import %s", v.Status)
		}
		if vs, _ := s.UnfinishedVersions(ctx); len(vs) != 1 || !vs[0].Written {
			t.Fatalf("unfinished %+v", vs)
		}
	})

	t.Run("GoneWriterFailsAtOnce", func(t *testing.T) {
		// A process of this machine that has ended: its write fails at
		// the next look, its heartbeat fresh; this process's own write,
		// as fresh, goes on.
		cmd := exec.Command("true")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		goneWriter := fmt.Sprintf("%s%s_%d_writer", clientPrefix, thisHost, cmd.Process.Pid)
		gone := startWritten(t, s, "gone")
		mine := startWritten(t, s, "mine")
		for id, w := range map[int]string{gone.ID: goneWriter, mine.ID: thisWriter} {
			if err := s.write(ctx, func(c *ent.Client) error { return c.ExtractionVersion.UpdateOneID(id).SetWriter(w).Exec(ctx) }); err != nil {
				t.Fatal(err)
			}
		}
		n, err := s.FailInterruptedWrites(ctx)
		if err != nil || n != 1 {
			t.Fatalf("marked %d (%v), want 1", n, err)
		}
		if v, _ := s.Version(ctx, gone.ID); v.Status != record.StatusFailed || v.Error != ErrInterruptedWrite {
			t.Fatalf("gone writer's import %s %q", v.Status, v.Error)
		}
		if v, _ := s.Version(ctx, mine.ID); v.Status != record.StatusRunning {
			t.Fatalf("this process's import %s", v.Status)
		}
		if err := s.finishWritten(ctx, mine.ID, record.StatusDone, 0, ""); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("DeleteWhileWrittenIsRefused", func(t *testing.T) {
		v := startWritten(t, s, "busy")
		if err := s.DeleteVersion(ctx, v.ID); extract.KindOf(err) != extract.KindConflict {
			t.Fatalf("delete during the write: %v, want a conflict", err)
		}
	})

	t.Run("SaveGraphVersion", func(t *testing.T) {
		v, err := s.SaveGraphVersion(ctx, "whole", extract.Config{}, nil, "imported", 0, g)
		if err != nil || v.Status != record.StatusDone || v.Nodes != 2 || v.Edges != 1 || !v.Written {
			t.Fatalf("%+v %v", v, err)
		}
	})
}
