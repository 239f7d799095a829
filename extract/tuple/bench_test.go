package tuple_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/tuple"
)

// memSink collects results in memory.
type memSink struct {
	mu  sync.Mutex
	res []extract.ChunkResult
}

func (s *memSink) Finished(context.Context) (map[extract.ChunkRef]bool, error) { return nil, nil }
func (s *memSink) WriteChunk(_ context.Context, r extract.ChunkResult) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res = append(s.res, r)
	return nil
}

// BenchmarkRun_Throughput runs extract.Run with the tuple strategy over
// the Christmas Carol against the fake server at 200 ms per call, with
// concurrency 8, then re-runs it through the cache. It reports calls per
// second, the ratio to the ideal C/latency, and the re-run's cache hit rate.
func BenchmarkRun_Throughput(b *testing.B) {
	const (
		latency     = 200 * time.Millisecond
		concurrency = 8
		chunks      = 96
	)
	doc, _ := carol(b)
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Concurrency, cfg.MaxGleaning, cfg.ChunkSize, cfg.Overlap = extract.StrategyTuple, concurrency, 0, 1200, 0
	// Cut the document so it splits into about `chunks` chunks.
	all := extract.Split(doc, cfg.ChunkSize, cfg.Overlap, cfg.Strict)
	if len(all) < chunks {
		b.Fatalf("only %d chunks", len(all))
	}
	doc.Content = doc.Content[:all[chunks-1].End]
	srv := fakellm.New(b, fakellm.Options{Latency: latency, Rules: []fakellm.Rule{{Text: fakellm.Load(b, "testdata/recorded/carol_extract.txt")}}})
	base, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.OpenAIURL(), Model: "local"})
	if err != nil {
		b.Fatal(err)
	}
	var calls, cachedCalls, rerunCalls int
	var elapsed time.Duration
	for b.Loop() {
		store := llm.NewMemoryStore()
		client := llm.Cached(llm.WithPolicy(base, llm.Policy{Concurrency: concurrency}), llm.ProviderOpenAI, "local", store)
		x, err := tuple.New(client, cfg, tuple.Options{})
		if err != nil {
			b.Fatal(err)
		}
		srv.Reset()
		start := time.Now()
		jobs, err := extract.Plan([]extract.Document{doc}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := extract.RunJobs(context.Background(), jobs, cfg.Concurrency, x, &memSink{}, nil); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		calls += srv.Count()
		// Re-run: every call should come from the cache.
		srv.Reset()
		sink := &memSink{}
		jobs, err = extract.Plan([]extract.Document{doc}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := extract.RunJobs(context.Background(), jobs, cfg.Concurrency, x, sink, nil); err != nil {
			b.Fatal(err)
		}
		for _, r := range sink.res {
			for _, c := range r.Calls {
				rerunCalls++
				if c.Cached {
					cachedCalls++
				}
			}
		}
		if srv.Count() != 0 {
			b.Fatalf("re-run made %d provider calls", srv.Count())
		}
	}
	perSec := float64(calls) / elapsed.Seconds()
	ideal := float64(concurrency) / latency.Seconds()
	b.ReportMetric(perSec, "calls/s")
	b.ReportMetric(100*perSec/ideal, "%ideal")
	b.ReportMetric(100*float64(cachedCalls)/float64(max(1, rerunCalls)), "%rerun-hits")
	if !strings.Contains(b.Name(), "Throughput") {
		b.Fatal("unexpected name")
	}
}
