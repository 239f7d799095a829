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
//     the others are reported in Summary as duplicates. Without a
//     reference side, a node of b that kept the key of a node of a and
//     changed only its name, or only its type, as an edit does, is that
//     node changed, provided its new identity is not on the other side.
//   - An edge is identified by (source, label, target) where source and
//     target are the identities of its endpoint nodes (resolved through the
//     node keys of its own graph; an endpoint key that names no node is
//     normalised as a name with an empty type) and the label is normalised
//     with extract.NormalizeName. With Options.Undirected the two endpoints
//     are ordered, so A-r-B and B-r-A are the same edge. Without it, an
//     edge marked undirected (extract.Edge.Undirected, as GraphML's
//     directed="false" is read) is matched so, and so is any edge of
//     either side with its ends and label. With
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
	"cmp"
	"math"
	"reflect"
	"slices"
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
	// IgnoreType matches nodes by normalised name only; a type
	// difference is then no change either (the two types are still
	// shown).
	IgnoreType bool `json:"ignore_type"`
	// Undirected matches edges regardless of direction; a direction
	// difference is then no change.
	Undirected bool `json:"undirected"`
	// IgnoreLabels matches edges by their endpoints only; a label
	// difference is then no change either (both labels are shown).
	IgnoreLabels bool `json:"ignore_labels"`
	// Weights counts a difference in edge weight as a change. Weights
	// count how often an extraction met an edge, bookkeeping rather than
	// meaning, so by default they are shown but change nothing.
	Weights bool `json:"weights,omitempty"`
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
	// TypeA and TypeB are the two types; they differ with IgnoreType, or
	// for a node retyped by an edit (same key and name; see the package
	// comment).
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

// Matching works on numbers: every node identity (and every endpoint
// that names no node) of both graphs gets a number from one interner, so
// nodes match by array lookups, and an edge is three numbers (source,
// label, target). Edges are then sorted by those numbers on each side and
// the two sorted lists are merged in one pass; the first edge of each
// identity in input order is the one kept. Results list items in input
// order.

// interner numbers strings in the order first seen.
type interner struct {
	ids  map[string]int32
	strs []string
}

func newInterner(n int) *interner {
	return &interner{ids: make(map[string]int32, n), strs: make([]string, 0, n)}
}

func (in *interner) id(s string) int32 {
	if v, ok := in.ids[s]; ok {
		return v
	}
	v := int32(len(in.strs))
	in.ids[s] = v
	in.strs = append(in.strs, s)
	return v
}

// edgeKey is an edge identity in numbers; label is -1 when labels are
// ignored.
type edgeKey struct{ src, label, tgt int32 }

func (k edgeKey) cmp(o edgeKey) int {
	return cmp.Or(cmp.Compare(k.src, o.src), cmp.Compare(k.label, o.label), cmp.Compare(k.tgt, o.tgt))
}

// side is one graph with its items numbered.
type side struct {
	nodeOrder []int   // indexes of kept nodes (first of each identity), in input order
	nodeIDs   []int32 // identity of each kept node, parallel to nodeOrder
	nodeFirst []int32 // identity -> index of its kept node, -1 for none
	edgeOrder []int   // indexes of kept edges, in input order
	// Per edge of the graph: the source endpoint as written (for the
	// direction), the two ends as matched and the label's number.
	srcRaw, src, tgt, label []int32
	edgeDup, nodeDup        int
}

// numberSides numbers the nodes and edges of a and b by the matching
// rules of ident.
func numberSides(a, b *extract.Graph, ident identity) (sa, sb side) {
	// Node identities: the costly normalisation runs for both graphs at
	// once; numbering them is one pass.
	var ida []string
	done := make(chan struct{})
	go func() {
		ida = nodeIdentities(a, newIdentity(Options{IgnoreType: ident.ignoreType}))
		close(done)
	}()
	idb := nodeIdentities(b, ident)
	<-done
	adoptRenames(a, b, ida, idb, ident)
	in := newInterner(len(a.Nodes) + len(b.Nodes))
	labels := newInterner(16)
	var pairs map[edgeKey]bool // ends of edges marked undirected, ordered
	for _, x := range []struct {
		g   *extract.Graph
		ids []string
		s   *side
	}{{a, ida, &sa}, {b, idb, &sb}} {
		g, s := x.g, x.s
		keys := make(map[string]int32, len(g.Nodes))
		nodeNum := make([]int32, len(g.Nodes))
		for i := range g.Nodes {
			nodeNum[i] = in.id(x.ids[i])
			if _, ok := keys[g.Nodes[i].Key]; !ok {
				keys[g.Nodes[i].Key] = nodeNum[i]
			}
		}
		// Kept nodes: the first of each identity.
		s.nodeOrder = make([]int, 0, len(g.Nodes))
		s.nodeIDs = make([]int32, 0, len(g.Nodes))
		first := make([]bool, len(in.strs))
		for i, id := range nodeNum {
			if first[id] {
				s.nodeDup++
				continue
			}
			first[id] = true
			s.nodeOrder = append(s.nodeOrder, i)
			s.nodeIDs = append(s.nodeIDs, id)
		}
		// Edges.
		n := len(g.Edges)
		s.srcRaw, s.src, s.tgt, s.label = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		endpoint := func(key string) int32 {
			if v, ok := keys[key]; ok {
				return v
			}
			e := extract.NormalizeName(key)
			if !ident.ignoreType {
				e += "\x1f"
			}
			return in.id(e)
		}
		labelNum := map[string]int32{}
		for i := range g.Edges {
			e := &g.Edges[i]
			src, tgt := endpoint(e.Source), endpoint(e.Target)
			s.srcRaw[i] = src
			if ident.undirected && in.strs[tgt] < in.strs[src] {
				src, tgt = tgt, src
			}
			s.src[i], s.tgt[i] = src, tgt
			l, ok := labelNum[e.Label]
			if !ok {
				l = labels.id(extract.NormalizeName(e.Label))
				labelNum[e.Label] = l
			}
			s.label[i] = l
			if !ident.undirected && len(e.Properties) > 0 && e.Undirected() {
				if pairs == nil {
					pairs = map[edgeKey]bool{}
				}
				pairs[unordered(src, pairLabel(l, ident), tgt)] = true
			}
		}
	}
	// Edges marked undirected match either way round, and so does an
	// edge of either side between the same ends with the same label: an
	// undirected edge read back (in whatever order a tool wrote it) is
	// the same edge.
	if len(pairs) > 0 {
		for _, s := range []*side{&sa, &sb} {
			for i := range s.src {
				if k := unordered(s.src[i], pairLabel(s.label[i], ident), s.tgt[i]); pairs[k] {
					s.src[i], s.tgt[i] = k.src, k.tgt
				}
			}
		}
	}
	// The node tables, now that every identity has its number.
	for _, s := range []*side{&sa, &sb} {
		s.nodeFirst = slices.Repeat([]int32{-1}, len(in.strs))
		for k, i := range s.nodeOrder {
			s.nodeFirst[s.nodeIDs[k]] = int32(i)
		}
	}
	return sa, sb
}

// unordered is the identity of an edge with its ends in number order.
func unordered(src, label, tgt int32) edgeKey {
	if tgt < src {
		src, tgt = tgt, src
	}
	return edgeKey{src: src, label: label, tgt: tgt}
}

// pairLabel is the label number an undirected pair is recorded with: none
// when labels are ignored.
func pairLabel(l int32, ident identity) int32 {
	if ident.ignoreLabels {
		return -1
	}
	return l
}

// nodeIdentities names each node of g by ident.
func nodeIdentities(g *extract.Graph, ident identity) []string {
	out := make([]string, len(g.Nodes))
	for i := range g.Nodes {
		out[i] = ident.node(&g.Nodes[i])
	}
	return out
}

// edgeKeyOf is the identity of edge i of s, with or without its label.
func (s *side) edgeKeyOf(i int, ignoreLabels bool) edgeKey {
	k := edgeKey{src: s.src[i], label: s.label[i], tgt: s.tgt[i]}
	if ignoreLabels {
		k.label = -1
	}
	return k
}

// sortedEdges lists the edges of s as (identity, index), sorted, with
// only the first edge (in input order) of each identity.
func sortedEdges(s *side, n int, ignoreLabels bool) []keyedEdge {
	all := make([]keyedEdge, n)
	for i := range all {
		all[i] = keyedEdge{s.edgeKeyOf(i, ignoreLabels), int32(i)}
	}
	slices.SortFunc(all, func(x, y keyedEdge) int { return cmp.Or(x.key.cmp(y.key), cmp.Compare(x.i, y.i)) })
	out := all[:0]
	for k, e := range all {
		if k > 0 && e.key == all[k-1].key {
			continue
		}
		out = append(out, e)
	}
	return out
}

type keyedEdge struct {
	key edgeKey
	i   int32
}

// matchEdges merges the sorted edges of a and b: for each kept edge of a
// (by index) the index of its match in b or -1, and whether each kept edge
// of b has a match.
func matchEdges(ka, kb []keyedEdge, na, nb int) (aToB []int32, bMatched []bool) {
	aToB = slices.Repeat([]int32{-1}, na)
	bMatched = make([]bool, nb)
	for x, y := 0, 0; x < len(ka) && y < len(kb); {
		switch c := ka[x].key.cmp(kb[y].key); {
		case c < 0:
			x++
		case c > 0:
			y++
		default:
			aToB[ka[x].i] = kb[y].i
			bMatched[kb[y].i] = true
			x++
			y++
		}
	}
	return aToB, bMatched
}

// Compare computes the difference from a (before) to b (after). An invalid
// Options.Reference is treated as RefNone; call Options.Validate to reject it.
func Compare(a, b extract.Graph, opts Options) Result {
	ident := newIdentity(opts)
	sa, sb := numberSides(&a, &b, ident)
	// Kept edges: the first of each identity, in input order.
	ka, kb := sortedEdges(&sa, len(a.Edges), opts.IgnoreLabels), sortedEdges(&sb, len(b.Edges), opts.IgnoreLabels)
	keep := func(s *side, k []keyedEdge, n int) {
		kept := make([]bool, n)
		for _, e := range k {
			kept[e.i] = true
		}
		s.edgeOrder = make([]int, 0, len(k))
		for i, ok := range kept {
			if ok {
				s.edgeOrder = append(s.edgeOrder, i)
			}
		}
		s.edgeDup = n - len(k)
	}
	keep(&sa, ka, len(a.Edges))
	keep(&sb, kb, len(b.Edges))
	aToB, bMatched := matchEdges(ka, kb, len(a.Edges), len(b.Edges))

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
		j := sb.nodeFirst[sa.nodeIDs[k]]
		if j < 0 {
			res.Nodes.Removed = append(res.Nodes.Removed, NodeItem{Key: n.Key, Name: n.Name, Type: n.Type})
			continue
		}
		if c, changed := compareNodes(n, &b.Nodes[j], opts); changed {
			res.Nodes.Changed = append(res.Nodes.Changed, c)
		} else {
			nt.Unchanged++
		}
	}
	for k, j := range sb.nodeOrder {
		n := &b.Nodes[j]
		bump(res.Summary.NodeTypes, n.Type, +1)
		if sa.nodeFirst[sb.nodeIDs[k]] < 0 {
			res.Nodes.Added = append(res.Nodes.Added, NodeItem{Key: n.Key, Name: n.Name, Type: n.Type})
		}
	}
	nt.Added, nt.Removed, nt.Changed = len(res.Nodes.Added), len(res.Nodes.Removed), len(res.Nodes.Changed)

	// Edges: the same walk over the kept edges, in input order.
	matchedEdges := 0
	for _, i := range sa.edgeOrder {
		e := &a.Edges[i]
		bump(res.Summary.EdgeLabels, e.Label, -1)
		j := aToB[i]
		if j < 0 {
			res.Edges.Removed = append(res.Edges.Removed, EdgeItem{Source: e.Source, Target: e.Target, Label: e.Label})
			continue
		}
		matchedEdges++
		direction := ident.undirected && sa.srcRaw[i] != sb.srcRaw[j]
		if c, changed := compareEdges(e, &b.Edges[j], direction, opts); changed {
			res.Edges.Changed = append(res.Edges.Changed, c)
		}
	}
	for _, j := range sb.edgeOrder {
		e := &b.Edges[j]
		bump(res.Summary.EdgeLabels, e.Label, +1)
		if !bMatched[j] {
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
		oa, ob := sortedEdges(&sa, len(a.Edges), !opts.IgnoreLabels), sortedEdges(&sb, len(b.Edges), !opts.IgnoreLabels)
		_, om := matchEdges(oa, ob, len(a.Edges), len(b.Edges))
		m := 0
		for _, ok := range om {
			if ok {
				m++
			}
		}
		if opts.IgnoreLabels {
			s.Unlabelled, s.Labelled = s.Edges, score(m, len(oa), len(ob))
		} else {
			s.Labelled, s.Unlabelled = s.Edges, score(m, len(oa), len(ob))
		}
		res.Score = s
	}
	return res
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

// compareNodes lists what differs between two matched nodes. With a
// reference side, a type, description or property one side lacks is not a
// difference; what the options ignore is not compared; bookkeeping
// properties (see bookkeeping) never are.
func compareNodes(a, b *extract.Node, opts Options) (NodeChange, bool) {
	ref, noDesc := opts.Reference != RefNone, opts.IgnoreDescriptions
	c := NodeChange{
		KeyA: a.Key, KeyB: b.Key, Name: b.Name,
		TypeA: a.Type, TypeB: b.Type, NameA: a.Name, NameB: b.Name,
	}
	if a.Name != b.Name {
		c.Fields = append(c.Fields, "name")
	}
	if !opts.IgnoreType && differs(a.Type, b.Type, ref) {
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

// compareEdges lists what differs between two matched edges, as
// compareNodes does; direction says they point opposite ways.
func compareEdges(a, b *extract.Edge, direction bool, opts Options) (EdgeChange, bool) {
	ref, noDesc := opts.Reference != RefNone, opts.IgnoreDescriptions
	c := EdgeChange{
		A:         EdgeItem{Source: a.Source, Target: a.Target, Label: a.Label},
		B:         EdgeItem{Source: b.Source, Target: b.Target, Label: b.Label},
		KeywordsA: a.Keywords, KeywordsB: b.Keywords,
		WeightA: finite(a.Weight), WeightB: finite(b.Weight),
	}
	if a.Label != b.Label && !opts.IgnoreLabels {
		c.Fields = append(c.Fields, "label")
	}
	if direction && !opts.Undirected {
		c.Fields = append(c.Fields, "direction")
	}
	if differs(a.Keywords, b.Keywords, ref) {
		c.Fields = append(c.Fields, "keywords")
	}
	if !ref && opts.Weights && c.WeightA != c.WeightB {
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
		if bookkeeping[k] {
			continue
		}
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
			if _, ok := a[k]; !ok && !bookkeeping[k] {
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
	return reflect.DeepEqual(plain(a), plain(b))
}

// plain is a property value with the bookkeeping keys of nested maps (a
// memory node's history keeps when each value was recorded) left out and
// every number a float64.
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if !bookkeeping[k] {
				out[k] = plain(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	if f, ok := number(v); ok {
		return f
	}
	return v
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

// bookkeeping are the properties a merge keeps about how it merged (the
// types met and how often, descriptions dropped for room) and when a run
// recorded a fact (each run records at its own time): they tell how an
// extraction counted, not what it found, and never make a change.
var bookkeeping = map[string]bool{"type_counts": true, "fragments_dropped": true,
	extract.PropRecordedAt: true, extract.PropExpiredAt: true}
