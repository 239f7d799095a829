package store

import (
	"cmp"
	"context"
	gosql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/chunkrun"
	entedge "github.com/kgstudio/kgstudio/ent/edge"
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
	// Mentions go into the rows' packs: all of them into an empty
	// version, otherwise those the version does not hold yet.
	var stored storedPlaces
	if !fresh {
		err := s.inTx(ctx, func(b *writeTx) error {
			var err error
			stored, err = storedMentionPlaces(ctx, b, versionID, g)
			return err
		})
		if err != nil {
			return err
		}
	}
	packs := packGraph(g, stored)
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
			return upsertNodes(ctx, b, versionID, part, deg, packs.nodes)
		})
	}
	for start := 0; start < len(edges); start += txRows {
		part := edges[start:min(start+txRows, len(edges))]
		edgeBatches = append(edgeBatches, func(ctx context.Context, b *writeTx) error {
			if err := checkRunning(ctx, b, versionID, running); err != nil {
				return err
			}
			b.copy, b.allNew = true, fresh
			return upsertEdges(ctx, b, versionID, part, packs.edges)
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

// upsertNodes writes nodes in statements of bulkRows rows. Keys must be
// unique (see dedupeNodes): one statement may not touch a row twice. New
// rows take the degrees given (in the order of nodes), or 0 when degrees
// is nil; rows that exist add them to theirs (a merge's increments; 0
// keeps theirs, see refreshDegrees). Each node's pack in packs (new
// mentions) is appended to its stored ones.
func upsertNodes(ctx context.Context, b *writeTx, versionID int, nodes []extract.Node, degrees []int64, packs map[string]string) error {
	if len(nodes) == 0 {
		return nil
	}
	rows := bulkRows(b.dialect)
	for start := 0; start < len(nodes); start += rows {
		part := nodes[start:min(start+rows, len(nodes))]
		keys, names, types := make([]string, len(part)), make([]string, len(part)), make([]string, len(part))
		descs, props, ms := make([]string, len(part)), make([]string, len(part)), make([]string, len(part))
		deg := make([]int64, len(part))
		if degrees != nil {
			copy(deg, degrees[start:])
		}
		for i, n := range part {
			keys[i], names[i], types[i], descs[i], props[i] = n.Key, n.Name, n.Type, n.Description, encodeProps(n.Properties)
			ms[i] = packs[n.Key]
		}
		if err := nodesTable.exec(ctx, b, versionID, len(part), columns{keys, names, types, descs, props, deg, ms}); err != nil {
			return fmt.Errorf("write nodes: %w", err)
		}
	}
	return nil
}

// upsertEdges writes edges in statements of bulkRows rows, long
// descriptions once per version (see edgeTextMin). Keys must be unique
// (see dedupeEdges). Each edge's pack in packs (new mentions) is appended
// to its stored ones.
func upsertEdges(ctx context.Context, b *writeTx, versionID int, edges []extract.Edge, packs map[extract.EdgeID]string) error {
	if len(edges) == 0 {
		return nil
	}
	rows := bulkRows(b.dialect)
	for start := 0; start < len(edges); start += rows {
		part := edges[start:min(start+rows, len(edges))]
		n := len(part)
		src, tgt, lbl, kw := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		descs, weights, props, ms := make([]string, n), make([]float64, n), make([]string, n), make([]string, n)
		for i, e := range part {
			src[i], tgt[i], lbl[i], kw[i] = e.Source, e.Target, e.Label, e.Keywords
			descs[i], weights[i], props[i], ms[i] = e.Description, e.Weight, encodeProps(e.Properties), packs[e.ID()]
		}
		refs, hashes, texts := pooledDescriptions(descs)
		if err := insertEdgeTexts(ctx, b, versionID, hashes, texts); err != nil {
			return err
		}
		if err := edgesTable.exec(ctx, b, versionID, n, columns{src, tgt, lbl, kw, descs, refs, weights, props, ms}); err != nil {
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

// storedMentionPlaces reads the places of the mentions a version holds
// for g's nodes and edges (a write into a version with rows adds only
// others).
func storedMentionPlaces(ctx context.Context, b *writeTx, versionID int, g extract.Graph) (storedPlaces, error) {
	out := storedPlaces{nodes: map[string]map[mentionPlace]bool{}, edges: map[extract.EdgeID]map[mentionPlace]bool{}}
	var keys []string
	var edges []extract.Edge
	for _, n := range g.Nodes {
		if len(n.Mentions) > 0 {
			keys = append(keys, n.Key)
		}
	}
	for _, e := range g.Edges {
		if len(e.Mentions) > 0 {
			edges = append(edges, e)
		}
	}
	err := forKeys(keys, b.dialect, func(in string, args []any) error {
		rows, err := queryOn(ctx, b, rebind(b.dialect, `SELECT "key", mentions FROM nodes WHERE version_id = ? AND mentions <> '' AND "key" `+in),
			append([]any{versionID}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key, pack string
			if err := rows.Scan(&key, &pack); err != nil {
				return err
			}
			if out.nodes[key], err = placesOf(pack); err != nil {
				return fmt.Errorf("node %q: %w", key, err)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return out, fmt.Errorf("read stored mentions: %w", err)
	}
	packs, err := loadEdgeMentions(ctx, b, versionID, edges)
	if err != nil {
		return out, fmt.Errorf("read stored mentions: %w", err)
	}
	for id, pack := range packs {
		if out.edges[id], err = placesOf(pack); err != nil {
			return out, fmt.Errorf("read stored mentions: edge %s: %w", extract.EdgeKey(id.Source, id.Label, id.Target), err)
		}
	}
	return out, nil
}

// LoadGraph loads a version's whole graph in insertion order, with the
// nodes' and edges' properties. With mentions, every node and edge carries
// its provenance. Rows are scanned straight into the domain types, without
// Ent entities in between.
func (s *Store) LoadGraph(ctx context.Context, versionID int, withMentions bool) (extract.Graph, error) {
	return s.LoadGraphParts(ctx, versionID, GraphParts{Mentions: withMentions, Properties: true})
}

// GraphParts says what LoadGraphParts reads besides the nodes' keys,
// names, types and descriptions and the edges' ends, labels, keywords,
// descriptions and weights.
type GraphParts struct {
	Mentions   bool
	Properties bool
	// Keys, with Properties, keeps only these top-level properties (nil
	// keeps all): a question reads a few (its facts' times), and the
	// rest of a version's properties would be held for nothing.
	Keys []string
}

// LoadGraphParts is LoadGraph reading only the parts asked for: a step
// that needs no properties (a graph's communities, its vectors when the
// schema embeds none) holds no map per node.
func (s *Store) LoadGraphParts(ctx context.Context, versionID int, parts GraphParts) (extract.Graph, error) {
	var g extract.Graph
	var props, pack string
	withMentions := parts.Mentions
	keep := newPropKeys(parts.Keys)
	nodeCols := []string{node.FieldKey, node.FieldName, node.FieldType, node.FieldDescription}
	edgeCols := []string{entedge.FieldSource, entedge.FieldTarget, entedge.FieldLabel, entedge.FieldKeywords,
		entedge.FieldDescription, entedge.FieldDescriptionRef, entedge.FieldWeight}
	if parts.Properties {
		nodeCols = append(nodeCols, node.FieldProperties)
		edgeCols = append(edgeCols, entedge.FieldProperties)
	}
	if withMentions {
		nodeCols = append(nodeCols, node.FieldMentions)
		edgeCols = append(edgeCols, entedge.FieldMentions)
	}
	err := s.outlineRowsSized(ctx, node.Table, versionID, nodeCols, true, func(n int) { g.Nodes = make([]extract.Node, 0, n) }, func(scan func(...any) error) error {
		var n extract.Node
		dest := []any{&n.Key, &n.Name, &n.Type, &n.Description}
		if parts.Properties {
			dest = append(dest, &props)
		}
		if withMentions {
			dest = append(dest, &pack)
		}
		if err := scan(dest...); err != nil {
			return err
		}
		if parts.Properties {
			n.Properties = keep.decode(props)
		}
		if withMentions {
			var err error
			if n.Mentions, err = decodePack(pack); err != nil {
				return fmt.Errorf("node %q: %w", n.Key, err)
			}
		}
		g.Nodes = append(g.Nodes, n)
		return nil
	})
	if err != nil {
		return g, translate(err, "nodes")
	}
	// An edge's ends are its nodes' keys and its label one of a few:
	// the edges share those strings instead of holding copies (a million
	// edges held 64 MB of them).
	shared := make(map[string]string, len(g.Nodes)+64)
	for _, n := range g.Nodes {
		shared[n.Key] = n.Key
	}
	intern := func(b gosql.RawBytes) string {
		if s, ok := shared[string(b)]; ok {
			return s
		}
		s := string(b)
		shared[s] = s
		return s
	}
	var refs []int64
	var src, dst, label gosql.RawBytes
	err = s.outlineRowsSized(ctx, entedge.Table, versionID, edgeCols, true, func(n int) {
		g.Edges, refs = make([]extract.Edge, 0, n), make([]int64, 0, n)
	}, func(scan func(...any) error) error {
		var e extract.Edge
		var ref int64
		dest := []any{&src, &dst, &label, &e.Keywords, &e.Description, &ref, &e.Weight}
		if parts.Properties {
			dest = append(dest, &props)
		}
		if withMentions {
			dest = append(dest, &pack)
		}
		if err := scan(dest...); err != nil {
			return err
		}
		e.Source, e.Target, e.Label = intern(src), intern(dst), intern(label)
		if parts.Properties {
			e.Properties = keep.decode(props)
		}
		if withMentions {
			var err error
			if e.Mentions, err = decodePack(pack); err != nil {
				return fmt.Errorf("edge %s: %w", e.Key(), err)
			}
		}
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

// NodeMentions returns the mentions of one node (none for a key the
// version does not hold).
func (s *Store) NodeMentions(ctx context.Context, versionID int, key string) ([]extract.Mention, error) {
	var pack string
	err := s.db.QueryRowContext(ctx, rebind(s.Dialect, `SELECT mentions FROM nodes WHERE version_id = ? AND "key" = ?`), versionID, key).Scan(&pack)
	if errors.Is(err, gosql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, translate(err, "mentions")
	}
	ms, err := decodePack(pack)
	if err != nil {
		return nil, fmt.Errorf("node %q: %w", key, err)
	}
	return ms, nil
}

// ChunkMentions returns the node mentions inside one chunk in text order
// (by start; nodes in their stored order at equal starts). It reads the
// packs of every node of the version that has any.
func (s *Store) ChunkMentions(ctx context.Context, versionID, documentID, chunkIndex int) ([]record.NodeMention, error) {
	var out []record.NodeMention
	err := s.nodePacks(ctx, versionID, func(key, pack string) error {
		return walkPack(pack, func(m extract.Mention) bool {
			if m.DocumentID == documentID && m.ChunkIndex == chunkIndex {
				out = append(out, record.NodeMention{NodeKey: key, Mention: m})
			}
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b record.NodeMention) int { return cmp.Compare(a.Start, b.Start) })
	return out, nil
}

// nodePacks calls fn with the key and mention pack of each node of a
// version that has mentions, in stored order.
func (s *Store) nodePacks(ctx context.Context, versionID int, fn func(key, pack string) error) error {
	rows, err := s.db.QueryContext(ctx, rebind(s.Dialect, `SELECT "key", mentions FROM nodes WHERE version_id = ? AND mentions <> '' ORDER BY id`), versionID)
	if err != nil {
		return translate(err, "mentions")
	}
	defer rows.Close()
	for rows.Next() {
		var key, pack string
		if err := rows.Scan(&key, &pack); err != nil {
			return translate(err, "mentions")
		}
		if err := fn(key, pack); err != nil {
			return fmt.Errorf("node %q: %w", key, err)
		}
	}
	return translate(rows.Err(), "mentions")
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

// chunkRows counts the rows a chunk graph writes (its mentions go into
// them).
func chunkRows(g extract.Graph) int { return len(g.Nodes) + len(g.Edges) }

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
	// The chunks' mentions are new (a chunk is merged once): their packs
	// are appended to the rows'.
	packs := packGraph(g, storedPlaces{})
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
	if err := upsertNodes(ctx, b, versionID, out, degrees, packs.nodes); err != nil {
		return 0, 0, err
	}
	if err := upsertEdges(ctx, b, versionID, eout, packs.edges); err != nil {
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
			bulk[i] = tx.Operation.Create().SetVersionID(versionID).SetTurn(o.Turn).SetSeq(o.Seq).SetOp(string(o.Op)).
				SetNodeID(o.NodeID).SetSourceID(o.SourceID).SetTargetID(o.TargetID).SetLabel(o.Label).
				SetDescription(o.Description).SetTimestamp(o.Timestamp).SetStatus(string(o.Status)).SetReason(o.Reason).
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
		out[i] = extract.Operation{Turn: o.Turn, Seq: o.Seq, Op: extract.OpKind(o.Op), NodeID: o.NodeID, SourceID: o.SourceID,
			TargetID: o.TargetID, Label: o.Label, Description: o.Description, Timestamp: o.Timestamp,
			Status: extract.Outcome(o.Status), Reason: o.Reason, ValidAt: o.ValidAt, RecordedAt: o.RecordedAt, Attributes: o.Attributes}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Turn != out[j].Turn {
			return out[i].Turn < out[j].Turn
		}
		return out[i].Seq < out[j].Seq
	})
	return out, nil
}
