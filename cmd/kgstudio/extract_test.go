package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

type extractJSON struct {
	Extraction string `json:"extraction"`
	Version    int    `json:"version"`
	ID         int    `json:"id"`
	Status     string `json:"status"`
	Nodes      int    `json:"nodes"`
	Edges      int    `json:"edges"`
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const marleyText = `Marley was dead, to begin with. There is no doubt whatever about that. The register of his burial was signed by the clergyman, the clerk, the undertaker, and the chief mourner. Scrooge signed it. Old Marley was as dead as a door-nail. Bob Cratchit worked for Scrooge and Marley.`

func TestExtract_CLI(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", "\ufeff"+marleyText)
	load := func(p string) string { return fakellm.Load(t, filepath.Join("..", "..", p)) }
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "last answer missed", Anywhere: "Marley was dead", Text: load("handlers/testdata/marley_glean.txt")},
		{Contains: "belongs to one of the schema types", Text: load("extract/kag/testdata/recorded/en_ner.json")},
		{Contains: "give its official name", Text: load("extract/kag/testdata/recorded/en_std.json")},
		{Contains: "Find the relations", Text: load("extract/kag/testdata/recorded/en_relation.json")},
		{Contains: "Marley was dead", Text: load("handlers/testdata/marley_extract.txt")},
	}})
	t.Setenv("GEMINI_API_KEY", "k-secret")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.GeminiURL())
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "local")

	cases := []struct {
		name  string
		args  []string
		calls int
	}{
		{"NLP", []string{"--name", "offline"}, 0},
		{"TupleGemini", []string{"--name", "tuple", "--strategy", "tuple", "--provider", "gemini"}, 2},
		{"SchemaOpenAI", []string{"--name", "kag", "--strategy", "schema", "--provider", "openai"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.Count()
			args := append([]string{"extract", "--data", data, "--json"}, tc.args...)
			out, err := cliOut(t, append(args, doc)...)
			if err != nil {
				t.Fatal(err)
			}
			var res extractJSON
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("output %q: %v", out, err)
			}
			if res.Status != "done" || res.Nodes == 0 || res.Version != 1 || res.ID == 0 {
				t.Fatalf("result %+v", res)
			}
			calls := srv.Count() - before
			if tc.calls > 0 && calls != tc.calls {
				t.Fatalf("%d provider calls, want %d", calls, tc.calls)
			}
			if tc.name == "SchemaOpenAI" && calls < 2 {
				t.Fatalf("schema strategy made %d calls", calls)
			}
			// A second run of the same config is served from the cache.
			before = srv.Count()
			out, err = cliOut(t, append(args, doc)...)
			if err != nil {
				t.Fatal(err)
			}
			json.Unmarshal([]byte(out), &res)
			if res.Version != 2 || srv.Count() != before {
				t.Fatalf("re-run: version %d, %d new calls", res.Version, srv.Count()-before)
			}
		})
	}
	t.Run("Errors", func(t *testing.T) {
		if _, err := cliOut(t, "extract", "--data", data, doc); err == nil || !strings.Contains(err.Error(), "--name") {
			t.Fatalf("missing name: %v", err)
		}
		bin := writeFile(t, "x.txt", "abc\x00def")
		if _, err := cliOut(t, "extract", "--data", data, "--name", "b", bin); err == nil || !strings.Contains(err.Error(), "binary") {
			t.Fatalf("binary file: %v", err)
		}
		if _, err := cliOut(t, "extract", "--data", data, "--name", "s", "--strategy", "magic", doc); err == nil || !strings.Contains(err.Error(), "unknown strategy") {
			t.Fatalf("bad strategy: %v", err)
		}
		if _, err := cliOut(t, "extract", "--db", "postgres://u:hunter2@127.0.0.1:1/x?connect_timeout=1", "--name", "n", doc); err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("unreachable db: %v", err)
		}
	})
}

// Bad settings are refused before anything is stored, with the message the
// run form and the JSON API give (extract.Config.Validate's).
func TestExtract_RefusesBadSettings(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", marleyText)
	cfg := extract.DefaultConfig()
	cfg.ChunkSize, cfg.Overlap, cfg.Concurrency = 10, 20, 1000
	want := extract.MessageOf(cfg.Validate())
	_, err := runCLI(t, data, "extract", "--name", "bad", "--chunk-size", "10", "--overlap", "20", "--concurrency", "1000", doc)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("extract with bad settings: %v, want %q", err, want)
	}
	st := mustOpen(t, data)
	if c, err := st.Versions.Counts(context.Background()); err != nil || c.Documents+c.Versions != 0 {
		t.Fatalf("a refused run stored %+v (%v)", c, err)
	}
}

// A foreground extract stores its version's query indexes before it
// returns, so the first question of any process reads them; --no-index
// leaves them to that question. An edit (as a merge and an import) stores
// its new version's.
func TestExtract_StoresQueryIndexes(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", marleyText)
	if _, err := runCLI(t, data, "extract", "--name", "indexed", "--embedder", "offline", doc); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, data, "extract", "--name", "bare", "--embedder", "offline", "--no-index", doc); err != nil {
		t.Fatal(err)
	}
	// A version made by a command without a run stores them too.
	edits := writeFile(t, "edits.json", `[{"op":"rename","key":"scrooge","name":"Ebenezer Scrooge"}]`)
	if _, err := runCLI(t, data, "edit", "bare@1", edits); err != nil {
		t.Fatal(err)
	}
	a := mustOpen(t, data)
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		version int
		want    bool
	}{{"indexed", 1, true}, {"bare", 1, false}, {"bare", 2, true}} {
		v, err := a.Versions.ByLabel(ctx, c.name, c.version)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := a.Queries.IndexesStored(ctx, v); err != nil || got != c.want {
			t.Errorf("%s@%d: indexes stored %v (%v), want %v", c.name, c.version, got, err, c.want)
		}
	}
}
