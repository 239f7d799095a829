package kag

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// TestSuggestSchema: node types with enough nodes become entity types
// (values become properties), verb labels become camel-cased relations
// of their sources' type to their targets', a bare copula and plain
// co-occurrence name none, and the draft is a valid schema.
func TestSuggestSchema(t *testing.T) {
	n := func(key, typ string) extract.Node { return extract.Node{Key: key, Name: key, Type: typ} }
	e := func(s, l, t string) extract.Edge { return extract.Edge{Source: s, Label: l, Target: t, Weight: 1} }
	g := extract.Graph{
		Nodes: []extract.Node{n("ada", "Person"), n("charles", "Person"), n("london", "Location"), n("paris", "Location"),
			n("acme", "Organization"), n("1815", "Data"), n("1791", "Data"), n("lone", "Animal")},
		Edges: []extract.Edge{e("ada", "was born in", "london"), e("charles", "was born in", "london"), e("ada", "was born on", "1815"),
			e("ada", "related_to", "charles"), e("ada", "is", "paris"), e("charles", "works for", "acme"), e("acme", "is located in", "paris")},
	}
	sc := SuggestSchema(g, nil, "Draft", SuggestOptions{})
	types := map[string]schema.EntityType{}
	for _, ty := range sc.Types {
		types[ty.Name] = ty
	}
	if len(types) != 2 || types["Person"].Name == "" || types["Location"].Name == "" {
		t.Fatalf("types %+v: want Person and Location (Organization has one node, Data is values, Animal one node)", sc.Types)
	}
	rels := map[string]string{}
	for _, r := range types["Person"].Relations {
		rels[r.Name] = r.Target
	}
	if rels["bornIn"] != "Location" || len(rels) != 1 {
		t.Fatalf("Person relations %+v", types["Person"].Relations)
	}
	if ps := types["Person"].Properties; len(ps) != 2 || ps[0].Name != "bornOn" && ps[1].Name != "bornOn" {
		t.Fatalf("Person properties %+v: want bornOn (to a date) and worksFor (to an undeclared type)", ps)
	}
	if probs := schema.Validate(sc); len(probs) > 0 {
		t.Fatalf("problems: %v", probs)
	}
}
