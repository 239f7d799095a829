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
	s := newScorer(entries, typeMap)
	for i, e := range entries {
		var g extract.Graph
		if i < len(extracted) {
			g = extracted[i]
		} else {
			s.rep.Missing++
		}
		byName := goldNames(e)
		nodeName := s.scoreNodes(e, g, byName)
		s.scoreEdges(e, g, byName, nodeName)
	}
	return s.report()
}

// scorer holds the counts of Score as it goes through the entries.
type scorer struct {
	rep     Report
	typeMap map[string]string
	// mapped are the extracted types (lower case) that count for
	// precision; empty, every type counts.
	mapped map[string]bool
	// goldLabels are the normalised labels of all gold relations.
	goldLabels map[string]bool

	typedMatched, typedFound, oneToOne, typedOneToOne  int
	pairFound, pairCorrect, tripleFound, tripleCorrect int
}

// newScorer starts a score of entries with the type map.
func newScorer(entries []Entry, typeMap map[string]string) *scorer {
	s := &scorer{rep: Report{Entries: len(entries)}, typeMap: typeMap, mapped: map[string]bool{}, goldLabels: map[string]bool{}}
	s.rep.Entities.ByType = map[string]TypeRecall{}
	for _, v := range typeMap {
		s.mapped[strings.ToLower(v)] = true
	}
	for _, e := range entries {
		for _, r := range e.Relations {
			s.goldLabels[NormalizeLabel(r.Label)] = true
		}
	}
	s.rep.Relations.ByLabel = map[string]LabelCount{}
	return s
}

// count updates the counts of one label.
func (s *scorer) count(label string, f func(*LabelCount)) {
	c := s.rep.Relations.ByLabel[label]
	f(&c)
	s.rep.Relations.ByLabel[label] = c
}

// goldNames maps each match name of an entry's gold entities to the
// indexes of the entities it names.
func goldNames(e Entry) map[string][]int {
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
	return byName
}

// scoreNodes counts the nodes of g against the gold entities of e, and
// the gold entities found. It returns the match name of each node key.
func (s *scorer) scoreNodes(e Entry, g extract.Graph, byName map[string][]int) map[string]string {
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
		s.rep.Entities.Extracted++
		scored := len(s.mapped) == 0 || s.mapped[strings.ToLower(n.Type)]
		if scored {
			s.rep.Entities.Scored++
		}
		matches := byName[name]
		typedHit := false
		for _, j := range matches {
			found[j] = true
			if want := s.typeMap[e.Entities[j].Type]; want != "" && strings.EqualFold(want, n.Type) {
				typedOK[j] = true
				typedHit = true
			}
		}
		if !scored || len(matches) == 0 {
			continue
		}
		s.rep.Entities.Correct++
		cands = append(cands, matches)
		if typedHit {
			s.typedMatched++
			typedCands = append(typedCands, s.typedCandidates(e, matches, n.Type))
		}
	}
	s.oneToOne += maxMatching(cands, len(e.Entities))
	s.typedOneToOne += maxMatching(typedCands, len(e.Entities))
	s.countGold(e, found, typedOK)
	return nodeName
}

// typedCandidates returns the gold entities of matches whose mapped type
// is typ.
func (s *scorer) typedCandidates(e Entry, matches []int, typ string) []int {
	var tc []int
	for _, j := range matches {
		if strings.EqualFold(s.typeMap[e.Entities[j].Type], typ) {
			tc = append(tc, j)
		}
	}
	return tc
}

// countGold counts the gold entities of e, per type, and those found and
// found with their mapped type.
func (s *scorer) countGold(e Entry, found, typedOK []bool) {
	ents := &s.rep.Entities
	for j, ge := range e.Entities {
		tr := ents.ByType[ge.Type]
		tr.Gold++
		ents.Gold++
		if found[j] {
			tr.Found++
			ents.Found++
		}
		if typedOK[j] {
			s.typedFound++
			tr.TypedFound++
		}
		ents.ByType[ge.Type] = tr
	}
}

// entryRelations are the gold relations of one entry and what its
// extracted edges found of them.
type entryRelations struct {
	byName      map[string][]int
	goldPairs   map[[2]int]bool
	goldTriples map[triple]bool
	// The extracted pairs and triples, distinct by endpoint names (and
	// label), and the gold ones they hit.
	pairSeen   map[[2]string]bool
	tripleSeen map[[3]string]bool
	hitPairs   map[[2]int]bool
	hitTriples map[triple]bool
}

// goldRelations reads the gold pairs and triples of e, self-loops left
// out, and counts them.
func (s *scorer) goldRelations(e Entry, byName map[string][]int) *entryRelations {
	er := &entryRelations{byName: byName, goldPairs: map[[2]int]bool{}, goldTriples: map[triple]bool{},
		pairSeen: map[[2]string]bool{}, tripleSeen: map[[3]string]bool{}, hitPairs: map[[2]int]bool{}, hitTriples: map[triple]bool{}}
	for _, gr := range e.Relations {
		if gr.Head == gr.Tail {
			continue // self-loops are left out on both sides
		}
		er.goldPairs[orderPair(gr.Head, gr.Tail)] = true
		tr := triple{gr.Head, NormalizeLabel(gr.Label), gr.Tail}
		if !er.goldTriples[tr] {
			s.count(tr.label, func(c *LabelCount) { c.Gold++ })
		}
		er.goldTriples[tr] = true
	}
	s.rep.Relations.GoldPairs += len(er.goldPairs)
	s.rep.Relations.GoldTriples += len(er.goldTriples)
	return er
}

// scoreEdges counts the edges of g, distinct by endpoint names (and
// label), against the gold relations of e.
func (s *scorer) scoreEdges(e Entry, g extract.Graph, byName map[string][]int, nodeName map[string]string) {
	r := &s.rep.Relations
	er := s.goldRelations(e, byName)
	for _, ed := range g.Edges {
		src, tgt := endpointName(nodeName, ed.Source), endpointName(nodeName, ed.Target)
		if src == tgt {
			continue
		}
		label := NormalizeLabel(ed.Label)
		if s.goldLabels[label] {
			r.LabelsComparable = true
		}
		key := [2]string{src, tgt}
		if tgt < src {
			key = [2]string{tgt, src}
		}
		if !er.pairSeen[key] {
			er.pairSeen[key] = true
			if er.hitPair(src, tgt) {
				s.pairCorrect++
			}
		}
		tk := [3]string{src, label, tgt}
		if !er.tripleSeen[tk] {
			er.tripleSeen[tk] = true
			correct := er.hitTriple(src, label, tgt)
			if correct {
				s.tripleCorrect++
			}
			s.count(label, func(c *LabelCount) {
				c.Extracted++
				if correct {
					c.Correct++
				}
			})
		}
	}
	for tr := range er.hitTriples {
		s.count(tr.label, func(c *LabelCount) { c.Found++ })
	}
	r.ExtractedPairs += len(er.pairSeen)
	r.ExtractedEdges += len(er.tripleSeen)
	s.pairFound += len(er.hitPairs)
	s.tripleFound += len(er.hitTriples)
}

// hitPair marks the gold pairs an edge between the names src and tgt
// joins, and reports whether there is one.
func (er *entryRelations) hitPair(src, tgt string) bool {
	correct := false
	for _, h := range er.byName[src] {
		for _, t := range er.byName[tgt] {
			if p := orderPair(h, t); h != t && er.goldPairs[p] {
				er.hitPairs[p] = true
				correct = true
			}
		}
	}
	return correct
}

// hitTriple marks the gold triples an edge src -label-> tgt matches, and
// reports whether there is one.
func (er *entryRelations) hitTriple(src, label, tgt string) bool {
	correct := false
	for _, h := range er.byName[src] {
		for _, t := range er.byName[tgt] {
			if tr := (triple{h, label, t}); er.goldTriples[tr] {
				er.hitTriples[tr] = true
				correct = true
			}
		}
	}
	return correct
}

// report computes the recalls and scores from the counts.
func (s *scorer) report() Report {
	rep, typeMap := s.rep, s.typeMap
	r := &rep.Relations
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
		typed := prf(s.typedMatched, rep.Entities.Scored, s.typedFound, rep.Entities.Gold)
		rep.Entities.Typed = &typed
		t1 := prf(s.typedOneToOne, rep.Entities.Scored, s.typedOneToOne, rep.Entities.Gold)
		rep.Entities.TypedOneToOne = &t1
	}
	rep.Entities.OneToOne = prf(s.oneToOne, rep.Entities.Scored, s.oneToOne, rep.Entities.Gold)
	r.Unlabelled = prf(s.pairCorrect, r.ExtractedPairs, s.pairFound, r.GoldPairs)
	r.Labelled = prf(s.tripleCorrect, r.ExtractedEdges, s.tripleFound, r.GoldTriples)
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
