package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"entgo.io/ent/dialect"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	entedge "github.com/kgstudio/kgstudio/ent/edge"
	"github.com/kgstudio/kgstudio/ent/mention"
	"github.com/kgstudio/kgstudio/ent/node"
	"github.com/kgstudio/kgstudio/extract"
)

// LoadOutline loads a version's graph with only what drawing it needs: node
// key, name and type; edge source, target, label and weight. Descriptions,
// keywords, properties and mentions stay in the database, and rows are
// scanned without reflection, which makes it several times cheaper than
// LoadGraph on large versions. Rows come in no particular order.
func (s *Store) LoadOutline(ctx context.Context, versionID int) (extract.Graph, error) {
	var g extract.Graph
	if err := s.outlineRows(ctx, node.Table, versionID, []string{node.FieldKey, node.FieldName, node.FieldType}, false,
		func(scan func(...any) error) error {
			var n extract.Node
			if err := scan(&n.Key, &n.Name, &n.Type); err != nil {
				return err
			}
			g.Nodes = append(g.Nodes, n)
			return nil
		}); err != nil {
		return g, fmt.Errorf("nodes: %w", err)
	}
	if err := s.outlineRows(ctx, entedge.Table, versionID,
		[]string{entedge.FieldSource, entedge.FieldTarget, entedge.FieldLabel, entedge.FieldWeight}, false,
		func(scan func(...any) error) error {
			var e extract.Edge
			if err := scan(&e.Source, &e.Target, &e.Label, &e.Weight); err != nil {
				return err
			}
			g.Edges = append(g.Edges, e)
			return nil
		}); err != nil {
		return g, fmt.Errorf("edges: %w", err)
	}
	return g, nil
}

// outlineRows runs SELECT columns FROM table WHERE version_id = ? in the
// store's dialect and calls row for each result; ordered reads the rows in
// id (insertion) order.
//
// On SQLite the version's rows are read by a rowid range instead: a
// version is written in batches, so its rows sit in a narrow id range, and
// scanning that range costs a third of looking each row up through the
// version_id index (which does not hold the selected columns). The
// version_id test stays, with a unary plus that keeps SQLite off the index.
func (s *Store) outlineRows(ctx context.Context, table string, versionID int, columns []string, ordered bool, row func(scan func(...any) error) error) error {
	query, args := entsql.Dialect(s.Dialect).Select(columns...).From(entsql.Table(table)).
		Where(entsql.EQ("version_id", versionID)).Query()
	if s.Dialect == dialect.SQLite {
		var lo, hi sql.NullInt64
		err := s.db.QueryRowContext(ctx, "SELECT MIN(id), MAX(id) FROM "+table+" WHERE version_id = ?", versionID).Scan(&lo, &hi)
		if err != nil {
			return err
		}
		if !lo.Valid {
			return nil
		}
		query = "SELECT " + strings.Join(columns, ", ") + " FROM " + table + " WHERE id >= ? AND id <= ? AND +version_id = ?"
		args = []any{lo.Int64, hi.Int64, versionID}
	}
	if ordered {
		query += " ORDER BY id"
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// NodeByKey loads one node of a version, without mentions. A missing node
// is a KindNotFound error.
func (s *Store) NodeByKey(ctx context.Context, versionID int, key string) (extract.Node, error) {
	n, err := s.client.Node.Query().Where(node.VersionID(versionID), node.Key(key)).Only(ctx)
	if err != nil {
		return extract.Node{}, translate(err, fmt.Sprintf("node %q", key))
	}
	return nodeFromEnt(n), nil
}

// NodesByKey loads the nodes of a version with the given keys, by key.
// Unknown keys are left out.
func (s *Store) NodesByKey(ctx context.Context, versionID int, keys []string) (map[string]extract.Node, error) {
	out := make(map[string]extract.Node, len(keys))
	for start := 0; start < len(keys); start += BatchSize {
		rows, err := s.client.Node.Query().
			Where(node.VersionID(versionID), node.KeyIn(keys[start:min(start+BatchSize, len(keys))]...)).All(ctx)
		if err != nil {
			return nil, translate(err, "nodes")
		}
		for _, r := range rows {
			out[r.Key] = nodeFromEnt(r)
		}
	}
	return out, nil
}

// NodeEdges loads the edges of a version that start or end at a node, in
// insertion order.
func (s *Store) NodeEdges(ctx context.Context, versionID int, key string) ([]extract.Edge, error) {
	rows, err := s.client.Edge.Query().
		Where(entedge.VersionID(versionID), entedge.Or(entedge.Source(key), entedge.Target(key))).
		Order(entedge.ByID()).All(ctx)
	if err != nil {
		return nil, translate(err, "edges")
	}
	out := make([]extract.Edge, len(rows))
	for i, e := range rows {
		out[i] = edgeFromEnt(e)
	}
	return out, nil
}

// EdgeByKey loads one edge of a version by (source, label, target), with
// its mentions. A missing edge is a KindNotFound error.
func (s *Store) EdgeByKey(ctx context.Context, versionID int, source, label, target string) (extract.Edge, error) {
	row, err := s.client.Edge.Query().Where(entedge.VersionID(versionID), entedge.Source(source),
		entedge.LabelEQ(label), entedge.Target(target)).Only(ctx)
	if err != nil {
		return extract.Edge{}, translate(err, "edge")
	}
	e := edgeFromEnt(row)
	ms, err := s.client.Mention.Query().Where(mention.VersionID(versionID), mention.EdgeKey(e.Key())).
		Order(mention.ByID()).All(ctx)
	if err != nil {
		return e, translate(err, "mentions")
	}
	for _, m := range ms {
		e.Mentions = append(e.Mentions, mentionFromEnt(m))
	}
	return e, nil
}

// LoadNeighbourhood loads the part of a version's graph, in outline (see
// LoadOutline), that extract.SelectSubgraph needs to answer a focus query
// of the given depth exactly: every node within depth+1 steps of focus
// (ignoring direction) and every edge that touches a node within depth
// steps, so that those nodes' degrees are whole. Edges come in insertion
// order. It reads the rows through the (version, source) and (version,
// target) indexes ring by ring, never the whole graph. An unknown focus
// gives an empty graph.
func (s *Store) LoadNeighbourhood(ctx context.Context, versionID int, focus string, depth int) (extract.Graph, error) {
	var g extract.Graph
	known := map[string]bool{}
	frontier, err := s.outlineNodes(ctx, versionID, []string{focus}, &g, known)
	if err != nil {
		return g, err
	}
	type edgeRow struct {
		id int
		e  extract.Edge
	}
	var rows []edgeRow
	seenEdge := map[int]bool{}
	for d := 0; d <= depth && len(frontier) > 0; d++ {
		var ends []string
		for start := 0; start < len(frontier); start += BatchSize {
			part := frontier[start:min(start+BatchSize, len(frontier))]
			// One query per end, so each reads its own index.
			out, err := s.client.Edge.Query().Where(entedge.VersionID(versionID), entedge.SourceIn(part...)).
				Select(entedge.FieldID, entedge.FieldSource, entedge.FieldTarget, entedge.FieldLabel, entedge.FieldWeight).
				All(ctx)
			if err != nil {
				return g, translate(err, "edges")
			}
			in, err := s.client.Edge.Query().Where(entedge.VersionID(versionID), entedge.TargetIn(part...)).
				Select(entedge.FieldID, entedge.FieldSource, entedge.FieldTarget, entedge.FieldLabel, entedge.FieldWeight).
				All(ctx)
			if err != nil {
				return g, translate(err, "edges")
			}
			for _, e := range append(out, in...) {
				if seenEdge[e.ID] {
					continue
				}
				seenEdge[e.ID] = true
				rows = append(rows, edgeRow{e.ID, extract.Edge{Source: e.Source, Target: e.Target, Label: e.Label, Weight: e.Weight}})
				for _, k := range []string{e.Source, e.Target} {
					if !known[k] {
						ends = append(ends, k)
					}
				}
			}
		}
		if frontier, err = s.outlineNodes(ctx, versionID, ends, &g, known); err != nil {
			return g, err
		}
	}
	slices.SortFunc(rows, func(a, b edgeRow) int { return cmp.Compare(a.id, b.id) })
	g.Edges = make([]extract.Edge, len(rows))
	for i, r := range rows {
		g.Edges[i] = r.e
	}
	return g, nil
}

// outlineNodes looks up the nodes of keys not yet in known, appends those
// that exist to g in outline, marks every key looked up as known and
// returns the keys of the nodes found.
func (s *Store) outlineNodes(ctx context.Context, versionID int, keys []string, g *extract.Graph, known map[string]bool) ([]string, error) {
	var want, found []string
	for _, k := range keys {
		if !known[k] {
			known[k] = true
			want = append(want, k)
		}
	}
	for start := 0; start < len(want); start += BatchSize {
		ns, err := s.client.Node.Query().
			Where(node.VersionID(versionID), node.KeyIn(want[start:min(start+BatchSize, len(want))]...)).
			Select(node.FieldKey, node.FieldName, node.FieldType).All(ctx)
		if err != nil {
			return nil, translate(err, "nodes")
		}
		for _, n := range ns {
			g.Nodes = append(g.Nodes, extract.Node{Key: n.Key, Name: n.Name, Type: n.Type})
			found = append(found, n.Key)
		}
	}
	return found, nil
}

// GraphTotals counts a version's nodes and edges and its nodes by type,
// most common first (as extract.SelectSubgraph orders them), from the
// indexes alone.
func (s *Store) GraphTotals(ctx context.Context, versionID int) (nodes, edges int, types []extract.TypeCount, err error) {
	if edges, err = s.client.Edge.Query().Where(entedge.VersionID(versionID)).Count(ctx); err != nil {
		return 0, 0, nil, translate(err, "edges")
	}
	var counts []struct {
		Type  string `json:"type"`
		Count int    `json:"count"`
	}
	if err = s.client.Node.Query().Where(node.VersionID(versionID)).GroupBy(node.FieldType).
		Aggregate(ent.Count()).Scan(ctx, &counts); err != nil {
		return 0, 0, nil, translate(err, "node types")
	}
	for _, c := range counts {
		nodes += c.Count
		types = append(types, extract.TypeCount{Type: c.Type, Count: c.Count})
	}
	slices.SortFunc(types, func(a, b extract.TypeCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type))
	})
	return nodes, edges, types, nil
}
