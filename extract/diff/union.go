package diff

import (
	"sort"
	"strconv"

	"github.com/kgstudio/kgstudio/extract"
)

// Change is what a union item is between the two graphs.
type Change string

// The changes of union items.
const (
	// StatusAdded marks an item only in graph b.
	StatusAdded Change = "added"
	// StatusRemoved marks an item only in graph a.
	StatusRemoved Change = "removed"
	// StatusChanged marks an item in both graphs whose content differs.
	StatusChanged Change = "changed"
	// StatusUnchanged marks an item in both graphs with the same content.
	StatusUnchanged Change = "unchanged"
)

// StatusRank orders changes with the differences first: added, removed,
// changed, then unchanged (and anything else).
func StatusRank(status Change) int {
	switch status {
	case StatusAdded:
		return 0
	case StatusRemoved:
		return 1
	case StatusChanged:
		return 2
	default: // unchanged
		return 3
	}
}

// Union is the union of two graphs: one node per node identity and one
// edge per edge identity present on either side (see the package comment),
// each tagged with its status in a Result.
type Union struct {
	// A and B label the two sides for a reader; NewUnion leaves them empty.
	A     string      `json:"a"`
	B     string      `json:"b"`
	Nodes []UnionNode `json:"nodes"`
	Edges []UnionEdge `json:"edges"`
}

// UnionNode is a node identity present on one side or both.
type UnionNode struct {
	// ID is "n" and the node's index in Union.Nodes as NewUnion built it.
	ID string `json:"id"`
	// Name and Type are b's when the node is in b, else a's.
	Name   string `json:"name"`
	Type   string `json:"type"`
	Status Change `json:"status"`
	// A and B are the first node of the identity in each graph, nil on
	// the side without it.
	A *extract.Node `json:"a,omitempty"`
	B *extract.Node `json:"b,omitempty"`
	// Fields and Desc are NodeChange.Fields and NodeChange.Description of
	// a changed node.
	Fields []string  `json:"fields,omitempty"`
	Desc   []Segment `json:"desc,omitempty"`
}

// UnionEdge is an edge identity present on one side or both. Source and
// Target are union node IDs, drawn in the direction of the first edge of
// the identity, and empty when an endpoint names no node of its graph.
type UnionEdge struct {
	// ID is "e" and the edge's index in Union.Edges as NewUnion built it.
	ID     string `json:"id"`
	Source string `json:"source"`
	Target string `json:"target"`
	// Label is the label of the first edge of the identity.
	Label  string `json:"label"`
	Status Change `json:"status"`
	// A and B are the first edge of the identity in each graph, nil on
	// the side without it.
	A *extract.Edge `json:"a,omitempty"`
	B *extract.Edge `json:"b,omitempty"`
	// Fields and Desc are EdgeChange.Fields and EdgeChange.Description of
	// a changed edge.
	Fields []string  `json:"fields,omitempty"`
	Desc   []Segment `json:"desc,omitempty"`
}

// NewUnion merges graphs a and b by the identities of opts, a's items
// first, and tags every item with its status in res, the result of
// Compare(a, b, opts). The union holds exactly the identities Compare
// counted; its items point into a and b.
func NewUnion(a, b extract.Graph, res Result, opts Options) Union {
	ident := newIdentity(opts)
	u := Union{Nodes: []UnionNode{}, Edges: []UnionEdge{}}

	// Nodes, and each side's map from node key to identity.
	nodeAt := map[string]int{}
	keysA := make(map[string]string, len(a.Nodes))
	keysB := make(map[string]string, len(b.Nodes))
	ida, idb := nodeIdentities(&a, ident), nodeIdentities(&b, ident)
	adoptRenames(&a, &b, ida, idb, ident)
	addNodes := func(g extract.Graph, keys map[string]string, side int) {
		ids := ida
		if side == 1 {
			ids = idb
		}
		for i := range g.Nodes {
			n := &g.Nodes[i]
			id := ids[i]
			if _, ok := keys[n.Key]; !ok {
				keys[n.Key] = id
			}
			at, ok := nodeAt[id]
			if !ok {
				at = len(u.Nodes)
				nodeAt[id] = at
				u.Nodes = append(u.Nodes, UnionNode{ID: "n" + strconv.Itoa(at), Name: n.Name, Type: n.Type})
			}
			un := &u.Nodes[at]
			if side == 0 && un.A == nil {
				un.A = n
			} else if side == 1 && un.B == nil {
				un.B = n
				un.Name, un.Type = n.Name, n.Type
			}
		}
	}
	addNodes(a, keysA, 0)
	addNodes(b, keysB, 1)
	ident.markUndirected(&a, keysA)
	ident.markUndirected(&b, keysB)
	changed := map[string]NodeChange{}
	for _, c := range res.Nodes.Changed {
		changed[keysA[c.KeyA]] = c
	}
	for i := range u.Nodes {
		un := &u.Nodes[i]
		switch {
		case un.A == nil:
			un.Status = StatusAdded
		case un.B == nil:
			un.Status = StatusRemoved
		default:
			un.Status = StatusUnchanged
			if c, ok := changed[ident.node(un.A)]; ok {
				un.Status, un.Fields, un.Desc = StatusChanged, c.Fields, c.Description
			}
		}
	}

	// Edges, between the union nodes of their endpoints.
	edgeAt := map[string]int{}
	addEdges := func(g extract.Graph, keys map[string]string, side int) {
		for i := range g.Edges {
			e := &g.Edges[i]
			id, src, tgt := ident.edge(keys, e.Source, e.Label, e.Target)
			at, ok := edgeAt[id]
			if !ok {
				at = len(u.Edges)
				edgeAt[id] = at
				ue := UnionEdge{ID: "e" + strconv.Itoa(at), Label: e.Label}
				// Draw in the edge's own direction.
				s, t := keys[e.Source], keys[e.Target]
				if s == "" {
					s = src
				}
				if t == "" {
					t = tgt
				}
				if n, ok := nodeAt[s]; ok {
					ue.Source = u.Nodes[n].ID
				}
				if n, ok := nodeAt[t]; ok {
					ue.Target = u.Nodes[n].ID
				}
				u.Edges = append(u.Edges, ue)
			}
			ue := &u.Edges[at]
			if side == 0 && ue.A == nil {
				ue.A = e
			} else if side == 1 && ue.B == nil {
				ue.B = e
			}
		}
	}
	addEdges(a, keysA, 0)
	addEdges(b, keysB, 1)
	changedE := map[string]EdgeChange{}
	for _, c := range res.Edges.Changed {
		id, _, _ := ident.edge(keysA, c.A.Source, c.A.Label, c.A.Target)
		changedE[id] = c
	}
	for i := range u.Edges {
		ue := &u.Edges[i]
		switch {
		case ue.A == nil:
			ue.Status = StatusAdded
		case ue.B == nil:
			ue.Status = StatusRemoved
		default:
			ue.Status = StatusUnchanged
			id, _, _ := ident.edge(keysA, ue.A.Source, ue.A.Label, ue.A.Target)
			if c, ok := changedE[id]; ok {
				ue.Status, ue.Fields, ue.Desc = StatusChanged, c.Fields, c.Description
			}
		}
	}
	return u
}

// Cap keeps at most limit nodes of u, differences first (in StatusRank
// order), then unchanged nodes by degree, and the edges among them. It
// returns u itself when u has no more than limit nodes.
func (u Union) Cap(limit int) Union {
	if len(u.Nodes) <= limit {
		return u
	}
	degree := map[string]int{}
	for _, e := range u.Edges {
		degree[e.Source]++
		degree[e.Target]++
	}
	nodes := append([]UnionNode(nil), u.Nodes...)
	sort.SliceStable(nodes, func(i, j int) bool {
		ri, rj := StatusRank(nodes[i].Status), StatusRank(nodes[j].Status)
		if ri != rj {
			return ri < rj
		}
		return degree[nodes[i].ID] > degree[nodes[j].ID]
	})
	nodes = nodes[:max(limit, 0)]
	keep := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		keep[n.ID] = true
	}
	out := Union{A: u.A, B: u.B, Nodes: nodes}
	for _, e := range u.Edges {
		if keep[e.Source] && keep[e.Target] {
			out.Edges = append(out.Edges, e)
		}
	}
	return out
}

// NodeTypes lists the node types of u, sorted, each once.
func (u Union) NodeTypes() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range u.Nodes {
		if !seen[n.Type] {
			seen[n.Type] = true
			out = append(out, n.Type)
		}
	}
	sort.Strings(out)
	return out
}

// EdgeLabels lists the edge labels of u, each once, the most used first
// (then by label); limit > 0 keeps the first limit labels.
func (u Union) EdgeLabels(limit int) []string {
	count := map[string]int{}
	for _, e := range u.Edges {
		count[e.Label]++
	}
	out := make([]string, 0, len(count))
	for l := range count {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if count[out[i]] != count[out[j]] {
			return count[out[i]] > count[out[j]]
		}
		return out[i] < out[j]
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
