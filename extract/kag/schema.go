package kag

import "github.com/kgstudio/kgstudio/extract/schema"

// TypesFromSchema turns a schema into the type specs the extractor takes.
// Standard types are offered as concepts; basic and index types are left out.
func TypesFromSchema(sc *schema.Schema) []TypeSpec {
	out := make([]TypeSpec, 0, len(sc.Types))
	for _, t := range sc.Types {
		if t.Kind == schema.KindBasic || t.Kind == schema.KindIndex {
			continue // value and index types: nothing to extract
		}
		kind := t.Kind
		if kind == schema.KindStandard {
			kind = schema.KindConcept
		}
		ts := TypeSpec{Name: t.Name, Alias: t.Alias, Kind: kind, Description: t.Description}
		for _, p := range t.Properties {
			ts.Properties = append(ts.Properties, PropSpec{Name: p.Name, Type: p.Type})
		}
		for _, rel := range t.Relations {
			ts.Relations = append(ts.Relations, RelSpec{Name: rel.Name, Alias: rel.Alias, Target: rel.Target})
		}
		out = append(out, ts)
	}
	return out
}
