package handlers

import (
	"context"
	"fmt"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/store"
	"github.com/kgstudio/kgstudio/web"
)

// fillTurns adds the per-turn operation counts when both versions are
// dialogue runs; otherwise it does nothing.
func (h *Handler) fillTurns(ctx context.Context, p *web.ComparePage, cmp app.Comparison) error {
	for _, v := range []store.Version{cmp.A, cmp.B} {
		docs, err := h.app.DocKinds(ctx, v)
		if err != nil {
			return err
		}
		if !app.IsDialogueRun(v.Config, docs) {
			return nil
		}
	}
	ta, err := h.loadTimeline(ctx, cmp.A.ID)
	if err != nil {
		return err
	}
	tb, err := h.loadTimeline(ctx, cmp.B.ID)
	if err != nil {
		return err
	}
	n := max(len(ta.steps), len(tb.steps))
	for i := 0; i < n; i++ {
		row := web.CompareTurn{Turn: i}
		if i < len(ta.steps) {
			row.Speaker = ta.steps[i].Segment.UserSpeaker
			row.HasA = ta.isDone(ta.steps[i])
			row.A = turnCounts(ta.steps[i].Step)
		}
		if i < len(tb.steps) {
			if row.Speaker == "" {
				row.Speaker = tb.steps[i].Segment.UserSpeaker
			}
			row.HasB = tb.isDone(tb.steps[i])
			row.B = turnCounts(tb.steps[i].Step)
		}
		row.Differs = row.HasA != row.HasB || row.A.AddNode != row.B.AddNode ||
			row.A.UpdateNode != row.B.UpdateNode || row.A.AddRelation != row.B.AddRelation || row.A.Rejected != row.B.Rejected
		p.Turns = append(p.Turns, row)
	}
	return nil
}

func turnCounts(s dialogue.Step) web.TurnCounts {
	return web.TurnCounts{AddNode: s.Counts[dialogue.OpAddNode], UpdateNode: s.Counts[dialogue.OpUpdateNode],
		AddRelation: s.Counts[dialogue.OpAddRelation], Rejected: s.Counts[dialogue.StatusRejected],
		Coverage: fmt.Sprintf("%.0f%%", 100*s.Coverage)}
}
