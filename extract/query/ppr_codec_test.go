package query

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// A walk graph read back from its binary form walks as the one built:
// the same ppr and mix rankings; a form of another corpus, or a damaged
// one, is an error and leaves the corpus to build its own.
func TestWalkBinary(t *testing.T) {
	chunks := carolChunks(t)
	g := extract.Graph{Nodes: []extract.Node{{Key: "scrooge", Name: "Scrooge", Type: "Person", Description: "A miser."},
		{Key: "marley", Name: "Marley", Type: "Person", Description: "Scrooge's dead partner."}},
		Edges: []extract.Edge{{Source: "scrooge", Target: "marley", Label: "partner of", Description: "Scrooge and Marley were partners."}}}
	for i, c := range chunks {
		if c.Index == 0 {
			g.Nodes[0].Mentions = append(g.Nodes[0].Mentions, extract.Mention{DocumentID: i.DocumentID, ChunkIndex: i.Index})
		}
	}
	built := NewCorpus(g, chunks, nil)
	form := built.AppendWalk(nil)
	read := NewCorpus(g, chunks, nil)
	if err := read.ReadWalk(append([]byte(nil), form...)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Who was Marley's partner?", "the clerk's fire in the cell"} {
		for _, mode := range []Mode{ModePPR, ModeMix} {
			req := Request{Question: q, Mode: mode, TopK: 10}
			a, err := built.Search(t.Context(), nil, req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := read.Search(t.Context(), nil, req)
			if err != nil {
				t.Fatal(err)
			}
			if render(a) != render(b) {
				t.Fatalf("%s %q: the stored walk ranks otherwise", mode, q)
			}
		}
	}
	other := NewCorpus(extract.Graph{Nodes: g.Nodes[:1]}, chunks, nil)
	if err := other.ReadWalk(form); err == nil {
		t.Fatal("a walk of another graph was read")
	}
	for _, bad := range [][]byte{form[:len(form)-1], append(append([]byte(nil), form...), 0), []byte("KGWG\x02")} {
		if err := NewCorpus(g, chunks, nil).ReadWalk(bad); err == nil {
			t.Fatalf("a damaged form of %d bytes was read", len(bad))
		}
	}
}
