package dialogue

import (
	"sort"

	"github.com/kgstudio/kgstudio/extract"
)

// Step is one turn of a dialogue run as the timeline shows it: the segment,
// the operations it produced, their counts by status and the coverage of
// the segment's words.
type Step struct {
	Segment    Segment             `json:"segment"`
	Operations []extract.Operation `json:"operations"`
	Counts     map[string]int      `json:"counts"` // by operation name and by status
	Coverage   float64             `json:"coverage"`
}

// Timeline pairs every segment of d with its operations from a stored log
// (turn = segment index). Segments without operations get an empty step.
// The graph as it stood after step i is Rebuild(ops, i).Graph().
func Timeline(d *Dialogue, ops []extract.Operation) []Step {
	byTurn := map[int][]extract.Operation{}
	for _, op := range ops {
		byTurn[op.Turn] = append(byTurn[op.Turn], op)
	}
	segs := Segments(d)
	steps := make([]Step, 0, len(segs))
	for _, seg := range segs {
		turnOps := byTurn[seg.Index]
		sort.SliceStable(turnOps, func(i, j int) bool { return turnOps[i].Seq < turnOps[j].Seq })
		counts := map[string]int{}
		for _, op := range turnOps {
			counts[string(op.Op)]++
			counts[string(op.Status)]++
		}
		steps = append(steps, Step{Segment: seg, Operations: turnOps, Counts: counts, Coverage: CoverageOf(seg, turnOps)})
	}
	return steps
}

// MeanCoverage is the average coverage over the steps, the run's coverage
// figure; 0 for no steps.
func MeanCoverage(steps []Step) float64 {
	if len(steps) == 0 {
		return 0
	}
	sum := 0.0
	for _, s := range steps {
		sum += s.Coverage
	}
	return sum / float64(len(steps))
}
