package kag

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// TestParseSuggestion: a model's answer becomes the draft whole: names in
// KAG's form, a relation to a value a property, a relation given twice
// kept once, and the draft valid and the same read back from the DSL.
func TestParseSuggestion(t *testing.T) {
	data, err := os.ReadFile("../../app/testdata/suggest/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	// In a code fence, as some models answer.
	sc, err := ParseSuggestion("```json\n"+string(data)+"\n```", "News")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]schema.EntityType{}
	for _, ty := range sc.Types {
		names = append(names, ty.Name)
		byName[ty.Name] = ty
	}
	if strings.Join(names, " ") != "Person Organization City ResearchTeam" || sc.Namespace != "News" || byName["ResearchTeam"].Alias != "Research Team" || byName["Person"].Alias != "" {
		t.Fatalf("types %v, namespace %q", names, sc.Namespace)
	}
	var rels []string
	for _, r := range byName["Person"].Relations {
		rels = append(rels, r.Name+">"+r.Target)
	}
	if strings.Join(rels, " ") != "worksFor>Organization founded>Organization leads>ResearchTeam met>Person" {
		t.Errorf("Person relations %v", rels)
	}
	props := map[string]string{}
	for _, p := range byName["Person"].Properties {
		props[p.Name] = p.Type
	}
	if props["role"] != "Text" || props["joinedOn"] != "Date" || len(props) != 2 {
		t.Errorf("Person properties %v", props)
	}
	if r := byName["Organization"].Relations; len(r) != 2 || r[1].Name != "signedAnAgreementWith" || r[1].Alias != "signed an agreement with" {
		t.Errorf("Organization relations %+v", r)
	}
	if p := byName["Organization"].Properties; len(p) != 2 || p[1].Name != "foundingDate" || p[1].Type != "Date" {
		t.Errorf("Organization properties %+v", p)
	}
	if ps := schema.Validate(sc); len(ps) > 0 {
		t.Errorf("problems: %v", ps)
	}
	back, err := schema.ParseKAGString(schema.FormatKAG(sc))
	if err != nil || len(back.Types) != 4 {
		t.Fatalf("read back: %v", err)
	}
}

// TestParseSuggestion_Malformed: an answer that does not give a whole
// schema is refused naming its problem, and no schema is returned.
func TestParseSuggestion_Malformed(t *testing.T) {
	cutoff, err := os.ReadFile("../../app/testdata/suggest/cutoff.json")
	if err != nil {
		t.Fatal(err)
	}
	person := `{"name": "Person", "description": "d", "properties": []}`
	org := `{"name": "Organization", "description": "d", "properties": []}`
	for _, c := range []struct{ name, answer, want string }{
		{"prose", "Sure! The schema has people and companies.", "no JSON"},
		{"cut off", string(cutoff), "cut off"},
		{"a list", `[{"name": "Person"}]`, "not a JSON object"},
		{"no types", `{"entity_types": [], "relations": []}`, "no entity_types"},
		{"no relations list", `{"entity_types": [` + person + `]}`, "no relations list"},
		{"wrong JSON type", `{"entity_types": {"name": "Person"}, "relations": []}`, "entity_types"},
		{"type without a name", `{"entity_types": [{"name": " ", "properties": []}], "relations": []}`, "entity_types[0] has no name"},
		{"value type", `{"entity_types": [{"name": "Date", "properties": []}], "relations": []}`, "Date is a value type"},
		{"type twice", `{"entity_types": [` + person + `, {"name": "person", "properties": []}], "relations": []}`, "type Person is given twice"},
		{"property type", `{"entity_types": [{"name": "Person", "properties": [{"name": "salary", "type": "Money"}]}], "relations": []}`, `type "Money" is not Text`},
		{"property twice", `{"entity_types": [{"name": "Person", "properties": [{"name": "age", "type": "Integer"}, {"name": "age", "type": "Text"}]}], "relations": []}`, "given as Integer and as Text"},
		{"undeclared object", `{"entity_types": [` + person + `], "relations": [{"subject": "Person", "predicate": "lives in", "object": "Country"}]}`, `relations[0]: object "Country" is not one of the entity types`},
		{"undeclared subject", `{"entity_types": [` + org + `], "relations": [{"subject": "Person", "predicate": "works for", "object": "Organization"}]}`, `subject "Person"`},
		{"no predicate", `{"entity_types": [` + person + `, ` + org + `], "relations": [{"subject": "Person", "predicate": "--", "object": "Organization"}]}`, "relations[0] has no predicate"},
		{"not an identifier", `{"entity_types": [{"name": "人物", "properties": []}], "relations": []}`, "not a valid identifier"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := ParseSuggestion(c.answer, "News")
			if sc != nil || !errors.Is(err, ErrMalformedSchema) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, %v; want an error naming %q", sc, err, c.want)
			}
		})
	}
}

// FuzzParseSuggestion: whatever the model answers, the parser does not
// panic, and a draft it returns is valid and reads back from the DSL.
func FuzzParseSuggestion(f *testing.F) {
	if data, err := os.ReadFile("../../app/testdata/suggest/schema.json"); err == nil {
		f.Add(string(data))
	}
	f.Add(`{"entity_types": [{"name": "a b(c)", "description": "x\ny", "properties": [{"name": "d:e", "type": "text"}]}], "relations": [{"subject": "a b(c)", "predicate": "f#g", "object": "ABC"}]}`)
	f.Add(`{"entity_types": [{"name": "Person"}], "relations": [{"subject": "person", "predicate": "IND#belongTo", "object": "date"}]}`)
	f.Fuzz(func(t *testing.T, answer string) {
		sc, err := ParseSuggestion(answer, "N")
		if err != nil {
			if sc != nil || !errors.Is(err, ErrMalformedSchema) {
				t.Fatalf("%v with %v", err, sc)
			}
			return
		}
		if ps := schema.Validate(sc); len(ps) > 0 {
			t.Fatalf("problems %v", ps)
		}
		if _, err := schema.ParseKAGString(schema.FormatKAG(sc)); err != nil {
			t.Fatalf("the DSL does not read back: %v\n%s", err, schema.FormatKAG(sc))
		}
	})
}

// TestSuggestSample: the passages are bounded in number and tokens and
// shared over the documents, a long one giving passages from its middle
// and end, not only its opening.
func TestSuggestSample(t *testing.T) {
	long := strings.Repeat("The opening sentence of the long book. ", 40)
	for i := range 60 {
		long += "Sentence " + strings.Repeat("x", 20) + " number " + string(rune('a'+i%26)) + " of the middle. "
	}
	long += strings.Repeat("The closing sentence of the long book. ", 40)
	docs := []extract.Document{{ID: 1, Name: "long.txt", Content: long}}
	for i := range 3 {
		docs = append(docs, extract.Document{ID: i + 2, Name: "short.txt", Content: "A short note number " + string(rune('1'+i)) + "."})
	}
	got := SuggestSample(docs)
	tokens := 0
	for _, p := range got {
		tokens += extract.EstimateTokens(p)
	}
	joined := strings.Join(got, "\n")
	if len(got) > SuggestMaxPassages || tokens > SuggestTokenBudget {
		t.Fatalf("%d passages, %d tokens", len(got), tokens)
	}
	for _, want := range []string{"opening sentence", "closing sentence", "of the middle", "short note number 1", "short note number 3"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no passage holds %q (%d passages)", want, len(got))
		}
	}
	// Many documents: one passage each until the bound.
	many := make([]extract.Document, 40)
	for i := range many {
		many[i] = extract.Document{ID: i + 1, Name: "n.txt", Content: long}
	}
	got = SuggestSample(many)
	tokens = 0
	for _, p := range got {
		tokens += extract.EstimateTokens(p)
	}
	if len(got) == 0 || len(got) > SuggestMaxPassages || tokens > SuggestTokenBudget {
		t.Fatalf("40 documents: %d passages, %d tokens", len(got), tokens)
	}
	if req := SuggestRequest(got); len(req.Messages) != 2 || !strings.Contains(req.Messages[1].Content, "[1]\n") || req.JSONSchema == nil {
		t.Fatalf("request %+v", req.Messages)
	}
}
