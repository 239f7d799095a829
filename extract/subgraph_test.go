package extract

import (
	"fmt"
	"reflect"
	"testing"
)

// subgraphFixture: a-b, b-c, a-c, c-d, f-d, d-giza, a-zzz (no such node),
// e alone; degrees a2 b2 c3 d3 e0 f1 giza1.
func subgraphFixture() Graph {
	n := func(key, name, typ string) Node { return Node{Key: key, Name: name, Type: typ} }
	e := func(s, l, t string) Edge { return Edge{Source: s, Target: t, Label: l, Weight: 1} }
	return Graph{
		Nodes: []Node{
			n("a", "Alice", "Person"), n("b", "Bob", "Person"), n("c", "Cairo", "Place"), n("d", "Dynamo Corp", "Organization"),
			n("e", "Eve", "Person"), n("f", "Fayum", "Place"), n("giza-plateau", "Giza", "place"),
		},
		Edges: []Edge{e("a", "knows", "b"), e("b", "lives_in", "c"), e("a", "visited", "c"), e("c", "hosts", "d"),
			e("f", "near", "d"), e("d", "in", "giza-plateau"), e("a", "likes", "zzz")},
	}
}

// subgraphCase is a query on subgraphFixture with the subgraph SelectSubgraph must answer.
type subgraphCase struct {
	name  string
	q     SubgraphQuery
	nodes []string // in order
	edges []string // "source target", in graph order
	// matched and truncated as reported
	matched   int
	truncated bool
}

// subgraphCases are the queries TestSelectSubgraph runs on subgraphFixture.
var subgraphCases = []subgraphCase{
	{
		name:    "All",
		nodes:   []string{"c", "d", "a", "b", "f", "giza-plateau", "e"},
		edges:   []string{"a b", "b c", "a c", "c d", "f d", "d giza-plateau"},
		matched: 7,
	},
	{name: "FocusDepth0", q: SubgraphQuery{Focus: "a"}, nodes: []string{"a"}, edges: nil, matched: 1},
	{
		// Each ring is sorted by degree.
		name: "FocusDepth1", q: SubgraphQuery{Focus: "a", Depth: 1},
		nodes: []string{"a", "c", "b"}, edges: []string{"a b", "b c", "a c"}, matched: 3,
	},
	{
		name: "FocusDepth2", q: SubgraphQuery{Focus: "a", Depth: 2},
		nodes: []string{"a", "c", "b", "d"}, edges: []string{"a b", "b c", "a c", "c d"}, matched: 4,
	},
	{
		name: "FocusWithoutEdges", q: SubgraphQuery{Focus: "e", Depth: 3},
		nodes: []string{"e"}, matched: 1,
	},
	{
		// The focus stays even when the filter drops it.
		name: "FocusFiltered", q: SubgraphQuery{Focus: "a", Depth: 2, Types: []string{"Place"}},
		nodes: []string{"a", "c"}, edges: []string{"a c"}, matched: 2,
	},
	{
		name: "FocusLimit", q: SubgraphQuery{Focus: "a", Depth: 2, Limit: 2},
		nodes: []string{"a", "c"}, edges: []string{"a c"}, matched: 4, truncated: true,
	},
	{
		// Types match in any case.
		name: "Types", q: SubgraphQuery{Types: []string{"person", "PLACE"}},
		nodes: []string{"c", "a", "b", "f", "giza-plateau", "e"},
		edges: []string{"a b", "b c", "a c"}, matched: 6,
	},
	{
		name: "MinDegree", q: SubgraphQuery{MinDegree: 3},
		nodes: []string{"c", "d"}, edges: []string{"c d"}, matched: 2,
	},
	{name: "QName", q: SubgraphQuery{Q: "CAI"}, nodes: []string{"c"}, matched: 1},
	{name: "QKey", q: SubgraphQuery{Q: "plateau"}, nodes: []string{"giza-plateau"}, matched: 1},
	{name: "QNothing", q: SubgraphQuery{Q: "nobody"}, nodes: []string{}, matched: 0},
	{
		// Without a focus a limit keeps the hubs with their best-connected
		// neighbours.
		name: "Limit", q: SubgraphQuery{Limit: 3},
		nodes: []string{"c", "d", "a"}, edges: []string{"a c", "c d"}, matched: 7, truncated: true,
	},
	{
		name: "LimitNotReached", q: SubgraphQuery{Limit: 2, MinDegree: 3},
		nodes: []string{"c", "d"}, edges: []string{"c d"}, matched: 2,
	},
}

// TestSelectSubgraph runs subgraphCases and checks focus errors, degrees, types, depth and the empty graph.
func TestSelectSubgraph(t *testing.T) {
	g := subgraphFixture()
	for _, tt := range subgraphCases {
		t.Run(tt.name, func(t *testing.T) {
			res, err := SelectSubgraph(g, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			nodes := []string{}
			for _, n := range res.Nodes {
				nodes = append(nodes, n.ID)
			}
			var edges []string
			for _, e := range res.Edges {
				edges = append(edges, e.Source+" "+e.Target)
			}
			if !reflect.DeepEqual(nodes, tt.nodes) {
				t.Errorf("nodes %q, want %q", nodes, tt.nodes)
			}
			if !reflect.DeepEqual(edges, tt.edges) {
				t.Errorf("edges %q, want %q", edges, tt.edges)
			}
			if res.Matched != tt.matched || res.Truncated != tt.truncated {
				t.Errorf("matched %d truncated %v, want %d %v", res.Matched, res.Truncated, tt.matched, tt.truncated)
			}
			if res.TotalNodes != 7 || res.TotalEdges != 7 {
				t.Errorf("totals %d/%d, want the whole graph's 7/7", res.TotalNodes, res.TotalEdges)
			}
			if res.Edges == nil {
				t.Error("edges are nil, not empty")
			}
		})
	}

	t.Run("DegreesAndTypes", func(t *testing.T) {
		res, err := SelectSubgraph(g, SubgraphQuery{Focus: "c"})
		if err != nil {
			t.Fatal(err)
		}
		want := []SubgraphNode{{ID: "c", Name: "Cairo", Type: "Place", Degree: 3}}
		if !reflect.DeepEqual(res.Nodes, want) {
			t.Errorf("nodes %+v, want %+v", res.Nodes, want)
		}
		types := []TypeCount{{"Person", 3}, {"Place", 2}, {"Organization", 1}, {"place", 1}}
		if !reflect.DeepEqual(res.Types, types) {
			t.Errorf("types %+v, want %+v", res.Types, types)
		}
	})

	t.Run("UnknownFocus", func(t *testing.T) {
		_, err := SelectSubgraph(g, SubgraphQuery{Focus: "zzz", Depth: 1})
		if KindOf(err) != KindNotFound || MessageOf(err) != `node "zzz" not found` {
			t.Errorf("error %v (kind %q), want not found", err, KindOf(err))
		}
	})

	t.Run("DepthBounded", func(t *testing.T) {
		var path Graph
		for i := range 10 {
			path.Nodes = append(path.Nodes, Node{Key: fmt.Sprint("p", i)})
			if i > 0 {
				path.Edges = append(path.Edges, Edge{Source: fmt.Sprint("p", i-1), Target: fmt.Sprint("p", i)})
			}
		}
		res, err := SelectSubgraph(path, SubgraphQuery{Focus: "p0", Depth: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Nodes) != MaxSubgraphDepth+1 {
			t.Errorf("depth 100 reaches %d nodes, want %d", len(res.Nodes), MaxSubgraphDepth+1)
		}
	})

	t.Run("EmptyGraph", func(t *testing.T) {
		res, err := SelectSubgraph(Graph{}, SubgraphQuery{})
		if err != nil || res.Nodes == nil || res.Edges == nil || len(res.Nodes)+len(res.Edges)+res.TotalNodes != 0 {
			t.Errorf("empty graph: %+v %v", res, err)
		}
	})
}
