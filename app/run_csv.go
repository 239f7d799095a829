package app

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/csvmap"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
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

// planCSV plans the CSV track (see the comment at the top of this file):
// the tables are mapped together first, then each document's result is
// one job.
func (a *App) planCSV(ctx context.Context, v record.Version, docs []extract.Document) (track, error) {
	cfg := v.Config
	settings := chunkSettings(cfg)
	jobs := make([]extract.Job, len(docs))
	for i := range docs {
		d := &docs[i]
		ch := extract.Chunk{DocumentID: d.ID, Index: 0, Text: d.Content, Start: 0, End: len(d.Content), Tokens: extract.EstimateTokens(d.Content)}
		if err := a.store.SaveChunks(ctx, d.ID, settings, []extract.Chunk{ch}); err != nil {
			return track{}, err
		}
		jobs[i] = extract.Job{Doc: d, Chunk: ch}
	}
	opts, err := a.csvOptions(ctx, cfg)
	if err != nil {
		return track{}, err
	}
	results, err := csvmap.MapAll(docs, opts)
	if err != nil {
		return track{}, err
	}
	mapped := csvTables{}
	for i, d := range docs {
		mapped[d.ID] = extract.ChunkResult{Graph: results[i].Graph, Failures: results[i].Failures}
		// How each table was read, on the version's page: a table of
		// triples whose header was not recognised reads as nodes.
		if err := a.store.AppendNote(ctx, v.ID, d.Name+" was read as "+results[i].Layout+"."); err != nil {
			return track{}, err
		}
	}
	return track{jobs: jobs, ex: mapped, concurrency: cfg.Concurrency}, nil
}

// csvTables is the extract.Extractor of a CSV run: the result of each
// table, mapped beforehand, by document ID.
type csvTables map[int]extract.ChunkResult

// Extract returns the table's mapped result.
func (m csvTables) Extract(_ context.Context, doc extract.Document, _ extract.Chunk) (extract.ChunkResult, error) {
	res, ok := m[doc.ID]
	if !ok {
		return res, extract.Errorf(extract.KindInternal, "document %q was not mapped", doc.Name)
	}
	return res, nil
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

// checkTables refuses a run whose CSV tables have more than
// csvmap.MaxRows rows in all before its version is made, naming the table
// and line the mapping would stop at. The tables are read one at a time;
// a document that cannot be read is left for the version's creation to
// refuse.
func (a *App) checkTables(ctx context.Context, cfg extract.Config, ids []int) error {
	rows := 0
	for _, id := range ids {
		info, err := a.store.DocumentInfo(ctx, id)
		if err != nil || TrackOf(cfg, extract.Document{ID: info.ID, Name: info.Name, Kind: info.Kind}) != TrackCSV {
			continue
		}
		d, err := a.store.Document(ctx, id)
		if err != nil {
			continue
		}
		if rows, err = csvmap.CountRows(d, rows); err != nil {
			return err
		}
	}
	return nil
}
