package handlers

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/store"
	"github.com/kgstudio/kgstudio/web"
)

// timeline is a dialogue run's turns paired with its stored operation log.
type timeline struct {
	v     store.Version
	units []app.DialogueUnit
	ops   []extract.Operation
	steps []timelineStep
	done  map[extract.ChunkRef]bool
}

// timelineStep is one turn of the run.
type timelineStep struct {
	Turn int
	Unit int // index into units
	dialogue.Step
}

// chunk returns the turn's chunk.
func (t *timeline) chunk(s timelineStep) extract.ChunkRef {
	u := t.units[s.Unit]
	return extract.ChunkRef{DocumentID: u.Doc.ID, Index: u.ChunkBase + s.Segment.Index}
}

// isDone reports whether the turn has been run.
func (t *timeline) isDone(s timelineStep) bool { return t.done[t.chunk(s)] }

// meanCoverage is the mean coverage over the finished turns.
func (t *timeline) meanCoverage() (float64, int) {
	var steps []dialogue.Step
	for _, s := range t.steps {
		if t.isDone(s) {
			steps = append(steps, s.Step)
		}
	}
	return dialogue.MeanCoverage(steps), len(steps)
}

// loadTimeline loads a version's dialogues and operation log. A version
// that is not a dialogue run is refused with an invalid error.
func (h *Handler) loadTimeline(ctx context.Context, id int) (*timeline, error) {
	v, err := h.store.Version(ctx, id)
	if err != nil {
		return nil, err
	}
	docs, err := h.store.Documents(ctx, v.DocumentIDs)
	if err != nil {
		return nil, err
	}
	if !app.IsDialogueRun(v.Config, docs) {
		return nil, extract.Errorf(extract.KindInvalid, "%s has no dialogue: the timeline shows the turns of dialogue documents", v.Label())
	}
	units, _, err := app.PlanDialogues(app.DialogueDocs(v.Config, docs))
	if err != nil {
		return nil, err
	}
	ops, err := h.store.Operations(ctx, id)
	if err != nil {
		return nil, err
	}
	done, err := h.store.Sink(id, v.Config.MaxFragments).Finished(ctx)
	if err != nil {
		return nil, err
	}
	t := &timeline{v: v, units: units, ops: ops, done: done}
	for i, u := range units {
		for j, s := range dialogue.Timeline(u.Dialogue, u.Ops(ops)) {
			// Operations keep version turns in the views.
			for k := range s.Operations {
				s.Operations[k].Turn += u.TurnBase
			}
			t.steps = append(t.steps, timelineStep{Turn: u.TurnBase + j, Unit: i, Step: s})
		}
	}
	return t, nil
}

// graphAt rebuilds the memory of a turn's dialogue as it stood after the
// turn, marking what the turn changed.
func (t *timeline) graphAt(s timelineStep) web.TimelineGraph {
	u := t.units[s.Unit]
	local := s.Turn - u.TurnBase
	g := dialogue.Rebuild(u.Ops(t.ops), local).Graph()
	touched := map[string]bool{}
	rels := map[string]bool{}
	for _, op := range s.Operations {
		if op.Status == dialogue.StatusRejected {
			continue
		}
		switch op.Op {
		case dialogue.OpAddNode, dialogue.OpUpdateNode:
			touched[op.NodeID] = true
		case dialogue.OpAddRelation:
			rels[extract.EdgeKey(op.SourceID, op.Label, op.TargetID)] = true
		}
	}
	out := web.TimelineGraph{Turn: s.Turn, Nodes: make([]web.TimelineNode, 0, len(g.Nodes)), Links: make([]web.TimelineLink, 0, len(g.Edges))}
	for _, n := range g.Nodes {
		structure, _ := n.Properties["structure"].(bool)
		tn := web.TimelineNode{ID: n.Key, Name: n.Name, Type: n.Type, Description: n.Description, Structure: structure, Touched: touched[n.Key]}
		if tn.Touched {
			out.Stats.Touched++
		}
		out.Nodes = append(out.Nodes, tn)
	}
	for _, e := range g.Edges {
		l := web.TimelineLink{Source: e.Source, Target: e.Target, Label: e.Label, Touched: rels[e.Key()]}
		if e.Label != dialogue.HasLabel || l.Touched {
			out.Stats.Relations++
		}
		out.Links = append(out.Links, l)
	}
	out.Stats.Nodes = len(out.Nodes)
	return out
}

// step returns a turn of the run; a turn outside it is not found.
func (t *timeline) step(turn int) (timelineStep, error) {
	if turn < 0 || turn >= len(t.steps) {
		return timelineStep{}, extract.Errorf(extract.KindNotFound, "turn %d not found: %s has turns 0 to %d", turn, t.v.Label(), len(t.steps)-1)
	}
	return t.steps[turn], nil
}

// showTimeline renders the timeline page of a dialogue run.
func (h *Handler) showTimeline(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	turn := 0
	if q := c.QueryParam("turn"); q != "" {
		if turn, err = strconv.Atoi(q); err != nil {
			return extract.Errorf(extract.KindInvalid, "turn must be a number")
		}
	}
	t, err := h.loadTimeline(c.Request().Context(), id)
	if err != nil {
		return err
	}
	base := fmt.Sprintf("/versions/%d/timeline", id)
	p := web.TimelinePage{Version: versionRow(t.v), LibURL: h.assets.URL("vendor/force-graph-1.52.0/force-graph.min.js"),
		ScriptURL: h.assets.URL("js/timeline.js")}
	p.MeanCoverage, p.Finished = t.meanCoverage()
	// The turn table shows one page of rows: the one holding the turn.
	p.TurnCount, p.RowsFrom = len(t.steps), max(turn, 0)/timelineRows*timelineRows
	if p.RowsFrom > 0 {
		p.EarlierURL = fmt.Sprintf("%s?turn=%d", base, p.RowsFrom-timelineRows)
	}
	if p.RowsFrom+timelineRows < len(t.steps) {
		p.LaterURL = fmt.Sprintf("%s?turn=%d", base, p.RowsFrom+timelineRows)
	}
	totals := map[string]int{}
	for i, s := range t.steps {
		for k, n := range s.Counts {
			totals[k] += n
		}
		if i < p.RowsFrom || i >= p.RowsFrom+timelineRows {
			continue
		}
		row := web.TimelineTurnRow{Turn: s.Turn, Document: t.units[s.Unit].Doc.Name, Session: s.Segment.SessionID,
			Start: s.Segment.Start, Added: s.Counts[dialogue.OpAddNode], Updated: s.Counts[dialogue.OpUpdateNode],
			Relations: s.Counts[dialogue.OpAddRelation], Rejected: s.Counts[dialogue.StatusRejected],
			Coverage: s.Coverage, Done: t.isDone(s), Selected: s.Turn == turn, URL: fmt.Sprintf("%s?turn=%d", base, s.Turn)}
		p.Turns = append(p.Turns, row)
	}
	p.Totals = opCounts(totals)
	if len(t.steps) > 0 {
		s, err := t.step(turn)
		if err != nil {
			return err
		}
		p.Detail = t.detail(s, base)
	}
	return h.page(c, "extractions", "Timeline "+t.v.Label(), web.TimelineView(p))
}

// timelineRows is how many turns the timeline page lists at once.
const timelineRows = 200

// timelineAPIRows is the most turns the timeline API lists per request.
const timelineAPIRows = 1000

// detail builds the view of one turn.
func (t *timeline) detail(s timelineStep, base string) web.TimelineDetail {
	u := t.units[s.Unit]
	ref := t.chunk(s)
	d := web.TimelineDetail{VersionID: t.v.ID, Turn: s.Turn, Last: len(t.steps) - 1, PageURL: base,
		Document: u.Doc.Name, Session: s.Segment.SessionID, Start: s.Segment.Start,
		UserSpeaker: s.Segment.UserSpeaker, AssistantSpeaker: s.Segment.AssistantSpeaker,
		User: s.Segment.User, Assistant: s.Segment.Assistant, Done: t.isDone(s), Coverage: s.Coverage,
		ChunkURL: fmt.Sprintf("/versions/%d/chunks/%d/%d", t.v.ID, ref.DocumentID, ref.Index),
		Counts:   opCounts(s.Counts), Graph: t.graphAt(s)}
	if len(t.units) > 1 {
		d.Dialogue = u.Dialogue.Title
	}
	if s.Turn > 0 {
		d.PrevURL = fmt.Sprintf("%s?turn=%d", base, s.Turn-1)
	}
	if s.Turn+1 < len(t.steps) {
		d.NextURL = fmt.Sprintf("%s?turn=%d", base, s.Turn+1)
	}
	for _, op := range s.Operations {
		row := web.OpRow{Seq: op.Seq, Op: op.Op, NodeID: op.NodeID, Label: op.Label, Description: op.Description,
			Timestamp: op.Timestamp, Status: op.Status, Reason: op.Reason}
		if op.Op == dialogue.OpAddRelation {
			row.NodeID = op.SourceID + " → " + op.TargetID
		}
		d.Operations = append(d.Operations, row)
	}
	return d
}

// opCounts orders counts: operations first, then statuses.
func opCounts(m map[string]int) []web.OpCount {
	order := map[string]int{dialogue.OpAddNode: 0, dialogue.OpUpdateNode: 1, dialogue.OpAddRelation: 2,
		dialogue.StatusApplied: 3, dialogue.StatusParentCreated: 4, dialogue.StatusRejected: 5}
	out := make([]web.OpCount, 0, len(m))
	for k, n := range m {
		out = append(out, web.OpCount{Name: k, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		oi, iok := order[out[i].Name]
		oj, jok := order[out[j].Name]
		if iok != jok {
			return iok
		}
		if oi != oj {
			return oi < oj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// TimelineTurnJSON is one turn in detail: GET /api/versions/:id/timeline/:turn.
// Segment.Index is the version turn.
type TimelineTurnJSON struct {
	Turn       int                 `json:"turn"`
	DocumentID int                 `json:"document_id"`
	Chunk      int                 `json:"chunk"`
	Done       bool                `json:"done"`
	Segment    dialogue.Segment    `json:"segment"`
	Counts     map[string]int      `json:"counts"`
	Coverage   float64             `json:"coverage"`
	Operations []extract.Operation `json:"operations"`
	Graph      web.TimelineGraph   `json:"graph"`
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

// timelineAPI returns the per-turn operation counts and coverage of a
// dialogue run.
func (h *Handler) timelineAPI(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	t, err := h.loadTimeline(c.Request().Context(), id)
	if err != nil {
		return err
	}
	offset, limit := max(intQuery(c, "offset", 0), 0), intQuery(c, "limit", timelineAPIRows)
	if limit <= 0 || limit > timelineAPIRows {
		limit = timelineAPIRows
	}
	out := TimelineJSON{VersionID: id, Label: t.v.Label(), Status: t.v.Status, Turns: []TimelineTurnSummary{}, Totals: map[string]int{},
		Offset: offset, TotalTurns: len(t.steps)}
	out.MeanCoverage, out.Finished = t.meanCoverage()
	for i, s := range t.steps {
		for k, n := range s.Counts {
			out.Totals[k] += n
		}
		if i < offset || i >= offset+limit {
			continue
		}
		ref := t.chunk(s)
		out.Turns = append(out.Turns, TimelineTurnSummary{Turn: s.Turn, DocumentID: ref.DocumentID, Chunk: ref.Index,
			Session: s.Segment.SessionID, Start: s.Segment.Start, Done: t.isDone(s), Counts: s.Counts, Coverage: s.Coverage})
	}
	return c.JSON(http.StatusOK, out)
}

// timelineTurnAPI returns one turn: its segment, operations, coverage and
// the memory graph after it.
func (h *Handler) timelineTurnAPI(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	turn := nonNegParam(c, "turn")
	if turn < 0 {
		return extract.Errorf(extract.KindInvalid, "turn must be a number")
	}
	t, err := h.loadTimeline(c.Request().Context(), id)
	if err != nil {
		return err
	}
	s, err := t.step(turn)
	if err != nil {
		return err
	}
	ref := t.chunk(s)
	seg := s.Segment
	seg.Index = s.Turn
	ops := s.Operations
	if ops == nil {
		ops = []extract.Operation{}
	}
	return c.JSON(http.StatusOK, TimelineTurnJSON{Turn: s.Turn, DocumentID: ref.DocumentID, Chunk: ref.Index, Done: t.isDone(s),
		Segment: seg, Counts: s.Counts, Coverage: s.Coverage, Operations: ops, Graph: t.graphAt(s)})
}
