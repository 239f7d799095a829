package csvmap

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
)

// personTable is a node table of n rows with a name, an age and a note
// of pad bytes.
func personTable(n, pad int) string {
	var b strings.Builder
	b.WriteString("id,name,age,note\n")
	note := strings.Repeat("y", pad)
	for i := range n {
		fmt.Fprintf(&b, "p%d,Person %d,%d,%s\n", i, i, i%90, note)
	}
	return b.String()
}

// peakHeap samples the heap's objects every 2 ms while f runs and returns
// the largest figure above what the heap held before f.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	var peak atomic.Uint64
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			peak.Store(max(peak.Load(), read()))
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
	return max(peak.Load(), read(), base) - base
}

// The tables of a run are read row by row and stop at the row past
// MaxRows, with an error naming the table and line, over all the run's
// tables.
func TestMapAll_MaxRows(t *testing.T) {
	t.Parallel()
	// Rows without an id are counted as cheaply as any (and fail).
	half := "id,name\n" + strings.Repeat(",x\n", MaxRows/2)
	docs := []extract.Document{{ID: 1, Name: "Person.csv", Content: half}, {ID: 2, Name: "data/Company.csv", Content: half + "c1,C\n"}}
	_, err := MapAll(docs, Options{})
	want := fmt.Sprintf("Company.csv line %d: the tables of the run have more than %d rows in all", MaxRows/2+2, MaxRows)
	if extract.KindOf(err) != extract.KindInvalid || err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%d rows in two tables: err = %v, want %q", MaxRows+1, err, want)
	}
	docs[1].Content = half
	if _, err := MapAll(docs, Options{}); err != nil {
		t.Fatalf("%d rows in two tables: %v", MaxRows, err)
	}
}

// BenchmarkMapAll_Memory maps a 15 MB node table (150,000 rows) and one
// of a million short rows, and reports the peak heap above idle.
func BenchmarkMapAll_Memory(b *testing.B) {
	for _, c := range []struct {
		name    string
		n, pad  int
		wantErr bool
	}{{"15MB", 150_000, 70, false}, {"1M-rows", 1_000_000, 0, false}} {
		doc := extract.Document{ID: 1, Name: "Person.csv", Content: personTable(c.n, c.pad)}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				var err error
				var res []Result
				peak := peakHeap(func() { res, err = MapAll([]extract.Document{doc}, Options{}) })
				if err != nil {
					b.Log(err)
				} else {
					b.ReportMetric(float64(len(res[0].Graph.Nodes)), "nodes")
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			}
		})
	}
}
