package schema

import (
	"context"
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
// sum/date functions) are not run. A rule runs within a Budget of join
// steps and matches and stops when its context ends (see Derive).
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

// Budget bounds the work of evaluating one rule, so a rule whose join
// would grow without end (a long path over a dense label) is stopped and
// reported instead of running away. Zero fields take the defaults.
type Budget struct {
	// MaxSteps is how many candidate edges one rule may look at while it
	// joins its STRUCTURE (each edge tried for each partial match is a
	// step), DefaultMaxSteps when 0.
	MaxSteps int
	// MaxMatches is how many distinct matches one rule may keep: pairs
	// (subject, object), or triples with the counted node for a counting
	// rule. It bounds the relations a rule derives and the memory it
	// holds. DefaultMaxMatches when 0.
	MaxMatches int
}

// The default Budget: under a second of joining per rule on one core (a
// step costs some 40 ns), and no more matches than a version's graph
// would sensibly take as derived relations.
const (
	DefaultMaxSteps   = 20_000_000
	DefaultMaxMatches = 200_000
)

// checkEvery is how many steps a rule takes between two looks at its
// context.
const checkEvery = 4096

func (b Budget) withDefaults() Budget {
	if b.MaxSteps <= 0 {
		b.MaxSteps = DefaultMaxSteps
	}
	if b.MaxMatches <= 0 {
		b.MaxMatches = DefaultMaxMatches
	}
	return b
}

// ruleGraph is a graph indexed for joins: nodes by number with their
// types, and each label's edges by source and by target. Labels and types
// compare without case or namespace prefix.
type ruleGraph struct {
	keys  []string         // node number -> key
	ids   map[string]int32 // key -> node number
	types []int32          // node number -> type number; noNode for an edge end that is no node
	// typeIDs numbers the types, lower-case without prefix.
	typeIDs map[string]int32
	byLabel map[string]*labelEdges
}

// labelEdges are the edges of one label: their ends by edge number, and
// the edge numbers by source and by target node.
type labelEdges struct {
	src, dst []int32
	bySource map[int32][]int32
	byTarget map[int32][]int32
}

// Type numbers of ruleGraph.types and of a variable's wanted type.
const (
	noNode  = -1 // an edge end that is no node of the graph: no variable binds it
	anyType = -2 // a variable of any type
	noType  = -3 // a variable of a type no node has
)

func indexRuleGraph(g extract.Graph) *ruleGraph {
	rg := &ruleGraph{ids: make(map[string]int32, len(g.Nodes)), typeIDs: map[string]int32{}, byLabel: map[string]*labelEdges{}}
	id := func(key string) int32 {
		if i, ok := rg.ids[key]; ok {
			return i
		}
		i := int32(len(rg.keys))
		rg.ids[key] = i
		rg.keys = append(rg.keys, key)
		rg.types = append(rg.types, noNode)
		return i
	}
	for _, n := range g.Nodes {
		t := strings.ToLower(lastPart(n.Type))
		tid, ok := rg.typeIDs[t]
		if !ok {
			tid = int32(len(rg.typeIDs))
			rg.typeIDs[t] = tid
		}
		rg.types[id(n.Key)] = tid
	}
	for _, e := range g.Edges {
		label := strings.ToLower(lastPart(e.Label))
		le := rg.byLabel[label]
		if le == nil {
			le = &labelEdges{bySource: map[int32][]int32{}, byTarget: map[int32][]int32{}}
			rg.byLabel[label] = le
		}
		i, s, t := int32(len(le.src)), id(e.Source), id(e.Target)
		le.src, le.dst = append(le.src, s), append(le.dst, t)
		le.bySource[s] = append(le.bySource[s], i)
		le.byTarget[t] = append(le.byTarget[t], i)
	}
	return rg
}

// Derive returns the relations the rule derives in g: an edge labelled
// Predicate from every subject to every object a STRUCTURE match joins
// (and whose count passes the conditions), marked Properties["rule"], in a
// stable order. Node types compare without case or namespace prefix.
//
// The join follows the edges of the nodes bound so far and stops when it
// passes the budget (an invalid error saying so: the rule derives
// nothing) or when ctx ends (ctx's error), which it checks every few
// thousand steps.
func (r *Rule) Derive(ctx context.Context, g extract.Graph, b Budget) ([]extract.Edge, error) {
	return r.derive(ctx, indexRuleGraph(g), b.withDefaults())
}

func (r *Rule) derive(ctx context.Context, rg *ruleGraph, b Budget) ([]extract.Edge, error) {
	// Variables by number, each with the type number it wants.
	slot := map[string]int{}
	var want []int32
	varOf := func(v string) int {
		if i, ok := slot[v]; ok {
			return i
		}
		slot[v] = len(want)
		w := int32(anyType)
		if t := strings.ToLower(lastPart(r.Types[v])); t != "" {
			w = noType
			if id, ok := rg.typeIDs[t]; ok {
				w = id
			}
		}
		want = append(want, w)
		return len(want) - 1
	}
	type step struct {
		from, to int
		edges    *labelEdges
	}
	steps := make([]step, len(r.Patterns))
	for i, p := range r.Patterns {
		steps[i] = step{from: varOf(p.From), to: varOf(p.To), edges: rg.byLabel[strings.ToLower(lastPart(p.Label))]}
		if steps[i].edges == nil {
			return nil, ctx.Err() // a label the graph lacks: no match
		}
	}
	subj, obj := varOf(r.Subject), varOf(r.Object)
	counted := -1
	if r.CountVar != "" {
		counted = varOf(r.CountVar)
	}
	steps = joinOrder(steps, func(s step) (int, int, int) { return s.from, s.to, len(s.edges.src) })

	typed := func(v int, node int32) bool {
		t := rg.types[node]
		return t != noNode && (want[v] == anyType || t == want[v])
	}
	const unbound = -1
	bound := make([]int32, len(want))
	for i := range bound {
		bound[i] = unbound
	}
	// A match is a subject, an object and the counted node (unbound when
	// the rule counts nothing); counts holds the matches per pair.
	type pair struct{ s, o int32 }
	type match struct {
		pair
		c int32
	}
	seen := map[match]struct{}{}
	counts := map[pair]int{}
	work := 0
	var stop error
	// try binds step i's ends to its label's edge j and walks on; it
	// reports false once the walk must stop.
	var walk func(i int) bool
	try := func(i int, j int32) bool {
		if work++; work > b.MaxSteps {
			stop = extract.Errorf(extract.KindInvalid, "rule %s: over its budget of %d join steps: not run (narrow the rule's STRUCTURE)", r.Predicate, b.MaxSteps)
			return false
		}
		if work%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				stop = err
				return false
			}
		}
		s := steps[i]
		src, dst := s.edges.src[j], s.edges.dst[j]
		if !typed(s.from, src) || !typed(s.to, dst) {
			return true
		}
		setFrom, setTo := bound[s.from] == unbound, false
		if !setFrom && bound[s.from] != src {
			return true
		}
		bound[s.from] = src
		switch {
		case bound[s.to] == unbound:
			bound[s.to], setTo = dst, true
		case bound[s.to] != dst:
			if setFrom {
				bound[s.from] = unbound
			}
			return true
		}
		ok := walk(i + 1)
		if setFrom {
			bound[s.from] = unbound
		}
		if setTo {
			bound[s.to] = unbound
		}
		return ok
	}
	walk = func(i int) bool {
		if i == len(steps) {
			p := pair{bound[subj], bound[obj]}
			if p.s == unbound || p.o == unbound || p.s == p.o {
				return true
			}
			m := match{p, unbound}
			if counted >= 0 {
				m.c = bound[counted]
			}
			if _, ok := seen[m]; !ok {
				if len(seen) >= b.MaxMatches {
					stop = extract.Errorf(extract.KindInvalid, "rule %s: matches more than %d times: not run (narrow the rule's STRUCTURE)", r.Predicate, b.MaxMatches)
					return false
				}
				seen[m] = struct{}{}
				counts[p]++
			}
			return true
		}
		s := steps[i]
		var cand []int32
		switch {
		case bound[s.from] != unbound:
			cand = s.edges.bySource[bound[s.from]]
		case bound[s.to] != unbound:
			cand = s.edges.byTarget[bound[s.to]]
		default:
			for j := range s.edges.src {
				if !try(i, int32(j)) {
					return false
				}
			}
			return true
		}
		for _, j := range cand {
			if !try(i, j) {
				return false
			}
		}
		return true
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !walk(0) {
		return nil, stop
	}
	var out []extract.Edge
	for p, n := range counts {
		if !r.holds(float64(n)) {
			continue
		}
		out = append(out, extract.Edge{Source: rg.keys[p.s], Target: rg.keys[p.o], Label: r.Predicate, Weight: 1,
			Description: "derived by the schema's rule for " + r.Predicate, Properties: map[string]any{"rule": true}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out, nil
}

// joinOrder orders a rule's steps for the join: first the step of the
// label with the fewest edges, then always a step that touches a variable
// bound already (both ends bound first), the fewest edges first, so each
// step follows the edges of nodes it has rather than every edge of its
// label.
func joinOrder[S any](steps []S, ends func(S) (from, to, size int)) []S {
	out := make([]S, 0, len(steps))
	used := make([]bool, len(steps))
	seen := map[int]bool{}
	for range steps {
		best, bestRank, bestSize := -1, -1, 0
		for i, s := range steps {
			if used[i] {
				continue
			}
			from, to, size := ends(s)
			rank := 0
			if seen[from] {
				rank++
			}
			if seen[to] {
				rank++
			}
			if best < 0 || rank > bestRank || (rank == bestRank && size < bestSize) {
				best, bestRank, bestSize = i, rank, size
			}
		}
		used[best] = true
		from, to, _ := ends(steps[best])
		seen[from], seen[to] = true, true
		out = append(out, steps[best])
	}
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

// HasRules reports whether some relation or property of s has a rule.
func (s *Schema) HasRules() bool {
	for _, t := range s.Types {
		for _, rel := range t.Relations {
			if strings.TrimSpace(rel.Rule) != "" {
				return true
			}
		}
		for _, p := range t.Properties {
			if strings.TrimSpace(p.Rule) != "" {
				return true
			}
		}
	}
	return false
}

// DeriveRules runs every rule of s's relations over g, each within budget
// b, and returns the derived edges g does not hold yet, and a problem for
// each rule it does not run (with the field path of the rule and the
// reason): a form it does not run, or a rule over its budget. It stops at
// once with ctx's error when ctx ends.
func DeriveRules(ctx context.Context, s *Schema, g extract.Graph, b Budget) ([]extract.Edge, []Problem, error) {
	b = b.withDefaults()
	have := make(map[string]bool, len(g.Edges))
	for _, e := range g.Edges {
		have[e.Key()] = true
	}
	var rg *ruleGraph
	var out []extract.Edge
	var skipped []Problem
	for i, t := range s.Types {
		for j, rel := range t.Relations {
			if strings.TrimSpace(rel.Rule) == "" {
				continue
			}
			field := fmt.Sprintf("types[%d].relations[%d].rule", i, j)
			r, err := ParseRule(rel.Rule)
			if err != nil {
				skipped = append(skipped, Problem{Field: field, Message: extract.MessageOf(err)})
				continue
			}
			if rg == nil {
				rg = indexRuleGraph(g)
			}
			derived, err := r.derive(ctx, rg, b)
			if err != nil {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				skipped = append(skipped, Problem{Field: field, Message: extract.MessageOf(err)})
				continue
			}
			for _, e := range derived {
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
	return out, skipped, nil
}
