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

// With a domain graph, NER sees the domain entities the chunk names (KAG's
// external_graph.ner): the prompt lists them with their types, an entity
// the model reported by an alias takes the domain's name and type, and
// one it missed joins the entities anyway, reaching the relation step.
func TestExtractor_WithDomain(t *testing.T) {
	types := []kag.TypeSpec{{Name: "Medicine", Kind: schema.KindEntity}, {Name: "Concept", Kind: schema.KindConcept}, {Name: "Organ", Kind: schema.KindEntity}}
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "belongs to one of the schema types", Text: `{"entities": [
			{"category": "Organ", "properties": {"name": "pituitary gland", "description": "The gland that makes growth hormone."}},
			{"category": "Organ", "properties": {"name": "HGH", "description": "Made by the pituitary gland."}}]}`},
		{Contains: "give its official name", Text: `{"entities": []}`},
		{Contains: "Find the relations", Text: `{"relations": [["pituitary gland", "Organ", "secretes", "growth hormone", "Medicine"]]}`},
	}})
	d := extract.NewDomain([]extract.DomainEntity{
		{Name: "growth hormone", Type: "Medicine", Aliases: []string{"HGH"}},
		{Name: "cortisol", Type: "Concept"},
		{Name: "insulin", Type: "Medicine"}, // not in the text: not listed
	})
	base, err := kag.New(clients(t, srv)["openai"], extract.Config{}, types, kag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := base.WithDomain(d)
	text := "The pituitary gland releases HGH at night; cortisol peaks in the morning."
	res, err := x.Extract(context.Background(), extract.Document{ID: 1, Content: text}, extract.Chunk{DocumentID: 1, Text: text, End: len(text)})
	if err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if len(calls) == 0 {
		t.Fatal("no model call")
	}
	ner := calls[0].Messages[len(calls[0].Messages)-1].Content
	for _, want := range []string{"- growth hormone (Medicine)", "- cortisol (Concept)"} {
		if !strings.Contains(ner, want) {
			t.Errorf("the NER prompt does not list %q:\n%s", want, ner)
		}
	}
	if strings.Contains(ner, "insulin") {
		t.Error("the NER prompt lists a domain entity the text does not name")
	}
	g := res.Graph
	hgh := node(g, extract.TypedNodeKey("Medicine", "growth hormone"))
	if hgh == nil || hgh.Description == "" {
		t.Fatalf("HGH is not the domain's growth hormone with the model's description: %+v", g.Nodes)
	}
	if node(g, extract.TypedNodeKey("Organ", "HGH")) != nil {
		t.Error("HGH kept the model's type as a node of its own")
	}
	if c := node(g, extract.TypedNodeKey("Concept", "cortisol")); c == nil {
		t.Errorf("cortisol, missed by the model, is no node: %+v", g.Nodes)
	}
	if !hasEdge(g, extract.TypedNodeKey("Organ", "pituitary gland"), "secretes", hgh.Key) {
		t.Errorf("no secretes edge to the domain node: %+v", g.Edges)
	}
	// The relation step saw the domain entities among the entities.
	var rel string
	for _, c := range calls {
		if m := c.Messages[len(c.Messages)-1].Content; strings.Contains(m, "Find the relations") {
			rel = m
		}
	}
	if !strings.Contains(rel, `"name":"cortisol","category":"Concept"`) {
		t.Errorf("the relation prompt's entities lack cortisol:\n%s", rel)
	}
	// The extractor without the domain lists none.
	srv.Reset()
	if _, err := base.Extract(context.Background(), extract.Document{ID: 1, Content: text}, extract.Chunk{DocumentID: 1, Text: text, End: len(text)}); err != nil {
		t.Fatal(err)
	}
	if c := srv.Calls(); len(c) == 0 || strings.Contains(c[0].Messages[len(c[0].Messages)-1].Content, "growth hormone (Medicine)") {
		t.Error("the extractor without a domain lists domain entities")
	}
}
