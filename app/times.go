package app

import (
	"context"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// TimedSubgraph is a part of a graph that keeps fact times, as it stood
// at a time: the subgraph, the days on which the graph's facts changed
// (for a date slider), the as-of date it was read at as asked (empty for
// now), and how many edges that had ended by then it leaves out (none
// when they are shown).
type TimedSubgraph struct {
	extract.Subgraph
	Dates         []string `json:"dates,omitempty"`
	AsOf          string   `json:"as_of,omitempty"`
	ExpiredHidden int      `json:"expired_hidden"`
}

// At selects q from a version's graph as it stood at an as-of date (see
// ParseAsOf; empty for now; see extract.AsOf). The facts that had ended
// by then are left out, or with expired kept and marked (see
// extract.SubgraphEdge), with when and why they ended.
func (g *Graphs) At(ctx context.Context, versionID int, q extract.SubgraphQuery, asOf string, expired bool) (TimedSubgraph, error) {
	t, err := ParseAsOf(asOf)
	if err != nil {
		return TimedSubgraph{}, err
	}
	whole, err := g.Load(ctx, versionID, false)
	if err != nil {
		return TimedSubgraph{}, err
	}
	out, err := subgraphAt(whole, q, t, expired)
	if !t.IsZero() {
		out.AsOf = strings.TrimSpace(asOf)
	}
	return out, err
}

func subgraphAt(g extract.Graph, q extract.SubgraphQuery, asOf time.Time, expired bool) (TimedSubgraph, error) {
	out := TimedSubgraph{Dates: extract.FactDays(g)}
	var ended []extract.Edge
	if !asOf.IsZero() {
		// AsOf leaves out what had ended by then; kept aside, between
		// nodes that stood then, for a view that shows it.
		all := extract.ExpiredBy(g, asOf)
		g = extract.AsOf(g, asOf)
		stood := make(map[string]bool, len(g.Nodes))
		for _, n := range g.Nodes {
			stood[n.Key] = true
		}
		for _, e := range all {
			if stood[e.Source] && stood[e.Target] {
				ended = append(ended, e)
			}
		}
	}
	if expired {
		g.Edges = append(g.Edges, ended...)
	} else {
		current := extract.Current(g)
		out.ExpiredHidden = len(g.Edges) - len(current.Edges) + len(ended)
		g = current
	}
	res, err := extract.SelectSubgraph(g, q)
	out.Subgraph = res
	return out, err
}

// nodeAsOf is a node as it stood at t with its edges (see
// store.NodeEdges) and the nodes at their other ends (by key): its value
// then, the edges that held then and those that had ended by then (kept
// with their times, so a view can say when and why they ended), and the
// other nodes as they stood then (those not known yet as they are
// stored). False when the node was not known yet at t.
func nodeAsOf(n extract.Node, edges []extract.Edge, others map[string]extract.Node, t time.Time) (extract.Node, []extract.Edge, map[string]extract.Node, bool) {
	g := extract.Graph{Nodes: []extract.Node{n}, Edges: edges}
	for k, o := range others {
		if k != n.Key {
			g.Nodes = append(g.Nodes, o)
		}
	}
	ended := extract.ExpiredBy(g, t)
	g = extract.AsOf(g, t)
	var found bool
	then := make(map[string]extract.Node, len(others))
	for k, o := range others {
		then[k] = o
	}
	for _, o := range g.Nodes {
		if o.Key == n.Key {
			n, found = o, true
		}
		then[o.Key] = o
	}
	if !found {
		return n, nil, others, false
	}
	return n, append(g.Edges, ended...), then, true
}

// EdgeAt is Edge as it stood at an as-of date (see ParseAsOf; empty for
// now), with its two nodes as they stood then: an edge that held then
// without the marks of an end that came later, one that had ended by then
// as it is stored (marked, with when and why). An edge not valid yet then
// is not found. Nodes maps the two keys to the nodes.
func (g *Graphs) EdgeAt(ctx context.Context, versionID int, source, label, target, asOf string) (extract.Edge, map[string]extract.Node, error) {
	t, err := ParseAsOf(asOf)
	if err != nil {
		return extract.Edge{}, nil, err
	}
	e, err := g.Edge(ctx, versionID, source, label, target)
	if err != nil {
		return e, nil, err
	}
	nodes, err := g.Nodes(ctx, versionID, []string{source, target})
	if err != nil || t.IsZero() {
		return e, nodes, err
	}
	sub := extract.Graph{Edges: []extract.Edge{e}}
	for _, n := range nodes {
		sub.Nodes = append(sub.Nodes, n)
	}
	ended := len(extract.ExpiredBy(sub, t)) > 0
	sub = extract.AsOf(sub, t)
	for _, n := range sub.Nodes {
		nodes[n.Key] = n
	}
	switch {
	case len(sub.Edges) == 1:
		e = sub.Edges[0]
	case !ended:
		return e, nodes, extract.Errorf(extract.KindNotFound, "the edge %s was not known yet as of %s", extract.Clip(label, 80), strings.TrimSpace(asOf))
	}
	return e, nodes, nil
}

// timesKey names a version for the times cache: an id and when the
// version was made, so that an id used again is another key.
type timesKey struct {
	id      int
	created int64 // UnixNano
}

// maxTimesCache bounds the times cache.
const maxTimesCache = 1024

// KeepsTimes reports whether a version's graph may say when its facts
// held (see extract.Current and extract.AsOf), so that its views read it
// whole to leave out what has expired: a dialogue run's memory, or a
// graph written whole (an import, a merge, an edit) whose nodes or edges
// carry fact times. The graphs of other runs keep none and are read as
// they are stored. Looking for times in a written graph reads all its
// rows, so the answer for a finished one is remembered.
func (m *Memory) KeepsTimes(ctx context.Context, v record.Version) (bool, error) {

	if v.Config.Strategy == extract.StrategyDialogue && len(v.DocumentIDs) > 0 {
		return true, nil
	}
	// A dialogue goes turn by turn whatever the strategy (see TrackOf).
	dialogue, err := m.store.HasDocumentKind(ctx, v.DocumentIDs, extract.DocDialogue)
	if err != nil || dialogue || !v.Written {
		return dialogue, err
	}
	if v.Status != record.StatusDone {
		return m.store.HasFactTimes(ctx, v.ID)
	}
	return m.keepsTimes.Get(ctx, timesKey{v.ID, v.CreatedAt.UnixNano()}, func() (bool, error) {
		return m.store.HasFactTimes(ctx, v.ID)
	})
}
