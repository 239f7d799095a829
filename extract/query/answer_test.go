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

// TestAnswer_Contract: the system message holds the rules, the response
// type, the user's instructions and the context laid out for the answer
// (knowledge graph, passages with reference ids, reference document list);
// the conversation so far comes between it and the question; naive leaves
// the knowledge graph out.
func TestAnswer_Contract(t *testing.T) {
	ctxt := searchSample(t, []string{"partner"}, []string{"Marley"})
	for i := range ctxt.Chunks {
		ctxt.Chunks[i].Document = "A Christmas Carol"
	}
	c := &stubClient{reply: " Scrooge was his partner [1].\n\n### References\n\n- [1] A Christmas Carol "}
	history := []llm.Message{{Role: "user", Content: "Who is Scrooge?"}, {Role: "assistant", Content: "A miser [1]."}, {Role: "system", Content: "ignored"}}
	req := AnswerRequest{Question: "Who was Marley's partner?", History: history, ResponseType: "Bullet Points", UserPrompt: "Answer in one line."}
	text, rec, err := Answer(context.Background(), c, req, ctxt)
	if err != nil || !strings.HasPrefix(text, "Scrooge was his partner [1].") || rec.Purpose != "query-answer" {
		t.Fatalf("Answer = %q %+v %v", text, rec, err)
	}
	msgs := c.got.Messages
	if len(msgs) != 4 || msgs[0].Role != "system" || msgs[1].Content != "Who is Scrooge?" || msgs[2].Role != "assistant" || msgs[3].Content != req.Question {
		t.Fatalf("messages %+v", msgs)
	}
	p := msgs[0].Content
	for _, want := range []string{"Bullet Points", "Answer in one line.", "### References", "at most 5", ctxt.RenderForAnswer(false),
		"Knowledge Graph Data (Entity)", `"reference_id":"1"`, "[1] A Christmas Carol"} {
		if !strings.Contains(p, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, p)
		}
	}
	if got := ctxt.Cited(text); len(got) == 0 || got[0] != ctxt.Chunks[0].Ref {
		t.Errorf("a citation of document 1 should name its passages: %v", got)
	}
	req.Mode, req.ResponseType, req.UserPrompt = ModeNaive, "", ""
	p = AnswerPrompt(req, ctxt)
	if strings.Contains(p, "Knowledge Graph Data") || !strings.Contains(p, DefaultResponseType) || strings.Contains(p, "More instructions") {
		t.Errorf("naive prompt:\n%s", p)
	}
}

// TestExtractive: without a model the answer quotes the sentences that
// match the question best, cites their documents by reference number and
// ends with the references; a question no sentence matches says so.
func TestExtractive(t *testing.T) {
	c := Context{Chunks: []ChunkHit{
		{Ref: "C1", DocumentID: 7, Document: "Carol", Text: "Marley was dead, to begin with. Scrooge was Marley's sole partner for many years."},
		{Ref: "C2", DocumentID: 9, Document: "Notes", Text: "The fog came in. Scrooge signed the register. Scrooge was Marley's sole partner for many years."},
	}}
	got := Extractive("Who was Marley's partner?", c, 2)
	if !strings.HasPrefix(got, ExtractiveNote) {
		t.Fatalf("no extractive note:\n%s", got)
	}
	lines := strings.Split(got, "\n")
	var quoted []string
	for _, l := range lines {
		if strings.HasPrefix(l, "- ") && !strings.Contains(got[:strings.Index(got, l)], "### References") {
			quoted = append(quoted, l)
		}
	}
	if len(quoted) != 2 || quoted[0] != "- Scrooge was Marley's sole partner for many years. [1]" || quoted[1] != "- Marley was dead, to begin with. [1]" {
		t.Fatalf("quoted %q in\n%s", quoted, got)
	}
	if !strings.HasSuffix(got, "### References\n\n- [1] Carol\n") {
		t.Fatalf("references:\n%s", got)
	}
	if refs := c.References(); len(refs) != 2 || refs[1].N != 2 || refs[1].Title != "Notes" {
		t.Fatalf("references %+v", refs)
	}
	// Chinese: no spaces, still sentences.
	zh := Context{Chunks: []ChunkHit{{Ref: "C1", DocumentID: 1, Document: "周杰伦", Text: "周杰伦出生于台湾新北市。他是著名歌手。"}}}
	if got := Extractive("周杰伦出生在哪里？", zh, 2); !strings.Contains(got, "- 周杰伦出生于台湾新北市。 [1]") {
		t.Fatalf("Chinese:\n%s", got)
	}
	if none := Extractive("quantum chromodynamics", c, 2); !strings.Contains(none, "not enough information") || strings.Contains(none, "### References") {
		t.Fatalf("no match:\n%s", none)
	}
}

// TestProseSentences: wrapped lines join; a sentence ends after its
// closing quote, not inside a quotation's "!'" followed by lower case,
// nor after "Mr." or an initial; Chinese end marks end sentences.
func TestProseSentences(t *testing.T) {
	text := "Marley was dead: to begin with. Mr. Scrooge signed\nit. 'Humbug!' said Scrooge, 'humbug!' he said again.\n\n" +
		"J. Marley had a partner. 周杰伦出生于台湾。他是歌手。"
	got := proseSentences(text)
	want := []string{"Marley was dead: to begin with.", "Mr. Scrooge signed it.", "'Humbug!' said Scrooge, 'humbug!' he said again.",
		"J. Marley had a partner.", "周杰伦出生于台湾。", "他是歌手。"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// An extractive answer quotes the sentences that answer about as well as
// the best, not those sharing a word with the question in passing, and
// never a title line or heading while a sentence of prose matches.
func TestExtractive_OnlyWhatAnswers(t *testing.T) {
	c := Context{Chunks: []ChunkHit{
		{Ref: "C1", DocumentID: 1, Document: "wright.html", Text: "The Wright Brothers First Flight\n\nOrville and Wilbur Wright built the first successful airplane and flew it in 1903. The weather that December was cold."},
		{Ref: "C2", DocumentID: 2, Document: "apollo.pdf", Text: "The first crew flew around the Moon in 1968. Engineers built the Saturn V."},
	}}
	got := Extractive("Who built the first successful airplane?", c, 4)
	var quoted []string
	for _, l := range strings.Split(got[:strings.Index(got, "### References")], "\n") {
		if strings.HasPrefix(l, "- ") {
			quoted = append(quoted, l)
		}
	}
	if len(quoted) == 0 || !strings.HasPrefix(quoted[0], "- Orville and Wilbur Wright built the first successful airplane") {
		t.Fatalf("first quote %q", quoted)
	}
	for _, q := range quoted {
		if strings.Contains(q, "First Flight") || strings.Contains(q, "Saturn V") || strings.Contains(q, "weather") {
			t.Errorf("quoted padding or a title: %q", q)
		}
	}
	if strings.Contains(got, "apollo.pdf") {
		t.Errorf("cites a document that does not answer:\n%s", got)
	}
}

// A question's verb meets its past form in the passages: "marry" the
// sentence that says she married, "die" the one that says she died, not
// only the sentences that repeat the name the question gives.
func TestExtractive_PastForms(t *testing.T) {
	c := Context{Chunks: []ChunkHit{{Ref: "C1", DocumentID: 1, Document: "ada.txt",
		Text: "Ada Lovelace was born in London on 10 December 1815. Ada Lovelace wrote the first published algorithm. " +
			"She married William King in 1835. She died in Marylebone on 27 November 1852."}}}
	for q, want := range map[string]string{
		"Who did Ada Lovelace marry?": "She married William King",
		"When did Ada Lovelace die?":  "She died in Marylebone",
	} {
		got := Extractive(q, c, 4)
		if !strings.Contains(got, want) {
			t.Errorf("%s:\n%s\nwant a quote of %q", q, got, want)
		}
	}
}
