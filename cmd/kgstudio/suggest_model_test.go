package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// suggestNews are two short news items naming people, companies and
// cities.
var suggestNews = []string{
	`Maria Lopez joined Acme Corporation in March. Maria Lopez now leads the research team at Acme Corporation in Boston.
Daniel Kim left Globex Industries last year. Daniel Kim founded Initech Software with Sarah Chen.`,
	`Sarah Chen works for Initech Software. Sarah Chen met Maria Lopez at a conference in Chicago.
Globex Industries hired Daniel Kim again in June. Acme Corporation and Globex Industries signed an agreement in Boston.`,
}

// suggestRule answers the schema request with a recorded answer.
func suggestRule(t *testing.T, file string) fakellm.Rule {
	return fakellm.Rule{Anywhere: "You design the schema of a knowledge graph", Text: fakellm.Load(t, filepath.Join("..", "..", "app", "testdata", "suggest", file))}
}

// noProviders clears the provider settings the environment may hold.
func noProviders(t *testing.T) {
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL", "DATABASE_URL"} {
		t.Setenv(k, "")
	}
}

// TestSchemaSuggest_Model: with --provider the draft is the model's
// (through Google's genai SDK and the OpenAI client against the replay
// server): KAG DSL on stdout with the model's types, relations and
// properties that `schema import` stores without a problem; asking again
// is answered from the call cache (no new call).
func TestSchemaSuggest_Model(t *testing.T) {
	for _, provider := range []string{"gemini", "openai"} {
		t.Run(provider, func(t *testing.T) {
			noProviders(t)
			srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{suggestRule(t, "schema.json")}})
			if provider == "gemini" {
				t.Setenv("GEMINI_API_KEY", "k-secret")
				t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.GeminiURL())
			} else {
				t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
				t.Setenv("OPENAI_MODEL", "local")
			}
			data := t.TempDir()
			files := []string{writeFile(t, "news1.txt", suggestNews[0]), writeFile(t, "news2.txt", suggestNews[1])}
			args := append([]string{"schema", "suggest", "News", "--provider", provider}, files...)
			out := mustCLI(t, data, args...)
			if srv.Count() != 1 {
				t.Fatalf("%d calls, want 1", srv.Count())
			}
			call := srv.Calls()[0]
			if call.API != provider || !call.JSON || !strings.Contains(call.Messages[len(call.Messages)-1].Content, "Sarah Chen met Maria Lopez") {
				t.Fatalf("the request: %+v", call)
			}
			sc, err := schema.ParseKAGString(out)
			if err != nil {
				t.Fatalf("the draft does not parse: %v\n%s", err, out)
			}
			types := map[string]schema.EntityType{}
			for _, ty := range sc.Types {
				types[ty.Name] = ty
			}
			for _, want := range []string{"Person", "Organization", "City", "ResearchTeam"} {
				if _, ok := types[want]; !ok {
					t.Errorf("no %s type in the draft:\n%s", want, out)
				}
			}
			if r := types["Person"].Relations; len(r) == 0 || r[0].Name != "worksFor" || r[0].Target != "Organization" {
				t.Errorf("Person relations %+v", r)
			}
			if !strings.Contains(out, "joinedOn(joined on): Date") || !strings.Contains(out, "basedIn(based in): City") {
				t.Errorf("the draft lacks the model's joinedOn property or basedIn relation:\n%s", out)
			}
			file := filepath.Join(t.TempDir(), "news.schema")
			if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := mustCLI(t, data, "schema", "import", file); strings.TrimSpace(got) != "News@1" {
				t.Fatalf("import printed %q", got)
			}
			// Again, to a file: the same draft, from the cache.
			draft := filepath.Join(t.TempDir(), "again.schema")
			mustCLI(t, data, append(args, "--out", draft)...)
			again, err := os.ReadFile(draft)
			if err != nil || string(again) != out {
				t.Fatalf("the second draft differs (%v):\n%s", err, again)
			}
			if srv.Count() != 1 {
				t.Fatalf("asking again made %d new calls", srv.Count()-1)
			}
		})
	}
}

// TestSchemaSuggest_ModelMalformed: an answer cut off is refused naming
// the problem, no draft printed; asking again asks the model again (the
// unreadable answer is not served from the cache).
func TestSchemaSuggest_ModelMalformed(t *testing.T) {
	noProviders(t)
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{suggestRule(t, "cutoff.json")}})
	t.Setenv("GEMINI_API_KEY", "k-secret")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.GeminiURL())
	data := t.TempDir()
	file := writeFile(t, "news1.txt", suggestNews[0])
	for i := 1; i <= 2; i++ {
		out, stderr, err := cli(t, "schema", "suggest", "News", "--provider", "gemini", file, "--data", data)
		if err == nil || out != "" {
			t.Fatalf("a cut-off answer gave a draft:\n%s", out)
		}
		if msg := err.Error(); !strings.Contains(msg, "the gemini model's schema could not be read (the answer is cut off)") || !strings.Contains(msg, "nothing was drafted") {
			t.Fatalf("error %q", msg)
		}
		if strings.Contains(stderr, "k-secret") {
			t.Fatal("the key was logged")
		}
		if srv.Count() != i {
			t.Fatalf("ask %d: %d calls", i, srv.Count())
		}
	}
}

// TestSchemaSuggest_NoProvider: a provider that is not configured is
// refused naming what to set; so is an unknown one, and --model without
// a provider.
func TestSchemaSuggest_NoProvider(t *testing.T) {
	noProviders(t)
	data := t.TempDir()
	file := writeFile(t, "news1.txt", suggestNews[0])
	for provider, want := range map[string]string{
		"gemini": "the gemini provider is not configured: set GEMINI_API_KEY",
		"openai": "the openai provider is not configured: set OPENAI_BASE_URL",
		"claude": `unknown provider "claude"`,
	} {
		if _, err := runCLI(t, data, "schema", "suggest", "News", "--provider", provider, file); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--provider %s: %v, want %q", provider, err, want)
		}
	}
	if _, err := runCLI(t, data, "schema", "suggest", "News", "--model", "gpt-4o", file); err == nil || !strings.Contains(err.Error(), "--model needs --provider") {
		t.Errorf("--model alone: %v", err)
	}
	// Offline still drafts.
	if out := mustCLI(t, data, "schema", "suggest", "News", "--provider", "none", file); !strings.Contains(out, "Person: EntityType") {
		t.Errorf("offline draft:\n%s", out)
	}
}
