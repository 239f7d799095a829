package query

import (
	"context"
	"fmt"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// TestSearch_GlobalReadsCommunities: global search takes the passages of
// the communities whose members match the question; a passage that
// shares a word with the question but whose entities belong to another
// community is not among them (naive search, which ranks passages alone,
// finds it).
func TestSearch_GlobalReadsCommunities(t *testing.T) {
	topics := [][]string{
		{"Ada Lovelace", "Charles Babbage", "Analytical Engine", "Difference Engine"},
		{"Ebenezer Scrooge", "Jacob Marley", "Bob Cratchit", "Fred"},
		{"Elizabeth Bennet", "Fitzwilliam Darcy", "Jane Bennet", "Charles Bingley"},
		{"Captain Ahab", "Ishmael", "Queequeg", "Starbuck"},
	}
	descs := []string{"worked on the mechanical engine", "kept the counting-house", "lived at Longbourn", "sailed the Pequod"}
	var g extract.Graph
	chunks := map[extract.ChunkRef]extract.Chunk{}
	for c, names := range topics {
		ref := extract.ChunkRef{DocumentID: 1, Index: c}
		text := fmt.Sprintf("%s and %s %s.", names[0], names[1], descs[c])
		if c == 3 {
			// Shares "engine" with the question, about the whaling story.
			text = "Ahab cursed the engine room of a steamer that passed the Pequod."
		}
		chunks[ref] = extract.Chunk{DocumentID: 1, Index: c, Text: text}
		for i, n := range names {
			key := extract.NodeKey(n)
			g.Nodes = append(g.Nodes, extract.Node{Key: key, Name: n, Type: "Person", Description: n + " " + descs[c] + ".",
				Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: c}}})
			for j := range i {
				g.Edges = append(g.Edges, extract.Edge{Source: extract.NodeKey(names[j]), Target: key, Label: "knows", Weight: 1,
					Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: c}}})
			}
		}
	}
	c := NewCorpus(g, chunks, nil)
	q := "Who worked on the mechanical engine?"
	global, err := c.Search(context.Background(), nil, Request{Question: q, Mode: ModeGlobal, TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(global.Chunks) != 1 || global.Chunks[0].Index != 0 || len(global.Entities) != 4 || global.Entities[0].Name == "" {
		t.Fatalf("global: chunks %+v, entities %+v", global.Chunks, global.Entities)
	}
	naive, err := c.Search(context.Background(), nil, Request{Question: q, Mode: ModeNaive, TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ch := range naive.Chunks {
		found = found || ch.Index == 3
	}
	if !found {
		t.Fatalf("naive should find the passage that shares a word: %+v", naive.Chunks)
	}
}
