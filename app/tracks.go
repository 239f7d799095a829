package app

import (
	"context"
	"fmt"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Every document of a run takes its own track: a dialogue goes turn by
// turn into a memory graph (run_dialogue.go), a CSV table is mapped row by
// row through the schema (run_csv.go), and text and Markdown go chunk by
// chunk through the run's strategy. The dialogue strategy reads dialogues
// only. One version holds what every track wrote; the tracks run one after
// the other through extract.RunJobs with one sink, so a resumed run skips
// what any of them finished.

// Track is the way a document goes through a run.
type Track string

// The tracks.
const (
	TrackText     Track = "text"
	TrackCSV      Track = "csv"
	TrackDialogue Track = "dialogue"
)

// TrackOf names the track a document takes in a run of cfg.
func TrackOf(cfg extract.Config, d extract.Document) Track {
	switch {
	case cfg.Strategy == extract.StrategyDialogue || d.Kind == extract.DocDialogue:
		return TrackDialogue
	case d.Kind == extract.DocCSV:
		return TrackCSV
	}
	return TrackText
}

// DialogueDocs keeps the documents of a run that go turn by turn, in
// order; their turns are numbered across them (see run_dialogue.go).
func DialogueDocs(cfg extract.Config, docs []extract.Document) []extract.Document {
	var out []extract.Document
	for _, d := range docs {
		if TrackOf(cfg, d) == TrackDialogue {
			out = append(out, d)
		}
	}
	return out
}

// IsDialogueRun reports whether some documents of a run go turn by turn,
// so the run has a timeline.
func IsDialogueRun(cfg extract.Config, docs []extract.Document) bool {
	return len(DialogueDocs(cfg, docs)) > 0
}

// ChunkSetFor names the chunk set a document's chunks are stored under in
// a run of cfg: dialogues have one chunk per turn whatever the splitter
// settings; CSV tables a chunk per cfg.TableRows rows (one chunk, under
// the splitter settings, in versions made before); the others are split
// per the settings.
func ChunkSetFor(cfg extract.Config, d extract.Document) string {
	switch TrackOf(cfg, d) {
	case TrackDialogue:
		return DialogueChunkSet
	case TrackCSV:
		if cfg.TableRows > 0 {
			return fmt.Sprintf("rows/%d", cfg.TableRows)
		}
	case TrackText:
	}
	return chunkSettings(cfg)
}

// Chunks loads the chunks of one of a version's documents.
func (s *Versions) Chunks(ctx context.Context, v record.Version, docID int) ([]extract.Chunk, error) {
	d, err := s.st.DocumentInfo(ctx, docID)
	if err != nil {
		return nil, err
	}
	return s.st.Chunks(ctx, docID, ChunkSetFor(v.Config, extract.Document{ID: d.ID, Name: d.Name, Kind: d.Kind}))
}

// track is one track's part of a run: its jobs, the extractor and
// concurrency they run with, and what follows once they are all written.
type track struct {
	name        Track
	jobs        []extract.Job
	ex          extract.Extractor
	concurrency int
	// sink is the track's own sink, when it is not the version's plain one.
	sink  extract.Sink
	after func(ctx context.Context) error
	// merged says the chunk jobs merged the track's chunks (text in a
	// final job: see mergedText).
	merged bool
}

// planTracks saves the chunks of every document and plans each track that
// has documents.
func (pl *pipeline) planTracks(ctx context.Context, v record.Version, docs []extract.Document) ([]track, error) {
	var dialogues, tables, texts []extract.Document
	for _, d := range docs {
		switch TrackOf(v.Config, d) {
		case TrackDialogue:
			dialogues = append(dialogues, d)
		case TrackCSV:
			tables = append(tables, d)
		default:
			texts = append(texts, d)
		}
	}
	var tracks []track
	for _, plan := range []struct {
		docs []extract.Document
		fn   func(context.Context, record.Version, []extract.Document) (track, error)
	}{{texts, pl.planText}, {tables, pl.planCSV}, {dialogues, pl.planDialogue}} {
		if len(plan.docs) == 0 {
			continue
		}
		r, err := plan.fn(ctx, v, plan.docs)
		if err != nil {
			return nil, err
		}
		tracks = append(tracks, r)
	}
	return tracks, nil
}

// planText splits text documents per the settings for the run's strategy.
func (pl *pipeline) planText(ctx context.Context, v record.Version, docs []extract.Document) (track, error) {
	cfg := v.Config
	jobs, err := extract.Plan(docs, cfg)
	if err != nil {
		return track{}, err
	}
	byDoc := map[int][]extract.Chunk{}
	for _, j := range jobs {
		byDoc[j.Doc.ID] = append(byDoc[j.Doc.ID], j.Chunk)
	}
	for _, d := range docs {
		if err := pl.store.SaveChunks(ctx, d.ID, chunkSettings(cfg), byDoc[d.ID]); err != nil {
			return track{}, err
		}
	}
	ex, err := pl.models.Extractor(ctx, cfg)
	if err != nil {
		return track{}, err
	}
	after := func(ctx context.Context) error { return pl.summarize(ctx, v, ex) }
	// A chunk the provider fails on is recorded and the others go on.
	return track{name: TrackText, jobs: jobs, ex: ex, concurrency: cfg.Concurrency, sink: pl.store.FailureSink(v.ID, sinkFragments(cfg)), after: after}, nil
}

// runTracks runs the tracks one after the other and reports progress over
// all of them.
func (pl *pipeline) runTracks(ctx context.Context, v record.Version, tracks []track, progress func(extract.Progress)) error {
	total := 0
	for _, r := range tracks {
		total += len(r.jobs)
	}
	sink := pl.store.Sink(v.ID, sinkFragments(v.Config))
	var before extract.Progress // what the tracks before this one did
	for _, r := range tracks {
		var last extract.Progress
		report := func(p extract.Progress) {
			last = p
			if progress != nil {
				progress(extract.Progress{ChunksDone: before.ChunksDone + p.ChunksDone, ChunksTotal: total,
					Nodes: before.Nodes + p.Nodes, Edges: before.Edges + p.Edges, Elapsed: before.Elapsed + p.Elapsed})
			}
		}
		rs := sink
		if r.sink != nil {
			rs = r.sink
		}
		if r.merged {
			if err := pl.mergedText(ctx, v, r, report); err != nil {
				return err
			}
		} else if err := extract.RunJobs(ctx, r.jobs, r.concurrency, r.ex, rs, report); err != nil {
			return err
		}
		before.ChunksDone += last.ChunksDone
		before.Nodes += last.Nodes
		before.Edges += last.Edges
		before.Elapsed += last.Elapsed
		if r.after != nil {
			if err := r.after(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
