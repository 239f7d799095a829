package query

import (
	"context"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// The keyword prompt renders with a worked example in LightRAG's output
// form, and the example's reply, given back as a model's, reads through
// KeywordsLLM into both lists.
func TestKeywordsPrompt_ExampleParses(t *testing.T) {
	prompt := fill(keywordsPrompt, map[string]string{"Question": "Who ran the mill?"})
	var example string
	for _, line := range strings.Split(prompt, "\n") {
		if strings.HasPrefix(line, `{"high_level_keywords"`) {
			example = line
		}
	}
	if example == "" {
		t.Fatalf("the keyword prompt shows no example reply:\n%s", prompt)
	}
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: example}}})
	client, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.OpenAIURL(), Model: "local"})
	if err != nil {
		t.Fatal(err)
	}
	high, low, _, err := KeywordsLLM(context.Background(), client, "Who ran the mill?")
	if err != nil || len(high) == 0 || len(low) == 0 {
		t.Errorf("the example reply read as high %q, low %q, error %v", high, low, err)
	}
}
