package app

import (
	"slices"
	"strings"
	"sync"

	"github.com/kgstudio/kgstudio/extract/diff"
)

// Bounds of a comparison's view: the nodes drawn in the union graph (past
// it a browser cannot lay the picture out interactively) and the edge
// labels offered by the label filter.
const (
	CompareGraphLimit = 4000
	CompareLabelLimit = 200
)

// CompareView is what a comparison's page draws and lists, built once
// per comparison (and cached with it), so a view of a cached pair costs
// only the page it shows.
type CompareView struct {
	// Union is both graphs as one; Drawn is it cut to CompareGraphLimit
	// nodes (every difference first, then the best connected).
	Union, Drawn diff.Union
	// Nodes and Edges are the union's nodes and edges in table order:
	// differences first (added, removed, changed), then by name, case
	// folded.
	Nodes, Edges []int
	// EdgeNames names each union edge by its ends' union names, or by the
	// edge's own keys where they name none: "A —label→ B".
	EdgeNames []string
	// NodeTypes and EdgeLabels are the filters' options.
	NodeTypes, EdgeLabels []string
}

// viewOnce builds a comparison's view on first use.
type viewOnce struct {
	once sync.Once
	view *CompareView
}

// View returns the comparison's view, building it on first use; the view
// is shared: treat it as read-only.
func (c Comparison) View() *CompareView {
	if c.view == nil {
		return newCompareView(c)
	}
	c.view.once.Do(func() { c.view.view = newCompareView(c) })
	return c.view.view
}

func newCompareView(c Comparison) *CompareView {
	u := diff.NewUnion(c.GA, c.GB, c.Result, c.Options)
	v := &CompareView{Union: u, Drawn: u.Cap(CompareGraphLimit), NodeTypes: u.NodeTypes(), EdgeLabels: u.EdgeLabels(CompareLabelLimit)}
	names := make(map[string]string, len(u.Nodes))
	nodeNames, nodeStatus := make([]string, len(u.Nodes)), make([]diff.Change, len(u.Nodes))
	for i, n := range u.Nodes {
		names[n.ID] = n.Name
		nodeNames[i], nodeStatus[i] = n.Name, n.Status
	}
	name := func(id, fallback string) string {
		if n, ok := names[id]; ok {
			return n
		}
		return fallback
	}
	v.EdgeNames = make([]string, len(u.Edges))
	edgeStatus := make([]diff.Change, len(u.Edges))
	for i, e := range u.Edges {
		side := e.B
		if side == nil {
			side = e.A
		}
		v.EdgeNames[i] = name(e.Source, side.Source) + " —" + e.Label + "→ " + name(e.Target, side.Target)
		edgeStatus[i] = e.Status
	}
	v.Nodes, v.Edges = tableOrder(nodeNames, nodeStatus), tableOrder(v.EdgeNames, edgeStatus)
	return v
}

// tableOrder orders items for a table: the differences first (added,
// removed, changed), then by name, case folded once per item (folding in
// every comparison allocated 158 MB to sort the 120,000 edges of a large
// comparison).
func tableOrder(names []string, status []diff.Change) []int {
	rank := make([]int, len(names))
	lower := make([]string, len(names))
	order := make([]int, len(names))
	for i := range names {
		rank[i], lower[i], order[i] = diff.StatusRank(status[i]), strings.ToLower(names[i]), i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if rank[x] != rank[y] {
			return rank[x] - rank[y]
		}
		return strings.Compare(lower[x], lower[y])
	})
	return order
}
