package kag

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

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
// Relations also come from the chunks: the few words between two
// typed mentions in one sentence ("Ada [joined] Acme") when they read as a
// verb phrase. The draft is for a person to edit before saving.
func SuggestSchema(g extract.Graph, chunks map[extract.ChunkRef]extract.Chunk, name string, o SuggestOptions) *schema.Schema {
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
	sc := &schema.Schema{Name: name, Namespace: name, Description: "Drafted from sample documents; review before use."}
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
	for _, p := range betweenPhrases(g, chunks, typeOf) {
		u := labels[p.phrase]
		if u == nil {
			u = &use{from: map[string]int{}, to: map[string]int{}}
			labels[p.phrase] = u
		}
		u.count++
		u.from[p.from]++
		u.to[p.to]++
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

// phrase is the text between two typed mentions.
type phrase struct{ phrase, from, to string }

// notVerbs open or make up phrases that name no relation.
var notVerbs = map[string]bool{"and": true, "or": true, "the": true, "a": true, "an": true, "of": true, "in": true, "on": true,
	"at": true, "by": true, "for": true, "with": true, "to": true, "from": true, "as": true, "but": true, "which": true, "who": true,
	"that": true, "this": true, "its": true, "his": true, "her": true, "their": true, "s": true, "after": true, "before": true,
	"during": true, "since": true, "until": true, "near": true, "into": true, "under": true, "over": true, "about": true,
	"between": true, "through": true, "within": true, "without": true, "including": true, "while": true, "when": true}

// articles end a phrase that leads into the next mention ("not far from
// the"), or, right after a copula, make it an attribute ("is a major").
var articles = map[string]bool{"the": true, "a": true, "an": true}

// betweenPhrases lists, for each chunk, the words between consecutive
// mentions of typed nodes in one sentence: two to four lower-case words
// whose first is not an article, a preposition or a conjunction ("was
// born in", "joined", "is a member of").
func betweenPhrases(g extract.Graph, chunks map[extract.ChunkRef]extract.Chunk, typeOf map[string]string) []phrase {
	type mention struct {
		start, end int
		typ        string
	}
	byChunk := map[extract.ChunkRef][]mention{}
	for _, n := range g.Nodes {
		t := typeOf[n.Key]
		if t == "" || valueTypes[t] {
			continue
		}
		for _, m := range n.Mentions {
			ref := extract.ChunkRef{DocumentID: m.DocumentID, Index: m.ChunkIndex}
			byChunk[ref] = append(byChunk[ref], mention{m.Start, m.End, t})
		}
	}
	var out []phrase
	for ref, ms := range byChunk {
		ch, ok := chunks[ref]
		if !ok {
			continue
		}
		slices.SortFunc(ms, func(a, b mention) int { return cmp.Compare(a.start, b.start) })
		for i := 1; i < len(ms); i++ {
			// Mentions hold offsets into the document.
			a, b := ms[i-1], ms[i]
			from, to := a.end-ch.Start, b.start-ch.Start
			if from < 0 || from > to || to > len(ch.Text) {
				continue
			}
			gap := ch.Text[from:to]
			if strings.ContainsAny(gap, ".;:!?()[]\"\n") {
				continue // another sentence, or an aside
			}
			words := strings.Fields(gap)
			for len(words) > 0 && articles[words[len(words)-1]] {
				words = words[:len(words)-1]
			}
			if len(words) < 1 || len(words) > 4 || notVerbs[strings.ToLower(words[0])] || strings.Contains(gap, ",") || slices.Contains(words, "and") {
				continue
			}
			rest := words
			for len(rest) > 0 && auxiliaries[rest[0]] {
				rest = rest[1:]
			}
			if len(rest) == 0 || articles[rest[0]] {
				continue // "is", "is a major": an attribute, not a relation
			}
			if len(words) == 1 && !strings.HasSuffix(words[0], "s") && !strings.HasSuffix(words[0], "ed") {
				continue // one word that does not read as a verb ("physician")
			}
			ok := true
			for _, w := range words {
				if w != strings.ToLower(w) || !isWord(w) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, phrase{strings.Join(words, " "), a.typ, b.typ})
			}
		}
	}
	slices.SortFunc(out, func(x, y phrase) int {
		return cmp.Or(strings.Compare(x.phrase, y.phrase), strings.Compare(x.from, y.from), strings.Compare(x.to, y.to))
	})
	return out
}

func isWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '-' {
			return false
		}
	}
	return true
}
