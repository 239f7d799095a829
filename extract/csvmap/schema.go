package csvmap

import "github.com/kgstudio/kgstudio/extract/schema"

// FromSchema converts a schema into CSV mapping options: types with their
// properties and relations; concept types map dashed ids to a taxonomy
// with their hypernym predicate (isA when the schema names none).
func FromSchema(sc *schema.Schema) Options {
	props := func(ps []schema.Property) []Property {
		out := make([]Property, len(ps))
		for i, p := range ps {
			out[i] = Property{Name: p.Name, Alias: p.Alias, Type: p.Type, MultiValue: p.MultiValue()}
		}
		return out
	}
	var o Options
	for _, t := range sc.Types {
		ct := Type{Name: t.Name, Alias: t.Alias, Hypernym: t.HypernymPredicate, Properties: props(t.Properties)}
		if t.Kind == schema.KindConcept && ct.Hypernym == "" {
			ct.Hypernym = "isA"
		}
		for _, rel := range t.Relations {
			ct.Relations = append(ct.Relations, Relation{Name: rel.Name, Alias: rel.Alias, Target: rel.Target, Properties: props(rel.Properties)})
		}
		o.Types = append(o.Types, ct)
	}
	return o
}
