package tuple

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// Delimiters of the tuple format.
const (
	// TupleDelimiter separates the fields of one entity or relation line.
	TupleDelimiter = "<|#|>"
	// CompletionDelimiter ends a complete answer.
	CompletionDelimiter = "<|COMPLETE|>"
	// RelationLabel is the label of every tuple edge: LightRAG relations are
	// undirected and carry their meaning in keywords and description.
	RelationLabel = "related"
	// UnknownType is given to relation endpoints that have no entity line.
	UnknownType = "unknown"
)

var (
	// delimRe accepts the delimiter and the variants models produce:
	// <|#|>, <|>, <||>, <|##|>, <| # |>, <|#>, <#|>, <|#| and |#|.
	delimRe = regexp.MustCompile(`\s*(?:<\|\s*#*\s*\|>|<\|>|<\|#>|<#\|>|<\|#\||\|#\|)\s*`)
	// pipeRe is the last-resort separator: a plain bar.
	pipeRe     = regexp.MustCompile(`\s*\|\s*`)
	completeRe = regexp.MustCompile(`(?i)<\|?\s*complete\s*\|?>`)
	bulletRe   = regexp.MustCompile(`^(?:[-*•]\s+|\d{1,3}[.)]\s+)`)
	weightRe   = regexp.MustCompile(`^\d+(?:\.\d+)?$`)
)

// record is one parsed entity or relation line.
type record struct {
	kind   string // "entity" or "relation"
	fields []string
	line   string
}

// Parse reads tuple-formatted model output into a graph. It accepts the
// delimiter variants models commonly emit, a missing or wrong completion
// marker, markdown fences, list bullets, stray quotes and spaces, the legacy
// ("relationship", ..., strength) layout, repeated lines and CJK text. Every
// line it cannot use comes back as a ParseFailure with the reason; Round is
// zero. Node keys are extract.NodeKey of the name; edges are labelled
// RelationLabel and ordered so that Source <= Target.
func Parse(output string) (extract.Graph, []extract.ParseFailure) {
	c := newCollector(nil)
	c.parse(output, 0)
	return c.graph(), c.failures
}

// collector accumulates records of one or more rounds.
type collector struct {
	nodes    map[string]*extract.Node
	order    []string
	edges    map[string]*extract.Edge
	eorder   []string
	failures []extract.ParseFailure
	// types spells each entity type the first way it was given, by its
	// lower case: the configured types first, then as the model wrote
	// them, so "person" and "PERSON" are the configured "Person" and a
	// type keeps the case it was given.
	types map[string]string
}

// newCollector starts a collector; types are the configured entity types.
func newCollector(types []string) *collector {
	c := &collector{nodes: map[string]*extract.Node{}, edges: map[string]*extract.Edge{}, types: map[string]string{}}
	for _, t := range types {
		t = strings.Join(strings.Fields(t), " ")
		if k := strings.ToLower(t); k != "" && c.types[k] == "" {
			c.types[k] = t
		}
	}
	return c
}

// parse adds the records of one answer and reports how many lines it used.
func (c *collector) parse(output string, round int) int {
	recs, fails, complete, lastLine := splitOutput(extract.StripReasoning(output))
	used := 0
	for _, r := range recs {
		var reason string
		if r.kind == "entity" {
			reason = c.addEntity(r.fields, round)
		} else {
			reason = c.addRelation(r.fields, round)
		}
		if reason != "" {
			fails = append(fails, extract.ParseFailure{Line: r.line, Reason: reason})
			continue
		}
		used++
	}
	if !complete && len(fails) > 0 && fails[len(fails)-1].Line == lastLine {
		// The output was probably cut in its last line.
		fails[len(fails)-1].Reason += " (no completion marker: output probably truncated)"
	}
	for i := range fails {
		fails[i].Round = round
	}
	c.failures = append(c.failures, fails...)
	return used
}

// splitOutput turns raw output into candidate records and the lines that
// are not records at all.
func splitOutput(output string) (recs []record, fails []extract.ParseFailure, complete bool, lastLine string) {
	output = strings.TrimPrefix(output, "\ufeff")
	output = strings.ReplaceAll(output, "\r\n", "\n")
	output = strings.ReplaceAll(output, "\r", "\n")
	for _, raw := range strings.Split(output, "\n") {
		for _, part := range splitJoined(raw) {
			line := strings.TrimSpace(part)
			if line == "" || strings.HasPrefix(line, "```") {
				continue
			}
			lastLine = line
			if completeRe.MatchString(line) {
				complete = true
				line = strings.TrimSpace(completeRe.ReplaceAllString(line, ""))
				if line == "" {
					continue
				}
			}
			r, reason := splitLine(line)
			if reason != "" {
				fails = append(fails, extract.ParseFailure{Line: line, Reason: reason})
				continue
			}
			recs = append(recs, r)
		}
	}
	return recs, fails, complete, lastLine
}

// splitJoined splits a line holding several records joined by "##" (the
// legacy record separator).
func splitJoined(line string) []string {
	if !strings.Contains(line, "##") {
		return []string{line}
	}
	parts := strings.Split(line, "##")
	var out []string
	for _, p := range parts {
		if len(out) > 0 && kindOf(firstField(p)) == "" {
			out[len(out)-1] += "##" + p
			continue
		}
		out = append(out, p)
	}
	return out
}

func firstField(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), `("'`)
	for i, r := range s {
		if r == '<' || r == '|' || r == '"' || r == '\'' || r == ',' || r == ' ' || r == '\t' {
			return s[:i]
		}
	}
	return s
}

// kindOf maps the first field to a record kind, or "".
func kindOf(f string) string {
	switch strings.ToLower(cleanField(f)) {
	case "entity", "entities", "node":
		return "entity"
	case "relation", "relationship", "relations", "relationships", "edge":
		return "relation"
	}
	return ""
}

// splitLine splits one line into fields.
func splitLine(line string) (record, string) {
	orig := line
	line = bulletRe.ReplaceAllString(line, "")
	line = strings.ReplaceAll(line, "｜", "|")
	if strings.HasPrefix(line, "(") && strings.HasSuffix(line, ")") {
		line = strings.TrimSpace(line[1 : len(line)-1])
	}
	fields := delimRe.Split(line, -1)
	if len(fields) == 1 {
		if kindOf(firstField(line)) == "" {
			return record{}, "not an entity or relation line"
		}
		switch {
		case strings.Contains(line, "|"):
			fields = pipeRe.Split(line, -1)
		case strings.Contains(line, "\t"):
			fields = strings.Split(line, "\t")
		default:
			return record{}, "no field delimiter found"
		}
	}
	for i := range fields {
		fields[i] = cleanField(fields[i])
	}
	// A trailing empty field is a dangling delimiter.
	for len(fields) > 1 && fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	kind := kindOf(fields[0])
	if kind == "" {
		return record{}, fmt.Sprintf("unknown record type %q", extract.Clip(fields[0], 120))
	}
	return record{kind: kind, fields: fields[1:], line: orig}, ""
}

// cleanField trims spaces, quotes, markdown emphasis and a stray closing
// parenthesis left from the legacy tuple layout.
func cleanField(s string) string {
	for {
		t := strings.TrimSpace(s)
		t = strings.Trim(t, "\"'`“”‘’")
		t = strings.TrimPrefix(t, "**")
		t = strings.TrimSuffix(t, "**")
		if strings.HasSuffix(t, ")") && strings.Count(t, "(") < strings.Count(t, ")") {
			t = strings.TrimSuffix(t, ")")
		}
		if strings.HasPrefix(t, "(") && strings.Count(t, "(") > strings.Count(t, ")") {
			t = strings.TrimPrefix(t, "(")
		}
		t = strings.TrimSpace(t)
		if t == s {
			return t
		}
		s = t
	}
}

// typeOf spells an entity type: single spaces, and the spelling the
// configured types (or the first answer naming it) gave it, whatever its
// case here; "other" when empty.
func (c *collector) typeOf(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	if t == "" {
		return "other"
	}
	k := strings.ToLower(t)
	if s, ok := c.types[k]; ok {
		return s
	}
	c.types[k] = t
	return t
}

// addEntity adds an entity record; it returns a failure reason or "".
func (c *collector) addEntity(f []string, round int) string {
	if len(f) < 2 {
		return fmt.Sprintf("entity line has %d of 4 fields", len(f)+1)
	}
	name, typ := f[0], c.typeOf(f[1])
	desc := ""
	if len(f) > 2 {
		desc = strings.Join(f[2:], " ")
	}
	key := extract.NodeKey(name)
	if key == "" {
		return "entity name is empty"
	}
	if n, ok := c.nodes[key]; ok {
		if n.Type == UnknownType {
			n.Type = typ
			delete(n.Properties, "implicit")
		}
		n.Description = addFragment(n.Description, desc)
		return ""
	}
	c.nodes[key] = &extract.Node{Key: key, Name: name, Type: typ, Description: desc, Properties: map[string]any{"round": round}}
	c.order = append(c.order, key)
	return ""
}

// addRelation adds a relation record; it returns a failure reason or "".
func (c *collector) addRelation(f []string, round int) string {
	if len(f) < 3 {
		return fmt.Sprintf("relation line has %d of 5 fields", len(f)+1)
	}
	src, tgt := f[0], f[1]
	var keywords, desc string
	weight := 1.0
	switch {
	case len(f) == 3:
		desc = f[2]
	case len(f) == 5 && weightRe.MatchString(f[4]):
		// Legacy layout: description, keywords, strength.
		desc, keywords = f[2], f[3]
		weight, _ = strconv.ParseFloat(f[4], 64)
	default:
		keywords, desc = f[2], strings.Join(f[3:], " ")
	}
	sk, tk := extract.NodeKey(src), extract.NodeKey(tgt)
	if sk == "" || tk == "" {
		return "relation has an empty source or target"
	}
	if sk == tk {
		return "relation links an entity to itself"
	}
	c.implicitNode(src, sk, round)
	c.implicitNode(tgt, tk, round)
	if tk < sk {
		sk, tk = tk, sk
	}
	key := extract.EdgeKey(sk, RelationLabel, tk)
	if e, ok := c.edges[key]; ok {
		e.Keywords = mergeKeywords(e.Keywords, keywords)
		e.Description = addFragment(e.Description, desc)
		if weight > e.Weight {
			e.Weight = weight
		}
		return ""
	}
	c.edges[key] = &extract.Edge{Source: sk, Target: tk, Label: RelationLabel, Keywords: mergeKeywords("", keywords),
		Description: desc, Weight: weight, Properties: map[string]any{"round": round}}
	c.eorder = append(c.eorder, key)
	return ""
}

// implicitNode makes sure a relation endpoint exists as a node.
func (c *collector) implicitNode(name, key string, round int) {
	if _, ok := c.nodes[key]; ok {
		return
	}
	c.nodes[key] = &extract.Node{Key: key, Name: name, Type: UnknownType, Properties: map[string]any{"round": round, "implicit": true}}
	c.order = append(c.order, key)
}

// addFragment appends a description fragment unless it is already there.
func addFragment(have, frag string) string {
	frag = strings.TrimSpace(frag)
	if frag == "" {
		return have
	}
	if have == "" {
		return frag
	}
	for _, f := range strings.Split(have, "\n") {
		if f == frag {
			return have
		}
	}
	return have + "\n" + frag
}

// mergeKeywords unions comma-separated keyword lists, keeping first order.
func mergeKeywords(a, b string) string {
	seen := map[string]bool{}
	var out []string
	for _, list := range []string{a, b} {
		for _, k := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == '，' || r == '、' || r == ';' }) {
			k = strings.TrimSpace(k)
			if k == "" || seen[strings.ToLower(k)] {
				continue
			}
			seen[strings.ToLower(k)] = true
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// graph returns the collected graph in first-seen order.
func (c *collector) graph() extract.Graph {
	g := extract.Graph{Nodes: make([]extract.Node, 0, len(c.order)), Edges: make([]extract.Edge, 0, len(c.eorder))}
	for _, k := range c.order {
		g.Nodes = append(g.Nodes, *c.nodes[k])
	}
	for _, k := range c.eorder {
		g.Edges = append(g.Edges, *c.edges[k])
	}
	return g
}

// Fragments splits a merged description back into its fragments.
func Fragments(desc string) []string {
	var out []string
	for _, f := range strings.Split(desc, "\n") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
