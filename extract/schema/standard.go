package schema

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// builtinStandard are patterns that find the values of KAG's common
// standard types in running text, for those a schema uses without
// declaring a `regular:` pattern of its own.
var builtinStandard = map[string]*regexp.Regexp{
	// A mainland China mobile number, optionally after +86, in groups.
	"STD.ChinaMobile": regexp.MustCompile(`(?:\+?86[- ]?)?1[3-9]\d(?:[- ]?\d{4}){2}`),
	"STD.Email":       regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`),
	// A mainland resident identity card number (18 characters).
	"STD.IdCardNo":   regexp.MustCompile(`[1-9]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]`),
	"STD.MacAddress": regexp.MustCompile(`(?i)[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}`),
	"STD.Date":       regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\d{4}年\d{1,2}月\d{1,2}日`),
}

// standardPattern is the pattern that finds values of the standard type
// name in text: the schema's declared `regular:` pattern (without its
// anchors), else a built-in one; nil when there is neither.
func (s *Schema) standardPattern(name string) *regexp.Regexp {
	if t, ok := s.Lookup(name); ok && t.Kind == KindStandard && t.Regular != "" {
		p := strings.TrimSuffix(strings.TrimPrefix(strings.Trim(t.Regular, `"`), "^"), "$")
		if re, err := regexp.Compile(p); err == nil {
			return re
		}
	}
	return builtinStandard[name]
}

// StandardValue normalises a value of standard type typ so that one value
// written two ways is one node: a mobile number keeps its digits only
// (without the +86 prefix), an e-mail address is lower-cased, an identity
// card's check letter and a MAC address are upper-cased (the MAC with
// colons); other values are trimmed.
func StandardValue(typ, v string) string {
	v = strings.TrimSpace(v)
	switch typ {
	case "STD.ChinaMobile":
		d := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, v)
		if len(d) == 13 && strings.HasPrefix(d, "86") {
			d = d[2:]
		}
		if len(d) == 11 {
			return d
		}
	case "STD.Email":
		return strings.ToLower(v)
	case "STD.IdCardNo":
		return strings.ToUpper(v)
	case "STD.MacAddress":
		return strings.ToUpper(strings.ReplaceAll(v, "-", ":"))
	}
	return v
}

// LinkStandard gives an offline run KAG's standard-type nodes: where
// chunk's text holds a value of a standard type that a property of type T
// takes (`phone: STD.ChinaMobile` on Person), the value becomes a node of
// that standard type (its name normalised by StandardValue), linked from
// the node of type T mentioned nearest before it in its sentence (else
// nearest after it) by an edge named after the property. A value without
// such an owner in its sentence is left alone. Nodes of g that the
// extractor made of the value's text alone (a number, a fragment of an
// e-mail address) give way to it, with their edges.
func (s *Schema) LinkStandard(g *extract.Graph, chunk extract.Chunk) {
	type use struct{ owner, prop, std string }
	var uses []use
	for _, t := range s.Types {
		for _, p := range t.Properties {
			if std, ok := StandardName(p.Type); ok && s.standardPattern(std) != nil {
				uses = append(uses, use{t.Name, p.Name, std})
			}
		}
	}
	if len(uses) == 0 || chunk.Text == "" {
		return
	}
	text := chunk.Text
	type found struct {
		start, end int
		std, value string
	}
	var values []found
	for _, std := range distinctStd(uses, func(u use) string { return u.std }) {
		for _, m := range s.standardPattern(std).FindAllStringIndex(text, -1) {
			values = append(values, found{m[0], m[1], std, StandardValue(std, text[m[0]:m[1]])})
		}
	}
	if len(values) == 0 {
		return
	}
	sort.SliceStable(values, func(i, j int) bool { return values[i].start < values[j].start })
	// Nodes made of a value's text alone give way.
	inValue := func(m extract.Mention) bool {
		if m.DocumentID != chunk.DocumentID || m.ChunkIndex != chunk.Index || m.End <= m.Start {
			return false
		}
		for _, v := range values {
			if m.Start-chunk.Start >= v.start && m.End-chunk.Start <= v.end {
				return true
			}
		}
		return false
	}
	dropped := map[string]bool{}
	kept := g.Nodes[:0]
	for _, n := range g.Nodes {
		all := len(n.Mentions) > 0
		for _, m := range n.Mentions {
			all = all && inValue(m)
		}
		if all {
			dropped[n.Key] = true
			continue
		}
		kept = append(kept, n)
	}
	g.Nodes = kept
	if len(dropped) > 0 {
		edges := g.Edges[:0]
		for _, e := range g.Edges {
			if !dropped[e.Source] && !dropped[e.Target] {
				edges = append(edges, e)
			}
		}
		g.Edges = edges
	}
	at := map[string]int{}
	for i, n := range g.Nodes {
		at[n.Key] = i
	}
	for _, v := range values {
		lo, hi := sentenceAround(text, v.start, v.end)
		for _, u := range uses {
			if u.std != v.std {
				continue
			}
			owner := nearestOwner(g, s, u.owner, chunk, lo, hi, v.start)
			if owner == "" {
				continue
			}
			key := extract.TypedNodeKey(v.std, v.value)
			i, ok := at[key]
			if !ok {
				i = len(g.Nodes)
				at[key] = i
				g.Nodes = append(g.Nodes, extract.Node{Key: key, Name: v.value, Type: v.std})
			}
			mention := extract.Mention{DocumentID: chunk.DocumentID, ChunkIndex: chunk.Index,
				Start: chunk.Start + v.start, End: chunk.Start + v.end, Text: text[v.start:v.end]}
			n := &g.Nodes[i]
			if !containsMention(n.Mentions, mention) {
				n.Mentions = append(n.Mentions, mention)
			}
			if !hasEdge(g, owner, u.prop, key) {
				g.Edges = append(g.Edges, extract.Edge{Source: owner, Target: key, Label: u.prop, Weight: 1,
					Description: strings.TrimSpace(text[lo:hi]), Mentions: []extract.Mention{mention}})
			}
		}
	}
}

// nearestOwner is the key of the node of type typ (or a type declared
// under it) mentioned nearest before at within text[lo:hi] of chunk, else
// nearest after it; "" when none is.
func nearestOwner(g *extract.Graph, s *Schema, typ string, chunk extract.Chunk, lo, hi, at int) string {
	best, bestDist := "", -1
	for _, n := range g.Nodes {
		if !s.isA(n.Type, typ) {
			continue
		}
		for _, m := range n.Mentions {
			if m.DocumentID != chunk.DocumentID || m.ChunkIndex != chunk.Index || m.End <= m.Start {
				continue
			}
			st, en := m.Start-chunk.Start, m.End-chunk.Start
			if st < lo || en > hi {
				continue
			}
			d := at - en // before the value
			if en > at {
				d = len(chunk.Text) + st - at // after it: any before wins
			}
			if bestDist < 0 || d < bestDist {
				best, bestDist = n.Key, d
			}
		}
	}
	return best
}

// isA reports whether type name (or alias) is typ or declared under it.
func (s *Schema) isA(name, typ string) bool {
	for range len(s.Types) + 1 {
		t, ok := s.Lookup(name)
		if strings.EqualFold(name, typ) || ok && strings.EqualFold(t.Name, typ) {
			return true
		}
		if !ok || t.Parent == "" {
			return false
		}
		name = t.Parent
	}
	return false
}

// sentenceAround returns the bounds of the sentence of text that holds
// [start, end): from after the last sentence end before it to the next one
// after it (full stops, question and exclamation marks in Latin and CJK
// forms, semicolons and line breaks end sentences; a full stop inside a
// value such as an e-mail address does not, being inside the span).
func sentenceAround(text string, start, end int) (int, int) {
	lo, hi := 0, len(text)
	for i := start; i > 0; {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		i -= n
		if isStop(text, i, r, n) {
			lo = i + n
			break
		}
	}
	for i := end; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if isStop(text, i, r, n) {
			hi = i
			break
		}
		i += n
	}
	return lo, hi
}

// isStop reports whether rune r, of size bytes at i, ends a sentence: a
// full stop followed by a space or the end, or any of ! ? ; and their CJK
// forms, or a line break.
func isStop(text string, i int, r rune, size int) bool {
	switch r {
	case '!', '?', ';', '\n', '。', '！', '？', '；':
		return true
	case '.':
		next := i + size
		return next >= len(text) || text[next] == ' ' || text[next] == '\n' || text[next] == '\t'
	}
	return false
}

func distinctStd[T any](xs []T, key func(T) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if k := key(x); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func containsMention(ms []extract.Mention, m extract.Mention) bool {
	for _, o := range ms {
		if o == m {
			return true
		}
	}
	return false
}

func hasEdge(g *extract.Graph, s, label, t string) bool {
	for _, e := range g.Edges {
		if e.Source == s && e.Label == label && e.Target == t {
			return true
		}
	}
	return false
}
