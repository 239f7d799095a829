package store

import (
	"cmp"
	"context"
	gosql "database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/chunkrun"
	entedge "github.com/kgstudio/kgstudio/ent/edge"
	"github.com/kgstudio/kgstudio/ent/mention"
	"github.com/kgstudio/kgstudio/ent/node"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// BatchSize is the number of rows or keys per statement in the store's Ent
// queries (multi-row inserts, IN lists). It keeps every statement well under
// SQLite's and PostgreSQL's bind-parameter limits. The bulk writes of the
// graph tables use larger batches of their own (see bulk.go).
const BatchSize = 500

// WriteGraph upserts a whole graph into a version: nodes by (version, key),
// edges by (version, source, label, target); mentions are added but for
// those stored already (same node or edge, document, chunk and span), in
// one transaction. Each batch of nodes or edges is one statement (on
// PostgreSQL, a COPY when its rows are new) in its own transaction, so
// replaying a batch (after a crash) adds no duplicates. Existing rows take the new values. Nodes and
// edges are written in the order given, so the graph loads back in it.
// Into an empty version every row is new: SQLite inserts them without ON
// CONFLICT and without a statement journal (see inTxBulk). Keys, types and labels longer than MaxIndexedBytes are clipped (boundKey),
// here and in the run sink alike.
func (s *Store) WriteGraph(ctx context.Context, versionID int, g extract.Graph) error {
	return s.writeGraph(ctx, versionID, g, false)
}

// writeGraph is WriteGraph; with running, every transaction first checks
// that the version is still running (ErrNotActive when it was canceled or
// deleted), holding its row (PostgreSQL) until it commits, so a cancel
// stops the write at the next batch and a delete waits for the batch in
// flight instead of failing it.
func (s *Store) writeGraph(ctx context.Context, versionID int, g extract.Graph, running bool) error {
	g = boundGraph(g)
	// A transaction per statement on PostgreSQL; on SQLite, where every
	// commit writes the index pages it touched to the WAL again, up to
	// sqliteTxRows rows per transaction with a page cache that holds them.
	txRows, cacheKiB := bulkRows(s.Dialect), 0
	nodes := dedupeNodes(g.Nodes)
	edges := dedupeEdges(g.Edges)
	if s.Dialect == dialect.SQLite {
		txRows = sqliteTxRows
		cacheKiB = sqliteCacheKiB(max(len(nodes), len(edges)))
	}
	// Into an empty version, degrees are counted here with the rows;
	// otherwise they are recounted in SQL once the rows are written.
	fresh, err := versionEmpty(ctx, s.db, s.Dialect, versionID)
	if err != nil {
		return err
	}
	var degrees []int64
	if fresh {
		degrees = graphDegrees(nodes, edges)
	}
	var nodeBatches, edgeBatches []func(ctx context.Context, b *writeTx) error
	for start := 0; start < len(nodes); start += txRows {
		part := nodes[start:min(start+txRows, len(nodes))]
		var deg []int64
		if fresh {
			deg = degrees[start:min(start+txRows, len(nodes))]
		}
		nodeBatches = append(nodeBatches, func(ctx context.Context, b *writeTx) error {
			if err := checkRunning(ctx, b, versionID, running); err != nil {
				return err
			}
			b.copy, b.allNew = true, fresh
			return upsertNodes(ctx, b, versionID, part, deg)
		})
	}
	for start := 0; start < len(edges); start += txRows {
		part := edges[start:min(start+txRows, len(edges))]
		edgeBatches = append(edgeBatches, func(ctx context.Context, b *writeTx) error {
			if err := checkRunning(ctx, b, versionID, running); err != nil {
				return err
			}
			b.copy, b.allNew = true, fresh
			return upsertEdges(ctx, b, versionID, part)
		})
	}
	if err := s.inTxLanes(ctx, cacheKiB, versionID, nodeBatches, edgeBatches); err != nil {
		return err
	}
	if !fresh {
		if err := s.inTx(ctx, func(b *writeTx) error {
			return refreshWritten(ctx, b, s.Dialect, versionID, nodes, edges)
		}); err != nil {
			return err
		}
	}
	// Mentions last: they only add provenance.
	if ms := mentionRows(g); ms.len() > 0 {
		mentionCache := 0
		if s.Dialect == dialect.SQLite {
			mentionCache = sqliteCacheKiB(ms.len())
		}
		err := s.inTxBulk(ctx, mentionCache, versionID, func(b *writeTx) error {
			if err := checkRunning(ctx, b, versionID, running); err != nil {
				return err
			}
			b.copy, b.allNew = true, fresh
			if !fresh {
				var err error
				if ms, err = unstoredMentions(ctx, b, versionID, ms); err != nil {
					return err
				}
			}
			return insertMentions(ctx, b, versionID, ms)
		})
		if err != nil {
			return err
		}
	}
	return s.refreshCounts(ctx, versionID)
}

// checkRunning, when running is set, checks within a transaction that a
// version is running, and on PostgreSQL holds its row (FOR SHARE) until
// the transaction ends, so a delete of the version waits for it.
func checkRunning(ctx context.Context, b *writeTx, versionID int, running bool) error {
	if !running {
		return nil
	}
	return checkStatus(ctx, b, versionID, b.dialect == dialect.Postgres, func(st record.Status) bool { return st == record.StatusRunning })
}

// checkStatus reads a version's status within b (holding its row FOR
// SHARE with lock) and fails with ErrNotActive when the version is gone
// or ok refuses its status.
func checkStatus(ctx context.Context, b *writeTx, versionID int, lock bool, ok func(record.Status) bool) error {
	q := `SELECT status FROM extraction_versions WHERE id = ?`
	if lock {
		q += ` FOR SHARE`
	}
	var st record.Status
	switch err := b.QueryRowContext(ctx, b.rebind(q), versionID).Scan(&st); {
	case errors.Is(err, gosql.ErrNoRows):
		return ErrNotActive
	case err != nil:
		return fmt.Errorf("check version: %w", err)
	case !ok(st):
		return ErrNotActive
	}
	return nil
}

// checkActive is checkRunning for a version that may still be queued: it
// fails with ErrNotActive once the version has ended (canceled, failed,
// done) or is gone.
func checkActive(ctx context.Context, b *writeTx, versionID int) error {
	return checkStatus(ctx, b, versionID, false, record.Status.Active)
}

// refreshCounts stores the node and edge counts of a version.
func (s *Store) refreshCounts(ctx context.Context, versionID int) error {
	nodes, err := s.client.Node.Query().Where(node.VersionID(versionID)).Count(ctx)
	if err != nil {
		return fmt.Errorf("count nodes: %w", err)
	}
	edges, err := s.client.Edge.Query().Where(entedge.VersionID(versionID)).Count(ctx)
	if err != nil {
		return fmt.Errorf("count edges: %w", err)
	}
	return s.write(ctx, func(c *ent.Client) error {
		return c.ExtractionVersion.UpdateOneID(versionID).SetNodeCount(nodes).SetEdgeCount(edges).Exec(ctx)
	})
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

// upsertNodes writes nodes in statements of bulkRows rows. Keys must be
// unique (see dedupeNodes): one statement may not touch a row twice. New
// rows take the degrees given (in the order of nodes), or 0 when degrees
// is nil; rows that exist add them to theirs (a merge's increments; 0
// keeps theirs, see refreshDegrees).
func upsertNodes(ctx context.Context, b *writeTx, versionID int, nodes []extract.Node, degrees []int64) error {
	if len(nodes) == 0 {
		return nil
	}
	rows := bulkRows(b.dialect)
	for start := 0; start < len(nodes); start += rows {
		part := nodes[start:min(start+rows, len(nodes))]
		keys, names, types := make([]string, len(part)), make([]string, len(part)), make([]string, len(part))
		descs, props := make([]string, len(part)), make([]string, len(part))
		deg := make([]int64, len(part))
		if degrees != nil {
			copy(deg, degrees[start:])
		}
		for i, n := range part {
			keys[i], names[i], types[i], descs[i], props[i] = n.Key, n.Name, n.Type, n.Description, encodeProps(n.Properties)
		}
		if err := nodesTable.exec(ctx, b, versionID, len(part), columns{keys, names, types, descs, props, deg}); err != nil {
			return fmt.Errorf("write nodes: %w", err)
		}
	}
	return nil
}

// upsertEdges writes edges in statements of bulkRows rows, long
// descriptions once per version (see edgeTextMin). Keys must be unique
// (see dedupeEdges).
func upsertEdges(ctx context.Context, b *writeTx, versionID int, edges []extract.Edge) error {
	if len(edges) == 0 {
		return nil
	}
	rows := bulkRows(b.dialect)
	for start := 0; start < len(edges); start += rows {
		part := edges[start:min(start+rows, len(edges))]
		n := len(part)
		src, tgt, lbl, kw := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		descs, weights, props := make([]string, n), make([]float64, n), make([]string, n)
		for i, e := range part {
			src[i], tgt[i], lbl[i], kw[i] = e.Source, e.Target, e.Label, e.Keywords
			descs[i], weights[i], props[i] = e.Description, e.Weight, encodeProps(e.Properties)
		}
		refs, hashes, texts := pooledDescriptions(descs)
		if err := insertEdgeTexts(ctx, b, versionID, hashes, texts); err != nil {
			return err
		}
		if err := edgesTable.exec(ctx, b, versionID, n, columns{src, tgt, lbl, kw, descs, refs, weights, props}); err != nil {
			return fmt.Errorf("write edges: %w", err)
		}
	}
	return nil
}

// dedupeNodes keeps the last node per key, at the place of the first: one
// statement may not touch the same row twice (PostgreSQL refuses it).
// Without duplicates it returns nodes itself, so a large write holds no
// second copy of its graph.
func dedupeNodes(nodes []extract.Node) []extract.Node {
	seen := make(map[string]struct{}, len(nodes))
	dups := false
	for _, n := range nodes {
		if _, ok := seen[n.Key]; ok {
			dups = true
			break
		}
		seen[n.Key] = struct{}{}
	}
	if !dups {
		return nodes
	}
	out := make([]extract.Node, 0, len(nodes))
	at := make(map[string]int, len(nodes))
	for _, n := range nodes {
		if i, ok := at[n.Key]; ok {
			out[i] = n
			continue
		}
		at[n.Key] = len(out)
		out = append(out, n)
	}
	return out
}

// dedupeEdges is dedupeNodes for edges, by (source, label, target). It
// finds duplicates by a 64-bit hash of the three, comparing the edges
// themselves where hashes meet, so its table stays small.
func dedupeEdges(edges []extract.Edge) []extract.Edge {
	seed := maphash.MakeSeed()
	hash := func(e *extract.Edge) uint64 {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteString(e.Source)
		h.WriteByte(0)
		h.WriteString(e.Label)
		h.WriteByte(0)
		h.WriteString(e.Target)
		return h.Sum64()
	}
	seen := make(map[uint64]struct{}, len(edges))
	dups := false
	for i := range edges {
		h := hash(&edges[i])
		if _, ok := seen[h]; ok {
			dups = true // or two edges whose hashes meet: the exact pass below tells
			break
		}
		seen[h] = struct{}{}
	}
	if !dups {
		return edges
	}
	at := make(map[extract.EdgeID]int, len(edges))
	out := make([]extract.Edge, 0, len(edges))
	for _, e := range edges {
		k := e.ID()
		if i, ok := at[k]; ok {
			out[i] = e
			continue
		}
		at[k] = len(out)
		out = append(out, e)
	}
	return out
}

// mentionBatch holds mention rows column by column.
type mentionBatch struct {
	nodeKeys, edgeKeys, texts  []string
	docs, chunks, starts, ends []int64
}

func (m *mentionBatch) len() int { return len(m.nodeKeys) }

// push adds one mention row.
func (m *mentionBatch) push(nodeKey, edgeKey, text string, doc, chunk, start, end int64) {
	m.nodeKeys, m.edgeKeys, m.texts = append(m.nodeKeys, nodeKey), append(m.edgeKeys, edgeKey), append(m.texts, text)
	m.docs, m.chunks, m.starts, m.ends = append(m.docs, doc), append(m.chunks, chunk), append(m.starts, start), append(m.ends, end)
}

func (m *mentionBatch) slice(from, to int) columns {
	refs := make([]int64, to-from)
	for i, k := range m.edgeKeys[from:to] {
		if k != "" {
			refs[i] = textRef(k)
		}
	}
	return columns{m.nodeKeys[from:to], m.edgeKeys[from:to], m.docs[from:to], m.chunks[from:to],
		m.starts[from:to], m.ends[from:to], m.texts[from:to], refs}
}

// mentionRows lists the mentions of a graph's nodes and edges, each
// identity once: those of the edges by edge key, then those of the nodes
// by node key, each one's in the order given. That is the order of the
// mentions' indexes by node and by edge key, so a large batch adds to
// their ends instead of all over them; a node's or an edge's mentions
// still load back in the order given.
func mentionRows(g extract.Graph) *mentionBatch {
	total := 0
	var edges, nodes []sortedKey
	for i, e := range g.Edges {
		if len(e.Mentions) > 0 {
			edges = append(edges, newSortedKey(e.Key(), i))
			total += len(e.Mentions)
		}
	}
	for i, n := range g.Nodes {
		if len(n.Mentions) > 0 {
			nodes = append(nodes, newSortedKey(n.Key, i))
			total += len(n.Mentions)
		}
	}
	out := &mentionBatch{nodeKeys: make([]string, 0, total), edgeKeys: make([]string, 0, total), texts: make([]string, 0, total),
		docs: make([]int64, 0, total), chunks: make([]int64, 0, total), starts: make([]int64, 0, total), ends: make([]int64, 0, total)}
	// A key's mentions are consecutive rows, so duplicates are looked for
	// among them only: by scanning a short run, through a map of its own
	// in a long one.
	type place struct{ doc, chunk, start, end int }
	var (
		from int // first row of the current key
		seen map[place]struct{}
	)
	begin := func() { from, seen = out.len(), nil }
	add := func(nodeKey, edgeKey string, m extract.Mention) {
		p := place{m.DocumentID, m.ChunkIndex, m.Start, m.End}
		if seen != nil {
			if _, ok := seen[p]; ok {
				return
			}
			seen[p] = struct{}{}
		} else {
			for r := from; r < out.len(); r++ {
				if out.docs[r] == int64(p.doc) && out.chunks[r] == int64(p.chunk) && out.starts[r] == int64(p.start) && out.ends[r] == int64(p.end) {
					return
				}
			}
			if out.len()-from == 32 {
				seen = make(map[place]struct{}, 64)
				for r := from; r < out.len(); r++ {
					seen[place{int(out.docs[r]), int(out.chunks[r]), int(out.starts[r]), int(out.ends[r])}] = struct{}{}
				}
				seen[p] = struct{}{}
			}
		}
		out.push(nodeKey, edgeKey, m.Text, int64(m.DocumentID), int64(m.ChunkIndex), int64(m.Start), int64(m.End))
	}
	slices.SortFunc(edges, compareSortedKeys)
	for x, k := range edges {
		if x == 0 || k.key != edges[x-1].key {
			begin()
		}
		for _, m := range g.Edges[k.i].Mentions {
			add("", k.key, m)
		}
	}
	slices.SortFunc(nodes, compareSortedKeys)
	for x, k := range nodes {
		if x == 0 || k.key != nodes[x-1].key {
			begin()
		}
		for _, m := range g.Nodes[k.i].Mentions {
			add(k.key, "", m)
		}
	}
	return out
}

// sortedKey is a key to sort by, with its first eight bytes as a number
// (big-endian, zero-padded), which settles most comparisons without
// reading the key's bytes from wherever they are in memory, and its
// position, which settles ties so that equal keys keep their order.
type sortedKey struct {
	prefix uint64
	key    string
	i      int
}

func newSortedKey(key string, i int) sortedKey {
	var b [8]byte
	copy(b[:], key)
	return sortedKey{prefix: binary.BigEndian.Uint64(b[:]), key: key, i: i}
}

// compareSortedKeys orders by key (as strings.Compare does), then by
// position.
func compareSortedKeys(a, b sortedKey) int {
	if a.prefix != b.prefix {
		return cmp.Compare(a.prefix, b.prefix)
	}
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// unstoredMentions drops from ms the mentions the version holds already
// (same node or edge key, document, chunk and span): writes into a version
// that has rows add only what is new.
func unstoredMentions(ctx context.Context, b *writeTx, versionID int, ms *mentionBatch) (*mentionBatch, error) {
	type ident struct {
		node, edge             string
		doc, chunk, start, end int64
	}
	stored := map[ident]bool{}
	read := func(in string, args []any, cond string) error {
		rows, err := queryOn(ctx, b, rebind(b.dialect, `SELECT node_key, edge_key, document_id, chunk_index, "start", "end" FROM mentions `+
			`WHERE version_id = ? AND `+cond+` `+in), append([]any{versionID}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id ident
			if err := rows.Scan(&id.node, &id.edge, &id.doc, &id.chunk, &id.start, &id.end); err != nil {
				return err
			}
			stored[id] = true
		}
		return rows.Err()
	}
	nodes, edges := map[string]bool{}, map[int64]bool{}
	var nodeKeys []string
	var edgeRefs []int64
	for r := range ms.len() {
		if k := ms.nodeKeys[r]; k != "" && !nodes[k] {
			nodes[k] = true
			nodeKeys = append(nodeKeys, k)
		}
		if k := ms.edgeKeys[r]; k != "" && !edges[textRef(k)] {
			edges[textRef(k)] = true
			edgeRefs = append(edgeRefs, textRef(k))
		}
	}
	err := forKeys(nodeKeys, b.dialect, func(in string, args []any) error { return read(in, args, "node_key <> '' AND node_key") })
	if err == nil {
		err = forList(edgeRefs, b.dialect, "int8", func(in string, args []any) error { return read(in, args, "edge_ref <> 0 AND edge_ref") })
	}
	if err != nil {
		return nil, fmt.Errorf("read stored mentions: %w", err)
	}
	if len(stored) == 0 {
		return ms, nil
	}
	out := &mentionBatch{}
	for r := range ms.len() {
		if stored[ident{ms.nodeKeys[r], ms.edgeKeys[r], ms.docs[r], ms.chunks[r], ms.starts[r], ms.ends[r]}] {
			continue
		}
		out.push(ms.nodeKeys[r], ms.edgeKeys[r], ms.texts[r], ms.docs[r], ms.chunks[r], ms.starts[r], ms.ends[r])
	}
	return out, nil
}

// insertMentions adds mentions in statements of bulkRows rows. Mentions
// have no unique index (a node's and an edge's are found through indexes
// of their own, which hold only the key): each writer adds only mentions
// the version does not hold (a chunk is merged once, its mentions listed
// once by mentionRows; ReplaceGraph deletes first; WriteGraph into a
// version with rows skips the stored ones, unstoredMentions).
func insertMentions(ctx context.Context, b *writeTx, versionID int, ms *mentionBatch) error {
	rows := bulkRows(b.dialect)
	for start := 0; start < ms.len(); start += rows {
		end := min(start+rows, ms.len())
		if err := mentionsTable.exec(ctx, b, versionID, end-start, ms.slice(start, end)); err != nil {
			return fmt.Errorf("write mentions: %w", err)
		}
	}
	return nil
}

// LoadGraph loads a version's whole graph in insertion order. With
// mentions, every node and edge carries its provenance. Rows are scanned
// straight into the domain types, without Ent entities in between.
func (s *Store) LoadGraph(ctx context.Context, versionID int, withMentions bool) (extract.Graph, error) {
	var g extract.Graph
	var props string
	err := s.outlineRows(ctx, node.Table, versionID, []string{node.FieldKey, node.FieldName, node.FieldType,
		node.FieldDescription, node.FieldProperties}, true, func(scan func(...any) error) error {
		var n extract.Node
		if err := scan(&n.Key, &n.Name, &n.Type, &n.Description, &props); err != nil {
			return err
		}
		n.Properties = decodeProps(props)
		g.Nodes = append(g.Nodes, n)
		return nil
	})
	if err != nil {
		return g, translate(err, "nodes")
	}
	var refs []int64
	err = s.outlineRows(ctx, entedge.Table, versionID, []string{entedge.FieldSource, entedge.FieldTarget,
		entedge.FieldLabel, entedge.FieldKeywords, entedge.FieldDescription, entedge.FieldDescriptionRef, entedge.FieldWeight, entedge.FieldProperties},
		true, func(scan func(...any) error) error {
			var e extract.Edge
			var ref int64
			if err := scan(&e.Source, &e.Target, &e.Label, &e.Keywords, &e.Description, &ref, &e.Weight, &props); err != nil {
				return err
			}
			e.Properties = decodeProps(props)
			g.Edges = append(g.Edges, e)
			refs = append(refs, ref)
			return nil
		})
	if err != nil {
		return g, translate(err, "edges")
	}
	ptrs := make([]*extract.Edge, len(g.Edges))
	for i := range g.Edges {
		ptrs[i] = &g.Edges[i]
	}
	if err := resolveDescriptions(ctx, s.db, s.Dialect, versionID, ptrs, refs, true); err != nil {
		return g, err
	}
	if !withMentions {
		return g, nil
	}
	nodeIdx := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		nodeIdx[n.Key] = i
	}
	edgeIdx := make(map[string]int, len(g.Edges))
	for i, e := range g.Edges {
		edgeIdx[e.Key()] = i
	}
	ms, err := s.client.Mention.Query().Where(mention.VersionID(versionID)).Order(mention.ByID()).All(ctx)
	if err != nil {
		return g, translate(err, "mentions")
	}
	for _, m := range ms {
		dm := mentionFromEnt(m)
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

// nodeFromEnt converts a node row.
func nodeFromEnt(n *ent.Node) extract.Node {
	return extract.Node{Key: n.Key, Name: n.Name, Type: n.Type, Description: n.Description, Properties: decodeProps(n.Properties)}
}

// edgesFromEnt converts edge rows, with the descriptions they hold by
// reference.
func (s *Store) edgesFromEnt(ctx context.Context, versionID int, rows []*ent.Edge) ([]extract.Edge, error) {
	out := make([]extract.Edge, len(rows))
	ptrs := make([]*extract.Edge, len(rows))
	refs := make([]int64, len(rows))
	for i, r := range rows {
		out[i], ptrs[i], refs[i] = edgeFromEnt(r), &out[i], r.DescriptionRef
	}
	return out, resolveDescriptions(ctx, s.db, s.Dialect, versionID, ptrs, refs, false)
}

// edgeFromEnt converts an edge row, without a description held by
// reference (see edgesFromEnt).
func edgeFromEnt(e *ent.Edge) extract.Edge {
	return extract.Edge{Source: e.Source, Target: e.Target, Label: e.Label, Keywords: e.Keywords,
		Description: e.Description, Weight: e.Weight, Properties: decodeProps(e.Properties)}
}

// mentionFromEnt converts a mention row.
func mentionFromEnt(m *ent.Mention) extract.Mention {
	return extract.Mention{DocumentID: m.DocumentID, ChunkIndex: m.ChunkIndex, Start: m.Start, End: m.End, Text: m.Text}
}

// NodeMentions returns the mentions of one node.
func (s *Store) NodeMentions(ctx context.Context, versionID int, key string) ([]extract.Mention, error) {
	// NodeKeyNEQ("") names the condition of the index by node key.
	ms, err := s.client.Mention.Query().Where(mention.VersionID(versionID), mention.NodeKeyNEQ(""), mention.NodeKey(key)).Order(mention.ByID()).All(ctx)
	if err != nil {
		return nil, translate(err, "mentions")
	}
	out := make([]extract.Mention, len(ms))
	for i, m := range ms {
		out[i] = mentionFromEnt(m)
	}
	return out, nil
}

// ChunkMentions returns the node mentions inside one chunk in text order.
func (s *Store) ChunkMentions(ctx context.Context, versionID, documentID, chunkIndex int) ([]record.NodeMention, error) {
	ms, err := s.client.Mention.Query().Where(mention.VersionID(versionID), mention.DocumentID(documentID),
		mention.ChunkIndex(chunkIndex), mention.NodeKeyNEQ("")).Order(mention.ByStart()).All(ctx)
	if err != nil {
		return nil, translate(err, "mentions")
	}
	out := make([]record.NodeMention, len(ms))
	for i, m := range ms {
		out[i] = record.NodeMention{NodeKey: m.NodeKey, Mention: mentionFromEnt(m)}
	}
	return out, nil
}

// Sink returns an extract.Sink that writes a run's chunk results into a
// version. Each chunk is merged into what is stored and recorded as finished
// in one transaction, so a chunk is either wholly stored or not at all, and
// writing it again adds nothing.
func (s *Store) Sink(versionID int, maxFragments int) extract.Sink {
	return &versionSink{s: s, versionID: versionID, maxFragments: maxFragments}
}

// FailureSink is Sink that also records the chunks whose extraction failed
// (see extract.FailureSink) in the version's chunk errors, so a text run
// goes on past a provider's 429, 500 or timeout on one chunk.
func (s *Store) FailureSink(versionID int, maxFragments int) extract.FailureSink {
	return &failureSink{versionSink{s: s, versionID: versionID, maxFragments: maxFragments}}
}

type failureSink struct{ versionSink }

// ChunkFailed implements extract.FailureSink.
func (k *failureSink) ChunkFailed(ctx context.Context, ce extract.ChunkError) error {
	return k.s.inTx(ctx, func(b *writeTx) error {
		tx := b.Client()
		v, err := tx.ExtractionVersion.Get(ctx, k.versionID)
		if err != nil {
			return translate(err, "version")
		}
		list := decodeChunkErrors(v.ChunkErrors)
		list = append(list, ce)
		data, _ := json.Marshal(list)
		return tx.ExtractionVersion.UpdateOneID(k.versionID).SetChunkErrors(string(data)).SetHeartbeatAt(k.s.Now()).Exec(ctx)
	})
}

func decodeChunkErrors(s string) []extract.ChunkError {
	var list []extract.ChunkError
	if s != "" {
		_ = json.Unmarshal([]byte(s), &list)
	}
	return list
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
	runs, err := k.s.client.ChunkRun.Query().Where(chunkrun.VersionID(k.versionID)).
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
	res.Graph = boundGraph(res.Graph)
	k.mu.Lock()
	defer k.mu.Unlock()
	// On SQLite a large chunk (a whole CSV table is one) gets a page cache
	// sized for its rows, as WriteGraph's batches do.
	return k.s.inTxBulk(ctx, sqliteCacheKiB(chunkRows(res.Graph)), k.versionID, func(b *writeTx) error {
		// A version canceled or deleted meanwhile takes no more chunks:
		// the run stops at the next one (ErrNotActive) rather than going
		// on to the end.
		if err := checkActive(ctx, b, k.versionID); err != nil {
			return err
		}
		_, err := writeChunks(ctx, b, k.versionID, []extract.ChunkResult{res}, k.maxFragments, true, k.s.Now())
		return err
	})
}

// chunkRows counts the rows a chunk graph writes.
func chunkRows(g extract.Graph) int {
	rows := len(g.Nodes) + len(g.Edges)
	for _, n := range g.Nodes {
		rows += len(n.Mentions)
	}
	for _, e := range g.Edges {
		rows += len(e.Mentions)
	}
	return rows
}

// writeChunks merges chunks' results (their graphs bounded already), in
// the run's order, into a version within b as one write, records each
// chunk's run and adds to the version's counters (each chunk to its
// finished chunks when count is set). A chunk merged before is skipped.
// Their graphs merge as one graph, the chunks' nodes and edges one after
// another: a key's stored row takes each naming in order
// (extract.MergeNode), as it would chunk by chunk, so the version is the
// same; a key named by several of them is written once. It returns how
// many chunks it merged.
func writeChunks(ctx context.Context, b *writeTx, versionID int, results []extract.ChunkResult, maxFragments int, count bool, now time.Time) (int, error) {
	var (
		g       extract.Graph
		ops     []extract.Operation
		d       versionDelta
		claimed int
	)
	for _, res := range results {
		detail, _ := json.Marshal(chunkDetail{Calls: res.Calls, Failures: res.Failures, Operations: len(res.Operations), Repairs: res.Repairs, Violations: res.Violations})
		u := usageOf(res.Calls)
		run := chunkRunRow{documentID: res.Chunk.DocumentID, chunkIndex: res.Chunk.Index, detail: string(detail),
			nodes: len(res.Graph.Nodes), edges: len(res.Graph.Edges), promptTokens: u.promptTokens, outputTokens: u.outputTokens,
			offSchema: res.OffSchema, failures: len(res.Failures), elapsedMs: res.Elapsed.Milliseconds()}
		// The chunk run is recorded first: if it was recorded before, the
		// chunk is stored already and nothing more is written of it.
		ok, err := claimChunk(ctx, b, versionID, run)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		claimed++
		if len(results) == 1 {
			g = res.Graph
		} else {
			g.Nodes = append(g.Nodes, res.Graph.Nodes...)
			g.Edges = append(g.Edges, res.Graph.Edges...)
		}
		ops = append(ops, res.Operations...)
		d.usage = d.usage.plus(u)
		d.offSchema += res.OffSchema
		d.parseFailures += len(res.Failures)
		d.repairs += repairCount(res.Repairs)
		d.violations += len(res.Violations)
	}
	if claimed == 0 {
		return 0, nil
	}
	if count {
		d.chunks = claimed
	}
	fresh, err := lockedEmpty(ctx, b, versionID)
	if err != nil {
		return 0, err
	}
	// Into an empty version every row is new: on PostgreSQL large
	// batches go in with COPY (see bulk_copy.go), on SQLite without
	// ON CONFLICT.
	b.copy, b.allNew = fresh, fresh
	defer func() { b.copy, b.allNew = false, false }()
	if d.nodes, d.edges, err = mergeInto(ctx, b, versionID, g, maxFragments, fresh); err != nil {
		return 0, err
	}
	if err := insertMentions(ctx, b, versionID, mentionRows(g)); err != nil {
		return 0, err
	}
	if len(ops) > 0 {
		if err := writeOperations(ctx, b.Client(), versionID, ops); err != nil {
			return 0, err
		}
	}
	return claimed, bumpVersion(ctx, b, versionID, d, now)
}

// chunkDetail is what the per-chunk inspector shows.
type chunkDetail struct {
	Calls      []extract.CallRecord   `json:"calls,omitempty"`
	Failures   []extract.ParseFailure `json:"failures,omitempty"`
	Operations int                    `json:"operations,omitempty"`
	Repairs    map[string]int         `json:"repairs,omitempty"`
	Violations []string               `json:"violations,omitempty"`
}

func repairCount(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// lockedEmpty says whether a version holds no nodes and no edges, within
// the transaction. On PostgreSQL it first locks the version's row, so a
// concurrent chunk write of the same version waits until this one commits
// and then finds its rows; SQLite's transaction holds the write lock
// already.
func lockedEmpty(ctx context.Context, b *writeTx, versionID int) (bool, error) {
	if b.dialect == dialect.Postgres {
		if _, err := b.ExecContext(ctx, `SELECT id FROM extraction_versions WHERE id = $1 FOR UPDATE`, versionID); err != nil {
			return false, fmt.Errorf("lock version: %w", err)
		}
	}
	return versionEmpty(ctx, b, b.dialect, versionID)
}

// mergeInto merges a chunk graph into the stored graph of a version and
// returns how many nodes and edges are new. Into an empty version (fresh)
// nothing is loaded and the degrees are counted in memory with the rows,
// as WriteGraph does; otherwise what the chunk adds to them is counted
// (countDelta).
func mergeInto(ctx context.Context, b *writeTx, versionID int, g extract.Graph, maxFragments int, fresh bool) (int, int, error) {
	// Nodes: load those that exist, merge, upsert.
	var existing map[string]*extract.Node
	if !fresh {
		keys := make([]string, 0, len(g.Nodes))
		for _, n := range g.Nodes {
			keys = append(keys, n.Key)
		}
		var err error
		if existing, err = loadNodes(ctx, b, versionID, keys); err != nil {
			return 0, 0, err
		}
	}
	// Each distinct key once, in the order first met, merged with its
	// repeats and its stored row.
	index := make(map[string]int, len(g.Nodes))
	out := make([]extract.Node, 0, len(g.Nodes))
	newNodes := 0
	for _, n := range g.Nodes {
		n.Mentions = nil
		if i, ok := index[n.Key]; ok {
			extract.MergeNode(&out[i], n, maxFragments)
			continue
		}
		if e, ok := existing[n.Key]; ok {
			extract.MergeNode(e, n, maxFragments)
			n = *e
		} else {
			newNodes++
		}
		index[n.Key] = len(out)
		out = append(out, n)
	}
	// Edges: same, keyed by (source, label, target).
	var stored map[string]*extract.Edge
	if !fresh {
		var err error
		if stored, err = loadEdges(ctx, b, versionID, g.Edges); err != nil {
			return 0, 0, err
		}
	}
	eindex := make(map[extract.EdgeID]int, len(g.Edges))
	eout := make([]extract.Edge, 0, len(g.Edges))
	newEdges := 0
	for _, e := range g.Edges {
		e.Mentions = nil
		id := e.ID()
		if i, ok := eindex[id]; ok {
			extract.MergeEdge(&eout[i], e, maxFragments)
			continue
		}
		var cur *extract.Edge
		if stored != nil {
			cur = stored[e.Key()]
		}
		if cur != nil {
			extract.MergeEdge(cur, e, maxFragments)
			e = *cur
		} else {
			newEdges++
		}
		eindex[id] = len(eout)
		eout = append(eout, e)
	}
	var degrees []int64
	var delta degreeDelta
	if fresh {
		degrees = indexDegrees(index, len(out), eout)
	} else {
		// Counted before the rows are written: the stored edges dangling
		// at the nodes this write creates are those stored now.
		isNew := make([]bool, len(out))
		for i, n := range out {
			_, had := existing[n.Key]
			isNew[i] = !had
		}
		edgeIsNew := make([]bool, len(eout))
		for i, e := range eout {
			edgeIsNew[i] = stored[e.Key()] == nil
		}
		var err error
		if delta, err = countDelta(ctx, b, b.dialect, versionID, out, isNew, eout, edgeIsNew); err != nil {
			return 0, 0, err
		}
		degrees = delta.newDeg
		// A node written now that existed takes its increment in the
		// upsert (degree = degree + the value written), so its row is
		// written once, not twice: on PostgreSQL every write of a row
		// leaves a dead copy of it.
		for i, n := range out {
			if a, ok := delta.add[n.Key]; ok && !isNew[i] {
				degrees[i] = a
				delete(delta.add, n.Key)
			}
		}
	}
	if err := upsertNodes(ctx, b, versionID, out, degrees); err != nil {
		return 0, 0, err
	}
	if err := upsertEdges(ctx, b, versionID, eout); err != nil {
		return 0, 0, err
	}
	if fresh {
		return newNodes, newEdges, nil
	}
	if err := delta.apply(ctx, b, b.dialect, versionID); err != nil {
		return 0, 0, err
	}
	return newNodes, newEdges, nil
}

func writeOperations(ctx context.Context, tx *ent.Client, versionID int, ops []extract.Operation) error {
	if len(ops) == 0 {
		return nil
	}
	for start := 0; start < len(ops); start += BatchSize {
		part := ops[start:min(start+BatchSize, len(ops))]
		bulk := make([]*ent.OperationCreate, len(part))
		for i, o := range part {
			bulk[i] = tx.Operation.Create().SetVersionID(versionID).SetTurn(o.Turn).SetSeq(o.Seq).SetOp(o.Op).
				SetNodeID(o.NodeID).SetSourceID(o.SourceID).SetTargetID(o.TargetID).SetLabel(o.Label).
				SetDescription(o.Description).SetTimestamp(o.Timestamp).SetStatus(o.Status).SetReason(o.Reason).
				SetValidAt(o.ValidAt).SetRecordedAt(o.RecordedAt)
			if len(o.Attributes) > 0 {
				bulk[i].SetAttributes(o.Attributes)
			}
		}
		if err := tx.Operation.CreateBulk(bulk...).Exec(ctx); err != nil {
			return fmt.Errorf("write operations: %w", err)
		}
	}
	return nil
}

// Operations returns a version's operation log in order.
func (s *Store) Operations(ctx context.Context, versionID int) ([]extract.Operation, error) {
	rows, err := s.client.Operation.Query().Where(func(sel *sql.Selector) {
		sel.Where(sql.EQ("version_id", versionID))
	}).All(ctx)
	if err != nil {
		return nil, translate(err, "operations")
	}
	out := make([]extract.Operation, len(rows))
	for i, o := range rows {
		out[i] = extract.Operation{Turn: o.Turn, Seq: o.Seq, Op: o.Op, NodeID: o.NodeID, SourceID: o.SourceID,
			TargetID: o.TargetID, Label: o.Label, Description: o.Description, Timestamp: o.Timestamp,
			Status: o.Status, Reason: o.Reason, ValidAt: o.ValidAt, RecordedAt: o.RecordedAt, Attributes: o.Attributes}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Turn != out[j].Turn {
			return out[i].Turn < out[j].Turn
		}
		return out[i].Seq < out[j].Seq
	})
	return out, nil
}
