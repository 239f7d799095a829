package handlers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// TestGraphAPI_MatchesWholeGraph checks that the streamed graph API
// answers every filter and limit over HTTP as extract.SelectSubgraph
// answers it over the whole graph.
func TestGraphAPI_MatchesWholeGraph(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	g := synthetic(600, 1800)
	g.Edges = append(g.Edges, extract.Edge{Source: g.Nodes[0].Key, Target: "nobody", Label: "dangling"},
		extract.Edge{Source: g.Nodes[1].Key, Target: g.Nodes[1].Key, Label: "self"})
	v := a.MustGraphVersion(t, "api-equivalence", "synthetic", g)
	ref, err := a.App.Graphs.Load(context.Background(), v.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"", "limit=50", "limit=600", "limit=5000", "limit=9223372036854775807", "types=person,EVENT", "min_degree=8",
		"q=entity%201", "q=N00&limit=30", "types=Work&min_degree=3&limit=20&q=9"} {
		var got extract.Subgraph
		a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/graph?%s", v.ID, raw), http.StatusOK, &got)
		q := extract.SubgraphQuery{Q: query(raw, "q"), Limit: atoi(query(raw, "limit")), MinDegree: atoi(query(raw, "min_degree"))}
		if ts := query(raw, "types"); ts != "" {
			q.Types = strings.Split(ts, ",")
		}
		want, err := extract.SelectSubgraph(ref, q)
		if err != nil {
			t.Fatal(err)
		}
		// Places from the stored layout (made after the first request) are
		// the layout's, not the selection's.
		for i := range got.Nodes {
			got.Nodes[i].Pos = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %d nodes %d edges (matched %d), want %d nodes %d edges (matched %d)", raw,
				len(got.Nodes), len(got.Edges), got.Matched, len(want.Nodes), len(want.Edges), want.Matched)
		}
	}
}

// query reads one parameter of a raw query string, unescaping %20.
func query(raw, name string) string {
	for _, kv := range strings.Split(raw, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return strings.ReplaceAll(v, "%20", " ")
		}
	}
	return ""
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// BenchmarkGraphAPIConcurrent sends four whole-graph requests at once to a
// 100,000-node, 300,000-edge version and reports the server's heap at its
// peak above what it held before (the server runs in this process; the
// clients only read the bodies) and the process's peak resident size.
// Goal: four at once keep the server under 400 MB.
func BenchmarkGraphAPIConcurrent(b *testing.B) {
	a := MustApp(b)
	v := a.MustGraphVersion(b, "big", "synthetic", synthetic(100000, 300000))
	path := fmt.Sprintf("%s/api/versions/%d/graph", a.Server.URL, v.ID)
	var peakHeap uint64
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		var peak uint64
		stop := testkit.SampleHeap(&peak)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := http.Get(path)
				if err != nil {
					b.Error(err)
					return
				}
				defer resp.Body.Close()
				if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
					b.Errorf("status %d: %v", resp.StatusCode, err)
				}
			}()
		}
		wg.Wait()
		stop()
		peakHeap = max(peakHeap, peak-min(peak, base))
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/4-requests")
	b.ReportMetric(float64(peakHeap)/(1<<20), "MB-heap-peak")
	b.ReportMetric(float64(peakRSS())/(1<<20), "MB-process-peak-rss")
}

// peakRSS reads the process's peak resident size (Linux), or 0.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
