package diff

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

func node(name, typ, desc string) extract.Node {
	return extract.Node{Key: extract.NodeKey(name), Name: name, Type: typ, Description: desc}
}

func edge(src, label, tgt string) extract.Edge {
	return extract.Edge{Source: extract.NodeKey(src), Target: extract.NodeKey(tgt), Label: label, Weight: 1}
}

// compareBase and compareRetyped are the graphs most of compareCases compare.
var (
	// compareBase is a small graph of three nodes and two edges.
	compareBase = extract.Graph{
		Nodes: []extract.Node{
			node("Ada Lovelace", "Person", "A mathematician."),
			node("London", "Location", "A city."),
			node("Analytical Engine", "Artifact", ""),
		},
		Edges: []extract.Edge{
			edge("Ada Lovelace", "born in", "London"),
			edge("Ada Lovelace", "wrote about", "Analytical Engine"),
		},
	}
	// compareRetyped is compareBase with London retyped, its key kept.
	compareRetyped = extract.Graph{
		Nodes: []extract.Node{
			node("Ada Lovelace", "Person", "A mathematician."),
			node("London", "City", "A city."),
			node("Analytical Engine", "Artifact", ""),
		},
		Edges: compareBase.Edges,
	}
)

// compareCase is two graphs, the options to compare them with, and the differences Compare must find.
type compareCase struct {
	name string
	a, b extract.Graph
	opts Options
	// expected counts: nodes added, removed, changed; edges added, removed, changed
	want [6]int
	// expected changed fields of the first changed node / edge
	nodeFields []string
	edgeFields []string
}

// compareCases are the pairs TestCompare compares.
var compareCases = []compareCase{
	{name: "Identical", a: compareBase, b: compareBase},
	{
		name: "NameCaseAndSpacing",
		a:    compareBase,
		b: extract.Graph{
			Nodes: []extract.Node{
				{Key: "ada lovelace", Name: "ADA  LOVELACE", Type: "Person", Description: "A mathematician."},
				node("London", "Location", "A city."),
				node("Analytical Engine", "Artifact", ""),
			},
			Edges: compareBase.Edges,
		},
		want:       [6]int{0, 0, 1, 0, 0, 0},
		nodeFields: []string{"name"},
	},
	{
		name: "AddedAndRemoved",
		a:    compareBase,
		b: extract.Graph{
			Nodes: []extract.Node{
				node("Ada Lovelace", "Person", "A mathematician."),
				node("Charles Babbage", "Person", ""),
				node("Analytical Engine", "Artifact", ""),
			},
			Edges: []extract.Edge{
				edge("Charles Babbage", "designed", "Analytical Engine"),
				edge("Ada Lovelace", "wrote about", "Analytical Engine"),
			},
		},
		want: [6]int{1, 1, 0, 1, 1, 0},
	},
	{
		// Same key and name, another type: the node retyped, its
		// edges still matched.
		name:       "TypeChangeKeepsKey",
		a:          compareBase,
		b:          compareRetyped,
		want:       [6]int{0, 0, 1, 0, 0, 0},
		nodeFields: []string{"type"},
	},
	{
		name: "TypeChangeIsAddRemove",
		a:    compareBase,
		b: extract.Graph{
			Nodes: []extract.Node{
				node("Ada Lovelace", "Person", "A mathematician."),
				{Key: "london-city", Name: "London", Type: "City", Description: "A city."},
				node("Analytical Engine", "Artifact", ""),
			},
			Edges: []extract.Edge{
				{Source: extract.NodeKey("Ada Lovelace"), Label: "born in", Target: "london-city", Weight: 1},
				compareBase.Edges[1],
			},
		},
		// Under another key, the born-in edge's endpoint identity
		// changes with the type.
		want: [6]int{1, 1, 0, 1, 1, 0},
	},
	{
		name: "TypeChangeIgnored",
		a:    compareBase,
		b:    compareRetyped,
		opts: Options{IgnoreType: true},
		// Ignored, the type difference is no change.
		want: [6]int{0, 0, 0, 0, 0, 0},
	},
	{
		name: "DescriptionAndProperties",
		a:    compareBase,
		b: extract.Graph{
			Nodes: []extract.Node{
				{Key: "ada lovelace", Name: "Ada Lovelace", Type: "Person", Description: "An English mathematician.",
					Properties: map[string]any{"born": 1815}},
				node("London", "Location", "A city."),
				node("Analytical Engine", "Artifact", ""),
			},
			Edges: []extract.Edge{
				{Source: "ada lovelace", Target: "london", Label: "born in", Weight: 2, Keywords: "birth"},
				edge("Ada Lovelace", "wrote about", "Analytical Engine"),
			},
		},
		want:       [6]int{0, 0, 1, 0, 0, 1},
		nodeFields: []string{"description", "properties"},
		// The weight differs too, but weights are bookkeeping.
		edgeFields: []string{"keywords"},
	},
	{
		name: "ReversedEdgeDirected",
		a:    compareBase,
		b: extract.Graph{
			Nodes: compareBase.Nodes,
			Edges: []extract.Edge{
				edge("London", "born in", "Ada Lovelace"),
				edge("Ada Lovelace", "wrote about", "Analytical Engine"),
			},
		},
		want: [6]int{0, 0, 0, 1, 1, 0},
	},
	{
		name: "ReversedEdgeUndirected",
		a:    compareBase,
		b: extract.Graph{
			Nodes: compareBase.Nodes,
			Edges: []extract.Edge{
				edge("London", "born in", "Ada Lovelace"),
				edge("Ada Lovelace", "wrote about", "Analytical Engine"),
			},
		},
		opts: Options{Undirected: true},
		// Ignored, the direction is no change.
		want: [6]int{0, 0, 0, 0, 0, 0},
	},
	{
		name: "LabelNormalised",
		a:    compareBase,
		b: extract.Graph{
			Nodes: compareBase.Nodes,
			Edges: []extract.Edge{
				edge("Ada Lovelace", "Born_In", "London"),
				edge("Ada Lovelace", "wrote about", "Analytical Engine"),
			},
		},
		want:       [6]int{0, 0, 0, 0, 0, 1},
		edgeFields: []string{"label"},
	},
	{
		name: "EmptySides",
		a:    extract.Graph{},
		b:    compareBase,
		want: [6]int{3, 0, 0, 2, 0, 0},
	},
	{
		name: "CJK",
		a: extract.Graph{Nodes: []extract.Node{
			{Key: "糖尿病", Name: "糖尿病", Type: "疾病", Description: "一种慢性病"},
		}},
		b: extract.Graph{Nodes: []extract.Node{
			{Key: "糖尿病", Name: "糖尿病 ", Type: "疾病", Description: "一种常见慢性病"},
		}},
		want:       [6]int{0, 0, 1, 0, 0, 0},
		nodeFields: []string{"name", "description"},
	},
	{
		name: "LabelsIgnored",
		a:    compareBase,
		b: extract.Graph{
			Nodes: compareBase.Nodes,
			Edges: []extract.Edge{
				edge("Ada Lovelace", "place of birth", "London"),
				edge("Ada Lovelace", "wrote about", "Analytical Engine"),
				edge("London", "wrote about", "Analytical Engine"),
			},
		},
		opts: Options{IgnoreLabels: true},
		// Ignored, the label is no change.
		want: [6]int{0, 0, 0, 1, 0, 0},
	},
	{
		name: "LabelsIgnoredUndirected",
		a:    compareBase,
		b: extract.Graph{
			Nodes: compareBase.Nodes,
			Edges: []extract.Edge{
				edge("London", "birthplace of", "Ada Lovelace"),
				edge("Ada Lovelace", "wrote about", "Analytical Engine"),
			},
		},
		opts: Options{IgnoreLabels: true, Undirected: true},
		want: [6]int{0, 0, 0, 0, 0, 0},
	},
	{
		// Against a reference, what the gold side leaves empty is no
		// disagreement: only the type, names and shared values count.
		name: "ReferenceEmptyFields",
		a: extract.Graph{
			Nodes: []extract.Node{
				node("Ada Lovelace", "Person", ""),
				{Key: "london", Name: "London", Type: "Location", Properties: map[string]any{"aliases": []any{"LDN"}}},
				{Key: "analytical engine", Name: "Analytical Engine", Type: "Artifact", Properties: map[string]any{"year": 1837}},
			},
			Edges: []extract.Edge{edge("Ada Lovelace", "born in", "London"), edge("Ada Lovelace", "wrote about", "Analytical Engine")},
		},
		b: extract.Graph{
			Nodes: []extract.Node{
				{Key: "ada lovelace", Name: "Ada Lovelace", Type: "Person", Description: "A mathematician.", Properties: map[string]any{"born": 1815}},
				node("London", "Location", "A city."),
				{Key: "analytical engine", Name: "Analytical Engine", Type: "Artifact", Properties: map[string]any{"year": 1834.0}},
			},
			Edges: []extract.Edge{
				{Source: "ada lovelace", Target: "london", Label: "born in", Weight: 3, Keywords: "birth", Description: "She was born there."},
				edge("Ada Lovelace", "wrote about", "Analytical Engine"),
			},
		},
		opts:       Options{Reference: RefA},
		want:       [6]int{0, 0, 1, 0, 0, 0},
		nodeFields: []string{"properties"},
	},
	{
		name: "ReferenceUntyped",
		a:    extract.Graph{Nodes: []extract.Node{node("Ada", "", ""), node("Bob", "Person", "")}},
		b:    extract.Graph{Nodes: []extract.Node{node("Ada", "Person", "x"), node("Bob", "Place", "")}},
		opts: Options{IgnoreType: true, Reference: RefA},
		// Types ignored, Bob's two types are no disagreement either.
		want: [6]int{0, 0, 0, 0, 0, 0},
	},
	{
		// extract.NormalizeName drops a byte-order mark, so a name that
		// still carries one is the same node, with a changed name.
		name: "BOMInName",
		a:    extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "\ufeffAda", Type: "Person"}}},
		b:    extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "Ada", Type: "Person"}}},
		want: [6]int{0, 0, 1, 0, 0, 0},
	},
}

// TestCompare compares each of compareCases and checks its counts, changed fields and invariants.
func TestCompare(t *testing.T) {
	for _, tt := range compareCases {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(tt.a, tt.b, tt.opts)
			got := [6]int{len(r.Nodes.Added), len(r.Nodes.Removed), len(r.Nodes.Changed),
				len(r.Edges.Added), len(r.Edges.Removed), len(r.Edges.Changed)}
			if got != tt.want {
				t.Fatalf("counts = %v, want %v\n%s", got, tt.want, mustJSON(t, r))
			}
			if tt.nodeFields != nil && !reflect.DeepEqual(r.Nodes.Changed[0].Fields, tt.nodeFields) {
				t.Errorf("node fields = %v, want %v", r.Nodes.Changed[0].Fields, tt.nodeFields)
			}
			if tt.edgeFields != nil && !reflect.DeepEqual(r.Edges.Changed[0].Fields, tt.edgeFields) {
				t.Errorf("edge fields = %v, want %v", r.Edges.Changed[0].Fields, tt.edgeFields)
			}
			checkInvariants(t, tt.a, tt.b, tt.opts, r)
		})
	}
}

func TestCompare_TypeCounts(t *testing.T) {
	a := extract.Graph{Nodes: []extract.Node{node("A", "Person", ""), node("B", "Person", ""), node("C", "Place", "")}}
	b := extract.Graph{Nodes: []extract.Node{node("A", "Person", ""), node("C", "Place", ""), node("D", "Place", ""), node("E", "Org", "")}}
	r := Compare(a, b, Options{})
	want := map[string]TypeCount{
		"Person": {Before: 2, After: 1, Delta: -1},
		"Place":  {Before: 1, After: 2, Delta: 1},
		"Org":    {Before: 0, After: 1, Delta: 1},
	}
	if !reflect.DeepEqual(r.Summary.NodeTypes, want) {
		t.Errorf("node types = %v, want %v", r.Summary.NodeTypes, want)
	}
	if r.Summary.Nodes.Before != 3 || r.Summary.Nodes.After != 4 || r.Summary.Nodes.Unchanged != 2 {
		t.Errorf("totals = %+v", r.Summary.Nodes)
	}
}

func TestCompare_Duplicates(t *testing.T) {
	a := extract.Graph{
		Nodes: []extract.Node{node("A", "T", "first"), {Key: "a2", Name: "a", Type: "T", Description: "second"}},
		Edges: []extract.Edge{edge("A", "r", "A"), {Source: "a2", Target: "a", Label: "R"}},
	}
	r := Compare(a, a, Options{})
	if !r.IsEmpty() {
		t.Fatalf("diff of a graph with itself is not empty: %s", mustJSON(t, r))
	}
	if r.Summary.Nodes.DuplicatesA != 1 || r.Summary.Nodes.Before != 1 {
		t.Errorf("node totals = %+v", r.Summary.Nodes)
	}
	if r.Summary.Edges.DuplicatesA != 1 || r.Summary.Edges.Before != 1 {
		t.Errorf("edge totals = %+v", r.Summary.Edges)
	}
}

func TestCompare_Score(t *testing.T) {
	gold := extract.Graph{
		Nodes: []extract.Node{node("A", "T", ""), node("B", "T", ""), node("C", "T", ""), node("D", "T", "")},
		Edges: []extract.Edge{edge("A", "r", "B"), edge("B", "r", "C")},
	}
	pred := extract.Graph{
		Nodes: []extract.Node{node("A", "T", ""), node("B", "T", ""), node("X", "T", "")},
		Edges: []extract.Edge{edge("A", "r", "B"), edge("A", "r", "X"), edge("B", "s", "X"), edge("X", "r", "A")},
	}
	tests := []struct {
		name         string
		a, b         extract.Graph
		opts         Options
		nodes, edges PRF
		none         bool
	}{
		{name: "NoReference", a: gold, b: pred, none: true},
		{name: "GoldIsA", a: gold, b: pred, opts: Options{Reference: RefA},
			nodes: NewPRF(2, 3, 4), edges: NewPRF(1, 4, 2)},
		{name: "GoldIsB", a: pred, b: gold, opts: Options{Reference: RefB},
			nodes: NewPRF(2, 3, 4), edges: NewPRF(1, 4, 2)},
	}
	t.Run("Unlabelled", func(t *testing.T) {
		// The run labels its edges differently: the labelled score is 0;
		// unlabelled, A-B matches gold (B-C does not: C is no node of the
		// run, so its endpoint has no type).
		relabelled := extract.Graph{Nodes: pred.Nodes, Edges: []extract.Edge{
			edge("A", "is linked to", "B"), edge("A", "is linked to", "X"), edge("B", "has", "C"),
		}}
		for _, ignore := range []bool{false, true} {
			r := Compare(gold, relabelled, Options{Reference: RefA, IgnoreLabels: ignore})
			if r.Score == nil {
				t.Fatal("no score")
			}
			lab, unlab := NewPRF(0, 3, 2), NewPRF(1, 3, 2)
			if r.Score.Labelled != lab || r.Score.Unlabelled != unlab {
				t.Errorf("ignore=%v: labelled %+v unlabelled %+v, want %+v %+v", ignore, r.Score.Labelled, r.Score.Unlabelled, lab, unlab)
			}
			want := lab
			if ignore {
				want = unlab
			}
			if r.Score.Edges != want {
				t.Errorf("ignore=%v: edges %+v, want %+v", ignore, r.Score.Edges, want)
			}
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(tt.a, tt.b, tt.opts)
			if tt.none {
				if r.Score != nil {
					t.Fatalf("score = %+v, want none", r.Score)
				}
				return
			}
			if r.Score == nil {
				t.Fatal("no score")
			}
			if r.Score.Nodes != tt.nodes || r.Score.Edges != tt.edges || r.Score.Labelled != tt.edges {
				t.Errorf("score = %+v, want nodes %+v edges %+v", *r.Score, tt.nodes, tt.edges)
			}
		})
	}
	if p := NewPRF(2, 3, 4); math.Abs(p.Precision-2.0/3) > 1e-12 || p.Recall != 0.5 || math.Abs(p.F1-4.0/7) > 1e-12 {
		t.Errorf("NewPRF(2,3,4) = %+v", p)
	}
	if p := NewPRF(0, 0, 0); p != (PRF{}) {
		t.Errorf("NewPRF(0,0,0) = %+v", p)
	}
}

func TestOptions_Validate(t *testing.T) {
	for _, tt := range []struct {
		ref int
		ok  bool
	}{{0, true}, {1, true}, {2, true}, {3, false}, {-1, false}} {
		t.Run(fmt.Sprint(tt.ref), func(t *testing.T) {
			err := Options{Reference: tt.ref}.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate(%d) = %v", tt.ref, err)
			}
			if err != nil && extract.KindOf(err) != extract.KindInvalid {
				t.Errorf("kind = %v", extract.KindOf(err))
			}
		})
	}
}

func TestResult_JSON(t *testing.T) {
	t.Run("EmptyWithoutScore", func(t *testing.T) {
		data, err := json.Marshal(Compare(extract.Graph{}, extract.Graph{}, Options{}))
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		for _, want := range []string{
			`"nodes":{"added":[],"removed":[],"changed":[]}`,
			`"edges":{"added":[],"removed":[],"changed":[]}`,
			`"summary":{`,
		} {
			if !strings.Contains(s, want) {
				t.Errorf("JSON lacks %s: %s", want, s)
			}
		}
		if strings.Contains(s, `"score"`) {
			t.Errorf("JSON has a score without reference: %s", s)
		}
	})
	t.Run("WithScore", func(t *testing.T) {
		g := extract.Graph{Nodes: []extract.Node{node("A", "T", "")}}
		data, err := json.Marshal(Compare(g, g, Options{Reference: RefA}))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]map[string]map[string]float64
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(`{"score":`+string(raw["score"])+`}`), &m); err != nil {
			t.Fatal(err)
		}
		if m["score"]["nodes"]["f1"] != 1 || m["score"]["nodes"]["precision"] != 1 || m["score"]["nodes"]["recall"] != 1 {
			t.Errorf("score = %s", raw["score"])
		}
		if _, ok := m["score"]["edges"]["f1"]; !ok {
			t.Errorf("score has no edges f1: %s", raw["score"])
		}
	})
	t.Run("NaNWeight", func(t *testing.T) {
		a := extract.Graph{Edges: []extract.Edge{{Source: "x", Target: "y", Label: "r", Weight: 1}}}
		b := extract.Graph{Edges: []extract.Edge{{Source: "x", Target: "y", Label: "r", Weight: 0 * inf()}}}
		if _, err := json.Marshal(Compare(a, b, Options{})); err != nil {
			t.Fatalf("marshal: %v", err)
		}
	})
}

func inf() float64 { var z float64; return 1 / z }

// checkInvariants verifies the properties every result must hold.
func checkInvariants(t *testing.T, a, b extract.Graph, opts Options, r Result) {
	t.Helper()
	s := r.Summary
	if got, want := s.Nodes.Added-s.Nodes.Removed, s.Nodes.After-s.Nodes.Before; got != want {
		t.Errorf("nodes: added-removed = %d, |b|-|a| = %d", got, want)
	}
	if got, want := s.Edges.Added-s.Edges.Removed, s.Edges.After-s.Edges.Before; got != want {
		t.Errorf("edges: added-removed = %d, |b|-|a| = %d", got, want)
	}
	if s.Nodes.Before != s.Nodes.Removed+s.Nodes.Changed+s.Nodes.Unchanged {
		t.Errorf("nodes before %d != removed+changed+unchanged %+v", s.Nodes.Before, s.Nodes)
	}
	if s.Edges.Before != s.Edges.Removed+s.Edges.Changed+s.Edges.Unchanged {
		t.Errorf("edges before %d != removed+changed+unchanged %+v", s.Edges.Before, s.Edges)
	}
	self := Compare(a, a, opts)
	if !self.IsEmpty() {
		t.Errorf("diff(a, a) not empty: %s", mustJSON(t, self))
	}
	sw := Compare(b, a, opts)
	if !sameNodeItems(sw.Nodes.Added, r.Nodes.Removed) || !sameNodeItems(sw.Nodes.Removed, r.Nodes.Added) {
		t.Errorf("swapping sides does not swap added and removed nodes")
	}
	if !sameEdgeItems(sw.Edges.Added, r.Edges.Removed) || !sameEdgeItems(sw.Edges.Removed, r.Edges.Added) {
		t.Errorf("swapping sides does not swap added and removed edges")
	}
	if len(sw.Nodes.Changed) != len(r.Nodes.Changed) || len(sw.Edges.Changed) != len(r.Edges.Changed) {
		t.Errorf("swapping sides changes the number of changed items")
	}
}

func sameNodeItems(x, y []NodeItem) bool {
	if len(x) != len(y) {
		return false
	}
	m := map[NodeItem]int{}
	for _, v := range x {
		m[v]++
	}
	for _, v := range y {
		m[v]--
		if m[v] < 0 {
			return false
		}
	}
	return true
}

func sameEdgeItems(x, y []EdgeItem) bool {
	if len(x) != len(y) {
		return false
	}
	m := map[EdgeItem]int{}
	for _, v := range x {
		m[v]++
	}
	for _, v := range y {
		m[v]--
		if m[v] < 0 {
			return false
		}
	}
	return true
}

// randomGraph builds a graph over a small vocabulary so that two random
// graphs overlap, share names under different case and types, and hold
// duplicate identities.
func randomGraph(rng *rand.Rand, nodes, edges int) extract.Graph {
	names := []string{"Alpha", "beta", "Gamma Ray", "delta", "東京", "Ünïcode", "x_y", "'Quoted'", "Omega"}
	types := []string{"Person", "Place", "person"}
	labels := []string{"knows", "Knows", "part of", "near"}
	descs := []string{"", "one two three", "one three four", "日本の首都"}
	var g extract.Graph
	for i := 0; i < nodes; i++ {
		name := names[rng.IntN(len(names))]
		if rng.IntN(3) == 0 {
			name = strings.ToUpper(name)
		}
		n := extract.Node{
			Key: extract.NodeKey(name), Name: name, Type: types[rng.IntN(len(types))],
			Description: descs[rng.IntN(len(descs))],
		}
		if rng.IntN(2) == 0 {
			n.Properties = map[string]any{"p": rng.IntN(2)}
			if rng.IntN(2) == 0 {
				n.Properties["q"] = "v"
			}
		}
		g.Nodes = append(g.Nodes, n)
	}
	for i := 0; i < edges && len(g.Nodes) > 0; i++ {
		s := g.Nodes[rng.IntN(len(g.Nodes))].Key
		tg := g.Nodes[rng.IntN(len(g.Nodes))].Key
		if rng.IntN(10) == 0 {
			tg = "dangling"
		}
		g.Edges = append(g.Edges, extract.Edge{Source: s, Target: tg, Label: labels[rng.IntN(len(labels))], Weight: float64(rng.IntN(3))})
	}
	return g
}

func TestCompare_Properties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		a := randomGraph(rng, rng.IntN(8), rng.IntN(12))
		b := randomGraph(rng, rng.IntN(8), rng.IntN(12))
		opts := Options{IgnoreType: rng.IntN(2) == 0, Undirected: rng.IntN(2) == 0,
			IgnoreLabels: rng.IntN(2) == 0, Reference: rng.IntN(3)}
		t.Run(fmt.Sprintf("Case%03d", i), func(t *testing.T) {
			checkInvariants(t, a, b, opts, Compare(a, b, opts))
		})
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// benchGraph builds a graph of n nodes and 2n edges; shift renames a share
// of the nodes and relabels a share of the edges so that two graphs differ.
func benchGraph(n int, shift int) extract.Graph {
	g := extract.Graph{Nodes: make([]extract.Node, n), Edges: make([]extract.Edge, 2*n)}
	types := []string{"Person", "Organization", "Location", "Event"}
	labels := []string{"works at", "located in", "knows", "part of", "founded"}
	for i := range g.Nodes {
		id := i
		if i%10 == 0 {
			id = i + shift
		}
		name := fmt.Sprintf("Entity Number %d", id)
		desc := "An entity that appears in the text."
		if i%50 == 0 {
			desc = fmt.Sprintf("An entity that appears %d times in the text.", shift+1)
		}
		g.Nodes[i] = extract.Node{Key: extract.NodeKey(name), Name: name, Type: types[i%len(types)], Description: desc}
	}
	for i := range g.Edges {
		s := g.Nodes[i%n].Key
		tg := g.Nodes[(i*7+1)%n].Key
		l := labels[(i+shift/1000)%len(labels)]
		if i%20 != 0 {
			l = labels[i%len(labels)]
		}
		g.Edges[i] = extract.Edge{Source: s, Target: tg, Label: l, Weight: 1}
	}
	return g
}

func BenchmarkCompare(b *testing.B) {
	a := benchGraph(100_000, 0)
	c := benchGraph(100_000, 1_000_000)
	b.ReportAllocs()
	b.ResetTimer()
	// CPU time is reported too: on a shared machine wall time says more
	// about the neighbours than about Compare.
	cpu0 := testkit.CPUSeconds(b)
	var r Result
	for i := 0; i < b.N; i++ {
		r = Compare(a, c, Options{})
	}
	b.StopTimer()
	b.ReportMetric((testkit.CPUSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(r.Summary.Nodes.Added), "nodes_added")
	b.ReportMetric(float64(r.Summary.Edges.Added), "edges_added")
}

// IgnoreDescriptions leaves a description-only change out.
func TestCompare_IgnoreDescriptions(t *testing.T) {
	a := extract.Graph{Nodes: []extract.Node{{Key: "ann", Name: "Ann", Type: "Person", Description: "a baker"},
		{Key: "bob", Name: "Bob", Type: "Person", Description: "a smith"}},
		Edges: []extract.Edge{{Source: "ann", Target: "bob", Label: "knows", Weight: 1, Description: "old friends"}}}
	b := extract.Graph{Nodes: []extract.Node{{Key: "ann", Name: "Ann", Type: "Person", Description: "a painter"},
		{Key: "bob", Name: "Bob", Type: "Location", Description: "a smith"}},
		Edges: []extract.Edge{{Source: "ann", Target: "bob", Label: "knows", Weight: 1, Description: "new friends"}}}
	all := Compare(a, b, Options{})
	if len(all.Nodes.Changed) != 2 || len(all.Edges.Changed) != 1 {
		t.Fatalf("with descriptions: %d nodes, %d edges changed", len(all.Nodes.Changed), len(all.Edges.Changed))
	}
	quiet := Compare(a, b, Options{IgnoreDescriptions: true})
	if len(quiet.Nodes.Changed) != 1 || quiet.Nodes.Changed[0].Name != "Bob" || len(quiet.Edges.Changed) != 0 {
		t.Fatalf("ignoring descriptions: %+v %+v", quiet.Nodes.Changed, quiet.Edges.Changed)
	}
}

// checkKeptKey checks that b, an edit of the two-node, one-edge graph a
// that kept the keys, compares as one changed node (changed fields, its
// name in b) with its edge matched, in the result and the union, and as
// one node removed and one added with a as the reference (gold scoring
// matches by name and type).
func checkKeptKey(t *testing.T, a, b extract.Graph, fields []string, name string) {
	t.Helper()
	res := Compare(a, b, Options{})
	if len(res.Nodes.Added)+len(res.Nodes.Removed) != 0 || len(res.Nodes.Changed) != 1 ||
		!slices.Equal(res.Nodes.Changed[0].Fields, fields) || res.Nodes.Changed[0].NameB != name ||
		len(res.Edges.Added)+len(res.Edges.Removed)+len(res.Edges.Changed) != 0 || res.Summary.Edges.Unchanged != 1 {
		t.Fatalf("edit that kept the key: %+v", res)
	}
	u := NewUnion(a, b, res, Options{})
	if len(u.Nodes) != 2 || len(u.Edges) != 1 || u.Edges[0].Status != StatusUnchanged {
		t.Fatalf("union: %+v", u)
	}
	for _, n := range u.Nodes {
		if n.Name == name && (n.Status != StatusChanged || !slices.Equal(n.Fields, fields)) {
			t.Errorf("edited node in the union: %+v", n)
		}
	}
	if res := Compare(a, b, Options{Reference: RefA}); len(res.Nodes.Added) != 1 || len(res.Nodes.Removed) != 1 {
		t.Errorf("with a reference, names and types decide: %+v", res.Nodes)
	}
}

// TestCompare_EditKeepsKey: a node renamed by an edit (same key, same
// type, a name neither side otherwise has) or retyped by one (same key,
// same name, another type) is one changed node whose edges stay matched,
// in the result and the union; with a reference side, when the new
// identity is a node of the other side, or when both name and type
// changed, names and types decide as before.
func TestCompare_EditKeepsKey(t *testing.T) {
	t.Parallel()
	a := extract.Graph{
		Nodes: []extract.Node{{Key: "scrooge", Name: "Scrooge", Type: "Person"}, {Key: "marley", Name: "Marley", Type: "Person"}},
		Edges: []extract.Edge{{Source: "scrooge", Label: "partner of", Target: "marley", Weight: 1}},
	}
	edited := func(scrooge, marley extract.Node, more ...extract.Node) extract.Graph {
		return extract.Graph{Nodes: append([]extract.Node{scrooge, marley}, more...), Edges: a.Edges}
	}
	t.Run("Rename", func(t *testing.T) {
		checkKeptKey(t, a, edited(extract.Node{Key: "scrooge", Name: "Ebenezer Scrooge", Type: "Person"}, a.Nodes[1]),
			[]string{"name"}, "Ebenezer Scrooge")
	})
	t.Run("Retype", func(t *testing.T) {
		b := edited(a.Nodes[0], extract.Node{Key: "marley", Name: "marley", Type: "Ghost"})
		checkKeptKey(t, a, b, []string{"name", "type"}, "marley")
		c := Compare(a, b, Options{}).Nodes.Changed[0]
		if c.TypeA != "Person" || c.TypeB != "Ghost" || c.KeyA != "marley" || c.KeyB != "marley" {
			t.Errorf("retyped node: %+v", c)
		}
	})
	for _, c := range []struct {
		name           string
		b              extract.Graph
		added, removed int
	}{
		// Renamed to the name of another node of a.
		{"RenameOntoAnotherName", extract.Graph{Nodes: []extract.Node{{Key: "scrooge", Name: "Marley", Type: "Person"}}}, 0, 1},
		// Retyped while b keeps the old identity under another key.
		{"RetypeKeepsOldIdentity", edited(a.Nodes[0], extract.Node{Key: "marley", Name: "Marley", Type: "Ghost"},
			extract.Node{Key: "marley-2", Name: "Marley", Type: "Person"}), 1, 0},
		{"RenameAndRetype", edited(extract.Node{Key: "scrooge", Name: "Ebenezer", Type: "Place"}, a.Nodes[1]), 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Compare(a, c.b, Options{})
			if len(res.Nodes.Changed) != 0 || len(res.Nodes.Added) != c.added || len(res.Nodes.Removed) != c.removed {
				t.Errorf("%+v", res.Nodes)
			}
		})
	}
}

// TestCompare_UndirectedEdges: an edge marked undirected (as a GraphML
// import reads directed="false") matches its reverse, on either side, in
// the result and the union; unmarked edges keep their direction.
func TestCompare_UndirectedEdges(t *testing.T) {
	t.Parallel()
	nodes := []extract.Node{node("Scrooge", "Person", ""), node("Marley", "Person", ""), node("Fred", "Person", "")}
	undirected := func(e extract.Edge) extract.Edge {
		e.Properties = map[string]any{extract.DirectedProperty: false}
		return e
	}
	for _, c := range []struct {
		name                     string
		a, b                     []extract.Edge
		added, removed, changed  int
		unionEdges, unionChanged int
	}{
		{"BothUndirectedReversed",
			[]extract.Edge{undirected(edge("Scrooge", "partner of", "Marley")), edge("Fred", "nephew of", "Scrooge")},
			[]extract.Edge{undirected(edge("Marley", "partner of", "Scrooge")), edge("Fred", "nephew of", "Scrooge")},
			0, 0, 0, 2, 0},
		{"UndirectedAfterDirected",
			[]extract.Edge{edge("Scrooge", "partner of", "Marley")},
			[]extract.Edge{undirected(edge("Marley", "partner of", "Scrooge"))},
			0, 0, 1, 1, 1},
		{"DirectedAfterUndirected",
			[]extract.Edge{undirected(edge("Marley", "partner of", "Scrooge"))},
			[]extract.Edge{edge("Scrooge", "partner of", "Marley")},
			0, 0, 1, 1, 1},
		{"OtherLabelStaysApart",
			[]extract.Edge{undirected(edge("Marley", "partner of", "Scrooge"))},
			[]extract.Edge{edge("Scrooge", "friend of", "Marley")},
			1, 1, 0, 2, 0},
		{"DirectedReversedStaysApart",
			[]extract.Edge{edge("Fred", "nephew of", "Scrooge")},
			[]extract.Edge{edge("Scrooge", "nephew of", "Fred")},
			1, 1, 0, 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := extract.Graph{Nodes: nodes, Edges: c.a}
			b := extract.Graph{Nodes: nodes, Edges: c.b}
			res := Compare(a, b, Options{})
			if got := [3]int{len(res.Edges.Added), len(res.Edges.Removed), len(res.Edges.Changed)}; got != [3]int{c.added, c.removed, c.changed} {
				t.Fatalf("edges added, removed, changed = %v, want %v: %+v", got, [3]int{c.added, c.removed, c.changed}, res.Edges)
			}
			for _, ch := range res.Edges.Changed {
				if !slices.Equal(ch.Fields, []string{"properties"}) {
					t.Errorf("changed edge fields %v, want [properties] (the directed mark)", ch.Fields)
				}
			}
			u := NewUnion(a, b, res, Options{})
			changed := 0
			for _, e := range u.Edges {
				if e.Status == StatusChanged {
					changed++
				}
			}
			if len(u.Edges) != c.unionEdges || changed != c.unionChanged {
				t.Errorf("union: %d edges, %d changed; want %d, %d", len(u.Edges), changed, c.unionEdges, c.unionChanged)
			}
		})
	}
}

// TestCompare_BookkeepingIsNoChange: two extractions that found the same
// things but counted differently (type counts, dropped fragments, edge
// weights) compare as unchanged; weights count when asked.
func TestCompare_BookkeepingIsNoChange(t *testing.T) {
	g := func(count int, w float64) extract.Graph {
		return extract.Graph{
			Nodes: []extract.Node{{Key: "ann", Name: "Ann", Type: "Person", Properties: map[string]any{"type_counts": map[string]any{"Person": count}, "born": 1900}},
				{Key: "bob", Name: "Bob", Type: "Person", Properties: map[string]any{"fragments_dropped": count}}},
			Edges: []extract.Edge{{Source: "ann", Target: "bob", Label: "knows", Weight: w}},
		}
	}
	r := Compare(g(1, 1), g(3, 2), Options{})
	if len(r.Nodes.Changed) != 0 || len(r.Edges.Changed) != 0 || r.Summary.Nodes.Unchanged != 2 {
		t.Fatalf("bookkeeping counted as change: %+v %+v", r.Nodes.Changed, r.Edges.Changed)
	}
	if w := Compare(g(1, 1), g(1, 2), Options{Weights: true}); len(w.Edges.Changed) != 1 || w.Edges.Changed[0].Fields[0] != "weight" {
		t.Fatalf("asked for weights: %+v", w.Edges.Changed)
	}
	other := g(1, 1)
	other.Nodes[0].Properties["born"] = 1901
	if c := Compare(g(1, 1), other, Options{}); len(c.Nodes.Changed) != 1 {
		t.Fatalf("a real property change was missed: %+v", c.Nodes.Changed)
	}
}

// Two runs of one dialogue record their facts at different times; that is
// no change, but a value that held at another time is.
func TestCompare_RecordTimesAreNoChange(t *testing.T) {
	g := func(recorded, validAt string) extract.Graph {
		return extract.Graph{Nodes: []extract.Node{{Key: "/User/Status/CurrentMood", Name: "Calm", Properties: map[string]any{
			extract.PropValidAt: "2023-06-01", extract.PropRecordedAt: recorded,
			extract.PropHistory: []any{map[string]any{"label": "Busy", "since": 1, extract.PropValidAt: validAt,
				extract.PropRecordedAt: recorded, extract.PropExpiredAt: recorded}},
		}}}}
	}
	if r := Compare(g("2024-01-01T00:00:00Z", "2023-03-05"), g("2025-02-02T00:00:00Z", "2023-03-05"), Options{}); len(r.Nodes.Changed) != 0 {
		t.Fatalf("record times counted as change: %+v", r.Nodes.Changed)
	}
	if r := Compare(g("2024-01-01T00:00:00Z", "2023-03-05"), g("2024-01-01T00:00:00Z", "2023-03-06"), Options{}); len(r.Nodes.Changed) != 1 {
		t.Fatalf("a changed valid time was missed: %+v", r.Nodes.Changed)
	}
}
