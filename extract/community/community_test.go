package community

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// cliques is k cliques of size n, each joined to the next by one edge.
func cliques(k, n int) extract.Graph {
	var g extract.Graph
	key := func(c, i int) string { return fmt.Sprintf("c%d-%d", c, i) }
	for c := range k {
		for i := range n {
			g.Nodes = append(g.Nodes, extract.Node{Key: key(c, i), Name: key(c, i), Type: "T"})
			for j := range i {
				g.Edges = append(g.Edges, extract.Edge{Source: key(c, j), Target: key(c, i), Label: "r", Weight: 1,
					Description: fmt.Sprintf("%s meets %s.", key(c, j), key(c, i)),
					Mentions:    []extract.Mention{{DocumentID: 1, ChunkIndex: c}}})
			}
		}
		if c > 0 {
			g.Edges = append(g.Edges, extract.Edge{Source: key(c-1, 0), Target: key(c, 0), Label: "bridge", Weight: 1})
		}
	}
	return g
}

// TestDetect_Cliques: cliques joined by single edges are found as
// communities, each exactly one clique, with a high modularity; the
// result is the same every time; every community of a finer level has
// a parent on the level above that holds its members.
func TestDetect_Cliques(t *testing.T) {
	g := cliques(8, 6)
	r := Detect(g, Options{})
	if r.Levels < 1 || len(r.Modularity) != r.Levels {
		t.Fatalf("levels %d, modularity %v", r.Levels, r.Modularity)
	}
	finest := r.Level(r.Levels - 1)
	if len(finest) != 8 {
		t.Fatalf("%d communities at the finest level, want the 8 cliques: %+v", len(finest), finest)
	}
	for _, c := range finest {
		clique := c.Members[0][:2]
		for _, m := range c.Members {
			if m[:2] != clique {
				t.Fatalf("community %d mixes cliques: %v", c.ID, c.Members)
			}
		}
		if c.Size != 6 || len(c.TopNodes) != 5 || c.Title == "" {
			t.Fatalf("community %+v", c)
		}
	}
	if q := r.Modularity[r.Levels-1]; q < 0.7 {
		t.Fatalf("modularity %.3f of the cliques, want above 0.7", q)
	}
	byID := map[int]Community{}
	for _, c := range r.Communities {
		byID[c.ID] = c
	}
	for _, c := range r.Communities {
		if c.Level == 0 {
			if c.Parent != -1 {
				t.Fatalf("a top community has parent %d", c.Parent)
			}
			continue
		}
		p, ok := byID[c.Parent]
		if !ok || p.Level != c.Level-1 {
			t.Fatalf("community %d: parent %d", c.ID, c.Parent)
		}
		for _, m := range c.Members {
			if !contains(p.Members, m) {
				t.Fatalf("member %s of %d is not in its parent %d", m, c.ID, p.ID)
			}
		}
	}
	if again := Detect(g, Options{}); !reflect.DeepEqual(again, r) {
		t.Fatal("a second detection differs")
	}
	rep := OfflineReport(finest[0], g, 3)
	if rep.Title != finest[0].Title || len(rep.Findings) != 3 || len(rep.Findings[0].Chunks) != 1 || rep.Summary == "" {
		t.Fatalf("report %+v", rep)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestDetect_Empty: no nodes, or nodes without edges, give no levels.
func TestDetect_Empty(t *testing.T) {
	if r := Detect(extract.Graph{}, Options{}); r.Levels != 0 || len(r.Communities) != 0 {
		t.Fatalf("%+v", r)
	}
	g := extract.Graph{Nodes: []extract.Node{{Key: "a"}, {Key: "b"}}, Edges: []extract.Edge{{Source: "a", Target: "zz"}}}
	if r := Detect(g, Options{}); r.Levels != 0 {
		t.Fatalf("%+v", r)
	}
}

// planted is n nodes in groups of size k with m edges, most inside a
// group: a graph with communities to find.
func planted(n, k, m int, seed uint64) extract.Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	g := extract.Graph{Nodes: make([]extract.Node, n)}
	for i := range g.Nodes {
		g.Nodes[i] = extract.Node{Key: fmt.Sprint(i)}
	}
	for range m {
		a := r.IntN(n)
		b := r.IntN(n)
		if r.Float64() < 0.8 {
			b = a/k*k + r.IntN(k)
		}
		g.Edges = append(g.Edges, extract.Edge{Source: fmt.Sprint(a), Target: fmt.Sprint(b), Weight: 1})
	}
	return g
}

// BenchmarkDetect: 100k nodes and 300k edges in groups of 50 (80% of the
// edges inside a group). It reports the modularity and the communities of
// the top level.
func BenchmarkDetect(b *testing.B) {
	g := planted(100_000, 50, 300_000, 1)
	var r Result
	for b.Loop() {
		r = Detect(g, Options{})
	}
	b.ReportMetric(r.Modularity[0], "modularity")
	b.ReportMetric(float64(len(r.Level(0))), "communities")
}

// TestResult_CompactExpand: a result stored compact (members on the
// finest level only) expands to the same members in every community.
func TestResult_CompactExpand(t *testing.T) {
	r := Detect(planted(3000, 30, 9000, 2), Options{})
	if r.Levels < 2 {
		t.Fatalf("%d levels: want a hierarchy to compact", r.Levels)
	}
	// Stored compact (members on the finest level) and expanded, every
	// community holds the same members.
	small := r.Compact()
	for _, c := range small.Communities {
		if c.Level < r.Levels-1 && c.Members != nil {
			t.Fatalf("community %d of level %d keeps its members", c.ID, c.Level)
		}
	}
	small.Expand()
	for i, c := range small.Communities {
		got, want := slices.Sorted(slices.Values(c.Members)), slices.Sorted(slices.Values(r.Communities[i].Members))
		if !slices.Equal(got, want) {
			t.Fatalf("community %d expanded to %v, want %v", c.ID, got, want)
		}
	}
}
