package schema

import (
	"fmt"
	"strings"
)

// Op is what a schema change did to its element.
type Op string

// Change operations.
const (
	OpAdded   Op = "added"
	OpRemoved Op = "removed"
	OpChanged Op = "changed"
)

// Element is what part of a schema a change concerns.
type Element string

// Elements a change can concern.
const (
	ElemSchema   Element = "schema"
	ElemType     Element = "type"
	ElemProperty Element = "property"
	ElemRelation Element = "relation"
)

// FieldChange is one field whose value differs between two versions.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Change is one added, removed or changed element. Type is the owning type
// (empty for schema-level changes); Name is the property or relation name,
// with sub-properties as "parent.sub" (for a relation "rel->Target.sub").
// Fields lists what changed for OpChanged.
type Change struct {
	Op      Op            `json:"op"`
	Element Element       `json:"element"`
	Type    string        `json:"type,omitempty"`
	Name    string        `json:"name,omitempty"`
	Fields  []FieldChange `json:"fields,omitempty"`
}

// String renders the change in one line, e.g.
// `changed property Disease.complication: type "Disease" -> "Symptom"`.
func (c Change) String() string {
	var b strings.Builder
	b.WriteString(string(c.Op) + " " + string(c.Element))
	subject := c.Type
	if c.Name != "" {
		subject += "." + c.Name
	}
	if subject != "" {
		b.WriteString(" " + subject)
	}
	for i, f := range c.Fields {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %q -> %q", f.Field, f.Old, f.New)
	}
	return b.String()
}

// Changes is the difference between two schema versions, in a stable order:
// schema-level changes, removed types, then per type of the newer version
// its own change followed by its property and relation changes.
type Changes struct {
	Items []Change `json:"items"`
}

// Empty reports whether the two versions are equal in content.
func (c Changes) Empty() bool { return len(c.Items) == 0 }

// Count returns how many changes have the given element and operation; an
// empty argument matches anything.
func (c Changes) Count(element Element, op Op) int {
	n := 0
	for _, it := range c.Items {
		if (element == "" || it.Element == element) && (op == "" || it.Op == op) {
			n++
		}
	}
	return n
}

// Diff lists what changed from a to b. Types and properties are matched by
// name; relations by name and, when a name repeats, by its occurrence. A
// rename shows as a removal plus an addition. A nil schema counts as empty.
func Diff(a, b *Schema) Changes {
	if a == nil {
		a = &Schema{}
	}
	if b == nil {
		b = &Schema{}
	}
	var out []Change
	if fs := fieldDiff([][3]string{
		{"namespace", a.Namespace, b.Namespace},
		{"description", a.Description, b.Description},
		{"concept_rules", conceptRulesText(a), conceptRulesText(b)},
	}); len(fs) > 0 {
		out = append(out, Change{Op: OpChanged, Element: ElemSchema, Fields: fs})
	}
	old := map[string]*EntityType{}
	for i := range a.Types {
		if _, dup := old[a.Types[i].Name]; !dup {
			old[a.Types[i].Name] = &a.Types[i]
		}
	}
	cur := map[string]bool{}
	for _, t := range b.Types {
		cur[t.Name] = true
	}
	for _, t := range a.Types {
		if !cur[t.Name] {
			out = append(out, Change{Op: OpRemoved, Element: ElemType, Type: t.Name})
		}
	}
	done := map[string]bool{}
	for _, t := range b.Types {
		if done[t.Name] {
			continue
		}
		done[t.Name] = true
		o, ok := old[t.Name]
		if !ok {
			out = append(out, Change{Op: OpAdded, Element: ElemType, Type: t.Name})
			continue
		}
		if fs := fieldDiff([][3]string{
			{"alias", o.Alias, t.Alias},
			{"kind", string(o.Kind), string(t.Kind)},
			{"description", o.Description, t.Description},
			{"parent", o.Parent, t.Parent},
			{"hypernym_predicate", o.HypernymPredicate, t.HypernymPredicate},
			{"auto_relate", o.AutoRelate, t.AutoRelate},
			{"spreadable", o.Spreadable, t.Spreadable},
			{"regular", o.Regular, t.Regular},
		}); len(fs) > 0 {
			out = append(out, Change{Op: OpChanged, Element: ElemType, Type: t.Name, Fields: fs})
		}
		out = diffProps(out, t.Name, "", o.Properties, t.Properties)
		out = diffRelations(out, t.Name, o.Relations, t.Relations)
	}
	return Changes{Items: out}
}

func diffProps(out []Change, typeName, prefix string, a, b []Property) []Change {
	old := map[string]*Property{}
	for i := range a {
		if _, dup := old[a[i].Name]; !dup {
			old[a[i].Name] = &a[i]
		}
	}
	cur := map[string]bool{}
	for _, p := range b {
		cur[p.Name] = true
	}
	for _, p := range a {
		if !cur[p.Name] {
			out = append(out, Change{Op: OpRemoved, Element: ElemProperty, Type: typeName, Name: prefix + p.Name})
		}
	}
	done := map[string]bool{}
	for _, p := range b {
		if done[p.Name] {
			continue
		}
		done[p.Name] = true
		o, ok := old[p.Name]
		if !ok {
			out = append(out, Change{Op: OpAdded, Element: ElemProperty, Type: typeName, Name: prefix + p.Name})
			continue
		}
		if fs := fieldDiff([][3]string{
			{"alias", o.Alias, p.Alias},
			{"type", o.Type, p.Type},
			{"description", o.Description, p.Description},
			{"constraint", o.Constraint, p.Constraint},
			{"index", o.Index, p.Index},
			{"rule", o.Rule, p.Rule},
		}); len(fs) > 0 {
			out = append(out, Change{Op: OpChanged, Element: ElemProperty, Type: typeName, Name: prefix + p.Name, Fields: fs})
		}
		out = diffProps(out, typeName, prefix+p.Name+".", o.Properties, p.Properties)
	}
	return out
}

// relKeys names relations by name plus occurrence, so repeated names (the
// same relation to several targets) pair up in order.
func relKeys(rs []Relation) []string {
	seen := map[string]int{}
	keys := make([]string, len(rs))
	for i, r := range rs {
		n := seen[r.Name]
		seen[r.Name] = n + 1
		keys[i] = fmt.Sprintf("%s\x00%d", r.Name, n)
	}
	return keys
}

func diffRelations(out []Change, typeName string, a, b []Relation) []Change {
	ak, bk := relKeys(a), relKeys(b)
	old := map[string]*Relation{}
	for i := range a {
		old[ak[i]] = &a[i]
	}
	cur := map[string]bool{}
	for _, k := range bk {
		cur[k] = true
	}
	for i, r := range a {
		if !cur[ak[i]] {
			out = append(out, Change{Op: OpRemoved, Element: ElemRelation, Type: typeName, Name: r.Name})
		}
	}
	for i, r := range b {
		o, ok := old[bk[i]]
		if !ok {
			out = append(out, Change{Op: OpAdded, Element: ElemRelation, Type: typeName, Name: r.Name})
			continue
		}
		if fs := fieldDiff([][3]string{
			{"alias", o.Alias, r.Alias},
			{"target", o.Target, r.Target},
			{"description", o.Description, r.Description},
			{"constraint", o.Constraint, r.Constraint},
			{"rule", o.Rule, r.Rule},
		}); len(fs) > 0 {
			out = append(out, Change{Op: OpChanged, Element: ElemRelation, Type: typeName, Name: r.Name, Fields: fs})
		}
		out = diffProps(out, typeName, r.Name+"->"+r.Target+".", o.Properties, r.Properties)
	}
	return out
}

func fieldDiff(fields [][3]string) []FieldChange {
	var fs []FieldChange
	for _, f := range fields {
		if f[1] != f[2] {
			fs = append(fs, FieldChange{Field: f[0], Old: f[1], New: f[2]})
		}
	}
	return fs
}

// conceptRulesText is a schema's concept rules as one text, to compare.
func conceptRulesText(s *Schema) string {
	var b strings.Builder
	for _, c := range s.ConceptRules {
		b.WriteString(c.Concept + ":\n" + c.Rule + "\n")
	}
	return b.String()
}
