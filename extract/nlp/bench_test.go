package nlp

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
)

// benchmarkCarol extracts all of A Christmas Carol per iteration and
// reports throughput (MB/s in the -bench output; KB/s = MB/s * 1000) and
// KB per CPU-second of the process, which a busy machine disturbs less.
func benchmarkCarol(b *testing.B, opts Options, concurrency int) {
	doc := carolDoc(b)
	e := mustNew(b, opts)
	cfg := extract.DefaultConfig()
	cfg.Concurrency = concurrency
	b.SetBytes(int64(len(doc.Content)))
	b.ResetTimer()
	cpu := 0.0
	for i := 0; i < b.N; i++ {
		before := testkit.CPUSeconds(b)
		// Start cold: rebuild the per-document tables and the NER caches.
		doc.SHA256 = ""
		e.nerMu.Lock()
		e.nerCache = map[string]nerResult{}
		e.nerMu.Unlock()
		e.spanMu.Lock()
		e.spanWords = map[string][]string{}
		e.spanMu.Unlock()
		doc.ID = i + 1
		jobs, err := extract.Plan([]extract.Document{doc}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := extract.RunJobs(context.Background(), jobs, cfg.Concurrency, e, discardSink{}, nil); err != nil {
			b.Fatal(err)
		}
		cpu += testkit.CPUSeconds(b) - before
	}
	if cpu > 0 {
		b.ReportMetric(float64(len(doc.Content)*b.N)/1000/cpu, "KB/cpu-s")
	}
}

// discardSink drops results.
type discardSink struct{}

func (discardSink) Finished(context.Context) (map[extract.ChunkRef]bool, error) { return nil, nil }
func (discardSink) WriteChunk(context.Context, extract.ChunkResult) error       { return nil }

func BenchmarkExtractor_Carol(b *testing.B)        { benchmarkCarol(b, Options{}, 1) }
func BenchmarkExtractor_CarolSkipNER(b *testing.B) { benchmarkCarol(b, Options{SkipNER: true}, 1) }

// BenchmarkNew loads the models an Extractor needs: its time and
// allocations are the start-up cost of every nlp run.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		mustNew(b, Options{})
	}
}
