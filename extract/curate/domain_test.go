package curate

import (
	"slices"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestAddDomain(t *testing.T) {
	ref := extract.Graph{
		Nodes: []extract.Node{
			{Key: "ACTH", Name: "促肾上腺皮质激素", Type: "Concept", Properties: map[string]any{PropAliases: []any{"ACTH"}}},
			{Key: "Hormone", Name: "激素", Type: "Concept"},
			{Key: "Ann", Name: "Ann", Type: "Person"},
			{Key: "X", Name: "X", Type: "Concept"},
		},
		Edges: []extract.Edge{
			{Source: "ACTH", Target: "Hormone", Label: "isA"},
			{Source: "Ann", Target: "Hormone", Label: "studies"},
			{Source: "Ann", Target: "Gone", Label: "knows"}, // an end ref lacks
		},
	}
	g := extract.Graph{
		Nodes: []extract.Node{{Key: "ACTH", Name: "促肾上腺皮质激素", Type: "Concept", Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: 0}}}},
		Edges: []extract.Edge{{Source: "ACTH", Target: "ACTH", Label: "isA"}},
	}
	chunks := []extract.Chunk{
		{DocumentID: 1, Index: 0, Text: "垂体分泌促肾上腺皮质激素。"},
		{DocumentID: 1, Index: 1, Text: "Annual reports name ACTH, a hormone (激素)."},
		{DocumentID: 1, Index: 2, Text: "Ann wrote it. X marks the spot."},
	}
	out, nodes, edges, mentions := AddDomain(g, ref, chunks)
	if nodes != 3 || edges != 2 || len(out.Nodes) != 4 || len(out.Edges) != 3 {
		t.Fatalf("added %d nodes and %d edges (graph %d/%d); want 3 and 2 (4/3)", nodes, edges, len(out.Nodes), len(out.Edges))
	}
	mentioned := map[string][]int{}
	for _, n := range out.Nodes {
		for _, m := range n.Mentions {
			mentioned[n.Key] = append(mentioned[n.Key], m.ChunkIndex)
		}
	}
	// ACTH: its own mention of chunk 0 kept, chunk 1 by alias; 激素 inside
	// a longer Han word counts (no word breaks in Han text); Ann only where
	// it stands as a word (not in "Annual"); a one-letter name never.
	want := map[string][]int{"ACTH": {0, 1}, "Hormone": {0, 1}, "Ann": {2}}
	for k, w := range want {
		got := mentioned[k]
		slices.Sort(got)
		if !slices.Equal(got, w) {
			t.Errorf("%s mentioned in chunks %v; want %v", k, got, w)
		}
	}
	if len(mentioned["X"]) != 0 {
		t.Errorf("a one-letter name was matched: %v", mentioned["X"])
	}
	if mentions != 4 {
		t.Errorf("%d mentions made; want 4 (ACTH 1, 激素 2, Ann 1)", mentions)
	}
	if len(g.Nodes) != 1 || len(g.Nodes[0].Mentions) != 1 {
		t.Error("g was changed")
	}
}
