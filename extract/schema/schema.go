// Package schema is kgstudio's schema domain: typed entity, concept, event and
// standard types with their properties and relations, the built-in flat
// default (LightRAG's mode: a plain list of entity types), the KAG `.schema`
// DSL and JSON forms, validation, structural diffs and content hashes.
//
// The package is pure: it reads and writes strings and bytes and imports
// nothing of kgstudio except the extract error type.
package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// Kind is a type's class. The kinds correspond to KAG's EntityType,
// ConceptType, EventType, StandardType, BasicType and IndexType
// declarations.
type Kind string

// The kinds of entity types.
const (
	KindEntity   Kind = "entity"
	KindConcept  Kind = "concept"
	KindEvent    Kind = "event"
	KindStandard Kind = "standard"
	// KindBasic is a BasicType declaration: a value type of its own, used
	// as a property type; nothing is extracted for it.
	KindBasic Kind = "basic"
	// KindIndex is an IndexType declaration: a type KAG only indexes
	// (chunks and the like); nothing is extracted for it.
	KindIndex Kind = "index"
)

// Kinds lists the kinds, as a schema's JSON names them.
var Kinds = []Kind{KindEntity, KindConcept, KindEvent, KindStandard, KindBasic, KindIndex}

// Schema is a named set of entity types. A flat list of types without any
// property or relation is a valid schema (LightRAG's mode).
type Schema struct {
	// Namespace is the KAG project prefix (`namespace X`), empty if none.
	Namespace string `json:"namespace,omitempty"`
	// Name is the name under which kgstudio stores the schema. The KAG DSL has
	// no name, so ParseKAG leaves it empty and callers set it.
	Name string `json:"name,omitempty"`
	// Description is free text about the schema (not part of the KAG DSL).
	Description string `json:"description,omitempty"`
	// Types are the declared types in declaration order.
	Types []EntityType `json:"types"`
	// ConceptRules are KAG concept rules (a `concept.rule` file, or
	// sections headed by a concept after the types): each classifies the
	// nodes its structure matches under a concept (see Rule).
	ConceptRules []ConceptRule `json:"concept_rules,omitempty"`
}

// ConceptRule is one KAG concept rule: the concept it is written for, as
// its section heads it ("`TaxOfRiskApp`/`赌博应用`"), and the rule's text
// between `[[` and `]]`, kept verbatim.
type ConceptRule struct {
	Concept string `json:"concept,omitempty"`
	Rule    string `json:"rule"`
}

// EntityType is one declared type: an entity, concept, event or standard type.
type EntityType struct {
	// Name is the identifier, e.g. "Disease".
	Name string `json:"name"`
	// Alias is the display name, e.g. "疾病".
	Alias string `json:"alias,omitempty"`
	// Kind is one of KindEntity, KindConcept, KindEvent, KindStandard. For a
	// type declared with a parent (`Child -> Parent:`) the parser copies the
	// parent's kind.
	Kind Kind `json:"kind"`
	// Description is the `desc:` text.
	Description string `json:"description,omitempty"`
	// Parent is the type this one inherits from (`Child(别名) -> Parent:`).
	Parent string `json:"parent,omitempty"`
	// HypernymPredicate is the taxonomy predicate of a concept type (isA,
	// locateAt, mannerOf).
	HypernymPredicate string `json:"hypernym_predicate,omitempty"`
	// AutoRelate lists concept types (comma separated) that a concept type is
	// related to with every semantic predicate (`autoRelate:`).
	AutoRelate string `json:"auto_relate,omitempty"`
	// Spreadable is the `spreadable:` flag of a standard type (True or False).
	Spreadable string `json:"spreadable,omitempty"`
	// Regular is the `regular:` pattern of a standard type.
	Regular string `json:"regular,omitempty"`
	// Properties are the type's properties in declaration order.
	Properties []Property `json:"properties,omitempty"`
	// Relations are the type's relations in declaration order.
	Relations []Relation `json:"relations,omitempty"`
}

// Property is a typed attribute of a type, or a sub-property of a property or
// relation. A property whose type is another declared type is a reference
// (an edge in the extracted graph).
type Property struct {
	// Name is the identifier, possibly with a semantic prefix ("IND#belongTo").
	Name string `json:"name"`
	// Alias is the display name.
	Alias string `json:"alias,omitempty"`
	// Type is a basic type (Text, Integer, Float, ...), a standard type
	// (STD.*) or a declared type name; an event's subject may list several
	// types separated by commas.
	Type string `json:"type"`
	// Description is the `desc:` text.
	Description string `json:"description,omitempty"`
	// Constraint is the `constraint:` text verbatim, e.g. "NotNull, MultiValue"
	// or `Enum="A,B,C"`.
	Constraint string `json:"constraint,omitempty"`
	// Index is the `index:` mode: Text, Vector or TextAndVector.
	Index string `json:"index,omitempty"`
	// Rule is the logic rule between `[[` and `]]`, kept verbatim.
	Rule string `json:"rule,omitempty"`
	// Properties are sub-properties (properties of the property value).
	Properties []Property `json:"properties,omitempty"`
}

// Relation is a typed edge from its owning type to Target.
type Relation struct {
	// Name is the identifier, possibly with a semantic prefix ("CAU#leadTo").
	Name string `json:"name"`
	// Alias is the display name.
	Alias string `json:"alias,omitempty"`
	// Target is the name of the type the relation points to.
	Target string `json:"target"`
	// Description is the `desc:` text.
	Description string `json:"description,omitempty"`
	// Constraint is the `constraint:` text verbatim.
	Constraint string `json:"constraint,omitempty"`
	// Rule is the logic rule between `[[` and `]]`, kept verbatim.
	Rule string `json:"rule,omitempty"`
	// Properties are the relation's own properties (edge properties).
	Properties []Property `json:"properties,omitempty"`
}

// MultiValue reports whether the property's constraint includes MultiValue.
func (p Property) MultiValue() bool {
	for _, c := range splitConstraint(p.Constraint) {
		if strings.EqualFold(c, "MultiValue") {
			return true
		}
	}
	return false
}

// Types returns the property's type names: usually one, several for an
// event subject written as "Company,Person".
func (p Property) Types() []string { return splitList(p.Type) }

// Default returns the built-in flat schema: the LightRAG-style list of entity
// types, all of kind entity, without properties or relations.
func Default() *Schema {
	return &Schema{
		Name:        "default",
		Description: "Built-in flat list of general entity types.",
		Types: []EntityType{
			{Name: "Person", Kind: KindEntity, Description: "A human being, real or fictional, named or clearly identified."},
			{Name: "Creature", Kind: KindEntity, Description: "An animal, plant or other living being that is not a person."},
			{Name: "Organization", Kind: KindEntity, Description: "A company, institution, government body, team or other group of people."},
			{Name: "Location", Kind: KindEntity, Description: "A place: country, city, region, address, building or natural site."},
			{Name: "Event", Kind: KindEntity, Description: "Something that happens at a time: a meeting, war, launch, incident or ceremony."},
			{Name: "Concept", Kind: KindEntity, Description: "An abstract idea, field, theory or category."},
			{Name: "Method", Kind: KindEntity, Description: "A technique, procedure, process or algorithm."},
			{Name: "Content", Kind: KindEntity, Description: "A work of text, art or media: a book, article, film, song or report."},
			{Name: "Data", Kind: KindEntity, Description: "A figure, measurement, statistic or data set."},
			{Name: "Artifact", Kind: KindEntity, Description: "A made object: product, tool, device, vehicle or piece of software."},
			{Name: "NaturalObject", Kind: KindEntity, Description: "A non-living natural thing: a mineral, substance, celestial body or phenomenon."},
		},
	}
}

// TypeNames returns the names of the declared types in order.
func (s *Schema) TypeNames() []string {
	if s == nil {
		return nil
	}
	names := make([]string, len(s.Types))
	for i, t := range s.Types {
		names[i] = t.Name
	}
	return names
}

// Lookup finds a type by name, by the namespace-qualified name
// ("Medicine.Disease"), by alias ("疾病"), or, failing those, by name or alias
// ignoring case. The result points into s.Types.
func (s *Schema) Lookup(name string) (*EntityType, bool) {
	if s == nil {
		return nil, false
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, false
	}
	if s.Namespace != "" {
		name = strings.TrimPrefix(name, s.Namespace+".")
	}
	for i := range s.Types {
		if s.Types[i].Name == name {
			return &s.Types[i], true
		}
	}
	for i := range s.Types {
		if s.Types[i].Alias != "" && s.Types[i].Alias == name {
			return &s.Types[i], true
		}
	}
	for i := range s.Types {
		if strings.EqualFold(s.Types[i].Name, name) || (s.Types[i].Alias != "" && strings.EqualFold(s.Types[i].Alias, name)) {
			return &s.Types[i], true
		}
	}
	return nil, false
}

// Hash returns a stable content hash (hex SHA-256 of the canonical JSON
// form). Name is left out, so the same content under another name hashes the
// same; everything else, order included, counts.
func Hash(s *Schema) string {
	if s == nil {
		s = &Schema{}
	}
	c := *s
	c.Name = ""
	// Marshalling plain strings and slices cannot fail.
	b, _ := json.Marshal(normalized(&c))
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// normalized returns a deep copy of s in which empty slices are nil, so that
// schemas equal in content compare equal with reflect.DeepEqual.
func normalized(s *Schema) *Schema {
	c := *s
	c.Types = nil
	for _, t := range s.Types {
		t.Properties = normProps(t.Properties)
		var rels []Relation
		for _, r := range t.Relations {
			r.Properties = normProps(r.Properties)
			rels = append(rels, r)
		}
		t.Relations = rels
		c.Types = append(c.Types, t)
	}
	return &c
}

func normProps(ps []Property) []Property {
	var out []Property
	for _, p := range ps {
		p.Properties = normProps(p.Properties)
		out = append(out, p)
	}
	return out
}

// splitList splits a comma-separated list, trimming blanks and dropping
// empty items.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// splitConstraint splits a constraint list on commas outside double quotes,
// so `NotNull, Enum="A,B"` gives two items.
func splitConstraint(s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ',' && !quoted:
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// StandardName reads a standard type's name ("STD.ChinaMobile", the
// prefix in any case) and returns it spelled STD.<Name>; false for any
// other name.
func StandardName(name string) (string, bool) {
	name = strings.TrimSpace(name)
	if len(name) <= 4 || !strings.EqualFold(name[:4], "STD.") {
		return "", false
	}
	return "STD." + name[4:], true
}
