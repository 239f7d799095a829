package query

import (
	"context"
	"flag"
	"os"
	"slices"
	"strings"
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

// searchSample asks the sample graph for the keywords, in hybrid mode,
// without vectors.
func searchSample(t testing.TB, high, low []string) Context {
	t.Helper()
	g, chunks := sampleGraph()
	q := strings.Join(append(slices.Clone(high), low...), " ")
	c, err := NewCorpus(g, chunks, nil).Search(context.Background(), nil, Request{Question: q, Mode: ModeHybrid, High: high, Low: low, TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSearch_Deterministic(t *testing.T) {
	first := searchSample(t, []string{"partner"}, []string{"Scrooge"}).Render()
	if !strings.Contains(first, "Scrooge") {
		t.Fatalf("the context names no Scrooge:\n%s", first)
	}
	for range 20 {
		if got := searchSample(t, []string{"partner"}, []string{"Scrooge"}).Render(); got != first {
			t.Fatalf("results differ between runs:\n%s\n---\n%s", first, got)
		}
	}
}

func TestRender_Golden(t *testing.T) {
	got := searchSample(t, []string{"partner"}, []string{"Marley"}).Render()
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
	c := searchSample(t, []string{"partner"}, []string{"Marley"})
	got := c.Cited("Scrooge was Marley's partner [C1][R1]. See also [C1], [E9] and [X1].")
	if !slices.Equal(got, []string{"C1", "R1"}) {
		t.Fatalf("Cited = %q", got)
	}
}
