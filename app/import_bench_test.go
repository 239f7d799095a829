package app

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// neo4jNodes writes a neo4j-admin nodes file of n rows, each with a name,
// a label and a text property of pad bytes.
func neo4jNodes(w io.Writer, n, pad int) {
	fmt.Fprintln(w, "id:ID,name,:LABEL,note")
	text := strings.Repeat("x", pad)
	for i := range n {
		fmt.Fprintf(w, "n%d,Name %d,Person,%s\n", i, i, text)
	}
}

// neo4jEdges writes a relationships file of m rows among n nodes.
func neo4jEdges(w io.Writer, n, m int) {
	fmt.Fprintln(w, ":START_ID,:END_ID,:TYPE")
	for i := range m {
		fmt.Fprintf(w, "n%d,n%d,KNOWS\n", i%n, (i*7+1)%n)
	}
}

// csvZip zips the named files.
func csvZip(b testing.TB, files map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			b.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// peakHeap samples the heap's live and unswept objects every 2 ms while f
// runs and returns the largest figure, in bytes above what the heap held
// before f.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if v := read(); v > peak.Load() {
		peak.Store(v)
	}
	return max(peak.Load(), base) - base
}

// BenchmarkImportCSV_Memory imports neo4j CSV exports (a 15 MB zip of
// nodes and edges, a nodes file of a million rows, which is refused at
// the import's memory limit) and reports the peak heap above idle and
// the nodes stored (0 when refused). The server's RSS for the same files
// is in the README.
func BenchmarkImportCSV_Memory(b *testing.B) {
	var nodes15, edges15, rows1M bytes.Buffer
	neo4jNodes(&nodes15, 100_000, 60)
	neo4jEdges(&edges15, 100_000, 300_000)
	neo4jNodes(&rows1M, 1_000_000, 0)
	cases := []struct {
		name, file string
		data       []byte
	}{
		{"15MB-zip", "graph.zip", csvZip(b, map[string][]byte{"nodes.csv": nodes15.Bytes(), "edges.csv": edges15.Bytes()})},
		{"1M-rows", "nodes.csv", rows1M.Bytes()},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			st, err := store.Open(context.Background(), store.Options{DataDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			a := newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Providers{Embedder: extract.EmbedderOffline})
			for i := 0; b.Loop(); i++ {
				var v record.Version
				var err error
				peak := peakHeap(func() {
					v, err = a.Curation.ImportGraph(context.Background(), fmt.Sprintf("imp%d", i), c.file, c.data, "csv")
				})
				if err != nil {
					b.Logf("%s: %v", c.name, err)
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
				b.ReportMetric(float64(v.Nodes), "nodes")
			}
		})
	}
}
