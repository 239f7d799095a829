package eval

import (
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
)

// PRF is precision, recall and F1 (0 when undefined).
type PRF = diff.PRF

// Report is the score of extracted graphs against gold entries.
type Report struct {
	Entities  EntityReport   `json:"entities"`
	Relations RelationReport `json:"relations"`
	// Entries is the number of gold entries scored.
	Entries int `json:"entries"`
	// Missing counts entries for which no extracted graph was given; they
	// score as empty graphs.
	Missing int `json:"missing,omitempty"`
}

// EntityReport scores entities. Precision is the share of scored
// extracted nodes whose name matches a mention name of some gold entity of
// the same entry; recall is the share of gold entities matched by some
// extracted node of their entry.
//
// Precision is lenient: two nodes that match the same gold entity ("Ada
// Lovelace" and "Lovelace" as separate nodes) are both correct. OneToOne
// is strict: each gold entity credits at most one node (a maximum
// matching between scored nodes and gold entities), so a split entity
// counts one node correct and the rest wrong.
type EntityReport struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// ByType gives recall per gold type, keyed by the gold file's types;
	// with a type map also the typed recall.
	ByType map[string]TypeRecall `json:"by_type"`
	// Typed is the same score where a match also needs the node's type to
	// equal the mapped gold type; present only when a type map is given.
	Typed *PRF `json:"typed,omitempty"`
	// OneToOne scores with each gold entity crediting at most one scored
	// node (and each node at most one gold entity): precision is the
	// matching's size over the scored nodes, recall its size over the gold
	// entities.
	OneToOne PRF `json:"one_to_one"`
	// TypedOneToOne is OneToOne where a match also needs the mapped type;
	// present only when a type map is given.
	TypedOneToOne *PRF `json:"typed_one_to_one,omitempty"`
	// Gold is the number of gold entities, Found how many were matched.
	Gold  int `json:"gold"`
	Found int `json:"found"`
	// Extracted counts all extracted nodes, Scored those counted for
	// precision, Correct the scored nodes that match a gold entity.
	Extracted int `json:"extracted"`
	Scored    int `json:"scored"`
	Correct   int `json:"correct"`
}

// TypeRecall is the recall of one gold type. Found and Recall ignore the
// extracted node's type; TypedFound and TypedRecall (only with a type map)
// count a gold entity found only when a matching node has its mapped type.
type TypeRecall struct {
	Gold        int      `json:"gold"`
	Found       int      `json:"found"`
	Recall      float64  `json:"recall"`
	TypedFound  int      `json:"typed_found,omitempty"`
	TypedRecall *float64 `json:"typed_recall,omitempty"`
}

// RelationReport scores relations.
type RelationReport struct {
	// Unlabelled compares unordered entity pairs: a gold pair is found when
	// any extracted edge joins a node matching one entity to a node
	// matching the other, in either direction.
	Unlabelled PRF `json:"unlabelled"`
	// Labelled compares directed (head, label, tail) triples with labels
	// normalised (camelCase split, underscores as spaces, case folded).
	Labelled PRF `json:"labelled"`
	// LabelsComparable reports whether any extracted label is also a gold
	// label; when false the extractor uses another vocabulary (such as
	// verb phrases) and Labelled is 0 by construction.
	LabelsComparable bool `json:"labels_comparable"`
	// Counts behind the scores: distinct gold pairs and triples, and
	// distinct extracted pairs and triples (self-loops left out).
	GoldPairs      int `json:"gold_pairs"`
	GoldTriples    int `json:"gold_triples"`
	ExtractedPairs int `json:"extracted_pairs"`
	ExtractedEdges int `json:"extracted_triples"`
	// ByLabel counts, per normalised label of either side, the gold
	// triples and how many were found, and the extracted triples and how
	// many were right: where a graph's labels miss and where they are
	// wrong.
	ByLabel map[string]LabelCount `json:"by_label,omitempty"`
}

// LabelCount is one label's share of the labelled score.
type LabelCount struct {
	Gold      int `json:"gold"`
	Found     int `json:"found"`
	Extracted int `json:"extracted"`
	Correct   int `json:"correct"`
}

// Score scores extracted[i] against entries[i]. Matching is by
// matchName of the node's name against every mention name of a gold
// entity of the same entry. Entries beyond len(extracted) score as
// empty graphs (counted in Report.Missing); extra graphs are ignored.
//
// typeMap maps gold types to extracted type names (DocREDTypes for
// example). When it is empty every extracted node counts for precision.
// When it is set, only nodes whose type is one of its values (case
// folded) count, since the gold file annotates nothing else, and
// EntityReport.Typed is filled.
func Score(entries []Entry, extracted []extract.Graph, typeMap map[string]string) Report {
	rep := Report{Entries: len(entries)}
	rep.Entities.ByType = map[string]TypeRecall{}
	mapped := map[string]bool{}
	for _, v := range typeMap {
		mapped[strings.ToLower(v)] = true
	}
	goldLabels := map[string]bool{}
	for _, e := range entries {
		for _, r := range e.Relations {
			goldLabels[NormalizeLabel(r.Label)] = true
		}
	}

	var typedMatched, typedFound, oneToOne, typedOneToOne int
	var pairFound, pairCorrect, tripleFound, tripleCorrect int
	r := &rep.Relations
	r.ByLabel = map[string]LabelCount{}
	count := func(label string, f func(*LabelCount)) {
		c := r.ByLabel[label]
		f(&c)
		r.ByLabel[label] = c
	}
	for i, e := range entries {
		var g extract.Graph
		if i < len(extracted) {
			g = extracted[i]
		} else {
			rep.Missing++
		}

		// Gold names -> entity indexes.
		byName := map[string][]int{}
		for j, ge := range e.Entities {
			for _, n := range ge.Names {
				k := matchName(n)
				if k == "" {
					continue
				}
				if l := byName[k]; len(l) == 0 || l[len(l)-1] != j {
					byName[k] = append(l, j)
				}
			}
		}

		// Nodes: which gold entities each matches.
		found := make([]bool, len(e.Entities))
		typedOK := make([]bool, len(e.Entities))
		nodeName := make(map[string]string, len(g.Nodes))
		// Candidate gold entities of each scored node, for the
		// one-to-one matchings (untyped and typed).
		var cands, typedCands [][]int
		for _, n := range g.Nodes {
			name := nodeNameOf(n)
			if _, ok := nodeName[n.Key]; !ok {
				nodeName[n.Key] = name
			}
			rep.Entities.Extracted++
			scored := len(mapped) == 0 || mapped[strings.ToLower(n.Type)]
			if scored {
				rep.Entities.Scored++
			}
			matches := byName[name]
			typedHit := false
			for _, j := range matches {
				found[j] = true
				if want := typeMap[e.Entities[j].Type]; want != "" && strings.EqualFold(want, n.Type) {
					typedOK[j] = true
					typedHit = true
				}
			}
			if scored && len(matches) > 0 {
				rep.Entities.Correct++
				if typedHit {
					typedMatched++
				}
				cands = append(cands, matches)
				if typedHit {
					var tc []int
					for _, j := range matches {
						if strings.EqualFold(typeMap[e.Entities[j].Type], n.Type) {
							tc = append(tc, j)
						}
					}
					typedCands = append(typedCands, tc)
				}
			}
		}
		oneToOne += maxMatching(cands, len(e.Entities))
		typedOneToOne += maxMatching(typedCands, len(e.Entities))
		for j, ge := range e.Entities {
			tr := rep.Entities.ByType[ge.Type]
			tr.Gold++
			rep.Entities.Gold++
			if found[j] {
				tr.Found++
				rep.Entities.Found++
			}
			if typedOK[j] {
				typedFound++
				tr.TypedFound++
			}
			rep.Entities.ByType[ge.Type] = tr
		}

		// Relations: gold pairs and triples of this entry.
		goldPairs := map[[2]int]bool{}
		goldTriples := map[triple]bool{}
		for _, gr := range e.Relations {
			if gr.Head == gr.Tail {
				continue // self-loops are left out on both sides
			}
			goldPairs[orderPair(gr.Head, gr.Tail)] = true
			tr := triple{gr.Head, NormalizeLabel(gr.Label), gr.Tail}
			if !goldTriples[tr] {
				count(tr.label, func(c *LabelCount) { c.Gold++ })
			}
			goldTriples[tr] = true
		}
		r.GoldPairs += len(goldPairs)
		r.GoldTriples += len(goldTriples)

		// Extracted edges, distinct by endpoint names (and label).
		pairSeen := map[[2]string]bool{}
		tripleSeen := map[[3]string]bool{}
		hitPairs := map[[2]int]bool{}
		hitTriples := map[triple]bool{}
		for _, ed := range g.Edges {
			src, tgt := endpointName(nodeName, ed.Source), endpointName(nodeName, ed.Target)
			if src == tgt {
				continue
			}
			label := NormalizeLabel(ed.Label)
			if goldLabels[label] {
				r.LabelsComparable = true
			}
			key := [2]string{src, tgt}
			if tgt < src {
				key = [2]string{tgt, src}
			}
			if !pairSeen[key] {
				pairSeen[key] = true
				correct := false
				for _, h := range byName[src] {
					for _, t := range byName[tgt] {
						if p := orderPair(h, t); h != t && goldPairs[p] {
							hitPairs[p] = true
							correct = true
						}
					}
				}
				if correct {
					pairCorrect++
				}
			}
			tk := [3]string{src, label, tgt}
			if !tripleSeen[tk] {
				tripleSeen[tk] = true
				correct := false
				for _, h := range byName[src] {
					for _, t := range byName[tgt] {
						if tr := (triple{h, label, t}); goldTriples[tr] {
							hitTriples[tr] = true
							correct = true
						}
					}
				}
				if correct {
					tripleCorrect++
				}
				count(label, func(c *LabelCount) {
					c.Extracted++
					if correct {
						c.Correct++
					}
				})
			}
		}
		for tr := range hitTriples {
			count(tr.label, func(c *LabelCount) { c.Found++ })
		}
		r.ExtractedPairs += len(pairSeen)
		r.ExtractedEdges += len(tripleSeen)
		pairFound += len(hitPairs)
		tripleFound += len(hitTriples)
	}

	for t, tr := range rep.Entities.ByType {
		if tr.Gold > 0 {
			tr.Recall = float64(tr.Found) / float64(tr.Gold)
		}
		if len(typeMap) > 0 {
			var tRec float64
			if tr.Gold > 0 {
				tRec = float64(tr.TypedFound) / float64(tr.Gold)
			}
			tr.TypedRecall = &tRec
		}
		rep.Entities.ByType[t] = tr
	}
	ent := prf(rep.Entities.Correct, rep.Entities.Scored, rep.Entities.Found, rep.Entities.Gold)
	rep.Entities.Precision, rep.Entities.Recall, rep.Entities.F1 = ent.Precision, ent.Recall, ent.F1
	if len(typeMap) > 0 {
		typed := prf(typedMatched, rep.Entities.Scored, typedFound, rep.Entities.Gold)
		rep.Entities.Typed = &typed
		t1 := prf(typedOneToOne, rep.Entities.Scored, typedOneToOne, rep.Entities.Gold)
		rep.Entities.TypedOneToOne = &t1
	}
	rep.Entities.OneToOne = prf(oneToOne, rep.Entities.Scored, oneToOne, rep.Entities.Gold)
	r.Unlabelled = prf(pairCorrect, r.ExtractedPairs, pairFound, r.GoldPairs)
	r.Labelled = prf(tripleCorrect, r.ExtractedEdges, tripleFound, r.GoldTriples)
	return rep
}

// maxMatching returns the size of a maximum matching between nodes (each
// with its candidate gold entities, indexes below nGold) and gold
// entities, by augmenting paths (Kuhn's algorithm; the graphs are small).
func maxMatching(cands [][]int, nGold int) int {
	if len(cands) == 0 {
		return 0
	}
	owner := make([]int, nGold) // gold entity -> node index + 1
	var seen []bool
	var try func(v int) bool
	try = func(v int) bool {
		for _, j := range cands[v] {
			if seen[j] {
				continue
			}
			seen[j] = true
			if owner[j] == 0 || try(owner[j]-1) {
				owner[j] = v + 1
				return true
			}
		}
		return false
	}
	size := 0
	seen = make([]bool, nGold)
	for v := range cands {
		for j := range seen {
			seen[j] = false
		}
		if try(v) {
			size++
		}
	}
	return size
}

type triple struct {
	head  int
	label string
	tail  int
}

func orderPair(a, b int) [2]int {
	if b < a {
		return [2]int{b, a}
	}
	return [2]int{a, b}
}

// prf computes scores where the precision numerator (correct predictions)
// and the recall numerator (found gold items) are counted separately,
// since several predictions may match one gold item and the reverse.
func prf(correct, predicted, found, gold int) PRF {
	var p PRF
	if predicted > 0 {
		p.Precision = float64(correct) / float64(predicted)
	}
	if gold > 0 {
		p.Recall = float64(found) / float64(gold)
	}
	if p.Precision+p.Recall > 0 {
		p.F1 = 2 * p.Precision * p.Recall / (p.Precision + p.Recall)
	}
	return p
}

// matchName is a name as scoring compares it: extract.NormalizeName
// without a leading article, as answer scoring normalises ("the United
// States" and "United States" name one entity).
func matchName(s string) string {
	k := extract.NormalizeName(s)
	for _, a := range []string{"the ", "a ", "an "} {
		if rest, ok := strings.CutPrefix(k, a); ok && rest != "" {
			return rest
		}
	}
	return k
}

func nodeNameOf(n extract.Node) string {
	if k := matchName(n.Name); k != "" {
		return k
	}
	return matchName(n.Key)
}

func endpointName(names map[string]string, key string) string {
	if n, ok := names[key]; ok {
		return n
	}
	return matchName(key)
}

// NormalizeLabel folds a relation label for comparison: camelCase words are
// split ("currentTenants" -> "current tenants"), then extract.NormalizeName
// applies (underscores as spaces, case folded, spaces collapsed), so
// "currentTenants", "CURRENT_TENANTS" and "current tenants" are equal.
func NormalizeLabel(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 4)
	var prev rune
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return extract.NormalizeName(b.String())
}
