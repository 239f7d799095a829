package extract

import (
	"reflect"
	"testing"
)

func TestMergeNode(t *testing.T) {
	m1 := Mention{DocumentID: 1, ChunkIndex: 0, Start: 0, End: 5, Text: "Alice"}
	m2 := Mention{DocumentID: 1, ChunkIndex: 1, Start: 90, End: 95, Text: "Alice"}
	tests := []struct {
		name     string
		dst      Node
		src      Node
		max      int
		wantType string
		wantDesc string
		wantMen  []Mention
		dropped  any
	}{
		{
			name:     "FillsEmpty",
			dst:      Node{},
			src:      Node{Key: "alice", Name: "Alice", Type: "Person", Description: "A.", Mentions: []Mention{m1}},
			wantType: "Person", wantDesc: "A.", wantMen: []Mention{m1},
		},
		{
			name:     "DedupeFragmentsAndMentions",
			dst:      Node{Key: "alice", Name: "Alice", Type: "Person", Description: "A.\nB.", Mentions: []Mention{m1}},
			src:      Node{Key: "alice", Name: "ALICE", Type: "Person", Description: "B.\nC.", Mentions: []Mention{m1, m2}},
			wantType: "Person", wantDesc: "A.\nB.\nC.", wantMen: []Mention{m1, m2},
		},
		{
			name:     "BoundedFragments",
			dst:      Node{Key: "alice", Type: "Person", Description: "A.\nB."},
			src:      Node{Key: "alice", Type: "Person", Description: "C.\nD.\nE."},
			max:      3,
			wantType: "Person", wantDesc: "A.\nB.\nC.", dropped: 2,
		},
		{
			name:     "MostFrequentType",
			dst:      Node{Key: "x", Type: "Location", Properties: map[string]any{PropTypeCounts: map[string]int{"Location": 1, "Organization": 2}}},
			src:      Node{Key: "x", Type: "Organization"},
			wantType: "Organization",
		},
		{
			name:     "TieKeepsFirst",
			dst:      Node{Key: "x", Type: "Location"},
			src:      Node{Key: "x", Type: "Organization"},
			wantType: "Location",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := tt.dst
			MergeNode(&dst, tt.src, tt.max)
			if dst.Type != tt.wantType {
				t.Errorf("type = %q, want %q", dst.Type, tt.wantType)
			}
			if tt.wantDesc != "" && dst.Description != tt.wantDesc {
				t.Errorf("description = %q, want %q", dst.Description, tt.wantDesc)
			}
			if tt.wantMen != nil && !reflect.DeepEqual(dst.Mentions, tt.wantMen) {
				t.Errorf("mentions = %v, want %v", dst.Mentions, tt.wantMen)
			}
			if tt.dropped != nil && dst.Properties[PropFragmentsDropped] != tt.dropped {
				t.Errorf("fragments_dropped = %v, want %v", dst.Properties[PropFragmentsDropped], tt.dropped)
			}
			if dst.Key == "" || (tt.dst.Name != "" && dst.Name != tt.dst.Name) {
				t.Errorf("key/name = %q/%q", dst.Key, dst.Name)
			}
		})
	}
}

func TestMergeEdge(t *testing.T) {
	dst := Edge{Source: "a", Target: "b", Label: "knows", Weight: 1, Keywords: "friend, work"}
	MergeEdge(&dst, Edge{Source: "a", Target: "b", Label: "knows", Weight: 2, Keywords: "Work, school", Description: "They met."}, 4)
	if dst.Weight != 3 {
		t.Errorf("weight = %v, want 3", dst.Weight)
	}
	if dst.Keywords != "friend, work, school" {
		t.Errorf("keywords = %q", dst.Keywords)
	}
	if dst.Description != "They met." {
		t.Errorf("description = %q", dst.Description)
	}
}

func TestMergeGraph(t *testing.T) {
	chunk := func(idx int, desc string) Graph {
		m := Mention{DocumentID: 1, ChunkIndex: idx, Start: idx * 10, End: idx*10 + 5}
		return Graph{
			Nodes: []Node{
				{Key: "alice", Name: "Alice", Type: "Person", Description: desc, Mentions: []Mention{m}},
				{Key: "paris", Name: "Paris", Type: "Location", Mentions: []Mention{m}},
			},
			Edges: []Edge{{Source: "alice", Target: "paris", Label: "lives in", Weight: 1, Mentions: []Mention{m}}},
		}
	}
	t.Run("AccumulatesByKey", func(t *testing.T) {
		var g Graph
		MergeGraph(&g, chunk(0, "one"), 8)
		MergeGraph(&g, chunk(1, "two"), 8)
		if len(g.Nodes) != 2 || len(g.Edges) != 1 {
			t.Fatalf("got %d nodes %d edges", len(g.Nodes), len(g.Edges))
		}
		if g.Edges[0].Weight != 2 || len(g.Nodes[0].Mentions) != 2 || g.Nodes[0].Description != "one\ntwo" {
			t.Errorf("merged = %+v / %+v", g.Nodes[0], g.Edges[0])
		}
	})
	t.Run("Idempotent", func(t *testing.T) {
		var once, twice Graph
		MergeGraph(&once, chunk(0, "one"), 8)
		MergeGraph(&once, chunk(1, "two"), 8)
		MergeGraph(&twice, chunk(0, "one"), 8)
		MergeGraph(&twice, chunk(1, "two"), 8)
		MergeGraph(&twice, chunk(1, "two"), 8)
		MergeGraph(&twice, chunk(0, "one"), 8)
		if !reflect.DeepEqual(once, twice) {
			t.Errorf("merging a chunk twice changed the graph:\n%+v\n%+v", once, twice)
		}
	})
	t.Run("DoesNotAliasSource", func(t *testing.T) {
		src := chunk(0, "one")
		var g Graph
		MergeGraph(&g, src, 8)
		MergeGraph(&g, chunk(1, "two"), 8)
		if len(src.Nodes[0].Mentions) != 1 {
			t.Errorf("source graph was modified")
		}
	})
}

// Overlapping chunks cut a sentence in two places: the pieces a node's
// description gets from each chunk join into one fragment.
func TestMergeNode_OverlappingFragments(t *testing.T) {
	first := "Scrooge sat busy in his counting-house.\nThe clerk, with the long ends of his white comforter dangling below his waist (for he boasted no greatcoat), went down a slide on Cornhill and then ran home to"
	second := "greatcoat), went down a slide on Cornhill and then ran home to Camden Town as hard as he could pelt."
	for _, tt := range []struct {
		name, dst, src, want string
	}{
		{"EndBeginsTheNext", first, second,
			"Scrooge sat busy in his counting-house.\nThe clerk, with the long ends of his white comforter dangling below his waist (for he boasted no greatcoat), went down a slide on Cornhill and then ran home to Camden Town as hard as he could pelt."},
		{"NextEndBeginsThis", second, "The clerk, with the long ends of his white comforter (for he boasted no greatcoat), went down a slide on Cornhill",
			"The clerk, with the long ends of his white comforter (for he boasted no greatcoat), went down a slide on Cornhill and then ran home to Camden Town as hard as he could pelt."},
		{"Inside", first, "went down a slide on Cornhill and then",
			first},
		{"Around", "went down a slide on Cornhill and then", first,
			"The clerk, with the long ends of his white comforter dangling below his waist (for he boasted no greatcoat), went down a slide on Cornhill and then ran home to\nScrooge sat busy in his counting-house."},
		// Shared words that do not begin a fragment, or fewer than a few
		// words, keep both.
		{"SharedMiddle", "Marley was dead, to begin with, said the narrator.", "He said it: Marley was dead, to begin with, and so on.",
			"Marley was dead, to begin with, said the narrator.\nHe said it: Marley was dead, to begin with, and so on."},
		{"ShortOverlap", "Bah, humbug, said Scrooge.", "said Scrooge. Then he went home.",
			"Bah, humbug, said Scrooge.\nsaid Scrooge. Then he went home."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dst := Node{Key: "k", Description: tt.dst}
			MergeNode(&dst, Node{Key: "k", Description: tt.src}, 10)
			if dst.Description != tt.want {
				t.Errorf("description\n%q\nwant\n%q", dst.Description, tt.want)
			}
			again := dst
			MergeNode(&again, Node{Key: "k", Description: tt.src}, 10)
			if again.Description != dst.Description {
				t.Errorf("merging the same again changed it: %q", again.Description)
			}
		})
	}
}

// TestMergeGraph_TypeCountsSurviveTheFirstChunk: the first chunk's node is
// copied into an empty graph with its type counts whatever order its
// properties come in, so a later chunk's vote weighs against all of them
// (the merged type was once left to map order: Location 3 against
// Concept 2 came out Concept about one time in five).
func TestMergeGraph_TypeCountsSurviveTheFirstChunk(t *testing.T) {
	for i := 0; i < 50; i++ {
		first := Node{Key: "kootenay", Name: "Kootenay", Type: "Location", Properties: map[string]any{
			"category": "Location", "title": "x", "note": "y", PropTypeCounts: map[string]int{"Location": 3}}}
		second := Node{Key: "kootenay", Name: "Kootenay", Type: "Concept", Properties: map[string]any{
			"category": "Concept", PropTypeCounts: map[string]int{"Concept": 2}},
			Mentions: []Mention{{DocumentID: 1, ChunkIndex: 1, Start: 950, End: 958}}}
		first.Mentions = []Mention{{DocumentID: 1, ChunkIndex: 0, Start: 27, End: 35}}
		var g Graph
		MergeGraph(&g, Graph{Nodes: []Node{first}}, 0)
		MergeGraph(&g, Graph{Nodes: []Node{second}}, 0)
		if got := g.Nodes[0]; got.Type != "Location" || typeCounts(got.Properties)["Location"] != 3 {
			t.Fatalf("run %d: merged type %s, counts %v; want Location with Location 3", i, got.Type, got.Properties[PropTypeCounts])
		}
	}
}
