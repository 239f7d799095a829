package community

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
)

var reportFactsOf = map[string][]extract.ChunkRef{
	"E1": {{DocumentID: 1, Index: 0}},
	"E2": {{DocumentID: 1, Index: 2}},
	"R1": {{DocumentID: 1, Index: 0}, {DocumentID: 1, Index: 1}},
}

func TestParseReport(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		// In a code fence after thinking; the rating as a string; refs
		// written loosely; a ref to no fact dropped, and the finding that
		// cites only such refs with it.
		text := "<think>hmm</think>```json\n" + `{"title": " Engines ", "summary": "Babbage and Lovelace.", "rating": "8",
			"findings": [{"text": "They worked together.", "refs": ["[e1]", "R1", "X7"]}, {"text": "Invented.", "refs": ["X7"]}]}` + "\n```"
		r, err := parseReport(text, reportFactsOf)
		if err != nil {
			t.Fatal(err)
		}
		if r.Title != "Engines" || r.Rating != 8 || r.By != ByModel || len(r.Findings) != 1 {
			t.Fatalf("report %+v", r)
		}
		if got := r.Findings[0].Chunks; len(got) != 2 || got[0].Index != 0 || got[1].Index != 1 {
			t.Fatalf("chunks %+v, want passages 0 and 1 once each", got)
		}
	})
	for _, tc := range []struct{ name, text string }{
		{"NotJSON", "The community is about engines."},
		{"BrokenJSON", `{"title": "x", "summary": }`},
		{"NoTitle", `{"summary": "s", "rating": 5, "findings": [{"text": "t", "refs": ["E1"]}]}`},
		{"RatingTooHigh", `{"title": "x", "summary": "s", "rating": 11, "findings": [{"text": "t", "refs": ["E1"]}]}`},
		{"RatingNaN", `{"title": "x", "summary": "s", "rating": "NaN", "findings": [{"text": "t", "refs": ["E1"]}]}`},
		{"RatingMissing", `{"title": "x", "summary": "s", "findings": [{"text": "t", "refs": ["E1"]}]}`},
		{"NothingCited", `{"title": "x", "summary": "s", "rating": 3, "findings": [{"text": "t", "refs": []}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseReport(tc.text, reportFactsOf); !errors.Is(err, ErrMalformed) {
				t.Fatalf("got %v, want a malformed report", err)
			}
		})
	}
}

// recorded answers one recorded text and keeps the request.
type recorded struct {
	text string
	req  llm.Request
}

func (r *recorded) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	r.req = req
	return llm.Response{Text: r.text, Record: extract.CallRecord{Key: "k", Response: r.text}}, nil
}

// TestModelReport: the request shows the community's members and inner
// relations with ids (the members of other communities not), and the
// report's findings point at the passages of the facts they cite.
func TestModelReport(t *testing.T) {
	g := extract.Graph{
		Nodes: []extract.Node{
			{Key: "ada", Name: "Ada Lovelace", Type: "Person", Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: 0}}},
			{Key: "babbage", Name: "Charles Babbage", Type: "Person", Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: 1}}},
			{Key: "ahab", Name: "Captain Ahab", Type: "Person"},
		},
		Edges: []extract.Edge{{Source: "ada", Target: "babbage", Label: "worked_with", Description: "Ada | worked with Babbage.",
			Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: 3}}}},
	}
	c := Community{ID: 4, Size: 2, Members: []string{"babbage", "ada"}}
	client := &recorded{text: `{"title": "Engines", "summary": "Two makers.", "rating": 6, "findings": [{"text": "They worked together.", "refs": ["R1", "E2"]}]}`}
	r, rec, err := ModelReport(context.Background(), client, c, g)
	if err != nil || rec.Key != "k" {
		t.Fatalf("%v (record %+v)", err, rec)
	}
	user := client.req.Messages[1].Content
	for _, want := range []string{"E1 | Charles Babbage | Person", "E2 | Ada Lovelace", "R1 | Ada Lovelace | worked_with | Charles Babbage | Ada / worked with Babbage."} {
		if !strings.Contains(user, want) {
			t.Fatalf("the request lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "Ahab") || client.req.JSONSchema == nil {
		t.Fatalf("the request shows another community's member or asks no JSON:\n%s", user)
	}
	if r.Community != 4 || len(r.Findings) != 1 || len(r.Findings[0].Chunks) != 2 || r.Findings[0].Chunks[0].Index != 3 || r.Findings[0].Chunks[1].Index != 0 {
		t.Fatalf("report %+v", r)
	}
}

func FuzzParseReport(f *testing.F) {
	f.Add(`{"title": "x", "summary": "s", "rating": 5, "findings": [{"text": "t", "refs": ["E1"]}]}`)
	f.Add("```json\n{\"title\": \"x\"}\n```")
	f.Add(`{"rating": "NaN"}`)
	f.Fuzz(func(t *testing.T, text string) {
		r, err := parseReport(text, reportFactsOf)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("an error that is not ErrMalformed: %v", err)
			}
			return
		}
		if r.Title == "" || r.Summary == "" || !(r.Rating >= 0 && r.Rating <= 10) || len(r.Findings) == 0 || len(r.Findings) > reportFindings {
			t.Fatalf("accepted %+v", r)
		}
	})
}
