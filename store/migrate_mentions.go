package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/kgstudio/kgstudio/extract"
)

// migrationsTable records the data migrations done, by name.
const migrationsTable = `CREATE TABLE IF NOT EXISTS kgstudio_migrations (name TEXT PRIMARY KEY)`

// migrateMentions moves the mentions of a database written when each was a
// row of the table mentions into the packs of their nodes and edges (see
// mention_pack.go), version by version, each in one transaction (an
// interrupted migration goes on with the versions left on the next open),
// then drops the table. kgstudio_migrations records it once done.
func (s *Store) migrateMentions(ctx context.Context) error {
	const name = "mention_packs"
	if _, err := s.db.ExecContext(ctx, migrationsTable); err != nil {
		return err
	}
	var done int
	if err := s.db.QueryRowContext(ctx, rebind(s.Dialect, `SELECT COUNT(*) FROM kgstudio_migrations WHERE name = ?`), name).Scan(&done); err != nil {
		return err
	}
	if done > 0 {
		return nil
	}
	exists := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'mentions'`
	if s.Dialect == dialect.Postgres {
		exists = `SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'mentions'`
	}
	var tables int
	if err := s.db.QueryRowContext(ctx, exists).Scan(&tables); err != nil {
		return err
	}
	if tables > 0 {
		for {
			var versionID int
			err := s.db.QueryRowContext(ctx, `SELECT version_id FROM mentions LIMIT 1`).Scan(&versionID)
			if errors.Is(err, sql.ErrNoRows) {
				break
			}
			if err != nil {
				return err
			}
			if err := s.inTx(ctx, func(b *writeTx) error { return packVersionMentions(ctx, b, versionID) }); err != nil {
				return fmt.Errorf("version %d: %w", versionID, err)
			}
		}
		if _, err := s.db.ExecContext(ctx, `DROP TABLE mentions`); err != nil {
			return err
		}
	}
	_, err := s.db.ExecContext(ctx, rebind(s.Dialect, `INSERT INTO kgstudio_migrations (name) VALUES (?) ON CONFLICT DO NOTHING`), name)
	return err
}

// packVersionMentions moves one version's mention rows into its nodes'
// and edges' packs (appended to what they hold) and deletes the rows.
func packVersionMentions(ctx context.Context, b *writeTx, versionID int) error {
	rows, err := b.QueryContext(ctx, rebind(b.dialect, `SELECT node_key, edge_key, document_id, chunk_index, "start", "end", "text" `+
		`FROM mentions WHERE version_id = ? ORDER BY id`), versionID)
	if err != nil {
		return err
	}
	nodes, edges := map[string][]extract.Mention{}, map[string][]extract.Mention{}
	var nodeOrder, edgeOrder []string
	for rows.Next() {
		var nodeKey, edgeKey string
		var m extract.Mention
		if err := rows.Scan(&nodeKey, &edgeKey, &m.DocumentID, &m.ChunkIndex, &m.Start, &m.End, &m.Text); err != nil {
			rows.Close()
			return err
		}
		if nodeKey != "" {
			if nodes[nodeKey] == nil {
				nodeOrder = append(nodeOrder, nodeKey)
			}
			nodes[nodeKey] = append(nodes[nodeKey], m)
		} else if edgeKey != "" {
			if edges[edgeKey] == nil {
				edgeOrder = append(edgeOrder, edgeKey)
			}
			edges[edgeKey] = append(edges[edgeKey], m)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, k := range nodeOrder {
		if _, err := b.ExecContext(ctx, rebind(b.dialect, `UPDATE nodes SET mentions = mentions || ? WHERE version_id = ? AND "key" = ?`),
			encodePack(nodes[k]), versionID, k); err != nil {
			return err
		}
	}
	for _, k := range edgeOrder {
		// An edge key joins source, label and target (extract.EdgeKey).
		parts := strings.SplitN(k, "\x1f", 3)
		if len(parts) != 3 {
			continue // not an edge key: nothing it could belong to
		}
		if _, err := b.ExecContext(ctx, rebind(b.dialect, `UPDATE edges SET mentions = mentions || ? WHERE version_id = ? AND source = ? AND label = ? AND target = ?`),
			encodePack(edges[k]), versionID, parts[0], parts[1], parts[2]); err != nil {
			return err
		}
	}
	_, err = b.ExecContext(ctx, rebind(b.dialect, `DELETE FROM mentions WHERE version_id = ?`), versionID)
	return err
}
