package query

import (
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func codecGraph() extract.Graph {
	return extract.Graph{
		Nodes: []extract.Node{
			{Key: "scrooge", Name: "Scrooge", Type: "Person", Description: "A miser. 吝嗇",
				Properties: map[string]any{"valid_at": "2024-01-02T00:00:00Z", "history": []any{map[string]any{"since": 3.0}}},
				Mentions:   []extract.Mention{{DocumentID: 1, ChunkIndex: 0, Start: 0, End: 7, Text: "Scrooge"}, {DocumentID: 2, ChunkIndex: 5, Start: -1, End: -1}}},
			{Key: "marley", Name: "Marley", Type: "Person"},
			{Key: "", Name: "", Type: ""},
		},
		Edges: []extract.Edge{
			{Source: "scrooge", Target: "marley", Label: "partner of", Keywords: "business", Description: "Partners.", Weight: 2.5,
				Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: 0, Start: 10, End: 20}}},
			{Source: "marley", Target: "scrooge", Label: "partner of", Weight: 1, Properties: map[string]any{"directed": false}},
			{Source: "ghost", Target: "marley", Label: "haunts", Weight: 0.5},
		},
	}
}

// A graph read back from its binary form is the graph written: texts,
// properties, mentions (negative numbers too), edges to keys that are no
// node, and the order of both lists; a damaged form is an error.
func TestGraphCodec(t *testing.T) {
	for _, g := range []extract.Graph{codecGraph(), {}} {
		b, err := AppendGraph([]byte("x"), g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadGraph(b[1:])
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Nodes) == 0 {
			if len(got.Nodes) != 0 || len(got.Edges) != 0 {
				t.Fatalf("empty graph read back as %+v", got)
			}
			continue
		}
		if !reflect.DeepEqual(got, g) {
			t.Fatalf("read back:\n%+v\nwant\n%+v", got, g)
		}
		for cut := 1; cut < len(b)-1; cut += 7 {
			if _, err := ReadGraph(b[1:cut]); err == nil {
				t.Fatalf("a form cut at %d was read", cut)
			}
		}
		if _, err := ReadGraph(append(b[1:len(b):len(b)], 0)); err == nil {
			t.Fatal("a form with a byte after it was read")
		}
	}
}

func FuzzReadGraph(f *testing.F) {
	b, _ := AppendGraph(nil, codecGraph())
	f.Add(b)
	f.Add([]byte("KGGR\x01\x01\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ReadGraph(b)
		if err != nil {
			return
		}
		// What reads writes back to the same form.
		again, err := AppendGraph(nil, g)
		if err != nil {
			t.Fatal(err)
		}
		if g2, err := ReadGraph(again); err != nil || len(g2.Nodes) != len(g.Nodes) || len(g2.Edges) != len(g.Edges) {
			t.Fatalf("read back %v", err)
		}
	})
}
