package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

// The worker tests run kgstudio processes on one PostgreSQL database
// against a local model stand-in at a fixed latency.

// pgDatabase creates a database of its own on the test server and drops it
// at cleanup; it skips without KGSTUDIO_TEST_POSTGRES_URL.
func pgDatabase(tb testing.TB) string {
	tb.Helper()
	u := testkit.PostgresDB(tb, "workers")
	if u == "" {
		tb.Skip("set KGSTUDIO_TEST_POSTGRES_URL to run the worker tests")
	}
	return u
}

// personText is a text of n chunks of chunkSize, chunk k naming persons k
// and k+1, with a fake model that answers each chunk with its own two
// entities and their relation.
func personText(tb testing.TB, n, chunkSize int, latency time.Duration) (string, *fakellm.Server) {
	var b strings.Builder
	var rules []fakellm.Rule
	for k := range n {
		s := fmt.Sprintf("Person%03d meets Person%03d. ", k, k+1)
		b.WriteString(s + strings.Repeat("z", chunkSize-len(s)-1) + "\n")
		rules = append(rules, fakellm.Rule{Contains: fmt.Sprintf("Person%03d meets", k), Text: fmt.Sprintf(
			"entity<|#|>Person%03d<|#|>person<|#|>Person %d of the story.\nentity<|#|>Person%03d<|#|>person<|#|>Met by person %d.\n"+
				"relation<|#|>Person%03d<|#|>Person%03d<|#|>meets<|#|>They meet in chunk %d.\n<|COMPLETE|>", k, k, k+1, k, k, k+1, k)})
	}
	return b.String(), fakellm.New(tb, fakellm.Options{Latency: latency, Rules: rules})
}

// procEnv is the environment of the kgstudio processes of a test.
func procEnv(dbURL string, fake *fakellm.Server) []string {
	return append(os.Environ(), "DATABASE_URL="+dbURL, "OPENAI_BASE_URL="+fake.OpenAIURL(), "OPENAI_MODEL=local",
		"KGSTUDIO_LLM_CONCURRENCY=64", "KGSTUDIO_LOG_LEVEL=warn", "GEMINI_API_KEY=")
}

// startWorker runs "kgstudio worker" as a process.
func startWorker(tb testing.TB, bin string, env []string, args ...string) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command(bin, append([]string{"worker"}, args...)...)
	cmd.Env = env
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
	})
	return cmd
}

// detach queues a tuple run of file with "extract --detach --json" and
// returns the version's ID.
func detach(tb testing.TB, bin string, env []string, name, file string, chunkSize int) int {
	tb.Helper()
	cmd := exec.Command(bin, "extract", "--detach", "--json", "--name", name, "--strategy", "tuple", "--provider", "openai",
		"--chunk-size", fmt.Sprint(chunkSize), "--overlap", "0", "--max-gleaning", "0", "--no-cache", file)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("extract --detach: %v\n%s", err, out)
	}
	var v struct {
		ID         int    `json:"id"`
		Extraction string `json:"extraction"`
		Version    int    `json:"version"`
		Status     string `json:"status"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Status != "queued" || v.ID == 0 || v.Extraction != name || v.Version == 0 {
		tb.Fatalf("extract --detach printed %s (%v)", out, err)
	}
	return v.ID
}

// waitDone polls a version until it is done.
func waitDone(tb testing.TB, st *app.App, id int, within time.Duration) record.Version {
	tb.Helper()
	var v record.Version
	testkit.Eventually(tb, within, func() error {
		var err error
		if v, err = st.Versions.Get(context.Background(), id); err != nil {
			tb.Fatal(err)
		}
		switch v.Status {
		case record.StatusDone:
			return nil
		case record.StatusFailed, record.StatusCanceled:
			tb.Fatalf("version %d %s: %s", id, v.Status, v.Error)
		}
		return fmt.Errorf("version %d still %s (%d/%d chunks)", id, v.Status, v.ChunksDone, v.ChunksTotal)
	})
	return v
}

// workerRig is what a worker test needs: a PostgreSQL database, the built
// binary, a text of chunks in a file, the processes' environment (with the
// model stand-in) and the application on the database.
type workerRig struct {
	dbURL, bin, file string
	env              []string
	st               *app.App
}

func newWorkerRig(tb testing.TB, chunks, size int, latency time.Duration) workerRig {
	tb.Helper()
	w := workerRig{dbURL: pgDatabase(tb), bin: kgstudioBinary(tb)}
	text, fake := personText(tb, chunks, size, latency)
	w.file = filepath.Join(tb.TempDir(), "persons.txt")
	if err := os.WriteFile(w.file, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	w.env = procEnv(w.dbURL, fake)
	w.st = openApp(tb, app.Options{URL: w.dbURL})
	return w
}

// graphText is a graph as comparable text: nodes and edges with their
// names, types, descriptions and mention counts, sorted.
func graphText(g extract.Graph) string {
	var lines []string
	for _, n := range g.Nodes {
		lines = append(lines, fmt.Sprintf("node %s|%s|%s|%s|%d", n.Key, n.Name, n.Type, n.Description, len(n.Mentions)))
	}
	for _, e := range g.Edges {
		lines = append(lines, fmt.Sprintf("edge %s|%s|%s|%d", e.Key(), e.Keywords, e.Description, len(e.Mentions)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// A worker killed with SIGKILL mid-run loses nothing: its jobs go to the
// other workers, which finish the run, and the graph equals that of an
// uninterrupted run; river_job holds the run's jobs.
func TestWorkers_KilledWorkerLosesNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs worker processes")
	}
	const chunks, size = 40, 200
	w := newWorkerRig(t, chunks, size, 100*time.Millisecond)
	bin, file, env, st, dbURL := w.bin, w.file, w.env, w.st, w.dbURL

	// The uninterrupted run, in the foreground.
	clean := exec.Command(bin, "extract", "--json", "--name", "clean", "--strategy", "tuple", "--provider", "openai",
		"--chunk-size", fmt.Sprint(size), "--overlap", "0", "--max-gleaning", "0", "--no-cache", file)
	clean.Env = env
	if out, err := clean.CombinedOutput(); err != nil {
		t.Fatalf("extract: %v\n%s", err, out)
	}

	// The killed run: one worker starts it and is killed part-way.
	id := detach(t, bin, env, "killed", file, size)
	rescue := []string{"--concurrency", "2", "--job-timeout", "2s", "--rescue-after", "3s"}
	first := startWorker(t, bin, env, rescue...)
	testkit.Eventually(t, 30*time.Second, func() error {
		v, err := st.Versions.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if v.ChunksDone < 4 {
			return fmt.Errorf("the first worker did not start the run: %s, %d chunks done", v.Status, v.ChunksDone)
		}
		return nil
	})
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	killedAt := time.Now()
	v, _ := st.Versions.Get(context.Background(), id)
	if v.Status == record.StatusDone || v.ChunksDone >= v.ChunksTotal {
		t.Fatalf("the run ended before the kill: %+v", v)
	}
	t.Logf("killed the first worker at %d/%d chunks", v.ChunksDone, v.ChunksTotal)
	startWorker(t, bin, env, rescue...)
	startWorker(t, bin, env, rescue...)
	v = waitDone(t, st, id, 60*time.Second)
	t.Logf("the other workers finished %s after the kill", time.Since(killedAt).Round(100*time.Millisecond))

	// Nothing lost: every chunk merged once, the same graph.
	runs, err := st.Versions.ChunkRuns(context.Background(), id)
	if err != nil || len(runs) != chunks || v.ChunksDone != chunks {
		t.Fatalf("%d chunk runs, %d/%d chunks done (%v)", len(runs), v.ChunksDone, v.ChunksTotal, err)
	}
	cv, err := st.Versions.ByLabel(context.Background(), "clean", 1)
	if err != nil {
		t.Fatal(err)
	}
	kg, _ := st.Graphs.Load(context.Background(), id, true)
	cg, _ := st.Graphs.Load(context.Background(), cv.ID, true)
	if len(kg.Nodes) != chunks+1 || len(kg.Edges) != chunks {
		t.Fatalf("killed run's graph: %d nodes, %d edges; want %d, %d", len(kg.Nodes), len(kg.Edges), chunks+1, chunks)
	}
	if a, b := graphText(kg), graphText(cg); a != b {
		t.Fatalf("the graphs differ:\nkilled:\n%s\nclean:\n%s", a, b)
	}

	// river_job holds the run's jobs: one per chunk and the final one,
	// some taken over from the killed worker (more than one attempt).
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var jobs, chunkJobs, retried int
	err = db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE kind = 'kgstudio_chunk'), count(*) FILTER (WHERE attempt > 1)
		FROM river_job WHERE metadata->>'version_id' = $1`, fmt.Sprint(id)).Scan(&jobs, &chunkJobs, &retried)
	if err != nil {
		t.Fatal(err)
	}
	if chunkJobs != chunks || jobs != chunks+1 || retried == 0 {
		t.Fatalf("river_job holds %d jobs of the run (%d chunk jobs, %d retried); want %d chunk jobs and the final one, some retried",
			jobs, chunkJobs, retried, chunks)
	}
}

// The same commands on the SQLite default, one process: extract --detach
// queues, a worker runs the run, version show reports it done with its
// jobs.
func TestWorkers_DetachThenWorkerOnSQLite(t *testing.T) {
	data := t.TempDir()
	text, fake := personText(t, 12, 200, 0)
	file := filepath.Join(t.TempDir(), "persons.txt")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_BASE_URL", fake.OpenAIURL())
	out := mustCLI(t, data, "extract", "--detach", "--json", "--name", "p", "--strategy", "tuple", "--provider", "openai",
		"--chunk-size", "200", "--overlap", "0", "--max-gleaning", "0", file)
	var queued struct {
		Status      string `json:"status"`
		ChunksTotal int    `json:"chunks_total"`
	}
	if err := json.Unmarshal([]byte(out), &queued); err != nil || queued.Status != "queued" || queued.ChunksTotal != 12 {
		t.Fatalf("extract --detach: %s (%v)", out, err)
	}
	show := func() map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "p@1", "--json")), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := show(); m["status"] != "queued" || m["jobs"].(map[string]any)["queued"].(float64) != 12 {
		t.Fatalf("before a worker: status %v, jobs %v", m["status"], m["jobs"])
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var sink strings.Builder
		_ = run(ctx, []string{"worker", "--data", data, "--concurrency", "2", "--log-level", "warn"}, strings.NewReader(""), &sink, &sink)
	}()
	defer func() { cancel(); wg.Wait() }()
	var m map[string]any
	testkit.Eventually(t, 30*time.Second, func() error {
		m = show()
		// The final job completes just after it marks the version done.
		if jobs := m["jobs"].(map[string]any); m["status"] != "done" || jobs["running"].(float64) != 0 {
			return fmt.Errorf("still %v, jobs %v", m["status"], jobs)
		}
		return nil
	})
	if jobs := m["jobs"].(map[string]any); m["chunks_done"].(float64) != 12 || m["nodes"].(float64) != 13 || jobs["completed"].(float64) != 13 {
		t.Fatalf("done: chunks %v, nodes %v, jobs %v", m["chunks_done"], m["nodes"], jobs)
	}
}

// BenchmarkWorkers_PostgreSQL runs a provider-bound tuple run (128 chunks, a
// model stand-in answering in 50 ms, two jobs at a time per worker) with 1,
// 2 and 4 worker processes on one PostgreSQL database. Each iteration
// queues a run (untimed) and times until the version is done.
func BenchmarkWorkers_PostgreSQL(b *testing.B) {
	const chunks, size = 128, 200
	w := newWorkerRig(b, chunks, size, 50*time.Millisecond)
	bin, file, env, st := w.bin, w.file, w.env, w.st
	runs := 0
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			var procs []*exec.Cmd
			for range n {
				procs = append(procs, startWorker(b, bin, env, "--concurrency", "2"))
			}
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				runs++
				id := detach(b, bin, env, fmt.Sprintf("bench%d", runs), file, size)
				b.StartTimer()
				waitDone(b, st, id, 5*time.Minute)
			}
			b.ReportMetric(float64(chunks*b.N)/b.Elapsed().Seconds(), "chunks/s")
			b.StopTimer()
			for _, p := range procs {
				_ = p.Process.Signal(syscall.SIGTERM)
				_ = p.Wait()
			}
		})
	}
}

// serve --no-worker leaves a queued run alone; serve without it runs it.
func TestServe_NoWorker(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	out := mustCLI(t, data, "extract", "--detach", "--json", "--name", "carol", "--chunk-size", "400", "../../app/sample/christmas_carol_stave_one.txt")
	var v struct {
		ID     int    `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Status != "queued" {
		t.Fatalf("extract --detach: %s (%v)", out, err)
	}
	// serve starts serve and returns once it says it serves, which it
	// does after starting its worker (if any), with the job workers its
	// /healthz counts.
	serve := func(args ...string) (workers int, stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		out, w := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--no-sample", "--log-level", "warn"}, args...),
				strings.NewReader(""), w, io.Discard)
			w.Close()
		}()
		stop = func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			stop()
			t.Fatalf("serve printed nothing: %v", err)
		}
		go func() { _, _ = io.Copy(io.Discard, out) }()
		var h struct{ Workers int }
		resp, err := http.Get(strings.Fields(line)[3] + "/healthz")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
		}
		if err != nil {
			stop()
			t.Fatalf("%s: /healthz: %v", line, err)
		}
		return h.Workers, stop
	}
	status := func() record.Version {
		s := mustOpen(t, data)
		defer s.Close()
		cur, err := s.Versions.Get(context.Background(), v.ID)
		if err != nil {
			t.Fatal(err)
		}
		return cur
	}
	workers, stop := serve("--no-worker")
	stop()
	if workers != 0 {
		t.Fatalf("serve --no-worker runs %d job workers", workers)
	}
	if cur := status(); cur.Status != record.StatusQueued || cur.ChunksDone != 0 {
		t.Fatalf("serve --no-worker ran the run: %s, %d chunks done", cur.Status, cur.ChunksDone)
	}
	workers, stop = serve()
	defer stop()
	if workers != 1 {
		t.Fatalf("serve runs %d job workers, want 1", workers)
	}
	testkit.Eventually(t, time.Minute, func() error {
		if cur := status(); cur.Status != record.StatusDone || cur.ChunksDone != cur.ChunksTotal || cur.Nodes == 0 {
			return fmt.Errorf("serve did not run the queued run: %s, %d/%d chunks, %d nodes", cur.Status, cur.ChunksDone, cur.ChunksTotal, cur.Nodes)
		}
		return nil
	})
}
