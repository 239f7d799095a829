package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// A dialogue in which a fact changes between two sessions: asked as of a
// date before the change, the graph answers with the old value and only
// the turns said by then; asked now, with the new value.
func TestQueries_AsOf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const dlg = `{"title": "Rex", "sessions": [
	 {"id": "s1", "start": "2023-01-10", "turns": [
	  {"role": "user", "text": "My dog Rex is a tiny puppy who chews every shoe."},
	  {"role": "assistant", "text": "Puppies love to chew; try a rubber toy."}]},
	 {"id": "s2", "start": "2023-06-01", "turns": [
	  {"role": "user", "text": "Rex is now a calm grown dog who sleeps all day."},
	  {"role": "assistant", "text": "Dogs settle as they grow."}]}]}`
	a, _, d := testApp(t, "rex.json", dlg)
	cfg := extract.DefaultConfig()
	cfg.Strategy = extract.StrategyDialogue
	v, _ := mustRun(t, a, RunRequest{Extraction: "rex", Config: cfg, DocumentIDs: []int{d.ID}})

	rex := func(asOf string) (string, []int) {
		t.Helper()
		res, err := a.Queries.Ask(ctx, v, QueryInput{Question: "What is Rex like?", Mode: "mix", RetrievalOnly: true, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.AsOf != asOf {
			t.Errorf("as_of %q answered as %q", asOf, res.AsOf)
		}
		var desc string
		for _, e := range res.Entities {
			if e.Name == "Rex" {
				desc = e.Description
			}
		}
		var chunks []int
		for _, c := range res.Chunks {
			chunks = append(chunks, c.Index)
		}
		return desc, chunks
	}
	if desc, chunks := rex("2023-03-01"); !strings.Contains(desc, "puppy") || len(chunks) != 1 || chunks[0] != 0 {
		t.Errorf("as of March: Rex is %q from chunks %v; want the puppy, from the first turn only", desc, chunks)
	}
	if desc, chunks := rex(""); !strings.Contains(desc, "calm grown dog") || len(chunks) != 2 {
		t.Errorf("now: Rex is %q from chunks %v; want the grown dog, from both turns", desc, chunks)
	}
	if desc, _ := rex("2023-06-01"); !strings.Contains(desc, "calm grown dog") {
		t.Errorf("as of the day it changed: Rex is %q; a date covers the whole day", desc)
	}
	if _, err := a.Queries.Ask(ctx, v, QueryInput{Question: "Rex?", AsOf: "last spring"}); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("an unreadable as_of: %v; want an invalid error", err)
	}
	// An empty question is refused; the form before one reads the input.
	if _, err := a.Queries.Ask(ctx, v, QueryInput{Question: " \n "}); !errors.Is(err, ErrEmptyQuestion) {
		t.Errorf("an empty question: %v; want ErrEmptyQuestion", err)
	}
	if res, err := a.Queries.Blank(QueryInput{Mode: "ppr"}); err != nil || res.Mode != "ppr" || res.TopK == 0 {
		t.Errorf("the blank form: %+v, %v", res, err)
	}
	if _, err := a.Queries.Blank(QueryInput{Mode: "sideways"}); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("the blank form with an unknown mode: %v; want an invalid error", err)
	}
}

// A question naming a span of time ranks a dialogue's rounds said in it
// first: "two weeks ago" read against as_of, or against the
// conversation's last day; the same question without the span does not.
func TestQueries_TimeSpan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const dlg = `{"title": "Hikes", "sessions": [
	 {"id": "s1", "start": "2023-05-07", "turns": [
	  {"role": "user", "text": "I went hiking at Mount Tam with my sister."},
	  {"role": "assistant", "text": "Mount Tam has lovely views."}]},
	 {"id": "s2", "start": "2023-05-20", "turns": [
	  {"role": "user", "text": "I went hiking at Mount Diablo with my sister."},
	  {"role": "assistant", "text": "Mount Diablo is steep."}]},
	 {"id": "s3", "start": "2023-05-21", "turns": [
	  {"role": "user", "text": "Any tips for a rainy day?"},
	  {"role": "assistant", "text": "A museum, perhaps."}]}]}`
	a, _, d := testApp(t, "hikes.json", dlg)
	cfg := extract.DefaultConfig()
	cfg.Strategy = extract.StrategyDialogue
	v, _ := mustRun(t, a, RunRequest{Extraction: "hikes", Config: cfg, DocumentIDs: []int{d.ID}})
	first := func(q, asOf string) int {
		t.Helper()
		res, err := a.Queries.Ask(ctx, v, QueryInput{Question: q, Mode: "mix", RetrievalOnly: true, AsOf: asOf})
		if err != nil || len(res.Chunks) == 0 {
			t.Fatalf("%q as of %q: %v (%d chunks)", q, asOf, err, len(res.Chunks))
		}
		return res.Chunks[0].Index
	}
	// Chunk 0 is the first session's round, chunk 1 the second's.
	if got := first("Where did I go hiking with my sister two weeks ago?", ""); got != 0 {
		t.Errorf("two weeks before the last day: chunk %d first, want 0 (May 7)", got)
	}
	if got := first("Where did I go hiking with my sister two weeks ago?", "2023-06-03"); got != 1 {
		t.Errorf("two weeks before June 3: chunk %d first, want 1 (May 20)", got)
	}
}

// In a conversation with an assistant a round is also ranked by the
// user's words: the user's short remark about a model kit comes before a
// round whose long advice repeats "model kits", and a question about what
// the assistant recommended ranks by the assistant's words.
func TestQueries_DialogueSides(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	advice := strings.Repeat("Model kits take washes well; weathering model kits is a craft, and many model kits builders start with acrylics. ", 3)
	dlg := `{"title": "Kits", "sessions": [
	 {"id": "s1", "start": "2023-05-07", "turns": [
	  {"role": "user", "text": "Any tips for weathering?"},
	  {"role": "assistant", "text": "` + advice + `"}]},
	 {"id": "s2", "start": "2023-05-20", "turns": [
	  {"role": "user", "text": "I finished the Tamiya Spitfire model kit last week and started a tank."},
	  {"role": "assistant", "text": "Well done."}]},
	 {"id": "s3", "start": "2023-05-21", "turns": [
	  {"role": "user", "text": "I stayed at a hostel near the station once and the hostel was noisy."},
	  {"role": "assistant", "text": "Sorry to hear that."},
	  {"role": "user", "text": "Where should I stay in Amsterdam?"},
	  {"role": "assistant", "text": "The Flying Pig is a friendly hostel near the station."}]}]}`
	a, _, d := testApp(t, "kits.json", dlg)
	cfg := extract.DefaultConfig()
	cfg.Strategy = extract.StrategyDialogue
	v, _ := mustRun(t, a, RunRequest{Extraction: "kits", Config: cfg, DocumentIDs: []int{d.ID}})
	first := func(q string) int {
		t.Helper()
		res, err := a.Queries.Ask(ctx, v, QueryInput{Question: q, Mode: "naive", RetrievalOnly: true})
		if err != nil || len(res.Chunks) == 0 {
			t.Fatalf("%q: %v, %d chunks", q, err, len(res.Chunks))
		}
		return res.Chunks[0].Index
	}
	if got := first("How many model kits have I worked on?"); got != 1 {
		t.Errorf("model kits: round %d first, want the user's Spitfire (1)", got)
	}
	if got := first("Can you remind me of the hostel near the station you recommended?"); got != 3 {
		t.Errorf("the assistant's hostel: round %d first, want its recommendation (3)", got)
	}
}
