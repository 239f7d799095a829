package kag_test

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// Two types that share a name are two nodes, as in KAG, and relations
// reach each by its category.
func TestExtractor_SameNameTwoTypes(t *testing.T) {
	types := []kag.TypeSpec{
		{Name: "Person", Kind: schema.KindEntity, Properties: []kag.PropSpec{{Name: "worksFor", Type: "Company"}}},
		{Name: "Company", Kind: schema.KindEntity},
		{Name: "Fruit", Alias: "水果", Kind: schema.KindConcept},
	}
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "belongs to one of the schema types", Text: `{"entities": [
			{"name": "Tim", "category": "Person", "properties": [{"name": "worksFor", "values": ["Apple"]}]},
			{"name": "Apple", "category": "Company", "description": "Tim's employer"},
			{"name": "apple", "category": "水果", "description": "what Tim eats"}]}`},
		{Contains: "give its official name", Text: `{"entities": []}`},
		{Contains: "Find the relations", Text: `[["Tim", "Person", "eats", "apple", "Fruit"], ["Tim", "Person", "owns shares in", "Apple", "Company"]]`},
	}})
	x, err := kag.New(clients(t, srv)["openai"], extract.Config{}, types, kag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := "Tim works for Apple and eats an apple every day."
	res, err := x.Extract(context.Background(), extract.Document{ID: 1, Content: text}, extract.Chunk{DocumentID: 1, Text: text, End: len(text)})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graph
	company, fruit := node(g, extract.TypedNodeKey("Company", "Apple")), node(g, extract.TypedNodeKey("Fruit", "apple"))
	if company == nil || company.Type != "Company" || company.Description != "Tim's employer" {
		t.Errorf("company node: %+v", company)
	}
	if fruit == nil || fruit.Type != "Fruit" || fruit.Description != "what Tim eats" {
		t.Errorf("fruit node: %+v", fruit)
	}
	if len(g.Nodes) != 3 {
		t.Errorf("%d nodes, want 3: %+v", len(g.Nodes), g.Nodes)
	}
	tim := extract.TypedNodeKey("Person", "Tim")
	for _, e := range [][3]string{
		{tim, "worksFor", extract.TypedNodeKey("Company", "Apple")}, // a property typed Company
		{tim, "eats", extract.TypedNodeKey("Fruit", "apple")},
		{tim, "ownsSharesIn", extract.TypedNodeKey("Company", "Apple")},
	} {
		if !hasEdge(g, e[0], e[1], e[2]) {
			t.Errorf("edge %v missing from %+v", e, g.Edges)
		}
	}
}

// A property of a standard type becomes a node of its own linked from its
// owner, as KAG does (a User's phone is an STD.ChinaMobile node): two
// people who share a number meet at its node, however each wrote it.
func TestExtractor_StandardTypeProperty(t *testing.T) {
	types := []kag.TypeSpec{
		{Name: "Person", Kind: schema.KindEntity, Properties: []kag.PropSpec{{Name: "phone", Type: "STD.ChinaMobile"}, {Name: "age", Type: "Integer"}}},
	}
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "belongs to one of the schema types", Text: `{"entities": [
			{"name": "Li Lei", "category": "Person", "properties": [{"name": "phone", "values": ["13800138000"]}, {"name": "age", "values": ["30"]}]},
			{"name": "Han Meimei", "category": "Person", "properties": [{"name": "phone", "values": ["+86 138-0013-8000"]}]}]}`},
		{Contains: "give its official name", Text: `{"entities": []}`},
		{Contains: "Find the relations", Text: `[]`},
	}})
	x, err := kag.New(clients(t, srv)["openai"], extract.Config{}, types, kag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := "Li Lei and Han Meimei share the phone 13800138000."
	res, err := x.Extract(context.Background(), extract.Document{ID: 1, Content: text}, extract.Chunk{DocumentID: 1, Text: text, End: len(text)})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graph
	phone := node(g, extract.TypedNodeKey("STD.ChinaMobile", "13800138000"))
	if phone == nil || phone.Type != "STD.ChinaMobile" || phone.Properties["off_schema"] != nil {
		t.Fatalf("phone node: %+v (nodes %+v)", phone, g.Nodes)
	}
	for _, who := range []string{"Li Lei", "Han Meimei"} {
		if !hasEdge(g, extract.TypedNodeKey("Person", who), "phone", phone.Key) {
			t.Errorf("no phone edge from %s: %+v", who, g.Edges)
		}
	}
	li := node(g, extract.TypedNodeKey("Person", "Li Lei"))
	if li.Properties["phone"] != nil || li.Properties["age"] == nil {
		t.Errorf("Li Lei's properties %v: the phone is a node, the age a value", li.Properties)
	}
}
