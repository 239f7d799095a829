package query

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
)

type stubClient struct {
	reply string
	got   llm.Request
}

func (s *stubClient) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	s.got = req
	return llm.Response{Text: s.reply, Record: extract.CallRecord{Provider: "stub"}}, nil
}

func TestKeywordsLLM(t *testing.T) {
	c := &stubClient{reply: "```json\n{\"high_level_keywords\":[\"partnership\",\"Partnership\"],\"low_level_keywords\":[\"Marley\"]}\n```"}
	high, low, rec, err := KeywordsLLM(context.Background(), c, "Who was Marley's partner?")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(high, []string{"partnership"}) || !slices.Equal(low, []string{"Marley"}) || rec.Purpose != "query-keywords" {
		t.Fatalf("high %q low %q rec %+v", high, low, rec)
	}
	if c.got.JSONSchema == nil || !strings.Contains(c.got.Messages[0].Content, "Who was Marley's partner?") {
		t.Fatalf("request %+v", c.got)
	}
	c.reply = "partnership, Marley"
	if _, _, _, err := KeywordsLLM(context.Background(), c, "q"); extract.KindOf(err) != extract.KindInvalid {
		t.Fatalf("malformed reply: err %v", err)
	}
}

func TestAnswer_PromptHoldsContext(t *testing.T) {
	ctxt := searchSample(t, []string{"partner"}, []string{"Marley"})
	c := &stubClient{reply: " Scrooge [C1]. "}
	text, rec, err := Answer(context.Background(), c, "Who was Marley's partner?", ctxt)
	if err != nil || text != "Scrooge [C1]." || rec.Purpose != "query-answer" {
		t.Fatalf("Answer = %q %+v %v", text, rec, err)
	}
	p := c.got.Messages[0].Content
	if !strings.Contains(p, ctxt.Render()) || !strings.Contains(p, "Question: Who was Marley's partner?") {
		t.Fatalf("prompt lacks the context or question:\n%s", p)
	}
}
