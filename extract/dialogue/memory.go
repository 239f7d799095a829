package dialogue

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
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
// turn Since and replaced at turn Until. ValidAt and InvalidAt are the
// dates of those turns (when the value became true and when it stopped),
// RecordedAt and ExpiredAt when the run wrote it and when it wrote the
// replacement; Reason says what replaced it.
type Revision struct {
	Since       int    `json:"since"`
	Until       int    `json:"until"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
	Timestamp   string `json:"timestamp,omitempty"`
	ValidAt     string `json:"valid_at,omitempty"`
	InvalidAt   string `json:"invalid_at,omitempty"`
	RecordedAt  string `json:"recorded_at,omitempty"`
	ExpiredAt   string `json:"expired_at,omitempty"`
	Reason      string `json:"reason,omitempty"`
	// Attributes are the other attributes the node held then.
	Attributes map[string]string `json:"attributes,omitempty"`
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
	// ValidAt and RecordedAt are the event and record times of the current
	// value (see Revision).
	ValidAt    string
	RecordedAt string
	// Attributes are the other attributes operations gave the node (see
	// NodeDetails), written as its properties.
	Attributes map[string]string

	defaulted bool // current values are defaults, not said in a turn
}

// Relation is a labelled edge added by add_relation at a turn. A relation
// of a single-valued label (see SingleValued) is retired when a later one
// gives the same source and label another target: Until is then that
// turn, InvalidAt its date, ExpiredAt when the run wrote it and Reason
// names the new target. Until is -1 while the relation holds.
type Relation struct {
	Source     string `json:"source"`
	Target     string `json:"target"`
	Label      string `json:"label"`
	Turn       int    `json:"turn"`
	ValidAt    string `json:"valid_at,omitempty"`
	RecordedAt string `json:"recorded_at,omitempty"`
	Until      int    `json:"until"`
	InvalidAt  string `json:"invalid_at,omitempty"`
	ExpiredAt  string `json:"expired_at,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// Current reports whether the relation still holds.
func (r Relation) Current() bool { return r.Until < 0 }

// Stats counts what applying operations did.
type Stats struct {
	Applied        int `json:"applied"`
	ParentsCreated int `json:"parents_created"`
	Rejected       int `json:"rejected"`
	// Retired counts the values and relations a later one replaced.
	Retired int `json:"retired"`
}

// Memory is the consolidated memory graph of one dialogue. It is not safe
// for concurrent use.
type Memory struct {
	// DocumentID is written into the mentions of Graph.
	DocumentID int

	nodes  map[string]*MemoryNode
	order  []string
	pos    map[string]int // node id -> index in order
	sorted []string       // order sorted (see IDs)
	rels   []Relation
	relSet map[string]int // edge key -> index in rels of its latest relation
	// bySource and retiredAt index rels: by source, and the relations a
	// turn retired, by turn. With pos they keep a turn's work from
	// growing with the memory.
	bySource  map[string][]int
	retiredAt map[int][]int
	log       []extract.Operation
	seq       map[int]int
	stats     Stats
}

// NewMemory returns a memory holding only StructureNodes.
func NewMemory() *Memory {
	m := &Memory{nodes: map[string]*MemoryNode{}, pos: map[string]int{}, relSet: map[string]int{}, seq: map[int]int{},
		bySource: map[string][]int{}, retiredAt: map[int][]int{}}
	for _, id := range StructureNodes {
		m.nodes[id] = &MemoryNode{ID: id, Label: lastSegment(id), Structure: true, Created: -1, Updated: -1, defaulted: true}
		m.pos[id] = len(m.order)
		m.order = append(m.order, id)
	}
	return m
}

// Apply applies one turn's operations in order (add_node, update_node,
// add_relation) and returns the log entries it wrote, each with its status
// and, when not plainly applied, the reason.
func (m *Memory) Apply(turn int, ops Ops) []extract.Operation {
	return m.ApplyAt(turn, "", "", ops)
}

// ApplyAt is Apply for a turn said at validAt (the session's start, RFC
// 3339 or a date) and applied at recordedAt (RFC 3339); both are kept on
// every fact the turn writes and on the facts it retires.
func (m *Memory) ApplyAt(turn int, validAt, recordedAt string, ops Ops) []extract.Operation {
	recs := OpsToRecords(turn, ops)
	out := make([]extract.Operation, 0, len(recs))
	for _, r := range recs {
		r.ValidAt, r.RecordedAt = validAt, recordedAt
		out = append(out, m.applyRecord(r))
	}
	return out
}

// OpsToRecords turns proposed operations into operation records of a turn,
// without status, in the order they apply.
func OpsToRecords(turn int, ops Ops) []extract.Operation {
	var recs []extract.Operation
	for _, n := range ops.AddNode {
		recs = append(recs, extract.Operation{Turn: turn, Op: extract.OpAddNode, NodeID: n.NodeID, Label: n.Details.Label, Description: n.Details.Description, Timestamp: n.Details.Timestamp, Attributes: n.Details.Attributes})
	}
	for _, n := range ops.UpdateNode {
		recs = append(recs, extract.Operation{Turn: turn, Op: extract.OpUpdateNode, NodeID: n.NodeID, Label: n.Details.Label, Description: n.Details.Description, Timestamp: n.Details.Timestamp, Attributes: n.Details.Attributes})
	}
	for _, r := range ops.AddRelation {
		recs = append(recs, extract.Operation{Turn: turn, Op: extract.OpAddRelation, SourceID: r.SourceID, TargetID: r.TargetID, Label: r.Label})
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
	r.Status, r.Reason = extract.OutcomeApplied, ""
	reject := func(format string, args ...any) {
		r.Status = extract.OutcomeRejected
		r.Reason = fmt.Sprintf(format, args...)
	}
	switch r.Op {
	case extract.OpAddNode, extract.OpUpdateNode:
		id, err := CleanID(r.NodeID)
		if err != nil {
			reject("%s", err)
			break
		}
		r.NodeID = id
		created := m.ensureParents(id, r)
		var notes []string
		if len(created) > 0 {
			r.Status = extract.OutcomeParentCreated
			notes = append(notes, "created parent "+strings.Join(created, ", "))
		}
		d := NodeDetails{Label: r.Label, Description: r.Description, Timestamp: r.Timestamp, Attributes: r.Attributes}
		n, exists := m.nodes[id]
		switch {
		case !exists:
			m.addNode(id, d, r, false)
			if r.Op == extract.OpUpdateNode {
				notes = append(notes, "node did not exist; created")
			}
		case n.Implicit && r.Op == extract.OpAddNode:
			n.Implicit = false
			m.update(n, d, r)
		default:
			if r.Op == extract.OpAddNode && !n.Structure {
				notes = append(notes, "node existed; attributes updated")
			}
			m.update(n, d, r)
		}
		r.Reason = strings.Join(notes, "; ")
	case extract.OpAddRelation:
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
			if i, ok := m.relSet[k]; ok && m.rels[i].Current() {
				r.Reason = "relation already present"
				break
			}
			if n := m.retire(src, r.Label, tgt, r); n > 0 {
				r.Reason = fmt.Sprintf("retired %d earlier %s relation(s) of %s", n, r.Label, src)
			}
			m.relSet[k] = len(m.rels)
			m.bySource[src] = append(m.bySource[src], len(m.rels))
			m.rels = append(m.rels, Relation{Source: src, Target: tgt, Label: r.Label, Turn: r.Turn,
				ValidAt: r.ValidAt, RecordedAt: r.RecordedAt, Until: -1})
		}
	default:
		reject("unknown operation %q", r.Op)
	}
	if r.Status == extract.OutcomeRejected {
		m.stats.Rejected++
	} else {
		m.stats.Applied++
	}
	m.log = append(m.log, r)
	return r
}

// retire ends the current relations of src with a single-valued label
// and a target other than tgt: only facts of the same subject and
// relation are ever compared, so nothing unrelated is retired. It returns
// how many it ended.
func (m *Memory) retire(src, label, tgt string, by extract.Operation) int {
	if !SingleValued(label) {
		return 0
	}
	norm := normLabel(label)
	n := 0
	for _, i := range m.bySource[src] {
		old := &m.rels[i]
		if old.Target == tgt || !old.Current() || normLabel(old.Label) != norm {
			continue
		}
		m.retiredAt[by.Turn] = append(m.retiredAt[by.Turn], i)
		old.Until, old.InvalidAt, old.ExpiredAt = by.Turn, by.ValidAt, by.RecordedAt
		old.Reason = fmt.Sprintf("replaced by %s at turn %d", tgt, by.Turn)
		n++
		m.stats.Retired++
	}
	return n
}

// singleValued are the relation labels (upper case, words joined by
// underscores) that hold one target at a time, so a new target retires
// the old one: where someone lives or works, their partner, a status.
var singleValued = map[string]bool{
	"LIVES_IN": true, "LIVES_AT": true, "RESIDES_IN": true, "MOVED_TO": true, "WORKS_AT": true, "WORKS_FOR": true,
	"EMPLOYED_BY": true, "JOB_TITLE": true, "WORKS_AS": true, "HAS_JOB": true, "HAS_ROLE": true, "MARRIED_TO": true,
	"DATING": true, "ENGAGED_TO": true, "HAS_STATUS": true, "STATUS": true, "HAS_AGE": true, "AGE": true,
	"STUDIES_AT": true, "ATTENDS": true, "DRIVES": true, "HAS_PHONE": true, "HAS_EMAIL": true, "HAS_ADDRESS": true,
}

// SingleValued reports whether a relation label holds one target at a
// time: one of a short list (LIVES_IN, WORKS_AT, MARRIED_TO, HAS_STATUS,
// ...) or any label starting CURRENT or ending _NOW. Every other label
// (LIKES, MENTIONS, PARTICIPATED_IN) may hold many targets at once and is
// never retired.
func SingleValued(label string) bool {
	l := normLabel(label)
	return singleValued[l] || strings.HasPrefix(l, "CURRENT") || strings.HasSuffix(l, "_NOW")
}

// normLabel spells a relation label in upper case with its words joined
// by underscores, so "lives in" and LIVES_IN are one relation.
func normLabel(label string) string {
	return strings.ToUpper(strings.Join(strings.FieldsFunc(label, func(r rune) bool { return r == ' ' || r == '_' || r == '-' }), "_"))
}

// ensureParents creates the missing ancestors of id and returns them.
func (m *Memory) ensureParents(id string, r extract.Operation) []string {
	var created []string
	for _, p := range ancestors(id) {
		if m.nodes[p] == nil {
			m.addNode(p, NodeDetails{}, r, true)
			created = append(created, p)
			m.stats.ParentsCreated++
		}
	}
	return created
}

func (m *Memory) addNode(id string, d NodeDetails, r extract.Operation, implicit bool) {
	label := d.Label
	if label == "" {
		label = lastSegment(id)
	}
	m.nodes[id] = &MemoryNode{ID: id, Label: label, Description: d.Description, Timestamp: d.Timestamp, Implicit: implicit,
		Created: r.Turn, Updated: r.Turn, ValidAt: r.ValidAt, RecordedAt: r.RecordedAt, Attributes: maps.Clone(d.Attributes), defaulted: implicit}
	m.pos[id] = len(m.order)
	m.order = append(m.order, id)
}

// update sets the non-empty fields of d, keeping the earlier values as an
// expired revision (the same node path is the same slot: its new value
// retires the old one).
func (m *Memory) update(n *MemoryNode, d NodeDetails, r extract.Operation) {
	turn := r.Turn
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
	attrs := n.Attributes
	for k, v := range d.Attributes {
		if attrs[k] != v {
			attrs = maps.Clone(n.Attributes)
			if attrs == nil {
				attrs = map[string]string{}
			}
			maps.Copy(attrs, d.Attributes)
			break
		}
	}
	if next.Label == n.Label && next.Description == n.Description && next.Timestamp == n.Timestamp && maps.Equal(attrs, n.Attributes) {
		return
	}
	if n.defaulted {
		n.defaulted = false
		n.Label, n.Description, n.Timestamp, n.Attributes = next.Label, next.Description, next.Timestamp, attrs
		n.Updated, n.ValidAt, n.RecordedAt = turn, r.ValidAt, r.RecordedAt
		return
	}
	n.History = append(n.History, Revision{Since: n.Updated, Until: turn, Label: n.Label, Description: n.Description, Timestamp: n.Timestamp,
		ValidAt: n.ValidAt, InvalidAt: r.ValidAt, RecordedAt: n.RecordedAt, ExpiredAt: r.RecordedAt,
		Reason: fmt.Sprintf("replaced by %s at turn %d", r.Op, turn), Attributes: n.Attributes})
	n.Label, n.Description, n.Timestamp, n.Attributes = next.Label, next.Description, next.Timestamp, attrs
	n.Updated, n.ValidAt, n.RecordedAt = turn, r.ValidAt, r.RecordedAt
	m.stats.Retired++
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
	c.Attributes = maps.Clone(n.Attributes)
	return c, true
}

// NodeIDs returns every node id, sorted.
func (m *Memory) NodeIDs() []string { return append([]string(nil), m.IDs()...) }

// Has implements Known: whether the memory holds a node of that id.
func (m *Memory) Has(id string) bool {
	_, ok := m.nodes[id]
	return ok
}

// IDs implements Known: every node id, sorted (the caller must not change
// the slice). Nodes are never removed, so the sorted ids are kept and
// sorted again only when nodes were added since.
func (m *Memory) IDs() []string {
	if len(m.sorted) != len(m.order) {
		m.sorted = append(m.sorted[:0], m.order...)
		sort.Strings(m.sorted)
	}
	return m.sorted
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
	turns := map[int]bool{}
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
		if op.Status == extract.OutcomeRejected {
			continue
		}
		switch op.Op {
		case extract.OpAddNode, extract.OpUpdateNode:
			mark(op.NodeID)
		case extract.OpAddRelation:
			mark(op.SourceID)
			mark(op.TargetID)
			rels[extract.EdgeKey(op.SourceID, op.Label, op.TargetID)] = true
			turns[op.Turn] = true
		}
	}
	// The relations these operations retired, so their end is written too.
	for t := range turns {
		for _, i := range m.retiredAt[t] {
			r := m.rels[i]
			mark(r.Source)
			mark(r.Target)
			rels[extract.EdgeKey(r.Source, r.Label, r.Target)] = true
		}
	}
	return m.graphFilter(keep, rels, turns)
}

func (m *Memory) graphOf(keep map[string]bool) extract.Graph {
	return m.graphFilter(keep, nil, nil)
}

// graphFilter builds the graph; a nil keep keeps every node and relation.
func (m *Memory) graphFilter(keep, rels map[string]bool, turns map[int]bool) extract.Graph {
	g := extract.Graph{Nodes: []extract.Node{}, Edges: []extract.Edge{}}
	// The nodes and relations in the order added: all of them, or those
	// kept, looked up rather than found among all (a turn's part of a
	// long dialogue's memory is small).
	ids := m.order
	history := -1
	if keep != nil {
		ids = make([]string, 0, len(keep))
		for id := range keep {
			if _, ok := m.pos[id]; ok {
				ids = append(ids, id)
			}
		}
		slices.SortFunc(ids, func(a, b string) int { return cmp.Compare(m.pos[a], m.pos[b]) })
		history = turnHistory
	}
	for _, id := range ids {
		g.Nodes = append(g.Nodes, m.graphNode(m.nodes[id], history, turns))
		if p := parentOf(id); p != "" && (keep == nil || keep[p]) {
			g.Edges = append(g.Edges, extract.Edge{Source: p, Target: id, Label: HasLabel, Weight: 1})
		}
	}
	relIdx := make([]int, 0, len(rels))
	if keep == nil {
		for i := range m.rels {
			relIdx = append(relIdx, i)
		}
	} else {
		for k := range rels {
			if i, ok := m.relSet[k]; ok {
				relIdx = append(relIdx, i)
			}
		}
		slices.Sort(relIdx)
	}
	for _, i := range relIdx {
		r := m.rels[i]
		k := extract.EdgeKey(r.Source, r.Label, r.Target)
		if m.relSet[k] != i {
			continue // a relation said again after it was retired is written once, as it stands
		}
		props := map[string]any{"turn": r.Turn}
		putTimes(props, r.ValidAt, r.RecordedAt)
		mentions := []extract.Mention{{DocumentID: m.DocumentID, ChunkIndex: r.Turn}}
		if !r.Current() {
			props[extract.PropExpired] = true
			props["until_turn"] = r.Until
			props["reason"] = r.Reason
			if r.InvalidAt != "" {
				props[extract.PropInvalidAt] = r.InvalidAt
			}
			if r.ExpiredAt != "" {
				props[extract.PropExpiredAt] = r.ExpiredAt
			}
			mentions = append(mentions, extract.Mention{DocumentID: m.DocumentID, ChunkIndex: r.Until})
		}
		g.Edges = append(g.Edges, extract.Edge{Source: r.Source, Target: r.Target, Label: r.Label, Weight: 1,
			Properties: props, Mentions: mentions})
	}
	return g
}

// anyMap is m as a property value.
func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// putTimes sets the valid and recorded times of a fact, when known.
func putTimes(props map[string]any, validAt, recordedAt string) {
	if validAt != "" {
		props[extract.PropValidAt] = validAt
	}
	if recordedAt != "" {
		props[extract.PropRecordedAt] = recordedAt
	}
}

// turnHistory is how many of a node's earlier values a turn's graph
// carries (the latest ones): a node named in every turn would otherwise
// write its whole history each turn, and a dialogue's writes would grow
// with the square of its turns. The consolidated memory a finished
// dialogue writes (Graph) carries them all.
const turnHistory = 16

// graphNode is a node as a graph node; history, when not negative, keeps
// only the latest earlier values (the property history_dropped counts the
// others), and turns, when not nil, keeps only the mentions of those turns
// (a turn's graph adds its own; the earlier ones are stored).
func (m *Memory) graphNode(n *MemoryNode, history int, turns map[int]bool) extract.Node {
	props := map[string]any{"path": n.ID}
	if len(n.Attributes) > 0 {
		props[extract.PropAttributes] = anyMap(n.Attributes)
	}
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
		props[extract.PropUpdatedTurn] = n.Updated
	}
	putTimes(props, n.ValidAt, n.RecordedAt)
	if len(n.History) > 0 {
		revs := n.History
		if history >= 0 && len(revs) > history {
			props["history_dropped"] = len(revs) - history
			revs = revs[len(revs)-history:]
		}
		h := make([]any, 0, len(revs))
		for _, r := range revs {
			e := map[string]any{"since": r.Since, "until": r.Until, "label": r.Label, "description": r.Description, "timestamp": r.Timestamp}
			putTimes(e, r.ValidAt, r.RecordedAt)
			for k, v := range map[string]string{extract.PropInvalidAt: r.InvalidAt, extract.PropExpiredAt: r.ExpiredAt, "reason": r.Reason} {
				if v != "" {
					e[k] = v
				}
			}
			if len(r.Attributes) > 0 {
				e[extract.PropAttributes] = anyMap(r.Attributes)
			}
			h = append(h, e)
		}
		props[extract.PropHistory] = h
	}
	node := extract.Node{Key: n.ID, Name: n.Label, Type: NodeType(n.ID), Description: n.Description, Properties: props}
	if node.Name == "" || n.defaulted {
		node.Name = defaultName(n.ID)
	}
	seen := map[int]bool{}
	var at []int
	if turns == nil {
		at = append(historyTurns(n), n.Created, n.Updated)
	} else {
		for t := range turns {
			at = append(at, t)
		}
	}
	for _, t := range at {
		if turns != nil && t != n.Created && t != n.Updated && !historyHas(n, t) {
			continue
		}
		if t >= 0 && !seen[t] {
			seen[t] = true
			node.Mentions = append(node.Mentions, extract.Mention{DocumentID: m.DocumentID, ChunkIndex: t})
		}
	}
	sort.Slice(node.Mentions, func(i, j int) bool { return node.Mentions[i].ChunkIndex < node.Mentions[j].ChunkIndex })
	return node
}

// historyHas says an earlier value of n began or ended at turn t (the
// latest values are looked at first, as a turn's are).
func historyHas(n *MemoryNode, t int) bool {
	for i := len(n.History) - 1; i >= 0; i-- {
		if r := n.History[i]; r.Since == t || r.Until == t {
			return true
		}
		if n.History[i].Until < t {
			return false
		}
	}
	return false
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
