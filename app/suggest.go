package app

import (
	"context"
	"sync"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// Suggest drafts a schema from sample documents (see kag.SuggestSchema):
// the offline extractor reads them in memory, nothing is stored, and the
// draft is the caller's to show, edit and save.
func (s *Schemas) Suggest(ctx context.Context, name string, docs []extract.Document) (*schema.Schema, error) {
	a := s.a
	if len(docs) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "give at least one sample document")
	}
	cfg := extract.DefaultConfig()
	ex, err := a.Extractor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	docs = append([]extract.Document(nil), docs...)
	for i := range docs {
		docs[i].ID = i + 1 // distinct ids for the run's chunks
	}
	jobs, err := extract.Plan(docs, cfg)
	if err != nil {
		return nil, err
	}
	sink := &graphSink{}
	if err := extract.RunJobs(ctx, jobs, cfg.Concurrency, ex, sink, nil); err != nil {
		return nil, err
	}
	chunks := make(map[extract.ChunkRef]extract.Chunk, len(jobs))
	for _, j := range jobs {
		chunks[j.Chunk.Ref()] = j.Chunk
	}
	return kag.SuggestSchema(sink.g, chunks, name, kag.SuggestOptions{}), nil
}

// graphSink merges chunk results into one graph in memory.
type graphSink struct {
	mu sync.Mutex
	g  extract.Graph
}

func (s *graphSink) Finished(context.Context) (map[extract.ChunkRef]bool, error) { return nil, nil }

func (s *graphSink) WriteChunk(_ context.Context, res extract.ChunkResult) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	extract.MergeGraph(&s.g, res.Graph, extract.DefaultConfig().MaxFragments)
	return nil
}
