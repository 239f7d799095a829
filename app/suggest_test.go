package app

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/store"
)

// suggestSample is a short text for the model to draft a schema from;
// suggestBroken is one its replay answers with an answer cut off.
const (
	suggestSample = "Maria Lopez joined Acme Corporation in Boston. Daniel Kim founded Initech Software."
	suggestBroken = "Sarah Chen met Maria Lopez in Chicago."
)

// TestSuggest_ByModel: a draft by the model is its answer whole, asked
// once (the second ask is the call cache's); an answer cut off is
// refused, nothing drafted, and its call is not served again, so the
// next ask asks the model (SQLite and PostgreSQL).
func TestSuggest_ByModel(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Anywhere: "You design the schema of a knowledge graph", Contains: suggestBroken, Text: fakellm.Load(t, "testdata/suggest/cutoff.json")},
		{Anywhere: "You design the schema of a knowledge graph", Text: fakellm.Load(t, "testdata/suggest/schema.json")},
	}})
	reportBackends(t, srv, func(t *testing.T, a *App, _ *store.Store) {
		ctx := context.Background()
		srv.Reset()
		docs := []extract.Document{{Name: "news.txt", Content: suggestSample}}
		o := SuggestOptions{Provider: extract.ProviderGemini}
		var first *schema.Schema
		for i := range 2 {
			sc, err := a.Schemas.Suggest(ctx, "News", docs, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(sc.Types) != 4 || sc.Types[0].Name != "Person" || !strings.HasPrefix(sc.Description, "Drafted by gemini-2.5-flash from 1 passage") {
				t.Fatalf("ask %d: %+v", i+1, sc)
			}
			if first == nil {
				first = sc
			} else if d := schema.Diff(first, sc); !d.Empty() {
				t.Fatalf("the second draft differs: %v", d.Items)
			}
			if srv.Count() != 1 {
				t.Fatalf("ask %d: %d calls, want 1", i+1, srv.Count())
			}
		}
		broken := []extract.Document{{Name: "broken.txt", Content: suggestBroken}}
		for i := 2; i <= 3; i++ {
			sc, err := a.Schemas.Suggest(ctx, "News", broken, o)
			if sc != nil || extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), "could not be read (the answer is cut off)") {
				t.Fatalf("cut-off answer: %v, %v", sc, err)
			}
			if srv.Count() != i {
				t.Fatalf("%d calls after %d asks of the cut-off answer", srv.Count(), i-1)
			}
		}
		if _, err := a.Schemas.Suggest(ctx, "News", docs, SuggestOptions{Provider: extract.ProviderOpenAI}); err == nil || !strings.Contains(err.Error(), "the openai provider is not configured") {
			t.Fatalf("openai not configured: %v", err)
		}
	})
}

// An offline suggestion reads at most suggestOfflineBytes of a large
// sample, in chunks spread over all of it (its end as well as its start);
// a small sample is read whole.
func TestSpreadJobs(t *testing.T) {
	var b strings.Builder
	for i := range 80_000 {
		fmt.Fprintf(&b, "Person%05d met Person%05d in Town%05d. ", i, i+1, i)
	}
	docs := []extract.Document{{ID: 1, Name: "big.txt", Content: b.String()}}
	jobs, err := extract.Plan(docs, extract.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	got := spreadJobs(jobs, suggestOfflineBytes)
	text := 0
	for _, j := range got {
		text += len(j.Chunk.Text)
	}
	if len(b.String()) < 2*suggestOfflineBytes || text > suggestOfflineBytes || text < suggestOfflineBytes*9/10 {
		t.Fatalf("kept %d bytes of %d, want at most %d and near it", text, len(b.String()), suggestOfflineBytes)
	}
	if got[0].Chunk.Index != 0 || got[len(got)-1].Chunk.Index < len(jobs)*9/10 {
		t.Fatalf("kept chunks %d to %d of %d: not spread over the sample", got[0].Chunk.Index, got[len(got)-1].Chunk.Index, len(jobs))
	}
	if small := jobs[:3]; len(spreadJobs(small, suggestOfflineBytes)) != 3 {
		t.Fatal("a small sample was not read whole")
	}
}
