package store_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
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
	r := rand.New(rand.NewPCG(uint64(n), 3))
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%016x", r.Uint64())
	}
	var buf bytes.Buffer
	buf.Grow(45 * 3 * n)
	buf.WriteString("S,P,O\n")
	seen := make(map[[2]int]bool, 3*n)
	add := func(s, o int) bool {
		if seen[[2]int{s, o}] {
			return false
		}
		seen[[2]int{s, o}] = true
		fmt.Fprintf(&buf, "%s,knows,%s\n", names[s], names[o])
		return true
	}
	for s := range n {
		for !add(s, r.IntN(n)) {
		}
	}
	for added := 0; added < 2*n; {
		if add(r.IntN(n), r.IntN(n)) {
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

// BenchmarkBuildTriples builds a version from a triples CSV with random
// keys (10k nodes / 30k edges, then 100k / 300k: 10x the data) into a
// fresh database of each kind per size and iteration, from the document's
// bytes to the stored graph (store the document, map the table, write the
// nodes, edges, mentions and degrees). Both sizes run in every iteration,
// one after the other, so x-10x, the ratio of their times, holds on a busy
// machine; map-s and write-s split the large case. cpu-s is this process's
// CPU time (user + system): all of the work on SQLite, which runs in
// process, and steadier than wall time when other processes share the
// cores; on PostgreSQL it leaves out the server's.
func BenchmarkBuildTriples(b *testing.B) {
	small, large := triplesCSV(10_000), triplesCSV(100_000)
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) {
			var ts, tl, mapL, writeL, cs, cl time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := be.open(b)
				b.StartTimer()
				start, cpu := time.Now(), cpuTime(b)
				buildFromTriples(b, s, small)
				ts += time.Since(start)
				cs += cpuTime(b) - cpu
				b.StopTimer()
				s.Close()
				s = be.open(b)
				b.StartTimer()
				start, cpu = time.Now(), cpuTime(b)
				m, w := buildFromTriples(b, s, large)
				tl += time.Since(start)
				cl += cpuTime(b) - cpu
				mapL += m
				writeL += w
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			n := float64(b.N)
			b.ReportMetric(ts.Seconds()/n, "10k-s")
			b.ReportMetric(tl.Seconds()/n, "100k-s")
			b.ReportMetric(mapL.Seconds()/n, "100k-map-s")
			b.ReportMetric(writeL.Seconds()/n, "100k-write-s")
			b.ReportMetric(tl.Seconds()/ts.Seconds(), "x-10x")
			b.ReportMetric(cs.Seconds()/n, "10k-cpu-s")
			b.ReportMetric(cl.Seconds()/n, "100k-cpu-s")
			b.ReportMetric(cl.Seconds()/cs.Seconds(), "x-10x-cpu")
		})
	}
}
