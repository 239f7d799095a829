package curate

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func person(name string) extract.Node {
	return extract.Node{Key: extract.NodeKey(name), Name: name, Type: "PERSON"}
}

func carol() extract.Graph {
	return extract.Graph{
		Nodes: []extract.Node{
			person("Ebenezer Scrooge"), person("Mr. Scrooge"), person("Jacob Marley"), person("Marley"),
			person("E. Scrooge"), person("Fred"), person("Bob Cratchit"),
			{Key: "christmas eve", Name: "Christmas Eve", Type: "EVENT"}, {Key: "christmas eves", Name: "Christmas Eves", Type: "EVENT"},
			{Key: "seven", Name: "seven", Type: "DATA"}, {Key: "seven years", Name: "seven years", Type: "DATA"},
			{Key: "scrooge and marley", Name: "Scrooge and Marley", Type: "ORG"},
			{Key: "london", Name: "London", Type: "PLACE", Properties: map[string]any{"aliases": []any{"The City"}}},
			{Key: "the city", Name: "the City", Type: "PLACE"},
		},
		Edges: []extract.Edge{
			{Source: "ebenezer scrooge", Label: "partner of", Target: "jacob marley", Weight: 1},
			{Source: "mr. scrooge", Label: "partner of", Target: "jacob marley", Weight: 2},
			{Source: "mr. scrooge", Label: "uncle of", Target: "fred", Weight: 1},
			{Source: "mr. scrooge", Label: "knows", Target: "ebenezer scrooge", Weight: 1},
		},
	}
}

func find(cs []Candidate, a, b string) (Candidate, bool) {
	for _, c := range cs {
		if (c.Keep.Key == a && c.Drop.Key == b) || (c.Keep.Key == b && c.Drop.Key == a) {
			return c, true
		}
	}
	return Candidate{}, false
}

func TestCandidates(t *testing.T) {
	t.Parallel()
	cs := Candidates(carol(), Options{})
	for _, want := range []struct {
		keep, drop string
		reason     ReasonKind
	}{
		{"ebenezer scrooge", "mr. scrooge", ReasonTitle},
		{"ebenezer scrooge", "e. scrooge", ReasonInitials},
		{"jacob marley", "marley", ReasonContained},
		{"london", "the city", ReasonAlias},
		{"christmas eve", "christmas eves", ReasonPlural},
	} {
		c, ok := find(cs, want.keep, want.drop)
		if !ok {
			t.Errorf("no candidate %s / %s in %+v", want.keep, want.drop, cs)
			continue
		}
		if c.Keep.Key != want.keep {
			t.Errorf("pair %s/%s suggests keeping %s", want.keep, want.drop, c.Keep.Key)
		}
		if c.Reasons[0].Kind != want.reason {
			t.Errorf("pair %s/%s: reasons %+v, want %s first", want.keep, want.drop, c.Reasons, want.reason)
		}
	}
	if c, ok := find(cs, "ebenezer scrooge", "mr. scrooge"); ok && len(c.Reasons) < 2 {
		t.Errorf("Scrooge pair shares Jacob Marley but has reasons %+v", c.Reasons)
	}
	// Different types, no alias: never a pair.
	if c, ok := find(cs, "scrooge and marley", "marley"); ok {
		t.Errorf("firm and person paired: %+v", c)
	}
	if _, ok := find(cs, "seven", "seven years"); ok {
		t.Error("a lower-case word paired as a short name")
	}
	if _, ok := find(cs, "fred", "bob cratchit"); ok {
		t.Error("unrelated names paired")
	}
	for i := 1; i < len(cs); i++ {
		if cs[i].Score > cs[i-1].Score {
			t.Fatalf("not ranked: %+v", cs)
		}
	}
	// Skip leaves out pairs judged not the same.
	cs = Candidates(carol(), Options{Skip: func(a, b string) bool { return a+b == "jacob marleymarley" || b+a == "jacob marleymarley" }})
	if _, ok := find(cs, "jacob marley", "marley"); ok {
		t.Error("skipped pair listed")
	}
}

func TestCandidates_Vectors(t *testing.T) {
	t.Parallel()
	g := extract.Graph{Nodes: []extract.Node{person("Spirit"), person("Ghost of Christmas Past"), person("Fred")}}
	vecs := map[string][]float32{"spirit": {1, 0.1}, "ghost of christmas past": {1, 0.12}, "fred": {0, 1}}
	cs := Candidates(g, Options{Vectors: vecs})
	if len(cs) != 1 || cs[0].Reasons[0].Kind != ReasonVector {
		t.Fatalf("candidates %+v, want the spirit pair by vector", cs)
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	g := carol()
	g.Nodes[0].Description = "A squeezing, grasping old sinner."
	g.Nodes[1].Description = "He signed the register."
	g.Nodes[1].Mentions = []extract.Mention{{DocumentID: 1, ChunkIndex: 0, Start: 3, End: 14}}
	before := len(g.Nodes)
	out, err := Merge(g, "ebenezer scrooge", []string{"mr. scrooge", "e. scrooge"}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Nodes) != before-2 {
		t.Fatalf("%d nodes, want %d", len(out.Nodes), before-2)
	}
	k, err := Resolve(out, "Ebenezer Scrooge")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(Aliases(k), []string{"Mr. Scrooge", "E. Scrooge"}) {
		t.Errorf("aliases %v", Aliases(k))
	}
	if k.Type != "PERSON" || k.Name != "Ebenezer Scrooge" || len(k.Mentions) != 1 ||
		k.Description != "A squeezing, grasping old sinner.\nHe signed the register." {
		t.Errorf("kept node %+v", k)
	}
	want := []extract.Edge{
		{Source: "ebenezer scrooge", Label: "partner of", Target: "jacob marley", Weight: 3},
		{Source: "ebenezer scrooge", Label: "uncle of", Target: "fred", Weight: 1},
	}
	if !reflect.DeepEqual(out.Edges, want) {
		t.Errorf("edges %+v, want %+v", out.Edges, want)
	}
	if len(g.Nodes) != before || g.Edges[1].Source != "mr. scrooge" || g.Nodes[0].Properties != nil {
		t.Error("Merge changed its input")
	}
	for _, bad := range [][]string{{}, {"nobody"}, {"ebenezer scrooge"}} {
		if _, err := Merge(g, "ebenezer scrooge", bad, MergeOptions{}); extract.KindOf(err) != extract.KindInvalid {
			t.Errorf("merge of %v: %v, want invalid", bad, err)
		}
	}
	if _, err := Resolve(g, "Nobody"); err == nil {
		t.Error("unknown name resolved")
	}
}

// In an undirected graph a moved edge turns to Source <= Target and folds
// with the edge already there.
func TestMerge_Undirected(t *testing.T) {
	t.Parallel()
	g := extract.Graph{
		Nodes: []extract.Node{person("Ebenezer Scrooge"), person("Mr. Scrooge"), person("Jacob Marley")},
		Edges: []extract.Edge{
			{Source: "ebenezer scrooge", Label: "related", Target: "jacob marley", Weight: 1},
			{Source: "jacob marley", Label: "related", Target: "mr. scrooge", Weight: 1},
		},
	}
	out, err := Merge(g, "ebenezer scrooge", []string{"mr. scrooge"}, MergeOptions{Undirected: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Edges) != 1 || out.Edges[0].Source != "ebenezer scrooge" || out.Edges[0].Weight != 2 {
		t.Errorf("edges %+v, want one folded edge of weight 2", out.Edges)
	}
}

// The nodes of a dialogue memory tree are paths, never duplicates of their
// parents.
func TestCandidates_MemoryPaths(t *testing.T) {
	g := extract.Graph{Nodes: []extract.Node{
		{Key: "/User", Name: "User"}, {Key: "/User/Profile", Name: "User/Profile"},
		{Key: "Emily:/Events", Name: "Events"}, {Key: "Emily:/Events/Session", Name: "Events/Session"},
		person("Ebenezer Scrooge"), person("Mr. Scrooge"),
	}}
	cs := Candidates(g, Options{})
	if len(cs) != 1 {
		t.Fatalf("candidates %+v, want only the Scrooge pair", cs)
	}
}

// The names the schema strategy's standardisation replaced by an official
// name are kept as aliases ([]string, as the builder writes them; merged
// across chunks, each chunk's names kept); a node still called by one of
// them is a candidate of the official node, with that reason first.
func TestCandidates_StandardisationAliases(t *testing.T) {
	t.Parallel()
	official := extract.Node{Key: "ebenezer scrooge", Name: "Ebenezer Scrooge", Type: "Person", Properties: map[string]any{PropAliases: []string{"Scrooge"}}}
	extract.MergeNode(&official, extract.Node{Key: "ebenezer scrooge", Name: "Ebenezer Scrooge", Type: "Person",
		Properties: map[string]any{PropAliases: []any{"the old miser"}}}, 8)
	if got := Aliases(official); !reflect.DeepEqual(got, []string{"Scrooge", "the old miser"}) {
		t.Fatalf("aliases after merging two chunks' nodes: %v", got)
	}
	g := extract.Graph{Nodes: []extract.Node{
		official,
		{Key: "the old miser", Name: "The old miser", Type: "Person"},
		{Key: "marley", Name: "Marley", Type: "Person"},
	}}
	cs := Candidates(g, Options{})
	if len(cs) != 1 || cs[0].Keep.Key != "ebenezer scrooge" || cs[0].Drop.Key != "the old miser" || cs[0].Reasons[0].Kind != ReasonAlias ||
		cs[0].Reasons[0].Detail != `"The old miser" is an alias of "Ebenezer Scrooge"` {
		t.Errorf("candidates %+v", cs)
	}
}

// Candidates on a graph whose every candidate pair was labelled by hand
// (testdata/carol_book_labels.json): the precision of the whole list and
// of its head. A pair the labels do not know fails the test, so a change
// to how pairs are found is labelled before it is measured.
func TestCandidates_LabelledPrecision(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "carol_book.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g extract.Graph
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	raw, err = os.ReadFile(filepath.Join("testdata", "carol_book_labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	var labels struct{ Same, Different [][2]string }
	if err := json.Unmarshal(raw, &labels); err != nil {
		t.Fatal(err)
	}
	same := map[[2]string]bool{}
	pair := func(a, b string) [2]string {
		if a > b {
			a, b = b, a
		}
		return [2]string{a, b}
	}
	for _, p := range labels.Same {
		same[pair(p[0], p[1])] = true
	}
	known := maps.Clone(same)
	for _, p := range labels.Different {
		known[pair(p[0], p[1])] = false
	}
	cs := Candidates(g, Options{})
	hits := 0
	at := map[int]float64{}
	for i, c := range cs {
		p := pair(c.Keep.Key, c.Drop.Key)
		if _, ok := known[p]; !ok {
			t.Errorf("pair %q, %q is not labelled", p[0], p[1])
		}
		if same[p] {
			hits++
		}
		at[i+1] = float64(hits) / float64(i+1)
	}
	t.Logf("%d pairs; precision %.2f overall, %.2f at 5, %.2f at 10", len(cs), at[len(cs)], at[5], at[10])
	if len(cs) != len(known) || at[5] < 0.8 || at[10] < 0.4 || at[len(cs)] < 0.3 {
		t.Errorf("%d pairs (labelled %d); precision at 5 %.2f (want 0.8 or more), at 10 %.2f (want 0.4 or more), overall %.2f (want 0.3 or more)",
			len(cs), len(known), at[5], at[10], at[len(cs)])
	}
}

// Two nodes of exactly the same name (but for case) are a pair whatever
// their types, said plainly, and the typed one is proposed to stay.
func TestCandidates_SameName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b      extract.Node
		keep, why string
	}{
		{extract.Node{Key: "nate", Name: "Nate"}, extract.Node{Key: "nate|person", Name: "Nate", Type: "Person"}, "nate|person", `both are named "Nate"`},
		{extract.Node{Key: "NATE", Name: "NATE", Type: "Person"}, extract.Node{Key: "nate", Name: "nate"}, "NATE", `both are named "NATE"`},
		{extract.Node{Key: "nate", Name: "Nate", Type: "Concept"}, extract.Node{Key: "nate|person", Name: "nate", Type: "Person"}, "nate", `both are named "Nate"`},
	} {
		cs := Candidates(extract.Graph{Nodes: []extract.Node{tt.a, tt.b}}, Options{})
		if len(cs) != 1 {
			t.Errorf("%s / %s: %d candidates", tt.a.Key, tt.b.Key, len(cs))
			continue
		}
		if cs[0].Keep.Key != tt.keep || cs[0].Reasons[0].Detail != tt.why {
			t.Errorf("%s / %s: keep %s (%+v), want %s (%s)", tt.a.Key, tt.b.Key, cs[0].Keep.Key, cs[0].Reasons, tt.keep, tt.why)
		}
	}
}

// Members of a numbered series are never offered as duplicates, however
// close their vectors and neighbours; a name and its plural still are.
func TestCandidates_NumberedSeries(t *testing.T) {
	vec := []float32{1, 0, 0}
	node := func(name string) extract.Node {
		return extract.Node{Key: extract.NodeKey(name), Name: name, Type: "Event"}
	}
	g := extract.Graph{Nodes: []extract.Node{node("Apollo 10"), node("Apollo 1"), node("World War I"), node("World War II"),
		node("Henry VIII"), node("Henry VII"), node("Civil War"), node("Civil Wars"), node("NASA")}}
	for _, n := range g.Nodes[:8] {
		g.Edges = append(g.Edges, extract.Edge{Source: n.Key, Target: "nasa", Label: "related_to"})
	}
	vectors := map[string][]float32{}
	for _, n := range g.Nodes {
		vectors[n.Key] = vec
	}
	got := map[[2]string]bool{}
	for _, c := range Candidates(g, Options{Vectors: vectors, MinVector: 0.5}) {
		got[[2]string{c.Keep.Name, c.Drop.Name}] = true
		got[[2]string{c.Drop.Name, c.Keep.Name}] = true
	}
	for _, pair := range [][2]string{{"Apollo 10", "Apollo 1"}, {"World War I", "World War II"}, {"Henry VIII", "Henry VII"}} {
		if got[pair] {
			t.Errorf("%q and %q offered as duplicates", pair[0], pair[1])
		}
	}
	if !got[[2]string{"Civil War", "Civil Wars"}] {
		t.Errorf("the plural pair was not offered: %v", got)
	}
}
