// Package kag is the KAG-style schema-constrained extraction strategy. Per
// chunk it runs named-entity recognition limited to the schema's entity and
// concept types, event extraction for its event types, standardisation to
// official names and relation extraction among the entities found, all as
// JSON calls with a response schema. It takes the schema as plain TypeSpecs
// so it does not depend on the schema package.
//
// Choices: a node is its official name and its type, as in KAG, so its key
// is extract.TypedNodeKey(type, official name) (see nodeKey); surface names
// that differ are kept in Properties["aliases"]. A property whose
// type is a schema type becomes an edge labelled with the property name to
// a node of that type. Types, relations and property edges the schema does
// not know are kept, marked Properties["off_schema"]=true and counted in
// ChunkResult.OffSchema. Relations are read as objects {subject, predicate,
// object}, as triples, or as KAG's five-element lists [subject,
// subject_category, predicate, object, object_category]; in every form the
// predicate is camel-cased as KAG does ("located in" -> "locatedIn"; the
// rule is documented on predicateName). Relation endpoints that NER
// did not report become nodes marked Properties["implicit"], of the category
// the five-element form gives them, else of type "unknown".
// ParseFailure.Round is the index of the call (in ChunkResult.Calls) whose
// output failed.
package kag

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// TypeSpec is one schema type.
type TypeSpec struct {
	Name  string
	Alias string
	// Parent is the type this one is declared under (`Child -> Parent:`),
	// if any; a node of the type counts as one of its parent.
	Parent      string
	Kind        schema.Kind // entity, concept or event
	Description string
	Properties  []PropSpec
	Relations   []RelSpec
}

// PropSpec is a property of a type. Type is a basic type (Text, Integer,
// Float, ...) or the name of another schema type, or several (an event's
// subject: "Person,Organization"). Constraint is KAG's constraint text
// ("NotNull, MultiValue", `Enum="A,B"`, `Regular="^\d+$"`); the model sees
// it with the description, and values that break it are counted as
// violations.
type PropSpec struct {
	Name        string
	Type        string
	Constraint  string
	Description string
}

// RelSpec is a relation from the owning type to Target (a type name).
type RelSpec struct {
	Name   string
	Alias  string
	Target string
}

// UnknownType is the type of relation endpoints NER did not report.
const UnknownType = "unknown"

// Options tune an Extractor.
type Options struct{}

// Extractor runs the schema strategy. It is safe for concurrent use.
type Extractor struct {
	client  llm.Client
	cfg     extract.Config
	types   []TypeSpec
	byName  map[string]*TypeSpec
	prompts prompts
	// domain is the run's domain graph (see WithDomain), nil without one.
	domain *extract.Domain
}

// WithDomain returns a copy of x that gives its NER step the entities of a
// domain graph, as KAG's extractor does with its external graph: the
// domain entities a chunk names are listed in the NER prompt (at most
// extract.MaxDomainList), and each joins the NER result under the domain's
// name and type; an entity the model also reported by that name or an
// alias takes them and keeps its description and properties. They then
// reach the standardisation and relation steps like the model's own.
func (x *Extractor) WithDomain(d *extract.Domain) extract.Extractor {
	c := *x
	c.domain = d
	return &c
}

var _ extract.DomainAware = (*Extractor)(nil)

// New builds an Extractor for types. It returns KindInvalid when there is
// no client, no entity, concept or event type, a type without a name, or a
// prompt override that does not parse.
func New(client llm.Client, cfg extract.Config, types []TypeSpec, _ Options) (*Extractor, error) {
	if client == nil {
		return nil, extract.Errorf(extract.KindInvalid, "kag: a model client is required")
	}
	if len(types) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "kag: the schema has no types")
	}
	x := &Extractor{client: client, cfg: cfg, types: types, byName: map[string]*TypeSpec{}}
	for i := range types {
		t := &x.types[i]
		if strings.TrimSpace(t.Name) == "" {
			return nil, extract.Errorf(extract.KindInvalid, "kag: type %d has no name", i)
		}
		x.byName[strings.ToLower(t.Name)] = t
		if t.Alias != "" {
			if _, taken := x.byName[strings.ToLower(t.Alias)]; !taken {
				x.byName[strings.ToLower(t.Alias)] = t
			}
		}
	}
	p, err := parsePrompts(cfg.Prompts)
	if err != nil {
		return nil, err
	}
	x.prompts = p
	return x, nil
}

// Language picks the prompt language: cfg.Language when it names English
// or Chinese, otherwise Chinese when at least a fifth of the letters of
// text are Han characters.
func Language(cfgLang, text string) Lang {
	switch strings.ToLower(strings.TrimSpace(cfgLang)) {
	case "zh", "zh-cn", "zh-tw", "cn", "chinese", "中文":
		return LangChinese
	case "en", "english":
		return LangEnglish
	}
	if extract.MostlyHan(text) {
		return LangChinese
	}
	return LangEnglish
}

func (x *Extractor) lookup(name string) *TypeSpec {
	return x.byName[strings.ToLower(strings.TrimSpace(name))]
}

// isA reports whether type typ is ancestor or declared under it, at any
// depth.
func (x *Extractor) isA(typ, ancestor string) bool {
	t := x.lookup(typ)
	for range len(x.types) + 1 {
		if t == nil {
			return false
		}
		if strings.EqualFold(t.Name, ancestor) {
			return true
		}
		t = x.lookup(t.Parent)
	}
	return false
}

func (x *Extractor) views(event bool) []TypeView {
	var out []TypeView
	for _, t := range x.types {
		if (t.Kind == schema.KindEvent) != event {
			continue
		}
		var props []string
		for _, p := range t.Properties {
			about := p.Type
			if p.Constraint != "" {
				about += "; " + p.Constraint
			}
			if p.Description != "" {
				about += "; " + p.Description
			}
			props = append(props, p.Name+" ("+about+")")
		}
		out = append(out, TypeView{Name: t.Name, Alias: t.Alias, Kind: string(t.Kind), Description: t.Description, Properties: strings.Join(props, ", ")})
	}
	return out
}

// allowedRelations lists the schema's relations, and its properties whose
// type is another schema type (they become edges too).
func (x *Extractor) allowedRelations() []string {
	var out []string
	seen := map[string]bool{}
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, t := range x.types {
		for _, r := range t.Relations {
			add(fmt.Sprintf("%s -[%s]-> %s", t.Name, r.Name, r.Target))
		}
		for _, p := range t.Properties {
			for _, typ := range strings.Split(p.Type, ",") {
				if target, ok := x.byName[strings.ToLower(strings.TrimSpace(typ))]; ok {
					add(fmt.Sprintf("%s -[%s]-> %s", t.Name, p.Name, target.Name))
				}
			}
		}
	}
	return out
}

// item is one entity or event as read from model output.
type item struct {
	Name        string
	Category    string
	Description string
	Official    string
	Props       []prop
	event       bool
}

type prop struct {
	Name   string
	Values []string
}

// call sends one JSON call and records it.
func (x *Extractor) call(ctx context.Context, res *extract.ChunkResult, purpose Step, prompt string, schema map[string]any) (string, error) {
	resp, err := x.client.Complete(ctx, llm.Request{
		Messages:    []llm.Message{{Role: "user", Content: prompt}},
		Temperature: x.cfg.Temperature,
		JSONSchema:  schema,
		Purpose:     string(purpose),
	})
	if err != nil {
		return "", fmt.Errorf("kag %s of chunk %d: %w", purpose, res.Chunk.Index, err)
	}
	resp.Record.Purpose = string(purpose)
	res.Calls = append(res.Calls, resp.Record)
	return resp.Text, nil
}

// Extract runs the steps on chunk. Model failures are errors
// (KindUnavailable or KindInvalid); malformed output becomes Failures.
func (x *Extractor) Extract(ctx context.Context, doc extract.Document, chunk extract.Chunk) (extract.ChunkResult, error) {
	start := time.Now()
	res := extract.ChunkResult{Chunk: chunk.Ref()}
	if strings.TrimSpace(chunk.Text) == "" {
		res.Elapsed = time.Since(start)
		return res, nil
	}
	lang := Language(x.cfg.Language, chunk.Text)
	var items []item

	known := x.domain.In(chunk.Text, extract.MaxDomainList)
	// 1. Named entities of entity and concept types.
	if v := x.views(false); len(v) > 0 {
		p, err := x.prompts.render(StepNER, lang, PromptData{Types: v, Text: chunk.Text, Known: known})
		if err != nil {
			return res, err
		}
		out, err := x.call(ctx, &res, StepNER, p, itemsSchema("entities", x.props(false), false))
		if err != nil {
			return res, err
		}
		items = append(items, x.readItems(&res, out, "entities", false)...)
	}
	items = withKnown(known, items)
	// 2. Events of event types.
	if v := x.views(true); len(v) > 0 {
		p, err := x.prompts.render(StepEvent, lang, PromptData{Types: v, Text: chunk.Text})
		if err != nil {
			return res, err
		}
		out, err := x.call(ctx, &res, StepEvent, p, itemsSchema("events", x.props(true), true))
		if err != nil {
			return res, err
		}
		items = append(items, x.readItems(&res, out, "events", true)...)
	}
	entities := x.distinct(items)
	named := namedList(entities)
	// 3. Official names.
	if len(named) > 0 {
		p, err := x.prompts.render(StepStd, lang, PromptData{Text: chunk.Text, Entities: named})
		if err != nil {
			return res, err
		}
		out, err := x.call(ctx, &res, StepStd, p, stdSchema)
		if err != nil {
			return res, err
		}
		x.readOfficial(&res, out, items)
	}
	// 4. Relations among the entities found.
	var rels []relation
	if len(entities) >= 2 {
		p, err := x.prompts.render(StepRelation, lang, PromptData{Text: chunk.Text, Entities: named, Relations: x.allowedRelations()})
		if err != nil {
			return res, err
		}
		out, err := x.call(ctx, &res, StepRelation, p, relationSchema)
		if err != nil {
			return res, err
		}
		rels = x.readRelations(&res, out)
	}
	b := newBuilder(x)
	for _, it := range items {
		b.addItem(it)
	}
	for _, r := range rels {
		b.addRelation(r)
	}
	res.Graph, res.OffSchema = b.graph(chunk)
	res.Violations = b.violations
	res.Elapsed = time.Since(start)
	return res, nil
}

// distinct returns items without repeats, for the lists the
// standardisation and relation prompts show: an item is left out when an
// earlier one has the same name (as extract.NormalizeName folds it) and the
// same type (a type's alias naming the type), so the first occurrence wins
// and the order is kept. The event step often repeats the entities NER
// found; KAG removes such repeats from its NER result too. Two types that
// share a name stay apart. The builder still gets every item, so a repeat's
// description and properties are kept.
func (x *Extractor) distinct(items []item) []item {
	seen := make(map[[2]string]bool, len(items))
	out := make([]item, 0, len(items))
	for _, it := range items {
		typ := strings.ToLower(it.Category)
		if t := x.lookup(it.Category); t != nil {
			typ = strings.ToLower(t.Name)
		}
		k := [2]string{extract.NormalizeName(it.Name), typ}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, it)
	}
	return out
}

// withKnown puts the domain entities a chunk names before the NER items,
// as KAG's extractor puts its external graph's NER result first: an item
// the model reported under a domain entity's name or alias takes the
// domain's name and type (keeping what the model said of it), and a
// domain entity the model missed becomes an item of its own.
func withKnown(known []extract.DomainEntity, items []item) []item {
	if len(known) == 0 {
		return items
	}
	out := make([]item, 0, len(known)+len(items))
	taken := make([]bool, len(items))
	for _, k := range known {
		names := map[string]bool{extract.NormalizeName(k.Name): true}
		for _, a := range k.Aliases {
			names[extract.NormalizeName(a)] = true
		}
		it := item{Name: k.Name, Category: k.Type}
		for i, m := range items {
			if !taken[i] && !m.event && names[extract.NormalizeName(m.Name)] {
				taken[i] = true
				m.Name, m.Category = k.Name, k.Type
				it = m
				break
			}
		}
		out = append(out, it)
	}
	for i, m := range items {
		if !taken[i] {
			out = append(out, m)
		}
	}
	return out
}

// namedList is the {name, category} JSON list given to later steps.
func namedList(items []item) string {
	if len(items) == 0 {
		return ""
	}
	type nc struct {
		Name     string `json:"name"`
		Category string `json:"category"`
	}
	list := make([]nc, 0, len(items))
	for _, it := range items {
		list = append(list, nc{it.Name, it.Category})
	}
	b, _ := json.Marshal(list)
	return string(b)
}

// Response schemas. Items come in KAG's own layout, {category,
// properties: {name, ...}}, under key (a structured answer needs an object
// at its root); props are the schema properties of the types the prompt
// lists, each a string or, for a MultiValue one, a list.
func itemsSchema(key string, props []PropSpec, event bool) map[string]any {
	str := map[string]any{"type": "string"}
	fields := map[string]any{"name": str, "semanticType": str, "description": str}
	if event {
		fields["abstract"] = str
	}
	for _, p := range props {
		if _, ok := fields[p.Name]; ok || p.Name == "" {
			continue
		}
		if strings.Contains(strings.ToLower(p.Constraint), "multivalue") {
			fields[p.Name] = map[string]any{"type": "array", "items": str}
		} else {
			fields[p.Name] = str
		}
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{key: map[string]any{
			"type": "array",
			"items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"category":   str,
					"properties": map[string]any{"type": "object", "properties": fields, "required": []any{"name"}},
				},
				"required": []any{"category", "properties"},
			},
		}},
		"required": []any{key},
	}
}

// props lists the properties of the event types (event) or of the other
// types, each name once.
func (x *Extractor) props(event bool) []PropSpec {
	var out []PropSpec
	seen := map[string]bool{}
	for _, t := range x.types {
		if (t.Kind == schema.KindEvent) != event {
			continue
		}
		for _, p := range t.Properties {
			if !seen[p.Name] {
				seen[p.Name] = true
				out = append(out, p)
			}
		}
	}
	return out
}

var stdSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{"entities": map[string]any{
		"type": "array",
		"items": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":          map[string]any{"type": "string"},
				"category":      map[string]any{"type": "string"},
				"official_name": map[string]any{"type": "string"},
			},
			"required": []any{"name", "official_name"},
		},
	}},
	"required": []any{"entities"},
}

var relationSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{"relations": map[string]any{
		"type": "array",
		// KAG's five-element form: subject, subject_category, predicate,
		// object, object_category.
		"items": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 5, "maxItems": 5},
	}},
	"required": []any{"relations"},
}

// sortedKeys is a helper for deterministic output.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var _ extract.Extractor = (*Extractor)(nil)
