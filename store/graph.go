package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/chunkrun"
	entedge "github.com/kgstudio/kgstudio/ent/edge"
	"github.com/kgstudio/kgstudio/ent/extractionversion"
	"github.com/kgstudio/kgstudio/ent/mention"
	"github.com/kgstudio/kgstudio/ent/node"
	"github.com/kgstudio/kgstudio/extract"
)

// BatchSize is the number of rows per multi-row insert. It keeps every
// statement well under SQLite's and PostgreSQL's bind-parameter limits.
const BatchSize = 500

// WriteGraph upserts a whole graph into a version: nodes by (version, key),
// edges by (version, source, label, target), mentions by their full
// identity. Each batch is one multi-row statement in its own transaction, so
// replaying a batch (after a crash) adds no duplicates. Existing rows take
// the new values.
func (s *Store) WriteGraph(ctx context.Context, versionID int, g extract.Graph) error {
	var mentions []*ent.MentionCreate
	for start := 0; start < len(g.Nodes); start += BatchSize {
		part := g.Nodes[start:min(start+BatchSize, len(g.Nodes))]
		err := s.inTx(ctx, func(tx *ent.Tx) error {
			return upsertNodes(ctx, tx, versionID, part)
		})
		if err != nil {
			return err
		}
	}
	for start := 0; start < len(g.Edges); start += BatchSize {
		part := g.Edges[start:min(start+BatchSize, len(g.Edges))]
		err := s.inTx(ctx, func(tx *ent.Tx) error {
			return upsertEdges(ctx, tx, versionID, part)
		})
		if err != nil {
			return err
		}
	}
	// Mentions last: they only add provenance.
	err := s.inTx(ctx, func(tx *ent.Tx) error {
		mentions = mentionCreates(tx.Client(), versionID, g)
		return insertMentions(ctx, tx, mentions)
	})
	if err != nil {
		return err
	}
	return s.refreshCounts(ctx, versionID)
}

// refreshCounts stores the node and edge counts of a version.
func (s *Store) refreshCounts(ctx context.Context, versionID int) error {
	nodes, err := s.Client.Node.Query().Where(node.VersionID(versionID)).Count(ctx)
	if err != nil {
		return fmt.Errorf("count nodes: %w", err)
	}
	edges, err := s.Client.Edge.Query().Where(entedge.VersionID(versionID)).Count(ctx)
	if err != nil {
		return fmt.Errorf("count edges: %w", err)
	}
	return s.Client.ExtractionVersion.UpdateOneID(versionID).SetNodeCount(nodes).SetEdgeCount(edges).Exec(ctx)
}

func (s *Store) inTx(ctx context.Context, fn func(tx *ent.Tx) error) error {
	if s.Dialect == dialect.SQLite {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
	}
	tx, err := s.Client.Tx(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		return rollback(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func encodeProps(p map[string]any) string {
	if len(p) == 0 {
		return ""
	}
	b, err := json.Marshal(p)
	if err != nil {
		return ""
	}
	return string(b)
}

func decodeProps(s string) map[string]any {
	if s == "" {
		return nil
	}
	var p map[string]any
	if json.Unmarshal([]byte(s), &p) != nil {
		return nil
	}
	return p
}

func upsertNodes(ctx context.Context, tx *ent.Tx, versionID int, nodes []extract.Node) error {
	if len(nodes) == 0 {
		return nil
	}
	nodes = dedupeNodes(nodes)
	bulk := make([]*ent.NodeCreate, len(nodes))
	for i, n := range nodes {
		bulk[i] = tx.Node.Create().SetVersionID(versionID).SetKey(n.Key).SetName(n.Name).
			SetType(n.Type).SetDescription(n.Description).SetProperties(encodeProps(n.Properties))
	}
	err := tx.Node.CreateBulk(bulk...).
		OnConflict(sql.ConflictColumns(node.FieldVersionID, node.FieldKey)).
		UpdateNewValues().Exec(ctx)
	if err != nil {
		return fmt.Errorf("write nodes: %w", err)
	}
	return nil
}

func upsertEdges(ctx context.Context, tx *ent.Tx, versionID int, edges []extract.Edge) error {
	if len(edges) == 0 {
		return nil
	}
	edges = dedupeEdges(edges)
	bulk := make([]*ent.EdgeCreate, len(edges))
	for i, e := range edges {
		bulk[i] = tx.Edge.Create().SetVersionID(versionID).SetSource(e.Source).SetTarget(e.Target).
			SetLabel(e.Label).SetKeywords(e.Keywords).SetDescription(e.Description).
			SetWeight(e.Weight).SetProperties(encodeProps(e.Properties))
	}
	err := tx.Edge.CreateBulk(bulk...).
		OnConflict(sql.ConflictColumns(entedge.FieldVersionID, entedge.FieldSource, entedge.FieldLabel, entedge.FieldTarget)).
		UpdateNewValues().Exec(ctx)
	if err != nil {
		return fmt.Errorf("write edges: %w", err)
	}
	return nil
}

// dedupeNodes keeps the last node per key: one statement may not touch the
// same row twice (PostgreSQL refuses it).
func dedupeNodes(nodes []extract.Node) []extract.Node {
	idx := make(map[string]int, len(nodes))
	out := make([]extract.Node, 0, len(nodes))
	for _, n := range nodes {
		if i, ok := idx[n.Key]; ok {
			out[i] = n
			continue
		}
		idx[n.Key] = len(out)
		out = append(out, n)
	}
	return out
}

func dedupeEdges(edges []extract.Edge) []extract.Edge {
	idx := make(map[string]int, len(edges))
	out := make([]extract.Edge, 0, len(edges))
	for _, e := range edges {
		k := e.Key()
		if i, ok := idx[k]; ok {
			out[i] = e
			continue
		}
		idx[k] = len(out)
		out = append(out, e)
	}
	return out
}

func mentionCreates(c *ent.Client, versionID int, g extract.Graph) []*ent.MentionCreate {
	seen := map[string]bool{}
	var out []*ent.MentionCreate
	add := func(nodeKey, edgeKey string, m extract.Mention) {
		id := fmt.Sprintf("%s\x1e%s\x1e%d\x1e%d\x1e%d\x1e%d", nodeKey, edgeKey, m.DocumentID, m.ChunkIndex, m.Start, m.End)
		if seen[id] {
			return
		}
		seen[id] = true
		out = append(out, c.Mention.Create().SetVersionID(versionID).SetNodeKey(nodeKey).SetEdgeKey(edgeKey).
			SetDocumentID(m.DocumentID).SetChunkIndex(m.ChunkIndex).SetStart(m.Start).SetEnd(m.End).SetText(m.Text))
	}
	for _, n := range g.Nodes {
		for _, m := range n.Mentions {
			add(n.Key, "", m)
		}
	}
	for _, e := range g.Edges {
		for _, m := range e.Mentions {
			add("", e.Key(), m)
		}
	}
	return out
}

func insertMentions(ctx context.Context, tx *ent.Tx, ms []*ent.MentionCreate) error {
	for start := 0; start < len(ms); start += BatchSize {
		part := ms[start:min(start+BatchSize, len(ms))]
		err := tx.Mention.CreateBulk(part...).
			OnConflict(sql.ConflictColumns(mention.FieldVersionID, mention.FieldNodeKey, mention.FieldEdgeKey,
				mention.FieldDocumentID, mention.FieldChunkIndex, mention.FieldStart, mention.FieldEnd)).
			DoNothing().Exec(ctx)
		if err != nil {
			return fmt.Errorf("write mentions: %w", err)
		}
	}
	return nil
}

// LoadGraph loads a version's whole graph. With mentions, every node and
// edge carries its provenance.
func (s *Store) LoadGraph(ctx context.Context, versionID int, withMentions bool) (extract.Graph, error) {
	var g extract.Graph
	nodes, err := s.Client.Node.Query().Where(node.VersionID(versionID)).Order(node.ByID()).All(ctx)
	if err != nil {
		return g, translate(err, "nodes")
	}
	edges, err := s.Client.Edge.Query().Where(entedge.VersionID(versionID)).Order(entedge.ByID()).All(ctx)
	if err != nil {
		return g, translate(err, "edges")
	}
	g.Nodes = make([]extract.Node, len(nodes))
	nodeIdx := make(map[string]int, len(nodes))
	for i, n := range nodes {
		g.Nodes[i] = NodeFromEnt(n)
		nodeIdx[n.Key] = i
	}
	g.Edges = make([]extract.Edge, len(edges))
	edgeIdx := make(map[string]int, len(edges))
	for i, e := range edges {
		g.Edges[i] = EdgeFromEnt(e)
		edgeIdx[g.Edges[i].Key()] = i
	}
	if !withMentions {
		return g, nil
	}
	ms, err := s.Client.Mention.Query().Where(mention.VersionID(versionID)).Order(mention.ByID()).All(ctx)
	if err != nil {
		return g, translate(err, "mentions")
	}
	for _, m := range ms {
		dm := MentionFromEnt(m)
		if m.NodeKey != "" {
			if i, ok := nodeIdx[m.NodeKey]; ok {
				g.Nodes[i].Mentions = append(g.Nodes[i].Mentions, dm)
			}
		} else if i, ok := edgeIdx[m.EdgeKey]; ok {
			g.Edges[i].Mentions = append(g.Edges[i].Mentions, dm)
		}
	}
	return g, nil
}

// NodeFromEnt converts a node row.
func NodeFromEnt(n *ent.Node) extract.Node {
	return extract.Node{Key: n.Key, Name: n.Name, Type: n.Type, Description: n.Description, Properties: decodeProps(n.Properties)}
}

// EdgeFromEnt converts an edge row.
func EdgeFromEnt(e *ent.Edge) extract.Edge {
	return extract.Edge{Source: e.Source, Target: e.Target, Label: e.Label, Keywords: e.Keywords,
		Description: e.Description, Weight: e.Weight, Properties: decodeProps(e.Properties)}
}

// MentionFromEnt converts a mention row.
func MentionFromEnt(m *ent.Mention) extract.Mention {
	return extract.Mention{DocumentID: m.DocumentID, ChunkIndex: m.ChunkIndex, Start: m.Start, End: m.End, Text: m.Text}
}

// NodeMentions returns the mentions of one node.
func (s *Store) NodeMentions(ctx context.Context, versionID int, key string) ([]extract.Mention, error) {
	ms, err := s.Client.Mention.Query().Where(mention.VersionID(versionID), mention.NodeKey(key)).Order(mention.ByID()).All(ctx)
	if err != nil {
		return nil, translate(err, "mentions")
	}
	out := make([]extract.Mention, len(ms))
	for i, m := range ms {
		out[i] = MentionFromEnt(m)
	}
	return out, nil
}

// ChunkMentions returns the node mentions inside one chunk, by node key.
func (s *Store) ChunkMentions(ctx context.Context, versionID, documentID, chunkIndex int) ([]*ent.Mention, error) {
	ms, err := s.Client.Mention.Query().Where(mention.VersionID(versionID), mention.DocumentID(documentID),
		mention.ChunkIndex(chunkIndex), mention.NodeKeyNEQ("")).Order(mention.ByStart()).All(ctx)
	return ms, translate(err, "mentions")
}

// Sink returns an extract.Sink that writes a run's chunk results into a
// version. Each chunk is merged into what is stored and recorded as finished
// in one transaction, so a chunk is either wholly stored or not at all, and
// writing it again adds nothing.
func (s *Store) Sink(versionID int, maxFragments int) extract.Sink {
	return &versionSink{s: s, versionID: versionID, maxFragments: maxFragments}
}

type versionSink struct {
	s            *Store
	versionID    int
	maxFragments int
	// mu serialises merges of one version: a merge reads then writes.
	mu sync.Mutex
}

var _ extract.Sink = (*versionSink)(nil)

// Finished implements extract.Sink.
func (k *versionSink) Finished(ctx context.Context) (map[extract.ChunkRef]bool, error) {
	runs, err := k.s.Client.ChunkRun.Query().Where(chunkrun.VersionID(k.versionID)).
		Select(chunkrun.FieldDocumentID, chunkrun.FieldChunkIndex).All(ctx)
	if err != nil {
		return nil, translate(err, "chunk runs")
	}
	done := make(map[extract.ChunkRef]bool, len(runs))
	for _, r := range runs {
		done[extract.ChunkRef{DocumentID: r.DocumentID, Index: r.ChunkIndex}] = true
	}
	return done, nil
}

// WriteChunk implements extract.Sink.
func (k *versionSink) WriteChunk(ctx context.Context, res extract.ChunkResult) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.s.inTx(ctx, func(tx *ent.Tx) error {
		exists, err := tx.ChunkRun.Query().Where(chunkrun.VersionID(k.versionID),
			chunkrun.DocumentID(res.Chunk.DocumentID), chunkrun.ChunkIndex(res.Chunk.Index)).Exist(ctx)
		if err != nil {
			return fmt.Errorf("check chunk: %w", err)
		}
		if exists {
			return nil
		}
		newNodes, newEdges, err := mergeInto(ctx, tx, k.versionID, res.Graph, k.maxFragments)
		if err != nil {
			return err
		}
		if err := insertMentions(ctx, tx, mentionCreates(tx.Client(), k.versionID, res.Graph)); err != nil {
			return err
		}
		if err := writeOperations(ctx, tx, k.versionID, res.Operations); err != nil {
			return err
		}
		detail, _ := json.Marshal(chunkDetail{Calls: res.Calls, Failures: res.Failures, Operations: len(res.Operations)})
		var pt, ot, cached int
		for _, c := range res.Calls {
			pt += c.PromptTokens
			ot += c.OutputTokens
			if c.Cached {
				cached++
			}
		}
		err = tx.ChunkRun.Create().SetVersionID(k.versionID).SetDocumentID(res.Chunk.DocumentID).
			SetChunkIndex(res.Chunk.Index).SetDetail(string(detail)).SetNodeCount(len(res.Graph.Nodes)).
			SetEdgeCount(len(res.Graph.Edges)).SetPromptTokens(pt).SetOutputTokens(ot).
			SetOffSchema(res.OffSchema).SetFailures(len(res.Failures)).SetElapsedMs(res.Elapsed.Milliseconds()).Exec(ctx)
		if err != nil {
			return fmt.Errorf("record chunk: %w", err)
		}
		return tx.ExtractionVersion.UpdateOneID(k.versionID).AddChunksDone(1).AddNodeCount(newNodes).
			AddEdgeCount(newEdges).AddPromptTokens(pt).AddOutputTokens(ot).AddCalls(len(res.Calls)).
			AddCachedCalls(cached).AddOffSchema(res.OffSchema).AddParseFailures(len(res.Failures)).
			SetHeartbeatAt(k.s.Now()).Exec(ctx)
	})
}

// chunkDetail is what the per-chunk inspector shows.
type chunkDetail struct {
	Calls      []extract.CallRecord   `json:"calls,omitempty"`
	Failures   []extract.ParseFailure `json:"failures,omitempty"`
	Operations int                    `json:"operations,omitempty"`
}

// mergeInto merges a chunk graph into the stored graph of a version and
// returns how many nodes and edges are new.
func mergeInto(ctx context.Context, tx *ent.Tx, versionID int, g extract.Graph, maxFragments int) (int, int, error) {
	// Nodes: load those that exist, merge, upsert.
	keys := make([]string, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		keys = append(keys, n.Key)
	}
	existing := map[string]*extract.Node{}
	for start := 0; start < len(keys); start += BatchSize {
		rows, err := tx.Node.Query().Where(node.VersionID(versionID), node.KeyIn(keys[start:min(start+BatchSize, len(keys))]...)).All(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("load nodes: %w", err)
		}
		for _, r := range rows {
			n := NodeFromEnt(r)
			existing[r.Key] = &n
		}
	}
	merged := map[string]*extract.Node{}
	var order []string
	newNodes := 0
	for _, n := range g.Nodes {
		n.Mentions = nil
		if m, ok := merged[n.Key]; ok {
			extract.MergeNode(m, n, maxFragments)
			continue
		}
		if e, ok := existing[n.Key]; ok {
			extract.MergeNode(e, n, maxFragments)
			merged[n.Key] = e
		} else {
			c := n
			merged[n.Key] = &c
			newNodes++
		}
		order = append(order, n.Key)
	}
	out := make([]extract.Node, 0, len(order))
	for _, k := range order {
		out = append(out, *merged[k])
	}
	for start := 0; start < len(out); start += BatchSize {
		if err := upsertNodes(ctx, tx, versionID, out[start:min(start+BatchSize, len(out))]); err != nil {
			return 0, 0, err
		}
	}
	// Edges: same, keyed by (source, label, target).
	mergedE := map[string]*extract.Edge{}
	var eorder []string
	newEdges := 0
	for _, e := range g.Edges {
		e.Mentions = nil
		k := e.Key()
		if m, ok := mergedE[k]; ok {
			extract.MergeEdge(m, e, maxFragments)
			continue
		}
		row, err := tx.Edge.Query().Where(entedge.VersionID(versionID), entedge.Source(e.Source),
			entedge.LabelEQ(e.Label), entedge.Target(e.Target)).Only(ctx)
		switch {
		case err == nil:
			cur := EdgeFromEnt(row)
			extract.MergeEdge(&cur, e, maxFragments)
			mergedE[k] = &cur
		case ent.IsNotFound(err):
			c := e
			mergedE[k] = &c
			newEdges++
		default:
			return 0, 0, fmt.Errorf("load edge: %w", err)
		}
		eorder = append(eorder, k)
	}
	eout := make([]extract.Edge, 0, len(eorder))
	for _, k := range eorder {
		eout = append(eout, *mergedE[k])
	}
	for start := 0; start < len(eout); start += BatchSize {
		if err := upsertEdges(ctx, tx, versionID, eout[start:min(start+BatchSize, len(eout))]); err != nil {
			return 0, 0, err
		}
	}
	return newNodes, newEdges, nil
}

func writeOperations(ctx context.Context, tx *ent.Tx, versionID int, ops []extract.Operation) error {
	if len(ops) == 0 {
		return nil
	}
	for start := 0; start < len(ops); start += BatchSize {
		part := ops[start:min(start+BatchSize, len(ops))]
		bulk := make([]*ent.OperationCreate, len(part))
		for i, o := range part {
			bulk[i] = tx.Operation.Create().SetVersionID(versionID).SetTurn(o.Turn).SetSeq(o.Seq).SetOp(o.Op).
				SetNodeID(o.NodeID).SetSourceID(o.SourceID).SetTargetID(o.TargetID).SetLabel(o.Label).
				SetDescription(o.Description).SetTimestamp(o.Timestamp).SetStatus(o.Status).SetReason(o.Reason)
		}
		if err := tx.Operation.CreateBulk(bulk...).Exec(ctx); err != nil {
			return fmt.Errorf("write operations: %w", err)
		}
	}
	return nil
}

// Operations returns a version's operation log in order.
func (s *Store) Operations(ctx context.Context, versionID int) ([]extract.Operation, error) {
	rows, err := s.Client.Operation.Query().Where(func(sel *sql.Selector) {
		sel.Where(sql.EQ("version_id", versionID))
	}).All(ctx)
	if err != nil {
		return nil, translate(err, "operations")
	}
	out := make([]extract.Operation, len(rows))
	for i, o := range rows {
		out[i] = extract.Operation{Turn: o.Turn, Seq: o.Seq, Op: o.Op, NodeID: o.NodeID, SourceID: o.SourceID,
			TargetID: o.TargetID, Label: o.Label, Description: o.Description, Timestamp: o.Timestamp,
			Status: o.Status, Reason: o.Reason}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Turn != out[j].Turn {
			return out[i].Turn < out[j].Turn
		}
		return out[i].Seq < out[j].Seq
	})
	return out, nil
}

// versionExists reports whether a version exists.
func (s *Store) versionExists(ctx context.Context, id int) (bool, error) {
	return s.Client.ExtractionVersion.Query().Where(extractionversion.ID(id)).Exist(ctx)
}
