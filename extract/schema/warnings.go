package schema

import (
	"fmt"
	"strings"
)

// builtinProperties are the properties KAG gives every type; a schema that
// declares them again is read, but KAG's own tools refuse it.
var builtinProperties = []string{"id", "name", "description"}

// Warnings checks s against rules KAG's own schema tools enforce that
// kgstudio does not need (shipped schemas break some of them): concept and
// standard types take no properties, standard types no relations, an event
// type names its subject in a `subject` property, and id, name and
// description are built in. The schema is stored as it is; each warning
// has the field path of what KAG would refuse.
func Warnings(s *Schema) []Problem {
	if s == nil {
		return nil
	}
	var out []Problem
	warn := func(field, format string, args ...any) {
		out = append(out, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	for i, t := range s.Types {
		f := fmt.Sprintf("types[%d]", i)
		switch t.Kind {
		case KindConcept:
			if len(t.Properties) > 0 {
				warn(f+".properties", "concept type %s: KAG concept types take no properties (desc, hypernymPredicate, autoRelate and relations only)", t.Name)
			}
		case KindStandard:
			if len(t.Properties) > 0 {
				warn(f+".properties", "standard type %s: KAG standard types take no properties", t.Name)
			}
			if len(t.Relations) > 0 {
				warn(f+".relations", "standard type %s: KAG standard types take no relations", t.Name)
			}
		case KindEvent:
			has := false
			for _, p := range t.Properties {
				if p.Name == "subject" {
					has = true
				}
			}
			if !has && t.Parent == "" {
				warn(f+".properties", "event type %s: KAG event types name their subject types in a subject property", t.Name)
			}
		case KindEntity, KindBasic, KindIndex:
			// Any properties and relations KAG takes.
		}
		for j, p := range t.Properties {
			if contains(builtinProperties, strings.ToLower(p.Name)) {
				warn(fmt.Sprintf("%s.properties[%d].name", f, j), "type %s: %s is built into every KAG type and need not be declared", t.Name, p.Name)
			}
		}
	}
	return out
}
