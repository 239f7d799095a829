package main

import (
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/internal/testdata"
	"github.com/kgstudio/kgstudio/store"
)

// termGrace bounds how long a process may take to end after SIGTERM: the
// workers' stop grace (5 s for the jobs to see their canceled context,
// then 5 s more) with room to close the database.
const termGrace = 15 * time.Second

// TestExtract_TermInFinalJobEndsInGrace sends SIGTERM to a foreground
// extract while its final job runs: the process ends within termGrace,
// and the run is left for a worker, not marked done half-written.
func TestExtract_TermInFinalJobEndsInGrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	corpus := testdata.Path(t, "corpora/a_christmas_carol_gutenberg24022.txt")
	data := t.TempDir()
	cmd := exec.Command(bin, "extract", "--data", data, "--name", "carol", "--chunk-size", "200", "--overlap", "0", corpus)
	cmd.Env = append(cmd.Environ(), "DATABASE_URL=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitFinalJob(t, data, func() bool {
		select {
		case err := <-exited:
			t.Fatalf("the run ended before its final job was caught running (%v)", err)
		default:
		}
		return false
	})
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		t.Logf("ended %.2f s after SIGTERM", time.Since(sent).Seconds())
	case <-time.After(termGrace):
		_ = cmd.Process.Kill()
		t.Fatalf("still running %s after SIGTERM", termGrace)
	}
	st := mustOpen(t, data)
	defer st.Close()
	v, err := st.VersionByLabel(t.Context(), "carol", 1)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status == "failed" || v.Status == "canceled" {
		t.Errorf("after SIGTERM the run is %s; a worker should be able to finish it", v.Status)
	}
}

// waitFinalJob waits until a run in the SQLite data folder has its final
// job running; ended reports (or fails the test) when the process went
// away first.
func waitFinalJob(t *testing.T, data string, ended func() bool) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, store.DefaultSQLiteFile)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testdata.Eventually(t, 2*time.Minute, func() error {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'kgstudio_finish' AND state = 'running'`).Scan(&n)
		if err == nil && n > 0 {
			return nil
		}
		if ended() {
			t.Fatalf("the final job was not caught running (%v)", err)
		}
		return fmt.Errorf("the final job was not caught running (%v)", err)
	})
}
