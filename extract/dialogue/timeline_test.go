package dialogue

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestTimeline(t *testing.T) {
	d, err := Parse(mustRead(t, "testdata/task_apps_dialogue.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMemory()
	log := m.Apply(0, seedOps(t))
	log = append(log, m.Apply(1, Ops{AddRelation: []RelationOp{{SourceID: "/User", TargetID: "/Events", Label: "X"}}})...)
	// Stored logs may come back in any order.
	rev := make([]extract.Operation, len(log))
	for i, op := range log {
		rev[len(log)-1-i] = op
	}
	steps := Timeline(d, rev)
	if len(steps) != 2 {
		t.Fatalf("got %d steps", len(steps))
	}
	t.Run("Counts", func(t *testing.T) {
		want := map[string]int{string(extract.OpAddNode): 18, string(extract.OpUpdateNode): 5, string(extract.OpAddRelation): 21, string(extract.OutcomeApplied): 40, string(extract.OutcomeParentCreated): 4}
		for k, v := range want {
			if steps[0].Counts[k] != v {
				t.Errorf("step 0 %s = %d, want %d", k, steps[0].Counts[k], v)
			}
		}
		if steps[1].Counts[string(extract.OutcomeRejected)] != 1 {
			t.Errorf("step 1 counts %v", steps[1].Counts)
		}
	})
	t.Run("Order", func(t *testing.T) {
		for i, op := range steps[0].Operations {
			if op.Seq != i {
				t.Fatalf("operation %d has seq %d", i, op.Seq)
			}
		}
	})
	t.Run("Coverage", func(t *testing.T) {
		if steps[0].Coverage < 0.6 || steps[1].Coverage != 0 {
			t.Errorf("coverage %v, %v", steps[0].Coverage, steps[1].Coverage)
		}
		if got, want := MeanCoverage(steps), (steps[0].Coverage+steps[1].Coverage)/2; got != want {
			t.Errorf("mean %v, want %v", got, want)
		}
		if MeanCoverage(nil) != 0 {
			t.Error("mean of nothing")
		}
	})
}
