package store

import (
	"context"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// A database written when each mention was a row of the table mentions
// gets them moved into its nodes' and edges' packs on the next open, in
// their order, texts included, and the table is dropped. On both
// databases.
func TestMigrateMentions_IntoPacks(t *testing.T) {
	opts := map[string]func() Options{"sqlite": func() Options { return Options{DataDir: t.TempDir()} }}
	if testkit.PostgresURL(t) != "" {
		opts["postgres"] = func() Options { return Options{URL: testkit.PostgresDB(t, "store")} }
	}
	for name, open := range opts {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			o := open()
			s, err := Open(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			v, err := s.NewChildVersion(ctx, "old", extract.Config{}, nil, "imported", 0)
			if err != nil {
				t.Fatal(err)
			}
			g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "A"}, {Key: "b", Name: "B"}},
				Edges: []extract.Edge{{Source: "a", Label: "x", Target: "b", Weight: 1}}}
			if err := s.WriteGraph(ctx, v.ID, g); err != nil {
				t.Fatal(err)
			}
			// As an older release left it: a table of mention rows.
			for _, q := range []string{
				`CREATE TABLE mentions (id INTEGER PRIMARY KEY, node_key TEXT NOT NULL DEFAULT '', edge_key TEXT NOT NULL DEFAULT '',
					document_id INTEGER NOT NULL, chunk_index INTEGER NOT NULL, "start" INTEGER NOT NULL, "end" INTEGER NOT NULL,
					"text" TEXT NOT NULL DEFAULT '', edge_ref BIGINT NOT NULL DEFAULT 0, version_id INTEGER NOT NULL)`,
				`DELETE FROM kgstudio_migrations`,
			} {
				if _, err := s.db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			rows := []struct {
				node, edge string
				m          extract.Mention
			}{
				{"a", "", extract.Mention{DocumentID: 1, ChunkIndex: 2, Start: 30, End: 34}},
				{"", extract.EdgeKey("a", "x", "b"), extract.Mention{DocumentID: 1, ChunkIndex: 2, Start: 30, End: 60, Text: "a; x. 'b':"}},
				{"a", "", extract.Mention{DocumentID: 1, ChunkIndex: 0, Start: 3, End: 4}},
				{"b", "", extract.Mention{DocumentID: 2, ChunkIndex: 1, Start: 0, End: 0}},
			}
			for i, r := range rows {
				if _, err := s.db.ExecContext(ctx, rebind(s.Dialect, `INSERT INTO mentions (id, node_key, edge_key, document_id, chunk_index, "start", "end", "text", version_id)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`), i+1, r.node, r.edge, r.m.DocumentID, r.m.ChunkIndex, r.m.Start, r.m.End, r.m.Text, v.ID); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			s, err = Open(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, err := s.LoadGraph(ctx, v.ID, true)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]extract.Mention{"a": {rows[0].m, rows[2].m}, "b": {rows[3].m}, "edge": {rows[1].m}}
			have := map[string][]extract.Mention{"edge": got.Edges[0].Mentions}
			for _, n := range got.Nodes {
				have[n.Key] = n.Mentions
			}
			if !reflect.DeepEqual(have, want) {
				t.Fatalf("after the migration:\n%+v\nwant\n%+v", have, want)
			}
			if _, err := s.db.ExecContext(ctx, `SELECT 1 FROM mentions`); err == nil {
				t.Fatal("the table of mention rows is still there")
			}
		})
	}
}
