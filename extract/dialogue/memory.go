package dialogue

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// The four roots of the memory graph.
const (
	RootUser      = "/User"
	RootAssistant = "/Assistant"
	RootEvents    = "/Events"
	RootKnowledge = "/Knowledge"
)

// HasLabel is the label of the parent-to-child edges of the memory tree.
const HasLabel = "has"

// StructureNodes are the nodes every memory holds before the first turn:
// the four roots and the fixed profile, status and related-event slots of
// the user and the assistant. Parents come before their children.
var StructureNodes = []string{
	"/User",
	"/User/Profile",
	"/User/Profile/Interests",
	"/User/Profile/StatedGoals",
	"/User/Profile/ToolsUsedHistory",
	"/User/Status",
	"/User/Status/CurrentFocus",
	"/User/Status/CurrentMood",
	"/User/Status/ImmediateNeeds",
	"/User/Status/InteractionState",
	"/User/RelatedEvents",
	"/Assistant",
	"/Assistant/Profile",
	"/Assistant/Persona",
	"/Assistant/Status",
	"/Assistant/Status/CurrentInteractionContext",
	"/Assistant/RelatedEvents",
	"/Events",
	"/Knowledge",
}

// Revision is an earlier value of a node's attributes: the values set at
// turn Since and replaced at turn Until.
type Revision struct {
	Since       int    `json:"since"`
	Until       int    `json:"until"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
	Timestamp   string `json:"timestamp,omitempty"`
}

// MemoryNode is one node of the memory tree.
type MemoryNode struct {
	ID          string
	Label       string
	Description string
	Timestamp   string
	// Structure marks the fixed nodes of StructureNodes.
	Structure bool
	// Implicit marks a node created because a child needed it.
	Implicit bool
	// Created and Updated are the turns of creation and of the last change
	// (-1 for structure nodes never changed).
	Created int
	Updated int
	// History holds every earlier value, oldest first. The default label
	// of a structure or implicit node is not kept.
	History []Revision

	defaulted bool // current values are defaults, not said in a turn
}

// Relation is a labelled edge added by add_relation at a turn.
type Relation struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Label  string `json:"label"`
	Turn   int    `json:"turn"`
}

// Stats counts what applying operations did.
type Stats struct {
	Applied        int `json:"applied"`
	ParentsCreated int `json:"parents_created"`
	Rejected       int `json:"rejected"`
}

// Memory is the consolidated memory graph of one dialogue. It is not safe
// for concurrent use.
type Memory struct {
	// DocumentID is written into the mentions of Graph.
	DocumentID int

	nodes  map[string]*MemoryNode
	order  []string
	rels   []Relation
	relSet map[string]bool
	log    []extract.Operation
	seq    map[int]int
	stats  Stats
}

// NewMemory returns a memory holding only StructureNodes.
func NewMemory() *Memory {
	m := &Memory{nodes: map[string]*MemoryNode{}, relSet: map[string]bool{}, seq: map[int]int{}}
	for _, id := range StructureNodes {
		m.nodes[id] = &MemoryNode{ID: id, Label: lastSegment(id), Structure: true, Created: -1, Updated: -1, defaulted: true}
		m.order = append(m.order, id)
	}
	return m
}

// Apply applies one turn's operations in order (add_node, update_node,
// add_relation) and returns the log entries it wrote, each with its status
// and, when not plainly applied, the reason.
func (m *Memory) Apply(turn int, ops Ops) []extract.Operation {
	recs := OpsToRecords(turn, ops)
	out := make([]extract.Operation, 0, len(recs))
	for _, r := range recs {
		out = append(out, m.applyRecord(r))
	}
	return out
}

// OpsToRecords turns proposed operations into operation records of a turn,
// without status, in the order they apply.
func OpsToRecords(turn int, ops Ops) []extract.Operation {
	var recs []extract.Operation
	for _, n := range ops.AddNode {
		recs = append(recs, extract.Operation{Turn: turn, Op: OpAddNode, NodeID: n.NodeID, Label: n.Details.Label, Description: n.Details.Description, Timestamp: n.Details.Timestamp})
	}
	for _, n := range ops.UpdateNode {
		recs = append(recs, extract.Operation{Turn: turn, Op: OpUpdateNode, NodeID: n.NodeID, Label: n.Details.Label, Description: n.Details.Description, Timestamp: n.Details.Timestamp})
	}
	for _, r := range ops.AddRelation {
		recs = append(recs, extract.Operation{Turn: turn, Op: OpAddRelation, SourceID: r.SourceID, TargetID: r.TargetID, Label: r.Label})
	}
	return recs
}

// Rebuild replays a stored operation log up to and including turn
// upToTurn (in turn, then sequence order) on a new memory. Stored statuses
// are ignored: every check runs again, so the result equals the memory as
// it stood after that turn.
func Rebuild(ops []extract.Operation, upToTurn int) *Memory {
	sorted := make([]extract.Operation, 0, len(ops))
	for _, op := range ops {
		if op.Turn <= upToTurn {
			sorted = append(sorted, op)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Turn != sorted[j].Turn {
			return sorted[i].Turn < sorted[j].Turn
		}
		return sorted[i].Seq < sorted[j].Seq
	})
	m := NewMemory()
	for _, op := range sorted {
		m.applyRecord(op)
	}
	return m
}

// applyRecord applies one operation record and logs it.
func (m *Memory) applyRecord(r extract.Operation) extract.Operation {
	r.Seq = m.seq[r.Turn]
	m.seq[r.Turn]++
	r.Status, r.Reason = StatusApplied, ""
	reject := func(format string, args ...any) {
		r.Status = StatusRejected
		r.Reason = fmt.Sprintf(format, args...)
	}
	switch r.Op {
	case OpAddNode, OpUpdateNode:
		id, err := CleanID(r.NodeID)
		if err != nil {
			reject("%s", err)
			break
		}
		r.NodeID = id
		created := m.ensureParents(id, r.Turn)
		var notes []string
		if len(created) > 0 {
			r.Status = StatusParentCreated
			notes = append(notes, "created parent "+strings.Join(created, ", "))
		}
		d := NodeDetails{Label: r.Label, Description: r.Description, Timestamp: r.Timestamp}
		n, exists := m.nodes[id]
		switch {
		case !exists:
			m.addNode(id, d, r.Turn, false)
			if r.Op == OpUpdateNode {
				notes = append(notes, "node did not exist; created")
			}
		case n.Implicit && r.Op == OpAddNode:
			n.Implicit = false
			m.update(n, d, r.Turn)
		default:
			if r.Op == OpAddNode && !n.Structure {
				notes = append(notes, "node existed; attributes updated")
			}
			m.update(n, d, r.Turn)
		}
		r.Reason = strings.Join(notes, "; ")
	case OpAddRelation:
		src, err := CleanID(r.SourceID)
		if err != nil {
			reject("source: %s", err)
			break
		}
		tgt, err := CleanID(r.TargetID)
		if err != nil {
			reject("target: %s", err)
			break
		}
		r.SourceID, r.TargetID = src, tgt
		r.Label = strings.TrimSpace(r.Label)
		switch {
		case r.Label == "":
			reject("relation label missing")
		case src == RootUser || src == RootAssistant:
			reject("source is the bare root %s; use a sub-node such as %s/RelatedEvents", src, src)
		case tgt == RootUser || tgt == RootAssistant:
			reject("target is the bare root %s; use a sub-node such as %s/RelatedEvents", tgt, tgt)
		case m.nodes[src] == nil:
			reject("unknown source node %s", src)
		case m.nodes[tgt] == nil:
			reject("unknown target node %s", tgt)
		default:
			k := extract.EdgeKey(src, r.Label, tgt)
			if m.relSet[k] {
				r.Reason = "relation already present"
				break
			}
			m.relSet[k] = true
			m.rels = append(m.rels, Relation{Source: src, Target: tgt, Label: r.Label, Turn: r.Turn})
		}
	default:
		reject("unknown operation %q", r.Op)
	}
	if r.Status == StatusRejected {
		m.stats.Rejected++
	} else {
		m.stats.Applied++
	}
	m.log = append(m.log, r)
	return r
}

// ensureParents creates the missing ancestors of id and returns them.
func (m *Memory) ensureParents(id string, turn int) []string {
	var created []string
	for _, p := range ancestors(id) {
		if m.nodes[p] == nil {
			m.addNode(p, NodeDetails{}, turn, true)
			created = append(created, p)
			m.stats.ParentsCreated++
		}
	}
	return created
}

func (m *Memory) addNode(id string, d NodeDetails, turn int, implicit bool) {
	label := d.Label
	if label == "" {
		label = lastSegment(id)
	}
	m.nodes[id] = &MemoryNode{ID: id, Label: label, Description: d.Description, Timestamp: d.Timestamp, Implicit: implicit, Created: turn, Updated: turn, defaulted: implicit}
	m.order = append(m.order, id)
}

// update sets the non-empty fields of d, keeping the earlier values.
func (m *Memory) update(n *MemoryNode, d NodeDetails, turn int) {
	next := *n
	if d.Label != "" {
		next.Label = d.Label
	}
	if d.Description != "" {
		next.Description = d.Description
	}
	if d.Timestamp != "" {
		next.Timestamp = d.Timestamp
	}
	if next.Label == n.Label && next.Description == n.Description && next.Timestamp == n.Timestamp {
		return
	}
	if n.defaulted {
		n.defaulted = false
		n.Label, n.Description, n.Timestamp = next.Label, next.Description, next.Timestamp
		n.Updated = turn
		return
	}
	n.History = append(n.History, Revision{Since: n.Updated, Until: turn, Label: n.Label, Description: n.Description, Timestamp: n.Timestamp})
	n.Label, n.Description, n.Timestamp = next.Label, next.Description, next.Timestamp
	n.Updated = turn
}

// Log returns the operation log in the order applied.
func (m *Memory) Log() []extract.Operation { return append([]extract.Operation(nil), m.log...) }

// Stats returns the counts of applied and rejected operations and of
// created parents.
func (m *Memory) Stats() Stats { return m.stats }

// Node returns a copy of the node at id.
func (m *Memory) Node(id string) (MemoryNode, bool) {
	n, ok := m.nodes[id]
	if !ok {
		return MemoryNode{}, false
	}
	c := *n
	c.History = append([]Revision(nil), n.History...)
	return c, true
}

// NodeIDs returns every node id, sorted.
func (m *Memory) NodeIDs() []string {
	ids := append([]string(nil), m.order...)
	sort.Strings(ids)
	return ids
}

// Relations returns the relations in the order added.
func (m *Memory) Relations() []Relation { return append([]Relation(nil), m.rels...) }

// Graph returns the memory as a graph: one node per path (key = path),
// "has" edges from each parent to its children, and the relations.
func (m *Memory) Graph() extract.Graph {
	return m.graphOf(nil)
}

// GraphOf returns the part of the graph an operation list touched: the
// nodes it named with their ancestors, and the edges it added, so that
// every edge's ends are present.
func (m *Memory) GraphOf(ops []extract.Operation) extract.Graph {
	keep := map[string]bool{}
	rels := map[string]bool{}
	mark := func(id string) {
		if m.nodes[id] == nil {
			return
		}
		keep[id] = true
		for _, a := range ancestors(id) {
			keep[a] = true
		}
	}
	for _, op := range ops {
		if op.Status == StatusRejected {
			continue
		}
		switch op.Op {
		case OpAddNode, OpUpdateNode:
			mark(op.NodeID)
		case OpAddRelation:
			mark(op.SourceID)
			mark(op.TargetID)
			rels[extract.EdgeKey(op.SourceID, op.Label, op.TargetID)] = true
		}
	}
	return m.graphFilter(keep, rels)
}

func (m *Memory) graphOf(keep map[string]bool) extract.Graph {
	return m.graphFilter(keep, nil)
}

// graphFilter builds the graph; a nil keep keeps every node and relation.
func (m *Memory) graphFilter(keep, rels map[string]bool) extract.Graph {
	g := extract.Graph{Nodes: []extract.Node{}, Edges: []extract.Edge{}}
	for _, id := range m.order {
		if keep != nil && !keep[id] {
			continue
		}
		g.Nodes = append(g.Nodes, m.graphNode(m.nodes[id]))
		if p := parentOf(id); p != "" && (keep == nil || keep[p]) {
			g.Edges = append(g.Edges, extract.Edge{Source: p, Target: id, Label: HasLabel, Weight: 1})
		}
	}
	for _, r := range m.rels {
		if keep != nil && !rels[extract.EdgeKey(r.Source, r.Label, r.Target)] {
			continue
		}
		g.Edges = append(g.Edges, extract.Edge{Source: r.Source, Target: r.Target, Label: r.Label, Weight: 1,
			Properties: map[string]any{"turn": r.Turn},
			Mentions:   []extract.Mention{{DocumentID: m.DocumentID, ChunkIndex: r.Turn}}})
	}
	return g
}

func (m *Memory) graphNode(n *MemoryNode) extract.Node {
	props := map[string]any{"path": n.ID}
	if n.Timestamp != "" {
		props["timestamp"] = n.Timestamp
	}
	if n.Structure {
		props["structure"] = true
	}
	if n.Implicit {
		props["implicit"] = true
	}
	if n.Created >= 0 {
		props["created_turn"] = n.Created
	}
	if n.Updated >= 0 {
		props["updated_turn"] = n.Updated
	}
	if len(n.History) > 0 {
		h := make([]any, 0, len(n.History))
		for _, r := range n.History {
			h = append(h, map[string]any{"since": r.Since, "until": r.Until, "label": r.Label, "description": r.Description, "timestamp": r.Timestamp})
		}
		props["history"] = h
	}
	node := extract.Node{Key: n.ID, Name: n.Label, Type: NodeType(n.ID), Description: n.Description, Properties: props}
	if node.Name == "" || n.defaulted {
		node.Name = defaultName(n.ID)
	}
	seen := map[int]bool{}
	for _, t := range append(historyTurns(n), n.Created, n.Updated) {
		if t >= 0 && !seen[t] {
			seen[t] = true
			node.Mentions = append(node.Mentions, extract.Mention{DocumentID: m.DocumentID, ChunkIndex: t})
		}
	}
	sort.Slice(node.Mentions, func(i, j int) bool { return node.Mentions[i].ChunkIndex < node.Mentions[j].ChunkIndex })
	return node
}

func historyTurns(n *MemoryNode) []int {
	var ts []int
	for _, r := range n.History {
		ts = append(ts, r.Since, r.Until)
	}
	return ts
}

// NodeType is the graph type of a memory path: "User", "Assistant",
// "Event", "Knowledge" for the bare root, or "Knowledge/<EntityType>".
func NodeType(id string) string {
	segs := strings.Split(strings.TrimPrefix(id, "/"), "/")
	switch segs[0] {
	case "User":
		return "User"
	case "Assistant":
		return "Assistant"
	case "Events":
		return "Event"
	case "Knowledge":
		if len(segs) > 1 {
			return "Knowledge/" + segs[1]
		}
		return "Knowledge"
	}
	return segs[0]
}

// CleanID normalises a node path: a leading slash, no empty segments, no
// surrounding spaces, and the root spelled as one of the four roots. It
// returns an error for a path outside the four roots.
func CleanID(id string) (string, error) {
	raw := strings.TrimSpace(id)
	var segs []string
	for _, s := range strings.Split(raw, "/") {
		if s = strings.TrimSpace(s); s != "" {
			segs = append(segs, s)
		}
	}
	if len(segs) == 0 {
		return "", fmt.Errorf("empty node id")
	}
	switch strings.ToLower(segs[0]) {
	case "user":
		segs[0] = "User"
	case "assistant":
		segs[0] = "Assistant"
	case "events", "event":
		segs[0] = "Events"
	case "knowledge":
		segs[0] = "Knowledge"
	default:
		return "", fmt.Errorf("node id %q is outside /User, /Assistant, /Events and /Knowledge", extract.Clip(raw, 200))
	}
	return "/" + strings.Join(segs, "/"), nil
}

// ancestors returns the proper ancestors of a clean path, root first.
func ancestors(id string) []string {
	var out []string
	for i := 1; i < len(id); i++ {
		if id[i] == '/' {
			out = append(out, id[:i])
		}
	}
	return out
}

func parentOf(id string) string {
	i := strings.LastIndexByte(id, '/')
	if i <= 0 {
		return ""
	}
	return id[:i]
}

// defaultName names a node whose label was never given: its last two path
// segments, so /User/RelatedEvents and /Assistant/RelatedEvents differ.
func defaultName(id string) string {
	parts := strings.Split(strings.Trim(id, "/"), "/")
	if len(parts) >= 2 {
		return parts[len(parts)-2] + "/" + parts[len(parts)-1]
	}
	return parts[len(parts)-1]
}

func lastSegment(id string) string {
	return id[strings.LastIndexByte(id, '/')+1:]
}
