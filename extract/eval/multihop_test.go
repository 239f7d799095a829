package eval

import (
	"bytes"
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/nlp"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

func TestReadMultiHop(t *testing.T) {
	hotpot := `[{"_id":"a1","question":"Where was the director of Quiet Harbour born?","supporting_facts":[["Quiet Harbour",0],["Mara Velden",0],["Mara Velden",1]]},
	{"_id":"a2","question":"No gold?","supporting_facts":[]}]`
	qs, err := ReadMultiHop([]byte("\xef\xbb\xbf" + hotpot))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].ID != "a1" || len(qs[0].Gold) != 2 || qs[0].Gold[1].Title != "Mara Velden" {
		t.Fatalf("hotpot: %+v, want one question with two gold titles", qs)
	}
	musique := `[{"id":"m1","question":"Q?","paragraphs":[{"idx":0,"title":"T","paragraph_text":"first","is_supporting":true},
	{"idx":1,"title":"T","paragraph_text":"second","is_supporting":false},{"idx":2,"title":"U","paragraph_text":"third","is_supporting":true}]}]`
	qs, err = ReadMultiHop([]byte(musique))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || len(qs[0].Gold) != 2 || qs[0].Gold[0] != (GoldPassage{Title: "T", Text: "first"}) {
		t.Fatalf("musique: %+v, want the two supporting paragraphs by title and text", qs)
	}
	for _, bad := range []string{``, `{}`, `[]`, `[{"question":"q"}]`, `[{"question":"q","supporting_facts":[1]}]`} {
		if _, err := ReadMultiHop([]byte(bad)); extract.KindOf(err) != extract.KindInvalid {
			t.Errorf("ReadMultiHop(%q) = %v, want an invalid error", bad, err)
		}
	}
}

// twoHopPassages: the answer to each question sits in a passage that
// shares no word with the question but is named in the first hop.
var twoHopPassages = []extract.Passage{
	{Title: "Quiet Harbour", Text: "Quiet Harbour is a 1958 drama film directed by Mara Velden."},
	{Title: "Mara Velden", Text: "Mara Velden was a Dutch filmmaker from Groningen."},
	{Title: "Harbour film festival", Text: "The harbour film festival shows where each director was born and where the film was shot."},
	{Title: "Born on the water", Text: "Born on the water is a film about a director born in a harbour town."},
	{Title: "Groningen", Text: "Groningen is a city in the north of the Netherlands."},
	{Title: "Red Lantern", Text: "Red Lantern is a 1961 film directed by Tomas Arvid."},
	{Title: "Tomas Arvid", Text: "Tomas Arvid was a Swedish painter and director from Malmo."},
	{Title: "Lantern festival", Text: "The lantern festival of red lights shows where the director was born."},
}

func TestMultiHop_GraphFindsTheSecondHop(t *testing.T) {
	qs := []MultiHopQuestion{
		{ID: "1", Question: "Where was the director of Quiet Harbour born?", Gold: []GoldPassage{{Title: "Quiet Harbour"}, {Title: "Mara Velden"}}},
		{ID: "2", Question: "Where was the director of Red Lantern born?", Gold: []GoldPassage{{Title: "Red Lantern"}, {Title: "Tomas Arvid"}}},
		{ID: "3", Question: "Which city is missing?", Gold: []GoldPassage{{Title: "Atlantis"}}},
	}
	ex, err := nlp.New(nlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := MultiHop(context.Background(), qs, twoHopPassages, ex, embed.Offline{}, query.ModeNames())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("R@2 %v R@5 %v", rep.RecallAt2, rep.RecallAt5)
	if rep.Questions != 3 || rep.Passages != len(twoHopPassages) || rep.Unmatched != 1 || rep.Embedder != embed.OfflineModel {
		t.Errorf("report %+v: want 3 questions, %d passages, 1 unmatched gold passage", rep, len(twoHopPassages))
	}
	for _, m := range append([]string{BM25Baseline}, query.ModeNames()...) {
		if _, ok := rep.RecallAt5[m]; !ok {
			t.Errorf("no recall@5 for %s", m)
		}
	}
	// Two of three questions can be answered whole: 2/3 is the best
	// recall@2 there is.
	if got := rep.RecallAt2[string(query.ModePPR)]; got < 0.66 {
		t.Errorf("ppr recall@2 = %.3f, want 0.667 (both hops of both answerable questions)", got)
	}
	if rep.RecallAt2[string(query.ModePPR)] <= rep.RecallAt2[BM25Baseline] {
		t.Errorf("ppr recall@2 %.3f does not beat BM25 %.3f: the test no longer needs the graph", rep.RecallAt2[string(query.ModePPR)], rep.RecallAt2[BM25Baseline])
	}
}

// On the shared HotpotQA and MuSiQue subsets, the walk beats BM25 over
// the same passages (offline embedder, to keep the test quick; the
// README has the table for both embedders).
func TestMultiHop_SharedSets(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the shared multi-hop sets take a minute")
	}
	ex, err := nlp.New(nlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"hotpotqa", "musique"} {
		qs, err := ReadMultiHop(testkit.Read(t, "multihop/"+set+"_train.json"))
		if err != nil {
			t.Fatal(err)
		}
		ps, err := extract.ReadCorpus(bytes.NewReader(testkit.Read(t, "multihop/"+set+"_train_corpus.json")))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := MultiHop(context.Background(), qs, ps, ex, embed.Offline{}, []string{string(query.ModePPR)})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: R@2 %v R@5 %v", set, rep.RecallAt2, rep.RecallAt5)
		if rep.Unmatched > 0 {
			t.Errorf("%s: %d gold passages not found in the corpus", set, rep.Unmatched)
		}
		if got, bm := rep.RecallAt5[string(query.ModePPR)], rep.RecallAt5[BM25Baseline]; got < bm+0.05 {
			t.Errorf("%s: ppr recall@5 %.3f, want at least BM25's %.3f + 0.05", set, got, bm)
		}
	}
}
