package handlers

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/web"
)

// graphAt rebuilds the memory of a turn's dialogue as it stood after the
// turn, marking what the turn changed.
func graphAt(t *app.Timeline, s app.TimelineStep) web.TimelineGraph {
	u := t.Units[s.Unit]
	local := s.Turn - u.TurnBase
	g := dialogue.Rebuild(u.Ops(t.Ops), local).Graph()
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
	t, err := h.app.Timeline(c.Request().Context(), id)
	if err != nil {
		return err
	}
	base := fmt.Sprintf("/versions/%d/timeline", id)
	p := web.TimelinePage{Version: versionRow(t.V), LibURL: h.assets.URL("vendor/force-graph-1.52.0/force-graph.min.js"),
		ScriptURL: h.assets.URL("js/timeline.js")}
	p.MeanCoverage, p.Finished = t.MeanCoverage()
	// The turn table shows one page of rows: the one holding the turn.
	p.TurnCount, p.RowsFrom = len(t.Steps), max(turn, 0)/timelineRows*timelineRows
	if p.RowsFrom > 0 {
		p.EarlierURL = fmt.Sprintf("%s?turn=%d", base, p.RowsFrom-timelineRows)
	}
	if p.RowsFrom+timelineRows < len(t.Steps) {
		p.LaterURL = fmt.Sprintf("%s?turn=%d", base, p.RowsFrom+timelineRows)
	}
	totals := map[string]int{}
	for i, s := range t.Steps {
		for k, n := range s.Counts {
			totals[k] += n
		}
		if i < p.RowsFrom || i >= p.RowsFrom+timelineRows {
			continue
		}
		row := web.TimelineTurnRow{Turn: s.Turn, Document: t.Units[s.Unit].Doc.Name, Session: s.Segment.SessionID,
			Start: s.Segment.Start, Added: s.Counts[dialogue.OpAddNode], Updated: s.Counts[dialogue.OpUpdateNode],
			Relations: s.Counts[dialogue.OpAddRelation], Rejected: s.Counts[dialogue.StatusRejected],
			Coverage: s.Coverage, Done: t.IsDone(s), Selected: s.Turn == turn, URL: fmt.Sprintf("%s?turn=%d", base, s.Turn)}
		p.Turns = append(p.Turns, row)
	}
	p.Totals = opCounts(totals)
	if len(t.Steps) > 0 {
		s, err := t.Step(turn)
		if err != nil {
			return err
		}
		p.Detail = timelineDetail(t, s, base)
	}
	return h.page(c, "extractions", "Timeline "+t.V.Label(), web.TimelineView(p))
}

// timelineRows is how many turns the timeline page lists at once.
const timelineRows = 200

// timelineAPIRows is the most turns the timeline API lists per request.
const timelineAPIRows = 1000

// timelineDetail builds the view of one turn.
func timelineDetail(t *app.Timeline, s app.TimelineStep, base string) web.TimelineDetail {
	u := t.Units[s.Unit]
	ref := t.Chunk(s)
	d := web.TimelineDetail{VersionID: t.V.ID, Turn: s.Turn, Last: len(t.Steps) - 1, PageURL: base,
		Document: u.Doc.Name, Session: s.Segment.SessionID, Start: s.Segment.Start,
		UserSpeaker: s.Segment.UserSpeaker, AssistantSpeaker: s.Segment.AssistantSpeaker,
		User: s.Segment.User, Assistant: s.Segment.Assistant, Done: t.IsDone(s), Coverage: s.Coverage,
		ChunkURL: fmt.Sprintf("/versions/%d/chunks/%d/%d", t.V.ID, ref.DocumentID, ref.Index),
		Counts:   opCounts(s.Counts), Graph: graphAt(t, s)}
	if len(t.Units) > 1 {
		d.Dialogue = u.Dialogue.Title
	}
	if s.Turn > 0 {
		d.PrevURL = fmt.Sprintf("%s?turn=%d", base, s.Turn-1)
	}
	if s.Turn+1 < len(t.Steps) {
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

// timelineAPI returns the per-turn operation counts and coverage of a
// dialogue run.
func (h *Handler) timelineAPI(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	t, err := h.app.Timeline(c.Request().Context(), id)
	if err != nil {
		return err
	}
	offset, limit := max(intQuery(c, "offset", 0), 0), intQuery(c, "limit", timelineAPIRows)
	if limit <= 0 || limit > timelineAPIRows {
		limit = timelineAPIRows
	}
	out := app.TimelineJSON{VersionID: id, Label: t.V.Label(), Status: string(t.V.Status), Turns: []app.TimelineTurnSummary{}, Totals: map[string]int{},
		Offset: offset, TotalTurns: len(t.Steps)}
	out.MeanCoverage, out.Finished = t.MeanCoverage()
	for i, s := range t.Steps {
		for k, n := range s.Counts {
			out.Totals[k] += n
		}
		if i < offset || i >= offset+limit {
			continue
		}
		ref := t.Chunk(s)
		out.Turns = append(out.Turns, app.TimelineTurnSummary{Turn: s.Turn, DocumentID: ref.DocumentID, Chunk: ref.Index,
			Session: s.Segment.SessionID, Start: s.Segment.Start, Done: t.IsDone(s), Counts: s.Counts, Coverage: s.Coverage})
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
	t, err := h.app.Timeline(c.Request().Context(), id)
	if err != nil {
		return err
	}
	s, err := t.Step(turn)
	if err != nil {
		return err
	}
	ref := t.Chunk(s)
	seg := s.Segment
	seg.Index = s.Turn
	ops := s.Operations
	if ops == nil {
		ops = []extract.Operation{}
	}
	return c.JSON(http.StatusOK, TimelineTurnJSON{Turn: s.Turn, DocumentID: ref.DocumentID, Chunk: ref.Index, Done: t.IsDone(s),
		Segment: seg, Counts: s.Counts, Coverage: s.Coverage, Operations: ops, Graph: graphAt(t, s)})
}
