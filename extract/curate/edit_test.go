package curate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func editGraph() extract.Graph {
	return extract.Graph{
		Nodes: []extract.Node{
			{Key: "scrooge", Name: "Scrooge", Type: "person", Description: "Old.", Properties: map[string]any{"age": 70.0}},
			{Key: "marley", Name: "Marley", Type: "person"},
			{Key: "london", Name: "London", Type: "place"},
		},
		Edges: []extract.Edge{
			{Source: "scrooge", Label: "partner", Target: "marley", Weight: 1},
			{Source: "marley", Label: "lived in", Target: "london", Weight: 1},
			{Source: "scrooge", Label: "lived in", Target: "london", Weight: 2},
		},
	}
}

func TestApplyEdits(t *testing.T) {
	t.Parallel()
	g := editGraph()
	before := editGraph()
	got, applied, err := ApplyEdits(g, []Edit{
		{Op: OpRename, Key: "scrooge", Name: " Ebenezer Scrooge "},
		{Op: OpRetype, Key: "london", Type: "city"},
		{Op: OpDescribe, Key: "marley", Description: "Dead to begin with."},
		{Op: OpSetProps, Key: "scrooge", Properties: map[string]any{"age": nil, "rich": true}},
		{Op: OpDeleteEdge, Source: "scrooge", Label: "lived in", Target: "london"},
		{Op: OpAddEdge, Source: "London", Label: " hosts ", Target: "scrooge"},
		{Op: OpDeleteNode, Key: "marley"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := extract.Graph{
		Nodes: []extract.Node{
			{Key: "scrooge", Name: "Ebenezer Scrooge", Type: "person", Description: "Old.", Properties: map[string]any{"rich": true}},
			{Key: "london", Name: "London", Type: "city"},
		},
		Edges: []extract.Edge{{Source: "london", Label: "hosts", Target: "scrooge", Weight: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("edited graph\n got %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(g, before) {
		t.Error("ApplyEdits changed its input")
	}
	if a := applied[5]; a.Source != "london" || a.Label != "hosts" || a.Weight != 1 || applied[0].Name != "Ebenezer Scrooge" {
		t.Errorf("edits as applied: %+v", applied)
	}
}

// nestedList is a list nested depth levels deep.
func nestedList(depth int) any {
	var v any = []any{}
	for range depth - 1 {
		v = []any{v}
	}
	return v
}

func TestApplyEdits_Errors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		edits []Edit
		want  string
	}{
		"none":         {nil, "no edits"},
		"unknown op":   {[]Edit{{Op: "paint"}}, `edit 1 (paint): unknown operation "paint"`},
		"missing node": {[]Edit{{Op: OpRename, Key: "scrooge", Name: "S"}, {Op: OpRename, Key: "fred", Name: "F"}}, `edit 2 (rename): no node with key "fred"`},
		"empty name":   {[]Edit{{Op: OpRename, Key: "scrooge", Name: "  "}}, "a node needs a name"},
		"empty type":   {[]Edit{{Op: OpRetype, Key: "scrooge"}}, "a node needs a type"},
		"no props":     {[]Edit{{Op: OpSetProps, Key: "scrooge"}}, "give the properties"},
		// An edit stored a property 9,000 levels deep, which an import
		// of the version's export then refused.
		"deep prop": {[]Edit{{Op: OpSetProps, Key: "scrooge", Properties: map[string]any{"ok": []any{}, "deep": nestedList(33)}}},
			`edit 1 (set_props): property "deep" nests lists or maps more than 32 levels deep`},
		"missing edge": {[]Edit{{Op: OpDeleteEdge, Source: "scrooge", Label: "x", Target: "marley"}}, "no edge scrooge -x-> marley"},
		"edge exists":  {[]Edit{{Op: OpAddEdge, Source: "scrooge", Label: "partner", Target: "marley"}}, "exists already"},
		"edge no end":  {[]Edit{{Op: OpAddEdge, Source: "scrooge", Label: "knows", Target: "fred"}}, `no node named "fred"`},
		"edge empty":   {[]Edit{{Op: OpAddEdge, Source: "scrooge", Label: "knows"}}, "an edge needs a source and a target"},
		"edge label":   {[]Edit{{Op: OpAddEdge, Source: "scrooge", Target: "marley"}}, "an edge needs a label"},
		"rename clash": {[]Edit{{Op: OpRename, Key: "scrooge", Name: " MARLEY "}}, `another node (marley) is called "Marley": merge the two instead`},
		"self-loop":    {[]Edit{{Op: OpAddEdge, Source: "scrooge", Label: "knows", Target: "scrooge"}}, "to itself"},
		"after delete": {[]Edit{{Op: OpDeleteNode, Key: "marley"}, {Op: OpDeleteEdge, Source: "scrooge", Label: "partner", Target: "marley"}}, "edit 2 (delete_edge): no edge"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := ApplyEdits(editGraph(), tc.edits)
			if err == nil || extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), tc.want) {
				t.Errorf("error %v, want invalid with %q", err, tc.want)
			}
		})
	}
}

func TestParseEdits(t *testing.T) {
	t.Parallel()
	want := []Edit{{Op: OpRename, Key: "a", Name: "B"}}
	for _, in := range []string{`[{"op":"rename","key":"a","name":"B"}]`, ` {"edits":[{"op":"rename","key":"a","name":"B"}]}`} {
		got, err := ParseEdits([]byte(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v", in, got, err)
		}
	}
	for in, msg := range map[string]string{
		``:                             "want a JSON list",
		`[{"op":"rename","nmae":"B"}]`: `edit 1: unknown field "nmae"`,
		`{"op":"rename"}`:              "want a JSON list",
		`{"op":"rename","key":"a"}`:    `one operation given alone: put it in a list, [{"op":...}]`,
		`[{"op":"x"},{"op":"add_edge","weight":"heavy"}]`: "edit 2: weight must be a number",
	} {
		if _, err := ParseEdits([]byte(in)); extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), msg) {
			t.Errorf("%q: error %v, want invalid saying %q", in, err, msg)
		}
	}
}
