package query

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// twoHop is a corpus of titled passages where the answer to "Where was
// the director of Quiet Harbour born?" sits two hops from the question:
// the film's passage names its director, whose own passage (sharing no
// word with the question but its title's) says where she was born. Filler
// passages mention the question's words to tempt a lexical ranking.
func twoHop() (extract.Graph, map[extract.ChunkRef]extract.Chunk) {
	passages := []struct{ title, text string }{
		{"Quiet Harbour", "Quiet Harbour is a 1958 drama film directed by Mara Velden."},
		{"Mara Velden", "Mara Velden was a Dutch filmmaker from Groningen."},
		{"Harbour film festival", "The harbour film festival shows where each director was born and where the film was shot."},
		{"Born on the water", "Born on the water is a film about a director born in a harbour town."},
		{"Groningen", "Groningen is a city in the north of the Netherlands."},
		{"Velden lake", "Velden lake is a lake in Austria."},
	}
	// The graph an extractor would give: each passage's named entities,
	// mentioned where they occur, and the film-director relation.
	mentions := map[string][]int{
		"Quiet Harbour": {0},
		"Mara Velden":   {0, 1},
		"Groningen":     {1, 4},
		"Netherlands":   {4},
		"Austria":       {5},
		"Velden":        {5},
	}
	var g extract.Graph
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range mentions {
			if !yield(k) {
				return
			}
		}
	}) {
		n := extract.Node{Key: extract.NodeKey(name), Name: name, Type: "Entity"}
		for _, p := range mentions[name] {
			n.Mentions = append(n.Mentions, extract.Mention{DocumentID: p + 1})
		}
		g.Nodes = append(g.Nodes, n)
	}
	g.Edges = append(g.Edges, extract.Edge{Source: "quiet harbour", Label: "directed by", Target: "mara velden", Weight: 1,
		Mentions: []extract.Mention{{DocumentID: 1}}})
	chunks := map[extract.ChunkRef]extract.Chunk{}
	for i, p := range passages {
		text := p.title + "\n" + p.text
		chunks[extract.ChunkRef{DocumentID: i + 1}] = extract.Chunk{DocumentID: i + 1, Text: text, End: len(text)}
	}
	return g, chunks
}

func rankedDocs(t *testing.T, c *Corpus, mode Mode, q string, k int) []int {
	t.Helper()
	high, low := Keywords(q)
	res, err := c.Search(context.Background(), nil, Request{Question: q, Mode: mode, High: high, Low: low, TopK: k})
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, ch := range res.Chunks {
		out = append(out, ch.DocumentID)
	}
	return out
}

// The walk reaches the director's passage through the film's; the
// question alone (naive) ranks the word-sharing filler first.
func TestPPR_TwoHops(t *testing.T) {
	g, chunks := twoHop()
	c := NewCorpus(g, chunks, nil)
	const q = "Where was the director of Quiet Harbour born?"
	ppr := rankedDocs(t, c, ModePPR, q, 2)
	if !slices.Equal(ppr, []int{1, 2}) {
		t.Errorf("ppr top 2 = %v, want the film's and the director's passages [1 2]", ppr)
	}
	naive := rankedDocs(t, c, ModeNaive, q, 2)
	if slices.Contains(naive, 2) {
		t.Errorf("naive top 2 = %v holds the director's passage: the test no longer needs the graph", naive)
	}
	// mix ranks by the question first and lifts what the walk reaches.
	rankOf := func(docs []int) int { return slices.Index(docs, 2) }
	all := len(chunks)
	if mix, naive := rankedDocs(t, c, ModeMix, q, all), rankedDocs(t, c, ModeNaive, q, all); rankOf(mix) < 0 || rankOf(naive) >= 0 && rankOf(mix) >= rankOf(naive) {
		t.Errorf("mix %v, naive %v: want the director's passage 2 ranked higher by mix", mix, naive)
	}
}

// A passage's title is its main entity: a question naming a title no
// node carries still seeds the walk at that passage.
func TestPPR_TitleSeeds(t *testing.T) {
	g, chunks := twoHop()
	c := NewCorpus(g, chunks, nil)
	got := rankedDocs(t, c, ModePPR, "What does the Harbour film festival show?", 1)
	if !slices.Equal(got, []int{3}) {
		t.Errorf("top = %v, want the festival's passage [3]", got)
	}
}

func TestPassageTitle(t *testing.T) {
	for _, tt := range []struct {
		text string
		idx  int
		want string
	}{
		{"Scott Howell (political consultant)\nScott Howell is an American consultant.", 0, "Scott Howell"},
		{"Leland, North Carolina\nLeland is a town.", 0, "Leland, North Carolina"},
		{"Quiet Harbour\nA film.", 1, ""},                          // not a document's first chunk
		{"Only one line", 0, ""},                                   // nothing follows
		{"This is a whole sentence that ends here.\nMore.", 0, ""}, // a sentence
		{strings.Repeat("word ", 20) + "\ntext", 0, ""},            // too long
		{"周杰伦\n周杰伦是台湾歌手。", 0, "周杰伦"},
	} {
		if got := PassageTitle(extract.Chunk{Index: tt.idx, Text: tt.text}); got != tt.want {
			t.Errorf("PassageTitle(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// The walk is deterministic and keeps its mass: equal runs give equal
// rankings, and every mode answers on a graph without links.
func TestPPR_DeterministicAndEmpty(t *testing.T) {
	g, chunks := twoHop()
	first := fmt.Sprint(rankedDocs(t, NewCorpus(g, chunks, nil), ModePPR, "director of Quiet Harbour", 5))
	for range 3 {
		if got := fmt.Sprint(rankedDocs(t, NewCorpus(g, chunks, nil), ModePPR, "director of Quiet Harbour", 5)); got != first {
			t.Fatalf("ranking changed: %s then %s", first, got)
		}
	}
	empty := NewCorpus(extract.Graph{}, chunks, nil)
	if got := rankedDocs(t, empty, ModePPR, "Groningen city", 2); len(got) == 0 || got[0] != 5 {
		t.Errorf("no graph: top = %v, want the passages the question matches (5 first)", got)
	}
	wg := NewCorpus(g, chunks, nil).walkGraph()
	reset := make([]float64, len(wg.off)-1)
	reset[0] = 1
	total := 0.0
	for _, m := range wg.run(reset) {
		total += m
	}
	if total < 0.999 || total > 1.001 {
		t.Errorf("walk mass = %v, want 1", total)
	}
}
