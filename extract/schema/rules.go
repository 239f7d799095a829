package schema

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// Rule is a KAG logic rule (`rule: [[ Define ... ]]`) of a form kgstudio
// runs after extraction to derive relations:
//
//	Define (s:Person)-[p:release]->(o:App) {
//	    STRUCTURE { (s)-[:holdShare]->(c:Company), (c)-[:hasCert]->(cert:Cert)<-[useCert]-(o) }
//	    CONSTRAINT { }
//	}
//
// STRUCTURE is a list of paths over typed variables, edges in either
// direction; CONSTRAINT is empty, or counts one variable per subject and
// object and keeps the pairs past thresholds:
//
//	deviceNum = group(s,o).count(d)
//	R1("more than 5 devices"): deviceNum > 5
//
// Rules that compute a property value (an object of a basic type,
// sum/date functions) are not run.
type Rule struct {
	Subject, Predicate, Object string
	// Types maps each variable to its type, "" for any.
	Types    map[string]string
	Patterns []RuleEdge
	// CountVar, when set, is counted per (subject, object); every
	// condition must hold for a pair to be kept.
	CountVar   string
	Conditions []RuleCondition
}

// RuleEdge is one edge of a STRUCTURE path: From -[Label]-> To.
type RuleEdge struct{ From, Label, To string }

// RuleCondition compares the count with a number: Op is >, >=, <, <=, == or !=.
type RuleCondition struct {
	Op    string
	Value float64
}

var (
	defineRE = regexp.MustCompile(`(?s)Define\s*\(\s*(\w+)\s*:\s*([\w.]+)\s*\)\s*-\s*\[\s*(\w+)\s*:\s*([\w.#]+)\s*\]\s*->\s*\(\s*(\w+)\s*:\s*([\w.]+)\s*\)\s*\{`)
	blockRE  = regexp.MustCompile(`(?s)(STRUCTURE|CONSTRAINT)\s*\{([^{}]*)\}`)
	nodeRE   = regexp.MustCompile(`^\(\s*(\w+)\s*(?::\s*([\w.]+)\s*)?\)`)
	edgeRE   = regexp.MustCompile(`^(<?)-\s*\[\s*(?:(\w+)\s*)?(?::\s*([\w.#]+)\s*)?\]\s*-(>?)`)
	groupRE  = regexp.MustCompile(`^(\w+)\s*(?:\("[^"]*"\))?\s*=\s*group\(\s*(\w+)\s*,\s*(\w+)\s*\)\.count\(\s*(\w+)\s*\)$`)
	condRE   = regexp.MustCompile(`^\w+\s*(?:\("[^"]*"\))?\s*:\s*(\w+)\s*(>=|<=|==|!=|>|<)\s*(-?[0-9.]+)$`)
)

// ParseRule reads a rule's text. A rule of another form is an invalid
// error saying why it is not run.
func ParseRule(text string) (*Rule, error) {
	m := defineRE.FindStringSubmatch(text)
	if m == nil {
		return nil, extract.Errorf(extract.KindInvalid, "no Define (s:Type)-[p:name]->(o:Type) head")
	}
	r := &Rule{Subject: m[1], Predicate: m[4], Object: m[5], Types: map[string]string{m[1]: m[2], m[5]: m[6]}}
	if contains(BasicTypes, m[6]) {
		return nil, extract.Errorf(extract.KindInvalid, "rule %s computes a %s value, not a relation: not run", r.Predicate, m[6])
	}
	for _, b := range blockRE.FindAllStringSubmatch(text, -1) {
		body := strings.TrimSpace(b[2])
		if b[1] == "STRUCTURE" {
			for _, path := range splitPaths(body) {
				if err := r.addPath(path); err != nil {
					return nil, extract.Errorf(extract.KindInvalid, "rule %s: %v", r.Predicate, err)
				}
			}
			continue
		}
		for _, line := range strings.Split(body, "\n") {
			if i := strings.Index(line, "//"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			if g := groupRE.FindStringSubmatch(line); g != nil && g[2] == r.Subject && g[3] == r.Object && r.CountVar == "" {
				r.CountVar = g[4]
				continue
			}
			if c := condRE.FindStringSubmatch(line); c != nil && r.CountVar != "" {
				v, err := strconv.ParseFloat(c[3], 64)
				if err == nil {
					r.Conditions = append(r.Conditions, RuleCondition{Op: c[2], Value: v})
					continue
				}
			}
			return nil, extract.Errorf(extract.KindInvalid, "rule %s: constraint %q is not a form kgstudio runs (only group(s,o).count(x) thresholds)", r.Predicate, line)
		}
	}
	if len(r.Patterns) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "rule %s: STRUCTURE has no path", r.Predicate)
	}
	return r, nil
}

// splitPaths splits a STRUCTURE body on the commas between paths.
func splitPaths(body string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range body {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',', '\n':
			if depth == 0 {
				if p := strings.TrimSpace(body[start:i]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
	}
	if p := strings.TrimSpace(body[start:]); p != "" {
		out = append(out, p)
	}
	return out
}

// addPath reads one path "(a:T)-[:l]->(b)<-[m]-(c)".
func (r *Rule) addPath(path string) error {
	rest := strings.TrimSpace(path)
	n := nodeRE.FindStringSubmatch(rest)
	if n == nil {
		return fmt.Errorf("path %q does not start with a node", path)
	}
	prev := r.bind(n[1], n[2])
	rest = strings.TrimSpace(rest[len(n[0]):])
	for rest != "" {
		e := edgeRE.FindStringSubmatch(rest)
		if e == nil {
			return fmt.Errorf("cannot read %q", rest)
		}
		rest = strings.TrimSpace(rest[len(e[0]):])
		n := nodeRE.FindStringSubmatch(rest)
		if n == nil {
			return fmt.Errorf("an edge in %q ends in no node", path)
		}
		rest = strings.TrimSpace(rest[len(n[0]):])
		next := r.bind(n[1], n[2])
		// [:label], [v:label] or, leniently, [label].
		label := e[3]
		if label == "" {
			label = e[2]
		}
		if label == "" || (e[1] == "<") == (e[4] == ">") {
			return fmt.Errorf("edge %q needs a label and one direction", e[0])
		}
		if e[1] == "<" {
			r.Patterns = append(r.Patterns, RuleEdge{From: next, Label: label, To: prev})
		} else {
			r.Patterns = append(r.Patterns, RuleEdge{From: prev, Label: label, To: next})
		}
		prev = next
	}
	return nil
}

func (r *Rule) bind(v, typ string) string {
	if typ != "" {
		r.Types[v] = typ
	} else if _, ok := r.Types[v]; !ok {
		r.Types[v] = ""
	}
	return v
}

// Derive returns the relations the rule derives in g: an edge labelled
// Predicate from every subject to every object a STRUCTURE match joins
// (and whose count passes the conditions), marked Properties["rule"], in a
// stable order. Node types compare without case or namespace prefix.
func (r *Rule) Derive(g extract.Graph) []extract.Edge {
	nodes := make(map[string]*extract.Node, len(g.Nodes))
	for i := range g.Nodes {
		nodes[g.Nodes[i].Key] = &g.Nodes[i]
	}
	byLabel := map[string][]extract.Edge{}
	for _, e := range g.Edges {
		byLabel[strings.ToLower(e.Label)] = append(byLabel[strings.ToLower(e.Label)], e)
	}
	typed := func(v, key string) bool {
		want := r.Types[v]
		n, ok := nodes[key]
		if !ok {
			return false
		}
		return want == "" || strings.EqualFold(lastPart(n.Type), lastPart(want))
	}
	counts := map[[2]string]map[string]bool{}
	var walk func(i int, bound map[string]string)
	walk = func(i int, bound map[string]string) {
		if i == len(r.Patterns) {
			pair := [2]string{bound[r.Subject], bound[r.Object]}
			if pair[0] == "" || pair[1] == "" || pair[0] == pair[1] {
				return
			}
			if counts[pair] == nil {
				counts[pair] = map[string]bool{}
			}
			counts[pair][bound[r.CountVar]] = true
			return
		}
		p := r.Patterns[i]
		for _, e := range byLabel[strings.ToLower(lastPart(p.Label))] {
			if (bound[p.From] != "" && bound[p.From] != e.Source) || (bound[p.To] != "" && bound[p.To] != e.Target) {
				continue
			}
			if !typed(p.From, e.Source) || !typed(p.To, e.Target) {
				continue
			}
			next := make(map[string]string, len(bound)+2)
			for k, v := range bound {
				next[k] = v
			}
			next[p.From], next[p.To] = e.Source, e.Target
			walk(i+1, next)
		}
	}
	walk(0, map[string]string{})
	var out []extract.Edge
	for pair, set := range counts {
		if !r.holds(float64(len(set))) {
			continue
		}
		out = append(out, extract.Edge{Source: pair[0], Target: pair[1], Label: r.Predicate, Weight: 1,
			Description: "derived by the schema's rule for " + r.Predicate, Properties: map[string]any{"rule": true}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

func (r *Rule) holds(n float64) bool {
	for _, c := range r.Conditions {
		ok := false
		switch c.Op {
		case ">":
			ok = n > c.Value
		case ">=":
			ok = n >= c.Value
		case "<":
			ok = n < c.Value
		case "<=":
			ok = n <= c.Value
		case "==":
			ok = n == c.Value
		case "!=":
			ok = n != c.Value
		}
		if !ok {
			return false
		}
	}
	return true
}

func lastPart(name string) string {
	if i := strings.LastIndexAny(name, ".#"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// DeriveRules runs every rule of s's relations over g and returns the
// derived edges g does not hold yet, and a problem for each rule it does
// not run (with the field path of the rule and the reason).
func DeriveRules(s *Schema, g extract.Graph) ([]extract.Edge, []Problem) {
	have := make(map[string]bool, len(g.Edges))
	for _, e := range g.Edges {
		have[e.Key()] = true
	}
	var out []extract.Edge
	var skipped []Problem
	for i, t := range s.Types {
		for j, rel := range t.Relations {
			if strings.TrimSpace(rel.Rule) == "" {
				continue
			}
			r, err := ParseRule(rel.Rule)
			if err != nil {
				skipped = append(skipped, Problem{Field: fmt.Sprintf("types[%d].relations[%d].rule", i, j), Message: extract.MessageOf(err)})
				continue
			}
			for _, e := range r.Derive(g) {
				if !have[e.Key()] {
					have[e.Key()] = true
					out = append(out, e)
				}
			}
		}
		for j, p := range t.Properties {
			if strings.TrimSpace(p.Rule) != "" {
				skipped = append(skipped, Problem{Field: fmt.Sprintf("types[%d].properties[%d].rule", i, j),
					Message: fmt.Sprintf("rule for property %s.%s computes a value: not run", t.Name, p.Name)})
			}
		}
	}
	return out, skipped
}
