package query

import (
	"index/suffixarray"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// lexIndex holds what keyword matching reads of every node and edge,
// normalised and split into tokens once per corpus instead of once per
// question: the cost of a question is then the comparisons alone.
type lexIndex struct {
	// idx maps a node key to its first node; first[i] says node i is it.
	idx   map[string]int
	first []bool
	nodes []lexNode
	edges []lexEdge
	// byName maps a normalised node name (and key) to the nodes so named,
	// for finding the names a question spells out.
	byName map[string][]int
	// maxName is the most tokens a node name has (bounded).
	maxName int
	// descFirst is the first edge of each distinct description.
	descFirst []int
	// labels are the distinct normalised labels (with keywords) of the
	// edges, by lexEdge.labelID.
	labels []lexLabel
	// names finds the nodes a keyword can score on by name; nodeDesc and
	// edgeDesc the node descriptions and the distinct edge descriptions
	// it is found in. A question then reads what it matches, not every
	// node and edge.
	names              *nameIndex
	nodeDesc, edgeDesc *textIndex
}

type lexLabel struct {
	label string
	tok   []string
}

type lexNode struct {
	name, key, desc string
	nameTok         []string
}

type lexEdge struct {
	// labelID numbers the distinct labels with keywords (lexIndex.labels),
	// so each is scored once per question.
	labelID int
	desc    string
	si, ti  int
	// key is the edge's EdgeKey, vkey its EdgeVectorKey.
	key, vkey string
	// descID numbers the distinct descriptions (the edges of one sentence
	// share it), so each is scored once per question; -1 for none.
	descID int
}

// maxNameTokens bounds the names looked up as n-grams of a question.
const maxNameTokens = 8

func newLexIndex(g extract.Graph) *lexIndex {
	lx := &lexIndex{idx: make(map[string]int, len(g.Nodes)), first: make([]bool, len(g.Nodes)),
		nodes: make([]lexNode, len(g.Nodes)), edges: make([]lexEdge, len(g.Edges)), byName: map[string][]int{},
		names: newNameIndex(), nodeDesc: newTextIndex(), edgeDesc: newTextIndex()}
	for i, n := range g.Nodes {
		if _, dup := lx.idx[n.Key]; dup {
			continue
		}
		lx.idx[n.Key] = i
		lx.first[i] = true
		name := extract.NormalizeName(n.Name)
		desc := strings.ToLower(n.Description)
		ln := lexNode{name: name, key: n.Key, desc: desc, nameTok: tokens(name)}
		lx.nodes[i] = ln
		lx.addName(i)
		lx.nodeDesc.add(i, ln.desc, tokens(ln.desc))
	}
	labels := map[string]int{}
	descs := map[string]int{}
	for i, e := range g.Edges {
		si, sok := lx.idx[e.Source]
		ti, tok := lx.idx[e.Target]
		if !sok || !tok {
			si, ti = -1, -1
		}
		lk := e.Label + "\x1f" + e.Keywords
		label, ok := labels[lk]
		if !ok {
			norm := extract.NormalizeName(e.Label + " " + e.Keywords)
			label = len(lx.labels)
			labels[lk] = label
			lx.labels = append(lx.labels, lexLabel{label: norm, tok: tokens(norm)})
		}
		le := lexEdge{labelID: label, si: si, ti: ti, descID: -1, key: EdgeKey(e), vkey: EdgeVectorKey(e)}
		if e.Description != "" {
			id, ok := descs[e.Description]
			if !ok {
				id = len(descs)
				descs[e.Description] = id
				le.desc = strings.ToLower(e.Description)
			} else {
				// Share the first edge's normalised text.
				le.desc = lx.edges[lx.descFirst[id]].desc
			}
			if !ok {
				lx.descFirst = append(lx.descFirst, i)
				lx.edgeDesc.add(id, le.desc, tokens(le.desc))
			}
			le.descID = id
		}
		lx.edges[i] = le
	}
	lx.names.build()
	return lx
}

// addName indexes node i's name and key (it is the first of its key).
func (lx *lexIndex) addName(i int) {
	ln := lx.nodes[i]
	lx.names.add(i, ln)
	if len(ln.nameTok) <= maxNameTokens {
		lx.maxName = max(lx.maxName, len(ln.nameTok))
		name := strings.Join(ln.nameTok, " ")
		lx.byName[name] = append(lx.byName[name], i)
	}
}

// nodeScores scores every node by the keywords on its name and
// description (zero for a repeated key), as nodeLexical does: for each
// low-level keyword the best of nameScore on the name and on the key plus
// wDescription times textScore on the description; for each high-level
// keyword half of wDescription times textScore. Only the nodes the
// indexes say a keyword can score on are scored.
func (lx *lexIndex) nodeScores(lowKW, highKW []keyword) []float64 {
	direct := make([]float64, len(lx.nodes))
	if len(lowKW) == 0 && len(highKW) == 0 {
		return direct
	}
	// add[i] collects one keyword's score of node i; touched lists the
	// nodes it scored, so each keyword adds to direct once per node, in
	// keyword order (the same sums, bit for bit, as scoring every node).
	add := make([]float64, len(lx.nodes))
	seen := make([]bool, len(lx.nodes))
	var touched []int
	touch := func(i int) {
		if !seen[i] {
			seen[i] = true
			touched = append(touched, i)
		}
	}
	flush := func() {
		for _, i := range touched {
			direct[i] += add[i]
			add[i], seen[i] = 0, false
		}
		touched = touched[:0]
	}
	for _, kw := range lowKW {
		lx.names.candidates(kw, func(i int) {
			if seen[i] {
				return
			}
			n := &lx.nodes[i]
			if s := max(nameScore(kw, n.name, n.nameTok), nameScore(kw, n.key, n.nameTok)); s > 0 {
				touch(i)
				add[i] = s
			}
		})
		// The description's term is added after the name's, as the sum
		// s + wDescription*t is formed by the scan.
		var desc []int
		lx.nodeDesc.matches(kw, func(i int) { desc = append(desc, i) })
		for _, i := range desc {
			touch(i)
			add[i] += wDescription
		}
		flush()
	}
	for _, kw := range highKW {
		lx.nodeDesc.matches(kw, func(i int) { direct[i] += 0.5 * wDescription })
	}
	return direct
}

// edgeScores scores every edge by the high-level keywords on its label,
// keywords and description plus its endpoints' scores; an edge whose
// endpoint is missing scores -1 (as edgeLexical does).
func (lx *lexIndex) edgeScores(direct []float64, highKW []keyword) []float64 {
	out := make([]float64, len(lx.edges))
	labelScore := make([]float64, len(lx.labels))
	descScore := make([]float64, len(lx.descFirst))
	for _, kw := range highKW {
		for id, l := range lx.labels {
			if m := nameScore(kw, l.label, l.tok); m > 0 {
				labelScore[id] += wEdgeLabel * m / wExact * 2
			}
		}
		lx.edgeDesc.matches(kw, func(id int) { descScore[id] += wDescription })
	}
	for i := range lx.edges {
		e := &lx.edges[i]
		if e.si < 0 {
			out[i] = -1
			continue
		}
		s := 0.0
		if len(highKW) > 0 {
			s += labelScore[e.labelID]
			if e.descID >= 0 {
				s += descScore[e.descID]
			}
		}
		out[i] = s + wEndpoint*(direct[e.si]+direct[e.ti])
	}
	return out
}

// nameIndex finds the nodes on whose name or key a keyword can score
// (nameScore > 0): those named or keyed exactly so, those sharing a name
// token, those whose name or key holds the keyword (a suffix array over
// all names and keys) and those whose name or key the keyword holds (the
// keyword's substrings looked up by name).
type nameIndex struct {
	exact  *termTable[int32]
	tok    *termTable[int32]
	maxLen int
	blob   []byte
	starts []int32 // offset of each entry in blob
	owner  []int32 // the node of each entry
	sa     *suffixarray.Index
}

func newNameIndex() *nameIndex {
	return &nameIndex{exact: newTermTable[int32](), tok: newTermTable[int32]()}
}

// add indexes node i's name and key: the text the suffix array reads
// and, in an index being built, the exact and token tables (an index
// read from its form reads those as they were stored).
func (x *nameIndex) add(i int, n lexNode) {
	for j, s := range []string{n.name, n.key} {
		if j == 1 && s == n.name {
			break
		}
		if x.exact.m != nil {
			x.exact.m[s] = append(x.exact.m[s], int32(i))
		}
		x.maxLen = max(x.maxLen, len(s))
		x.starts = append(x.starts, int32(len(x.blob)))
		x.owner = append(x.owner, int32(i))
		x.blob = append(append(x.blob, s...), 0)
	}
	if x.tok.m == nil {
		return
	}
	for j, t := range n.nameTok {
		if !slices.Contains(n.nameTok[:j], t) {
			x.tok.m[t] = append(x.tok.m[t], int32(i))
		}
	}
}

func (x *nameIndex) build() { x.sa = suffixarray.New(x.blob) }

// candidates calls visit with every node kw can score on by name (some
// more than once, and some that score zero).
func (x *nameIndex) candidates(kw keyword, visit func(int)) {
	for _, i := range x.exact.get(kw.norm) {
		visit(int(i))
	}
	for _, t := range kw.tokens {
		for _, i := range x.tok.get(t) {
			visit(int(i))
		}
	}
	if utf8.RuneCountInString(kw.norm) >= 2 && !strings.Contains(kw.norm, "\x00") {
		for _, off := range x.sa.Lookup([]byte(kw.norm), -1) {
			e := sort.Search(len(x.starts), func(j int) bool { return int(x.starts[j]) > off }) - 1
			visit(int(x.owner[e]))
		}
	}
	// Names of two runes or more inside the keyword.
	for lo := 0; lo < len(kw.norm); {
		_, w := utf8.DecodeRuneInString(kw.norm[lo:])
		runes := 0
		for hi := lo; hi < len(kw.norm) && hi-lo < x.maxLen; {
			_, w2 := utf8.DecodeRuneInString(kw.norm[hi:])
			hi += w2
			if runes++; runes >= 2 {
				for _, i := range x.exact.get(kw.norm[lo:hi]) {
					visit(int(i))
				}
			}
		}
		lo += w
	}
}

// textIndex finds the texts (node descriptions, distinct edge
// descriptions) a keyword scores on (textScore > 0): a Latin keyword's
// through the postings of its tokens, any other by reading the texts.
type textIndex struct {
	ids   []int
	texts []string
	post  *termTable[int32]
}

func newTextIndex() *textIndex { return &textIndex{post: newTermTable[int32]()} }

// add indexes text (normalised, with its tokens) under id; ids are added
// in increasing order.
func (x *textIndex) add(id int, text string, toks []string) {
	if text == "" {
		return
	}
	x.ids = append(x.ids, id)
	x.texts = append(x.texts, text)
	for j, t := range toks {
		if !slices.Contains(toks[:j], t) {
			x.post.m[t] = append(x.post.m[t], int32(id))
		}
	}
}

// matches calls fn once, in increasing order, with every id whose text
// kw scores on.
func (x *textIndex) matches(kw keyword, fn func(int)) {
	if len(kw.tokens) > 0 && kw.latin {
		lists := make([][]int32, 0, len(kw.tokens))
		for _, t := range kw.tokens {
			l := x.post.get(t)
			if len(l) == 0 {
				return
			}
			lists = append(lists, l)
		}
		slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	next:
		for _, id := range lists[0] {
			for _, l := range lists[1:] {
				if _, ok := slices.BinarySearch(l, id); !ok {
					continue next
				}
			}
			fn(int(id))
		}
		return
	}
	for j, t := range x.texts {
		if strings.Contains(t, kw.norm) {
			fn(x.ids[j])
		}
	}
}
