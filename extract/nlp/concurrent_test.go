package nlp

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
)

// TestExtractor_Concurrent extracts the chunks of the Re-DocRED sample from
// four goroutines sharing one Extractor (its tables, NER and span caches)
// and must give every chunk the graph a lone extractor gives it.
func TestExtractor_Concurrent(t *testing.T) {
	_, docs := goldDocs(t, "gold/redocred_dev_revised_first100.json", eval.ReadDocRED)
	docs = docs[:40]
	cfg := extract.DefaultConfig()
	type job struct {
		doc   extract.Document
		chunk extract.Chunk
	}
	var jobs []job
	for _, d := range docs {
		for _, c := range extract.Split(d, cfg.ChunkSize, cfg.Overlap, false) {
			jobs = append(jobs, job{d, c})
		}
	}
	lone := mustNew(t, Options{})
	want := make([]extract.Graph, len(jobs))
	for i, j := range jobs {
		res, err := lone.Extract(context.Background(), j.doc, j.chunk)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = res.Graph
	}
	shared := mustNew(t, Options{})
	got := make([]extract.Graph, len(jobs))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(jobs); i += 4 {
				res, err := shared.Extract(context.Background(), jobs[i].doc, jobs[i].chunk)
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = res.Graph
			}
		}()
	}
	wg.Wait()
	for i := range jobs {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("chunk %v: concurrent graph differs from a lone extractor's", jobs[i].chunk.Ref())
		}
	}
}
