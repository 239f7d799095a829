package schema

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// Problem is one validation finding. Field is a path into the schema such as
// "types[3].relations[0].target"; Message says what is wrong in words a user
// can act on and names the type and property concerned.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// String renders the problem as "field: message".
func (p Problem) String() string { return p.Field + ": " + p.Message }

// BasicTypes are the value types a property may have besides declared types
// and standard types (STD.*). Thing is the root type every type extends.
var BasicTypes = []string{"Text", "Integer", "Float", "Boolean", "Date", "Thing"}

// SemanticPrefixes are the predicate categories a property or relation name
// may carry before '#', as in "IND#belongTo" or "CAU#leadTo".
var SemanticPrefixes = []string{"SYNANT", "CAU", "SEQ", "IND", "INC", "USE"}

// IndexModes are the accepted values of a property's `index:`; None (as
// shipped KAG schemas write it) asks for no index.
var IndexModes = []string{"Text", "Vector", "TextAndVector", "None"}

// HypernymPredicates are the accepted values of a concept's `hypernymPredicate:`.
var HypernymPredicates = []string{"isA", "locateAt", "mannerOf"}

var (
	namespaceRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	typeNameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	predNameRE  = regexp.MustCompile(`^(?:([A-Za-z]+)#)?[A-Za-z_][A-Za-z0-9_]*$`)
	stdNameRE   = regexp.MustCompile(`^STD\.[A-Za-z_][A-Za-z0-9_]*$`)
	quotedRE    = regexp.MustCompile(`^(?i:enum|regular)\s*=\s*"[^"]*"$`)
)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// validator carries the schema being checked and its type index.
type validator struct {
	s        *Schema
	byName   map[string]int
	problems []Problem
}

func (v *validator) add(field, format string, args ...any) {
	v.problems = append(v.problems, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
}

// declared resolves a type reference to a declared type, accepting the
// namespace-qualified form.
func (v *validator) declared(name string) (*EntityType, bool) {
	if v.s.Namespace != "" {
		name = strings.TrimPrefix(name, v.s.Namespace+".")
	}
	i, ok := v.byName[name]
	if !ok {
		return nil, false
	}
	return &v.s.Types[i], true
}

// Validate checks s and returns its problems in schema order, or nil. It
// reports invalid identifiers, duplicate type, property and relation names,
// references to types that are neither declared, basic (see BasicTypes) nor
// standard (STD.*), relations to missing types, broken inheritance, values
// outside the DSL's vocabulary (kind, index, constraint, hypernym
// predicate) and text the KAG DSL cannot hold (line breaks in one-line
// fields, "]]" in a rule).
func Validate(s *Schema) []Problem {
	if s == nil {
		return []Problem{{Field: "schema", Message: "schema is missing"}}
	}
	v := &validator{s: s, byName: map[string]int{}}
	if s.Namespace != "" && !namespaceRE.MatchString(s.Namespace) {
		v.add("namespace", "namespace %q is not a valid identifier (letters, digits and _, starting with a letter)", s.Namespace)
	}
	if len(s.Types) == 0 {
		v.add("types", "a schema needs at least one type")
	}
	for i, t := range s.Types {
		f := fmt.Sprintf("types[%d]", i)
		switch {
		case t.Name == "":
			v.add(f+".name", "type name is required")
		case extract.CheckName("type name", t.Name) != nil:
			v.add(f+".name", "%s", extract.MessageOf(extract.CheckName("type name", t.Name)))
		case !typeNameRE.MatchString(t.Name):
			v.add(f+".name", "type name %q is not a valid identifier (letters, digits and _, starting with a letter)", t.Name)
		}
		if j, dup := v.byName[t.Name]; dup && t.Name != "" {
			v.add(f+".name", "duplicate type %q (type %d of the schema has that name already)", t.Name, j+1)
		} else if t.Name != "" {
			v.byName[t.Name] = i
		}
		// Aliases are display names: KAG lets several types share one.
	}
	for i := range s.Types {
		v.checkType(i)
	}
	for i, c := range s.ConceptRules {
		f := fmt.Sprintf("concept_rules[%d]", i)
		v.oneLine(f+".concept", "concept rule", "concept", c.Concept)
		if strings.TrimSpace(c.Rule) == "" {
			v.add(f+".rule", "concept rule %d: the rule is empty", i+1)
		}
		v.checkRule(f+".rule", "concept rule "+c.Concept, c.Rule)
	}
	return v.problems
}

func (v *validator) checkType(i int) {
	t := v.s.Types[i]
	f := fmt.Sprintf("types[%d]", i)
	v.oneLine(f+".alias", t.Name, "alias", t.Alias)
	v.oneLine(f+".description", t.Name, "description", t.Description)
	switch t.Kind {
	case KindEntity, KindConcept, KindEvent, KindBasic, KindIndex:
	case KindStandard:
		if t.Name != "" && !stdNameRE.MatchString(t.Name) {
			v.add(f+".name", "standard type %q must be named STD.<Name>", t.Name)
		}
	default:
		v.add(f+".kind", "type %s: kind %q must be one of %s", t.Name, t.Kind, strings.Join(KindNames(), ", "))
	}
	v.checkParent(i)
	if t.HypernymPredicate != "" {
		if t.Kind != KindConcept {
			v.add(f+".hypernym_predicate", "type %s: hypernymPredicate is only for concept types", t.Name)
		} else if !contains(HypernymPredicates, t.HypernymPredicate) {
			v.add(f+".hypernym_predicate", "type %s: hypernymPredicate %q must be one of %s", t.Name, t.HypernymPredicate, strings.Join(HypernymPredicates, ", "))
		}
	}
	if t.AutoRelate != "" {
		if t.Kind != KindConcept {
			v.add(f+".auto_relate", "type %s: autoRelate is only for concept types", t.Name)
		}
		for _, name := range splitList(t.AutoRelate) {
			if ref, ok := v.declared(name); !ok {
				v.add(f+".auto_relate", "type %s: autoRelate names unknown type %q", t.Name, name)
			} else if ref.Kind != KindConcept {
				v.add(f+".auto_relate", "type %s: autoRelate names %s, which is not a concept type", t.Name, name)
			}
		}
	}
	if t.Spreadable != "" {
		if t.Kind != KindStandard {
			v.add(f+".spreadable", "type %s: spreadable is only for standard types", t.Name)
		} else if t.Spreadable != "True" && t.Spreadable != "False" {
			v.add(f+".spreadable", "type %s: spreadable must be True or False, not %q", t.Name, t.Spreadable)
		}
	}
	if t.Regular != "" {
		if t.Kind != KindStandard {
			v.add(f+".regular", "type %s: regular is only for standard types", t.Name)
		}
		v.oneLine(f+".regular", t.Name, "regular", t.Regular)
	}
	v.checkProps(f+".properties", t.Name, t.Properties)

	seen := map[string]int{}
	for j, r := range t.Relations {
		rf := fmt.Sprintf("%s.relations[%d]", f, j)
		owner := t.Name + "." + r.Name
		v.checkPredName(rf+".name", t.Name, "relation", r.Name)
		key := bareName(r.Name) + "->" + r.Target
		if k, dup := seen[key]; dup && r.Name != "" {
			v.add(rf+".name", "type %s: duplicate relation %s to %s (also its relation %d)", t.Name, r.Name, r.Target, k+1)
		} else {
			seen[key] = j
		}
		v.oneLine(rf+".alias", owner, "alias", r.Alias)
		v.oneLine(rf+".description", owner, "description", r.Description)
		switch target := strings.TrimSpace(r.Target); {
		case target == "":
			v.add(rf+".target", "relation %s: target type is required", owner)
		case strings.Contains(target, ","):
			v.add(rf+".target", "relation %s: a relation has exactly one target type, not %q", owner, target)
		default:
			if _, ok := v.declared(target); !ok {
				if contains(BasicTypes, target) || strings.HasPrefix(target, "STD.") {
					v.add(rf+".target", "relation %s: target %s is a value type; a relation must point to a declared type", owner, target)
				} else {
					v.add(rf+".target", "relation %s points to missing type %q", owner, target)
				}
			}
		}
		v.checkConstraint(rf+".constraint", owner, r.Constraint)
		v.checkRule(rf+".rule", owner, r.Rule)
		v.checkProps(rf+".properties", owner, r.Properties)
	}
}

func (v *validator) checkParent(i int) {
	t := v.s.Types[i]
	if t.Parent == "" {
		return
	}
	f := fmt.Sprintf("types[%d].parent", i)
	parent, ok := v.declared(t.Parent)
	if !ok {
		v.add(f, "type %s: parent type %q is not declared", t.Name, t.Parent)
		return
	}
	if parent.Name == t.Name {
		v.add(f, "type %s cannot inherit from itself", t.Name)
		return
	}
	if parent.Kind != KindEntity && parent.Kind != KindEvent {
		v.add(f, "type %s: parent %s is a %s type; only entity and event types can be inherited", t.Name, parent.Name, parent.Kind)
	}
	// Walk up the chain to find cycles.
	cur := parent
	for step := 0; step < len(v.s.Types) && cur.Parent != ""; step++ {
		next, ok := v.declared(cur.Parent)
		if !ok {
			break
		}
		if next.Name == t.Name {
			v.add(f, "type %s: inheritance cycle through %s", t.Name, cur.Name)
			return
		}
		cur = next
	}
	if cur.Parent == "" && t.Kind != cur.Kind {
		v.add(f, "type %s: kind %q differs from its root type %s (%q); the KAG form takes the parent's kind", t.Name, t.Kind, cur.Name, cur.Kind)
	}
}

func (v *validator) checkProps(f, owner string, props []Property) {
	seen := map[string]int{}
	for j, p := range props {
		pf := fmt.Sprintf("%s[%d]", f, j)
		path := owner + "." + p.Name
		v.checkPredName(pf+".name", owner, "property", p.Name)
		if k, dup := seen[bareName(p.Name)]; dup && p.Name != "" {
			v.add(pf+".name", "%s: duplicate property %q (also its property %d)", owner, p.Name, k+1)
		} else {
			seen[bareName(p.Name)] = j
		}
		v.oneLine(pf+".alias", path, "alias", p.Alias)
		v.oneLine(pf+".description", path, "description", p.Description)
		types := p.Types()
		if len(types) == 0 {
			v.add(pf+".type", "property %s: type is required", path)
		}
		for _, ref := range types {
			if _, ok := v.declared(ref); ok || contains(BasicTypes, ref) || stdNameRE.MatchString(ref) {
				continue
			}
			v.add(pf+".type", "property %s refers to unknown type %q (not declared, not basic: %s, not STD.*)", path, ref, strings.Join(BasicTypes, ", "))
		}
		v.checkConstraint(pf+".constraint", path, p.Constraint)
		if p.Index != "" && !contains(IndexModes, p.Index) {
			v.add(pf+".index", "property %s: index %q must be one of %s", path, p.Index, strings.Join(IndexModes, ", "))
		}
		v.checkRule(pf+".rule", path, p.Rule)
		v.checkProps(pf+".properties", path, p.Properties)
	}
}

func (v *validator) checkPredName(f, owner, what, name string) {
	if name == "" {
		v.add(f, "%s: %s name is required", owner, what)
		return
	}
	m := predNameRE.FindStringSubmatch(name)
	if m == nil {
		v.add(f, "%s: %s name %q is not a valid identifier (letters, digits and _, optionally after a PREFIX#)", owner, what, name)
		return
	}
	if m[1] != "" && !contains(SemanticPrefixes, m[1]) {
		v.add(f, "%s: %s %q has unknown semantic prefix %s# (expected one of %s)", owner, what, name, m[1], strings.Join(SemanticPrefixes, ", "))
	}
}

func (v *validator) checkConstraint(f, owner, c string) {
	v.oneLine(f, owner, "constraint", c)
	for _, item := range splitConstraint(c) {
		switch {
		case strings.EqualFold(item, "NotNull"), strings.EqualFold(item, "MultiValue"), quotedRE.MatchString(item):
		default:
			v.add(f, "%s: unknown constraint %q (expected NotNull, MultiValue, Enum=\"...\" or Regular=\"...\")", owner, item)
		}
	}
}

func (v *validator) checkRule(f, owner, rule string) {
	if strings.Contains(rule, "]]") {
		v.add(f, "%s: a rule cannot contain ]] (it closes the rule block)", owner)
	}
}

func (v *validator) oneLine(f, owner, what, s string) {
	if strings.ContainsAny(s, "\r\n") {
		v.add(f, "%s: %s must be a single line", owner, what)
	}
}

// bareName drops a semantic prefix: "IND#belongTo" -> "belongTo".
func bareName(name string) string {
	if i := strings.IndexByte(name, '#'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// InvalidError is a schema refused for its problems: it is an
// *extract.Error of kind invalid listing the first of them (errors.As
// finds it), and it keeps them all.
type InvalidError struct {
	Problems []Problem
	err      error
}

func (e *InvalidError) Error() string { return e.err.Error() }
func (e *InvalidError) Unwrap() error { return e.err }

// ProblemsOf returns the problems of a schema err refuses (nil for any
// other error).
func ProblemsOf(err error) []Problem {
	var ie *InvalidError
	if errors.As(err, &ie) {
		return ie.Problems
	}
	return nil
}

// ProblemsError turns problems into an *InvalidError, or returns nil when
// there are none.
func ProblemsError(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	const show = 5
	parts := make([]string, 0, show)
	for i, p := range problems {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(problems)-show))
			break
		}
		parts = append(parts, p.String())
	}
	return &InvalidError{Problems: problems, err: extract.Errorf(extract.KindInvalid, "invalid schema: %s", strings.Join(parts, "; "))}
}

// KindNames are the kinds' names, in Kinds' order: a picker's choices,
// a message's list.
func KindNames() []string { return extract.Names(Kinds) }
