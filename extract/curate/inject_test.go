package curate

import (
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// Extracted names matching a reference node's name or alias become that
// node (key, name, type and properties), keep their descriptions and
// mentions, and fold together; their edges follow; a name two reference
// nodes share matches neither; unmatched nodes stay as they were.
func TestInject(t *testing.T) {
	t.Parallel()
	m := []extract.Mention{{DocumentID: 1, ChunkIndex: 0}}
	ref := extract.Graph{Nodes: []extract.Node{
		{Key: "Q1", Name: "Ebenezer Scrooge", Type: "Person", Description: "Reference text.",
			Properties: map[string]any{"wikidata": "Q1", PropAliases: []any{"Scrooge", "Mr. Scrooge"}}},
		{Key: "Q2", Name: "London", Type: "City"},
		{Key: "Q3", Name: "Marley", Type: "Person"},
		{Key: "Q4", Name: "Jacob Marley", Type: "Person", Properties: map[string]any{PropAliases: []any{"Marley"}}},
	}}
	g := extract.Graph{
		Nodes: []extract.Node{
			{Key: "scrooge", Name: "Scrooge", Type: "person", Description: "A miser.", Mentions: m, Properties: map[string]any{"age": 60.0}},
			{Key: "mr. scrooge", Name: "Mr. Scrooge", Type: "person"},
			{Key: "london", Name: "london", Type: "place"},
			{Key: "marley", Name: "Marley", Type: "person"},
		},
		Edges: []extract.Edge{
			{Source: "scrooge", Label: "lives in", Target: "london", Weight: 1},
			{Source: "mr. scrooge", Label: "lives in", Target: "london", Weight: 1},
			{Source: "scrooge", Label: "same", Target: "mr. scrooge", Weight: 1},
			{Source: "marley", Label: "partner", Target: "scrooge", Weight: 1},
		},
	}
	got, n, err := Inject(g, ref, MergeOptions{MaxFragments: 8})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("injected %d, want 3 (Scrooge, Mr. Scrooge, london)", n)
	}
	want := extract.Graph{
		Nodes: []extract.Node{
			{Key: "Q1", Name: "Ebenezer Scrooge", Type: "Person", Description: "A miser.", Mentions: m,
				Properties: map[string]any{"age": 60.0, "wikidata": "Q1", PropAliases: []string{"Scrooge", "Mr. Scrooge"}, extract.PropTypeCounts: map[string]int{"person": 2}}},
			{Key: "Q2", Name: "London", Type: "City", Properties: nil},
			{Key: "marley", Name: "Marley", Type: "person"},
		},
		Edges: []extract.Edge{
			{Source: "Q1", Label: "lives in", Target: "Q2", Weight: 2},
			{Source: "marley", Label: "partner", Target: "Q1", Weight: 1},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("injected graph\n got %+v\nwant %+v", got, want)
	}
	if g.Nodes[0].Key != "scrooge" || len(g.Edges) != 4 {
		t.Error("Inject changed its input")
	}
	if _, n, _ := Inject(g, extract.Graph{}, MergeOptions{}); n != 0 {
		t.Errorf("an empty reference injected %d", n)
	}
}
