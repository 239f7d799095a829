package query

import (
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// The full scans below are what the keyword index (lexical.go) must
// answer bit for bit: TestLexIndex_EqualsScan compares the two.

// nodeLexical scores every node by the keywords on its name and
// description; idx maps a key to its first node.
func nodeLexical(g extract.Graph, lowKW, highKW []keyword) (map[string]int, []float64) {
	idx := make(map[string]int, len(g.Nodes))
	direct := make([]float64, len(g.Nodes))
	for i, n := range g.Nodes {
		if _, dup := idx[n.Key]; dup {
			continue
		}
		idx[n.Key] = i
		name := extract.NormalizeName(n.Name)
		nt := tokens(name)
		desc := strings.ToLower(n.Description)
		dt := tokens(desc)
		for _, kw := range lowKW {
			s := max(nameScore(kw, name, nt), nameScore(kw, n.Key, nt))
			direct[i] += s + wDescription*textScore(kw, desc, dt)
		}
		for _, kw := range highKW {
			direct[i] += 0.5 * wDescription * textScore(kw, desc, dt)
		}
	}
	return idx, direct
}

// edgeLexical scores every edge by the high-level keywords on its label,
// keywords and description plus its endpoints' scores; an edge whose
// endpoint is missing scores -1.
func edgeLexical(g extract.Graph, idx map[string]int, direct []float64, highKW []keyword) []float64 {
	out := make([]float64, len(g.Edges))
	labelScore := map[string]float64{}
	for i, e := range g.Edges {
		si, sok := idx[e.Source]
		ti, tok := idx[e.Target]
		if !sok || !tok {
			out[i] = -1
			continue
		}
		s := 0.0
		if len(highKW) > 0 {
			// Labels repeat across edges: score each distinct one once.
			lk := e.Label + "\x1f" + e.Keywords
			ls, ok := labelScore[lk]
			if !ok {
				label := extract.NormalizeName(e.Label + " " + e.Keywords)
				lt := tokens(label)
				for _, kw := range highKW {
					if m := nameScore(kw, label, lt); m > 0 {
						ls += wEdgeLabel * m / wExact * 2
					}
				}
				labelScore[lk] = ls
			}
			s += ls
			if e.Description != "" {
				desc := strings.ToLower(e.Description)
				dt := tokens(desc)
				for _, kw := range highKW {
					s += wDescription * textScore(kw, desc, dt)
				}
			}
		}
		out[i] = s + wEndpoint*(direct[si]+direct[ti])
	}
	return out
}

// textScore counts a keyword found in free text (a description); tt are
// the text's tokens.
func textScore(kw keyword, text string, tt []string) float64 {
	if text == "" {
		return 0
	}
	if len(kw.tokens) > 0 && kw.latin {
		for _, t := range kw.tokens {
			// A token the text does not hold as a substring is not one of
			// its tokens either (the substring test is the cheap one).
			if !strings.Contains(text, t) || !slices.Contains(tt, t) {
				return 0
			}
		}
		return 1
	}
	if strings.Contains(text, kw.norm) {
		return 1
	}
	return 0
}
