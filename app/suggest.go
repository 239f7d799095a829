package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// SuggestOptions choose who drafts a schema.
type SuggestOptions struct {
	// Provider is gemini or openai to ask a model; empty or none drafts
	// offline.
	Provider extract.Provider
	// Model is the provider's model (empty: its configured one).
	Model string
}

// Suggest drafts a schema from sample documents, nothing stored: the
// draft is the caller's to show, edit and save. Offline (see
// kag.SuggestSchema) the nlp extractor reads them in memory (at most
// suggestOfflineBytes of them, spread over them); with a
// provider a model reads passages sampled from them (see
// kag.SuggestSample), asked once through the call cache, and its answer
// is the draft whole or an error naming what could not be read.
func (s *Schemas) Suggest(ctx context.Context, name string, docs []extract.Document, o SuggestOptions) (*schema.Schema, error) {

	if len(docs) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "give at least one sample document")
	}
	if !extract.Offline(o.Provider) {
		return s.suggestByModel(ctx, name, docs, o)
	}
	cfg := extract.DefaultConfig()
	ex, err := s.models.Extractor(ctx, cfg)
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
	jobs = spreadJobs(jobs, suggestOfflineBytes)
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

// suggestOfflineBytes bounds the text an offline suggestion reads: of
// larger samples it reads chunks spread evenly over them, so a draft of
// an 18 MB document holds a heavy request slot for seconds, not minutes.
// The types and relations of a corpus show in a megabyte of it.
const suggestOfflineBytes = 1 << 20

// spreadJobs returns jobs whole when their chunks hold at most limit
// bytes of text, else evenly spaced ones (the first always) holding at
// most that much.
func spreadJobs(jobs []extract.Job, limit int) []extract.Job {
	total := 0
	for _, j := range jobs {
		total += len(j.Chunk.Text)
	}
	if total <= limit {
		return jobs
	}
	var out []extract.Job
	kept := 0
	keep := max(1, len(jobs)*limit/total)
	for k := range keep {
		j := jobs[k*len(jobs)/keep]
		if kept+len(j.Chunk.Text) > limit && len(out) > 0 {
			break
		}
		out = append(out, j)
		kept += len(j.Chunk.Text)
	}
	return out
}

// suggestByModel asks o's provider for a schema of passages sampled
// from docs. A provider that is not configured is refused naming what
// it needs. An answer that cannot be read is an invalid error naming the
// problem, and its call is marked bad so asking again asks the model
// again rather than the cache.
func (s *Schemas) suggestByModel(ctx context.Context, name string, docs []extract.Document, o SuggestOptions) (*schema.Schema, error) {

	if !slices.Contains(extract.Providers, o.Provider) {
		return nil, extract.Errorf(extract.KindInvalid, "unknown provider %q (use gemini or openai, or none to suggest offline)", o.Provider)
	}
	if !s.models.providers.Has(o.Provider) {
		return nil, extract.Errorf(extract.KindInvalid, "the %s provider is not configured: set %s, or suggest offline without a provider", o.Provider, needs(o.Provider))
	}
	cfg := extract.DefaultConfig()
	cfg.Provider, cfg.Model = o.Provider, o.Model
	client, model, err := s.models.client(ctx, cfg)
	if err != nil {
		return nil, err
	}
	passages := kag.SuggestSample(docs)
	if len(passages) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "the sample documents hold no text")
	}
	resp, err := client.Complete(ctx, kag.SuggestRequest(passages))
	if err != nil {
		return nil, err
	}
	s.log.
		Info("schema suggested by a model", "provider", o.Provider, "model", model, "passages", len(passages),
			"cached", resp.Record.Cached, "prompt_tokens", resp.Record.PromptTokens, "output_tokens", resp.Record.OutputTokens)
	sc, err := kag.ParseSuggestion(resp.Text, name)
	if err != nil {
		if resp.Record.Key != "" {
			if err := s.st.MarkCallsBad(ctx, []string{resp.Record.Key}); err != nil {
				return nil, err
			}
		}
		return nil, extract.Errorf(extract.KindInvalid, "the %s model's schema could not be read (%s); nothing was drafted: ask again, or suggest offline without a provider",
			o.Provider, strings.TrimPrefix(err.Error(), kag.ErrMalformedSchema.Error()+": "))
	}
	sc.Description = fmt.Sprintf("Drafted by %s from %d passage%s of sample documents; review before use.", model, len(passages), plural(len(passages)))
	return sc, nil
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
