package app

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// meter is a model stand-in that records when each call started and how
// many were in flight at once.
type meter struct {
	*httptest.Server
	mu       sync.Mutex
	inflight int
	peak     int
	starts   []time.Time
}

func newMeter(t *testing.T, latency time.Duration) *meter {
	answer := "entity<|#|>Scrooge<|#|>person<|#|>A miser.\n<|COMPLETE|>"
	fake := fakellm.New(t, fakellm.Options{Latency: latency, Rules: []fakellm.Rule{{Text: answer}}})
	m := &meter{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.inflight++
		m.peak = max(m.peak, m.inflight)
		m.starts = append(m.starts, time.Now())
		m.mu.Unlock()
		fake.Config.Handler.ServeHTTP(w, r)
		m.mu.Lock()
		m.inflight--
		m.mu.Unlock()
	}))
	t.Cleanup(m.Close)
	return m
}

// pgApps opens n apps on one new PostgreSQL database, each with a store
// (and so connections) of its own, as n processes would.
func pgApps(t *testing.T, n int, p Providers) []*App {
	t.Helper()
	if testkit.PostgresURL(t) == "" {
		t.Skip("set KGSTUDIO_TEST_POSTGRES_URL to run the PostgreSQL tests")
	}
	opts := testPostgres(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var apps []*App
	for range n {
		st, err := store.Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		p.Embedder = cmp.Or(p.Embedder, extract.EmbedderOffline)
		a := newApp(st, log, p)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			a.Runs.Shutdown(ctx)
			st.Close()
		})
		apps = append(apps, a)
	}
	return apps
}

// chunkText is a text of n chunks of the given size, each distinct.
func chunkText(n, size int) string {
	var b strings.Builder
	for i := range n {
		s := fmt.Sprintf("Chunk %d tells of Scrooge. ", i)
		b.WriteString(s + strings.Repeat("x", size-len(s)-1) + "\n")
	}
	return b.String()
}

// newTupleRun queues a tuple run of text on a.
func newTupleRun(t *testing.T, a *App, text string, chunkSize int) record.Version {
	t.Helper()
	d := addDoc(t, a.store, "text.txt", text)
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.ChunkSize, cfg.Overlap, cfg.MaxGleaning = extract.StrategyTuple, "openai", chunkSize, 0, 0
	v, _, err := a.Runs.NewRun(context.Background(), RunRequest{Extraction: "limited", Config: cfg, DocumentIDs: []int{d.ID}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Three workers (each its own store and connections, as three processes)
// share one provider's limits: never more calls in flight than the limit,
// and no faster than the requests per minute allow.
func TestJobs_ProviderLimitsHoldAcrossWorkers(t *testing.T) {
	t.Parallel()
	m := newMeter(t, 30*time.Millisecond)
	const rpm, inflight, chunks = 1200, 2, 60
	apps := pgApps(t, 3, Providers{OpenAIBaseURL: m.URL + "/v1", OpenAIModel: "local", Concurrency: inflight, RequestsPerMinute: rpm})
	ctx := context.Background()
	v := newTupleRun(t, apps[0], chunkText(chunks, 200), 200)
	if _, err := apps[0].Runs.Enqueue(ctx, v); err != nil {
		t.Fatal(err)
	}
	for _, a := range apps {
		if _, err := a.Runs.StartWorker(ctx, WorkerOptions{Concurrency: 4}); err != nil {
			t.Fatal(err)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := apps[1].Runs.Wait(wctx, v.ID, nil, WorkerOptions{}); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.starts) < chunks {
		t.Fatalf("%d calls for %d chunks", len(m.starts), chunks)
	}
	// Twelve job slots (three workers of four) met a limit of two calls.
	if m.peak > inflight {
		t.Errorf("%d calls in flight at once, limit %d", m.peak, inflight)
	}
	// A bucket of a second's requests (20), refilled at 20 a second: call
	// k starts no sooner than (k-20)/20 s after the first.
	perSec := float64(rpm) / 60
	for k, at := range m.starts {
		earliest := time.Duration((float64(k) - perSec) / perSec * float64(time.Second))
		if got := at.Sub(m.starts[0]); got < earliest-50*time.Millisecond {
			t.Fatalf("call %d started %s after the first, before %s: more than %d requests a minute", k, got, earliest, rpm)
		}
	}
	t.Logf("%d calls in %s, at most %d in flight (limit %d), %d requests a minute allowed",
		len(m.starts), m.starts[len(m.starts)-1].Sub(m.starts[0]), m.peak, inflight, rpm)
}

// A cancel pressed on one instance stops the run that another's worker
// runs: the version is canceled, its jobs end and no more calls are made.
func TestJobs_CancelFromAnotherInstance(t *testing.T) {
	t.Parallel()
	m := newMeter(t, 100*time.Millisecond)
	apps := pgApps(t, 2, Providers{OpenAIBaseURL: m.URL + "/v1", OpenAIModel: "local", Concurrency: 2})
	ctx := context.Background()
	v := newTupleRun(t, apps[0], chunkText(40, 200), 200)
	if _, err := apps[0].Runs.Enqueue(ctx, v); err != nil {
		t.Fatal(err)
	}
	if _, err := apps[1].Runs.StartWorker(ctx, WorkerOptions{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, func() error {
		if cur, err := apps[0].store.Version(ctx, v.ID); err != nil || cur.ChunksDone < 3 {
			return fmt.Errorf("the worker did not start the run: %d chunks done (%v)", cur.ChunksDone, err)
		}
		return nil
	})
	if had, err := apps[0].Runs.queue.cancel(ctx, v.ID); err != nil || !had {
		t.Error("cancel found no job to stop")
	}
	// A call in flight at the cancel may end: its job ends with it. Then
	// no call starts before the worker has stopped (Shutdown waits for
	// whatever the worker still runs).
	waitJobsEnded(t, apps[1], v.ID)
	m.mu.Lock()
	calls := len(m.starts)
	m.mu.Unlock()
	sctx, stop := context.WithTimeout(ctx, 10*time.Second)
	apps[1].Runs.Shutdown(sctx)
	stop()
	m.mu.Lock()
	later := len(m.starts)
	m.mu.Unlock()
	if later != calls || calls >= 40 {
		t.Errorf("calls went on after the cancel: %d, then %d (of 40 chunks)", calls, later)
	}
	cur, err := apps[1].store.Version(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Status != record.StatusCanceled {
		t.Errorf("status %s after cancel", cur.Status)
	}
	jobs, err := apps[1].Runs.Jobs(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if jobs.Counts.Queued+jobs.Counts.Running != 0 || jobs.Counts.Canceled == 0 {
		t.Errorf("jobs after cancel: %+v", jobs.Counts)
	}
}
