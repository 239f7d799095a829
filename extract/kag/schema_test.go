package kag_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/schema"
)

func TestTypesFromSchema(t *testing.T) {
	sc, err := schema.ParseKAGString("namespace T\n\nPerson(人): EntityType\n\tproperties:\n\t\tworksFor(工作于): Company\n\trelations:\n\t\tknows(认识): Person\n\nCompany: EntityType\n\nSTD.Phone: StandardType\n")
	if err != nil {
		t.Fatal(err)
	}
	got := kag.TypesFromSchema(sc)
	if len(got) != 3 {
		t.Fatalf("%d types", len(got))
	}
	p := got[0]
	if p.Name != "Person" || p.Alias != "人" || p.Kind != schema.KindEntity || len(p.Properties) != 1 || p.Properties[0].Type != "Company" ||
		len(p.Relations) != 1 || p.Relations[0].Target != "Person" {
		t.Fatalf("person: %+v", p)
	}
	if got[2].Kind != schema.KindConcept {
		t.Fatalf("a standard type should be offered as a concept: %+v", got[2])
	}
	if n := len(kag.TypesFromSchema(schema.Default())); n != 11 {
		t.Fatalf("default schema: %d types", n)
	}
}

// Inheritance, constraints, descriptions and an event whose subject may be
// of several types, from a KAG schema through to the extracted graph: the
// child type gets its parent's properties, the model sees constraints and
// descriptions, and values that break a constraint are counted.
func TestExtractor_SchemaLanguage(t *testing.T) {
	sc, err := schema.ParseKAGString(`namespace T

Person(人): EntityType
	properties:
		gender(性别): Text
			desc: male or female
			constraint: NotNull, Enum="male,female"
		phone(电话): Text
			constraint: Regular="^[0-9-]+$"
		nickname(昵称): Text

Employee(雇员) -> Person:
	properties:
		worksFor(工作于): Company

Company(公司): EntityType

Meeting(会议): EventType
	properties:
		subject(主体): Person,Company
			constraint: MultiValue
`)
	if err != nil {
		t.Fatal(err)
	}
	types := kag.TypesFromSchema(sc)
	emp := types[1]
	if emp.Name != "Employee" || len(emp.Properties) != 4 || emp.Properties[1].Name != "gender" {
		t.Fatalf("Employee does not inherit Person's properties: %+v", emp)
	}
	ner := `{"entities": [
		{"name": "Bob Cratchit", "category": "Employee", "properties": [{"name": "gender", "values": ["man"]}, {"name": "phone", "values": ["call me"]},
			{"name": "nickname", "values": ["Bob", "Bobby"]}, {"name": "worksFor", "values": ["Scrooge and Marley"]}]},
		{"name": "Scrooge and Marley", "category": "Company"}]}`
	event := `{"events": [{"name": "Christmas Eve meeting", "category": "Meeting", "properties": [{"name": "subject", "values": ["Bob Cratchit", "Scrooge and Marley"]}]}]}`
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "belongs to one of the schema types", Text: ner},
		{Contains: "event", Text: event},
		{Contains: "official name", Text: `{"entities": []}`},
		{Contains: "Find the relations", Text: `{"relations": []}`},
	}})
	x, err := kag.New(clients(t, srv)["openai"], extract.Config{}, types, kag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, chunk := enChunk()
	res, err := x.Extract(context.Background(), doc, chunk)
	if err != nil {
		t.Fatal(err)
	}
	prompt := srv.Calls()[0].Messages[len(srv.Calls()[0].Messages)-1].Content
	if !strings.Contains(prompt, `gender (Text; NotNull, Enum="male,female"; male or female)`) {
		t.Errorf("the NER prompt lacks the constraint and description:\n%s", prompt)
	}
	// gender: not in the enum; phone: not matching; nickname: two values,
	// not MultiValue. The Company has no NotNull property; the meeting's two
	// subjects are allowed (MultiValue).
	if len(res.Violations) != 3 {
		t.Errorf("violations %q, want 3", res.Violations)
	}
	edges := map[string]string{}
	for _, e := range res.Graph.Edges {
		edges[e.Label+" "+e.Target] = e.Source
	}
	for _, want := range []string{"worksFor company:scrooge and marley", "subject employee:bob cratchit", "subject company:scrooge and marley"} {
		if _, ok := edges[want]; !ok {
			t.Errorf("no edge %q in %v", want, edges)
		}
	}
	for _, n := range res.Graph.Nodes {
		if n.Name == "Scrooge and Marley" && n.Type != "Company" || n.Name == "Bob Cratchit" && n.Type != "Employee" {
			t.Errorf("node %s typed %s", n.Name, n.Type)
		}
	}
}
