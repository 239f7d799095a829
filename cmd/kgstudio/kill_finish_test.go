package main

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// TestExtract_KilledInFinalJobFinishes kills a foreground extract with
// SIGKILL while its final job runs, then starts the server on the data
// folder: River's rescuer hands the final job to the server's workers
// (the final job has a timeout, so it can be rescued), which finish the
// run with the graph an uninterrupted run makes.
func TestExtract_KilledInFinalJobFinishes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the command as separate processes")
	}
	bin := kgstudioBinary(t)
	corpus := testkit.Path(t, "corpora/a_christmas_carol_gutenberg24022.txt")
	// With the dense table and its schema the final job spends a rule's
	// budget (a second or more) when it runs.
	args := func(data string) []string {
		table := writeDense(t, bin, data)
		return []string{"extract", "--data", data, "--name", "carol", "--schema", "dense", "--chunk-size", "200", "--overlap", "0", corpus, table}
	}
	// The extract to be killed holds its final job (a failpoint), so the
	// kill always lands in it, whatever the machine's load.
	killed := t.TempDir()
	cmd := exec.Command(bin, args(killed)...)
	cmd.Env = append(cmd.Environ(), "DATABASE_URL=", "KGSTUDIO_FAILPOINT=final")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFinalJob(t, killed, func() bool { return cmd.ProcessState != nil })
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	st := mustOpen(t, killed)
	vs, err := unfinished(st)
	st.Close()
	if err != nil || len(vs) != 1 {
		t.Fatalf("after the kill: %d unfinished versions (%v), want the run", len(vs), err)
	}
	id := vs[0].ID

	addr := freeAddr(t)
	srv := startServer(t, bin, killed, addr)
	testkit.Eventually(t, 3*time.Minute, func() error {
		s := getStatus(t, addr, id)
		if s.Status == "failed" || s.Status == "canceled" {
			t.Fatalf("the killed run did not finish: %+v", s)
		}
		if s.Status != "done" {
			return fmt.Errorf("the killed run did not finish: %+v", s)
		}
		return nil
	})
	_ = srv.Process.Signal(syscall.SIGTERM)
	_ = srv.Wait()

	clean := t.TempDir()
	c := exec.Command(bin, args(clean)...)
	c.Env = append(c.Environ(), "DATABASE_URL=")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("clean run: %v\n%s", err, out)
	}
	ks, cs := mustOpen(t, killed), mustOpen(t, clean)
	kg, err := ks.Graphs.Load(context.Background(), id, true)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := cs.Versions.ByLabel(context.Background(), "carol", 1)
	if err != nil {
		t.Fatal(err)
	}
	cg, err := cs.Graphs.Load(context.Background(), cv.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := graphText(kg), graphText(cg); a != b {
		t.Fatalf("the rescued run's graph (%d nodes, %d edges) differs from the clean run's (%d, %d)", len(kg.Nodes), len(kg.Edges), len(cg.Nodes), len(cg.Edges))
	}
	t.Logf("%d nodes, %d edges in both runs", len(kg.Nodes), len(kg.Edges))
}

// unfinished lists the versions still queued or running in a data folder
// (the few a test makes), oldest first.
func unfinished(a *app.App) ([]record.Version, error) {
	vs, err := a.Versions.Recent(context.Background(), 1000)
	if err != nil {
		return nil, err
	}
	var out []record.Version
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Active() {
			out = append(out, vs[i])
		}
	}
	return out, nil
}
