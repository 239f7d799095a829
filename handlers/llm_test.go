package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

const marley = `Marley was dead, to begin with. There is no doubt whatever about that. The register of his burial was signed by the clergyman, the clerk, the undertaker, and the chief mourner. Scrooge signed it. Old Marley was as dead as a door-nail.`

func marleyServer(t *testing.T) *fakellm.Server {
	return fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "last answer missed", Anywhere: "Marley was dead", Text: fakellm.Load(t, "testdata/marley_glean.txt")},
		{Contains: "Marley was dead", Text: fakellm.Load(t, "testdata/marley_extract.txt")},
	}})
}

// runForm posts the run form and waits for the version to finish.
func runForm(t *testing.T, a *testApp, form url.Values) int {
	t.Helper()
	resp, err := noRedirect.PostForm(a.Server.URL+"/extractions", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("run form: status %d", resp.StatusCode)
	}
	var id int
	fmt.Sscanf(resp.Header.Get("Location"), "/versions/%d", &id)
	if v := waitVersion(t, a, id); v.Status != record.StatusDone {
		t.Fatalf("run %s: %s", v.Status, v.Error)
	}
	return id
}

func TestLLMRun_TupleThroughUI(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"gemini", "openai"} {
		t.Run(provider, func(t *testing.T) {
			srv := marleyServer(t)
			a := MustAppWith(t, app.Providers{
				GeminiAPIKey: "test-key-never-shown", GeminiBaseURL: srv.GeminiURL(), GeminiModel: "gemini-2.5-flash",
				OpenAIBaseURL: srv.OpenAIURL(), OpenAIModel: "local-model", Concurrency: 2, Timeout: 10 * time.Second,
			})
			d, _ := extract.ReadDocument("marley.txt", []byte(marley), extract.DefaultMaxBytes)
			d, _, _ = a.AddDocument(context.Background(), d)
			form := url.Values{"name": {"marley"}, "doc": {fmt.Sprint(d.ID)}, "strategy": {"tuple"},
				"provider": {provider}, "chunk_size": {"2000"}, "overlap": {"0"}, "max_gleaning": {"1"}}
			for k, v := range app.DefaultPrompts() {
				form.Set("prompt_"+k, v)
			}
			id := runForm(t, a, form)
			if got := srv.Count(); got != 2 {
				t.Fatalf("first run: %d provider calls, want 2 (extract + 1 gleaning)", got)
			}
			v, _ := a.App.Versions.Get(context.Background(), id)
			if v.Calls != 2 || v.CachedCalls != 0 || v.PromptTokens == 0 || v.ParseFailures == 0 {
				t.Fatalf("version stats: %+v", v)
			}
			if len(v.Config.Prompts) == 0 {
				t.Fatal("the prompts were not snapshotted")
			}
			for k := range v.Config.Prompts {
				if !strings.HasPrefix(k, "tuple_") {
					t.Fatalf("a tuple run snapshotted the %s prompt", k)
				}
			}
			g, _ := a.App.Graphs.Load(context.Background(), id, false)
			names := map[string]bool{}
			for _, n := range g.Nodes {
				names[n.Name] = true
			}
			for _, want := range []string{"Marley", "Scrooge", "Door-nail"} {
				if !names[want] {
					t.Errorf("node %q missing: %v", want, names)
				}
			}

			// The inspector shows prompts, raw outputs and parse failures.
			_, doc := a.Get(t, fmt.Sprintf("/versions/%d/chunks/%d/0", id, d.ID))
			if n := doc.Find(`[data-testid="call"]`).Length(); n != 2 {
				t.Fatalf("inspector shows %d calls", n)
			}
			if !strings.Contains(doc.Find(`[data-testid="call-request"]`).First().Text(), "Marley was dead") {
				t.Fatal("prompt not shown")
			}
			if !strings.Contains(doc.Find(`[data-testid="call-response"]`).Last().Text(), "<|COMPLETE|>") {
				t.Fatal("raw gleaning output not shown")
			}
			parsed := doc.Find(`[data-testid="call-parsed"]`)
			if parsed.Length() != 2 || !strings.Contains(parsed.Eq(1).Find("li.diff-add").Text(), "Door-nail") {
				t.Fatalf("gleaning round's additions not shown: %q", parsed.Text())
			}
			if strings.Contains(parsed.Eq(1).Find("li.diff-add").Text(), "Scrooge") {
				t.Fatal("an item from the first round is marked new in the second")
			}
			if doc.Find(`[data-testid="failures"] tr`).Length() < 2 {
				t.Fatal("parse failures not shown")
			}
			if strings.Contains(doc.Text(), "test-key-never-shown") {
				t.Fatal("API key rendered")
			}

			// The same config again makes no provider call, and costs nothing.
			id2 := runForm(t, a, form)
			if got := srv.Count(); got != 2 {
				t.Fatalf("re-run made %d new provider calls, want 0", got-2)
			}
			v2, _ := a.App.Versions.Get(context.Background(), id2)
			if v2.CachedPromptTokens != v2.PromptTokens || v2.PromptTokens == 0 {
				t.Fatalf("cached tokens %d of %d", v2.CachedPromptTokens, v2.PromptTokens)
			}
			if provider == "gemini" {
				if c := a.App.Providers().CostOf(v2); c != "$0.0000" {
					t.Fatalf("a fully cached run cost %s", c)
				}
				if c := a.App.Providers().CostOf(v); c == "$0.0000" || strings.HasPrefix(c, "n/a") {
					t.Fatalf("the first run cost %s", c)
				}
			}
			// Changing the gleaning prompt pays only for the gleaning call.
			form.Set("prompt_tuple_continue", form.Get("prompt_tuple_continue")+"\nBe thorough.")
			id3 := runForm(t, a, form)
			if got := srv.Count(); got != 3 {
				t.Fatalf("after a prompt edit: %d calls in all, want 3", got)
			}
			v3, _ := a.App.Versions.Get(context.Background(), id3)
			if v3.CachedCalls != 1 || !strings.Contains(v3.Config.Prompts["tuple_continue"], "Be thorough.") {
				t.Fatalf("third version: cached %d, prompt kept %v", v3.CachedCalls, strings.Contains(v3.Config.Prompts["tuple_continue"], "Be thorough."))
			}
		})
	}
}

func TestLLMRun_NoProviderIsAClearError(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	d, _ := extract.ReadDocument("m.txt", []byte(marley), extract.DefaultMaxBytes)
	d, _, _ = a.AddDocument(context.Background(), d)
	for _, tc := range []struct{ provider, want string }{
		{"gemini", "GEMINI_API_KEY"},
		{"none", "needs a model provider"},
		{"openai", "OPENAI_BASE_URL"},
	} {
		resp, err := http.PostForm(a.Server.URL+"/extractions", url.Values{"name": {"m"}, "doc": {fmt.Sprint(d.ID)},
			"strategy": {"tuple"}, "provider": {tc.provider}})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(doc.Find(`[data-testid="form-error"]`).Text(), tc.want) {
			t.Fatalf("%s: status %d, error %q", tc.provider, resp.StatusCode, doc.Find(`[data-testid="form-error"]`).Text())
		}
	}
	if c, _ := a.App.Versions.Counts(context.Background()); c.Versions != 0 {
		t.Fatalf("a refused run left %d versions", c.Versions)
	}
}

// Model-written community reports need a provider: the run is refused,
// saying so, before a version is made.
func TestRunForm_ModelReportsNeedAProvider(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	d, _ := extract.ReadDocument("m.txt", []byte(marley), extract.DefaultMaxBytes)
	d, _, _ = a.AddDocument(context.Background(), d)
	_, page := a.Get(t, "/extractions/new")
	if page.Find(`[data-testid="run-reports"] option[value="model"]`).Length() != 1 {
		t.Fatal("the run form offers no model reports")
	}
	resp, doc := a.PostForm(t, "/extractions", url.Values{"name": {"m"}, "doc": {fmt.Sprint(d.ID)}, "strategy": {"nlp"}, "reports": {"model"}})
	if msg := doc.Find(`[data-testid="form-error"]`).Text(); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, "reports model needs a model provider") {
		t.Fatalf("status %d, error %q", resp.StatusCode, msg)
	}
	if c, _ := a.App.Versions.Counts(context.Background()); c.Versions != 0 {
		t.Fatalf("a refused run left %d versions", c.Versions)
	}
}

func TestLLMRun_SummarisesPiledUpDescriptions(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "Descriptions", Text: "Scrooge is a miser who changes."},
		{Contains: "last answer missed", Text: "<|COMPLETE|>"},
		{Contains: "Alpha", Text: "entity<|#|>Scrooge<|#|>person<|#|>Scrooge counts money.\n<|COMPLETE|>"},
		{Contains: "Beta", Text: "entity<|#|>Scrooge<|#|>person<|#|>Scrooge refuses charity.\n<|COMPLETE|>"},
		{Contains: "Gamma", Text: "entity<|#|>Scrooge<|#|>person<|#|>Scrooge meets three spirits.\n<|COMPLETE|>"},
	}})
	a := MustAppWith(t, app.Providers{GeminiAPIKey: "k", GeminiBaseURL: srv.GeminiURL(), GeminiModel: "gemini-2.5-flash", Concurrency: 1})
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.ChunkSize, cfg.Overlap, cfg.MaxFragments = "tuple", "gemini", 60, 0, 2
	text := "Alpha was the first chapter of the story.\nBeta was the second chapter of it.\nGamma was the third chapter, the end."
	v := a.MustExtract(t, "scrooge", "abc.txt", text, cfg)
	g, _ := a.App.Graphs.Load(context.Background(), v.ID, false)
	if len(g.Nodes) != 1 {
		t.Fatalf("nodes: %+v", g.Nodes)
	}
	n := g.Nodes[0]
	if n.Description != "Scrooge is a miser who changes." {
		t.Fatalf("description not summarised: %q", n.Description)
	}
	frags, _ := n.Properties["fragments"].([]any)
	if len(frags) != 3 {
		t.Fatalf("fragments not kept: %v", n.Properties)
	}
	if v.Calls != 7 { // 3 chunks x (extract + glean) + 1 summary
		t.Fatalf("calls %d", v.Calls)
	}
}

func TestSchemaRun_OffSchemaShown(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "belongs to one of the schema types", Text: `{"entities": [{"name": "Scrooge", "category": "Person", "description": "a miser"}, {"name": "Door-nail", "category": "Ironmongery", "description": "a nail"}]}`},
		{Contains: "give its official name", Text: `{"entities": []}`},
		{Contains: "Find the relations", Text: `{"relations": []}`},
	}})
	a := MustAppWith(t, app.Providers{GeminiAPIKey: "k", GeminiBaseURL: srv.GeminiURL(), GeminiModel: "gemini-2.5-flash", Concurrency: 1})
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider = "schema", "gemini"
	v := a.MustExtract(t, "kag", "m.txt", marley, cfg)
	if v.OffSchema == 0 {
		t.Fatalf("off-schema not counted: %+v", v)
	}
	_, doc := a.Get(t, fmt.Sprintf("/versions/%d?off=1", v.ID))
	rows := doc.Find(`[data-testid="nodes"] tbody tr`)
	if rows.Length() != 1 || !strings.Contains(rows.Text(), "Door-nail") {
		t.Fatalf("off-schema filter shows %d rows: %q", rows.Length(), rows.Text())
	}
	_, all := a.Get(t, fmt.Sprintf("/versions/%d", v.ID))
	if all.Find(`[data-testid="nodes"] tbody tr`).Length() < 2 {
		t.Fatal("the unfiltered table lost nodes")
	}
}
