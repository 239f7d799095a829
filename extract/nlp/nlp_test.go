package nlp

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// mustNew builds an Extractor or fails.
func mustNew(tb testing.TB, opts Options) *Extractor {
	tb.Helper()
	e, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// extractDoc runs the extractor over every chunk of a document and merges
// the chunk graphs.
func extractDoc(tb testing.TB, e *Extractor, doc extract.Document) extract.Graph {
	tb.Helper()
	cfg := extract.DefaultConfig()
	var g extract.Graph
	for _, c := range extract.Split(doc, cfg.ChunkSize, cfg.Overlap, false) {
		res, err := e.Extract(context.Background(), doc, c)
		if err != nil {
			tb.Fatal(err)
		}
		extract.MergeGraph(&g, res.Graph, cfg.MaxFragments)
	}
	return g
}

func nodeByKey(g extract.Graph, key string) *extract.Node {
	for i := range g.Nodes {
		if g.Nodes[i].Key == key {
			return &g.Nodes[i]
		}
	}
	return nil
}

func TestExtractor_Extract(t *testing.T) {
	e := mustNew(t, Options{})
	tests := []struct {
		name      string
		text      string
		wantNodes map[string]string // key -> type
		wantEdge  [3]string         // source, label, target ("" to skip)
	}{
		{
			name:      "PersonPlaceDate",
			text:      "Abraham Lincoln was born on February 12, 1809, in Hodgenville, Kentucky. Lincoln later moved to Illinois.",
			wantNodes: map[string]string{"abraham lincoln": "Person", "february 12, 1809": "Data", "illinois": ""},
			wantEdge:  [3]string{"abraham lincoln", "residence", "illinois"},
		},
		{
			name:      "OrganisationByCueWord",
			text:      "She studied at the University of Chicago before joining the Bank of England in 1998.",
			wantNodes: map[string]string{"university of chicago": "Organization", "bank of england": "Organization", "1998": "Data"},
		},
		{
			name:      "TitleMakesPerson",
			text:      "Mr. Fezziwig laughed. Then Mr. Fezziwig danced with his wife.",
			wantNodes: map[string]string{"fezziwig": "Person"},
		},
		{
			name:      "Numbers",
			text:      "The city of Springfield has 167,000 inhabitants and grew by 3.5 percent.",
			wantNodes: map[string]string{"springfield": "", "167,000": "Data", "3.5 percent": "Data"},
		},
		{
			name:      "Chinese",
			text:      "2019年，《红楼梦》的研究在北京大学举行。参会人数为300人。",
			wantNodes: map[string]string{"红楼梦": "", "2019年": "Data", "300人": "Data"},
		},
		{
			name:      "CurlyQuotesAndBOMFree",
			text:      "\u201cGood morning,\u201d said Scrooge to Marley\u2019s ghost. Scrooge went home.",
			wantNodes: map[string]string{"scrooge": "Person"},
		},
		{
			name: "NoEntities",
			text: "it was cold and dark and nobody came.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := extract.ReadDocument("t.txt", []byte(tt.text), 0)
			if err != nil {
				t.Fatal(err)
			}
			doc.ID = 3
			g := extractDoc(t, e, doc)
			for key, typ := range tt.wantNodes {
				n := nodeByKey(g, key)
				if n == nil {
					t.Errorf("node %q missing; nodes: %v", key, keys(g))
					continue
				}
				if typ != "" && n.Type != typ {
					t.Errorf("node %q type = %q, want %q", key, n.Type, typ)
				}
				if n.Description == "" || len(n.Mentions) == 0 {
					t.Errorf("node %q lacks description or mentions", key)
				}
			}
			if tt.wantNodes == nil && len(g.Nodes) != 0 {
				t.Errorf("want no nodes, got %v", keys(g))
			}
			if tt.wantEdge[0] != "" && !hasEdge(g, tt.wantEdge) {
				t.Errorf("edge %v missing; edges: %v", tt.wantEdge, edgeList(g))
			}
			checkMentions(t, doc, g)
		})
	}
}

// checkMentions asserts that every mention points at its text in the
// document.
func checkMentions(t *testing.T, doc extract.Document, g extract.Graph) {
	t.Helper()
	for _, n := range g.Nodes {
		for _, m := range n.Mentions {
			if m.DocumentID != doc.ID || m.Start < 0 || m.End > len(doc.Content) || m.Start >= m.End {
				t.Fatalf("node %q: bad mention %+v", n.Key, m)
			}
			if doc.Content[m.Start:m.End] != m.Text {
				t.Fatalf("node %q: mention text %q != document text %q", n.Key, m.Text, doc.Content[m.Start:m.End])
			}
		}
	}
	for _, ed := range g.Edges {
		if nodeByKey(g, ed.Source) == nil || nodeByKey(g, ed.Target) == nil {
			t.Fatalf("edge %v points at a missing node", edgeList(extract.Graph{Edges: []extract.Edge{ed}}))
		}
		if ed.Weight <= 0 {
			t.Fatalf("edge weight %v", ed.Weight)
		}
	}
}

func keys(g extract.Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, n.Key+"/"+n.Type)
	}
	return out
}

func edgeList(g extract.Graph) []string {
	var out []string
	for _, e := range g.Edges {
		out = append(out, e.Source+" -"+e.Label+"-> "+e.Target)
	}
	return out
}

func hasEdge(g extract.Graph, want [3]string) bool {
	for _, e := range g.Edges {
		if e.Source == want[0] && e.Label == want[1] && e.Target == want[2] {
			return true
		}
	}
	return false
}

func TestExtractor_SchemaTypes(t *testing.T) {
	tests := []struct {
		name  string
		types []string
		cat   category
		want  string
	}{
		{"DefaultDateIsData", nil, catDate, "Data"},
		{"SchemaDate", []string{"Person", "Date", "Data"}, catDate, "Date"},
		{"SchemaWithoutDateUsesData", []string{"Person", "Data"}, catDate, "Data"},
		{"SchemaPlace", []string{"Place", "Person"}, catLocation, "Place"},
		{"CaseInsensitive", []string{"person"}, catPerson, "person"},
		{"DefaultNumberIsData", nil, catNumber, "Data"},
		{"NoDataType", []string{"Person"}, catNumber, "Number"},
		{"DefaultMisc", nil, catMisc, "Concept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTypeMapper(tt.types, nil)
			if got := m.name(tt.cat); got != tt.want {
				t.Errorf("type = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("Override", func(t *testing.T) {
		m := newTypeMapper(nil, map[string]string{"GPE": "Country"})
		if got := m.name(catLocation); got != "Country" {
			t.Errorf("type = %q, want Country", got)
		}
	})
}

func TestExtractor_Aliases(t *testing.T) {
	e := mustNew(t, Options{})
	text := "Abraham Lincoln led the nation. Many years later, Lincoln was remembered.\n\n" +
		strings.Repeat("Filler text without names goes here. ", 60) +
		"\n\nIn the end Lincoln rested."
	doc, err := extract.ReadDocument("a.txt", []byte(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	g := extractDoc(t, e, doc)
	if n := nodeByKey(g, "lincoln"); n != nil {
		t.Errorf("short form kept as its own node: %+v", n.Name)
	}
	n := nodeByKey(g, "abraham lincoln")
	if n == nil || len(n.Mentions) != 3 {
		t.Fatalf("want abraham lincoln with 3 mentions, got %+v", n)
	}
}

// TestExtractor_BadInput feeds odd text: nothing may panic.
func TestExtractor_BadInput(t *testing.T) {
	e := mustNew(t, Options{})
	inputs := map[string]string{
		"Empty":      "",
		"Spaces":     "   \n\n ",
		"Punct":      "...!!!???",
		"Emoji":      "🙂🙂 Hello 🙂 World.",
		"Japanese":   "東京は日本の首都です。「吾輩は猫である」を読んだ。",
		"Korean":     "서울은 한국의 수도입니다.",
		"Mixed":      "北京 Beijing is the capital 首都 of China.",
		"Controls":   "A\x01B\x02 C.",
		"LongWord":   strings.Repeat("A", 5000),
		"CurlyOnly":  "\u201c\u201d\u2018\u2019",
		"Apostrophe": "Don't won't can't O'Neill's.",
	}
	for name, text := range inputs {
		t.Run(name, func(t *testing.T) {
			doc := extract.Document{ID: 1, Content: text}
			c := extract.Chunk{DocumentID: 1, Text: text, End: len(text)}
			res, err := e.Extract(context.Background(), doc, c)
			if err != nil {
				t.Fatal(err)
			}
			checkMentions(t, doc, res.Graph)
		})
	}
}

func TestExtractor_Canceled(t *testing.T) {
	e := mustNew(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Extract(ctx, extract.Document{Content: "Alice."}, extract.Chunk{Text: "Alice.", End: 6})
	if err == nil {
		t.Fatal("want an error for a canceled context")
	}
}

// TestExtractor_Golden extracts the opening of A Christmas Carol and
// compares the node list with testdata/carol_nodes.golden (refresh with
// -update).
func TestExtractor_Golden(t *testing.T) {
	data, err := os.ReadFile(testkit.Path(t, "corpora/a_christmas_carol_gutenberg24022.txt"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := extract.ReadDocument("carol.txt", data[:20000], 0)
	if err != nil {
		t.Fatal(err)
	}
	g := extractDoc(t, mustNew(t, Options{}), doc)
	checkMentions(t, doc, g)
	var lines []string
	for _, n := range g.Nodes {
		lines = append(lines, n.Key+"\t"+n.Type+"\t"+itoa(len(n.Mentions)))
	}
	for _, e := range g.Edges {
		if e.Label != "related_to" {
			lines = append(lines, "edge\t"+e.Source+"\t"+e.Label+"\t"+e.Target)
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "carol_nodes.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		_ = os.WriteFile(golden+".actual", []byte(got), 0o644)
		t.Errorf("graph differs from %s; actual written to %s.actual", golden, golden)
	}
}

// TestExtractor_FoldsSurnameInChunk: a surname alone stands for the one
// full name in its chunk ending with it, even when no word list knows the
// given name; a firm named after two people and a surname two people share
// are not folded.
func TestExtractor_FoldsSurnameInChunk(t *testing.T) {
	e := mustNew(t, Options{})
	for _, c := range []struct {
		text, short, full string
		folded            bool
	}{
		{"Ada Lovelace met Charles Babbage in London in 1833. Lovelace translated an article by Luigi Menabrea. " +
			"In Italy, Menabrea later became prime minister. The notes by Lovelace were longer than the article.", "lovelace", "ada lovelace", true},
		{"Ada Lovelace met Charles Babbage in London in 1833. Lovelace translated an article by Luigi Menabrea. " +
			"In Italy, Menabrea later became prime minister.", "menabrea", "luigi menabrea", true},
		{"Zora Quell met Otto Quell in Paris. Quell wrote a letter.", "quell", "", false},
		// An article's subject takes its surname from a relative named
		// once, and its first and last names alone stand for it.
		{"Ross Patterson Alger (August 20, 1920 – January 16, 1992) was a politician in Alberta. His brother was Harry Alger. " +
			"Alger died of cancer in 1992.", "alger", "ross patterson alger", true},
		{"Henrik August Angell (1850 – 1924) was a Norwegian officer. Henrik Angell was born at Luster.", "henrik angell", "henrik august angell", true},
		// Not when the surname alone names a relative.
		{"Vineeth Sreenivasan (born 1985) is an Indian singer. Vineeth is son of the actor Sreenivasan. " +
			"His film introduced his younger brother Dhyan Sreenivasan. Sreenivasan wrote films.",
			"sreenivasan", "vineeth sreenivasan", false},
		// The document's main entity keeps its name: edges are drawn from it.
		{"Marley was dead, to begin with. Scrooge signed it. Old Marley was as dead as a door-nail. " +
			"Bob Cratchit worked for Scrooge and Marley.", "zzz", "", false},
	} {
		doc, err := extract.ReadDocument("a.txt", []byte(c.text), 0)
		if err != nil {
			t.Fatal(err)
		}
		g := extractDoc(t, e, doc)
		for _, ed := range g.Edges {
			if nodeByKey(g, ed.Source) == nil || nodeByKey(g, ed.Target) == nil {
				t.Errorf("edge %s -%s-> %s has an end that is no node", ed.Source, ed.Label, ed.Target)
			}
		}
		short := nodeByKey(g, c.short)
		if c.folded {
			full := nodeByKey(g, c.full)
			if short != nil || full == nil || full.Type != "Person" {
				t.Errorf("%q: short node %v, full node %+v", c.short, short != nil, full)
			}
		} else if short != nil && short.Type == "Person" && len(short.Mentions) == 0 {
			t.Errorf("%q: unexpected %+v", c.short, short)
		} else if c.full != "" && (short == nil || nodeByKey(g, c.full) == nil) {
			t.Errorf("%q and %q should stay two nodes: %v, %v", c.short, c.full, short != nil, nodeByKey(g, c.full) != nil)
		}
		if !c.folded {
			for _, n := range g.Nodes {
				if (n.Key == "zora quell" || n.Key == "otto quell") && len(n.Mentions) > 1 {
					t.Errorf("%s took the shared surname: %d mentions", n.Key, len(n.Mentions))
				}
			}
		}
	}
}
