package diff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// unionStatuses maps the union's node names and edge labels to their
// statuses.
func unionStatuses(u Union) (nodes, edges map[string]Change) {
	nodes, edges = map[string]Change{}, map[string]Change{}
	for _, n := range u.Nodes {
		nodes[n.Name+"/"+n.Type] = n.Status
	}
	for _, e := range u.Edges {
		edges[e.Source+" "+e.Label+" "+e.Target] = e.Status
	}
	return nodes, edges
}

func TestNewUnion(t *testing.T) {
	a := extract.Graph{
		Nodes: []extract.Node{
			node("Ada", "Person", "A mathematician."),
			node("London", "Place", "A city."),
			node("Engine", "Artifact", ""),
		},
		Edges: []extract.Edge{
			edge("Ada", "born in", "London"),
			edge("Ada", "wrote about", "Engine"),
			edge("Engine", "stored in", "Nowhere"),
		},
	}
	b := extract.Graph{
		Nodes: []extract.Node{
			node("ADA", "Person", "A mathematician and writer."),
			node("London", "Place", "A city."),
			node("Babbage", "Person", ""),
		},
		Edges: []extract.Edge{
			edge("Ada", "born in", "London"),
			{Source: "ada", Target: "london", Label: "lived in", Weight: 2},
			edge("Babbage", "knows", "Ada"),
		},
	}
	res := Compare(a, b, Options{})
	u := NewUnion(a, b, res, Options{})

	t.Run("Nodes", func(t *testing.T) {
		want := []UnionNode{
			{ID: "n0", Name: "ADA", Type: "Person", Status: StatusChanged, A: &a.Nodes[0], B: &b.Nodes[0],
				Fields: []string{"name", "description"}, Desc: Words(a.Nodes[0].Description, b.Nodes[0].Description)},
			{ID: "n1", Name: "London", Type: "Place", Status: StatusUnchanged, A: &a.Nodes[1], B: &b.Nodes[1]},
			{ID: "n2", Name: "Engine", Type: "Artifact", Status: StatusRemoved, A: &a.Nodes[2]},
			{ID: "n3", Name: "Babbage", Type: "Person", Status: StatusAdded, B: &b.Nodes[2]},
		}
		if !reflect.DeepEqual(u.Nodes, want) {
			t.Errorf("nodes:\n got %s\nwant %s", mustJSON(t, u.Nodes), mustJSON(t, want))
		}
	})
	t.Run("Edges", func(t *testing.T) {
		want := []UnionEdge{
			{ID: "e0", Source: "n0", Target: "n1", Label: "born in", Status: StatusUnchanged, A: &a.Edges[0], B: &b.Edges[0]},
			{ID: "e1", Source: "n0", Target: "n2", Label: "wrote about", Status: StatusRemoved, A: &a.Edges[1]},
			// "Nowhere" names no node: the edge has no target.
			{ID: "e2", Source: "n2", Target: "", Label: "stored in", Status: StatusRemoved, A: &a.Edges[2]},
			{ID: "e3", Source: "n0", Target: "n1", Label: "lived in", Status: StatusAdded, B: &b.Edges[1]},
			{ID: "e4", Source: "n3", Target: "n0", Label: "knows", Status: StatusAdded, B: &b.Edges[2]},
		}
		if !reflect.DeepEqual(u.Edges, want) {
			t.Errorf("edges:\n got %s\nwant %s", mustJSON(t, u.Edges), mustJSON(t, want))
		}
	})
	t.Run("ChangedEdge", func(t *testing.T) {
		b2 := b
		b2.Edges = append([]extract.Edge{{Source: "ada", Target: "london", Label: "Born In", Weight: 1}}, b.Edges[1:]...)
		u := NewUnion(a, b2, Compare(a, b2, Options{}), Options{})
		e := u.Edges[0]
		if e.Status != StatusChanged || !reflect.DeepEqual(e.Fields, []string{"label"}) || e.Label != "born in" {
			t.Errorf("edge with a relabelled surface form: %+v", e)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		data, err := json.Marshal(NewUnion(extract.Graph{}, extract.Graph{}, Compare(extract.Graph{}, extract.Graph{}, Options{}), Options{}))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(data), `{"a":"","b":"","nodes":[],"edges":[]}`; got != want {
			t.Errorf("empty union = %s, want %s", got, want)
		}
	})
}

func TestNewUnion_Options(t *testing.T) {
	n := func(name, typ string) extract.Node { return node(name, typ, "") }
	typed := func(typ string) extract.Graph { return extract.Graph{Nodes: []extract.Node{n("Ada", typ)}} }
	linked := func(e ...extract.Edge) extract.Graph {
		return extract.Graph{Nodes: []extract.Node{n("A", "T"), n("B", "T")}, Edges: e}
	}
	same := map[string]Change{"A/T": StatusUnchanged, "B/T": StatusUnchanged}
	tests := []struct {
		name  string
		a, b  extract.Graph
		opts  Options
		nodes map[string]Change
		edges map[string]Change
		// fields of the one changed item, if any
		fields []string
	}{
		{
			name: "TypeTellsNodesApart", a: typed("Person"),
			b:     extract.Graph{Nodes: []extract.Node{{Key: "ada-writer", Name: "Ada", Type: "Writer"}}},
			nodes: map[string]Change{"Ada/Person": StatusRemoved, "Ada/Writer": StatusAdded}, edges: map[string]Change{},
		},
		{
			// A retype keeps the key: one changed node.
			name: "RetypeKeepsKey", a: typed("Person"), b: typed("Writer"),
			nodes: map[string]Change{"Ada/Writer": StatusChanged}, edges: map[string]Change{}, fields: []string{"type"},
		},
		{
			// Ignored, a type difference is no change.
			name: "IgnoreType", a: typed("Person"), b: typed("Writer"), opts: Options{IgnoreType: true},
			nodes: map[string]Change{"Ada/Writer": StatusUnchanged}, edges: map[string]Change{},
		},
		{
			name: "DirectionTellsEdgesApart", a: linked(edge("A", "r", "B")), b: linked(edge("B", "r", "A")),
			nodes: same, edges: map[string]Change{"n0 r n1": StatusRemoved, "n1 r n0": StatusAdded},
		},
		{
			// The union draws a's direction; ignored, it is no change.
			name: "Undirected", a: linked(edge("A", "r", "B")), b: linked(edge("B", "r", "A")), opts: Options{Undirected: true},
			nodes: same, edges: map[string]Change{"n0 r n1": StatusUnchanged},
		},
		{
			name: "LabelTellsEdgesApart", a: linked(edge("A", "knows", "B")), b: linked(edge("A", "met", "B")),
			nodes: same, edges: map[string]Change{"n0 knows n1": StatusRemoved, "n0 met n1": StatusAdded},
		},
		{
			// The union keeps a's label; ignored, it is no change.
			name: "IgnoreLabels", a: linked(edge("A", "knows", "B")), b: linked(edge("A", "met", "B")), opts: Options{IgnoreLabels: true},
			nodes: same, edges: map[string]Change{"n0 knows n1": StatusUnchanged},
		},
		{
			// With types ignored, an endpoint typed in one graph and
			// dangling in the other is the same node.
			name: "IgnoreTypeDanglingEndpoint", a: linked(edge("A", "r", "B")),
			b:     extract.Graph{Nodes: []extract.Node{n("A", "T")}, Edges: []extract.Edge{edge("A", "r", "B")}},
			opts:  Options{IgnoreType: true},
			nodes: map[string]Change{"A/T": StatusUnchanged, "B/T": StatusRemoved}, edges: map[string]Change{"n0 r n1": StatusUnchanged},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := NewUnion(tt.a, tt.b, Compare(tt.a, tt.b, tt.opts), tt.opts)
			nodes, edges := unionStatuses(u)
			if !reflect.DeepEqual(nodes, tt.nodes) || !reflect.DeepEqual(edges, tt.edges) {
				t.Errorf("statuses: nodes %v edges %v, want %v %v", nodes, edges, tt.nodes, tt.edges)
			}
			var fields []string
			for _, n := range u.Nodes {
				fields = append(fields, n.Fields...)
			}
			for _, e := range u.Edges {
				fields = append(fields, e.Fields...)
			}
			if !reflect.DeepEqual(fields, tt.fields) {
				t.Errorf("changed fields %v, want %v", fields, tt.fields)
			}
		})
	}
}

// TestNewUnion_AgreesWithCompare checks on random graphs that the union
// holds as many items of each status as Compare counts.
func TestNewUnion_AgreesWithCompare(t *testing.T) {
	// A stored graph has one node per key.
	uniqueKeys := func(g extract.Graph) extract.Graph {
		seen := map[string]bool{}
		var nodes []extract.Node
		for _, n := range g.Nodes {
			if !seen[n.Key] {
				seen[n.Key] = true
				nodes = append(nodes, n)
			}
		}
		g.Nodes = nodes
		return g
	}
	count := func(statuses []Change) Totals {
		var c Totals
		for _, s := range statuses {
			switch s {
			case StatusAdded:
				c.Added++
			case StatusRemoved:
				c.Removed++
			case StatusChanged:
				c.Changed++
			case StatusUnchanged:
				c.Unchanged++
			}
		}
		return c
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		a := uniqueKeys(randomGraph(rng, rng.IntN(8), rng.IntN(12)))
		b := uniqueKeys(randomGraph(rng, rng.IntN(8), rng.IntN(12)))
		// Some edges are marked undirected, as GraphML imports them.
		for _, g := range []extract.Graph{a, b} {
			for k := range g.Edges {
				if rng.IntN(4) == 0 {
					g.Edges[k].Properties = map[string]any{extract.DirectedProperty: false}
				}
			}
		}
		opts := Options{IgnoreType: rng.IntN(2) == 0, Undirected: rng.IntN(2) == 0,
			IgnoreLabels: rng.IntN(2) == 0, Reference: rng.IntN(3)}
		t.Run(fmt.Sprintf("Case%03d", i), func(t *testing.T) {
			res := Compare(a, b, opts)
			u := NewUnion(a, b, res, opts)
			var ns, es []Change
			for _, n := range u.Nodes {
				ns = append(ns, n.Status)
			}
			for _, e := range u.Edges {
				es = append(es, e.Status)
			}
			for _, c := range []struct {
				kind      string
				got, want Totals
			}{{"nodes", count(ns), res.Summary.Nodes}, {"edges", count(es), res.Summary.Edges}} {
				w := c.want
				if c.got != (Totals{Added: w.Added, Removed: w.Removed, Changed: w.Changed, Unchanged: w.Unchanged}) {
					t.Errorf("%s: union %+v, compare %+v (opts %+v)", c.kind, c.got, w, opts)
				}
			}
		})
	}
}

func TestUnion_Cap(t *testing.T) {
	u := Union{A: "x@1", B: "x@2"}
	statuses := []Change{StatusUnchanged, StatusAdded, StatusUnchanged, StatusRemoved, StatusUnchanged, StatusChanged, StatusUnchanged, StatusUnchanged}
	for i, st := range statuses {
		u.Nodes = append(u.Nodes, UnionNode{ID: fmt.Sprint("n", i), Status: st})
	}
	// n6 is the best-connected unchanged node, then n4.
	for _, e := range [][2]string{{"n6", "n0"}, {"n6", "n2"}, {"n6", "n4"}, {"n4", "n1"}, {"n7", "n3"}} {
		u.Edges = append(u.Edges, UnionEdge{ID: e[0] + e[1], Source: e[0], Target: e[1], Status: StatusUnchanged})
	}

	t.Run("DifferencesThenDegree", func(t *testing.T) {
		got := u.Cap(5)
		var ids []string
		for _, n := range got.Nodes {
			ids = append(ids, n.ID)
		}
		if want := []string{"n1", "n3", "n5", "n6", "n4"}; !reflect.DeepEqual(ids, want) {
			t.Fatalf("kept %v, want %v", ids, want)
		}
		var edges []string
		for _, e := range got.Edges {
			edges = append(edges, e.ID)
		}
		if want := []string{"n6n4", "n4n1"}; !reflect.DeepEqual(edges, want) {
			t.Fatalf("kept edges %v, want the edges among the kept nodes %v", edges, want)
		}
		if got.A != u.A || got.B != u.B {
			t.Errorf("labels %q %q", got.A, got.B)
		}
		if len(u.Nodes) != 8 || u.Nodes[0].ID != "n0" {
			t.Error("Cap changed its receiver")
		}
	})
	t.Run("UnderTheLimit", func(t *testing.T) {
		if got := u.Cap(8); !reflect.DeepEqual(got, u) {
			t.Errorf("Cap(len) = %+v", got)
		}
	})
}

func TestStatusRank(t *testing.T) {
	order := []Change{StatusAdded, StatusRemoved, StatusChanged, StatusUnchanged}
	for i := 1; i < len(order); i++ {
		if StatusRank(order[i-1]) >= StatusRank(order[i]) {
			t.Errorf("%s does not rank before %s", order[i-1], order[i])
		}
	}
}

func TestUnion_NodeTypesAndEdgeLabels(t *testing.T) {
	u := Union{
		Nodes: []UnionNode{{Type: "Place"}, {Type: "Person"}, {Type: "Place"}, {Type: ""}},
		Edges: []UnionEdge{{Label: "b"}, {Label: "a"}, {Label: "c"}, {Label: "c"}, {Label: "b"}, {Label: "c"}},
	}
	if got, want := u.NodeTypes(), []string{"", "Person", "Place"}; !reflect.DeepEqual(got, want) {
		t.Errorf("NodeTypes = %q, want %q", got, want)
	}
	if got, want := u.EdgeLabels(0), []string{"c", "b", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("EdgeLabels(0) = %q, want %q", got, want)
	}
	if got, want := u.EdgeLabels(2), []string{"c", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("EdgeLabels(2) = %q, want %q", got, want)
	}
}
