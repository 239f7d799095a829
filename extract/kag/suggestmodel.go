package kag

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// ErrMalformedSchema marks a model's schema answer that could not be
// turned into a schema whole: not one JSON object, cut off, a list or
// name missing, a relation between types it did not declare, a property
// type outside the basic ones. No part of such an answer is used.
var ErrMalformedSchema = errors.New("malformed schema answer")

// What a schema request shows the model of the documents: passages of
// SuggestChunkSize characters, at most SuggestMaxPassages of them and
// SuggestTokenBudget estimated tokens in all, spread over the documents.
const (
	SuggestChunkSize   = 1200
	SuggestMaxPassages = 12
	SuggestTokenBudget = 4000
)

// suggestSystem asks for a schema (entity types with value properties,
// relations as subject type, predicate, object type) in our words.
const suggestSystem = `You design the schema of a knowledge graph for a collection of documents. You are given passages sampled from them, each numbered.

Name the kinds of things the documents are about and how they are connected:
- entity_types: the types of entities that deserve a node of their own (people, organizations, places, works, products, events and the like). Each has a name in UpperCamelCase, a one-sentence description, and properties: the plain values its entities carry, each with a name in lowerCamelCase and a type, one of Text, Integer, Float, Boolean or Date.
- relations: how entities of those types are linked, each as a subject type, a predicate (a verb phrase in lowerCamelCase, such as worksFor or bornIn) and an object type. The subject and object are names from entity_types.

Answer with one JSON object and nothing else:
{"entity_types": [{"name": "Person", "description": "...", "properties": [{"name": "birthDate", "type": "Date"}]}], "relations": [{"subject": "Person", "predicate": "worksFor", "object": "Organization"}]}

Propose only what the passages show: at most 12 entity types and 20 relations. A value that is itself an entity is a relation, not a property.`

// suggestAnswerSchema is the JSON schema of a schema answer.
func suggestAnswerSchema() map[string]any {
	str := map[string]any{"type": "string"}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"entity_types": map[string]any{"type": "array", "items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name":        str,
					"description": str,
					"properties": map[string]any{"type": "array", "items": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"name": str,
							"type": map[string]any{"type": "string", "enum": []string{"Text", "Integer", "Float", "Boolean", "Date"}},
						},
						"required": []string{"name", "type"},
					}},
				},
				"required": []string{"name", "description", "properties"},
			}},
			"relations": map[string]any{"type": "array", "items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"subject":   str,
					"predicate": str,
					"object":    str,
				},
				"required": []string{"subject", "predicate", "object"},
			}},
		},
		"required": []string{"entity_types", "relations"},
	}
}

// SuggestSample picks the passages a schema request shows: the
// documents cut in SuggestChunkSize pieces, the places shared out over
// the documents in turn (each document's passages spread over it, not
// only its opening), taken in that turn until SuggestMaxPassages or the
// token budget is reached. The first passage is always taken.
func SuggestSample(docs []extract.Document) []string {
	chunks := make([][]extract.Chunk, len(docs))
	for i, d := range docs {
		chunks[i] = extract.Split(d, SuggestChunkSize, 0, true)
	}
	// Places per document, one document after the other in turn.
	quota := make([]int, len(docs))
	for left := SuggestMaxPassages; left > 0; {
		gave := false
		for i := range docs {
			if left > 0 && quota[i] < len(chunks[i]) {
				quota[i]++
				left--
				gave = true
			}
		}
		if !gave {
			break
		}
	}
	// Each document's picks, evenly spaced; then taken in turn.
	picks := make([][]string, len(docs))
	for i, cs := range chunks {
		for k := range quota[i] {
			picks[i] = append(picks[i], strings.TrimSpace(cs[k*len(cs)/quota[i]].Text))
		}
	}
	var out []string
	tokens := 0
	for round := 0; ; round++ {
		took := false
		for i := range picks {
			if round >= len(picks[i]) || picks[i][round] == "" {
				continue
			}
			p := picks[i][round]
			n := extract.EstimateTokens(p)
			if len(out) > 0 && tokens+n > SuggestTokenBudget {
				return out
			}
			out = append(out, p)
			tokens += n
			took = true
		}
		if !took {
			return out
		}
	}
}

// SuggestRequest builds the request that asks a model for a schema of
// the passages.
func SuggestRequest(passages []string) llm.Request {
	var b strings.Builder
	fmt.Fprintf(&b, "%d passages from the documents:\n", len(passages))
	for i, p := range passages {
		fmt.Fprintf(&b, "\n[%d]\n%s\n", i+1, p)
	}
	return llm.Request{
		Messages:   []llm.Message{{Role: "system", Content: suggestSystem}, {Role: "user", Content: b.String()}},
		JSONSchema: suggestAnswerSchema(),
		Purpose:    "schema-suggest",
	}
}

// suggestAnswer is a schema as the model writes it; lists are pointers
// so a missing one is told from an empty one.
type suggestAnswer struct {
	EntityTypes *[]struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Properties  []struct {
			Name        string `json:"name"`
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
	} `json:"entity_types"`
	Relations *[]struct {
		Subject     string `json:"subject"`
		Predicate   string `json:"predicate"`
		Object      string `json:"object"`
		Description string `json:"description"`
	} `json:"relations"`
}

// valueTypeNames maps the spellings of the property types a model may
// give (any case) to the schema's basic types.
var valueTypeNames = map[string]string{
	"text": "Text", "string": "Text", "str": "Text",
	"integer": "Integer", "int": "Integer",
	"float": "Float", "number": "Float", "double": "Float", "decimal": "Float",
	"boolean": "Boolean", "bool": "Boolean",
	"date": "Date", "datetime": "Date",
}

// ParseSuggestion reads a model's schema answer into a draft named name
// (its namespace too, as SuggestSchema's): every entity type an entity
// type, its properties typed with the basic types, every relation the
// subject type's relation to the object type (one to a basic type is a
// property of the subject). Names are put in KAG's form ("sports team"
// is SportsTeam, "works for" worksFor, the words kept as the alias);
// a relation or property given twice is kept once. The draft is valid
// and reads back from KAG's DSL unchanged; an answer that does not give
// one is ErrMalformedSchema naming the first problem.
func ParseSuggestion(text, name string) (*schema.Schema, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrMalformedSchema, fmt.Sprintf(format, args...))
	}
	fixed, repairs, err := extract.RepairJSON(text)
	if err != nil {
		return nil, bad("%v", err)
	}
	if slices.Contains(repairs, extract.RepairTruncated) {
		return nil, bad("the answer is cut off")
	}
	if !strings.HasPrefix(fixed, "{") {
		return nil, bad("the answer is not a JSON object")
	}
	var a suggestAnswer
	if err := json.Unmarshal([]byte(fixed), &a); err != nil {
		return nil, bad("%s", extract.JSONProblem([]byte(fixed), err))
	}
	if a.EntityTypes == nil || len(*a.EntityTypes) == 0 {
		return nil, bad("no entity_types")
	}
	if a.Relations == nil {
		return nil, bad("no relations list")
	}
	sc := &schema.Schema{Name: name}
	index := map[string]int{} // lower-case type name -> position
	for i, t := range *a.EntityTypes {
		tn := typeName(t.Name)
		switch {
		case tn == "":
			return nil, bad("entity_types[%d] has no name", i)
		case valueTypeNames[strings.ToLower(tn)] != "" || slices.Contains(schema.BasicTypes, tn):
			return nil, bad("entity_types[%d]: %s is a value type, not an entity type", i, tn)
		}
		if _, dup := index[strings.ToLower(tn)]; dup {
			return nil, bad("entity_types[%d]: type %s is given twice", i, tn)
		}
		index[strings.ToLower(tn)] = len(sc.Types)
		et := schema.EntityType{Name: tn, Alias: aliasOf(t.Name, tn), Kind: schema.KindEntity, Description: line(t.Description)}
		for j, p := range t.Properties {
			pn := predicateName(p.Name)
			if pn == "" {
				return nil, bad("entity_types[%d].properties[%d] has no name", i, j)
			}
			pt := valueTypeNames[strings.ToLower(strings.TrimSpace(p.Type))]
			if pt == "" {
				return nil, bad("entity_types[%d].properties[%d]: type %q is not Text, Integer, Float, Boolean or Date", i, j, extract.Clip(p.Type, 40))
			}
			prop := schema.Property{Name: pn, Alias: aliasOf(p.Name, pn), Type: pt, Description: line(p.Description)}
			if err := addProperty(&et, prop); err != nil {
				return nil, bad("entity_types[%d].properties[%d]: %v", i, j, err)
			}
		}
		sc.Types = append(sc.Types, et)
	}
	for i, r := range *a.Relations {
		si, ok := index[strings.ToLower(typeName(r.Subject))]
		if !ok {
			return nil, bad("relations[%d]: subject %q is not one of the entity types", i, extract.Clip(r.Subject, 40))
		}
		pn := predicateName(r.Predicate)
		if pn == "" {
			return nil, bad("relations[%d] has no predicate", i)
		}
		owner := &sc.Types[si]
		if vt := valueTypeNames[strings.ToLower(strings.TrimSpace(r.Object))]; vt != "" {
			// A relation to a value is a property.
			if err := addProperty(owner, schema.Property{Name: pn, Alias: aliasOf(r.Predicate, pn), Type: vt, Description: line(r.Description)}); err != nil {
				return nil, bad("relations[%d]: %v", i, err)
			}
			continue
		}
		oi, ok := index[strings.ToLower(typeName(r.Object))]
		if !ok {
			return nil, bad("relations[%d]: object %q is not one of the entity types", i, extract.Clip(r.Object, 40))
		}
		target := sc.Types[oi].Name
		if slices.ContainsFunc(owner.Relations, func(x schema.Relation) bool { return x.Name == pn && x.Target == target }) {
			continue
		}
		owner.Relations = append(owner.Relations, schema.Relation{Name: pn, Alias: aliasOf(r.Predicate, pn), Target: target, Description: line(r.Description)})
	}
	if ps := schema.Validate(sc); len(ps) > 0 {
		return nil, bad("%s", ps[0].Message)
	}
	// The draft must read back from the DSL as it is.
	back, err := schema.ParseKAGString(schema.FormatKAG(sc))
	if err != nil {
		return nil, bad("%s", extract.MessageOf(err))
	}
	if len(schema.Diff(sc, back).Items) > 0 {
		return nil, bad("the schema does not read back from KAG's DSL unchanged")
	}
	sc.Namespace = name
	return sc, nil
}

// addProperty adds p to t; the same property again is dropped, one of
// the same name with another type is an error.
func addProperty(t *schema.EntityType, p schema.Property) error {
	for _, q := range t.Properties {
		if q.Name == p.Name {
			if q.Type != p.Type {
				return fmt.Errorf("property %s of %s is given as %s and as %s", p.Name, t.Name, q.Type, p.Type)
			}
			return nil
		}
	}
	t.Properties = append(t.Properties, p)
	return nil
}

// typeName puts a model's type name in KAG's form: "sports team" is
// SportsTeam, "Person" stays Person.
func typeName(s string) string {
	n := predicateName(s)
	r, size := utf8.DecodeRuneInString(n)
	if n == "" {
		return ""
	}
	return string(unicode.ToUpper(r)) + n[size:]
}

// aliasOf keeps the words a name was made from as its alias ("works
// for" of worksFor) when they differ from it beyond case, without the
// parentheses and colons the DSL reserves.
func aliasOf(words, name string) string {
	w := line(strings.Map(func(r rune) rune {
		if strings.ContainsRune("():[]#", r) {
			return ' '
		}
		return r
	}, words))
	w = strings.Join(strings.Fields(w), " ")
	if strings.EqualFold(w, name) {
		return ""
	}
	return w
}

// line folds a text to one line of at most 300 bytes.
func line(s string) string {
	return extract.Clip(strings.Join(strings.Fields(s), " "), 300)
}
