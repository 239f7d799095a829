package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
	"github.com/kgstudio/kgstudio/store"
)

// scoresFixture stores the three short biographies of testdata/scores
// and returns their ids and the question set written for them.
func scoresFixture(t *testing.T, a *App) ([]int, eval.QuestionSet) {
	t.Helper()
	var ids []int
	for _, f := range []string{"ada.txt", "curie.txt", "turing.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "scores", f))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, addDoc(t, a.store, f, string(b)).ID)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "scores", "q.csv"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := eval.ReadQuestions("q.csv", b)
	if err != nil {
		t.Fatal(err)
	}
	return ids, set
}

// The scoreboard scores each version on the extraction's questions: a
// version over all three biographies finds more evidence and answers more
// than one over Ada's alone, which is marked best; every question
// measure lies in [0, 1] and keeps one value per question; the graph
// measures are the graph's own counts.
func TestScores_Board(t *testing.T) {
	t.Parallel()
	a, _, _ := testApp(t, "unused.txt", "Nothing here.")
	ids, set := scoresFixture(t, a)
	cfg := extract.DefaultConfig()
	cfg.Embedder = extract.EmbedderOffline
	_, all := mustRun(t, a, RunRequest{Extraction: "bio", Config: cfg, DocumentIDs: ids})
	mustRun(t, a, RunRequest{Extraction: "bio", Config: cfg, DocumentIDs: ids[:1]})
	ctx := context.Background()
	if err := a.Scores.SetQuestions(ctx, "bio", set); err != nil {
		t.Fatal(err)
	}
	b, err := a.Scores.Board(ctx, "bio")
	if err != nil {
		t.Fatal(err)
	}
	if b.Questions != 5 || len(b.Versions) != 2 {
		t.Fatalf("board: %d questions, %d versions", b.Questions, len(b.Versions))
	}
	full, ada := b.Versions[0], b.Versions[1]
	for _, m := range b.Measures {
		for _, v := range b.Versions {
			x, ok := v.Measures[m.Key]
			if !ok && m.Key != "modularity" {
				t.Errorf("%s has no %s", v.Version, m.Key)
			}
			if m.Better == 1 && (x < 0 || x > 1) {
				t.Errorf("%s %s = %v", v.Version, m.Key, x)
			}
		}
	}
	if full.Measures["recall@10.mix"] <= ada.Measures["recall@10.mix"] || full.Measures["answers.mix"] <= ada.Measures["answers.mix"] {
		t.Errorf("all three documents: recall %v, answers %v; Ada's alone: %v, %v", full.Measures["recall@10.mix"], full.Measures["answers.mix"],
			ada.Measures["recall@10.mix"], ada.Measures["answers.mix"])
	}
	if b.Best["recall@10.mix"] != "bio@1" {
		t.Errorf("best recall@10 mix: %q", b.Best["recall@10.mix"])
	}
	if n := len(full.PerQuestion["recall@10.mix"]); n != 5 {
		t.Errorf("%d per-question values", n)
	}
	// The curve climbs with the depth to recall@10.
	curve := full.Curves["mix"]
	if len(curve) != 10 || curve[9] != full.Measures["recall@10.mix"] {
		t.Errorf("mix curve %v, recall@10 %v", curve, full.Measures["recall@10.mix"])
	}
	for d := 1; d < len(curve); d++ {
		if curve[d] < curve[d-1] {
			t.Errorf("the curve falls at depth %d: %v", d+1, curve)
		}
	}
	if full.Measures["nodes"] != float64(len(all.Nodes)) || full.Measures["edges"] != float64(len(all.Edges)) {
		t.Errorf("nodes %v, edges %v; the graph has %d, %d", full.Measures["nodes"], full.Measures["edges"], len(all.Nodes), len(all.Edges))
	}
	if _, err := a.Scores.Board(ctx, "nobody"); extract.KindOf(err) != extract.KindNotFound {
		t.Errorf("an unknown extraction: %v", err)
	}
}

// A run of an extraction with a question set is scored when it finishes
// and its scores are stored with it: another process reads them as they
// are; a changed question set scores it again; Rescore replaces them.
func TestScores_StoredAfterRun(t *testing.T) {
	t.Parallel()
	a, st, _ := testApp(t, "unused.txt", "Nothing here.")
	ids, set := scoresFixture(t, a)
	cfg := extract.DefaultConfig()
	cfg.Embedder = extract.EmbedderOffline
	mustRun(t, a, RunRequest{Extraction: "bio", Config: cfg, DocumentIDs: ids[:1]})
	ctx := context.Background()
	if err := a.Scores.SetQuestions(ctx, "bio", set); err != nil {
		t.Fatal(err)
	}
	v, _ := mustRun(t, a, RunRequest{Extraction: "bio", Config: cfg, DocumentIDs: ids})
	stamp := scoresStamp + digestOf(set)
	var stored VersionScores
	ok, err := st.ReadVersionIndex(ctx, v.ID, store.IndexScores, stamp, func(b []byte) error { return json.Unmarshal(b, &stored) })
	if err != nil || !ok || stored.Measures["recall@10.mix"] == 0 {
		t.Fatalf("scores stored after the run: %v %v %v", ok, err, stored.Measures)
	}
	// Another process (a fresh app over the store) reads them: planted
	// in the store, the planted value is what it shows.
	stored.Measures["recall@10.mix"] = 0.123
	b, _ := json.Marshal(stored)
	if err := st.SaveVersionIndex(ctx, v.ID, store.IndexScores, stamp, b); err != nil {
		t.Fatal(err)
	}
	other := newApp(st, a.log, a.Models.providers)
	board, err := other.Scores.Board(ctx, "bio")
	if err != nil {
		t.Fatal(err)
	}
	if got := board.Versions[1].Measures["recall@10.mix"]; got != 0.123 {
		t.Errorf("another process scored %v, not the stored scores", got)
	}
	// Rescore replaces them.
	if err := other.Scores.Rescore(ctx, "bio"); err != nil {
		t.Fatal(err)
	}
	board, _ = other.Scores.Board(ctx, "bio")
	if got := board.Versions[1].Measures["recall@10.mix"]; got == 0.123 || got == 0 {
		t.Errorf("after Rescore: %v", got)
	}
	// The first version, run before the questions, is scored when read.
	if _, ok := board.Versions[0].Measures["recall@10.mix"]; !ok {
		t.Error("the version run before the questions has no recall")
	}
}
