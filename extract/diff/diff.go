// Package diff compares two extraction graphs: which nodes and edges one
// version added, removed or changed relative to the other, counts by type
// before and after, and, when one side is the reference (gold), precision,
// recall and F1 of the other side.
//
// Matching rules:
//
//   - A node is identified by extract.NormalizeName of its Name, plus its
//     type (case-folded) unless Options.IgnoreType is set. When one graph
//     holds several nodes with the same identity, the first one counts and
//     the others are reported in Summary as duplicates.
//   - An edge is identified by (source, label, target) where source and
//     target are the identities of its endpoint nodes (resolved through the
//     node keys of its own graph; an endpoint key that names no node is
//     normalised as a name with an empty type) and the label is normalised
//     with extract.NormalizeName. With Options.Undirected the two endpoints
//     are ordered, so A-r-B and B-r-A are the same edge. With
//     Options.IgnoreLabels the label is left out: an edge is its pair of
//     endpoints, and several edges between the same endpoints count once.
//   - Without a reference every field difference makes an item "changed".
//     When one side is the reference (gold), only real disagreements do:
//     the surface name or label, and a type, description, keywords or
//     property value that both sides have. A field one side leaves empty
//     (gold nodes have no descriptions, WebNLG's no types) and the edge
//     weight (gold edges carry no confidence) are not compared.
//
// Compare runs in time linear in the size of the graphs: every lookup is a
// map access, and the word diff of a changed description is bounded.
package diff

import (
	"math"
	"reflect"
	"sort"

	"github.com/kgstudio/kgstudio/extract"
)

// Reference sides for Options.Reference.
const (
	// RefNone scores nothing.
	RefNone = 0
	// RefA marks graph a as the reference: b is scored against it.
	RefA = 1
	// RefB marks graph b as the reference: a is scored against it.
	RefB = 2
)

// Options controls matching and scoring.
type Options struct {
	// IgnoreType matches nodes by normalised name only; a type difference
	// is then reported as a change.
	IgnoreType bool `json:"ignore_type"`
	// Undirected matches edges regardless of direction.
	Undirected bool `json:"undirected"`
	// IgnoreLabels matches edges by their endpoints only; a label
	// difference is then reported as a change.
	IgnoreLabels bool `json:"ignore_labels"`
	// Reference is RefNone, RefA (a is gold) or RefB (b is gold).
	Reference int `json:"reference"`
	// IgnoreDescriptions leaves descriptions out of the comparison: a
	// node or edge whose description alone differs is unchanged.
	IgnoreDescriptions bool `json:"ignore_descriptions,omitempty"`
}

// Result is the difference from graph a (before) to graph b (after).
type Result struct {
	Nodes   NodeDiff `json:"nodes"`
	Edges   EdgeDiff `json:"edges"`
	Summary Summary  `json:"summary"`
	// Score is set only when Options.Reference names a side.
	Score *Score `json:"score,omitempty"`
}

// NodeDiff lists node differences. Slices are never nil.
type NodeDiff struct {
	Added   []NodeItem   `json:"added"`
	Removed []NodeItem   `json:"removed"`
	Changed []NodeChange `json:"changed"`
}

// EdgeDiff lists edge differences. Slices are never nil.
type EdgeDiff struct {
	Added   []EdgeItem   `json:"added"`
	Removed []EdgeItem   `json:"removed"`
	Changed []EdgeChange `json:"changed"`
}

// NodeItem names a node of one side by its key in that side's graph.
type NodeItem struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// EdgeItem names an edge of one side; Source and Target are node keys of
// that side's graph.
type EdgeItem struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Label  string `json:"label"`
}

// NodeChange is a node present on both sides whose content differs.
// KeyA and KeyB are its keys in a and b (equal in the usual case).
type NodeChange struct {
	KeyA string `json:"key_a"`
	KeyB string `json:"key_b"`
	Name string `json:"name"`
	// Fields lists what changed, among "name", "type", "description" and
	// "properties", in that order.
	Fields []string `json:"fields"`
	// TypeA and TypeB are the two types; they differ only with IgnoreType.
	TypeA string `json:"type_a"`
	TypeB string `json:"type_b"`
	// NameA and NameB are the two surface names (equal after normalisation).
	NameA string `json:"name_a"`
	NameB string `json:"name_b"`
	// Description is the word diff from a's description to b's, set when
	// the descriptions differ.
	Description []Segment `json:"description,omitempty"`
	// Properties lists the properties that differ, sorted by name.
	Properties []PropertyChange `json:"properties,omitempty"`
}

// EdgeChange is an edge present on both sides whose content differs.
type EdgeChange struct {
	A EdgeItem `json:"a"`
	B EdgeItem `json:"b"`
	// Fields lists what changed, among "label", "direction", "keywords",
	// "weight", "description" and "properties", in that order. "label"
	// means the surface label differs (while its normalised form matches,
	// unless Options.IgnoreLabels); "direction" is only possible with
	// Options.Undirected; "weight" is not compared against a reference.
	Fields      []string         `json:"fields"`
	KeywordsA   string           `json:"keywords_a,omitempty"`
	KeywordsB   string           `json:"keywords_b,omitempty"`
	WeightA     float64          `json:"weight_a"`
	WeightB     float64          `json:"weight_b"`
	Description []Segment        `json:"description,omitempty"`
	Properties  []PropertyChange `json:"properties,omitempty"`
}

// PropertyChange is one property whose value differs. Op is "+" (only in
// b), "-" (only in a) or "~" (in both with different values).
type PropertyChange struct {
	Name string `json:"name"`
	Op   string `json:"op"`
	A    any    `json:"a,omitempty"`
	B    any    `json:"b,omitempty"`
}

// Summary holds totals and per-type counts.
type Summary struct {
	Nodes Totals `json:"nodes"`
	Edges Totals `json:"edges"`
	// NodeTypes counts nodes by type (as written) before and after.
	NodeTypes map[string]TypeCount `json:"node_types"`
	// EdgeLabels counts edges by label (as written) before and after.
	EdgeLabels map[string]TypeCount `json:"edge_labels"`
}

// Totals counts one kind of item. Before and After count distinct
// identities; Duplicates count the items of a and b that were dropped
// because an earlier item had the same identity.
type Totals struct {
	Before      int `json:"before"`
	After       int `json:"after"`
	Added       int `json:"added"`
	Removed     int `json:"removed"`
	Changed     int `json:"changed"`
	Unchanged   int `json:"unchanged"`
	DuplicatesA int `json:"duplicates_a"`
	DuplicatesB int `json:"duplicates_b"`
}

// TypeCount is the number of items of one type before and after.
type TypeCount struct {
	Before int `json:"before"`
	After  int `json:"after"`
	Delta  int `json:"delta"`
}

// Score is the quality of the non-reference side against the reference.
// Edges is scored with the matching rules of the options; Labelled and
// Unlabelled are the edge scores with and without labels (one of them
// equals Edges), so a run whose labels are not the reference vocabulary
// still shows how many relations it found.
type Score struct {
	Nodes      PRF `json:"nodes"`
	Edges      PRF `json:"edges"`
	Labelled   PRF `json:"edges_labelled"`
	Unlabelled PRF `json:"edges_unlabelled"`
}

// PRF is precision, recall and F1. Each is 0 when undefined (no items).
type PRF struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// NewPRF computes precision, recall and F1 from the number of matched items,
// the number of predicted items and the number of reference items.
func NewPRF(matched, predicted, reference int) PRF {
	var p PRF
	if predicted > 0 {
		p.Precision = float64(matched) / float64(predicted)
	}
	if reference > 0 {
		p.Recall = float64(matched) / float64(reference)
	}
	if p.Precision+p.Recall > 0 {
		p.F1 = 2 * p.Precision * p.Recall / (p.Precision + p.Recall)
	}
	return p
}

// Validate reports an invalid Reference.
func (o Options) Validate() error {
	if o.Reference < RefNone || o.Reference > RefB {
		return extract.Errorf(extract.KindInvalid, "reference must be 0 (none), 1 (a) or 2 (b), got %d", o.Reference)
	}
	return nil
}

// side is one graph indexed by identity.
type side struct {
	nodeIdx   map[string]int // identity -> index into g.Nodes (first wins)
	nodeOrder []int          // indexes of kept nodes in input order
	nodeIDs   []string       // identity of each kept node, parallel to nodeOrder
	nodeID    map[string]string
	edgeIdx   map[string]int
	edgeOrder []int
	edgeIDs   []string // parallel to edgeOrder
	edgeDup   int
	nodeDup   int
	ident     identity
}

// index names the nodes and edges of g with ident, keeping the first item
// of each identity and counting the others as duplicates.
func index(g *extract.Graph, ident identity) side {
	s := side{
		nodeIdx: make(map[string]int, len(g.Nodes)),
		nodeID:  make(map[string]string, len(g.Nodes)),
		edgeIdx: make(map[string]int, len(g.Edges)),
		ident:   ident,
	}
	s.nodeOrder = make([]int, 0, len(g.Nodes))
	s.nodeIDs = make([]string, 0, len(g.Nodes))
	for i := range g.Nodes {
		n := &g.Nodes[i]
		id := ident.node(n)
		if _, ok := s.nodeID[n.Key]; !ok {
			s.nodeID[n.Key] = id
		}
		if _, ok := s.nodeIdx[id]; ok {
			s.nodeDup++
			continue
		}
		s.nodeIdx[id] = i
		s.nodeOrder = append(s.nodeOrder, i)
		s.nodeIDs = append(s.nodeIDs, id)
	}
	s.edgeOrder = make([]int, 0, len(g.Edges))
	s.edgeIDs = make([]string, 0, len(g.Edges))
	for i := range g.Edges {
		e := &g.Edges[i]
		id, _, _ := ident.edge(s.nodeID, e.Source, e.Label, e.Target)
		if _, ok := s.edgeIdx[id]; ok {
			s.edgeDup++
			continue
		}
		s.edgeIdx[id] = i
		s.edgeOrder = append(s.edgeOrder, i)
		s.edgeIDs = append(s.edgeIDs, id)
	}
	return s
}

// Compare computes the difference from a (before) to b (after). An invalid
// Options.Reference is treated as RefNone; call Options.Validate to reject it.
func Compare(a, b extract.Graph, opts Options) Result {
	// Index both sides at once; each goroutine has its own identity (and
	// label cache).
	var sa, sb side
	done := make(chan struct{})
	go func() {
		sa = index(&a, newIdentity(opts))
		close(done)
	}()
	sb = index(&b, newIdentity(opts))
	<-done

	res := Result{
		Nodes: NodeDiff{Added: []NodeItem{}, Removed: []NodeItem{}, Changed: []NodeChange{}},
		Edges: EdgeDiff{Added: []EdgeItem{}, Removed: []EdgeItem{}, Changed: []EdgeChange{}},
		Summary: Summary{
			NodeTypes:  map[string]TypeCount{},
			EdgeLabels: map[string]TypeCount{},
		},
	}
	nt := &res.Summary.Nodes
	nt.Before, nt.After = len(sa.nodeOrder), len(sb.nodeOrder)
	nt.DuplicatesA, nt.DuplicatesB = sa.nodeDup, sb.nodeDup
	et := &res.Summary.Edges
	et.Before, et.After = len(sa.edgeOrder), len(sb.edgeOrder)
	et.DuplicatesA, et.DuplicatesB = sa.edgeDup, sb.edgeDup

	// Nodes: walk a for removed and matched, then b for added.
	for k, i := range sa.nodeOrder {
		n := &a.Nodes[i]
		bump(res.Summary.NodeTypes, n.Type, -1)
		j, ok := sb.nodeIdx[sa.nodeIDs[k]]
		if !ok {
			res.Nodes.Removed = append(res.Nodes.Removed, NodeItem{Key: n.Key, Name: n.Name, Type: n.Type})
			continue
		}
		if c, changed := compareNodes(n, &b.Nodes[j], opts.Reference != RefNone, opts.IgnoreDescriptions); changed {
			res.Nodes.Changed = append(res.Nodes.Changed, c)
		} else {
			nt.Unchanged++
		}
	}
	for k, j := range sb.nodeOrder {
		n := &b.Nodes[j]
		bump(res.Summary.NodeTypes, n.Type, +1)
		if _, ok := sa.nodeIdx[sb.nodeIDs[k]]; !ok {
			res.Nodes.Added = append(res.Nodes.Added, NodeItem{Key: n.Key, Name: n.Name, Type: n.Type})
		}
	}
	nt.Added, nt.Removed, nt.Changed = len(res.Nodes.Added), len(res.Nodes.Removed), len(res.Nodes.Changed)

	// Edges: the same walk over the edge identities, in input order.
	matchedEdges := 0
	for k, i := range sa.edgeOrder {
		e := &a.Edges[i]
		bump(res.Summary.EdgeLabels, e.Label, -1)
		j, ok := sb.edgeIdx[sa.edgeIDs[k]]
		if !ok {
			res.Edges.Removed = append(res.Edges.Removed, EdgeItem{Source: e.Source, Target: e.Target, Label: e.Label})
			continue
		}
		matchedEdges++
		if c, changed := compareEdges(e, &b.Edges[j], &sa, &sb, opts.Reference != RefNone, opts.IgnoreDescriptions); changed {
			res.Edges.Changed = append(res.Edges.Changed, c)
		}
	}
	for k, j := range sb.edgeOrder {
		e := &b.Edges[j]
		bump(res.Summary.EdgeLabels, e.Label, +1)
		if _, ok := sa.edgeIdx[sb.edgeIDs[k]]; !ok {
			res.Edges.Added = append(res.Edges.Added, EdgeItem{Source: e.Source, Target: e.Target, Label: e.Label})
		}
	}
	et.Added, et.Removed, et.Changed = len(res.Edges.Added), len(res.Edges.Removed), len(res.Edges.Changed)
	et.Unchanged = matchedEdges - et.Changed

	matchedNodes := nt.Changed + nt.Unchanged
	if opts.Reference == RefA || opts.Reference == RefB {
		score := func(matched, a, b int) PRF {
			if opts.Reference == RefA {
				return NewPRF(matched, b, a)
			}
			return NewPRF(matched, a, b)
		}
		s := &Score{
			Nodes: score(matchedNodes, nt.Before, nt.After),
			Edges: score(matchedEdges, et.Before, et.After),
		}
		// The other edge score: with labels when they were ignored, and
		// without them otherwise.
		other := opts
		other.IgnoreLabels = !opts.IgnoreLabels
		m, na, nb := edgeOverlap(&a, &b, &sa, &sb, other)
		if opts.IgnoreLabels {
			s.Unlabelled, s.Labelled = s.Edges, score(m, na, nb)
		} else {
			s.Labelled, s.Unlabelled = s.Edges, score(m, na, nb)
		}
		res.Score = s
	}
	return res
}

// edgeOverlap counts the distinct edge identities of a and b under opts
// and how many they share, using the node identities already indexed.
func edgeOverlap(a, b *extract.Graph, sa, sb *side, opts Options) (matched, na, nb int) {
	ident := newIdentity(opts)
	ids := func(g *extract.Graph, s *side) map[string]struct{} {
		out := make(map[string]struct{}, len(g.Edges))
		for i := range g.Edges {
			e := &g.Edges[i]
			id, _, _ := ident.edge(s.nodeID, e.Source, e.Label, e.Target)
			out[id] = struct{}{}
		}
		return out
	}
	ia, ib := ids(a, sa), ids(b, sb)
	for id := range ia {
		if _, ok := ib[id]; ok {
			matched++
		}
	}
	return matched, len(ia), len(ib)
}

// IsEmpty reports whether the result records no difference at all.
func (r Result) IsEmpty() bool {
	return len(r.Nodes.Added)+len(r.Nodes.Removed)+len(r.Nodes.Changed)+
		len(r.Edges.Added)+len(r.Edges.Removed)+len(r.Edges.Changed) == 0
}

func bump(m map[string]TypeCount, typ string, d int) {
	c := m[typ]
	if d < 0 {
		c.Before++
	} else {
		c.After++
	}
	c.Delta = c.After - c.Before
	m[typ] = c
}

// compareNodes lists what differs between two matched nodes. With ref set
// (one side is the reference) a type, description or property one side
// lacks is not a difference. With noDesc set descriptions are not compared.
func compareNodes(a, b *extract.Node, ref, noDesc bool) (NodeChange, bool) {
	c := NodeChange{
		KeyA: a.Key, KeyB: b.Key, Name: b.Name,
		TypeA: a.Type, TypeB: b.Type, NameA: a.Name, NameB: b.Name,
	}
	if a.Name != b.Name {
		c.Fields = append(c.Fields, "name")
	}
	if differs(a.Type, b.Type, ref) {
		c.Fields = append(c.Fields, "type")
	}
	if !noDesc && differs(a.Description, b.Description, ref) {
		c.Fields = append(c.Fields, "description")
		c.Description = Words(a.Description, b.Description)
	}
	if props := compareProps(a.Properties, b.Properties, ref); len(props) > 0 {
		c.Fields = append(c.Fields, "properties")
		c.Properties = props
	}
	return c, len(c.Fields) > 0
}

// differs compares two text fields; with ref set, only when both are set.
func differs(a, b string, ref bool) bool {
	if ref && (a == "" || b == "") {
		return false
	}
	return a != b
}

// compareEdges lists what differs between two matched edges of the indexed
// sides sa and sb. With ref and noDesc set, as for compareNodes.
func compareEdges(a, b *extract.Edge, sa, sb *side, ref, noDesc bool) (EdgeChange, bool) {
	c := EdgeChange{
		A:         EdgeItem{Source: a.Source, Target: a.Target, Label: a.Label},
		B:         EdgeItem{Source: b.Source, Target: b.Target, Label: b.Label},
		KeywordsA: a.Keywords, KeywordsB: b.Keywords,
		WeightA: finite(a.Weight), WeightB: finite(b.Weight),
	}
	if a.Label != b.Label {
		c.Fields = append(c.Fields, "label")
	}
	if sa.ident.undirected && sa.ident.endpoint(sa.nodeID, a.Source) != sb.ident.endpoint(sb.nodeID, b.Source) {
		c.Fields = append(c.Fields, "direction")
	}
	if differs(a.Keywords, b.Keywords, ref) {
		c.Fields = append(c.Fields, "keywords")
	}
	if !ref && c.WeightA != c.WeightB {
		c.Fields = append(c.Fields, "weight")
	}
	if !noDesc && differs(a.Description, b.Description, ref) {
		c.Fields = append(c.Fields, "description")
		c.Description = Words(a.Description, b.Description)
	}
	if props := compareProps(a.Properties, b.Properties, ref); len(props) > 0 {
		c.Fields = append(c.Fields, "properties")
		c.Properties = props
	}
	return c, len(c.Fields) > 0
}

// finite maps NaN and infinities to 0 so results always encode as JSON.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// compareProps lists the properties that differ; with ref set, only those
// both sides have.
func compareProps(a, b map[string]any, ref bool) []PropertyChange {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	var out []PropertyChange
	for k, va := range a {
		vb, ok := b[k]
		switch {
		case !ok:
			if !ref {
				out = append(out, PropertyChange{Name: k, Op: "-", A: va})
			}
		case !sameValue(va, vb):
			out = append(out, PropertyChange{Name: k, Op: "~", A: va, B: vb})
		}
	}
	if !ref {
		for k, vb := range b {
			if _, ok := a[k]; !ok {
				out = append(out, PropertyChange{Name: k, Op: "+", B: vb})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// sameValue compares property values, treating numbers of different Go
// types (int from code, float64 from JSON) as equal when their values are.
func sameValue(a, b any) bool {
	if fa, ok := number(a); ok {
		if fb, ok := number(b); ok {
			return fa == fb
		}
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
