package store_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/csvmap"
	"github.com/kgstudio/kgstudio/store"
)

// triplesCSV is a KAG-style S,P,O table over n subjects named by random
// 16-digit hex numbers, with 3n distinct triples: one from each subject,
// then 2n between random ones. The table maps to n nodes and 3n edges
// whose keys come in random order.
func triplesCSV(n int) []byte {
	return triplesTable(n, 3, []string{"knows"}, func(r *rand.Rand) func() int {
		return func() int { return r.IntN(n) }
	})
}

// triplesTable writes 3n distinct triples over n subjects named by random
// 16-digit hex numbers: one from each subject, then 2n from random ones,
// each under a random one of predicates, to the object objects draws.
func triplesTable(n int, seed uint64, predicates []string, objects func(r *rand.Rand) func() int) []byte {
	r := rand.New(rand.NewPCG(uint64(n), seed))
	object := objects(r)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%016x", r.Uint64())
	}
	predicate := func() int {
		if len(predicates) == 1 {
			return 0
		}
		return r.IntN(len(predicates))
	}
	var buf bytes.Buffer
	buf.Grow(45 * 3 * n)
	buf.WriteString("S,P,O\n")
	seen := make(map[[3]int]bool, 3*n)
	add := func(s, p, o int) bool {
		if seen[[3]int{s, p, o}] {
			return false
		}
		seen[[3]int{s, p, o}] = true
		fmt.Fprintf(&buf, "%s,%s,%s\n", names[s], predicates[p], names[o])
		return true
	}
	for s := range n {
		for !add(s, predicate(), object()) {
		}
	}
	for added := 0; added < 2*n; {
		if add(r.IntN(n), predicate(), object()) {
			added++
		}
	}
	return buf.Bytes()
}

// buildFromTriples stores a triples table as a document of a fresh version
// and builds the version's graph from it the way an nlp run over a CSV
// document does (app/run_csv.go): the table saved as one chunk, mapped by
// the structured chain, written through the version's sink. It returns the
// time spent mapping and writing.
func buildFromTriples(tb testing.TB, s *store.Store, data []byte) (mapTime, writeTime time.Duration) {
	tb.Helper()
	ctx := context.Background()
	doc, err := extract.ReadDocument("SPO.csv", data, len(data))
	if err != nil {
		tb.Fatal(err)
	}
	if doc, _, err = s.AddDocument(ctx, doc); err != nil {
		tb.Fatal(err)
	}
	cfg := extract.DefaultConfig()
	v, err := s.NewVersion(ctx, "triples", cfg, []int{doc.ID}, "")
	if err != nil {
		tb.Fatal(err)
	}
	ch := extract.Chunk{DocumentID: doc.ID, Text: doc.Content, End: len(doc.Content), Tokens: extract.EstimateTokens(doc.Content)}
	if err := s.SaveChunks(ctx, doc.ID, "csv", []extract.Chunk{ch}); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	res, err := csvmap.MapAll([]extract.Document{doc}, csvmap.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if len(res[0].Failures) > 0 {
		tb.Fatalf("mapping failures: %v", res[0].Failures[:1])
	}
	mapTime = time.Since(start)
	start = time.Now()
	if err := s.Sink(v.ID, cfg.MaxFragments).WriteChunk(ctx, extract.ChunkResult{Chunk: ch.Ref(), Graph: res[0].Graph}); err != nil {
		tb.Fatal(err)
	}
	return mapTime, time.Since(start)
}

// triplesZipfCSV is triplesCSV shaped like a real graph: 3n distinct
// triples over n random-key subjects, each subject in at least one, whose
// objects follow a Zipf law (a few hubs named in thousands of rows, most
// nodes in a handful) under one of eight predicates.
func triplesZipfCSV(n int) []byte {
	predicates := make([]string, 8)
	for i := range predicates {
		predicates[i] = fmt.Sprintf("rel%d", i)
	}
	return triplesTable(n, 5, predicates, func(r *rand.Rand) func() int {
		z := rand.NewZipf(r, 1.1, 2, uint64(n-1))
		return func() int { return int(z.Uint64()) }
	})
}

// BenchmarkBuildTriples builds a version from a triples CSV with random
// keys (10k nodes / 30k edges, then 100k / 300k: 10x the data) into a
// fresh database of each kind per build, from the document's bytes to the
// stored graph (store the document, map the table, write the nodes, edges,
// mentions and degrees). Each iteration builds the small table, the large
// one and the small one again, so that x-10x, the large build's time over
// the small builds' mean, compares builds made moments apart on a busy
// machine; x-10x is over all iterations, x-10x-median the median of the
// iterations' own ratios. map-s and write-s split the large case. cpu-s
// is this process's CPU time (user + system): all of the work on SQLite,
// which runs in process, and steadier than wall time when other processes
// share the cores; on PostgreSQL it leaves out the server's.
func BenchmarkBuildTriples(b *testing.B) {
	benchBuildTriples(b, triplesCSV)
}

// BenchmarkBuildTriplesZipf is BenchmarkBuildTriples on tables whose
// objects follow a Zipf law (triplesZipfCSV).
func BenchmarkBuildTriplesZipf(b *testing.B) {
	benchBuildTriples(b, triplesZipfCSV)
}

func benchBuildTriples(b *testing.B, table func(n int) []byte) {
	small, large := table(10_000), table(100_000)
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) {
			var ts, tl, mapL, writeL, cs, cl time.Duration
			var ratios, cpuRatios []float64
			build := func(data []byte) (wall, cpu, mapT, writeT time.Duration) {
				b.StopTimer()
				s := be.open(b)
				// The garbage of the build before is collected here, not
				// during (and on the account of) this one.
				runtime.GC()
				b.StartTimer()
				start, c := time.Now(), cpuTime(b)
				mapT, writeT = buildFromTriples(b, s, data)
				wall, cpu = time.Since(start), cpuTime(b)-c
				b.StopTimer()
				s.Close()
				b.StartTimer()
				return wall, cpu, mapT, writeT
			}
			for i := 0; i < b.N; i++ {
				w1, c1, _, _ := build(small)
				w, c, m, wr := build(large)
				w2, c2, _, _ := build(small)
				ts += (w1 + w2) / 2
				cs += (c1 + c2) / 2
				tl += w
				cl += c
				mapL += m
				writeL += wr
				ratios = append(ratios, 2*w.Seconds()/(w1+w2).Seconds())
				cpuRatios = append(cpuRatios, 2*c.Seconds()/(c1+c2).Seconds())
			}
			n := float64(b.N)
			b.ReportMetric(ts.Seconds()/n, "10k-s")
			b.ReportMetric(tl.Seconds()/n, "100k-s")
			b.ReportMetric(mapL.Seconds()/n, "100k-map-s")
			b.ReportMetric(writeL.Seconds()/n, "100k-write-s")
			b.ReportMetric(tl.Seconds()/ts.Seconds(), "x-10x")
			b.ReportMetric(median(ratios), "x-10x-median")
			b.ReportMetric(cs.Seconds()/n, "10k-cpu-s")
			b.ReportMetric(cl.Seconds()/n, "100k-cpu-s")
			b.ReportMetric(cl.Seconds()/cs.Seconds(), "x-10x-cpu")
			b.ReportMetric(median(cpuRatios), "x-10x-cpu-median")
		})
	}
}

// median is the median of xs (the mean of the middle two for an even
// count); it sorts xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}
