package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

func scoresData(f string) string { return filepath.Join("..", "..", "app", "testdata", "scores", f) }

// experiment over a 2×2 grid makes four versions of one extraction and
// prints the contract's JSON; every version's measures are what scores
// NAME --json gives that version on its own (scored again in another
// process), and best names a version that scores the best.
func TestExperiment_Grid(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	out := mustCLI(t, data, "experiment", "bio", "--grid", "chunk_size=120,1200", "--grid", "overlap=0,20", "--embedder", "offline",
		"--questions", scoresData("q.csv"), "--json", scoresData("ada.txt"), scoresData("curie.txt"), scoresData("turing.txt"))
	var exp struct {
		Versions []struct {
			Version  string             `json:"version"`
			Settings map[string]any     `json:"settings"`
			Measures map[string]float64 `json:"measures"`
		} `json:"versions"`
		Best map[string]string `json:"best"`
	}
	if err := json.Unmarshal([]byte(out), &exp); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if len(exp.Versions) != 4 || exp.Versions[0].Version != "bio@1" || exp.Versions[3].Version != "bio@4" {
		t.Fatalf("versions %+v", exp.Versions)
	}
	if s := exp.Versions[1].Settings; s["chunk_size"] != float64(120) || s["overlap"] != float64(20) {
		t.Errorf("second grid point's settings %v", s)
	}
	var board struct {
		Versions []struct {
			Version  string             `json:"version"`
			Measures map[string]float64 `json:"measures"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "scores", "bio", "--json")), &board); err != nil {
		t.Fatal(err)
	}
	for i, v := range exp.Versions {
		m, want := v.Measures, board.Versions[i].Measures
		if !reflect.DeepEqual(m, want) {
			t.Errorf("%s: experiment %v\nscores %v", v.Version, m, want)
		}
		if _, ok := m["recall@10.mix"]; !ok {
			t.Errorf("%s has no recall", v.Version)
		}
	}
	at := exp.Best["recall@10.mix"]
	for _, v := range exp.Versions {
		if v.Version == at {
			for _, w := range exp.Versions {
				if w.Measures["recall@10.mix"] > v.Measures["recall@10.mix"] {
					t.Errorf("best %s scores %v, %s %v", at, v.Measures["recall@10.mix"], w.Version, w.Measures["recall@10.mix"])
				}
			}
		}
	}
	table := mustCLI(t, data, "scores", "bio")
	if !strings.Contains(table, "recall@10 mix") || strings.Count(table, "bio@") != 4 || !strings.Contains(table, "*") {
		t.Errorf("scores table:\n%s", table)
	}
}

// With a model, the same grid run again answers every call from the
// cache: the second experiment makes no model call.
func TestExperiment_SecondRunFromCache(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: "entity<|#|>Ada Lovelace<|#|>person<|#|>A mathematician.\n" +
		"entity<|#|>Charles Babbage<|#|>person<|#|>An engineer.\nrelation<|#|>Ada Lovelace<|#|>Charles Babbage<|#|>worked with<|#|>They worked together.\n<|COMPLETE|>"}}})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "local")
	data := t.TempDir()
	args := []string{"experiment", "tup", "--grid", "strategy=tuple", "--grid", "chunk_size=120,400", "--embedder", "offline", "--json", scoresData("ada.txt")}
	mustCLI(t, data, append(args, "--grid", "provider=openai", "--grid", "max_gleaning=0")...)
	first := srv.Count()
	if first == 0 {
		t.Fatal("the first experiment called no model")
	}
	mustCLI(t, data, append(args, "--grid", "provider=openai", "--grid", "max_gleaning=0")...)
	if n := srv.Count() - first; n != 0 {
		t.Errorf("the same grid again made %d model calls", n)
	}
}

// experiment --reference imports a graph as the extraction's reference
// and scores every version against it: the version made with the
// reference's own settings matches it, node for node and edge for edge;
// one with other settings does not.
func TestExperiment_Reference(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	docs := []string{scoresData("ada.txt"), scoresData("curie.txt"), scoresData("turing.txt")}
	mustCLI(t, data, append([]string{"extract", "--name", "src", "--embedder", "offline", "--chunk-size", "1200"}, docs...)...)
	ref := filepath.Join(t.TempDir(), "ref.json")
	mustCLI(t, data, "export", "src@1", "--format", "json", "--out", ref)
	// Chunks of 50 characters cut sentences: a graph unlike the
	// reference's (the nlp strategy's graph of whole sentences does not
	// depend on how they are chunked).
	out := mustCLI(t, data, append([]string{"experiment", "tgt", "--reference", ref, "--grid", "chunk_size=50,1200", "--grid", "overlap=0", "--embedder", "offline", "--json"}, docs...)...)
	var exp struct {
		Versions []struct {
			Version  string             `json:"version"`
			Measures map[string]float64 `json:"measures"`
		} `json:"versions"`
		Best map[string]string `json:"best"`
	}
	if err := json.Unmarshal([]byte(out), &exp); err != nil {
		t.Fatal(err)
	}
	if len(exp.Versions) != 2 || exp.Versions[0].Version != "tgt@2" {
		t.Fatalf("versions %+v (tgt@1 is the reference)", exp.Versions)
	}
	small, same := exp.Versions[0].Measures, exp.Versions[1].Measures
	if same["reference.nodes_f1"] != 1 || same["reference.edges_f1"] != 1 {
		t.Errorf("the reference's own settings: %v", same)
	}
	if small["reference.edges_f1"] >= 1 || small["reference.edges_f1"] <= 0 {
		t.Errorf("other settings: edges F1 %v", small["reference.edges_f1"])
	}
	if exp.Best["reference.edges_f1"] != "tgt@3" {
		t.Errorf("best edges F1: %q", exp.Best["reference.edges_f1"])
	}
}

// A LoCoMo conversation run as a dialogue with its questions as the
// extraction's question set: the scoreboard's recall@10 per mode is what
// eval --format locomo --version gives on that version, and what the
// in-memory evaluation of the file gives for every mode but global
// (global reads the communities a run stores, which it does not build).
func TestScores_LoCoMo(t *testing.T) {
	t.Parallel()
	file := testkit.Path(t, "dialogues/locomo10_conv30.json")
	data := t.TempDir()
	mustCLI(t, data, "extract", "--name", "conv", "--strategy", "dialogue", "--embedder", "offline", file)
	mustCLI(t, data, "questions", "add", "conv", file)
	var board struct {
		Versions []struct {
			Measures map[string]float64 `json:"measures"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "scores", "conv", "--json")), &board); err != nil {
		t.Fatal(err)
	}
	var onVersion, inMemory struct {
		Questions int                `json:"questions"`
		Recall    map[string]float64 `json:"recall"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "eval", "--format", "locomo", file, "--version", "conv@1", "--top-k", "10", "--json")), &onVersion); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "eval", "--format", "locomo", file, "--embedder", "offline", "--top-k", "10", "--json")), &inMemory); err != nil {
		t.Fatal(err)
	}
	if onVersion.Questions == 0 || onVersion.Questions != inMemory.Questions {
		t.Fatalf("questions: %d on the version, %d in memory", onVersion.Questions, inMemory.Questions)
	}
	round := func(x float64) string { return fmt.Sprintf("%.3f", x) }
	for _, mode := range query.Modes {
		m := string(mode)
		score := board.Versions[0].Measures["recall@10."+m]
		if round(score) != round(onVersion.Recall[m]) {
			t.Errorf("%s: scoreboard %.3f, eval --version %.3f", m, score, onVersion.Recall[m])
		}
		if mode != query.ModeGlobal && round(score) != round(inMemory.Recall[m]) {
			t.Errorf("%s: scoreboard %.3f, eval in memory %.3f", m, score, inMemory.Recall[m])
		}
	}
}
