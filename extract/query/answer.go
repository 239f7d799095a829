package query

import (
	"cmp"
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
	answerPrompt   = mustPrompt("rag_response")
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

// DefaultResponseType is how an answer is laid out when the request
// names no other form.
const DefaultResponseType = "Multiple Paragraphs"

// AnswerRequest is a question to answer from a retrieved context.
type AnswerRequest struct {
	Question string
	// History is the conversation before the question, oldest first
	// (roles user and assistant).
	History []llm.Message
	// ResponseType is the form of the answer ("Multiple Paragraphs",
	// "Bullet Points", ...); empty is DefaultResponseType.
	ResponseType string
	// UserPrompt is more instructions from the user, added to the rules.
	UserPrompt string
	// Mode is the query mode the context was retrieved in: naive answers
	// from the passages alone.
	Mode Mode
}

// AnswerPrompt is the system prompt Answer sends: the rules, then the
// context laid out for the answer (see Context.RenderForAnswer).
func AnswerPrompt(req AnswerRequest, c Context) string {
	naive := req.Mode == ModeNaive
	return fill(answerPrompt, map[string]any{
		"Naive":        naive,
		"ResponseType": cmp.Or(strings.TrimSpace(req.ResponseType), DefaultResponseType),
		"UserPrompt":   strings.TrimSpace(req.UserPrompt),
		"Context":      c.RenderForAnswer(naive),
	})
}

// Answer asks the model to answer the question from the context only: the
// rules and the context as the system message, the conversation so far,
// then the question. The answer cites documents as [n] and ends with a
// "### References" list of at most five.
func Answer(ctx context.Context, client llm.Client, req AnswerRequest, c Context) (string, extract.CallRecord, error) {
	msgs := make([]llm.Message, 0, len(req.History)+2)
	msgs = append(msgs, llm.Message{Role: "system", Content: AnswerPrompt(req, c)})
	for _, m := range req.History {
		if m.Role == "user" || m.Role == "assistant" {
			msgs = append(msgs, m)
		}
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: req.Question})
	resp, err := client.Complete(ctx, llm.Request{Messages: msgs, Purpose: "query-answer"})
	if err != nil {
		return "", extract.CallRecord{}, err
	}
	rec := resp.Record
	rec.Purpose = "query-answer"
	return strings.TrimSpace(resp.Text), rec, nil
}
