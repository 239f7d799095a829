package web

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kgstudio/kgstudio/extract/schema"
)

// SchemaRow is a schema in the list.
type SchemaRow struct {
	Name        string
	Description string
	Latest      int
	Versions    int
	Types       int
	Updated     string
}

// SchemasPage is the schema list with the import form.
type SchemasPage struct {
	Rows []SchemaRow
}

// SchemaProp is a property of a type or relation, for display and editing.
type SchemaProp struct {
	Name, Alias, Type, Description, Constraint, Index, Rule string
	// Sub is the JSON of the property's own sub-properties, carried through
	// the editor unchanged; SubCount says how many there are.
	Sub      string
	SubCount int
}

// SchemaRel is a relation of a type.
type SchemaRel struct {
	Name, Alias, Target, Description, Constraint, Rule string
	// Sub is the JSON of the relation's properties, carried through the
	// editor unchanged; SubCount says how many there are.
	Sub      string
	SubCount int
}

// SchemaType is one entity, concept, event or standard type.
type SchemaType struct {
	Name, Alias, Kind, Description, Parent string
	HypernymPredicate, AutoRelate          string
	Spreadable, Regular                    string
	Props                                  []SchemaProp
	Rels                                   []SchemaRel
}

// SchemaVersionRow is one version in a schema's history.
type SchemaVersionRow struct {
	Number  int
	Note    string
	Types   int
	Hash    string
	Created string
}

// SchemaChange is one line of a version difference.
type SchemaChange struct {
	Op, Element, Subject string
	Fields               []string
}

// SchemaDiffView is the difference between two versions.
type SchemaDiffView struct {
	Name    string
	A, B    int
	Changes []SchemaChange
	// Counts are "element op" -> count, e.g. "type added".
	Counts map[string]int
}

// Count returns the number of changes of an element and operation.
func (d SchemaDiffView) Count(element, op string) int { return d.Counts[element+" "+op] }

// SchemaPage shows one version of a schema with its history.
type SchemaPage struct {
	Name        string
	Namespace   string
	Description string
	Version     int
	Latest      int
	Types       []SchemaType
	// ConceptRules are the schema's concept rules.
	ConceptRules []ConceptRuleView
	History      []SchemaVersionRow
	// Diff, when set, compares two versions of the history.
	Diff *SchemaDiffView
	// Warnings are KAG's own conventions the schema does not follow
	// ("types[2].properties: ..."); they do not stop a save or a run.
	Warnings []string
}

// ConceptRuleView is one concept rule: its concept and its text.
type ConceptRuleView struct{ Concept, Rule string }

// Ref is "name@version".
func (p SchemaPage) Ref() string { return fmt.Sprintf("%s@%d", p.Name, p.Version) }

// SchemaEditor is the form that edits a working copy of a schema. Saving
// stores the copy as a new version.
type SchemaEditor struct {
	// Name is the schema's name; New means it can still be chosen.
	Name string
	New  bool
	// Docs are the stored documents a draft can be suggested from (the
	// newest first, those picked checked); SuggestOpen unfolds the
	// suggestion box; SuggestProviders choose who drafts (offline first,
	// the one picked selected).
	Docs             []DocChoice
	SuggestOpen      bool
	SuggestProviders []Option
	// From is the version the working copy started from (0 for none).
	From        int
	Namespace   string
	Description string
	Note        string
	Types       []SchemaType
	// ConceptRules are the schema's concept rules as a KAG rule file's
	// sections.
	ConceptRules string
	// TypeChoices are the values offered for property types: the basic
	// types and the schema's own types.
	BasicTypes []string
	// Errors maps a field name ("types[2].relations[0].target") to its
	// validation messages.
	Errors map[string][]string
	// Other are messages for fields without an input of their own.
	Other []string
	// Problems counts all validation messages; zero when the copy was
	// not validated or is valid.
	Problems int
	// Focus is the name of the field (or the op value of the button) that
	// takes the focus once the form is swapped in: the new field after an
	// add, the next one after a remove.
	Focus string
	// Warnings are KAG's conventions the working copy does not follow;
	// they do not stop a save.
	Warnings []string
	// Dirty marks a working copy that differs from what is stored (any
	// answer to an editor action): leaving the page then asks first.
	Dirty bool
	// Message is a short note about the last action.
	Message string
	// Conflict is why a save was refused because another one came first;
	// Latest is the version it made (0 when unknown), which the editor
	// offers to open instead.
	Conflict string
	Latest   int
}

// TOCMin is the number of types from which the editor lists them at its
// top, each a link to its editor.
const TOCMin = 5

// TypeAnchor is the id of a type's editor in the form.
func TypeAnchor(i int) string { return fmt.Sprintf("ed-type-%d", i) }

// typeHasErrors reports whether a field of type i has a message.
func typeHasErrors(e SchemaEditor, i int) bool {
	prefix := fmt.Sprintf("types[%d].", i)
	for f, ms := range e.Errors {
		if len(ms) > 0 && strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

// TypeNames returns the working copy's type names, for pickers.
func (e SchemaEditor) TypeNames() []string {
	var out []string
	for _, t := range e.Types {
		if t.Name != "" {
			out = append(out, t.Name)
		}
	}
	return out
}

// Kinds are the choices of the kind selector: schema.Kinds.
var Kinds = schema.KindNames()

// IndexModes are the choices of a property's index.
var IndexModes = []string{"", "Text", "Vector", "TextAndVector"}

// HypernymPredicates are the choices of a concept's hypernym predicate.
var HypernymPredicates = []string{"", "isA", "locateAt", "mannerOf"}

// editorFieldRE matches the field names the editor renders inputs for.
var editorFieldRE = regexp.MustCompile(`^(namespace|description|concept_rules|types\[\d+\]\.(name|alias|kind|description|parent|hypernym_predicate|auto_relate|spreadable|regular)|types\[\d+\]\.properties\[\d+\]\.(name|alias|type|description|constraint|index|rule)|types\[\d+\]\.relations\[\d+\]\.(name|alias|target|description|constraint|rule))$`)

// EditorHasField reports whether the editor shows an input for a field
// path, so its validation message can sit next to it.
func EditorHasField(field string) bool { return editorFieldRE.MatchString(field) }

// TypeField names a type's field: types[i].name.
func TypeField(i int, f string) string { return fmt.Sprintf("types[%d].%s", i, f) }

// PropField names a property's field: types[i].properties[j].name.
func PropField(i, j int, f string) string { return fmt.Sprintf("types[%d].properties[%d].%s", i, j, f) }

// RelField names a relation's field: types[i].relations[j].name.
func RelField(i, j int, f string) string { return fmt.Sprintf("types[%d].relations[%d].%s", i, j, f) }

func errID(field string) string {
	return "err-" + strings.NewReplacer("[", "-", "]", "", ".", "-").Replace(field)
}

func opValue(op string, idx ...int) string {
	parts := []string{op}
	for _, i := range idx {
		parts = append(parts, fmt.Sprint(i))
	}
	return strings.Join(parts, ":")
}

func changeClass(op string) string {
	switch op {
	case "added":
		return "diff-add"
	case "removed":
		return "diff-del"
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func indexLabel(m string) string {
	if m == "" {
		return "(none)"
	}
	return m
}

// OpValue is the value of an editor button: the op and its indexes.
func OpValue(op string, idx ...int) string { return opValue(op, idx...) }
