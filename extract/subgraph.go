package extract

import (
	"cmp"
	"slices"
	"strings"
)

// MaxSubgraphDepth bounds SubgraphQuery.Depth.
const MaxSubgraphDepth = 6

// SubgraphQuery says which part of a graph SelectSubgraph keeps. The zero
// value keeps the whole graph.
type SubgraphQuery struct {
	// Focus keeps the neighbourhood of the node with this key.
	Focus string
	// Depth is how many steps the neighbourhood reaches from Focus, up to
	// MaxSubgraphDepth; 0 keeps the focus node alone.
	Depth int
	// Limit keeps at most this many nodes; 0 means no limit.
	Limit int
	// Types keeps nodes of these types, in any case; empty keeps all.
	Types []string
	// MinDegree keeps nodes with at least this many edges.
	MinDegree int
	// Q keeps nodes whose name contains it in any case, or whose key
	// contains its lower-case form.
	Q string
	// Name keeps nodes whose name is exactly it, in any case (the graph
	// page's search asks for it before it settles on a longer name).
	Name string
}

// SubgraphNode is a node of a Subgraph; Degree counts its edges in the
// whole graph.
type SubgraphNode struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Degree int    `json:"degree"`
	// Pos is where the version's stored layout places the node, when
	// it has one (the graph page then draws it there at once).
	Pos *[2]float32 `json:"pos,omitempty"`
}

// SubgraphEdge is an edge of a Subgraph between two of its nodes.
// Expired marks an edge a later fact retired (see Expired); InvalidAt and
// Reason say when and why it ended, when the graph keeps them.
type SubgraphEdge struct {
	Source    string  `json:"source"`
	Target    string  `json:"target"`
	Label     string  `json:"label"`
	Weight    float64 `json:"weight"`
	Expired   bool    `json:"expired,omitempty"`
	InvalidAt string  `json:"invalid_at,omitempty"`
	Reason    string  `json:"reason,omitempty"`
}

// TypeCount is a node type and how many nodes of the whole graph have it.
type TypeCount struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// Subgraph is the part of a graph a SubgraphQuery keeps. Totals count the
// whole graph, as Types does (most common first); Matched counts the nodes
// that passed the filters and Truncated says that the limit cut them.
type Subgraph struct {
	Nodes      []SubgraphNode `json:"nodes"`
	Edges      []SubgraphEdge `json:"edges"`
	TotalNodes int            `json:"total_nodes"`
	TotalEdges int            `json:"total_edges"`
	Matched    int            `json:"matched"`
	Truncated  bool           `json:"truncated"`
	Types      []TypeCount    `json:"types"`
}

// SelectSubgraph selects nodes and edges of g by q. Degrees count the edges
// of the whole graph. A focus neighbourhood is walked over the whole graph
// (ignoring direction) and then filtered, but the focus node itself always
// stays. Under a limit, nodes are kept in order of distance from the focus,
// or, without a focus, by neighbourhoods of the highest-degree nodes, so the
// picture stays connected. Edges are those among the kept nodes whose
// endpoints exist. It returns an error of kind KindNotFound when no node
// has the key q.Focus.
func SelectSubgraph(g Graph, q SubgraphQuery) (Subgraph, error) {
	res := Subgraph{TotalNodes: len(g.Nodes), TotalEdges: len(g.Edges), Nodes: []SubgraphNode{}, Edges: []SubgraphEdge{}}
	idx := make(map[string]int32, len(g.Nodes))
	for i := range g.Nodes {
		if _, dup := idx[g.Nodes[i].Key]; !dup {
			idx[g.Nodes[i].Key] = int32(i)
		}
	}
	// Degrees and adjacency over the whole graph (compact, index based).
	deg := make([]int32, len(g.Nodes))
	ends := make([][2]int32, len(g.Edges))
	for i := range g.Edges {
		s, ok1 := idx[g.Edges[i].Source]
		t, ok2 := idx[g.Edges[i].Target]
		if !ok1 || !ok2 {
			ends[i] = [2]int32{-1, -1}
			continue
		}
		ends[i] = [2]int32{s, t}
		deg[s]++
		if t != s {
			deg[t]++
		}
	}
	start := make([]int32, len(g.Nodes)+1)
	for _, e := range ends {
		if e[0] >= 0 {
			start[e[0]+1]++
			if e[1] != e[0] {
				start[e[1]+1]++
			}
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	adj := make([]int32, start[len(start)-1])
	fill := slices.Clone(start[:len(g.Nodes)])
	for _, e := range ends {
		if e[0] >= 0 {
			adj[fill[e[0]]] = e[1]
			fill[e[0]]++
			if e[1] != e[0] {
				adj[fill[e[1]]] = e[0]
				fill[e[1]]++
			}
		}
	}
	neighbours := func(i int32) []int32 { return adj[start[i]:start[i+1]] }

	// Type counts for the legend.
	counts := map[string]int{}
	for i := range g.Nodes {
		counts[g.Nodes[i].Type]++
	}
	res.Types = make([]TypeCount, 0, len(counts))
	for t, n := range counts {
		res.Types = append(res.Types, TypeCount{Type: t, Count: n})
	}
	slices.SortFunc(res.Types, func(a, b TypeCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type))
	})

	// The filter every kept node passes.
	types := map[string]bool{}
	for _, t := range q.Types {
		types[strings.ToLower(t)] = true
	}
	needle := strings.ToLower(q.Q)
	pass := func(i int32) bool {
		n := &g.Nodes[i]
		if len(types) > 0 && !types[strings.ToLower(n.Type)] {
			return false
		}
		if int(deg[i]) < q.MinDegree {
			return false
		}
		if needle != "" && !strings.Contains(strings.ToLower(n.Name), needle) && !strings.Contains(n.Key, needle) {
			return false
		}
		if q.Name != "" && !strings.EqualFold(n.Name, q.Name) {
			return false
		}
		return true
	}

	// Select nodes in the order they should survive a limit.
	var order []int32
	kept := make([]bool, len(g.Nodes))
	add := func(i int32) {
		if !kept[i] {
			kept[i] = true
			order = append(order, i)
		}
	}
	byDegree := func(a, b int32) int {
		return cmp.Or(cmp.Compare(deg[b], deg[a]), cmp.Compare(g.Nodes[a].Key, g.Nodes[b].Key))
	}
	if q.Focus != "" {
		f, ok := idx[q.Focus]
		if !ok {
			return res, Errorf(KindNotFound, "node %q not found", q.Focus)
		}
		// Breadth-first walk, each ring sorted by degree.
		seen := make([]bool, len(g.Nodes))
		seen[f] = true
		add(f)
		ring := []int32{f}
		for d := 0; d < min(q.Depth, MaxSubgraphDepth) && len(ring) > 0; d++ {
			var next []int32
			for _, i := range ring {
				for _, j := range neighbours(i) {
					if !seen[j] {
						seen[j] = true
						next = append(next, j)
					}
				}
			}
			slices.SortFunc(next, byDegree)
			for _, j := range next {
				if pass(j) {
					add(j)
				}
			}
			ring = next
		}
	} else {
		all := make([]int32, 0, len(g.Nodes))
		for i := range g.Nodes {
			if idx[g.Nodes[i].Key] == int32(i) && pass(int32(i)) {
				all = append(all, int32(i))
			}
		}
		slices.SortFunc(all, byDegree)
		if q.Limit > 0 && len(all) > q.Limit {
			// Hubs first, each followed by its best-connected neighbours.
			for _, h := range all {
				if len(order) >= q.Limit {
					break
				}
				if kept[h] {
					continue
				}
				add(h)
				nb := slices.Clone(neighbours(h))
				slices.SortFunc(nb, byDegree)
				for _, j := range nb {
					if len(order) >= q.Limit {
						break
					}
					if pass(j) {
						add(j)
					}
				}
			}
			res.Matched = len(all)
			res.Truncated = true
		} else {
			order = all
			for _, i := range all {
				kept[i] = true
			}
		}
	}
	if res.Matched == 0 {
		res.Matched = len(order)
	}
	if q.Limit > 0 && len(order) > q.Limit {
		for _, i := range order[q.Limit:] {
			kept[i] = false
		}
		order = order[:q.Limit]
		res.Truncated = true
	}
	res.Nodes = make([]SubgraphNode, len(order))
	for k, i := range order {
		n := &g.Nodes[i]
		res.Nodes[k] = SubgraphNode{ID: n.Key, Name: n.Name, Type: n.Type, Degree: int(deg[i])}
	}
	for i, e := range ends {
		if e[0] >= 0 && kept[e[0]] && kept[e[1]] {
			ge := &g.Edges[i]
			se := SubgraphEdge{Source: ge.Source, Target: ge.Target, Label: ge.Label, Weight: ge.Weight}
			if Expired(ge.Properties) {
				se.Expired = true
				se.InvalidAt, _ = ge.Properties[PropInvalidAt].(string)
				se.Reason, _ = ge.Properties["reason"].(string)
			}
			res.Edges = append(res.Edges, se)
		}
	}
	return res, nil
}
