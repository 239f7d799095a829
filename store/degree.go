package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/kgstudio/kgstudio/extract"
)

// A node's degree column counts the version's edges at the node whose both
// ends are nodes of the version, a self-loop once: the degree
// extract.SelectSubgraph computes over the whole graph. The graph API
// ranks, filters and cuts by it through the (version_id, degree, key)
// index instead of loading the graph. Every write keeps it current: a
// graph written into an empty version gets degrees counted in memory with
// its rows; any other write recounts, in SQL, the nodes it may have
// changed (the nodes written, the ends of the edges written and the
// neighbours of the nodes written, whose dangling edges may now count).

// graphDegrees counts the degree of each of nodes (keys unique) over edges
// (unique by source, label and target), in the order of nodes.
func graphDegrees(nodes []extract.Node, edges []extract.Edge) []int64 {
	idx := make(map[string]int, len(nodes))
	for i, n := range nodes {
		idx[n.Key] = i
	}
	return indexDegrees(idx, len(nodes), edges)
}

// indexDegrees is graphDegrees over n nodes whose positions by key are in
// idx.
func indexDegrees(idx map[string]int, n int, edges []extract.Edge) []int64 {
	deg := make([]int64, n)
	for _, e := range edges {
		s, ok1 := idx[e.Source]
		t, ok2 := idx[e.Target]
		if !ok1 || !ok2 {
			continue
		}
		deg[s]++
		if t != s {
			deg[t]++
		}
	}
	return deg
}

// degreeSQL is the degree of the row of nodes being updated, counted from
// the edge indexes.
func degreeSQL(dia string) string {
	return `(SELECT COUNT(*) FROM edges e WHERE e.version_id = nodes.version_id AND e.source = nodes."key"
	AND EXISTS (SELECT 1 FROM nodes t WHERE t.version_id = e.version_id AND t."key" = e.target))
 + (SELECT COUNT(*) FROM ` + edgesByTarget(dia, "e") + ` WHERE e.version_id = nodes.version_id AND e.target = nodes."key" AND e.source <> e.target
	AND EXISTS (SELECT 1 FROM nodes s WHERE s.version_id = e.version_id AND s."key" = e.source))`
}

// edgesByTarget names the edges table for a query by target. SQLite, left
// to itself, reads such a query through the covering (version, source,
// label, target) index, that is every edge of the version, rather than
// the (version, target) one.
// The table takes the alias as.
func edgesByTarget(dia, as string) string {
	t := strings.TrimSpace("edges " + as)
	if dia == dialect.SQLite {
		return t + " INDEXED BY edge_version_id_target"
	}
	return t
}

// execQuerier is what the degree statements run on: a transaction or the
// database.
type execQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// refreshDegrees recounts the degree of the version's nodes with the given
// keys, or of all its nodes when all is set.
func refreshDegrees(ctx context.Context, q execQuerier, dia string, versionID int, keys []string, all bool) error {
	if all {
		_, err := execOn(ctx, q, rebind(dia, "UPDATE nodes SET degree = "+degreeSQL(dia)+" WHERE version_id = ?"), versionID)
		if err != nil {
			return fmt.Errorf("count degrees: %w", err)
		}
		return nil
	}
	return forKeys(keys, dia, func(in string, args []any) error {
		_, err := execOn(ctx, q, rebind(dia, "UPDATE nodes SET degree = "+degreeSQL(dia)+` WHERE version_id = ? AND "key" `+in),
			append([]any{versionID}, args...)...)
		if err != nil {
			return fmt.Errorf("count degrees: %w", err)
		}
		return nil
	})
}

// neighbourKeys returns the keys at the other end of the version's edges
// at the given nodes (each at most once, in no particular order).
func neighbourKeys(ctx context.Context, q execQuerier, dia string, versionID int, keys []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, side := range [][3]string{{"source", "target", "edges"}, {"target", "source", edgesByTarget(dia, "")}} {
		err := forKeys(keys, dia, func(in string, args []any) error {
			return eachString(ctx, q, rebind(dia, "SELECT "+side[1]+" FROM "+side[2]+" WHERE version_id = ? AND "+side[0]+" "+in),
				append([]any{versionID}, args...), func(k string) {
					if !seen[k] {
						seen[k] = true
						out = append(out, k)
					}
				})
		})
		if err != nil {
			return nil, fmt.Errorf("neighbours: %w", err)
		}
	}
	return out, nil
}

// refreshWritten recounts the degrees a write of nodes and edges into a
// version that held rows may have changed.
func refreshWritten(ctx context.Context, q execQuerier, dia string, versionID int, nodes []extract.Node, edges []extract.Edge) error {
	seen := map[string]bool{}
	var keys, written []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, n := range nodes {
		add(n.Key)
		written = append(written, n.Key)
	}
	for _, e := range edges {
		add(e.Source)
		add(e.Target)
	}
	nb, err := neighbourKeys(ctx, q, dia, versionID, written)
	if err != nil {
		return err
	}
	for _, k := range nb {
		add(k)
	}
	return refreshDegrees(ctx, q, dia, versionID, keys, false)
}

// forKeys calls fn with an IN (or = ANY) test and its arguments for keys,
// in batches of BatchSize on SQLite and all at once on PostgreSQL.
func forKeys(keys []string, dia string, fn func(in string, args []any) error) error {
	return forList(keys, dia, "text", fn)
}

// forList is forKeys for a list of any type; pgType is its PostgreSQL
// element type.
func forList[T any](list []T, dia, pgType string, fn func(in string, args []any) error) error {
	if len(list) == 0 {
		return nil
	}
	if dia == dialect.Postgres {
		return fn("= ANY(?::"+pgType+"[])", []any{list})
	}
	for start := 0; start < len(list); start += BatchSize {
		part := list[start:min(start+BatchSize, len(list))]
		// The list is padded with its last value to a size of a few
		// (powers of two), so that the statements are few and prepared
		// once (a value twice in an IN list changes nothing).
		args := make([]any, padded(len(part)))
		for i := range args {
			args[i] = part[min(i, len(part)-1)]
		}
		if err := fn(inList(len(args)), args); err != nil {
			return err
		}
	}
	return nil
}

// padded is the size of a list of n values padded to the next power of
// two (at most BatchSize).
func padded(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return min(p, max(n, BatchSize))
}

// inList is "IN (?,?,...)" with n placeholders.
func inList(n int) string {
	return "IN (?" + strings.Repeat(",?", n-1) + ")"
}

// queryOn runs a query on q, through the store's prepared statement when
// q is a transaction of the store on SQLite (see execCached).
func queryOn(ctx context.Context, q execQuerier, query string, args ...any) (*sql.Rows, error) {
	if b, ok := q.(*writeTx); ok {
		return b.queryCached(ctx, query, args...)
	}
	return q.QueryContext(ctx, query, args...)
}

// execOn is queryOn for a statement that returns no rows.
func execOn(ctx context.Context, q execQuerier, query string, args ...any) (sql.Result, error) {
	if b, ok := q.(*writeTx); ok {
		return b.execCached(ctx, query, args...)
	}
	return q.ExecContext(ctx, query, args...)
}

// rebind turns ? placeholders into $n on PostgreSQL. The statements it is
// given hold no ? of their own.
func rebind(dia, q string) string {
	if dia != dialect.Postgres {
		return q
	}
	var sb strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			fmt.Fprintf(&sb, "$%d", n)
			continue
		}
		sb.WriteByte(q[i])
	}
	return sb.String()
}

// versionEmpty says whether a version holds no nodes and no edges.
func versionEmpty(ctx context.Context, q execQuerier, dia string, versionID int) (bool, error) {
	rows, err := queryOn(ctx, q, rebind(dia, `SELECT EXISTS (SELECT 1 FROM nodes WHERE version_id = ?) OR EXISTS (SELECT 1 FROM edges WHERE version_id = ?)`),
		versionID, versionID)
	if err != nil {
		return false, fmt.Errorf("version rows: %w", err)
	}
	defer rows.Close()
	var any bool
	if rows.Next() {
		if err := rows.Scan(&any); err != nil {
			return false, fmt.Errorf("version rows: %w", err)
		}
	}
	return !any, rows.Err()
}

// backfillDegrees counts the degrees of versions written before the
// degree column existed: those with edges and no node of degree above 0.
// It reads two index entries per version when there is nothing to do.
func (s *Store) backfillDegrees(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM extraction_versions v WHERE EXISTS (SELECT 1 FROM edges e WHERE e.version_id = v.id)
		AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.version_id = v.id AND n.degree > 0)`)
	if err != nil {
		return fmt.Errorf("versions to count degrees of: %w", err)
	}
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.inTx(ctx, func(b *writeTx) error {
			return refreshDegrees(ctx, b, s.Dialect, id, nil, true)
		}); err != nil {
			return err
		}
	}
	return nil
}

// degreeDelta is what a merge of a chunk into a version that holds rows
// adds to degrees, counted from the chunk and the stored rows it touches
// instead of recounting every node it touches: a node named in most
// chunks (an article's subject, a hub of co-occurrence edges) has
// thousands of edges, and recounting them at every chunk made a run's
// merge grow with the square of the text. New nodes get their degree as
// inserted (newDeg, in the order of the nodes written); nodes that existed
// get theirs raised by add.
type degreeDelta struct {
	newDeg []int64
	add    map[string]int64
}

// countDelta counts the degree changes of writing nodes (keys unique;
// isNew tells the new ones) and the edges of which edgeIsNew tells the new
// ones, into a version, before any of them is written. A new edge counts
// at both ends when both exist once the write is done; an edge stored
// before, dangling at a node this write creates, now counts at that node,
// and at its other end when that exists.
func countDelta(ctx context.Context, q execQuerier, dia string, versionID int, nodes []extract.Node, isNew []bool, edges []extract.Edge, edgeIsNew []bool) (degreeDelta, error) {
	d := degreeDelta{newDeg: make([]int64, len(nodes)), add: map[string]int64{}}
	at := make(map[string]int, len(nodes))
	var created []string
	for i, n := range nodes {
		at[n.Key] = i
		if isNew[i] {
			created = append(created, n.Key)
		}
	}
	// Ends of new edges that are not among the nodes written: stored, or
	// missing.
	var others []string
	seen := map[string]bool{}
	for i, e := range edges {
		if !edgeIsNew[i] {
			continue
		}
		for _, k := range [2]string{e.Source, e.Target} {
			if _, ok := at[k]; !ok && !seen[k] {
				seen[k] = true
				others = append(others, k)
			}
		}
	}
	stored := map[string]bool{}
	if err := storedKeys(ctx, q, dia, versionID, others, stored); err != nil {
		return d, err
	}
	bump := func(k string) {
		if i, ok := at[k]; ok && isNew[i] {
			d.newDeg[i]++
		} else {
			d.add[k]++
		}
	}
	exists := func(k string) bool {
		_, ok := at[k]
		return ok || stored[k]
	}
	for i, e := range edges {
		if !edgeIsNew[i] || !exists(e.Source) || !exists(e.Target) {
			continue
		}
		bump(e.Source)
		if e.Target != e.Source {
			bump(e.Target)
		}
	}
	if len(created) == 0 {
		return d, nil
	}
	// Stored edges at the nodes created: none of them counted before (one
	// of its ends did not exist); each counts now when both ends exist.
	list, err := danglingEdges(ctx, q, dia, versionID, created)
	if err != nil {
		return d, err
	}
	var ends []string
	for _, p := range list {
		for _, k := range [2]string{p.s, p.t} {
			if !exists(k) && !seen[k] {
				seen[k] = true
				ends = append(ends, k)
			}
		}
	}
	// Their other ends that are neither written nor looked up yet.
	if err := storedKeys(ctx, q, dia, versionID, ends, stored); err != nil {
		return d, err
	}
	for _, p := range list {
		if exists(p.s) && exists(p.t) {
			bump(p.s)
			if p.t != p.s {
				bump(p.t)
			}
		}
	}
	return d, nil
}

// storedKeys marks in stored the keys among keys that name a stored node
// of the version.
func storedKeys(ctx context.Context, q execQuerier, dia string, versionID int, keys []string, stored map[string]bool) error {
	err := forKeys(keys, dia, func(in string, args []any) error {
		return eachString(ctx, q, rebind(dia, `SELECT "key" FROM nodes WHERE version_id = ? AND "key" `+in),
			append([]any{versionID}, args...), func(k string) { stored[k] = true })
	})
	if err != nil {
		return fmt.Errorf("edge ends: %w", err)
	}
	return nil
}

// eachString runs a query of one string column and visits each value.
func eachString(ctx context.Context, q execQuerier, query string, args []any, visit func(string)) error {
	rows, err := queryOn(ctx, q, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return err
		}
		visit(k)
	}
	return rows.Err()
}

// edgeEnds is a stored edge by its ends and label.
type edgeEnds struct{ s, l, t string }

// danglingEdges reads the stored edges at the nodes created (as source
// or target), each once, in the order read.
func danglingEdges(ctx context.Context, q execQuerier, dia string, versionID int, created []string) ([]edgeEnds, error) {
	seen := map[edgeEnds]bool{}
	var list []edgeEnds
	for _, side := range [][2]string{{"source", "edges"}, {"target", edgesByTarget(dia, "")}} {
		err := forKeys(created, dia, func(in string, args []any) error {
			rows, err := queryOn(ctx, q, rebind(dia, "SELECT source, label, target FROM "+side[1]+" WHERE version_id = ? AND "+side[0]+" "+in),
				append([]any{versionID}, args...)...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var p edgeEnds
				if err := rows.Scan(&p.s, &p.l, &p.t); err != nil {
					return err
				}
				if !seen[p] {
					seen[p] = true
					list = append(list, p)
				}
			}
			return rows.Err()
		})
		if err != nil {
			return nil, fmt.Errorf("dangling edges: %w", err)
		}
	}
	return list, nil
}

// apply raises the degrees of the nodes that existed, one statement per
// distinct increment.
func (d degreeDelta) apply(ctx context.Context, q execQuerier, dia string, versionID int) error {
	by := map[int64][]string{}
	for k, n := range d.add {
		by[n] = append(by[n], k)
	}
	for n, keys := range by {
		err := forKeys(keys, dia, func(in string, args []any) error {
			_, err := execOn(ctx, q, rebind(dia, `UPDATE nodes SET degree = degree + ? WHERE version_id = ? AND "key" `+in),
				append([]any{n, versionID}, args...)...)
			return err
		})
		if err != nil {
			return fmt.Errorf("count degrees: %w", err)
		}
	}
	return nil
}
