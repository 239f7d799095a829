package query

import (
	"fmt"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// BenchmarkRetrieve ranks a synthetic graph of 20k nodes and 60k edges
// over 2k chunks.
func BenchmarkRetrieve(b *testing.B) {
	const nodes, edges, chunks = 20000, 60000, 2000
	g := extract.Graph{}
	for i := range nodes {
		g.Nodes = append(g.Nodes, extract.Node{Key: fmt.Sprintf("person %d", i), Name: fmt.Sprintf("Person %d", i), Type: "PERSON",
			Description: "someone in the story", Mentions: []extract.Mention{mention(1, i%chunks), mention(1, (i*7)%chunks)}})
	}
	for i := range edges {
		g.Edges = append(g.Edges, extract.Edge{Source: g.Nodes[i%nodes].Key, Target: g.Nodes[(i*13+1)%nodes].Key, Label: "knows",
			Keywords: "acquaintance", Weight: 1, Mentions: []extract.Mention{mention(1, i%chunks)}})
	}
	cs := map[extract.ChunkRef]extract.Chunk{}
	for i := range chunks {
		cs[extract.ChunkRef{DocumentID: 1, Index: i}] = extract.Chunk{DocumentID: 1, Index: i, Text: "text"}
	}
	high, low := Keywords("Whom did Person 42 know, and what was the acquaintance?")
	b.ResetTimer()
	for b.Loop() {
		Retrieve(g, cs, high, low, Options{})
	}
}
