package query

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// TestSearch_TurnBesideTheQuestion: in a conversation the turn that
// answers often shares no word with the question; it follows the turn
// that does. The answer chunk gets a share of its neighbour's score, so it
// ranks right after it and above a chunk that shares one word; a chunk of
// another document, next in the corpus order, gets nothing.
func TestSearch_TurnBesideTheQuestion(t *testing.T) {
	texts := map[extract.ChunkRef]string{
		{DocumentID: 1, Index: 0}: "Ann: Mine is salsa, I took classes in Havana.\nBen: Lovely!",
		{DocumentID: 1, Index: 1}: "Ann: Which dance style is your favourite?\nBen: Tell me yours first.",
		{DocumentID: 2, Index: 0}: "Carl: The bakery opens at six.\nDora: I will bring bread.",
		{DocumentID: 2, Index: 1}: "Carl: The weather turned cold.\nDora: Stay warm.",
		{DocumentID: 3, Index: 0}: "Eve: The old dance hall closed last winter.\nFred: What a pity.",
	}
	chunks := map[extract.ChunkRef]extract.Chunk{}
	for r, text := range texts {
		chunks[r] = extract.Chunk{DocumentID: r.DocumentID, Index: r.Index, Text: text, End: len(text)}
	}
	c := NewCorpus(extract.Graph{}, chunks, nil)
	q := "What is her favourite dance style?"
	for _, mode := range []Mode{ModeNaive, ModeMix} {
		res, err := c.Search(context.Background(), nil, Request{Question: q, Mode: mode, TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []extract.ChunkRef
		for _, h := range res.Chunks {
			got = append(got, extract.ChunkRef{DocumentID: h.DocumentID, Index: h.Index})
		}
		want := []extract.ChunkRef{{DocumentID: 1, Index: 1}, {DocumentID: 1, Index: 0}, {DocumentID: 3, Index: 0}}
		if len(got) != len(want) {
			t.Fatalf("%s: chunks %v, want %v", mode, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: chunks %v, want %v", mode, got, want)
			}
		}
	}
}
