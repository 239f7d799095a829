package query

import (
	"context"
	"fmt"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// A memory in which the goldfish count changed: the first turn says five
// (in more of the question's words, so it ranks first by text), a later
// one seven. The node's history ties both turns to one fact, so every
// graph mode reads the current value first; naive, passages only, keeps
// the text's order.
func TestSearch_CurrentValueFirst(t *testing.T) {
	texts := []string{
		"User: How many goldfish can my aquarium hold? I keep five goldfish in my aquarium now.",
		"User: What plants suit a cold water tank?",
		"User: I bought a new filter for the tank.",
		"User: I added two, so there are seven goldfish now.",
		"User: My sister moved to Lisbon.",
	}
	chunks := map[extract.ChunkRef]extract.Chunk{}
	for i, tx := range texts {
		chunks[extract.ChunkRef{DocumentID: 1, Index: i}] = extract.Chunk{DocumentID: 1, Index: i, Text: tx, End: len(tx)}
	}
	g := extract.Graph{Nodes: []extract.Node{{
		Key: "/Knowledge/Topic/Thing/Goldfish", Name: "goldfish", Type: "Knowledge/Topic", Description: "User: there are seven goldfish now.",
		Properties: map[string]any{"updated_turn": float64(3), extract.PropHistory: []any{
			map[string]any{"since": float64(0), "until": float64(3), "description": "User: I keep five goldfish."}}},
		Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: 0}, {DocumentID: 1, ChunkIndex: 3}},
	}, {
		Key: "/Knowledge/Entity/ProperName/Lisbon", Name: "Lisbon", Type: "Knowledge/Entity",
		Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: 4}},
	}}}
	c := NewCorpus(g, chunks, nil)
	q := "How many goldfish do I keep in my aquarium?"
	high, low := Keywords(q)
	rank := func(mode Mode) []int {
		res, err := c.Search(context.Background(), nil, Request{Question: q, Mode: mode, High: high, Low: low, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, h := range res.Chunks {
			out = append(out, h.Index)
		}
		return out
	}
	before := func(order []int, a, b int) bool {
		for _, i := range order {
			if i == a {
				return true
			}
			if i == b {
				return false
			}
		}
		return false
	}
	if naive := rank(ModeNaive); !before(naive, 0, 3) {
		t.Fatalf("naive ranks %v; the test needs the old value first by text", naive)
	}
	for _, m := range []Mode{ModeMix, ModeLocal, ModeHybrid} {
		order := rank(m)
		if !before(order, 3, 0) {
			t.Errorf("%s ranks %v: the superseded value comes before the current one", m, order)
		}
		if fmt.Sprint(sorted(order)) != fmt.Sprint(sorted(rank(ModeNaive))) && m == ModeMix {
			t.Errorf("mix reordered %v into a different set than naive %v", order, rank(ModeNaive))
		}
	}
}

func sorted(xs []int) []int {
	out := append([]int(nil), xs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
