package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// extract --estimate --json prints the contract's fields, calls no model
// and creates no version nor document; without --json it says the same
// in words.
func TestExtract_EstimateCLI(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", strings.Repeat(marleyText+"\n\n", 20))
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: "<|COMPLETE|>"}}})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "gpt-4o-mini")
	out := mustCLI(t, data, "extract", "--estimate", "--json", "--strategy", "tuple", "--max-gleaning", "0", doc)
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	for _, k := range []string{"chunks", "calls", "input_tokens", "output_tokens", "cost", "currency", "exact_tokens"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	if raw["chunks"].(float64) < 2 || raw["calls"] != raw["chunks"] || raw["cost"].(float64) <= 0 || raw["currency"] != "USD" || raw["exact_tokens"] != false {
		t.Errorf("estimate %s", out)
	}
	if srv.Count() != 0 {
		t.Errorf("the estimate called the model %d times", srv.Count())
	}
	if list := mustCLI(t, data, "version", "list"); strings.Contains(list, "@1") {
		t.Errorf("the estimate made a version:\n%s", list)
	}
	if docs := mustCLI(t, data, "doc", "list"); strings.Contains(docs, "marley") {
		t.Errorf("the estimate stored the document:\n%s", docs)
	}
	text := mustCLI(t, data, "extract", "--estimate", "--strategy", "tuple", doc)
	if !strings.Contains(text, "no model was called") || !strings.Contains(text, "cost            $") {
		t.Errorf("estimate in words:\n%s", text)
	}
}

// query --response-type reaches the model's answer prompt.
func TestQuery_ResponseTypeCLI(t *testing.T) {
	data, srv := carolWithModel(t, fakellm.Rule{Text: "- Marley was dead [1]."})
	mustCLI(t, data, "query", "carol@1", "Who was Marley?", "--provider", "openai", "--response-type", "Bullet Points")
	if prompt := srv.LastPrompt(); !strings.Contains(prompt, "Bullet Points") {
		t.Fatalf("the answer prompt does not ask for bullet points:\n%.2000s", prompt)
	}
}

// With a model answering, query asks it for high- and low-level keywords
// first, as LightRAG does, and searches with both lists; --keywords
// offline splits the question instead.
func TestQuery_ModelKeywordsCLI(t *testing.T) {
	data, srv := carolWithModel(t,
		fakellm.Rule{Contains: "prepare a question for retrieval", Text: `{"high_level_keywords": ["partnership"], "low_level_keywords": ["Marley", "Scrooge"]}`},
		fakellm.Rule{Text: "Scrooge was Marley's partner [1]."})
	out := mustCLI(t, data, "query", "carol@1", "Who was Marley's partner?", "--provider", "openai", "--mode", "hybrid", "--json")
	var res struct {
		Keywords struct {
			High   []string `json:"high"`
			Low    []string `json:"low"`
			Source string   `json:"source"`
		} `json:"keywords"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if res.Keywords.Source != "model" || strings.Join(res.Keywords.High, ",") != "partnership" || strings.Join(res.Keywords.Low, ",") != "Marley,Scrooge" {
		t.Fatalf("keywords %+v", res.Keywords)
	}
	prompts := 0
	for _, c := range srv.Calls() {
		for _, m := range c.Messages {
			if strings.Contains(m.Content, "prepare a question for retrieval") {
				prompts++
			}
		}
	}
	if prompts != 1 {
		t.Fatalf("%d keyword prompts sent, want 1", prompts)
	}
	before := srv.Count()
	out = mustCLI(t, data, "query", "carol@1", "Who was Scrooge's clerk?", "--provider", "openai", "--keywords", "offline", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Keywords.Source != "offline" || srv.Count() != before+1 {
		t.Fatalf("offline keywords: %+v, %d calls (%v)", res.Keywords, srv.Count()-before, err)
	}
}

// carolWithModel extracts the Marley text offline as carol@1 into a new
// data folder and points the CLI's OpenAI provider at a local server
// answering by rules.
func carolWithModel(t *testing.T, rules ...fakellm.Rule) (string, *fakellm.Server) {
	t.Helper()
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	mustCLI(t, data, "extract", "--name", "carol", "--embedder", "offline", writeFile(t, "marley.txt", marleyText))
	srv := fakellm.New(t, fakellm.Options{Rules: rules})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "local")
	return data, srv
}
