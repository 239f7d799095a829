package store_test

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/nlp"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// synthGraph builds n nodes and n edges (a ring with chords).
func synthGraph(n int) extract.Graph {
	g := extract.Graph{Nodes: make([]extract.Node, n), Edges: make([]extract.Edge, n)}
	for i := 0; i < n; i++ {
		g.Nodes[i] = extract.Node{Key: fmt.Sprintf("n%d", i), Name: fmt.Sprintf("Node %d", i), Type: "Person",
			Description: "A synthetic node used to measure bulk writes."}
		g.Edges[i] = extract.Edge{Source: fmt.Sprintf("n%d", i), Target: fmt.Sprintf("n%d", (i*7+1)%n), Label: "knows", Weight: 1}
	}
	return g
}

// randomKeyGraph is synthGraph with keys in random order, as in a real
// graph: each key is a random 16-digit hex number.
func randomKeyGraph(n int) extract.Graph {
	g := synthGraph(n)
	r := rand.New(rand.NewPCG(uint64(n), 1))
	keys := make(map[string]string, n)
	for i := range g.Nodes {
		k := fmt.Sprintf("%016x", r.Uint64())
		keys[g.Nodes[i].Key] = k
		g.Nodes[i].Key = k
	}
	for i := range g.Edges {
		g.Edges[i].Source, g.Edges[i].Target = keys[g.Edges[i].Source], keys[g.Edges[i].Target]
	}
	return g
}

// BenchmarkWriteGraph writes 25,000 nodes + 25,000 edges (50,000 elements)
// in batched multi-row upserts, with sequential keys ("batched") and random
// ones ("random-keys"), and the same graph row at a time, on each
// database. The elements/s metric is what to compare. On a shared machine
// the load changes between sub-benchmarks, so "paired" does both in every
// iteration, one after the other, and reports their ratio as well.
func BenchmarkWriteGraph(b *testing.B) {
	const n = 25000
	g := synthGraph(n)
	ctx := context.Background()
	batched := func(b *testing.B, s *store.Store, name string) {
		v := mustVersion(b, s, name)
		if err := s.WriteGraph(ctx, v.ID, g); err != nil {
			b.Fatal(err)
		}
	}
	rows := func(b *testing.B, s *store.Store, name string) {
		v := mustVersion(b, s, name)
		client := store.EntClient(s)
		for _, nd := range g.Nodes {
			if err := client.Node.Create().SetVersionID(v.ID).SetKey(nd.Key).SetName(nd.Name).
				SetType(nd.Type).SetDescription(nd.Description).Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
		for _, e := range g.Edges {
			if err := client.Edge.Create().SetVersionID(v.ID).SetSource(e.Source).SetTarget(e.Target).
				SetLabel(e.Label).SetWeight(e.Weight).Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	random := randomKeyGraph(n)
	for _, be := range backends(b) {
		b.Run(be.name+"/random-keys", func(b *testing.B) {
			s := be.open(b)
			for i := 0; i < b.N; i++ {
				v := mustVersion(b, s, fmt.Sprintf("random-%d", i))
				if err := s.WriteGraph(ctx, v.ID, random); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(2*n*b.N)/b.Elapsed().Seconds(), "elements/s")
		})
		b.Run(be.name+"/batched", func(b *testing.B) {
			s := be.open(b)
			for i := 0; i < b.N; i++ {
				batched(b, s, fmt.Sprintf("bench-%d", i))
			}
			b.ReportMetric(float64(2*n*b.N)/b.Elapsed().Seconds(), "elements/s")
		})
		b.Run(be.name+"/row-at-a-time", func(b *testing.B) {
			s := be.open(b)
			for i := 0; i < b.N; i++ {
				rows(b, s, fmt.Sprintf("rows-%d", i))
			}
			b.ReportMetric(float64(2*n*b.N)/b.Elapsed().Seconds(), "elements/s")
		})
		b.Run(be.name+"/paired", func(b *testing.B) {
			s := be.open(b)
			var tb, tr time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				batched(b, s, fmt.Sprintf("bench-%d", i))
				tb += time.Since(start)
				start = time.Now()
				rows(b, s, fmt.Sprintf("rows-%d", i))
				tr += time.Since(start)
			}
			b.ReportMetric(float64(2*n*b.N)/tb.Seconds(), "batched-elements/s")
			b.ReportMetric(float64(2*n*b.N)/tr.Seconds(), "row-elements/s")
			b.ReportMetric(tr.Seconds()/tb.Seconds(), "x-row")
		})
	}
}

// carolPath finds A Christmas Carol (see internal/testkit).
func carolPath(tb testing.TB) string {
	tb.Helper()
	return testkit.Path(tb, "corpora/a_christmas_carol_gutenberg24022.txt")
}

// timedSink measures the time spent writing chunks.
type timedSink struct {
	extract.Sink
	mu    sync.Mutex
	spent time.Duration
}

func (t *timedSink) WriteChunk(ctx context.Context, res extract.ChunkResult) error {
	start := time.Now()
	err := t.Sink.WriteChunk(ctx, res)
	t.mu.Lock()
	t.spent += time.Since(start)
	t.mu.Unlock()
	return err
}

// discard is a sink that keeps nothing: the extraction alone.
type discard struct{}

func (discard) Finished(context.Context) (map[extract.ChunkRef]bool, error) { return nil, nil }
func (discard) WriteChunk(context.Context, extract.ChunkResult) error       { return nil }

// BenchmarkRunCarol runs the whole nlp pipeline on A Christmas Carol (split,
// extract, merge every chunk into a fresh version through the store's Sink)
// on each database, with the default configuration. "none" is the same run
// into a sink that keeps nothing, for comparison. KB/s counts the document's
// bytes per second of wall time; KB/cpu-s per second of this process's CPU
// time (user + system, so a figure per core that holds on a busy machine;
// a PostgreSQL server's own CPU is not in it); sink-ms/op is the time spent
// inside WriteChunk, summed over concurrent chunks (waits included).
func BenchmarkRunCarol(b *testing.B) {
	data, err := os.ReadFile(carolPath(b))
	if err != nil {
		b.Fatal(err)
	}
	cfg := extract.DefaultConfig()
	run := func(b *testing.B, s *store.Store) {
		ctx := context.Background()
		doc, err := extract.ReadDocument("carol.txt", data, 0)
		if err != nil {
			b.Fatal(err)
		}
		if s != nil {
			if doc, _, err = s.AddDocument(ctx, doc); err != nil {
				b.Fatal(err)
			}
		} else {
			doc.ID = 1
		}
		var sinkTime, cpu time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			ex, err := nlp.New(nlp.Options{}) // cold caches every run
			if err != nil {
				b.Fatal(err)
			}
			var sink extract.Sink = discard{}
			var ts *timedSink
			if s != nil {
				v, err := s.NewVersion(ctx, fmt.Sprintf("carol-%d", i), cfg, []int{doc.ID}, "")
				if err != nil {
					b.Fatal(err)
				}
				ts = &timedSink{Sink: s.Sink(v.ID, cfg.MaxFragments)}
				sink = ts
			}
			b.StartTimer()
			before := cpuTime(b)
			jobs, err := extract.Plan([]extract.Document{doc}, cfg)
			if err != nil {
				b.Fatal(err)
			}
			if err := extract.RunJobs(ctx, jobs, cfg.Concurrency, ex, sink, nil); err != nil {
				b.Fatal(err)
			}
			cpu += cpuTime(b) - before
			if ts != nil {
				sinkTime += ts.spent
			}
		}
		kbs := float64(len(doc.Content)) * float64(b.N) / 1000 / b.Elapsed().Seconds()
		b.ReportMetric(kbs, "KB/s")
		b.ReportMetric(float64(len(doc.Content))*float64(b.N)/1000/cpu.Seconds(), "KB/cpu-s")
		b.ReportMetric(float64(sinkTime.Milliseconds())/float64(b.N), "sink-ms/op")
	}
	b.Run("none", func(b *testing.B) { run(b, nil) })
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) { run(b, be.open(b)) })
	}
}

// cpuTime is the CPU time this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func mustVersion(tb testing.TB, s *store.Store, name string) record.Version {
	tb.Helper()
	ctx := context.Background()
	d, err := extract.ReadDocument(name+".txt", []byte("bench "+name), extract.DefaultMaxBytes)
	if err != nil {
		tb.Fatal(err)
	}
	d, _, err = s.AddDocument(ctx, d)
	if err != nil {
		tb.Fatal(err)
	}
	v, err := s.NewVersion(ctx, name, extract.DefaultConfig(), []int{d.ID}, "")
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// BenchmarkWriteGraphVsImport writes n nodes and 3n edges with random keys
// into a fresh SQLite store, and the same rows into another fresh store's
// tables with the sqlite3 shell's .import (one transaction per table, the
// same indexes), and reports the ratio of the two times. It is skipped
// without the sqlite3 shell on PATH.
func BenchmarkWriteGraphVsImport(b *testing.B) {
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		b.Skip("no sqlite3 shell on PATH")
	}
	for _, n := range []int{10_000, 100_000} {
		g := randomKeyGraph(n)
		g.Edges = nil
		r := rand.New(rand.NewPCG(uint64(n), 2))
		seen := map[[2]int]bool{}
		for len(g.Edges) < 3*n {
			s, t := r.IntN(n), r.IntN(n)
			if seen[[2]int{s, t}] {
				continue
			}
			seen[[2]int{s, t}] = true
			g.Edges = append(g.Edges, extract.Edge{Source: g.Nodes[s].Key, Target: g.Nodes[t].Key, Label: "knows", Weight: 1})
		}
		// The nodes' degrees, which the import writes as the store does.
		degree := map[string]int{}
		for _, e := range g.Edges {
			degree[e.Source]++
			if e.Target != e.Source {
				degree[e.Target]++
			}
		}
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			ctx := context.Background()
			var tw, ti time.Duration
			for i := 0; i < b.N; i++ {
				s := MustOpen(b, sqliteDB(b))
				v := mustVersion(b, s, "w")
				start := time.Now()
				if err := s.WriteGraph(ctx, v.ID, g); err != nil {
					b.Fatal(err)
				}
				tw += time.Since(start)

				dir := b.TempDir()
				t := MustOpen(b, store.Options{DataDir: dir})
				v = mustVersion(b, t, "i")
				t.Close()
				nodes, edges := filepath.Join(dir, "nodes.csv"), filepath.Join(dir, "edges.csv")
				writeCSV(b, nodes, len(g.Nodes), func(w *csv.Writer, i int) []string {
					nd := g.Nodes[i]
					return []string{strconv.Itoa(i + 1), nd.Key, nd.Name, nd.Type, nd.Description, "", strconv.Itoa(degree[nd.Key]), strconv.Itoa(v.ID)}
				})
				writeCSV(b, edges, len(g.Edges), func(w *csv.Writer, i int) []string {
					e := g.Edges[i]
					return []string{strconv.Itoa(i + 1), e.Source, e.Target, e.Label, "", "", "1", "", strconv.Itoa(v.ID)}
				})
				cmd := exec.Command(shell, filepath.Join(dir, store.DefaultSQLiteFile))
				cmd.Stdin = strings.NewReader(".mode csv\n.import " + nodes + " nodes\n.import " + edges + " edges\n")
				start = time.Now()
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					b.Fatalf("sqlite3 .import: %v %.500s", err, out)
				}
				ti += time.Since(start)
			}
			b.ReportMetric(tw.Seconds()/float64(b.N), "write-s")
			b.ReportMetric(ti.Seconds()/float64(b.N), "import-s")
			b.ReportMetric(tw.Seconds()/ti.Seconds(), "x-import")
		})
	}
}

func writeCSV(tb testing.TB, path string, n int, row func(w *csv.Writer, i int) []string) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := csv.NewWriter(f)
	for i := 0; i < n; i++ {
		if err := w.Write(row(w, i)); err != nil {
			tb.Fatal(err)
		}
	}
	w.Flush()
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkWriteGraphMemory writes a 100,000-node, 300,000-edge graph with
// random keys on each database and reports the most heap in use above
// what was in use before the write (sampled every 5 ms), beside the heap
// the graph itself takes: peak/graph is the ratio to keep within 2.
func BenchmarkWriteGraphMemory(b *testing.B) {
	const n = 100000
	ctx := context.Background()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapInuse
	g := randomKeyGraph(n)
	r := rand.New(rand.NewPCG(9, 9))
	for range 2 * n { // 3 edges a node, as the other large cases
		g.Edges = append(g.Edges, extract.Edge{Source: g.Nodes[r.IntN(n)].Key, Target: g.Nodes[r.IntN(n)].Key, Label: "met", Weight: 1})
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	graphBytes := ms.HeapInuse - min(ms.HeapInuse, before)
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) {
			s := be.open(b)
			var peak uint64
			for i := 0; b.Loop(); i++ {
				v := mustVersion(b, s, fmt.Sprintf("memory-%d", i))
				runtime.GC()
				runtime.ReadMemStats(&ms)
				base := ms.HeapInuse
				var top uint64
				stop := testkit.SampleHeap(&top)
				err := s.WriteGraph(ctx, v.ID, g)
				stop()
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, top-min(top, base))
			}
			b.ReportMetric(float64(graphBytes)/(1<<20), "graph-MB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(peak)/float64(graphBytes), "peak/graph")
		})
	}
}
