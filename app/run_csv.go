package app

import (
	"context"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/csvmap"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/store"
)

// CSV runs
//
// When every document of an nlp run is a CSV table, the run maps rows to
// nodes and edges with the structured chain (extract/csvmap) instead of
// splitting the tables as text. Each document is one chunk holding the whole
// table, stored under the run's usual chunk settings, so the version page's
// chunk view shows the table with each row's mentions highlighted. The
// types come from the version's pinned schema (the default schema when none
// is pinned). The documents are mapped together, so references resolve
// across files (an edge table's src names a row of the node table), and each
// document's graph and row failures are written through the sink as one
// chunk result: an interrupted run skips the tables already written.

// useCSV reports whether a run maps CSV rows: the nlp strategy when every
// document is a CSV table.
func useCSV(cfg extract.Config, docs []extract.Document) bool {
	if cfg.Strategy != extract.StrategyNLP && cfg.Strategy != "" {
		return false
	}
	if len(docs) == 0 {
		return false
	}
	for _, d := range docs {
		if d.Kind != extract.DocCSV {
			return false
		}
	}
	return true
}

// runCSV executes a CSV run (see the comment at the top of this file).
func (a *App) runCSV(ctx context.Context, v store.Version, docs []extract.Document, progress func(extract.Progress)) error {
	cfg := v.Config
	settings := chunkSettings(cfg)
	for _, d := range docs {
		ch := extract.Chunk{DocumentID: d.ID, Index: 0, Text: d.Content, Start: 0, End: len(d.Content), Tokens: extract.EstimateTokens(d.Content)}
		if err := a.store.SaveChunks(ctx, d.ID, settings, []extract.Chunk{ch}); err != nil {
			return err
		}
	}
	if err := a.store.StartVersion(ctx, v.ID, len(docs)); err != nil {
		return err
	}
	opts, err := a.csvOptions(ctx, cfg)
	if err != nil {
		return err
	}
	begin := time.Now()
	results, err := csvmap.MapAll(docs, opts)
	if err != nil {
		return err
	}
	sink := a.store.Sink(v.ID, sinkFragments(cfg))
	finished, err := sink.Finished(ctx)
	if err != nil {
		return err
	}
	nodes, edges := map[string]bool{}, map[string]bool{}
	done := 0
	count := func(g extract.Graph) {
		for _, n := range g.Nodes {
			nodes[n.Key] = true
		}
		for _, e := range g.Edges {
			edges[e.Key()] = true
		}
	}
	report := func() {
		if progress != nil {
			progress(extract.Progress{ChunksDone: done, ChunksTotal: len(docs), Nodes: len(nodes), Edges: len(edges), Elapsed: time.Since(begin)})
		}
	}
	for i, d := range docs {
		if finished[extract.ChunkRef{DocumentID: d.ID}] {
			done++
			count(results[i].Graph)
		}
	}
	report()
	for i, d := range docs {
		ref := extract.ChunkRef{DocumentID: d.ID}
		if finished[ref] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		res := extract.ChunkResult{Chunk: ref, Graph: results[i].Graph, Failures: results[i].Failures, Elapsed: time.Since(start)}
		if err := sink.WriteChunk(ctx, res); err != nil {
			return err
		}
		count(res.Graph)
		done++
		report()
	}
	return nil
}

// csvOptions converts the run's schema (the pinned version, else the
// built-in default) into mapping options.
func (a *App) csvOptions(ctx context.Context, cfg extract.Config) (csvmap.Options, error) {
	sc := schema.Default()
	if cfg.SchemaName != "" {
		s, _, err := a.store.SchemaVersion(ctx, cfg.SchemaName, cfg.SchemaVersion)
		if err != nil {
			return csvmap.Options{}, err
		}
		sc = s
	}
	return csvmap.FromSchema(sc), nil
}
