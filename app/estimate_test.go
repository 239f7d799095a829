package app

import (
	"context"
	"os"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// An estimate of a tuple run (gleaning off) counts exactly the calls the
// run then makes, its input tokens within 10% of what the provider
// reports, stores nothing and calls no model; with gleaning on it counts
// every round as an upper bound; nlp costs nothing; strategies whose
// calls depend on the answers are refused.
func TestApp_EstimateRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	text, err := os.ReadFile("sample/christmas_carol_stave_one.txt")
	if err != nil {
		t.Fatal(err)
	}
	answer := "entity<|#|>Scrooge<|#|>person<|#|>A miser.\nentity<|#|>Marley<|#|>person<|#|>His partner.\n" +
		"relation<|#|>Scrooge<|#|>Marley<|#|>partners<|#|>They were partners.\n<|COMPLETE|>"
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: answer}}})
	a, st := llmTestApp(t, srv, 4)
	doc := extract.Document{Name: "carol.txt", Kind: "text", Content: string(text)}
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.MaxGleaning = extract.StrategyTuple, extract.ProviderOpenAI, 0
	if err := a.Runs.Prepare(ctx, &cfg, ""); err != nil {
		t.Fatal(err)
	}
	est, err := a.Runs.EstimateRun(ctx, cfg, []extract.Document{doc})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Count() != 0 {
		t.Fatalf("the estimate called the model %d times", srv.Count())
	}
	if docs, err := st.ListDocuments(ctx, 0); err != nil || len(docs) != 0 {
		t.Fatalf("the estimate stored %d documents (%v)", len(docs), err)
	}
	if est.Chunks < 5 || est.Calls != est.Chunks || est.ExactTokens || est.Currency != "USD" || est.Model != "local" || est.Priced {
		t.Fatalf("estimate %+v", est)
	}
	// The run itself.
	v := runConfig(t, a, st, "carol", cfg, addDoc(t, st, "carol.txt", string(text)).ID)
	if srv.Count() != est.Calls || v.Calls != est.Calls || v.ChunksTotal != est.Chunks {
		t.Fatalf("the run made %d calls (%d recorded) over %d chunks; the estimate said %d over %d", srv.Count(), v.Calls, v.ChunksTotal, est.Calls, est.Chunks)
	}
	if r := float64(est.InputTokens) / float64(v.PromptTokens); r < 0.9 || r > 1.1 {
		t.Fatalf("estimated %d input tokens, the provider counted %d", est.InputTokens, v.PromptTokens)
	}
	// Gleaning on: every round counted, as an upper bound; a priced model
	// is priced.
	cfg.MaxGleaning = 2
	a.Models.providers.Prices = map[string]Price{"local": {Input: 1, Output: 2}}
	glean, err := a.Runs.EstimateRun(ctx, cfg, []extract.Document{doc})
	if err != nil {
		t.Fatal(err)
	}
	want := (float64(glean.InputTokens)*1 + float64(glean.OutputTokens)*2) / 1e6
	if glean.Calls != 3*est.Chunks || glean.InputTokens <= 3*est.InputTokens || !glean.Priced || glean.Cost != want {
		t.Fatalf("with gleaning: %+v (want %d calls, cost %v)", glean, 3*est.Chunks, want)
	}
	// nlp asks nothing; schema is refused with the reason.
	off := extract.DefaultConfig()
	if e, err := a.Runs.EstimateRun(ctx, off, []extract.Document{doc}); err != nil || e.Calls != 0 || e.Cost != 0 || !e.Priced || e.Chunks != est.Chunks {
		t.Fatalf("nlp estimate %+v (%v)", e, err)
	}
	cfg.Strategy = extract.StrategySchema
	if _, err := a.Runs.EstimateRun(ctx, cfg, []extract.Document{doc}); extract.KindOf(err) != extract.KindInvalid {
		t.Fatalf("schema estimate: %v", err)
	}
}
