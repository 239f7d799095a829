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
// splitting the tables as text. A table is split into chunks of
// Config.TableRows rows (one chunk in versions made before), stored as a
// chunk set of their own, so the version page's chunk view shows the rows
// with their mentions highlighted. The types come from the version's
// pinned schema (the default schema when none is pinned). The run's node
// tables are read first (csvmap.NewTables), so references resolve across
// files (an edge table's src names a row of the node table); then each
// chunk is mapped when its job runs and written through the sink as one
// chunk result, so a run holds one chunk's graph at a time, and an
// interrupted run skips the chunks already written.

// planCSV plans the CSV track (see the comment at the top of this file).
func (pl *pipeline) planCSV(ctx context.Context, v record.Version, docs []extract.Document) (track, error) {
	cfg := v.Config
	opts, err := pl.models.csvOptions(ctx, cfg)
	if err != nil {
		return track{}, err
	}
	tables, err := csvmap.NewTables(docs, opts)
	if err != nil {
		return track{}, err
	}
	var jobs []extract.Job
	for i := range docs {
		d := &docs[i]
		chunks := csvmap.RowChunks(*d, cfg.TableRows)
		if err := pl.store.SaveChunks(ctx, d.ID, ChunkSetFor(cfg, *d), chunks); err != nil {
			return track{}, err
		}
		for _, ch := range chunks {
			jobs = append(jobs, extract.Job{Doc: d, Chunk: ch})
		}
		// How each table was read, on the version's page: a table of
		// triples whose header was not recognised reads as nodes.
		if err := pl.store.AppendNote(ctx, v.ID, d.Name+" was read as "+csvmap.LayoutOf(*d, opts)+"."); err != nil {
			return track{}, err
		}
	}
	// One chunk is mapped while the one before is merged: mapping is the
	// quick part, so more at once would only hold more graphs waiting
	// for the merge.
	return track{jobs: jobs, ex: csvChunks{tables}, concurrency: 1}, nil
}

// csvChunks is the extract.Extractor of a CSV run: it maps the rows of
// a table's chunk.
type csvChunks struct{ t *csvmap.Tables }

// Extract maps the chunk's rows.
func (m csvChunks) Extract(_ context.Context, doc extract.Document, ch extract.Chunk) (extract.ChunkResult, error) {
	res := m.t.Map(doc, ch)
	return extract.ChunkResult{Graph: res.Graph, Failures: res.Failures}, nil
}

// csvOptions converts the run's schema (the pinned version, else the
// built-in default) into mapping options.
func (m *Models) csvOptions(ctx context.Context, cfg extract.Config) (csvmap.Options, error) {
	sc := schema.Default()
	if cfg.SchemaName != "" {
		s, _, err := m.store.SchemaVersion(ctx, cfg.SchemaName, cfg.SchemaVersion)
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
func (pl *pipeline) checkTables(ctx context.Context, cfg extract.Config, ids []int) error {
	rows := 0
	for _, id := range ids {
		info, err := pl.store.DocumentInfo(ctx, id)
		if err != nil || TrackOf(cfg, extract.Document{ID: info.ID, Name: info.Name, Kind: info.Kind}) != TrackCSV {
			continue
		}
		d, err := pl.store.Document(ctx, id)
		if err != nil {
			continue
		}
		if rows, err = csvmap.CountRows(d, rows); err != nil {
			return err
		}
	}
	return nil
}
