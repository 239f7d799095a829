package query

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/llm"
)

// TestSearch_GlobalReadsCommunities: global search takes the passages of
// the communities whose members match the question; a passage that
// shares a word with the question but whose entities belong to another
// community is not among them (naive search, which ranks passages alone,
// finds it).
func TestSearch_GlobalReadsCommunities(t *testing.T) {
	g, chunks := globalTopics()
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

// TestSearch_GlobalUsesGivenCommunities: communities given to the corpus
// (a version's stored ones) are what global search reads, not ones it
// detects again: here the mechanics and the whaling story are one
// community, so the whaling passage that says "engine" is found too.
func TestSearch_GlobalUsesGivenCommunities(t *testing.T) {
	g, chunks := globalTopics()
	var members []string
	for _, n := range g.Nodes {
		if n.Description == n.Name+" worked on the mechanical engine." || strings.Contains(n.Description, "Pequod") {
			members = append(members, n.Key)
		}
	}
	c := NewCorpus(g, chunks, nil)
	c.UseCommunities(community.Result{Levels: 1, Modularity: []float64{0.5},
		Communities: []community.Community{{ID: 0, Level: 0, Parent: -1, Size: len(members), Members: members}}})
	res, err := c.Search(context.Background(), nil, Request{Question: "Who worked on the mechanical engine?", Mode: ModeGlobal, TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, ch := range res.Chunks {
		got = append(got, ch.Index)
	}
	if !slices.Contains(got, 0) || !slices.Contains(got, 3) {
		t.Fatalf("chunks %v: want the given community's passages 0 and 3", got)
	}
}

// globalTopics is four topics of four people each, a passage each; the
// whaling passage shares "engine" with the mechanics' question.
func globalTopics() (extract.Graph, map[extract.ChunkRef]extract.Chunk) {
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
	return g, chunks
}

// TestSearch_GlobalReadsReportVectors: a question none of the
// communities' words match ranks them by their reports' vectors when
// they have them: the whaling community's report comes first, and its
// passage is found; without the vectors it is not.
func TestSearch_GlobalReadsReportVectors(t *testing.T) {
	ctx := context.Background()
	g, chunks := globalTopics()
	r := community.Detect(g, community.Options{})
	list := make([]extract.Chunk, 0, len(chunks))
	for i := range len(chunks) {
		list = append(list, chunks[extract.ChunkRef{DocumentID: 1, Index: i}])
	}
	vecs, _, err := Vectorize(ctx, embed.Offline{}, g, list, nil)
	if err != nil {
		t.Fatal(err)
	}
	newCorpus := func() *Corpus {
		c := NewCorpus(g, chunks, NewVectorIndex(vecs))
		c.UseCommunities(r)
		return c
	}
	// The reports' texts say what the members' names and descriptions do
	// not.
	whaling := -1
	texts := map[int]string{}
	for _, cm := range r.Level(GlobalLevel(r, len(g.Nodes))) {
		texts[cm.ID] = "A story of " + cm.Title
		if slices.Contains(cm.TopNodes, "Ishmael") {
			whaling, texts[cm.ID] = cm.ID, "Whaling voyages: a crew hunting the white whale across the oceans."
		}
	}
	rv := ReportVectors{Model: embed.OfflineModel, Vectors: map[int][]float32{}}
	for id, text := range texts {
		v, _, err := embed.Offline{}.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		rv.Vectors[id] = v[0]
	}
	q := "Tell me about the whaling voyages."
	with := newCorpus()
	with.UseReportVectors(rv)
	hits, err := with.GlobalReports(ctx, embed.Offline{}, q, 4)
	if err != nil || len(hits) == 0 || hits[0].Community != whaling || hits[0].Score <= 0 {
		t.Fatalf("with vectors: %+v (%v), want community %d first", hits, err, whaling)
	}
	res, err := with.Search(ctx, embed.Offline{}, Request{Question: q, Mode: ModeGlobal, TopK: 10})
	if err != nil || len(res.Entities) == 0 || !strings.Contains("Captain Ahab Ishmael Queequeg Starbuck", res.Entities[0].Name) {
		t.Fatalf("with vectors, global search found %+v (%v)", res.Entities, err)
	}
	without := newCorpus()
	hits, err = without.GlobalReports(ctx, embed.Offline{}, q, 4)
	if err != nil || len(hits) == 0 || hits[0].Score != 0 {
		t.Fatalf("without vectors: %+v (%v), want no community matched", hits, err)
	}
	if res, _ := without.Search(ctx, embed.Offline{}, Request{Question: q, Mode: ModeGlobal, TopK: 10}); len(res.Entities) != 0 {
		t.Fatalf("without vectors, global search found %+v", res.Entities)
	}
}

// mapReduce answers map calls by the communities they show and the
// reduce call with a fixed text, counting the calls.
type mapReduce struct {
	mu    sync.Mutex
	calls int
}

func (m *mapReduce) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
	user := req.Messages[len(req.Messages)-1].Content
	text := "Engines matter most [Community 1] and whaling [Communities 9 and 99]."
	switch {
	case strings.Contains(user, "Community 5 "):
		text = "no JSON here"
	case strings.Contains(user, "Community 1 "):
		text = `{"points": [{"text": "Engines matter most.", "score": 80, "communities": [1, 7]}, {"text": "Nothing.", "score": 0, "communities": [1]}]}`
	case strings.Contains(user, "Reports:"):
		text = `{"points": [{"text": "Whaling too.", "score": 40, "communities": [9, 99]}]}`
	}
	return llm.Response{Text: text, Record: extract.CallRecord{Key: fmt.Sprint(m.calls)}}, nil
}

// TestGlobalAnswer: batches of four reports are mapped to points (a
// point keeps only the communities of its batch, one scored 0 is
// dropped, an unreadable batch is counted), the points are reduced best
// first, and the answer's citations of known communities are listed.
func TestGlobalAnswer(t *testing.T) {
	var reports []ReportHit
	for _, id := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9} {
		reports = append(reports, ReportHit{Size: 3, Report: community.Report{Community: id, Title: fmt.Sprint("c", id), Summary: "s"}})
	}
	client := &mapReduce{}
	got, err := GlobalAnswer(context.Background(), client, AnswerRequest{Question: "What are the themes?"}, reports)
	if err != nil {
		t.Fatal(err)
	}
	if client.calls != 4 || len(got.Calls) != 4 || got.Unreadable != 1 {
		t.Fatalf("%d calls (%d recorded), %d unreadable: want 3 maps, a reduce and 1 unreadable", client.calls, len(got.Calls), got.Unreadable)
	}
	if len(got.Points) != 2 || got.Points[0].Score != 80 || fmt.Sprint(got.Points[0].Communities) != "[1]" || fmt.Sprint(got.Points[1].Communities) != "[9]" {
		t.Fatalf("points %+v", got.Points)
	}
	if fmt.Sprint(got.Cited) != "[1 9]" || !strings.HasPrefix(got.Text, "Engines matter most") {
		t.Fatalf("answer %q cites %v", got.Text, got.Cited)
	}
}
