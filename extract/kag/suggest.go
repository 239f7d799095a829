package kag

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// SuggestOptions tune SuggestSchema.
type SuggestOptions struct {
	// MinNodes is how many nodes a type needs to be proposed (default 2).
	MinNodes int
	// MaxRelations bounds the relations proposed (default 20).
	MaxRelations int
}

// valueTypes are the offline extractor's types of values (dates,
// numbers, amounts): they become properties, not entity types.
var valueTypes = map[string]bool{"Data": true, "Date": true, "Number": true, "Time": true, "Money": true, "Quantity": true, "Percent": true}

// auxiliaries open a verb phrase without naming the relation ("was born
// in" is bornIn).
var auxiliaries = map[string]bool{"is": true, "was": true, "are": true, "were": true, "be": true, "been": true, "has": true, "had": true, "have": true}

// SuggestSchema drafts a schema from a graph the offline extractor read
// from sample documents: an entity type for every node type with at least
// MinNodes nodes (value types such as dates become properties), and, for
// every relation label other than a plain co-occurrence, a relation of
// the type its sources mostly have, to the type its targets mostly have,
// named in KAG's camel case from the verb phrase ("was born in" is
// bornIn, its alias the phrase); a relation to a value is a property.
// The draft is for a person to edit before saving.
func SuggestSchema(g extract.Graph, name string, o SuggestOptions) *schema.Schema {
	minNodes := cmp.Or(o.MinNodes, 2)
	maxRel := cmp.Or(o.MaxRelations, 20)
	typeOf := make(map[string]string, len(g.Nodes))
	counts := map[string]int{}
	for _, n := range g.Nodes {
		t := strings.TrimSpace(n.Type)
		if t == "" {
			continue
		}
		typeOf[n.Key] = t
		counts[t]++
	}
	sc := &schema.Schema{Name: name, Description: "Drafted from sample documents; review before use."}
	declared := map[string]int{}
	for _, t := range slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b))
	}) {
		if counts[t] < minNodes || valueTypes[t] {
			continue
		}
		typeName := predicateName(t)
		if typeName == "" {
			continue
		}
		typeName = strings.ToUpper(typeName[:1]) + typeName[1:]
		kind := schema.KindEntity
		if t == "Concept" {
			kind = schema.KindConcept
		}
		declared[t] = len(sc.Types)
		sc.Types = append(sc.Types, schema.EntityType{Name: typeName, Kind: kind,
			Description: fmt.Sprintf("Seen %d times in the sample.", counts[t])})
	}
	// Relations by label: where they go from and to.
	type use struct {
		count    int
		from, to map[string]int
	}
	labels := map[string]*use{}
	for _, e := range g.Edges {
		label := strings.TrimSpace(e.Label)
		if label == "" || label == "related_to" || label == "related to" {
			continue
		}
		u := labels[label]
		if u == nil {
			u = &use{from: map[string]int{}, to: map[string]int{}}
			labels[label] = u
		}
		u.count++
		u.from[typeOf[e.Source]]++
		u.to[typeOf[e.Target]]++
	}
	most := func(m map[string]int) string {
		best := ""
		for t, n := range m {
			if n > m[best] || (n == m[best] && t < best) {
				best = t
			}
		}
		return best
	}
	order := slices.SortedFunc(maps.Keys(labels), func(a, b string) int {
		return cmp.Or(cmp.Compare(labels[b].count, labels[a].count), strings.Compare(a, b))
	})
	added := 0
	seen := map[string]bool{}
	for _, label := range order {
		if added == maxRel {
			break
		}
		u := labels[label]
		from, to := most(u.from), most(u.to)
		fi, ok := declared[from]
		if !ok {
			continue
		}
		words := strings.Fields(label)
		for len(words) > 0 && auxiliaries[strings.ToLower(words[0])] {
			words = words[1:]
		}
		if len(words) == 0 {
			continue // a bare copula ("is") names no relation
		}
		rel := predicateName(strings.Join(words, " "))
		if rel == "" || seen[from+"\x00"+rel] {
			continue
		}
		seen[from+"\x00"+rel] = true
		owner := &sc.Types[fi]
		if ti, ok := declared[to]; ok {
			owner.Relations = append(owner.Relations, schema.Relation{Name: rel, Alias: label, Target: sc.Types[ti].Name})
		} else {
			owner.Properties = append(owner.Properties, schema.Property{Name: rel, Alias: label, Type: "Text"})
		}
		added++
	}
	return sc
}
