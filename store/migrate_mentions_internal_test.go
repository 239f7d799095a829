package store

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// A database whose edge mentions have no edge_ref (written before it
// existed) gets it on the next open, and an edge's mentions are found.
func TestMigrateMentions_FillsEdgeRef(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewChildVersion(ctx, "old", extract.Config{}, nil, "imported", 0)
	if err != nil {
		t.Fatal(err)
	}
	m := extract.Mention{DocumentID: 1, Start: 3, End: 9}
	g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "A", Mentions: []extract.Mention{m}}, {Key: "b", Name: "B"}},
		Edges: []extract.Edge{{Source: "a", Label: "x", Target: "b", Weight: 1, Mentions: []extract.Mention{m}}}}
	if err := s.WriteGraph(ctx, v.ID, g); err != nil {
		t.Fatal(err)
	}
	// As an older release left it.
	if _, err := s.db.ExecContext(ctx, `UPDATE mentions SET edge_ref = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM kgstudio_migrations`); err != nil {
		t.Fatal(err)
	}
	if e, err := s.EdgeByKey(ctx, v.ID, "a", "x", "b"); err != nil || len(e.Mentions) != 0 {
		t.Fatalf("before the migration: %d mentions (%v); the test needs the lookup to miss", len(e.Mentions), err)
	}
	s.Close()
	s, err = Open(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e, err := s.EdgeByKey(ctx, v.ID, "a", "x", "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Mentions) != 1 || e.Mentions[0].Start != 3 {
		t.Fatalf("after the migration: mentions %v", e.Mentions)
	}
}
