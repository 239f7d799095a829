package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"entgo.io/ent/dialect"

	"github.com/kgstudio/kgstudio/extract"
)

// Lookups of the rows a chunk merges into: one statement per batch of keys
// instead of one per edge. On PostgreSQL the keys travel as arrays, so the
// statement text is the same for every chunk.

// loadNodes returns the stored nodes of a version among keys, by key.
func loadNodes(ctx context.Context, b *writeTx, versionID int, keys []string) (map[string]*extract.Node, error) {
	out := make(map[string]*extract.Node, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	const cols = `SELECT "key", name, "type", description, properties FROM nodes WHERE version_id = `
	scan := func(rows *sql.Rows) error {
		defer rows.Close()
		for rows.Next() {
			var n extract.Node
			var props string
			if err := rows.Scan(&n.Key, &n.Name, &n.Type, &n.Description, &props); err != nil {
				return err
			}
			n.Properties = decodeProps(props)
			out[n.Key] = &n
		}
		return rows.Err()
	}
	if b.dialect == dialect.Postgres {
		rows, err := b.QueryContext(ctx, cols+`$1 AND "key" = ANY($2::text[])`, versionID, keys)
		if err != nil {
			return nil, fmt.Errorf("load nodes: %w", err)
		}
		if err := scan(rows); err != nil {
			return nil, fmt.Errorf("load nodes: %w", err)
		}
		return out, nil
	}
	for start := 0; start < len(keys); start += BatchSize {
		part := keys[start:min(start+BatchSize, len(keys))]
		// Padded with its last key, so the statements are few and
		// prepared once (see forKeys).
		n := padded(len(part))
		args := make([]any, 0, n+1)
		args = append(args, versionID)
		for i := range n {
			args = append(args, part[min(i, len(part)-1)])
		}
		q := cols + `? AND "key" ` + inList(n)
		rows, err := b.queryCached(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("load nodes: %w", err)
		}
		if err := scan(rows); err != nil {
			return nil, fmt.Errorf("load nodes: %w", err)
		}
	}
	return out, nil
}

// loadEdges returns the stored edges of a version matching the keys of
// edges, by key.
func loadEdges(ctx context.Context, b *writeTx, versionID int, edges []extract.Edge) (map[string]*extract.Edge, error) {
	out := make(map[string]*extract.Edge, len(edges))
	var byRef []*extract.Edge
	var refs []int64
	err := edgeRows(ctx, b, versionID, edges, `e.source, e.target, e.label, e.keywords, e.description, e.description_ref, e.weight, e.properties`,
		func(rows *sql.Rows) error {
			var e extract.Edge
			var props string
			var ref int64
			if err := rows.Scan(&e.Source, &e.Target, &e.Label, &e.Keywords, &e.Description, &ref, &e.Weight, &props); err != nil {
				return err
			}
			e.Properties = decodeProps(props)
			out[e.Key()] = &e
			if ref != 0 {
				byRef, refs = append(byRef, &e), append(refs, ref)
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("load edges: %w", err)
	}
	if err := resolveDescriptions(ctx, b, b.dialect, versionID, byRef, refs, false); err != nil {
		return nil, fmt.Errorf("load edges: %w", err)
	}
	return out, nil
}

// loadEdgeMentions returns the mention packs stored for the edges of a
// version matching edges (those that hold any), by identity.
func loadEdgeMentions(ctx context.Context, b *writeTx, versionID int, edges []extract.Edge) (map[extract.EdgeID]string, error) {
	out := map[extract.EdgeID]string{}
	err := edgeRows(ctx, b, versionID, edges, `e.source, e.label, e.target, e.mentions`, func(rows *sql.Rows) error {
		var id extract.EdgeID
		var pack string
		if err := rows.Scan(&id.Source, &id.Label, &id.Target, &pack); err != nil {
			return err
		}
		if pack != "" {
			out[id] = pack
		}
		return nil
	})
	return out, err
}

// edgeRows selects cols (of edges e) from the stored edges of a version
// matching the keys of edges, calling row for each.
func edgeRows(ctx context.Context, b *writeTx, versionID int, edges []extract.Edge, cols string, row func(*sql.Rows) error) error {
	if len(edges) == 0 {
		return nil
	}
	scan := func(rows *sql.Rows) error {
		defer rows.Close()
		for rows.Next() {
			if err := row(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	if b.dialect == dialect.Postgres {
		src, lbl, tgt := make([]string, len(edges)), make([]string, len(edges)), make([]string, len(edges))
		for i, e := range edges {
			src[i], lbl[i], tgt[i] = e.Source, e.Label, e.Target
		}
		q := `SELECT ` + cols + ` FROM unnest($2::text[], $3::text[], $4::text[]) AS k(s, l, t) JOIN edges e ON e.version_id = $1 ` +
			`AND e.source = k.s AND e.label = k.l AND e.target = k.t`
		rows, err := b.QueryContext(ctx, q, versionID, src, lbl, tgt)
		if err != nil {
			return err
		}
		return scan(rows)
	}
	for start := 0; start < len(edges); start += BatchSize {
		part := edges[start:min(start+BatchSize, len(edges))]
		// Padded with its last edge (which the caller's map reads once),
		// so the statements are few and prepared once.
		n := padded(len(part))
		args := make([]any, 0, 3*n+1)
		for i := range n {
			e := part[min(i, len(part)-1)]
			args = append(args, e.Source, e.Label, e.Target)
		}
		args = append(args, versionID)
		q := `SELECT ` + cols + ` FROM (VALUES (?,?,?)` + strings.Repeat(",(?,?,?)", n-1) + `) AS k ` +
			`JOIN edges e ON e.version_id = ? AND e.source = k.column1 AND e.label = k.column2 AND e.target = k.column3`
		rows, err := b.queryCached(ctx, q, args...)
		if err != nil {
			return err
		}
		if err := scan(rows); err != nil {
			return err
		}
	}
	return nil
}

// rebind turns the ? placeholders of q into PostgreSQL's $1, $2, ...; q
// must hold no other question marks.
func (b *writeTx) rebind(q string) string { return rebind(b.dialect, q) }

// chunkRunRow is what a chunk run records.
type chunkRunRow struct {
	documentID, chunkIndex                   int
	detail                                   string
	nodes, edges, promptTokens, outputTokens int
	offSchema, failures                      int
	elapsedMs                                int64
}

// claimChunk records a chunk run and reports whether it is new: a chunk
// already recorded for the version (unique by version, document and index)
// was stored before, and the caller writes nothing. In the caller's
// transaction, the record and the merge commit or roll back together.
func claimChunk(ctx context.Context, b *writeTx, versionID int, r chunkRunRow) (bool, error) {
	res, err := b.execCached(ctx, b.rebind(`INSERT INTO chunk_runs (created_at, document_id, chunk_index, detail, `+
		`node_count, edge_count, prompt_tokens, output_tokens, off_schema, failures, elapsed_ms, version_id) `+
		`VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (version_id, document_id, chunk_index) DO NOTHING`),
		time.Now(), r.documentID, r.chunkIndex, r.detail, r.nodes, r.edges, r.promptTokens, r.outputTokens,
		r.offSchema, r.failures, r.elapsedMs, versionID)
	if err != nil {
		return false, fmt.Errorf("record chunk: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("record chunk: %w", err)
	}
	return n > 0, nil
}

// versionDelta is what one chunk adds to its version's counters.
type versionDelta struct {
	// chunks counts the chunk among the version's finished ones (0 when
	// its chunk job counted it already).
	chunks                                                      int
	nodes, edges, offSchema, parseFailures, repairs, violations int
	usage
}

// usage sums the model calls of a chunk or a step.
type usage struct {
	promptTokens, outputTokens             int
	cachedPromptTokens, cachedOutputTokens int
	calls, cachedCalls                     int
}

// plus is u and v summed.
func (u usage) plus(v usage) usage {
	return usage{u.promptTokens + v.promptTokens, u.outputTokens + v.outputTokens,
		u.cachedPromptTokens + v.cachedPromptTokens, u.cachedOutputTokens + v.cachedOutputTokens,
		u.calls + v.calls, u.cachedCalls + v.cachedCalls}
}

func usageOf(calls []extract.CallRecord) usage {
	u := usage{calls: len(calls)}
	for _, c := range calls {
		u.promptTokens += c.PromptTokens
		u.outputTokens += c.OutputTokens
		if c.Cached {
			u.cachedCalls++
			u.cachedPromptTokens += c.PromptTokens
			u.cachedOutputTokens += c.OutputTokens
		}
	}
	return u
}

// bumpVersion adds a finished chunk's figures to its version.
func bumpVersion(ctx context.Context, b *writeTx, versionID int, d versionDelta, now time.Time) error {
	res, err := b.execCached(ctx, b.rebind(`UPDATE extraction_versions SET chunks_done = chunks_done + ?, `+
		`node_count = node_count + ?, edge_count = edge_count + ?, prompt_tokens = prompt_tokens + ?, `+
		`output_tokens = output_tokens + ?, calls = calls + ?, cached_calls = cached_calls + ?, `+
		`cached_prompt_tokens = cached_prompt_tokens + ?, cached_output_tokens = cached_output_tokens + ?, `+
		`off_schema = off_schema + ?, parse_failures = parse_failures + ?, repairs = repairs + ?, violations = violations + ?, heartbeat_at = ? WHERE id = ?`),
		d.chunks, d.nodes, d.edges, d.promptTokens, d.outputTokens, d.calls, d.cachedCalls, d.cachedPromptTokens, d.cachedOutputTokens,
		d.offSchema, d.parseFailures, d.repairs, d.violations, now, versionID)
	if err != nil {
		return fmt.Errorf("update version: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return extract.Errorf(extract.KindNotFound, "version not found")
	}
	return nil
}
