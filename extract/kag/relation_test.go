package kag_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// KAG's relation prompt asks for [subject, subject_category, predicate,
// object, object_category] lists: every one is read, endpoints resolve to
// the nodes NER and standardisation made, categories type the endpoints
// NER did not report, and predicates are camel-cased.
func TestExtractor_KAGRelationForm(t *testing.T) {
	var rs []fakellm.Rule
	for _, r := range rules(t) {
		if r.Contains == "实体之间的关系" {
			r.Text = fakellm.Load(t, filepath.Join("testdata", "recorded", "zh_relation_kag.json"))
		}
		rs = append(rs, r)
	}
	srv := fakellm.New(t, fakellm.Options{Rules: rs})
	x, err := kag.New(clients(t, srv)["openai"], extract.Config{}, zhTypes, kag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, chunk := zhChunk(t)
	res, err := x.Extract(context.Background(), doc, chunk)
	if err != nil {
		t.Fatal(err)
	}
	relationCall := len(res.Calls) - 1
	if res.Calls[relationCall].Purpose != string(kag.StepRelation) {
		t.Fatalf("last call is %q", res.Calls[relationCall].Purpose)
	}
	for _, f := range res.Failures {
		if f.Round == relationCall {
			t.Errorf("relation refused: %+v", f)
		}
	}
	g := res.Graph
	for _, e := range [][3]string{
		{"person:周杰伦", "graduatedFrom", "organization:淡江高级中学"}, // "graduated from", to the official name
		{"person:周杰伦", "release", "works:范特西"},                 // categories given by alias
		{"person:周杰伦", "release", "works:jay"},                 // predicate given by alias
		{"person:周杰伦", "coverOf", "magazine:时代周刊"},             // off-schema relation, camel-cased
		{"person:周杰伦", "release", "works:叶惠美"},
		{"works:叶惠美", "wonAward", "award:第15届台湾金曲奖"},
	} {
		if !hasEdge(g, e[0], e[1], e[2]) {
			t.Errorf("edge %v missing", e)
		}
	}
	if n := node(g, "works:叶惠美"); n == nil || n.Type != "Works" || n.Properties["implicit"] != true || n.Properties["off_schema"] != nil {
		t.Errorf("endpoint NER missed is not typed by its category: %+v", n)
	}
	if n := node(g, "award:第15届台湾金曲奖"); n == nil || n.Type != "Award" || n.Properties["off_schema"] != true {
		t.Errorf("endpoint of an off-schema category: %+v", n)
	}
}

// The same predicate spelling gives the same label in every relation form.
func TestExtractor_RelationPredicates(t *testing.T) {
	tests := []struct {
		name, out string
	}{
		{"objects", `{"relations": [{"subject": "Scrooge", "predicate": "partner of", "object": "Marley"},
			{"subject": "Bob Cratchit", "predicate": "Works For", "object": "Scrooge"},
			{"subject": "Bob Cratchit", "predicate": "--", "object": "Marley"}]}`},
		{"triples", `[["Scrooge", "partner of", "Marley"], ["Bob Cratchit", "WORKS_FOR", "Scrooge"], ["Bob Cratchit", "!", "Marley"]]`},
		{"kag lists", `[["Scrooge", "Person", "partner-of", "Marley", "Person"], ["Bob Cratchit", "Person", "works for", "Scrooge", "Person"],
			["Bob Cratchit", "Person", " ", "Marley", "Person"]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load := func(f string) string { return fakellm.Load(t, filepath.Join("testdata", "recorded", f)) }
			srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
				{Contains: "belongs to one of the schema types", Text: load("en_ner.json")},
				{Contains: "give its official name", Text: load("en_std.json")},
				{Contains: "Find the relations", Text: tt.out},
			}})
			x, err := kag.New(clients(t, srv)["openai"], extract.Config{}, enTypes, kag.Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc, chunk := enChunk()
			res, err := x.Extract(context.Background(), doc, chunk)
			if err != nil {
				t.Fatal(err)
			}
			g := res.Graph
			if !hasEdge(g, "person:ebenezer scrooge", "partnerOf", "person:jacob marley") || !hasEdge(g, "person:bob cratchit", "worksFor", "person:ebenezer scrooge") {
				t.Errorf("edges = %+v", g.Edges)
			}
			for _, e := range g.Edges {
				if e.Label == "partnerOf" && e.Properties["off_schema"] != nil {
					t.Errorf("schema relation partnerOf marked off-schema: %+v", e)
				}
			}
			if len(res.Failures) != 1 || res.Failures[0].Round != len(res.Calls)-1 {
				t.Errorf("a predicate without letters must be refused once: %+v", res.Failures)
			}
		})
	}
}
