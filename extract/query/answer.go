package query

import (
	"context"
	"embed"
	"encoding/json"
	"strings"
	"text/template"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
)

//go:embed prompts/*.txt
var promptFS embed.FS

var (
	keywordsPrompt = mustPrompt("keywords")
	answerPrompt   = mustPrompt("answer")
)

func mustPrompt(name string) *template.Template {
	b, err := promptFS.ReadFile("prompts/" + name + ".txt")
	if err != nil {
		panic("query: embedded prompt missing: " + name) // build-time invariant
	}
	return template.Must(template.New(name).Option("missingkey=error").Parse(string(b)))
}

func fill(t *template.Template, data any) string {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		panic("query: prompt " + t.Name() + " does not render: " + err.Error()) // fixed data shape
	}
	return b.String()
}

// keywordsSchema is the JSON Schema of the keyword reply.
var keywordsSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"high_level_keywords": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"low_level_keywords":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	},
	"required": []string{"high_level_keywords", "low_level_keywords"},
}

// KeywordsLLM asks the model for the question's keywords. A reply that is
// not the expected JSON is a KindInvalid error (the record is returned).
func KeywordsLLM(ctx context.Context, client llm.Client, question string) (high, low []string, rec extract.CallRecord, err error) {
	resp, err := client.Complete(ctx, llm.Request{
		Messages:   []llm.Message{{Role: "user", Content: fill(keywordsPrompt, map[string]string{"Question": question})}},
		JSONSchema: keywordsSchema,
		Purpose:    "query-keywords",
	})
	if err != nil {
		return nil, nil, rec, err
	}
	rec = resp.Record
	rec.Purpose = "query-keywords"
	var out struct {
		High []string `json:"high_level_keywords"`
		Low  []string `json:"low_level_keywords"`
	}
	text, _, err := extract.RepairJSON(resp.Text)
	if err == nil {
		err = json.Unmarshal([]byte(text), &out)
	}
	if err != nil {
		return nil, nil, rec, extract.Wrap(extract.KindInvalid, err, "the model's keywords are not the expected JSON")
	}
	var hs, ls orderedSet
	for _, w := range out.High {
		hs.add(w)
	}
	for _, w := range out.Low {
		ls.add(w)
	}
	return hs.list, ls.list, rec, nil
}

// AnswerPrompt is the prompt Answer sends.
func AnswerPrompt(question string, c Context) string {
	return fill(answerPrompt, map[string]string{"Question": question, "Context": c.Render()})
}

// Answer asks the model to answer the question from the context only,
// citing reference ids.
func Answer(ctx context.Context, client llm.Client, question string, c Context) (string, extract.CallRecord, error) {
	resp, err := client.Complete(ctx, llm.Request{
		Messages: []llm.Message{{Role: "user", Content: AnswerPrompt(question, c)}},
		Purpose:  "query-answer",
	})
	if err != nil {
		return "", extract.CallRecord{}, err
	}
	rec := resp.Record
	rec.Purpose = "query-answer"
	return strings.TrimSpace(resp.Text), rec, nil
}
