package curate

import (
	"fmt"
	"slices"

	"github.com/kgstudio/kgstudio/extract"
)

// Decisions are the duplicate answers given on one extraction's versions:
// merges accepted and pairs judged "not the same". Its next runs apply
// them (see Apply).
type Decisions struct {
	Merges   []MergeDecision `json:"merges,omitempty"`
	Distinct [][2]string     `json:"distinct,omitempty"`
}

// MergeDecision is an accepted merge: Drop node keys folded into Keep.
type MergeDecision struct {
	Keep string   `json:"keep"`
	Drop []string `json:"drop"`
}

// AddMerge records an accepted merge, once.
func (d *Decisions) AddMerge(keep string, drop []string) {
	for _, m := range d.Merges {
		if m.Keep == keep && slices.Equal(m.Drop, drop) {
			return
		}
	}
	d.Merges = append(d.Merges, MergeDecision{Keep: keep, Drop: append([]string(nil), drop...)})
}

// AddDistinct records that two nodes are not the same, once.
func (d *Decisions) AddDistinct(a, b string) {
	if d.IsDistinct(a, b) {
		return
	}
	if a > b {
		a, b = b, a
	}
	d.Distinct = append(d.Distinct, [2]string{a, b})
}

// IsDistinct reports whether a and b were judged not the same.
func (d *Decisions) IsDistinct(a, b string) bool {
	if a > b {
		a, b = b, a
	}
	return slices.Contains(d.Distinct, [2]string{a, b})
}

// Applied counts what Apply did to a graph.
type Applied struct {
	// Merges is the number of recorded merges that found nodes to fold.
	Merges int `json:"merges"`
	// Dropped is the number of nodes folded away.
	Dropped int `json:"dropped"`
	// Distinct is the number of "not the same" pairs present in the graph
	// and so left out of its duplicate candidates.
	Distinct int `json:"distinct"`
}

// String says what was applied, for a version's stats.
func (a Applied) String() string {
	return fmt.Sprintf("curation applied: %s (%s folded), %s kept apart", extract.Count(a.Merges, "merge"), extract.Count(a.Dropped, "node"), extract.Count(a.Distinct, "pair"))
}

// Apply folds the recorded merges into g, in the order they were taken,
// skipping drop nodes g does not hold (a merge whose keep node is missing
// is skipped); it counts the distinct pairs g holds.
func Apply(g extract.Graph, d Decisions, opts MergeOptions) (extract.Graph, Applied, error) {
	var out Applied
	has := func(key string) bool {
		for _, n := range g.Nodes {
			if n.Key == key {
				return true
			}
		}
		return false
	}
	for _, m := range d.Merges {
		if !has(m.Keep) {
			continue
		}
		var drop []string
		for _, k := range m.Drop {
			if k != m.Keep && has(k) {
				drop = append(drop, k)
			}
		}
		if len(drop) == 0 {
			continue
		}
		merged, err := Merge(g, m.Keep, drop, opts)
		if err != nil {
			return g, out, err
		}
		g = merged
		out.Merges++
		out.Dropped += len(drop)
	}
	for _, p := range d.Distinct {
		if has(p[0]) && has(p[1]) {
			out.Distinct++
		}
	}
	return g, out, nil
}
