package kag_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// promptEntities decodes the entity list a standardisation or relation
// prompt shows: the line that holds the JSON list.
func promptEntities(t *testing.T, prompt string) []map[string]string {
	t.Helper()
	for _, line := range strings.Split(prompt, "\n") {
		if strings.HasPrefix(line, `[{"name"`) {
			var list []map[string]string
			if err := json.Unmarshal([]byte(line), &list); err != nil {
				t.Fatalf("entity list %q: %v", line, err)
			}
			return list
		}
	}
	t.Fatalf("no entity list in prompt:\n%s", prompt)
	return nil
}

// When the event step repeats entities NER found, the later prompts list
// each name and type once, first occurrence first; a name with another
// type stays.
func TestExtractor_EntitiesListedOnce(t *testing.T) {
	var rs []fakellm.Rule
	for _, r := range rules(t) {
		if r.Contains == "属于下列事件类型" {
			r.Text = fakellm.Load(t, filepath.Join("testdata", "recorded", "zh_event_repeats.json"))
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
	want := []string{
		"周杰伦/Person", "Jay/作品", "范特西/Works", "淡江中学/Organization", "《时代》杂志/Magazine",
		"周杰伦举行The One世界巡回演唱会/Event", "Jay/Person",
	}
	calls := srv.Calls()
	if len(calls) != 4 {
		t.Fatalf("%d calls", len(calls))
	}
	for i, step := range []kag.Step{kag.StepStd, kag.StepRelation} {
		var got []string
		for _, e := range promptEntities(t, calls[2+i].Messages[len(calls[2+i].Messages)-1].Content) {
			got = append(got, e["name"]+"/"+e["category"])
		}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s prompt lists\n%s\nwant\n%s", step, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
	// The builder still sees the repeats: the event step's description of
	// the school is kept.
	if n := node(res.Graph, "organization:淡江高级中学"); n == nil || !strings.Contains(n.Description, "周杰伦的母校") {
		t.Errorf("repeat's description lost: %+v", n)
	}
}

// One entity reported twice is one entity: no relation call is made.
func TestExtractor_RepeatedEntityAlone(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "belongs to one of the schema types", Text: `{"entities": [{"name": "Scrooge", "category": "Person"}, {"name": "scrooge", "category": "person"}]}`},
		{Contains: "give its official name", Text: `{"entities": []}`},
		{Contains: "Find the relations", Text: `{"relations": []}`},
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
	var purposes []string
	for _, c := range res.Calls {
		purposes = append(purposes, c.Purpose)
	}
	if got := strings.Join(purposes, ","); got != "ner,std" {
		t.Errorf("calls = %s, want ner,std", got)
	}
}
