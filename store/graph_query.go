package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"entgo.io/ent/dialect"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	entedge "github.com/kgstudio/kgstudio/ent/edge"
	"github.com/kgstudio/kgstudio/ent/node"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
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
	return s.outlineRowsSized(ctx, table, versionID, columns, ordered, nil, row)
}

// outlineRowsSized is outlineRows that first tells size how many rows
// there are (on SQLite, where counting through the index is cheap), for
// the caller to make room once.
func (s *Store) outlineRowsSized(ctx context.Context, table string, versionID int, columns []string, ordered bool, size func(int), row func(scan func(...any) error) error) error {
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
		if size != nil {
			// Counted through the index by version: the ids' span can
			// be several times the count (rows rewritten take new ids).
			var n int
			if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table+" WHERE version_id = ?", versionID).Scan(&n); err != nil {
				return err
			}
			size(n)
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
	return s.edgesFromEnt(ctx, versionID, rows)
}

// EdgeByKey loads one edge of a version by (source, label, target), with
// its mentions. A missing edge is a KindNotFound error.
func (s *Store) EdgeByKey(ctx context.Context, versionID int, source, label, target string) (extract.Edge, error) {
	row, err := s.client.Edge.Query().Where(entedge.VersionID(versionID), entedge.Source(source),
		entedge.LabelEQ(label), entedge.Target(target)).Only(ctx)
	if err != nil {
		return extract.Edge{}, translate(err, "edge")
	}
	one, err := s.edgesFromEnt(ctx, versionID, []*ent.Edge{row})
	if err != nil {
		return extract.Edge{}, err
	}
	e := one[0]
	if e.Mentions, err = decodePack(row.Mentions); err != nil {
		return e, fmt.Errorf("edge %s: %w", e.Key(), err)
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

// StreamSubgraph answers a query without focus (q.Focus is ignored) as
// extract.SelectSubgraph answers it over the whole graph, and returns its
// Matched and Truncated; the totals are GraphTotals'. It reads nodes in
// order of degree from the (version_id, degree, key) index, applies the
// filters as it goes and hands each kept node to out.Node as it is read
// when there is no limit; under a limit it holds at most twice the limit
// and reads the neighbours of the hubs it keeps from the edge indexes.
// Edges among the kept nodes come in insertion order, read by their
// sources when few nodes are kept and by one pass over the version's
// edges otherwise. What it holds is bounded by what it returns: the kept
// nodes' keys, and under a limit the kept nodes and their edges.
func (s *Store) StreamSubgraph(ctx context.Context, versionID int, q extract.SubgraphQuery, out record.SubgraphRows) (matched int, truncated bool, err error) {
	types := map[string]bool{}
	for _, t := range q.Types {
		types[strings.ToLower(t)] = true
	}
	needle := strings.ToLower(q.Q)
	goFilter := len(types) > 0 || needle != "" || q.Name != ""
	pass := func(n *extract.SubgraphNode) bool {
		if len(types) > 0 && !types[strings.ToLower(n.Type)] {
			return false
		}
		if n.Degree < q.MinDegree {
			return false
		}
		if q.Name != "" && !strings.EqualFold(n.Name, q.Name) {
			return false
		}
		return needle == "" || strings.Contains(strings.ToLower(n.Name), needle) || strings.Contains(n.ID, needle)
	}
	kept := map[string]bool{}
	var held []extract.SubgraphNode // under a limit: the first 2*limit nodes that pass
	hold := 2 * min(q.Limit, math.MaxInt32)
	err = s.nodesByDegree(ctx, versionID, q.MinDegree, func(n extract.SubgraphNode) (bool, error) {
		if !pass(&n) {
			return true, nil
		}
		matched++
		if q.Limit == 0 {
			kept[n.ID] = true
			return true, out.Node(n)
		}
		if len(held) < hold {
			held = append(held, n)
		}
		// Past what the hubs may need, read on only to count the matches.
		return len(held) < hold || goFilter, nil
	})
	if err != nil {
		return 0, false, fmt.Errorf("nodes: %w", err)
	}
	if q.Limit > 0 && len(held) == hold && !goFilter {
		if matched, err = s.countNodes(ctx, versionID, q.MinDegree); err != nil {
			return 0, false, fmt.Errorf("count nodes: %w", err)
		}
	}
	if q.Limit > 0 {
		var order []extract.SubgraphNode
		if matched <= q.Limit {
			order = held
		} else {
			// Hubs first, each followed by its best-connected neighbours
			// (SelectSubgraph's order). At most 2*limit hubs are visited:
			// each either adds itself or was kept before.
			truncated = true
			add := func(n extract.SubgraphNode) {
				if !kept[n.ID] {
					kept[n.ID] = true
					order = append(order, n)
				}
			}
			for _, h := range held {
				if len(order) >= q.Limit {
					break
				}
				if kept[h.ID] {
					continue
				}
				add(h)
				want := 0 // every neighbour may fail a filter
				if !goFilter && q.MinDegree == 0 {
					want = q.Limit - len(order) + len(kept)
				}
				nb, err := s.neighbours(ctx, versionID, h.ID, want)
				if err != nil {
					return 0, false, fmt.Errorf("neighbours: %w", err)
				}
				for _, j := range nb {
					if len(order) >= q.Limit {
						break
					}
					if pass(&j) {
						add(j)
					}
				}
			}
		}
		for _, n := range order {
			kept[n.ID] = true
			if err := out.Node(n); err != nil {
				return 0, false, err
			}
		}
	}
	if err := s.edgesAmong(ctx, versionID, kept, out.Edge); err != nil {
		return 0, false, fmt.Errorf("edges: %w", err)
	}
	return matched, truncated, nil
}

// byKey is the ORDER BY term that sorts keys as Go compares strings
// (bytewise) in the store's dialect.
func (s *Store) byKey(col string) string {
	if s.Dialect == dialect.Postgres {
		return col + ` COLLATE "C"`
	}
	return col
}

// nodesByDegree calls row with the version's nodes of at least minDegree,
// most edges first, then by key, until it returns false.
func (s *Store) nodesByDegree(ctx context.Context, versionID, minDegree int, row func(extract.SubgraphNode) (bool, error)) error {
	rows, err := s.db.QueryContext(ctx, rebind(s.Dialect, `SELECT "key", name, "type", degree FROM nodes
		WHERE version_id = ? AND degree >= ? ORDER BY degree DESC, `+s.byKey(`"key"`)), versionID, minDegree)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var n extract.SubgraphNode
		if err := rows.Scan(&n.ID, &n.Name, &n.Type, &n.Degree); err != nil {
			return err
		}
		more, err := row(n)
		if err != nil || !more {
			return err
		}
	}
	return rows.Err()
}

// countNodes counts the version's nodes of at least minDegree.
func (s *Store) countNodes(ctx context.Context, versionID, minDegree int) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, rebind(s.Dialect, `SELECT COUNT(*) FROM nodes WHERE version_id = ? AND degree >= ?`),
		versionID, minDegree).Scan(&n)
	return n, err
}

// neighbours returns the nodes at the other end of the edges at key, each
// once, most edges first, then by key; at most limit of them unless limit
// is 0.
func (s *Store) neighbours(ctx context.Context, versionID int, key string, limit int) ([]extract.SubgraphNode, error) {
	query := `SELECT "key", name, "type", degree FROM (
		SELECT n."key", n.name, n."type", n.degree FROM edges e JOIN nodes n ON n.version_id = e.version_id AND n."key" = e.target
			WHERE e.version_id = ? AND e.source = ?
		UNION
		SELECT n."key", n.name, n."type", n.degree FROM ` + edgesByTarget(s.Dialect, "e") + ` JOIN nodes n ON n.version_id = e.version_id AND n."key" = e.source
			WHERE e.version_id = ? AND e.target = ?) nb ORDER BY degree DESC, ` + s.byKey(`"key"`)
	args := []any{versionID, key, versionID, key}
	if limit > 0 {
		query += " LIMIT ?"
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, rebind(s.Dialect, query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []extract.SubgraphNode
	for rows.Next() {
		var n extract.SubgraphNode
		if err := rows.Scan(&n.ID, &n.Name, &n.Type, &n.Degree); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// edgesAmong calls edge with the version's edges between kept nodes, in
// insertion order.
func (s *Store) edgesAmong(ctx context.Context, versionID int, kept map[string]bool, edge func(extract.SubgraphEdge) error) error {
	if len(kept) == 0 {
		return nil
	}
	total, err := s.countNodes(ctx, versionID, 0)
	if err != nil {
		return err
	}
	cols := []string{entedge.FieldSource, entedge.FieldTarget, entedge.FieldLabel, entedge.FieldWeight}
	if len(kept)*8 >= total {
		// Most of the graph: one pass over the version's edges.
		return s.outlineRows(ctx, entedge.Table, versionID, cols, true, func(scan func(...any) error) error {
			var e extract.SubgraphEdge
			if err := scan(&e.Source, &e.Target, &e.Label, &e.Weight); err != nil {
				return err
			}
			if kept[e.Source] && kept[e.Target] {
				return edge(e)
			}
			return nil
		})
	}
	// A small part: the edges from each kept node, through the source index.
	keys := make([]string, 0, len(kept))
	for k := range kept {
		keys = append(keys, k)
	}
	type edgeRow struct {
		id int
		e  extract.SubgraphEdge
	}
	var found []edgeRow
	err = forKeys(keys, s.Dialect, func(in string, args []any) error {
		rows, err := s.db.QueryContext(ctx, rebind(s.Dialect, "SELECT id, source, target, label, weight FROM edges WHERE version_id = ? AND source "+in),
			append([]any{versionID}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r edgeRow
			if err := rows.Scan(&r.id, &r.e.Source, &r.e.Target, &r.e.Label, &r.e.Weight); err != nil {
				return err
			}
			if kept[r.e.Target] {
				found = append(found, r)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return err
	}
	slices.SortFunc(found, func(a, b edgeRow) int { return cmp.Compare(a.id, b.id) })
	for _, r := range found {
		if err := edge(r.e); err != nil {
			return err
		}
	}
	return nil
}

// HasFactTimes reports whether some node or edge of a version says when
// its fact held: a valid_at, invalid_at or expired property (see
// extract.PropValidAt). Short of one, it reads the properties of every
// row, so it is meant for versions likely to keep times.
func (s *Store) HasFactTimes(ctx context.Context, versionID int) (bool, error) {
	for _, table := range []string{"nodes", "edges"} {
		var one int
		err := s.db.QueryRowContext(ctx, rebind(s.Dialect, `SELECT 1 FROM `+table+` WHERE version_id = ?
			AND (properties LIKE ? OR properties LIKE ? OR properties LIKE ?) LIMIT 1`),
			versionID, `%"`+extract.PropValidAt+`"%`, `%"`+extract.PropInvalidAt+`"%`, `%"`+extract.PropExpired+`"%`).Scan(&one)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, sql.ErrNoRows):
			return false, fmt.Errorf("fact times: %w", err)
		}
	}
	return false, nil
}
