package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// multihopJSON is the documented shape of eval --format multihop --json.
type multihopJSON struct {
	Questions int                `json:"questions"`
	Passages  int                `json:"passages"`
	Embedder  string             `json:"embedder"`
	RecallAt2 map[string]float64 `json:"recall_at_2"`
	RecallAt5 map[string]float64 `json:"recall_at_5"`
}

func TestEvalMultiHopCLI(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	const corpus = "testdata/multihop/corpus.json"
	t.Run("HotpotJSON", func(t *testing.T) {
		var r multihopJSON
		out := mustCLI(t, data, "eval", "--format", "multihop", "testdata/multihop/questions.json", "--corpus", corpus, "--json")
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Questions != 2 || r.Passages != 8 || r.Embedder != "universal-sentence-encoder-lite-2" {
			t.Errorf("report %+v: want 2 questions over 8 passages ranked with the default encoder", r)
		}
		for _, m := range []string{"bm25", "local", "global", "hybrid", "naive", "mix", "ppr"} {
			if _, ok := r.RecallAt5[m]; !ok {
				t.Errorf("recall_at_5 has no %s: %v", m, r.RecallAt5)
			}
		}
		if r.RecallAt2["ppr"] != 1 {
			t.Errorf("ppr recall@2 = %v, want 1 (both hops of both questions)", r.RecallAt2["ppr"])
		}
	})
	t.Run("MuSiQueOneMode", func(t *testing.T) {
		var r multihopJSON
		out := mustCLI(t, data, "eval", "--format", "multihop", "testdata/multihop/musique.json", "--corpus", corpus,
			"--mode", "ppr", "--embedder", "offline", "--json")
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.RecallAt5) != 2 || r.Embedder != "offline-hashed-ngrams-v1" {
			t.Errorf("report %+v: want bm25 and ppr only, offline embedder", r)
		}
	})
	t.Run("Text", func(t *testing.T) {
		out := mustCLI(t, data, "eval", "--format", "multihop", "testdata/multihop/questions.json", "--corpus", corpus, "--mode", "naive")
		if !strings.Contains(out, "R@2") || !strings.Contains(out, "naive") || !strings.Contains(out, "bm25") {
			t.Errorf("output:\n%s", out)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"eval", "--format", "multihop", "testdata/multihop/questions.json"},
			{"eval", "--format", "multihop", "testdata/multihop/questions.json", "--corpus", "testdata/multihop/questions.json"},
			{"eval", "--format", "multihop", corpus, "--corpus", corpus},
			{"eval", "--format", "multihop", "testdata/multihop/questions.json", "--corpus", corpus, "--mode", "deep"},
			{"eval", "--format", "multihop", "testdata/multihop/questions.json", "--corpus", corpus, "--embedder", "gemini"},
		} {
			if out, err := runCLI(t, data, args...); err == nil {
				t.Errorf("%v: no error; output:\n%s", args, out)
			}
		}
	})
}
