package store

import (
	"context"
	"fmt"
)

// oldMentionIndexes are the indexes mentions had before edge_ref: unique
// on every column (as large as the table), then by edge key.
var oldMentionIndexes = []string{"mention_version_id_node_key_edg_11dba4d91f5ce375603ed24fbd019e2c", "mention_version_id_edge_key"}

// migrationsTable records the data migrations done, by name.
const migrationsTable = `CREATE TABLE IF NOT EXISTS kgstudio_migrations (name TEXT PRIMARY KEY)`

// migrateMentions brings mentions written before edge_ref up to date,
// once per database (kgstudio_migrations records it): it fills in the
// edge_ref of every edge mention and drops the old indexes. An
// interrupted migration starts again on the next open.
func (s *Store) migrateMentions(ctx context.Context) error {
	const name = "mentions_edge_ref"
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
	const batch = 2000
	for after := int64(0); ; {
		type row struct {
			id  int64
			key string
		}
		var rows []row
		rs, err := s.db.QueryContext(ctx, rebind(s.Dialect, `SELECT id, edge_key FROM mentions WHERE id > ? AND edge_key <> '' ORDER BY id LIMIT ?`), after, batch)
		if err != nil {
			return err
		}
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.id, &r.key); err != nil {
				rs.Close()
				return err
			}
			rows = append(rows, r)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
		if len(rows) == 0 {
			break
		}
		err = s.inTx(ctx, func(b *writeTx) error {
			for _, r := range rows {
				if _, err := b.ExecContext(ctx, rebind(s.Dialect, `UPDATE mentions SET edge_ref = ? WHERE id = ?`), textRef(r.key), r.id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("fill in edge_ref: %w", err)
		}
		after = rows[len(rows)-1].id
	}
	for _, index := range oldMentionIndexes {
		if _, err := s.db.ExecContext(ctx, `DROP INDEX IF EXISTS `+index); err != nil {
			return err
		}
	}
	_, err := s.db.ExecContext(ctx, rebind(s.Dialect, `INSERT INTO kgstudio_migrations (name) VALUES (?) ON CONFLICT DO NOTHING`), name)
	return err
}
