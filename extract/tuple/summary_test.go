package tuple_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/tuple"
)

// The summary prompt names what it describes (entity or relation), gives
// the descriptions as a JSON list, as LightRAG does, and bounds the summary
// in tokens.
func TestExtractor_MergeDescriptionsOf(t *testing.T) {
	frags := []string{`Scrooge's partner, "dead as a door-nail".`, "Signed <the register> & left.", "Marley's partner.", "A man of business."}
	tests := []struct {
		name     string
		descType tuple.DescriptionKind
		item     string
		want     []string
	}{
		{"relation", tuple.DescriptionRelation, "Scrooge — Marley", []string{"descriptions of one relation of", "# Name of the relation\nScrooge — Marley\n"}},
		{"entity", tuple.DescriptionEntity, "Scrooge", []string{"descriptions of one entity of", "# Name of the entity\nScrooge\n"}},
		{"unsaid", "", "Scrooge", []string{"descriptions of one entity or relation of", "# Name\nScrooge\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Contains: "Descriptions", Text: "A summary."}}})
			cfg := extract.DefaultConfig()
			cfg.MaxFragments = 2
			x, err := tuple.New(clients(t, srv)["openai"], cfg, tuple.Options{SummaryMaxTokens: 120})
			if err != nil {
				t.Fatal(err)
			}
			if tt.descType == "" {
				_, _, err = x.MergeDescriptions(context.Background(), tt.item, frags)
			} else {
				_, _, err = x.MergeDescriptionsOf(context.Background(), tt.descType, tt.item, frags)
			}
			if err != nil {
				t.Fatal(err)
			}
			calls := srv.Calls()
			if len(calls) != 1 {
				t.Fatalf("%d calls", len(calls))
			}
			prompt := calls[0].Messages[len(calls[0].Messages)-1].Content
			for _, w := range append(tt.want, "at most 120 tokens") {
				if !strings.Contains(prompt, w) {
					t.Errorf("prompt lacks %q:\n%s", w, prompt)
				}
			}
			if strings.Contains(prompt, "words") {
				t.Errorf("prompt bounds the summary in words:\n%s", prompt)
			}
			_, list, _ := strings.Cut(prompt, "# Descriptions\n")
			list, _, _ = strings.Cut(list, "\n\n# Summary")
			var got []string
			if err := json.Unmarshal([]byte(list), &got); err != nil {
				t.Fatalf("descriptions are not a JSON list (%v):\n%s", err, list)
			}
			if strings.Join(got, "|") != strings.Join(frags, "|") || strings.Contains(list, `\u003c`) {
				t.Errorf("descriptions %q, want %q unescaped", list, frags)
			}
		})
	}
}

// A summary template written before the prompt spoke of tokens, with
// MaxWords and a range over Fragments, still parses and renders.
func TestParsePrompts_SummaryWrittenBefore(t *testing.T) {
	old := "Merge into {{.MaxWords}} words:\n{{range .Fragments}}- {{.}}\n{{end}}"
	p, err := tuple.ParsePrompts(map[string]string{tuple.PromptSummary: old})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Render(tuple.PromptSummary, tuple.PromptData{Fragments: []string{"a", "b"}, MaxTokens: 90})
	if err != nil {
		t.Fatal(err)
	}
	if got != "Merge into 90 words:\n- a\n- b\n" {
		t.Errorf("rendered %q", got)
	}
}
