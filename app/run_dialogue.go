package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Dialogue runs
//
// A dialogue run goes turn by turn instead of chunk by chunk: every
// user+assistant segment (dialogue.Segments) is one "chunk" and one "turn".
//
//   - Numbering. A document may hold several dialogues (a MemoryBank file
//     holds one per user). Their segments are numbered sequentially within
//     the document, in file order: the chunk index of a segment is its
//     position among all segments of the document. Turns (the operation
//     log's turn numbers) run on across the version's documents in the
//     version's document order, so turn = (segments of earlier documents) +
//     chunk index. With one document, turn = chunk index = segment index.
//   - Chunks. A segment is stored as a chunk whose text is the segment's
//     "speaker: text" lines (dialogue.Segment.Text); its byte offsets are
//     those of that text (0 to its length), not offsets into the JSON file.
//   - Memory. Every dialogue has its own memory graph. Node keys are the
//     memory paths (/User/Profile/Name ...), never re-keyed by
//     NormalizeName. When a version holds more than one dialogue, each
//     dialogue's keys are prefixed by its title and a colon
//     ("Emily:/User/Profile/Name") so the users' memories stay apart in the
//     version's graph; the operation log keeps the bare paths.
//   - Strategy. "dialogue" with a provider calls the model once per
//     segment (dialogue.NewLLM); "dialogue" with provider none (or empty)
//     and "nlp" over dialogue documents use the offline extractor.
//   - Resume. Finished segments are skipped and the stored operation log is
//     replayed, so an interrupted run continues with the memory as it stood.
//     When a dialogue is finished its consolidated memory (latest values,
//     earlier ones in the "history" property) is written over the merged
//     per-turn results.

// DialogueUnit is one dialogue of a version with its place in the
// numbering.
type DialogueUnit struct {
	Doc       extract.Document
	Dialogue  *dialogue.Dialogue
	Segments  []dialogue.Segment
	ChunkBase int    // chunk index of the first segment within the document
	TurnBase  int    // turn of the first segment within the version
	Scope     string // node-key prefix; empty when the version holds one dialogue
}

// contains reports whether a version turn belongs to the unit.
func (u DialogueUnit) contains(turn int) bool {
	return turn >= u.TurnBase && turn < u.TurnBase+len(u.Segments)
}

// PlanDialogues parses the documents of a dialogue run and numbers their
// segments (see the comment at the top of this file). A document that is
// not a dialogue is refused with an invalid error.
func PlanDialogues(docs []extract.Document) ([]DialogueUnit, int, error) {
	var units []DialogueUnit
	turn := 0
	for _, doc := range docs {
		if doc.Kind != extract.DocDialogue {
			return nil, 0, extract.Errorf(extract.KindInvalid, "document %q is %s, not a dialogue: the dialogue strategy reads dialogue JSON only", doc.Name, doc.Kind)
		}
		ds, err := dialogue.ParseAll([]byte(doc.Content))
		if err != nil {
			return nil, 0, extract.Wrap(extract.KindInvalid, err, "document %q: %s", doc.Name, extract.MessageOf(err))
		}
		chunk := 0
		for _, d := range ds {
			segs := dialogue.Segments(d)
			units = append(units, DialogueUnit{Doc: doc, Dialogue: d, Segments: segs, ChunkBase: chunk, TurnBase: turn})
			chunk += len(segs)
			turn += len(segs)
		}
	}
	if len(units) > 1 {
		used := map[string]int{}
		for i := range units {
			title := strings.TrimSpace(units[i].Dialogue.Title)
			if title == "" {
				title = "dialogue"
			}
			used[title]++
			if n := used[title]; n > 1 {
				title = fmt.Sprintf("%s (%d)", title, n)
			}
			units[i].Scope = title + ":"
		}
	}
	return units, turn, nil
}

// planDialogue plans the dialogue track (see the comment at the top of
// this file): one job per turn, run one at a time, then each dialogue's
// consolidated memory is written over the merged per-turn values.
func (pl *pipeline) planDialogue(ctx context.Context, v record.Version, docs []extract.Document) (track, error) {
	cfg := v.Config
	units, total, err := PlanDialogues(docs)
	if err != nil {
		return track{}, err
	}
	// Jobs and chunks: one per segment, so the version page lists the turns.
	jobs := make([]extract.Job, 0, total)
	byDoc := map[int][]extract.Chunk{}
	at := map[extract.ChunkRef]turnAt{}
	for ui, u := range units {
		doc := &units[ui].Doc
		for i, seg := range u.Segments {
			text := seg.Text()
			ch := extract.Chunk{DocumentID: u.Doc.ID, Index: u.ChunkBase + i, Text: text, Start: 0, End: len(text), Tokens: extract.EstimateTokens(text)}
			byDoc[u.Doc.ID] = append(byDoc[u.Doc.ID], ch)
			jobs = append(jobs, extract.Job{Doc: doc, Chunk: ch})
			at[ch.Ref()] = turnAt{unit: ui, seg: i}
		}
	}
	for _, d := range docs {
		if err := pl.store.SaveChunks(ctx, d.ID, DialogueChunkSet, byDoc[d.ID]); err != nil {
			return track{}, err
		}
	}
	ex, err := pl.models.dialogueExtractor(ctx, cfg)
	if err != nil {
		return track{}, err
	}
	// Each dialogue's memory resumes from its stored operation log.
	prior, err := pl.store.Operations(ctx, v.ID)
	if err != nil {
		return track{}, err
	}
	turns := &dialogueTurns{units: units, at: at, builders: make([]*dialogue.Builder, len(units))}
	for i, u := range units {
		turns.builders[i] = dialogue.NewBuilder(ex, dialogue.RunOptions{DocumentID: u.Doc.ID, Prior: u.Ops(prior)})
	}
	after := func(ctx context.Context) error {
		// The consolidated memory replaces the merged per-turn values.
		for i, u := range units {
			if err := pl.store.WriteGraph(ctx, v.ID, placeGraph(turns.builders[i].Memory().Graph(), u)); err != nil {
				return err
			}
		}
		return nil
	}
	return track{jobs: jobs, ex: turns, concurrency: 1, after: after}, nil
}

// turnAt places a chunk of a dialogue run: its unit and segment.
type turnAt struct{ unit, seg int }

// dialogueTurns is the extract.Extractor of a dialogue run: each chunk is
// one segment, stepped through its dialogue's memory builder. It relies on
// seeing the chunks one at a time and in order (RunJobs with concurrency 1).
type dialogueTurns struct {
	units    []DialogueUnit
	at       map[extract.ChunkRef]turnAt
	builders []*dialogue.Builder
}

// Extract steps the chunk's segment and moves the result into the version.
func (d *dialogueTurns) Extract(ctx context.Context, _ extract.Document, ch extract.Chunk) (extract.ChunkResult, error) {
	p, ok := d.at[ch.Ref()]
	if !ok {
		return extract.ChunkResult{}, extract.Errorf(extract.KindInternal, "chunk %d of document %d is not a dialogue turn", ch.Index, ch.DocumentID)
	}
	u := d.units[p.unit]
	res, err := d.builders[p.unit].Step(ctx, u.Segments[p.seg])
	if err != nil {
		return res, err
	}
	res.Chunk.Index += u.ChunkBase
	for i := range res.Operations {
		res.Operations[i].Turn += u.TurnBase
	}
	res.Graph = placeGraph(res.Graph, u)
	return res, nil
}

// dialogueExtractor builds the segment extractor a config asks for.
func (m *Models) dialogueExtractor(ctx context.Context, cfg extract.Config) (dialogue.SegmentExtractor, error) {
	if cfg.Strategy != extract.StrategyDialogue || extract.Offline(cfg.Provider) {
		return dialogue.NewOffline(), nil
	}
	client, model, err := m.client(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cfg.Model = model
	return dialogue.NewLLM(client, cfg), nil
}

// Ops returns the stored operations of one dialogue with its own turn
// numbers (segment indexes).
func (u DialogueUnit) Ops(ops []extract.Operation) []extract.Operation {
	var out []extract.Operation
	for _, op := range ops {
		if u.contains(op.Turn) {
			op.Turn -= u.TurnBase
			out = append(out, op)
		}
	}
	return out
}

// placeGraph moves a dialogue's graph into the version: mentions point at
// the document's chunk indexes, turn properties become version turns, and
// keys take the dialogue's scope.
func placeGraph(g extract.Graph, u DialogueUnit) extract.Graph {
	if u.ChunkBase == 0 && u.TurnBase == 0 && u.Scope == "" {
		return g
	}
	key := func(k string) string { return u.Scope + k }
	turn := func(props map[string]any, name string) {
		if t, ok := props[name].(int); ok && t >= 0 {
			props[name] = t + u.TurnBase
		}
	}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		n.Key = key(n.Key)
		turn(n.Properties, "created_turn")
		turn(n.Properties, extract.PropUpdatedTurn)
		if hist, ok := n.Properties["history"].([]any); ok {
			for _, h := range hist {
				if m, ok := h.(map[string]any); ok {
					turn(m, "since")
					turn(m, "until")
				}
			}
		}
		for j := range n.Mentions {
			n.Mentions[j].ChunkIndex += u.ChunkBase
		}
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		e.Source, e.Target = key(e.Source), key(e.Target)
		turn(e.Properties, "turn")
		for j := range e.Mentions {
			e.Mentions[j].ChunkIndex += u.ChunkBase
		}
	}
	return g
}
