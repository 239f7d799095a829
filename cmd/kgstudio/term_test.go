package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/internal/testkit"
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
		t.Skip("runs the command as separate processes")
	}
	bin := kgstudioBinary(t)
	corpus := testkit.Path(t, "corpora/a_christmas_carol_gutenberg24022.txt")
	data := t.TempDir()
	// With the dense table and its schema the final job spends a rule's
	// budget (a second or more), so the poll sees it running even on a
	// busy machine; the book's own final job could end between two polls.
	table := writeDense(t, bin, data)
	cmd := exec.Command(bin, "extract", "--data", data, "--name", "carol", "--schema", "dense", "--chunk-size", "200", "--overlap", "0", corpus, table)
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
	v, err := st.Versions.ByLabel(t.Context(), "carol", 1)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status == "failed" || v.Status == "canceled" {
		t.Errorf("after SIGTERM the run is %s; a worker should be able to finish it", v.Status)
	}
}

// waitFinalJob waits until a run in the SQLite data folder has its final
// job running; ended reports (or fails the test) when the process went
// away first. The folder's database must exist already.
func waitFinalJob(t *testing.T, data string, ended func() bool) {
	t.Helper()
	// The database is the folder's one .db file (a workspace's would be
	// in a folder below), read here without the application, read-only.
	files, err := filepath.Glob(filepath.Join(data, "*.db"))
	if err != nil || len(files) != 1 {
		t.Fatalf("the data folder's databases: %v (%v), want one", files, err)
	}
	db, err := sql.Open("sqlite", "file:"+files[0]+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testkit.Eventually(t, 2*time.Minute, func() error {
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

// serveGrace is how long serve may take to end after SIGTERM: its
// shutdown deadline (15 s, for requests and then running jobs) plus the
// workers' stop grace (5 s for canceled jobs to return).
const serveGrace = 20 * time.Second

// writeDense writes denseSchema and its dense table into a new folder,
// imports the schema as "dense" into the data folder and returns the
// table's path: a run over the table with that schema spends its final
// job's rule budget (about a second, more on a busy machine).
func writeDense(t *testing.T, bin, data string) string {
	t.Helper()
	dir := t.TempDir()
	var table strings.Builder
	table.WriteString("src,dst\n")
	const n = 120
	for i := range n {
		for j := range n {
			if i != j {
				fmt.Fprintf(&table, "%d,%d\n", i, j)
			}
		}
	}
	files := map[string]string{"dense.schema": denseSchema, "T_link_T.csv": table.String()}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "schema", "import", filepath.Join(dir, "dense.schema"), "--name", "dense", "--data", data)
	cmd.Env = append(cmd.Environ(), "DATABASE_URL=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kgstudio schema import: %v\n%s", err, out)
	}
	return filepath.Join(dir, "T_link_T.csv")
}

// denseSchema has a rule whose join would run for hours (four hops over
// a table linking every node to every other): each run's final job
// spends its budget on it.
const denseSchema = `namespace Dense

T(点): EntityType
	relations:
		link(连): T
		far(远): T
			rule: [[
				Define (a:T)-[p:far]->(e:T) {
					STRUCTURE { (a)-[:link]->(b)-[:link]->(c)-[:link]->(d)-[:link]->(e) }
					CONSTRAINT { }
				}
			]]
`

// TestServe_TermInFinalJobEndsInGrace sends SIGTERM to `kgstudio serve`
// while a run's final job evaluates a rule over a dense table: the
// process ends within serveGrace (plus a margin to close the database),
// and the next start finishes the run, its note naming the rule as not
// run, with the reason.
func TestServe_TermInFinalJobEndsInGrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the server as a separate process")
	}
	bin := kgstudioBinary(t)
	data := t.TempDir()
	table := writeDense(t, bin, data)
	cmd := exec.Command(bin, "doc", "add", table, "--data", data)
	cmd.Env = append(cmd.Environ(), "DATABASE_URL=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kgstudio doc add: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	srv := startServer(t, bin, data, addr)
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	body := `{"name":"dense","document_ids":[1],"schema":"dense","embedder":"offline"}`
	resp, err := http.Post("http://"+addr+"/api/extractions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ ID int }
	_ = json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if started.ID == 0 {
		t.Fatalf("run not started: %s", resp.Status)
	}
	waitFinalJob(t, data, func() bool {
		select {
		case err := <-exited:
			t.Fatalf("the server ended before the final job was caught running (%v)", err)
		default:
		}
		if s := getStatus(t, addr, started.ID); s.Status == "done" || s.Status == "failed" {
			t.Fatalf("the run ended before its final job was caught running: %+v", s)
		}
		return false
	})
	sent := time.Now()
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	const margin = 5 * time.Second
	select {
	case <-exited:
		t.Logf("serve ended %.2f s after SIGTERM (grace %s)", time.Since(sent).Seconds(), serveGrace)
	case <-time.After(serveGrace + margin):
		_ = srv.Process.Kill()
		t.Fatalf("serve still running %s after SIGTERM", serveGrace+margin)
	}
	st := mustOpen(t, data)
	v, err := st.Versions.Get(t.Context(), started.ID)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if v.Status == "done" || v.Status == "failed" || v.Status == "canceled" {
		t.Fatalf("after SIGTERM in its final job the run is %s; the next start should finish it", v.Status)
	}

	srv = startServer(t, bin, data, addr)
	defer func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		_ = srv.Wait()
	}()
	testkit.Eventually(t, 2*time.Minute, func() error {
		if s := getStatus(t, addr, started.ID); s.Status != "done" {
			if s.Status == "failed" || s.Status == "canceled" {
				t.Fatalf("the run resumed and ended %s", s.Status)
			}
			return fmt.Errorf("the run did not finish after the restart: %+v", s)
		}
		return nil
	})
	st = mustOpen(t, data)
	defer st.Close()
	if v, err = st.Versions.Get(t.Context(), started.ID); err != nil || !strings.Contains(v.Note, "schema rules not run: rule far: over its budget") {
		t.Errorf("the finished run's note %q (%v), want the rule named as not run", v.Note, err)
	}
}
