package llm_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// BenchmarkClient_Concurrent drives 64 calls at concurrency 8 through the
// policy wrapper against the fake server at 200 ms latency and reports the
// throughput against the ideal C/latency.
func BenchmarkClient_Concurrent(b *testing.B) {
	const (
		latency     = 200 * time.Millisecond
		concurrency = 8
		calls       = 64
	)
	srv := fakellm.New(b, fakellm.Options{Latency: latency, Rules: []fakellm.Rule{{Text: "entity<|#|>A<|#|>b<|#|>c\n<|COMPLETE|>"}}})
	for name, c := range providers(b, srv) {
		b.Run(name, func(b *testing.B) {
			client := llm.WithPolicy(c, llm.Policy{Concurrency: concurrency})
			var elapsed time.Duration
			n := 0
			for b.Loop() {
				start := time.Now()
				var wg sync.WaitGroup
				for range calls {
					wg.Go(func() {
						if _, err := client.Complete(context.Background(), chat("x")); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
				elapsed += time.Since(start)
				n += calls
			}
			perSec := float64(n) / elapsed.Seconds()
			b.ReportMetric(perSec, "calls/s")
			b.ReportMetric(100*perSec/(float64(concurrency)/latency.Seconds()), "%ideal")
		})
	}
}
