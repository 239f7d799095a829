package query

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/nlp"
)

// carolGraph is the nlp strategy's graph of the sample text, one chunk
// per paragraph, with a CJK node and edge added so non-Latin keywords
// take their own path.
func carolGraph(t *testing.T) extract.Graph {
	t.Helper()
	b, err := os.ReadFile("../../app/sample/christmas_carol_stave_one.txt")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := nlp.New(nlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var g extract.Graph
	for i, p := range strings.Split(string(b), "\n\n") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		c := extract.Chunk{DocumentID: 1, Index: i, Text: p, End: len(p)}
		res, err := ex.Extract(context.Background(), extract.Document{ID: 1, Name: "carol", Kind: "text", Content: p}, c)
		if err != nil {
			t.Fatal(err)
		}
		extract.MergeGraph(&g, res.Graph, 8)
	}
	g.Nodes = append(g.Nodes,
		extract.Node{Key: "北京大学", Name: "北京大学", Type: "Organization", Description: "北京大学是一所大学。"},
		extract.Node{Key: "scrooge", Name: "Scrooge (repeated key)"},
		extract.Node{Key: "bo", Name: "Bo"}, extract.Node{Key: "京大", Name: "京大"})
	g.Edges = append(g.Edges, extract.Edge{Source: "北京大学", Target: "scrooge", Label: "访问", Description: "斯克鲁奇访问了北京大学。"})
	return g
}

// The indexed keyword scores equal, bit for bit, the scan that reads every
// node and edge (nodeLexical, edgeLexical): exact names, shared tokens,
// substrings both ways, descriptions, labels, CJK and a repeated key.
func TestLexIndex_EqualsScan(t *testing.T) {
	g := carolGraph(t)
	if len(g.Nodes) < 50 || len(g.Edges) < 10 {
		t.Fatalf("graph too small: %d nodes, %d edges", len(g.Nodes), len(g.Edges))
	}
	lx := newLexIndex(g)
	words := regexp.MustCompile(`[A-Za-z']+`).FindAllString("Scrooge Marley's partner counting-house Fred nephew Christmas humbug clerk Bob Cratchit fire coal ghost chain door knocker Jacob Marley dead as a door-nail tombstone spirit", -1)
	cases := [][2][]string{
		{{"Scrooge"}, nil},
		{{"Jacob Marley", "counting-house"}, {"partnership", "death"}},
		{{"rooge", "arle", "Ebenezer Scrooge and Marley"}, {"ghost"}},
		{{"北京", "北京大学的历史"}, {"访问", "大学"}},
		{{"scrooge (repeated key)"}, nil},
		{nil, {"Christmas", "cold weather", "money"}},
		{{"a", "xyzzy"}, {"zz"}},
	}
	for i := 0; i+3 <= len(words); i += 2 {
		cases = append(cases, [2][]string{words[i : i+2], words[i+1 : i+3]})
	}
	for _, c := range cases {
		low, high := prepare(c[0]), prepare(c[1])
		idx, want := nodeLexical(g, low, high)
		got := lx.nodeScores(low, high)
		nonzero := 0
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("low %q high %q: node %d (%s) scores %v, the scan %v", c[0], c[1], i, g.Nodes[i].Key, got[i], want[i])
			}
			if want[i] != 0 {
				nonzero++
			}
		}
		wantE := edgeLexical(g, idx, want, high)
		gotE := lx.edgeScores(got, high)
		for i := range wantE {
			if gotE[i] != wantE[i] {
				t.Fatalf("low %q high %q: edge %d scores %v, the scan %v", c[0], c[1], i, gotE[i], wantE[i])
			}
		}
		if len(c[0]) > 0 && c[0][0] == "Scrooge" && nonzero == 0 {
			t.Fatal("no node scores on Scrooge: the comparison is empty")
		}
	}
}
