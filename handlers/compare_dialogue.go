package handlers

import (
	"context"
	"fmt"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// fillTurns adds the per-turn operation counts when both versions are
// dialogue runs; otherwise it does nothing.
func (h *Handler) fillTurns(ctx context.Context, p *web.ComparePage, cmp app.Comparison) error {
	for _, v := range []record.Version{cmp.A, cmp.B} {
		docs, err := h.appIn(ctx).Runs.DocKinds(ctx, v)
		if err != nil {
			return err
		}
		if !app.IsDialogueRun(v.Config, docs) {
			return nil
		}
	}
	ta, err := h.appIn(ctx).Memory.Timeline(ctx, cmp.A.ID)
	if err != nil {
		return err
	}
	tb, err := h.appIn(ctx).Memory.Timeline(ctx, cmp.B.ID)
	if err != nil {
		return err
	}
	n := max(len(ta.Steps), len(tb.Steps))
	for i := 0; i < n; i++ {
		row := web.CompareTurn{Turn: i}
		if i < len(ta.Steps) {
			row.Speaker = ta.Steps[i].Segment.UserSpeaker
			row.HasA = ta.IsDone(ta.Steps[i])
			row.A = turnCounts(ta.Steps[i].Step)
		}
		if i < len(tb.Steps) {
			if row.Speaker == "" {
				row.Speaker = tb.Steps[i].Segment.UserSpeaker
			}
			row.HasB = tb.IsDone(tb.Steps[i])
			row.B = turnCounts(tb.Steps[i].Step)
		}
		row.Differs = row.HasA != row.HasB || row.A.AddNode != row.B.AddNode ||
			row.A.UpdateNode != row.B.UpdateNode || row.A.AddRelation != row.B.AddRelation || row.A.Rejected != row.B.Rejected
		p.Turns = append(p.Turns, row)
	}
	return nil
}

func turnCounts(s dialogue.Step) web.TurnCounts {
	return web.TurnCounts{AddNode: s.Counts[string(extract.OpAddNode)], UpdateNode: s.Counts[string(extract.OpUpdateNode)],
		AddRelation: s.Counts[string(extract.OpAddRelation)], Rejected: s.Counts[string(extract.OutcomeRejected)],
		Coverage: fmt.Sprintf("%.0f%%", 100*s.Coverage)}
}
