package query

import (
	"flag"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

var update = flag.Bool("update", false, "rewrite golden files")

func mention(doc, idx int) extract.Mention { return extract.Mention{DocumentID: doc, ChunkIndex: idx} }

// sampleGraph is a small hand-built graph over three chunks of one document.
func sampleGraph() (extract.Graph, map[extract.ChunkRef]extract.Chunk) {
	nodes := []extract.Node{
		{Key: "scrooge", Name: "Scrooge", Type: "PERSON", Description: "A miser who kept the counting-house.",
			Mentions: []extract.Mention{mention(1, 0), mention(1, 1), mention(1, 2)}},
		{Key: "marley", Name: "Marley", Type: "PERSON", Description: "Scrooge's late partner.",
			Mentions: []extract.Mention{mention(1, 0), mention(1, 1)}},
		{Key: "jacob marley's ghost", Name: "Jacob Marley's Ghost", Type: "PERSON",
			Mentions: []extract.Mention{mention(1, 2)}},
		{Key: "bob cratchit", Name: "Bob Cratchit", Type: "PERSON", Description: "Scrooge's clerk.",
			Mentions: []extract.Mention{mention(1, 2)}},
		{Key: "london", Name: "London", Type: "LOCATION", Mentions: []extract.Mention{mention(1, 1)}},
	}
	edges := []extract.Edge{
		{Source: "scrooge", Target: "marley", Label: "partner of", Keywords: "partnership, business",
			Description: "Scrooge and Marley were partners for many years.", Weight: 1, Mentions: []extract.Mention{mention(1, 1)}},
		{Source: "bob cratchit", Target: "scrooge", Label: "works for", Keywords: "employment",
			Description: "Bob Cratchit is Scrooge's clerk.", Weight: 1, Mentions: []extract.Mention{mention(1, 2)}},
		{Source: "scrooge", Target: "london", Label: "lives in", Weight: 1, Mentions: []extract.Mention{mention(1, 1)}},
	}
	texts := []string{
		"Marley was dead, to begin with. Scrooge signed the register.",
		"Scrooge and Marley were partners in London for I don't know how many years.",
		"Bob Cratchit copied letters while Scrooge watched; later Jacob Marley's Ghost came.",
	}
	chunks := map[extract.ChunkRef]extract.Chunk{}
	for i, t := range texts {
		chunks[extract.ChunkRef{DocumentID: 1, Index: i}] = extract.Chunk{DocumentID: 1, Index: i, Text: t}
	}
	return extract.Graph{Nodes: nodes, Edges: edges}, chunks
}

func names(es []Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Ref+" "+e.Name)
	}
	return out
}

func TestRetrieve(t *testing.T) {
	g, chunks := sampleGraph()
	tests := []struct {
		name      string
		high, low []string
		opts      Options
		entities  []string
		relations []string // "ref label"
		chunks    []string // "ref doc/index"
	}{
		{
			// Scrooge inherits half the partner edge's score, above the
			// weak token overlap of Jacob Marley's Ghost.
			name: "exact name beats token overlap, relation theme picks the partner edge",
			high: []string{"partner"}, low: []string{"Marley"},
			entities:  []string{"E1 Marley", "E2 Scrooge", "E3 Jacob Marley's Ghost"},
			relations: []string{"R1 partner of"},
			chunks:    []string{"C1 1/1", "C2 1/0", "C3 1/2"},
		},
		{
			name: "limits cut every list",
			high: []string{"partner"}, low: []string{"Marley"}, opts: Options{TopNodes: 1, TopEdges: 1, TopChunks: 1},
			entities:  []string{"E1 Marley"},
			relations: []string{"R1 partner of"},
			chunks:    []string{"C1 1/1"},
		},
		{
			name: "substring of a name and a description match",
			low:  []string{"cratchit", "clerk"},
			// Bob Cratchit: token overlap 6/2 + description "clerk";
			// Scrooge: only via the works-for edge.
			entities:  []string{"E1 Bob Cratchit", "E2 Scrooge"},
			relations: []string{"R1 works for"},
			chunks:    []string{"C1 1/2", "C2 1/0", "C3 1/1"},
		},
		{
			name: "no match retrieves nothing",
			low:  []string{"Fezziwig"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Retrieve(g, chunks, tt.high, tt.low, tt.opts)
			if got := names(c.Entities); !slices.Equal(got, tt.entities) {
				t.Errorf("entities %q, want %q", got, tt.entities)
			}
			var rels, chs []string
			for _, r := range c.Relations {
				rels = append(rels, r.Ref+" "+r.Label)
			}
			for _, ch := range c.Chunks {
				chs = append(chs, ch.Ref+" "+itoa(ch.DocumentID)+"/"+itoa(ch.Index))
			}
			if !slices.Equal(rels, tt.relations) {
				t.Errorf("relations %q, want %q", rels, tt.relations)
			}
			if !slices.Equal(chs, tt.chunks) {
				t.Errorf("chunks %q, want %q", chs, tt.chunks)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestRetrieve_Deterministic(t *testing.T) {
	g, chunks := sampleGraph()
	first := Retrieve(g, chunks, []string{"partner"}, []string{"Scrooge"}, Options{}).Render()
	for range 20 {
		if got := Retrieve(g, chunks, []string{"partner"}, []string{"Scrooge"}, Options{}).Render(); got != first {
			t.Fatalf("results differ between runs:\n%s\n---\n%s", first, got)
		}
	}
}

func TestRender_Golden(t *testing.T) {
	g, chunks := sampleGraph()
	c := Retrieve(g, chunks, []string{"partner"}, []string{"Marley"}, Options{})
	got := c.Render()
	path := "testdata/render.golden"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("Render differs from %s (go test -update to rewrite):\n%s", path, got)
	}
}

func TestCited(t *testing.T) {
	g, chunks := sampleGraph()
	c := Retrieve(g, chunks, []string{"partner"}, []string{"Marley"}, Options{})
	got := c.Cited("Scrooge was Marley's partner [C1][R1]. See also [C1], [E9] and [X1].")
	if !slices.Equal(got, []string{"C1", "R1"}) {
		t.Fatalf("Cited = %q", got)
	}
}
