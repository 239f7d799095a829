package app

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/store"
)

// llmTestApp opens an SQLite store in a temp dir and an app whose openai
// provider is srv.
func llmTestApp(t *testing.T, srv *fakellm.Server, concurrency int) (*App, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), store.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Runs vectorize with the hashed embedder: the sentence encoder has
	// tests of its own.
	return newApp(st, log, Providers{OpenAIBaseURL: srv.OpenAIURL(), OpenAIModel: "local", Concurrency: concurrency, Embedder: extract.EmbedderOffline}), st
}

// addDoc stores a document read from text.
func addDoc(t *testing.T, st *store.Store, name, text string) extract.Document {
	t.Helper()
	d, err := extract.ReadDocument(name, []byte(text), extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err = st.AddDocument(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Twenty LLM runs at concurrency 16 on one SQLite file, all at once: every
// model call is written to the call cache while chunks are written, and not
// one run may fail (the cache once wrote outside the store's write lock and
// died with "database is locked").
func TestApp_ManyLLMRunsOnSQLite(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("sample/christmas_carol_stave_one.txt")
	if err != nil {
		t.Fatal(err)
	}
	answer := "entity<|#|>Scrooge<|#|>person<|#|>A miser.\nentity<|#|>Marley<|#|>person<|#|>His partner.\n" +
		"relation<|#|>Scrooge<|#|>Marley<|#|>partner<|#|>Partners.\n<|COMPLETE|>"
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: answer}}})
	a, st := llmTestApp(t, srv, 16)
	ctx := context.Background()
	d := addDoc(t, st, "carol.txt", string(text[:12000]))
	const runs = 20
	vs := make([]record.Version, runs)
	for i := range vs {
		cfg := extract.DefaultConfig()
		cfg.Strategy, cfg.Provider = extract.StrategyTuple, "openai"
		// A chunk size of its own per run: every run asks new prompts.
		cfg.ChunkSize, cfg.Overlap, cfg.Concurrency, cfg.MaxGleaning = 500+7*i, 0, 16, 0
		v, _, err := a.Runs.NewRun(ctx, RunRequest{Extraction: "many", Config: cfg, DocumentIDs: []int{d.ID}})
		if err != nil {
			t.Fatal(err)
		}
		vs[i] = v
	}
	var wg sync.WaitGroup
	errs := make([]error, runs)
	for i, v := range vs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = a.Runs.Run(ctx, v, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("run %d: %v", i+1, err)
		}
	}
	for _, v := range vs {
		got, err := st.Version(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != record.StatusDone || got.ChunksDone != got.ChunksTotal || got.ChunksTotal < 20 {
			t.Errorf("%s: %s, %d of %d chunks: %s", got.Label(), got.Status, got.ChunksDone, got.ChunksTotal, got.Error)
		}
	}
}

// A schema-strategy run over the RiskMining schema: the model finds who
// holds shares and which certificates are used, and the schema's release
// rule derives that the shareholder releases the app.
func TestApp_SchemaRulesDeriveRelations(t *testing.T) {
	src := testkit.Read(t, "kag-schemas/RiskMining.schema")
	sc, err := schema.ParseKAGString(string(src))
	if err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "belongs to one of the schema types", Text: `{"entities": [{"name": "Alice", "category": "Person"}, {"name": "Acme", "category": "Company"},
			{"name": "Cert-1", "category": "Cert"}, {"name": "PayApp", "category": "App"}]}`},
		{Contains: "official name", Text: `{"entities": []}`},
		{Contains: "Find the relations", Text: `{"relations": [["Alice", "holdShare", "Acme"], ["Acme", "hasCert", "Cert-1"], ["PayApp", "useCert", "Cert-1"]]}`},
	}})
	a, st := llmTestApp(t, srv, 1)
	ctx := context.Background()
	if _, _, err := st.SaveSchema(ctx, "risk", store.AnyBase, sc, ""); err != nil {
		t.Fatal(err)
	}
	d := addDoc(t, st, "risk.txt", "Alice holds shares of Acme, whose certificate Cert-1 PayApp uses.")
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.Language = extract.StrategySchema, "openai", "en"
	_, g := mustRun(t, a, RunRequest{Extraction: "risk", Config: cfg, SchemaRef: "risk", DocumentIDs: []int{d.ID}})
	found := false
	for _, e := range g.Edges {
		if e.Label == "release" && e.Source == extract.TypedNodeKey("Person", "Alice") && e.Target == extract.TypedNodeKey("App", "PayApp") && e.Properties["rule"] == true {
			found = true
		}
	}
	if !found {
		t.Errorf("no derived release edge in %+v", g.Edges)
	}
}

// Long lists of document ids: repeats run once, ids past SQLite's limit
// of values in one query are checked in batches (an unknown one named),
// and more than MaxRunDocuments are refused with the reason.
func TestNewRun_LongDocumentLists(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, d := testApp(t, "marley.txt", "Marley was dead. Scrooge signed it.")
	same := make([]int, 40_000)
	for i := range same {
		same[i] = d.ID
	}
	v, _, err := a.Runs.NewRun(ctx, RunRequest{Extraction: "many", Config: extract.DefaultConfig(), DocumentIDs: same})
	if err != nil || len(v.DocumentIDs) != 1 {
		t.Fatalf("40,000 times one document: %v, %v", v.DocumentIDs, err)
	}
	unknown := make([]int, 40_000)
	for i := range unknown {
		unknown[i] = d.ID + 1 + i
	}
	_, _, err = a.Runs.NewRun(ctx, RunRequest{Extraction: "many", Config: extract.DefaultConfig(), DocumentIDs: append([]int{d.ID}, unknown...)})
	if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("40,000 unknown documents: %v", err)
	}
	_, _, err = a.Runs.NewRun(ctx, RunRequest{Extraction: "many", Config: extract.DefaultConfig(), DocumentIDs: make([]int, MaxRunDocuments+1)})
	if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("too many documents: %v", err)
	}
}
