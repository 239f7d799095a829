package kag

import (
	"strings"

	"github.com/kgstudio/kgstudio/extract/schema"
)

// TypesFromSchema turns a schema into the type specs the extractor takes.
// Standard types are offered as concepts; basic and index types are left
// out. A type declared `Child -> Parent:` gets the parent's properties and
// relations (its own win on a name clash), up the chain.
func TypesFromSchema(sc *schema.Schema) []TypeSpec {
	byName := make(map[string]*schema.EntityType, len(sc.Types))
	for i := range sc.Types {
		byName[sc.Types[i].Name] = &sc.Types[i]
	}
	out := make([]TypeSpec, 0, len(sc.Types))
	for _, t := range sc.Types {
		if t.Kind == schema.KindBasic || t.Kind == schema.KindIndex {
			continue // value and index types: nothing to extract
		}
		kind := t.Kind
		if kind == schema.KindStandard {
			kind = schema.KindConcept
		}
		ts := TypeSpec{Name: t.Name, Alias: t.Alias, Parent: strings.TrimPrefix(t.Parent, sc.Namespace+"."), Kind: kind, Description: t.Description}
		seenP, seenR := map[string]bool{}, map[string]bool{}
		visited := map[string]bool{}
		for cur := &t; cur != nil && !visited[cur.Name]; cur = byName[strings.TrimPrefix(cur.Parent, sc.Namespace+".")] {
			visited[cur.Name] = true
			for _, p := range cur.Properties {
				if !seenP[p.Name] {
					seenP[p.Name] = true
					ts.Properties = append(ts.Properties, PropSpec{Name: p.Name, Type: p.Type, Constraint: p.Constraint, Description: p.Description})
				}
			}
			for _, rel := range cur.Relations {
				if !seenR[rel.Name] {
					seenR[rel.Name] = true
					ts.Relations = append(ts.Relations, RelSpec{Name: rel.Name, Alias: rel.Alias, Target: rel.Target})
				}
			}
			if cur.Parent == "" {
				break
			}
		}
		out = append(out, ts)
	}
	return out
}
