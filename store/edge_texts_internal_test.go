package store

import (
	"context"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// The edges of one sentence hold it once: one edge_texts row, empty
// descriptions with a reference in the edge rows; short ones stay inline.
func TestEdgeTexts_StoredOnce(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, err := s.NewChildVersion(ctx, "pooled", extract.Config{}, nil, "imported", 0)
	if err != nil {
		t.Fatal(err)
	}
	sentence := strings.Repeat("The edges of one sentence share it. ", 3)
	g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "A"}, {Key: "b", Name: "B"}, {Key: "c", Name: "C"}},
		Edges: []extract.Edge{{Source: "a", Label: "x", Target: "b", Description: sentence, Weight: 1},
			{Source: "b", Label: "y", Target: "c", Description: sentence, Weight: 1},
			{Source: "a", Label: "z", Target: "c", Description: "short", Weight: 1}}}
	if err := s.WriteGraph(ctx, v.ID, g); err != nil {
		t.Fatal(err)
	}
	var texts, refs, inline int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM edge_texts WHERE version_id = ?`, v.ID).Scan(&texts); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM edges WHERE version_id = ? AND description = '' AND description_ref <> 0`, v.ID).Scan(&refs); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM edges WHERE version_id = ? AND description = 'short' AND description_ref = 0`, v.ID).Scan(&inline); err != nil {
		t.Fatal(err)
	}
	if texts != 1 || refs != 2 || inline != 1 {
		t.Fatalf("%d texts, %d edges by reference, %d inline; want 1, 2, 1", texts, refs, inline)
	}
	// Deleting the version deletes its texts.
	if err := s.FinishVersion(ctx, v.ID, record.StatusDone, 0, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteVersion(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM edge_texts`).Scan(&texts); err != nil || texts != 0 {
		t.Fatalf("%d texts left after the delete (%v)", texts, err)
	}
}
