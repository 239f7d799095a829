// Package csvmap is the structured chain of schema-constrained extraction:
// it maps the rows of CSV tables to graph nodes and edges without a model,
// the way KAG's structured builder reads a project's data folder.
//
// A document is read as a table: the first record is the header, every
// further record a row. The layout is told by the file's base name (the
// name without folder and .csv/.tsv extension) and its header:
//
//   - Triples. A header whose first three columns are S, P and O (any case),
//     like KAG's SPO.csv, or named like them (subject/predicate/object,
//     head/relation/tail, source/relation/target, from/label/to), makes
//     one edge per row: subject S, label P, object O. In S and O an underscore reads as a space
//     ("Panic_disorder" is the node "Panic disorder"); both nodes take the
//     default type, unless a node table of the run defines exactly one row
//     (of any type) with that name or id: then the end is that row, so a
//     triples table and Person.csv give one "Ebenezer Scrooge". A "properties" column holding a JSON object becomes the
//     edge's properties; other columns are edge properties too.
//   - Edge table. A base name of the form Src_rel_Dst
//     (Person_fundTrans_Person) with src and dst (or srcId and dstId)
//     columns makes one edge per
//     row, label rel, from the Src node keyed by the src cell to the Dst node
//     keyed by the dst cell. Src and Dst are resolved as schema type names
//     or aliases, and used as written when the schema lacks them. The other
//     columns are edge properties, typed by the relation's (or the Src
//     type's property's) sub-properties when the schema declares them.
//     Rows repeating the same (src, dst) pair make one edge whose weight
//     counts the rows; a property whose values differ holds the list of
//     them in row order.
//   - Node table. Anything else makes one node per row. The node type is
//     the schema type whose name or alias matches the base name
//     (Disease.csv is Disease, 疾病.csv too), else Options.DefaultType, else
//     "Concept". The id column is the one named "id" (any case), else the
//     first column; the name column is "name" or "title", else the id; a
//     "desc" or "description" column is the node's description. A column
//     whose schema property (matched by name, by the name after a semantic
//     prefix such as "IND#", or by alias) or relation has another schema
//     type as its type becomes edges, labelled with the column name, to
//     nodes of that type keyed by the cell's values; a cell holds several
//     values separated by ',', ';' or '|' (full-width too), or, when it
//     has none of those, by '、'. Every other column is
//     a property: Integer and Float properties are parsed as numbers, Text
//     ones kept as written, and columns the schema does not declare are
//     parsed when they read as a plain decimal number (no leading zero, at
//     most 15 digits) and kept as text otherwise. Empty cells are skipped.
//     In a concept type with a hypernym predicate (KAG's ConceptType,
//     hypernymPredicate: isA) an id "A-B-C" also gets an edge labelled
//     with the predicate to its parent concept "A-B".
//
// Node keys are extract.TypedNodeKey(type, id), so "0" in Person.csv and "0"
// in Company.csv are different nodes, and a reference or edge-table cell
// "3" of type Device is the row of Device.csv whose id is 3. A node that is
// only referenced (not a row of its own anywhere in the run) is named by the
// reference. MapAll looks across the documents of a run: a referenced node
// takes the name of the row that defines it, and a reference that matches
// no id of its type but equals the name or a text property value of
// exactly one row of that type points at that row (App.useCert holds
// Cert.certNum, not Cert.id; Person.legalRepresentative holds company
// names).
//
// Mentions: every node and edge gets a mention of the row it came from
// (byte offsets into the document, chunk 0, since a table is one chunk); a
// referenced node's mention is the cell value within the row.
//
// Broken input never panics: an empty table, a malformed quote, a row with
// more or fewer fields than the header, a row without an id or a bad
// properties JSON each give a ParseFailure naming the row (its line number
// in the file) and the reason, and the other rows are still mapped.
//
// The package is pure: it imports nothing of kgstudio but the extract
// domain types; callers convert their schema into Options.
package csvmap

import (
	"strings"

	"github.com/kgstudio/kgstudio/extract/schema"
)

// DefaultType is the node type of rows whose file names no schema type.
const DefaultType = "Concept"

// MaxRows bounds the rows the tables of one run may have in all: the
// tables are read row by row, and the row past the limit stops the
// mapping with an error naming its table and row. Tables are mapped a
// row chunk at a time (see Tables), but a run's last steps (communities,
// vectors) read its whole graph, so the bound is what a run was measured
// to build in under a gigabyte.
const MaxRows = 1_000_000

// Options are the schema types a table is mapped under.
type Options struct {
	// Types are the schema types with their properties and relations.
	Types []Type
	// DefaultType is the type of nodes of a table whose base name matches
	// no type, and of the nodes of triples; "Concept" when empty.
	DefaultType string
}

// Type is one schema type.
type Type struct {
	Name  string
	Alias string
	// Hypernym is the taxonomy predicate of a concept type ("isA"); empty
	// for types whose ids are not a dash-separated taxonomy path.
	Hypernym   string
	Properties []Property
	Relations  []Relation
}

// Property is a typed attribute. A Type naming another schema type makes
// the property a reference (edges).
type Property struct {
	Name       string
	Alias      string
	Type       string
	MultiValue bool
}

// Relation is a typed edge of a type, with the edge's own properties.
type Relation struct {
	Name       string
	Alias      string
	Target     string
	Properties []Property
}

func (o Options) defaultType() string {
	if t := strings.TrimSpace(o.DefaultType); t != "" {
		return t
	}
	return DefaultType
}

// lookup finds a type by name or alias, exactly first, then ignoring case.
func (o Options) lookup(name string) *Type {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil
	}
	for i := range o.Types {
		if o.Types[i].Name == name || (o.Types[i].Alias != "" && o.Types[i].Alias == name) {
			return &o.Types[i]
		}
	}
	for i := range o.Types {
		if strings.EqualFold(o.Types[i].Name, name) || (o.Types[i].Alias != "" && strings.EqualFold(o.Types[i].Alias, name)) {
			return &o.Types[i]
		}
	}
	return nil
}

// refType returns the schema type a property type names ("Cert"; the
// first of a list like "Company,Person"), or nil for basic types.
func (o Options) refType(typ string) *Type {
	first, _, _ := strings.Cut(typ, ",")
	switch strings.ToLower(strings.TrimSpace(first)) {
	case "", "text", "integer", "float", "int", "long", "double", "number", "string", "boolean", "date":
		return nil
	}
	if t := o.lookup(first); t != nil {
		return t
	}
	// A standard type the schema uses without declaring it: KAG makes
	// the value a node of its own (a phone number two people share links
	// them).
	if std, ok := schema.StandardName(first); ok {
		return &Type{Name: std}
	}
	return nil
}

// matches reports whether a column header names a property or relation.
func matches(col, name, alias string) bool {
	if strings.EqualFold(col, name) {
		return true
	}
	if i := strings.LastIndexByte(name, '#'); i >= 0 && strings.EqualFold(col, name[i+1:]) {
		return true
	}
	return alias != "" && col == alias
}

func (t *Type) property(col string) *Property {
	if t == nil {
		return nil
	}
	for i := range t.Properties {
		if matches(col, t.Properties[i].Name, t.Properties[i].Alias) {
			return &t.Properties[i]
		}
	}
	return nil
}

func (t *Type) relation(col string) *Relation {
	if t == nil {
		return nil
	}
	for i := range t.Relations {
		if matches(col, t.Relations[i].Name, t.Relations[i].Alias) {
			return &t.Relations[i]
		}
	}
	return nil
}

// edgeProps returns the declared sub-properties of a relation (or of a
// reference property) named label on type t.
func (t *Type) edgeProps(label string) []Property {
	if r := t.relation(label); r != nil {
		return r.Properties
	}
	return nil
}

func findProp(ps []Property, col string) *Property {
	for i := range ps {
		if matches(col, ps[i].Name, ps[i].Alias) {
			return &ps[i]
		}
	}
	return nil
}
