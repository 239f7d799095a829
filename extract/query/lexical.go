package query

import (
	"strings"

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
}

type lexNode struct {
	name, key, desc  string
	nameTok, descTok []string
}

type lexEdge struct {
	// label is the normalised label and keywords; labelKey groups edges
	// that share them, so each distinct label is scored once.
	label, labelKey, desc string
	labelTok, descTok     []string
	si, ti                int
	// key is the edge's EdgeKey.
	key string
	// descID numbers the distinct descriptions (the edges of one sentence
	// share it), so each is scored once per question; -1 for none.
	descID int
}

// maxNameTokens bounds the names looked up as n-grams of a question.
const maxNameTokens = 8

func newLexIndex(g extract.Graph) *lexIndex {
	lx := &lexIndex{idx: make(map[string]int, len(g.Nodes)), first: make([]bool, len(g.Nodes)),
		nodes: make([]lexNode, len(g.Nodes)), edges: make([]lexEdge, len(g.Edges)), byName: map[string][]int{}}
	for i, n := range g.Nodes {
		if _, dup := lx.idx[n.Key]; dup {
			continue
		}
		lx.idx[n.Key] = i
		lx.first[i] = true
		name := extract.NormalizeName(n.Name)
		desc := strings.ToLower(n.Description)
		ln := lexNode{name: name, key: n.Key, desc: desc, nameTok: tokens(name), descTok: tokens(desc)}
		lx.nodes[i] = ln
		if len(ln.nameTok) <= maxNameTokens {
			lx.maxName = max(lx.maxName, len(ln.nameTok))
			lx.byName[strings.Join(ln.nameTok, " ")] = append(lx.byName[strings.Join(ln.nameTok, " ")], i)
		}
	}
	labels := map[string]string{}
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
			label = extract.NormalizeName(e.Label + " " + e.Keywords)
			labels[lk] = label
		}
		le := lexEdge{label: label, labelKey: lk, si: si, ti: ti, labelTok: tokens(label), descID: -1, key: EdgeKey(e)}
		if e.Description != "" {
			id, ok := descs[e.Description]
			if !ok {
				id = len(descs)
				descs[e.Description] = id
				le.desc = strings.ToLower(e.Description)
				le.descTok = tokens(le.desc)
			} else {
				// Share the first edge's normalised text.
				first := lx.edges[lx.descFirst[id]]
				le.desc, le.descTok = first.desc, first.descTok
			}
			if !ok {
				lx.descFirst = append(lx.descFirst, i)
			}
			le.descID = id
		}
		lx.edges[i] = le
	}
	return lx
}

// nodeScores scores every node by the keywords on its name and
// description (zero for a repeated key), as nodeLexical does.
func (lx *lexIndex) nodeScores(lowKW, highKW []keyword) []float64 {
	direct := make([]float64, len(lx.nodes))
	if len(lowKW) == 0 && len(highKW) == 0 {
		return direct
	}
	for i := range lx.nodes {
		if !lx.first[i] {
			continue
		}
		n := &lx.nodes[i]
		for _, kw := range lowKW {
			s := max(nameScore(kw, n.name, n.nameTok), nameScore(kw, n.key, n.nameTok))
			direct[i] += s + wDescription*textScore(kw, n.desc, n.descTok)
		}
		for _, kw := range highKW {
			direct[i] += 0.5 * wDescription * textScore(kw, n.desc, n.descTok)
		}
	}
	return direct
}

// edgeScores scores every edge by the high-level keywords on its label,
// keywords and description plus its endpoints' scores; an edge whose
// endpoint is missing scores -1 (as edgeLexical does).
func (lx *lexIndex) edgeScores(direct []float64, highKW []keyword) []float64 {
	out := make([]float64, len(lx.edges))
	labelScore := map[string]float64{}
	descScore := make([]float64, len(lx.descFirst))
	descDone := make([]bool, len(lx.descFirst))
	for i := range lx.edges {
		e := &lx.edges[i]
		if e.si < 0 {
			out[i] = -1
			continue
		}
		s := 0.0
		if len(highKW) > 0 {
			ls, ok := labelScore[e.labelKey]
			if !ok {
				for _, kw := range highKW {
					if m := nameScore(kw, e.label, e.labelTok); m > 0 {
						ls += wEdgeLabel * m / wExact * 2
					}
				}
				labelScore[e.labelKey] = ls
			}
			s += ls
			if e.descID >= 0 {
				if !descDone[e.descID] {
					descDone[e.descID] = true
					for _, kw := range highKW {
						descScore[e.descID] += wDescription * textScore(kw, e.desc, e.descTok)
					}
				}
				s += descScore[e.descID]
			}
		}
		out[i] = s + wEndpoint*(direct[e.si]+direct[e.ti])
	}
	return out
}
