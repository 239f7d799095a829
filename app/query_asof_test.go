package app

import (
	"context"
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
}
