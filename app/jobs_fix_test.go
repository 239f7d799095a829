package app

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
	"github.com/kgstudio/kgstudio/store"
)

// syncBuffer is a log destination safe for many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// lines returns the logged lines that contain sub.
func (s *syncBuffer) lines(sub string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s.b.String(), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// sqliteApp opens an app on a new SQLite store whose log goes to logs
// (nil: discarded).
func sqliteApp(t *testing.T, p Providers, logs *syncBuffer) *App {
	t.Helper()
	st, err := store.Open(context.Background(), store.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var w = &syncBuffer{}
	if logs != nil {
		w = logs
	}
	// Runs vectorize with the hashed embedder here: the sentence encoder
	// has tests of its own and would only slow these down.
	p.Embedder = cmp.Or(p.Embedder, extract.EmbedderOffline)
	a := newApp(st, slog.New(slog.NewTextHandler(w, nil)), p)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a.Runs.Shutdown(ctx)
		st.Close()
	})
	return a
}

// queueAndWork queues a tuple run of text in chunks of 200 characters and
// starts workers running concurrency jobs at once.
func queueAndWork(t *testing.T, a *App, text string, concurrency int) record.Version {
	t.Helper()
	ctx := context.Background()
	v := newTupleRun(t, a, text, 200)
	if _, err := a.Runs.Enqueue(ctx, v); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Runs.StartWorker(ctx, WorkerOptions{Concurrency: concurrency}); err != nil {
		t.Fatal(err)
	}
	return v
}

// waitChunks waits until at least n chunks of a version are done, or the
// run has ended.
func waitChunks(t *testing.T, a *App, id, n int) record.Version {
	t.Helper()
	var v record.Version
	testkit.Eventually(t, 30*time.Second, func() error {
		var err error
		if v, err = a.store.Version(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if v.ChunksDone < n && v.Active() {
			return fmt.Errorf("%d of %d chunks done, want %d", v.ChunksDone, v.ChunksTotal, n)
		}
		return nil
	})
	return v
}

// waitJobsEnded waits until no job of a version is queued or running: a
// canceled job is running until it has seen the cancel and returned.
func waitJobsEnded(t *testing.T, a *App, id int) JobsView {
	t.Helper()
	var jobs JobsView
	testkit.Eventually(t, 30*time.Second, func() error {
		var err error
		if jobs, err = a.Runs.Jobs(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if jobs.Counts.Queued+jobs.Counts.Running > 0 {
			return fmt.Errorf("jobs of version %d still queued or running: %+v", id, jobs.Counts)
		}
		return nil
	})
	return jobs
}

// A cancel logs one line, not one warning per job River stops.
func TestJobs_CancelLogsOneLine(t *testing.T) {
	t.Parallel()
	m := newMeter(t, 300*time.Millisecond)
	logs := &syncBuffer{}
	a := sqliteApp(t, Providers{OpenAIBaseURL: m.URL + "/v1", OpenAIModel: "local", Concurrency: 4}, logs)
	v := queueAndWork(t, a, chunkText(40, 200), 4)
	waitChunks(t, a, v.ID, 4)
	if had, err := a.Runs.queue.cancel(context.Background(), v.ID); err != nil || !had {
		t.Fatal("cancel found no job to stop")
	}
	waitJobsEnded(t, a, v.ID) // the running jobs see the cancel
	if got := logs.lines("cancelled remotely"); len(got) > 0 {
		t.Errorf("%d lines of River's remote cancel, e.g. %s", len(got), got[0])
	}
	if got := logs.lines("extraction canceled"); len(got) != 1 {
		t.Errorf("%d lines say the extraction was canceled, want 1:\n%s", len(got), strings.Join(got, "\n"))
	}
	if got := logs.lines("level=WARN"); len(got) > 0 {
		t.Errorf("warnings after a cancel:\n%s", strings.Join(got, "\n"))
	}
}

// River's logger drops its "job cancelled remotely" warning (one per job
// and poll while a canceled job ends) and its "stuck" warning for final
// jobs, and passes its other warnings on.
func TestJobs_RiverLoggerDropsRemoteCancel(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	a := sqliteApp(t, Providers{}, logs)
	l := slog.New(quietHandler{a.log.Handler()})
	ctx := context.Background()
	for range 100 {
		l.WarnContext(ctx, "jobexecutor.JobExecutor: job cancelled remotely", slog.Int64("job_id", 7))
	}
	l.InfoContext(ctx, "producer: started")
	l.WarnContext(ctx, "producer: something else")
	// A final job runs past its timeout by design; a chunk job does not.
	l.WarnContext(ctx, "jobexecutor.JobExecutor: Job appears to be stuck", slog.Int64("job_id", 8), slog.String("kind", string(KindFinishJob)))
	l.WarnContext(ctx, "jobexecutor.JobExecutor: Job appears to be stuck", slog.Int64("job_id", 9), slog.String("kind", string(KindChunkJob)))
	if got := logs.lines("appears to be stuck"); len(got) != 1 || !strings.Contains(got[0], string(KindChunkJob)) {
		t.Errorf("stuck lines logged: %q, want the chunk job's alone", got)
	}
	if got := logs.lines("cancelled remotely"); len(got) != 0 {
		t.Errorf("%d remote-cancel lines logged", len(got))
	}
	if len(logs.lines("producer: started")) != 0 || len(logs.lines("something else")) != 1 {
		t.Errorf("River's info line logged or its other warning dropped:\n%s", logs.b.String())
	}
}

// distinctText is a text of n chunks of 200 characters and a model
// stand-in answering chunk k with persons k and k+1 and their relation.
func distinctText(t *testing.T, n int, latency time.Duration) (string, *fakellm.Server) {
	var b strings.Builder
	var rules []fakellm.Rule
	for k := range n {
		s := fmt.Sprintf("Person%03d meets Person%03d. ", k, k+1)
		b.WriteString(s + strings.Repeat("z", 200-len(s)-1) + "\n")
		rules = append(rules, fakellm.Rule{Contains: fmt.Sprintf("Person%03d meets", k), Text: fmt.Sprintf(
			"entity<|#|>Person%03d<|#|>person<|#|>Person %d.\nentity<|#|>Person%03d<|#|>person<|#|>Person %d.\n"+
				"relation<|#|>Person%03d<|#|>Person%03d<|#|>meets<|#|>They meet.\n<|COMPLETE|>", k, k, k+1, k+1, k, k+1)})
	}
	return b.String(), fakellm.New(t, fakellm.Options{Latency: latency, Rules: rules})
}

// Retry of a canceled run asks only for the chunks its jobs had not done:
// the others' stored results are the new version's, and the graph is the
// whole one.
func TestRetry_CanceledRunKeepsDoneChunks(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		text, fake := distinctText(t, 30, 60*time.Millisecond)
		testRetryCanceled(t, sqliteApp(t, Providers{OpenAIBaseURL: fake.OpenAIURL(), OpenAIModel: "local", Concurrency: 2}, nil), text, fake)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		text, fake := distinctText(t, 30, 60*time.Millisecond)
		testRetryCanceled(t, pgApps(t, 1, Providers{OpenAIBaseURL: fake.OpenAIURL(), OpenAIModel: "local", Concurrency: 2})[0], text, fake)
	})
}

func testRetryCanceled(t *testing.T, a *App, text string, fake *fakellm.Server) {
	ctx := context.Background()
	v := newTupleRun(t, a, text, 200)
	if _, err := a.Runs.Enqueue(ctx, v); err != nil {
		t.Fatal(err)
	}
	w, err := a.Runs.StartWorker(ctx, WorkerOptions{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	waitChunks(t, a, v.ID, 6)
	if _, err := a.Runs.queue.cancel(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	done, err := a.store.DoneChunks(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) < 6 || len(done) >= 30 {
		t.Fatalf("%d chunks done at the cancel", len(done))
	}
	if v, err = a.store.Version(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	nv, err := a.Runs.Retry(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d failed", 30-len(done)); !strings.Contains(nv.Note, want) {
		t.Errorf("retry note %q, want %q", nv.Note, want)
	}
	before := fake.Count()
	if err := a.Runs.Run(ctx, nv, nil); err != nil {
		t.Fatal(err)
	}
	// Calls answered before the cancel but not stored come from the
	// call cache.
	if asked := fake.Count() - before; asked > 30-len(done) {
		t.Errorf("the retry asked the model %d times; %d chunks were not done", asked, 30-len(done))
	}
	jobs, err := a.Runs.Jobs(ctx, nv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if chunkJobs := jobs.Counts.Completed - 1; chunkJobs != 30-len(done) {
		t.Errorf("the retry ran %d chunk jobs; %d chunks were not done", chunkJobs, 30-len(done))
	}
	nv, err = a.store.Version(ctx, nv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if paid := nv.Calls - nv.CachedCalls; paid > 30-len(done) {
		t.Errorf("the retry counts %d paid calls; %d chunks were not done", paid, 30-len(done))
	}
	if nv.Status != record.StatusDone || nv.Nodes != 31 || nv.Edges != 30 || nv.ChunksDone != 30 {
		t.Errorf("retry: %s, %d nodes, %d edges, %d chunks", nv.Status, nv.Nodes, nv.Edges, nv.ChunksDone)
	}
}

// A foreground run works its own jobs first, not those of a run queued
// before it for the workers.
func TestJobs_ForegroundRunFirst(t *testing.T) {
	t.Parallel()
	m := newMeter(t, 50*time.Millisecond)
	a := sqliteApp(t, Providers{OpenAIBaseURL: m.URL + "/v1", OpenAIModel: "local", Concurrency: 4}, nil)
	ctx := context.Background()
	queued := newTupleRun(t, a, chunkText(30, 200), 200)
	if _, err := a.Runs.Enqueue(ctx, queued); err != nil {
		t.Fatal(err)
	}
	fg := newTupleRun(t, a, strings.ReplaceAll(chunkText(8, 200), "Chunk", "Part"), 200)
	fg.Config.Concurrency = 1
	if err := a.Runs.Run(ctx, fg, nil); err != nil {
		t.Fatal(err)
	}
	q, err := a.store.Version(ctx, queued.ID)
	if err != nil {
		t.Fatal(err)
	}
	// One job at a time: the foreground run's eight chunks, then its
	// final job, before any of the queued run's; then a few of those (50
	// ms each) while Run sees its run done (it looks every 100 ms) and
	// stops its worker.
	if q.ChunksDone > 4 {
		t.Errorf("the foreground run's worker did %d of the queued run's %d chunks first", q.ChunksDone, q.ChunksTotal)
	}
}

// The jobs view counts as running no more jobs than the workers run at
// once: a job whose chunk is stored is done, even while River has yet to
// record it completed (it records completions in batches).
func TestJobs_RunningCountHoldsToConcurrency(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		m := newMeter(t, 0)
		testRunningCount(t, sqliteApp(t, Providers{OpenAIBaseURL: m.URL + "/v1", OpenAIModel: "local", Concurrency: 8}, nil))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		m := newMeter(t, 0)
		testRunningCount(t, pgApps(t, 1, Providers{OpenAIBaseURL: m.URL + "/v1", OpenAIModel: "local", Concurrency: 8})[0])
	})
}

func testRunningCount(t *testing.T, a *App) {
	ctx := context.Background()
	v := queueAndWork(t, a, chunkText(200, 200), 2)
	// The running count is sampled every 5 ms until the run has ended.
	peak, samples := 0, 0
	var sampleErr error
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			jobs, err := a.Runs.Jobs(ctx, v.ID)
			if err != nil {
				sampleErr = err
				return
			}
			peak = max(peak, jobs.Counts.Running)
			samples++
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	end := sync.OnceFunc(func() { close(stop); <-sampled })
	defer end()
	testkit.Eventually(t, time.Minute, func() error {
		cur, err := a.store.Version(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Active() {
			return fmt.Errorf("%d of %d chunks done", cur.ChunksDone, cur.ChunksTotal)
		}
		return nil
	})
	end()
	if sampleErr != nil {
		t.Fatal(sampleErr)
	}
	if peak > 2 {
		t.Errorf("%d jobs counted running at once, concurrency 2 (%d samples)", peak, samples)
	}
	t.Logf("at most %d running in %d samples", peak, samples)
}

// A foreground run's progress names its phases, and neither its count in
// a phase nor the API's chunks_done steps back when the final job starts
// merging.
func TestJobs_ProgressPhases(t *testing.T) {
	t.Parallel()
	m := newMeter(t, 5*time.Millisecond)
	a := sqliteApp(t, Providers{OpenAIBaseURL: m.URL + "/v1", OpenAIModel: "local", Concurrency: 4}, nil)
	ctx := context.Background()
	v := newTupleRun(t, a, chunkText(40, 200), 200)
	var mu sync.Mutex
	var reports []extract.Progress
	stop := make(chan struct{})
	sampled := make(chan []int)
	go func() {
		var seen []int
		defer func() { sampled <- seen }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			cur, err := a.store.Version(ctx, v.ID)
			if err != nil {
				continue
			}
			if j, err := a.Versions.WithJobs(ctx, cur); err == nil {
				seen = append(seen, j.ChunksDone)
			}
		}
	}()
	err := a.Runs.Run(ctx, v, func(p extract.Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	})
	close(stop)
	seen := <-sampled
	if err != nil {
		t.Fatal(err)
	}
	phases := map[extract.Phase]bool{}
	last := map[extract.Phase]int{}
	for _, p := range reports {
		phases[p.Phase] = true
		if p.ChunksDone < last[p.Phase] {
			t.Errorf("%s went back from %d to %d chunks", p.Phase, last[p.Phase], p.ChunksDone)
		}
		last[p.Phase] = p.ChunksDone
	}
	if !phases[extract.PhaseExtracting] || !phases[extract.PhaseMerging] {
		t.Errorf("phases reported: %v", phases)
	}
	if last[extract.PhaseMerging] != 40 {
		t.Errorf("merging ended at %d of 40 chunks", last[extract.PhaseMerging])
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("the API's chunks_done went back from %d to %d (sample %d of %d)", seen[i-1], seen[i], i, len(seen))
		}
	}
}
