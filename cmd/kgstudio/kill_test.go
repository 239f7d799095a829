package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// kgstudioBinary returns the executable the tests start as a kgstudio
// process: this test binary, which TestMain turns into the command when
// asKgstudio is set in its environment.
func kgstudioBinary(t testing.TB) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer runs "kgstudio serve" as a real subprocess and waits for
// /healthz.
func startServer(t *testing.T, bin, data, addr string, env ...string) *exec.Cmd {
	t.Helper()
	var logs bytes.Buffer
	// Short job timeout and rescue delay: a killed server's jobs go to
	// the next one after River's rescue interval plus 3 s, not 25.
	cmd := exec.Command(bin, "serve", "--data", data, "--addr", addr, "--no-sample", "--log-level", "warn", "--job-timeout", "2s", "--rescue-after", "3s")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Env = append(append(os.Environ(), "DATABASE_URL="), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	err := testkit.Poll(30*time.Second, func() error {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/healthz: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("server did not start (%v):\n%s", err, logs.String())
	}
	return cmd
}

type versionStatus struct {
	Status      string `json:"status"`
	ChunksDone  int    `json:"chunks_done"`
	ChunksTotal int    `json:"chunks_total"`
	Nodes       int    `json:"nodes"`
}

func getStatus(t *testing.T, addr string, id int) versionStatus {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://%s/api/versions/%d", addr, id))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s versionStatus
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServe_KilledMidRunResumes kills the server with SIGKILL while an
// extraction runs, restarts it, and checks that the run completes with no
// missing chunk and the same graph as an uninterrupted run.
func TestServe_KilledMidRunResumes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the server as a separate process")
	}
	bin := kgstudioBinary(t)
	corpus := testkit.Path(t, "corpora/a_christmas_carol_gutenberg24022.txt")
	run := func(data string, kill bool) (*app.App, int) {
		if out, err := exec.Command(bin, "doc", "add", "--data", data, corpus).CombinedOutput(); err != nil {
			t.Fatalf("doc add: %v\n%s", err, out)
		}
		addr := freeAddr(t)
		// The server to be killed holds the chunk jobs from the 200th
		// chunk on (of some 900), so the run cannot end before the kill.
		var hold []string
		if kill {
			hold = []string{"KGSTUDIO_FAILPOINT=chunks:200"}
		}
		srv := startServer(t, bin, data, addr, hold...)
		form := url.Values{"name": {"carol"}, "doc": {"1"}, "strategy": {"nlp"}, "chunk_size": {"200"}, "overlap": {"0"}, "concurrency": {"1"}}
		req, _ := http.NewRequest("POST", "http://"+addr+"/api/extractions", bytes.NewBufferString(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var started struct{ ID int }
		json.NewDecoder(resp.Body).Decode(&started)
		resp.Body.Close()
		if started.ID == 0 {
			t.Fatalf("run not started: %d", resp.StatusCode)
		}
		if kill {
			srv = killMidRun(t, bin, data, addr, srv, started.ID)
		}
		restarted := time.Now()
		testkit.Eventually(t, 2*time.Minute, func() error {
			s := getStatus(t, addr, started.ID)
			if s.Status == "failed" {
				t.Fatalf("run did not finish: %+v", s)
			}
			if s.Status != "done" {
				return fmt.Errorf("run did not finish: %+v", s)
			}
			return nil
		})
		if kill {
			// Not asserted (timing): the restarted server takes the killed
			// one's jobs over at once (store.TakeOverGone).
			t.Logf("the restarted server finished the run %.1f s after it was up", time.Since(restarted).Seconds())
		}
		srv.Process.Signal(syscall.SIGTERM)
		srv.Wait()
		return mustOpen(t, data), started.ID
	}

	killed, kid := run(t.TempDir(), true)
	clean, cid := run(t.TempDir(), false)
	ctx := context.Background()
	kv, _ := killed.Versions.Get(ctx, kid)
	cv, _ := clean.Versions.Get(ctx, cid)
	if kv.ChunksDone != kv.ChunksTotal || kv.ChunksTotal != cv.ChunksTotal {
		t.Fatalf("chunks: killed %d/%d, clean %d", kv.ChunksDone, kv.ChunksTotal, cv.ChunksTotal)
	}
	runs, err := killed.Versions.ChunkRuns(ctx, kid)
	if err != nil || len(runs) != kv.ChunksTotal {
		t.Fatalf("chunk runs %d, want %d (%v)", len(runs), kv.ChunksTotal, err)
	}
	kg, _ := killed.Graphs.Load(ctx, kid, true)
	cg, _ := clean.Graphs.Load(ctx, cid, true)
	keys := func(nodes int, f func(i int) string) []string {
		out := make([]string, nodes)
		for i := range out {
			out[i] = f(i)
		}
		sort.Strings(out)
		return out
	}
	kk := keys(len(kg.Nodes), func(i int) string { return kg.Nodes[i].Key })
	ck := keys(len(cg.Nodes), func(i int) string { return cg.Nodes[i].Key })
	if fmt.Sprint(kk) != fmt.Sprint(ck) {
		t.Fatalf("node keys differ: killed %d, clean %d", len(kk), len(ck))
	}
	if len(kg.Edges) != len(cg.Edges) {
		t.Fatalf("edges: killed %d, clean %d", len(kg.Edges), len(cg.Edges))
	}
	km, cm := 0, 0
	for i := range kg.Nodes {
		km += len(kg.Nodes[i].Mentions)
	}
	for i := range cg.Nodes {
		cm += len(cg.Nodes[i].Mentions)
	}
	if km != cm {
		t.Fatalf("mentions: killed %d, clean %d", km, cm)
	}
	t.Logf("%d chunks, %d nodes, %d edges, %d mentions in both runs", kv.ChunksTotal, len(kk), len(kg.Edges), km)
}

// killMidRun waits until the run id of the server srv (holding its chunk
// jobs from a failpoint on) is part-way, kills the server hard, checks
// that the run is left part-way, and starts a server (without the
// failpoint) on the same data folder and address.
func killMidRun(t *testing.T, bin, data, addr string, srv *exec.Cmd, id int) *exec.Cmd {
	t.Helper()
	// Wait until the run is part-way (it stops at the held
	// chunks), then kill the process hard.
	testkit.Eventually(t, 2*time.Minute, func() error {
		s := getStatus(t, addr, id)
		if s.Status != "running" && s.Status != "queued" {
			t.Fatalf("the run ended before the kill: %+v", s)
		}
		if s.ChunksDone <= 5 {
			return fmt.Errorf("could not catch the run mid-way: %+v", s)
		}
		return nil
	})
	if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	srv.Wait()
	s := mustOpen(t, data)
	v, _ := s.Versions.Get(context.Background(), id)
	s.Close()
	if v.Status != "running" || v.ChunksDone == 0 || v.ChunksDone >= v.ChunksTotal {
		t.Fatalf("after the kill the run should be part-way: %+v", v)
	}
	t.Logf("killed at %d/%d chunks", v.ChunksDone, v.ChunksTotal)
	return startServer(t, bin, data, addr)
}

// mustOpen opens the application on the SQLite database in the data
// folder, to look at what the processes stored; it is closed when t ends
// (or sooner by Close).
func mustOpen(t *testing.T, data string) *app.App {
	t.Helper()
	return openApp(t, app.Options{DataDir: data})
}

// openApp opens the application, with no model provider and no job
// worker, on the database o names, and closes it when tb ends.
func openApp(tb testing.TB, o app.Options) *app.App {
	tb.Helper()
	a, err := app.Open(context.Background(), o, slog.New(slog.DiscardHandler), app.Providers{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	return a
}
