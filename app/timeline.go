package app

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/lru"
	"github.com/kgstudio/kgstudio/store"
)

// Timeline is a dialogue run's turns paired with its stored operation log.
type Timeline struct {
	V     record.Version
	Units []DialogueUnit
	Ops   []extract.Operation
	Steps []TimelineStep
	Done  map[extract.ChunkRef]bool
}

// TimelineStep is one turn of the run.
type TimelineStep struct {
	Turn int
	Unit int // index into Units
	dialogue.Step
}

// Chunk returns the turn's chunk.
func (t *Timeline) Chunk(s TimelineStep) extract.ChunkRef {
	u := t.Units[s.Unit]
	return extract.ChunkRef{DocumentID: u.Doc.ID, Index: u.ChunkBase + s.Segment.Index}
}

// IsDone reports whether the turn has been run.
func (t *Timeline) IsDone(s TimelineStep) bool { return t.Done[t.Chunk(s)] }

// MeanCoverage is the mean coverage over the finished turns.
func (t *Timeline) MeanCoverage() (float64, int) {
	var steps []dialogue.Step
	for _, s := range t.Steps {
		if t.IsDone(s) {
			steps = append(steps, s.Step)
		}
	}
	return dialogue.MeanCoverage(steps), len(steps)
}

// Memory reads what dialogue runs remember: the timeline of their
// operations and when their facts held.
type Memory struct {
	store *store.Store
	// keepsTimes remembers whether finished versions' graphs keep fact
	// times (see KeepsTimes).
	keepsTimes *lru.Cache[timesKey, bool]
}

// Timeline loads a version's dialogues and operation log. A version with
// no dialogue is refused with an invalid error.
func (m *Memory) Timeline(ctx context.Context, id int) (*Timeline, error) {

	v, err := m.store.Version(ctx, id)
	if err != nil {
		return nil, err
	}
	docs, err := m.store.Documents(ctx, v.DocumentIDs)
	if err != nil {
		return nil, err
	}
	if !IsDialogueRun(v.Config, docs) {
		return nil, extract.Errorf(extract.KindInvalid, "%s has no dialogue: the timeline shows the turns of dialogue documents", v.Label())
	}
	units, _, err := PlanDialogues(DialogueDocs(v.Config, docs))
	if err != nil {
		return nil, err
	}
	ops, err := m.store.Operations(ctx, id)
	if err != nil {
		return nil, err
	}
	done, err := m.store.Sink(id, v.Config.MaxFragments).Finished(ctx)
	if err != nil {
		return nil, err
	}
	t := &Timeline{V: v, Units: units, Ops: ops, Done: done}
	for i, u := range units {
		for j, s := range dialogue.Timeline(u.Dialogue, u.Ops(ops)) {
			// Operations keep version turns in the views.
			for k := range s.Operations {
				s.Operations[k].Turn += u.TurnBase
			}
			t.Steps = append(t.Steps, TimelineStep{Turn: u.TurnBase + j, Unit: i, Step: s})
		}
	}
	return t, nil
}

// Step returns a turn of the run; a turn outside it is not found.
func (t *Timeline) Step(turn int) (TimelineStep, error) {
	if turn < 0 || turn >= len(t.Steps) {
		return TimelineStep{}, extract.Errorf(extract.KindNotFound, "turn %d not found: %s has turns 0 to %d", turn, t.V.Label(), len(t.Steps)-1)
	}
	return t.Steps[turn], nil
}

// TimelineTurnSummary is one turn in GET /api/versions/:id/timeline: its
// place, operation counts (by operation and by status) and coverage.
type TimelineTurnSummary struct {
	Turn       int            `json:"turn"`
	DocumentID int            `json:"document_id"`
	Chunk      int            `json:"chunk"`
	Session    string         `json:"session"`
	Start      string         `json:"start,omitempty"`
	Done       bool           `json:"done"`
	Counts     map[string]int `json:"counts"`
	Coverage   float64        `json:"coverage"`
}

// TimelineJSON is the per-turn summary of a dialogue run, for side-by-side
// comparison of two runs.
type TimelineJSON struct {
	VersionID int                   `json:"version_id"`
	Label     string                `json:"label"`
	Status    string                `json:"status"`
	Turns     []TimelineTurnSummary `json:"turns"`
	// Offset is the first turn listed and TotalTurns the run's turns: the
	// API lists at most 1,000 turns from ?offset= (default 0), ?limit= fewer.
	Offset       int            `json:"offset"`
	TotalTurns   int            `json:"total_turns"`
	Totals       map[string]int `json:"totals"`
	MeanCoverage float64        `json:"mean_coverage"`
	Finished     int            `json:"finished"`
}
