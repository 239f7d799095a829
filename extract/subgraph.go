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
	ix := indexSubgraph(&g)
	res.Types = countTypes(g.Nodes)
	sel := &subgraphSelection{ix: ix, pass: subgraphFilter(&g, ix.deg, q), kept: make([]bool, len(g.Nodes))}
	if q.Focus != "" {
		f, ok := ix.idx[q.Focus]
		if !ok {
			return res, Errorf(KindNotFound, "node %q not found", q.Focus)
		}
		sel.walkFrom(f, min(q.Depth, MaxSubgraphDepth))
	} else {
		res.Matched, res.Truncated = sel.byHubs(q.Limit)
	}
	if res.Matched == 0 {
		res.Matched = len(sel.order)
	}
	if q.Limit > 0 && len(sel.order) > q.Limit {
		sel.truncate(q.Limit)
		res.Truncated = true
	}
	res.Nodes = sel.nodes()
	res.Edges = sel.edges(res.Edges)
	return res, nil
}

// subgraphIndex numbers the nodes of a graph (the first of a repeated key
// wins) and holds their degrees and neighbours over the whole graph,
// compact and index based.
type subgraphIndex struct {
	g    *Graph
	idx  map[string]int32
	deg  []int32
	ends [][2]int32 // each edge's end nodes, {-1, -1} when an end is no node
	// The neighbours of node i are adj[start[i]:start[i+1]].
	start, adj []int32
}

// indexSubgraph indexes the nodes and edges of g.
func indexSubgraph(g *Graph) *subgraphIndex {
	ix := &subgraphIndex{g: g, idx: make(map[string]int32, len(g.Nodes)), deg: make([]int32, len(g.Nodes)), ends: make([][2]int32, len(g.Edges))}
	for i := range g.Nodes {
		if _, dup := ix.idx[g.Nodes[i].Key]; !dup {
			ix.idx[g.Nodes[i].Key] = int32(i)
		}
	}
	for i := range g.Edges {
		s, ok1 := ix.idx[g.Edges[i].Source]
		t, ok2 := ix.idx[g.Edges[i].Target]
		if !ok1 || !ok2 {
			ix.ends[i] = [2]int32{-1, -1}
			continue
		}
		ix.ends[i] = [2]int32{s, t}
		ix.deg[s]++
		if t != s {
			ix.deg[t]++
		}
	}
	ix.link()
	return ix
}

// link lists the neighbours of every node from the edge ends, a
// self-loop's node once.
func (ix *subgraphIndex) link() {
	n := len(ix.g.Nodes)
	ix.start = make([]int32, n+1)
	for _, e := range ix.ends {
		if e[0] >= 0 {
			ix.start[e[0]+1]++
			if e[1] != e[0] {
				ix.start[e[1]+1]++
			}
		}
	}
	for i := 1; i < len(ix.start); i++ {
		ix.start[i] += ix.start[i-1]
	}
	ix.adj = make([]int32, ix.start[len(ix.start)-1])
	fill := slices.Clone(ix.start[:n])
	for _, e := range ix.ends {
		if e[0] >= 0 {
			ix.adj[fill[e[0]]] = e[1]
			fill[e[0]]++
			if e[1] != e[0] {
				ix.adj[fill[e[1]]] = e[0]
				fill[e[1]]++
			}
		}
	}
}

// neighbours returns the nodes an edge joins to node i.
func (ix *subgraphIndex) neighbours(i int32) []int32 { return ix.adj[ix.start[i]:ix.start[i+1]] }

// countTypes counts the nodes of each type, most common first, for the
// legend.
func countTypes(nodes []Node) []TypeCount {
	counts := map[string]int{}
	for i := range nodes {
		counts[nodes[i].Type]++
	}
	types := make([]TypeCount, 0, len(counts))
	for t, n := range counts {
		types = append(types, TypeCount{Type: t, Count: n})
	}
	slices.SortFunc(types, func(a, b TypeCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type))
	})
	return types
}

// subgraphFilter returns the filter of q every kept node passes (but the
// focus): its types, minimum degree, name part and name.
func subgraphFilter(g *Graph, deg []int32, q SubgraphQuery) func(i int32) bool {
	types := map[string]bool{}
	for _, t := range q.Types {
		types[strings.ToLower(t)] = true
	}
	needle := strings.ToLower(q.Q)
	return func(i int32) bool {
		n := &g.Nodes[i]
		switch {
		case len(types) > 0 && !types[strings.ToLower(n.Type)],
			int(deg[i]) < q.MinDegree,
			needle != "" && !strings.Contains(strings.ToLower(n.Name), needle) && !strings.Contains(n.Key, needle),
			q.Name != "" && !strings.EqualFold(n.Name, q.Name):
			return false
		}
		return true
	}
}

// subgraphSelection is the nodes SelectSubgraph keeps, in the order they
// should survive a limit.
type subgraphSelection struct {
	ix    *subgraphIndex
	pass  func(i int32) bool
	order []int32
	kept  []bool
}

// add keeps node i, once.
func (s *subgraphSelection) add(i int32) {
	if !s.kept[i] {
		s.kept[i] = true
		s.order = append(s.order, i)
	}
}

// byDegree orders nodes by degree, highest first, then by key.
func (s *subgraphSelection) byDegree(a, b int32) int {
	deg, nodes := s.ix.deg, s.ix.g.Nodes
	return cmp.Or(cmp.Compare(deg[b], deg[a]), cmp.Compare(nodes[a].Key, nodes[b].Key))
}

// walkFrom keeps the focus node f and the nodes that pass the filter
// within depth steps of it, breadth first, each ring sorted by degree.
func (s *subgraphSelection) walkFrom(f int32, depth int) {
	seen := make([]bool, len(s.ix.g.Nodes))
	seen[f] = true
	s.add(f)
	ring := []int32{f}
	for d := 0; d < depth && len(ring) > 0; d++ {
		var next []int32
		for _, i := range ring {
			for _, j := range s.ix.neighbours(i) {
				if !seen[j] {
					seen[j] = true
					next = append(next, j)
				}
			}
		}
		slices.SortFunc(next, s.byDegree)
		for _, j := range next {
			if s.pass(j) {
				s.add(j)
			}
		}
		ring = next
	}
}

// byHubs keeps the nodes that pass the filter, by degree. When more pass
// than limit (over 0) allows, it keeps hubs first, each followed by its
// best-connected neighbours, and returns how many passed and true.
func (s *subgraphSelection) byHubs(limit int) (matched int, truncated bool) {
	nodes := s.ix.g.Nodes
	all := make([]int32, 0, len(nodes))
	for i := range nodes {
		if s.ix.idx[nodes[i].Key] == int32(i) && s.pass(int32(i)) {
			all = append(all, int32(i))
		}
	}
	slices.SortFunc(all, s.byDegree)
	if limit <= 0 || len(all) <= limit {
		s.order = all
		for _, i := range all {
			s.kept[i] = true
		}
		return 0, false
	}
	for _, h := range all {
		if len(s.order) >= limit {
			break
		}
		if s.kept[h] {
			continue
		}
		s.add(h)
		nb := slices.Clone(s.ix.neighbours(h))
		slices.SortFunc(nb, s.byDegree)
		for _, j := range nb {
			if len(s.order) >= limit {
				break
			}
			if s.pass(j) {
				s.add(j)
			}
		}
	}
	return len(all), true
}

// truncate keeps the first limit nodes only.
func (s *subgraphSelection) truncate(limit int) {
	for _, i := range s.order[limit:] {
		s.kept[i] = false
	}
	s.order = s.order[:limit]
}

// nodes returns the kept nodes in order, with their degrees.
func (s *subgraphSelection) nodes() []SubgraphNode {
	out := make([]SubgraphNode, len(s.order))
	for k, i := range s.order {
		n := &s.ix.g.Nodes[i]
		out[k] = SubgraphNode{ID: n.Key, Name: n.Name, Type: n.Type, Degree: int(s.ix.deg[i])}
	}
	return out
}

// edges appends to out the edges among the kept nodes, in graph order,
// marking the expired ones.
func (s *subgraphSelection) edges(out []SubgraphEdge) []SubgraphEdge {
	for i, e := range s.ix.ends {
		if e[0] >= 0 && s.kept[e[0]] && s.kept[e[1]] {
			ge := &s.ix.g.Edges[i]
			se := SubgraphEdge{Source: ge.Source, Target: ge.Target, Label: ge.Label, Weight: ge.Weight}
			if Expired(ge.Properties) {
				se.Expired = true
				se.InvalidAt, _ = ge.Properties[PropInvalidAt].(string)
				se.Reason, _ = ge.Properties["reason"].(string)
			}
			out = append(out, se)
		}
	}
	return out
}
