package handlers

import (
	"cmp"
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
// turn, marking what the turn changed. As on the graph page, the facts
// that ended are left out, but for those this turn retired: they are
// drawn marked, and listed with when and why they ended.
func graphAt(t *app.Timeline, s app.TimelineStep) (web.TimelineGraph, []web.RetiredFact) {
	u := t.Units[s.Unit]
	local := s.Turn - u.TurnBase
	g := dialogue.Rebuild(u.Ops(t.Ops), local).Graph()
	touched := map[string]bool{}
	rels := map[string]bool{}
	for _, op := range s.Operations {
		if op.Status == extract.OutcomeRejected {
			continue
		}
		switch op.Op {
		case extract.OpAddNode, extract.OpUpdateNode:
			touched[op.NodeID] = true
		case extract.OpAddRelation:
			rels[extract.EdgeKey(op.SourceID, op.Label, op.TargetID)] = true
		}
	}
	out := web.TimelineGraph{Turn: s.Turn, Nodes: make([]web.TimelineNode, 0, len(g.Nodes)), Links: make([]web.TimelineLink, 0, len(g.Edges))}
	var retired []web.RetiredFact
	for _, n := range g.Nodes {
		hist, _ := n.Properties[extract.PropHistory].([]any)
		for _, h := range hist {
			r, _ := h.(map[string]any)
			if until, ok := turnOf(r["until"]); !ok || until != local {
				continue
			}
			f := web.RetiredFact{Kind: "value", Node: n.Key}
			f.Fact, _ = r["label"].(string)
			f.Fact = cmp.Or(f.Fact, n.Key)
			f.ValidAt, _ = r[extract.PropValidAt].(string)
			f.InvalidAt, _ = r[extract.PropInvalidAt].(string)
			f.Reason, _ = r["reason"].(string)
			retired = append(retired, f)
		}
		structure, _ := n.Properties["structure"].(bool)
		tn := web.TimelineNode{ID: n.Key, Name: n.Name, Type: n.Type, Description: n.Description, Structure: structure, Touched: touched[n.Key]}
		if tn.Touched {
			out.Stats.Touched++
		}
		out.Nodes = append(out.Nodes, tn)
	}
	names := make(map[string]string, len(g.Nodes))
	for _, n := range g.Nodes {
		names[n.Key] = n.Name
	}
	for _, e := range g.Edges {
		l := web.TimelineLink{Source: e.Source, Target: e.Target, Label: e.Label, Touched: rels[e.Key()]}
		if extract.Expired(e.Properties) {
			if until, ok := turnOf(e.Properties["until_turn"]); !ok || until != local {
				continue // ended before this turn
			}
			l.Touched, l.Retired = false, true
			f := web.RetiredFact{Kind: "relation", Node: e.Source,
				Fact: cmp.Or(names[e.Source], e.Source) + " " + e.Label + " " + cmp.Or(names[e.Target], e.Target)}
			f.ValidAt, _ = e.Properties[extract.PropValidAt].(string)
			f.InvalidAt, _ = e.Properties[extract.PropInvalidAt].(string)
			f.Reason, _ = e.Properties["reason"].(string)
			retired = append(retired, f)
			out.Links = append(out.Links, l)
			continue
		}
		if e.Label != dialogue.HasLabel || l.Touched {
			out.Stats.Relations++
		}
		out.Links = append(out.Links, l)
	}
	out.Stats.Nodes = len(out.Nodes)
	out.Stats.Retired = len(retired)
	return out, retired
}

// turnOf reads a turn number from a property (an int in a rebuilt memory,
// a float64 once read back from JSON).
func turnOf(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case float64:
		return int(x), true
	}
	return 0, false
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
	t, err := h.appOf(c).Memory.Timeline(c.Request().Context(), id)
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
			Start: s.Segment.Start, Added: s.Counts[string(extract.OpAddNode)], Updated: s.Counts[string(extract.OpUpdateNode)],
			Relations: s.Counts[string(extract.OpAddRelation)], Rejected: s.Counts[string(extract.OutcomeRejected)],
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
		Counts:   opCounts(s.Counts)}
	d.Graph, d.Retired = graphAt(t, s)
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
		row := web.OpRow{Seq: op.Seq, Op: string(op.Op), NodeID: op.NodeID, Label: op.Label, Description: op.Description,
			Timestamp: op.Timestamp, Status: string(op.Status), Reason: op.Reason}
		if op.Op == extract.OpAddRelation {
			row.NodeID = op.SourceID + " → " + op.TargetID
		}
		d.Operations = append(d.Operations, row)
	}
	return d
}

// opCounts orders counts: operations first, then statuses.
func opCounts(m map[string]int) []web.OpCount {
	order := map[string]int{string(extract.OpAddNode): 0, string(extract.OpUpdateNode): 1, string(extract.OpAddRelation): 2,
		string(extract.OutcomeApplied): 3, string(extract.OutcomeParentCreated): 4, string(extract.OutcomeRejected): 5}
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
	// Retired lists the facts this turn ended: relations and earlier
	// values of nodes, with when they held and why they ended.
	Retired []web.RetiredFact `json:"retired"`
}

// timelineAPI returns the per-turn operation counts and coverage of a
// dialogue run.
func (h *Handler) timelineAPI(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	t, err := h.appOf(c).Memory.Timeline(c.Request().Context(), id)
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
	t, err := h.appOf(c).Memory.Timeline(c.Request().Context(), id)
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
	out := TimelineTurnJSON{Turn: s.Turn, DocumentID: ref.DocumentID, Chunk: ref.Index, Done: t.IsDone(s),
		Segment: seg, Counts: s.Counts, Coverage: s.Coverage, Operations: ops}
	out.Graph, out.Retired = graphAt(t, s)
	if out.Retired == nil {
		out.Retired = []web.RetiredFact{}
	}
	return c.JSON(http.StatusOK, out)
}
