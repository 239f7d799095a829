package schema

import (
	"context"
	"errors"
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
// direction; a path may be a lone node, "(s)". A variable's type may name
// a concept, "(a:`TaxOfRiskApp`/`赌博应用`)": it binds the nodes classified
// under that concept (with a belongTo edge to the concept's node). A
// concept rule names a concept as its object and classifies each subject
// the structure matches under it:
//
//	Define (s:App)-[p:belongTo]->(o:`TaxOfRiskApp`/`赌博应用`) {
//	    Structure { (s) }
//	    Constraint { R1("gambling"): s.riskMark like "%赌博%" }
//	}
//
// CONSTRAINT lines are conditions every match must meet: a property of a
// node or edge variable compared with a number or a quoted text (>, >=, <,
// <=, ==, !=, like, not like with % and _ wildcards); and one count per
// subject and object with thresholds on it:
//
//	deviceNum = group(s,o).count(d)
//	R1("more than 5 devices"): deviceNum > 5
//
// Keywords are read in any case (STRUCTURE, Structure). Rules that compute
// a property value (an object of a basic type, sums, dates, arithmetic)
// are not run. A rule runs within a Budget of join steps and matches and
// stops when its context ends (see Derive).
type Rule struct {
	Subject, Predicate, Object string
	// Types maps each variable to its type, "" for any.
	Types map[string]string
	// Concepts maps a variable typed `Type`/`Concept` in STRUCTURE to the
	// concept: it binds only nodes classified under it.
	Concepts map[string]string
	// ObjectConcept, when set, makes the rule a concept rule: its object
	// is the node of type Types[Object] named ObjectConcept (made when the
	// graph has none), not a variable of STRUCTURE.
	ObjectConcept string
	Patterns      []RuleEdge
	// Lone are the variables STRUCTURE names in no edge ("(s)"): each is
	// bound to every node of its type.
	Lone []string
	// EdgeVars maps an edge variable ("[f:fundTrans]") to its pattern.
	EdgeVars map[string]int
	// Filters are the property conditions every match must meet.
	Filters []RuleFilter
	// CountVar, when set, is counted per (subject, object); every
	// condition must hold for a pair to be kept.
	CountVar   string
	Conditions []RuleCondition
	countName  string // the name the count is given ("deviceNum")
}

// RuleEdge is one edge of a STRUCTURE path: From -[Label]-> To.
type RuleEdge struct{ From, Label, To string }

// RuleCondition compares the count with a number: Op is >, >=, <, <=, == or !=.
type RuleCondition struct {
	Op    string
	Value float64
}

// RuleFilter is a CONSTRAINT condition on a property of a node or edge
// variable: Var.Prop Op Value, where Op is >, >=, <, <=, ==, !=, like or
// "not like". A number Value compares as a number with a property that
// reads as one; "id" and "name" are the node's name.
type RuleFilter struct {
	Var, Prop, Op string
	Value         string
	Number        float64
	IsNumber      bool
	like          *regexp.Regexp
}

// typeRef is a variable's type: a name, optionally dotted and with a
// concept after a slash, each part possibly in backticks.
const typeRef = "(?:`[^`]*`|[\\w.]+)(?:\\s*/\\s*(?:`[^`]*`|[^\\s)`]+))?"

var (
	defineRE = regexp.MustCompile(`(?is)Define\s*\(\s*(\w+)\s*:\s*(` + typeRef + `)\s*\)\s*-\s*\[\s*(\w+)\s*:\s*([\w.#]+)\s*\]\s*->\s*\(\s*(\w+)\s*:\s*(` + typeRef + `)\s*\)\s*\{`)
	blockRE  = regexp.MustCompile(`(?is)\b(STRUCTURE|CONSTRAINT)\s*\{([^{}]*)\}`)
	nodeRE   = regexp.MustCompile(`^\(\s*(\w+)\s*(?::\s*(` + typeRef + `)\s*)?\)`)
	edgeRE   = regexp.MustCompile(`^(<?)-\s*\[\s*(?:(\w+)\s*)?(?::\s*([\w.#]+)\s*)?\]\s*-(>?)`)
	groupRE  = regexp.MustCompile(`(?i)^(\w+)\s*(?:\("[^"]*"\))?\s*=\s*group\(\s*(\w+)\s*,\s*(\w+)\s*\)\.count\(\s*(\w+)\s*\)$`)
	// condRE is a condition, named or not: [R1("why"):] left op right.
	condRE = regexp.MustCompile(`(?i)^(?:\w+\s*(?:\(\s*"[^"]*"\s*\))?\s*:)?\s*(\w+(?:\.\w+)?)\s*(>=|<=|==|!=|>|<|=|not\s+like|like)\s*("[^"]*"|'[^']*'|-?[0-9]+(?:\.[0-9]+)?)$`)
)

// splitTypeRef reads a typeRef: "`RiskMining.TaxOfRiskApp`/`赌博应用`" is
// the type "RiskMining.TaxOfRiskApp" and the concept "赌博应用".
func splitTypeRef(ref string) (typ, concept string) {
	unquote := func(s string) string { return strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "`")) }
	if strings.HasPrefix(ref, "`") {
		if end := strings.IndexByte(ref[1:], '`'); end >= 0 {
			typ, rest := ref[1:1+end], strings.TrimSpace(ref[2+end:])
			if c, ok := strings.CutPrefix(rest, "/"); ok {
				return strings.TrimSpace(typ), unquote(c)
			}
			return strings.TrimSpace(typ), ""
		}
	}
	if t, c, ok := strings.Cut(ref, "/"); ok {
		return unquote(t), unquote(c)
	}
	return unquote(ref), ""
}

// ParseRule reads a rule's text. A rule of another form is an invalid
// error saying why it is not run.
func ParseRule(text string) (*Rule, error) {
	m := defineRE.FindStringSubmatch(text)
	if m == nil {
		return nil, extract.Errorf(extract.KindInvalid, "no Define (s:Type)-[p:name]->(o:Type) head")
	}
	r := &Rule{Subject: m[1], Predicate: m[4], Object: m[5], Types: map[string]string{}, Concepts: map[string]string{}, EdgeVars: map[string]int{}}
	if t, c := splitTypeRef(m[2]); c != "" {
		r.Types[r.Subject], r.Concepts[r.Subject] = t, c
	} else {
		r.Types[r.Subject] = t
	}
	objType, objConcept := splitTypeRef(m[6])
	r.Types[r.Object], r.ObjectConcept = objType, objConcept
	if contains(BasicTypes, objType) {
		return nil, extract.Errorf(extract.KindInvalid, "rule %s computes a %s value, not a relation: not run", r.Predicate, objType)
	}
	named := map[string]bool{}
	var constraints []string
	for _, b := range blockRE.FindAllStringSubmatch(text, -1) {
		body := strings.TrimSpace(b[2])
		if strings.EqualFold(b[1], "STRUCTURE") {
			for _, path := range splitPaths(body) {
				if err := r.addPath(path, named); err != nil {
					return nil, extract.Errorf(extract.KindInvalid, "rule %s: %v", r.Predicate, err)
				}
			}
			continue
		}
		constraints = append(constraints, body)
	}
	if len(named) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "rule %s: STRUCTURE has no path (write it as STRUCTURE { (s)-[:label]->(o) }, any case)", r.Predicate)
	}
	if !named[r.Subject] {
		return nil, extract.Errorf(extract.KindInvalid, "rule %s: its subject %s appears in no STRUCTURE path, so it derives nothing", r.Predicate, r.Subject)
	}
	if r.ObjectConcept == "" && !named[r.Object] {
		return nil, extract.Errorf(extract.KindInvalid, "rule %s: its object %s appears in no STRUCTURE path, so it derives nothing", r.Predicate, r.Object)
	}
	if r.ObjectConcept != "" && named[r.Object] {
		return nil, extract.Errorf(extract.KindInvalid, "rule %s: its object %s is the concept %s and cannot also be a STRUCTURE variable", r.Predicate, r.Object, r.ObjectConcept)
	}
	inEdge := map[string]bool{}
	for _, p := range r.Patterns {
		inEdge[p.From], inEdge[p.To] = true, true
	}
	for v := range named {
		if !inEdge[v] {
			r.Lone = append(r.Lone, v)
		}
	}
	sort.Strings(r.Lone)
	for _, body := range constraints {
		for _, line := range strings.Split(body, "\n") {
			if i := strings.Index(line, "//"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			if err := r.addConstraint(line, named); err != nil {
				return nil, extract.Errorf(extract.KindInvalid, "rule %s: constraint %q %v", r.Predicate, line, err)
			}
		}
	}
	return r, nil
}

// addConstraint reads one CONSTRAINT line: a count, a condition on it, or
// a condition on a variable's property.
func (r *Rule) addConstraint(line string, named map[string]bool) error {
	if g := groupRE.FindStringSubmatch(line); g != nil {
		if g[2] != r.Subject || g[3] != r.Object || r.CountVar != "" || !named[g[4]] {
			return fmt.Errorf("is not a form kgstudio runs (one group(%s,%s).count(x) of a STRUCTURE variable)", r.Subject, r.Object)
		}
		r.countName, r.CountVar = g[1], g[4]
		return nil
	}
	c := condRE.FindStringSubmatch(line)
	if c == nil {
		return errors.New("is not a form kgstudio runs (a count threshold, or a property compared with a number or a quoted text)")
	}
	op := strings.ToLower(strings.Join(strings.Fields(c[2]), " "))
	if op == "=" {
		op = "=="
	}
	val := c[3]
	quoted := strings.HasPrefix(val, `"`) || strings.HasPrefix(val, `'`)
	if quoted {
		val = val[1 : len(val)-1]
	}
	left, prop, isProp := strings.Cut(c[1], ".")
	if !isProp {
		if r.countName == "" || left != r.countName || quoted || strings.Contains(op, "like") {
			return errors.New("compares what is neither a count of group(s,o) nor a variable's property")
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return err
		}
		r.Conditions = append(r.Conditions, RuleCondition{Op: op, Value: v})
		return nil
	}
	if _, isEdge := r.EdgeVars[left]; !named[left] && !isEdge {
		return fmt.Errorf("names %s, which is no variable of STRUCTURE", left)
	}
	f := RuleFilter{Var: left, Prop: prop, Op: op, Value: val}
	if strings.Contains(op, "like") {
		if !quoted {
			return errors.New("likes what is not a quoted text")
		}
		f.like = likePattern(val)
	} else if !quoted {
		f.Number, f.IsNumber = mustFloat(val), true
	}
	r.Filters = append(r.Filters, f)
	return nil
}

func mustFloat(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// likePattern is SQL's LIKE: % any run of characters, _ one character.
func likePattern(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)^")
	for _, c := range p {
		switch c {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
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

// addPath reads one path "(a:T)-[:l]->(b)<-[m]-(c)", or a lone node
// "(s)", and marks the variables it names.
func (r *Rule) addPath(path string, named map[string]bool) error {
	rest := strings.TrimSpace(path)
	n := nodeRE.FindStringSubmatch(rest)
	if n == nil {
		return fmt.Errorf("path %q does not start with a node", path)
	}
	prev := r.bind(n[1], n[2], named)
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
		next := r.bind(n[1], n[2], named)
		// [:label], [v:label] or, leniently, [label].
		label := e[3]
		if label == "" {
			label = e[2]
		} else if e[2] != "" {
			r.EdgeVars[e[2]] = len(r.Patterns)
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

func (r *Rule) bind(v, ref string, named map[string]bool) string {
	named[v] = true
	if ref != "" {
		typ, concept := splitTypeRef(ref)
		r.Types[v] = typ
		if concept != "" {
			r.Concepts[v] = concept
		}
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
// types, names and properties, and each label's edges by source and by
// target. Labels and types compare without case or namespace prefix.
// Derived edges and concept nodes are added as rules run, so a rule joins
// what an earlier rule derived.
type ruleGraph struct {
	keys  []string         // node number -> key
	ids   map[string]int32 // key -> node number
	types []int32          // node number -> type number; noNode for an edge end that is no node
	names []string
	props []map[string]any
	// typeIDs numbers the types, lower-case without prefix.
	typeIDs map[string]int32
	byLabel map[string]*labelEdges
	// byName finds a node by type number and normalised name (concepts).
	byName map[typedName]int32
}

type typedName struct {
	typ  int32
	name string
}

// labelEdges are the edges of one label: their ends and properties by
// edge number, and the edge numbers by source and by target node.
type labelEdges struct {
	src, dst []int32
	props    []map[string]any
	bySource map[int32][]int32
	byTarget map[int32][]int32
}

// Type numbers of ruleGraph.types and of a variable's wanted type.
const (
	noNode  = -1 // an edge end that is no node of the graph: no variable binds it
	anyType = -2 // a variable of any type
	noType  = -3 // a variable of a type no node has
)

// memberLabel is the label that classifies a node under a concept.
const memberLabel = "belongto"

func indexRuleGraph(g extract.Graph) *ruleGraph {
	rg := &ruleGraph{ids: make(map[string]int32, len(g.Nodes)), typeIDs: map[string]int32{}, byLabel: map[string]*labelEdges{}, byName: map[typedName]int32{}}
	for _, n := range g.Nodes {
		rg.addNode(n)
	}
	for _, e := range g.Edges {
		rg.addEdge(e)
	}
	return rg
}

// id numbers a key, as no node until addNode gives it a type.
func (rg *ruleGraph) id(key string) int32 {
	if i, ok := rg.ids[key]; ok {
		return i
	}
	i := int32(len(rg.keys))
	rg.ids[key] = i
	rg.keys = append(rg.keys, key)
	rg.types = append(rg.types, noNode)
	rg.names = append(rg.names, "")
	rg.props = append(rg.props, nil)
	return i
}

func (rg *ruleGraph) typeID(typ string) int32 {
	t := strings.ToLower(lastPart(typ))
	tid, ok := rg.typeIDs[t]
	if !ok {
		tid = int32(len(rg.typeIDs))
		rg.typeIDs[t] = tid
	}
	return tid
}

func (rg *ruleGraph) addNode(n extract.Node) {
	i, tid := rg.id(n.Key), rg.typeID(n.Type)
	rg.types[i], rg.names[i], rg.props[i] = tid, n.Name, n.Properties
	k := typedName{tid, extract.NormalizeName(n.Name)}
	if _, ok := rg.byName[k]; !ok {
		rg.byName[k] = i
	}
}

func (rg *ruleGraph) addEdge(e extract.Edge) {
	label := strings.ToLower(lastPart(e.Label))
	le := rg.byLabel[label]
	if le == nil {
		le = &labelEdges{bySource: map[int32][]int32{}, byTarget: map[int32][]int32{}}
		rg.byLabel[label] = le
	}
	i, s, t := int32(len(le.src)), rg.id(e.Source), rg.id(e.Target)
	le.src, le.dst, le.props = append(le.src, s), append(le.dst, t), append(le.props, e.Properties)
	le.bySource[s] = append(le.bySource[s], i)
	le.byTarget[t] = append(le.byTarget[t], i)
}

// concept is the node of a concept type and name, noNode when the graph
// has none.
func (rg *ruleGraph) concept(typ, name string) int32 {
	tid, ok := rg.typeIDs[strings.ToLower(lastPart(typ))]
	if !ok {
		return noNode
	}
	if i, ok := rg.byName[typedName{tid, extract.NormalizeName(name)}]; ok {
		return i
	}
	return noNode
}

// member reports whether node is classified under the concept node c.
func (rg *ruleGraph) member(node, c int32) bool {
	le := rg.byLabel[memberLabel]
	if le == nil || c == noNode {
		return false
	}
	for _, j := range le.bySource[node] {
		if le.dst[j] == c {
			return true
		}
	}
	return false
}

// Derive returns the relations the rule derives in g: an edge labelled
// Predicate from every subject to every object a STRUCTURE match joins
// (and that meets the constraints), marked Properties["rule"], in a stable
// order. Node types compare without case or namespace prefix. A concept
// rule's edges point to the concept's node, TypedNodeKey(type, concept)
// when g has no node of that type and name.
//
// The join follows the edges of the nodes bound so far and stops when it
// passes the budget (an invalid error saying so: the rule derives
// nothing) or when ctx ends (ctx's error), which it checks every few
// thousand steps.
func (r *Rule) Derive(ctx context.Context, g extract.Graph, b Budget) ([]extract.Edge, error) {
	edges, _, err := r.derive(ctx, indexRuleGraph(g), b.withDefaults())
	return edges, err
}

// derive is Derive over an indexed graph. It also returns the concept
// node it added to rg when the rule's concept had none.
func (r *Rule) derive(ctx context.Context, rg *ruleGraph, b Budget) ([]extract.Edge, *extract.Node, error) {
	j, made, ok := newRuleJoin(ctx, r, rg, b)
	if !ok {
		return nil, nil, ctx.Err() // a label the graph lacks: no match
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if !j.walk(0) {
		return nil, nil, j.stop
	}
	return j.derived(), made, nil
}

// unbound marks a variable of a ruleJoin that no node is bound to.
const unbound = -1

// ruleJoin is one rule's join over an indexed graph: its variables, the
// steps that bind them in join order, what is bound so far and the
// matches found.
type ruleJoin struct {
	ctx context.Context
	r   *Rule
	rg  *ruleGraph
	b   Budget
	// Variables by number, each with the type number it wants and the
	// concept node it must be classified under (noNode for none).
	slot        map[string]int
	want, under []int32
	steps       []joinStep
	byPattern   []*labelEdges // each pattern's edges
	lone        []int         // the variables of no pattern
	subj        int
	obj         int   // -1 for a concept rule, whose object is fixedObj
	fixedObj    int32 // a concept rule's concept node, else noNode
	counted     int   // the counted variable, -1 when the rule counts nothing
	bound       []int32
	edgeAt      []int32 // the edge each pattern is bound to
	// seen holds the matches; counts the matches per pair.
	seen   map[ruleMatch]struct{}
	counts map[rulePair]int
	work   int
	stop   error // why the walk stopped
}

// joinStep binds the ends of one STRUCTURE edge to an edge of its label.
type joinStep struct {
	from, to, pattern int
	edges             *labelEdges
}

// rulePair is a subject and an object a rule joins.
type rulePair struct{ s, o int32 }

// ruleMatch is a subject, an object and the counted node (unbound when
// the rule counts nothing).
type ruleMatch struct {
	rulePair
	c int32
}

// newRuleJoin numbers the rule's variables and orders its steps. It
// reports false when the graph lacks a label of STRUCTURE (no match),
// before it makes the concept node a concept rule needs and rg lacks,
// which it returns.
func newRuleJoin(ctx context.Context, r *Rule, rg *ruleGraph, b Budget) (*ruleJoin, *extract.Node, bool) {
	j := &ruleJoin{ctx: ctx, r: r, rg: rg, b: b, slot: map[string]int{}, obj: -1, fixedObj: noNode, counted: -1}
	j.steps = make([]joinStep, len(r.Patterns))
	j.byPattern = make([]*labelEdges, len(r.Patterns))
	for i, p := range r.Patterns {
		j.steps[i] = joinStep{from: j.varOf(p.From), to: j.varOf(p.To), pattern: i, edges: rg.byLabel[strings.ToLower(lastPart(p.Label))]}
		if j.byPattern[i] = j.steps[i].edges; j.byPattern[i] == nil {
			return nil, nil, false
		}
	}
	j.lone = make([]int, len(r.Lone))
	for i, v := range r.Lone {
		j.lone[i] = j.varOf(v)
	}
	j.subj = j.varOf(r.Subject)
	made := j.bindObject()
	if r.CountVar != "" {
		j.counted = j.varOf(r.CountVar)
	}
	j.steps = joinOrder(j.steps, func(s joinStep) (int, int, int) { return s.from, s.to, len(s.edges.src) })
	j.bound = make([]int32, len(j.want))
	for i := range j.bound {
		j.bound[i] = unbound
	}
	j.edgeAt = make([]int32, len(r.Patterns))
	j.seen = map[ruleMatch]struct{}{}
	j.counts = map[rulePair]int{}
	return j, made, true
}

// varOf returns the number of variable v, numbering it on first use with
// the type it wants and the concept it must be classified under.
func (j *ruleJoin) varOf(v string) int {
	if i, ok := j.slot[v]; ok {
		return i
	}
	j.slot[v] = len(j.want)
	w := int32(anyType)
	if t := strings.ToLower(lastPart(j.r.Types[v])); t != "" {
		w = noType
		if id, ok := j.rg.typeIDs[t]; ok {
			w = id
		}
	}
	c := int32(noNode)
	if name, ok := j.r.Concepts[v]; ok {
		// The type names the concept's taxonomy; what it binds is
		// any node classified under the concept.
		w = anyType
		if c = j.rg.concept(j.r.Types[v], name); c == noNode {
			w = noType // a concept the graph lacks classifies nothing
		}
	}
	j.want, j.under = append(j.want, w), append(j.under, c)
	return len(j.want) - 1
}

// bindObject numbers the object variable, or for a concept rule fixes the
// object to the concept's node, adding that node to the graph (and
// returning it) when the graph has none.
func (j *ruleJoin) bindObject() *extract.Node {
	r := j.r
	if r.ObjectConcept == "" {
		j.obj = j.varOf(r.Object)
		return nil
	}
	if j.fixedObj = j.rg.concept(r.Types[r.Object], r.ObjectConcept); j.fixedObj != noNode {
		return nil
	}
	typ := lastPart(r.Types[r.Object])
	made := &extract.Node{Key: extract.TypedNodeKey(typ, r.ObjectConcept), Name: r.ObjectConcept, Type: typ,
		Description: "concept " + r.ObjectConcept + " of " + typ + ", named by a schema rule"}
	j.rg.addNode(*made)
	j.fixedObj = j.rg.ids[made.Key]
	return made
}

// typed reports whether node has the type and concept variable v wants.
func (j *ruleJoin) typed(v int, node int32) bool {
	t := j.rg.types[node]
	return t != noNode && (j.want[v] == anyType || t == j.want[v]) && (j.under[v] == noNode || j.rg.member(node, j.under[v]))
}

// charge counts one step of work; it reports false once the walk must
// stop (over the budget, or the context ended).
func (j *ruleJoin) charge() bool {
	if j.work++; j.work > j.b.MaxSteps {
		j.stop = extract.Errorf(extract.KindInvalid, "rule %s: over its budget of %d join steps: not run (narrow the rule's STRUCTURE)", j.r.Predicate, j.b.MaxSteps)
		return false
	}
	if j.work%checkEvery == 0 {
		if err := j.ctx.Err(); err != nil {
			j.stop = err
			return false
		}
	}
	return true
}

// meets reports whether the bound variables meet every filter.
func (j *ruleJoin) meets() bool {
	for _, f := range j.r.Filters {
		var v any
		var ok bool
		if p, isEdge := j.r.EdgeVars[f.Var]; isEdge {
			v, ok = j.byPattern[p].props[j.edgeAt[p]][f.Prop]
		} else {
			node := j.bound[j.slot[f.Var]]
			switch strings.ToLower(f.Prop) {
			case "id", "name":
				v, ok = j.rg.names[node], true
			default:
				v, ok = j.rg.props[node][f.Prop]
			}
		}
		if !ok || !f.holds(v) {
			return false
		}
	}
	return true
}

// record keeps the match the bound variables make, when they bind a
// subject and a distinct object and meet the filters; it reports false
// once the rule has more matches than its budget allows.
func (j *ruleJoin) record() bool {
	p := rulePair{j.bound[j.subj], j.fixedObj}
	if j.obj >= 0 {
		p.o = j.bound[j.obj]
	}
	if p.s == unbound || p.o == unbound || p.s == p.o || !j.meets() {
		return true
	}
	m := ruleMatch{p, unbound}
	if j.counted >= 0 {
		m.c = j.bound[j.counted]
	}
	if _, ok := j.seen[m]; !ok {
		if len(j.seen) >= j.b.MaxMatches {
			j.stop = extract.Errorf(extract.KindInvalid, "rule %s: matches more than %d times: not run (narrow the rule's STRUCTURE)", j.r.Predicate, j.b.MaxMatches)
			return false
		}
		j.seen[m] = struct{}{}
		j.counts[p]++
	}
	return true
}

// bindLone binds the k-th lone variable to each node of its type; it
// reports false once the walk must stop.
func (j *ruleJoin) bindLone(k int) bool {
	if k == len(j.lone) {
		return j.record()
	}
	v := j.lone[k]
	for node := range j.rg.types {
		if !j.charge() {
			return false
		}
		if !j.typed(v, int32(node)) {
			continue
		}
		j.bound[v] = int32(node)
		ok := j.bindLone(k + 1)
		j.bound[v] = unbound
		if !ok {
			return false
		}
	}
	return true
}

// try binds step i's ends to its label's edge e and walks on; it reports
// false once the walk must stop.
func (j *ruleJoin) try(i int, e int32) bool {
	if !j.charge() {
		return false
	}
	s := j.steps[i]
	src, dst := s.edges.src[e], s.edges.dst[e]
	if !j.typed(s.from, src) || !j.typed(s.to, dst) {
		return true
	}
	bound := j.bound
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
	j.edgeAt[s.pattern] = e
	ok := j.walk(i + 1)
	if setFrom {
		bound[s.from] = unbound
	}
	if setTo {
		bound[s.to] = unbound
	}
	return ok
}

// walk binds the steps from i on, each to the edges its bound ends allow
// (every edge of its label when neither is bound), then the lone
// variables; it reports false once the walk must stop.
func (j *ruleJoin) walk(i int) bool {
	if i == len(j.steps) {
		return j.bindLone(0)
	}
	s := j.steps[i]
	var cand []int32
	switch {
	case j.bound[s.from] != unbound:
		cand = s.edges.bySource[j.bound[s.from]]
	case j.bound[s.to] != unbound:
		cand = s.edges.byTarget[j.bound[s.to]]
	default:
		for e := range s.edges.src {
			if !j.try(i, int32(e)) {
				return false
			}
		}
		return true
	}
	for _, e := range cand {
		if !j.try(i, e) {
			return false
		}
	}
	return true
}

// derived returns an edge for each pair whose match count meets the
// rule's conditions, in key order.
func (j *ruleJoin) derived() []extract.Edge {
	r := j.r
	var out []extract.Edge
	for p, n := range j.counts {
		if !r.holds(float64(n)) {
			continue
		}
		out = append(out, extract.Edge{Source: j.rg.keys[p.s], Target: j.rg.keys[p.o], Label: r.Predicate, Weight: 1,
			Description: r.describe(), Properties: map[string]any{"rule": true}})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key() < out[b].Key() })
	return out
}

// describe is a derived edge's description.
func (r *Rule) describe() string {
	if r.ObjectConcept != "" {
		return "derived by the schema's concept rule for " + r.ObjectConcept
	}
	return "derived by the schema's rule for " + r.Predicate
}

// holds reports whether a property value meets the filter. A list holds
// when one of its items does; a value that reads as a number compares as
// one with a number.
func (f RuleFilter) holds(v any) bool {
	if list, ok := v.([]any); ok {
		for _, item := range list {
			if f.holds(item) {
				return true
			}
		}
		return false
	}
	text := fmt.Sprint(v)
	switch f.Op {
	case "like":
		return f.like.MatchString(text)
	case "not like":
		return !f.like.MatchString(text)
	}
	cmp := 0
	if f.IsNumber {
		n, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return f.Op == "!="
		}
		cmp = compareFloat(n, f.Number)
	} else {
		cmp = strings.Compare(text, f.Value)
	}
	return compareHolds(f.Op, cmp)
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareHolds reports whether a comparison whose sides compare as cmp
// (-1, 0, 1) meets op.
func compareHolds(op string, cmp int) bool {
	switch op {
	case ">":
		return cmp > 0
	case ">=":
		return cmp >= 0
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case "==":
		return cmp == 0
	case "!=":
		return cmp != 0
	}
	return false
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
		if !compareHolds(c.Op, compareFloat(n, c.Value)) {
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

// HasRules reports whether some relation or property of s has a rule, or
// s has concept rules.
func (s *Schema) HasRules() bool {
	if len(s.ConceptRules) > 0 {
		return true
	}
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

// schemaRule is one rule of a schema with the field path it sits at and,
// for a concept rule, the concept its section names.
type schemaRule struct {
	field, text, concept string
}

// rules lists the rules of s DeriveRules runs, and a problem for each
// rule it never runs: a property rule that computes a value.
func (s *Schema) rules() ([]schemaRule, []Problem) {
	var out []schemaRule
	var skipped []Problem
	basic := map[string]bool{}
	for _, b := range BasicTypes {
		basic[strings.ToLower(b)] = true
	}
	for i, t := range s.Types {
		for j, rel := range t.Relations {
			if strings.TrimSpace(rel.Rule) != "" {
				out = append(out, schemaRule{fmt.Sprintf("types[%d].relations[%d].rule", i, j), rel.Rule, ""})
			}
		}
		for j, p := range t.Properties {
			if strings.TrimSpace(p.Rule) == "" {
				continue
			}
			field := fmt.Sprintf("types[%d].properties[%d].rule", i, j)
			if basic[strings.ToLower(p.Type)] || strings.HasPrefix(p.Type, "STD.") {
				skipped = append(skipped, Problem{Field: field, Message: fmt.Sprintf("rule for property %s.%s computes a value: not run", t.Name, p.Name)})
				continue
			}
			// A property of a declared type (IND#belongTo: TaxOfRiskApp)
			// is a relation: its rule derives edges.
			out = append(out, schemaRule{field, p.Rule, ""})
		}
	}
	for i, c := range s.ConceptRules {
		out = append(out, schemaRule{fmt.Sprintf("concept_rules[%d].rule", i), c.Rule, c.Concept})
	}
	return out, skipped
}

// Derivation is what DeriveRules did: the relations its rules derived
// with the concept nodes they need, the rules it did not run and the
// rules that ran and derived nothing, each with its field path and why.
type Derivation struct {
	Graph   extract.Graph
	Skipped []Problem
	Idle    []Problem
}

// DeriveRules runs every rule of s over g, each within budget b: the
// rules of relations, of properties whose type is a declared type, and the
// concept rules. A rule joins what the others derived: the rules run again
// while a round derives something new (at most once more than there are
// rules), so "developed" feeds a concept rule over developers. It returns
// the derived edges g does not hold yet with the concept nodes they need
// that g lacks; a problem for each rule it does not run (a form it does
// not run, or a rule over its budget); and for each rule that derived
// nothing, what in g it found missing. It stops at once with ctx's error
// when ctx ends.
func DeriveRules(ctx context.Context, s *Schema, g extract.Graph, b Budget) (Derivation, error) {
	b = b.withDefaults()
	var d Derivation
	have := make(map[string]bool, len(g.Edges))
	for _, e := range g.Edges {
		have[e.Key()] = true
	}
	list, skipped := s.rules()
	d.Skipped = skipped
	type parsed struct {
		field string
		rule  *Rule
	}
	var runnable []parsed
	for _, sr := range list {
		r, err := ParseRule(sr.text)
		if err != nil {
			msg := extract.MessageOf(err)
			if sr.concept != "" {
				msg = "concept " + sr.concept + ": " + msg
			}
			d.Skipped = append(d.Skipped, Problem{Field: sr.field, Message: msg})
			continue
		}
		runnable = append(runnable, parsed{sr.field, r})
	}
	if len(runnable) == 0 {
		return d, ctx.Err()
	}
	rg := indexRuleGraph(g)
	failed := make([]bool, len(runnable))
	derivedBy := make([]int, len(runnable))
	var madeNodes []extract.Node // concept nodes the rules added to rg
	for round := 0; round <= len(runnable); round++ {
		added := 0
		for i, p := range runnable {
			if failed[i] {
				continue
			}
			derived, made, err := p.rule.derive(ctx, rg, b)
			if err != nil {
				if ctx.Err() != nil {
					return Derivation{}, ctx.Err()
				}
				failed[i] = true
				d.Skipped = append(d.Skipped, Problem{Field: p.field, Message: extract.MessageOf(err)})
				continue
			}
			if made != nil {
				madeNodes = append(madeNodes, *made)
			}
			derivedBy[i] += len(derived)
			for _, e := range derived {
				if !have[e.Key()] {
					have[e.Key()] = true
					rg.addEdge(e)
					d.Graph.Edges = append(d.Graph.Edges, e)
					added++
				}
			}
		}
		if added == 0 {
			break
		}
	}
	for _, n := range madeNodes {
		for _, e := range d.Graph.Edges {
			if e.Target == n.Key {
				d.Graph.Nodes = append(d.Graph.Nodes, n)
				break
			}
		}
	}
	for i, p := range runnable {
		if !failed[i] && derivedBy[i] == 0 {
			d.Idle = append(d.Idle, Problem{Field: p.field, Message: p.rule.whyNothing(rg)})
		}
	}
	return d, nil
}

// whyNothing says why the rule matched nothing in rg: the first label,
// type or concept its structure names that rg lacks, else that no match
// met the structure and constraints.
func (r *Rule) whyNothing(rg *ruleGraph) string {
	name := r.Predicate
	if r.ObjectConcept != "" {
		name += " → " + r.ObjectConcept
	}
	for _, p := range r.Patterns {
		if rg.byLabel[strings.ToLower(lastPart(p.Label))] == nil {
			return fmt.Sprintf("rule %s derived nothing: the graph has no %s edge", name, p.Label)
		}
	}
	vars := make([]string, 0, len(r.Types))
	for v := range r.Types {
		vars = append(vars, v)
	}
	sort.Strings(vars)
	for _, v := range vars {
		t := r.Types[v]
		if v == r.Object && r.ObjectConcept != "" || t == "" {
			continue
		}
		if c, ok := r.Concepts[v]; ok {
			if rg.concept(t, c) == noNode {
				return fmt.Sprintf("rule %s derived nothing: the graph has no concept %s of %s for %s", name, c, lastPart(t), v)
			}
			continue
		}
		if _, ok := rg.typeIDs[strings.ToLower(lastPart(t))]; !ok {
			return fmt.Sprintf("rule %s derived nothing: the graph has no node of type %s for %s", name, lastPart(t), v)
		}
	}
	return fmt.Sprintf("rule %s derived nothing: no match met its structure and constraints", name)
}

// RuleWarnings checks the rules of s against the schema: a rule kgstudio
// does not run says why, and a rule naming a type the schema does not
// declare (but for basic and standard types), or a concept rule whose
// concept's type is not a concept type, is named, since either derives
// nothing the schema knows.
func RuleWarnings(s *Schema) []Problem {
	var out []Problem
	list, _ := s.rules()
	declared := map[string]*EntityType{}
	for i := range s.Types {
		declared[strings.ToLower(s.Types[i].Name)] = &s.Types[i]
	}
	known := func(typ string) bool {
		t := strings.ToLower(lastPart(typ))
		return t == "" || declared[t] != nil || contains(BasicTypes, lastPart(typ)) || strings.HasPrefix(typ, "STD.")
	}
	for _, sr := range list {
		who := "rule"
		if sr.concept != "" {
			who = "concept rule " + sr.concept
		}
		r, err := ParseRule(sr.text)
		if err != nil {
			out = append(out, Problem{Field: sr.field, Message: who + ": " + extract.MessageOf(err)})
			continue
		}
		vars := make([]string, 0, len(r.Types))
		for v := range r.Types {
			vars = append(vars, v)
		}
		sort.Strings(vars)
		for _, v := range vars {
			if t := r.Types[v]; !known(t) {
				out = append(out, Problem{Field: sr.field, Message: fmt.Sprintf("%s: %s is typed %s, which the schema does not declare", who, v, lastPart(t))})
			}
		}
		if r.ObjectConcept != "" {
			if t := declared[strings.ToLower(lastPart(r.Types[r.Object]))]; t != nil && t.Kind != KindConcept {
				out = append(out, Problem{Field: sr.field, Message: fmt.Sprintf("%s: %s is not a concept type", who, t.Name)})
			}
		}
	}
	return out
}
